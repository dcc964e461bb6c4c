"""Single-neuron phase portrait (Kunin et al., *Get rich quick*, Fig. 1b): the kernel distance
and the loss at a time t over a whole grid of initial scales τ and conserved δ, every cell an
exact solution. Clicking a cell opens that trajectory in the single-neuron view."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from dash import html

from solvers import single_neuron as sn

from .. import components
from .. import figures as fig
from ..state import Field, StateSpec
from ..view import Panel, Preset, Rendered, View, nearest_index
from . import single_neuron as trajectory

#: the grid stays inside the trajectory view's ranges, so a clicked cell opens unclamped
TAU_RANGE = (trajectory.SPEC.by_name["tau"].low, trajectory.SPEC.by_name["tau"].high)
DELTA_LIMIT = trajectory.SPEC.by_name["delta"].high
#: the δ axis is linear for |δ| below this and logarithmic above (x = arsinh(δ/δ₀)): being
#: balanced is relative to the size of the weights, |δ| ≪ ‖β₀‖ = τ² — down to ~1e-3 at the
#: smallest τ — so on a linear δ axis the rich band would be thinner than one cell
DELTA_LINEAR = 1e-4

SPEC = StateSpec(
    (
        Field(
            "t",
            "time t of the map",
            "float",
            10.0,
            0.01,
            1000.0,
            log=True,
            help="Each cell shows its trajectory's state at this time",
        ),
        Field("spread", "largest |δ|", "float", 10.0, 0.5, DELTA_LIMIT, step=0.5),
        Field(
            "resolution",
            "cells per side",
            "int",
            64,
            8,
            160,
            step=8,
            help="A 64 × 64 map is 4096 exact solutions",
        ),
        Field("init_angle", "direction of β₀ (°)", "float", 180.0, -180.0, 180.0, step=1.0),
        Field("target_norm", "target size ‖β*‖", "float", 1.0, 0.1, 5.0, step=0.05),
        Field("target_angle", "direction of β* (°)", "float", 90.0, -180.0, 180.0, step=1.0),
        Field("eta_ratio", "learning-rate ratio η_a/η_w", "float", 1.0, 0.01, 100.0, log=True),
        Field("labels", "write the regimes on the map", "bool", True, physics=False),
    )
)

GROUPS = (
    ("Map", ("t", "spread", "resolution", "labels")),
    ("Initialisation and target", ("init_angle", "target_norm", "target_angle", "eta_ratio")),
)

PRESETS = (
    Preset(
        "Fig. 1b — scale × δ, Fig. 3 set-up",
        "β* = [0, 1], β₀ ∝ [−1, 0]: lazy upstream, rich near δ = 0, delayed rich downstream.",
        {"t": 10.0, "spread": 10.0, "init_angle": 180.0, "target_angle": 90.0},
    ),
    Preset(
        "Early: everything still lazy",
        "At t = 0.1 no kernel has moved far yet; the downstream plateau has not ended.",
        {"t": 0.1, "spread": 10.0},
    ),
    Preset(
        "Late: delayed rich has caught up",
        "At t = 200 the downstream cells have left their plateau and moved their kernel.",
        {"t": 200.0, "spread": 10.0},
    ),
    Preset(
        "Aligned start: little to learn",
        "β₀ already points at β*: the kernel mostly rescales, S stays small almost everywhere.",
        {"t": 10.0, "init_angle": 90.0, "target_angle": 90.0},
    ),
)

PANELS = (
    Panel(
        "kernel",
        "Kernel distance S(0, t) over scale τ and δ",
        r"Each cell is one exact trajectory from $\|\beta_0\| = \tau^2$ with conserved "
        r"$\delta = \eta_w a^2 - \eta_a\|w\|^2$; its colour is "
        r"$S(0,t) = 1 - \langle M_0, M_t\rangle_F / (\|M_0\|_F\|M_t\|_F)$. Dark: the kernel has "
        r"not moved (lazy); bright: it has (rich).",
        height=420,
        wide=True,
    ),
    Panel(
        "loss",
        "Loss left at time t",
        r"$\log_{10}$ of $\mathcal{L}(t)/\mathcal{L}(0)$ with $\mathcal{L} = "
        r"\tfrac12\|\beta-\beta_*\|^2$: how much of the task each cell has learned by t.",
        height=360,
    ),
    Panel(
        "slices",
        "S(0, t) across δ at a few scales",
        r"Rows of the map: for each τ, the kernel distance as δ goes from downstream to "
        r"upstream.",
        height=360,
    ),
)

INTRO = (
    r"Kunin et al.'s map of lazy and rich learning for one hidden neuron, computed exactly: "
    r"the overall scale $\tau$ of the initialisation against the conserved relative scale "
    r"$\delta$. Upstream ($\delta > 0$) the kernel stays put — lazy; balanced ($\delta \approx "
    r"0$) from a small start it moves a lot — rich; downstream ($\delta < 0$) it is lazy at "
    r"first and rich later — delayed rich. Move the time slider to watch the boundary shift."
)


def _unit(degrees: float) -> np.ndarray:
    radians = math.radians(degrees)
    return np.array([math.cos(radians), math.sin(radians)])


def delta_position(delta):
    """Where δ lies on the map's horizontal axis (linear near 0, logarithmic beyond)."""
    return np.arcsinh(np.asarray(delta, dtype=float) / DELTA_LINEAR)


def delta_at(position):
    """The δ at a position of the map's horizontal axis (inverse of :func:`delta_position`)."""
    return DELTA_LINEAR * np.sinh(np.asarray(position, dtype=float))


def grid(values: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """(scales τ, deltas δ) of the map: τ geometric, δ evenly spaced on the map's δ axis
    (a column at δ = 0 exactly when the count is odd)."""
    count = values["resolution"]
    scales = np.geomspace(*TAU_RANGE, count)
    edge = float(delta_position(values["spread"]))
    deltas = delta_at(np.linspace(-edge, edge, count))
    return scales, deltas


def _delta_ticks(spread: float) -> tuple[list[float], list[str]]:
    powers = [10.0**k for k in range(-3, 3) if 10.0**k <= spread * 1.0001]
    values = [-p for p in reversed(powers)] + [0.0] + powers
    texts = [f"{v:g}".replace("-", "−") for v in values]
    return [float(delta_position(v)) for v in values], texts


def compute(values: Mapping[str, Any]) -> dict:
    scales, deltas = grid(values)
    eta_a = math.sqrt(values["eta_ratio"])
    start = time.perf_counter()
    result = sn.portrait(
        scales,
        deltas,
        values["target_norm"] * _unit(values["target_angle"]),
        _unit(values["init_angle"]),
        values["t"],
        eta_a=eta_a,
        eta_w=1.0 / eta_a,
    )
    elapsed = time.perf_counter() - start
    with np.errstate(divide="ignore"):
        initial = np.where(result.initial_loss > 0, result.initial_loss, 1.0)
        remaining = np.log10(result.loss / initial)
    return {
        "scales": scales,
        "deltas": deltas,
        "kernel_distance": result.kernel_distance,
        "loss": result.loss,
        "loss_ratio_log10": np.clip(remaining, -12.0, None),
        "near_saddle": int(np.count_nonzero(result.saddle_margin < 1e-12)),
        "milliseconds": 1e3 * elapsed,
    }


def _labels(values: Mapping[str, Any]) -> list[tuple[float, float, str]]:
    if not values["labels"]:
        return []
    edge, (low, high) = float(delta_position(values["spread"])), TAU_RANGE
    small = low * (high / low) ** 0.12
    return [
        (0.85 * edge, math.sqrt(low * high), "lazy"),
        (0.0, small, "rich"),
        (-0.85 * edge, small, "delayed rich"),
    ]


def render(values: Mapping[str, Any], result: dict) -> Rendered:
    scales, deltas = result["scales"], result["deltas"]
    distance = result["kernel_distance"]
    x = delta_position(deltas)
    ticks = _delta_ticks(values["spread"])
    shown_deltas = np.broadcast_to(deltas, distance.shape)
    kernel_figure = fig.portrait(
        distance,
        x,
        scales,
        x_title="relative scale δ  (downstream < 0 < upstream; logarithmic beyond ±10⁻⁴)",
        y_title="initial scale τ",
        colorbar="S(0, t)",
        log_y=True,
        zmin=0.0,
        zmax=max(1.0, float(np.max(distance))),
        labels=_labels(values),
        hover="δ = %{customdata:.3g}, τ = %{y:.3g}: S = %{z:.3g}",
        height=420,
        x_ticks=ticks,
        customdata=shown_deltas,
    )
    loss_figure = fig.portrait(
        result["loss_ratio_log10"],
        x,
        scales,
        x_title="relative scale δ",
        y_title="initial scale τ",
        colorbar="log₁₀ L(t)/L(0)",
        log_y=True,
        zmax=0.0,
        colorscale="Blues_r",
        hover="δ = %{customdata:.3g}, τ = %{y:.3g}: log₁₀ L(t)/L(0) = %{z:.3g}",
        height=360,
        x_ticks=ticks,
        customdata=shown_deltas,
    )
    rows = np.unique(np.linspace(0, len(scales) - 1, 5).round().astype(int))
    colors = fig.colors_for(np.log(scales[rows]))
    slices = [
        fig.exact_trace(x, distance[row], f"τ = {scales[row]:.2g}", color)
        for row, color in zip(rows, colors, strict=True)
    ]
    slice_figure = fig.figure(
        slices, x_title="relative scale δ", y_title="S(0, t)", height=360, hovermode="closest"
    )
    slice_figure["layout"]["xaxis"] |= {
        "tickmode": "array",
        "tickvals": ticks[0],
        "ticktext": ticks[1],
    }
    messages = []
    if result["near_saddle"]:
        messages.append(
            f"{result['near_saddle']} cells start on the saddle's stable manifold: rounding "
            "decides whether and when they escape, so their colour is not meaningful."
        )
    return Rendered(
        figures={"kernel": kernel_figure, "loss": loss_figure, "slices": slice_figure},
        summary=_summary(values, result),
        messages=messages,
    )


def _summary(values: Mapping[str, Any], result: dict) -> html.Dl:
    count = result["kernel_distance"].size
    distance = result["kernel_distance"]
    items = [
        (
            "the map",
            f"{count:,} exact trajectories at t = {values['t']:.3g}, computed in "
            f"{result['milliseconds']:.1f} ms",
        ),
        ("kernel distance S(0, t)", f"from {distance.min():.3g} to {distance.max():.3g}"),
        (
            "cells that have learned 99% of the task",
            f"{np.mean(result['loss_ratio_log10'] <= -2):.0%}",
        ),
    ]
    return components.facts(items)


def export(values: Mapping[str, Any], result: dict) -> dict[str, dict[str, np.ndarray]]:
    scales, deltas = np.meshgrid(result["scales"], result["deltas"], indexing="ij")
    return {
        f"portrait t={values['t']:g}": {
            "tau": scales.ravel(),
            "delta": deltas.ravel(),
            "kernel_distance": result["kernel_distance"].ravel(),
            "loss": result["loss"].ravel(),
        }
    }


def _cell(values: Mapping[str, Any], point: Mapping[str, Any]) -> tuple[float, float] | None:
    """(δ, τ) of the clicked cell, exactly: the browser sends the cell's coordinates rounded to
    float32 (and drops its grid indices), so they are snapped to the nearest cell of the grid."""
    position, tau = float(point["x"]), float(point["y"])
    if not (math.isfinite(position) and math.isfinite(tau) and tau > 0):
        return None
    scales, deltas = grid(values)
    column = nearest_index(delta_position(deltas), position)
    row = nearest_index(scales, tau, log=True)
    return float(deltas[column]), float(scales[row])


def open_cell(values: Mapping[str, Any], point: Mapping[str, Any]):
    """The clicked cell's trajectory: its δ and τ, this map's target and start direction, and
    a horizon that ends at the map's time (so the last point is what the cell shows)."""
    cell = _cell(values, point)
    if cell is None:
        return None
    delta, tau = cell
    horizon = min(max(values["t"], 0.5), 1000.0)
    return trajectory.VIEW, {
        "mode": "single",
        "delta": delta,
        "tau": tau,
        "sign": 1,
        "init_angle": values["init_angle"],
        "target_norm": values["target_norm"],
        "target_angle": values["target_angle"],
        "eta_ratio": values["eta_ratio"],
        "horizon": horizon,
        "log_time": horizon > 100,
    }


VIEW = View(
    key="single-neuron-map",
    path="/single-neuron/map",
    title="Single neuron: the map of lazy and rich",
    nav_title="Single-neuron map",
    summary=(
        "Kunin et al.'s Fig. 1b computed exactly: kernel distance and loss over initial scale "
        "τ × relative scale δ at any time t. Click a cell to open its trajectory."
    ),
    intro=INTRO,
    spec=SPEC,
    panels=PANELS,
    presets=PRESETS,
    compute=compute,
    render=render,
    export=export,
    groups=GROUPS,
    animated=False,
    click_targets={"kernel": open_cell, "loss": open_cell},
    in_nav=False,
)
