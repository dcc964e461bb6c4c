"""Every page as a reader sees it, on a phone (390 px) and a desktop (1440 px), light and dark:
no text over other text, nothing cut off at a plot's edge, no legend or colour bar over the
data, no data squeezed into a corner, no tick label that names another number, no plot without
data at the defaults, no white plot in the dark theme and no raw notation ("c_η", "d^−1.11",
"1e+03") where the text is typeset. Every view and the paper-figures page, scrolled through so
that each plot and card is drawn (a plot never drawn is a finding). The checks read what the
browser drew (tests/e2e/looks.js). About five minutes for all: marked slow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.views import VIEWS

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

LOOKS = (Path(__file__).with_name("looks.js")).read_text(encoding="utf-8")
PAGES = [view.path for view in VIEWS] + ["/paper-figures"]
#: a phone and a desktop; tall, so that every plot is in view and drawn (plots out of sight
#: wait until they are scrolled to)
WIDTHS = {"phone": 390, "desktop": 1440}
HEIGHT = 4000
TIMEOUT = 180_000  # ms: the paper-figures page computes ~45 figures on a shared machine

#: every plot laid out with its data, and none waiting for an answer (a plot that never gets
#: data is reported by the checks once TIMEOUT has passed)
DRAWN = """() => {
    const plots = Array.from(document.querySelectorAll('.js-plotly-plot'));
    return plots.length > 0 && plots.every(g => g._fullLayout && g._fullData
            && g._fullData.length > 0)
        && !document.querySelector('.is-computing'); }"""
#: what the plots look like now, to wait until they stop changing (a plot's second layout
#: pass after its first draw, late answers)
LAYOUT = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(g => {
    const size = g._fullLayout ? g._fullLayout._size : {};
    return [g._fullLayout && g._fullLayout.paper_bgcolor, size.l, size.t, size.w, size.h,
            g.querySelectorAll('text').length].join(); }).join('|')"""
#: every plot in view is drawn (plots out of sight, the paper cards among them, are drawn when
#: scrolled to)
IN_VIEW_DRAWN = """() => Array.from(
        document.querySelectorAll('.dash-graph, .paper-card-placeholder'))
    .filter(s => { const box = s.getBoundingClientRect();
        return box.height > 0 && box.bottom > 0 && box.top < window.innerHeight; })
    .every(s => { const g = s.querySelector('.js-plotly-plot') || s;
        return Boolean(g._fullLayout); })"""
#: the page's plots or cards are laid out
PLOTTED = "() => document.querySelector('.dash-graph, .paper-card') !== null"
#: the plots in view are drawn dark (a plot out of sight is redrawn when scrolled to)
DARKENED = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).filter(g => {
        const box = g.getBoundingClientRect();
        return box.bottom > 0 && box.top < window.innerHeight; })
    .every(g => g._fullLayout && !['white', '#fff', '#ffffff'].includes(
        String(g._fullLayout.paper_bgcolor).toLowerCase()))"""


def settle(page) -> None:
    """Until every answer is in (no request for half a second), every plot is laid out and two
    looks a quarter of a second apart agree."""
    page.wait_for_load_state("networkidle", timeout=TIMEOUT)
    try:
        page.wait_for_function(DRAWN, timeout=TIMEOUT)
    except Exception:  # (a plot left without data is a finding of the checks)
        pass
    before = None
    for _ in range(80):
        now = page.evaluate(LAYOUT)
        if now == before:
            return
        before = now
        page.wait_for_timeout(250)


def scroll_through(page, drawn: str) -> None:
    """Scroll down the page a screen at a time until the plots in view are ``drawn`` (what is
    never drawn is a finding of the checks, not an error here)."""
    # (Dash lays the page out after it loads: until then it is one short screen)
    page.wait_for_function(PLOTTED, timeout=TIMEOUT)
    top = 0
    while top < page.evaluate("document.documentElement.scrollHeight"):
        page.evaluate("y => window.scrollTo(0, y)", top)
        try:
            page.wait_for_function(drawn, timeout=TIMEOUT)
        except Exception:
            pass
        top += HEIGHT
    page.evaluate("window.scrollTo(0, 0)")


def darken(page) -> None:
    """Turn the page dark as a reader's system would, and scroll through it so that every plot
    is asked for again (a plot that stays white is reported by the checks)."""
    page.emulate_media(color_scheme="dark")
    scroll_through(page, DARKENED)


#: findings in text another part of the project writes, known and not yet changed: reported as
#: an expected failure while nothing else is wrong on the page
ELSEWHERE: dict[str, tuple[str, str]] = {}


def problems(page, theme: str) -> list[str]:
    found = page.evaluate(LOOKS, theme)
    return [f"{theme}: [{p['kind']}] {p['plot']}: {p['detail']}" for p in found]


@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
@pytest.mark.parametrize("path", PAGES, ids=[p.strip("/").replace("/", "-") for p in PAGES])
def test_every_plot_reads(browser, live_server, path, width):
    context = browser.new_context(viewport={"width": width, "height": HEIGHT})
    page = context.new_page()
    try:
        found = []
        page.emulate_media(color_scheme="light")
        page.goto(live_server + path)
        scroll_through(page, IN_VIEW_DRAWN)
        settle(page)
        found += problems(page, "light")
        # the page follows the system's theme as it changes: the plots are asked for again
        darken(page)
        settle(page)
        found += problems(page, "dark")
    finally:
        context.close()
    marker, reason = ELSEWHERE.get(path, ("\0", ""))
    known = [f for f in found if marker in f]
    found = [f for f in found if marker not in f]
    assert not found, f"{path} at {width} px:\n" + "\n".join(found)
    if known:
        pytest.xfail(f"{reason}: " + "; ".join(known[:4]))


#: slider labels that touch the next one (hidden sliders left out: their boxes are empty)
TOUCHING_MARKS = """() => {
    const found = [];
    for (const slider of document.querySelectorAll('.dash-slider-root')) {
        const marks = Array.from(slider.querySelectorAll('.dash-slider-mark'))
            .filter(m => m.textContent.trim() && m.getBoundingClientRect().width > 0)
            .map(m => [m.textContent, m.getBoundingClientRect()])
            .sort((a, b) => a[1].left - b[1].left);
        for (let i = 1; i < marks.length; i++) {
            if (marks[i][1].left < marks[i - 1][1].right + 2) {
                const owner = slider.closest('[id]');
                found.push(`${owner ? owner.id : '?'}: ${marks[i - 1][0]} | ${marks[i][0]}`);
            }
        }
    }
    return found;
}"""


@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
def test_slider_labels_stand_apart(browser, live_server, width):
    """Every view's sliders, their controls open (on a phone they fold away): no label of a
    slider's marks touches the next (a slider over twelve decades labelled each: 10⁻⁶10⁻⁵…)."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    found = []
    try:
        for view in VIEWS:
            page.goto(live_server + view.path)
            page.wait_for_selector(".dash-slider-mark", state="attached", timeout=TIMEOUT)
            page.evaluate(
                "() => document.querySelectorAll('details.sidebar-panel')"
                ".forEach(d => { d.open = true; })"
            )
            page.wait_for_timeout(300)
            found += [f"{view.path}: {pair}" for pair in page.evaluate(TOUCHING_MARKS)]
    finally:
        context.close()
    assert not found, f"at {width} px:\n" + "\n".join(found)
