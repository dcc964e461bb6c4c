"""Phase portraits and sweeps: every cell against the single-trajectory solvers, independent
references (mpmath, closed-form special cases), the papers' qualitative facts, and bad input."""

import mpmath
import numpy as np
import pytest
import scipy.linalg
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from solvers import feature_evolution as fe
from solvers import finite_width as fw
from solvers import lambda_balanced as lb
from solvers import single_neuron as sn
from tests import examples

EPS = np.finfo(np.float64).eps
TINY = 1e-300  #: absolute floor of every budget (below it only subnormal rounding is left)
SETTINGS = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


# -- single neuron: τ × δ portrait (Kunin et al. Fig. 1b) ---------------------------------------


@st.composite
def portrait_cases(draw):
    """Random grids: d ≤ 5, ‖β*‖ from 0.14 to 7 (sometimes 0), τ from 1e-4 to 1e2 (sometimes 0),
    |δ| from 1e-3 to 1e3 (sometimes 0), learning rates e^{±1}, t up to 1e6 (scalar or array)."""
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    d = draw(st.integers(1, 5))
    beta_star = rng.standard_normal(d) * np.exp(rng.uniform(-2.0, 2.0))
    if draw(st.integers(0, 9)) == 0:
        beta_star = np.zeros(d)
    kind = draw(st.sampled_from(["random", "aligned", "opposed"]))
    direction = rng.standard_normal(d)
    if kind != "random" and np.any(beta_star):
        direction = beta_star.copy() if kind == "aligned" else -beta_star
    eta_a, eta_w = (float(v) for v in np.exp(rng.uniform(-1.0, 1.0, 2)))
    scales = np.exp(rng.uniform(np.log(1e-4), np.log(1e2), 3))
    if draw(st.booleans()):
        scales[0] = 0.0
    deltas = rng.choice([-1.0, 1.0], 4) * np.exp(rng.uniform(np.log(1e-3), np.log(1e3), 4))
    if draw(st.booleans()):
        deltas[0] = 0.0
    times = [0.0, 1e-3, 0.7, 6.0, 80.0, 1e3, 1e6]
    if draw(st.booleans()):
        t = draw(st.sampled_from(times))
    else:
        t = np.array(sorted(draw(st.lists(st.sampled_from(times), min_size=1, max_size=3))))
    return scales, deltas, beta_star, direction, t, eta_a, eta_w


@SETTINGS
@given(portrait_cases())
def test_portrait_cells_equal_the_exact_single_neuron(case):
    scales, deltas, beta_star, direction, t, eta_a, eta_w = case
    portrait = sn.portrait(scales, deltas, beta_star, direction, t, eta_a=eta_a, eta_w=eta_w)
    times = np.atleast_1d(t)
    expected_shape = (
        (scales.size, deltas.size) if np.ndim(t) == 0 else (times.size, *scales.shape, deltas.size)
    )
    assert portrait.kernel_distance.shape == portrait.loss.shape == expected_shape
    unit = direction / np.linalg.norm(direction)
    compared = 0
    for i, tau in enumerate(scales):
        for j, delta in enumerate(deltas):
            a0, w0 = sn.init_from_beta(
                tau**2 * unit, delta, eta_a=eta_a, eta_w=eta_w, direction=unit
            )
            path = sn.exact(a0, w0, beta_star, times, eta_a=eta_a, eta_w=eta_w)
            # Within ~1e-6 of the saddle's stable manifold rounding decides the escape.
            if path.saddle_margin < 1e-6:
                continue
            compared += 1
            assert portrait.a0[i, j] == pytest.approx(a0, rel=1e-13, abs=1e-300)
            cell = (i, j) if np.ndim(t) == 0 else (slice(None), i, j)
            # Budgets: 1e-8, plus what separates the two solutions for reasons of their inputs:
            # the portrait is exact for the nominal δ, exact() for the rounded (a0, w0), whose δ
            # differs by |Δδ| (~1e-16·a0²) — amplified by t where the rates nearly vanish.
            drift = abs(path.delta - delta) * times
            state = np.sqrt(path.a**2 + np.sum(path.w**2, axis=1))
            assert np.all(np.abs(portrait.a[cell] - path.a) <= (1e-8 + 2 * drift) * state + TINY)
            size = (
                64 * EPS * np.maximum(np.linalg.norm(beta_star), np.linalg.norm(path.beta, axis=1))
            )
            size = size + np.linalg.norm(path.beta, axis=1) * 2 * drift
            budget = 1e-8 * path.loss + 2 * size * np.sqrt(2 * path.loss) + size**2 + TINY
            assert np.all(np.abs(portrait.loss[cell] - path.loss) <= budget)
            # exact()'s own S loses ~ε‖M₀‖²/‖M_t‖² where the kernel collapses (see the mpmath
            # test below); the portrait's does not.
            initial = np.linalg.norm(eta_w * a0**2 * np.eye(w0.size) + eta_a * np.outer(w0, w0))
            final = np.linalg.norm(path.ntk, axis=(1, 2))
            collapse = 64 * EPS * (initial / np.maximum(final, 1e-300)) ** 2
            error = np.abs(portrait.kernel_distance[cell] - path.kernel_distance)
            assert np.all(error <= 1e-8 + collapse + 4 * drift)
            resolved = np.linalg.norm(path.w, axis=1) > 1e-6 * state  # φ needs a direction of w
            phi_error = np.abs(portrait.phi[cell] - path.phi)[resolved]
            assert np.all(phi_error <= 1e-8 + 4 * drift[resolved])
            beta_norm = np.hypot(portrait.beta_parallel[cell], portrait.beta_perpendicular[cell])
            assert np.all(
                np.abs(beta_norm - np.linalg.norm(path.beta, axis=1))
                <= (1e-8 + 4 * drift) * state**2 + TINY
            )
    assume(compared > 0)


def test_portrait_is_vectorised(monkeypatch):
    """No per-cell call of the single-trajectory machinery (it must be the array closed form)."""
    scales, deltas = np.geomspace(1e-2, 10, 16), np.linspace(-20, 20, 16)
    beta_star, direction = np.array([1.0, -0.5, 0.2]), np.array([0.3, 1.0, 0.0])
    a0, w0 = sn.init_from_beta(scales[3] ** 2 * direction / np.linalg.norm(direction), deltas[5])
    reference = sn.exact(a0, w0, beta_star, [7.0])

    def forbidden(*args, **kwargs):
        raise AssertionError("portrait must not call the per-trajectory solver")

    for name in (
        "exact",
        "init_from_beta",
        "rank_one_coefficients",
        "_geometry",
        "conserved_delta",
    ):
        monkeypatch.setattr(sn, name, forbidden)
    portrait = sn.portrait(scales, deltas, beta_star, direction, 7.0)
    assert portrait.kernel_distance.shape == (16, 16)
    assert portrait.loss[3, 5] == pytest.approx(reference.loss[0], rel=1e-8)
    assert portrait.kernel_distance[3, 5] == pytest.approx(reference.kernel_distance[0], rel=1e-8)


def _mp_kernel_distance(a0, w0, beta_star, t, digits=60):
    """S(0, t) of the single neuron from the closed form docs/theory.md (1.9) in `digits`-digit
    arithmetic (explicit (d+1)×(d+1) eigendecomposition, explicit d×d kernels)."""
    with mpmath.workdps(digits):
        d = len(w0)
        a0, w0, beta_star = mpmath.mpf(a0), [mpmath.mpf(v) for v in w0], list(beta_star)
        delta = a0**2 - sum(v * v for v in w0)
        generator = mpmath.matrix(d + 1, d + 1)
        for i in range(d):
            generator[i, i] = -delta / 2
            generator[i, d] = generator[d, i] = mpmath.mpf(beta_star[i])
        generator[d, d] = delta / 2
        rates, basis = mpmath.eigsy(generator)
        start = basis.T * mpmath.matrix([*w0, a0])
        t = mpmath.mpf(t)
        root = mpmath.sqrt(
            1
            + sum(
                start[j] ** 2 * mpmath.expm1(2 * rates[j] * t) / (2 * rates[j])
                for j in range(d + 1)
            )
        )
        state = basis * mpmath.matrix(
            [start[j] * mpmath.exp(rates[j] * t) / root for j in range(d + 1)]
        )

        def kernel(a, w):
            return [[w[i] * w[k] + (a * a if i == k else 0) for k in range(d)] for i in range(d)]

        first, second = kernel(a0, w0), kernel(state[d], [state[i] for i in range(d)])
        inner = sum(first[i][k] * second[i][k] for i in range(d) for k in range(d))
        norms = [
            mpmath.sqrt(sum(m[i][k] ** 2 for i in range(d) for k in range(d)))
            for m in (first, second)
        ]
        return float(1 - inner / (norms[0] * norms[1]))


@pytest.mark.parametrize(
    ("tau", "delta", "t"),
    [
        (58.0, 0.0077, 3.0),
        (100.0, 0.0, 3.0),
        (100.0, 5.0, 30.0),
        (0.01, 100.0, 1.0),
        (3.0, -50.0, 2.0),
    ],
)
def test_portrait_kernel_distance_matches_arbitrary_precision(tau, delta, t):
    """Including starts far above a small target, where the kernel collapses (‖M_t‖ ~ 1e-4‖M₀‖)
    and 1 − cos or the change-based form lose ~1e-8: the Gram-determinant form keeps ~1e-12."""
    beta_star, direction = np.array([0.3, -0.2]), np.array([1.0, 2.0]) / np.sqrt(5.0)
    a0, w0 = sn.init_from_beta(tau**2 * direction, delta, direction=direction)
    reference = _mp_kernel_distance(a0, w0, beta_star, t)
    portrait = sn.portrait([tau], [delta], beta_star, direction, t)
    assert portrait.kernel_distance[0, 0] == pytest.approx(reference, rel=1e-10, abs=1e-22)


def test_portrait_with_no_target_and_balance_decays_algebraically():
    """β* = 0, δ = 0: every rate of F vanishes and q(t) = q₀/√(1 + ‖q₀‖²t) (docs/theory.md (1.9)
    with F = 0), so a(t) = a₀/√(1 + (η_w a₀² + η_a‖w₀‖²)t) — an independent closed form, checked
    to t = 1e6."""
    scales, t = np.array([1e-3, 0.5, 7.0]), np.array([0.0, 1.0, 1e3, 1e6])
    eta_a, eta_w = 0.5, 2.0
    portrait = sn.portrait(scales, [0.0], np.zeros(3), [1.0, 1.0, 0.0], t, eta_a=eta_a, eta_w=eta_w)
    # β₀ = τ²·d̂ with δ = 0: a₀² = τ²√(η_a/η_w)... from η_w a⁴ = η_a τ⁴.
    a0 = scales * (eta_a / eta_w) ** 0.25
    w0_sq = scales**4 / a0**2
    expected = a0[None, :] / np.sqrt(1 + (eta_w * a0**2 + eta_a * w0_sq)[None, :] * t[:, None])
    np.testing.assert_allclose(portrait.a[:, :, 0], expected, rtol=1e-12)
    assert np.all(portrait.kernel_distance < 1e-15)  # the kernel only rescales
    assert np.all(np.diff(portrait.loss[:, :, 0], axis=0) <= 0)


def test_scale_moves_a_downstream_neuron_from_rich_to_lazy():
    """Kunin et al. Fig. 1b / §3: at fixed geometry δ < 0 a small scale is (delayed) rich —
    M ≈ |δ|β̂β̂ᵀ rotates, S ≈ 1 — and a large scale lazy: S falls to the O(1/d) floor of a kernel
    that only rescales (d = 100), monotonically in τ."""
    rng = np.random.default_rng(0)
    beta_star = rng.standard_normal(100)
    beta_star /= np.linalg.norm(beta_star)
    scales = np.geomspace(1e-2, 1e2, 9)
    portrait = sn.portrait(scales, [-1.0, -0.1], beta_star, rng.standard_normal(100), 1e4)
    S = portrait.kernel_distance
    assert np.all(S[0] > 0.8)
    assert np.all(S[-1] < 0.05)
    assert np.all(np.diff(S, axis=0) <= 1e-12)


def test_upstream_is_lazy_and_rapid_at_small_scale():
    """Kunin et al. Fig. 1b / Fig. 3: at small τ, large δ > 0 keeps the kernel fixed (M ≈ δI,
    S ≈ 0) and learns fastest — the loss at moderate t falls monotonically with δ — while δ ≤ 0
    is still on the plateau; downstream δ ≪ 0 ends rich (S → O(1))."""
    rng = np.random.default_rng(1)
    beta_star = rng.standard_normal(100)
    beta_star /= np.linalg.norm(beta_star)
    deltas = np.array([-10.0, -1.0, 0.0, 1.0, 10.0])
    direction = rng.standard_normal(100)
    early = sn.portrait([1e-2], deltas, beta_star, direction, 5.0)
    relative = early.loss[0] / early.initial_loss[0]
    assert np.all(np.diff(relative) < 0)
    assert relative[-1] < 1e-12 and relative[2] > 0.1
    late = sn.portrait([1e-2], deltas, beta_star, direction, 1e3)
    assert late.kernel_distance[0, -1] < 1e-5
    assert late.kernel_distance[0, 0] > 0.5
    assert np.all(late.loss < 1e-20)


# -- λ sweep across architectures (Dominé et al. Fig. 5B, App. A.4) -----------------------------


@st.composite
def sweep_cases(draw):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    shapes = dict(lb.SHAPES)
    shapes["random"] = tuple(int(v) for v in rng.integers(1, 6, 3))  # may reject some λ
    lams = np.concatenate(
        [rng.uniform(-60.0, 60.0, 3), [draw(st.sampled_from([0.0, 200.0, -200.0]))]]
    )
    return dict(
        lams=lams,
        t=draw(st.sampled_from([0.0, 0.5, 20.0, 300.0])),
        horizon=draw(st.sampled_from([1.0, 50.0, 1000.0])),
        threshold=draw(st.sampled_from([1.0, 0.5, 1e-2, 1e-6])),
        scale=draw(st.sampled_from([1e-3, 0.1, 2.0])),
        seed=int(rng.integers(0, 1000)),
        task_seed=int(rng.integers(0, 1000)),
        shapes=shapes,
    )


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sweep_cases())
def test_lambda_sweep_cells_equal_the_exact_flow(case):
    sweep = lb.lambda_sweep(**case)
    for array in (sweep.kernel_distance, sweep.loss, sweep.initial_loss, sweep.time_to_threshold):
        assert not np.any(np.isnan(array))
    for row, (d_in, hidden, d_out) in enumerate(sweep.dimensions):
        task = sweep.sigma_yx[row]
        np.testing.assert_array_equal(task, lb.random_task(d_in, d_out, case["task_seed"]))
        for column, lam in enumerate(sweep.lams):
            try:
                W1, W2 = lb.balanced_init(d_in, hidden, d_out, lam, case["scale"], case["seed"])
            except ValueError:
                assert not sweep.valid[row, column]
                assert sweep.kernel_distance[row, column] == 0 and sweep.loss[row, column] == 0
                assert sweep.time_to_threshold[row, column] == np.inf
                continue
            assert sweep.valid[row, column]
            path = lb.exact(W1, W2, task, [0.0, case["t"]])
            if path.saddle_margin < 1e-6:  # rounding decides when it leaves the saddle
                continue
            S = path.kernel_distance[1]
            assert abs(sweep.kernel_distance[row, column] - S) <= 1e-8 * S + 1e-14
            size = 64 * EPS * (np.linalg.norm(task) + np.sum(W1**2) + np.sum(W2**2))
            loss = path.loss[1]
            assert (
                abs(sweep.loss[row, column] - loss)
                <= 1e-8 * loss + size * np.sqrt(2 * loss) + size**2
            )
            assert sweep.initial_loss[row, column] == pytest.approx(path.loss[0], rel=1e-12)
            target = case["threshold"] * path.loss[0]
            crossing = sweep.time_to_threshold[row, column]
            if crossing == np.inf:
                assert lb.exact(W1, W2, task, [case["horizon"]]).loss[0] > target
            elif crossing == 0:
                assert path.loss[0] <= target
            else:
                assert crossing <= case["horizon"]
                at = lb.exact(W1, W2, task, [crossing * (1 - 1e-8), crossing]).loss
                assert at[1] == pytest.approx(target, rel=1e-8)
                assert at[0] > target  # the first crossing


def test_lambda_sweep_uses_a_given_task_and_marks_impossible_shapes():
    task = np.array([[1.0, 0.5, -0.2], [0.0, 2.0, 0.3]])
    shapes = {"wide": (3, 4, 2), "funnel": (3, 2, 2), "narrow": (3, 3, 2)}
    sweep = lb.lambda_sweep(
        [-1.0, 0.0, 1.0], 5.0, shapes=shapes, sigma_yx={"funnel": task, "narrow": 2 * task}
    )
    # h = 4 exceeds both d_in and d_out: no λ; h = 3 ≤ d_in only: λ ≤ 0.
    np.testing.assert_array_equal(sweep.valid, [[False] * 3, [True] * 3, [True, True, False]])
    assert np.all(sweep.kernel_distance[~sweep.valid] == 0)
    assert np.all(np.isinf(sweep.time_to_threshold[~sweep.valid]))
    np.testing.assert_array_equal(sweep.sigma_yx[1], task)
    W1, W2 = lb.balanced_init(3, 3, 2, -1.0, 0.1, 0)
    path = lb.exact(W1, W2, 2 * task, [5.0])
    assert sweep.loss[2, 0] == pytest.approx(path.loss[0], rel=1e-8)


def test_architecture_decides_which_lambda_limit_is_lazy():
    """Dominé et al. Fig. 5B: the funnel goes lazy as λ → +∞ and the inverted funnel as λ → −∞
    (S ≈ 0), each rich — after a delay — in the opposite limit; the square net is lazy at both
    ends and rich at λ = 0."""
    sweep = lb.lambda_sweep([-20.0, 0.0, 20.0], 100.0, horizon=100.0)
    S = dict(zip(sweep.shapes, sweep.kernel_distance, strict=True))
    assert S["funnel"][2] < 1e-4 and S["funnel"][0] > 0.1
    assert S["inverted funnel"][0] < 1e-4 and S["inverted funnel"][2] > 0.1
    assert S["square"][0] < 1e-4 and S["square"][2] < 1e-4 and S["square"][1] > 0.1
    # The lazy ends learn fast (exponentially, rate ~|λ|), the delayed-rich ends slowly or not
    # within the horizon.
    times = dict(zip(sweep.shapes, sweep.time_to_threshold, strict=True))
    assert times["funnel"][2] < 1.0 < times["funnel"][0]
    assert times["inverted funnel"][0] < 1.0 < times["inverted funnel"][2]


# -- γ sweep (Shan & Bordelon Fig. 2C–D) --------------------------------------------------------


def _kernels():
    rng = np.random.default_rng(7)
    cases = [
        fe.power_law_task(P, a, b, seed=P)
        for P, a, b in [(2, 1.0, 1.0), (40, 0.5, 1.2), (120, 1.5, 2.0)]
    ]
    features = rng.standard_normal((6, 30))
    cases.append((features.T @ features, rng.standard_normal(30)))  # singular K₀
    values = np.where(np.arange(20) < 5, 1.0, 0.3)  # a five-fold top eigenvalue
    basis = np.linalg.qr(rng.standard_normal((20, 20)))[0]
    kernel = (basis * values) @ basis.T
    cases.append((0.5 * (kernel + kernel.T), rng.standard_normal(20)))
    return cases


@pytest.mark.parametrize("case", range(5))
def test_gamma_sweep_equals_the_single_gamma_functions(case):
    K0, y = _kernels()[case]
    gammas = np.concatenate([[0.0], np.geomspace(1e-5, 1e5, 80)])
    sweep = fe.gamma_sweep(K0, y, gammas)
    for index, gamma in enumerate(gammas):
        assert abs(sweep.final_alignment[index] - fe.final_alignment(K0, y, gamma)) <= 1e-10
        assert abs(sweep.top_overlap[index] - fe.top_eigenvector_overlap(K0, y, gamma)) <= 1e-10
        top = scipy.linalg.eigvalsh(K0 + gamma * np.outer(y, y))[-1]
        assert sweep.top_eigenvalue[index] == pytest.approx(top, rel=1e-12)


def test_gamma_sweep_decomposes_the_kernel_once(monkeypatch):
    calls = []
    original = scipy.linalg.eigh

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(scipy.linalg, "eigh", counting)
    K0, y = fe.power_law_task(50, 1.0, 1.0, seed=3)
    fe.gamma_sweep(K0, y, np.geomspace(1e-3, 1e3, 100))
    assert len(calls) == 1


def test_feature_learning_aligns_the_kernel_past_a_threshold():
    """Shan & Bordelon Fig. 2C–D: A_∞ rises monotonically with γ towards 1; the top eigenvector's
    overlap with y stays near its kernel-regime value, then jumps to ≈ 1 past a threshold γ*."""
    K0, y = fe.power_law_task(200, 0.3, 1.2, seed=0)  # a flat task spectrum: y spread out
    gammas = np.geomspace(1e-5, 1e3, 65)  # eight points per factor of ten
    sweep = fe.gamma_sweep(K0, y, gammas)
    assert np.all(np.diff(sweep.final_alignment) > 0)
    assert sweep.final_alignment[0] == pytest.approx(sweep.initial_alignment, abs=1e-3)
    assert sweep.final_alignment[-1] > 0.999
    assert np.all(np.diff(sweep.top_overlap) >= -1e-12)
    assert sweep.top_overlap[0] == pytest.approx(sweep.initial_overlap, abs=0.01)
    assert sweep.initial_overlap < 0.2 and sweep.top_overlap[-1] > 0.999
    assert np.max(np.diff(sweep.top_overlap)) > 0.25  # the jump: a quarter within ×1.33 of γ


# -- width sweep (Xu & Ziyin §4, Table 1, Fig. 4) -----------------------------------------------


@pytest.mark.parametrize(
    ("x", "y", "seed"), [(1.0, 1.0, 0), (np.array([0.3, -2.0, 0.5]), -0.7, 3), (2.5, 0.05, 7)]
)
def test_width_sweep_equals_the_exact_solution_at_long_times(x, y, seed):
    widths = [1, 2, 5, 40, 300, 2000, 10_000]
    sweep = fw.width_sweep(widths, x=x, y=y, seed=seed)
    for row in range(len(sweep.schemes)):
        for column, d in enumerate(widths):
            u0, W0 = fw.gaussian_init(
                d, sweep.x.size, sweep.sigma_u[row, column], sweep.sigma_w[row, column], seed
            )
            rates = dict(gamma=sweep.gamma[row, column], eta_u=sweep.eta[row, column])
            rates["eta_w"] = rates["eta_u"]
            t_c = fw.exact(u0, W0, sweep.x, sweep.y, [0.0], **rates).t_c
            path = fw.exact(u0, W0, sweep.x, sweep.y, [0.0, 1e3 * t_c], **rates)  # e^{-4000} = 0
            assert sweep.t_c[row, column] == pytest.approx(t_c, rel=1e-12)
            assert sweep.alpha_plus[row, column] == pytest.approx(path.alpha_plus, rel=1e-12)
            assert abs(sweep.initial_alignment[column] - path.zeta[0]) <= 1e-12
            assert abs(sweep.final_alignment[row, column] - path.zeta[1]) <= 1e-8
            assert sweep.ntk_change[row, column] == pytest.approx(path.ntk_change[1], rel=1e-8)
            moved = np.linalg.norm(path.W[1] - W0) / np.linalg.norm(W0)
            assert sweep.weight_change[row, column] == pytest.approx(moved, rel=1e-8)


def test_width_sweep_reproduces_table_1_phases():
    sweep = fw.width_sweep([10, 100])
    assert sweep.predicted_phase == sweep.regimes
    np.testing.assert_allclose(sweep.gamma[0], [10**-0.5, 0.1])  # NTK kernel: γ = 1/√d
    np.testing.assert_allclose(sweep.gamma[1], [0.1, 0.01])  # NTK feature learning: γ = 1/d
    np.testing.assert_allclose(sweep.eta[1], [10.0, 100.0])  # … with η = d (Table 1, c_η⁺ = 1)


def test_kernel_scalings_freeze_features_as_width_grows():
    """Xu & Ziyin §4 / Fig. 4: in the kernel phase ζ(∞), the NTK change and the weight change vanish
    as d → ∞ (power laws in d); in the feature-learning phase they stay O(1)."""
    widths = np.unique(np.geomspace(100, 10_000, 12).astype(int))
    sweep = fw.width_sweep(widths)
    logs = np.log(widths)
    for row, regime in enumerate(sweep.regimes):
        ntk_slope = np.polyfit(logs, np.log(sweep.ntk_change[row]), 1)[0]
        weight_slope = np.polyfit(logs, np.log(sweep.weight_change[row]), 1)[0]
        if regime == "kernel":
            assert sweep.ntk_change[row, -1] < 1e-3 and abs(sweep.final_alignment[row, -1]) < 0.02
            assert ntk_slope < -0.5 and weight_slope < -0.3
        else:
            assert sweep.ntk_change[row, -1] > 0.1 and sweep.final_alignment[row, -1] > 0.5
            assert abs(ntk_slope) < 0.1 and abs(weight_slope) < 0.1


# -- bad input ----------------------------------------------------------------------------------

BETA, DIRECTION = np.array([1.0, 0.5]), np.array([0.0, 1.0])
K0_OK, Y_OK = fe.power_law_task(5, 1.0, 1.0, seed=0)

BAD = [
    (lambda: sn.portrait([[1.0]], [0.0], BETA, DIRECTION, 1.0), "scales"),
    (lambda: sn.portrait([-1.0], [0.0], BETA, DIRECTION, 1.0), "scales must be >= 0"),
    (lambda: sn.portrait([np.nan], [0.0], BETA, DIRECTION, 1.0), "scales"),
    (lambda: sn.portrait(np.ones(513), [0.0], BETA, DIRECTION, 1.0), "at most 512"),
    (lambda: sn.portrait([1.0], np.ones(513), BETA, DIRECTION, 1.0), "deltas"),
    (lambda: sn.portrait([1.0], [np.inf], BETA, DIRECTION, 1.0), "deltas"),
    (lambda: sn.portrait([1.0], [0.0], BETA, [0.0, 0.0], 1.0), "direction"),
    (lambda: sn.portrait([1.0], [0.0], BETA, [1.0, 0.0, 0.0], 1.0), "direction"),
    (lambda: sn.portrait([1.0], [0.0], BETA, DIRECTION, -1.0), "t must"),
    (lambda: sn.portrait([1.0], [0.0], BETA, DIRECTION, np.ones(257)), "at most 256"),
    (lambda: sn.portrait(np.ones(512), np.ones(512), BETA, DIRECTION, [1.0, 2.0]), "cells"),
    (lambda: sn.portrait([1.0], [0.0], BETA, DIRECTION, 1.0, eta_a=0.0), "eta_a"),
    (lambda: sn.portrait([1e200], [0.0], BETA, DIRECTION, 1.0), "overflow"),
    (lambda: sn.portrait([1.0], [0.0], BETA, DIRECTION, 1.0, eta_w=np.inf), "eta_w"),
    (lambda: lb.lambda_sweep(np.zeros(202), 1.0), "at most 201"),
    (lambda: lb.lambda_sweep([2e3], 1.0), "|λ|"),
    (lambda: lb.lambda_sweep([np.nan], 1.0), "lams"),
    (lambda: lb.lambda_sweep([1.0], -1.0), "t must"),
    (lambda: lb.lambda_sweep([1.0], 2e6), "t must"),
    (lambda: lb.lambda_sweep([1.0], 1.0, horizon=0.0), "horizon"),
    (lambda: lb.lambda_sweep([1.0], 1.0, threshold=0.0), "threshold"),
    (lambda: lb.lambda_sweep([1.0], 1.0, threshold=1.5), "threshold"),
    (lambda: lb.lambda_sweep([1.0], 1.0, scale=-1.0), "scale"),
    (lambda: lb.lambda_sweep([1.0], 1.0, shapes={}), "shapes"),
    (lambda: lb.lambda_sweep([1.0], 1.0, shapes={"x": (2, 2)}), "(d_in, hidden, d_out)"),
    (lambda: lb.lambda_sweep([1.0], 1.0, shapes={"x": (40, 2, 2)}), "at most 32"),
    (lambda: lb.lambda_sweep([1.0], 1.0, sigma_yx={"funnel": np.ones((4, 2))}), "sigma_yx"),
    (lambda: lb.lambda_sweep([1.0], 1.0, sigma_yx={"cube": np.ones((2, 2))}), "not swept"),
    (lambda: lb.lambda_sweep([1.0], 1.0, shapes=dict.fromkeys("abcde", (2, 2, 2))), "at most 4"),
    (lambda: lb.lambda_sweep([1.0], 1.0, seed=-1), "seed"),
    (lambda: lb.lambda_sweep([1.0], 1.0, seed=np.random.default_rng(0)), "seed"),
    (lambda: lb.lambda_sweep([1.0], 1.0, task_seed=1.5), "seed"),
    (lambda: fw.width_sweep([10], seed=np.random.default_rng(0)), "seed"),
    (lambda: fw.width_sweep([10], seed="zero"), "seed"),
    (lambda: fe.gamma_sweep(K0_OK, Y_OK, [-1.0]), "gammas"),
    (lambda: fe.gamma_sweep(K0_OK, Y_OK, np.ones(401)), "at most 400"),
    (lambda: fe.gamma_sweep(K0_OK, Y_OK, [[1.0]]), "gammas"),
    (lambda: fe.gamma_sweep(K0_OK, np.zeros(5), [1.0]), "y must be non-zero"),
    (lambda: fe.gamma_sweep(-K0_OK, Y_OK, [1.0]), "positive semi-definite"),
    (lambda: fe.gamma_sweep(np.eye(1001), np.ones(1001), [1.0]), "at most 1000"),
    (lambda: fw.width_sweep(np.arange(1, 66)), "at most 64"),
    (lambda: fw.width_sweep([0]), "widths"),
    (lambda: fw.width_sweep([10_001]), "10,000"),
    (lambda: fw.width_sweep([2.5]), "whole number"),
    (lambda: fw.width_sweep([10], schemes=("lazy",)), "lazy"),
    (lambda: fw.width_sweep([10], schemes="NTK"), "sequences"),
    (lambda: fw.width_sweep([10], regimes=("frozen",)), "regime"),
    (lambda: fw.width_sweep([10], x=0.0), "x must be non-zero"),
    (lambda: fw.width_sweep([10], y=np.nan), "y"),
]


@pytest.mark.parametrize(("call", "words"), BAD)
def test_bad_input_raises_an_actionable_value_error(call, words):
    with pytest.raises(ValueError, match=None) as error:
        call()
    assert words in str(error.value)
