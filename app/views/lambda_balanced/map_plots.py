"""The λ-balanced map's plots, one function each: S(0, t) over λ and the architecture, its rows
as the curves of Fig. 5B, the time to learn against λ, and S(0, t) over λ and the absolute
scale (App. A.4)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from solvers import lambda_balanced as lb

from ...core.panel import Figure, Panel
from ...ui import figures as fig

if TYPE_CHECKING:
    from .map import Controls, Map

#: the smallest kernel distance the logarithmic colour scale shows
LOG_FLOOR = 1e-6
#: most λ columns of the λ × scale map (the main λ grid, thinned)
SCALE_COLUMNS = 13
#: S(0, t) above which a cell counts as "the kernel has moved" in the labels
MOVED = 0.05
SHAPE_COLORS = {"funnel": "#2166ac", "square": "#2a9d8f", "inverted funnel": "#c2185b"}
#: the regimes as the map writes them (a lazy square net is simply lazy here)
MAP_WORDS = {"lazy in W1": "lazy", "lazy in W2": "lazy", "bottleneck": "lazy"}


def shape_label(name: str, dims: tuple[int, int, int]) -> str:
    return f"{name} {dims[0]}→{dims[1]}→{dims[2]}"


def _regimes(dims: tuple[int, int, int]) -> tuple[str, str]:
    """(regime as λ → −∞, regime as λ → +∞) of an architecture, as the map writes them."""
    kind = lb.shape_kind(*dims)
    ends = (lb.limit_regime(kind, -1), lb.limit_regime(kind, 1))
    return tuple(MAP_WORDS.get(end, end) for end in ends)


def _colour(distance: np.ndarray, log: bool) -> np.ndarray:
    if not log:
        return distance
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log10(np.maximum(distance, LOG_FLOOR))


def _colour_range(log: bool) -> dict:
    return {"zmin": math.log10(LOG_FLOOR), "zmax": 0.0} if log else {"zmin": 0.0, "zmax": 1.0}


def _colour_words(log: bool) -> tuple[str, str]:
    """(colour bar title, hover text of a cell's value)."""
    return ("log₁₀ S(0, t)", "log₁₀ S = %{z:.3g}") if log else ("S(0, t)", "S = %{z:.3g}")


def labels(controls: Controls, result: Map) -> list[tuple[float, float, str]]:
    """The regimes written on the map: rich at λ = 0, and for large |λ| lazy or delayed rich as
    the paper predicts for each architecture — the rich ones only where the kernel has moved by
    t (before that the cell is still on its plateau, and the label says so)."""
    if not controls.labels:
        return []
    lams, distance = result.sweep.lams, result.kernel_distance
    edge = 0.8 * controls.spread
    columns = [int(np.argmin(np.abs(lams - x))) for x in (-edge, 0.0, edge)]
    written = []
    for row, dims in enumerate(result.sweep.dimensions):
        low, high = _regimes(dims)
        for column, regime in zip(columns, (low, "rich", high), strict=True):
            text = regime
            if regime != "lazy" and not distance[row, column] >= MOVED:
                text = "lazy so far (rich later)" if regime == "delayed rich" else "rich later"
            x = 0.0 if regime == "rich" else float(lams[column])
            written.append((x, float(row), text))
    return written


def draw_kernel(controls: Controls, result: Map) -> Figure:
    sweep, log = result.sweep, controls.log_colour
    rows = len(sweep.shapes)
    colorbar, value = _colour_words(log)
    figure = fig.portrait(
        _colour(result.kernel_distance, log),
        sweep.lams,
        np.arange(rows, dtype=float),
        # (short enough for a phone: which side is which layer the explanation says)
        x_title="relative scale λ",
        y_title="architecture",
        colorbar=colorbar,
        labels=labels(controls, result),
        hover="%{text}, λ = %{x:.4g}: " + value,
        height=360,
        **_colour_range(log),
    )
    figure["data"][0]["text"] = [
        [shape_label(name, dims)] * sweep.lams.size
        for name, dims in zip(sweep.shapes, sweep.dimensions, strict=True)
    ]
    figure["layout"]["yaxis"] |= {
        "tickmode": "array",
        "tickvals": list(range(rows)),
        "ticktext": [name.replace(" ", "<br>") for name in sweep.shapes],
        "autorange": "reversed",
        "title": {"text": ""},
    }
    return fig.fit(figure)


def _curves(result: Map, quantity: np.ndarray, what: str) -> list[dict]:
    """One line per architecture over λ, with a marker on every computed λ."""
    sweep, data = result.sweep, []
    for row, (name, dims) in enumerate(zip(sweep.shapes, sweep.dimensions, strict=True)):
        label = shape_label(name, dims)
        colour = SHAPE_COLORS.get(name, fig.COLORS["exact"])
        trace = fig.exact_trace(sweep.lams, quantity[row], label, colour)
        trace["mode"] = "lines+markers"
        trace["marker"] = {"size": 6, "color": colour}
        trace["hovertemplate"] = f"λ = %{{x:.4g}}: {what} = %{{y:.4g}}<extra>{label}</extra>"
        data.append(trace)
    return data


def draw_lines(controls: Controls, result: Map) -> Figure:
    return fig.figure(
        _curves(result, result.kernel_distance, "S(0, t)"),
        x_title="relative scale λ",
        y_title="S(0, t)",
        height=340,
        hovermode="closest",  # a click picks one network
        # S on its whole range [0, 1], as on the trajectory view
        yaxis=fig.axis("S(0, t)", range=fig.UNIT_RANGE),
    )


def draw_threshold(controls: Controls, result: Map) -> Figure:
    times = result.sweep.time_to_threshold
    # a log axis cannot show 0 (already below the threshold) or inf (not reached): gaps
    shown = np.where(np.isfinite(times) & (times > 0), times, np.nan)
    marker = {
        "type": "line",
        "xref": "paper",
        "yref": "y",
        "x0": 0,
        "x1": 1,
        "y0": controls.t,
        "y1": controls.t,
        "line": {"color": fig.COLORS["cursor"], "width": 1.5, "dash": "dot"},
    }
    return fig.figure(
        _curves(result, shown, "time"),
        x_title="relative scale λ",
        y_title=f"time to reach {controls.threshold:.3g} × L(0)",
        log_y=True,
        height=340,
        hovermode="closest",
        shapes=[marker],
    )


def _waiting(controls: Controls) -> Figure:
    """A panel waiting for its architecture: an empty frame that says how to fill it."""
    figure = fig.figure(
        [{"type": "heatmap", "z": [[0.0]], "opacity": 0, "hoverinfo": "skip"}],
        x_title="relative scale λ",
        y_title="absolute scale ‖W₂W₁‖ at t = 0",
        height=380,
        show_legend=False,
    )
    figure["data"][0]["showscale"] = False
    columns = min(controls.count, SCALE_COLUMNS)
    figure["layout"]["annotations"] = [
        {
            "text": "Choose an architecture under “λ × absolute-scale map for”<br>"
            f"({controls.scale_rows} × {columns} more exact trajectories)",
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


def draw_scales(controls: Controls, result: Map) -> Figure:
    scale_map = result.scale_map
    if scale_map is None:
        return _waiting(controls)
    log, lams, rows = controls.log_colour, scale_map.lams, scale_map.scales
    left, right = _regimes(scale_map.dims)
    written = []
    if controls.labels:
        middle, edge = math.sqrt(rows[0] * rows[-1]), float(lams[-1]) * 0.7
        written = [(-edge, middle, left), (edge, middle, right), (0.0, float(rows[0]), "rich")]
    colorbar, value = _colour_words(log)
    return fig.portrait(
        _colour(scale_map.kernel_distance, log),
        lams,
        rows,
        x_title=f"λ  ({shape_label(scale_map.shape, scale_map.dims)})",
        y_title="absolute scale ‖W₂W₁‖ at t = 0",
        colorbar=colorbar,
        log_y=True,
        labels=written,
        hover="λ = %{x:.4g}, scale = %{y:.3g}: " + value,
        height=380,
        **_colour_range(log),
    )


PANELS = (
    Panel(
        "kernel",
        "Kernel distance S(0, t) over λ and the architecture",
        r"Each cell is one exact trajectory of a random $\lambda$-balanced network ($W_2^\top W_2 "
        r"- W_1W_1^\top = \lambda I$: $\lambda < 0$ a large first layer, $\lambda > 0$ a large "
        r"read-out) of the given shape, whose $\|W_2W_1\|$ at $t = 0$ is the absolute scale; its "
        r"colour is "
        r"$S(0,t) = 1 - \langle K_0, K_t\rangle_F/(\|K_0\|_F\|K_t\|_F)$ of the NTK "
        r"$K = W_2W_2^\top \otimes I + I \otimes W_1^\top W_1$. Dark: the kernel has not moved "
        r"(lazy); bright: it has (rich).",
        draw_kernel,
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
        draw_lines,
        height=340,
    ),
    Panel(
        "threshold",
        "Time to learn against λ",
        r"The first time at which $\mathcal{L}(t) \le$ threshold $\times\,\mathcal{L}(0)$ (exact, "
        r"by Newton's method on the exact loss). Lazy nets learn fast, in $\sim 1/|\lambda|$; "
        r"delayed-rich nets wait on a plateau that grows with $|\lambda|$. Dotted: the map's "
        r"time t.",
        draw_threshold,
        height=340,
    ),
    Panel(
        "scales",
        "S(0, t) over λ and the absolute scale (App. A.4)",
        r"For the chosen architecture, the kernel distance at time t over the relative scale "
        r"$\lambda$ and the absolute scale $\|W_2W_1\|$ at $t = 0$ (Dominé et al. App. A.4, "
        r"Figs. 8–10). Choose the architecture under *λ × absolute-scale map*.",
        draw_scales,
        height=380,
        wide=True,
    ),
)
