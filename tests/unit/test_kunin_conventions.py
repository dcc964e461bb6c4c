"""Kunin et al.'s training loop, written out independently of the engine: their loss is
(1/n)Σ(f − y)² with lr = 5·10⁻³/τ² (their code's ``fit_nn_gd``); this engine's is
(1/2n)Σ(f − y)², on which the same trajectory needs lr = 10⁻²/τ² (docs/networks.md)."""

from __future__ import annotations

import numpy as np
import pytest

from solvers import networks as nw


def _their_loop(W: np.ndarray, a: np.ndarray, X: np.ndarray, y: np.ndarray, lr: float, steps: int):
    """Full-batch gradient descent on (1/n)Σ(f − y)² for f(x) = Σᵢ aᵢ relu(wᵢᵀx), as the
    authors' notebook does it: plain numpy, hand-written gradients."""
    n = X.shape[0]
    for _ in range(steps):
        pre = X @ W.T  # (n, h)
        hidden = np.maximum(pre, 0.0)
        residual = hidden @ a - y  # (n,)
        grad_out = 2.0 * residual / n  # d/df of (1/n)Σ(f − y)²
        grad_a = hidden.T @ grad_out
        grad_W = ((grad_out[:, None] * a[None, :]) * (pre > 0)).T @ X
        W, a = W - lr * grad_W, a - lr * grad_a
    return W, a


@pytest.mark.parametrize("tau", [0.1, 0.5, 2.0])
def test_their_rate_on_their_loss_is_twice_it_on_this_engines(tau):
    X, y = nw.teacher_student(10, 3, 40, seed=2)
    net = nw.kunin_init(10, 20, tau=tau, delta=0.3, seed=5)
    W0, a0 = net.weights[0], net.weights[1][0]
    steps = 300
    W, a = _their_loop(W0.copy(), a0.copy(), X, y[:, 0], 5e-3 / tau**2, steps)
    run = nw.train(net, X, y, lr=1e-2 / tau**2, steps=steps, record=[0, steps])
    np.testing.assert_allclose(run.final.weights[0], W, rtol=1e-10, atol=1e-12 * tau)
    np.testing.assert_allclose(run.final.weights[1][0], a, rtol=1e-10, atol=1e-12 * tau)
    # and at the rate of the same name the two trajectories part
    half = nw.train(net, X, y, lr=5e-3 / tau**2, steps=steps, record=[0, steps])
    assert np.max(np.abs(half.final.weights[1][0] - a)) > 1e-4 * np.max(np.abs(a))


def _their_hamming_distance(W_start: np.ndarray, W_end: np.ndarray, X: np.ndarray) -> float:
    """Their ``compute_hamming_distance`` (two-layer-relu/utils.py) between two first layers:
    per input, the hidden units whose ``np.sign`` of wᵢᵀx changed, averaged over the inputs."""
    signs = np.sign(X[None] @ np.stack([W_start, W_end]).transpose(0, 2, 1))  # (2, n, h)
    return float((signs != signs[0][None]).mean(axis=1).sum(axis=1)[1])


@pytest.mark.parametrize(("tau", "delta"), [(0.1, 1.0), (0.3, 0.0), (1.0, -1.0)])
def test_their_hamming_distance_is_width_times_the_share_of_patterns_changed(tau, delta):
    X, y = nw.teacher_student(10, 3, 60, seed=4)
    width = 20
    net = nw.kunin_init(10, width, tau=tau, delta=delta, seed=1)
    run = nw.train(net, X, y, lr=1e-2 / tau**2, steps=400, record=[0, 400])
    theirs = _their_hamming_distance(net.weights[0], run.final.weights[0], X)
    assert theirs > 0  # (patterns changed: the comparison means something)
    assert np.isclose(nw.kunin_hamming(run.activation_distance[-1], width), theirs, rtol=1e-12)
    assert theirs <= width


def test_their_hamming_distance_is_refused_for_what_is_not_a_share():
    with pytest.raises(ValueError, match="between 0 and 1"):
        nw.kunin_hamming(1.5, 50)
    with pytest.raises(ValueError, match="width"):
        nw.kunin_hamming(0.5, 0)
