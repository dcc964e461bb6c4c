"""Frozen-kernel flow against the matrix exponential and against gradient descent of a network
whose NTK cannot move; the feature-learning-rate fit against curves of known γ."""

import numpy as np
import pytest
import scipy.linalg

from solvers import feature_evolution as fe
from solvers import networks as nw

RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def one_blas_thread():
    """The fits run ~100 eigendecompositions of matrices a few dozen wide: BLAS threads only
    add contention there (the dashboard runs single-threaded for the same reason,
    app/__init__.py), and on a busy two-core machine they make each one ~50× slower.
    threadpoolctl comes with scikit-learn, which the digits need anyway."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - without it the tests are only slower
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def _psd(size: int, batch=()) -> np.ndarray:
    factor = RNG.standard_normal((*batch, size, size + 2))
    return factor @ np.swapaxes(factor, -1, -2) / size


def test_kernel_flow_matches_the_matrix_exponential():
    samples, d_out = 5, 2
    K0 = _psd(samples * d_out, batch=(3,))
    f0 = RNG.standard_normal((3, samples, d_out))
    y = RNG.standard_normal((samples, d_out))
    t = np.array([0.0, 0.3, 2.0, 40.0])
    flow = nw.kernel_flow(K0, f0, y, t)
    assert flow.shape == (3, 4, samples, d_out)
    for cell in range(3):
        for index, time in enumerate(t):
            # f' = −(1/n) K₀ (f − y) on the sample-major vector of outputs
            start = (f0[cell] - y).reshape(-1)
            expected = y.reshape(-1) + scipy.linalg.expm(-K0[cell] * time / samples) @ start
            assert np.allclose(flow[cell, index].reshape(-1), expected, atol=1e-12)


def test_kernel_flow_is_gradient_descent_of_a_network_with_a_frozen_first_layer():
    # With layer 1 frozen (η₁ = 0) the network is linear in its read-out, so its NTK stays K₀
    # and gradient descent tends to the frozen-kernel flow, with an error ∝ lr.
    X, y = nw.teacher_student(3, 2, 12, seed=4)
    net = nw.gaussian_init([3, 20, 1], sigma=1.0, gamma=1.5, seed=4)
    rates = [0.0, 1.0]
    K0 = nw.ntk(net, X, layer_lrs=rates)
    horizon = 4.0
    flow = nw.kernel_flow(K0, nw.forward(net, X), y, [horizon])[0]
    errors = []
    for lr in (0.02, 0.01):
        run = nw.train(net, X, y, lr=lr, steps=round(horizon / lr), layer_lrs=rates)
        assert np.allclose(run.kernel_distance, 0.0, atol=1e-14)
        assert np.array_equal(run.final.weights[0], net.weights[0])
        errors.append(np.max(np.abs(nw.forward(run.final, X) - flow)))
    assert errors[1] < 1e-2 * np.max(np.abs(flow))
    assert 1.8 < errors[0] / errors[1] < 2.2, errors


def test_kernel_flow_rejects_bad_input():
    K0 = _psd(4)
    with pytest.raises(ValueError, match="K0"):
        nw.kernel_flow(K0 + np.triu(np.ones((4, 4)), 1), np.zeros(4), np.ones(4), [1.0])
    with pytest.raises(ValueError, match="f0"):
        nw.kernel_flow(K0, np.zeros(3), np.ones(3), [1.0])
    with pytest.raises(ValueError, match="t"):
        nw.kernel_flow(K0, np.zeros(4), np.ones(4), [-1.0])
    with pytest.raises(ValueError, match="y"):
        nw.kernel_flow(K0, np.zeros(4), np.ones(3), [1.0])


@pytest.mark.parametrize(("gamma", "fit_time_scale"), [(0.05, True), (0.8, False), (6.0, True)])
def test_the_fit_recovers_the_feature_learning_rate_of_a_model_curve(gamma, fit_time_scale):
    K0, target = fe.power_law_task(30, a=1.2, b=1.0, seed=3)
    K0 = 7.0 * K0  # any scale: the fit normalises K₀ as Shan & Bordelon do
    samples = target.size
    scale = np.linalg.norm(K0)
    t = np.geomspace(1e-2, 1e3, 60)
    # the engine's MSE flow has η = 1/n; for K₀/‖K₀‖ that is η = ‖K₀‖/n
    curve = fe.exact(K0 / scale, target, t, eta=scale / samples, gamma=gamma).alignment
    fit = nw.fit_feature_learning_rate(K0, target[:, None], t, curve, fit_time_scale=fit_time_scale)
    assert np.isclose(fit.gamma, gamma, rtol=1e-5)
    assert np.isclose(fit.time_scale, 1.0, rtol=1e-5)
    assert fit.residual < 1e-6 and np.allclose(fit.fitted, curve, atol=1e-6)
    assert np.isclose(fit.kernel_scale, scale) and np.isclose(fit.eta, scale / samples)
    # their eq. 20 from the last value alone: the γ whose A∞ is that value
    assert np.isclose(fe.final_alignment(K0 / scale, target, fit.gamma_final), curve[-1])


def test_the_fit_finds_a_slower_clock():
    K0, target = fe.power_law_task(25, a=1.5, b=1.2, seed=5)
    t = np.geomspace(1e-1, 1e4, 50)
    scale = np.linalg.norm(K0)
    curve = fe.exact(K0 / scale, target, 0.03 * t, eta=scale / 25, gamma=2.0).alignment
    fit = nw.fit_feature_learning_rate(K0, target, t, curve)
    assert np.isclose(fit.gamma, 2.0, rtol=1e-5) and np.isclose(fit.time_scale, 0.03, rtol=1e-5)


def test_the_fit_of_a_frozen_kernel_is_zero():
    K0, target = fe.power_law_task(20, a=1.0, b=1.0, seed=1)
    t = np.geomspace(1e-2, 1e2, 30)
    curve = np.full(t.shape, target @ K0 @ target / (np.linalg.norm(K0) * target @ target))
    fit = nw.fit_feature_learning_rate(K0, target, t, curve)
    assert fit.gamma == 0.0 and fit.gamma_final < 1e-12 and fit.residual < 1e-12


@pytest.mark.slow
def test_deeper_networks_fit_a_larger_feature_learning_rate():
    # Shan & Bordelon Fig. 6: depth raises the alignment and the fitted γ (two digits here).
    X, y = nw.digits([3, 8], n=60, seed=0)
    gammas = []
    for widths in ([64, 50, 1], [64, 50, 50, 50, 1]):
        net = nw.gaussian_init(widths, sigma=1.4, seed=1)
        run = nw.train(net, X, y, lr=0.05, steps=3000)
        fit = nw.fit_feature_learning_rate(nw.ntk(net, X), y, run.t, run.alignment)
        assert fit.residual < 0.5 * np.std(run.alignment)  # far better than a constant
        # the curve fit and the paper's final-alignment estimate agree to within ~10 %
        assert np.isclose(fit.gamma, fit.gamma_final, rtol=0.15)
        gammas.append(fit.gamma)
    assert gammas[1] > 2 * gammas[0]


def test_the_fit_of_a_trained_network_follows_its_alignment_curve():
    X, y = nw.digits([3, 8], n=40, seed=2)
    net = nw.gaussian_init([64, 30, 30, 1], sigma=1.4, seed=2)
    run = nw.train(net, X, y, lr=0.05, steps=1500, record=nw.default_record(1500, 60))
    fit = nw.fit_feature_learning_rate(nw.ntk(net, X), y, run.t, run.alignment)
    assert fit.gamma > 0 and fit.residual < 0.5 * np.std(run.alignment)


def test_the_fit_rejects_bad_input():
    K0, target = fe.power_law_task(10, a=1.0, b=1.0, seed=0)
    t = np.linspace(0, 1, 5)
    with pytest.raises(ValueError, match="alignment"):
        nw.fit_feature_learning_rate(K0, target, t, np.ones(4))
    with pytest.raises(ValueError, match="y"):
        nw.fit_feature_learning_rate(K0, target[:5], t, np.ones(5))
    with pytest.raises(ValueError, match="eta"):
        nw.fit_feature_learning_rate(K0, target, t, np.ones(5), eta=0.0)
    with pytest.raises(ValueError, match="K0"):
        nw.fit_feature_learning_rate(K0[None], target, t, np.ones(5))
