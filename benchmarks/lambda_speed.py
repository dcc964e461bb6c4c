"""How fast is the λ-balanced solver with its restart-free closed form, against the restarted
march alone?

    python benchmarks/lambda_speed.py [--repeats 30]

"march" forces the restarted march at every time (``DecayingForm.CONDITION_LIMIT = 0``):
``exact`` then computes exactly as before the closed form existed, and ``lambda_sweep`` runs
one march per (λ, architecture) cell as it did. "new" is the default: the closed form wherever
its condition bound accepts, the march elsewhere.

* ``exact``: a 1000-point trajectory on [0, 1e4] (as the trajectory view asks at its longest
  horizons, ten times further), plus the derived loss and kernel distance, on generic nets and
  on starts where the closed form must fall back to the march (all or part of the times).
* the λ-balanced views' main callback exactly as the server runs it (``View.update``: the
  controls parsed, the result computed or read from the result cache, every panel drawn and
  packed): "slider" empties the result cache first (any slider, the map's t among them, is a
  new result); "from the result cache" repeats a request (another student on the same
  settings, or a display-only switch such as the map's labels), which only draws.

Prints median and 95th percentile wall time per call; the machine is shared and noisy, so
medians are the figures to quote. BLAS runs single-threaded and glibc keeps freed memory, as
in the dashboard (``app/__init__.py``, ``app/factory.py``).
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere

import _markdown  # noqa: E402  (benchmarks/_markdown.py, beside this script)
import numpy as np  # noqa: E402
import scipy  # noqa: E402

from app.cache import ResultCache  # noqa: E402
from app.memory import keep_freed_memory  # noqa: E402
from app.views.lambda_balanced import MAP, TRAJECTORY  # noqa: E402
from app.views.lambda_balanced import map as lambda_map  # noqa: E402
from solvers import lambda_balanced as lb  # noqa: E402
from solvers._riccati import DecayingForm  # noqa: E402

HORIZON = 1e4
POINTS = 1000


@contextmanager
def march_only():
    """The restarted march at every time, as before the closed form."""
    limit = DecayingForm.CONDITION_LIMIT
    DecayingForm.CONDITION_LIMIT = 0.0
    try:
        yield
    finally:
        DecayingForm.CONDITION_LIMIT = limit


def timed(function, repeats: int) -> tuple[float, float]:
    """(median, 95th percentile) wall time in milliseconds."""
    function()  # warm caches and lazy imports
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return 1e3 * float(np.median(samples)), 1e3 * float(np.percentile(samples, 95))


def trajectory(dims, lam, *, task=None, scale=0.1, reflect=False):
    """``exact`` (+ loss and kernel distance) on a 1000-point grid to t = 1e4."""
    d_in, hidden, d_out = dims
    sigma_yx = lb.random_task(d_in, d_out, 0) if task is None else task
    W1, W2 = lb.balanced_init(d_in, hidden, d_out, lam, scale, seed=0)
    if reflect:  # det W₂W₁ of the wrong sign: on (λ = 0) or near a saddle's stable manifold
        W2 = np.diag([-1.0, *np.ones(d_out - 1)]) @ W2
    t = np.linspace(0.0, HORIZON, POINTS)

    def run():
        path = lb.exact(W1, W2, sigma_yx, t)
        return path.loss, path.kernel_distance

    return run


def trajectory_cases():
    hierarchy = lb.hierarchical_task()
    deficient = np.diag([1.0, 0.5, 0.0])  # a zero rate at λ = 0: no closed form at all
    return [
        ("square 3→3→3, λ = 1", trajectory((3, 3, 3), 1.0)),
        ("square 3→3→3, λ = −3", trajectory((3, 3, 3), -3.0)),
        ("square 3→3→3, λ = 10", trajectory((3, 3, 3), 10.0)),
        ("square 8→8→8 hierarchy, λ = 1", trajectory((8, 8, 8), 1.0, task=hierarchy, scale=0.01)),
        ("funnel 4→2→2, λ = −5 (growing slow modes)", trajectory((4, 2, 2), -5.0)),
        ("inverted funnel 2→2→4, λ = 5", trajectory((2, 2, 4), 5.0)),
        ("fallback: near a saddle, λ = 1e-6 (early t)", trajectory((3, 3, 3), 1e-6, reflect=True)),
        ("fallback: on a saddle, λ = 0 (every t)", trajectory((3, 3, 3), 0.0, reflect=True)),
        ("fallback: zero rate, λ = 0 (every t)", trajectory((3, 3, 3), 0.0, task=deficient)),
    ]


def map_settings():
    """The map's default settings, its largest grid (every size at its cap) and the hierarchy."""
    spec = MAP.spec
    largest = {
        "t": spec.by_name["t"].high,
        "spread": lambda_map.LAMBDA_LIMIT,
        "count": lambda_map.MAX_LAMBDAS,
        "threshold": spec.by_name["threshold"].low,
        "scale_map": "funnel",
        "scale_rows": lambda_map.MAX_SCALE_ROWS,
    }
    default = spec.defaults()
    return [
        (f"default ({default.count} λ × 3 shapes)", default),
        (
            f"largest ({lambda_map.MAX_LAMBDAS} λ × 3 + λ × scale "
            f"{lambda_map.SCALE_COLUMNS} × {lambda_map.MAX_SCALE_ROWS})",
            spec.with_overrides(largest),
        ),
        (
            f"hierarchy 8→8→8 ({lambda_map.MAX_LAMBDAS} λ)",
            spec.with_overrides({"task": "hierarchy", "count": lambda_map.MAX_LAMBDAS}),
        ),
    ]


def trajectory_settings():
    """The trajectory view's defaults, a Fig. 4 hierarchy and its largest request."""
    spec = TRAJECTORY.spec
    largest = {
        "shape": "any",
        "d_in": 10,
        "hidden": 10,
        "d_out": 10,
        "lam": 20.0,
        "scale": 10.0,
        "horizon": 1000.0,
        "lr": 0.001,
        "log_time": True,
    }
    fig_4 = next(
        p for p in TRAJECTORY.presets if p.slug == "fig-4-semantic-hierarchy-lambda-0-rich"
    )
    return [
        ("default (3→3→3, gradient descent)", spec.defaults()),
        ("Fig. 4 hierarchy 8→8→8, λ = 0", spec.with_overrides(fig_4.values)),
        ("largest (10→10→10, t ≤ 1000, 2,000 GD steps)", spec.with_overrides(largest)),
    ]


def callback(view, controls, *, cached: bool):
    """The view's main callback as the server runs it, from the result cache or not."""
    cache = ResultCache.in_memory()
    raw = view.spec.to_controls(controls)

    def run():
        if not cached:  # a slider moved: a result nobody asked for yet
            cache.cache.clear()
        return view.update(cache, None, raw, {})

    return run


def callback_cases():
    rows = []
    for view, settings in ((MAP, map_settings()), (TRAJECTORY, trajectory_settings())):
        name = "map" if view.is_map else "trajectory"
        for label, controls in settings:
            rows.append((f"{name} {label}, slider", callback(view, controls, cached=False)))
        label, controls = settings[0]
        rows.append(
            (f"{name} {label}, from the result cache", callback(view, controls, cached=True))
        )
    return rows


def compare(rows, repeats: int) -> None:
    print(f"{'case':62s} {'march':>15s}   {'new':>15s}   {'ratio':>6s}")
    print(f"{'':62s} {'median':>7s} {'p95':>7s}   {'median':>7s} {'p95':>7s}   {'median':>6s}")
    for label, function in rows:
        with march_only():
            old = timed(function, repeats)
        new = timed(function, repeats)
        print(
            f"{label:62s} {old[0]:7.2f} {old[1]:7.2f}   {new[0]:7.2f} {new[1]:7.2f}"
            f"   {old[0] / new[0]:5.1f}×"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    _markdown.add_option(parser)
    options = parser.parse_args()
    repeats = options.repeats
    _markdown.start(options.markdown)
    tuned = keep_freed_memory()
    print(f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}")
    print(
        f"BLAS threads: {os.environ['OPENBLAS_NUM_THREADS']}; keep_freed_memory: {tuned}; "
        f"{repeats} repeats; ms per call\n"
    )
    print(f"lambda_balanced.exact, {POINTS} points on [0, {HORIZON:g}] (+ loss, kernel distance)")
    compare(trajectory_cases(), repeats)
    print("\nλ-balanced views' main callback (View.update)")
    compare(callback_cases(), max(5, repeats // 3))


if __name__ == "__main__":
    main()
