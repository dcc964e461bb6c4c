"""The network views' budgets: what a request of ``/networks`` and ``/networks/map`` costs.

    python benchmarks/networks_callbacks.py [--moves 30] [--paper]

* **network view, slider moves at default sizes** — the main callback (compute, draw, pack) for
  the defaults with one control moved a few slider steps, as a drag does; every request a cache
  miss. Budget: p95 ≤ 300 ms.
* **network view, presets** — each paper figure's set-up, once, whether it would be a
  background job (``heavy``: the view's own estimate beside, over ``HEAVY_SECONDS``), and the
  defaults at 10⁵ steps.
* **map** — the default τ × δ map and the presets, computed as the background job computes them
  (``compute_job``), with the job's own estimate beside the time. Budget: the default map
  ≤ 30 s. ``--paper`` also trains the paper's sizes (minutes).
* **memory** — the largest traced peak (tracemalloc) of one request: the network view's most
  demanding states (``tests/budgets.py``) and the maps. Budget: < 100 MB.

One process, one core for BLAS (as a server worker), in-memory cache. Quote medians: the
machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _markdown  # noqa: E402  (benchmarks/_markdown.py, beside this script)

from app.cache import ResultCache  # noqa: E402
from app.memory import keep_freed_memory  # noqa: E402
from app.views.networks import MAP, TRAJECTORY, trajectory  # noqa: E402
from app.views.networks import map as network_map  # noqa: E402
from tests.budgets import demanding_states  # noqa: E402

PAGE = {"embed": False, "messages": []}


def request_ms(view, controls) -> float:
    """One main-callback request for ``controls`` with an empty cache, in ms."""
    raw = view.spec.to_controls(controls)
    start = time.perf_counter()
    view.update(ResultCache.in_memory(), None, raw, PAGE)
    return 1e3 * (time.perf_counter() - start)


def nudged(view, rng: random.Random):
    """The defaults with one numeric control moved one to three slider steps."""
    numeric = [f for f in view.spec.fields if f.kind in ("float", "int") and f.physics]
    spec = rng.choice(numeric)
    default = getattr(view.spec.defaults(), spec.name)
    steps = rng.choice((-3, -2, -1, 1, 2, 3))
    if spec.log:
        value = default * 10 ** (0.05 * steps)
    else:
        value = default + steps * (spec.step or (spec.high - spec.low) / 100)
    value = min(max(value, spec.low), spec.high)
    return view.spec.with_overrides({spec.name: round(value) if spec.kind == "int" else value})


def peak_mb(work) -> float:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def summary(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered):7.0f}  p95 {p95:7.0f}  max {ordered[-1]:7.0f}"


def network_view(moves: int) -> None:
    rng = random.Random(0)
    request_ms(TRAJECTORY, TRAJECTORY.spec.defaults())  # imports, first calls
    times = [request_ms(TRAJECTORY, nudged(TRAJECTORY, rng)) for _ in range(moves)]
    print(f"network view, {moves} slider moves at default sizes (ms): {summary(times)}")
    print("network view, presets (ms, one request each; the view's estimate beside):")
    states = [(p.slug, p.values) for p in TRAJECTORY.presets]
    for name, values in [*states, ("defaults at 10⁵ steps", {"steps": 100_000})]:
        controls = TRAJECTORY.spec.with_overrides(values)
        where = "background job" if TRAJECTORY.heavy(controls) else "in the request"
        estimate = f"estimated {1e3 * trajectory.seconds(controls):6.0f}"
        print(f"  {name:48s} {request_ms(TRAJECTORY, controls):7.0f}   {estimate}   {where}")


def maps(paper: bool) -> None:
    print("map, as the background job computes it (s; the job's own estimate beside):")
    states = [("defaults", {})] + [(p.slug, p.values) for p in MAP.presets]
    for name, values in states:
        controls = MAP.spec.with_overrides(values)
        estimate = network_map.seconds(controls)
        if estimate > 60 and not paper:
            print(f"  {name:48s} {'—':>7s}   estimated {estimate:6.1f} (--paper trains it)")
            continue
        start = time.perf_counter()
        network_map.compute_job(controls, lambda fraction, text: None)
        elapsed = time.perf_counter() - start
        print(f"  {name:48s} {elapsed:7.1f}   estimated {estimate:6.1f}")


def memory() -> None:
    print("largest traced peak of one request (MB):")
    worst = max(
        peak_mb(lambda c=c: request_ms(TRAJECTORY, c)) for c in demanding_states(TRAJECTORY, 6)
    )
    print(f"  network view, 6 most demanding states     {worst:7.1f}")
    for name, values in (("defaults", {}), ("d = 10, n = 100", {"d": 10, "n": 100})):
        controls = MAP.spec.with_overrides(values)
        used = peak_mb(lambda c=controls: network_map.compute_job(c, lambda f, t: None))
        print(f"  map, {name:36s} {used:7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--paper", action="store_true", help="also train the paper's sizes")
    _markdown.add_option(parser)
    options = parser.parse_args()
    _markdown.start(options.markdown)
    keep_freed_memory()  # as the app does
    network_view(options.moves)
    maps(options.paper)
    memory()


if __name__ == "__main__":
    main()
