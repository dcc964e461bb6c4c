"""The λ side-by-side view's plots, one function each: the loss on the task being learnt, the
loss on the first task (forgetting), the first task's modes in the network and the kernel
distance — one curve per λ, task switches marked."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...core.panel import Figure, Panel
from ...ui import figures as fig

if TYPE_CHECKING:
    from .sequences import Comparison, Controls, Curves

#: line styles of the first task's modes, largest first
MODE_DASHES = ("solid", "dash", "dot")


def _series(result: Comparison) -> list[tuple[str, Curves, str]]:
    """(legend name, curves, colour) of every drawn network."""
    colours = fig.colors_for([c.lam for c in result.curves])
    return [(f"λ = {c.lam:g}", c, colour) for c, colour in zip(result.curves, colours, strict=True)]


def _time_title(result: Comparison) -> str:
    return "time t since re-balancing" if result.pretraining is not None else "time t"


def _switches(result: Comparison) -> list[dict]:
    """A faint vertical line at each task switch."""
    return [
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": float(t),
            "x1": float(t),
            "y0": 0,
            "y1": 1,
            "line": {"color": "#8d99ae", "width": 1, "dash": "dash"},
        }
        for t in result.switches
    ]


def _floor(result: Comparison, quantity: str) -> float:
    """A log axis cannot show 0, and below ~1e-28 of the largest value only rounding is left."""
    largest = max(float(np.max(getattr(c, quantity))) for _, c, _ in _series(result))
    return 1e-28 * largest if largest > 0 else 1e-300


def _over_time(result: Comparison, quantity: str, y_title: str, log_y: bool) -> Figure:
    floor = _floor(result, quantity) if log_y else -np.inf
    data = [
        fig.exact_trace(c.t, np.maximum(getattr(c, quantity), floor), name, colour, group=name)
        for name, c, colour in _series(result)
    ]
    return fig.figure(
        data,
        x_title=_time_title(result),
        log_y=log_y,
        shapes=_switches(result),
        yaxis=fig.axis(y_title, log=log_y, automargin=True),
    )


def draw_loss(controls: Controls, result: Comparison) -> Figure:
    figure = _over_time(result, "loss", "loss on the task being learnt", log_y=True)
    floor = _floor(result, "loss")
    for name, c, colour in _series(result):
        if c.descent_t is not None:
            figure["data"].append(
                fig.descent_trace(
                    c.descent_t,
                    np.maximum(c.descent_loss, floor),
                    f"gradient descent, {name}",
                    colour,
                    group=name,
                    show_legend=False,
                )
            )
    return figure


def draw_first(controls: Controls, result: Comparison) -> Figure:
    return _over_time(result, "first_loss", "loss on the first task", log_y=True)


def draw_kernel(controls: Controls, result: Comparison) -> Figure:
    return _over_time(result, "kernel_distance", "S(0, t)", log_y=False)


def draw_modes(controls: Controls, result: Comparison) -> Figure:
    data = []
    series = _series(result)
    end = max(float(c.t[-1]) for _, c, _ in series)
    for mode, value in enumerate(result.sigma):
        data.append(
            fig.exact_trace(
                [0.0, end],
                [value, value],
                "first task's σᵢ" if mode == 0 else f"σ{mode + 1}",
                fig.COLORS["target"],
                dash="dash",
                width=1.2,
                group="sigma",
                show_legend=mode == 0,
            )
        )
    for name, c, colour in series:
        for mode in range(c.strengths.shape[1]):
            trace = fig.exact_trace(
                c.t, c.strengths[:, mode], name, colour, group=name, show_legend=mode == 0
            )
            trace["line"]["dash"] = MODE_DASHES[mode % len(MODE_DASHES)]
            trace["hovertemplate"] = f"%{{y:.4g}}<extra>{name}, mode {mode + 1}</extra>"
            data.append(trace)
    return fig.figure(
        data,
        x_title=_time_title(result),
        height=320,
        shapes=_switches(result),
        yaxis=fig.axis("uᵢᵀW₂W₁vᵢ", automargin=True),
    )


PANELS = (
    Panel(
        "loss",
        "Loss on the task being learnt",
        r"$\tfrac12\|\Sigma_{yx}^{(k)} - W_2W_1\|_F^2$ for the task $k$ being learnt at each "
        r"time, one curve per $\lambda$; dashed lines mark the task switches. Open circles: "
        "gradient descent through the same sequence.",
        draw_loss,
    ),
    Panel(
        "first",
        "Loss on the first task",
        r"$\tfrac12\|\Sigma_{yx}^{(1)} - W_2W_1\|_F^2$ all along: how much of the first task "
        "is forgotten while later tasks are learnt.",
        draw_first,
    ),
    Panel(
        "modes",
        "The first task's modes in the network",
        r"$u_i^\top W_2W_1 v_i$ for the first task's top singular vectors $u_i, v_i$ (solid, "
        r"dashed, dotted: modes 1, 2, 3); dashed green: its $\sigma_i$. A sigmoid is rich, an "
        r"exponential lazy; a reversed mode must cross 0 to reach $-\sigma_i$.",
        draw_modes,
        height=320,
    ),
    Panel(
        "kernel",
        "Kernel distance S(0, t)",
        r"$S(0,t) = 1 - \dfrac{\langle K_0, K_t\rangle_F}{\|K_0\|_F\|K_t\|_F}$ of the NTK "
        r"$K = W_2W_2^\top \otimes I + I \otimes W_1^\top W_1$ from each network's start "
        "(fine-tuning: from the re-balanced network). Near 0: lazy; large: rich.",
        draw_kernel,
    ),
)
