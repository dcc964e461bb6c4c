"""The explanations rendered on the server (app/ui/prose.py): every explanation's formulas
become MathML, counted from the source's own delimiters; the Markdown around them is
CommonMark; TeX that latex2mathml would let through unread is refused; the MathML is set as
TeX sets it; and the shipped font has a glyph for every character the formulas draw."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import pytest

from app.ui.prose import Prose, mathml, to_html
from tests import math_font


def _formulas(markup: str) -> list[ElementTree.Element]:
    return [ElementTree.fromstring(m) for m in re.findall(r"<math\b.*?</math>", markup, re.S)]


@pytest.mark.parametrize("markdown", list(math_font.explanations()), ids=lambda m: m[:40])
def test_every_explanation_s_formulas_are_mathml_and_nothing_of_the_tex_is_left(markdown):
    markup = to_html(markdown)
    display = markdown.count("$$") // 2
    inline = (markdown.count("$") - 4 * display) // 2
    found = _formulas(markup)  # (each one well-formed: it parses as XML)
    assert len(found) == display + inline
    assert sum(f.get("display") == "block" for f in found) == display
    assert "$" not in markup and "\\" not in markup
    text = re.sub(r"<[^>]+>", "", markup)
    assert not re.search(r"(?<![\w])_\w|\^\{", text), "TeX outside a formula"


def test_markdown_around_formulas_is_commonmark_and_the_tex_inside_is_not_markdown():
    markup = to_html("A *word* and **this**, $a_1 b_2$ and $c_3 * d_4 * e$.\n\nNext paragraph.")
    assert "<em>word</em>" in markup and "<strong>this</strong>" in markup
    assert markup.count("<p>") == 2
    (first, second) = _formulas(markup)
    assert [e.text for e in first.iter("mn")] == ["1", "2"]
    assert [e.text for e in second.iter("mn")] == ["3", "4"]
    assert "<em>" not in markup.split("</strong>")[1]  # no emphasis made of the formulas' _ and *


def test_a_formula_stays_on_the_line_of_the_bracket_before_it_and_the_punctuation_after_it():
    markup = to_html("a funnel ($d > h$) is lazy, as $x$. And $z$ alone.")
    glued = re.findall(r'<span class="glued">(.*?)</span>', markup)
    assert [re.sub(r"<math>.*?</math>", "F", g) for g in glued] == ["(F)", "F."]
    assert len(_formulas(markup)) == 3  # ("z" is left as it is)


def test_html_in_the_source_is_escaped():
    markup = to_html('<script>alert("x")</script> and $a < b$')
    assert "<script>" not in markup and "&lt;script&gt;" in markup
    assert "&lt;" in re.search(r"<math>.*</math>", markup).group(0)


@pytest.mark.parametrize(
    "tex, why",
    [
        (r"\frac{1}", "misses an argument"),
        (r"\foo x", "unknown to latex2mathml"),
        (r"{a", "unbalanced braces"),
        (r"a}", "unbalanced braces"),
        (r"a^", "cannot be written as MathML"),
    ],
)
def test_tex_latex2mathml_would_let_through_unread_is_refused_with_the_reason(tex, why):
    with pytest.raises(ValueError, match=why):
        mathml(tex)


def _set(tex: str) -> ElementTree.Element:
    return ElementTree.fromstring(mathml(tex))


def test_formulas_are_set_as_tex_sets_them():
    # capital Greek upright, small Greek and Latin italic (the browser's default for a letter)
    letters = {e.text: e.get("mathvariant") for e in _set(r"\Delta \Sigma \delta x").iter("mi")}
    assert letters == {"Δ": "normal", "Σ": "normal", "δ": None, "x": None}
    # a minus is a sign at the start, after a relation or a comma, and in an exponent; an
    # operation after an operand (a letter, a closing parenthesis)
    signs = [e.get("form") for e in _set(r"-a = -b, (c) - d - e^{-f}").iter("mo") if e.text == "−"]
    assert signs == ["prefix", "prefix", None, None, "prefix"]
    # a slash, the bars of |x| and infinity are letters (no operator space)
    for element in _set(r"a/b + |x| + \|y\| \to +\infty").iter("mo"):
        if element.text in ("/", "|", "‖", "∞"):
            assert (element.get("lspace"), element.get("rspace")) == ("0", "0")
    # max stands as close to its bracket as log does (a function's name, not an operation)
    (word,) = [e for e in _set(r"m = \max(a, b)").iter("mo") if e.text == "max"]
    assert (word.get("lspace"), word.get("rspace")) == ("0", "0")
    # a prime stands beside its letter, not raised once more as a power
    primed = _set(r"\Delta' - f''")
    assert not list(primed.iter("msup"))
    assert [e.text for e in primed.iter("mo")] == ["′", "−", "″"]
    assert [e.get("form") for e in primed.iter("mo")][1] is None  # (after an operand)
    # \overline: a bar as wide as what it is over (a border of its row, not a glyph)
    (bar,) = [e for e in _set(r"\overline{p_i(0)^2}").iter("mrow") if e.get("class")]
    assert bar.get("class") == "overline" and [e.text for e in bar.iter("mi")] == ["p", "i"]
    # \hat and \tilde: the accents TeX sets, not stretched over the letter
    (hat,) = _set(r"\hat\beta").iter("mover")
    assert (hat[1].text, hat[1].get("stretchy")) == ("ˆ", "false")
    # an inline formula says nothing of its display (the default); a display one does
    assert _set("x").get("display") is None
    assert ElementTree.fromstring(mathml("x", display=True)).get("display") == "block"


def test_the_shipped_font_has_every_character_the_formulas_draw():
    """The browser draws a lone letter of an identifier in its italic form (U+1D434…): the
    font must have those too. A formula that needs a new character fails here: build the
    font again (tests/math_font.py says how)."""
    needed = math_font.needed()
    assert {"𝑥", "𝛿", "Δ", "∑", "√"} <= needed  # (italic forms and the radical counted)
    missing = sorted(needed - math_font.covered())
    assert not missing, f"not in {math_font.FONT.name}: {missing} (python -m tests.math_font …)"


def test_the_shipped_font_has_the_math_table_the_browser_lays_formulas_out_with():
    from fontTools.ttLib import TTFont

    font = TTFont(math_font.FONT)
    assert "MATH" in font  # (radicals, fractions, stretched brackets and braces read it)
    assert font["name"].getDebugName(1) == math_font.FAMILY  # renamed, as its licence asks
    assert math_font.FONT.with_name("LICENSE-GUST.txt").is_file()


def test_an_explanation_is_one_component_carrying_its_html():
    sent = Prose("<p>x</p>", className="explanation").to_plotly_json()
    assert (sent["namespace"], sent["type"]) == ("lazy_rich", "Prose")
    assert sent["props"] == {"markup": "<p>x</p>", "className": "explanation"}
