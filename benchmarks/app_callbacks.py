"""Time every server callback of the dashboard over HTTP, against the real gunicorn server.

    python benchmarks/app_callbacks.py [--requests 60] [--workers 2]

Starts the Procfile's ``gunicorn app:server`` on a free loopback port (file-system cache in a
fresh folder), then, for each view:

* **slider move** — the main callback with one slider moved to a fresh random value each time,
  so every request is a cache miss (what a student dragging a slider causes);
* **repeat** — the same request again (a cache hit: another student on the same settings);
* **step** — a slider move from a page that shows the move before it (the request names that
  state, as the page's gate does): the answer is then only the plots' differences;
* **preset** and **download** — the other server callbacks;

and prints the median and 95th-percentile latency and the response size. The machine is
shared and noisy: quote medians.
"""

from __future__ import annotations

import argparse
import math
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
from tests import servers  # noqa: E402
from tests.dash_client import (  # noqa: E402
    control_values,
    payload,
    split_outputs,
    view_request,
)


def random_move(view, rng: random.Random):
    """Default controls with one numeric slider moved somewhere else in its range."""
    numeric = [f for f in view.spec.fields if f.kind in ("float", "int") and f.physics]
    spec = rng.choice(numeric)
    return view.spec.with_overrides({spec.name: random_value(spec, rng)})


def random_value(spec, rng: random.Random):
    """A value anywhere in a numeric field's range (uniform on its slider's scale)."""
    if spec.log:
        value = 10 ** rng.uniform(math.log10(spec.low), math.log10(spec.high))
    else:
        value = rng.uniform(spec.low, spec.high)
    return round(value) if spec.kind == "int" else value


def timed(session: requests.Session, url: str, body: dict) -> tuple[float, int]:
    start = time.perf_counter()
    response = session.post(url + "/_dash-update-component", json=body, timeout=30)
    elapsed = time.perf_counter() - start
    if response.status_code not in (200, 204):
        raise RuntimeError(f"HTTP {response.status_code}: {response.text[:200]}")
    return 1e3 * elapsed, len(response.content)


def summarise(label: str, samples: list[tuple[float, int]]) -> str:
    times = sorted(ms for ms, _ in samples)
    p95 = times[max(0, round(0.95 * len(times)) - 1)]
    size = statistics.median(size for _, size in samples) / 1e3
    return f"{label:44s} {statistics.median(times):8.1f} {p95:8.1f} {size:9.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--views", nargs="*", help="view keys (default: every view)")
    _markdown.add_option(parser)
    options = parser.parse_args()
    _markdown.start(options.markdown)
    rng = random.Random(0)
    with servers.gunicorn(workers=options.workers, threads=4) as (url, _):
        session = requests.Session()
        dependencies = session.get(url + "/_dash-dependencies").json()
        print(
            f"gunicorn, {options.workers} workers × 4 threads, file-system cache; "
            f"{options.requests} requests per row, one at a time"
        )
        print(f"{'callback':44s} {'median':>8s} {'p95':>8s} {'size KB':>9s}   (ms)")
        for view in [v for v in VIEWS if not options.views or v.key in options.views]:
            preset_callback = next(
                d for d in dependencies if d["inputs"][0]["id"] == f"{view.key}-preset"
            )
            download = next(
                d
                for d in dependencies
                if {"id": f"{view.key}-download", "property": "data"} in split_outputs(d["output"])
            )
            moves, repeats, time_moves, steps = [], [], [], []
            shown = None
            for _ in range(options.requests):
                body = view_request(dependencies, view, random_move(view, rng))
                moves.append(timed(session, url, body))
                repeats.append(timed(session, url, body))
                moved = random_move(view, rng)
                steps.append(
                    timed(session, url, view_request(dependencies, view, moved, drawn=shown))
                )
                shown = moved
                if "t" in view.spec.by_name:  # a map's time slider, from its defaults
                    moved = {"t": random_value(view.spec.by_name["t"], rng)}
                    body = view_request(dependencies, view, view.spec.with_overrides(moved))
                    time_moves.append(timed(session, url, body))
            presets = [
                timed(session, url, payload(preset_callback, {f"{view.key}-preset.value": p.slug}))
                for p in view.presets
                for _ in range(3)
            ]
            defaults = control_values(view, view.spec.defaults())
            downloads = [
                timed(
                    session,
                    url,
                    payload(download, defaults | {f"{view.key}-download-csv.n_clicks": k + 1}),
                )
                for k in range(10)
            ]
            print(summarise(f"{view.nav_title}: slider move (uncached)", moves))
            print(summarise(f"{view.nav_title}: same request again (cached)", repeats))
            print(summarise(f"{view.nav_title}: step from the move before", steps[1:]))
            if time_moves:
                print(summarise(f"{view.nav_title}: time slider move (uncached)", time_moves))
            print(summarise(f"{view.nav_title}: preset", presets))
            print(summarise(f"{view.nav_title}: CSV download", downloads))


if __name__ == "__main__":
    main()
