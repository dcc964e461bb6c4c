"""Linear networks trained by the batched engine tend to the project's exact gradient-flow
solutions as lr → 0, with an error ∝ lr; homogeneous activations conserve each neuron's
η_w a² − η_a‖w‖² up to O(lr).

Conventions mapped (docs/networks.md, "Linear limits"): the engine's MSE is (1/2n)Σ‖f − y‖² and
time is steps·lr. Whitened data with XᵀX = n·I then give the single-neuron and λ-balanced losses
½‖β − β*‖² exactly; the finite-width loss (f − y)² has no ½, so its flow is the engine's with
learning rates doubled.
"""

import numpy as np
import pytest

from solvers import finite_width as fw
from solvers import lambda_balanced as lb
from solvers import networks as nw
from solvers import single_neuron as sn


def _whitened_inputs(n: int, d: int, seed: int) -> np.ndarray:
    """X (n, d) with XᵀX = n·I: Σxx = XᵀX/n = I as the whitened models assume."""
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, d)))
    return np.sqrt(n) * q


def _ratio(errors: list[float]) -> float:
    return errors[0] / errors[1]


def test_width_one_linear_network_tends_to_the_single_neuron_solution():
    d, horizon = 3, 3.0
    beta_star = np.array([1.0, -0.5, 0.8])
    a0, w0 = sn.init_from_norm_delta(0.2, -0.6, np.array([0.3, 1.0, -0.2]))
    eta_a, eta_w = 0.8, 1.5
    X = _whitened_inputs(d, d, seed=1)
    y = X @ beta_star
    net = nw.Network((w0[None, :], np.array([[a0]])), "linear")
    errors = []
    for lr in (4e-3, 2e-3):
        steps = round(horizon / lr)
        run = nw.train(net, X, y, lr=lr, steps=steps, layer_lrs=[eta_w, eta_a])
        exact = sn.exact(a0, w0, beta_star, run.t, eta_a=eta_a, eta_w=eta_w)
        W1, W2 = run.final.weights
        state = np.concatenate([W1[0], W2[0]])
        errors.append(np.max(np.abs(state - np.concatenate([exact.w[-1], [exact.a[-1]]]))))
        assert np.allclose(run.loss, exact.loss, atol=20 * lr * exact.loss.max())
        # the data kernel is n·Q M Qᵀ for the whitened NTK M: the same kernel distance
        assert np.allclose(run.kernel_distance, exact.kernel_distance, atol=20 * lr)
    assert errors[1] < 1e-2
    assert 1.8 < _ratio(errors) < 2.2, errors


def test_two_layer_linear_network_on_one_point_tends_to_the_finite_width_solution():
    d, horizon = 6, 2.0
    x, y = np.array([1.3]), 0.8
    u0, W0 = fw.gaussian_init(d, 1, 0.4, 0.6, seed=4)
    gamma, eta_u, eta_w = 0.7, 0.6, 1.4
    net = nw.Network((W0, u0[None, :]), "linear", gamma)
    errors = []
    for lr in (4e-3, 2e-3):
        steps = round(horizon / lr)
        # their L = (f − y)² is twice the engine's ½(f − y)² (n = 1): doubled rates
        run = nw.train(net, x[None, :], [y], lr=lr, steps=steps, layer_lrs=[2 * eta_w, 2 * eta_u])
        exact = fw.exact(u0, W0, x, y, run.t, gamma=gamma, eta_u=eta_u, eta_w=eta_w)
        W1, W2 = run.final.weights
        state = np.concatenate([W2[0], W1[:, 0]])
        errors.append(np.max(np.abs(state - np.concatenate([exact.u[-1], exact.W[-1][:, 0]]))))
        assert np.allclose(run.loss, exact.loss / 2, atol=20 * lr * exact.loss.max())
        assert np.allclose(run.zeta[:, 0], np.abs(exact.zeta), atol=20 * lr)  # d₀ = 1: |cos|
        assert np.allclose(run.kernel_norm, 2 * exact.ntk, rtol=20 * lr)  # doubled rates
    assert exact.mechanism in ("alignment", "disalignment")
    assert 1.8 < _ratio(errors) < 2.2, errors


def test_whitened_linear_network_tends_to_the_lambda_balanced_solution():
    d_in, hidden, d_out, horizon = 3, 2, 2, 3.0
    W1, W2 = lb.balanced_init(d_in, hidden, d_out, lam=0.7, scale=0.3, seed=2)
    sigma_yx = np.array([[1.0, 0.4, -0.3], [0.2, -0.8, 0.5]])
    X = _whitened_inputs(d_in, d_in, seed=3)
    y = X @ sigma_yx.T
    net = nw.Network((W1, W2), "linear")
    errors = []
    for lr in (4e-3, 2e-3):
        steps = round(horizon / lr)
        run = nw.train(net, X, y, lr=lr, steps=steps)
        exact = lb.exact(W1, W2, sigma_yx, run.t)
        function = run.final.weights[1] @ run.final.weights[0]
        errors.append(np.max(np.abs(function - exact.function[-1])))
        assert np.allclose(run.loss, exact.loss, atol=20 * lr * exact.loss.max())
        assert np.allclose(run.kernel_distance, exact.kernel_distance, atol=20 * lr)
    assert 1.8 < _ratio(errors) < 2.2, errors


@pytest.mark.parametrize("activation", ["relu", "leaky_relu"])
@pytest.mark.parametrize("loss", ["mse", "bce"])
def test_each_neurons_balance_drifts_by_order_lr(activation, loss):
    X, y = nw.xor(16, seed=5)
    net = nw.gaussian_init([2, 12, 1], sigma=1.2, gamma=0.8, activation=activation, seed=5)
    eta_w, eta_a = 1.5, 0.5

    def balance(network: nw.Network) -> np.ndarray:
        W, a = network.weights[0], network.weights[1][0]
        return eta_w * a**2 - eta_a * np.sum(W**2, axis=1)

    start = balance(net)
    drifts = []
    for lr in (0.02, 0.01):
        run = nw.train(
            net,
            X,
            y,
            lr=lr,
            steps=round(3.0 / lr),
            layer_lrs=[eta_w, eta_a],
            loss=loss,
            record=[0],
            track_kernel=False,
        )
        assert run.parameter_distance[0] == 0
        drifts.append(np.max(np.abs(balance(run.final) - start)))
    moved = np.max(np.abs(run.final.weights[1] - net.weights[1]))
    assert drifts[1] < 1e-2 * moved  # conserved, while the weights themselves move
    assert 1.8 < _ratio(drifts) < 2.2, drifts


def test_a_linear_network_on_a_line_tends_to_its_linear_limit():
    # n points on a line reduce to the finite-width model's single point (their Prop. 1):
    # ρ = √(Σx²/n), ȳ = Σxy/(nρ), half its loss plus what no slope fits, half its rates
    X, y, X_test, y_test = nw.regression_line(30, n_test=10, seed=3)
    net = nw.gaussian_init([1, 8, 1], sigma=0.7, gamma=0.5, activation="linear", seed=3)
    rates, horizon = [1.3, 0.6], 2.0
    start = nw.linear_limit(net, X, y, [0.0], layer_lrs=rates, X_test=X_test, y_test=y_test)
    assert start.loss[0] == pytest.approx(float(nw.loss_value(net, X, y)), rel=1e-12)
    assert start.kernel_norm[0] == pytest.approx(
        np.linalg.norm(nw.ntk(net, X, layer_lrs=rates)), rel=1e-12
    )
    np.testing.assert_allclose(start.slope[0] * X, nw.forward(net, X), rtol=1e-12)
    errors = []
    for lr in (4e-3, 2e-3):
        steps = round(horizon / lr)
        run = nw.train(net, X, y, lr=lr, steps=steps, layer_lrs=rates, X_test=X_test, y_test=y_test)
        limit = nw.linear_limit(net, X, y, run.t, layer_lrs=rates, X_test=X_test, y_test=y_test)
        scale = 20 * lr
        assert np.allclose(run.loss, limit.loss, atol=scale * run.loss.max())
        assert np.allclose(run.test_loss, limit.test_loss, atol=scale * run.test_loss.max())
        assert np.allclose(run.zeta[:, 0], limit.zeta, atol=scale)
        assert np.allclose(run.kernel_norm, limit.kernel_norm, rtol=scale)
        assert np.allclose(run.parameter_distance, limit.parameter_distance, atol=scale)
        slope = (run.final.weights[1] @ run.final.weights[0])[0, 0] * net.gamma
        errors.append(abs(slope - limit.slope[-1]))
    assert 1.8 < _ratio(errors) < 2.2, errors


def test_the_linear_limit_applies_only_to_two_layer_linear_networks_on_a_line():
    X, y = nw.regression_line(5, seed=0)
    linear = nw.gaussian_init([1, 4, 1], activation="linear", seed=0)
    assert nw.admits_linear_limit(linear, X)
    assert not nw.admits_linear_limit(linear, X, loss="bce")
    assert not nw.admits_linear_limit(nw.gaussian_init([1, 4, 1], seed=0), X)  # ReLU
    assert not nw.admits_linear_limit(nw.gaussian_init([1, 4, 4, 1], activation="linear"), X)
    assert not nw.admits_linear_limit(nw.gaussian_init([2, 4, 1], activation="linear"), X)
    assert not nw.admits_linear_limit(linear, np.zeros((5, 1)))
    with pytest.raises(ValueError, match="two-layer linear"):
        nw.linear_limit(nw.gaussian_init([1, 4, 1], seed=0), X, y, [0.0])
