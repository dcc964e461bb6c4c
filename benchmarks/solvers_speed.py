"""How fast is each exact solver at dashboard size, and how does the single neuron compare with
numerical integration on the same time grid?

    python benchmarks/solvers_speed.py [--repeats 50]

Prints median (and 90th-percentile) wall time per call over repeated runs; the machine is
shared and noisy, so medians are the figures to quote. "+ …" rows include the derived
quantities a dashboard plots (loss, kernel distance, …), not just the raw trajectory.

Every case runs twice: first with glibc's default allocator, then after
:func:`app.memory.keep_freed_memory` (which the dashboard enables at start-up), because
on a virtual machine fresh page faults for each 800 KB temporary can dominate the arithmetic.
"""

from __future__ import annotations

import argparse
import platform
import time

import _markdown
import numpy as np
import scipy
from scipy.integrate import solve_ivp

from app.memory import keep_freed_memory
from solvers import feature_evolution as fe
from solvers import finite_width as fw
from solvers import lambda_balanced as lb
from solvers import single_neuron as sn

TIMES = np.linspace(0.0, 20.0, 1000)


def timed(function, repeats: int) -> tuple[float, float]:
    """(median, 90th percentile) wall time in milliseconds."""
    function()  # warm caches and lazy imports
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return 1e3 * float(np.median(samples)), 1e3 * float(np.percentile(samples, 90))


def single_neuron_case(d: int):
    rng = np.random.default_rng(0)
    beta_star = rng.standard_normal(d)
    a0, w0 = sn.init_from_norm_delta(0.1, -1.0, rng.standard_normal(d))

    def exact():
        return sn.exact(a0, w0, beta_star, TIMES)

    def exact_and_metrics():
        path = exact()
        return path.beta, path.mu, path.phi, path.loss, path.kernel_distance

    def integrate(method: str):
        def rhs(_, state):
            a, w = state[0], state[1:]
            return np.concatenate([[w @ beta_star - a * (w @ w)], a * beta_star - a * a * w])

        return lambda: solve_ivp(
            rhs,
            (0.0, TIMES[-1]),
            np.concatenate([[a0], w0]),
            method=method,
            rtol=1e-10,
            atol=1e-10,
            t_eval=TIMES,
        )

    return exact, exact_and_metrics, integrate("RK45"), integrate("DOP853")


def finite_width_case(d: int, d0: int):
    u0, W0 = fw.gaussian_init(d, d0, 1.0, 1.0, seed=0)
    x = np.ones(d0) / np.sqrt(d0)

    def exact():
        path = fw.exact(u0, W0, x, 1.0, TIMES, gamma=1.0 / d)
        return path.zeta, path.loss, path.ntk, path.ntk_change, path.kernel_distance, path.u_norm

    return exact


def lambda_balanced_case(shape: tuple[int, int, int], lam: float, horizon: float = TIMES[-1]):
    d_in, hidden, d_out = shape
    sigma_yx = lb.hierarchical_task() if shape == (8, 8, 8) else lb.random_task(d_in, d_out, 0)
    W1, W2 = lb.balanced_init(d_in, hidden, d_out, lam, 0.1, seed=0)
    t = np.linspace(0.0, horizon, 1000)

    def exact():
        path = lb.exact(W1, W2, sigma_yx, t)
        return path.loss, path.kernel_distance

    return exact


def feature_evolution_case(samples: int):
    K0, y = fe.power_law_task(samples, 1.5, 1.2, seed=0)

    def exact():
        path = fe.exact(K0, y, TIMES, gamma=1.0)
        return path.loss, path.alignment

    return exact


def cases():
    """(label, callable, repeats divisor) for every benchmarked call."""
    rows = []
    for d in (2, 100):
        exact, with_metrics, rk45, dop853 = single_neuron_case(d)
        rows += [
            (f"single_neuron.exact, d = {d}", exact, 1),
            (f"single_neuron.exact, d = {d} (+ β, μ, φ, loss, S)", with_metrics, 1),
            (f"  solve_ivp RK45, rtol = atol = 1e-10, d = {d}", rk45, 7),
            (f"  solve_ivp DOP853, rtol = atol = 1e-10, d = {d}", dop853, 7),
        ]
    rows += [
        ("finite_width.exact, d = 100, d0 = 1 (+ ζ, loss, NTK, S)", finite_width_case(100, 1), 1),
        ("finite_width.exact, d = 100, d0 = 10 (+ …)", finite_width_case(100, 10), 1),
        ("finite_width.exact, d = 1000, d0 = 1 (+ …)", finite_width_case(1000, 1), 5),
        (
            "lambda_balanced.exact, hierarchical 8×8×8, λ = 1 (+ S)",
            lambda_balanced_case((8, 8, 8), 1.0),
            1,
        ),
        (
            "lambda_balanced.exact, funnel 4×2×2, λ = 5 (+ S)",
            lambda_balanced_case((4, 2, 2), 5.0),
            1,
        ),
        (
            "lambda_balanced.exact, funnel 4×2×2, λ = 50, t ∈ [0, 1000]",
            lambda_balanced_case((4, 2, 2), 50.0, 1000.0),
            1,
        ),
        ("feature_evolution.exact, P = 100 (+ loss, alignment)", feature_evolution_case(100), 1),
        ("feature_evolution.exact, P = 300 (+ …)", feature_evolution_case(300), 5),
    ]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    _markdown.add_option(parser)
    options = parser.parse_args()
    repeats = options.repeats
    _markdown.start(options.markdown)
    print(f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}")
    print(f"1000 time points in [0, 20] unless stated; {repeats} repeats; ms per call\n")
    rows = cases()
    default = [timed(function, max(3, repeats // divisor)) for _, function, divisor in rows]
    tuned_allocator = keep_freed_memory()
    tuned = [timed(function, max(3, repeats // divisor)) for _, function, divisor in rows]
    header = "default malloc" if not tuned_allocator else "default malloc    keep_freed_memory()"
    print(f"{'':60s} {header}")
    print(
        f"{'case':60s} {'median':>7s} {'p90':>7s}"
        + (f"   {'median':>7s} {'p90':>7s}" if tuned_allocator else "")
    )
    for (label, _, _), (median, p90), (median_t, p90_t) in zip(rows, default, tuned, strict=True):
        line = f"{label:60s} {median:7.2f} {p90:7.2f}"
        if tuned_allocator:
            line += f"   {median_t:7.2f} {p90_t:7.2f}"
        print(line)

    print("\nsingle neuron: exact (trajectory only) vs solve_ivp on the same grid, median ratio")
    medians = {
        label: (m, mt) for (label, _, _), (m, _), (mt, _) in zip(rows, default, tuned, strict=True)
    }
    for d in (2, 100):
        exact = medians[f"single_neuron.exact, d = {d}"]
        for method in ("RK45", "DOP853"):
            ode = medians[f"  solve_ivp {method}, rtol = atol = 1e-10, d = {d}"]
            ratios = f"{ode[0] / exact[0]:6.0f}×"
            if tuned_allocator:
                ratios += f"   {ode[1] / exact[1]:6.0f}× (keep_freed_memory)"
            print(f"  d = {d:3d}, {method:6s}: {ratios}")


if __name__ == "__main__":
    main()
