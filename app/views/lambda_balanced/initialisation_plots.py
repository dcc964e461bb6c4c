"""The LeCun start's plots: the relative deviation from λI against the outer widths (log axes,
with a √(h/d) guide), and the balance matrix's eigenvalues at the base widths against λ."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from solvers import lambda_balanced as lb

from ...core.panel import Figure, Panel
from ...ui import figures as fig

if TYPE_CHECKING:
    from .initialisation import Controls


def width_ratio(result: lb.LecunBalance) -> np.ndarray:
    """(K,) the narrower outer width over the hidden width, min(dᵢ, dₒ)/h, of each network."""
    return np.minimum(result.d_in, result.d_out) / result.hidden


def draw_deviation(controls: Controls, result: lb.LecunBalance) -> Figure:
    ratio, median = width_ratio(result), result.median_deviation
    # the guide passes through the widest network's median: its slope is what it shows
    guide = median[-1] * np.sqrt(ratio[-1] / ratio)
    draws = result.deviation.shape[1]
    data = [
        fig.exact_trace(ratio, guide, "∝ √(h/d)", fig.COLORS["kernel"], dash="dash", width=1.3),
        {
            "type": "scatter",
            "mode": "markers",
            "x": np.repeat(ratio, draws),
            "y": result.deviation.ravel(),
            "name": f"each of {draws} draws",
            "marker": {"size": 6, "color": fig.COLORS["kernel"], "opacity": 0.7},
            "hovertemplate": "%{y:.3g}<extra>one draw</extra>",
        },
        fig.exact_trace(ratio, median, "median"),
    ]
    data[-1]["mode"] = "lines+markers"
    figure = fig.figure(
        data,
        x_title="narrower outer width / hidden width",
        y_title="‖B − λI‖₂ / ‖B‖₂",
        log_x=True,
        log_y=True,
        height=320,
    )
    figure["layout"]["xaxis"].update(fig.log_ticks(ratio))
    figure["layout"]["yaxis"].update(fig.log_ticks([*result.deviation.ravel(), *guide]))
    return figure


def draw_spectrum(controls: Controls, result: lb.LecunBalance) -> Figure:
    eigenvalues = result.eigenvalues
    index = np.arange(1, eigenvalues.size + 1)
    expected = float(result.expected_lam[0])
    ends = [1, eigenvalues.size]
    data = [
        fig.exact_trace(
            ends, [expected, expected], "dₒ/h − 1", fig.COLORS["target"], dash="dash", width=1.5
        ),
        fig.exact_trace(
            ends,
            [result.lam[0, 0]] * 2,
            "λ (their mean)",
            fig.COLORS["descent"],
            dash="dot",
            width=1.5,
        ),
        {
            "type": "scatter",
            "mode": "markers",
            "x": index,
            "y": eigenvalues,
            "name": "eigenvalues of B",
            "marker": {"size": 5, "color": fig.COLORS["exact"]},
            "hovertemplate": "%{y:.4g}<extra>eigenvalue %{x}</extra>",
        },
    ]
    return fig.figure(data, x_title="eigenvalue, in ascending order", y_title="", height=300)


PANELS = (
    Panel(
        "deviation",
        "How far from λ-balanced, against width",
        r"The relative deviation $\|B - \lambda I\|_2 / \|B\|_2$ of "
        r"$B = W_2^\top W_2 - W_1W_1^\top$ from the nearest scaled identity ($\lambda$: the "
        r"mean eigenvalue of $B$), as "
        r"$d_\text{in}$ and $d_\text{out}$ grow together and $h$ stays; 0 is exactly "
        r"$\lambda$-balanced. Dashed: a slope of $-\tfrac12$, the Marchenko–Pastur decay "
        r"$\propto\sqrt{h/d}$ of a Gram matrix's spectrum about its mean.",
        draw_deviation,
        height=320,
    ),
    Panel(
        "spectrum",
        "The balance matrix's eigenvalues",
        r"The $h$ eigenvalues of $B$ for one draw at $d_\text{in} \to h \to d_\text{out}$. An "
        r"exactly $\lambda$-balanced start has all of them at $\lambda$; Theorem A.3 puts their "
        r"mean at $d_\text{out}/h - 1$ (dashed). When $d_\text{in} < h$, $W_1W_1^\top$ has rank "
        r"$d_\text{in}$ and pulls down at most that many: the steep left end.",
        draw_spectrum,
    ),
)
