"""What the most demanding request of each view costs: time and peak memory at the corners of
its ranges (every size at its cap; see ``tests/budgets.py``), one process, no cache.

    python benchmarks/worst_case.py [--states 24]

Prints, per view, the median and the largest time over the states, the largest traced peak
of memory, and the settings of the slowest state. States that run as background jobs (the
network map's corners) are left out: the job's own budget bounds them. The target is about a
second and ~100 MB per request. Times are measured without tracemalloc (it slows Python
code), memory with it.
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

from app.core.view import Computed  # noqa: E402
from app.memory import keep_freed_memory  # noqa: E402
from app.views import VIEWS  # noqa: E402
from tests.budgets import cost, demanding_states  # noqa: E402


def seconds(view, controls) -> float:
    start = time.perf_counter()
    view.draw(controls, Computed(view.compute(controls), 0.0))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=24)
    _markdown.add_option(parser)
    options = parser.parse_args()
    _markdown.start(options.markdown)
    keep_freed_memory()  # as the app does
    print(f"{options.states} demanding states per view; times in ms, memory in MB")
    print(f"{'view':22s} {'median':>8s} {'max':>8s} {'peak MB':>8s}   slowest state")
    for view in VIEWS:
        # a state that runs as a background job is bounded by the job's budget, not timed here
        found = demanding_states(view, options.states)
        states = [v for v in found if view.heavy is None or not view.heavy(v)]
        if not states:
            print(f"{view.key:22s} every one of its {len(found)} states is a background job")
            continue
        times = [min(seconds(view, values) for _ in range(2)) for values in states]
        peaks = [cost(view, values)[1] for values in states]
        slowest = states[max(range(len(states)), key=times.__getitem__)]
        physics = dict(view.spec.physics_key(slowest))
        print(
            f"{view.key:22s} {1e3 * statistics.median(times):8.1f} {1e3 * max(times):8.1f} "
            f"{max(peaks) / 2**20:8.1f}   {physics}"
        )


if __name__ == "__main__":
    main()
