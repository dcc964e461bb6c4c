"""Optimal feature evolution (Shan & Bordelon): exact solution vs. ODE, GD, paper facts."""

import itertools

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from solvers import feature_evolution as fe
from solvers.metrics import kernel_target_alignment
from tests import examples, flows

SETTINGS = settings(
    max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def configurations(draw, horizons=(10.0, 100.0, 1000.0)):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    samples = draw(st.sampled_from([1, 2, 5, 10]))
    # Fewer features than samples makes K₀ singular (a loss that cannot reach zero).
    n_features = draw(st.sampled_from([samples, 2 * samples, max(1, samples // 2)]))
    features = rng.standard_normal((n_features, samples)) / np.sqrt(n_features)
    features *= draw(st.floats(0.3, 2.0))
    y = rng.standard_normal(samples)
    y *= draw(st.floats(0.3, 3.0)) / np.linalg.norm(y)
    eta = float(np.exp(rng.uniform(-1.0, 1.0)))
    gamma = draw(st.sampled_from([0.0, 0.1, 1.0, 10.0, 50.0]))
    horizon = draw(st.sampled_from(horizons))
    t = np.sort(np.concatenate([[0.0], rng.uniform(0, horizon, 40), [horizon]]))
    return features, y, eta, gamma, t


def _scaled_error(approximate, reference, scale):
    return float(np.max(np.abs(approximate - reference)) / scale)


@SETTINGS
@given(configurations(horizons=(10.0, 100.0)))
def test_exact_matches_ode(config):
    """Errors relative to the problem's scale ‖y‖: the residual decays towards zero, and below
    ~1e-4‖y‖ the integrators' absolute accuracy is all a comparison can see (the per-time-point
    relative accuracy is checked against arbitrary precision below). Horizons to 100 (to 1000
    in the slow test below)."""
    _check_against_ode(config)


@pytest.mark.slow
@SETTINGS
@given(configurations())
def test_exact_matches_ode_to_a_thousand(config):
    _check_against_ode(config)


def _check_against_ode(config):
    features, y, eta, gamma, t = config
    K0 = features.T @ features
    exact = fe.exact(K0, y, t, eta=eta, gamma=gamma)
    scale = float(np.linalg.norm(y))
    # γ = 0 is kernel gradient descent: −e^{−ηK₀t}y, against the matrix exponential. Otherwise
    # the residual ODE (C substituted for K) at tight tolerance; with a singular K₀ its fixed
    # point is unstable off the conservation manifold, so it is no reference there.
    if gamma == 0:
        reference = np.stack([-scipy.linalg.expm(-eta * K0 * time) @ y for time in t])
        assert _scaled_error(exact.residual, reference, scale) < 1e-12
    elif np.linalg.eigvalsh(K0)[0] > 1e-3 * np.linalg.eigvalsh(K0)[-1]:
        # (1e-13, not DOP853's floor 3e-14, where it becomes erratic.) The integration itself
        # scatters by up to a few 1e-8 here; the per-time-point accuracy of the closed form is
        # certified against arbitrary precision below (1e-10; ~1e-15 in practice).
        residual = flows.residual_flow(K0, y, t, eta, gamma, tolerance=1e-13)
        assert _scaled_error(exact.residual, residual, scale) < 5e-8
    # The raw (Δ, Ψ) flow. DOP853's error norm averages over the N·P feature components, so
    # even at rtol = atol = 1e-13 that integration is itself off by up to ~1e-7 of ‖y‖ (it
    # converges onto the closed form as the tolerance is tightened).
    residual, kernels = flows.feature_evolution(features, y, t, eta, gamma, tolerance=1e-13)
    assert _scaled_error(exact.residual, residual, scale) < 1e-6
    assert _scaled_error(exact.K, kernels, np.abs(kernels).max()) < 1e-6
    assert np.allclose(exact.alignment, kernel_target_alignment(kernels, y), atol=1e-6)
    assert np.allclose(exact.loss, np.sum(residual**2, axis=1), atol=1e-6 * scale**2)


def _arbitrary_precision(K0, y, times, eta, gamma, digits=60):
    """The closed form docs/theory.md (4.5) evaluated literally in `digits`-digit arithmetic
    (mpmath)."""
    mp = pytest.importorskip("mpmath")
    with mp.workdps(digits):
        samples = y.size
        conserved = mp.matrix((K0 + gamma * np.outer(y, y)).tolist())
        for i in range(samples):  # make the mp matrix exactly K₀ + γyyᵀ
            for j in range(samples):
                conserved[i, j] = mp.mpf(K0[i, j]) + mp.mpf(gamma) * mp.mpf(y[i]) * mp.mpf(y[j])
        rates, basis = mp.eigsy(conserved)
        initial = basis.T * mp.matrix([-mp.mpf(v) for v in y])
        out = []
        for time in times:
            time, eta_mp, gamma_mp = mp.mpf(time), mp.mpf(eta), mp.mpf(gamma)
            integral = sum(
                initial[k] ** 2
                * (
                    -mp.expm1(-2 * eta_mp * rates[k] * time) / (2 * eta_mp * rates[k])
                    if rates[k]
                    else time
                )
                for k in range(samples)
            )
            root = mp.sqrt(1 - 2 * eta_mp * gamma_mp * integral)
            eigen = mp.matrix(
                [mp.exp(-eta_mp * rates[k] * time) * initial[k] / root for k in range(samples)]
            )
            out.append(np.array((basis * eigen).tolist(), dtype=float)[:, 0])
        return np.array(out)


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configurations(horizons=(10.0, 1000.0)))
def test_exact_matches_arbitrary_precision(config):
    features, y, eta, gamma, t = config
    K0 = features.T @ features
    assume(np.linalg.eigvalsh(K0)[0] > 1e-6)  # mpmath's eigsy needs resolvable eigenvalues
    times = t[:: max(1, t.size // 8)]
    reference = _arbitrary_precision(K0, y, times, eta, gamma)
    exact = fe.exact(K0, y, times, eta=eta, gamma=gamma)
    assert flows.relative_error(exact.residual, reference, floor=1e-250) < 1e-10


@SETTINGS
@given(configurations(horizons=(5.0,)))
def test_conserved_matrix_holds_on_the_ode(config):
    features, y, eta, gamma, t = config
    residual, kernels = flows.feature_evolution(features, y, t, eta, gamma)
    conserved = kernels + gamma * np.einsum("ti,tj->tij", residual, residual)
    assert np.allclose(conserved, conserved[0], atol=1e-9 * (np.abs(conserved[0]).max() + 1))


def test_kernel_gradient_descent_is_the_matrix_exponential():
    rng = np.random.default_rng(0)
    features = rng.standard_normal((6, 6))
    K0, y = features.T @ features, rng.standard_normal(6)
    t = np.array([0.0, 0.1, 1.0, 7.0])
    path = fe.kernel_gradient_descent(K0, y, t, eta=0.7)
    expected = np.stack([-scipy.linalg.expm(-0.7 * K0 * time) @ y for time in t])
    assert np.allclose(path.residual, expected, atol=1e-13)
    assert np.allclose(path.alignment, path.alignment[0])  # the kernel does not move


@pytest.mark.parametrize("gamma", [0.1, 1.0, 10.0])
def test_alignment_approaches_the_final_alignment(gamma):
    K0, y = fe.power_law_task(30, 1.5, 1.0, seed=1)
    path = fe.exact(K0, y, [0.0, 1e2, 1e5, 1e9], gamma=gamma)
    A_inf = fe.final_alignment(K0, y, gamma)
    assert np.isclose(A_inf, kernel_target_alignment(fe.final_kernel(K0, y, gamma), y))
    assert np.isclose(path.alignment[-1], A_inf, rtol=1e-9)
    assert path.loss[-1] < 1e-12 * path.loss[0]
    # It rises towards A∞ — not quite monotonically: it overshoots by ~1e-7 before settling,
    # which the integrated flow shows too (their "monotonically approaches" is approximate).
    assert path.alignment[1] > path.alignment[0] and abs(path.alignment[1] - A_inf) < 1e-3


def test_final_alignment_rises_to_one_with_gamma():
    K0, y = fe.power_law_task(50, 2.0, 1.2, seed=2)
    values = [fe.final_alignment(K0, y, gamma) for gamma in (0.0, 0.1, 1.0, 10.0, 1e3, 1e6)]
    assert np.all(np.diff(values) > 0)
    assert values[-1] > 1 - 1e-5
    assert np.isclose(values[0], kernel_target_alignment(K0, y))


def test_feature_learning_accelerates_learning():
    """Shan & Bordelon §4: the loss falls faster than kernel GD's, more so for larger γ, and the
    alignment rises faster and higher (their Fig. 2E–F)."""
    K0, y = fe.power_law_task(40, 1.5, 1.0, seed=3)
    t = np.geomspace(1e-2, 30, 60)
    paths = [fe.exact(K0, y, t, gamma=gamma) for gamma in (0.0, 0.3, 3.0)]
    for slower, faster in itertools.pairwise(paths):
        assert np.all(faster.loss <= slower.loss * (1 + 1e-12))
        assert np.all(faster.alignment >= slower.alignment - 1e-12)
    assert paths[-1].loss[-1] < 0.05 * paths[0].loss[-1]


def test_top_eigenvector_aligns_with_the_task_past_a_threshold():
    K0, y = fe.power_law_task(200, 1.5, 1.5, seed=4)
    gammas = np.geomspace(1e-3, 1e2, 11)
    overlaps = np.array([fe.top_eigenvector_overlap(K0, y, g) for g in gammas])
    assert overlaps[0] < 0.8 and overlaps[-1] > 0.99
    assert np.all(np.diff(overlaps) > -1e-9)


def test_gradient_descent_converges_to_the_flow_linearly_in_lr():
    K0, y = fe.power_law_task(8, 1.5, 1.0, seed=5)
    errors = []
    for lr in (0.02, 0.01, 0.005):
        descent = fe.gradient_descent(K0, y, lr, round(4.0 / lr), gamma=2.0)
        exact = fe.exact(K0, y, descent.t, gamma=2.0)
        errors.append(np.max(np.abs(descent.residual - exact.residual)))
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert np.all((ratios > 1.8) & (ratios < 2.2)), ratios


def test_gradient_descent_conserves_C_to_order_lr():
    K0, y = fe.power_law_task(6, 1.0, 1.0, seed=6)
    drifts = []
    for lr in (0.02, 0.01):
        descent = fe.gradient_descent(K0, y, lr, round(3.0 / lr), gamma=1.0)
        conserved = descent.K + np.einsum("ti,tj->tij", descent.residual, descent.residual)
        drifts.append(np.max(np.abs(conserved - conserved[0])))
    assert 0.4 < drifts[1] / drifts[0] < 0.6


def test_gradient_descent_reports_divergence():
    K0, y = fe.power_law_task(5, 1.0, 0.0, seed=0)
    descent = fe.gradient_descent(K0, y, lr=5.0, steps=300, gamma=1.0)
    assert descent.diverged_at is not None
    assert np.all(np.isfinite(descent.loss)) and np.all(np.isfinite(descent.alignment))


def test_power_law_task_has_the_requested_spectra():
    K0, y = fe.power_law_task(64, a=1.7, b=1.3, seed=7)
    values, vectors = np.linalg.eigh(K0)
    k = np.arange(1, 65)
    assert np.allclose(values[::-1], k**-1.3)
    assert np.allclose((vectors[:, ::-1].T @ y) ** 2, k**-1.7)


def test_singular_kernel_leaves_a_residual():
    # One feature, two samples: K stays rank one, so the part of y it cannot reach remains.
    features = np.array([[1.0, 0.5]])
    y = np.array([1.0, -1.0])
    path = fe.exact(features.T @ features, y, [0.0, 1e4, 1e8], gamma=3.0)
    residual, _ = flows.feature_evolution(features, y, np.array([0.0, 1e4]), 1.0, 3.0)
    assert np.allclose(path.residual[1], residual[1], rtol=1e-8)
    assert path.loss[-1] > 0.1 and np.isclose(path.loss[-1], path.loss[1])


@settings(max_examples=examples(60), deadline=None)
@given(
    st.integers(1, 30),
    st.floats(0.0, 3.0),
    st.floats(0.0, 3.0),
    st.floats(0.0, 1e4),
    st.floats(1e-3, 1e3),
    st.integers(0, 100),
)
def test_extreme_valid_input_converges(samples, a, b, gamma, eta, seed):
    K0, y = fe.power_law_task(samples, a, b, seed)
    path = fe.exact(K0, y, [0.0, 1e-3, 1.0, 1e4, 1e12, 1e300], eta=eta, gamma=gamma)
    for values in (path.residual, path.loss, path.alignment):
        assert np.all(np.isfinite(values))
    A_inf = fe.final_alignment(K0, y, gamma)
    assert np.isfinite(A_inf)
    if eta * np.linalg.eigvalsh(K0)[0] * 1e12 > 50:  # K₀ positive definite: learned by 1e12
        assert path.loss[-2] < 1e-20 * path.loss[0] and path.loss[-1] == 0.0
        assert np.isclose(path.alignment[-2], A_inf, rtol=1e-8)


def test_astronomical_times_with_a_singular_kernel():
    # Regression: with s∞ = 0 the converged residual must not drift with t (ε·ηct cancellation).
    features = np.array([[1.0, 0.5]])
    path = fe.exact(features.T @ features, [1.0, -1.0], [1e3, 1e12, 1e300], gamma=3.0)
    assert np.allclose(path.residual, path.residual[0], rtol=1e-14)


def test_zero_kernel_never_moves():
    # K₀ = 0: K(t) = γ(yyᵀ − ΔΔᵀ) = 0 for all t, so Δ = −y forever and the alignment is 0.
    path = fe.exact(np.zeros((3, 3)), [1.0, -2.0, 0.5], [0.0, 1.0, 1e3, 1e12], gamma=1000.0)
    assert np.allclose(path.residual, [-1.0, 2.0, -0.5], rtol=1e-14)
    assert np.all(path.alignment == 0.0)


def test_a_start_on_a_saddle_is_flagged():
    # y ⟂ range(K₀): KΔ = 0 at the start, a fixed point (loss 5.25); rounding decides the escape.
    features = np.array([[1.0, 0.5, 0.0]])
    path = fe.exact(features.T @ features, [1.0, -2.0, 0.5], [0.0, 1.0], gamma=1.0)
    assert path.saddle_margin < 1e-12
    assert np.isclose(path.loss[1], 5.25)
    generic = fe.exact(features.T @ features, [1.0, 1.0, 0.5], [0.0], gamma=1.0)
    assert generic.saddle_margin > 1e-3


def test_gradient_descent_update_is_the_feature_step():
    """The O(P²) update equals the literal Ψ ← Ψ(I + lr·γηΔΔᵀ), i.e. K ← (I+αΔΔᵀ)K(I+αΔΔᵀ)."""
    K0, y = fe.power_law_task(6, 1.0, 1.0, seed=9)
    lr, gamma, eta = 0.05, 2.0, 0.7
    run = fe.gradient_descent(K0, y, lr, 5, eta=eta, gamma=gamma)
    residual, kernel = -y, K0
    for _ in range(5):
        update = np.eye(6) + lr * gamma * eta * np.outer(residual, residual)
        residual, kernel = residual - lr * eta * kernel @ residual, update @ kernel @ update
    assert np.allclose(run.residual[-1], residual, rtol=1e-12)
    assert np.allclose(run.K[-1], kernel, rtol=1e-12)


# -- the power-law task of the views: spectra, threshold, descent time, stable step ------------


def _known_basis(values, components, seed=0):
    """K₀ = Q diag(values) Qᵀ and y = Q·components with a random orthogonal Q: a task whose
    eigenbasis the test knows exactly."""
    basis = np.linalg.qr(np.random.default_rng(seed).standard_normal((len(values),) * 2))[0]
    kernel = (basis * np.asarray(values)) @ basis.T
    return 0.5 * (kernel + kernel.T), basis @ np.asarray(components)


def test_the_spectrum_of_k0_is_the_one_it_was_built_from():
    values = np.array([2.0, 1.0, 0.5, 0.1, 0.01])
    components = np.array([0.3, -1.0, 0.2, 0.7, -0.05])
    K0, y = _known_basis(values, components)
    found = fe.spectrum(K0, y)
    assert np.allclose(found.eigenvalues, values, rtol=1e-12)
    assert np.allclose(found.power, components**2, rtol=1e-10)
    assert found.top_overlap == pytest.approx(0.3 / np.linalg.norm(components), rel=1e-10)
    # and the power-law task has λ_k = k^−b, v_k² = k^−a (Shan & Bordelon §2)
    task = fe.setup(samples=50, a=1.7, b=0.8, seed=4)
    k = np.arange(1, 51)
    assert np.allclose(task.initial.eigenvalues, k**-0.8, rtol=1e-10)
    assert np.allclose(task.initial.power, k**-1.7, rtol=1e-8)
    assert np.array_equal(task.K0, fe.power_law_task(50, 1.7, 0.8, 4)[0])


@pytest.mark.parametrize("gamma", [1e-3, 0.3, 5.0, 1e3])
def test_the_final_spectrum_solves_the_secular_equation(gamma):
    """K∞ = K₀ + γyyᵀ in K₀'s eigenbasis: each eigenvalue μ solves 1 = γ Σ v_j²/(μ − λ_j), its
    eigenvector is ∝ (μ − λ_j)⁻¹ v_j, so the task power along it is 1/(γ² Σ v_j²/(μ − λ_j)²)."""
    values = np.array([1.0, 0.6, 0.3, 0.1, 0.02, 0.004])
    components = np.array([0.2, 0.9, -0.5, 0.4, 0.3, -0.1])
    K0, y = _known_basis(values, components, seed=3)
    final = fe.spectrum(K0 + gamma * np.outer(y, y), y)
    gaps = final.eigenvalues[:, None] - values[None, :]
    secular = gamma * np.sum(components**2 / gaps, axis=1)
    assert np.allclose(secular, 1.0, rtol=1e-7)
    power = 1.0 / (gamma**2 * np.sum(components**2 / gaps**2, axis=1))
    assert np.allclose(final.power, power, rtol=1e-6, atol=1e-14)
    assert final.eigenvalues.sum() == pytest.approx(values.sum() + gamma * components @ components)
    assert final.top_overlap == pytest.approx(np.sqrt(power[0] / (components @ components)))


def _overlap(K0, y, gamma):
    """|u₁ᵀy|/‖y‖ for the top eigenvector of K₀ + γyyᵀ, by numpy's full eigendecomposition."""
    top = np.linalg.eigh(K0 + gamma * np.outer(y, y))[1][:, -1]
    return abs(float(top @ y)) / np.linalg.norm(y)


@pytest.mark.parametrize(("a", "b", "seed"), [(1.5, 1.2, 0), (1.1, 2.0, 3), (3.0, 1.2, 1)])
def test_the_threshold_is_where_the_overlap_passes_half_way(a, b, seed):
    K0, y = fe.power_law_task(64, a, b, seed)
    level = 0.5 * (_overlap(K0, y, 0.0) + 1)

    def above(log_gamma):
        return _overlap(K0, y, np.exp(log_gamma)) - level

    fine = fe.gamma_sweep(K0, y, np.geomspace(1e-3, 1e3, 400))
    bracket = np.searchsorted(fine.top_overlap >= level, True)  # first swept γ above it
    root = np.exp(
        scipy.optimize.brentq(above, *np.log(fine.gammas[[bracket - 1, bracket]]), xtol=1e-12)
    )
    assert fine.threshold == pytest.approx(root, rel=2e-3)
    coarse = fe.gamma_sweep(K0, y, np.geomspace(1e-3, 1e3, 30))
    star = coarse.threshold
    assert _overlap(K0, y, star / 1.5) < level < _overlap(K0, y, star * 1.5)
    # the order of the γ swept does not matter
    shuffled = np.random.default_rng(seed).permutation(coarse.gammas)
    assert fe.gamma_sweep(K0, y, shuffled).threshold == pytest.approx(star, rel=1e-12)


def test_no_threshold_where_the_sweep_does_not_bracket_one():
    K0, y = fe.power_law_task(32, 1.5, 1.2, seed=0)
    assert fe.gamma_sweep(K0, y, np.geomspace(1e-5, 1e-3, 10)).threshold is None  # not yet
    # K₀ = I: any γ > 0 makes y the top eigenvector, past half-way at the smallest γ
    identity, y = fe.power_law_task(32, 1.5, 0.0, seed=0)
    assert _overlap(identity, y, 1e-6) > 1 - 1e-9
    assert fe.gamma_sweep(identity, y, np.geomspace(1e-3, 1e3, 30)).threshold is None
    # y along K₀'s top eigenvector: aligned from the start
    aligned = _known_basis([1.0, 0.5, 0.2], [1.0, 0.0, 0.0])
    assert fe.gamma_sweep(*aligned, np.geomspace(1e-3, 1e3, 30)).threshold is None
    # a grid that starts at γ = 0 interpolates linearly in γ on its first interval
    two = _known_basis([1.0, 0.5], [0.2, 1.0])
    sweep = fe.gamma_sweep(*two, [0.0, 10.0])
    level = 0.5 * (sweep.initial_overlap + 1)
    fraction = (level - sweep.top_overlap[0]) / (sweep.top_overlap[1] - sweep.top_overlap[0])
    assert sweep.threshold == pytest.approx(10.0 * fraction, rel=1e-12)


def test_kernel_descent_time_in_closed_form_for_a_scaled_identity():
    # K₀ = λI: L(t) = ‖y‖² e^{−2ηλt}, so t = ln(‖y‖²/L)/(2ηλ)
    K0, y = 0.3 * np.eye(4), np.array([1.0, -2.0, 0.5, 0.0])
    initial = fe.spectrum(K0, y)
    for loss in (5.0, 1.0, 1e-6, 1e-200):
        expected = np.log(5.25 / loss) / (2 * 0.7 * 0.3)
        assert fe.kernel_descent_time(initial, loss, eta=0.7) == pytest.approx(expected, rel=1e-12)
    assert fe.kernel_descent_time(initial, 5.25, eta=0.7) == 0.0
    assert fe.kernel_descent_time(initial, 100.0, eta=0.7) == 0.0


@pytest.mark.parametrize(("a", "b", "eta"), [(1.5, 1.2, 1.0), (1.1, 2.0, 0.3), (3.0, 3.0, 7.0)])
def test_kernel_descent_reaches_the_loss_at_that_time(a, b, eta):
    """Against the matrix exponential: Δ(t) = −e^{−ηK₀t}y has ‖Δ‖² = the loss asked for."""
    K0, y = fe.power_law_task(24, a, b, seed=2)
    initial = fe.spectrum(K0, y)
    start = float(y @ y)
    times = []
    for fraction in (0.9, 0.3, 1e-2, 1e-4):
        t = fe.kernel_descent_time(initial, fraction * start, eta=eta)
        residual = -scipy.linalg.expm(-eta * t * K0) @ y
        assert float(residual @ residual) == pytest.approx(fraction * start, rel=1e-9)
        times.append(t)
    assert np.all(np.diff(times) > 0)


def test_kernel_descent_time_over_astronomical_times():
    # eigenvalues down to 1e-12: the time is ~1e12, where L is summed as a log-sum-exp
    values, components = np.array([1.0, 1e-6, 1e-12]), np.array([1.0, 0.5, 0.25])
    initial = fe.Spectrum(values, components)
    t = fe.kernel_descent_time(initial, 1e-3, eta=1.0)
    by_hand = sum(v**2 * np.exp(-2 * lam * t) for lam, v in zip(values, components, strict=True))
    assert by_hand == pytest.approx(1e-3, rel=1e-10) and 1e11 < t < 1e13


def test_kernel_descent_never_gets_below_the_unreachable_part():
    # one feature, two samples: the part of y outside the range of K₀ never decays
    features = np.array([[1.0, 0.5]])
    K0, y = features.T @ features, np.array([1.0, -1.0])
    initial = fe.spectrum(K0, y)
    stuck = float((y @ np.array([0.5, -1.0])) ** 2 / 1.25)  # y's part along (0.5, −1)
    assert fe.kernel_descent_time(initial, 0.999 * stuck) == np.inf
    assert fe.kernel_descent_time(initial, 0.0) == np.inf
    between = 0.5 * (stuck + float(y @ y))
    t = fe.kernel_descent_time(initial, between)
    residual = -scipy.linalg.expm(-t * K0) @ y
    assert float(residual @ residual) == pytest.approx(between, rel=1e-9)


def test_stable_lr_by_hand_for_a_scaled_identity():
    # K₀ = λI: c₁ = λ + γ‖y‖² (y is an eigenvector of K∞)
    K0, y = 0.5 * np.eye(3), np.array([1.0, 1.0, 0.0])
    for eta, gamma in ((1.0, 0.0), (2.0, 0.1), (0.5, 10.0)):
        kernel = 2 / (eta * (0.5 + 2 * gamma))
        feature = 1 / (eta * gamma * 2) if gamma else np.inf
        expected = 0.5 * min(kernel, feature)
        assert fe.stable_lr(K0, y, eta=eta, gamma=gamma) == pytest.approx(expected, rel=1e-12)
    assert fe.stable_lr(np.zeros((2, 2)), [1.0, 0.0], gamma=0.0) == np.inf


def test_stable_lr_without_feature_learning_is_half_the_sharp_bound():
    """γ = 0 is the linear iteration Δ ← (I − lr·ηK₀)Δ: stable exactly while its spectral
    radius is below 1, i.e. for lr below twice the step returned."""
    K0, y = fe.power_law_task(20, 1.5, 1.2, seed=1)
    edge = 2 * fe.stable_lr(K0, y, eta=0.7, gamma=0.0)
    for factor, stable in ((0.99, True), (1.01, False)):
        iteration = np.eye(20) - factor * edge * 0.7 * K0
        assert (np.max(np.abs(np.linalg.eigvals(iteration))) < 1) == stable
    run = fe.gradient_descent(K0, y, 1.05 * edge, 2000, eta=0.7, gamma=0.0)
    assert run.diverged_at is not None
    assert fe.gradient_descent(K0, y, 0.99 * edge, 2000, eta=0.7, gamma=0.0).diverged_at is None


@pytest.mark.parametrize("gamma", [1e-3, 0.2, 1.0, 30.0, 1e3])
@pytest.mark.parametrize(("a", "b", "eta"), [(1.5, 1.2, 1.0), (1.1, 2.0, 0.1), (0.2, 0.0, 10.0)])
def test_gradient_descent_at_the_stable_lr_converges(gamma, a, b, eta):
    """At the step returned the discrete feature evolution learns without diverging, and its
    kernel never breaks the kernel bound lr·η·λ_max(K) < 2 (checked by eigvalsh at every
    recorded step)."""
    K0, y = fe.power_law_task(20, a, b, seed=0)
    lr = fe.stable_lr(K0, y, eta=eta, gamma=gamma)
    run = fe.gradient_descent(K0, y, lr, 1500, eta=eta, gamma=gamma, every=50)
    assert run.diverged_at is None and run.loss[-1] < 0.1 * run.loss[0]
    assert max(np.linalg.eigvalsh(K)[-1] for K in run.K) * lr * eta < 2
