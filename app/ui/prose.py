"""The explanations: Markdown with TeX formulas, rendered once on the server to HTML with
MathML, which the browser lays out itself (docs/architecture.md, "Formulas").

MathJax typeset every formula in the browser on each page load: ~0.35 s of a view's main
thread on this machine, more on a phone, and a large script besides. MathML Core is drawn
natively by Chromium (109+), Firefox and Safari. The formulas are set in a subset of Latin
Modern Math shipped with the app (``assets/fonts``, built by ``tests/math_font.py``): the TeX
look the papers have, the same glyphs on every student's device.
"""

from __future__ import annotations

import functools
import re
from typing import ClassVar
from xml.etree import ElementTree

from dash.development.base_component import Component
from latex2mathml.converter import convert
from markdown_it import MarkdownIt

__all__ = ["Prose", "mathml", "to_html"]

#: ``$$display$$`` or ``$inline$``: the explanations' delimiters (as Dash's Markdown read them)
_FORMULA = re.compile(r"\$\$(.+?)\$\$|\$([^$]+?)\$", re.S)
#: a formula's place in the Markdown while the prose around it is parsed: its number between
#: two private-use characters, which Markdown leaves as they are (the TeX inside would not be:
#: ``_`` and ``*`` are emphasis there)
_HOLD = "\ue000{}\ue001"
_HELD = re.compile("\ue000(\\d+)\ue001")
#: a formula with the bracket that opens before it and the punctuation that closes after it:
#: a line does not break between them (the browser would break after "(", TeX never does)
_GLUED = re.compile("([(\\[\u201c\u2018]?)(\ue000\\d+\ue001)([,.;:!?)\\]\u201d\u2019]*)")
#: latex2mathml's ``\\overline``: an over-accent bar (U+2015) that no browser stretches over
#: its base (no font has a wider form of it): drawn as the base's top border instead
_BAR = "\u2015"
#: what TeX sets as letters and the browser spaces as operators: the slash, the bars of |x|,
#: infinity
_ORDINARY = {"/", "|", "\u2016", "\u221e"}
#: primes: their glyphs stand raised already (latex2mathml raises them again, as a power)
_PRIMES = {"\u2032", "\u2033", "\u2034"}
#: a plus or a minus at the start, or after an operation or a relation, is a sign
_SIGNS = {"\u2212", "+", "\u00b1"}
#: latex2mathml's \\hat and \\tilde: ASCII characters, which the browser stretches over the
#: letter beneath; the accents TeX sets are the modifier letters
_ACCENTS = {"^": "\u02c6", "~": "\u02dc"}
#: what ends an operand (after it, a minus is an operation)
_CLOSING = {")", "]", "}", "|", "\u2016", "\u27e9", "\u221e", "!"} | _PRIMES
_MATHML = "http://www.w3.org/1998/Math/MathML"
#: the MathML elements with a fixed number of children
_ARITY = {"mfrac": 2, "msub": 2, "msup": 2, "munder": 2, "mover": 2, "mroot": 2}
_ARITY |= {"msubsup": 3, "munderover": 3}
#: CommonMark, with raw HTML in the source escaped: the page's HTML is what this module writes
_MARKDOWN = MarkdownIt("commonmark", {"html": False})


def mathml(tex: str, display: bool = False) -> str:
    """A TeX formula as a ``<math>`` element (``display``: a block of its own); ValueError
    for TeX it cannot read (latex2mathml itself lets an unknown command or a missing argument
    through as text or as an element short of a child)."""
    if _unbalanced(tex):
        raise ValueError(f"the formula {tex!r} has unbalanced braces")
    try:
        markup = convert(tex.strip(), display="block" if display else "inline")
    except Exception as error:  # latex2mathml raises its own types, or Python's, on bad TeX
        raise ValueError(f"the formula {tex!r} cannot be written as MathML: {error!r}") from error
    root = ElementTree.fromstring(markup.replace(f' xmlns="{_MATHML}"', ""))
    for element in root.iter():
        if "\\" in (element.text or ""):
            raise ValueError(f"the formula {tex!r} uses {element.text!r}, unknown to latex2mathml")
        if len(element) != _ARITY.get(element.tag, len(element)):
            raise ValueError(f"the formula {tex!r} misses an argument of a {element.tag}")
    return _as_tex_sets(root)


@functools.cache
def to_html(markdown: str) -> str:
    """The explanation's HTML: its Markdown as CommonMark, its formulas as MathML."""
    formulas: list[str] = []

    def hold(match: re.Match) -> str:
        display = match.group(1) is not None
        formulas.append(mathml(match.group(1) if display else match.group(2), display))
        return _HOLD.format(len(formulas) - 1)

    prose = _MARKDOWN.render(_FORMULA.sub(hold, markdown))
    prose = _GLUED.sub(_glue, prose)
    return _HELD.sub(lambda match: formulas[int(match.group(1))], prose)


def _glue(match: re.Match) -> str:
    if not match.group(1) and not match.group(3):
        return match.group(0)
    return f'<span class="glued">{match.group(0)}</span>'


def _unbalanced(tex: str) -> bool:
    depth = 0
    for brace in re.sub(r"\\[{}]", "", tex):
        depth += {"{": 1, "}": -1}.get(brace, 0)
        if depth < 0:
            return True
    return depth != 0


def _as_tex_sets(root: ElementTree.Element) -> str:
    """latex2mathml's MathML as TeX sets it, as HTML: capital Greek upright (the browser
    italicises a lone letter); a slash, bars, infinity, max and min without space around
    them (the browser spaces them as operators); a minus that is a sign without space after
    it; a prime beside its letter (not raised twice); an overline as wide as what it is over;
    hat and tilde not stretched. Without what HTML needs no more (the MathML namespace, the
    inline display every formula has by default)."""
    for parent in list(root.iter()):
        before = None
        for index, child in enumerate(parent):
            if child.tag == "mi" and child.text and len(child.text) == 1:
                if "\u0391" <= child.text <= "\u03a9" and "mathvariant" not in child.attrib:
                    child.set("mathvariant", "normal")
            elif child.tag == "mo" and child.text in _ORDINARY:
                child.attrib.update(lspace="0", rspace="0")
            elif child.tag == "mo" and (child.text or "").isalpha():  # max, min: as TeX
                child.attrib.update(lspace="0", rspace="0")  # spaces a function
            elif child.tag == "mo" and child.text in _SIGNS and _opens(parent.tag, before):
                child.set("form", "prefix")  # a sign, not an operation: no space after it
            elif child.tag == "mover" and len(child) == 2 and child[1].text == _BAR:
                parent[index] = ElementTree.Element("mrow", {"class": "overline"})
                parent[index].append(child[0])
            elif child.tag == "msup" and child[1].tag in ("mi", "mo") and child[1].text in _PRIMES:
                primed = ElementTree.Element("mrow")
                primed.append(child[0])
                primed.append(ElementTree.Element("mo", {"lspace": "0", "rspace": "0"}))
                primed[1].text = child[1].text
                parent[index] = primed
            elif child.tag == "mover" and len(child) == 2 and child[1].text in _ACCENTS:
                child[1].text = _ACCENTS[child[1].text]
                child[1].set("stretchy", "false")
            before = child
    if root.get("display") == "inline":
        del root.attrib["display"]
    return ElementTree.tostring(root, encoding="unicode")


def _opens(row: str, before: ElementTree.Element | None) -> bool:
    """Whether what follows ``before`` in a row starts an operand (nothing before it, or an
    operation or a relation)."""
    if before is None:
        return row in ("mrow", "math")
    return before.tag == "mo" and before.text not in _CLOSING


class Prose(Component):
    """An explanation on the page: ``markup`` is the HTML :func:`to_html` wrote, drawn as a
    ``<div>`` by ``assets/typeset.js``. One component, whatever the length of the text."""

    _namespace = "lazy_rich"
    _type = "Prose"
    _children_props: ClassVar[list[str]] = []
    _base_nodes: ClassVar[list[str]] = ["children"]

    def __init__(self, markup: str, className: str = "", **kwargs):
        self._prop_names = ["markup", "className"]
        self._valid_wildcard_attributes = []
        self.available_properties = ["markup", "className"]
        self.available_wildcard_properties = []
        super().__init__(markup=markup, className=className, **kwargs)
