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
#: a background job's sizes that its memory does not grow with beyond these values: a map
#: keeps only the ends of its runs (its steps are time, not memory), and trains its rows in
#: calls of the engine of at most ~100 networks at the corners' sizes (its CALL_WEIGHTS), as
#: many as the single call of a 10 × 10 map — so a 32 × 32 map peaks as a 10 × 10 one does
JOB_SIZES = {"steps": 10, "resolution": 10}
#: the network view's largest request (every cap of its ranges bites)
NETWORKS_LARGEST = {
    "data": "digits",
    "classes": "ten",
    "n": 1000,
    "n_test": 1000,
    "steps": 100_000,
    "depth": 6,
    "width": 200,
    "init": "gaussian",
}


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
    """(seconds, peak bytes traced) of computing and drawing one state, as a callback does —
    or, for a request that is a background job (``view.heavy``), as the job computes it, cut
    to :data:`JOB_SIZES` first (a minute of work at the corners, untraced)."""
    import dataclasses

    from app.core.view import Computed

    compute = view.compute
    if view.heavy is not None and view.heavy(controls):
        sizes = {name: value for name, value in JOB_SIZES.items() if hasattr(controls, name)}
        controls = dataclasses.replace(controls, **sizes)
        compute = lambda c: view.compute_job(c, lambda fraction, text: None)  # noqa: E731
    tracemalloc.start()
    try:
        start = time.perf_counter()
        view.draw(controls, Computed(compute(controls), 0.0))
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return elapsed, peak
