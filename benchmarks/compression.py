"""Bytes saved by compressed answers, against the CPU they cost the server.

    python benchmarks/compression.py [--requests 40]

Starts the Procfile's gunicorn twice, with ``COMPRESS=0`` and ``COMPRESS=1``, and measures:

* a page load in headless Chromium: bytes transferred (scripts, styles, the first answers),
  the first load (each worker compresses a script once) and the next one;
* slider moves on every view (uncached answers, asking for brotli as browsers do): median
  latency, median answer size, and the server's CPU time per request (the workers' user +
  system time from /proc, over all the requests).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _markdown  # noqa: E402  (benchmarks/_markdown.py, beside this script)

from app.views import VIEWS  # noqa: E402
from benchmarks.app_callbacks import random_move  # noqa: E402
from tests import servers  # noqa: E402
from tests.dash_client import view_request  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(master: int) -> float:
    """User + system CPU seconds of a gunicorn master's workers so far."""
    total = 0.0
    for pid in servers.worker_pids(master):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / TICKS
    return total


def page_bytes(url: str) -> tuple[int, float]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        sizes: list[int] = []
        page.on("requestfinished", lambda r: sizes.append(r.sizes()["responseBodySize"]))
        start = time.perf_counter()
        page.goto(url + VIEWS[0].path)
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
        elapsed = time.perf_counter() - start
        page.wait_for_timeout(3000)
        browser.close()
    return sum(sizes), elapsed


def callbacks(url: str, master: int, count: int) -> tuple[float, float, float]:
    """(median ms, median answer bytes, CPU ms per request) of uncached slider moves."""
    session = requests.Session()
    session.headers["Accept-Encoding"] = "br, gzip"
    dependencies = session.get(url + "/_dash-dependencies").json()
    rng = random.Random(1)
    bodies = [
        view_request(dependencies, view, random_move(view, rng))
        for _ in range(count)
        for view in VIEWS
    ]
    before, times, sizes = cpu_seconds(master), [], []
    for body in bodies:
        start = time.perf_counter()
        response = session.post(url + "/_dash-update-component", json=body, stream=True)
        raw = response.raw.read()  # as sent, before the client decompresses it
        times.append(1e3 * (time.perf_counter() - start))
        sizes.append(len(raw))
    cpu = 1e3 * (cpu_seconds(master) - before) / len(bodies)
    return statistics.median(times), statistics.median(sizes), cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=40, help="slider moves per view")
    _markdown.add_option(parser)
    options = parser.parse_args()
    _markdown.start(options.markdown, fenced=False)
    print(
        "| compression | page load bytes | first load | next load | answer median | "
        "answer size | server CPU per answer |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for flag in ("0", "1"):
        env = {"COMPRESS": flag, "LOG_LEVEL": "warning"}
        with servers.gunicorn(env, workers=2, threads=4) as (url, master):
            first_bytes, first = page_bytes(url)
            _, again = page_bytes(url)
            median, size, cpu = callbacks(url, master.pid, options.requests)
        name = "brotli 4 / gzip 6" if flag == "1" else "off"
        print(
            f"| {name} | {first_bytes / 1e6:.2f} MB | {first:.2f} s | {again:.2f} s | "
            f"{median:.0f} ms | {size / 1e3:.0f} kB | {cpu:.1f} ms |",
            flush=True,
        )


if __name__ == "__main__":
    main()
