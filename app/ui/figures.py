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

from .notation import typeset

__all__ = [
    "COLORS",
    "colors_for",
    "compact",
    "cursor_line",
    "cursor_point",
    "descent_trace",
    "exact_trace",
    "figure",
    "heatmap",
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
        "gridcolor": COLORS["grid"],
        "zeroline": False,
        "showline": True,
        "linecolor": "#b8c0c8",
        "ticks": "outside",
        "exponentformat": "power",
        # plotly's default ("hide past div") measures every tick label's box at every redraw
        # to hide those that stick out: a forced layout per label
        "ticklabeloverflow": "allow",
        **extra,
    }


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
        # a log axis's labels (10⁻¹²) are wider: its title would be drawn over them. (A fixed
        # margin: plotly's automargin made the maps' updates about twice as slow)
        "margin": {"l": 76 if log_y else 60, "r": 16, "t": 40 if title else 14, "b": 48},
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
        "legend": {
            "orientation": "h",
            "y": 1.02,
            "yanchor": "bottom",
            "x": 0,
            "font": {"size": 11},
            # in rows as wide as the plot: plotly's default for traces with legend groups
            # gives each group a row of its own (six rows on a phone for six lines)
            "traceorder": "normal",
        },
        "hovermode": "x unified" if timed else "closest",
        "shapes": shapes or [],
        "uirevision": "keep",  # keep zoom and legend toggles across updates
    }
    if title:
        base["title"] = {"text": title, "x": 0, "xanchor": "left", "font": {"size": 14}}
    base.update(layout)
    _name_hovers(data, base, x_title, y_title)
    return {"data": data, "layout": base}


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


#: diverging scale with 0 exactly white: negative red, positive blue
WHITE_CENTRED = [
    [0, "#b2182b"],
    [0.25, "#f4a582"],
    [0.5, "#ffffff"],
    [0.75, "#92c5de"],
    [1, "#2166ac"],
]


def heatmap(
    z: np.ndarray,
    *,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    title: str,
    limit: float | None = None,
    height: int = 280,
) -> dict:
    """A symmetric diverging heatmap (0 is white) of a matrix."""
    z = np.asarray(z)
    limit = limit if limit is not None else float(np.max(np.abs(z))) or 1.0
    trace = {
        "type": "heatmap",
        "z": z,
        "x": list(x_labels),
        "y": list(y_labels),
        "zmin": -limit,
        "zmax": limit,
        "colorscale": WHITE_CENTRED,
        "colorbar": {"thickness": 10, "len": 0.9},
        "uid": CURSOR,
        "hovertemplate": "%{y} · %{x}: %{z:.3g}<extra></extra>",
    }
    layout = {
        "font": FONT,
        "height": height,
        "margin": {"l": 90, "r": 10, "t": 34, "b": 70},
        "title": {"text": title, "x": 0, "xanchor": "left", "font": {"size": 14}},
        "xaxis": {"tickangle": -45, "side": "bottom", "constrain": "domain"},
        "yaxis": {"autorange": "reversed", "scaleanchor": "x", "constrain": "domain"},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "uirevision": "keep",
    }
    return {"data": [trace], "layout": layout}


def _regime_label(x: float, y: float, text: str, log_x: bool, log_y: bool) -> dict:
    """A regime's name written on a map at (x, y) in data coordinates."""
    return {
        "x": float(np.log10(x)) if log_x else x,
        "y": float(np.log10(y)) if log_y else y,
        "text": f"<b>{text}</b>",
        "showarrow": False,
        "font": {"size": 14, "color": "#111"},
        "bgcolor": "rgba(255,255,255,0.78)",
        "borderpad": 3,
    }


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
    colorscale: str = "Viridis",
    labels: Sequence[tuple[float, float, str]] = (),
    hover: str = "%{x:.3g}, %{y:.3g}: %{z:.3g}",
    height: int = 380,
    x_ticks: tuple[Sequence[float], Sequence[str]] | None = None,
    customdata: np.ndarray | None = None,
) -> dict:
    """A phase portrait: ``z[i, j]`` at ``(x[j], y[i])`` on a sequential colour scale, with the
    regimes' names written on it (``labels``: (x, y, text) in data coordinates). ``x_ticks``
    (positions, texts) labels an axis drawn in transformed coordinates; ``customdata`` (same
    shape as z) is available to ``hover`` as ``%{customdata}``."""
    trace = {
        "type": "heatmap",
        "z": np.asarray(z, dtype=float),
        "x": np.asarray(x, dtype=float),
        "y": np.asarray(y, dtype=float),
        "colorscale": colorscale,
        "colorbar": {"title": {"text": colorbar, "side": "right"}, "thickness": 12},
        "hovertemplate": hover + "<extra></extra>",
    }
    if customdata is not None:
        trace["customdata"] = np.asarray(customdata, dtype=float)
    if zmin is not None:
        trace["zmin"] = zmin
    if zmax is not None:
        trace["zmax"] = zmax
    annotations = [_regime_label(lx, ly, text, log_x, log_y) for lx, ly, text in labels]
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
    return result


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def log_ticks(values: Sequence[float]) -> dict:
    """Ticks of a logarithmic axis over ``values``, each written as the number it is: 1, 2
    and 5 of each decade over up to four decades (0.1, 0.2, 0.5, 1, 2), else the powers of ten
    (10⁻³). Plotly's own labels of such an axis read "2, 5" for 0.2, 0.5."""
    shown = np.asarray(values, dtype=float)
    shown = shown[np.isfinite(shown) & (shown > 0)]
    if shown.size < 2:
        return {"dtick": "D2"}
    low, high = float(shown.min()), float(shown.max())
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    mantissas = (1, 2, 5) if last - first <= 4 else (1,)
    ticks = [m * 10.0**k for k in range(first, last + 1) for m in mantissas]
    ticks = [v for v in ticks if low * (1 - 1e-9) <= v <= high * (1 + 1e-9)]
    if len(ticks) < 2:
        return {"dtick": "D2"}
    if mantissas == (1,):
        texts = [f"10{str(round(math.log10(v))).translate(_SUPERSCRIPTS)}" for v in ticks]
    else:
        texts = [f"{v:g}" for v in ticks]
    return {"tickmode": "array", "tickvals": ticks, "ticktext": texts}


def _portrait_axes(layout: dict, x: tuple, y: tuple, x_ticks) -> None:
    for name, (values, log) in (("xaxis", x), ("yaxis", y)):
        if log:
            layout[name] |= log_ticks(values)
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


def compact(figure_dict: dict) -> dict:
    """Pack every numeric array of ``figure_dict``'s traces (in place) and return it."""
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
