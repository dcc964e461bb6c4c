"""How fast does the batched network engine train a grid of networks, against the same work one
network at a time, against the machine's matmul rate, and against the same loop in JAX? And
how much faster is the compiled step loop of small networks than the numpy loop, run side by
side on the same networks?

    python benchmarks/networks_speed.py [--repeats 5]

Prints median wall times over repeated runs (the machine is shared and noisy: medians are the
figures to quote); a batched run and its one-by-one counterpart alternate, so that both see the
same load. BLAS and XLA run single-threaded (set below, before numpy and jax are
imported), so every ratio compares one core with one core.

Work counted (matmul flops only, per network and gradient-descent step, widths n_0 … n_L,
n samples): forward 2·n·Σ n_l·n_{l−1}, weight gradients the same, back-propagation
2·n·Σ_{l≥2} n_l·n_{l−1}. "train only" rows record steps 0 and the last (the NTK twice);
"records" rows record the default ~200 log-spaced steps with every diagnostic (the NTK at each).
The JAX rows run the same analytic forward/backward over the same batch, without divergence
checks or records: a lower bound on the work of the engine's rows, which run compiled or in
numpy as the engine chooses (solvers/networks/_compiled.py: small steps, and ReLU networks of
one hidden layer on at most five inputs however many, compiled). The first JAX case is the
network view's default (one network), the second the map's (256), each for the 2,000 steps of
those defaults (the engine's time includes its checks of the arguments and its two records,
~0.4 ms a call).

"compiled / numpy" rows train the same networks (records 0 and the last only) once through the
compiled loop and once through the numpy loop, alternately; ratio = numpy time / compiled time
(above 1: compiled faster). The engine uses the compiled loop up to
``_compiled.MAX_STEP_FLOPS`` matmul flops per step of a chunk of networks, and for ReLU
networks of one hidden layer on at most ``_compiled.FUSED_MAX_INPUTS`` inputs whatever their
number.
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)

import argparse  # noqa: E402
import itertools  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere

import _markdown  # noqa: E402  (benchmarks/_markdown.py, beside this script)

from solvers import networks as nw  # noqa: E402
from solvers.networks import _compiled  # noqa: E402

STEPS = 500
#: the steps of the network view's and the map's default settings (the JAX comparisons at
#: those sizes train as long)
DEFAULT_STEPS = 2000


def median_time(function, repeats: int) -> float:
    """Median wall time in seconds (after one warm-up call)."""
    function()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return float(np.median(samples))


def paired_times(first, second, repeats: int, second_repeats: int) -> tuple[float, float]:
    """Median times of two functions run in alternation, so that both see the same load on a
    shared machine (``second`` only ``second_repeats`` times)."""
    first(), second()
    times: tuple[list[float], list[float]] = ([], [])
    for index in range(repeats):
        for samples, function, count in (
            (times[0], first, repeats),
            (times[1], second, second_repeats),
        ):
            if index < count:
                start = time.perf_counter()
                function()
                samples.append(time.perf_counter() - start)
    return float(np.median(times[0])), float(np.median(times[1]))


def matmul_rate(repeats: int) -> float:
    """Single-thread numpy matmul rate in GFLOP/s (1000 × 1000 by 1000 × 1000)."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((1000, 1000)), rng.standard_normal((1000, 1000))
    return 2e9 / median_time(lambda: a @ b, max(repeats, 5)) / 1e9


def step_flops(widths: tuple[int, ...], samples: int) -> float:
    products = [a * b for a, b in itertools.pairwise(widths)]
    return 2.0 * samples * (2 * sum(products) + sum(products[1:]))


def grid(d: int, h: int, n: int, cells: int, seed: int = 0):
    """A τ × δ teacher–student grid (Kunin et al. Fig. 1) of ``cells`` networks."""
    X, y = nw.teacher_student(d, 3, n, seed=seed)
    taus = np.geomspace(0.1, 2.0, 16)
    deltas = np.linspace(-1.0, 1.0, cells // 16)
    net = nw.kunin_init(d, h, tau=taus[:, None], delta=deltas[None, :], seed=seed)
    lr = np.broadcast_to(2e-3 / taus[:, None] ** 2, net.batch_shape)
    return net, X, y, lr


def single(d: int, h: int, n: int, seed: int = 0):
    """One teacher–student network of the network view's default sizes."""
    X, y = nw.teacher_student(d, 3, n, seed=seed)
    net = nw.kunin_init(d, h, tau=np.array([0.5]), delta=np.array([0.0]), seed=seed)
    return net, X, y, np.full(net.batch_shape, 2e-3 / 0.5**2)


def numpy_rows(name, d, h, n, cells, repeats, single_repeats, rate, rows):
    net, X, y, lr = grid(d, h, n, cells)
    cell_list = [(net.cell(index), float(lr[index])) for index in np.ndindex(net.batch_shape)]
    flops = cells * STEPS * step_flops(net.widths, n)
    results = {}
    for label, record in (("train only", [0, STEPS]), ("records", None)):

        def batched(record=record):
            return nw.train(net, X, y, lr=lr, steps=STEPS, record=record)

        def one_by_one(record=record):
            for cell, rate_ in cell_list:
                nw.train(cell, X, y, lr=rate_, steps=STEPS, record=record)

        t_batch, t_cells = paired_times(batched, one_by_one, repeats, single_repeats)
        results[label] = t_batch
        gflops = flops / t_batch / 1e9
        training = label == "train only"  # with records the NTKs dominate: no rate then
        rows.append(
            (
                f"{name}, {label}",
                f"{1e3 * t_batch:9.1f}",
                f"{1e3 * t_cells:9.1f}",
                f"{t_cells / t_batch:6.1f}×",
                f"{gflops:6.2f}" if training else "",
                f"{100 * gflops / rate:5.0f} %" if training else "",
            )
        )
    return net, X, y, lr, results


def jax_rows(name, net, X, y, lr, repeats, rows, steps=STEPS):
    """The same batched loop in JAX (float64), jitted and eager, each timed in alternation with
    the engine's "train only" run (compiled or numpy, as the engine chooses); ratio = JAX time /
    engine time. Checks that both end at the same weights."""
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    W1 = jnp.asarray(net.weights[0].reshape(-1, *net.weights[0].shape[-2:]))
    W2 = jnp.asarray(net.weights[1].reshape(-1, *net.weights[1].shape[-2:]))
    Xj, yj = jnp.asarray(X), jnp.asarray(y)
    rates = jnp.asarray(np.ascontiguousarray(lr).reshape(-1))[:, None, None]
    samples = X.shape[0]

    def step(weights):
        first, second = weights
        z = jnp.matmul(Xj, jnp.swapaxes(first, 1, 2))  # (C, n, h)
        a = jnp.maximum(z, 0.0)
        f = jnp.matmul(a, jnp.swapaxes(second, 1, 2))  # (C, n, 1)
        residual = (f - yj) / samples
        grad_second = jnp.matmul(jnp.swapaxes(residual, 1, 2), a)
        below = residual * second * (z > 0)
        grad_first = jnp.matmul(jnp.swapaxes(below, 1, 2), Xj)
        return first - rates * grad_first, second - rates * grad_second

    def eager():
        weights = (W1, W2)
        for _ in range(steps):
            weights = step(weights)
        return jax.block_until_ready(weights)

    loop = jax.jit(lambda w: jax.lax.fori_loop(0, steps, lambda _, state: step(state), w))

    def jitted():
        return jax.block_until_ready(loop((W1, W2)))

    def numpy_run():  # the engine as it runs these networks: compiled or numpy
        return nw.train(net, X, y, lr=lr, steps=steps, record=[0, steps])

    start = time.perf_counter()
    final = jitted()
    compile_time = time.perf_counter() - start
    reference = numpy_run().final.weights
    difference = max(
        float(np.max(np.abs(np.asarray(mine).reshape(ref.shape) - ref)))
        for mine, ref in zip(final, reference, strict=True)
    )
    for label, function, count in (("JAX jit", jitted, repeats), ("JAX eager", eager, 3)):
        elapsed, numpy_time = paired_times(function, numpy_run, count, count)
        rows.append(
            (
                f"{name}, {label}",
                f"{1e3 * elapsed:9.1f}",
                "",
                f"{elapsed / numpy_time:6.2f}×",
                "",
                "",
            )
        )
    rows.append(
        (
            f"{name}, JAX jit first call (compile); max |W_jax − W_numpy| = {difference:.1e}",
            f"{1e3 * compile_time:9.1f}",
            "",
            "",
            "",
            "",
        )
    )


#: (name, widths, samples, cells, activation): from the network view's default up to sizes
#: where numpy's batched matmuls win
LOOP_CASES = (
    ("network view default: d=2, h=50, n=20", (2, 50, 1), 20, 1, "relu"),
    ("tanh, d=2, h=50, n=20", (2, 50, 1), 20, 1, "tanh"),
    ("Xu & Ziyin Fig. 1: d=1, h=200, n=100", (1, 200, 1), 100, 1, "relu"),
    ("depth 4: d=2, h=50, n=20", (2, 50, 50, 50, 1), 20, 1, "relu"),
    ("16 networks: d=2, h=50, n=20", (2, 50, 1), 20, 16, "relu"),
    ("64 networks: d=2, h=50, n=20", (2, 50, 1), 20, 64, "relu"),
    ("the map's default, 256 networks: d=2, h=50, n=20", (2, 50, 1), 20, 256, "relu"),
    ("64 networks, depth 3: d=2, h=50, n=20", (2, 50, 50, 1), 20, 64, "relu"),
    ("64 networks: d=5, h=50, n=50", (5, 50, 1), 50, 64, "relu"),
    ("digits: d=64, h=50, n=100", (64, 50, 1), 100, 1, "relu"),
    ("digits, width 200: d=64, h=200, n=100", (64, 200, 1), 100, 1, "relu"),
)


def compiled_rows(repeats: int, rows) -> None:
    """The compiled loop against the numpy loop on the same networks, timed alternately."""
    rng = np.random.default_rng(0)
    limit, fused = _compiled.MAX_STEP_FLOPS, _compiled.FUSED_MAX_INPUTS
    for name, widths, n, cells, activation in LOOP_CASES:
        weights = tuple(
            rng.standard_normal((cells, b, a)) / np.sqrt(a) for a, b in itertools.pairwise(widths)
        )
        net = nw.Network(weights, activation, 1.0)
        X, y = rng.standard_normal((n, widths[0])), rng.standard_normal((n, 1))
        steps = 2000

        def run(compiled: bool, net=net, X=X, y=y, steps=steps) -> None:
            _compiled.MAX_STEP_FLOPS = np.inf if compiled else 0.0
            _compiled.FUSED_MAX_INPUTS = fused if compiled else 0
            nw.train(net, X, y, lr=0.01, steps=steps, record=[0, steps], track_kernel=False)

        try:
            t_compiled, t_numpy = paired_times(
                lambda: run(True), lambda: run(False), repeats, repeats
            )
        finally:
            _compiled.MAX_STEP_FLOPS, _compiled.FUSED_MAX_INPUTS = limit, fused
        flops = cells * step_flops(widths, n)
        chosen = (
            "compiled" if _compiled.runs_compiled(widths, activation, cells, flops) else "numpy"
        )
        rows.append(
            (
                f"compiled / numpy, {name}: {flops:.2g} flops a step (engine: {chosen})",
                f"{1e6 * t_compiled / steps:9.1f}",
                f"{1e6 * t_numpy / steps:9.1f}",
                f"{t_numpy / t_compiled:6.1f}×",
                "",
                "",
            )
        )


def memory_row(rows) -> None:
    """Peak traced memory of the largest request a dashboard makes: a 16 × 16 τ × δ
    teacher–student grid, d = 20, h = 50, n = 200 (+ 200 test points), 1000 steps, ~200
    records with every diagnostic."""
    X, y, X_test, y_test = nw.teacher_student(20, 3, 200, n_test=200, seed=1)
    taus = np.geomspace(0.1, 2.0, 16)
    net = nw.kunin_init(20, 50, tau=taus[:, None], delta=np.linspace(-1, 1, 16), seed=1)
    lr = 2e-3 / taus[:, None] ** 2

    def request():
        return nw.train(net, X, y, lr=lr, steps=1000, X_test=X_test, y_test=y_test)

    start = time.perf_counter()
    run = request()
    elapsed = time.perf_counter() - start
    tracemalloc.start()  # a second run: tracing every allocation slows it down
    request()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rows.append(
        (
            f"dashboard request (16×16 grid, d=20, h=50, n=200+200, 1000 steps, "
            f"{run.steps.size} records): peak {peak / 2**20:.1f} MB (tracemalloc)",
            f"{1e3 * elapsed:9.1f}",
            "",
            "",
            "",
            "",
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    _markdown.add_option(parser)
    args = parser.parse_args()
    _markdown.start(args.markdown)
    repeats = args.repeats
    print(
        f"numpy {np.__version__}, Python {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, OPENBLAS_NUM_THREADS = {os.environ['OPENBLAS_NUM_THREADS']}; "
        f"{STEPS} steps per run; medians of {repeats} runs (one-by-one: of {max(repeats // 2, 1)})"
    )
    rate = matmul_rate(repeats)
    print(f"single-thread numpy matmul (1000×1000 @ 1000×1000): {rate:.1f} GFLOP/s\n")
    rows = []
    single_repeats = max(repeats // 2, 1)
    small = numpy_rows(
        "small: d=2, h=50, n=20, 256 cells", 2, 50, 20, 256, repeats, single_repeats, rate, rows
    )
    large = numpy_rows(
        "large: d=20, h=50, n=200, 64 cells", 20, 50, 200, 64, repeats, single_repeats, rate, rows
    )
    try:
        import jax  # noqa: F401
    except ImportError:
        rows.append(
            ("JAX rows skipped: jax is not installed (pip install jax)", "", "", "", "", "")
        )
    else:
        view = single(2, 50, 20)
        for name, (net, X, y, lr), steps in (
            (f"network view default, one network, {DEFAULT_STEPS} steps", view, DEFAULT_STEPS),
            (f"small (the map's default), {DEFAULT_STEPS} steps", small[:4], DEFAULT_STEPS),
            (f"large, {STEPS} steps", large[:4], STEPS),
        ):
            jax_rows(name, net, X, y, lr, repeats, rows, steps)
    if _compiled.AVAILABLE:
        compiled_rows(repeats, rows)
    else:
        rows.append(("compiled rows skipped: numba is not installed", "", "", "", "", ""))
    memory_row(rows)
    header = ("case", "batched ms", "1-by-1 ms", "ratio", "GFLOP/s", "of matmul")
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    print(
        "\nratio: one-by-one time / batched time for numpy rows; JAX time / the engine's "
        "'train only' time (timed alternately) for JAX rows (below 1: JAX faster); for "
        "'compiled / numpy' rows the columns are µs per step, compiled then numpy, and the "
        "ratio numpy / compiled."
    )


if __name__ == "__main__":
    main()
