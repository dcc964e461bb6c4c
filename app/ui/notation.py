"""The text's notation in the plots and tables: symbols in italics, subscripts lowered.

Views write plain labels ("S(0, t)", "‖u‖", "h_i = w_i · x", "c_η"); :func:`typeset` turns
them into the small HTML plotly draws (``<i>S</i>(0, <i>t</i>)``, ``<i>h</i><sub>i</sub>``) —
the look of the MathJax in the explanations, without typesetting on every redraw — and
:func:`typeset_children` into Dash components for tables. A single Latin or Greek letter
standing alone is a symbol; words stay upright; ``x_i`` or ``x_{ij}`` is a subscript.
"""

from __future__ import annotations

import re

from dash import html

__all__ = ["typeset", "typeset_children", "typeset_figure"]

_GREEK = "αβγδεζηθικλμνξπρστυφχψωΔΓΘΛΞΠΣΦΨΩ"
_LETTER = f"A-Za-z{_GREEK}"
#: ``x_i``, ``σ_u``, ``x_{ab}`` (group 1), or a symbol: one letter not inside a word (group 2)
_PIECE = re.compile(
    rf"_(\{{[^}}]*\}}|[{_LETTER}0-9*]+)|(?<![{_LETTER}0-9<])([{_LETTER}])(?![{_LETTER}])"
)
#: text already typeset is left alone; other markup (<b>, <br>, spans) is kept around the text
_TYPESET = re.compile(r"<(i|sub)>")
_TAG = re.compile(r"(<[^>]*>)")
#: words that are single letters in prose, not symbols
_PROSE = {"a ", "A "}


def _piece(match: re.Match) -> str:
    if match.group(1) is not None:
        return f"<sub>{typeset(match.group(1).strip('{}'))}</sub>"
    return f"<i>{match.group(2)}</i>"


def typeset(text: str) -> str:
    """Plotly's HTML for a plain label: symbols in italics, ``_`` subscripts lowered."""
    if not isinstance(text, str) or not text or _TYPESET.search(text):
        return text
    if text[:2] in _PROSE and len(text) > 2 and text[2].islower():
        return text  # "a measure of…": an article, not a symbol
    parts = _TAG.split(text)
    return "".join(p if p.startswith("<") else _PIECE.sub(_piece, p) for p in parts)


def typeset_children(text: str) -> list:
    """Dash components (text, ``html.I``, ``html.Sub``) for a plain label, for tables."""
    children: list = []
    for piece in re.split(r"(<i>.*?</i>|<sub>.*?</sub>)", typeset(text)):
        if piece.startswith("<i>"):
            children.append(html.I(piece[3:-4]))
        elif piece.startswith("<sub>"):
            inner = re.sub(r"</?i>", "", piece[5:-6])
            children.append(html.Sub(html.I(inner) if len(inner) == 1 else inner))
        elif piece:
            children.append(piece)
    return children


def _title(owner: dict) -> None:
    title = owner.get("title")
    if isinstance(title, dict) and isinstance(title.get("text"), str):
        title["text"] = typeset(title["text"])
    elif isinstance(title, str):
        owner["title"] = {"text": typeset(title)}


def typeset_figure(figure: dict) -> dict:
    """Axis, colour-bar and legend labels of a finished figure, typeset (in place)."""
    layout = figure.get("layout", {})
    spaces = [layout, *(v for k, v in layout.items() if k == "scene" and isinstance(v, dict))]
    for space in spaces:
        for name, axis in space.items():
            if name.startswith(("xaxis", "yaxis", "zaxis")) and isinstance(axis, dict):
                _title(axis)
    for trace in figure.get("data", []):
        if isinstance(trace.get("name"), str):
            trace["name"] = typeset(trace["name"])
        if isinstance(trace.get("colorbar"), dict):
            _title(trace["colorbar"])
        if trace.get("type") == "table":
            _table(trace)
    return figure


def _table(trace: dict) -> None:
    """A table's header and text cells (columns of strings), typeset."""
    for part in ("header", "cells"):
        values = trace.get(part, {}).get("values")
        if isinstance(values, list):
            trace[part]["values"] = [
                [typeset(v) for v in column] if isinstance(column, list) else typeset(column)
                for column in values
            ]
