"""λ-balanced map (Dominé et al., *From lazy to rich*, Fig. 5B and App. A.4): how far the neural
tangent kernel has moved by a time t, and how long learning takes, across the relative scale λ
for funnel, square and inverted-funnel networks — and, for one architecture, across λ and the
absolute scale. Every cell is an exact solution from a scenario of the trajectory view
(:func:`solvers.lambda_balanced.scenario_sweep`), so clicking a cell opens that very network."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers import lambda_balanced as lb
from solvers.metrics import on_saddle

from ...core.clicks import ClickPoint, Link, nearest_index
from ...core.downloads import Tables
from ...core.presets import Preset
from ...core.state import choice, integer, number, switch
from ...core.view import View
from ...ui.figures import thin
from . import claims, trajectory
from . import map_plots as plots

TRAJECTORY = trajectory.VIEW.spec.by_name
#: the grid stays inside the trajectory view's ranges, so a clicked cell opens unclamped
LAMBDA_LIMIT = TRAJECTORY["lam"].high
SCALE_RANGE = (TRAJECTORY["scale"].low, TRAJECTORY["scale"].high)
SEED_LIMIT = TRAJECTORY["seed"].high
#: how long to look for the loss threshold: the trajectory view's longest horizon
HORIZON = TRAJECTORY["horizon"].high
#: caps that keep one request cheap: at most 3 × 33 cells with their threshold search and
#: 10 × 13 more for the λ × scale map, whose columns are the main λ grid, thinned
MAX_LAMBDAS = 33
SCALE_COLUMNS = plots.SCALE_COLUMNS
MAX_SCALE_ROWS = 10
SCALE_MAP_CHOICES = ("off", "funnel", "square", "inverted funnel")


@dataclass(frozen=True)
class Controls:
    t: float = number(
        "time t of the map",
        100.0,
        0.1,
        1000.0,
        log=True,
        help="Each cell shows how far its kernel has moved by this time",
    )
    spread: float = number(
        "largest |λ|", 7.0, 1.0, LAMBDA_LIMIT, step=0.5, help="λ runs from −|λ| to +|λ|"
    )
    count: int = integer(
        "number of λ values",
        9,
        5,
        MAX_LAMBDAS,
        step=2,
        help=(
            f"An odd number puts a column at λ = 0 (at most {MAX_LAMBDAS}); each λ adds about "
            "half a millisecond (three networks, each its own exact flow and threshold search)"
        ),
    )
    scale: float = number(
        "absolute scale ‖W₂W₁‖ at t = 0",
        0.1,
        SCALE_RANGE[0],
        SCALE_RANGE[1],
        log=True,
        help="Size of the network function at initialisation (the same for every cell)",
    )
    threshold: float = number(
        "loss threshold (fraction of the initial loss)",
        0.01,
        1e-4,
        0.5,
        log=True,
        help="The time-to-learn panel shows when the loss first falls below this fraction",
    )
    task: str = choice(
        "task",
        "random",
        lb.TASKS,
        ("random regression", "semantic hierarchy (8 × 8, square net only)"),
    )
    seed: int = integer(
        "random seed",
        4,
        0,
        SEED_LIMIT,
        help="Seeds the random task and the random λ-balanced weights, as in the trajectory view",
    )
    scale_map: str = choice(
        "λ × absolute-scale map for",
        "square",  # (117 more exact trajectories, ~20 ms: its panel is not left empty)
        SCALE_MAP_CHOICES,
        ("off", "funnel", "square", "inverted funnel"),
        help="App. A.4: the same kernel distance over λ and the absolute scale",
    )
    scale_rows: int = integer(
        "absolute scales in that map",
        9,
        4,
        MAX_SCALE_ROWS,
        help=f"From {SCALE_RANGE[0]:g} to {SCALE_RANGE[1]:g}; at most {SCALE_COLUMNS} λ columns",
    )
    labels: bool = switch("write the regimes on the map", True, physics=False)
    log_colour: bool = switch(
        "logarithmic colour scale",
        False,
        physics=False,
        help=f"Colour log₁₀ S(0, t) (down to {plots.LOG_FLOOR:g}): shows how lazy the lazy "
        "cells are",
    )


GROUPS = (
    ("Map", ("t", "spread", "count", "labels", "log_colour")),
    ("Networks and task", ("scale", "threshold", "task", "seed")),
    ("λ × absolute scale (App. A.4)", ("scale_map", "scale_rows")),
)

PRESETS = (
    Preset(
        "fig-5b-kernel-distance-vs-lambda-after-training",
        "Fig. 5B — kernel distance vs λ after training",
        "Eleven λ in [−10, 10] at t = 1000: funnels lazy for λ ≫ 0 and delayed rich for λ ≪ 0, "
        "inverted funnels the reverse, square nets moving only near λ = 0.",
        {"t": 1000.0, "spread": 10.0, "count": 11, "scale": 0.1},
        figure="Fig. 5B",
        panel="lines",
        claim=claims.FIG_5B,
        differs=claims.FIG_5B_DIFFERS,
        paper_setting=claims.FIG_5_PAPER,
    ),
    Preset(
        "early-the-delayed-rich-side-is-still-lazy",
        "Early: the delayed-rich side is still lazy",
        "t = 1: only the nets near λ = 0 have moved their kernel; the delayed-rich side is still "
        "on its lazy plateau.",
        {"t": 1.0},
    ),
    Preset(
        "app-a-4-funnel-lambda-absolute-scale",
        "App. A.4 — funnel: λ × absolute scale",
        "Funnel 4→2→2 at t = 1000: the kernel has moved for λ < 0 at every scale, and hardly at "
        "all for λ ≫ 0.",
        {"t": 1000.0, "scale_map": "funnel", "scale_rows": 9},
    ),
    Preset(
        "app-a-4-inverted-funnel-lambda-absolute-scale",
        "App. A.4 — inverted funnel: λ × absolute scale",
        "Inverted funnel 2→2→4: the mirror image — the kernel has moved for λ > 0, not for λ ≪ 0.",
        {"t": 1000.0, "scale_map": "inverted funnel", "scale_rows": 9},
    ),
    Preset(
        "app-a-4-square-lambda-absolute-scale",
        "App. A.4 — square: λ × absolute scale",
        "Square 3→3→3: the kernel distance peaks at λ = 0 at every scale and vanishes for "
        "large |λ|.",
        {"t": 1000.0, "scale_map": "square", "scale_rows": 9},
    ),
    Preset(
        "semantic-hierarchy-square-8-8-8",
        "Semantic hierarchy (square 8→8→8)",
        "The 8-item tree of Fig. 4: rich near λ = 0 (slow, stage by stage), lazy and fast for "
        "large |λ|.",
        {"task": "hierarchy", "t": 100.0, "scale": 0.01, "seed": 1},
    ),
)

INTRO = (
    r"Dominé et al.'s map of lazy and rich learning in two-layer linear networks, computed "
    r"exactly. The *relative scale* $\lambda$ ($W_2^\top W_2 - W_1W_1^\top = \lambda I_h$, "
    r"conserved) and the *shape* of the network decide the regime (their Fig. 5B): near "
    r"$\lambda = 0$ the kernel moves (rich); a funnel ($d_{in} > h \ge d_{out}$) is lazy as "
    r"$\lambda \to +\infty$ but only *delayed* rich as $\lambda \to -\infty$ — a lazy plateau, "
    r"then the kernel moves — and an inverted funnel ($d_{in} \le h < d_{out}$) is the mirror "
    r"image; a square net is lazy on both sides. Move the time slider (each move recomputes "
    r"every cell) to watch the delayed-rich side catch up. Click a cell to open its trajectory: "
    r"the same task and, seed for seed, the same random start."
)


# -- the grid --------------------------------------------------------------------------------


def _ten_digits(values: np.ndarray) -> np.ndarray:
    """Values as a link carries them (10 significant digits), so that a clicked cell opens on
    exactly its own numbers; ``+ 0.0`` turns −0 into 0."""
    return np.array([float(f"{v:.10g}") + 0.0 for v in np.asarray(values, dtype=float)])


def lambdas(controls: Controls) -> np.ndarray:
    """The λ values of the map, from −|λ| to +|λ|."""
    return _ten_digits(np.linspace(-controls.spread, controls.spread, controls.count))


def scale_lambdas(controls: Controls) -> np.ndarray:
    """The λ columns of the λ × scale map: the main grid, thinned to at most SCALE_COLUMNS."""
    return lambdas(controls)[thin(controls.count, SCALE_COLUMNS)]


def scales(controls: Controls) -> np.ndarray:
    """The absolute scales of the λ × scale map (geometric over the trajectory view's range)."""
    return _ten_digits(np.geomspace(*SCALE_RANGE, controls.scale_rows))


def scale_map_shape(controls: Controls) -> tuple[str | None, str | None]:
    """(architecture of the λ × scale map or None when it is off, why it differs from the one
    chosen): the hierarchy has only a square network."""
    chosen, shapes = controls.scale_map, lb.sweep_shapes(controls.task)
    if chosen == "off" or chosen in shapes:
        return (None if chosen == "off" else chosen), None
    fallback = next(iter(shapes))
    return fallback, (
        f"The semantic hierarchy has as many features as items, so there is no {chosen} "
        f"network: the λ × scale map shows the {fallback} network."
    )


# -- computing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScaleMap:
    """S(0, t) of one architecture over λ (columns) and the absolute scale (rows)."""

    shape: str
    dims: tuple[int, int, int]
    lams: np.ndarray  #: (C,)
    scales: np.ndarray  #: (R,)
    kernel_distance: np.ndarray  #: (R, C), NaN where the architecture admits no such λ
    #: cells that start on a saddle's stable manifold
    near_saddle: int


@dataclass(frozen=True)
class Map:
    #: every architecture over λ at the map's time, with its times to the threshold
    sweep: lb.LambdaSweep
    scale_map: ScaleMap | None = None
    #: why the λ × scale map shows another architecture than the one chosen
    scale_note: str | None = None

    @property
    def kernel_distance(self) -> np.ndarray:
        """(shapes, λ) S(0, t), NaN where the architecture admits no such λ."""
        return np.where(self.sweep.valid, self.sweep.kernel_distance, np.nan)

    @property
    def near_saddle(self) -> list[tuple[str, float]]:
        """(architecture, λ) of the cells that start on a saddle's stable manifold."""
        sweep = self.sweep
        cells = np.argwhere(on_saddle(sweep.saddle_margin) & sweep.valid)
        return [(sweep.shapes[row], float(sweep.lams[column])) for row, column in cells]


def _scale_map(controls: Controls, shape: str) -> ScaleMap:
    dims = lb.sweep_shapes(controls.task)[shape]
    columns, rows = scale_lambdas(controls), scales(controls)
    distance = np.zeros((rows.size, columns.size))
    margin = np.ones_like(distance)
    for row, scale in enumerate(rows):
        part = lb.scenario_sweep(
            columns,
            controls.t,
            scale=float(scale),
            task=controls.task,
            seed=controls.seed,
            shapes={shape: dims},
            threshold=1.0,  # no threshold search: only S(0, t) is drawn
        )
        distance[row] = np.where(part.valid[0], part.kernel_distance[0], np.nan)
        margin[row] = part.saddle_margin[0]
    near = int(np.count_nonzero(on_saddle(margin)))
    return ScaleMap(shape, dims, columns, rows, distance, near)


def compute(controls: Controls) -> Map:
    sweep = lb.scenario_sweep(
        lambdas(controls),
        controls.t,
        scale=controls.scale,
        task=controls.task,
        seed=controls.seed,
        horizon=HORIZON,
        threshold=controls.threshold,
    )
    chosen, note = scale_map_shape(controls)
    scale_map = _scale_map(controls, chosen) if chosen is not None else None
    return Map(sweep, scale_map, note)


# -- summary, messages, downloads ------------------------------------------------------------


def _ends(result: Map, name: str) -> str:
    lams = result.sweep.lams
    distance = result.kernel_distance[result.sweep.shapes.index(name)]
    return f"S = {distance[0]:.2g} at λ = {lams[0]:g}, {distance[-1]:.2g} at λ = {lams[-1]:g}"


def _slowest(controls: Controls, result: Map) -> list[tuple[str, str]]:
    sweep = result.sweep
    times = sweep.time_to_threshold
    finite = np.isfinite(times) & sweep.valid
    if not np.any(finite):
        return []
    slow = np.unravel_index(np.argmax(np.where(finite, times, -1.0)), times.shape)
    return [
        (
            f"time to reach {controls.threshold:g} × L(0)",
            f"from {np.min(times[finite]):.3g} to {times[slow]:.3g} (the slowest: "
            f"{sweep.shapes[slow[0]]} at λ = {sweep.lams[slow[1]]:g})",
        )
    ]


def facts(controls: Controls, result: Map) -> list[tuple[str, str]]:
    sweep, scale_map = result.sweep, result.scale_map
    shapes = len(sweep.shapes)
    extra = f" + {scale_map.kernel_distance.size} for the λ × scale map" if scale_map else ""
    items = [
        (
            "the map",
            f"{int(np.count_nonzero(sweep.valid))} exact trajectories ({shapes} architecture"
            f"{'s' if shapes > 1 else ''} × {sweep.lams.size} values of λ){extra}, each shown "
            f"at t = {controls.t:.3g}",
        ),
        (
            "what the colour says",
            "how far the neural tangent kernel has moved from its start by time t: S = 0 is "
            "lazy (a fixed kernel), S near its maximum is rich",
        ),
    ]
    if "funnel" in sweep.shapes:
        items.append(("funnel", _ends(result, "funnel")))
        items.append(("inverted funnel (the mirror image)", _ends(result, "inverted funnel")))
    if "square" in sweep.shapes:
        distance = result.kernel_distance[sweep.shapes.index("square")]
        peak = int(np.nanargmax(distance))
        items.append(("square", f"largest S = {distance[peak]:.2g} at λ = {sweep.lams[peak]:g}"))
    return items + _slowest(controls, result)


def notes(controls: Controls, result: Map) -> list[str]:
    messages = [result.scale_note] if result.scale_note else []
    near = result.near_saddle
    if near:
        cells = ", ".join(f"{name} at λ = {lam:g}" for name, lam in near[:5])
        messages.append(
            f"The {cells} start{'s' if len(near) == 1 else ''} on the stable manifold of a "
            "saddle: the exact flow stalls there (any simulation escapes after a delay set by "
            "rounding), so the colour of that cell is not meaningful. Another seed avoids it."
        )
    if result.scale_map is not None and result.scale_map.near_saddle:
        messages.append(
            f"{result.scale_map.near_saddle} cells of the λ × scale map start on a saddle's "
            "stable manifold; their colour is not meaningful."
        )
    sweep = result.sweep
    missed = int(np.count_nonzero(np.isinf(sweep.time_to_threshold) & sweep.valid))
    if missed:
        messages.append(
            f"{missed} networks do not reach {controls.threshold:g} × their initial loss by "
            f"t = {HORIZON:g}; the time-to-learn curves leave a gap there."
        )
    return messages


def _scale_table(controls: Controls, scale_map: ScaleMap) -> tuple[str, dict[str, np.ndarray]]:
    grid_scales, grid_lams = np.meshgrid(scale_map.scales, scale_map.lams, indexing="ij")
    keep = np.isfinite(scale_map.kernel_distance).ravel()
    label = plots.shape_label(scale_map.shape, scale_map.dims)
    return f"scale map {label} t={controls.t:g}", {
        "lam": grid_lams.ravel()[keep],
        "scale": grid_scales.ravel()[keep],
        "kernel_distance": scale_map.kernel_distance.ravel()[keep],
    }


def tables(controls: Controls, result: Map) -> Tables:
    """One table per architecture over λ; the λ × scale map as a table of its own. A time to
    learn that is not reached by the horizon is written as the horizon with reached = 0."""
    sweep, found = result.sweep, {}
    for row, (name, dims) in enumerate(zip(sweep.shapes, sweep.dimensions, strict=True)):
        valid, times = sweep.valid[row], sweep.time_to_threshold[row]
        found[f"{plots.shape_label(name, dims)} t={controls.t:g}"] = {
            "lam": sweep.lams[valid],
            "kernel_distance": sweep.kernel_distance[row][valid],
            "loss": sweep.loss[row][valid],
            "initial_loss": sweep.initial_loss[row][valid],
            "time_to_threshold": np.where(np.isfinite(times), times, HORIZON)[valid],
            "reached": np.isfinite(times).astype(float)[valid],
        }
    if result.scale_map is not None:
        name, table = _scale_table(controls, result.scale_map)
        found[name] = table
    return found


# -- clicks ----------------------------------------------------------------------------------


def _target(controls: Controls, shape: str, lam: float, scale: float) -> Link:
    """The trajectory view on the scenario of one cell, up to the map's time (so its last point
    is what the cell shows)."""
    horizon = min(max(controls.t, 0.5), HORIZON)
    d_in, hidden, d_out = lb.sweep_shapes(controls.task)[shape]
    return Link(
        trajectory.VIEW,
        {
            "lam": float(lam),
            "scale": float(scale),
            "shape": shape,
            "d_in": d_in,
            "hidden": hidden,
            "d_out": d_out,
            "task": controls.task,
            "init": "random",
            "seed": controls.seed,
            "horizon": horizon,
            "log_time": horizon >= 100,
            "descent": False,
        },
    )


def open_cell(controls: Controls, point: ClickPoint) -> Link | None:
    """The clicked cell's network — its λ and architecture, the map's scale, task and seed. The
    cell is found from the indices the browser sends, else from the nearest grid point (the
    drawn coordinates travel as float32; rows are drawn at 0, 1, 2)."""
    lams, names = lambdas(controls), list(lb.sweep_shapes(controls.task))
    found = point.cell(len(names), lams.size)
    if found is None:
        column = nearest_index(lams, point.x)
        if column is None or point.y is None or not 0 <= round(point.y) < len(names):
            return None
        found = round(point.y), column
    row, column = found
    return _target(controls, names[row], lams[column], controls.scale)


def open_curve_point(controls: Controls, point: ClickPoint) -> Link | None:
    """A point of the Fig. 5B curves: the curve is the architecture, the point its λ."""
    lams, names = lambdas(controls), list(lb.sweep_shapes(controls.task))
    row, column = point.curve, point.index
    if row is None or not isinstance(column, int):
        return None
    if not (0 <= row < len(names) and 0 <= column < lams.size):
        return None
    return _target(controls, names[row], lams[column], controls.scale)


def open_scale_cell(controls: Controls, point: ClickPoint) -> Link | None:
    """A cell of the λ × scale map: its λ and absolute scale, that map's architecture."""
    chosen, _ = scale_map_shape(controls)
    if chosen is None:
        return None
    lams, rows = scale_lambdas(controls), scales(controls)
    found = point.cell(rows.size, lams.size)
    if found is None:
        column, row = nearest_index(lams, point.x), nearest_index(rows, point.y, log=True)
        if column is None or row is None:
            return None
        found = row, column
    row, column = found
    return _target(controls, chosen, lams[column], rows[row])


VIEW = View(
    key="lambda-balanced-map",
    path="/lambda-balanced/map",
    title="λ-balanced networks: the map of lazy and rich",
    nav_title="λ-balanced map",
    summary=(
        "Dominé et al.'s Fig. 5B computed exactly: how far the kernel moves, and how long "
        "learning takes, across the relative scale λ for funnel, square and inverted-funnel "
        "networks (and across the absolute scale, App. A.4). Click a cell to open its trajectory."
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
    clicks={"lines": open_curve_point, "kernel": open_cell, "scales": open_scale_cell},
    map_of=trajectory.VIEW.key,
)
