"""How fast are the phase portraits and parameter sweeps, and what would the same cells cost
one trajectory at a time?

    python benchmarks/portraits_speed.py [--repeats 30]

Prints median (and 90th-percentile) wall time per call over repeated runs; the machine is
shared and noisy, so medians are the figures to quote. Rows starting with "  per cell" call the
single-trajectory solver once per cell for the same grid (the reference the sweeps are tested
against), with fewer repeats.

BLAS runs single-threaded, as in the dashboard (``app/__init__.py``): these matrices are small,
and on a shared two-core machine OpenBLAS threads turn a 0.5 ms eigendecomposition into 100 ms
whenever another process holds a core. Set OPENBLAS_NUM_THREADS yourself to override.
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere

import _markdown  # noqa: E402  (benchmarks/_markdown.py, beside this script)
import numpy as np  # noqa: E402
import scipy  # noqa: E402

from app.memory import keep_freed_memory  # noqa: E402
from solvers import feature_evolution as fe  # noqa: E402
from solvers import finite_width as fw  # noqa: E402
from solvers import lambda_balanced as lb  # noqa: E402
from solvers import single_neuron as sn  # noqa: E402


def timed(function, repeats: int) -> tuple[float, float]:
    """(median, 90th percentile) wall time in milliseconds."""
    function()  # warm caches and lazy imports
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return 1e3 * float(np.median(samples)), 1e3 * float(np.percentile(samples, 90))


def portrait_cases():
    rng = np.random.default_rng(0)
    beta_star = rng.standard_normal(100)
    beta_star /= np.linalg.norm(beta_star)
    direction = rng.standard_normal(100)
    scales, deltas = np.geomspace(1e-3, 1e2, 64), np.linspace(-100.0, 100.0, 64)

    def at(t):
        return lambda: sn.portrait(scales, deltas, beta_star, direction, t)

    def per_cell():
        unit = direction / np.linalg.norm(direction)
        for tau in scales:
            for delta in deltas:
                a0, w0 = sn.init_from_beta(tau**2 * unit, delta, direction=unit)
                path = sn.exact(a0, w0, beta_star, [10.0])
                path.loss, path.kernel_distance  # noqa: B018

    return at(10.0), at(1e6), at(np.geomspace(0.1, 1e3, 16)), per_cell


def lambda_cases():
    lams = np.linspace(-10.0, 10.0, 41)

    def sweep():
        return lb.lambda_sweep(lams, 20.0, horizon=100.0, threshold=1e-2, scale=0.1)

    def per_cell():  # kernel distance and loss at t only (no threshold search)
        for d_in, hidden, d_out in lb.SHAPES.values():
            task = lb.random_task(d_in, d_out, 0)
            for lam in lams:
                W1, W2 = lb.balanced_init(d_in, hidden, d_out, lam, 0.1, 0)
                path = lb.exact(W1, W2, task, [20.0])
                path.loss, path.kernel_distance  # noqa: B018

    return sweep, per_cell


def gamma_cases():
    K0, y = fe.power_law_task(100, 1.5, 1.2, seed=0)
    gammas = np.geomspace(1e-3, 1e3, 100)

    def per_cell():
        for gamma in gammas:
            fe.final_alignment(K0, y, gamma)
            fe.top_eigenvector_overlap(K0, y, gamma)

    return (lambda: fe.gamma_sweep(K0, y, gammas)), per_cell


def width_cases():
    widths = np.unique(np.geomspace(1, 1e4, 40).astype(int))  # 37 widths up to 10⁴, 8 rows

    def per_cell():
        sweep = fw.width_sweep(widths)
        for row in range(len(sweep.schemes)):
            for column, d in enumerate(widths):
                u0, W0 = fw.gaussian_init(
                    int(d), 1, sweep.sigma_u[row, column], sweep.sigma_w[row, column], 0
                )
                eta = sweep.eta[row, column]
                t = [1e3 * sweep.t_c[row, column]]
                path = fw.exact(
                    u0, W0, sweep.x, 1.0, t, gamma=sweep.gamma[row, column], eta_u=eta, eta_w=eta
                )
                path.zeta, path.ntk_change  # noqa: B018

    return (lambda: fw.width_sweep(widths)), per_cell, widths.size


def cases():
    """(label, callable, repeats divisor) for every benchmarked call."""
    one_t, long_t, sixteen_t, portrait_cells = portrait_cases()
    lam_sweep, lam_cells = lambda_cases()
    gamma_sweep, gamma_cells = gamma_cases()
    width_sweep, width_cells, width_count = width_cases()
    return [
        ("single_neuron.portrait 64×64, d = 100, t = 10", one_t, 1),
        ("single_neuron.portrait 64×64, d = 100, t = 1e6", long_t, 1),
        ("single_neuron.portrait 64×64, d = 100, 16 times", sixteen_t, 1),
        ("  per cell: 4096 × (init_from_beta + exact + S, loss)", portrait_cells, 10),
        ("lambda_balanced.lambda_sweep 41 λ × 3 shapes (t = 20, horizon 100)", lam_sweep, 3),
        ("  per cell: 123 × (balanced_init + exact at t = 20 + S, loss)", lam_cells, 3),
        ("feature_evolution.gamma_sweep 100 γ, P = 100", gamma_sweep, 1),
        ("  per cell: 100 × (final_alignment + top_eigenvector_overlap)", gamma_cells, 3),
        (f"finite_width.width_sweep {width_count} widths ≤ 1e4 × 8 scalings", width_sweep, 1),
        (
            f"  per cell: {8 * width_count} × exact at t = 1000 t_c (+ ζ, NTK change)",
            width_cells,
            10,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    _markdown.add_option(parser)
    options = parser.parse_args()
    repeats = options.repeats
    _markdown.start(options.markdown)
    print(f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}")
    print(
        f"OPENBLAS_NUM_THREADS = {os.environ['OPENBLAS_NUM_THREADS']}, {os.cpu_count()} CPUs; "
        f"{repeats} repeats (fewer for 'per cell' rows); ms per call\n"
    )
    rows = cases()
    default = [timed(function, max(3, repeats // divisor)) for _, function, divisor in rows]
    tuned_allocator = keep_freed_memory()
    tuned = [timed(function, max(3, repeats // divisor)) for _, function, divisor in rows]
    header = "default malloc" if not tuned_allocator else "default malloc    keep_freed_memory()"
    print(f"{'':72s} {header}")
    print(
        f"{'case':72s} {'median':>7s} {'p90':>7s}"
        + (f"   {'median':>7s} {'p90':>7s}" if tuned_allocator else "")
    )
    for (label, _, _), (median, p90), (median_t, p90_t) in zip(rows, default, tuned, strict=True):
        line = f"{label:72s} {median:7.2f} {p90:7.2f}"
        if tuned_allocator:
            line += f"   {median_t:7.2f} {p90_t:7.2f}"
        print(line)


if __name__ == "__main__":
    main()
