"""The formulas' font (``assets/fonts/lazy-rich-math.woff2``): a subset of Latin Modern Math,
renamed (the GUST Font License asks that a changed font change its name), with the glyphs the
explanations' formulas need and the letters, digits and symbols a new formula is likely to use.

The browser draws a formula's single-letter identifiers in the italic letters of the Unicode
block "Mathematical Alphanumeric Symbols" (MathML Core's ``math-auto``), so those are in the
font too. tests/unit/test_prose.py checks that every character of every formula is in it; when
a new formula needs one that is not, build the font again (needs ``apt-get install
fonts-lmodern``)::

    python -m tests.math_font /usr/share/texmf/fonts/opentype/public/lm-math/latinmodern-math.otf
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from html import unescape
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FONT = ROOT / "assets" / "fonts" / "lazy-rich-math.woff2"
FAMILY = "Lazy Rich Math"

#: a formula's characters: the text of its token elements
_TOKEN = re.compile(r"<(mi|mo|mn|mtext|ms)(\s[^>]*)?>([^<]*)</\1>")
#: Chromium, Firefox and Safari set a lone letter of an <mi> in its italic form (math-auto)
_ITALIC = {
    **{chr(0x41 + i): chr(0x1D434 + i) for i in range(26)},
    **{chr(0x61 + i): chr(0x1D44E + i) for i in range(26)},
    "h": "\u210e",
    **{chr(0x391 + i): chr(0x1D6E2 + i) for i in range(25) if i != 17},
    **{chr(0x3B1 + i): chr(0x1D6FC + i) for i in range(25)},
    "\u03f5": "\U0001d716",
    "\u03d1": "\U0001d717",
    "\u03d5": "\U0001d719",
    "\u03f1": "\U0001d71a",
    "\u03d6": "\U0001d71b",
}
#: what a new formula is likely to use besides: ASCII, Greek, arrows, the common operators
_LIKELY = (
    {chr(c) for c in range(0x20, 0x7F)}
    | {chr(c) for c in range(0x391, 0x3AA) if c != 0x3A2}
    | {chr(c) for c in range(0x3B1, 0x3CA)}
    | set("\u03f5\u03d1\u03d5\u03f1\u03d6\u00b1\u00d7\u00f7\u00b7\u00a0")
    | set("\u2190\u2192\u2194\u21d2\u21d4\u2200\u2202\u2203\u2205\u2207\u2208\u2209\u2211")
    | set("\u2212\u221a\u221d\u221e\u2223\u2225\u2227\u2228\u2229\u222a\u222b\u2248\u2260")
    | set("\u2261\u2264\u2265\u226a\u226b\u2282\u2286\u2295\u2297\u22a4\u22c5\u2016\u2032")
    | set("\u2016\u27e8\u27e9\u2308\u2309\u230a\u230b\u2015\u02d9\u02c6\u02dc\u00af\u2112")
)


def explanations() -> Iterator[str]:
    """Every explanation's Markdown: the start page's and each view's and plot's."""
    from app import home
    from app.views import VIEWS

    yield home.INTRO
    yield home.MAPS_INTRO
    for view in VIEWS:
        yield view.intro
        yield from (panel.explanation for panel in view.panels if panel.explanation)


def characters(markup: str) -> set[str]:
    """The characters the browser draws in ``markup``'s formulas (italic forms included)."""
    # (a square root's sign is the font's U+221A, stretched)
    found: set[str] = {"\u221a"} if re.search(r"<m(sqrt|root)\b", markup) else set()
    for _, attributes, text in _TOKEN.findall(markup):
        text = unescape(text)
        found |= set(text)
        plain = "mathvariant" not in (attributes or "")
        if plain and len(text) == 1 and text in _ITALIC:
            found.add(_ITALIC[text])
    return found


def needed() -> set[str]:
    """The characters of every formula on the pages."""
    from app.ui.prose import to_html

    found: set[str] = set()
    for markdown in explanations():
        found |= characters(to_html(markdown))
    return found


def covered(font: Path = FONT) -> set[str]:
    """The characters the shipped font has a glyph for."""
    from fontTools.ttLib import TTFont

    return {chr(code) for code in TTFont(font).getBestCmap()}


def build(source: Path, target: Path = FONT) -> None:
    """Subset ``source`` (Latin Modern Math) to what the formulas need, renamed, as WOFF2."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    wanted = needed() | _LIKELY | {_ITALIC[c] for c in _LIKELY if c in _ITALIC}
    options = subset.Options()
    options.layout_features = ["*"]
    options.flavor = "woff2"
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6]
    options.notdef_outline = True
    font = TTFont(source)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in wanted])
    subsetter.subset(font)
    postscript = FAMILY.replace(" ", "") + "-Regular"
    for record in font["name"].names:
        if record.nameID in (1, 4):
            record.string = FAMILY if record.nameID == 1 else f"{FAMILY} Regular"
        elif record.nameID in (3, 6):
            record.string = postscript
    font.flavor = "woff2"
    target.parent.mkdir(parents=True, exist_ok=True)
    font.save(target)


if __name__ == "__main__":
    build(Path(sys.argv[1]))
    print(f"{FONT.relative_to(ROOT)}: {FONT.stat().st_size / 1024:.1f} KiB")
