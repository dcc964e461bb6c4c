"""How fast the paper-figures page fills, as a student sees it: headless Chromium against the
Procfile's gunicorn.

    python benchmarks/paper_figures_load.py               # 5 visits after the server's warm-up
    python benchmarks/paper_figures_load.py --visits 9 --markdown

The server starts with a fresh result cache and computes every card beside itself
(``app/precompute.py``); the benchmark waits until it has finished — the state of a deployment
a minute after it started — and then opens ``/paper-figures`` in a new browser context (no
browser cache) ``--visits`` times at 1440 × 900 and at 390 × 844. It prints, from navigation:

* **first card** — the first card's plot drawn with data (plotly's ``_fullData``);
* **cards in view** — every card that is in the viewport at load drawn;
* **drawn at load** — how many cards were drawn in the first 2 s (the others wait until they
  come near the viewport).

It also times one *first visitor* before the warm-up has run (the cards in view computed on
demand). Medians and maxima; the machine's other work moves them, so compare runs side by side.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _markdown  # noqa: E402  (benchmarks/_markdown.py, beside this script)

from tests import servers  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

SIZES = ((1440, 900), (390, 844))
#: the page's cards that intersect the viewport, and whether each has drawn its data
IN_VIEW = """() => {
  const cards = [...document.querySelectorAll('.paper-card')].filter(c => {
    const r = c.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight;
  });
  const drawn = cards.filter(c => {
    const g = c.querySelector('.js-plotly-plot');
    return g && g._fullData && g._fullData.length > 0;
  });
  return [cards.length, drawn.length];
}"""
FIRST = """() => { const g = document.querySelector('.paper-card .js-plotly-plot');
  return !!(g && g._fullData && g._fullData.length > 0); }"""
DRAWN = """() => [...document.querySelectorAll('.paper-card .js-plotly-plot')]
  .filter(g => g._fullData && g._fullData.length > 0).length"""


def visit(browser, url: str, width: int, height: int) -> tuple[float, float, int]:
    """(seconds to the first card, seconds to every card in view, cards drawn within 2 s)."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url + "/paper-figures", wait_until="commit")
    page.wait_for_function(FIRST, timeout=120_000, polling="raf")
    first = time.perf_counter() - start
    page.wait_for_function(
        f"() => {{ const [n, d] = ({IN_VIEW})(); return n > 0 && n === d; }}",
        timeout=120_000,
        polling="raf",
    )
    all_in_view = time.perf_counter() - start
    page.wait_for_timeout(max(0, int(1000 * (2.0 - (time.perf_counter() - start)))))
    drawn = page.evaluate(DRAWN)
    context.close()
    return first, all_in_view, drawn


def warm_up_done(server_pid: int, seconds: float = 900) -> float:
    """Waits until the server's card computation has ended; its duration."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        # no shell: its own command line would name the pattern and match it
        found = subprocess.run(
            ["pgrep", "-f", f"app.precompute {server_pid}"], capture_output=True, text=True
        ).stdout.split()
        if not found:
            return time.monotonic() - start
        time.sleep(0.5)
    raise TimeoutError("the paper figures were not computed in time")


def table(rows: list[tuple[str, list[tuple[float, float, int]]]], markdown: bool) -> str:
    head = ("visit", "first card: median / max (s)", "cards in view: median / max (s)", "drawn")
    lines = []
    for name, runs in rows:
        firsts, alls, drawn = zip(*runs, strict=True)
        lines.append(
            (
                name,
                f"{statistics.median(firsts):.2f} / {max(firsts):.2f}",
                f"{statistics.median(alls):.2f} / {max(alls):.2f}",
                f"{statistics.median(drawn):.0f}",
            )
        )
    if markdown:
        out = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
        out += ["| " + " | ".join(row) + " |" for row in lines]
        return "\n".join(out)
    rows_out = [head, *lines]
    width = [max(len(r[i]) for r in rows_out) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, width, strict=True)) for r in rows_out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--visits", type=int, default=5)
    _markdown.add_option(parser)
    args = parser.parse_args()
    _markdown.start(args.markdown, fenced=False)
    from playwright.sync_api import sync_playwright

    env = {"OPENBLAS_NUM_THREADS": "1", "PAPER_FIGURES_WARM_UP": "1"}
    with (
        sync_playwright() as playwright,
        servers.gunicorn(env, workers=2, threads=4) as (
            url,
            server,
        ),
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        rows = [("first visitor, during the warm-up, 1440 × 900", [visit(browser, url, *SIZES[0])])]
        took = warm_up_done(server.pid)
        for width, height in SIZES:
            runs = [visit(browser, url, width, height) for _ in range(args.visits)]
            rows.append((f"after the warm-up, {width} × {height}", runs))
        browser.close()
    print(table(rows, args.markdown))
    print(f"\nThe server computed every card in {took:.0f} s after the first visit.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
