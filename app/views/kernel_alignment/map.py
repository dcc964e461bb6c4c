"""Kernel-alignment map (Shan & Bordelon, *Rapid feature evolution accelerates learning*, Fig. 2C–D
and eq. 11): the final kernel–target alignment A∞ and the overlap of the final kernel's top
eigenvector with the target, over the feature-learning rate γ and a spectral exponent of the
power-law task (the task power a or the kernel decay b), one exact γ sweep
(:func:`solvers.feature_evolution.gamma_sweep`) per exponent; and the alignment A(t) over γ and
time from the exact solution (:func:`solvers.feature_evolution.exact`). Every task is built by
:func:`solvers.feature_evolution.setup`, as in the trajectory view, so that clicking a cell
opens that very task and γ there (docs/theory.md §4)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import numpy as np

from solvers import feature_evolution as fe

from ...core.clicks import ClickPoint, Link, nearest_index
from ...core.downloads import Tables
from ...core.presets import Preset
from ...core.state import choice, integer, number, switch
from ...core.view import View
from ...ui.figures import thin
from . import claims, trajectory
from . import map_plots as plots

TRAJECTORY = trajectory.VIEW.spec.by_name


def _range(name: str) -> tuple[float, float]:
    return TRAJECTORY[name].low, TRAJECTORY[name].high


#: the grid stays inside the trajectory view's ranges, so a clicked cell opens unclamped
GAMMA_RANGE = _range("gamma")
EXPONENT_RANGES = {"a": _range("a"), "b": _range("b")}
#: the map computes a P × P kernel per row: it stops at a smaller P than the trajectory view
SAMPLE_RANGE = (int(TRAJECTORY["samples"].low), 200)
SEED_RANGE = tuple(int(x) for x in _range("seed"))
HORIZON_RANGE = _range("horizon")
#: caps that keep one request well under ~1 s: a row costs one power-law task and one γ sweep
#: (a QR and an eigendecomposition of P × P, ~5 ms at P = 200), a column of the A(t) panel one
#: exact solution (one eigendecomposition, ~3 ms at P = 200)
MAX_ROWS = 40
MAX_COLUMNS = 120
TIME_COLUMNS = 25  #: γ values of the A(t) panel (the map's γ grid, thinned)
TIME_POINTS = 60  #: times of the A(t) panel


@dataclass(frozen=True)
class Controls:
    axis: str = choice(
        "exponent along the vertical axis",
        "a",
        ("a", "b"),
        ("task power a  (v_k² ∝ k^−a)", "kernel decay b  (λ_k ∝ k^−b)"),
        help="The map's rows run over this exponent's whole range; the other stays as set",
    )
    rows: int = integer(
        "rows (exponent values)",
        20,
        4,
        MAX_ROWS,
        help=f"One exact γ sweep per row (at most {MAX_ROWS})",
    )
    columns: int = integer(
        "columns (values of γ)",
        49,
        10,
        MAX_COLUMNS,
        help=f"Geometrically spaced (at most {MAX_COLUMNS})",
    )
    gamma_low: float = number("smallest γ", GAMMA_RANGE[0], GAMMA_RANGE[0], 0.1, log=True)
    gamma_high: float = number("largest γ", GAMMA_RANGE[1], 10.0, GAMMA_RANGE[1], log=True)
    a: float = number(
        "task-power exponent a  (v_k² ∝ k^−a)",
        1.5,
        *EXPONENT_RANGES["a"],
        step=0.05,
        help="The line plots and the A(t) panel use it (and the map, when b is on its axis)",
    )
    b: float = number(
        "eigenvalue exponent b  (λ_k ∝ k^−b)",
        1.2,
        *EXPONENT_RANGES["b"],
        step=0.05,
        help="The line plots and the A(t) panel use it (and the map, when a is on its axis)",
    )
    samples: int = integer(
        "number of samples P",
        64,
        *SAMPLE_RANGE,
        help=f"Size of the P×P kernel (at most {SAMPLE_RANGE[1]})",
    )
    seed: int = integer(
        "random seed",
        0,
        *SEED_RANGE,
        help="Draws the eigenvectors of K₀ and the signs of the target, as in the trajectory view",
    )
    horizon: float = number(
        "last time of the A(t) panel",
        1000.0,
        *HORIZON_RANGE,
        log=True,
        help="Also the horizon of the trajectory a click opens",
    )
    labels: bool = switch("write the regimes on the maps", True, physics=False)


GROUPS = (
    ("Map", ("axis", "rows", "columns", "gamma_low", "gamma_high", "labels")),
    ("Power-law task", ("a", "b", "samples", "seed")),
    ("Alignment over time", ("horizon",)),
)

PRESETS = (
    Preset(
        "fig-2c-d-a-and-overlap-over-gamma-task-power-a",
        "Fig. 2C–D — A∞ and overlap over γ × task power a",
        "b = 1.2: past γ* the top eigenvector of K∞ locks onto y; a steeper task power (larger "
        "a) starts better aligned but, with a smaller ‖y‖², needs a larger γ*.",
        {"axis": "a", "b": 1.2, "a": 1.5, "samples": 64},
        figure="Fig. 2C–D",
        panel="sweep",
        claim=claims.FIG_2CD,
        paper_setting=claims.FIG_2_PAPER,
        differs=claims.POWER_LAW_DIFFERS + " Here the map runs over the task power a as well.",
    ),
    Preset(
        "over-gamma-kernel-decay-b",
        "Over γ × kernel decay b",
        "a = 1.5: γ* grows with b — the wider the gap below K₀'s top eigenvalue, the more "
        "γyyᵀ has to outweigh; at b = 0 (K₀ = I) any γ > 0 turns it.",
        {"axis": "b", "a": 1.5, "b": 1.2, "samples": 64},
    ),
    Preset(
        "large-kernel-fine-grid-p-200",
        "Large kernel, fine grid (P = 200)",
        "P = 200 and 40 rows × 80 values of γ: the same picture with a longer power-law tail.",
        {"axis": "a", "samples": 200, "rows": 40, "columns": 80},
    ),
    Preset(
        "flat-task-power-a-1-1-b-2-gamma-gains-the-most",
        "Flat task power (a = 1.1, b = 2): γ gains the most",
        "The trajectory view's hard task: A₀ ≈ 0.28 and A∞ → 1; the A(t) panel shows how soon "
        "each γ gets there.",
        {"axis": "a", "a": 1.1, "b": 2.0, "horizon": 1e5},
    ),
)

INTRO = (
    r"Shan & Bordelon's picture of how much the kernel learns the task, as a map. Under optimal "
    r"feature evolution at rate $\gamma$ the kernel ends at $K_\infty = K_0 + \gamma yy^\top$ "
    r"(the conserved $C = \gamma\Delta\Delta^\top + K$ with $\Delta \to 0$), so its alignment "
    r"$A_\infty$ and top eigenvector are known in closed form for every $\gamma$. For "
    r"$\gamma \to 0$ the kernel stays $K_0$ (lazy, the kernel regime); for large $\gamma$ it "
    r"turns towards $yy^\top$ (rich), and past a threshold $\gamma^*$ its top eigenvector "
    r"locks onto the target (their Fig. 2C). The task is a power law: $K_0$ has eigenvalues "
    r"$k^{-b}$ and the target power $k^{-a}$ along them. $A_\infty$ is the $t \to \infty$ limit, "
    r"so the maps have no time slider; the last panel follows the exact $A(t)$ over $\gamma$ "
    r"and time instead."
)


# -- the grid --------------------------------------------------------------------------------


def _ten_digits(values: np.ndarray) -> np.ndarray:
    """Values as a link carries them (10 significant digits): a clicked cell opens on exactly
    its own numbers."""
    return np.array([float(f"{v:.10g}") + 0.0 for v in np.asarray(values, dtype=float)])


def gammas(controls: Controls) -> np.ndarray:
    """The columns: γ spaced geometrically from the smallest to the largest."""
    spaced = np.geomspace(controls.gamma_low, controls.gamma_high, controls.columns)
    return _ten_digits(spaced)


def time_gammas(controls: Controls) -> np.ndarray:
    """The γ of the A(t) panel: the map's columns, thinned."""
    return gammas(controls)[thin(controls.columns, TIME_COLUMNS)]


def exponents(controls: Controls) -> np.ndarray:
    """The rows: the chosen exponent over the trajectory view's whole range."""
    return _ten_digits(np.linspace(*EXPONENT_RANGES[controls.axis], controls.rows))


def task(controls: Controls, **exponent: float) -> fe.Setup:
    """The power-law task of the trajectory view for these controls, with an exponent
    overridden (a row of the map)."""
    chosen = {"a": controls.a, "b": controls.b} | exponent
    return fe.setup(samples=controls.samples, seed=controls.seed, **chosen)


def times(controls: Controls, top_rate: float) -> np.ndarray:
    """Times of the A(t) panel: from well before the fastest rise (t ~ 1/c₁ at the largest γ,
    so the first row is close to A₀) to the horizon, geometrically."""
    horizon = controls.horizon
    start = min(horizon * 1e-4, 1e-3 / top_rate)
    return np.geomspace(max(start, horizon * 1e-10), horizon, TIME_POINTS)


# -- computing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class OverTime:
    """The exact alignment A(t) for a few γ at the current exponents (η = 1)."""

    gammas: np.ndarray  #: (G,) the thinned γ grid
    t: np.ndarray  #: (T,)
    alignment: np.ndarray  #: (T, G)
    rates: np.ndarray  #: (G,) c₁, the top eigenvalue of K∞ for each γ


@dataclass(frozen=True)
class Map:
    gammas: np.ndarray  #: (G,) the columns
    exponents: np.ndarray  #: (R,) the rows (values of the exponent on the axis)
    final_alignment: np.ndarray  #: (R, G) A∞
    top_overlap: np.ndarray  #: (R, G) |u₁ᵀy|/‖y‖ of K∞
    initial_alignment: np.ndarray  #: (R,) A₀
    threshold: np.ndarray  #: (R,) γ* of each row; NaN where the γ grid does not bracket it
    current: fe.GammaSweep  #: the row of the current a and b
    over_time: OverTime

    @property
    def found(self) -> np.ndarray:
        """(R,) the rows that have a threshold in the γ range."""
        return np.isfinite(self.threshold)


def _over_time(controls: Controls, setup: fe.Setup) -> OverTime:
    chosen = time_gammas(controls)
    rates = setup.sweep(chosen).top_eigenvalue
    t = times(controls, float(np.max(rates)))
    aligned = [setup.exact(t, gamma=float(gamma)).alignment for gamma in chosen]
    return OverTime(chosen, t, np.stack(aligned, axis=1), rates)


@functools.lru_cache(maxsize=16)
def _beside_the_map(controls: Controls) -> tuple[fe.GammaSweep, OverTime]:
    """The γ sweep and the A(t) panel at the current exponents. ``controls`` come with the
    map's own axis, rows and labels at their defaults: those leave both unchanged, so a step
    of the rows slider does not compute them again (they are ~40% of the default map's time)."""
    setup = task(controls)
    return setup.sweep(gammas(controls)), _over_time(controls, setup)


def compute(controls: Controls) -> Map:
    grid, rows = gammas(controls), exponents(controls)
    sweeps = [task(controls, **{controls.axis: float(row)}).sweep(grid) for row in rows]
    stars = [sweep.threshold for sweep in sweeps]
    current, over_time = _beside_the_map(
        replace(controls, axis=Controls.axis, rows=Controls.rows, labels=Controls.labels)
    )
    return Map(
        gammas=grid,
        exponents=rows,
        final_alignment=np.stack([sweep.final_alignment for sweep in sweeps]),
        top_overlap=np.stack([sweep.top_overlap for sweep in sweeps]),
        initial_alignment=np.array([sweep.initial_alignment for sweep in sweeps]),
        threshold=np.array([math.nan if star is None else star for star in stars]),
        current=current,
        over_time=over_time,
    )


# -- summary, messages and downloads ---------------------------------------------------------


def facts(controls: Controls, result: Map) -> list[tuple[str, str]]:
    axis, rows, stars = controls.axis, result.exponents, result.threshold
    initial, over_time = result.initial_alignment, result.over_time
    items = [
        (
            "the maps",
            f"{rows.size} × {result.gammas.size} = {result.final_alignment.size:,} values of A∞ "
            f"and of the top-eigenvector overlap (t → ∞, from K∞ = K₀ + γyyᵀ), plus A(t) at "
            f"{over_time.t.size} times for {over_time.gammas.size} values of γ",
        ),
        (
            "what they show",
            "how well the kernel learned the task: A∞ → A₀ as γ → 0 (a frozen kernel — lazy, "
            "the kernel regime), A∞ → 1 as γ grows (rich: the kernel turns towards yyᵀ)",
        ),
        (
            f"A₀ across {axis}",
            f"{initial[0]:.3f} at {axis} = {rows[0]:g} to {initial[-1]:.3f} at {axis} = "
            f"{rows[-1]:g}",
        ),
    ]
    if np.any(result.found):
        found = stars[result.found]
        items.append(
            (
                "threshold γ*",
                f"from {np.min(found):.3g} to {np.max(found):.3g} over the "
                f"{found.size} rows that have one",
            )
        )
    current, star = result.current, result.current.threshold
    items.append(
        (
            f"at a = {controls.a:g}, b = {controls.b:g}",
            f"A₀ = {current.initial_alignment:.3f} → A∞ = "
            f"{current.final_alignment[-1]:.3f} at γ = {result.gammas[-1]:.3g}"
            + (f"; γ* ≈ {star:.2g}" if star is not None else "; no threshold in range"),
        )
    )
    return items


def notes(controls: Controls, result: Map) -> list[str]:
    if np.any(result.found):
        return []
    return [
        "No row has a threshold γ* in this γ range: the top eigenvector of K∞ is either "
        "aligned with y from the start or still not half-way at the largest γ."
    ]


def _grid_table(
    row_name: str, rows: np.ndarray, columns: np.ndarray, **cells: np.ndarray
) -> dict[str, np.ndarray]:
    """A table with one line per cell of a (rows × columns) grid; ``cells`` are (R, C)."""
    row_values, column_values = np.meshgrid(rows, columns, indexing="ij")
    return {row_name: row_values.ravel(), "gamma": column_values.ravel()} | {
        name: values.ravel() for name, values in cells.items()
    }


def tables(controls: Controls, result: Map) -> Tables:
    axis, current = controls.axis, result.current
    found = {
        f"map over gamma and {axis}": _grid_table(
            axis,
            result.exponents,
            result.gammas,
            final_alignment=result.final_alignment,
            top_overlap=result.top_overlap,
        ),
        f"current a={controls.a:g} b={controls.b:g}": {
            "gamma": result.gammas,
            "final_alignment": current.final_alignment,
            "top_overlap": current.top_overlap,
        },
    }
    if np.any(result.found):
        found[f"threshold gamma* over {axis}"] = {
            axis: result.exponents[result.found],
            "gamma_star": result.threshold[result.found],
            "initial_alignment": result.initial_alignment[result.found],
        }
    over_time = result.over_time
    time_table = _grid_table("t", over_time.t, over_time.gammas, alignment=over_time.alignment)
    found["alignment over time"] = {name: time_table[name] for name in ("gamma", "t", "alignment")}
    return found


# -- clicks ----------------------------------------------------------------------------------


def _target(controls: Controls, gamma: float, **exponent: float) -> Link:
    return Link(
        trajectory.VIEW,
        {
            "gamma": float(gamma),
            "a": float(exponent.get("a", controls.a)),
            "b": float(exponent.get("b", controls.b)),
            "samples": controls.samples,
            "seed": controls.seed,
            "horizon": controls.horizon,
            "log_time": True,
            "descent": False,
        },
    )


def open_cell(controls: Controls, point: ClickPoint) -> Link | None:
    """A cell of either map (or a γ* dot): its γ and exponent, the other exponent and the task
    as set. Found from the indices the browser sends for a heatmap cell, else from the nearest
    grid point (the drawn coordinates travel as float32)."""
    grid, rows = gammas(controls), exponents(controls)
    found = point.cell(rows.size, grid.size)
    if found is None:
        column = nearest_index(grid, point.x, log=True)
        row = nearest_index(rows, point.y)
        if column is None or row is None:
            return None
        found = row, column
    row, column = found
    return _target(controls, grid[column], **{controls.axis: rows[row]})


def open_gamma(controls: Controls, point: ClickPoint) -> Link | None:
    """A point of the line plots or of the A(t) panel: its γ, with the current a and b."""
    grid = gammas(controls)
    column = nearest_index(grid, point.x, log=True)
    return None if column is None else _target(controls, grid[column])


VIEW = View(
    key="kernel-alignment-map",
    path="/kernel-alignment/map",
    title="Kernel alignment: the map over γ and the task's spectrum",
    nav_title="Kernel-alignment map",
    summary=(
        "Shan & Bordelon's Fig. 2C–D as a map: final alignment A∞ and the top eigenvector's "
        "overlap with the target over the feature-learning rate γ and the power-law exponents, "
        "with the threshold γ* — and A(t) over γ and time. Click a cell to open its trajectory."
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
    clicks={
        "alignment": open_cell,
        "overlap": open_cell,
        "sweep": open_gamma,
        "time": open_gamma,
    },
    map_of=trajectory.VIEW.key,
)
