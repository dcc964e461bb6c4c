"""The compiled step loop of small networks (solvers/networks/_compiled.py) against the numpy
loop it stands in for: the same trajectories, divergence steps and frozen states, the same
progress; and the engine without numba at all."""

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest

from solvers import networks as nw
from solvers.networks import _compiled

pytestmark = pytest.mark.skipif(not _compiled.AVAILABLE, reason="numba is not installed")

RNG = np.random.default_rng(20261124)
RECORD = np.unique(np.r_[np.arange(12), np.geomspace(12, 400, 30).astype(int)])
FIELDS = ("loss", "kernel_distance", "alignment", "zeta", "parameter_distance", "test_loss")


def _network(widths, activation, batch=(), gamma=0.8) -> nw.Network:
    weights = tuple(
        RNG.standard_normal((*batch, n_out, n_in)) / np.sqrt(n_in)
        for n_in, n_out in itertools.pairwise(widths)
    )
    return nw.Network(weights, activation, gamma)


def _both(monkeypatch, net, X, y, **options) -> tuple[nw.Training, nw.Training]:
    """The same call through the compiled loop and through numpy alone."""
    monkeypatch.setattr(_compiled, "MAX_STEP_FLOPS", np.inf)
    compiled = nw.train(net, X, y, **options)
    monkeypatch.setattr(_compiled, "MAX_STEP_FLOPS", 0.0)
    monkeypatch.setattr(_compiled, "FUSED_MAX_INPUTS", 0)
    return compiled, nw.train(net, X, y, **options)


def _assert_same_run(compiled: nw.Training, arrays: nw.Training, rtol: float) -> None:
    for name in FIELDS:
        a, b = getattr(compiled, name), getattr(arrays, name)
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * 1e-3, err_msg=name)
    # a pattern flips only for a pre-activation at rounding distance from 0: none here
    np.testing.assert_array_equal(compiled.activation_distance, arrays.activation_distance)
    for W_compiled, W_arrays in zip(compiled.final.weights, arrays.final.weights, strict=True):
        np.testing.assert_allclose(W_compiled, W_arrays, rtol=rtol, atol=rtol * 1e-3)
    np.testing.assert_array_equal(compiled.diverged_at, arrays.diverged_at)


@pytest.mark.parametrize("activation", nw.ACTIVATIONS)
@pytest.mark.parametrize("hidden", [(), (6,), (5, 4), (4, 5, 3)])
@pytest.mark.parametrize("loss", ["mse", "bce"])
def test_the_compiled_loop_follows_the_numpy_loop(monkeypatch, activation, hidden, loss):
    widths = (3, *hidden, 2)
    net = _network(widths, activation)
    X, X_test = RNG.standard_normal((9, 3)), RNG.standard_normal((5, 3))
    y, y_test = np.sign(RNG.standard_normal((9, 2))), np.sign(RNG.standard_normal((5, 2)))
    rates = [1.0] + [0.5] * (len(widths) - 2)
    compiled, arrays = _both(
        monkeypatch,
        net,
        X,
        y,
        lr=0.05,
        steps=400,
        loss=loss,
        layer_lrs=rates,
        record=RECORD,
        X_test=X_test,
        y_test=y_test,
    )
    assert compiled.loss[-1] < compiled.loss[0]  # it learned: the comparison is not of a no-op
    _assert_same_run(compiled, arrays, rtol=1e-9)


def test_a_batch_with_its_own_data_rates_and_gammas_per_cell(monkeypatch):
    cells = 4
    net = _network((2, 7, 1), "swish", batch=(cells,), gamma=np.array([0.5, 1.0, 2.0, 0.1]))
    X = RNG.standard_normal((cells, 6, 2))
    y = RNG.standard_normal((cells, 6, 1))
    lr = np.array([0.01, 0.03, 0.02, 0.2])
    layer_lrs = [np.array([1.0, 0.0, 2.0, 1.0]), 1.0]  # a frozen first layer in one cell
    compiled, arrays = _both(
        monkeypatch, net, X, y, lr=lr, steps=300, layer_lrs=layer_lrs, record=RECORD[:35]
    )
    _assert_same_run(compiled, arrays, rtol=1e-9)
    np.testing.assert_array_equal(compiled.final.weights[0][1], net.weights[0][1])


@pytest.mark.parametrize("budget", [2**21, 2**12])
def test_recorded_states_evaluated_in_blocks_give_each_record(monkeypatch, budget):
    """The compiled run evaluates its recorded states a block at a time (one block, or one or
    two records per block under a small budget); shared data with as many samples as cells must
    stay shared, not be taken for per-cell data."""
    from solvers.networks import _request

    monkeypatch.setattr(_request, "CHUNK_BUDGET", budget)
    cells = 6
    net = _network((2, 5, 3, 1), "leaky_relu", batch=(cells,), gamma=1.3)
    X, y = RNG.standard_normal((cells, 2)), RNG.standard_normal((cells, 1))
    X_test, y_test = RNG.standard_normal((4, 2)), RNG.standard_normal((4, 1))
    options = dict(lr=0.05, steps=120, X_test=X_test, y_test=y_test, record_weights=True)
    compiled, arrays = _both(monkeypatch, net, X, y, **options)
    _assert_same_run(compiled, arrays, rtol=1e-9)
    for W_compiled, W_arrays in zip(compiled.weights, arrays.weights, strict=True):
        np.testing.assert_allclose(W_compiled, W_arrays, rtol=1e-9, atol=1e-12)


def test_divergence_stops_the_same_cells_at_the_same_step_in_both_loops(monkeypatch):
    net = _network((2, 8, 1), "tanh", batch=(3,), gamma=1.0)
    X, y = RNG.standard_normal((10, 2)), 3 * RNG.standard_normal((10, 1))
    lr = np.array([0.05, 40.0, 400.0])  # the last two diverge, the first learns
    compiled, arrays = _both(monkeypatch, net, X, y, lr=lr, steps=200, record=np.arange(201))
    assert compiled.diverged_at[0] == -1 and min(compiled.diverged_at[1:]) > 0
    _assert_same_run(compiled, arrays, rtol=1e-9)
    for cell in (1, 2):  # frozen at the last good state: the records repeat it
        step = compiled.diverged_at[cell]
        assert np.all(compiled.loss[cell, step:] == compiled.loss[cell, step - 1])


def test_progress_rises_to_the_steps_in_the_compiled_loop(monkeypatch):
    monkeypatch.setattr(_compiled, "MAX_STEP_FLOPS", np.inf)
    heard = []
    net = _network((2, 5, 1), "relu")
    nw.train(
        net, RNG.standard_normal((4, 2)), np.ones(4), lr=0.1, steps=1000, progress=heard.append
    )
    assert heard == sorted(heard) and heard[-1] == 1000 and len(heard) >= 100


def test_the_engine_trains_without_numba():
    """numba is optional: with its import refused, training runs in numpy and gives the same
    trajectory as the compiled loop here."""
    script = (
        "import json, sys\n"
        "class Refuse:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('numba', 'llvmlite'):\n"
        "            raise ImportError('numba refused')\n"
        "sys.meta_path.insert(0, Refuse())\n"
        "import numpy as np\n"
        "from solvers import networks as nw\n"
        "from solvers.networks import _compiled\n"
        "assert not _compiled.AVAILABLE and not nw.compile_training_loop()\n"
        "rng = np.random.default_rng(3)\n"
        "net = nw.Network((rng.normal(size=(6, 2)), rng.normal(size=(1, 6))), 'relu', 1.0)\n"
        "run = nw.train(net, rng.normal(size=(5, 2)), rng.normal(size=5), lr=0.05, steps=300)\n"
        "print(json.dumps(run.loss.tolist()))\n"
        "assert 'numba' not in sys.modules\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    ).stdout
    rng = np.random.default_rng(3)
    net = nw.Network((rng.normal(size=(6, 2)), rng.normal(size=(1, 6))), "relu", 1.0)
    compiled = nw.train(net, rng.normal(size=(5, 2)), rng.normal(size=5), lr=0.05, steps=300)
    np.testing.assert_allclose(compiled.loss, json.loads(output), rtol=1e-10)


def test_small_steps_run_compiled_and_large_ones_in_numpy():
    """The thresholds sit where benchmarks/networks_speed.py shows the loops cross over
    (``nw.trains_compiled``, which the views' time estimates read)."""
    assert nw.compile_training_loop()

    def compiled(widths, samples, cells, activation="relu"):
        return nw.trains_compiled(widths, activation, samples, cells)

    assert compiled((2, 50, 1), 20, 1) and compiled((20, 50, 1), 20, 1)
    assert not compiled((64, 200, 1), 100, 1) and not compiled((20, 50, 1), 100, 64)
    # networks of one hidden layer on a few inputs (Kunin et al.'s maps at d = 2), however many
    assert compiled((2, 50, 1), 20, 256) and compiled((5, 200, 1), 100, 64)
    assert not compiled((2, 50, 50, 1), 20, 256)
    # but not with tanh (numpy's tanh on a batch is faster than one element at a time)
    assert compiled((2, 50, 1), 20, 1, "tanh") and not compiled((2, 50, 1), 20, 144, "tanh")


def test_a_map_of_many_small_networks_runs_compiled_as_numpy_does(monkeypatch):
    """256 networks of one hidden layer on two inputs (the map's default) take the fused
    compiled loop, whatever their number; it follows numpy's batched steps, cells that diverge
    included."""
    taus = np.geomspace(0.1, 2.0, 16)
    net = nw.kunin_init(2, 50, tau=taus[:, None], delta=np.linspace(-1, 1, 16), seed=4)
    X, y = nw.teacher_student(2, 3, 20, seed=4)
    lr = 5e-3 / taus[:, None] ** 2 * np.where(np.arange(16) % 5 == 0, 400.0, 1.0)
    options = dict(lr=lr, steps=300, record=[0, 10, 100, 300], track_kernel=False)
    monkeypatch.setattr(_compiled, "MAX_STEP_FLOPS", 0.0)  # the fused rule alone
    assert _compiled.runs_compiled(net.widths, net.activation, 256, np.inf)
    compiled = nw.train(net, X, y, **options)
    monkeypatch.setattr(_compiled, "FUSED_MAX_INPUTS", 0)
    arrays = nw.train(net, X, y, **options)
    assert 0 < np.sum(compiled.diverged_at > 0) < 256  # some diverge, most learn
    _assert_same_run(compiled, arrays, rtol=1e-9)
