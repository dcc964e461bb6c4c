"""Kernel-alignment map (Shan & Bordelon, *Rapid feature evolution accelerates learning*, Fig. 2C–D
and eq. 11): the final kernel–target alignment A∞ and the overlap of the final kernel's top
eigenvector with the target, over the feature-learning rate γ and a spectral exponent of the
power-law task (the task power a or the kernel decay b), one exact γ sweep
(:func:`solvers.feature_evolution.gamma_sweep`) per exponent; and the alignment A(t) over γ and
time from the exact solution (:func:`solvers.feature_evolution.exact`). Clicking a cell opens
that task and γ in the kernel-alignment trajectory view."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from dash import html

from solvers import feature_evolution as fe

from .. import components
from .. import figures as fig
from ..state import Field, StateSpec
from ..view import Panel, Preset, Rendered, View, clicked_cell, nearest_index
from . import kernel_alignment as trajectory


def _range(name: str) -> tuple[float, float]:
    spec = trajectory.SPEC.by_name[name]
    return spec.low, spec.high


#: the grid stays inside the trajectory view's ranges, so a clicked cell opens unclamped
GAMMA_RANGE = _range("gamma")
EXPONENT_RANGES = {"a": _range("a"), "b": _range("b")}
#: the map computes a P × P kernel per row: it stops at a smaller P than the trajectory view
SAMPLE_RANGE = (_range("samples")[0], 200)
SEED_RANGE = _range("seed")
HORIZON_RANGE = _range("horizon")
#: caps that keep one request well under ~1 s: a row costs one power-law task and one γ sweep
#: (a QR and an eigendecomposition of P × P, ~5 ms at P = 200), a column of the A(t) panel one
#: exact solution (one eigendecomposition, ~3 ms at P = 200)
MAX_ROWS = 40
MAX_COLUMNS = 120
TIME_COLUMNS = 25  #: γ values of the A(t) panel (the map's γ grid, thinned)
TIME_POINTS = 60  #: times of the A(t) panel

EXPONENT_NAMES = {"a": "task-power exponent a", "b": "eigenvalue exponent b"}

SPEC = StateSpec(
    (
        Field(
            "axis",
            "exponent along the vertical axis",
            "choice",
            "a",
            choices=("a", "b"),
            choice_labels=("task power a  (v_k² ∝ k^−a)", "kernel decay b  (λ_k ∝ k^−b)"),
            help="The map's rows run over this exponent's whole range; the other stays as set",
        ),
        Field(
            "rows",
            "rows (exponent values)",
            "int",
            20,
            4,
            MAX_ROWS,
            help=f"One exact γ sweep per row (at most {MAX_ROWS})",
        ),
        Field(
            "columns",
            "columns (values of γ)",
            "int",
            49,
            10,
            MAX_COLUMNS,
            help=f"Geometrically spaced (at most {MAX_COLUMNS})",
        ),
        Field(
            "gamma_low",
            "smallest γ",
            "float",
            GAMMA_RANGE[0],
            GAMMA_RANGE[0],
            0.1,
            log=True,
        ),
        Field(
            "gamma_high",
            "largest γ",
            "float",
            GAMMA_RANGE[1],
            10.0,
            GAMMA_RANGE[1],
            log=True,
        ),
        Field(
            "a",
            "task-power exponent a  (v_k² ∝ k^−a)",
            "float",
            1.5,
            *EXPONENT_RANGES["a"],
            step=0.05,
            help="The line plots and the A(t) panel use it (and the map, when b is on its axis)",
        ),
        Field(
            "b",
            "eigenvalue exponent b  (λ_k ∝ k^−b)",
            "float",
            1.2,
            *EXPONENT_RANGES["b"],
            step=0.05,
            help="The line plots and the A(t) panel use it (and the map, when a is on its axis)",
        ),
        Field(
            "samples",
            "number of samples P",
            "int",
            64,
            *SAMPLE_RANGE,
            help=f"Size of the P×P kernel (at most {SAMPLE_RANGE[1]})",
        ),
        Field(
            "seed",
            "random seed",
            "int",
            0,
            *SEED_RANGE,
            help="Draws the eigenvectors of K₀ and the signs of the target, as in the "
            "trajectory view",
        ),
        Field(
            "horizon",
            "last time of the A(t) panel",
            "float",
            1000.0,
            *HORIZON_RANGE,
            log=True,
            help="Also the horizon of the trajectory a click opens",
        ),
        Field("labels", "write the regimes on the maps", "bool", True, physics=False),
    )
)

GROUPS = (
    ("Map", ("axis", "rows", "columns", "gamma_low", "gamma_high", "labels")),
    ("Power-law task", ("a", "b", "samples", "seed")),
    ("Alignment over time", ("horizon",)),
)

PRESETS = (
    Preset(
        "Fig. 2C–D — A∞ and overlap over γ × task power a",
        "b = 1.2: past γ* the top eigenvector of K∞ locks onto y; a steeper task power (larger "
        "a) starts better aligned but, with a smaller ‖y‖², needs a larger γ*.",
        {"axis": "a", "b": 1.2, "a": 1.5, "samples": 64},
    ),
    Preset(
        "Over γ × kernel decay b",
        "a = 1.5: γ* grows with b — the wider the gap below K₀'s top eigenvalue, the more "
        "γyyᵀ has to outweigh; at b = 0 (K₀ = I) any γ > 0 turns it.",
        {"axis": "b", "a": 1.5, "b": 1.2, "samples": 64},
    ),
    Preset(
        "Large kernel, fine grid (P = 200)",
        "P = 200 and 40 rows × 80 values of γ: the same picture with a longer power-law tail.",
        {"axis": "a", "samples": 200, "rows": 40, "columns": 80},
    ),
    Preset(
        "Flat task power (a = 1.1, b = 2): γ gains the most",
        "The trajectory view's hard task: A₀ ≈ 0.28 and A∞ → 1; the A(t) panel shows how soon "
        "each γ gets there.",
        {"axis": "a", "a": 1.1, "b": 2.0, "horizon": 1e5},
    ),
)

PANELS = (
    Panel(
        "alignment",
        "Final alignment A∞ over γ and the exponent",
        r"Each cell is $A_\infty = \dfrac{\gamma\|y\|^4 + y^\top K_0 y}{\|K_0 + \gamma yy^\top\|_F"
        r"\,\|y\|^2}$ (their eq. 11) of the power-law task with that exponent: the alignment of "
        r"the final kernel $K_\infty = K_0 + \gamma yy^\top$ with the target. White dots: the "
        r"threshold $\gamma^*$ of each row; dashed: the row of the line plots.",
        height=420,
        wide=True,
    ),
    Panel(
        "overlap",
        "Top eigenvector of K∞ against the target",
        r"$|u_1^\top y|/\|y\|$ for the top eigenvector $u_1$ of $K_\infty$ (their Fig. 2C): small "
        r"while $K_0$'s own top mode dominates, close to 1 once $\gamma yy^\top$ takes over. White "
        r"dots: $\gamma^*$, where the overlap is half-way from its $\gamma \to 0$ value to 1.",
        height=380,
    ),
    Panel(
        "sweep",
        "A∞ and the overlap against γ for the current a, b",
        r"One row of both maps (Fig. 2C–D) at the exponents set on the left; dotted: the threshold "
        r"$\gamma^*$; dashed: the initial alignment $A_0 = A(K_0, y)$, the $\gamma \to 0$ limit.",
        height=380,
    ),
    Panel(
        "time",
        "Alignment A(t) over γ and time",
        r"The exact $A(K(t), y)$ with $K(t) = K_0 + \gamma(yy^\top - \Delta\Delta^\top)$ for the "
        r"current $a, b$: it climbs from $A_0$ to $A_\infty$ around $t \sim 1/(\eta c_1)$ "
        r"(dotted), $c_1$ the top eigenvalue of $K_\infty$ — sooner and higher for larger "
        r"$\gamma$ ($\eta = 1$).",
        height=380,
        wide=True,
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


def gammas(values: Mapping[str, Any]) -> np.ndarray:
    return _ten_digits(np.geomspace(values["gamma_low"], values["gamma_high"], values["columns"]))


def time_gammas(values: Mapping[str, Any]) -> np.ndarray:
    return gammas(values)[fig.thin(values["columns"], TIME_COLUMNS)]


def exponents(values: Mapping[str, Any]) -> np.ndarray:
    """The rows: the chosen exponent over the trajectory view's whole range."""
    return _ten_digits(np.linspace(*EXPONENT_RANGES[values["axis"]], values["rows"]))


def task(values: Mapping[str, Any], **exponent: float) -> tuple[np.ndarray, np.ndarray]:
    """(K₀, y) exactly as the trajectory view builds them, with an exponent overridden."""
    return trajectory.task({**values, **exponent})


def times(values: Mapping[str, Any], top_rate: float) -> np.ndarray:
    """Times of the A(t) panel: from well before the fastest rise (t ~ 1/c₁ at the largest γ,
    so the first row is close to A₀) to the horizon, geometrically."""
    horizon = values["horizon"]
    start = min(horizon * 1e-4, 1e-3 / top_rate)
    return np.geomspace(max(start, horizon * 1e-10), horizon, TIME_POINTS)


# -- computing -------------------------------------------------------------------------------


def _threshold(grid: np.ndarray, sweep: fe.GammaSweep) -> float:
    """γ* of the trajectory view (the overlap half-way from its γ → 0 value to 1), or NaN when
    the grid does not bracket it: already past it at the smallest γ (e.g. b = 0, K₀ = I, where
    any γ > 0 turns the top eigenvector onto y), or not there by the largest."""
    star = trajectory.threshold(grid, sweep.top_overlap, sweep.initial_overlap)
    return math.nan if star is None or star <= grid[0] else star


def compute(values: Mapping[str, Any]) -> dict:
    start = time.perf_counter()
    grid, rows, axis = gammas(values), exponents(values), values["axis"]
    alignment = np.zeros((rows.size, grid.size))
    overlap = np.zeros_like(alignment)
    initial = np.zeros(rows.size)
    stars = np.full(rows.size, np.nan)
    for row, exponent in enumerate(rows):
        K0, y = task(values, **{axis: float(exponent)})
        sweep = fe.gamma_sweep(K0, y, grid)
        alignment[row], overlap[row] = sweep.final_alignment, sweep.top_overlap
        initial[row] = sweep.initial_alignment
        stars[row] = _threshold(grid, sweep)
    # the current exponents: one more sweep, and the exact A(t) for a thinned γ grid
    K0, y = task(values)
    current = fe.gamma_sweep(K0, y, grid)
    star = _threshold(grid, current)
    over_time = time_gammas(values)
    rates = fe.gamma_sweep(K0, y, over_time).top_eigenvalue  # c₁ of K∞ for each γ
    t = times(values, float(np.max(rates)))
    aligned = np.stack([fe.exact(K0, y, t, gamma=float(g)).alignment for g in over_time], axis=1)
    return {
        "gammas": grid,
        "exponents": rows,
        "final_alignment": alignment,
        "top_overlap": overlap,
        "initial_alignment": initial,
        "threshold": stars,
        "current": {
            "final_alignment": current.final_alignment,
            "top_overlap": current.top_overlap,
            "initial_alignment": current.initial_alignment,
            "initial_overlap": current.initial_overlap,
            "threshold": None if math.isnan(star) else star,
        },
        "time": {"gammas": over_time, "t": t, "alignment": aligned, "rates": rates},
        "milliseconds": 1e3 * (time.perf_counter() - start),
    }


# -- figures ---------------------------------------------------------------------------------


def _labels(values: Mapping[str, Any], rows: np.ndarray) -> list[tuple[float, float, str]]:
    if not values["labels"]:
        return []
    low, high = values["gamma_low"], values["gamma_high"]
    middle = float(0.5 * (rows[0] + rows[-1]))
    return [
        (low * (high / low) ** 0.17, middle, "lazy (kernel regime)"),
        (low * (high / low) ** 0.86, middle, "rich (aligned)"),
    ]


def _threshold_trace(axis: str, result: dict) -> dict:
    found = np.isfinite(result["threshold"])
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "x": result["threshold"][found],
        "y": result["exponents"][found],
        "name": "threshold γ*",
        "line": {"color": "white", "width": 1.5},
        "marker": {"size": 6, "color": "white", "line": {"color": "#22313f", "width": 1}},
        "hovertemplate": f"γ* = %{{x:.3g}} at {axis} = %{{y:.3g}}<extra></extra>",
        "showlegend": False,
    }


def _current_row(values: Mapping[str, Any]) -> dict:
    level = values[values["axis"]]
    return {
        "type": "line",
        "xref": "paper",
        "yref": "y",
        "x0": 0,
        "x1": 1,
        "y0": level,
        "y1": level,
        "line": {"color": fig.COLORS["cursor"], "width": 2, "dash": "dash"},
    }


def map_figure(values: Mapping[str, Any], result: dict, quantity: str, height: int) -> dict:
    axis = values["axis"]
    name = "A∞" if quantity == "final_alignment" else "|u₁ᵀy|/‖y‖"
    figure = fig.portrait(
        result[quantity],
        result["gammas"],
        result["exponents"],
        x_title="feature-learning rate γ",
        y_title=EXPONENT_NAMES[axis],
        colorbar=name,
        log_x=True,
        zmin=0.0,
        zmax=1.0,
        labels=_labels(values, result["exponents"]),
        hover=f"γ = %{{x:.3g}}, {axis} = %{{y:.3g}}: {name} = %{{z:.3f}}",
        height=height,
    )
    figure["data"].append(_threshold_trace(axis, result))
    figure["layout"]["shapes"] = [_current_row(values)]
    return figure


def sweep_figure(values: Mapping[str, Any], result: dict) -> dict:
    grid, current = result["gammas"], result["current"]
    data = [
        fig.exact_trace(
            grid, current["top_overlap"], "top-eigenvector overlap |u₁ᵀy|/‖y‖", fig.COLORS["exact"]
        ),
        fig.exact_trace(grid, current["final_alignment"], "final alignment A∞", "#e76f51"),
        fig.exact_trace(
            [grid[0], grid[-1]],
            [current["initial_alignment"]] * 2,
            "A₀ (γ → 0)",
            fig.COLORS["kernel"],
            dash="dash",
            width=1.3,
        ),
    ]
    for trace in data[:2]:
        trace["hovertemplate"] = "γ = %{x:.3g}: %{y:.4f}<extra>" + trace["name"] + "</extra>"
    star = current["threshold"]
    if star is not None:
        data.append(
            fig.exact_trace(
                [star, star], [0, 1], f"threshold γ* ≈ {star:.2g}", "#555555", dash="dot", width=1.2
            )
        )
    return fig.figure(
        data,
        x_title=f"feature-learning rate γ  (a = {values['a']:g}, b = {values['b']:g})",
        y_title="overlap, alignment",
        log_x=True,
        height=380,
        hovermode="closest",
        yaxis=fig.axis("overlap, alignment", range=[0, 1.05]),
    )


def time_figure(values: Mapping[str, Any], result: dict) -> dict:
    over_time = result["time"]
    aligned = over_time["alignment"]
    figure = fig.portrait(
        aligned,
        over_time["gammas"],
        over_time["t"],
        x_title=f"feature-learning rate γ  (a = {values['a']:g}, b = {values['b']:g})",
        y_title="time t",
        colorbar="A(t)",
        log_x=True,
        log_y=True,
        zmin=0.0,
        zmax=1.0,
        hover="γ = %{x:.3g}, t = %{y:.3g}: A = %{z:.3f}",
        height=380,
    )
    rise = 1.0 / over_time["rates"]
    inside = (rise >= over_time["t"][0]) & (rise <= over_time["t"][-1])
    figure["data"].append(
        {
            "type": "scatter",
            "mode": "lines",
            "x": over_time["gammas"][inside],
            "y": rise[inside],
            "name": "t = 1/c₁",
            "line": {"color": "white", "width": 1.5, "dash": "dot"},
            "hovertemplate": "γ = %{x:.3g}: 1/c₁ = %{y:.3g}<extra></extra>",
            "showlegend": False,
        }
    )
    return figure


def render(values: Mapping[str, Any], result: dict) -> Rendered:
    figures = {
        "alignment": map_figure(values, result, "final_alignment", 420),
        "overlap": map_figure(values, result, "top_overlap", 380),
        "sweep": sweep_figure(values, result),
        "time": time_figure(values, result),
    }
    messages = []
    if not np.any(np.isfinite(result["threshold"])):
        messages.append(
            "No row has a threshold γ* in this γ range: the top eigenvector of K∞ is either "
            "aligned with y from the start or still not half-way at the largest γ."
        )
    return Rendered(figures=figures, summary=_summary(values, result), messages=messages)


# -- summary and downloads -------------------------------------------------------------------


def _summary(values: Mapping[str, Any], result: dict) -> html.Dl:
    axis = values["axis"]
    rows, stars = result["exponents"], result["threshold"]
    initial = result["initial_alignment"]
    current = result["current"]
    cells = result["final_alignment"].size
    found = np.isfinite(stars)
    items = [
        (
            "the maps",
            f"{rows.size} × {result['gammas'].size} = {cells:,} values of A∞ and of the top-"
            f"eigenvector overlap (t → ∞, from K∞ = K₀ + γyyᵀ), plus A(t) at "
            f"{result['time']['t'].size} times for {result['time']['gammas'].size} values of γ; "
            f"computed in {result['milliseconds']:.0f} ms",
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
    if np.any(found):
        items.append(
            (
                "threshold γ*",
                f"from {np.min(stars[found]):.3g} to {np.max(stars[found]):.3g} over the "
                f"{np.count_nonzero(found)} rows that have one",
            )
        )
    star = current["threshold"]
    items.append(
        (
            f"at a = {values['a']:g}, b = {values['b']:g}",
            f"A₀ = {current['initial_alignment']:.3f} → A∞ = "
            f"{current['final_alignment'][-1]:.3f} at γ = {result['gammas'][-1]:.3g}"
            + (f"; γ* ≈ {star:.2g}" if star is not None else "; no threshold in range"),
        )
    )
    return components.facts(items)


def export(values: Mapping[str, Any], result: dict) -> dict[str, dict[str, np.ndarray]]:
    axis = values["axis"]
    grid_rows, grid_gammas = np.meshgrid(result["exponents"], result["gammas"], indexing="ij")
    tables = {
        f"map over gamma and {axis}": {
            axis: grid_rows.ravel(),
            "gamma": grid_gammas.ravel(),
            "final_alignment": result["final_alignment"].ravel(),
            "top_overlap": result["top_overlap"].ravel(),
        },
        f"current a={values['a']:g} b={values['b']:g}": {
            "gamma": result["gammas"],
            "final_alignment": result["current"]["final_alignment"],
            "top_overlap": result["current"]["top_overlap"],
        },
    }
    found = np.isfinite(result["threshold"])
    if np.any(found):
        tables[f"threshold gamma* over {axis}"] = {
            axis: result["exponents"][found],
            "gamma_star": result["threshold"][found],
            "initial_alignment": result["initial_alignment"][found],
        }
    over_time = result["time"]
    grid_t, grid_g = np.meshgrid(over_time["t"], over_time["gammas"], indexing="ij")
    tables["alignment over time"] = {
        "gamma": grid_g.ravel(),
        "t": grid_t.ravel(),
        "alignment": over_time["alignment"].ravel(),
    }
    return tables


# -- clicks ----------------------------------------------------------------------------------


def _target(values: Mapping[str, Any], gamma: float, **exponent: float):
    return trajectory.VIEW, {
        "gamma": float(gamma),
        "a": float(exponent.get("a", values["a"])),
        "b": float(exponent.get("b", values["b"])),
        "samples": values["samples"],
        "seed": values["seed"],
        "horizon": values["horizon"],
        "log_time": True,
        "descent": False,
    }


def open_cell(values: Mapping[str, Any], point: Mapping[str, Any]):
    """A cell of either map (or a γ* dot): its γ and exponent, the other exponent and the task
    as set. Found from the indices the browser sends for a heatmap cell, else from the nearest
    grid point (the drawn coordinates travel as float32)."""
    grid, rows = gammas(values), exponents(values)
    found = clicked_cell(point, rows.size, grid.size)
    if found is None:
        column, row = nearest_index(grid, point["x"], log=True), nearest_index(rows, point["y"])
        if column is None or row is None:
            return None
        found = row, column
    row, column = found
    return _target(values, grid[column], **{values["axis"]: rows[row]})


def open_gamma(values: Mapping[str, Any], point: Mapping[str, Any]):
    """A point of the line plots or of the A(t) panel: its γ, with the current a and b."""
    column = nearest_index(gammas(values), point["x"], log=True)
    return None if column is None else _target(values, gammas(values)[column])


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
    spec=SPEC,
    panels=PANELS,
    presets=PRESETS,
    compute=compute,
    render=render,
    export=export,
    groups=GROUPS,
    animated=False,
    click_targets={
        "alignment": open_cell,
        "overlap": open_cell,
        "sweep": open_gamma,
        "time": open_gamma,
    },
    in_nav=False,
)
