"""Embeds as a course page uses them (docs/embedding.md): a page served from another origin (a
port of its own) embeds views and a lesson of the real gunicorn server in iframes, in headless
Chromium. The frames take the height of their content at 1440 and 390 px; they show the
controls and plots their links choose; the course page's messages move the figure, and the
same message from a third origin does nothing; the keyboard and the screen reader's names work
inside the frame; the embed builder writes the HTML of what its preview shows.

Every wait is for a condition (a frame's height equal to its content's, a value on a slider,
a message on the console), never for a fixed time.
"""

from __future__ import annotations

import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests import servers
from tests.e2e.conftest import _open_page, screenshot

pytestmark = pytest.mark.e2e

#: a frame loads a whole Dash page; on a machine shared by many, that takes a while
WAIT_MS = 90_000
#: a wait in a frame checks its condition on a timer: Chromium gives a cross-origin frame
#: scrolled out of the window no animation frames, so a wait polling on them (Playwright's
#: default) never checks again once the course page scrolls (a lesson's prompt below its figure)
POLL_MS = 200
KEY = "single-neuron"
#: a compact embed of δ with two plots
COMPACT = "/single-neuron?embed=1&controls=delta&plots=kernel,mu&layout=compact"
WIDTHS = {"desktop": 1440, "phone": 390}


class _Site(BaseHTTPRequestHandler):
    """Pages of one origin, by path (set by the tests)."""

    def do_GET(self):
        body = self.server.pages.get(self.path.split("?")[0], "")
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


def _site() -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    server.pages = {}
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _origin(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """(the course page's site, a third site, the app's URL): the app lets the course page,
    and only it, embed and drive its views (FRAME_ANCESTORS)."""
    course, elsewhere = _site(), _site()
    env = {"FRAME_ANCESTORS": _origin(course)}
    log = tmp_path_factory.mktemp("embedding") / "gunicorn.log"
    with servers.gunicorn(env, workers=2, threads=2, log=log) as (url, _):
        yield course, elsewhere, url
    course.shutdown()
    elsewhere.shutdown()


def course_page(site, app: str, body: str, path: str = "/") -> str:
    """A course page at ``path`` of ``site``: ``body`` and the app's script; its URL."""
    site.pages[path] = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Week 3</title>'
        '<link rel="icon" href="data:,">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"></head>'
        '<body style="margin:0;padding:0 8px;font-family:sans-serif"><h1>Week 3</h1>'
        f'<p><button id="before">Before the figure</button></p>{body}'
        f'<p><button id="after">After the figure</button></p>'
        f'<script src="{app}/embed.js"></script></body></html>'
    )
    return _origin(site) + path


def frame_tag(src: str, ident: str = "app", height: int = 300) -> str:
    return (
        f'<iframe id="{ident}" src="{src}" title="A single hidden neuron" width="100%" '
        f'height="{height}" style="border:0"></iframe>'
    )


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def width(request):
    return WIDTHS[request.param]


@pytest.fixture
def tab(browser, width):
    yield from _open_page(browser, {"width": width, "height": 900})


@pytest.fixture
def desktop(browser):
    yield from _open_page(browser, {"width": 1440, "height": 900})


def frame_of(tab, ident: str = "app"):
    return tab.wait_for_selector(f"iframe#{ident}").content_frame()


def drawn(frame, graph: str) -> None:
    """Wait until the frame's plot ``graph`` has been drawn from an answer; else say what the
    frame holds."""
    try:
        frame.wait_for_function(
            """selector => { const g = document.querySelector(selector);
                              return g && g._fullData && g._fullData.length > 0; }""",
            arg=f"#{KEY}-graph-{graph} .js-plotly-plot",
            timeout=WAIT_MS,
            polling=POLL_MS,
        )
    except Exception as error:
        found = frame.evaluate(
            """() => ({state: document.readyState, view: Boolean(document.querySelector('.view')),
                       messages: (document.querySelector('[id$=-messages]') || {}).textContent,
                       busy: document.querySelectorAll('[aria-busy=true]').length})"""
        )
        raise AssertionError(f"{graph} not drawn in {frame.url}: {found}") from error


CONTENT_HEIGHT = "Math.ceil(document.documentElement.getBoundingClientRect().height)"


def fits(tab, frame, ident: str = "app") -> float:
    """Wait until the iframe is as tall as its content, twice in a row (nothing left to grow);
    its height."""
    element = tab.locator(f"iframe#{ident}")
    deadline, last = time.monotonic() + WAIT_MS / 1000, None
    while time.monotonic() < deadline:
        outside = element.evaluate("node => node.clientHeight")  # inside its borders
        inside = frame.evaluate(
            "Math.ceil(document.documentElement.getBoundingClientRect().height)"
        )
        now = (round(outside), inside)
        if abs(outside - inside) <= 1 and now == last:
            return outside
        last = now
        tab.wait_for_timeout(250)  # polling the condition, not waiting a fixed time for it
    raise AssertionError(f"the frame stayed {outside:.0f} px tall for {inside} px of content")


SCROLLERS = """() => {
    const page = document.scrollingElement;
    const inner = Array.from(document.querySelectorAll('body *')).filter(node => {
        const style = getComputedStyle(node);
        return ['auto', 'scroll'].includes(style.overflowY)
            && node.scrollHeight > node.clientHeight + 1;
    }).map(node => node.className || node.tagName);
    return {down: page.scrollHeight - innerHeight, across: page.scrollWidth - innerWidth, inner};
}"""


def no_scrollbars(frame) -> None:
    found = frame.evaluate(SCROLLERS)
    assert found["down"] <= 1 and found["across"] <= 1 and not found["inner"], found


SHOWN = """() => ({
    controls: Array.from(document.querySelectorAll('.control')).filter(c => c.checkVisibility())
        .map(c => c.querySelector('[id]').id.replace(/-label$/, '')),
    plots: Array.from(document.querySelectorAll('.graph-card')).filter(c => c.checkVisibility())
        .map(c => c.getAttribute('aria-labelledby').replace(/^.*-graph-|-title$/g, '')),
    drawn: Array.from(document.querySelectorAll('.js-plotly-plot'))
        .filter(g => g.data && g.data.length).map(g => g.closest('.dash-graph').id),
})"""


def test_a_frame_takes_its_content_s_height_and_shows_the_chosen_controls_and_plots(
    sites, tab, width
):
    course, _, app = sites
    tab.goto(course_page(course, app, frame_tag(app + COMPACT)))
    frame = frame_of(tab)
    drawn(frame, "kernel")
    height = fits(tab, frame)
    no_scrollbars(frame)
    shown = frame.evaluate(SHOWN)
    assert shown["controls"] == [f"{KEY}-delta"]
    assert shown["plots"] == ["mu", "kernel"]  # the view's order
    # the plots it does not show are never drawn
    assert sorted(shown["drawn"]) == [f"{KEY}-graph-kernel", f"{KEY}-graph-mu"]
    # one plot a row on a phone, two side by side on a desktop: the frame is about as tall
    assert (height > 900) if width < 500 else (height < 700), height
    screenshot(tab, f"embed-compact-{width}")


def test_a_full_embed_shows_its_sidebar_as_a_column_and_grows_when_it_opens(sites, tab, width):
    """The sidebar layout in a frame: no sheet fixed to the frame's bottom and no column that
    scrolls on its own. On a phone the controls start folded above the plots; opened, the
    page grows and the frame follows."""
    course, _, app = sites
    src = app + "/single-neuron?embed=1&controls=delta,tau,horizon&plots=loss&readonly=1"
    tab.goto(course_page(course, app, frame_tag(src)))
    frame = frame_of(tab)
    drawn(frame, "loss")
    before = fits(tab, frame)
    no_scrollbars(frame)
    if width < 900:
        assert frame.evaluate(SHOWN)["controls"] == []  # folded
        frame.get_by_text("Controls", exact=True).click()
        frame.wait_for_function(
            f"() => document.documentElement.getBoundingClientRect().height > {before}",
            timeout=WAIT_MS,
            polling=POLL_MS,
        )
        fits(tab, frame)
        no_scrollbars(frame)
    # every control in sight: δ, τ and the horizon to move, the others read-only
    shown = frame.evaluate(SHOWN)["controls"]
    assert len(shown) == frame.evaluate("document.querySelectorAll('.control').length")
    disabled = frame.locator("[data-readonly] [role=slider][data-disabled]")
    assert disabled.count() == frame.locator("[data-readonly] [role=slider]").count() > 0
    assert frame.locator(f"#{KEY}-delta [role=slider][data-disabled]").count() == 0


def _states(tab) -> list[dict]:
    return tab.evaluate("window.heard || []")


def test_the_course_page_drives_the_figure_and_a_third_origin_cannot(sites, desktop):
    course, elsewhere, app = sites
    # a third origin's frame on the course page, which writes to the figure when told
    elsewhere.pages["/"] = (
        '<!doctype html><title>Another site</title><link rel="icon" href="data:,"><script>'
        "addEventListener('message', e => { if (e.data !== 'go') return;"
        " parent[0].postMessage({type: 'lazy-rich:set', values: {delta: 3}}, '*');"
        " parent.postMessage('sent', '*'); });</script>"
    )
    other = f'<iframe id="other" src="{_origin(elsewhere)}/" title="Another site"></iframe>'
    tab = desktop
    tab.goto(course_page(course, app, frame_tag(app + COMPACT) + other))
    frame = frame_of(tab)
    drawn(frame, "kernel")
    tab.evaluate("LazyRich.on('app', s => (window.heard = window.heard || []).push(s))")
    thumb = frame.locator(f"#{KEY}-delta [role=slider]")
    assert thumb.get_attribute("aria-valuenow") == "0"
    summary = frame.locator(f"#{KEY}-summary").text_content()

    with tab.expect_console_message(lambda m: "ignored lazy-rich:set" in m.text, timeout=WAIT_MS):
        tab.evaluate(
            """() => new Promise(done => {
                addEventListener('message', e => e.data === 'sent' && done());
                document.getElementById('other').contentWindow.postMessage('go', '*'); })"""
        )
    assert thumb.get_attribute("aria-valuenow") == "0" and "delta=3" not in frame.url

    tab.evaluate("LazyRich.set('app', {delta: -2})")
    frame.wait_for_function(
        "() => document.querySelector('#single-neuron-delta [role=slider]')"
        ".getAttribute('aria-valuenow') === '-2'",
        timeout=WAIT_MS,
        polling=POLL_MS,
    )
    tab.wait_for_function(
        "(window.heard || []).some(s => s.values && s.values.delta === -2)", timeout=WAIT_MS
    )
    assert "delta=-2" in frame.url and "controls=delta" in frame.url  # the flags stay
    frame.wait_for_function(
        f"t => document.getElementById('{KEY}-summary').textContent !== t",
        arg=summary,
        timeout=WAIT_MS,
        polling=POLL_MS,
    )
    heard = [s for s in _states(tab) if s["values"].get("delta") == -2][-1]
    assert heard["view"] == KEY and heard["values"]["tau"] == 1 and not heard["playing"]

    tab.evaluate("LazyRich.play('app')")  # Play starts; pausing it (or its end) stops it
    tab.wait_for_function("(window.heard || []).some(s => s.playing)", timeout=WAIT_MS)
    tab.evaluate("LazyRich.pause('app')")
    tab.wait_for_function(
        "(() => { const h = window.heard || []; return h.length && !h[h.length - 1].playing; })()",
        timeout=WAIT_MS,
    )
    assert frame.locator(f"#{KEY}-play").text_content().strip() == "▶ Play"


def test_a_message_sent_while_the_frame_loads_waits_for_the_view(sites, desktop):
    """A reader presses a lesson's button before its figure has drawn: the frame's page has
    loaded (its load event) but the view is not on it yet; the value is set when it is."""
    course, _, app = sites
    tag = frame_tag(app + COMPACT).replace(
        "<iframe ", '<iframe onload="LazyRich.set(this, {delta: -2})" '
    )
    desktop.goto(course_page(course, app, tag))
    frame = frame_of(desktop)
    frame.wait_for_function(
        "() => document.querySelector('#single-neuron-delta [role=slider]')"
        "?.getAttribute('aria-valuenow') === '-2'",  # the view may not be there yet
        timeout=WAIT_MS,
        polling=POLL_MS,
    )
    frame.wait_for_function(
        "() => location.search.includes('delta=-2')", timeout=WAIT_MS, polling=POLL_MS
    )


def test_a_value_a_control_cannot_take_is_refused_and_said(sites, desktop):
    course, _, app = sites
    desktop.goto(course_page(course, app, frame_tag(app + COMPACT)))
    frame = frame_of(desktop)
    drawn(frame, "kernel")
    desktop.evaluate(
        """() => { window.errors = [];
                   document.getElementById('app').addEventListener('lazy-rich:error',
                       e => window.errors.push(e.detail.message)); }"""
    )
    desktop.evaluate("LazyRich.set('app', {nonsense: 1, sign: 7, delta: 99})")
    desktop.wait_for_function("() => window.errors.length > 0", timeout=WAIT_MS)
    assert desktop.evaluate("window.errors[0]").endswith("nonsense, sign")
    # a number out of range is clamped as a typed one is
    frame.wait_for_function(
        "() => document.querySelector('#single-neuron-delta [role=slider]')"
        ".getAttribute('aria-valuenow') === '20'",
        timeout=WAIT_MS,
        polling=POLL_MS,
    )


def test_unset_frame_ancestors_let_any_page_embed_but_only_the_app_drive(live_server, desktop):
    """The default (docs/embedding.md): any page may embed the app and its frames size
    themselves there, but only the app's own pages (its lessons) drive the figures."""
    site = _site()
    try:
        desktop.goto(course_page(site, live_server, frame_tag(live_server + COMPACT)))
        frame = frame_of(desktop)
        drawn(frame, "kernel")
        fits(desktop, frame)
        with desktop.expect_console_message(
            lambda m: "ignored lazy-rich:set" in m.text, timeout=WAIT_MS
        ):
            desktop.evaluate("LazyRich.set('app', {delta: 4})")
        assert frame.locator(f"#{KEY}-delta [role=slider]").get_attribute("aria-valuenow") == "0"
    finally:
        site.shutdown()
    # the app's own lesson drives its figures
    desktop.goto(live_server + "/lessons/balance-decides-lazy-or-rich")
    figure = frame_of(desktop, "regimes")
    drawn(figure, "kernel")
    desktop.get_by_role("button", name="Balanced: δ = 0").click()
    figure.wait_for_function(
        "() => document.querySelector('#single-neuron-delta [role=slider]')"
        ".getAttribute('aria-valuenow') === '0'",
        timeout=WAIT_MS,
        polling=POLL_MS,
    )
    desktop.wait_for_function(
        "() => document.querySelector('[data-lazy-rich-show=delta]').textContent === '0'"
    )


def _record_messages(tab, figure) -> list[str]:
    """What the figure hears from its parent and what its page sets, and the frames' console
    lines, as they come (for the report of a failed wait)."""
    heard: list[str] = []
    tab.on("console", lambda message: heard.append(message.text[:300]))
    figure.evaluate(
        """() => {
            window.addEventListener('message', e => console.log('figure heard',
                JSON.stringify(e.data).slice(0, 200), 'from', e.origin,
                e.source === window.parent ? '(its parent)' : '(not its parent)'));
            const setProps = window.dash_clientside.set_props;
            window.dash_clientside.set_props = function (id, props) {
                console.log('figure set', id, JSON.stringify(props).slice(0, 100));
                return setProps.apply(this, arguments);
            };
        }"""
    )
    return heard


def test_a_lesson_in_a_course_page_sizes_itself_and_its_buttons_move_its_figures(sites, tab, width):
    course, _, app = sites
    lesson = app + "/lessons/balance-decides-lazy-or-rich"
    tab.goto(course_page(course, app, frame_tag(lesson, "lesson")))
    page = frame_of(tab, "lesson")
    # the reader scrolls to the figure: its frame loads lazily (loading="lazy"), as a course
    # page's frames below the fold should
    page.locator("iframe#regimes").scroll_into_view_if_needed(timeout=WAIT_MS)
    figure = page.wait_for_selector("iframe#regimes").content_frame()
    drawn(figure, "kernel")
    fits(page, figure, "regimes")
    no_scrollbars(figure)
    assert figure.evaluate(SHOWN)["controls"] == [f"{KEY}-delta"]
    heard = _record_messages(tab, figure)
    # a prompt: predict, then look — opening it sets δ = −5
    page.get_by_text("Look: δ = −5").click()
    # the prompt opened (else a failure below is the click's, not the message's)
    page.wait_for_function("() => document.querySelector('details[data-lazy-rich-set]').open")
    try:
        figure.wait_for_function(
            "() => document.querySelector('#single-neuron-delta [role=slider]')"
            ".getAttribute('aria-valuenow') === '-5'",
            timeout=WAIT_MS,
            polling=POLL_MS,
        )
    except Exception as error:  # (seen twice under load, not reproduced alone: say what came)
        shown = figure.evaluate(
            "() => [document.querySelector('#single-neuron-delta [role=slider]')"
            ".getAttribute('aria-valuenow'), location.search]"
        )
        raise AssertionError(f"{error}\nslider, link: {shown}\nframes said: {heard}") from None
    page.wait_for_function(
        "() => document.querySelector('[data-lazy-rich-show=delta]').textContent === '−5'",
        timeout=WAIT_MS,
        polling=POLL_MS,
    )
    fits(tab, page, "lesson")
    no_scrollbars(page)
    screenshot(tab, f"embed-lesson-{width}")


def _focused(tab, frame) -> str:
    """What has the keyboard's focus: a name for the course page's or the frame's element."""
    outside = tab.evaluate("document.activeElement.tagName")
    if outside != "IFRAME":
        return "page:" + tab.evaluate("document.activeElement.id || document.activeElement.tagName")
    return "frame:" + frame.evaluate(
        """() => { const e = document.activeElement;
                   return e.getAttribute('role') === 'slider'
                       ? 'slider:' + e.closest('[data-label]').getAttribute('data-label')
                       : (e.id || e.className || e.tagName); }"""
    )


def test_keyboard_and_screen_reader_names_inside_the_frame(sites, desktop):
    course, _, app = sites
    tab = desktop
    tab.goto(course_page(course, app, frame_tag(app + COMPACT + "&readonly=1")))
    frame = frame_of(tab)
    drawn(frame, "kernel")
    # the names a screen reader reads: the frame's title, the control, the plots
    assert tab.get_by_title("A single hidden neuron").count() == 1
    # (Dash loads the sliders' code apart from the page's: on a busy machine it comes later)
    slider = frame.get_by_role("slider", name="relative scale δ")
    slider.wait_for(timeout=WAIT_MS)
    assert slider.count() == 1
    assert frame.get_by_role("textbox", name="relative scale δ").count() == 1
    assert frame.get_by_role("figure", name="Kernel distance S(0, t)").count() == 1
    assert frame.get_by_role("figure", name=re.compile("Parameter space")).count() == 0
    # read-only controls are named and show their value, and take no keystroke
    tau = frame.get_by_role("textbox", name=re.compile("initial scale τ"))
    assert tau.get_attribute("readonly") is not None and tau.input_value() == "1"
    # Tab from the course page walks through the frame's controls and out again
    tab.locator("#before").focus()
    stops = []
    for _ in range(25):
        tab.keyboard.press("Tab")
        stops.append(_focused(tab, frame))
        if stops[-1] == "page:after":
            break
    assert stops[-1] == "page:after", stops
    inside = [stop for stop in stops if stop.startswith("frame:")]
    assert f"frame:slider:{KEY}-delta-label" in inside and f"frame:{KEY}-delta-box" in inside
    assert inside.index(f"frame:slider:{KEY}-delta-label") < inside.index(f"frame:{KEY}-delta-box")
    assert f"frame:{KEY}-play" in inside
    assert not any("tau" in stop and "box" not in stop for stop in inside), inside


def _height(html: str) -> str:
    return re.search(r'height="(\d+)"', html).group(1)


def test_the_builder_writes_the_html_of_what_its_preview_shows(live_server, browser):
    context = browser.new_context(
        viewport={"width": 1440, "height": 900}, permissions=["clipboard-read", "clipboard-write"]
    )
    try:
        tab = context.new_page()
        tab.goto(live_server + "/single-neuron?delta=-3")
        tab.get_by_role("button", name="Embed…").click()
        dialog = tab.locator("dialog.embed-builder[open]")
        controls = dialog.locator("[data-flag=controls]")
        controls.get_by_role("button", name="none").click()
        controls.get_by_label("relative scale δ").check()
        plots = dialog.locator("[data-flag=plots]")
        plots.get_by_role("button", name="none").click()
        plots.get_by_label("Kernel distance S(0, t)").check()
        dialog.get_by_label("Compact: controls in a row above the plots").check()
        dialog.get_by_label("dark", exact=True).check()
        expected = "&embed=1&controls=delta&plots=kernel&layout=compact&theme=dark"
        tab.wait_for_function(
            "s => (document.querySelector('dialog .builder-frame').getAttribute('src') || '')"
            ".endsWith(s)",
            arg=expected,
            timeout=WAIT_MS,
        )
        assert "delta=-3&" in dialog.locator(".builder-frame").get_attribute("src")
        preview = tab.frame_locator("dialog .builder-frame")
        preview.locator(f"#{KEY}-graph-kernel .main-svg").first.wait_for(timeout=WAIT_MS)
        tab.wait_for_function(
            """() => { const frame = document.querySelector('dialog .builder-frame');
                       const html = document.querySelector('dialog .builder-html').value;
                       const height = parseInt(frame.style.height);
                       return height > 200 && html.includes('height="' + height + '"'); }""",
            timeout=WAIT_MS,
        )
        html = dialog.locator(".builder-html").input_value()
        assert f'src="{live_server}/single-neuron?' in html and "&amp;controls=delta" in html
        assert 'title="Lazy vs rich: A single hidden neuron — Kernel distance S(0, t)"' in html
        assert f'<script src="{live_server}/embed.js" async></script>' in html
        assert preview.locator(".control:visible").count() == 1
        screenshot(tab, "embed-builder-1440")
        # the preview measures its height again as its plots settle (a pixel or two): what is
        # copied is the HTML at the moment of the click
        at_click = tab.evaluate(
            """() => { const dialog = document.querySelector('dialog.embed-builder[open]');
                       const html = dialog.querySelector('.builder-html').value;
                       dialog.querySelector('[data-copy=html]').click();
                       return html; }"""
        )
        tab.wait_for_function(
            "() => document.querySelector('dialog .builder-note').textContent === 'Copied.'"
        )
        assert tab.evaluate("navigator.clipboard.readText()") == at_click
        assert at_click.replace(f'height="{_height(at_click)}"', "") == html.replace(
            f'height="{_height(html)}"', ""
        )  # the same frame but for its height
        tab.keyboard.press("Escape")
        tab.wait_for_selector("dialog.embed-builder[open]", state="detached", timeout=WAIT_MS)
    finally:
        context.close()
