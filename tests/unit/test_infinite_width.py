"""The infinite-width ReLU kernels against wide random networks (their empirical NTK, averaged
over draws), against sampled Gaussian expectations, and in the linear case against the closed
form; the even-vs-odd digits against scikit-learn's bundle."""

import numpy as np
import pytest

from solvers import feature_evolution as fe
from solvers import infinite_width as iw
from solvers import networks as nw


@pytest.fixture(scope="module")
def points():
    X, _ = iw.even_odd_digits(6, seed=3)
    return X


def test_one_layer_is_the_linear_kernel(points):
    found = iw.relu_kernels(points, depth=1, weight_std=1.5, bias_std=0.3)
    expected = 1.5**2 * points @ points.T / points.shape[1] + 0.3**2
    np.testing.assert_allclose(found.ntk, expected, rtol=1e-13)
    np.testing.assert_allclose(found.nngp, expected, rtol=1e-13)


def test_the_ntk_is_the_mean_empirical_ntk_of_wide_networks(points):
    # NTK parametrisation: W_l ~ N(0, 1) scaled by σ_w/√n_{l−1}; the engine's network holds
    # the scaled weights (N(0, σ_w²/n_{l−1})), so the raw weights' NTK weighs layer l's
    # gradients by σ_w²/n_{l−1}
    width, draws, weight_std = 1024, 24, 1.3
    widths = [points.shape[1], width, width, 1]
    rates = tuple(weight_std**2 / n for n in widths[:-1])
    empirical = np.mean(
        [
            nw.ntk(
                nw.gaussian_init(widths, sigma=weight_std, scaling="standard", seed=seed),
                points,
                layer_lrs=rates,
            )
            for seed in range(draws)
        ],
        axis=0,
    )
    exact = iw.relu_ntk(points, depth=3, weight_std=weight_std)
    error = np.linalg.norm(empirical - exact) / np.linalg.norm(exact)
    assert error < 0.03, error  # one network is ~9 % off at this width; 24 average it out
    # the test tells depths apart: the two-layer kernel is 17 % away from the three-layer one
    shallow = iw.relu_ntk(points, depth=2, weight_std=weight_std)
    assert np.linalg.norm(shallow - exact) > 0.1 * np.linalg.norm(exact)


def test_one_arc_cosine_step_is_the_gaussian_expectation():
    # two inputs whose first-layer covariance is Λ; the second layer's NNGP and NTK are
    # E[relu(u)relu(v)] + σ_b² and Σ² + Λ·E[relu'(u)relu'(v)], (u, v) ~ N(0, Λ)
    X = np.array([[1.0, 0.4], [-0.3, 0.9]])
    bias = 0.2
    covariance = X @ X.T / 2 + bias**2
    rng = np.random.default_rng(8)
    u, v = rng.multivariate_normal(np.zeros(2), covariance, size=2_000_000).T
    relu = np.maximum(u, 0) * np.maximum(v, 0)
    both = (u > 0) & (v > 0)
    found = iw.relu_kernels(X, depth=2, bias_std=bias)
    nngp = np.mean(relu) + bias**2
    assert found.nngp[0, 1] == pytest.approx(nngp, rel=3e-3)
    assert found.nngp[0, 0] == pytest.approx(covariance[0, 0] / 2 + bias**2, rel=1e-13)
    ntk = found.nngp[0, 1] + covariance[0, 1] * np.mean(both)
    assert found.ntk[0, 1] == pytest.approx(ntk, rel=3e-3)
    # between the sets X and X_other it is the block of the kernel of both
    other = iw.relu_kernels(X[:1], X[1:], depth=2, bias_std=bias)
    assert other.ntk[0, 0] == pytest.approx(found.ntk[0, 1], rel=1e-14)


def test_without_biases_the_weight_scale_only_scales_the_kernel(points):
    unit = iw.relu_ntk(points, depth=3)
    np.testing.assert_allclose(
        iw.relu_ntk(points, depth=3, weight_std=2**0.5), 8 * unit, rtol=1e-12
    )


def test_even_odd_digits_are_the_bundle_s_images_and_parities():
    X, y = iw.even_odd_digits(40, seed=2)
    pixels, labels = nw.digit_bundle()
    for row, sign in zip(X, y, strict=True):
        found = np.flatnonzero(np.all(pixels / 16.0 == row, axis=1))
        assert found.size >= 1
        assert {1.0 if labels[i] % 2 == 0 else -1.0 for i in found} == {sign}
    assert 10 < np.sum(y > 0) < 30


def test_the_digits_setup_is_the_ntk_of_the_digits():
    setup = iw.digits_setup(60, depth=3, seed=1)
    X, y = iw.even_odd_digits(60, seed=1)
    np.testing.assert_array_equal(setup.y, y)
    np.testing.assert_allclose(setup.K0, iw.relu_ntk(X, depth=3), rtol=1e-14)
    assert 0.3 < setup.b < 4 and 0 < setup.a < 4
    run = setup.exact(np.array([0.0, 1.0, 100.0]), gamma=1.0)
    assert run.loss[-1] < run.loss[0] and run.alignment[-1] > run.alignment[0]
    assert isinstance(setup, fe.Setup)


def test_bad_inputs_say_what_to_change(points):
    with pytest.raises(ValueError, match="features"):
        iw.relu_kernels(points, points[:, :3], depth=2)
    with pytest.raises(ValueError, match="depth"):
        iw.relu_kernels(points, depth=0)
    with pytest.raises(ValueError, match="X"):
        iw.relu_kernels(np.full((2, 2), np.nan), depth=2)
    with pytest.raises(ValueError, match="at most"):
        iw.even_odd_digits(iw.MAX_POINTS + 1)
