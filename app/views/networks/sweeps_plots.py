"""The sweeps view's plots, one function each: the layer alignment at the end against the swept
value (dotted: at the start), the first layer's relative change, the accuracy and the final loss.
A sweep over widths draws one line per scaling (solid: kernel ⁻, dashed: feature learning ⁺)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...core.panel import Figure, Panel
from ...ui import figures as fig

if TYPE_CHECKING:
    from .sweeps import Controls, SweepRun

#: one colour per scheme of a width sweep (as the finite-width map's), one per layer pair
SCHEME_COLORS = {"NTK": "#1f4e79", "Kaiming": "#d1495b", "Xavier": "#2a9d8f"}
PAIR_COLORS = ("#1f4e79", "#e76f51", "#2a9d8f", "#6a4c93", "#8a6d3b")
TRAIN, TEST = fig.COLORS["exact"], fig.COLORS["feature"]
X_TITLES = {
    "sigma": "initial scale σ",
    "scale": "initial-scale exponent c  (σ_w² = 10^c)",
    "widths": "width d  (κ = d/100)",
}


def _x(controls: Controls) -> tuple[str, bool]:
    return X_TITLES[controls.sweep], controls.sweep != "scale"


def _row_style(name: str) -> tuple[str, str | None]:
    """(colour, dash) of a width sweep's row: the scheme's colour, dashed for ⁺."""
    return SCHEME_COLORS[name.rstrip("⁻⁺")], "dash" if name.endswith("⁺") else None


def _line(x, y, name: str, color: str, dash: str | None = None, what: str = "") -> dict:
    trace = fig.exact_trace(np.asarray(x, float), np.asarray(y, float), name, color, dash=dash)
    trace["mode"] = "lines+markers"
    trace["marker"] = {"size": 6}
    trace["hovertemplate"] = f"{name}: %{{x:.3g}}, {what} = %{{y:.4g}}<extra></extra>"
    return trace


def _figure(controls: Controls, data: list[dict], y_title: str, log_y: bool = False) -> Figure:
    x_title, log_x = _x(controls)
    figure = fig.figure(
        data,
        x_title=x_title,
        y_title=y_title,
        log_x=log_x,
        log_y=log_y,
        height=360,
        hovermode="closest",
    )
    layout = figure["layout"]
    # numbers as they are (0.3, not plotly's "3" between the decades' labels)
    if log_x:
        layout["xaxis"] |= fig.log_ticks(np.concatenate([trace["x"] for trace in data]))
    if log_y:
        layout["yaxis"] |= fig.log_ticks(np.concatenate([trace["y"] for trace in data]))
    if controls.sweep == "scale":  # Theorem 2: kernel phase for c > 0
        layout["shapes"] = [
            {
                "type": "line",
                "x0": 0,
                "x1": 0,
                "yref": "paper",
                "y0": 0,
                "y1": 1,
                "line": {"color": "#8d99ae", "dash": "dot", "width": 1.5},
            }
        ]
    return figure


def draw_zeta(controls: Controls, result: SweepRun) -> Figure:
    sweep, x = result.sweep, result.sweep.values
    data = []
    for row, name in enumerate(sweep.rows):
        for pair in range(sweep.final_alignment.shape[-1]):
            if name:
                color, dash = _row_style(name)
                label = name
            else:
                color, dash = PAIR_COLORS[pair % len(PAIR_COLORS)], None
                label = f"ζ between layers {pair + 1} and {pair + 2}"
            data.append(_line(x, sweep.final_alignment[row, :, pair], label, color, dash, "ζ"))
    for pair in range(sweep.initial_alignment.shape[-1]):
        start = {"color": "#6c757d", "dash": "dot", "width": 1.5}
        trace = _line(x, sweep.initial_alignment[0, :, pair], "at the start", "#6c757d", "dot")
        trace["line"], trace["showlegend"] = start, pair == 0
        data.append(trace)
    return _figure(controls, data, "layer alignment ζ at the end")


def _fit_label(name: str, slope: float | None) -> str:
    return name if slope is None else f"{name}: δ = {-slope:.2f}".replace("-", "−")


def draw_weights(controls: Controls, result: SweepRun) -> Figure:
    sweep, x = result.sweep, result.sweep.values
    data = []
    for row, name in enumerate(sweep.rows):
        color, dash = _row_style(name) if name else (TRAIN, None)
        label = _fit_label(name, result.fits[row]) if name else "first layer"
        data.append(_line(x, sweep.weight_change[row], label, color, dash, "‖ΔW₁‖/‖W₁(0)‖"))
    return _figure(controls, data, "‖W₁ − W₁(0)‖ / ‖W₁(0)‖", log_y=True)


def draw_accuracy(controls: Controls, result: SweepRun) -> Figure:
    sweep, x = result.sweep, result.sweep.values
    data = []
    for row, name in enumerate(sweep.rows):
        if name:  # a width sweep: the test accuracy of each scaling (their Fig. 4, left)
            color, dash = _row_style(name)
            shown = sweep.train_accuracy if sweep.test_accuracy is None else sweep.test_accuracy
            data.append(_line(x, shown[row], name, color, dash, "accuracy"))
            continue
        data.append(_line(x, sweep.train_accuracy[row], "training", TRAIN, None, "accuracy"))
        if sweep.test_accuracy is not None:
            data.append(_line(x, sweep.test_accuracy[row], "test", TEST, "dash", "accuracy"))
    title = "test accuracy" if sweep.rows[0] and sweep.test_accuracy is not None else "accuracy"
    figure = _figure(controls, data, title)
    figure["layout"]["yaxis"]["range"] = [0, 1.02]
    return figure


def draw_loss(controls: Controls, result: SweepRun) -> Figure:
    sweep, x = result.sweep, result.sweep.values
    floor = 1e-12 * max(float(np.max(sweep.initial_loss)), 1e-300)
    data = []
    for row, name in enumerate(sweep.rows):
        color, dash = _row_style(name) if name else (TRAIN, None)
        label = name or "training, at the end"
        data.append(_line(x, np.maximum(sweep.loss[row], floor), label, color, dash, "loss"))
    data.append(
        _line(x, np.maximum(sweep.initial_loss[0], floor), "at the start", "#6c757d", "dot", "loss")
    )
    return _figure(controls, data, "training loss (1/2n)Σ‖f − y‖²", log_y=True)


PANELS = (
    Panel(
        "zeta",
        "Layer alignment at the end of training",
        r"$\zeta = \|W_{l+1}W_l\|_2/(\|W_{l+1}\|_2\|W_l\|_2)$ of each pair of consecutive layers "
        r"after training, against the swept value; dotted: at the start (a random start's "
        r"$\zeta$ depends on the layers' shapes, not on their scale). Xu & Ziyin's Fig. 2b: the "
        r"layers align during training at small $\sigma$ and stop aligning as $\sigma$ grows.",
        draw_zeta,
        height=360,
    ),
    Panel(
        "weights",
        "How far the first layer moves: ‖W₁ − W₁(0)‖/‖W₁(0)‖",
        r"The first layer's relative change after training (their Figs. 4 and 5, right). Over "
        r"widths the legend gives $\delta$ of a least-squares fit $\propto d^{-\delta}$ on the "
        r"log-log axes; their App. B.4 predicts $\delta = \tfrac12, 1, 2$ for NTK⁻, Xavier⁻, "
        r"Kaiming⁻ and 0 for the feature-learning scalings (⁺, dashed). Over $c$ the dotted line "
        r"is $c = 0$: to its right the kernel phase (their Theorem 2).",
        draw_weights,
        height=360,
    ),
    Panel(
        "accuracy",
        "Accuracy after training",
        r"The share of images classified right (the largest output), on the training and the "
        r"test images; over widths the test accuracy of each scaling (their Fig. 4, left).",
        draw_accuracy,
        height=360,
    ),
    Panel(
        "loss",
        "Training loss at the start and the end",
        r"Whether each network has learned the training images in the steps it had: the "
        r"mean-square loss at the end (the dotted line: at the start, for the first row).",
        draw_loss,
        height=360,
    ),
)
