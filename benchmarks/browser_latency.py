"""What a student sees: slider steps, drags and Play in headless Chromium against the
Procfile's gunicorn.

    python benchmarks/browser_latency.py                      # every view
    python benchmarks/browser_latency.py --views single-neuron --steps 20
    python benchmarks/browser_latency.py --students 8         # also while 8 students load it
    python benchmarks/browser_latency.py --load               # first load of every page
    python benchmarks/browser_latency.py --load --phone --markdown   # a phone; for docs

For every view (Debian's chromium, software rendering, 1400 × 1000), at its defaults — the
network map at 6 × 6 cells and 100 steps, a size answered within the request (its default is a
background job of a second or two, tests/e2e/test_jobs.py):

* **step** — a keyboard step of a slider until every plot in view that changes is on the
  screen, from the key press: median, p95 and max over ``--steps`` steps. *To paint*: the end
  of the frame after the last graph's ``plotly_afterplot``, or of the last long animation
  frame (a WebGL scene renders after its afterplot; without a GPU the frame that waits for it
  is long); *to afterplot* (the older measure, beside it): the last ``plotly_afterplot``. How
  many times each graph redrew per step, and how many of the view's plots did (plots out of
  sight wait until they are scrolled to);
* **scroll** — after the steps, the last plot (out of sight) is scrolled into view: the time
  until it has been brought up to date;
* **drag** — the mouse drags a slider across part of its track with 60 moves in 1 s: the
  requests sent to the server during the drag, and the time from release until the page is
  quiet (no request in flight, no plot drawing for 250 ms);
* **play** — frames per second of Play (the frame label's changes, over at most 2 s).

With ``--students N`` the drag is measured again while N simulated students (``tests.load``)
drag sliders on the same server.

With ``--summary``, only a sentence of the step to paint and the drag's quiet against the
targets (the README's): a view of a 3-D scene (single-neuron) steps within 150 ms median and
300 ms at most and is quiet within 500 ms of a drag's release; a view of flat plots steps
within 120 ms median.

With ``--load``, the first load of every page instead (the views, the start page, the paper
figures), each in a fresh browser context (nothing cached in the browser; the server's result
cache warm after the first of ``--loads`` loads): from navigation to the **first plot** drawn with
its data, and to **every plot in view** drawn (the plots a student sees without scrolling; out of
sight ones wait, assets/app.js) — medians over the loads — and the script the page transferred
(compressed bytes). ``--phone`` loads at 390 × 844 with touch.

Prints one table (``--markdown``: as Markdown, to be included in the docs verbatim).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.views import VIEWS  # noqa: E402
from tests import servers  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.e2e.test_browser import light  # noqa: E402
from tests.load import percentile, students  # noqa: E402

QUIET_MS = 250
DRAG_MOVES = 60
DRAG_SECONDS = 1.0

#: installed in the page: every graph's redraws (plotly_afterplot), the last key press, and
#: when what was drawn reached the screen (``paints``): the end of the frame after each
#: afterplot (a task queued from the frame's requestAnimationFrame runs after its paint), and
#: the end of every long animation frame — a WebGL scene renders after its afterplot, and the
#: frame that waits for it (plotly reads its picking buffer back) is a long one without a GPU
PROBE = """() => {
  window.__probe = {draws: [], paints: [], key: 0};
  const painted = () => window.__probe.paints.push(performance.now());
  document.addEventListener('keydown', () => { window.__probe.key = performance.now(); }, true);
  document.addEventListener('pointerdown', () => { window.__probe.key = performance.now(); }, true);
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const id = gd.closest('[id]') ? gd.closest('[id]').id : '?';
    gd.on('plotly_afterplot', () => {
      window.__probe.draws.push([id, performance.now()]);
      requestAnimationFrame(() => setTimeout(painted, 0));
    });
  }
  if ((PerformanceObserver.supportedEntryTypes || []).includes('long-animation-frame')) {
    new PerformanceObserver(list => list.getEntries().forEach(
      e => window.__probe.paints.push(e.startTime + e.duration))
    ).observe({type: 'long-animation-frame'});
  }
}"""


class Network:
    """Callback requests of a page: how many were sent, how many are in flight (and the most
    that ever were at once)."""

    def __init__(self, page) -> None:
        self.sent = 0
        self.pending = 0
        self.most = 0
        self.answered = time.monotonic()  # when the last request finished (or failed)
        page.on("request", self._sent)
        page.on("requestfinished", self._done)
        page.on("requestfailed", self._done)

    @staticmethod
    def _ours(request) -> bool:
        return "_dash-update-component" in request.url

    def _sent(self, request) -> None:
        if self._ours(request):
            self.sent += 1
            self.pending += 1
            self.most = max(self.most, self.pending)

    def _done(self, request) -> None:
        if self._ours(request):
            self.pending -= 1
            self.answered = time.monotonic()


def wait_quiet(
    page,
    network: Network,
    timeout: float = 30.0,
    sent: int | None = None,
    quiet_ms: float = QUIET_MS,
) -> float:
    """Wait until nothing is in flight and neither an answer has arrived nor a graph has drawn
    for ``quiet_ms``; returns the page time (ms) of the last draw. (Counting from the answer too
    matters on a busy machine: plotly draws an answer some time after it arrives, and a page
    that looked quiet in that gap would be read before the draw.) With ``sent`` (the count
    before an action), first wait (up to 2 s) for the action's request to go out."""
    deadline = time.monotonic() + timeout
    started = time.monotonic()
    while sent is not None and network.sent <= sent and time.monotonic() - started < 2:
        page.wait_for_timeout(10)
    while time.monotonic() < deadline:
        now, last = page.evaluate(
            "() => [performance.now(), Math.max(0, ...window.__probe.draws.map(d => d[1]))]"
        )
        answered_ms = (time.monotonic() - network.answered) * 1000
        if network.pending == 0 and now - last > quiet_ms and answered_ms > quiet_ms:
            return last
        page.wait_for_timeout(20)
    raise TimeoutError("the page did not settle")


def graphs_ready(page, view) -> None:
    selectors = [f"#{view.key}-graph-{p.graph} .js-plotly-plot" for p in view.panels]
    page.wait_for_function(
        """s => s.every(x => { const g = document.querySelector(x);
                                return g && g._fullData && g._fullData.length > 0; })""",
        arg=selectors,
        timeout=60_000,
    )


def settle(page) -> None:
    """Let the page finish loading: MathJax typesets the explanations about a second after
    the plots appear, and the plots resize once around it."""
    page.wait_for_function(
        "() => !window.MathJax || !MathJax.startup || MathJax.startup.promise", timeout=60_000
    )
    page.evaluate("() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null")
    page.wait_for_timeout(1500)


#: view → the slider to step instead of :func:`slider_for`'s choice (``--slider view=name``)
CHOSEN_SLIDERS: dict[str, str] = {}


def slider_for(view):
    """The physics slider a student would try first (a linear one if there is one), or the one
    chosen on the command line."""
    numeric = [f for f in view.spec.fields if f.kind in ("float", "int") and f.physics]
    if view.key in CHOSEN_SLIDERS:
        return next(f for f in numeric if f.name == CHOSEN_SLIDERS[view.key])
    return next((f for f in numeric if not f.log), numeric[0])


def steps(page, network, view, count: int) -> tuple[list[float], list[float], list[int], list[int]]:
    """(ms per step to the last afterplot, ms per step to the last paint, redraws per graph
    per step, graphs drawn per step)."""
    thumb = page.locator(f"#{view.key}-{slider_for(view).name} [role=slider]")
    thumb.focus()
    latencies, to_paint, redraws, graphs = [], [], [], []
    key = "ArrowRight"
    for _ in range(count):
        if thumb.get_attribute("aria-valuenow") == thumb.get_attribute("aria-valuemax"):
            key = "ArrowLeft"
        before = page.evaluate("() => window.__probe.draws.length")
        sent = network.sent
        thumb.press(key)
        last = wait_quiet(page, network, sent=sent)
        pressed, draws, paints = page.evaluate(
            "n => [window.__probe.key, window.__probe.draws.slice(n), window.__probe.paints]",
            before,
        )
        if draws:
            latencies.append(last - pressed)
            to_paint.append(max([last, *(p for p in paints if p > pressed)]) - pressed)
            per_graph = {}
            for ident, _ in draws:
                per_graph[ident] = per_graph.get(ident, 0) + 1
            redraws.append(max(per_graph.values()))
            graphs.append(len(per_graph))
    return latencies, to_paint, redraws, graphs


def scroll_in(page, network, view) -> float | None:
    """ms from scrolling the view's last plot into view until it has drawn (None: it was in
    view already, nothing to bring up to date)."""
    ident = f"{view.key}-graph-{view.panels[-1].graph}"
    before, sent = page.evaluate("() => window.__probe.draws.length"), network.sent
    started = page.evaluate(
        "id => { const t = performance.now(); document.getElementById(id).scrollIntoView(); "
        "return t; }",
        ident,
    )
    wait_quiet(page, network, sent=sent)
    draws = page.evaluate("n => window.__probe.draws.slice(n)", before)
    page.evaluate("() => window.scrollTo(0, 0)")
    wait_quiet(page, network)
    done = [at for graph, at in draws if graph == ident]
    return done[-1] - started if done and network.sent > sent else None


def drag(page, network, view) -> tuple[int, float]:
    """(requests sent during a 60-move drag, ms from release until quiet)."""
    slider = page.locator(f"#{view.key}-{slider_for(view).name}")
    thumb = slider.locator("[role=slider]")
    track = slider.bounding_box()
    box = thumb.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    span = 0.35 * track["width"] * (1 if x < track["x"] + track["width"] / 2 else -1)
    sent = network.sent
    page.mouse.move(x, y)
    page.mouse.down()
    for k in range(1, DRAG_MOVES + 1):
        page.mouse.move(x + span * k / DRAG_MOVES, y)
        page.wait_for_timeout(1000 * DRAG_SECONDS / DRAG_MOVES)
    during = network.sent - sent
    released = page.evaluate("() => performance.now()")
    page.mouse.up()
    last = wait_quiet(page, network)
    return during, max(0.0, last - released)


def play_fps(page, view) -> float | None:
    """Frames shown per second while Play runs (at most 2 s: a view with few frames plays
    them all sooner, and the rate is taken over the time they took)."""
    if not view.animated:
        return None
    label = page.locator(f"#{view.key}-frame-label")
    page.locator(f"#{view.key}-play").click()
    shown, changes, start = label.text_content(), [], time.monotonic()
    while time.monotonic() - start < 2.0:
        now = label.text_content()
        if now != shown:
            shown = now
            changes.append(time.monotonic())
        page.wait_for_timeout(5)
    if page.locator(f"#{view.key}-play").text_content().startswith("❚❚"):
        page.locator(f"#{view.key}-play").click()  # still playing: pause
    if len(changes) < 2:
        return None
    return (len(changes) - 1) / (changes[-1] - changes[0])


def measure(browser, url: str, view, count: int, load: int) -> dict:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    network = Network(page)
    try:
        page.goto(url + view.path + light(view))  # a map that is a job: a size answered at once
        graphs_ready(page, view)
        page.evaluate(PROBE)  # before the load's last redraws, which are then waited for
        settle(page)
        wait_quiet(page, network, quiet_ms=1000)
        latencies, to_paint, redraws, graphs = steps(page, network, view, count)
        scrolled = scroll_in(page, network, view)
        requests, quiet = drag(page, network, view)
        loaded = None
        if load:
            with students(url, load):
                time.sleep(1.0)
                loaded = drag(page, network, view)[1]
        fps = play_fps(page, view)
    finally:
        context.close()
    return {
        "latencies": sorted(latencies),
        "to_paint": sorted(to_paint),
        "redraws": max(redraws) if redraws else 0,
        "graphs": f"{max(graphs) if graphs else 0}/{len(view.panels)}",
        "scrolled": scrolled,
        "requests": requests,
        "settle": quiet,
        "loaded": loaded,
        "fps": fps,
    }


#: installed before a page's own scripts: when each plot first drew with its data (ms since
#: navigation), whether it is in view, and the script transferred
LOAD_PROBE = """
window.__load = {drawn: {}};
(function watch() {
  document.querySelectorAll('.js-plotly-plot').forEach(gd => {
    if (gd.__loadProbe || !gd.on) { return; }
    gd.__loadProbe = true;
    const id = (gd.closest('[id]') || {}).id || '?';
    const seen = () => {
      if (!(id in window.__load.drawn) && gd._fullData && gd._fullData.length > 0) {
        window.__load.drawn[id] = performance.now();
      }
    };
    gd.on('plotly_afterplot', seen);
    seen();
  });
  requestAnimationFrame(watch);
})();
"""
LOAD_FIGURES = """() => {
  const plots = Array.from(document.querySelectorAll('.dash-graph'));
  const inView = plots.filter(g => { const r = g.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight && r.width > 0; }).map(g => g.id);
  const scripts = performance.getEntriesByType('resource')
    .filter(e => e.initiatorType === 'script' || e.name.endsWith('.js'));
  return {drawn: window.__load.drawn, inView: inView, all: plots.map(g => g.id),
          script: scripts.reduce((sum, e) => sum + (e.transferSize || e.encodedBodySize), 0)};
}"""
DESKTOP = {"width": 1400, "height": 1000}
PHONE = {"width": 390, "height": 844}


def load_once(browser, url: str, path: str, phone: bool) -> dict:
    """One first load of ``path`` in a fresh context: ms to the first plot in view and to
    every plot in view drawn with data, and the script bytes transferred."""
    options = {"viewport": PHONE, "is_mobile": True, "has_touch": True} if phone else {}
    context = browser.new_context(**({"viewport": DESKTOP} | options))
    context.add_init_script(LOAD_PROBE)
    page = context.new_page()
    try:
        page.goto(url + path)
        page.wait_for_function(
            """() => { const plots = document.querySelectorAll('.dash-graph');
                 return plots.length > 0 && Array.from(plots).every(g => {
                   const r = g.getBoundingClientRect();
                   const seen = r.bottom > 0 && r.top < innerHeight;
                   return !seen || g.id in window.__load.drawn; }); }""",
            timeout=120_000,
        )
        figures = page.evaluate(LOAD_FIGURES)
    finally:
        context.close()
    drawn = figures["drawn"]
    in_view = [drawn[g] for g in figures["inView"] if g in drawn]
    return {
        # (a plot drawn out of sight shows the student nothing)
        "first": min(in_view) if in_view else min(drawn.values()),
        "all": max(in_view) if in_view else min(drawn.values()),
        "in_view": len(in_view),
        "plots": len(figures["all"]),
        "script": figures["script"],
    }


def load_pages() -> list[tuple[str, str]]:
    """(name, path) of every view. (The paper-figures page draws its cards without Dash's
    graphs: its loads are benchmarks/paper_figures_load.py's.)"""
    return [(view.key, view.path + light(view)) for view in VIEWS]


def measure_loads(browser, url: str, path: str, loads: int, phone: bool) -> dict:
    runs = [load_once(browser, url, path, phone) for _ in range(loads)]
    return {
        "first": statistics.median(r["first"] for r in runs),
        "all": statistics.median(r["all"] for r in runs),
        "worst": max(r["all"] for r in runs),
        "in_view": f"{runs[-1]['in_view']}/{runs[-1]['plots']}",
        "script": statistics.median(r["script"] for r in runs) / 1024,
    }


LOAD_COLUMNS = (
    "page",
    "first plot (ms)",
    "every plot in view (ms)",
    "slowest load (ms)",
    "plots in view",
    "script (KB)",
)


def load_row(name: str, figures: dict) -> list[str]:
    return [
        name,
        f"{figures['first']:.0f}",
        f"{figures['all']:.0f}",
        f"{figures['worst']:.0f}",
        figures["in_view"],
        f"{figures['script']:.0f}",
    ]


def table(columns: tuple[str, ...], rows: list[list[str]], markdown: bool) -> str:
    """Rows as a Markdown table, or as aligned text."""
    if markdown:
        lines = ["| " + " | ".join(columns) + " |"]
        lines.append("| --- |" + " ---: |" * (len(columns) - 1))
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines += ["  ".join(v.rjust(w) for v, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(lines)


def row(view, figures: dict) -> str:
    times = figures["latencies"]
    loaded = f"{figures['loaded']:7.0f}" if figures["loaded"] is not None else "      –"
    fps = f"{figures['fps']:5.0f}" if figures["fps"] is not None else "    –"
    scrolled = f"{figures['scrolled']:6.0f}" if figures["scrolled"] is not None else "     –"
    painted = figures["to_paint"]
    return (
        f"| {view.key:22s} | {statistics.median(painted):6.0f} | "
        f"{percentile(painted, 0.95):6.0f} | {painted[-1]:6.0f} | "
        f"{statistics.median(times):6.0f} | {percentile(times, 0.95):6.0f} | "
        f"{figures['redraws']:3d} | {figures['graphs']:>5s} | {scrolled} | "
        f"{figures['requests']:4d} | {figures['settle']:6.0f} | {loaded} | {fps} |"
    )


def _options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--views", nargs="*", default=[*(v.key for v in VIEWS), "paper-figures"])
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--students", type=int, default=0)
    parser.add_argument(
        "--slider",
        nargs="*",
        default=[],
        metavar="VIEW=NAME",
        help="step this slider of a view (e.g. networks=tau) instead of its first linear one",
    )
    parser.add_argument("--load", action="store_true", help="measure first loads instead")
    parser.add_argument("--loads", type=int, default=3, help="loads per page (--load)")
    parser.add_argument("--phone", action="store_true", help="load at 390 × 844 with touch")
    parser.add_argument(
        "--summary",
        action="store_true",
        help="only a sentence of the figures against their targets (the README's); with "
        "--load: at both sizes, only the slowest pages' sentence",
    )
    _markdown().add_option(parser)
    return parser.parse_args()


def _markdown():
    """benchmarks/_markdown.py, beside this script (imported here: the tests import this
    module for its probes, from another folder)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _markdown

    return _markdown


#: the first-load targets (ms): the first plot, and every plot in view
LOAD_TARGETS = (1500, 2500)


def load_summary(size: str, measured: dict[str, dict]) -> str:
    """One sentence of the slowest pages' medians against the targets (the README's)."""
    first = max(measured, key=lambda name: measured[name]["first"])
    every = max(measured, key=lambda name: measured[name]["all"])
    return (
        f"{size}, first visit, medians over the {len(measured)} views: the first plot within "
        f"{measured[first]['first'] / 1000:.1f} s (slowest {first}) and every plot in view "
        f"within {measured[every]['all'] / 1000:.1f} s (slowest {every}); targets "
        f"{LOAD_TARGETS[0] / 1000:g} s and {LOAD_TARGETS[1] / 1000:g} s."
    )


def _loads(browser, url: str, options: argparse.Namespace) -> None:
    if options.summary:  # both sizes, a sentence each
        for phone in (False, True):
            measured = {
                name: measure_loads(browser, url, path, options.loads, phone)
                for name, path in load_pages()
                if name in options.views
            }
            size = "On a phone (390 × 844)" if phone else "At 1400 × 1000"
            print(load_summary(size, measured) + ("" if phone else "\n"))  # (two paragraphs)
        return
    size = "390 × 844, touch" if options.phone else "1400 × 1000"
    print(
        f"First loads, {size}: a fresh browser context per load (nothing cached in the "
        f"browser), medians of {options.loads} loads, times from navigation.\n"
    )
    measured, rows = {}, []
    for name, path in load_pages():
        if name in options.views:
            measured[name] = measure_loads(browser, url, path, options.loads, options.phone)
            rows.append(load_row(name, measured[name]))
            if not options.markdown:
                print(table(LOAD_COLUMNS, rows[-1:], False).splitlines()[-1], flush=True)
    print(table(LOAD_COLUMNS, rows, options.markdown) + "\n")
    print(load_summary("On a phone (390 × 844)" if options.phone else "At 1400 × 1000", measured))


#: the step targets (ms): median and largest step to paint of a view with a 3-D scene, and the
#: quiet after its drag's release; the median step of a view of flat plots
SCENE_TARGETS = (150, 300, 500)
FLAT_TARGET = 120
#: the views with a 3-D scene (the single-neuron view's parameter space)
SCENE_VIEWS = frozenset({"single-neuron"})
SUMMARY_COLUMNS = (
    "view",
    "step to paint: median (ms)",
    "max (ms)",
    "quiet after a drag's release (ms)",
    "meets its target",
)


def meets(view, figures: dict) -> bool:
    """Whether a view's steps (and, with a 3-D scene, its drag) meet their targets."""
    painted = figures["to_paint"]
    median = statistics.median(painted)
    if view.key not in SCENE_VIEWS:
        return median <= FLAT_TARGET
    scene_median, scene_max, scene_quiet = SCENE_TARGETS
    return median <= scene_median and painted[-1] <= scene_max and figures["settle"] <= scene_quiet


def step_summary(measured: dict, views: list) -> str:
    """The README's sentence: the 3-D scene's figures, then the flat views' range and those
    over their target."""
    parts = []
    flat = [v for v in views if v.key not in SCENE_VIEWS]
    for view in [v for v in views if v.key in SCENE_VIEWS]:
        figures = measured[view.key]
        parts.append(
            f"the 3-D scene ({view.key}) {statistics.median(figures['to_paint']):.0f} ms, at most "
            f"{figures['to_paint'][-1]:.0f}, and quiet {figures['settle']:.0f} ms after a "
            f"drag's release (targets {', '.join(map(str, SCENE_TARGETS))} ms: "
            f"{'met' if meets(view, figures) else 'not met'})"
        )
    if flat:
        medians = {v.key: statistics.median(measured[v.key]["to_paint"]) for v in flat}
        over = sorted((m, k) for k, m in medians.items() if m > FLAT_TARGET)
        parts.append(
            f"the {len(flat)} views of flat plots {min(medians.values()):.0f}–"
            f"{max(medians.values()):.0f} ms, {len(flat) - len(over)} of them within the target "
            f"of {FLAT_TARGET} ms"
            + (
                f" (over it: {', '.join(f'{k} {m:.0f}' for m, k in reversed(over))})"
                if over
                else ""
            )
        )
    return "A slider step to the paint, medians: " + "; ".join(parts)


def _step_summary(browser, url: str, options: argparse.Namespace) -> None:
    views, measured, rows = [v for v in VIEWS if v.key in options.views], {}, []
    for view in views:
        figures = measured[view.key] = measure(browser, url, view, options.steps, 0)
        painted = figures["to_paint"]
        rows.append(
            [
                view.key,
                f"{statistics.median(painted):.0f}",
                f"{painted[-1]:.0f}",
                f"{figures['settle']:.0f}",
                "yes" if meets(view, figures) else "no",
            ]
        )
        if not options.markdown:
            print(table(SUMMARY_COLUMNS, rows[-1:], False).splitlines()[-1], flush=True)
    print(step_summary(measured, views) + f"; {options.steps} steps each.")


def _steps(browser, url: str, options: argparse.Namespace) -> None:
    if options.summary:
        _step_summary(browser, url, options)
        return
    if not options.markdown:
        print(
            f"gunicorn (Procfile settings) and headless Chromium, {options.steps} steps per "
            f"view; times in ms; drag = {DRAG_MOVES} moves in {DRAG_SECONDS:g} s\n"
        )
    print(
        "| view | step to paint: median | p95 | max | step to afterplot: median | p95 | "
        "redraws per change | plots drawn | scroll in | requests per drag | quiet after release "
        f"| … with {options.students} students | Play fps |"
    )
    print("| --- |" + " ---: |" * 12)
    for view in [v for v in VIEWS if v.key in options.views]:
        figures = measure(browser, url, view, options.steps, options.students)
        print(row(view, figures), flush=True)


def main() -> None:
    options = _options()
    _markdown().start(options.markdown, fenced=False)
    for choice in options.slider:
        view_key, _, name = choice.partition("=")
        CHOSEN_SLIDERS[view_key] = name
    from playwright.sync_api import sync_playwright

    env = {"LOG_LEVEL": "warning"}
    with servers.gunicorn(env) as (url, _), sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("CHROMIUM", CHROMIUM), args=CHROMIUM_ARGS
        )
        (_loads if options.load else _steps)(browser, url, options)
        browser.close()


if __name__ == "__main__":
    main()
