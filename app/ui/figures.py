"""The shared visual language of every view: plain plotly figure dicts (no per-call validation,
so a callback stays fast), one palette, exact solutions as lines and gradient descent as open
markers on the same axes, and a "cursor" (the animation's current time) that the browser can
move without asking the server.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence

import numpy as np

from .axes import TICK_SIZE, axis_values, fit_margins, log_ticks, text_width
from .notation import number, typeset

__all__ = [
    "COLORS",
    "colors_for",
    "colour_bar",
    "compact",
    "cursor_line",
    "cursor_point",
    "descent_trace",
    "exact_trace",
    "figure",
    "fit",
    "heatmap",
    "label_offsets",
    "not_applicable",
    "pack",
    "plot_times",
    "portrait",
    "rounded",
    "thin",
]

COLORS = {
    "exact": "#1f4e79",
    "descent": "#d1495b",
    "target": "#2a9d8f",
    "start": "#333333",
    "kernel": "#8d99ae",
    "feature": "#e76f51",
    "grid": "#e5e8ec",
    "cursor": "#f4a261",
}
FONT = {
    "family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
    "size": 13,
    "color": "#22313f",
}
CURSOR = "cursor"
#: legends at the top of the figure, the plot pushed down under them (placed above the plot
#: area, at y = 1.02 of it, a legend that wrapped to a second row on a phone was drawn over the
#: data: plotly placed it for one row when a figure replaced an empty one); in rows as wide as
#: the plot (plotly's default for traces with legend groups gives each group a row of its own:
#: six rows on a phone for six lines)
LEGEND = {
    "orientation": "h",
    "yref": "container",
    "y": 1,
    "yanchor": "top",
    "x": 0,
    "font": {"size": 11},
    "traceorder": "normal",
}
#: fixed ranges of quantities compared between runs (a kernel distance, an alignment, a
#: cosine): an automatic range would blow a lazy run's 0.01 up to the height of a rich 0.7
UNIT_RANGE = [-0.03, 1.03]
COSINE_RANGE = [-1.06, 1.06]


#: diverging palette for an ordered family of curves (e.g. δ from downstream to upstream)
DIVERGING = ("#2166ac", "#4393c3", "#92c5de", "#4d4d4d", "#f4a582", "#d6604d", "#b2182b")


def colors_for(values: Sequence[float]) -> list[str]:
    """One colour per value, by rank: most negative blue, middle dark grey, most positive red."""
    values = np.asarray(values, dtype=float)
    if values.size == 1:
        return [COLORS["exact"]]
    ranks = np.argsort(np.argsort(values))
    positions = np.linspace(0, len(DIVERGING) - 1, values.size).round().astype(int)
    return [DIVERGING[positions[rank]] for rank in ranks]


def plot_times(horizon: float, log_time: bool, count: int = 400) -> np.ndarray:
    """Times at which curves are drawn: even on a linear axis, geometric on a log axis."""
    if log_time:
        return np.geomspace(horizon * 1e-4, horizon, count)
    return np.linspace(0.0, horizon, count)


def thin(count: int, limit: int) -> np.ndarray:
    """Indices of at most ``limit`` evenly spread items out of ``count`` (first and last kept)."""
    if count <= limit:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, limit).round().astype(int))


def exact_trace(
    x,
    y,
    name: str,
    color: str = COLORS["exact"],
    *,
    dash: str | None = None,
    group: str | None = None,
    show_legend: bool = True,
    width: float = 2.2,
) -> dict:
    line = {"color": color, "width": width}
    if dash:
        line["dash"] = dash
    return {
        "type": "scatter",
        "mode": "lines",
        "x": np.asarray(x),
        "y": np.asarray(y),
        "name": name,
        "line": line,
        "legendgroup": group or name,
        "showlegend": show_legend,
        "hovertemplate": "%{y:.4g}<extra>" + name + "</extra>",
    }


def descent_trace(
    x,
    y,
    name: str = "gradient descent",
    color: str = COLORS["descent"],
    *,
    group: str | None = None,
    show_legend: bool = True,
    limit: int = 60,
) -> dict:
    keep = thin(len(x), limit)
    return {
        "type": "scatter",
        "mode": "markers",
        "x": np.asarray(x)[keep],
        "y": np.asarray(y)[keep],
        "name": name,
        "legendgroup": group or name,
        "showlegend": show_legend,
        "marker": {"symbol": "circle-open", "size": 6, "color": color, "line": {"width": 1.5}},
        "hovertemplate": "%{y:.4g}<extra>" + name + "</extra>",
    }


def cursor_point(x: float, y: float, z: float | None = None) -> dict:
    """The animated "current time" marker; the browser moves it by its uid."""
    trace = {
        "type": "scatter3d" if z is not None else "scatter",
        "mode": "markers",
        "x": [x],
        "y": [y],
        "uid": CURSOR,
        "name": "now",
        "showlegend": False,
        "hoverinfo": "skip",
        "marker": {
            "size": 6 if z is not None else 11,
            "color": COLORS["cursor"],
            "line": {"color": "#22313f", "width": 1.5},
        },
    }
    if z is not None:
        trace["z"] = [z]
    return trace


def cursor_line(t: float) -> dict:
    """A vertical line at the current time on a time axis (moved in the browser by name)."""
    return {
        "type": "line",
        "name": CURSOR,
        "xref": "x",
        "yref": "paper",
        "x0": t,
        "x1": t,
        "y0": 0,
        "y1": 1,
        "line": {"color": COLORS["cursor"], "width": 1.5, "dash": "dot"},
    }


def axis(title: str, *, log: bool = False, **extra) -> dict:
    return {
        "title": {"text": title},
        "type": "log" if log else "linear",
        "tickfont": {"size": TICK_SIZE},
        # upright: rotated labels ran into the axis title and out of a phone's plot
        "tickangle": 0,
        "gridcolor": COLORS["grid"],
        "zeroline": False,
        "showline": True,
        "linecolor": "#b8c0c8",
        "ticks": "outside",
        "exponentformat": "power",
        # plotly's default ("hide past div") measures every tick label's box at every redraw
        # to hide those that stick out: a forced layout per label
        "ticklabeloverflow": "allow",
        # (None is "not given": plotly failed to update an axis whose range was null)
        **{key: value for key, value in extra.items() if value is not None},
    }


#: a logarithmic time axis over more decades than this labels every other one
WIDE_DECADES = 6


def _upright_time(log: bool) -> dict:
    """A time axis's labels: upright; decades only on a log axis, with minor ticks between."""
    if not log:
        return {"tickangle": 0}
    return {"tickangle": 0, "dtick": 1, "minor": {"ticks": "outside", "dtick": "D1", "ticklen": 3}}


def figure(
    data: list[dict],
    *,
    x_title: str = "time t",
    y_title: str = "",
    log_x: bool = False,
    log_y: bool = False,
    title: str = "",
    height: int = 300,
    shapes: list | None = None,
    show_legend: bool = True,
    **layout,
) -> dict:
    timed = x_title.startswith("time")
    base = {
        "font": FONT,
        # the left margin is set from the tick labels by :func:`fit` (plotly's automargin
        # made the maps' updates about twice as slow)
        "margin": {"l": 60, "r": 16, "t": 40 if title else 14, "b": 48},
        "height": height,
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        # time axes' labels are short (10⁻², 100): upright, they need no measuring for overlaps
        # at each redraw (plotly's automatic angle does), ~10 ms of a step of the network view;
        # on a log axis only the decades are labelled (upright, the 2s and 5s between ran into
        # them on a phone), the other digits are marked
        "xaxis": axis(x_title, log=log_x, **(_upright_time(log_x) if timed else {})),
        "yaxis": axis(y_title, log=log_y),
        "showlegend": show_legend,
        "legend": dict(LEGEND),  # (a copy: views add a title to theirs)
        "hovermode": "x unified" if timed else "closest",
        "shapes": shapes or [],
        "uirevision": "keep",  # keep zoom and legend toggles across updates
    }
    if title:
        base["title"] = {"text": title, "x": 0, "xanchor": "left", "font": {"size": 14}}
    base.update(layout)
    _name_hovers(data, base, x_title, y_title)
    return fit({"data": data, "layout": base})


def fit(figure_dict: dict) -> dict:
    """Finish a 2-D figure's axes (in place): every logarithmic axis without ticks of its own
    labelled with the numbers it marks, and the side margins as wide as the tick labels and
    titles need. Call it again after changing a finished figure's axes or data."""
    layout, data = figure_dict["layout"], figure_dict["data"]
    for name in ("xaxis", "yaxis", "yaxis2"):
        axis = layout.get(name)
        if isinstance(axis, dict) and axis.get("type") == "log":
            if "tickvals" not in axis and "dtick" not in axis:
                axis |= log_ticks(axis_values(data, name))
            elif axis.get("dtick") == 1 and _decades(axis_values(data, name)) > WIDE_DECADES:
                axis["dtick"] = 2  # every other decade: "10⁻³10⁻²10⁻¹" ran together in a card
    return fit_margins(figure_dict)


def _decades(values: np.ndarray) -> float:
    """How many decades the positive values span."""
    positive = values[values > 0]
    return float(np.log10(positive.max() / positive.min())) if positive.size else 0.0


def _symbol(title: str) -> str:
    """What an axis shows, for a hover: "time t" → "t", "relative scale δ" → "δ"."""
    words = title.split("  (")[0].split()
    return words[-1] if words and len(words[-1]) <= 2 and len(words) > 1 else title


def _name_hovers(data: list[dict], layout: dict, x_title: str, y_title: str) -> None:
    """Hovers that name what they show: "t = 8.77" over "S(0, t) = 0.12" (the traces'
    default ``%{y}`` hovers get the y axis's name, a time axis a unified title)."""
    x_name, y_name = typeset(_symbol(x_title)), typeset(y_title or "y")
    unified = layout.get("hovermode") == "x unified"
    if unified:
        layout["xaxis"]["unifiedhovertitle"] = {"text": f"{x_name} = %{{x:.4g}}"}
    for trace in data:
        template = trace.get("hovertemplate")
        if isinstance(template, str) and template.startswith("%{y:.4g}<extra>"):
            name = typeset(template.removeprefix("%{y:.4g}<extra>").removesuffix("</extra>"))
            value = f"{y_name} = %{{y:.4g}}"
            if not unified:
                value = f"{x_name} = %{{x:.4g}}, {value}"
            trace["hovertemplate"] = f"{value}<extra>{name}</extra>"


#: colour scales by their stops (plotly.js knows neither "Magma", "RdYlBu" nor the "_r" of
#: Python's plotly: such names fell back to its default scale)
MAGMA = [
    [0.0, "#000004"],
    [0.111, "#180f3d"],
    [0.222, "#440f76"],
    [0.333, "#721f81"],
    [0.444, "#9e2f7f"],
    [0.556, "#cd4071"],
    [0.667, "#f1605d"],
    [0.778, "#fd9668"],
    [0.889, "#feca8d"],
    [1.0, "#fcfdbf"],
]
#: red (small) through pale yellow to blue (large)
RED_YELLOW_BLUE = [
    [0.0, "#a50026"],
    [0.2, "#f46d43"],
    [0.4, "#fee090"],
    [0.6, "#e0f3f8"],
    [0.8, "#74add1"],
    [1.0, "#313695"],
]
#: blue (negative) through pale grey to red (positive), for points coloured by a sign
BLUE_RED = [[0.0, "#2166ac"], [0.5, "#e8e8e8"], [1.0, "#b2182b"]]

#: a loss left on a map (log of a ratio): learned dark blue, not learned pale (on a dark page
#: pale blue: the white end glared over the unlearned cells)
LOSS_SCALE = [[0, "#08306b"], [0.35, "#2171b5"], [0.7, "#6baed6"], [1, "#eef4fb"]]

#: diverging scale with 0 exactly white: negative red, positive blue
WHITE_CENTRED = [
    [0, "#b2182b"],
    [0.25, "#f4a582"],
    [0.5, "#ffffff"],
    [0.75, "#92c5de"],
    [1, "#2166ac"],
]


#: how the note of a panel that does not apply begins: the page folds such a card to the note
#: (assets/style.css matches it)
NOT_APPLICABLE = "Not for this setting:"


def not_applicable(text: str, height: int = 300) -> dict:
    """A panel that does not apply to the chosen setting: no axes, no data, a one-line note of
    what it needs, which the page shows in place of an empty plot (the card is folded to it;
    ``meta.unavailable`` says so to scripts and tests)."""
    note = {
        "text": f"{NOT_APPLICABLE}<br>{text}",  # (two short lines fit a phone)
        "showarrow": False,
        "xref": "paper",
        "yref": "paper",
        "x": 0.5,
        "y": 0.5,
        "font": {"size": 12, "color": "#5c6670"},
    }
    hidden = {"visible": False}
    return {
        "data": [{"type": "scatter", "x": [], "y": [], "hoverinfo": "skip", "showlegend": False}],
        "layout": {
            "font": FONT,
            "height": height,
            "margin": {"l": 4, "r": 4, "t": 4, "b": 4},
            "xaxis": hidden,
            "yaxis": hidden,
            "annotations": [note],
            "showlegend": False,
            "paper_bgcolor": "white",
            "plot_bgcolor": "white",
            "meta": {"unavailable": text},
            "uirevision": "keep",
        },
    }


def colour_bar(title: str = "") -> dict:
    """A colour bar across the top of the figure, its title beside it: right of the plot, a
    vertical one took a quarter of a phone's width."""
    bar = {
        "orientation": "h",
        "x": 0,
        "xanchor": "left",
        "yref": "container",  # (as the legend: at the figure's top, the plot pushed under it)
        "y": 1,
        "yanchor": "top",
        "len": 0.9,  # (the title's width is taken from it)
        "thickness": 10,
        "nticks": 5,  # (more ran together on a phone)
        "tickfont": {"size": TICK_SIZE - 1},
        "outlinewidth": 0,
    }
    if title:
        # beside the bar (above it, plotly drew it over the bar)
        bar["title"] = {"text": title, "side": "right", "font": {"size": TICK_SIZE}}
    return bar


def _symmetric_ticks(limit: float) -> dict:
    """A symmetric colour bar's three marks: −r, 0, r with r the largest one-digit number within
    the limit (five of plotly's ran together above a matrix in a narrow card)."""
    scale = 10.0 ** math.floor(math.log10(limit))
    r = math.floor(limit / scale + 1e-9) * scale
    return {"tickvals": [-r, 0.0, r], "ticktext": [f"−{number(r)}", "0", number(r)]}


def _category_axis(labels: Sequence[str], **extra) -> dict:
    """A matrix's axis of named rows or columns: labels upright while short, else turned."""
    long = max((text_width(str(label)) for label in labels), default=0) > 28
    return {"tickangle": -90 if long else 0, "tickfont": {"size": TICK_SIZE}, **extra}


def heatmap(
    z: np.ndarray,
    *,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    title: str = "",
    limit: float | None = None,
    height: int = 280,
) -> dict:
    """A symmetric diverging heatmap of a matrix (0 the background's colour, cells framed by
    thin gaps so that a matrix of zeros still reads as one)."""
    z = np.asarray(z)
    limit = limit if limit is not None else float(np.max(np.abs(z))) or 1.0
    trace = {
        "type": "heatmap",
        "z": z,
        "x": list(x_labels),
        "y": list(y_labels),
        "zmin": -limit,
        "zmax": limit,
        "xgap": 1,
        "ygap": 1,
        "colorscale": WHITE_CENTRED,
        "colorbar": colour_bar() | _symmetric_ticks(limit),
        "uid": CURSOR,
        "hovertemplate": "%{y} · %{x}: %{z:.3g}<extra></extra>",
    }
    x_axis = _category_axis(x_labels, side="bottom", constrain="domain")
    bottom = 10 + (max(text_width(str(v)) for v in x_labels) if x_axis["tickangle"] else 18)
    if x_axis["tickangle"] and list(x_labels) == list(y_labels):
        # a similarity matrix's columns are its rows: named once, at the left (turned names
        # below took more of a narrow card than the matrix did)
        x_axis["showticklabels"], bottom = False, 10
    layout = {
        "font": FONT,
        "height": height,
        "margin": {
            "l": 14 + max((text_width(str(v)) for v in y_labels), default=20),
            "r": 10,
            "t": 48 + (24 if title else 0),
            "b": round(bottom),
        },
        "xaxis": x_axis,
        "yaxis": _category_axis((), autorange="reversed", scaleanchor="x", constrain="domain"),
        "paper_bgcolor": "white",
        "plot_bgcolor": COLORS["grid"],  # the gaps between the cells
        "uirevision": "keep",
    }
    if title:
        layout["title"] = {"text": title, "x": 0, "xanchor": "left", "font": {"size": 14}}
    return {"data": [trace], "layout": layout}


def _regime_label(label: tuple[float, float, str], x_span: tuple[float, float]) -> dict:
    """A regime's name written on a map at (x, y) (in the axes' own coordinates: log10 of a
    logarithmic axis's value); near an edge it is anchored inwards, so that it stays whole."""
    x, y, text = label
    low, high = x_span
    where = (x - low) / (high - low) if high > low else 0.5
    anchor = "left" if where < 0.2 else "right" if where > 0.8 else "center"
    return {
        "x": x,
        "y": y,
        "xanchor": anchor,
        "text": text,
        "showarrow": False,
        "font": {"size": 12, "color": "#111"},
        "bgcolor": "rgba(255,255,255,0.78)",
        "borderpad": 2,
    }


#: where a point's label may go, in px from the point (tried in this order)
LABEL_OFFSETS = ((34, -26), (-34, -26), (34, 26), (-34, 26), (0, -36), (0, 36), (70, 0), (-70, 0))


def label_offsets(
    points: Sequence[tuple[float, float, str]],
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    size: tuple[float, float] = (270, 300),
    font: int = 12,
) -> list[tuple[int, int]]:
    """Arrow offsets (px) for labels of points (x, y, text) such that no two labels overlap
    and none leaves the plot, worked out for a plot of ``size`` px — a phone's: on a wider
    plot the points only move apart. A label that fits nowhere takes the first place."""
    width, height = size
    (x0, x1), (y0, y1) = x_range, y_range
    taken: list[tuple[float, float, float, float]] = []
    found = []
    for x, y, text in points:
        px, py = (x - x0) / (x1 - x0) * width, (1 - (y - y0) / (y1 - y0)) * height
        half_w, half_h = text_width(text, font) / 2 + 4, 0.7 * font + 2
        chosen = LABEL_OFFSETS[0]
        for ax, ay in LABEL_OFFSETS:
            box = (px + ax - half_w, py + ay - half_h, px + ax + half_w, py + ay + half_h)
            inside = box[0] >= 0 and box[1] >= 0 and box[2] <= width and box[3] <= height
            clear = all(
                box[2] <= b[0] or b[2] <= box[0] or box[3] <= b[1] or b[3] <= box[1] for b in taken
            )
            if inside and clear:
                chosen = (ax, ay)
                break
        ax, ay = chosen
        taken.append((px + ax - half_w, py + ay - half_h, px + ax + half_w, py + ay + half_h))
        found.append(chosen)
    return found


def _span(values: np.ndarray, log: bool) -> tuple[float, float]:
    shown = np.asarray(values, dtype=float)
    shown = np.log10(shown[shown > 0]) if log else shown[np.isfinite(shown)]
    return (float(shown.min()), float(shown.max())) if shown.size else (0.0, 1.0)


def portrait(
    z: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    *,
    x_title: str,
    y_title: str,
    colorbar: str,
    log_x: bool = False,
    log_y: bool = False,
    zmin: float | None = None,
    zmax: float | None = None,
    colorscale: str | list = "Viridis",
    labels: Sequence[tuple[float, float, str]] = (),
    hover: str = "%{x:.3g}, %{y:.3g}: %{z:.3g}",
    height: int = 380,
    x_ticks: tuple[Sequence[float], Sequence[str]] | None = None,
    customdata: np.ndarray | None = None,
) -> dict:
    """A phase portrait: ``z[i, j]`` at ``(x[j], y[i])`` on a sequential colour scale (its bar
    above the plot), with the regimes' names written on it (``labels``: (x, y, text) in data
    coordinates). ``x_ticks`` (positions, texts) labels an axis drawn in transformed
    coordinates; ``customdata`` (same shape as z) is available to ``hover`` as
    ``%{customdata}``."""
    trace = {
        "type": "heatmap",
        "z": np.asarray(z, dtype=float),
        "x": np.asarray(x, dtype=float),
        "y": np.asarray(y, dtype=float),
        "colorscale": colorscale,
        "colorbar": colour_bar(colorbar),
        "hovertemplate": hover + "<extra></extra>",
    }
    if customdata is not None:
        trace["customdata"] = np.asarray(customdata, dtype=float)
    if zmin is not None:
        trace["zmin"] = zmin
    if zmax is not None:
        trace["zmax"] = zmax
    placed = [
        (float(np.log10(lx)) if log_x else lx, float(np.log10(ly)) if log_y else ly, text)
        for lx, ly, text in labels
    ]
    annotations = [_regime_label(label, _span(x, log_x)) for label in placed]
    result = figure(
        [trace],
        x_title=x_title,
        y_title=y_title,
        log_x=log_x,
        log_y=log_y,
        height=height,
        show_legend=False,
        annotations=annotations,
        hovermode="closest",
        margin={"l": 64, "r": 10, "t": 14, "b": 48},
    )
    _portrait_axes(result["layout"], (x, log_x), (y, log_y), x_ticks)
    return fit(result)


def _portrait_axes(layout: dict, x: tuple, y: tuple, x_ticks) -> None:
    for name, (values, log) in (("xaxis", x), ("yaxis", y)):
        if log:
            layout[name] |= log_ticks(values, most=5)
    if x_ticks is not None:
        layout["xaxis"] |= {
            "tickmode": "array",
            "tickvals": [float(v) for v in x_ticks[0]],
            "ticktext": list(x_ticks[1]),
        }


_ARRAY_KEYS = ("x", "y", "z", "surfacecolor", "customdata", "text")
_PACK_FROM = 8  # shorter arrays stay plain lists (e.g. the cursor, which the browser edits)


def pack(array: np.ndarray) -> dict:
    """plotly.js's typed-array form: float32, base64 — ~4× smaller than a JSON list."""
    array = np.asarray(array)
    if array.dtype.kind == "f":  # beyond float32's range is off every axis: draw it at the edge
        limit = np.finfo(np.float32).max
        array = np.clip(array, -limit, limit)
    packed = np.ascontiguousarray(array, dtype=np.float32)
    spec = {"dtype": "f4", "bdata": base64.b64encode(packed.tobytes()).decode("ascii")}
    if packed.ndim > 1:
        spec["shape"] = ", ".join(str(n) for n in packed.shape)
    return spec


#: the largest coordinate a line or marker gets on a linear axis; beyond, the point is a gap.
#: plotly places a point far outside an axis's range in pixels all the same, and an SVG
#: coordinate beyond single precision (~3.4e38) is an error the browser reports: a diverged
#: gradient-descent run's last markers reached 1e75 on the finite-width view's linear axes
#: (its parameters stop at 1e50)
DRAWABLE = 1e30


def _axis_type(layout: dict, letter: str, ref: str | None) -> str:
    name = f"{letter}axis{(ref or letter)[1:]}"
    return (layout.get(name) or {}).get("type") or "linear"


def _within_reach(figure_dict: dict) -> None:
    """Points of scatter traces beyond :data:`DRAWABLE` on a linear axis become gaps."""
    layout = figure_dict.get("layout") or {}
    for trace in figure_dict.get("data", []):
        if trace.get("type", "scatter") not in ("scatter", "scattergl"):
            continue
        for letter in ("x", "y"):
            values = trace.get(letter)
            if values is None or _axis_type(layout, letter, trace.get(f"{letter}axis")) not in (
                "linear",
                "-",
            ):
                continue
            try:  # (no copy of a float array: on every step, most have no such point)
                numbers = np.asarray(values, dtype=float)
            except (TypeError, ValueError):  # names, dates, packed arrays
                continue
            far = np.abs(numbers) > DRAWABLE
            if far.any():  # a copy: the trace's array may be the cached result's own
                trace[letter] = np.where(far, np.nan, numbers)


def compact(figure_dict: dict) -> dict:
    """Pack every numeric array of ``figure_dict``'s traces (in place) and return it; a point
    no screen can place (:data:`DRAWABLE`) is a gap."""
    _within_reach(figure_dict)
    for trace in figure_dict.get("data", []):
        for key in _ARRAY_KEYS:
            value = trace.get(key)
            if (
                isinstance(value, np.ndarray)
                and value.dtype.kind in "fiu"
                and value.size >= _PACK_FROM
            ):
                trace[key] = pack(value)
    return figure_dict


def rounded(values, digits: int = 6) -> list[float]:
    """A short JSON list (for browser-side animation data): each value to ``digits``
    significant digits, as ``float(f"{v:.6g}")`` gives it (a value within rounding of a
    halfway point may keep the other last digit).

    Vectorised (a step of the network view rounds ~5,000 values: 5 ms one at a time): the
    digits kept become an integer, scaled back by an exact power of ten, so the result is the
    double nearest the short decimal and prints as it."""
    x = np.asarray(values, dtype=float).ravel()
    out = x.copy()
    scaled = np.isfinite(x) & (x != 0)
    exponent = np.floor(np.log10(np.abs(x, where=scaled, out=np.ones_like(x))))
    shift = digits - 1 - exponent  # powers of ten up to 10²² are exact doubles
    up = scaled & (shift >= 0) & (shift <= 22)
    down = scaled & (shift < 0) & (shift >= -22)
    out[up] = np.round(x[up] * 10.0 ** shift[up]) / 10.0 ** shift[up]
    out[down] = np.round(x[down] / 10.0 ** -shift[down]) * 10.0 ** -shift[down]
    for index in np.flatnonzero(scaled & ~(up | down)):  # beyond 10^±22: rare, one at a time
        out[index] = float(f"{x[index]:.{digits}g}")
    return out.tolist()
