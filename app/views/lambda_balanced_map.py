"""λ-balanced map (Dominé et al., *From lazy to rich*, Fig. 5B and App. A.4): how far the neural
tangent kernel has moved by a time t, and how long learning takes, across the relative scale λ
for funnel, square and inverted-funnel networks — and, for one architecture, across λ and the
absolute scale. Every cell is an exact solution (:func:`solvers.lambda_balanced.lambda_sweep`).
Clicking a cell opens that network in the λ-balanced trajectory view."""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from dash import html

from solvers import lambda_balanced as lb

from .. import components
from .. import figures as fig
from ..state import Field, StateSpec
from ..view import Panel, Preset, Rendered, View, clicked_cell, nearest_index
from . import lambda_balanced as trajectory

#: the grid stays inside the trajectory view's ranges, so a clicked cell opens unclamped
LAMBDA_LIMIT = trajectory.SPEC.by_name["lam"].high
SCALE_RANGE = (trajectory.SPEC.by_name["scale"].low, trajectory.SPEC.by_name["scale"].high)
SEED_LIMIT = trajectory.SPEC.by_name["seed"].high
#: how long to look for the loss threshold: the trajectory view's longest horizon
HORIZON = trajectory.SPEC.by_name["horizon"].high
#: caps that keep one request well under ~1 s: a cell of the architecture map costs 2–3 ms (its
#: march to t and the threshold search), one of the λ × scale map ~2 ms (no threshold search),
#: so at most 3 × 33 + 10 × 13 cells; the λ × scale map's columns are the main λ grid, thinned
MAX_LAMBDAS = 33
SCALE_COLUMNS = 13
MAX_SCALE_ROWS = 10
#: below this ``saddle_margin`` a start lies (to rounding) on a saddle's stable manifold
SADDLE_MARGIN = trajectory.SADDLE_MARGIN
#: the trajectory view seeds its random weights with numpy's ``default_rng([seed, 1])``;
#: SeedSequence reads an integer as its 32-bit words, least significant first, so the integer
#: ``seed + 2**32`` (which :func:`lambda_sweep` accepts) is the very same entropy [seed, 1]:
#: every cell starts from the weights the trajectory view draws for that λ, scale and seed
INIT_SEED_OFFSET = 2**32
#: the smallest kernel distance the logarithmic colour scale shows
LOG_FLOOR = 1e-6
#: S(0, t) above which a cell counts as "the kernel has moved" in the labels and summary
MOVED = 0.05

SHAPE_COLORS = {"funnel": "#2166ac", "square": "#2a9d8f", "inverted funnel": "#c2185b"}
SCALE_MAP_CHOICES = ("off", "funnel", "square", "inverted funnel")

SPEC = StateSpec(
    (
        Field(
            "t",
            "time t of the map",
            "float",
            100.0,
            0.1,
            1000.0,
            log=True,
            help="Each cell shows how far its kernel has moved by this time",
        ),
        Field(
            "spread",
            "largest |λ|",
            "float",
            7.0,
            1.0,
            LAMBDA_LIMIT,
            step=0.5,
            help="λ runs from −|λ| to +|λ|",
        ),
        Field(
            "count",
            "number of λ values",
            "int",
            9,
            5,
            MAX_LAMBDAS,
            step=2,
            help=(
                f"An odd number puts a column at λ = 0 (at most {MAX_LAMBDAS}); each λ costs "
                "about 5 ms (three networks, each its own exact flow)"
            ),
        ),
        Field(
            "scale",
            "absolute scale ‖W₂W₁‖ at t = 0",
            "float",
            0.1,
            SCALE_RANGE[0],
            SCALE_RANGE[1],
            log=True,
            help="Size of the network function at initialisation (the same for every cell)",
        ),
        Field(
            "threshold",
            "loss threshold (fraction of the initial loss)",
            "float",
            0.01,
            1e-4,
            0.5,
            log=True,
            help="The time-to-learn panel shows when the loss first falls below this fraction",
        ),
        Field(
            "task",
            "task",
            "choice",
            "random",
            choices=("random", "hierarchy"),
            choice_labels=("random regression", "semantic hierarchy (8 × 8, square net only)"),
        ),
        Field(
            "seed",
            "random seed",
            "int",
            4,
            0,
            SEED_LIMIT,
            help="Seeds the random task and the random λ-balanced weights, as in the "
            "trajectory view",
        ),
        Field(
            "scale_map",
            "λ × absolute-scale map for",
            "choice",
            "off",
            choices=SCALE_MAP_CHOICES,
            choice_labels=("off", "funnel", "square", "inverted funnel"),
            help="App. A.4: the same kernel distance over λ and the absolute scale",
        ),
        Field(
            "scale_rows",
            "absolute scales in that map",
            "int",
            9,
            4,
            MAX_SCALE_ROWS,
            help=f"From {SCALE_RANGE[0]:g} to {SCALE_RANGE[1]:g}; "
            f"at most {SCALE_COLUMNS} λ columns",
        ),
        Field("labels", "write the regimes on the map", "bool", True, physics=False),
        Field(
            "log_colour",
            "logarithmic colour scale",
            "bool",
            False,
            physics=False,
            help=f"Colour log₁₀ S(0, t) (down to {LOG_FLOOR:g}): shows how lazy the lazy cells are",
        ),
    )
)

GROUPS = (
    ("Map", ("t", "spread", "count", "labels", "log_colour")),
    ("Networks and task", ("scale", "threshold", "task", "seed")),
    ("λ × absolute scale (App. A.4)", ("scale_map", "scale_rows")),
)

PRESETS = (
    Preset(
        "Fig. 5B — kernel distance vs λ after training",
        "Eleven λ in [−10, 10] at t = 1000: funnels lazy for λ ≫ 0 and delayed rich for λ ≪ 0, "
        "inverted funnels the reverse, square nets moving only near λ = 0.",
        {"t": 1000.0, "spread": 10.0, "count": 11, "scale": 0.1},
    ),
    Preset(
        "Early: the delayed-rich side is still lazy",
        "t = 1: only the nets near λ = 0 have moved their kernel; the delayed-rich side is still "
        "on its lazy plateau.",
        {"t": 1.0},
    ),
    Preset(
        "App. A.4 — funnel: λ × absolute scale",
        "Funnel 4→2→2 at t = 1000: the kernel has moved for λ < 0 at every scale, and hardly at "
        "all for λ ≫ 0.",
        {"t": 1000.0, "scale_map": "funnel", "scale_rows": 9},
    ),
    Preset(
        "App. A.4 — inverted funnel: λ × absolute scale",
        "Inverted funnel 2→2→4: the mirror image — the kernel has moved for λ > 0, not for λ ≪ 0.",
        {"t": 1000.0, "scale_map": "inverted funnel", "scale_rows": 9},
    ),
    Preset(
        "App. A.4 — square: λ × absolute scale",
        "Square 3→3→3: the kernel distance peaks at λ = 0 at every scale and vanishes for "
        "large |λ|.",
        {"t": 1000.0, "scale_map": "square", "scale_rows": 9},
    ),
    Preset(
        "Semantic hierarchy (square 8→8→8)",
        "The 8-item tree of Fig. 4: rich near λ = 0 (slow, stage by stage), lazy and fast for "
        "large |λ|.",
        {"task": "hierarchy", "t": 100.0, "scale": 0.01, "seed": 1},
    ),
)

PANELS = (
    Panel(
        "kernel",
        "Kernel distance S(0, t) over λ and the architecture",
        r"Each cell is one exact trajectory of a random $\lambda$-balanced network ($W_2^\top W_2 "
        r"- W_1W_1^\top = \lambda I$) of the given shape, whose $\|W_2W_1\|$ at $t = 0$ is the "
        r"absolute scale; its colour is "
        r"$S(0,t) = 1 - \langle K_0, K_t\rangle_F/(\|K_0\|_F\|K_t\|_F)$ of the NTK "
        r"$K = W_2W_2^\top \otimes I + I \otimes W_1^\top W_1$. Dark: the kernel has not moved "
        r"(lazy); bright: it has (rich).",
        height=360,
        wide=True,
    ),
    Panel(
        "lines",
        "Fig. 5B: S(0, t) against λ, one curve per architecture",
        r"The rows of the map as curves, as in Dominé et al. Fig. 5B: the funnel "
        r"($d_{in} > h \ge d_{out}$) is lazy as $\lambda \to +\infty$ and delayed rich as "
        r"$\lambda \to -\infty$, the inverted funnel ($d_{in} \le h < d_{out}$) the reverse, the "
        r"square net lazy on both sides.",
        height=340,
    ),
    Panel(
        "threshold",
        "Time to learn against λ",
        r"The first time at which $\mathcal{L}(t) \le$ threshold $\times\,\mathcal{L}(0)$ (exact, "
        r"by Newton's method on the exact loss). Lazy nets learn fast, in $\sim 1/|\lambda|$; "
        r"delayed-rich nets wait on a plateau that grows with $|\lambda|$. Dotted: the map's "
        r"time t.",
        height=340,
    ),
    Panel(
        "scales",
        "S(0, t) over λ and the absolute scale (App. A.4)",
        r"For the chosen architecture, the kernel distance at time t over the relative scale "
        r"$\lambda$ and the absolute scale $\|W_2W_1\|$ at $t = 0$ (Dominé et al. App. A.4, "
        r"Figs. 8–10). Choose an architecture under *λ × absolute-scale map* to compute it.",
        height=380,
        wide=True,
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


def lambdas(values: Mapping[str, Any]) -> np.ndarray:
    """The λ values of the map, from −|λ| to +|λ|."""
    return _ten_digits(np.linspace(-values["spread"], values["spread"], values["count"]))


def scale_lambdas(values: Mapping[str, Any]) -> np.ndarray:
    """The λ columns of the λ × scale map: the main grid, thinned to at most SCALE_COLUMNS."""
    return lambdas(values)[fig.thin(values["count"], SCALE_COLUMNS)]


def scales(values: Mapping[str, Any]) -> np.ndarray:
    """The absolute scales of the λ × scale map (geometric over the trajectory view's range)."""
    return _ten_digits(np.geomspace(*SCALE_RANGE, values["scale_rows"]))


def architectures(values: Mapping[str, Any]) -> dict[str, tuple[int, int, int]]:
    """Rows of the map: name → (d_in, h, d_out). The hierarchy is 8 × 8 (no funnel exists)."""
    if values["task"] == "hierarchy":
        size = trajectory.HIERARCHY_SIZE
        return {"square": (size, size, size)}
    return dict(lb.SHAPES)


def tasks(values: Mapping[str, Any], shapes: Mapping[str, tuple[int, int, int]]) -> dict:
    """Σyx of each row, exactly as the trajectory view builds it for this task and seed."""
    settings = {"task": values["task"], "seed": values["seed"]}
    return {
        name: trajectory.task(settings, d_in, d_out) for name, (d_in, _, d_out) in shapes.items()
    }


def init_seed(seed: int) -> int:
    """The integer seed of :func:`lambda_sweep` that draws the trajectory view's weights."""
    return seed + INIT_SEED_OFFSET


def _scale_map_shape(values: Mapping[str, Any], shapes: Mapping) -> tuple[str | None, list[str]]:
    chosen = values["scale_map"]
    if chosen == "off":
        return None, []
    if chosen in shapes:
        return chosen, []
    fallback = next(iter(shapes))
    return fallback, [
        f"The semantic hierarchy has as many features as items, so there is no {chosen} "
        f"network: the λ × scale map shows the {fallback} network."
    ]


def _shape_label(name: str, dims: tuple[int, int, int]) -> str:
    return f"{name} {dims[0]}→{dims[1]}→{dims[2]}"


# -- computing -------------------------------------------------------------------------------


#: the settings that decide the times to reach the threshold (everything but t)
_CROSSING_SETTINGS = ("spread", "count", "threshold", "scale", "task", "seed")


@functools.lru_cache(maxsize=64)
def _times_to_threshold(settings: tuple[tuple[str, Any], ...]) -> np.ndarray:
    """(shapes, λ) first times with loss ≤ threshold · loss(0). They do not depend on the map's
    time t, and finding them is half of a sweep's cost: kept per worker, a move of the t
    slider only recomputes S(0, t) and the loss at t."""
    values = dict(settings)
    shapes = architectures(values)
    sweep = lb.lambda_sweep(
        lambdas(values),
        0.0,
        horizon=HORIZON,
        threshold=values["threshold"],
        scale=values["scale"],
        seed=init_seed(values["seed"]),
        task_seed=values["seed"],
        shapes=shapes,
        sigma_yx=tasks(values, shapes),
    )
    times = sweep.time_to_threshold
    times.setflags(write=False)
    return times


def compute(values: Mapping[str, Any]) -> dict:
    start = time.perf_counter()
    lams = lambdas(values)
    shapes = architectures(values)
    sigma = tasks(values, shapes)
    seed = init_seed(values["seed"])
    sweep = lb.lambda_sweep(
        lams,
        values["t"],
        threshold=1.0,  # no threshold search here: see _times_to_threshold
        scale=values["scale"],
        seed=seed,
        task_seed=values["seed"],
        shapes=shapes,
        sigma_yx=sigma,
    )
    crossing = _times_to_threshold(tuple((name, values[name]) for name in _CROSSING_SETTINGS))
    chosen, notes = _scale_map_shape(values, shapes)
    scale_map = None
    if chosen is not None:
        columns, rows = scale_lambdas(values), scales(values)
        distance = np.zeros((rows.size, columns.size))
        margin = np.ones_like(distance)
        for row, scale in enumerate(rows):
            part = lb.lambda_sweep(
                columns,
                values["t"],
                threshold=1.0,  # no threshold search: only S(0, t) is drawn
                scale=float(scale),
                seed=seed,
                task_seed=values["seed"],
                shapes={chosen: shapes[chosen]},
                sigma_yx={chosen: sigma[chosen]},
            )
            distance[row] = np.where(part.valid[0], part.kernel_distance[0], np.nan)
            margin[row] = part.saddle_margin[0]
        scale_map = {
            "shape": chosen,
            "dims": shapes[chosen],
            "lams": columns,
            "scales": rows,
            "kernel_distance": distance,
            "near_saddle": int(np.count_nonzero(margin < SADDLE_MARGIN)),
        }
    return {
        "lams": lams,
        "shapes": sweep.shapes,
        "dimensions": sweep.dimensions,
        "valid": sweep.valid,
        "kernel_distance": np.where(sweep.valid, sweep.kernel_distance, np.nan),
        "loss": sweep.loss,
        "initial_loss": sweep.initial_loss,
        "time_to_threshold": crossing,
        "near_saddle": [
            (sweep.shapes[row], float(lams[column]))
            for row, column in np.argwhere((sweep.saddle_margin < SADDLE_MARGIN) & sweep.valid)
        ],
        "scale_map": scale_map,
        "notes": notes,
        "milliseconds": 1e3 * (time.perf_counter() - start),
    }


# -- figures ---------------------------------------------------------------------------------


def _colour(distance: np.ndarray, log: bool) -> np.ndarray:
    if not log:
        return distance
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log10(np.maximum(distance, LOG_FLOOR))


def _colour_range(log: bool) -> dict:
    return {"zmin": math.log10(LOG_FLOOR), "zmax": 0.0} if log else {"zmin": 0.0, "zmax": 1.0}


def _regimes(name: str) -> tuple[str, str]:
    """(regime as λ → −∞, regime as λ → +∞) of an architecture (Dominé et al. §6, Fig. 5B)."""
    if name == "funnel":
        return "delayed rich", "lazy"
    if name == "inverted funnel":
        return "lazy", "delayed rich"
    return "lazy", "lazy"


def labels(values: Mapping[str, Any], result: dict) -> list[tuple[float, float, str]]:
    """The regimes written on the map: rich at λ = 0, and for large |λ| lazy or delayed rich as
    the paper predicts for each architecture — the rich ones only where the kernel has moved by
    t (before that the cell is still on its plateau, and the label says so)."""
    if not values["labels"]:
        return []
    lams, distance = result["lams"], result["kernel_distance"]
    edge = 0.72 * values["spread"]
    columns = [int(np.argmin(np.abs(lams - x))) for x in (-edge, 0.0, edge)]
    written = []
    for row, name in enumerate(result["shapes"]):
        low, high = _regimes(name)
        for column, regime in zip(columns, (low, "rich", high), strict=True):
            text = regime
            if regime != "lazy" and not distance[row, column] >= MOVED:
                text = "lazy so far (rich later)" if regime == "delayed rich" else "rich later"
            x = 0.0 if regime == "rich" else float(lams[column])
            written.append((x, float(row), text))
    return written


def _cell_text(result: dict) -> list[list[str]]:
    return [
        [_shape_label(name, dims)] * len(result["lams"])
        for name, dims in zip(result["shapes"], result["dimensions"], strict=True)
    ]


def kernel_figure(values: Mapping[str, Any], result: dict) -> dict:
    log = values["log_colour"]
    rows = len(result["shapes"])
    figure = fig.portrait(
        _colour(result["kernel_distance"], log),
        result["lams"],
        np.arange(rows, dtype=float),
        x_title="relative scale λ  (λ < 0: large first layer, λ > 0: large read-out)",
        y_title="architecture",
        colorbar="log₁₀ S(0, t)" if log else "S(0, t)",
        labels=labels(values, result),
        hover="%{text}, λ = %{x:.4g}: " + ("log₁₀ S = %{z:.3g}" if log else "S = %{z:.3g}"),
        height=360,
        **_colour_range(log),
    )
    figure["data"][0]["text"] = _cell_text(result)
    figure["layout"]["yaxis"] |= {
        "tickmode": "array",
        "tickvals": list(range(rows)),
        "ticktext": [name.replace(" ", "<br>") for name in result["shapes"]],
        "autorange": "reversed",
        "title": {"text": ""},
    }
    figure["layout"]["margin"] = {"l": 72, "r": 10, "t": 14, "b": 48}
    return figure


def _curves(result: dict, quantity: np.ndarray, what: str) -> list[dict]:
    """One line per architecture over λ, with a marker on every computed λ."""
    data = []
    for row, (name, dims) in enumerate(zip(result["shapes"], result["dimensions"], strict=True)):
        label = _shape_label(name, dims)
        trace = fig.exact_trace(
            result["lams"], quantity[row], label, SHAPE_COLORS.get(name, fig.COLORS["exact"])
        )
        trace["mode"] = "lines+markers"
        trace["marker"] = {"size": 6, "color": trace["line"]["color"]}
        trace["hovertemplate"] = f"λ = %{{x:.4g}}: {what} = %{{y:.4g}}<extra>{label}</extra>"
        data.append(trace)
    return data


def lines_figure(result: dict) -> dict:
    return fig.figure(
        _curves(result, result["kernel_distance"], "S(0, t)"),
        x_title="relative scale λ",
        y_title="S(0, t)",
        height=340,
        hovermode="closest",  # a click picks one network
        yaxis=fig.axis("S(0, t)", rangemode="tozero"),
    )


def threshold_figure(values: Mapping[str, Any], result: dict) -> dict:
    times = result["time_to_threshold"]
    # a log axis cannot show 0 (already below the threshold) or inf (not reached): gaps
    shown = np.where(np.isfinite(times) & (times > 0), times, np.nan)
    data = _curves(result, shown, "time")
    t = values["t"]
    marker = {
        "type": "line",
        "xref": "paper",
        "yref": "y",
        "x0": 0,
        "x1": 1,
        "y0": t,
        "y1": t,
        "line": {"color": fig.COLORS["cursor"], "width": 1.5, "dash": "dot"},
    }
    return fig.figure(
        data,
        x_title="relative scale λ",
        y_title=f"time to reach {values['threshold']:.3g} × L(0)",
        log_y=True,
        height=340,
        hovermode="closest",
        shapes=[marker],
    )


def scales_figure(values: Mapping[str, Any], result: dict) -> dict:
    scale_map = result["scale_map"]
    if scale_map is None:
        # a panel waiting for its architecture: an empty frame that says how to fill it
        figure = fig.figure(
            [{"type": "heatmap", "z": [[0.0]], "opacity": 0, "hoverinfo": "skip"}],
            x_title="relative scale λ",
            y_title="absolute scale ‖W₂W₁‖ at t = 0",
            height=380,
            show_legend=False,
        )
        figure["data"][0]["showscale"] = False
        figure["layout"]["annotations"] = [
            {
                "text": "Choose an architecture under “λ × absolute-scale map for”<br>"
                f"({values['scale_rows']} × {min(values['count'], SCALE_COLUMNS)} more exact "
                "trajectories)",
                "showarrow": False,
                "xref": "paper",
                "yref": "paper",
                "x": 0.5,
                "y": 0.5,
                "font": {"size": 14},
            }
        ]
        figure["layout"]["xaxis"]["visible"] = False
        figure["layout"]["yaxis"]["visible"] = False
        return figure
    log = values["log_colour"]
    lams, rows = scale_map["lams"], scale_map["scales"]
    left, right = _regimes(scale_map["shape"])
    written = []
    if values["labels"]:
        middle = math.sqrt(rows[0] * rows[-1])
        edge = float(lams[-1]) * 0.7
        written = [(-edge, middle, left), (edge, middle, right), (0.0, float(rows[0]), "rich")]
    return fig.portrait(
        _colour(scale_map["kernel_distance"], log),
        lams,
        rows,
        x_title=f"relative scale λ  ({_shape_label(scale_map['shape'], scale_map['dims'])})",
        y_title="absolute scale ‖W₂W₁‖ at t = 0",
        colorbar="log₁₀ S(0, t)" if log else "S(0, t)",
        log_y=True,
        labels=written,
        hover="λ = %{x:.4g}, scale = %{y:.3g}: "
        + ("log₁₀ S = %{z:.3g}" if log else "S = %{z:.3g}"),
        height=380,
        **_colour_range(log),
    )


def render(values: Mapping[str, Any], result: dict) -> Rendered:
    messages = list(result["notes"])
    if result["near_saddle"]:
        cells = ", ".join(f"{name} at λ = {lam:g}" for name, lam in result["near_saddle"][:5])
        messages.append(
            f"The {cells} start{'s' if len(result['near_saddle']) == 1 else ''} on the stable "
            "manifold of a saddle: the exact flow stalls there (any simulation escapes after a "
            "delay set by rounding), so the colour of that cell is not meaningful. Another seed "
            "avoids it."
        )
    scale_map = result["scale_map"]
    if scale_map is not None and scale_map["near_saddle"]:
        messages.append(
            f"{scale_map['near_saddle']} cells of the λ × scale map start on a saddle's stable "
            "manifold; their colour is not meaningful."
        )
    missed = int(np.count_nonzero(np.isinf(result["time_to_threshold"]) & result["valid"]))
    if missed:
        messages.append(
            f"{missed} networks do not reach {values['threshold']:g} × their initial loss by "
            f"t = {HORIZON:g}; the time-to-learn curves leave a gap there."
        )
    figures = {
        "kernel": kernel_figure(values, result),
        "lines": lines_figure(result),
        "threshold": threshold_figure(values, result),
        "scales": scales_figure(values, result),
    }
    return Rendered(figures=figures, summary=_summary(values, result), messages=messages)


# -- summary and downloads -------------------------------------------------------------------


def _ends(result: dict, name: str) -> str:
    row = result["shapes"].index(name)
    distance = result["kernel_distance"][row]
    return f"S = {distance[0]:.2g} at λ = {result['lams'][0]:g}, {distance[-1]:.2g} at λ = " + (
        f"{result['lams'][-1]:g}"
    )


def _summary(values: Mapping[str, Any], result: dict) -> html.Dl:
    distance, times = result["kernel_distance"], result["time_to_threshold"]
    cells = int(np.count_nonzero(result["valid"]))
    scale_map = result["scale_map"]
    extra = f" + {scale_map['kernel_distance'].size} for the λ × scale map" if scale_map else ""
    items = [
        (
            "the map",
            f"{cells} exact trajectories ({len(result['shapes'])} architecture"
            f"{'s' if len(result['shapes']) > 1 else ''} × {len(result['lams'])} values of λ)"
            f"{extra}, each shown at t = {values['t']:.3g}; computed in "
            f"{result['milliseconds']:.0f} ms",
        ),
        (
            "what the colour says",
            "how far the neural tangent kernel has moved from its start by time t: S = 0 is "
            "lazy (a fixed kernel), S near its maximum is rich",
        ),
    ]
    if "funnel" in result["shapes"]:
        items.append(("funnel", _ends(result, "funnel")))
        items.append(("inverted funnel (the mirror image)", _ends(result, "inverted funnel")))
    if "square" in result["shapes"]:
        row = result["shapes"].index("square")
        peak = int(np.nanargmax(distance[row]))
        items.append(
            (
                "square",
                f"largest S = {distance[row, peak]:.2g} at λ = {result['lams'][peak]:g}",
            )
        )
    finite = np.isfinite(times) & result["valid"]
    if np.any(finite):
        slow = np.unravel_index(np.argmax(np.where(finite, times, -1.0)), times.shape)
        items.append(
            (
                f"time to reach {values['threshold']:g} × L(0)",
                f"from {np.min(times[finite]):.3g} to {times[slow]:.3g} (the slowest: "
                f"{result['shapes'][slow[0]]} at λ = {result['lams'][slow[1]]:g})",
            )
        )
    return components.facts(items)


def export(values: Mapping[str, Any], result: dict) -> dict[str, dict[str, np.ndarray]]:
    """One table per architecture over λ; the λ × scale map as a table of its own. A time to
    learn that is not reached by the horizon is written as the horizon with reached = 0."""
    tables = {}
    for row, (name, dims) in enumerate(zip(result["shapes"], result["dimensions"], strict=True)):
        valid = result["valid"][row]
        times = result["time_to_threshold"][row]
        tables[f"{_shape_label(name, dims)} t={values['t']:g}"] = {
            "lam": result["lams"][valid],
            "kernel_distance": result["kernel_distance"][row][valid],
            "loss": result["loss"][row][valid],
            "initial_loss": result["initial_loss"][row][valid],
            "time_to_threshold": np.where(np.isfinite(times), times, HORIZON)[valid],
            "reached": np.isfinite(times).astype(float)[valid],
        }
    scale_map = result["scale_map"]
    if scale_map is not None:
        grid_scales, grid_lams = np.meshgrid(scale_map["scales"], scale_map["lams"], indexing="ij")
        keep = np.isfinite(scale_map["kernel_distance"]).ravel()
        label = _shape_label(scale_map["shape"], scale_map["dims"])
        tables[f"scale map {label} t={values['t']:g}"] = {
            "lam": grid_lams.ravel()[keep],
            "scale": grid_scales.ravel()[keep],
            "kernel_distance": scale_map["kernel_distance"].ravel()[keep],
        }
    return tables


# -- clicks ----------------------------------------------------------------------------------


def _target(values: Mapping[str, Any], shape: str, dims: tuple, lam: float, scale: float):
    horizon = min(max(values["t"], 0.5), HORIZON)
    d_in, hidden, d_out = dims
    return trajectory.VIEW, {
        "lam": float(lam),
        "scale": float(scale),
        "shape": shape,
        "d_in": d_in,
        "hidden": hidden,
        "d_out": d_out,
        "task": values["task"],
        "init": "random",
        "seed": values["seed"],
        "horizon": horizon,
        "log_time": horizon >= 100,
        "descent": False,
    }


def open_cell(values: Mapping[str, Any], point: Mapping[str, Any]):
    """The clicked cell's network — its λ and architecture, the map's scale, task and seed —
    in the trajectory view, up to the map's time (so its last point is what the cell shows).
    The cell is found from the indices the browser sends, else from the nearest grid point
    (the drawn coordinates travel as float32)."""
    lams, shapes = lambdas(values), architectures(values)
    names = list(shapes)
    found = clicked_cell(point, len(names), lams.size)
    if found is None:
        column = nearest_index(lams, point["x"])
        row = round(float(point["y"]))
        if column is None or not 0 <= row < len(names):
            return None
        found = row, column
    row, column = found
    return _target(values, names[row], shapes[names[row]], lams[column], values["scale"])


def open_curve_point(values: Mapping[str, Any], point: Mapping[str, Any]):
    """A point of the Fig. 5B curves: the curve is the architecture, the point its λ."""
    lams, shapes = lambdas(values), architectures(values)
    names = list(shapes)
    row, column = point.get("curveNumber"), point.get("pointNumber")
    if not all(isinstance(k, int) and not isinstance(k, bool) for k in (row, column)):
        return None
    if not (0 <= row < len(names) and 0 <= column < lams.size):
        return None
    return _target(values, names[row], shapes[names[row]], lams[column], values["scale"])


def open_scale_cell(values: Mapping[str, Any], point: Mapping[str, Any]):
    """A cell of the λ × scale map: its λ and absolute scale, that map's architecture."""
    shapes = architectures(values)
    chosen, _ = _scale_map_shape(values, shapes)
    if chosen is None:
        return None
    lams, rows = scale_lambdas(values), scales(values)
    found = clicked_cell(point, rows.size, lams.size)
    if found is None:
        column, row = nearest_index(lams, point["x"]), nearest_index(rows, point["y"], log=True)
        if column is None or row is None:
            return None
        found = row, column
    row, column = found
    return _target(values, chosen, shapes[chosen], lams[column], rows[row])


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
    spec=SPEC,
    panels=PANELS,
    presets=PRESETS,
    compute=compute,
    render=render,
    export=export,
    groups=GROUPS,
    animated=False,
    click_targets={"lines": open_curve_point, "kernel": open_cell, "scales": open_scale_cell},
    in_nav=False,
)
