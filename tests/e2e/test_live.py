"""Live in a real browser: one redraw per change, drags that settle, a phone's screen, named
controls, readable contrast and the dark theme — in headless Chromium against gunicorn."""

from __future__ import annotations

import pytest

from app.views import BY_KEY, VIEWS
from benchmarks.browser_latency import PROBE, Network, drag, slider_for, wait_quiet
from tests.e2e.test_browser import (
    MATRIX,
    VIEWS_BY_KEY,
    light,
    move,
    open_view,
    signature,
    wait_for_change,
    wait_for_graphs,
)

pytestmark = pytest.mark.e2e
VIEW_IDS = [view.key for view in VIEWS]
PHONE = {"width": 390, "height": 844}

#: the plots each graph drew since the probe was installed
DRAWS = "() => window.__probe.draws.map(d => d[0])"


def _probe(page, view, network) -> None:
    """Count draws from now on, once the page has finished loading: each plot redraws once
    after its first draw (its size observed), and MathJax typesets the explanations about a
    second later. Both are waited for as draws, not guessed as a time — a busy machine makes
    them late (a fixed 1.5 s wait once let a load's redraw count as a change's)."""
    page.evaluate(PROBE)
    page.wait_for_timeout(1500)
    wait_quiet(page, network, quiet_ms=1000)


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_a_change_redraws_each_plot_at_most_once(page, live_server, view):
    network = Network(page)
    open_view(page, live_server, view, light(view))
    _probe(page, view, network)
    thumb = page.locator(f"#{view.key}-{slider_for(view).name} [role=slider]")
    thumb.focus()
    at_top = thumb.get_attribute("aria-valuenow") == thumb.get_attribute("aria-valuemax")
    keys = (
        ("ArrowLeft", "ArrowLeft", "ArrowRight") if at_top else ("ArrowRight",) * 2 + ("ArrowLeft",)
    )
    for key in keys:
        before, sent = len(page.evaluate(DRAWS)), network.sent
        thumb.press(key)
        wait_quiet(page, network, sent=sent)
        drawn = page.evaluate(DRAWS)[before:]
        assert drawn, "nothing redrew"
        assert len(drawn) == len(set(drawn)), f"a plot redrew twice: {drawn}"


DATA = """s => Array.from(document.querySelector(s)._fullData)
    .map(t => [t.name, Array.from(t.x || []), Array.from(t.y || [])])"""


def test_a_plot_out_of_sight_waits_and_is_brought_up_to_date_in_sight(laptop_page, live_server):
    page = laptop_page
    view, graph = BY_KEY["single-neuron"], "loss"  # its last plot, below the fold
    network = Network(page)
    open_view(page, live_server, view)
    _probe(page, view, network)
    thumb = page.locator(f"#{view.key}-{slider_for(view).name} [role=slider]")
    thumb.focus()
    before, sent = len(page.evaluate(DRAWS)), network.sent
    thumb.press("ArrowRight")
    wait_quiet(page, network, sent=sent)
    drawn = page.evaluate(DRAWS)[before:]
    assert f"{view.key}-graph-surface" in drawn and f"{view.key}-graph-{graph}" not in drawn
    before, sent = len(page.evaluate(DRAWS)), network.sent
    page.locator(f"#{view.key}-graph-{graph}").scroll_into_view_if_needed()
    wait_quiet(page, network, sent=sent)
    assert page.evaluate(DRAWS)[before:].count(f"{view.key}-graph-{graph}") == 1
    selector = f"#{view.key}-graph-{graph} .js-plotly-plot"
    shown = page.evaluate(DATA, selector)
    page.goto(page.url)  # the same link, drawn from scratch
    wait_for_graphs(page, view)
    assert shown == page.evaluate(DATA, selector)


def test_a_view_opened_again_draws_every_plot(laptop_page, live_server):
    """Back on a view after another page: a new page, whatever the gate knew of the old one
    (what it showed, which plots were stale)."""
    page, view = laptop_page, BY_KEY["single-neuron"]
    network = Network(page)
    open_view(page, live_server, view)
    _probe(page, view, network)
    thumb = page.locator(f"#{view.key}-{slider_for(view).name} [role=slider]")
    thumb.focus()
    sent = network.sent
    thumb.press("ArrowRight")
    wait_quiet(page, network, sent=sent)
    page.locator(".site-header a[href='/']").first.click()
    page.wait_for_selector(f"#{view.key}-view", state="detached")
    page.locator(f"a[href^='{view.path}']").first.click()
    wait_for_graphs(page, view)  # below the fold too, without scrolling


def test_a_matrix_scrubbed_out_of_sight_follows_when_scrolled_to(laptop_page, live_server):
    """The play bar leaves plots out of sight alone; one scrolled to shows the current frame."""
    page, view, graph = laptop_page, VIEWS_BY_KEY["networks"], "function"  # below the fold
    open_view(page, live_server, view)
    selector = f"#{view.key}-graph-{graph} .js-plotly-plot"
    first = page.evaluate(MATRIX, [selector])
    thumb = page.locator(f"#{view.key}-frame [role=slider]")
    thumb.focus()
    thumb.press("End")
    page.wait_for_timeout(500)
    assert page.evaluate(MATRIX, [selector]) == first  # out of sight: not redrawn
    page.locator(f"#{view.key}-graph-{graph}").scroll_into_view_if_needed()
    page.wait_for_function(
        f"([selector, first]) => ({MATRIX})([selector]) !== first",
        arg=[selector, first],
        timeout=10_000,
    )


def test_a_matrix_changed_out_of_sight_arrives_whole_with_its_frames(laptop_page, live_server):
    """A change leaves the matrix below the fold stale, and its frames out of the answer; the
    play bar then moves; scrolled to, the matrix shows the new state at the play bar's frame,
    as a freshly opened page of the same link does."""
    page, view, graph = laptop_page, VIEWS_BY_KEY["networks"], "function"
    open_view(page, live_server, view)
    selector = f"#{view.key}-graph-{graph} .js-plotly-plot"
    first, before = page.evaluate(MATRIX, [selector]), signature(page, view)
    move(page, view, view.spec.by_name["tau"])
    wait_for_change(page, view, before, "a step of τ")
    page.wait_for_timeout(1000)  # the second key press's answer too
    assert page.evaluate(MATRIX, [selector]) == first  # out of sight: left as it was
    thumb = page.locator(f"#{view.key}-frame [role=slider]")
    thumb.focus()
    thumb.press("End")
    page.wait_for_timeout(500)
    page.locator(f"#{view.key}-graph-{graph}").scroll_into_view_if_needed()
    fresh = page.context.new_page()
    try:
        fresh.goto(page.url)
        wait_for_graphs(fresh, view)
        expected = fresh.evaluate(MATRIX, [selector])
    finally:
        fresh.close()
    assert expected != first and "frame=" in page.url
    page.wait_for_function(
        f"([selector, expected]) => ({MATRIX})([selector]) === expected",
        arg=[selector, expected],
        timeout=15_000,
    )


def test_a_3d_scene_is_rendered_at_the_screen_s_pixel_ratio(page, live_server):
    view = BY_KEY["single-neuron"]
    open_view(page, live_server, view)
    width, css, ratio = page.evaluate(
        """s => { const gd = document.querySelector(s); const scene = gd._fullLayout.scene._scene;
                 return [scene.glplot.gl.drawingBufferWidth, scene.glplot.canvas.clientWidth,
                         window.devicePixelRatio]; }""",
        f"#{view.key}-graph-surface .js-plotly-plot",
    )
    assert ratio == 1 and abs(width - css) <= 2  # plotly's default would be twice the pixels


@pytest.mark.slow
@pytest.mark.parametrize(
    "view", [BY_KEY["single-neuron"], BY_KEY["finite-width"]], ids=["single-neuron", "finite-width"]
)
def test_a_drag_keeps_one_request_in_flight_and_settles_on_the_last_value(page, live_server, view):
    network = Network(page)
    open_view(page, live_server, view, light(view))
    _probe(page, view, network)
    requests, quiet_ms = drag(page, network, view)
    assert 1 <= requests <= 60 and network.most == 1  # never two at once, whatever the moves
    assert quiet_ms < 3000
    # and the page comes to show the value the slider ended at (on a loaded machine the
    # page's "quiet" can fall between the last answer and the request for the newest value)
    thumb = page.locator(f"#{view.key}-{slider_for(view).name} [role=slider]")
    now = float(thumb.get_attribute("aria-valuenow"))
    for _ in range(50):
        shown = getattr(view.parse_link(page.url.split("?", 1)[1]).controls, slider_for(view).name)
        if shown == pytest.approx(now, rel=1e-6, abs=1e-9):
            break
        page.wait_for_timeout(100)
    assert shown == pytest.approx(now, rel=1e-6, abs=1e-9)


OVERFLOW = """() => { const width = document.documentElement.clientWidth;
  const scrolls = el => { for (let p = el.parentElement; p; p = p.parentElement) {
      const x = getComputedStyle(p).overflowX; if (x === 'auto' || x === 'scroll') return true; }
    return false; };
  const wide = Array.from(document.querySelectorAll('body *')).filter(el => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.right > width + 1 && !scrolls(el);
  }).map(el => el.tagName + '.' + (el.className.baseVal ?? el.className));
  return [document.documentElement.scrollWidth, width, wide.slice(0, 5)]; }"""

#: every graph has a plot with data, and nothing is loading (a graph's plot exists only once
#: plotly has drawn it: counting plots alone can pass with 8 of 45 cards drawn)
DRAWN = """() => { const plots = Array.from(document.querySelectorAll('.js-plotly-plot'));
    return plots.length === document.querySelectorAll('.dash-graph').length
      && !document.querySelector('[data-dash-is-loading="true"]')
      && plots.every(gd => gd._fullData && gd._fullData.length > 0); }"""
COVERED = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).filter(gd => {
    gd.scrollIntoView(); const r = gd.getBoundingClientRect();
    const y = r.top + Math.min(40, r.height / 2);
    const probe = document.elementFromPoint(r.left + r.width / 2, y);
    return probe && !gd.contains(probe); }).map(gd => gd.closest('[id]').id)"""

#: plots whose legend or colour bar leaves the data less than half the plot's width (a legend
#: on the right left the finite-width map's sweeps 64 px of a phone's 356); square matrices
#: (one axis anchored to the other) take the width their height allows
CRUSHED = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
    .filter(gd => !(gd._fullLayout.yaxis || {}).scaleanchor)
    .filter(gd => gd._fullLayout._size.w < 0.5 * gd.clientWidth)
    .map(gd => [gd.closest('[id]').id, Math.round(gd._fullLayout._size.w), gd.clientWidth])"""


@pytest.mark.parametrize("path", [*(v.path for v in VIEWS), "/", "/paper-figures"])
def test_a_phone_screen_neither_scrolls_sideways_nor_covers_a_plot(browser, live_server, path):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        page.goto(live_server + path)
        page.wait_for_selector(".site-header", timeout=30_000)
        page.wait_for_timeout(3000)
        # every plot drawn (the paper-figures page computes its cards one request each: a card
        # still loading is covered by its spinner, as it should be)
        page.wait_for_function(DRAWN, timeout=120_000)
        scroll_width, width, wide = page.evaluate(OVERFLOW)
        assert scroll_width <= width, wide
        assert page.evaluate(COVERED) == []
        assert page.evaluate(CRUSHED) == []
        header = page.locator(".site-header").bounding_box()
        assert header is None or header["height"] < PHONE["height"] / 5
    finally:
        context.close()


#: graphs whose mode bar (shown after a tap) overlaps their legend
MODEBAR_ON_LEGEND = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).filter(gd => {
    const bar = gd.querySelector('.modebar'), legend = gd.querySelector('.legend');
    if (!bar || !legend) { return false; }
    const a = bar.getBoundingClientRect(), b = legend.getBoundingClientRect();
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  }).map(gd => gd.closest('[id]').id)"""


@pytest.mark.parametrize("path", [BY_KEY["single-neuron"].path, BY_KEY["networks"].path])
def test_on_a_phone_the_mode_bar_leaves_the_legends_readable(browser, live_server, path):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        page.goto(live_server + path)
        page.wait_for_function(DRAWN, timeout=60_000)
        # the first answer's figures have the legends (the layout's placeholders do not)
        page.wait_for_function("() => document.querySelectorAll('.legend').length >= 2")
        page.wait_for_timeout(500)
        assert page.evaluate(MODEBAR_ON_LEGEND) == []
    finally:
        context.close()


NAMES = """() => Array.from(document.querySelectorAll(
      '[role=slider], input[type=number], input[type=radio], input[type=checkbox], button'))
    .filter(el => el.offsetParent !== null)
    .map(el => { const ids = (el.getAttribute('aria-labelledby') || '').split(' ').filter(Boolean);
      const byId = ids.map(i => (document.getElementById(i) || {}).textContent || '').join(' ');
      const label = el.labels && el.labels.length ? el.labels[0].textContent : '';
      const name = (el.getAttribute('aria-label') || byId || label || el.textContent || '').trim();
      return [el.tagName, el.getAttribute('role') || el.type, name,
              el.getAttribute('aria-valuetext'), el.getAttribute('aria-valuenow')]; })"""


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_every_control_has_a_name_and_log_sliders_say_their_value(page, live_server, view):
    open_view(page, live_server, view)
    page.wait_for_timeout(500)
    assert page.evaluate("() => document.documentElement.lang") == "en"
    controls = page.evaluate(NAMES)
    assert controls
    unnamed = [c for c in controls if not c[2]]
    assert not unnamed, unnamed
    for spec in view.spec.fields:
        if spec.log:
            thumb = page.locator(f"#{view.key}-{spec.name} [role=slider]")
            text = thumb.get_attribute("aria-valuetext")
            assert text and float(text) == pytest.approx(
                getattr(view.spec.defaults(), spec.name), rel=2e-3
            )
            assert spec.label.split()[0].replace("_", "") in page.evaluate(
                "id => document.getElementById(id).textContent", f"{view.key}-{spec.name}-label"
            )


CONTRAST = """() => {
  const rgb = c => c.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map(v => { v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const background = el => { for (let p = el; p; p = p.parentElement) {
      const c = rgb(getComputedStyle(p).backgroundColor);
      if (c.length < 4 || c[3] > 0.5) return c; }
    return [255, 255, 255]; };
  const failing = [];
  for (const el of document.querySelectorAll('body *')) {
    const text = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    const skip = el.closest('svg, .js-plotly-plot, mjx-container');
    if (!text || el.offsetParent === null || skip) continue;
    const style = getComputedStyle(el); const fg = rgb(style.color); const bg = background(el);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && style.fontWeight >= 700);
    if (ratio < (large ? 3 : 4.5)) {
      failing.push([el.tagName, el.className, el.textContent.slice(0, 30), ratio.toFixed(2)]); }
  }
  return failing.slice(0, 8); }"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_contrast_meets_wcag_aa_in_both_themes(browser, live_server, scheme):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme=scheme)
    page = context.new_page()
    try:
        for view in (BY_KEY["single-neuron"], BY_KEY["finite-width"]):
            open_view(page, live_server, view)
            page.wait_for_timeout(800)
            assert page.evaluate(CONTRAST) == []
    finally:
        context.close()


def test_the_dark_theme_reaches_the_plots(browser, live_server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme="dark")
    page = context.new_page()
    try:
        view = BY_KEY["single-neuron"]
        open_view(page, live_server, view)
        page.wait_for_timeout(500)
        body = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        paper = page.evaluate(
            "s => document.querySelector(s)._fullLayout.paper_bgcolor",
            f"#{view.key}-graph-mu .js-plotly-plot",
        )
        assert body == "rgb(15, 21, 28)" and paper.lower() in ("#18212b", "rgb(24, 33, 43)")
    finally:
        context.close()
