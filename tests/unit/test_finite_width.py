"""Finite-width network on one-dimensional data (Xu & Ziyin): exact vs. ODE, GD, paper facts."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solvers import finite_width as fw
from tests import examples, flows

SETTINGS = settings(
    max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def configurations(draw, widths=(1, 3, 10, 100, 1000)):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    d = draw(st.sampled_from(widths))
    d0 = draw(st.integers(1, 3))
    x = rng.standard_normal(d0)
    x *= draw(st.floats(0.2, 3.0)) / np.linalg.norm(x)
    y = draw(st.floats(-3.0, 3.0))
    sigma_u, sigma_w = np.exp(rng.uniform(-2.0, 0.5, 2))
    kind = draw(st.sampled_from(["gaussian", "parallel", "near parallel"]))
    if kind == "gaussian":
        u0, W0 = fw.gaussian_init(d, d0, sigma_u, sigma_w, seed)
    elif kind == "parallel":
        u0, W0 = fw.parallel_init(d, x, sigma_u, sigma_w, seed, sign=draw(st.sampled_from([1, -1])))
    else:
        u0, W0 = fw.near_parallel_init(d, x, sigma_u, sigma_w, seed)
    gamma = float(draw(st.sampled_from([1.0, d**-0.5, 1.0 / d])))
    eta_u, eta_w = (float(v) for v in np.exp(rng.uniform(-1.0, 1.0, 2)))
    return u0, W0, x, y, gamma, eta_u, eta_w


def _horizon(u0, W0, x, y, gamma, eta_u, eta_w, cap):
    # The integrator's cost grows like horizon/t_c; cap the horizon in units of t_c.
    t_c = fw.exact(u0, W0, x, y, [0.0], gamma=gamma, eta_u=eta_u, eta_w=eta_w).t_c
    return min(cap, 300 * t_c)


@SETTINGS
@given(configurations(widths=(1, 3, 10, 100)), st.sampled_from([10.0, 1e3]))
def test_exact_matches_ode(config, cap):
    """Widths to 100 and horizons to 10³ (the long haul, widths to 1000 and horizons to 10⁴,
    is the slow test below)."""
    _check_against_ode(config, cap)


@pytest.mark.slow
@SETTINGS
@given(configurations(), st.sampled_from([10.0, 1e3, 1e4]))
def test_exact_matches_ode_wide_and_long(config, cap):
    _check_against_ode(config, cap)


def _check_against_ode(config, cap):
    u0, W0, x, y, gamma, eta_u, eta_w = config
    horizon = _horizon(*config, cap)
    t = np.concatenate([[0.0], np.geomspace(horizon * 1e-4, horizon, 60)])
    exact = fw.exact(u0, W0, x, y, t, gamma=gamma, eta_u=eta_u, eta_w=eta_w)
    u, W = flows.finite_width(u0, W0, x, y, t, gamma, eta_u, eta_w)
    state_exact = np.concatenate([exact.u, exact.W.reshape(t.size, -1)], axis=1)
    state_ode = np.concatenate([u, W.reshape(t.size, -1)], axis=1)
    assert flows.relative_error(state_exact, state_ode, floor=1e-10) < 1e-8
    # Derived quantities from the integrated parameters, by their definitions.
    output = gamma * np.einsum("ti,tij,j->t", u, W, x)
    # A relative error ε in the states allows ~2ε·γ‖u‖‖Wx‖ in the output.
    scale = gamma * np.linalg.norm(u, axis=1).max() * np.linalg.norm(W @ x, axis=1).max()
    assert np.allclose(exact.output, output, atol=2e-8 * scale + 1e-12 * abs(y))
    kernels = gamma**2 * (
        eta_u * np.einsum("tij,tik->tjk", W, W)
        + eta_w * np.sum(u**2, 1)[:, None, None] * np.eye(x.size)
    )
    ntk = np.einsum("i,tij,j->t", x, kernels, x)
    assert np.allclose(exact.ntk, ntk, rtol=1e-7)
    norms = np.linalg.norm(kernels, axis=(1, 2))
    distance = 1 - np.sum(kernels * kernels[0], axis=(1, 2)) / (norms * norms[0])
    assert np.allclose(exact.kernel_distance, distance, atol=1e-8)


@pytest.mark.slow
def test_exact_matches_ode_at_horizon_ten_thousand():
    x = np.array([1.0, -0.5])
    u0, W0 = fw.gaussian_init(50, 2, 0.02, 0.02, seed=3)
    t = np.concatenate([np.linspace(0, 50, 30), np.geomspace(50, 1e4, 30)])
    exact = fw.exact(u0, W0, x, 0.3, t, gamma=0.05, eta_u=0.7, eta_w=1.3)
    assert 1 < exact.t_c < 100
    u, W = flows.finite_width(u0, W0, x, 0.3, t, 0.05, 0.7, 1.3)
    error = flows.relative_error(
        np.concatenate([exact.u, exact.W.reshape(t.size, -1)], 1),
        np.concatenate([u, W.reshape(t.size, -1)], 1),
        floor=1e-10,
    )
    assert error < 1e-8
    assert exact.loss[-1] < 1e-20


def _paper_A(alpha_plus, alpha_minus, t_c, t):
    """A(t) exactly as printed in Xu & Ziyin eqs. 8–9, with α₋ > 0 (docs/theory.md (2.7) and
    §2.5, misprint b)."""
    xi = (1 - alpha_plus) / (1 + alpha_minus) * np.exp(-4 * t / t_c)
    return (alpha_plus + xi * alpha_minus) / (1 - xi)


@SETTINGS
@given(configurations(widths=(2, 10, 100)))
def test_paper_formulas_hold_on_the_exact_solution(config):
    u0, W0, x, y, gamma, _, _ = config
    # x = 1, η = 1: the setting of their eq. 14 and §3.3.
    x = np.array([1.0])
    W0 = W0[:, :1]
    t = np.linspace(0, 5 * _horizon(u0, W0, x, y, gamma, 1.0, 1.0, 1e3) / 300, 40)
    exact = fw.exact(u0, W0, x, y, t, gamma=gamma)
    p0, q0 = (W0[:, 0] + u0) / 2, (W0[:, 0] - u0) / 2
    P, Q, cross = np.mean(p0**2), np.mean(q0**2), np.mean(p0 * q0)
    assert np.isclose(exact.P, P) and np.isclose(exact.Q, Q)
    d = u0.size
    t_c = 1 / np.sqrt(gamma**2 * y**2 + 4 * (gamma**2 * d) ** 2 * P * Q)  # eq. 10
    alpha_plus = (gamma * y + 1 / t_c) / (2 * gamma**2 * d * P)  # eq. 11
    alpha_minus = (1 / t_c - gamma * y) / (2 * gamma**2 * d * P)
    assert np.isclose(exact.t_c, t_c) and np.isclose(exact.alpha_plus, alpha_plus, rtol=1e-8)
    assert np.isclose(exact.alpha_plus * exact.alpha_minus, Q / P, rtol=1e-8)
    A = _paper_A(alpha_plus, alpha_minus, t_c, t)
    if exact.mechanism != "rescaling":  # for parallel layers eq. 14 is 0/0 in floating point
        zeta = (A * P - Q / A) / np.sqrt((A * P + Q / A) ** 2 - (2 * cross) ** 2)  # eq. 14
        assert np.allclose(exact.zeta, zeta, atol=1e-7)
    u_sq = d * (A * P + Q / A) - 2 * d * cross  # §3.3
    assert np.allclose(exact.u_norm**2, u_sq, rtol=1e-7)


@SETTINGS
@given(configurations(widths=(3, 30)))
def test_ntk_drives_the_output(config):
    u0, W0, x, y, gamma, eta_u, eta_w = config
    t_c = fw.exact(u0, W0, x, y, [0.0], gamma=gamma, eta_u=eta_u, eta_w=eta_w).t_c
    t = np.array([0.3, 1.0, 3.0]) * t_c
    step = 1e-6 * t_c
    around = fw.exact(
        u0, W0, x, y, np.concatenate([t - step, t, t + step]), gamma=gamma, eta_u=eta_u, eta_w=eta_w
    )
    derivative = (around.output[6:] - around.output[:3]) / (2 * step)
    expected = -2 * around.ntk[3:6] * (around.output[3:6] - y)  # df/dt = −2K(f − y)
    assert np.allclose(derivative, expected, rtol=1e-5, atol=1e-7 * np.abs(expected).max())


@SETTINGS
@given(configurations(widths=(3, 30)))
def test_each_neuron_keeps_its_hyperbola_on_the_integrated_flow(config):
    """The model facts behind Theorem 1, checked on the independent ODE: 4ρ²pᵢqᵢ =
    η_u hᵢ² − η_w ρ² uᵢ² is conserved per neuron, and W moves only along x."""
    u0, W0, x, y, gamma, eta_u, eta_w = config
    t = np.linspace(0, _horizon(*config, 10.0), 20)
    u, W = flows.finite_width(u0, W0, x, y, t, gamma, eta_u, eta_w)
    hidden = W @ x
    rho = np.linalg.norm(x)
    invariant = eta_u * hidden**2 - eta_w * rho**2 * u**2
    scale = eta_u * hidden**2 + eta_w * rho**2 * u**2
    assert np.all(np.abs(invariant - invariant[0]) <= 1e-8 * (scale + scale[0]) + 1e-14)
    orthogonal = np.linalg.svd(x[None, :])[2][1:]
    assert np.allclose(W @ orthogonal.T, W0 @ orthogonal.T, atol=1e-10)


@SETTINGS
@given(configurations())
def test_zeta_is_monotone_and_rises_iff_alpha_plus_above_one(config):
    u0, W0, x, y, gamma, eta_u, eta_w = config
    t = np.geomspace(1e-4, _horizon(*config, 1e4), 200)
    exact = fw.exact(
        u0, W0, x, y, np.concatenate([[0.0], t]), gamma=gamma, eta_u=eta_u, eta_w=eta_w
    )
    steps = np.diff(exact.zeta)
    tolerance = 1e-12
    if exact.mechanism == "alignment":
        assert np.all(steps >= -tolerance)
    elif exact.mechanism == "disalignment":
        assert np.all(steps <= tolerance)
    elif exact.mechanism == "rescaling":
        # Parallel layers stay parallel (ζ = ±1) wherever both are resolvable: with y = 0 one
        # of them decays to zero and its direction is eventually lost to rounding.
        resolvable = (exact.u_norm > 1e-8 * exact.u_norm[0]) & (
            np.linalg.norm(exact.hidden, axis=1) > 1e-8 * np.linalg.norm(exact.hidden[0])
        )
        assert np.all(np.abs(np.abs(exact.zeta[resolvable]) - 1) < 1e-6)


def test_gradient_descent_converges_to_the_flow_linearly_in_lr():
    x = np.array([1.0, 2.0])
    u0, W0 = fw.gaussian_init(8, 2, 0.5, 0.5, seed=2)
    errors = []
    for lr in (0.004, 0.002, 0.001):
        descent = fw.gradient_descent(u0, W0, x, 1.0, lr, round(1.0 / lr), gamma=0.3)
        exact = fw.exact(u0, W0, x, 1.0, descent.t, gamma=0.3)
        errors.append(np.max(np.abs(descent.u - exact.u)) + np.max(np.abs(descent.W - exact.W)))
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert np.all((ratios > 1.8) & (ratios < 2.2)), ratios


def test_gradient_descent_keeps_the_hyperbolas_up_to_order_lr():
    x = np.array([0.7])
    u0, W0 = fw.gaussian_init(20, 1, 1.0, 1.0, seed=4)
    drifts = []
    for lr in (0.01, 0.005):
        descent = fw.gradient_descent(u0, W0, x, 2.0, lr, round(2.0 / lr), gamma=0.2)
        invariant = descent.hidden**2 - x @ x * descent.u**2
        drifts.append(np.max(np.abs(invariant - invariant[0])))
    assert 0.4 < drifts[1] / drifts[0] < 0.6


def test_gradient_descent_reports_divergence():
    u0, W0 = fw.gaussian_init(10, 1, 1.0, 1.0, seed=0)
    descent = fw.gradient_descent(u0, W0, [1.0], 1.0, lr=5.0, steps=200)
    assert descent.diverged_at is not None
    assert np.all(np.isfinite(descent.loss)) and np.all(np.isfinite(descent.zeta))


# Xu & Ziyin Table 1: (c_η, c_γ override) → phase per scaling, learning rates equal.
TABLE_1 = {
    "NTK": [
        (0, None, "kernel"),
        (0, None, "kernel"),
        (1, -1, "feature learning"),
        (0, -0.5, "kernel"),
    ],
    "MF": [
        (0, None, "frozen"),
        (1, None, "feature learning"),
        (1, -1, "feature learning"),
        (0, -0.5, "kernel"),
    ],
    "Xavier": [
        (0, None, "feature learning"),
        (0, None, "feature learning"),
        (0, 0, "feature learning"),
        (-2, 1, "kernel"),
    ],
    "Kaiming": [
        (0, None, "unstable"),
        (-1, None, "kernel"),
        (1, -1, "feature learning"),
        (-1, 0, "kernel"),
    ],
    "lazy": [
        (0, None, "unstable"),
        (-2, None, "kernel"),
        (0, 0, "feature learning"),
        (-2, 1, "kernel"),
    ],
}


@pytest.mark.parametrize("scaling", list(TABLE_1))
def test_phase_reproduces_table_1(scaling):
    exponents = fw.SCALINGS[scaling]
    for c_eta, c_gamma, expected in TABLE_1[scaling]:
        gamma = exponents["c_gamma"] if c_gamma is None else c_gamma
        result = fw.phase(
            exponents["c_d"],
            gamma,
            exponents["c_u"],
            exponents["c_w"],
            c_eta,
            c_eta,
            zero_output_init=(scaling == "lazy"),
        )
        assert result == expected, (scaling, c_eta, c_gamma)


def test_phase_needs_p_over_q_to_one_for_the_kernel_phase():
    # Finite width, balanced learning rates and scales, non-zero initial output: features are
    # learned even where the initialisation term dominates (Theorem 2).
    assert fw.phase(0, 1, 0, 0, -2, -2) == "feature learning"
    assert fw.phase(0, 1, 0, 0, -2, -2, zero_output_init=True) == "kernel"
    assert fw.phase(1, -0.5, 0, 0, 0, 0, independent_init=False) == "feature learning"


def test_xu_ziyin_figure_1():
    """d = 10⁴, N(0, 1) layers, x = 1: alignment (tiny in the kernel phase), rescaling for
    parallel layers, disalignment for near-parallel layers with a large output."""
    d, x, y = 10_000, np.array([1.0]), 1.0
    u0, W0 = fw.gaussian_init(d, 1, 1.0, 1.0, seed=0)

    def run(u, W, gamma):
        t_c = fw.exact(u, W, x, y, [0.0], gamma=gamma).t_c
        return fw.exact(u, W, x, y, np.linspace(0, 10 * t_c, 50), gamma=gamma)

    kernel, feature = run(u0, W0, d**-0.5), run(u0, W0, 1.0 / d)
    assert abs(kernel.zeta[0]) < 0.05 and abs(feature.zeta[0]) < 0.05
    assert kernel.mechanism == feature.mechanism == "alignment"
    assert kernel.zeta[-1] - kernel.zeta[0] < 0.05  # negligible in the kernel phase
    assert feature.zeta[-1] - feature.zeta[0] > 0.2  # O(1) in the feature-learning phase
    assert kernel.ntk_change[-1] < 0.05 < feature.ntk_change[-1]
    up, Wp = fw.parallel_init(d, x, 1.0, 1.0, seed=0)
    parallel = run(up, Wp, 1.0 / d)
    assert parallel.mechanism == "rescaling" and np.allclose(parallel.zeta, 1.0)
    un, Wn = fw.near_parallel_init(d, x, 1.0, 1.0, seed=0)
    near = run(un, Wn, d**-0.5)
    assert near.output[0] > 10 * y and near.zeta[0] > 0.98
    assert near.mechanism == "disalignment" and near.zeta[-1] < near.zeta[0] - 0.01


def test_saddle_when_p_vanishes():
    # u = −h: p = 0 (antiparallel, η = 1, x = 1), P = 0: the flow runs into the saddle at the
    # origin.
    W0 = np.array([[0.5], [-1.0], [0.3]])
    u0 = -W0[:, 0]
    t = np.linspace(0, 50, 60)
    exact = fw.exact(u0, W0, [1.0], 1.0, t)
    assert exact.P == 0 and exact.alpha_plus == np.inf
    assert (
        np.all(np.isfinite(exact.loss))
        and exact.loss[-1] > 0.99
        and np.all(np.abs(exact.u[-1]) < 1e-12)
    )
    # A simulation follows it while rounding has not yet pushed it off the saddle's stable
    # manifold (later it escapes; the exact flow, correctly, does not).
    early = t <= 4
    u, _ = flows.finite_width(u0, W0, np.array([1.0]), 1.0, t[early])
    assert np.max(np.abs(exact.u[early] - u)) < 1e-10


def test_small_initialisation_with_negative_target_is_exact_relatively():
    # Regression: A(t) → 0 here; √A must not be formed as √(1 + (A − 1)).
    assert abs(fw.exact([0.0], [[1e-6]], [1.0], -1.0, [100.0]).output[0] + 1.0) < 1e-14
    u0, W0 = fw.gaussian_init(10, 2, 1e-6, 1e-6, seed=0)
    x, t = np.array([1.0, 0.5]), np.linspace(0, 80, 41)
    exact = fw.exact(u0, W0, x, -1.0, t)
    u, W = flows.finite_width(u0, W0, x, -1.0, t, tolerance=1e-12, atol=1e-30)
    states = (
        np.concatenate([exact.u, exact.W.reshape(t.size, -1)], 1),
        np.concatenate([u, W.reshape(t.size, -1)], 1),
    )
    assert flows.relative_error(*states) < 1e-8


def test_alpha_plus_is_the_limit_of_A_even_when_P_vanishes():
    W0 = np.array([[0.5], [-1.0], [0.3]])
    u0 = -W0[:, 0]  # p = 0: P = 0, and with y < 0 the flow still settles
    exact = fw.exact(u0, W0, [1.0], -1.0, [0.0, 1e3])
    q0, q = (W0[:, 0] - u0) / 2, (exact.hidden[-1] - exact.u[-1]) / 2
    assert np.isclose(exact.alpha_plus, (q0[0] / q[0]) ** 2)  # q = q₀/√A
    assert abs(exact.output[-1] + 1.0) < 1e-12


def test_zero_initialisation_stays_put():
    exact = fw.exact(np.zeros(4), np.zeros((4, 2)), [1.0, 1.0], 2.0, [0.0, 1.0, 1e4])
    assert exact.mechanism == "none"
    assert np.all(exact.u == 0) and np.all(exact.W == 0) and np.all(exact.loss == 4.0)
    assert np.all(exact.ntk_change == 0) and np.all(np.isfinite(exact.kernel_distance))


@settings(max_examples=examples(60), deadline=None)
@given(
    st.integers(1, 50),
    st.integers(1, 3),
    st.floats(1e-6, 1e3),
    st.floats(1e-6, 1e3),
    st.floats(-1e3, 1e3),
    st.floats(1e-4, 1e2),
    st.floats(1e-3, 1e3),
    st.integers(0, 100),
)
def test_extreme_valid_input_converges(d, d0, sigma_u, sigma_w, y, gamma, eta, seed):
    u0, W0 = fw.gaussian_init(d, d0, sigma_u, sigma_w, seed)
    x = np.random.default_rng(seed).standard_normal(d0)
    t = [0.0, 1e-3, 1.0, 1e4, 1e9, 1e300]
    try:
        exact = fw.exact(u0, W0, x, y, t, gamma=gamma, eta_u=eta, eta_w=1 / eta)
    except ValueError as error:  # only a refusal that says the scales overflow is acceptable
        assert "overflow" in str(error)
        return
    for values in (
        exact.u,
        exact.W,
        exact.loss,
        exact.zeta,
        exact.ntk,
        exact.ntk_change,
        exact.kernel_distance,
    ):
        assert np.all(np.isfinite(values))
    rho = np.linalg.norm(x)
    invariant = eta * exact.hidden**2 - rho**2 * exact.u**2 / eta  # conserved per neuron
    scale = eta * exact.hidden**2 + rho**2 * exact.u**2 / eta  # its rounding scale
    assert np.all(np.abs(invariant - invariant[0]) <= 1e-12 * (scale + scale[0]) + 1e-300)
    if exact.P > 0 and 50 * exact.t_c < 1e9:  # learned long before t = 1e9
        assert abs(exact.output[-2] - y) <= 1e-8 * max(abs(y), abs(exact.output[0]), 1e-12)
        assert np.allclose(exact.u[-1], exact.u[-2], rtol=1e-12, atol=1e-300)


# -- ‖W‖ without forming W ----------------------------------------------------------------------


@pytest.mark.parametrize(("d0", "y", "seed"), [(1, 2.0, 0), (3, -1.5, 5), (2, 0.0, 9)])
def test_w_norm_of_the_exact_flow_is_the_norm_of_the_integrated_W(d0, y, seed):
    x = np.linspace(1.0, 2.0, d0)
    u0, W0 = fw.gaussian_init(30, d0, 0.3, 0.8, seed)
    t_c = fw.exact(u0, W0, x, y, [0.0], gamma=0.1, eta_u=2.0, eta_w=0.5).t_c
    t = np.geomspace(1e-3, 5.0, 25) * t_c  # the first point after t = 0, as on a log axis
    exact = fw.exact(u0, W0, x, y, t, gamma=0.1, eta_u=2.0, eta_w=0.5)
    _, W = flows.finite_width(u0, W0, x, y, t, 0.1, 2.0, 0.5)
    assert np.allclose(exact.w_norm, np.linalg.norm(W, axis=(1, 2)), rtol=1e-8)
    assert np.allclose(exact.w_norm, np.linalg.norm(exact.W, axis=(1, 2)), rtol=1e-12)


# -- the networks the views pose --------------------------------------------------------------


def test_network_poses_the_problem_it_describes():
    built = fw.network(
        40, y=-1.5, d0=3, x_norm=2.0, gamma_rule="ntk", sigma_u=0.5, sigma_w=2.0, seed=7
    )
    assert np.allclose(built.x, 2.0 / np.sqrt(3)) and built.rho == pytest.approx(2.0)
    assert built.gamma == pytest.approx(1 / np.sqrt(40)) and built.y == -1.5
    rng = np.random.default_rng(7)  # the second layer's draw first, then the first layer's
    assert np.array_equal(built.u0, 0.5 * rng.standard_normal(40))
    assert np.array_equal(built.W0, 2.0 * rng.standard_normal((40, 3)))
    assert fw.network(40, y=1.0, gamma_rule="mf").gamma == pytest.approx(1 / 40)
    assert fw.network(40, y=1.0, gamma_rule="free", gamma=0.3).gamma == 0.3
    # parallel layers: u ∥ W x̂ and W of rank one along x; nearly parallel: a little noise added
    parallel = fw.network(50, y=1.0, d0=2, init="parallel", sigma_u=0.4, sigma_w=1.5, seed=1)
    unit = parallel.x / parallel.rho
    assert parallel.start.zeta[0] == pytest.approx(1.0)
    assert np.allclose(parallel.W0, np.outer(parallel.W0 @ unit, unit))
    assert np.allclose(parallel.W0 @ unit, 1.5 / 0.4 * parallel.u0)
    near = fw.network(2000, y=1.0, d0=2, init="near_parallel", noise=0.1, seed=1)
    rest = near.W0 - np.outer(near.u0, near.x / near.rho)
    assert np.linalg.norm(rest) / np.sqrt(2000 * 2) == pytest.approx(0.1, rel=0.05)
    assert 0.98 < near.start.zeta[0] < 1.0
    eta_u, eta_w = fw.balanced_rates(9.0)
    assert (eta_u, eta_w) == pytest.approx((3.0, 1 / 3))
    for bad in ({"init": "orthogonal"}, {"gamma_rule": "sqrt"}, {"x_norm": 0.0}):
        with pytest.raises(ValueError):
            fw.network(5, y=1.0, **bad)


def test_the_time_unit_is_t_c_or_what_stands_in_for_it():
    plain = fw.network(100, y=2.0, gamma_rule="mf")
    assert plain.time_unit() == fw.TimeUnit(plain.start.t_c, "t_c")
    # parallel layers (Q = 0) and y = 0: t_c = ∞; the output starts to move at rate 2K(0)
    parallel = fw.network(100, y=0.0, gamma_rule="ntk", init="parallel", seed=3)
    assert parallel.start.t_c == np.inf
    u, h = parallel.u0, parallel.W0 @ parallel.x
    kernel = parallel.gamma**2 * (h @ h + u @ u)  # K = γ²(η_u‖Wx‖² + η_w‖u‖²‖x‖²), all 1
    unit = parallel.time_unit()
    assert unit.basis == "kernel" and unit.value == pytest.approx(1 / (2 * kernel))
    frozen = fw.network(5, y=0.0, sigma_u=0.0, sigma_w=0.0)  # K(0) = 0: nothing moves
    assert frozen.time_unit() == fw.TimeUnit(1.0, "none")


@pytest.mark.parametrize(
    ("sigma", "y", "rule"),
    [
        (1e-3, 2.0, "ntk"),
        (1e-2, 2.0, "mf"),
        (1e-3, -1.5, "ntk"),
        (1.0, 2.0, "mf"),
        (10.0, 2.0, "mf"),
    ],
)
def test_learning_time_is_when_the_exact_loss_is_gone(sigma, y, rule):
    built = fw.network(1000, y=y, gamma_rule=rule, sigma_u=sigma, sigma_w=sigma)
    alpha, t_c = built.start.alpha_plus, built.start.t_c
    needed = fw.learning_time(alpha)
    path = built.exact(np.array([0.0, needed * t_c]))
    assert path.loss[-1] < 1e-3 * path.loss[0]
    escape = abs(np.log(alpha)) / 4 - 1  # a small start is still on its plateau a t_c before
    if escape > 0:
        assert built.exact(np.array([escape * t_c])).loss[0] > 0.5 * path.loss[0]
    assert fw.learning_time(np.inf) == np.inf and fw.learning_time(0.0) == np.inf


@pytest.mark.parametrize(("eta_u", "eta_w", "rho"), [(1.0, 1.0, 1.0), (3.0, 1 / 3, 1.5)])
def test_hyperbolas_are_where_each_neuron_moves(eta_u, eta_w, rho):
    u0, W0 = fw.gaussian_init(12, 1, 1.0, 1.0, seed=2)
    x = np.array([rho])
    path = fw.exact(u0, W0, x, 2.0, [0.0, 20.0], gamma=1 / 12, eta_u=eta_u, eta_w=eta_w)
    u_max, h_max = 1.1 * np.max(np.abs(path.u)), 1.1 * np.max(np.abs(path.hidden))
    curves = fw.hyperbolas(
        path.u[0], path.hidden[0], rho=rho, eta_u=eta_u, eta_w=eta_w, u_max=u_max, h_max=h_max
    )
    assert curves.u.shape == (12, 64) and curves.h.shape == (12, 64)
    # each branch holds its neuron's conserved η_u h² − η_w ρ² u², which the flow keeps
    start = eta_u * path.hidden[0] ** 2 - eta_w * rho**2 * path.u[0] ** 2
    end = eta_u * path.hidden[-1] ** 2 - eta_w * rho**2 * path.u[-1] ** 2
    assert np.allclose(start, end)
    scale = np.max(np.abs(start))
    for i in range(12):
        inside = np.isfinite(curves.u[i])
        assert inside.sum() > 10 and np.all(np.isfinite(curves.h[i]) == inside)
        value = eta_u * curves.h[i][inside] ** 2 - eta_w * rho**2 * curves.u[i][inside] ** 2
        assert np.allclose(value, start[i], atol=1e-9 * scale)
        assert np.all(np.abs(curves.u[i][inside]) <= 1.02 * u_max)
        # the branch the neuron is on: p and q keep their signs
        p = np.sqrt(eta_u) * curves.h[i][inside] + np.sqrt(eta_w) * rho * curves.u[i][inside]
        q = np.sqrt(eta_u) * curves.h[i][inside] - np.sqrt(eta_w) * rho * curves.u[i][inside]
        p0 = np.sqrt(eta_u) * path.hidden[0, i] + np.sqrt(eta_w) * rho * path.u[0, i]
        q0 = np.sqrt(eta_u) * path.hidden[0, i] - np.sqrt(eta_w) * rho * path.u[0, i]
        assert np.all(np.sign(p) == np.sign(p0)) and np.all(np.sign(q) == np.sign(q0))
    # the asymptote q = 0 is √η_u h = √η_w ρ u
    assert curves.slope == pytest.approx(np.sqrt(eta_w) * rho / np.sqrt(eta_u))


# -- Table 1 and the phase plane ----------------------------------------------------------------

#: Xu & Ziyin Table 1 as printed: per scheme its four blocks as (c_η, c_γ, phase) — c_η = 0 with
#: the scheme's own c_γ, c_η*, (c_η⁺, c_γ⁺), (c_η⁻, c_γ⁻); their "learning" is feature learning
PRINTED = {
    "NTK": [(0, -0.5, "kernel"), (0, -0.5, "kernel"), (1, -1, "learning"), (0, -0.5, "kernel")],
    "MF": [(0, -1, "frozen"), (1, -1, "learning"), (1, -1, "learning"), (0, -0.5, "kernel")],
    "Xavier": [(0, 0, "learning"), (0, 0, "learning"), (0, 0, "learning"), (-2, 1, "kernel")],
    "Kaiming": [(0, 0, "unstable"), (-1, 0, "kernel"), (1, -1, "learning"), (-1, 0, "kernel")],
    "lazy": [(0, 1, "unstable"), (-2, 1, "kernel"), (0, 0, "learning"), (-2, 1, "kernel")],
}
WORDS = {"learning": "feature learning"}


def test_table_1_is_the_printed_table():
    assert list(fw.TABLE_1) == list(PRINTED) == list(fw.SCALINGS)
    for scheme, blocks in PRINTED.items():
        table = fw.PhasePlane.as_in_table(scheme).table()
        assert [entry.block for entry in table] == list(fw.TABLE_1_BLOCKS)
        for entry, (c_eta, c_gamma, printed) in zip(table, blocks, strict=True):
            assert (entry.c_eta, entry.c_gamma) == (c_eta, c_gamma), (scheme, entry.block)
            assert entry.phase == WORDS.get(printed, printed), (scheme, entry.block)
        # the first two blocks sit at the scheme's own output scale
        own = fw.SCALINGS[scheme]["c_gamma"]
        assert fw.TABLE_1[scheme]["as initialised"] == (0.0, own)
        assert fw.TABLE_1[scheme]["stable"][1] == own


def test_phase_table_states_the_rule_and_every_scheme_at_your_learning_rates():
    # MF⁺ by hand: feature term −2 + 1 + 1 = 0, kernel term −2 + 1 + max(1, 1) = 0, m = 0;
    # P/Q → 1 (c_d = 1, independent layers) but the kernel term does not strictly dominate
    table = fw.phase_table(1, -1, 0, 0, 1, 1)
    assert (table.terms.feature_term, table.terms.kernel_term, table.terms.m) == (0, 0, 0)
    assert table.terms.p_over_q_to_one and table.phase == "feature learning"
    assert [row.scheme for row in table.rows] == list(PRINTED)
    for row in table.rows:
        scaling = fw.SCALINGS[row.scheme]
        assert row.exponents == (scaling["c_d"], scaling["c_gamma"], scaling["c_u"], scaling["c_w"])
        assert [e.phase for e in row.table] == [WORDS.get(b[2], b[2]) for b in PRINTED[row.scheme]]
    # at c_η = 0 each scheme is in the phase Table 1 prints for it "as initialised"
    at_zero = fw.phase_table(1, -0.5, 0, 0, 0, 0)
    for row in at_zero.rows:
        printed = PRINTED[row.scheme][0][2]
        assert row.yours == WORDS.get(printed, printed), row.scheme
    # finite width, γ = κ, η = κ⁻²: kernel only with Chizat's zero initial output
    assert fw.phase_table(0, 1, 0, 0, -2, -2).phase == "feature learning"
    assert fw.phase_table(0, 1, 0, 0, -2, -2, zero_output_init=True).phase == "kernel"


def _boundary_by_hand(c_d, c_u, c_w, c_eta, split):
    """c_γ with m = 0: 2c_γ + c_ηu + c_ηw = 0 or 2c_γ + c_d + max(c_ηw + c_u, c_ηu + c_w) = 0,
    whichever term is larger."""
    eta_u, eta_w = c_eta + split / 2, c_eta - split / 2
    return -max(eta_u + eta_w, c_d + max(eta_w + c_u, eta_u + c_w)) / 2


@pytest.mark.parametrize("scheme", list(PRINTED))
@pytest.mark.parametrize("split", [0.0, 1.0, -0.75])
def test_the_line_m_equals_zero_and_its_kink(scheme, split):
    plane = fw.PhasePlane(scheme, split=split)
    scaling = fw.SCALINGS[scheme]
    c_d, c_u, c_w = scaling["c_d"], scaling["c_u"], scaling["c_w"]
    etas = np.linspace(-3.0, 3.0, 25)
    expected = [_boundary_by_hand(c_d, c_u, c_w, eta, split) for eta in etas]
    assert np.allclose(plane.boundary(etas), expected)
    # the kink: where the two terms meet, c_η = c_d + max(c_u − split/2, c_w + split/2)
    kink = c_d + max(c_u - split / 2, c_w + split / 2)
    assert plane.kink == pytest.approx(kink)
    gamma = float(plane.boundary(kink)[0])
    terms = fw.phase_terms(c_d, gamma, c_u, c_w, kink + split / 2, kink - split / 2)
    assert terms.feature_term == pytest.approx(terms.kernel_term) == pytest.approx(0.0)
    # right of the kink the line is c_γ = −c_η and learns features
    assert plane.boundary(kink + 1.0)[0] == pytest.approx(-(kink + 1.0))
    assert plane.phase(kink + 1.0, -(kink + 1.0)) == "feature learning"


def test_the_line_left_of_the_kink_follows_theorem_2():
    # c_d = 1 with independent layers: P/Q → 1, kernel
    for scheme in ("NTK", "MF", "Xavier", "Kaiming"):
        assert fw.PhasePlane(scheme).left_phase == "kernel"
    # fixed width: kernel with a zero initial output (case 2) or unbalanced learning rates
    # (case 3, c_u + c_ηw ≠ c_w + c_ηu), else feature learning
    assert fw.PhasePlane("lazy", zero_output_init=True).left_phase == "kernel"
    assert fw.PhasePlane("lazy").left_phase == "feature learning"
    assert fw.PhasePlane("lazy", split=1.0).left_phase == "kernel"
    assert fw.PhasePlane.as_in_table("lazy").zero_output_init
    assert fw.PhasePlane("NTK").shares_initialisation("MF")
    assert not fw.PhasePlane("NTK").shares_initialisation("Xavier")
    with pytest.raises(ValueError):
        fw.PhasePlane("Glorot")


def _axes(count):
    """The map's axes: every Table-1 point is a grid point for 31, 61 and 121 points."""
    etas = np.round(np.linspace(-3.0, 3.0, count), 12) + 0.0
    return etas, np.round(np.linspace(-3.0, 2.0, count), 12) + 0.0


@pytest.mark.parametrize("count", [31, 61, 121])
@pytest.mark.parametrize("scheme", list(PRINTED))
def test_every_table_1_point_lands_in_its_printed_phase_on_the_grid(scheme, count):
    etas, gammas = _axes(count)
    grid = fw.PhasePlane.as_in_table(scheme).grid(etas, gammas)
    for c_eta, c_gamma, printed in PRINTED[scheme]:
        column, row = int(np.argmin(np.abs(etas - c_eta))), int(np.argmin(np.abs(gammas - c_gamma)))
        assert etas[column] == c_eta and gammas[row] == c_gamma
        assert fw.PHASES[grid.codes[row, column]] == WORDS.get(printed, printed), (c_eta, c_gamma)


def test_the_grid_shows_the_corollaries_of_the_paper():
    etas, gammas = _axes(61)

    def code(grid, c_eta, c_gamma):
        return fw.PHASES[
            grid.codes[np.argmin(np.abs(gammas - c_gamma)), np.argmin(np.abs(etas - c_eta))]
        ]

    # §4: Chizat's lazy training (c_γ = 1, c_η = −2, fixed width, zero output) is kernel …
    assert code(fw.PhasePlane("lazy", zero_output_init=True).grid(etas, gammas), -2, 1) == "kernel"
    # … a random initial output at fixed width does not give P/Q → 1
    assert code(fw.PhasePlane("lazy").grid(etas, gammas), -2, 1) == "feature learning"
    # Corollaries 2 and 3 (c_d = 1): c_γ = −c_η with c_η ≥ c_d + max(c_u, c_w) learns features;
    # c_γ = −(c_d + max(c_u, c_w) + c_η)/2 with c_η below it is the kernel phase
    for scheme in ("NTK", "Xavier", "Kaiming"):
        grid = fw.PhasePlane(scheme).grid(etas, gammas)
        scaling = fw.SCALINGS[scheme]
        top = scaling["c_d"] + max(scaling["c_u"], scaling["c_w"])
        for c_eta in (top, top + 1.0):
            assert code(grid, c_eta, -c_eta) == "feature learning", scheme
        for c_eta in (top - 1.0, top - 2.0):
            assert code(grid, c_eta, -(top + c_eta) / 2) == "kernel", scheme


@pytest.mark.parametrize(
    ("scheme", "zero", "split"),
    [
        ("NTK", False, 0.0),
        ("Kaiming", True, 0.0),
        ("lazy", True, 0.0),
        ("lazy", False, -0.75),
        ("Xavier", False, 1.5),
    ],
)
def test_the_grid_is_the_scalar_rule_cell_by_cell(scheme, zero, split):
    """The grid reads m off the boundary per column and classifies only the cells on the line;
    the scalar rule of eq. 18 and Theorem 2 decides each cell on its own."""
    etas, gammas = _axes(31)
    grid = fw.PhasePlane(scheme, zero_output_init=zero, split=split).grid(etas, gammas)
    scaling = fw.SCALINGS[scheme]
    for row, c_gamma in enumerate(gammas):
        for column, c_eta in enumerate(etas):
            args = (
                scaling["c_d"],
                c_gamma,
                scaling["c_u"],
                scaling["c_w"],
                c_eta + split / 2,
                c_eta - split / 2,
            )
            assert fw.PHASES[grid.codes[row, column]] == fw.phase(*args, zero_output_init=zero)
            m = fw.phase_terms(*args).m
            assert grid.m[row, column] == pytest.approx(m, abs=1e-12)


def test_predicted_weight_exponents_are_those_of_appendix_b4():
    # their App. B.4: δ = ½, 1, 2 for NTK⁻, Xavier⁻, Kaiming⁻; 0 in the feature-learning phase
    assert fw.predicted_delta("NTK", "kernel") == 0.5
    assert fw.predicted_delta("Xavier", "kernel") == 1.0
    assert fw.predicted_delta("Kaiming", "kernel") == 2.0
    assert all(fw.predicted_delta(s, "feature learning") == 0.0 for s in ("NTK", "Xavier"))
    with pytest.raises(ValueError):
        fw.predicted_delta("NTK", "frozen")


def test_power_fit_is_the_least_squares_slope():
    widths = np.array([10.0, 30.0, 100.0, 300.0, 1000.0])
    assert fw.power_fit(widths, 3.0 * widths**-0.75) == pytest.approx(-0.75)
    noisy = 2.0 * widths**0.4 * np.array([1.1, 0.9, 1.05, 0.97, 1.0])
    lx, ly = np.log(widths), np.log(noisy)  # slope = cov(log x, log y)/var(log x)
    slope = np.sum((lx - lx.mean()) * (ly - ly.mean())) / np.sum((lx - lx.mean()) ** 2)
    assert fw.power_fit(widths, noisy) == pytest.approx(slope)
    # zeros, negatives and non-finite values are left out; fewer than two points: no fit
    holes = noisy.copy()
    holes[[1, 3]] = (0.0, np.nan)
    assert fw.power_fit(widths, holes) == pytest.approx(
        fw.power_fit(widths[[0, 2, 4]], noisy[[0, 2, 4]])
    )
    assert fw.power_fit(widths, np.array([1.0, 0, 0, 0, 0])) is None
    assert fw.power_fit(np.array([5.0, 5.0]), np.array([1.0, 2.0])) is None


# -- a Table-1 scheme at a finite κ ------------------------------------------------------------


def test_scaled_hyperparameters_are_powers_of_kappa():
    kaiming = fw.scaled("Kaiming", 400, c_gamma=0.0, c_eta_u=-1.0, c_eta_w=-1.0)
    assert kaiming.width == 400 and kaiming.gamma == 1.0
    assert (kaiming.sigma_u, kaiming.sigma_w) == pytest.approx((0.05, 1.0))  # σ² = κ^c
    assert (kaiming.eta_u, kaiming.eta_w) == pytest.approx((1 / 400, 1 / 400))
    lazy = fw.scaled("lazy", 30, c_gamma=1.0, c_eta_u=-2.0, c_eta_w=-2.5, width=100)
    assert lazy.width == 100 and lazy.gamma == pytest.approx(30.0)
    assert (lazy.eta_u, lazy.eta_w) == pytest.approx((30.0**-2, 30.0**-2.5))


@pytest.mark.parametrize(("row", "column"), [(0, 1), (1, 3), (4, 2), (7, 0)])
def test_a_scaled_network_is_the_width_sweeps_row(row, column):
    widths = [12, 50, 200, 700]
    sweep = fw.width_sweep(widths, y=-1.3, seed=4)
    scheme, regime = sweep.schemes[row], sweep.regimes[row]
    c_eta, c_gamma = fw.TABLE_1[scheme][regime]
    built = fw.scaled(
        scheme, widths[column], c_gamma=c_gamma, c_eta_u=c_eta, c_eta_w=c_eta
    ).network(-1.3, seed=4)
    path = built.exact(np.array([0.0, 1e3 * built.start.t_c]))  # e^{−4000}: the limit
    assert path.zeta[-1] == pytest.approx(sweep.final_alignment[row, column], rel=1e-8, abs=1e-12)
    assert path.ntk_change[-1] == pytest.approx(sweep.ntk_change[row, column], rel=1e-8)
    moved = np.linalg.norm(path.W[-1] - built.W0) / np.linalg.norm(built.W0)
    assert moved == pytest.approx(sweep.weight_change[row, column], rel=1e-7)


@pytest.mark.parametrize(("row", "column"), [(0, 2), (2, 1), (4, 3)])
def test_a_zero_output_sweep_starts_at_f_0_and_ends_where_the_flow_does(row, column):
    """With ``zero_output_init`` the second layer is the Gaussian draw projected off W x: the
    network starts at f = 0 (P = Q), and the sweep's limits are that network's exact flow."""
    widths = [15, 60, 240, 900]
    sweep = fw.width_sweep(widths, y=0.7, seed=3, zero_output_init=True)
    assert sweep.zero_output_init
    scheme, regime = sweep.schemes[row], sweep.regimes[row]
    c_eta, c_gamma = fw.TABLE_1[scheme][regime]
    d = widths[column]
    scaling = fw.SCALINGS[scheme]
    g, G = fw.gaussian_init(d, 1, 1.0, 1.0, seed=3)
    h = G[:, 0]
    g = g - (g @ h) / (h @ h) * h  # u ⟂ W x, built here by hand
    u0, W0 = d ** (scaling["c_u"] / 2) * g, d ** (scaling["c_w"] / 2) * G
    kwargs = {"gamma": d**c_gamma, "eta_u": d**c_eta, "eta_w": d**c_eta}
    start = fw.exact(u0, W0, np.array([1.0]), 0.7, [0.0], **kwargs)
    assert abs(start.output[0]) < 1e-12 * d and start.P == pytest.approx(start.Q, rel=1e-9)
    path = fw.exact(u0, W0, np.array([1.0]), 0.7, [0.0, 1e3 * start.t_c], **kwargs)
    assert path.zeta[-1] == pytest.approx(sweep.final_alignment[row, column], rel=1e-8, abs=1e-12)
    assert path.ntk_change[-1] == pytest.approx(sweep.ntk_change[row, column], rel=1e-7)
    moved = np.linalg.norm(path.W[-1] - W0) / np.linalg.norm(W0)
    assert moved == pytest.approx(sweep.weight_change[row, column], rel=1e-7)
    # and small-step gradient descent from the same start gets there too
    lr = 0.02 * start.t_c
    descent = fw.gradient_descent(u0, W0, np.array([1.0]), 0.7, lr, 1500, **kwargs)
    walked = np.linalg.norm(descent.W[-1] - W0) / np.linalg.norm(W0)
    assert walked == pytest.approx(moved, rel=0.05)


def test_a_zero_output_start_gives_app_b4s_exponents_except_kaimings():
    """App. B.4 predicts δ = ½, 1, 2 for NTK⁻, Xavier⁻, Kaiming⁻. From a zero output the exact
    model gives ½ and 1, and 3/2 for Kaiming⁻: the first-order term of their eq. 49,
    ∝ |1 − α₊|·σ_u/σ_w = d^{−1}·d^{−½}, outweighs the second-order d^{−2} that B.4 keeps. From a
    random start Xavier⁻'s output grows like √d and its δ drops to about ½."""
    widths = np.unique(np.round(np.geomspace(10, 10_000, 64)))
    kernel = ("NTK", "Xavier", "Kaiming")
    zero = fw.width_sweep(
        widths, schemes=kernel, regimes=("kernel",), seed=1, zero_output_init=True
    )
    deltas = [-fw.power_fit(widths, zero.weight_change[r]) for r in range(3)]
    assert deltas == pytest.approx([0.5, 1.0, 1.5], abs=0.1)
    assert [fw.predicted_delta(s, "kernel") for s in kernel] == [0.5, 1.0, 2.0]
    random = fw.width_sweep(widths, schemes=("Xavier",), regimes=("kernel",), seed=1)
    assert -fw.power_fit(widths, random.weight_change[0]) < 0.7


def test_the_rescaling_symmetry_moves_the_same_network():
    setting = fw.scaled("Xavier", 100, c_gamma=1.0, c_eta_u=-2.0, c_eta_w=-2.0)
    s = 7.0
    one, other = setting.network(0.8, seed=2), setting.rescaled(s).network(0.8, seed=2)
    t = np.linspace(0.0, 5.0, 7) * one.start.t_c
    a, b = one.exact(t), other.exact(t)  # the same times: u, W → s u, s W
    assert np.allclose(b.u, s * a.u, rtol=1e-10) and np.allclose(b.hidden, s * a.hidden)
    assert np.allclose(b.output, a.output, rtol=1e-10)
    assert np.allclose(b.zeta, a.zeta) and np.allclose(b.ntk_change, a.ntk_change, atol=1e-12)


def test_the_balanced_scale_fits_the_ranges():
    ranges = {
        "gamma_range": (1e-4, 10.0),
        "sigma_u_range": (1e-3, 10.0),
        "sigma_w_range": (1e-3, 10.0),
    }

    def setting(gamma, sigma_u, sigma_w):
        return fw.Scaled(10, gamma, sigma_u, sigma_w, 1.0, 1.0)

    assert setting(0.5, 1.0, 1.0).balanced_scale(**ranges) == 1.0  # already inside
    # γ = 1000 is too large: s = √1000 makes γ/s² = 1, and σ·s = 3.2 still fits
    assert setting(1000.0, 0.1, 0.1).balanced_scale(**ranges) == pytest.approx(np.sqrt(1000))
    # γ/s² = 1 would need σ·s = 31.6 > 10: the s nearest 1 that fits, the smallest allowed
    s = setting(1000.0, 1.0, 1.0).balanced_scale(**ranges)
    assert s == pytest.approx(10.0)  # γ/s² = 10, σ·s = 10: both at their edges
    assert setting(1e6, 1.0, 1.0).balanced_scale(**ranges) is None  # no s fits both
