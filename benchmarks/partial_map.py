"""A heavy network map drawn as its parts finish (app/shared_parts.py, ``Parts.partial``): how
long a student waits, in Chromium, for the first drawn map and for the whole one.

    python benchmarks/partial_map.py [--rounds 3] [--markdown]

The Procfile's gunicorn (two web processes, each with its job dispatcher: the map's parts are
shared by two processes) and headless Chromium; each round opens a map new to the cache (a
seed of its own) and reads the page every 50 ms: when the summary first says how much is in
("so far"), and when the whole map is drawn (the job's bar gone, the summary whole). Two maps:
one seed cut into blocks of rows (the first drawing has blank rows), and four seeds (one part
each: the first drawing is the first seed's whole map).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _markdown  # noqa: E402  (benchmarks/_markdown.py, beside this script)
from playwright.sync_api import sync_playwright  # noqa: E402

from tests import servers  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.e2e.test_jobs import DRAWN_SO_FAR  # noqa: E402
from tests.job_pages import STATUS, open_map  # noqa: E402

MAPS = {
    "one seed, 4 blocks of rows": {"d": 20, "n": 200, "resolution": 12, "steps": 3000},
    "four seeds, 1 part each": {"d": 10, "n": 100, "resolution": 12, "steps": 3000, "seeds": 4},
}


def waited(page, url: str, values: dict) -> tuple[float, float, int]:
    """(seconds to the first partial map drawn, to the whole map, partial drawings seen)."""
    begun = time.monotonic()
    open_map(page, url, values, wait_until="commit")
    first, seen = None, set()
    while time.monotonic() - begun < 300:
        drawn, state = page.evaluate(DRAWN_SO_FAR), page.evaluate(STATUS)
        if "so far" in drawn["summary"]:
            seen.add(drawn["summary"])
            first = first or time.monotonic() - begun
        elif drawn["finite"] and not state["shown"] and first is not None:
            return first, time.monotonic() - begun, len(seen)
        page.wait_for_timeout(50)
    raise RuntimeError(f"the map {values} was not drawn in 300 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    _markdown.add_option(parser)
    arguments = parser.parse_args()
    _markdown.start(arguments.markdown, fenced=False)
    found = {name: [] for name in MAPS}
    with servers.gunicorn({}, workers=2) as (url, _), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        for round_ in range(arguments.rounds):
            for number, (name, values) in enumerate(MAPS.items()):
                seed = 200 + 10 * round_ + number
                found[name].append(waited(page, url, values | {"seed": seed}))
        browser.close()
    print("Seconds from opening the page (medians of the rounds, two web processes):\n")
    print("| map | first map drawn | whole map | first / whole | drawings before the whole |")
    print("|---|---:|---:|---:|---:|")
    for name, runs in found.items():
        first = statistics.median(run[0] for run in runs)
        whole = statistics.median(run[1] for run in runs)
        drawings = statistics.median(run[2] for run in runs)
        print(f"| {name} | {first:.1f} | {whole:.1f} | {first / whole:.2f} | {drawings:g} |")
    for name, values in MAPS.items():
        print(f"\n{name}: " + ", ".join(f"{key} = {value}" for key, value in values.items()))


if __name__ == "__main__":
    main()
