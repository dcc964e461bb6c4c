"""Single hidden neuron (Kunin et al.): exact solution vs. independent integration and GD."""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from solvers import single_neuron as sn
from tests import examples, flows

SETTINGS = settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def configurations(draw, horizons=(10.0, 100.0, 1000.0)):
    """Random (a0, w0, β*, η_a, η_w, t) with |δ| up to 50 and ‖β*‖ from 0.1 to 10."""
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    d = draw(st.integers(1, 6))
    beta_star = rng.standard_normal(d)
    beta_star *= draw(st.floats(0.1, 10.0)) / np.linalg.norm(beta_star)
    delta = draw(st.sampled_from([-50.0, -7.0, -1.0, -0.1, 0.0, 0.1, 1.0, 7.0, 50.0]))
    delta *= draw(st.floats(0.5, 1.0))
    eta_a, eta_w = np.exp(rng.uniform(-1.0, 1.0, 2))
    sign = draw(st.sampled_from([1, -1]))
    a0, w0 = sn.init_from_norm_delta(
        draw(st.floats(0.01, 5.0)),
        delta,
        rng.standard_normal(d),
        eta_a=eta_a,
        eta_w=eta_w,
        sign=sign,
    )
    horizon = draw(st.sampled_from(horizons))
    t = np.sort(np.concatenate([[0.0], rng.uniform(0, horizon, 60), [horizon]]))
    return a0, w0, beta_star, float(eta_a), float(eta_w), t


@SETTINGS
@given(configurations())
def test_exact_matches_ode(config):
    a0, w0, beta_star, eta_a, eta_w, t = config
    exact = sn.exact(a0, w0, beta_star, t, eta_a=eta_a, eta_w=eta_w)
    # A start on (or within rounding of) the saddle's stable manifold is ill-conditioned for
    # every floating-point method: rounding grows like e^{2ωt} against the decaying state.
    assume(exact.saddle_margin > 1e-6)
    a, w = flows.single_neuron(a0, w0, beta_star, t, eta_a, eta_w)
    state_exact = np.column_stack([exact.a, exact.w])
    state_ode = np.column_stack([a, w])
    assert flows.relative_error(state_exact, state_ode, floor=1e-10) < 1e-8


@pytest.mark.slow
@pytest.mark.parametrize("delta", [-50.0, 0.0, 50.0])
def test_exact_matches_ode_at_horizon_ten_thousand(delta):
    rng = np.random.default_rng(11)
    beta_star = np.array([0.3, -2.0, 1.0])
    a0, w0 = sn.init_from_norm_delta(0.5, delta, rng.standard_normal(3), sign=-1)
    t = np.concatenate([np.linspace(0, 20, 40), np.geomspace(20, 1e4, 40)])
    exact = sn.exact(a0, w0, beta_star, t)
    a, w = flows.single_neuron(a0, w0, beta_star, t)
    error = flows.relative_error(
        np.column_stack([exact.a, exact.w]), np.column_stack([a, w]), 1e-10
    )
    assert error < 1e-8
    assert np.allclose(exact.beta[-1], beta_star, rtol=1e-9)


@SETTINGS
@given(configurations(horizons=(10.0,)))
def test_derived_quantities_match_their_definitions_on_the_ode(config):
    a0, w0, beta_star, eta_a, eta_w, t = config
    exact = sn.exact(a0, w0, beta_star, t, eta_a=eta_a, eta_w=eta_w)
    assume(exact.saddle_margin > 1e-6)
    a, w = flows.single_neuron(a0, w0, beta_star, t, eta_a, eta_w)
    # Kernel distance through explicit d×d NTK matrices, not the solver's inner-product formula.
    kernels = eta_w * a[:, None, None] ** 2 * np.eye(w.shape[1]) + eta_a * np.einsum(
        "ti,tj->tij", w, w
    )
    norms = np.linalg.norm(kernels, axis=(1, 2))
    cosine = np.sum(kernels * kernels[0], axis=(1, 2)) / (norms * norms[0])
    assert np.allclose(exact.kernel_distance, 1 - cosine, atol=1e-9)
    # The integrator itself is accurate to ~1e-8 of the state's scale at these tolerances.
    beta = a[:, None] * w
    loss = 0.5 * np.sum((beta - beta_star) ** 2, axis=1)
    assert np.allclose(exact.loss, loss, atol=1e-7 * (loss.max() + 1))
    mu = a * np.linalg.norm(w, axis=1)
    assert np.allclose(exact.mu, mu, atol=1e-7 * np.abs(mu).max())


@SETTINGS
@given(configurations())
def test_delta_is_conserved_along_the_exact_solution(config):
    a0, w0, beta_star, eta_a, eta_w, t = config
    exact = sn.exact(a0, w0, beta_star, t, eta_a=eta_a, eta_w=eta_w)
    scale = eta_w * exact.a**2 + eta_a * np.sum(exact.w**2, axis=1)
    assert np.all(np.abs(exact.conserved - exact.delta) <= 1e-10 * (scale + 1.0))


def test_gradient_descent_converges_to_the_flow_linearly_in_lr():
    beta_star = np.array([0.0, 1.0])
    a0, w0 = sn.init_from_beta(np.array([-1.0, 0.0]), -2.0)
    horizon = 4.0
    errors = []
    for lr in (0.01, 0.005, 0.0025):
        steps = round(horizon / lr)
        descent = sn.gradient_descent(a0, w0, beta_star, lr, steps)
        exact = sn.exact(a0, w0, beta_star, descent.t)
        errors.append(np.max(np.abs(descent.beta - exact.beta)))
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert np.all((ratios > 1.8) & (ratios < 2.2)), ratios


def test_delta_drift_under_gradient_descent_vanishes_with_lr():
    beta_star = np.array([1.0, 2.0, -1.0])
    a0, w0 = sn.init_from_norm_delta(0.3, 1.5, np.array([1.0, 0.0, 1.0]))
    drifts = []
    for lr in (0.02, 0.01):
        descent = sn.gradient_descent(a0, w0, beta_star, lr, round(5 / lr))
        drifts.append(np.max(np.abs(descent.conserved - descent.delta)))
    assert 0.4 < drifts[1] / drifts[0] < 0.6  # first order in lr


def test_gradient_descent_reports_divergence_without_nan():
    a0, w0 = sn.init_from_norm_delta(1.0, 0.0, np.array([1.0, 1.0]))
    descent = sn.gradient_descent(a0, w0, np.array([5.0, 5.0]), lr=2.0, steps=500)
    assert descent.diverged_at is not None and descent.diverged_at < 500
    for values in (descent.a, descent.w, descent.loss, descent.kernel_distance, descent.mu):
        assert np.all(np.isfinite(values))
    assert descent.t[-1] == (descent.diverged_at - 1) * 2.0


def test_gradient_descent_records_every_kth_step_and_the_last():
    a0, w0 = sn.init_from_norm_delta(0.1, 0.0, np.array([1.0]))
    descent = sn.gradient_descent(a0, w0, np.array([1.0]), lr=0.1, steps=25, every=10)
    assert np.allclose(descent.t, [0.0, 1.0, 2.0, 2.5])


def test_balanced_mu_matches_the_corrected_paper_formula():
    # docs/theory.md (1.16): Kunin et al. eq. 25 holds only for ‖β*‖ = 1; the general form is
    # checked here.
    beta_star = np.array([0.0, 3.0])
    a0, w0 = sn.init_from_beta(np.array([0.4, 0.2]), 0.0)
    t = np.linspace(0, 3, 50)
    exact = sn.exact(a0, w0, beta_star, t)
    norm = 3.0
    c_phi = np.arctanh(exact.phi[0])
    c_mu = 2 * norm * np.cosh(c_phi) ** 2 / exact.mu[0] - (2 * c_phi + np.sinh(2 * c_phi))
    x = c_phi + norm * t
    mu = 2 * norm * np.cosh(x) ** 2 / (2 * x + np.sinh(2 * x) + c_mu)
    assert np.allclose(exact.mu, mu, rtol=1e-10)
    assert np.allclose(exact.phi, np.tanh(x), atol=1e-12)


def test_upstream_nu_matches_the_paper_riccati_solution():
    # Kunin et al. eq. 27 (η = 1): ν = wᵀβ*/a.
    beta_star = np.array([1.0, -0.5])
    a0, w0 = sn.init_from_beta(np.array([0.2, 0.7]), 3.0)
    t = np.linspace(0, 4, 40)
    exact = sn.exact(a0, w0, beta_star, t)
    nu = exact.w @ beta_star / exact.a
    nu0, delta, b_sq = nu[0], exact.delta, beta_star @ beta_star
    R = 0.5 * np.sqrt(delta**2 + 4 * b_sq)
    expected = (2 * R * nu0 * np.cosh(R * t) + (2 * b_sq - delta * nu0) * np.sinh(R * t)) / (
        2 * R * np.cosh(R * t) + (2 * nu0 + delta) * np.sinh(R * t)
    )
    assert np.allclose(nu, expected, rtol=1e-10)


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(0, 10**6), st.floats(-30.0, -0.05))
def test_basin_predicts_the_branch_reached(seed, delta):
    rng = np.random.default_rng(seed)
    beta_star = rng.standard_normal(2)
    a0, w0 = sn.init_from_norm_delta(rng.uniform(0.1, 2), delta, rng.standard_normal(2), sign=1)
    predicted = sn.basin(a0, w0, beta_star)
    # only the sign of a(200) is compared, for starts 1e-6 or more off the separatrix: 1e-9 is
    # ample (and a third of the 1e-12 integration's time on these stiff flows)
    ends = flows.single_neuron(a0, w0, beta_star, np.array([0.0, 200.0]), tolerance=1e-9)
    final_a = ends[0][-1]
    normal = sn.basin_normal(beta_star, delta)
    margin = abs(normal @ np.concatenate([w0, [a0]])) / np.linalg.norm(normal)
    if margin > 1e-6:
        assert predicted == np.sign(final_a)


def test_saddle_margin_flags_the_stable_manifold_of_the_origin():
    # Balanced, one input, β₀ = −β*: the flow runs straight into the saddle at the origin.
    beta_star = np.array([1.0])
    a0, w0 = sn.init_from_beta(-beta_star, 0.0)
    stalled = sn.exact(a0, w0, beta_star, [0.0, 5.0, 50.0])
    assert stalled.saddle_margin < 1e-15
    assert np.all(np.abs(stalled.beta[-1]) < 1e-20) and np.isclose(stalled.loss[-1], 0.5)
    # A small tilt puts it off the manifold (second order in the tilt), and it escapes.
    a0, w0 = sn.init_from_beta(np.array([-1.0, 1e-3]), 0.0)
    escaping = sn.exact(a0, w0, np.array([1.0, 0.0]), [0.0, 30.0])
    assert np.isclose(escaping.saddle_margin, sn.saddle_margin(a0, w0, np.array([1.0, 0.0])))
    assert escaping.saddle_margin > 1e-7
    assert escaping.loss[-1] < 1e-12


def test_basin_is_sign_of_a0_upstream():
    beta_star = np.array([1.0, 1.0])
    for sign in (1, -1):
        a0, w0 = sn.init_from_norm_delta(0.5, 2.0, np.array([-1.0, -1.0]), sign=sign)
        assert sn.basin(a0, w0, beta_star) == sign


def test_basin_hyperplane_matches_kunin_eq_33():
    beta_star = np.array([0.5, -1.5])
    delta = -3.0
    normal = sn.basin_normal(beta_star, delta)
    paper = np.concatenate(
        [beta_star, [0.5 * (delta + np.sqrt(delta**2 + 4 * beta_star @ beta_star))]]
    )
    assert np.allclose(normal, paper)


def test_minima_manifold_points_fit_the_target():
    beta_star = np.array([0.2, -1.0])
    a = np.array([-3.0, -0.5, 0.25, 4.0])
    w = sn.minima_manifold(beta_star, a)
    assert np.allclose(a[:, None] * w, beta_star)


@pytest.mark.parametrize("tau, alpha", [(0.1, 1.0), (1.0, 3.0), (2.0, 0.2)])
def test_tau_alpha_parameterisation(tau, alpha):
    a0, w0 = sn.init_from_tau_alpha(tau, alpha, np.array([3.0, 4.0]))
    assert np.isclose(abs(a0) * np.linalg.norm(w0), tau**2)
    assert np.isclose(sn.conserved_delta(a0, w0), tau**2 * (alpha**2 - alpha**-2))


@pytest.mark.parametrize("delta", [-40.0, -1.0, 0.0, 2.0, 40.0])
@pytest.mark.parametrize("eta_a, eta_w", [(1.0, 1.0), (0.3, 2.0)])
def test_init_from_beta_hits_function_and_delta(delta, eta_a, eta_w):
    beta0 = np.array([0.3, -0.4, 1.2])
    a0, w0 = sn.init_from_beta(beta0, delta, eta_a=eta_a, eta_w=eta_w, sign=-1)
    assert a0 < 0
    assert np.allclose(a0 * w0, beta0)
    assert np.isclose(
        sn.conserved_delta(a0, w0, eta_a=eta_a, eta_w=eta_w), delta, atol=1e-12 * abs(delta) + 1e-13
    )


def test_zero_function_downstream_puts_weight_in_w():
    a0, w0 = sn.init_from_norm_delta(0.0, -4.0, np.array([0.0, 2.0]))
    assert a0 == 0.0 and np.allclose(w0, [0.0, 2.0])


def test_regimes_of_kunin_fig_3_and_4():
    """β* = [0, 1], β₀ = [−1, 0] (their App. D).

    Upstream lazy, balanced rich, downstream delayed rich.
    """
    beta_star, beta0 = np.array([0.0, 1.0]), np.array([-1.0, 0.0])
    t = np.linspace(0, 20, 2001)
    paths = {
        delta: sn.exact(*sn.init_from_beta(beta0, delta), beta_star, t)
        for delta in (-3.0, 0.0, 20.0)
    }
    up, balanced, down = paths[20.0], paths[0.0], paths[-3.0]
    for path in paths.values():  # same start, same end
        assert np.isclose(path.mu[0], 1.0) and np.isclose(path.phi[0], 0.0)
        assert np.isclose(path.mu[-1], 1.0, atol=1e-3) and np.isclose(path.phi[-1], 1.0, atol=1e-3)
    # Upstream: φ aligns exponentially fast, the kernel barely moves, and β follows the
    # straight line from β₀ to β* — gradient flow on β itself (their Fig. 4a).
    assert up.phi[np.searchsorted(t, 1.0)] > 0.99
    assert np.max(up.kernel_distance) < 1e-3
    off_line = np.abs(up.beta @ np.array([-1.0, 1.0]) - 1.0) / np.sqrt(
        2
    )  # distance to the segment's line
    assert np.max(off_line) < 0.02
    # Balanced: μ and φ both change a lot and S leaves zero quickly (rich).
    assert np.min(balanced.mu) < 0.65
    assert balanced.kernel_distance[np.searchsorted(t, 2.0)] > 0.1
    # Downstream: μ collapses towards zero first, S stays small, then jumps (delayed rich);
    # β first shrinks along β₀ before sweeping round to β*.
    dip = np.argmin(down.mu)
    assert down.mu[dip] < 0.15
    assert down.kernel_distance[np.searchsorted(t, 0.5)] < 0.01
    assert np.max(down.kernel_distance) > 0.5
    assert np.all(down.phi[: dip // 2] < 0.1)
    assert np.max(off_line) < np.max(np.abs(down.beta @ np.array([-1.0, 1.0]) - 1.0) / np.sqrt(2))


def test_kernel_distance_shrinks_as_delta_grows():
    beta_star, beta0 = np.array([0.0, 1.0]), np.array([-1.0, 0.0])
    t = np.linspace(0, 30, 300)
    peaks = [
        np.max(sn.exact(*sn.init_from_beta(beta0, delta), beta_star, t).kernel_distance)
        for delta in (1.0, 10.0, 100.0, 1000.0)
    ]
    assert np.all(np.diff(peaks) < 0)
    assert peaks[-1] < 1e-2


@settings(max_examples=examples(60), deadline=None)
@given(
    st.floats(-1e4, 1e4),
    st.floats(1e-8, 1e4),
    st.floats(1e-3, 1e3),
    st.floats(1e-3, 1e3),
    st.floats(1e-3, 1e3),
    st.integers(1, 4),
    st.integers(0, 1000),
)
def test_extreme_valid_input_converges_and_conserves(delta, norm, target, eta_a, eta_w, d, seed):
    rng = np.random.default_rng(seed)
    a0, w0 = sn.init_from_norm_delta(norm, delta, rng.standard_normal(d), eta_a=eta_a, eta_w=eta_w)
    beta_star = target * rng.standard_normal(d)
    t = np.array([0.0, 1e-6, 1.0, 1e3, 1e6, 1e12, 1e300])
    path = sn.exact(a0, w0, beta_star, t, eta_a=eta_a, eta_w=eta_w)
    for values in (path.a, path.w, path.beta, path.mu, path.phi, path.loss, path.kernel_distance):
        assert np.all(np.isfinite(values))
    scale = eta_w * path.a**2 + eta_a * np.sum(path.w**2, axis=1) + abs(path.delta)
    assert np.all(np.abs(path.conserved - path.delta) <= 1e-12 * scale)  # δ at every horizon
    if path.saddle_margin > 1e-6:  # the flow ends at the minimum (by t = 1e12 it may not:
        # with δ ≪ 0 and small η the last approach runs at a rate ~ η²‖β*‖²/|δ|)
        assert np.allclose(
            path.beta[-1], beta_star, rtol=1e-9, atol=1e-12 * np.linalg.norm(beta_star)
        )


def test_exact_at_astronomical_times():
    # Regression: the log-space evaluation must not subtract two huge multiples of t.
    path = sn.exact(0.5, [0.5], [1.0], [1e12, 1e20, 1e308])
    assert np.allclose(path.a, 1.0, rtol=1e-14) and np.allclose(path.w[:, 0], 1.0, rtol=1e-14)
    long = sn.exact(1.0, [0.3, 0.2], [2.0, -1.0], [1e8, 1e12, 1e300])
    assert np.all(np.abs(long.conserved - long.delta) < 1e-14)


def test_small_initialisation_is_exact_relatively():
    # A rich start from τ = 1e-4: compare with an integration whose tolerance is purely relative.
    a0, w0 = sn.init_from_norm_delta(1e-8, 0.0, np.array([1.0, -2.0]))
    beta_star = np.array([0.5, 1.0])
    t = np.linspace(0, 30, 61)
    exact = sn.exact(a0, w0, beta_star, t)
    a, w = flows.single_neuron(a0, w0, beta_star, t, tolerance=1e-12, atol=1e-30)
    assert flows.relative_error(np.column_stack([exact.a, exact.w]), np.column_stack([a, w])) < 1e-8


def test_kernel_distance_is_relatively_accurate_in_the_lazy_regime():
    # S ~ 1e-25 at δ = 1e6: compared with 1 − cos evaluated in 50-digit arithmetic.
    mp = pytest.importorskip("mpmath")
    beta_star, beta0 = np.array([0.0, 1.0]), np.array([-1.0, 0.0])
    for delta in (1e2, 1e4, 1e6):
        a0, w0 = sn.init_from_beta(beta0, delta)
        path = sn.exact(a0, w0, beta_star, np.linspace(0, 20, 101))
        i = int(np.argmax(path.kernel_distance))
        with mp.workdps(50):

            def kernel(a, w):
                a, w = mp.mpf(a), [mp.mpf(v) for v in w]
                return [[a * a * (r == c) + w[r] * w[c] for c in range(2)] for r in range(2)]

            first, now = kernel(a0, w0), kernel(path.a[i], path.w[i])
            inner = sum(first[r][c] * now[r][c] for r in range(2) for c in range(2))
            size = mp.sqrt(sum(v * v for row in first for v in row))
            size *= mp.sqrt(sum(v * v for row in now for v in row))
            reference = float(1 - inner / size)
        assert np.isclose(path.kernel_distance[i], reference, rtol=1e-6), delta


# -- the dashboard's set-up ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ratio", "tau", "delta", "sign"),
    [(1.0, 1.0, 0.0, 1), (4.0, 0.3, -2.0, -1), (0.05, 2.0, 7.5, 1)],
)
def test_setup_starts_where_its_parameters_say(ratio, tau, delta, sign):
    setup = sn.setup(target_norm=1.5, target_angle=60.0, init_angle=-135.0, eta_ratio=ratio)
    assert setup.eta_a * setup.eta_w == pytest.approx(1.0)
    assert setup.eta_a / setup.eta_w == pytest.approx(ratio)
    assert setup.beta_star == pytest.approx(1.5 * np.array([0.5, np.sqrt(3) / 2]))
    a0, w0 = setup.start(tau, delta, sign)
    beta0 = a0 * w0
    assert np.linalg.norm(beta0) == pytest.approx(tau**2)  # ‖β₀‖ = τ²
    assert beta0 / np.linalg.norm(beta0) == pytest.approx(np.array([-1, -1]) / np.sqrt(2))
    assert setup.eta_w * a0**2 - setup.eta_a * w0 @ w0 == pytest.approx(delta, abs=1e-12)
    assert np.sign(a0) == sign


def test_regimes_split_at_twice_the_target_size():
    sides = [(-5.0, "downstream"), (-1.9, "mildly downstream"), (0.0, "balanced")]
    sides += [(1.9, "mildly upstream"), (2.1, "upstream")]
    for delta, name in sides:
        assert sn.regime(delta, 1.0) == name
    assert sn.regime(3.0, 2.0) == "mildly upstream"


@pytest.mark.parametrize("delta", [-2.0, 0.0, 0.7])
def test_the_level_set_is_where_delta_is_conserved(delta):
    beta_star = np.array([0.3, -1.2])
    sheets = sn.level_set(delta, beta_star, 2.0, 3.0, eta_a=2.0, eta_w=0.5)
    assert len(sheets) == (2 if delta > 0 else 1)
    for sheet in sheets:
        inside = np.isfinite(sheet.a)
        assert inside.mean() > 0.3
        w1, w2, a = sheet.w1[inside], sheet.w2[inside], sheet.a[inside]
        assert 0.5 * a**2 - 2.0 * (w1**2 + w2**2) == pytest.approx(delta, abs=1e-12)
        assert np.all(np.hypot(w1, w2) <= 2.0 * 1.0001) and np.all(np.abs(a) <= 3.0 * 1.0001)
        expected = 0.5 * ((a * w1 - 0.3) ** 2 + (a * w2 + 1.2) ** 2)
        assert sheet.loss[inside] == pytest.approx(expected)


@pytest.mark.parametrize("delta", [-2.0, 0.0, 0.7])
def test_no_row_of_the_level_set_is_a_single_point(delta):
    """A drawn surface shades each cell by its normal: a row of the grid at one point (the
    pole of a sheet, the cone's apex) makes cells of zero area."""
    for sheet in sn.level_set(delta, np.array([0.3, -1.2]), 2.0, 3.0):
        radius = np.hypot(sheet.w1, sheet.w2)  # (one radius a row: the angles go round)
        drawn = radius[np.isfinite(radius).any(axis=1)]
        assert len(drawn) > 5 and np.all(np.nanmax(drawn, axis=1) > 0)
