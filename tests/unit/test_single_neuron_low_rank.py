"""One hidden neuron on low-rank data (Kunin et al. §3, Theorem 3.1, Fig. 4b): the flow against
an independent integration of the raw ODE and the whitened closed form, gradient descent as
lr → 0, the conserved δ, and the flow's end against Theorem 3.1 — whose minimiser is checked in
turn against the paper's printed objective, Azulay et al.'s form of it and its limits."""

import math

import numpy as np
import pytest

from solvers import single_neuron as sn
from solvers.single_neuron import low_rank as lr
from tests import flows

#: Kunin et al. App. D.2, Fig. 4b: XᵀX, β*, β₀
GRAM = np.array([[0.25, 0.5], [0.5, 1.0]])
BETA_STAR = np.array([0.44, 0.88])
BETA0 = np.array([0.4, 0.05])
#: the same data as one point and its label: XᵀX = xxᵀ, Xβ* = y
POINT, LABEL = np.array([0.5, 1.0]), 1.1
DELTAS = (-5.0, -2.0, -1.0, 0.0, 1.0, 2.0, 5.0)


def raw_flow(a0, w0, gram, beta_star, t, eta_a=1.0, eta_w=1.0):
    """The ODE straight from the loss ½(aw − β*)ᵀΣ(aw − β*) on (a, w), no change of
    variables, integrated by DOP853 at 1e-12 (tests/flows.py) → (a (T,), w (T, d))."""

    def rhs(state):
        a, w = state[0], state[1:]
        gradient = gram @ (a * w - beta_star)
        return np.concatenate([[-eta_a * (w @ gradient)], -eta_w * a * gradient])

    states = flows.integrate(rhs, np.concatenate([[a0], w0]), np.asarray(t, float))
    return states[:, 0], states[:, 1:]


def two_point_task():
    """Two data points in four dimensions: rank 2 with unequal eigenvalues, a 2-d null space."""
    x = np.array([[1.0, 0.5, -0.3, 0.2], [0.1, -0.8, 0.6, 0.9]])
    return x, np.array([1.0, -0.5]), lr.task_from_data(x, np.array([1.0, -0.5]))


def start(beta0, delta, **rates):
    return sn.init_from_beta(np.asarray(beta0, float), delta, **rates)


# -- the flow ---------------------------------------------------------------------------------


@pytest.mark.parametrize("delta", [-5.0, 0.0, 5.0])
def test_closed_form_flow_on_the_papers_data_matches_the_raw_ode(delta):
    a0, w0 = start(BETA0, delta)
    t = np.linspace(0.0, 20.0, 41)
    path = lr.gradient_flow(a0, w0, GRAM, BETA_STAR, t)
    assert path.method == "closed form"
    a, w = raw_flow(a0, w0, GRAM, BETA_STAR, t)
    state = np.column_stack([path.a, path.w])
    assert flows.relative_error(state, np.column_stack([a, w]), floor=1e-10) < 1e-9


@pytest.mark.parametrize("delta", [-3.0, 0.0, 2.0])
def test_integrated_flow_on_unequal_eigenvalues_matches_the_raw_ode(delta):
    _, _, problem = two_point_task()
    a0, w0 = start([0.3, -0.2, 0.4, 0.1], delta, eta_a=1.5, eta_w=0.6)
    t = np.linspace(0.0, 15.0, 31)
    path = lr.gradient_flow(a0, w0, problem.gram, problem.beta_star, t, eta_a=1.5, eta_w=0.6)
    assert path.method == "integrate"
    a, w = raw_flow(a0, w0, problem.gram, problem.beta_star, t, 1.5, 0.6)
    state = np.column_stack([path.a, path.w])
    assert flows.relative_error(state, np.column_stack([a, w]), floor=1e-10) < 1e-8


@pytest.mark.parametrize("delta", [-4.0, 0.0, 3.0])
def test_integrated_flow_on_whitened_data_is_the_single_neuron_closed_form(delta):
    beta_star = np.array([0.3, -1.2, 0.7])
    a0, w0 = start([-0.5, 0.2, 0.1], delta, eta_a=2.0, eta_w=0.7)
    t = np.linspace(0.0, 30.0, 61)
    path = lr.gradient_flow(
        a0, w0, np.eye(3), beta_star, t, eta_a=2.0, eta_w=0.7, method="integrate"
    )
    exact = sn.exact(a0, w0, beta_star, t, eta_a=2.0, eta_w=0.7)
    state = np.column_stack([path.a, path.w])
    assert flows.relative_error(state, np.column_stack([exact.a, exact.w]), floor=1e-10) < 1e-8


def test_the_two_evaluations_of_the_flow_agree_on_a_scaled_projection():
    """Σ = 2P (P a rank-2 projection in 3-d): the closed form (1.5) and the integration (1.6)."""
    basis = np.linalg.qr(np.array([[1.0, 0.2], [0.3, -1.0], [0.5, 0.4]]))[0]
    gram = 2.0 * basis @ basis.T
    beta_star = np.array([0.4, -0.3, 0.9])
    a0, w0 = start([0.2, 0.6, -0.3], -1.5)
    t = np.linspace(0.0, 25.0, 51)
    closed = lr.gradient_flow(a0, w0, gram, beta_star, t, method="closed form")
    integrated = lr.gradient_flow(a0, w0, gram, beta_star, t, method="integrate")
    assert np.max(np.abs(closed.beta - integrated.beta)) < 1e-8
    # nothing moves in the null space of Σ
    null = np.cross(basis[:, 0], basis[:, 1])
    assert np.ptp(closed.w @ null) < 1e-12 and np.ptp(integrated.w @ null) < 1e-12


@pytest.mark.parametrize("method", ["closed form", "integrate"])
def test_delta_is_conserved_along_the_flow(method):
    a0, w0 = start(BETA0, -2.0)
    path = lr.gradient_flow(a0, w0, GRAM, BETA_STAR, np.linspace(0, 40, 81), method=method)
    assert np.max(np.abs(path.conserved - path.delta)) < 1e-9
    assert path.delta == pytest.approx(-2.0, abs=1e-12)


def test_gradient_descent_converges_to_the_raw_flow_linearly_in_lr():
    _, _, problem = two_point_task()
    a0, w0 = start([0.3, -0.2, 0.4, 0.1], -1.0)
    errors = []
    for rate in (0.004, 0.002):
        descent = lr.gradient_descent(
            a0, w0, problem.gram, problem.beta_star, rate, round(4.0 / rate)
        )
        a, w = raw_flow(a0, w0, problem.gram, problem.beta_star, descent.t)
        errors.append(np.max(np.abs(descent.beta - a[:, None] * w)))
    assert errors[0] < 0.02 and 1.8 < errors[0] / errors[1] < 2.2, errors


def test_delta_drift_under_gradient_descent_vanishes_with_lr():
    a0, w0 = start(BETA0, 1.0)
    drifts = []
    for rate in (0.02, 0.01):
        descent = lr.gradient_descent(a0, w0, GRAM, BETA_STAR, rate, round(5 / rate))
        drifts.append(np.max(np.abs(descent.conserved - descent.delta)))
    assert 0.4 < drifts[1] / drifts[0] < 0.6  # first order in lr


def test_gradient_descent_reports_divergence_without_nan():
    a0, w0 = start(BETA0, 0.0)
    descent = lr.gradient_descent(a0, w0, 40 * GRAM, BETA_STAR, lr=1.0, steps=300)
    assert descent.diverged_at is not None and descent.diverged_at < 300
    assert np.all(np.isfinite(descent.beta)) and np.all(np.isfinite(descent.loss))


# -- where the flow ends: Theorem 3.1 ---------------------------------------------------------


@pytest.mark.parametrize("delta", DELTAS)
def test_the_flow_ends_on_theorem_3_1s_interpolant(delta):
    a0, w0 = start(BETA0, delta)
    path = lr.gradient_flow(a0, w0, GRAM, BETA_STAR, [0.0, 60.0])
    assert not path.through_zero
    predicted = lr.predicted_interpolant(BETA0, delta, GRAM, BETA_STAR)
    assert POINT @ predicted == pytest.approx(LABEL, abs=1e-12)
    assert np.max(np.abs(path.beta[-1] - predicted)) < 1e-10


@pytest.mark.parametrize(
    "delta, crosses", [(-3.0, True), (-0.5, False), (0.0, False), (3.0, False)]
)
def test_with_a_two_dimensional_null_space_and_other_rates(delta, crosses):
    """Newton's minimiser; downstream, a crosses zero and the end is −β₀'s prediction."""
    x, y, problem = two_point_task()
    beta0 = np.array([0.3, -0.2, 0.4, 0.1])
    a0, w0 = start(beta0, delta, eta_a=1.5, eta_w=0.6)
    rates = {"eta_a": 1.5, "eta_w": 0.6}
    path = lr.gradient_flow(a0, w0, problem.gram, problem.beta_star, [0.0, 150.0], **rates)
    assert path.through_zero == crosses
    predicted = lr.predicted_interpolant(
        beta0, delta, problem.gram, problem.beta_star, through_zero=crosses, **rates
    )
    assert x @ predicted == pytest.approx(y, abs=1e-12)
    assert np.max(np.abs(path.beta[-1] - predicted)) < 1e-8
    # the rates matter where δ ≠ 0 (balanced, Ψ₀ is homogeneous and a scale of β drops out)
    other = lr.predicted_interpolant(
        beta0, delta, problem.gram, problem.beta_star, through_zero=crosses
    )
    assert (np.max(np.abs(other - predicted)) > 1e-5) == (delta != 0)


def test_a_flow_through_zero_ends_at_the_prediction_for_minus_beta0():
    """β₀ on the far side of the data (xᵀβ₀ < 0 < y), downstream: a changes sign once."""
    beta0 = np.array([-0.4, -0.05])
    a0, w0 = start(beta0, -5.0)
    path = lr.gradient_flow(a0, w0, GRAM, BETA_STAR, np.linspace(0, 60, 601))
    assert path.through_zero
    mirrored = lr.predicted_interpolant(beta0, -5.0, GRAM, BETA_STAR, through_zero=True)
    plain = lr.predicted_interpolant(beta0, -5.0, GRAM, BETA_STAR)
    assert np.max(np.abs(path.beta[-1] - mirrored)) < 1e-10
    assert np.max(np.abs(path.beta[-1] - plain)) > 1.0


def test_crosses_zero_says_whether_the_raw_flows_read_out_changes_sign():
    rng = np.random.default_rng(5)
    found = []
    for _ in range(24):
        beta0 = rng.standard_normal(2) * rng.uniform(0.1, 1.5)
        a0, w0 = start(beta0, rng.uniform(-6.0, 3.0))
        a, _ = raw_flow(a0, w0, GRAM, BETA_STAR, np.linspace(0.0, 60.0, 241))
        found.append(lr.crosses_zero(a0, w0, GRAM, BETA_STAR))
        assert found[-1] == bool(np.any(a * a0 < 0)), (beta0, a0)
    assert 3 <= sum(found) <= 21  # both answers were tried
    _, _, two = two_point_task()
    with pytest.raises(ValueError, match="equal non-zero eigenvalues"):
        lr.crosses_zero(0.5, np.ones(4), two.gram, two.beta_star)


@pytest.mark.parametrize("beta0", [[0.4, 0.05], [-0.4, -0.05], [1.0, -0.9], [-1.8, -0.4]])
def test_end_points_are_where_the_raw_flows_end_for_every_delta(beta0):
    """The one-pass end points (basins, closed form as arrays) against long raw flows."""
    deltas = np.array([-6.0, -2.0, -0.5, 0.0, 0.5, 3.0])
    found = lr.end_points(beta0, deltas, GRAM, BETA_STAR)
    for delta, end, crosses in zip(deltas, found.ends, found.through_zero, strict=True):
        a0, w0 = start(beta0, delta)
        a, w = raw_flow(a0, w0, GRAM, BETA_STAR, np.linspace(0.0, 60.0, 121))
        assert crosses == bool(np.any(a * a0 < 0)), delta
        assert np.max(np.abs(a[-1] * w[-1] - end)) < 1e-8, delta
    assert found.through_zero.any() == (POINT @ beta0 < 0)  # xᵀβ₀ < 0 < y: downstream crosses
    # the basins in one pass, against the whitened neuron's own (solvers.single_neuron.basin)
    dense = np.linspace(-8.0, 4.0, 241)
    flags = lr.end_points(beta0, dense, GRAM, BETA_STAR).through_zero
    one_by_one = [lr.crosses_zero(*start(beta0, d), GRAM, BETA_STAR) for d in dense]
    assert flags.tolist() == one_by_one


def test_end_points_with_two_null_directions_and_other_rates():
    """One data point in three dimensions (Newton's minimiser), η_aη_w ≠ 1, crossings."""
    x, y = np.array([0.8, -0.4, 0.6]), 0.9
    problem = lr.task_from_data(x, [y])
    rates = {"eta_a": 1.5, "eta_w": 0.6}
    for beta0 in ([0.3, 0.5, 0.2], [-0.3, 0.2, -0.4]):
        deltas = np.array([-4.0, -1.0, 0.5, 2.0])
        found = lr.end_points(beta0, deltas, problem.gram, problem.beta_star, **rates)
        for delta, end, crosses in zip(deltas, found.ends, found.through_zero, strict=True):
            a0, w0 = start(beta0, delta, **rates)
            times = np.linspace(0.0, 80.0, 161)
            a, w = raw_flow(a0, w0, problem.gram, problem.beta_star, times, **rates)
            assert crosses == bool(np.any(a * a0 < 0)) and x @ end == pytest.approx(y)
            assert np.max(np.abs(a[-1] * w[-1] - end)) < 1e-8, (beta0, delta)
    with pytest.raises(ValueError, match="equal non-zero eigenvalues"):
        _, _, two = two_point_task()
        lr.end_points(np.ones(4), [0.0], two.gram, two.beta_star)


def _paper_objective(beta, beta0, delta):
    """Kunin et al. Theorem 3.1 as printed: Ψ_δ(β) − ψ_δ β̂₀ᵀβ."""
    kappa = math.sqrt(delta**2 + 4 * float(beta @ beta))
    big_psi = (kappa - 2 * delta) * math.sqrt(kappa + delta) / 3
    small_psi = math.sqrt(math.sqrt(delta**2 + 4 * float(beta0 @ beta0)) - delta)
    return big_psi - small_psi * float(beta0 @ beta) / math.sqrt(float(beta0 @ beta0))


@pytest.mark.parametrize("delta", [-3.0, -0.5, 0.0, 0.7, 4.0])
def test_the_objective_is_the_papers_up_to_its_value_at_zero(delta):
    psi_at_zero = (abs(delta) - 2 * delta) * math.sqrt(abs(delta) + delta) / 3
    for beta in (np.array([0.3, -1.0]), np.array([2.0, 0.1]), np.array([1e-3, 0.0])):
        ours = lr.implicit_bias(beta, BETA0, delta) + psi_at_zero
        assert ours == pytest.approx(_paper_objective(beta, BETA0, delta), rel=1e-10, abs=1e-12)


def _line_scan(objective, direction, base, half_width=4.0, points=400_001):
    """The point of the line base + s·direction with the least objective, by brute force."""
    s = np.linspace(-half_width, half_width, points)
    values = [objective(base + si * direction) for si in s[::100]]
    best = s[::100][int(np.argmin(values))]
    fine = np.linspace(best - 0.02, best + 0.02, 4001)
    values = [objective(base + si * direction) for si in fine]
    return base + fine[int(np.argmin(values))] * direction


@pytest.mark.parametrize("delta", [-5.0, -1.0, 0.0, 2.0])
def test_the_closed_form_minimises_the_printed_objective_on_the_line(delta):
    direction = np.array([1.0, -0.5]) / math.sqrt(1.25)  # Xv = 0
    scanned = _line_scan(lambda b: _paper_objective(b, BETA0, delta), direction, BETA_STAR)
    predicted = lr.predicted_interpolant(BETA0, delta, GRAM, BETA_STAR)
    assert np.max(np.abs(predicted - scanned)) < 1e-4  # the scan's grid is 1e-5


@pytest.mark.parametrize("delta", [0.0, 1.0, 6.0])
def test_the_minimiser_is_azulay_et_als_for_upstream_starts(delta):
    """Azulay et al.'s Theorem 2 (Kunin et al. Theorem A.2, δ ≥ 0), an objective written
    differently: q_δ(‖β‖) + zᵀβ."""

    def azulay(beta):
        x = float(np.linalg.norm(beta))
        root = math.sqrt(x**2 + delta**2 / 4)
        q = (x**2 - delta / 2 * (delta / 2 + root)) * math.sqrt(root - delta / 2) / x
        norm0 = float(np.linalg.norm(BETA0))
        z = -1.5 * math.sqrt(math.sqrt(norm0**2 + delta**2 / 4) - delta / 2) * BETA0 / norm0
        return q + float(z @ beta)

    direction = np.array([1.0, -0.5]) / math.sqrt(1.25)
    scanned = _line_scan(azulay, direction, BETA_STAR)
    predicted = lr.predicted_interpolant(BETA0, delta, GRAM, BETA_STAR)
    assert np.max(np.abs(predicted - scanned)) < 1e-4


@pytest.mark.parametrize("delta", [-4.0, -0.3, 0.0, 2.5])
def test_newton_and_the_closed_form_agree_on_a_one_dimensional_null_space(delta):
    problem = lr.task(GRAM, BETA_STAR)
    closed = lr.predicted_interpolant(BETA0, delta, GRAM, BETA_STAR)
    newton = lr._newton(BETA0, problem.min_norm_interpolant, problem.null_basis, delta)
    assert np.max(np.abs(closed - newton)) < 1e-12


def test_the_limits_in_delta():
    """δ → +∞: the interpolant nearest β₀ (gradient flow on β, lazy); δ → −∞: the multiple of
    β₀ that interpolates (β keeps its direction), both written from the data (x, y) here."""
    nearest = BETA0 + POINT * (LABEL - POINT @ BETA0) / (POINT @ POINT)
    along = BETA0 * LABEL / (POINT @ BETA0)
    up = lr.predicted_interpolant(BETA0, math.inf, GRAM, BETA_STAR)
    down = lr.predicted_interpolant(BETA0, -math.inf, GRAM, BETA_STAR)
    assert up == pytest.approx(nearest, abs=1e-14) and down == pytest.approx(along, abs=1e-14)
    # the finite-δ minimiser tends to them, and so do long flows at large |δ|
    assert lr.predicted_interpolant(BETA0, 1e7, GRAM, BETA_STAR) == pytest.approx(up, abs=1e-6)
    assert lr.predicted_interpolant(BETA0, -1e7, GRAM, BETA_STAR) == pytest.approx(down, abs=1e-6)
    for delta, limit in ((300.0, nearest), (-300.0, along)):
        a0, w0 = start(BETA0, delta)
        end = lr.gradient_flow(a0, w0, GRAM, BETA_STAR, [0.0, 40.0]).beta[-1]
        assert np.max(np.abs(end - limit)) < 0.02
    found = lr.limits(BETA0, GRAM, BETA_STAR)
    assert found.downstream_along_start and found.upstream == pytest.approx(nearest)
    # from −β₀ no positive multiple interpolates: downstream passes through 0 to the same point
    away = lr.limits(-BETA0, GRAM, BETA_STAR)
    assert away.downstream_through_zero and away.downstream == pytest.approx(along)
    a0, w0 = start(-BETA0, -300.0)
    end = lr.gradient_flow(a0, w0, GRAM, BETA_STAR, [0.0, 40.0]).beta[-1]
    assert np.max(np.abs(end - along)) < 0.02


def test_the_end_point_moves_from_beta0s_direction_to_the_nearest_interpolant():
    """Kunin et al.'s reading of Fig. 4b: downstream keeps β₀'s direction, upstream shrinks
    the norm."""
    ends = [lr.predicted_interpolant(BETA0, d, GRAM, BETA_STAR) for d in DELTAS]
    norms = [float(np.linalg.norm(end)) for end in ends]
    angles = [math.degrees(math.acos(end @ BETA0 / (n * np.linalg.norm(BETA0))))
              for end, n in zip(ends, norms, strict=True)]  # fmt: skip
    assert np.all(np.diff(norms) < 0) and np.all(np.diff(angles) > 0)
    assert angles[0] < 5 and angles[-1] > 30


# -- the task and bad input -------------------------------------------------------------------


def test_the_task_of_data_points():
    problem = lr.task_from_data(POINT, [LABEL])
    assert problem.gram == pytest.approx(GRAM) and problem.beta_star == pytest.approx(BETA_STAR)
    assert problem.rank == 1 and problem.single_scale
    assert problem.null_basis[:, 0] @ POINT == pytest.approx(0.0, abs=1e-15)
    x, y, two = two_point_task()
    assert x @ two.beta_star == pytest.approx(y) and two.rank == 2 and not two.single_scale
    assert two.loss(two.beta_star + two.null_basis @ [1.0, -2.0]) == pytest.approx(0.0, abs=1e-24)


@pytest.mark.parametrize(
    "gram, words",
    [
        (np.ones((2, 3)), "square"),
        (np.array([[1.0, 0.5], [0.0, 1.0]]), "symmetric"),
        (np.array([[1.0, 2.0], [2.0, 1.0]]), "positive semi-definite"),
        (np.zeros((2, 2)), "nothing to learn"),
        (np.array([[np.nan, 0.0], [0.0, 1.0]]), "NaN"),
    ],
)
def test_bad_data_say_what_to_change(gram, words):
    a0, w0 = start(BETA0, 0.0)
    with pytest.raises(ValueError, match=words):
        lr.gradient_flow(a0, w0, gram, BETA_STAR, [0.0, 1.0])


def test_bad_arguments_say_what_to_change():
    a0, w0 = start(BETA0, 0.0)
    with pytest.raises(ValueError, match="shape"):
        lr.gradient_flow(a0, np.ones(3), GRAM, BETA_STAR, [0.0, 1.0])
    with pytest.raises(ValueError, match="method must be one of"):
        lr.gradient_flow(a0, w0, GRAM, BETA_STAR, [0.0, 1.0], method="euler")
    with pytest.raises(ValueError, match="method='integrate'"):
        _, _, two = two_point_task()
        lr.gradient_flow(0.5, np.ones(4), two.gram, two.beta_star, [1.0], method="closed form")
    with pytest.raises(ValueError, match="times >= 0"):
        lr.gradient_flow(a0, w0, GRAM, BETA_STAR, [-1.0])
    with pytest.raises(ValueError, match="non-zero"):
        lr.predicted_interpolant([0.0, 0.0], 1.0, GRAM, BETA_STAR)
    with pytest.raises(ValueError, match="delta must be finite"):
        lr.predicted_interpolant(BETA0, math.nan, GRAM, BETA_STAR)
    with pytest.raises(ValueError, match="null space"):
        lr.predicted_interpolant([1.0, -0.5], -math.inf, GRAM, BETA_STAR)
    assert lr.limits([1.0, -0.5], GRAM, BETA_STAR).downstream is None
    with pytest.raises(ValueError, match="one label per data point"):
        lr.task_from_data(np.ones((2, 3)), [1.0, 2.0, 3.0])
