"""Every view in a real browser: loads cleanly, reacts to each kind of control (checked in
tests/e2e/test_live.py with the redraws of the same page), restores from a copied link, embeds
without chrome, loads presets, plays, and downloads the solver's numbers."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import time
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

from app.views import VIEWS
from tests.e2e.conftest import screenshot
from tests.models import EXPECTED, MAP_CHECKS

pytestmark = pytest.mark.e2e
VIEW_IDS = [view.key for view in VIEWS]
VIEWS_BY_KEY = {view.key: view for view in VIEWS}
ANIMATED = [view for view in VIEWS if view.animated]
TIMEOUT = 20_000  # ms


def slow_dash(ms: int = 400) -> str:
    """An init script: Dash reads each answer ``ms`` after it arrived (a phone's busy main
    thread, a slow server), so the gate's own reading of it (assets/app.js, readAnswers) comes
    well before Dash stores it."""
    return f"""(() => {{ const json = Response.prototype.json;
  Response.prototype.json = function () {{
    return json.call(this).then(v => new Promise(done => setTimeout(() => done(v), {ms}))); }};
}})()"""


def graph_selector(view, panel) -> str:
    return f"#{view.key}-graph-{panel.graph} .js-plotly-plot"


#: a state of each view with background jobs, and of the sweeps view, whose answer grows with
#: each control moved up (steps, points, width: a move took up to 7 s from its defaults): tests
#: that move every control start there, and :func:`move` takes these views' numbers down (a
#: page step is ten of the slider's steps: two of them up took the map from 4 to 24 cells a
#: side, 1–4 s a move), so that the state stays answered within the request
LIGHT = {
    "networks-map": {"resolution": 6, "steps": 100, "n_test": 40},
    "networks-sweeps": {"steps": 100, "n_test": 50, "points": 3},
}


def light_controls(view):
    """The view's defaults, made light where the defaults are a background job."""
    return view.spec.with_overrides(LIGHT.get(view.key, {}))


def light(view) -> str:
    """The query of :func:`light_controls` (empty for the defaults)."""
    values = LIGHT.get(view.key)
    return "?" + "&".join(f"{name}={value}" for name, value in values.items()) if values else ""


def open_view(page, base: str, view, query: str = ""):
    page.goto(f"{base}{view.path}{query}")
    wait_for_graphs(page, view)


def wait_for_graphs(page, view) -> None:
    """Every plot of the view drawn, and every slider mounted: Dash loads the sliders' code
    apart from the page's, and on a busy machine they can come after the plots (a value typed
    into a number box before its slider is mounted may be lost)."""
    selectors = [graph_selector(view, panel) for panel in view.panels]
    page.wait_for_function(
        """selectors => selectors.every(s => { const g = document.querySelector(s);
               return g && g._fullData && g._fullData.length > 0; })
             && Array.from(document.querySelectorAll(
                  '.control[data-kind=float], .control[data-kind=int]'))
                .every(c => c.querySelector('[role=slider]'))""",
        arg=selectors,
        timeout=TIMEOUT,
    )


def signature(page, view) -> str:
    """Everything the figures show (data, axis types, notes), as a short digest: the text's
    length and a 53-bit hash of it, computed in the page. (The text itself is up to 0.8 MB: to
    send it to the test took 15–50 ms a call, and tests poll it every 60–100 ms; the digest
    takes 5–10.)"""
    selectors = [graph_selector(view, panel) for panel in view.panels]
    return page.evaluate(
        """selectors => {
            let h1 = 0xdeadbeef, h2 = 0x41c6ce57, length = 0;
            for (const s of selectors) {
                const g = document.querySelector(s);
                const axis = g.layout.xaxis ? g.layout.xaxis.type : '';
                const notes = JSON.stringify(g.layout.annotations || []);
                const text = JSON.stringify(g.data) + axis + notes + '|';
                length += text.length;
                for (let i = 0; i < text.length; i++) {
                    const c = text.charCodeAt(i);
                    h1 = Math.imul(h1 ^ c, 2654435761);
                    h2 = Math.imul(h2 ^ c, 1597334677);
                }
            }
            h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
            h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
            return length + ':' + (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
        }""",
        selectors,
    )


def query(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


JOB_RUNNING = "id => { const bar = document.getElementById(id); return !!bar && !bar.hidden; }"


def wait_for_no_job(page, view, timeout_ms: int = 60_000) -> None:
    """Until no background job of the view is running (its progress bar is hidden)."""
    page.wait_for_function(
        "id => { const bar = document.getElementById(id); return !bar || bar.hidden; }",
        arg=f"{view.key}-job-bar",
        timeout=timeout_ms,
    )


def wait_for_change(page, view, before: str, what: str, seconds: float = 15.0) -> None:
    """Until the plots change, within ``seconds`` — or, where the change started a background
    job (a heavy map: on a busy machine it can take longer than the window), until
    :data:`AFTER_JOB_GRACE` after the job ended."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        page.wait_for_timeout(60)
        if signature(page, view) != before:
            return
        if page.evaluate(JOB_RUNNING, f"{view.key}-job-bar"):
            wait_for_no_job(page, view)
            deadline = max(deadline, time.monotonic() + AFTER_JOB_GRACE)
    raise AssertionError(f"the plots did not change after {what}")


def move(page, view, spec) -> None:
    """Change one control the way a user would (keyboard on sliders, clicks on the rest)."""
    ident = f"#{view.key}-{spec.name}"
    if spec.kind in ("float", "int"):
        thumb = page.locator(f"{ident} [role=slider]")
        thumb.focus()
        now = float(thumb.get_attribute("aria-valuenow"))
        high = float(thumb.get_attribute("aria-valuemax"))
        low = float(thumb.get_attribute("aria-valuemin"))
        lighter = view.key in LIGHT and now > low
        # one page step: ten of the slider's steps (its last if fewer), one request
        thumb.press("PageDown" if lighter or now >= (low + high) / 2 else "PageUp")
    elif spec.kind == "choice":
        current = page.locator(f"{ident} input:checked").get_attribute("value")
        options = page.locator(f"{ident} input")
        for index in range(options.count()):
            if options.nth(index).get_attribute("value") != current:
                options.nth(index).check()
                break
    else:
        page.locator(f"{ident} input").click()


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_a_view_loads_cleanly_names_its_controls_downloads_its_numbers_and_takes_a_typed_value(
    page, live_server, view
):
    """Four checks of one page at its defaults, in this order (the last changes it). One page
    load, not four: a load costs the machine 2.5–3.5 CPU-s, and the browser tests are most of
    the suite's time. The ``page`` fixture fails the test on any console error."""
    open_view(page, live_server, view)
    page.wait_for_timeout(500)  # let late callbacks finish
    assert page.locator(".site-header").count() == 1
    assert page.locator(".message").count() == 0
    screenshot(page, view.key)
    _every_control_has_a_name_and_log_sliders_say_their_value(page, view)
    for kind in ("csv", "json"):
        _download_matches_the_solver(page, view, kind)
    _typed_value_in_a_slider_box(page, view)


NAMES = """() => Array.from(document.querySelectorAll(
      '[role=slider], input.control-box, input[type=radio], input[type=checkbox], button'))
    .filter(el => el.offsetParent !== null)
    .map(el => { const ids = (el.getAttribute('aria-labelledby') || '').split(' ').filter(Boolean);
      const byId = ids.map(i => (document.getElementById(i) || {}).textContent || '').join(' ');
      const label = el.labels && el.labels.length ? el.labels[0].textContent : '';
      const name = (el.getAttribute('aria-label') || byId || label || el.textContent || '').trim();
      return [el.tagName, el.getAttribute('role') || el.type, name,
              el.getAttribute('aria-valuetext'), el.getAttribute('aria-valuenow')]; })"""


def _every_control_has_a_name_and_log_sliders_say_their_value(page, view) -> None:
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


#: whether Dash has callbacks on their way (requested, running or being applied)
CALLBACKS_PENDING = """() => {
    const state = window.store ? window.store.getState().callbacks || {} : {};
    return Object.entries(state).some(([kind, list]) =>
        Array.isArray(list) && list.length && !['stored', 'completed'].includes(kind));
}"""
#: seconds a settled page (its answer in, no callback on its way, no job) is given to draw;
#: after a background job, longer: the page asks again for the job's result through a chain
#: (the job's end, the gate, the update) with moments where no callback is on its way
DRAW_GRACE, AFTER_JOB_GRACE = 2.5, 6.0


def _moved_and_linked(page, view, spec) -> str:
    """Moves one control once no job runs; waits until the link shows the move. The plots'
    signature before the move."""
    # a change of the map before may have started a background job; a display switch
    # (labels) waits for it, so the plots would not change within the window after the move
    wait_for_no_job(page, view)
    before, link_before = signature(page, view), query(page)
    move(page, view, spec)
    page.wait_for_function(
        "([name, old]) => new URLSearchParams(location.search).get(name) !== old",
        arg=[spec.name, link_before.get(spec.name)],
        timeout=10_000,
    )
    return before


def _moved_and_changed(page, view, spec) -> bool:
    """Moves one control: the link must follow; whether the plots changed. The plots have
    until the page has settled — the link shows the move (the answer is in), no callback is
    on its way, no background job runs — and :data:`DRAW_GRACE` after (:data:`AFTER_JOB_GRACE`
    once a job this move started has ended)."""
    before = _moved_and_linked(page, view, spec)
    settled_at, deadline, grace = None, time.monotonic() + 30, DRAW_GRACE
    while settled_at is None or time.monotonic() < settled_at + grace:
        if signature(page, view) != before:
            return True
        if page.evaluate(JOB_RUNNING, f"{view.key}-job-bar"):
            # this move started a background job (a busy machine makes it longer than the
            # window): its plots come when it ends
            wait_for_no_job(page, view)
            settled_at, deadline, grace = None, time.monotonic() + 30, AFTER_JOB_GRACE
        elif settled_at is None and not page.evaluate(CALLBACKS_PENDING):
            settled_at = time.monotonic()
        if settled_at is None and time.monotonic() > deadline:
            raise AssertionError(f"{spec.name}: the page did not settle in 30 s")
        page.wait_for_timeout(60)
    return False


def _settle(page, view, what: str) -> None:
    """Until no callback is on its way, no job runs and the plots stay the same for 0.1 s."""
    deadline, last = time.monotonic() + 30, None
    while time.monotonic() < deadline:
        if page.evaluate(JOB_RUNNING, f"{view.key}-job-bar"):  # its plots come when it ends
            wait_for_no_job(page, view)
            deadline, last = time.monotonic() + 30, None
        now = None if page.evaluate(CALLBACKS_PENDING) else signature(page, view)
        if now is not None and now == last:
            return
        last = now
        page.wait_for_timeout(100)
    raise AssertionError(f"{what}: the page did not settle in 30 s")


def _moved_and_settled(page, view, spec) -> None:
    """Moves one control of a kind already seen to change the plots: the link must follow;
    then the page settles (no callback on its way, no job, the plots the same for 0.1 s), so
    that the next control's change is its own — without the grace a change is given."""
    _moved_and_linked(page, view, spec)
    _settle(page, view, spec.name)


def every_control_updates_the_link_and_each_kind_changes_the_plots(page, view) -> None:
    """From the page's state (a view's light state, :data:`LIGHT`): every control moved in
    turn updates the link, and some control of each kind (int, float, log, choice, switch)
    changes the plots. Checked with the redraws of the same page load
    (tests/e2e/test_live.py)."""
    changed_kinds, kinds = set(), {("log" if s.log else s.kind) for s in view.spec.fields}

    def kind_of(spec) -> str:
        return "log" if spec.log else spec.kind

    # numbers first: a choice moved before them can set a context where they do nothing (the
    # digits task of the kernel-alignment view has no task exponents a and b); then, once the
    # choices have moved, the kinds that changed nothing again (the sweeps view's ranges act
    # only in the sweep a choice picks)
    first = sorted(view.spec.fields, key=lambda s: s.kind in ("choice", "bool"))
    for again in (False, True):
        for spec in first:
            if again and kind_of(spec) in changed_kinds:
                continue
            if kind_of(spec) in changed_kinds:  # its link is checked, its kind is shown
                _moved_and_settled(page, view, spec)
            elif _moved_and_changed(page, view, spec):
                changed_kinds.add(kind_of(spec))
        if changed_kinds == kinds:
            break
    assert changed_kinds == kinds, f"no control of kind {kinds - changed_kinds} changed the plots"


def test_the_link_follows_the_controls_in_place_and_back_leaves_the_view(page, live_server):
    """The address bar follows each change without a history entry of its own: Back from the
    next view returns to this one as it was left, not to its previous slider positions (nor,
    from a bare link, to the same view)."""
    view, other = VIEWS_BY_KEY["finite-width"], VIEWS_BY_KEY["lambda-balanced"]
    open_view(page, live_server, view)  # a bare link: the page writes the whole state
    page.wait_for_function("() => window.location.search.length > 1", timeout=TIMEOUT)
    entries = page.evaluate("history.length")
    spec = next(s for s in view.spec.fields if s.kind == "float" and not s.log and s.physics)
    for _ in range(2):
        before, value_before = signature(page, view), query(page).get(spec.name)
        move(page, view, spec)
        wait_for_change(page, view, before, f"a step of {spec.name}")
        page.wait_for_function(
            "([name, old]) => new URLSearchParams(location.search).get(name) !== old",
            arg=[spec.name, value_before],
            timeout=TIMEOUT,
        )
    # the link of the last press (its answer can come after the plots first change)
    page.wait_for_function(
        """([name, id]) => {
            const now = document.querySelector(id).getAttribute('aria-valuenow');
            return Number(new URLSearchParams(location.search).get(name)) === Number(now); }""",
        arg=[spec.name, f"#{view.key}-{spec.name} [role=slider]"],
        timeout=TIMEOUT,
    )
    assert page.evaluate("history.length") == entries
    left = page.url
    page.locator(f".site-header a[href='{other.path}']").first.click()
    wait_for_graphs(page, other)
    page.wait_for_function("() => window.location.search.length > 1", timeout=TIMEOUT)
    page.go_back()
    wait_for_graphs(page, view)
    assert page.url == left
    moved = query(page)[spec.name]
    thumb = page.locator(f"#{view.key}-{spec.name} [role=slider]")
    assert math.isclose(float(thumb.get_attribute("aria-valuenow")), float(moved), rel_tol=1e-9)


def page_state(page, view, name: str) -> dict:
    """A control's slider, box and note, and the Dash callbacks still on their way."""
    return page.evaluate(
        """([key, name]) => {
            const control = `#${key}-${name}`;
            const thumb = document.querySelector(control + ' [role=slider]');
            const box = document.querySelector(control + '-box');
            const note = document.querySelector(control + '-note');
            const state = window.store ? window.store.getState().callbacks || {} : {};
            const waiting = {};
            for (const [kind, list] of Object.entries(state)) {
                if (Array.isArray(list) && list.length && !['stored', 'completed'].includes(kind))
                    waiting[kind] = list.map(cb => cb.callback && cb.callback.output);
            }
            return {slider: thumb && thumb.getAttribute('aria-valuenow'),
                    box: box && box.value, focused: document.activeElement &&
                    document.activeElement.id, note: note && note.textContent,
                    url: location.search, callbacks: waiting};
        }""",
        [view.key, name],
    )


def _typed_value_in_a_slider_box(page, view) -> None:
    spec = next(s for s in view.spec.fields if s.kind == "float" and not s.log)
    box = page.locator(f"#{view.key}-{spec.name}-box")
    target = spec.low + 0.3 * (spec.high - spec.low)
    if spec.step:
        target = round(target / spec.step) * spec.step
    box.fill(f"{target:g}")
    box.press("Enter")
    # first the page: the slider takes the typed value at once (no server involved) …
    thumb = f"#{view.key}-{spec.name} [role=slider]"
    try:
        page.wait_for_function(
            """([id, target]) => Math.abs(Number(document.querySelector(id)
                   .getAttribute('aria-valuenow')) - target) <= 1e-9 + 1e-6 * Math.abs(target)""",
            arg=[thumb, target],
            timeout=2 * TIMEOUT,  # the page's own callbacks queue behind a busy machine's
        )
    except Exception as error:  # what the page showed, for the report
        raise AssertionError(f"{error}\n{page_state(page, view, spec.name)}") from None
    # … then the link, which follows the server's answer (slow on a busy machine)
    page.wait_for_function(
        """([name, target]) => { const v = Number(new URLSearchParams(location.search).get(name));
               return Math.abs(v - target) <= 1e-9 + 1e-6 * Math.abs(target); }""",
        arg=[spec.name, target],
        timeout=2 * TIMEOUT,
    )


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_embed_mode_has_no_chrome(page, live_server, view):
    open_view(page, live_server, view, "?embed=1")
    assert page.locator(".site-header").count() == 0
    assert page.locator(".site-footer").count() == 0
    assert page.locator(".graph-card .explanation").count() == 0
    assert query(page).get("embed") == "1"  # the mode survives the link's rewriting
    screenshot(page, f"{view.key}-embed")


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_a_preset_loads_with_its_caption_and_its_copied_link_restores_the_view(
    browser, page, live_server, view
):
    """A preset chosen from the menu sets its values and its caption and changes the plots;
    the link the page then shows, opened in another browser, shows the same plots and
    controls. (One page for both: the page load is what costs.)"""
    open_view(page, live_server, view)
    # the last preset that changes something (a map's defaults may be a paper figure)
    preset = next(
        p
        for p in reversed(view.presets)
        if view.spec.with_overrides(p.values) != view.spec.defaults()
    )
    before = signature(page, view)
    page.locator(f"#{view.key}-preset").click()
    page.get_by_text(preset.name, exact=True).click()
    page.wait_for_function(
        "([id, text]) => document.getElementById(id).textContent === text",
        arg=[f"{view.key}-preset-caption", preset.caption],
        timeout=TIMEOUT,
    )
    values = view.spec.with_overrides(preset.values)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        shown = view.parse_link(urlparse(page.url).query).controls
        if shown == values:
            break
        page.wait_for_timeout(60)
    assert shown == values
    wait_for_change(page, view, before, f"preset {preset.name!r}")
    _settle(page, view, f"preset {preset.name!r}")
    link, drawn = page.url, signature(page, view)
    other = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    try:
        open_view(other, live_server, view, "?" + urlparse(link).query)
        assert signature(other, view) == drawn
        assert view.parse_link(urlparse(other.url).query).controls == values
        for spec in view.spec.fields:
            if spec.kind in ("float", "int") and not spec.log:
                thumb = other.locator(f"#{view.key}-{spec.name} [role=slider]")
                wanted = getattr(values, spec.name)
                thumb_value = float(thumb.get_attribute("aria-valuenow"))
                assert math.isclose(thumb_value, wanted, rel_tol=1e-9, abs_tol=1e-9), spec.name
    finally:
        other.context.close()


#: where the play bar's cursors are: overlays on 2-D plots, data on 3-D scenes and matrices
CURSORS = """key => Array.from(
        document.querySelectorAll(`[id^="${key}-graph-"] .js-plotly-plot`)).map(gd => {
    const marks = Array.from(gd.querySelectorAll('.time-line, .time-dot')).map(m => m.style.left);
    const data = (gd.data || []).filter(t => t.uid === 'cursor')
        .map(t => JSON.stringify(t.z || t.x));
    return marks.concat(data).join(','); }).join('|')"""


@pytest.mark.parametrize("view", ANIMATED, ids=[view.key for view in ANIMATED])
def test_play_advances_time(page, live_server, view):
    open_view(page, live_server, view)
    label = page.locator(f"#{view.key}-frame-label")
    start, cursors = label.text_content(), page.evaluate(CURSORS, view.key)
    page.locator(f"#{view.key}-play").click()
    page.wait_for_function(
        "([id, text]) => document.getElementById(id).textContent !== text",
        arg=[f"{view.key}-frame-label", start],
        timeout=TIMEOUT,
    )
    assert page.locator(f"#{view.key}-play").text_content().strip().endswith("Pause")
    page.wait_for_timeout(300)
    assert page.evaluate(CURSORS, view.key) != cursors  # the cursors moved through the plots
    page.locator(f"#{view.key}-play").click()
    page.wait_for_timeout(300)
    paused = label.text_content()
    page.wait_for_timeout(600)
    assert label.text_content() == paused
    assert page.locator(f"#{view.key}-play").text_content().strip().endswith("Play")
    assert int(query(page)["frame"]) > 0  # the animation's position is part of the link


#: the matrix of a plot's animated trace (uid "cursor") as the browser draws it
MATRIX = """([selector]) => { const g = document.querySelector(selector);
    const trace = g._fullData.find(t => t.uid === 'cursor' && t.type === 'heatmap');
    return trace ? JSON.stringify(Array.from(trace.z, row => Array.from(row))) : null; }"""


@pytest.mark.parametrize(
    "view, graph",
    [(VIEWS_BY_KEY["lambda-balanced"], "function"), (VIEWS_BY_KEY["networks"], "function")],
    ids=["lambda-balanced", "networks"],
)
def test_scrubbing_redraws_the_animated_matrices(page, live_server, view, graph):
    open_view(page, live_server, view)
    selector = f"#{view.key}-graph-{graph} .js-plotly-plot"
    before = page.evaluate(MATRIX, [selector])
    assert before is not None
    thumb = page.locator(f"#{view.key}-frame [role=slider]")
    thumb.focus()
    thumb.press("End")
    page.wait_for_function(
        f"([selector, before]) => ({MATRIX})([selector]) !== before",
        arg=[selector, before],
        timeout=TIMEOUT,
    )


def _read_csv(text: str) -> dict[str, dict[str, np.ndarray]]:
    rows = [row for row in csv.reader(io.StringIO(text)) if row and not row[0].startswith("#")]
    tables: dict[str, dict[str, list]] = {}
    header = None
    for row in rows:
        if row[0] == "method":
            header = row[1:]
            continue
        table = tables.setdefault(row[0], {name: [] for name in header})
        for name, value in zip(header, row[1:], strict=True):
            table[name].append(float(value))
    return {m: {k: np.array(v) for k, v in t.items()} for m, t in tables.items()}


def _flatten(table: dict) -> dict[str, np.ndarray]:
    """Name matrix columns as the CSV does (w → w_1, w_2, …)."""
    out = {}
    for name, values in table.items():
        values = np.asarray(values, dtype=float)
        if values.ndim == 1:
            out[name] = values
        else:
            flat = values.reshape(values.shape[0], -1)
            out.update({f"{name}_{i + 1}": flat[:, i] for i in range(flat.shape[1])})
    return out


def _download_matches_the_solver(page, view, kind: str) -> None:
    """The file the page's button gives is the solver's numbers at the page's values."""
    with page.expect_download(timeout=TIMEOUT) as info:
        page.locator(f"#{view.key}-download-{kind}").click()
    download = info.value
    assert download.suggested_filename == f"{view.key}.{kind}"
    _check_download(view, kind, open(download.path(), encoding="utf-8").read())


def _check_download(view, kind: str, text: str) -> None:
    defaults = dataclasses.asdict(view.spec.defaults())  # the checks read values by name
    if kind == "csv":
        tables = _read_csv(text)
    else:
        document = json.loads(text)
        assert document["parameters"] == defaults
        tables = {m: _flatten(t) for m, t in document["trajectories"].items()}
    if view.key in MAP_CHECKS:
        MAP_CHECKS[view.key](defaults, tables)
        return
    exact = next(table for method, table in tables.items() if method.startswith("exact"))
    assert len(exact["t"]) > 10 and np.all(np.isfinite(exact["t"]))
    expected = EXPECTED[view.key](defaults, exact["t"])  # every view has one (test_registry)
    for name, values in expected.items():
        assert np.allclose(exact[name], values, rtol=1e-12, atol=1e-14), f"{kind}: {name}"
