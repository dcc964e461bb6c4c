"""How λ-balanced a LeCun start is (Dominé et al. Fig. 1C, App. A.3): the balance matrix against
a hand computation, its mean against Theorem A.3, its deviation's decay against Marchenko–Pastur."""

import numpy as np
import pytest

from solvers import lambda_balanced as lb


def test_the_balance_of_a_small_network_computed_by_hand():
    # W₁ is (h, dᵢ) = (2, 3): W₁W₁ᵀ = diag(2, 4); W₂ is (dₒ, h) = (1, 2): W₂ᵀW₂ = [[9, 3], [3, 1]]
    W1 = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 2.0]])
    W2 = np.array([[3.0, 1.0]])
    # B = [[7, 3], [3, −3]]: trace 4, determinant −30, eigenvalues 2 ± √34
    eigenvalues, lam, deviation = lb.operator_balance(W1, W2)
    root = np.sqrt(34.0)
    np.testing.assert_allclose(eigenvalues, [2.0 - root, 2.0 + root], rtol=1e-14)
    assert lam == pytest.approx(2.0, rel=1e-14)
    assert deviation == pytest.approx(root / (2.0 + root), rel=1e-14)


def test_an_exactly_balanced_start_has_no_deviation():
    W1, W2 = lb.balanced_init(3, 3, 5, 1.5, 0.5, np.random.default_rng(2))
    _, lam, deviation = lb.operator_balance(W1, W2)
    assert lam == pytest.approx(1.5, rel=1e-9) and deviation < 1e-9


def test_lecun_draws_have_the_variances_of_lecun_et_al():
    W1, W2 = lb.lecun_init(50, 40, 300, np.random.default_rng(0))
    assert W1.shape == (40, 50) and W2.shape == (300, 40)
    assert np.var(W1) == pytest.approx(1 / 50, rel=0.05)
    assert np.var(W2) == pytest.approx(1 / 40, rel=0.05)


@pytest.mark.parametrize("shape", [(40, 120, 250), (200, 20, 10), (30, 30, 30)])
def test_the_mean_eigenvalue_is_d_out_over_h_minus_one(shape):
    """Theorem A.3: E[W₂ᵀW₂] = dₒ/h·I and E[W₁W₁ᵀ] = I, so E[λ] = dₒ/h − 1 at every width."""
    d_in, hidden, d_out = shape
    sweep = lb.lecun_balance(d_in, hidden, d_out, seed=1, draws=4)
    expected = np.array([1, 2, 4, 8, 16]) * d_out / hidden - 1.0
    np.testing.assert_allclose(sweep.expected_lam, expected)
    # the trace averages h·(dᵢ + dₒ) squares: λ's spread is ≈ √(2(dₒ/h)² / (h dₒ)) ≪ 1
    spread = np.sqrt(2.0 / (hidden * sweep.d_out)) * (sweep.d_out / hidden + 1)
    assert np.all(np.abs(sweep.lam.mean(axis=1) - expected) < 3 * spread)


def test_the_deviation_falls_like_the_root_of_h_over_d_once_d_is_much_larger_than_h():
    """Marchenko–Pastur: W₂ᵀW₂·h/dₒ deviates from I by at most ≈ 2√(h/dₒ) in operator norm
    (the edge of its spectrum; a few eigenvalues seldom reach it), so for dᵢ = dₒ = d ≫ h the
    relative deviation lies within a fixed band of √(h/d) and falls with slope −½ on log axes."""
    sweep = lb.lecun_balance(250, 4, 250, seed=0, draws=4)
    assert sweep.slope == pytest.approx(-0.5, abs=0.08)
    ratio = np.sqrt(sweep.hidden / sweep.d_out)
    assert np.all(sweep.median_deviation > ratio / 2)
    assert np.all(sweep.median_deviation < 2 * ratio)


def test_at_equal_widths_a_lecun_start_is_far_from_balanced():
    sweep = lb.lecun_balance(100, 100, 100, seed=0, draws=2)
    assert sweep.expected_lam[0] == 0.0 and np.all(sweep.deviation[0] > 0.9)


def test_the_widening_sets_the_widest_network():
    sweep = lb.lecun_balance(10, 5, 30, seed=0, draws=1, widening=3.0)
    np.testing.assert_array_equal(sweep.d_in, [10, 13, 17, 23, 30])
    np.testing.assert_array_equal(sweep.d_out, [30, 39, 52, 68, 90])
    np.testing.assert_allclose(sweep.expected_lam, sweep.d_out / 5 - 1)


def test_each_draw_is_reproducible_from_its_own_seed():
    sweep = lb.lecun_balance(6, 5, 7, seed=3, draws=2)
    B = lb.lecun_balance_matrix(4 * 6, 5, 4 * 7, np.random.default_rng([3, 2, 1]))
    _, lam, deviation = lb.balance_of(B)
    assert (sweep.lam[2, 1], sweep.deviation[2, 1]) == (lam, deviation)
    first, _, _ = lb.balance_of(lb.lecun_balance_matrix(6, 5, 7, np.random.default_rng([3, 0, 0])))
    np.testing.assert_array_equal(sweep.eigenvalues, first)


def _from_weights(shape, rng: np.random.Generator) -> np.ndarray:
    W1, W2 = lb.lecun_init(*shape, rng)
    return W2.T @ W2 - W1 @ W1.T


def _draws(shape, through_weights: bool, count: int, seed: int) -> np.ndarray:
    """``count`` balance matrices of LeCun starts of ``shape``, drawn through the weights
    (:func:`lecun_init`) or from B's distribution (:func:`lecun_balance_matrix`)."""
    rng = np.random.default_rng(seed)
    draw = _from_weights if through_weights else (lambda s, r: lb.lecun_balance_matrix(*s, r))
    return np.array([draw(shape, rng) for _ in range(count)])


@pytest.mark.parametrize("shape", [(30, 8, 50), (3, 8, 20), (8, 8, 8)])
def test_the_balance_matrix_drawn_from_its_distribution_is_that_of_the_weights(shape):
    """B drawn by Bartlett's decomposition (or from G where a layer has fewer rows than h)
    against B computed from LeCun weights: the entries' mean (dₒ/h − 1)·I and variances
    (off the diagonal dₒ/h² + 1/dᵢ, on it twice that) as Wick's theorem gives them, and the
    distributions of λ and of the deviation (two-sample Kolmogorov–Smirnov)."""
    from scipy.stats import ks_2samp

    d_in, hidden, d_out = shape
    drawn = _draws(shape, through_weights=False, count=4000, seed=1)
    weights = _draws(shape, through_weights=True, count=4000, seed=2)
    off = ~np.eye(hidden, dtype=bool)
    variance = d_out / hidden**2 + 1 / d_in
    for sample in (drawn, weights):
        mean = sample.mean(axis=0)
        np.testing.assert_allclose(
            np.diag(mean), d_out / hidden - 1, atol=5 * np.sqrt(2 * variance / 4000)
        )
        assert np.all(np.abs(mean[off]) < 5 * np.sqrt(variance / 4000))
        assert sample[:, off].var() == pytest.approx(variance, rel=0.05)
        assert np.diagonal(sample, axis1=1, axis2=2).var() == pytest.approx(2 * variance, rel=0.08)
    for measure in (1, 2):  # λ, the deviation
        a = [lb.balance_of(B)[measure] for B in drawn[:1500]]
        b = [lb.balance_of(B)[measure] for B in weights[:1500]]
        assert ks_2samp(a, b).pvalue > 1e-3


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"d_in": 0}, "d_in must be >= 1"),
        ({"d_out": lb.MAX_LECUN_WIDTH + 1}, "d_out must be at most 250"),
        ({"hidden": lb.MAX_LECUN_HIDDEN + 1}, "hidden must be at most 125"),
        ({"draws": 0}, "draws must be >= 1"),
        ({"draws": lb.MAX_LECUN_DRAWS + 1}, "draws must be at most 4"),
        ({"seed": -1}, "seed must be >= 0"),
        ({"widening": 1.5}, r"widening must lie in \[2, 16\]"),
        ({"widening": float("nan")}, "widening"),
        ({"d_in": 2.5}, "d_in must be a whole number"),
    ],
)
def test_bad_sizes_are_refused_with_the_limit(arguments, message):
    values = {"d_in": 4, "hidden": 3, "d_out": 5, "seed": 0, "draws": 1, **arguments}
    with pytest.raises(ValueError, match=message):
        lb.lecun_balance(values.pop("d_in"), values.pop("hidden"), values.pop("d_out"), **values)


def test_mismatched_layers_are_refused():
    with pytest.raises(ValueError, match="same h"):
        lb.operator_balance(np.ones((3, 4)), np.ones((5, 2)))
