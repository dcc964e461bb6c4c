"""Live in a real browser: one redraw per change, drags that settle, a phone's screen, the
keyboard, readable contrast and the dark theme — in headless Chromium against gunicorn. (That
every control has a name is checked with a view's other checks of one page load, in
tests/e2e/test_browser.py.)"""

from __future__ import annotations

import time

import pytest

from app.views import BY_KEY, VIEWS
from benchmarks.browser_latency import PROBE, Network, drag, slider_for, wait_quiet
from tests.e2e.test_browser import (
    CALLBACKS_PENDING,
    MATRIX,
    TIMEOUT,
    VIEWS_BY_KEY,
    every_control_updates_the_link_and_each_kind_changes_the_plots,
    light,
    move,
    open_view,
    query,
    signature,
    slow_dash,
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
    after its first draw (its size observed). That is waited for as draws, not guessed as a
    time — a busy machine makes it late (a fixed 1.5 s wait once let a load's redraw count as
    a change's)."""
    page.evaluate(PROBE)
    page.wait_for_timeout(1500)
    wait_quiet(page, network, quiet_ms=1000)


#: the graphs whose figure is a "not for this setting" note (app/ui/figures.not_applicable)
FOLDED = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
    .filter(gd => gd.layout && gd.layout.meta && gd.layout.meta.unavailable)
    .map(gd => gd.closest('[id]').id)"""


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_a_step_redraws_each_plot_at_most_once_and_every_control_updates_the_link_and_plots(
    page, live_server, view
):
    """Two checks of one page load, from the view's light state: three slider steps redraw
    each plot at most once; then every control moves the link and each kind of control the
    plots (tests/e2e/test_browser.py)."""
    network = Network(page)
    open_view(page, live_server, view, light(view))
    _a_step_redraws_each_plot_at_most_once(page, view, network)
    every_control_updates_the_link_and_each_kind_changes_the_plots(page, view)


def _a_step_redraws_each_plot_at_most_once(page, view, network) -> None:
    """One draw per plot and step — except a plot that has just become a "not for this
    setting" note: its card folds to the note (style.css), and the smaller card is drawn
    once more at its new size (the network view's plane plots when d goes from 2 to 3)."""
    _probe(page, view, network)
    thumb = page.locator(f"#{view.key}-{slider_for(view).name} [role=slider]")
    thumb.focus()
    at_top = thumb.get_attribute("aria-valuenow") == thumb.get_attribute("aria-valuemax")
    keys = (
        ("ArrowLeft", "ArrowLeft", "ArrowRight") if at_top else ("ArrowRight",) * 2 + ("ArrowLeft",)
    )
    for key in keys:
        before, sent = len(page.evaluate(DRAWS)), network.sent
        folded = set(page.evaluate(FOLDED))
        thumb.press(key)
        wait_quiet(page, network, sent=sent)
        newly_folded = set(page.evaluate(FOLDED)) - folded
        if newly_folded:  # (its second draw comes ~0.15 s after the first: wait for it)
            page.wait_for_timeout(500)
        drawn = page.evaluate(DRAWS)[before:]
        assert drawn, "nothing redrew"
        twice = {graph for graph in drawn if drawn.count(graph) > 1}
        assert all(drawn.count(graph) <= 2 for graph in drawn), f"drawn thrice: {drawn}"
        assert twice <= newly_folded, f"a plot redrew twice: {drawn}"


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


def test_steps_taken_while_dash_still_reads_an_answer_are_drawn_on_what_the_page_shows(
    page, live_server
):
    """Dash drops the answer of a callback still on its way when the same callback is asked
    again. The gate reads an answer as it arrives, so a step sent then (before Dash has
    stored the answer) lost that answer's plots, and its own answer, drawn as differences from
    plots the page never showed, left the plots wrong. Every plot must end as the same link
    drawn from scratch shows it."""
    view = BY_KEY["single-neuron"]
    page.add_init_script(slow_dash())
    network = Network(page)
    open_view(page, live_server, view)
    _probe(page, view, network)
    thumb = page.locator(f"#{view.key}-{slider_for(view).name} [role=slider]")
    thumb.focus()
    sent = network.sent
    for _ in range(5):  # each press while the one before is answered or being read
        thumb.press("ArrowRight")
        page.wait_for_timeout(150)
    wait_quiet(page, network, sent=sent, quiet_ms=1500)
    assert network.sent - sent >= 2
    shown = signature(page, view)
    page.goto(page.url)  # the same link, drawn from scratch
    wait_for_graphs(page, view)
    _probe(page, view, network)
    assert shown == signature(page, view)


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
#: plotly has drawn it: counting plots alone can pass with 8 of 45 cards drawn); the paper
#: cards are drawn by plotly without Dash's graphs (assets/paper_figures.js): none may be loading
DRAWN = """() => { const plots = Array.from(document.querySelectorAll('.js-plotly-plot'));
    const graphs = Array.from(document.querySelectorAll('.dash-graph'));
    const cards = !document.querySelector('.paper-card')
      || document.querySelector('.paper-card[data-card-drawn]');
    return cards && graphs.every(g => g.querySelector('.js-plotly-plot'))
      && !document.querySelector('[data-dash-is-loading="true"], .paper-card[data-card-loading]')
      && plots.every(gd => gd._fullData && gd._fullData.length > 0); }"""
COVERED = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).filter(gd => {
    gd.scrollIntoView(); const r = gd.getBoundingClientRect();
    const y = r.top + Math.min(40, r.height / 2);
    const probe = document.elementFromPoint(r.left + r.width / 2, y);
    // (on a touch screen the plot's own transparent shield, which lets a swipe scroll the page)
    return probe && !gd.contains(probe) && probe !== gd.closest('.dash-graph');
  }).map(gd => gd.closest('[id]').id)"""

#: plots whose legend or colour bar leaves the data less than half the plot's width (a legend
#: on the right left the finite-width map's sweeps 64 px of a phone's 356); square matrices
#: (one axis anchored to the other) take the width their height allows
CRUSHED = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
    .filter(gd => !(gd._fullLayout.yaxis || {}).scaleanchor)
    .filter(gd => gd._fullLayout._size.w < 0.5 * gd.clientWidth)
    .map(gd => [gd.closest('[id]').id, Math.round(gd._fullLayout._size.w), gd.clientWidth])"""


@pytest.mark.parametrize("path", [*(v.path for v in VIEWS), "/", "/paper-figures"])
def test_a_phone_screen_neither_scrolls_sideways_nor_covers_a_plot(browser, live_server, path):
    """No page scrolls sideways, covers a plot or crushes one; on a view's page (the maps but
    one aside, :data:`PHONE_VIEWS`), the same page load also checks that the first plot starts
    on the first screen and that a control moved in the opened sheet redraws a plot in sight."""
    context = browser.new_context(**PHONE_CONTEXT)
    page = context.new_page()
    try:
        network = Network(page)
        page.goto(live_server + path)
        page.wait_for_selector(".site-header", timeout=30_000)
        view = next((v for v in VIEWS if v.path == path), None)
        if view is not None:  # the view's first answer (the page then writes its link)
            wait_for_graphs(page, view)
            page.wait_for_function("() => location.search.length > 1", timeout=60_000)
            page.wait_for_function(f"() => !({CALLBACKS_PENDING})()", timeout=60_000)
        # every plot drawn (the paper-figures page computes its cards one request each: a card
        # still loading is covered by its spinner, as it should be)
        page.wait_for_function(DRAWN, timeout=120_000)
        checked = view is not None and view.key in {v.key for v in PHONE_VIEWS}
        if checked:  # before the check of covered plots scrolls to each
            _the_first_plot_is_on_the_first_screen(page)
        scroll_width, width, wide = page.evaluate(OVERFLOW)
        assert scroll_width <= width, wide
        assert page.evaluate(COVERED) == []
        assert page.evaluate(CRUSHED) == []
        header = page.locator(".site-header").bounding_box()
        assert header is None or header["height"] < PHONE["height"] / 5
        if checked:
            page.evaluate("window.scrollTo(0, 0)")
            _a_control_in_the_sheet_redraws_a_plot_in_sight(page, view, network)
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
        # a plot's toolbar shows while it has the touch: hand every plot the touch
        for button in page.locator(".interact-button").all():
            button.tap()
        page.wait_for_timeout(500)
        shown = "() => Array.from(document.querySelectorAll('.modebar .modebar-group'))" + (
            ".filter(group => group.offsetParent).map(group => group.className)"
        )
        assert len(page.evaluate(shown)) >= 2
        assert page.evaluate(MODEBAR_ON_LEGEND) == []
    finally:
        context.close()


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
    const skip = el.closest('svg, .js-plotly-plot, math');
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


# -- honest controls: what a control shows is what the plots, the link and the messages use ----


def _link_says(page, name: str, value: float) -> None:
    """The link says ``name`` = ``value`` (it follows the server's answer: a computation that
    a busy machine can hold up for well over TIMEOUT)."""
    try:
        page.wait_for_function(
            "([name, value]) => Number(new URLSearchParams(location.search).get(name)) === value",
            arg=[name, value],
            timeout=3 * TIMEOUT,
        )
    except Exception as error:  # what the page showed, for the report
        shown = page.evaluate(
            """name => ({link: new URLSearchParams(location.search).get(name),
                 box: (document.querySelector(`[id$="-${name}-box"]`) || {}).value,
                 messages: Array.from(document.querySelectorAll('.message'))
                   .map(m => m.textContent)})""",
            name,
        )
        raise AssertionError(f"{error}\n{shown}") from None


def _same_as_a_fresh_page(page, view) -> None:
    """The plots are those a fresh page of the address bar's link draws."""
    fresh = page.context.new_page()
    try:
        open_view(fresh, page.url.split(view.path, 1)[0], view, "?" + page.url.split("?", 1)[1])
        expected = signature(fresh, view)
    finally:
        fresh.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if signature(page, view) == expected:
            return
        page.wait_for_timeout(60)
    raise AssertionError("the plots are not those of the link")


def test_a_typed_value_out_of_range_is_clamped_everywhere_and_said(page, live_server):
    """δ = 50 then Tab, δ = −35 then Enter: the box, the thumb, the link and the plots all
    take the range's end, and a note under the control says so."""
    view = VIEWS_BY_KEY["single-neuron"]
    open_view(page, live_server, view)
    box = page.locator(f"#{view.key}-delta-box")
    thumb = page.locator(f"#{view.key}-delta [role=slider]")
    for typed, key, used in (("50", "Tab", 20), ("-35", "Enter", -20)):
        before = signature(page, view)
        box.fill(typed)
        box.press(key)
        _link_says(page, "delta", used)
        wait_for_change(page, view, before, f"typing {typed}")
        assert box.input_value() == f"{used:g}"
        assert float(thumb.get_attribute("aria-valuenow")) == used
        note = page.locator(f"#{view.key}-delta-note").text_content()
        assert f"{typed} is outside [-20, 20], so {used:g} is used" in note
    _same_as_a_fresh_page(page, view)
    thumb.focus()
    thumb.press("ArrowRight")  # a move of the slider: the note has said its piece
    page.wait_for_function(
        "id => document.getElementById(id).textContent === ''", arg=f"{view.key}-delta-note"
    )
    assert box.input_value() == "-19.9"


def test_a_value_the_server_caps_is_shown_by_the_control_and_the_link(page, live_server):
    """A limit one control sets another (ten digit classes: the test points the kernel
    allows): the control, its box and the link show the value used, and the message says it."""
    view = VIEWS_BY_KEY["networks"]
    open_view(page, live_server, view, "?data=digits&classes=ten&n=30")
    box = page.locator(f"#{view.key}-n_test-box")
    box.fill("1000")
    box.press("Enter")
    _link_says(page, "n_test", 699)  # 2²¹ kernel entries ÷ (10 · 10 · 30 training points)
    thumb = page.locator(f"#{view.key}-n_test [role=slider]")
    page.wait_for_function(
        "id => document.querySelector(id).getAttribute('aria-valuenow') === '699'",
        arg=f"#{view.key}-n_test [role=slider]",
        timeout=TIMEOUT,
    )
    assert box.input_value() == "699" and thumb.get_attribute("aria-valuenow") == "699"
    page.wait_for_timeout(1000)  # the page stays there (no request undoes the message)
    messages = page.locator(f"#{view.key}-messages").text_content()
    assert "at most 699 test points are used here (not 1000)" in messages
    assert query(page)["n_test"] == "699"


# -- a phone: swipes scroll, the first plot on the first screen, plots in sight of the controls --

PHONE_CONTEXT = {"viewport": PHONE, "is_mobile": True, "has_touch": True}
#: the plots a view shows in part or whole above the controls' sheet: (graph id, shown share)
IN_SIGHT = """() => { const sheet = document.querySelector('.sidebar').getBoundingClientRect().top;
  return Array.from(document.querySelectorAll('.dash-graph')).map(g => {
    const r = g.getBoundingClientRect();
    const shown = Math.max(0, Math.min(r.bottom, sheet) - Math.max(r.top, 0));
    return [g.id, r.height ? shown / r.height : 0]; }); }"""
RANGES = """id => { const gd = document.querySelector('#' + id + ' .js-plotly-plot');
  return JSON.stringify([gd._fullLayout.xaxis.range, gd._fullLayout.yaxis.range]); }"""


def _swipe_up(page, graph: str) -> None:
    """A finger's swipe upwards over the middle of a plot (touch events, as a phone sends)."""
    box = page.locator(f"#{graph}").bounding_box()
    x = box["x"] + box["width"] / 2
    y = min(box["y"] + box["height"] / 2, PHONE["height"] - 120)
    session = page.context.new_cdp_session(page)
    touch = "Input.dispatchTouchEvent"
    session.send(touch, {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 11):
        session.send(touch, {"type": "touchMove", "touchPoints": [{"x": x, "y": y - 25 * k}]})
    session.send(touch, {"type": "touchEnd", "touchPoints": []})
    session.detach()
    page.wait_for_timeout(800)


def test_on_a_phone_a_swipe_over_a_plot_scrolls_the_page_until_the_plot_is_handed_the_touch(
    browser, live_server
):
    view = VIEWS_BY_KEY["finite-width"]
    graph = f"{view.key}-graph-{view.panels[0].graph}"
    context = browser.new_context(**PHONE_CONTEXT)
    page = context.new_page()
    try:
        open_view(page, live_server, view)
        page.wait_for_timeout(1000)
        ranges, top = page.evaluate(RANGES, graph), page.evaluate("() => window.scrollY")
        _swipe_up(page, graph)
        assert page.evaluate("() => window.scrollY") > top + 100  # the page scrolled
        assert page.evaluate(RANGES, graph) == ranges  # the plot did not zoom
        card = page.locator(".graph-card", has=page.locator(f"#{graph}"))
        button = card.locator(".interact-button")
        button.tap()
        assert button.get_attribute("aria-pressed") == "true"
        card.scroll_into_view_if_needed()
        top = page.evaluate("() => window.scrollY")
        _swipe_up(page, graph)
        assert page.evaluate("() => window.scrollY") == top  # the plot took the touch
        button.tap()  # handed back: the page scrolls again
        _swipe_up(page, graph)
        assert page.evaluate("() => window.scrollY") > top
    finally:
        context.close()


PHONE_VIEWS = [*(v for v in VIEWS if not v.is_map), VIEWS_BY_KEY["single-neuron-map"]]


def _the_first_plot_is_on_the_first_screen(page) -> None:
    """(The controls' sheet folded along the bottom.)"""
    bar = page.locator(".sidebar").bounding_box()
    first = page.locator(".dash-graph").first.bounding_box()
    assert first["y"] < bar["y"] - 100, "the first plot is not on the first screen"


def _a_control_in_the_sheet_redraws_a_plot_in_sight(page, view, network) -> None:
    """With the sheet open, a control moved in it redraws a plot that is in sight."""
    _probe(page, view, network)
    page.locator(".sidebar-summary").tap()
    thumb = page.locator(f"#{view.key}-{slider_for(view).name} [role=slider]")
    thumb.focus()
    at_top = thumb.get_attribute("aria-valuenow") == thumb.get_attribute("aria-valuemax")
    before, sent = len(page.evaluate(DRAWS)), network.sent
    thumb.press("ArrowLeft" if at_top else "ArrowRight")
    wait_quiet(page, network, sent=sent)
    drawn = set(page.evaluate(DRAWS)[before:])
    shown = dict(page.evaluate(IN_SIGHT))
    assert any(shown[graph] > 0.6 for graph in drawn), (drawn, shown)


# -- the formulas --------------------------------------------------------------------------------

FORMULAS = """stacked => {
  const box = el => el.getBoundingClientRect();
  const centre = r => r.left + r.width / 2;
  const [top, bottom] = [...document.querySelector(`.explanation ${stacked}`).children].map(box);
  const bar = document.querySelector('.explanation .overline');
  return {
    mathjax: performance.getEntriesByType('resource').map(e => e.name)
      .filter(n => /mathjax/i.test(n)),
    font: document.fonts.check('16px "Lazy Rich Math"'),
    family: getComputedStyle(document.querySelector('.explanation math')).fontFamily,
    stacked: [top.bottom, bottom.top, Math.abs(centre(top) - centre(bottom))],
    bar: bar && [box(bar).width, box(bar.firstElementChild).width,
                 getComputedStyle(bar).borderTopWidth],
  }; }"""


@pytest.mark.parametrize("key, stacked", [("lambda-balanced", "mfrac"), ("finite-width", "munder")])
def test_formulas_are_laid_out_by_the_browser_in_the_shipped_font_without_mathjax(
    page, live_server, key, stacked
):
    """The explanations' MathML (app/ui/prose.py) is laid out as mathematics: a fraction's
    numerator, or what an underbrace is under, stands centred above what is below it (a
    browser without MathML would set them side by side); an overline spans what it is over;
    the formulas' font is loaded and no MathJax is."""
    open_view(page, live_server, VIEWS_BY_KEY[key])
    page.wait_for_function(
        "() => document.querySelector('.explanation math') && document.fonts.status === 'loaded'",
        timeout=TIMEOUT,
    )
    found = page.evaluate(FORMULAS, stacked)
    assert found["mathjax"] == [] and found["font"], found
    assert found["family"].startswith('"Lazy Rich Math"'), found["family"]
    above, below, off_centre = found["stacked"]
    assert above <= below + 0.5 and off_centre < 1.5, found["stacked"]
    if key == "finite-width":  # (its intro's means over the neurons)
        width, base, border = found["bar"]
        assert abs(width - base) < 1 and float(border.removesuffix("px")) > 0, found["bar"]


# -- the keyboard, the toolbar ------------------------------------------------------------------

TAB_STOPS = """() => { const el = document.activeElement;
  const id = el.id || (el.closest('[id]') || {}).id || '';
  return [el.tagName, id, el.className.baseVal ?? el.className,
          !!el.closest('.modebar, math'), getComputedStyle(el).outlineStyle]; }"""


def test_the_keyboard_reaches_each_control_once_slider_before_box_and_skips_toolbars(
    page, live_server
):
    view = VIEWS_BY_KEY["single-neuron"]
    open_view(page, live_server, view)
    page.wait_for_function("() => document.querySelector('.explanation math')", timeout=TIMEOUT)
    stops = []
    page.locator("body").focus()
    for _ in range(120):
        page.keyboard.press("Tab")
        stop = page.evaluate(TAB_STOPS)
        if stops and stop[:3] == stops[0][:3]:
            break
        stops.append(stop)
    assert not [s for s in stops if s[3]], "a toolbar button or a formula takes a tab stop"
    order = [s[1] for s in stops]
    thumb, box = order.index(f"{view.key}-delta"), order.index(f"{view.key}-delta-box")
    assert thumb < box  # the slider, then its box
    unringed = [s for s in stops if s[0] != "BODY" and s[4] == "none"]
    assert not unringed, f"stops without a focus ring: {unringed}"
    assert len(stops) < 60


def test_escape_closes_the_maps_menu_and_log_sliders_step_by_tenths_of_a_decade(page, live_server):
    view = VIEWS_BY_KEY["single-neuron"]
    open_view(page, live_server, view)
    menu = page.locator("details.nav-maps")
    menu.locator("summary").focus()
    page.keyboard.press("Enter")
    assert menu.evaluate("m => m.open")
    page.keyboard.press("Tab")  # into the menu
    page.keyboard.press("Escape")
    assert not menu.evaluate("m => m.open")
    assert page.evaluate("() => document.activeElement.tagName") == "SUMMARY"
    spec = next(f for f in view.spec.fields if f.log)
    thumb = page.locator(f"#{view.key}-{spec.name} [role=slider]")
    before = float(thumb.get_attribute("aria-valuenow"))
    thumb.focus()
    thumb.press("ArrowRight")
    after = float(thumb.get_attribute("aria-valuenow"))
    assert after - before == pytest.approx(0.1, abs=0.051)  # snapped to the tenth above
    page.wait_for_function(  # the value itself is announced, not its logarithm
        "([s, value]) => Math.abs(document.querySelector(s).getAttribute('aria-valuetext')"
        " / value - 1) < 2e-3",
        arg=[f"#{view.key}-{spec.name} [role=slider]", 10**after],
    )


MODEBAR_TITLES = """() => Array.from(document.querySelectorAll('.modebar-btn'))
    .map(b => b.getAttribute('data-title'))"""


def test_no_toolbar_offers_an_upload_and_the_link_is_copied_instead(browser, live_server):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        for view in (VIEWS_BY_KEY["single-neuron"], VIEWS_BY_KEY["networks"]):
            open_view(page, live_server, view)
            page.locator(f"#{view.key}-graph-{view.panels[0].graph}").hover()
            titles = page.evaluate(MODEBAR_TITLES)
            assert "Download plot as a PNG" in titles  # the toolbar is there
            assert not [t for t in titles if "Share" in t or "Chart Studio" in t or "cloud" in t]
        page.locator(f"#{view.key}-copy-link").click()
        page.wait_for_function(
            "() => document.querySelector('.copy-note').textContent === 'Copied.'"
        )
        assert page.evaluate("() => navigator.clipboard.readText()") == page.url
    finally:
        context.close()


def test_the_page_draws_with_the_app_s_plotly_bundle_not_dash_s_full_one(page, live_server):
    """dcc.Graph draws with the page's window.Plotly (assets/plotly/: the trace types the views
    draw, a third of plotly.js): Dash's 4.8-MB bundle is never fetched."""
    open_view(page, live_server, BY_KEY["single-neuron"])
    scripts = page.evaluate(
        "() => performance.getEntriesByType('resource').map(e => e.name.split('?')[0])"
    )
    assert not [name for name in scripts if name.endswith("package_data/plotly.min.js")]
    assert any(name.endswith("assets/plotly/plotly-lazy-rich.min.js") for name in scripts)
    traces = page.evaluate("() => Object.keys(Plotly.PlotSchema.get().traces).sort()")
    assert traces == ["heatmap", "scatter", "scatter3d", "surface", "table"]


#: installed before the page's scripts: the order in which the plots first drew their data
FIRST_DRAWS = """
window.__firstDraws = [];
(function watch() {
  document.querySelectorAll('.js-plotly-plot').forEach(gd => {
    if (gd.__firstDraw || !gd.on) { return; }
    gd.__firstDraw = true;
    const id = gd.closest('[id]').id;
    const seen = () => {
      if (!window.__firstDraws.includes(id) && gd._fullData && gd._fullData.some(
            t => (t.x && t.x.length) || (t.z && t.z.length))) {
        window.__firstDraws.push(id);
      }
    };
    gd.on('plotly_afterplot', seen);
    seen();
  });
  requestAnimationFrame(watch);
})();
"""


def test_the_flat_plots_of_an_answer_paint_before_its_3d_scene(browser, live_server):
    """Without a GPU a 3-D scene takes ~0.6 s to draw; drawn in the same task as the flat
    plots of its answer, none of them painted before it was done (assets/app.js moves the
    scene's drawing after the next frame). On a first load of the single-neuron view, every
    flat plot has drawn its data before the scene."""
    view = BY_KEY["single-neuron"]
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        context.add_init_script(FIRST_DRAWS)
        page = context.new_page()
        page.goto(live_server + view.path)
        wait_for_graphs(page, view)
        order = page.evaluate("window.__firstDraws")
        scene = f"{view.key}-graph-surface"
        flat = [
            f"{view.key}-graph-{panel.graph}" for panel in view.panels if panel.graph != "surface"
        ]
        assert sorted(order) == sorted([scene, *flat]), order
        assert order[-1] == scene, order
    finally:
        context.close()


#: counts the page's WebGL read-backs (readPixels), before any script of the page runs
READ_BACKS = """
window.__readBacks = 0;
for (const kind of [window.WebGLRenderingContext, window.WebGL2RenderingContext]) {
  if (!kind) { continue; }
  const read = kind.prototype.readPixels;
  kind.prototype.readPixels = function () {
    window.__readBacks += 1;
    return read.apply(this, arguments);
  };
}
"""


#: the grid of each surface of a scene as drawn, and as its figure sent it: [columns, rows]
SURFACE_GRIDS = """selector => { const gd = document.querySelector(selector);
    const scene = gd._fullLayout.scene._scene;
    const drawn = Object.values(scene.traces).filter(t => t.surface).map(t => t.surface.shape);
    const sent = gd._fullData.filter(t => t.type === 'surface')
        .map(t => [t.z[0].length, t.z.length]);
    return {drawn, sent}; }"""


def test_a_3d_scene_steps_with_its_surface_as_sent_and_reads_its_picking_back_on_hover(
    browser, live_server
):
    """Without a GPU, two things of plotly.js cost a scene most of a slider step: resampling a
    surface of under 128 points a side to at least 128 a side, and reading the picking buffer
    back after every draw. The page's plotly.js (docs/tools/plotly-bundle/build.js) draws a
    surface at the grid the server sends, during the steps and after, and reads the picking
    buffer on the first hover after a change: slider steps read nothing back; a pointer over
    the scene then does."""
    view = BY_KEY["single-neuron"]
    scene = f"#{view.key}-graph-surface .js-plotly-plot"
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        context.add_init_script(READ_BACKS)
        page = context.new_page()
        page.goto(live_server + view.path)
        wait_for_graphs(page, view)
        page.wait_for_timeout(500)
        page.evaluate("window.__readBacks = 0")
        # every drawing of the scene while δ steps: the grids drawn against the grids sent
        page.evaluate(
            """selector => { window.__grids = [];
                const grids = """
            + SURFACE_GRIDS
            + """;
                const gd = document.querySelector(selector);
                gd.on('plotly_afterplot', () => window.__grids.push(grids(selector))); }""",
            scene,
        )
        for _ in range(3):
            before = signature(page, view)
            move(page, view, view.spec.by_name["delta"])
            wait_for_change(page, view, before, "a step of δ")
            page.wait_for_timeout(300)
        grids = page.evaluate("window.__grids")
        assert len(grids) >= 3 and all(g["drawn"] and g["drawn"] == g["sent"] for g in grids), grids
        assert grids[-1]["sent"][0][0] * grids[-1]["sent"][0][1] < 2_000  # (a light grid)
        assert page.evaluate("window.__readBacks") == 0
        box = page.locator(f"#{view.key}-graph-surface canvas").first.bounding_box()
        for fraction in (0.4, 0.5, 0.6):
            page.mouse.move(box["x"] + fraction * box["width"], box["y"] + 0.5 * box["height"])
            page.wait_for_timeout(200)
        assert page.evaluate("window.__readBacks") >= 1
    finally:
        context.close()
