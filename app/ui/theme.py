"""Light and dark plots. Views draw in the light palette; when the page asks for the dark theme
(it follows the system's ``prefers-color-scheme``), :func:`themed` recolours a finished figure:
backgrounds, text, grids and axes, the palette's darkest colours, which would vanish on a dark
background, and its palest ones (maps' and tables' fills), which would glare on it. A diverging
scale centred on white gets a dark centre; the other colour scales and the light data colours
stay as they are."""

from __future__ import annotations

from typing import Any

from .figures import LOSS_SCALE, WHITE_CENTRED

__all__ = ["THEMES", "dark_scale", "themed"]

THEMES = ("light", "dark")

BACKGROUND = "#18212b"
INK = "#e6edf3"
GRID = "#2c3845"
AXIS_LINE = "#5a6877"
#: light-palette colours too dark for a dark background → their dark-theme counterparts
RECOLOUR = {
    "#1f4e79": "#8cc4f2",  # exact solutions
    "#333333": "#d0d7de",  # starts
    "#22313f": "#e6edf3",  # ink
    "#4d4d4d": "#c9d1d9",  # the balanced member of a diverging family
    "#2166ac": "#6aaee8",  # the most negative member of a family
    "#111": "#e6edf3",
    "#b8c0c8": AXIS_LINE,
    "#e5e8ec": GRID,
    "white": BACKGROUND,
    "#ffffff": BACKGROUND,
    "rgba(255,255,255,0.78)": "rgba(24,33,43,0.82)",
    "rgba(255,255,255,0.85)": "rgba(24,33,43,0.85)",  # labels' boxes on maps
    # pale fills: the finite-width map's frozen and unstable regions, its table's phases
    "#d5dde6": "#34404d",
    "#f7c5c0": "#6a3b3b",
    "#dbe7f3": "#1f3b58",
    "#fde2d4": "#5b3526",
    "#e9ecef": "#2f3944",
    "#f6c6c6": "#5e3034",
    "#f0f3f6": "#24303c",  # table headers
    "#dde3ea": "#3a4754",  # table lines
}
#: a matrix's diverging scale on a dark background: 0 dark, larger magnitudes brighter
DARK_SCALES = {
    repr(WHITE_CENTRED): [
        [0, "#f4a582"],
        [0.25, "#b8443c"],
        [0.5, "#1d2935"],
        [0.75, "#3b79b0"],
        [1, "#9ccbee"],
    ],
    repr(LOSS_SCALE): [[0, "#08306b"], [0.35, "#2171b5"], [0.7, "#5b9fd0"], [1, "#9ecae1"]],
}


def dark_scale(light: list, dark: list) -> None:
    """Declare ``dark`` the dark theme's counterpart of the colour scale ``light`` (a view's own
    scale whose middle or ends would glare on a dark background)."""
    DARK_SCALES[repr(light)] = dark


def _colour(value: Any) -> Any:
    """A colour, or a list of colours (a table's fills per column and row), recoloured."""
    if isinstance(value, list):  # (a list of numbers is data: shared as it is)
        return (
            [_colour(item) for item in value]
            if value and isinstance(value[0], str | list)
            else value
        )
    return RECOLOUR.get(value.lower(), value) if isinstance(value, str) else value


def _scale(scale: list) -> list:
    """A colour scale for a dark background: its dark counterpart, or its pale stops darkened."""
    dark = DARK_SCALES.get(repr(scale))
    if dark is not None:
        return dark
    return [[stop[0], _colour(stop[1])] if isinstance(stop, list) else stop for stop in scale]


def _recoloured(node: Any, depth: int = 0) -> Any:
    """A nested figure piece with every colour-valued key recoloured, as new dicts and lists:
    the pieces a figure shares with others (the module's font, a cached layer) must stay
    light for the next figure. Lists of plain values (data) are shared, not copied."""
    if depth > 6:
        return node
    if isinstance(node, dict):
        return {
            key: _scale(value)
            if key == "colorscale" and isinstance(value, list)
            else _colour(value)
            if "color" in key.lower() and not isinstance(value, dict)
            else _recoloured(value, depth + 1)
            if isinstance(value, dict | list)
            else value
            for key, value in node.items()
        }
    if isinstance(node, list) and any(isinstance(item, dict | list) for item in node):
        return [_recoloured(item, depth + 1) for item in node]
    return node


def _axes(layout: dict) -> None:
    for name, axis in layout.items():
        if isinstance(axis, dict) and (name.startswith(("xaxis", "yaxis", "zaxis"))):
            axis.setdefault("gridcolor", GRID)
            axis.setdefault("linecolor", AXIS_LINE)
            axis.setdefault("zerolinecolor", AXIS_LINE)
    scene = layout.get("scene")
    if isinstance(scene, dict):
        scene.setdefault("bgcolor", BACKGROUND)
        for name in ("xaxis", "yaxis", "zaxis"):
            axis = scene.setdefault(name, {})
            axis.setdefault("gridcolor", GRID)
            axis.setdefault("color", INK)
            axis.setdefault("backgroundcolor", BACKGROUND)


def themed(figure: dict, theme: str) -> dict:
    """``figure`` (a plain dict) in ``theme``: light figures come back untouched, dark ones as
    a new figure (``figure`` and what it shares are left as they were)."""
    if theme != "dark":
        return figure
    layout = _recoloured(figure.get("layout", {}))
    data = [_recoloured(trace) for trace in figure.get("data", [])]
    figure = {**figure, "layout": layout, "data": data}
    layout["paper_bgcolor"] = BACKGROUND
    layout.setdefault("plot_bgcolor", BACKGROUND)  # (a matrix's gaps between cells: GRID)
    layout["font"] = {**layout.get("font", {}), "color": INK}
    legend = layout.setdefault("legend", {})
    legend["bgcolor"] = "rgba(0,0,0,0)"
    _axes(layout)
    return figure
