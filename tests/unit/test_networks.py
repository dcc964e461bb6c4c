"""Batched network engine: gradients and NTK against finite differences, batches against their
cells one by one, the recorded diagnostics against their definitions, divergence, data sets,
initialisations and bad input."""

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvers import networks as nw
from solvers.networks import _request, _train
from tests import examples

RNG = np.random.default_rng(20240611)

DEPTHS = {2: [3, 6, 2], 3: [3, 5, 4, 2], 4: [2, 4, 3, 5, 1]}


def _perturbed(net: nw.Network, layer: int, index: tuple, step: float) -> nw.Network:
    weights = [np.array(W) for W in net.weights]
    weights[layer][index] += step
    return nw.Network(tuple(weights), net.activation, net.gamma)


def _central_difference(function, net: nw.Network, step: float = 1e-6) -> list[np.ndarray]:
    """d function(net)/dW for every weight by central differences (function returns an array)."""
    derivatives = []
    for layer, W in enumerate(net.weights):
        columns = []
        for index in np.ndindex(W.shape):
            plus = function(_perturbed(net, layer, index, step))
            minus = function(_perturbed(net, layer, index, -step))
            columns.append((plus - minus) / (2 * step))
        derivatives.append(
            np.moveaxis(np.array(columns), 0, -1).reshape(*columns[0].shape, *W.shape)
        )
    return derivatives


def _labels(shape) -> np.ndarray:
    return np.where(RNG.standard_normal(shape) > 0, 1.0, -1.0)


@pytest.mark.parametrize("activation", nw.ACTIVATIONS)
@pytest.mark.parametrize("depth", sorted(DEPTHS))
@pytest.mark.parametrize("loss", ["mse", "bce"])
def test_gradient_matches_central_differences(activation, depth, loss):
    widths = DEPTHS[depth]
    net = nw.gaussian_init(widths, sigma=1.4, gamma=0.7, activation=activation, seed=depth)
    X = RNG.standard_normal((7, widths[0]))
    y = _labels((7, widths[-1]))
    analytic = nw.gradient(net, X, y, loss=loss)
    numeric = _central_difference(lambda n: nw.loss_value(n, X, y, loss=loss), net)
    for mine, reference in zip(analytic, numeric, strict=True):
        assert mine.shape == reference.shape
        assert np.allclose(mine, reference, rtol=1e-6, atol=1e-8), np.abs(mine - reference).max()


def test_gradient_of_a_batch_is_the_gradient_of_each_cell():
    net = nw.gaussian_init([3, 5, 2], sigma=np.array([[0.5], [1.0], [2.0]]), activation="tanh")
    X = RNG.standard_normal((6, 3))
    y = RNG.standard_normal((3, 6, 2))  # batched targets
    grads = nw.gradient(net, X, y)
    for cell in range(3):
        single = nw.gradient(net.cell(cell), X, y[cell])
        for batched, one in zip(grads, single, strict=True):
            assert np.allclose(batched[cell], one, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("activation", nw.ACTIVATIONS)
@pytest.mark.parametrize("depth", sorted(DEPTHS))
def test_ntk_is_the_learning_rate_weighted_jacobian_product(activation, depth):
    widths = DEPTHS[depth]
    net = nw.gaussian_init(widths, sigma=1.2, gamma=1.3, activation=activation, seed=7 + depth)
    X = RNG.standard_normal((5, widths[0]))
    rates = list(RNG.uniform(0.3, 2.0, depth))
    kernel = nw.ntk(net, X, layer_lrs=rates)
    # Jacobian of the sample-major outputs (μ·d_out + c) by central differences
    jacobians = _central_difference(lambda n: nw.forward(n, X).reshape(-1), net)
    explicit = sum(
        rate * J.reshape(J.shape[0], -1) @ J.reshape(J.shape[0], -1).T
        for rate, J in zip(rates, jacobians, strict=True)
    )
    assert kernel.shape == (5 * widths[-1], 5 * widths[-1])
    assert np.allclose(kernel, explicit, rtol=1e-6, atol=1e-7 * np.abs(explicit).max())


def test_ntk_of_a_batch_is_the_ntk_of_each_cell():
    tau = np.array([0.3, 1.0, 2.0])
    net = nw.kunin_init(3, 8, tau=tau[:, None], delta=np.array([-0.5, 0.5]), seed=1)
    X = RNG.standard_normal((4, 3))
    kernels = nw.ntk(net, X, layer_lrs=[np.array([1.0, 2.0]), 0.5])
    for i, j in np.ndindex(3, 2):
        single = nw.ntk(net.cell((i, j)), X, layer_lrs=[[1.0, 2.0][j], 0.5])
        assert np.allclose(kernels[i, j], single, rtol=1e-13, atol=1e-15)


def test_forward_matches_an_explicit_two_layer_sum():
    net = nw.kunin_init(2, 6, tau=0.8, delta=0.3, seed=4)
    X = RNG.standard_normal((9, 2))
    W, a = net.weights[0], net.weights[1][0]
    explicit = np.array([sum(a[i] * max(W[i] @ x, 0.0) for i in range(6)) for x in X])
    assert np.allclose(nw.forward(net, X)[:, 0], explicit, atol=1e-15)


# -- training: batches, records, divergence ------------------------------------------------------


def _assert_same_training(batched: nw.Training, cell, single: nw.Training, rtol=1e-12):
    fields = ["loss", "test_loss", "kernel_distance", "alignment", "kernel_norm", "zeta"]
    fields += ["activation_distance", "parameter_distance"]
    for field in fields:
        mine, reference = getattr(batched, field), getattr(single, field)
        if reference is None:
            assert mine is None
            continue
        scale = np.abs(reference).max() + 1e-300
        assert np.allclose(mine[cell], reference, rtol=rtol, atol=rtol * scale), field
    for mine, reference in zip(batched.final.weights, single.final.weights, strict=True):
        assert np.allclose(mine[cell], reference, rtol=rtol, atol=1e-15)
    assert int(np.asarray(batched.diverged_at)[cell]) == single.diverged_at


def test_a_tau_delta_grid_equals_its_cells_trained_one_by_one():
    X, y, X_test, y_test = nw.teacher_student(2, 3, 12, n_test=15, seed=3)
    taus = np.array([0.2, 0.7, 1.5])
    deltas = np.array([-1.0, 0.0, 1.0])
    net = nw.kunin_init(2, 10, tau=taus[:, None], delta=deltas[None, :], seed=3)
    lr = 0.2 / taus[:, None] ** 2  # Kunin et al.'s lr ∝ 1/τ², broadcast over δ
    batched = nw.train(net, X, y, lr=lr, steps=150, X_test=X_test, y_test=y_test)
    assert batched.loss.shape == (3, 3, batched.steps.size)
    assert batched.t.shape == (3, 3, batched.steps.size)
    for cell in np.ndindex(3, 3):
        single = nw.train(
            net.cell(cell), X, y, lr=float(lr[cell[0], 0]), steps=150, X_test=X_test, y_test=y_test
        )
        _assert_same_training(batched, cell, single)


def test_a_deep_sigma_gamma_sweep_with_batched_data_equals_its_cells(monkeypatch):
    # Tiny chunks and kernel blocks: the chunking must not change any cell's result.
    monkeypatch.setattr(_request, "CHUNK_BUDGET", 2000)
    monkeypatch.setattr(_request, "KERNEL_BLOCK", 10)
    sigmas = np.array([[0.5], [1.0], [1.5], [2.0]])
    net = nw.gaussian_init(
        [3, 6, 5, 2], sigma=sigmas, gamma=np.array([0.5, 1, 2, 1]), seed=8, activation="swish"
    )
    X = RNG.standard_normal((4, 8, 3))  # a data set per cell
    y = RNG.standard_normal((4, 8, 2))
    rates = [1.0, np.array([0.5, 1.0, 1.5, 2.0]), 0.7]
    batched = nw.train(net, X, y, lr=0.05, steps=60, layer_lrs=rates, record=[0, 7, 30, 60])
    assert batched.zeta.shape == (4, 4, 2)
    for cell in range(4):
        single = nw.train(
            net.cell(cell),
            X[cell],
            y[cell],
            lr=0.05,
            steps=60,
            layer_lrs=[1.0, float(rates[1][cell]), 0.7],
            record=[0, 7, 30, 60],
        )
        _assert_same_training(batched, cell, single)


@settings(max_examples=examples(15), deadline=None)
@given(
    st.sampled_from(nw.ACTIVATIONS),
    st.lists(st.integers(1, 5), min_size=1, max_size=3),
    st.integers(1, 4),
    st.sampled_from(["mse", "bce"]),
    st.integers(0, 2**31 - 1),
)
def test_any_batch_equals_its_cells(activation, hidden, cells, loss, seed):
    rng = np.random.default_rng(seed)
    widths = [int(rng.integers(1, 4)), *hidden, int(rng.integers(1, 3))]
    net = nw.gaussian_init(
        widths, sigma=rng.uniform(0.3, 2.0, (cells, 1)), activation=activation, seed=seed
    )
    X = rng.standard_normal((6, widths[0]))
    y = np.where(rng.standard_normal((6, widths[-1])) > 0, 1.0, -1.0)
    lr = rng.uniform(0.01, 3.0, cells)  # some cells may diverge
    batched = nw.train(net, X, y, lr=lr, steps=40, loss=loss, record=[0, 1, 13, 40])
    for cell in range(cells):
        single = nw.train(
            net.cell(cell), X, y, lr=float(lr[cell]), steps=40, loss=loss, record=[0, 1, 13, 40]
        )
        _assert_same_training(batched, cell, single, rtol=1e-11)


def test_records_match_their_definitions_on_the_final_network():
    net = nw.gaussian_init([3, 7, 6, 2], sigma=1.5, gamma=0.8, activation="leaky_relu", seed=5)
    X, X_test = RNG.standard_normal((9, 3)), RNG.standard_normal((5, 3))
    y, y_test = RNG.standard_normal((9, 2)), RNG.standard_normal((5, 2))
    rates = [0.5, 1.0, 2.0]
    run = nw.train(net, X, y, lr=0.05, steps=80, layer_lrs=rates, X_test=X_test, y_test=y_test)
    final = run.final
    assert run.steps[0] == 0 and run.steps[-1] == 80 and np.allclose(run.t, run.steps * 0.05)
    outputs = nw.forward(final, X)
    assert np.isclose(run.loss[-1], np.sum((outputs - y) ** 2) / (2 * 9), rtol=1e-12)
    test_outputs = nw.forward(final, X_test)
    assert np.isclose(run.test_loss[-1], np.sum((test_outputs - y_test) ** 2) / 10, rtol=1e-12)
    # kernel distance, alignment and norm from the NTK of the initial and final networks
    K0, K = nw.ntk(net, X, layer_lrs=rates), nw.ntk(final, X, layer_lrs=rates)
    cosine = np.sum(K0 * K) / (np.linalg.norm(K0) * np.linalg.norm(K))
    assert np.isclose(run.kernel_distance[-1], 1 - cosine, rtol=1e-9, atol=1e-14)
    flat = y.reshape(-1)
    assert np.isclose(run.alignment[-1], flat @ K @ flat / (np.linalg.norm(K) * flat @ flat))
    assert np.isclose(run.kernel_norm[-1], np.linalg.norm(K))
    # ζ with the matrix 2-norm (SVD), activation and parameter distances
    W1, W2, W3 = final.weights
    zeta = [
        np.linalg.norm(W2 @ W1, 2) / (np.linalg.norm(W2, 2) * np.linalg.norm(W1, 2)),
        np.linalg.norm(W3 @ W2, 2) / (np.linalg.norm(W3, 2) * np.linalg.norm(W2, 2)),
    ]
    assert np.allclose(run.zeta[-1], zeta, rtol=1e-12)

    def pre_activations(weights):
        first = X @ weights[0].T
        second = np.where(first > 0, first, 0.01 * first) @ weights[1].T
        return np.concatenate([first, second], axis=1)

    changed = np.mean((pre_activations(final.weights) > 0) != (pre_activations(net.weights) > 0))
    assert np.isclose(run.activation_distance[-1], changed)
    distance = np.sqrt(
        sum(np.sum((a - b) ** 2) for a, b in zip(final.weights, net.weights, strict=True))
    )
    assert np.isclose(run.parameter_distance[-1], distance, rtol=1e-12)
    assert run.activation_distance[0] == 0 and run.parameter_distance[0] == 0
    assert abs(run.kernel_distance[0]) < 1e-15


def test_bce_training_lowers_the_logistic_loss_of_two_gaussians():
    X, y = nw.two_gaussians(40, seed=1)
    net = nw.gaussian_init([1, 20, 1], sigma=1.0, activation="sigmoid", seed=2)
    run = nw.train(net, X, y, lr=0.5, steps=300, loss="bce")
    assert run.objective == "bce"
    assert np.isclose(run.loss[0], np.mean(np.logaddexp(0, -y * nw.forward(net, X))))
    assert run.loss[-1] < 0.5 * run.loss[0]


def test_default_record_is_log_spaced_with_both_ends():
    record = nw.default_record(100_000)
    assert record[0] == 0 and record[-1] == 100_000 and 195 <= record.size <= 205
    assert np.all(np.diff(record) > 0)
    assert np.array_equal(nw.default_record(50), np.arange(51))


def test_divergence_freezes_the_cell_and_the_others_go_on():
    X, y = nw.teacher_student(3, 2, 10, seed=2)
    net = nw.kunin_init(3, 8, tau=np.array([1.0, 1.0, 1.0]), delta=0.0, seed=2)
    lr = np.array([0.05, 30.0, 400.0])
    run = nw.train(net, X, y, lr=lr, steps=200, record=np.arange(0, 201, 5))
    assert run.diverged_at[0] == -1
    assert 0 < run.diverged_at[1] <= 200 and 0 < run.diverged_at[2] <= 200
    for field in ("loss", "kernel_distance", "alignment", "kernel_norm", "zeta", "t"):
        assert np.all(np.isfinite(getattr(run, field))), field
    assert np.all(run.loss <= nw.DIVERGENCE_FACTOR * run.loss[:, :1])
    for cell in (1, 2):
        stop = run.diverged_at[cell]
        # the frozen state is the state after stop − 1 steps, and later records repeat it
        before = nw.train(net.cell(cell), X, y, lr=float(lr[cell]), steps=stop - 1, record=[0])
        for frozen, reference in zip(run.final.weights, before.final.weights, strict=True):
            assert np.array_equal(frozen[cell], reference)
        after = run.steps >= stop
        assert np.all(run.loss[cell, after] == run.loss[cell, after][0])
    single = nw.train(net.cell(0), X, y, lr=0.05, steps=200, record=np.arange(0, 201, 5))
    _assert_same_training(run, 0, single)


def test_a_single_diverging_network_reports_the_step():
    X, y = nw.xor(20, seed=0)
    net = nw.gaussian_init([2, 10, 1], sigma=2.0, seed=0)
    run = nw.train(net, X, y, lr=100.0, steps=100)
    assert isinstance(run.diverged_at, int) and 0 < run.diverged_at <= 100
    assert all(np.all(np.isfinite(W)) for W in run.final.weights)
    assert np.all(np.isfinite(run.loss)) and np.all(np.isfinite(run.parameter_distance))


# -- initialisations and data sets ---------------------------------------------------------------


def test_kunin_init_sets_each_neurons_delta_and_scale_and_starts_at_zero():
    taus = np.array([0.1, 0.5, 2.0])
    deltas = np.array([-1.0, 0.0, 0.4, 1.0])
    net = nw.kunin_init(5, 12, tau=taus[:, None], delta=deltas[None, :], seed=9)
    W, a = net.weights[0], net.weights[1][..., 0, :]
    # δ itself (the appendix prints δ²): a_i² − ‖w_i‖² = δ for every neuron
    conserved = a**2 - np.sum(W**2, axis=-1)
    assert np.allclose(conserved, deltas[None, :, None], atol=1e-14)
    scale = np.abs(a) * np.linalg.norm(W, axis=-1)
    assert np.allclose(scale, taus[:, None, None] ** 2, rtol=1e-14)
    X = RNG.standard_normal((6, 5))
    # the symmetrised halves cancel (to rounding: the matmul sums them in its own order)
    assert np.all(np.abs(nw.forward(net, X)) < 1e-13)
    alpha = nw.alpha_from_tau_delta(taus[:, None], deltas[None, :])
    assert np.allclose(taus[:, None] ** 2 * (alpha**2 - alpha**-2), deltas[None, :], atol=1e-14)


def test_gaussian_init_scalings():
    widths = [4, 400, 300, 1]
    standard = nw.gaussian_init(widths, sigma=[1.0, 2.0, 0.5], gamma=2.0, seed=1)
    for W, sigma, fan_in in zip(standard.weights, [1.0, 2.0, 0.5], widths[:-1], strict=True):
        assert np.isclose(np.var(W) * fan_in / sigma**2, 1.0, atol=0.15)
    assert standard.gamma == 2.0
    ntk = nw.gaussian_init(widths, sigma=0.5, gamma=2.0, seed=1, scaling="ntk")
    field = nw.gaussian_init(widths, sigma=0.5, gamma=2.0, seed=1, scaling="mean_field")
    assert np.isclose(ntk.gamma, 2.0 / np.sqrt(300)) and np.isclose(field.gamma, 2.0 / 300)
    assert np.isclose(np.var(ntk.weights[-1]), 0.25, rtol=0.3)  # read-out variance O(1)
    assert np.allclose(ntk.weights[0], field.weights[0])  # hidden layers as standard
    swept = nw.gaussian_init([3, 5, 1], sigma=np.array([0.5, 1.0, 2.0])[:, None], seed=3)
    assert swept.batch_shape == (3,)
    assert np.allclose(swept.weights[0][2], 4 * swept.weights[0][0])


def test_data_sets():
    X, y, X_test, y_test = nw.teacher_student(4, 3, 30, n_test=10, seed=5)
    assert X.shape == (30, 4) and y.shape == (30, 1) and X_test.shape == (10, 4)
    assert np.allclose(np.linalg.norm(X, axis=1), 1) and np.all(y_test.shape == (10, 1))
    again = nw.teacher_student(4, 3, 30, n_test=10, seed=5)
    assert np.array_equal(again[1], y)
    X, y = nw.xor(50, seed=1)
    assert np.all(np.abs(X) <= 1) and np.array_equal(y[:, 0], np.sign(X[:, 0] * X[:, 1]))
    X, y = nw.two_gaussians(400, seed=2)
    assert X.shape == (400, 1) and np.sum(y == -1) == 200
    assert abs(X[y[:, 0] < 0].mean()) < 0.3 and abs(X[y[:, 0] > 0].mean() - 4) < 0.3


def test_digits():
    X, y = nw.digits([3, 8], n=50, seed=1)
    assert X.shape == (50, 64) and 0 <= X.min() and X.max() <= 1
    assert set(np.unique(y)) <= {-1.0, 1.0}
    X, y, X_test, _ = nw.digits(n=100, n_test=30)
    assert y.shape == (100, 10) and np.all(y.sum(axis=1) == 1) and X_test.shape == (30, 64)
    with pytest.raises(ValueError, match="classes"):
        nw.digits([3])
    with pytest.raises(ValueError, match="n"):
        nw.digits([0, 1], n=1000)


def test_importing_the_engine_does_not_import_scikit_learn():
    check = "import sys, solvers.networks\nassert 'sklearn' not in sys.modules\n"
    subprocess.run([sys.executable, "-c", check], check=True, cwd=_train.__file__.rsplit("/", 3)[0])


# -- bad input -----------------------------------------------------------------------------------


def _net() -> nw.Network:
    return nw.gaussian_init([2, 4, 1], seed=0)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: nw.Network((np.ones((4, 2)), np.ones((1, 3)))), r"weights\[1\]"),
        (lambda: nw.Network((np.full((4, 2), np.nan), np.ones((1, 4)))), r"weights\[0\]"),
        (lambda: nw.Network((np.ones((4, 2)),), activation="gelu"), "activation"),
        (lambda: nw.Network((np.ones((4, 2)),), gamma=0.0), "gamma"),
        (lambda: nw.Network((np.ones((3, 4, 2)), np.ones((2, 1, 4)))), "batch axes"),
        (lambda: nw.Network((np.ones((2000, 4, 2)),)), "at most"),
        (lambda: nw.forward(_net(), np.ones((5, 3))), "X"),
        (lambda: nw.train(_net(), np.ones((5, 2)), np.ones(5), lr=0.0, steps=3), "lr"),
        (lambda: nw.train(_net(), np.ones((5, 2)), np.ones(5), lr=-1.0, steps=3), "lr"),
        (lambda: nw.train(_net(), np.ones((5, 2)), np.ones(5), lr=0.1, steps=-1), "steps"),
        (lambda: nw.train(_net(), np.ones((5, 2)), np.ones(4), lr=0.1, steps=3), "y"),
        (
            lambda: nw.train(_net(), np.ones((5, 2)), np.ones(5) * 2, lr=0.1, steps=3, loss="bce"),
            "y",
        ),
        (
            lambda: nw.train(_net(), np.ones((5, 2)), np.ones(5), lr=0.1, steps=3, loss="hinge"),
            "loss",
        ),
        (
            lambda: nw.train(_net(), np.ones((5, 2)), np.ones(5), lr=0.1, steps=3, layer_lrs=[1]),
            "layer_lrs",
        ),
        (
            lambda: nw.train(_net(), np.ones((5, 2)), np.ones(5), lr=0.1, steps=3, record=[5]),
            "record",
        ),
        (
            lambda: nw.train(
                _net(), np.ones((5, 2)), np.ones(5), lr=0.1, steps=3, X_test=np.ones((2, 2))
            ),
            "y_test",
        ),
        (lambda: nw.train(_net(), np.ones((5, 2)), [1, 2, np.nan, 4, 5], lr=0.1, steps=3), "y"),
        (lambda: nw.train(_net(), np.ones((5, 2)), np.ones(5), lr=0.1, steps=10**7), "steps"),
        (
            lambda: nw.train(
                nw.gaussian_init([2, 2000, 1]),
                np.ones((2000, 2)),
                np.ones(2000),
                lr=0.1,
                steps=10**6,
                track_kernel=False,
            ),
            "floating-point",
        ),
        (lambda: nw.train(_net(), np.ones((1100, 2)), np.ones(1100), lr=0.1, steps=1), "n·d_out"),
        (lambda: nw.kunin_init(2, 7, tau=1.0, delta=0.0), "width"),
        (lambda: nw.kunin_init(2, 8, tau=0.0, delta=0.0), "tau"),
        (lambda: nw.kunin_init(2, 8, tau=1.0, delta=np.inf), "delta"),
        (lambda: nw.gaussian_init([2, 3, 1], scaling="xavier"), "scaling"),
        (lambda: nw.gaussian_init([2, 3, 1], sigma=-1.0), "sigma"),
        (lambda: nw.gaussian_init([2, 3, 1], sigma=[1.0, 2.0, 3.0]), "sigma"),
        (lambda: nw.gaussian_init([2]), "widths"),
        (lambda: nw.ntk(_net(), np.ones((3, 2)), layer_lrs=[1.0, -1.0]), r"layer_lrs\[1\]"),
        (lambda: nw.teacher_student(2, 3, 0), "n"),
        (lambda: nw.trains_compiled([2], "relu", 20), "widths"),
        (lambda: nw.trains_compiled([2, 0, 1], "relu", 20), "width"),
        (lambda: nw.trains_compiled([2, 5, 1], "gelu", 20), "activation"),
        (lambda: nw.trains_compiled([2, 5, 1], "relu", 0), "samples"),
        (lambda: nw.trains_compiled([2, 5, 1], "relu", 20, cells=10**6), "cells"),
    ],
)
def test_bad_input_raises_a_value_error_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_memory_is_bounded_by_the_chunk_not_the_batch(monkeypatch):
    # Each chunk's buffers and initial kernels must be freed when it ends: peak memory grows
    # with the records (a few numbers per cell), not with the number of chunks.
    import tracemalloc

    monkeypatch.setattr(_request, "CHUNK_BUDGET", 4 * (3 * 60 * 21 + 3 * 20 * 21 + 60 * 60))
    X, y = nw.teacher_student(3, 2, 60, seed=1)
    peaks = []
    for cells in (8, 64):
        net = nw.kunin_init(3, 20, tau=np.linspace(0.5, 1.5, cells), delta=0.0, seed=1)
        tracemalloc.start()
        nw.train(net, X, y, lr=0.05, steps=3, record=[0, 3])
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < 1.5 * peaks[0], peaks


# -- what the dashboard needs of a run: its weights, its progress, its cost ----------------------


def test_recorded_weights_are_the_weights_of_a_run_stopped_at_each_record():
    X, y = nw.xor(12, seed=2)
    net = nw.kunin_init(2, 6, tau=np.array([0.5, 1.5]), delta=np.array([[0.0], [0.4]]), seed=2)
    record = [0, 3, 10]
    run = nw.train(net, X, y, lr=0.05, steps=10, record=record, record_weights=True)
    assert [W.shape for W in run.weights] == [(2, 2, 3, 6, 2), (2, 2, 3, 1, 6)]
    for index, steps in enumerate(record):
        short = nw.train(net, X, y, lr=0.05, steps=steps, record=[0], track_kernel=False)
        for layer in range(2):
            assert np.array_equal(run.weights[layer][..., index, :, :], short.final.weights[layer])
    # and without the option nothing is kept
    assert nw.train(net, X, y, lr=0.05, steps=2).weights is None


def test_recorded_weights_of_a_diverged_cell_repeat_its_last_good_state():
    X, y = nw.teacher_student(2, 1, 8, seed=0)
    net = nw.gaussian_init([2, 5, 1], sigma=np.array([[1.0], [30.0]]), seed=0)
    run = nw.train(net, X, y, lr=0.5, steps=40, record=[0, 20, 40], record_weights=True)
    (stopped,) = np.flatnonzero(run.diverged_at >= 0)
    assert np.array_equal(run.weights[0][stopped, -1], run.final.weights[0][stopped])
    assert np.all(np.isfinite(run.weights[1]))


def test_recording_too_many_weights_is_refused():
    X, y = nw.xor(8, seed=0)
    net = nw.gaussian_init([2, 1024, 1024, 1], seed=0)
    with pytest.raises(ValueError, match="recording the weights"):
        nw.train(net, X, y, lr=0.1, steps=10, record=np.arange(5), record_weights=True)


def test_progress_rises_to_the_steps_over_every_chunk(monkeypatch):
    monkeypatch.setattr(_request, "CHUNK_BUDGET", 2000)  # several chunks of cells
    X, y = nw.teacher_student(2, 2, 10, seed=3)
    net = nw.kunin_init(2, 8, tau=np.linspace(0.5, 1.5, 12), delta=0.0, seed=3)
    heard = []
    plain = nw.train(net, X, y, lr=0.05, steps=300, record=[0, 300])
    run = nw.train(net, X, y, lr=0.05, steps=300, record=[0, 300], progress=heard.append)
    assert len(heard) > 20 and heard[0] == 0 and heard[-1] == 300
    assert all(isinstance(k, int) for k in heard) and heard == sorted(heard)
    assert np.array_equal(run.loss, plain.loss)  # listening changes nothing
    with pytest.raises(ValueError, match="progress"):
        nw.train(net, X, y, lr=0.05, steps=3, progress=5)


def test_training_work_counts_the_matmuls_of_steps_and_records():
    widths, n, tests = (3, 7, 5, 2), 11, 4
    # by hand: per step forward 2n Σ n_l n_{l−1}, weight gradients the same, back-propagation
    # 2n Σ_{l≥2} n_l n_{l−1}; per record the test forward pass and the NTK (P = n·d_out)
    products = [3 * 7, 7 * 5, 5 * 2]
    step = 2 * n * (2 * sum(products) + products[1] + products[2])
    test_step = 2 * tests * (2 * sum(products) + products[1] + products[2])
    size = n * 2
    kernel = 2 * (size**2 * 7 + n**2 * 3) + 2 * (size**2 * 5 + n**2 * 7)
    kernel += 2 * (size**2 * 2 + n**2 * 5)
    expected = 6 * (100 * step + 9 * (test_step / 3 + kernel))
    got = nw.training_work(widths, n, steps=100, records=9, tests=tests, cells=6)
    assert got == pytest.approx(expected, rel=1e-12)
    untracked = nw.training_work(widths, n, steps=100, records=9, track_kernel=False)
    assert untracked == pytest.approx(100 * step, rel=1e-12)
