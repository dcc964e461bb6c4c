"""Light and dark plots. Views draw in the light palette; when the page asks for the dark theme
(it follows the system's ``prefers-color-scheme``), :func:`themed` recolours a finished figure:
backgrounds, text, grids and axes, and the palette's darkest colours, which would vanish on a
dark background. Colour scales and the light data colours stay as they are."""

from __future__ import annotations

from typing import Any

__all__ = ["THEMES", "themed"]

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
}


def _colour(value: Any) -> Any:
    return RECOLOUR.get(value.lower(), value) if isinstance(value, str) else value


def _recoloured(node: Any, depth: int = 0) -> Any:
    """A nested figure piece with every colour-valued key recoloured, as new dicts and lists:
    the pieces a figure shares with others (the module's font, a cached layer) must stay
    light for the next figure. Lists of plain values (data) are shared, not copied."""
    if depth > 6:
        return node
    if isinstance(node, dict):
        return {
            key: _recoloured(value, depth + 1)
            if isinstance(value, dict | list)
            else (_colour(value) if "color" in key.lower() else value)
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
    # tables keep their light cells and dark text: their fills are the phases' pastel colours
    data = [
        trace if isinstance(trace, dict) and trace.get("type") == "table" else _recoloured(trace)
        for trace in figure.get("data", [])
    ]
    figure = {**figure, "layout": layout, "data": data}
    layout["paper_bgcolor"] = BACKGROUND
    layout["plot_bgcolor"] = BACKGROUND
    layout["font"] = {**layout.get("font", {}), "color": INK}
    legend = layout.setdefault("legend", {})
    legend["bgcolor"] = "rgba(0,0,0,0)"
    _axes(layout)
    return figure
