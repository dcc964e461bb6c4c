"""Single-neuron phase portrait (Kunin et al., *Get rich quick*, Fig. 1b): the kernel distance
and the loss at a time t over a whole grid of initial scales τ and conserved δ, every cell an
exact solution (:func:`solvers.single_neuron.portrait`). Clicking a cell opens that trajectory
in the single-neuron view."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers import single_neuron as sn
from solvers.metrics import on_saddle

from ...core.clicks import ClickPoint, Link, nearest_index
from ...core.downloads import Tables
from ...core.presets import Preset
from ...core.state import integer, number, switch
from ...core.view import View
from . import claims, trajectory
from . import map_plots as plots
from .map_plots import delta_at, delta_position

TRAJECTORY = trajectory.VIEW.spec.by_name
#: the grid stays inside the trajectory view's ranges, so a clicked cell opens unclamped
TAU_RANGE = (TRAJECTORY["tau"].low, TRAJECTORY["tau"].high)
DELTA_LIMIT = TRAJECTORY["delta"].high


@dataclass(frozen=True)
class Controls:
    t: float = number(
        "time t of the map",
        10.0,
        0.01,
        1000.0,
        log=True,
        help="Each cell shows its trajectory's state at this time",
    )
    spread: float = number("largest |δ|", 10.0, 0.5, DELTA_LIMIT, step=0.5)
    resolution: int = integer(
        "cells per side", 64, 8, 160, step=8, help="A 64 × 64 map is 4096 exact solutions"
    )
    init_angle: float = number("direction of β₀ (°)", 180.0, -180.0, 180.0, step=1.0)
    target_norm: float = number("target size ‖β*‖", 1.0, 0.1, 5.0, step=0.05)
    target_angle: float = number("direction of β* (°)", 90.0, -180.0, 180.0, step=1.0)
    eta_ratio: float = number("learning-rate ratio η_a/η_w", 1.0, 0.01, 100.0, log=True)
    labels: bool = switch("write the regimes on the map", True, physics=False)


GROUPS = (
    ("Map", ("t", "spread", "resolution", "labels")),
    ("Initialisation and target", ("init_angle", "target_norm", "target_angle", "eta_ratio")),
)

PRESETS = (
    Preset(
        "fig-3-over-scale-and-delta-one-linear-neuron",
        "Fig. 3 over scale × δ — one linear neuron (cf. Fig. 1b)",
        "Fig. 3's start (β₀ ∝ [−1, 0], β* = [0, 1]) for every scale τ and balance δ, at t = 10: "
        "lazy upstream, rich near δ = 0, delayed rich downstream.",
        {"t": 10.0, "spread": 10.0, "init_angle": 180.0, "target_angle": 90.0},
        figure="Fig. 3",
        panel="kernel",
        aliases=("fig-1b-scale-delta-fig-3-set-up",),
        claim=claims.MAP,
        differs=claims.MAP_DIFFERS,
    ),
    Preset(
        "early-everything-still-lazy",
        "Early: everything still lazy",
        "At t = 0.1 no kernel has moved far yet; the downstream plateau has not ended.",
        {"t": 0.1, "spread": 10.0},
    ),
    Preset(
        "late-delayed-rich-has-caught-up",
        "Late: delayed rich has caught up",
        "At t = 200 the downstream cells have left their plateau and moved their kernel.",
        {"t": 200.0, "spread": 10.0},
    ),
    Preset(
        "aligned-start-little-to-learn",
        "Aligned start: little to learn",
        "β₀ already points at β*: the kernel mostly rescales, S stays small almost everywhere.",
        {"t": 10.0, "init_angle": 90.0, "target_angle": 90.0},
    ),
)

INTRO = (
    r"Kunin et al.'s map of lazy and rich learning for one hidden neuron, computed exactly: "
    r"the overall scale $\tau$ of the initialisation against the conserved relative scale "
    r"$\delta$. Upstream ($\delta > 0$) the kernel stays put — lazy; balanced ($\delta \approx "
    r"0$) from a small start it moves a lot — rich; downstream ($\delta < 0$) it is lazy at "
    r"first and rich later — delayed rich. Move the time slider to watch the boundary shift."
)


def grid(controls: Controls) -> tuple[np.ndarray, np.ndarray]:
    """(scales τ, deltas δ) of the map: τ geometric, δ evenly spaced on the map's δ axis
    (a column at δ = 0 exactly when the count is odd)."""
    scales = np.geomspace(*TAU_RANGE, controls.resolution)
    edge = float(delta_position(controls.spread))
    return scales, delta_at(np.linspace(-edge, edge, controls.resolution))


@dataclass(frozen=True)
class Map:
    scales: np.ndarray  #: (S,) τ of each row
    deltas: np.ndarray  #: (D,) δ of each column
    portrait: sn.Portrait  #: every cell at the map's time

    @property
    def loss_ratio_log10(self) -> np.ndarray:
        """log₁₀ L(t)/L(0) per cell, at least −12 (what is left of the task)."""
        initial = np.where(self.portrait.initial_loss > 0, self.portrait.initial_loss, 1.0)
        with np.errstate(divide="ignore"):
            return np.clip(np.log10(self.portrait.loss / initial), -12.0, None)

    @property
    def near_saddle(self) -> int:
        return int(np.count_nonzero(on_saddle(self.portrait.saddle_margin)))


def compute(controls: Controls) -> Map:
    scales, deltas = grid(controls)
    setup = sn.setup(
        target_norm=controls.target_norm,
        target_angle=controls.target_angle,
        init_angle=controls.init_angle,
        eta_ratio=controls.eta_ratio,
    )
    portrait = sn.portrait(
        scales,
        deltas,
        setup.beta_star,
        setup.direction,
        controls.t,
        eta_a=setup.eta_a,
        eta_w=setup.eta_w,
    )
    return Map(scales, deltas, portrait)


def facts(controls: Controls, result: Map) -> list[tuple[str, str]]:
    distance = result.portrait.kernel_distance
    return [
        ("the map", f"{distance.size:,} exact trajectories at t = {controls.t:.3g}"),
        ("kernel distance S(0, t)", f"from {distance.min():.3g} to {distance.max():.3g}"),
        (
            "cells that have learned 99% of the task",
            f"{np.mean(result.loss_ratio_log10 <= -2):.0%}",
        ),
    ]


def notes(controls: Controls, result: Map) -> list[str]:
    if not result.near_saddle:
        return []
    return [
        f"{result.near_saddle} cells start on the saddle's stable manifold: rounding decides "
        "whether and when they escape, so their colour is not meaningful."
    ]


def tables(controls: Controls, result: Map) -> Tables:
    scales, deltas = np.meshgrid(result.scales, result.deltas, indexing="ij")
    return {
        f"portrait t={controls.t:g}": {
            "tau": scales.ravel(),
            "delta": deltas.ravel(),
            "kernel_distance": result.portrait.kernel_distance.ravel(),
            "loss": result.portrait.loss.ravel(),
        }
    }


def open_cell(controls: Controls, point: ClickPoint) -> Link | None:
    """The clicked cell's trajectory: its δ and τ, this map's target and start direction, and
    a horizon that ends at the map's time (so the last point is what the cell shows). The
    browser sends the cell's coordinates rounded to float32, so they snap to the grid."""
    if point.x is None or point.y is None or point.y <= 0:
        return None
    scales, deltas = grid(controls)
    column = nearest_index(delta_position(deltas), point.x)
    row = nearest_index(scales, point.y, log=True)
    horizon = min(max(controls.t, 0.5), 1000.0)
    return Link(
        trajectory.VIEW,
        {
            "mode": "single",
            "delta": float(deltas[column]),
            "tau": float(scales[row]),
            "sign": 1,
            "init_angle": controls.init_angle,
            "target_norm": controls.target_norm,
            "target_angle": controls.target_angle,
            "eta_ratio": controls.eta_ratio,
            "horizon": horizon,
            "log_time": horizon > 100,
        },
    )


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
    controls=Controls,
    compute=compute,
    result_type=Map,
    panels=plots.PANELS,
    facts=facts,
    tables=tables,
    presets=PRESETS,
    groups=GROUPS,
    notes=notes,
    clicks={"kernel": open_cell, "loss": open_cell},
    map_of=trajectory.VIEW.key,
)
