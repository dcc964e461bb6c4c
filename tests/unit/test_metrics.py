"""Shared metrics against their textbook definitions."""

import numpy as np
import pytest

from solvers import metrics


def _random_psd(rng, n, rank=None):
    factor = rng.standard_normal((rank or n, n))
    return factor.T @ factor


def test_kernel_distance_is_one_minus_cosine():
    rng = np.random.default_rng(0)
    K0 = _random_psd(rng, 5)
    stack = np.stack([_random_psd(rng, 5) for _ in range(7)])
    cosine = np.sum(stack * K0, axis=(1, 2)) / (
        np.linalg.norm(stack, axis=(1, 2)) * np.linalg.norm(K0)
    )
    assert np.allclose(metrics.kernel_distance(K0, stack), 1 - cosine, atol=1e-14)
    gram = metrics.kernel_distance_from_inner_products(
        np.sum(K0 * K0), np.sum(stack * K0, axis=(1, 2)), np.sum(stack * stack, axis=(1, 2))
    )
    assert np.allclose(gram, 1 - cosine, atol=1e-14)


def test_kernel_distance_keeps_relative_accuracy_for_tiny_moves():
    rng = np.random.default_rng(1)
    K0 = _random_psd(rng, 4)
    direction = _random_psd(rng, 4)
    for step in (1e-3, 1e-5, 1e-7):
        moved = K0 + step * direction
        # Second-order expansion: S ≈ ½‖P⊥ D‖²/‖K₀‖² · step² with P⊥ the part orthogonal to K₀.
        unit = K0 / np.linalg.norm(K0)
        perpendicular = direction - np.sum(direction * unit) * unit
        expected = 0.5 * (step * np.linalg.norm(perpendicular) / np.linalg.norm(K0)) ** 2
        assert np.isclose(metrics.kernel_distance(K0, moved[None])[0], expected, rtol=1e-2)


def test_kernel_distance_is_scale_invariant_and_zero_for_itself():
    rng = np.random.default_rng(2)
    K0 = _random_psd(rng, 3)
    assert metrics.kernel_distance(K0, np.stack([K0, 7.5 * K0]))[1] < 1e-15
    assert np.allclose(metrics.kernel_distance(np.zeros((2, 2)), np.zeros((1, 2, 2))), 0.0)
    assert np.allclose(metrics.kernel_distance(np.zeros((2, 2)), np.eye(2)[None]), 1.0)


def test_alignment_definition():
    rng = np.random.default_rng(3)
    K = _random_psd(rng, 6)
    y = rng.standard_normal(6)
    assert np.isclose(
        metrics.kernel_target_alignment(K, y), y @ K @ y / (np.linalg.norm(K) * (y @ y))
    )
    assert np.isclose(metrics.kernel_target_alignment(np.outer(y, y), y), 1.0)


@pytest.mark.parametrize("angle", [0.0, 0.4, np.pi / 2, 2.0, np.pi])
def test_layer_alignment_is_the_cosine(angle):
    u = np.array([1.0, 0.0])
    hidden = 3.0 * np.array([np.cos(angle), np.sin(angle)])
    assert np.isclose(metrics.layer_alignment(u, hidden), np.cos(angle))
    assert metrics.layer_alignment(np.zeros(2), hidden) == 0.0


def test_changes_are_measured_from_t_zero_even_when_it_is_not_sampled():
    """S(0, t), the NTK change and ‖W‖ refer to the initialisation, not to the first sample."""
    from solvers import finite_width as fw
    from solvers import lambda_balanced as lb
    from solvers import single_neuron as sn

    full = np.array([0.0, 0.5, 2.0, 9.0])
    later = full[1:]
    a0, w0 = sn.init_from_norm_delta(0.3, -1.0, np.array([1.0, 2.0, 0.0]))
    pair = [sn.exact(a0, w0, np.array([0.0, 1.0, 1.0]), t) for t in (full, later)]
    assert np.allclose(pair[0].kernel_distance[1:], pair[1].kernel_distance, atol=1e-15)
    u0, W0 = fw.gaussian_init(6, 3, 0.5, 0.5, seed=1)
    pair = [fw.exact(u0, W0, [1.0, 0.5, -1.0], 1.0, t, gamma=0.4) for t in (full, later)]
    for name in ("ntk_change", "kernel_distance", "w_norm", "ntk"):
        assert np.allclose(getattr(pair[0], name)[1:], getattr(pair[1], name), atol=1e-14), name
    W1, W2 = lb.balanced_init(3, 2, 2, 0.5, 0.3, seed=2)
    pair = [lb.exact(W1, W2, lb.random_task(3, 2, seed=3), t) for t in (full, later)]
    assert np.allclose(pair[0].kernel_distance[1:], pair[1].kernel_distance, atol=1e-15)
