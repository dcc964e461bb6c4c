"""The most demanding valid states of each view, and what one request costs there.

A request can only ask for values inside a view's ranges (everything else is clamped), so the
worst case lies at the corners of those ranges: every size (whole-number field) at its cap,
every other number at one end of its range, every switch and choice either way. The memory
test and ``benchmarks/worst_case.py`` share these states.
"""

from __future__ import annotations

import random
import time
import tracemalloc
from typing import Any

#: what one request may cost at most (issue: "about a second", "~100 MB")
MEMORY_BUDGET_BYTES = 100 * 2**20


def demanding_states(view, count: int, seed: int = 0) -> list[Any]:
    """``count`` valid corner states of ``view`` (the first has every number at its high end)."""
    rng = random.Random(seed)
    states = []
    for index in range(count):
        raw = {}
        for spec in view.spec.fields:
            if spec.kind == "int":
                raw[spec.name] = spec.high if index % 4 else rng.choice((spec.low, spec.high))
            elif spec.kind == "float":
                raw[spec.name] = spec.high if index == 0 else rng.choice((spec.low, spec.high))
            elif spec.kind == "bool":
                raw[spec.name] = True if index == 0 else rng.random() < 0.5
            else:
                raw[spec.name] = spec.choices[-1] if index == 0 else rng.choice(spec.choices)
        states.append(view.spec.parse(raw)[0])
    return states


def cost(view, controls: Any) -> tuple[float, int]:
    """(seconds, peak bytes traced) of computing and drawing one state, as a callback does."""
    from app.core.view import Computed

    tracemalloc.start()
    try:
        start = time.perf_counter()
        view.draw(controls, Computed(view.compute(controls), 0.0))
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return elapsed, peak
