"""A heavy network map shared by the job workers (app/shared_parts.py): how long it takes with one
Celery worker process and with two, side by side (one, two, one, two …), and what cutting a
map into parts costs in one process.

    python benchmarks/shared_map.py [--rounds 2] [--markdown]

Each round starts a private ``redis-server`` and the Procfile's Celery worker (concurrency 1,
then 2), asks for the map as a page does and times it from the request to the job's end (what
the student waits). Each map is new to the cache (a seed of its own per run).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _markdown  # noqa: E402  (benchmarks/_markdown.py, beside this script)

from app.views.networks import MAP  # noqa: E402
from app.views.networks import map as network_map  # noqa: E402
from tests.e2e.test_shared_maps import SHARED, deployment, run_map  # noqa: E402


def in_one_process(values: dict) -> list[tuple[int, int, float]]:
    """(parts asked, parts made, seconds) for the map trained in one process, one part after
    another (the cost of smaller batches)."""
    controls = MAP.spec.physics_only(MAP.spec.with_overrides(values))
    found = []
    for at_least in (1, 4, 8, 1, 4, 8):
        network_map.PARTS_AT_LEAST = at_least
        made = len(network_map.blocks(network_map.within_budget(controls)))
        begun = time.perf_counter()
        network_map.compute_job(controls, lambda *_: None)
        found.append((at_least, made, time.perf_counter() - begun))
    network_map.PARTS_AT_LEAST = 4
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    _markdown.add_option(parser)
    arguments = parser.parse_args()
    _markdown.start(arguments.markdown, fenced=False)

    print("In one process, one part after another (seconds; medians of two):\n")
    print("| map | 1 part | 4 parts | 8 parts |")
    print("|---|---:|---:|---:|")
    for name, values in (("the default map", {}), ("the shared test's map", SHARED)):
        runs = in_one_process(values)
        by = {k: statistics.median(s for a, _, s in runs if a == k) for k in (1, 4, 8)}
        made = {a: m for a, m, _ in runs}
        cells = " | ".join(f"{by[k]:.2f} ({made[k]})" for k in (1, 4, 8))
        print(f"| {name} | {cells} |")
    print("\n(parts made in brackets; a map light enough for a request is never cut)\n")

    rows, seed = [], 100
    with tempfile.TemporaryDirectory() as scratch:
        for round_ in range(arguments.rounds):
            times = {}
            for workers in (1, 2):
                seed += 1
                with deployment(Path(scratch), workers) as deployed:
                    times[workers], _ = run_map(deployed, SHARED | {"seed": seed})
            rows.append((round_ + 1, times[1], times[2], times[2] / times[1]))
    shown = ", ".join(f"{name} = {value}" for name, value in SHARED.items())
    print(f"The map with {shown}, on Celery workers (seconds from request to end):\n")
    print("| round | one worker process | two worker processes | two / one |")
    print("|---:|---:|---:|---:|")
    for round_, one, two, ratio in rows:
        print(f"| {round_} | {one:.1f} | {two:.1f} | {ratio:.2f} |")
    median = statistics.median(ratio for *_, ratio in rows)
    print(f"\nmedian ratio two / one: {median:.2f} (target ≤ 0.6)")


if __name__ == "__main__":
    main()
