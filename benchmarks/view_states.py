"""What chosen states of the heavier views cost: compute, draw and pack, uncached, one process.

    python benchmarks/view_states.py [--repeats 3] [--markdown]

The states are the finite-width map at its defaults and at its caps, the network view at its
defaults, a four-layer network on the digits and its largest request, and the network map at
its defaults and at d = 10, n = 100 (with the map's own estimate beside). Prints the median
and the fastest of the repeats in ms; ``--markdown`` prints the same as a Markdown table for
docs/performance.md. The machine is shared: quote medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _markdown  # noqa: E402  (benchmarks/_markdown.py, beside this script)

from app.memory import keep_freed_memory  # noqa: E402
from app.ui.figures import compact  # noqa: E402
from app.views import BY_KEY  # noqa: E402
from app.views.networks import map as network_map  # noqa: E402
from tests.budgets import NETWORKS_LARGEST as LARGEST  # noqa: E402

#: (view key, what, overrides of its defaults)
STATES = (
    ("finite-width-map", "defaults", {}),
    (
        "finite-width-map",
        "every cap: 121² phases, 64 widths to 10⁴, other schemes",
        {"resolution": 121, "d_min": 2, "d_max": 10_000, "count": 64, "others": True},
    ),
    (
        "finite-width-map",
        "lazy scheme at its caps, every sweep",
        {"scheme": "lazy", "resolution": 121, "d_max": 10_000, "count": 64, "sweep": "all"},
    ),
    ("networks", "defaults", {}),
    (
        "networks",
        "digits, depth 4, width 100, n = 100",
        {"data": "digits", "n": 100, "init": "gaussian", "depth": 4, "width": 100},
    ),
    ("networks", "largest: ten digits, n = 1000, depth 6, width 200, 10⁵ steps", LARGEST),
    ("networks-map", "defaults (16 × 16 cells)", {}),
    ("networks-map", "d = 10, n = 100", {"d": 10, "n": 100}),
)


def once(view, controls) -> float:
    start = time.perf_counter()
    result = view.compute(controls)
    for panel in view.panels:
        compact(panel.draw(controls, result))
    return 1e3 * (time.perf_counter() - start)


def measure(repeats: int) -> list[tuple[str, str, float, float, str]]:
    rows = []
    for key, what, overrides in STATES:
        view = BY_KEY[key]
        # (parsed as a link is: the largest request is clamped to the view's caps, as it says)
        controls = view.spec.parse(view.spec.defaults().__dict__ | overrides)[0]
        once(view, view.spec.defaults())  # compiled loops and lazy imports, not timed
        times = [once(view, controls) for _ in range(repeats)]
        note = ""
        if key == "networks-map":
            note = f"estimated {network_map.seconds(controls):.2f} s"
        rows.append((key, what, statistics.median(times), min(times), note))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    _markdown.add_option(parser)
    options = parser.parse_args()
    _markdown.start(options.markdown, fenced=False)
    keep_freed_memory()  # as the app does
    rows = measure(options.repeats)
    if options.markdown:
        print("| view | state | median (ms) | fastest (ms) | |\n| --- | --- | ---: | ---: | --- |")
        for key, what, median, fastest, note in rows:
            print(f"| `{key}` | {what} | {median:.0f} | {fastest:.0f} | {note} |")
        return
    for key, what, median, fastest, note in rows:
        print(f"{key:18s} {what:64s} {median:9.1f} {fastest:9.1f}  {note}")


if __name__ == "__main__":
    main()
