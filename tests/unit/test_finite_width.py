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
@given(configurations(), st.sampled_from([10.0, 1e3, 1e4]))
def test_exact_matches_ode(config, cap):
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
