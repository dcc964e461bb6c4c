"""The text's notation in the plots, tables, summaries and slider marks: symbols in italics,
subscripts lowered, powers raised, numbers written as a reader writes them.

Views write plain labels ("S(0, t)", "‖u‖", "h_i = w_i · x", "c_η", "η ∝ κ^c_η", "d^−1.11");
:func:`typeset` turns them into the small HTML plotly draws (``<i>S</i>(0, <i>t</i>)``,
``<i>h</i><sub>i</sub>``, ``<i>κ</i><sup><i>c</i><sub>η</sub></sup>``) — the look of the
formulas in the explanations (app/ui/prose.py), without typesetting on every redraw — and
:func:`typeset_children` into the page's :class:`Typeset` text. A single Latin or Greek letter
standing alone is a symbol; words stay upright; ``x_i`` or ``x_{ij}`` is a subscript, ``k^−a``
or ``κ^{c_η}`` a power. In prose (a summary's sentences) only the letters that carry a
subscript or a power are symbols: "a" and "I" are words there.

Numbers: :func:`number` writes 8.5e-18 as "8.5 × 10⁻¹⁸" and 1e+03 as "1000"; :func:`decade`
a power of ten as "10⁻⁴" (slider marks).
"""

from __future__ import annotations

import html as html_text
import math
import re
from typing import Any, ClassVar

from dash import html
from dash.development.base_component import Component

__all__ = [
    "Typeset",
    "decade",
    "number",
    "plain",
    "typeset",
    "typeset_children",
    "typeset_figure",
]

_GREEK = "αβγδεζηθικλμνξπρστυφχψωΔΓΘΛΞΠΣΦΨΩ"
_LETTER = f"A-Za-z{_GREEK}"
#: what a power raises: ``{…}``, a signed number (−1.11) or a signed word (c_η, a)
_POWER = r"\^(\{[^}]*\}|[−\-+]?(?:\d+(?:\.\d+)?|[" + _LETTER + r"0-9_]+))"
#: ``x_i``, ``σ_u``, ``x_{ab}`` (group 1), a power (group 2), or a symbol: one letter not
#: inside a word nor naming a section (group 3)
_PIECE = re.compile(
    rf"_(\{{[^}}]*\}}|[{_LETTER}0-9*]+)|{_POWER}"
    rf"|(?<![{_LETTER}0-9<])([{_LETTER}])(?![{_LETTER}]|\.\d)"  # (not a section: "App. A.4")
)
#: in prose: a subscript, a power, or a letter standing alone (not inside a word) that carries
#: one or sits beside a relation or a bracket ("t = 5", "S(0, t)", "a > 0"): "a" and "I" as
#: words stay upright
_BESIDE = r"=<>≤≥≈→∝(),²′_^"
_PROSE_PIECE = re.compile(
    rf"_(\{{[^}}]*\}}|[{_LETTER}0-9*]+)|{_POWER}|(?<![{_LETTER}0-9<])([{_LETTER}])"
    rf"(?![{_LETTER}])(?=\s?[{_BESIDE}]|(?<=\([{_LETTER}]))"
)
#: text already typeset is left alone; other markup (<b>, <br>, spans) is kept around the text
_TYPESET = re.compile(r"<(i|sub|sup)>")
_TAG = re.compile(r"(<[^>]*>)")
#: words that are single letters in prose, not symbols
_PROSE = {"a ", "A "}
_SUPERSCRIPTS = str.maketrans("-−+0123456789", "⁻⁻⁺⁰¹²³⁴⁵⁶⁷⁸⁹")


def _piece(match: re.Match) -> str:
    if match.group(1) is not None:
        return f"<sub>{typeset(match.group(1).strip('{}'))}</sub>"
    if match.group(2) is not None:
        return f"<sup>{typeset(match.group(2).strip('{}').replace('-', '−'))}</sup>"
    return f"<i>{match.group(3)}</i>"


#: a number in e-notation as Python's formats write it: 8.5e-18, 1e+03, 5.64e-10
_E_NUMBER = re.compile(r"(?<![\w.])([-−]?)(\d+(?:\.\d+)?)e([+\-−]?\d+)(?![\w.])")


def _written_number(match: re.Match) -> str:
    sign, mantissa, exponent = match.groups()
    digits = len(mantissa.replace(".", "").lstrip("0")) or 1
    value = float(f"{'-' if sign else ''}{mantissa}e{exponent.replace('−', '-')}")
    return number(value, digits)


def typeset(text: str, *, prose: bool = False) -> str:
    """Plotly's HTML for a plain label: symbols in italics, ``_`` subscripts lowered, ``^``
    powers raised, numbers in e-notation written out (8.5 × 10⁻¹⁸). With ``prose``, only the
    letters that carry a subscript or a power are set as symbols (a summary's sentence: "a",
    "I" and "t" in words stay upright)."""
    if not isinstance(text, str) or not text or _TYPESET.search(text):
        return text
    text = _E_NUMBER.sub(_written_number, text)
    if not prose and text[:2] in _PROSE and len(text) > 2 and text[2].islower():
        return text  # "a measure of…": an article, not a symbol
    pattern = _PROSE_PIECE if prose else _PIECE
    parts = _TAG.split(text)
    return "".join(p if p.startswith("<") else pattern.sub(_piece, p) for p in parts)


_MARKUP = re.compile(r"(</?(?:i|sub|sup)>)")
_ELEMENTS = {"i": html.I, "sub": html.Sub, "sup": html.Sup}


class Typeset(Component):
    """Typeset text on the page as one component: ``markup`` is escaped text with ``<i>``,
    ``<sub>`` and ``<sup>`` only (:func:`typeset_children` writes it), drawn as a ``<span>`` by
    ``assets/typeset.js``.

    One component, not one per italic letter and subscript: Dash's renderer runs every
    component's store selector on each of its updates, and a view's labels and summary were
    ~95 of the finite-width layout's 372 components, ~15 ms of each slider step in the
    browser (docs/performance.md)."""

    _namespace = "lazy_rich"
    _type = "Typeset"
    _children_props: ClassVar[list[str]] = []
    _base_nodes: ClassVar[list[str]] = ["children"]

    def __init__(self, markup: str, **kwargs):
        self._prop_names = ["markup"]
        self._valid_wildcard_attributes = []
        self.available_properties = ["markup"]
        self.available_wildcard_properties = []
        super().__init__(markup=markup, **kwargs)


def _components(markup: str) -> list:
    """Markup of i/sub/sup tags and text as nested Dash components (for :func:`plain`)."""
    stack: list[list] = [[]]
    for piece in _MARKUP.split(markup):
        if not piece:
            continue
        if piece.startswith("</"):
            children, tag = stack.pop(), piece[2:-1]
            stack[-1].append(_ELEMENTS[tag](children))
        elif piece.startswith("<"):
            stack.append([])
        else:
            stack[-1].append(html_text.unescape(piece))
    return stack[0]


def typeset_children(text: str, *, prose: bool = False) -> list:
    """The children of a page element for a plain label (control labels, summaries, tables):
    the text itself where nothing is typeset, else one :class:`Typeset` (text escaped, so that
    anything else that looks like markup is shown as written)."""
    if not isinstance(text, str):
        return [text]
    pieces = _MARKUP.split(typeset(text, prose=prose))
    if len(pieces) == 1:
        return pieces
    escaped = (p if _MARKUP.fullmatch(p) else html_text.escape(p, quote=False) for p in pieces)
    return [Typeset("".join(escaped))]


def plain(children: Any) -> str:
    """Typeset text (:func:`typeset_children`) as the plain text it was set from:
    ``<i>h</i><sub>i</sub>`` reads "h_i" again (logs, tests)."""
    if isinstance(children, str):
        return children
    if isinstance(children, list | tuple):
        return "".join(plain(child) for child in children)
    if isinstance(children, Typeset):
        return plain(_components(children.markup))
    inner = plain(getattr(children, "children", ""))
    kind = type(children).__name__
    if kind == "Sub":
        return f"_{inner}" if len(inner) == 1 or inner.isalnum() else f"_{{{inner}}}"
    if kind == "Sup":
        return f"^{inner}"
    return inner


def _minus(text: str) -> str:
    return text.replace("-", "−")


def decade(exponent: int) -> str:
    """A power of ten as a slider mark writes it: 0.001 to 1000 as numbers, beyond as 10⁻⁴."""
    if -3 <= exponent <= 3:
        return f"{10.0**exponent:g}"
    return "10" + str(exponent).translate(_SUPERSCRIPTS)


def number(value: float, digits: int = 3) -> str:
    """A number as a reader writes it, to ``digits`` significant digits: 0.0123, 1230,
    8.5 × 10⁻¹⁸, 10⁶ (never "1e+03" or "8.5e-18"); −2 with a minus sign, ∞ for infinity."""
    value = float(value)
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    mantissa = float(f"{value / 10.0**exponent:.{digits - 1}f}")
    if abs(mantissa) >= 10:  # 9.996 rounded up to the next decade
        mantissa, exponent = mantissa / 10, exponent + 1
    if -3 <= exponent < 4:
        decimals = max(digits - 1 - exponent, 0)
        text = f"{mantissa * 10.0**exponent:.{decimals}f}"
        return _minus(text.rstrip("0").rstrip(".") if "." in text else text)
    power = "10" + str(exponent).translate(_SUPERSCRIPTS)
    if abs(mantissa) == 1:
        return _minus("-" * (mantissa < 0) + power)
    return _minus(f"{mantissa:.{digits - 1}f}".rstrip("0").rstrip(".")) + f" × {power}"


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
    legend = layout.get("legend")
    if isinstance(legend, dict) and isinstance(legend.get("title"), dict):
        _title(legend)
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
