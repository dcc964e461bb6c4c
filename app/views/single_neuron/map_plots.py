"""The single-neuron map's plots, one function each: S(0, t) and the loss left over τ × δ,
and rows of the map as curves across δ."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ...core.panel import Figure, Panel
from ...ui import figures as fig

if TYPE_CHECKING:
    from .map import Controls, Map

#: the δ axis is linear for |δ| below this and logarithmic above (x = arsinh(δ/δ₀)): being
#: balanced is relative to the size of the weights, |δ| ≪ ‖β₀‖ = τ² — down to ~1e-3 at the
#: smallest τ — so on a linear δ axis the rich band would be thinner than one cell
DELTA_LINEAR = 1e-4


def delta_position(delta):
    """Where δ lies on the map's horizontal axis (linear near 0, logarithmic beyond)."""
    return np.arcsinh(np.asarray(delta, dtype=float) / DELTA_LINEAR)


def delta_at(position):
    """The δ at a position of the map's horizontal axis (inverse of :func:`delta_position`)."""
    return DELTA_LINEAR * np.sinh(np.asarray(position, dtype=float))


def _delta_ticks(spread: float, every: int = 3) -> tuple[list[float], list[str]]:
    """A tick at 0 and at every decade of |δ| up to ``spread``; a label at 0 and at every
    ``every``-th decade down from the largest (five labels fit upright on a phone)."""
    powers = [10.0**k for k in range(-3, 3) if 10.0**k <= spread * 1.0001]
    shown = set(powers[::-1][::every])
    values = [-p for p in reversed(powers)] + [0.0] + powers
    texts = [f"{v:g}".replace("-", "−") if v == 0 or abs(v) in shown else "" for v in values]
    return [float(delta_position(v)) for v in values], texts


def _labels(controls: Controls, result: Map) -> list[tuple[float, float, str]]:
    if not controls.labels:
        return []
    edge = float(delta_position(controls.spread))
    low, high = float(result.scales[0]), float(result.scales[-1])
    small = low * (high / low) ** 0.12
    return [
        (0.85 * edge, math.sqrt(low * high), "lazy"),
        (0.0, small, "rich"),
        (-0.85 * edge, small, "delayed rich"),
    ]


def _portrait(controls: Controls, result: Map, z: np.ndarray, **options) -> Figure:
    deltas = np.broadcast_to(result.deltas, z.shape)
    return fig.portrait(
        z,
        delta_position(result.deltas),
        result.scales,
        y_title="initial scale τ",
        log_y=True,
        x_ticks=_delta_ticks(controls.spread),
        customdata=deltas,
        **options,
    )


def draw_kernel(controls: Controls, result: Map) -> Figure:
    distance = result.portrait.kernel_distance
    return _portrait(
        controls,
        result,
        distance,
        # (which side is which, and where the axis turns logarithmic: the explanation)
        x_title="relative scale δ",
        colorbar="S(0, t)",
        zmin=0.0,
        zmax=max(1.0, float(np.max(distance))),
        labels=_labels(controls, result),
        hover="δ = %{customdata:.3g}, τ = %{y:.3g}: S = %{z:.3g}",
        height=420,
    )


def draw_loss(controls: Controls, result: Map) -> Figure:
    return _portrait(
        controls,
        result,
        result.loss_ratio_log10,
        x_title="relative scale δ",
        colorbar="log₁₀ L(t)/L(0)",
        zmax=0.0,
        colorscale=fig.LOSS_SCALE,
        hover="δ = %{customdata:.3g}, τ = %{y:.3g}: log₁₀ L(t)/L(0) = %{z:.3g}",
        height=360,
    )


def draw_slices(controls: Controls, result: Map) -> Figure:
    scales, distance = result.scales, result.portrait.kernel_distance
    x = delta_position(result.deltas)
    rows = np.unique(np.linspace(0, len(scales) - 1, 5).round().astype(int))
    colors = fig.colors_for(np.log(scales[rows]))
    slices = [
        fig.exact_trace(x, distance[row], f"τ = {scales[row]:.2g}", color)
        for row, color in zip(rows, colors, strict=True)
    ]
    figure = fig.figure(
        slices,
        x_title="relative scale δ",
        y_title="S(0, t)",
        height=360,
        hovermode="closest",
        yaxis=fig.axis("S(0, t)", range=fig.UNIT_RANGE),  # S on its whole range, as the map
    )
    ticks = _delta_ticks(controls.spread)
    figure["layout"]["xaxis"] |= {"tickmode": "array", "tickvals": ticks[0], "ticktext": ticks[1]}
    return figure


PANELS = (
    Panel(
        "kernel",
        "Kernel distance S(0, t) over scale τ and δ",
        r"Each cell is one exact trajectory from $\|\beta_0\| = \tau^2$ with conserved "
        r"$\delta = \eta_w a^2 - \eta_a\|w\|^2$; its colour is "
        r"$S(0,t) = 1 - \langle M_0, M_t\rangle_F / (\|M_0\|_F\|M_t\|_F)$. Dark: the kernel has "
        r"not moved (lazy); bright: it has (rich). Downstream ($\delta < 0$) on the left, "
        r"upstream on the right; the $\delta$ axis is logarithmic beyond $\pm 10^{-4}$.",
        draw_kernel,
        height=420,
        wide=True,
    ),
    Panel(
        "loss",
        "Loss left at time t",
        r"$\log_{10}$ of $\mathcal{L}(t)/\mathcal{L}(0)$ with $\mathcal{L} = "
        r"\tfrac12\|\beta-\beta_*\|^2$: how much of the task each cell has learned by t.",
        draw_loss,
        height=360,
    ),
    Panel(
        "slices",
        "S(0, t) across δ at several scales",
        r"Rows of the map: for each τ, the kernel distance as δ goes from downstream to "
        r"upstream.",
        draw_slices,
        height=360,
    ),
)
