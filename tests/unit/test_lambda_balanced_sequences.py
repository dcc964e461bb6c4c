"""λ-balanced networks through a sequence of tasks (Dominé et al. §6, App. D): the exact flow
restarted at each task switch against the raw ODE integrated phase after phase, gradient descent
as lr → 0, and the applications' closed forms against least squares and integration."""

import numpy as np
import pytest

from solvers import lambda_balanced as lb
from solvers.metrics import kernel_distance
from tests import flows

SWAP = (0, 2, 1)


def _ode_sequence(W1, W2, tasks, durations, points):
    """The raw two-layer ODE, phase after phase from its own end state, at the times
    exact_sequence records (independent of the closed form)."""
    blocks = []
    for k, (task, duration) in enumerate(zip(tasks, durations, strict=True)):
        local = np.linspace(0.0, duration, points)
        W1_t, W2_t = flows.two_layer(W1, W2, task, local, tolerance=1e-13)
        keep = slice(None) if k == 0 else slice(1, None)
        blocks.append((W2_t @ W1_t, W1_t.transpose(SWAP) @ W1_t, W2_t @ W2_t.transpose(SWAP)))
        blocks[-1] = tuple(b[keep] for b in blocks[-1])
        W1, W2 = W1_t[-1], W2_t[-1]
    return tuple(np.concatenate(parts) for parts in zip(*blocks, strict=True))


@pytest.mark.parametrize(
    ("dims", "lam"),
    [((3, 3, 3), 0.0), ((4, 2, 2), -2.0), ((2, 2, 4), 1.5), ((3, 2, 3), 0.7)],
)
def test_exact_sequence_matches_the_ode_phase_after_phase(dims, lam):
    d_in, hidden, d_out = dims
    W1, W2 = lb.balanced_init(d_in, hidden, d_out, lam, 0.3, 5)
    tasks = lb.random_tasks(d_in, d_out, 3, seed=7)
    durations = (6.0, 4.0, 8.0)
    run = lb.exact_sequence(W1, W2, tasks, durations, points=25)
    function, rsm_in, rsm_out = _ode_sequence(W1, W2, tasks, durations, 25)
    assert run.t.shape == (73,) and np.all(np.diff(run.t) > 0)
    assert run.t[-1] == pytest.approx(18.0) and list(run.starts) == [0.0, 6.0, 10.0]
    for name, reference in (("function", function), ("rsm_in", rsm_in), ("rsm_out", rsm_out)):
        assert flows.relative_error(getattr(run, name), reference, floor=1e-10) < 1e-8, name
    # each time's loss is on the task being learnt then; task_losses has every task
    expected = 0.5 * np.sum((function - np.stack(tasks)[run.phase]) ** 2, axis=(1, 2))
    assert np.allclose(run.loss, expected, rtol=1e-7, atol=1e-12)
    assert np.allclose(run.task_losses[np.arange(73), run.phase], run.loss, rtol=1e-12)
    # the balance is conserved across switches, and the end state continues the flow
    assert lb.balance(run.W1_end, run.W2_end)[0] == pytest.approx(lam, abs=1e-9)
    assert np.allclose(run.W2_end @ run.W1_end, function[-1], atol=1e-8)


def _ntk(rsm_out, rsm_in):
    """Explicit NTK W₂W₂ᵀ ⊗ I + I ⊗ W₁ᵀW₁ (row-major vec)."""
    return np.kron(rsm_out, np.eye(rsm_in.shape[0])) + np.kron(np.eye(rsm_out.shape[0]), rsm_in)


def test_kernel_distance_is_measured_from_the_very_start():
    W1, W2 = lb.balanced_init(3, 3, 3, 0.0, 0.2, 1)
    tasks = lb.random_tasks(3, 3, 2, seed=2)
    run = lb.exact_sequence(W1, W2, tasks, (10.0, 10.0), points=20)
    _, rsm_in, rsm_out = _ode_sequence(W1, W2, tasks, (10.0, 10.0), 20)
    start = _ntk(W2 @ W2.T, W1.T @ W1)
    for index in (0, 19, 38):
        expected = kernel_distance(start, _ntk(rsm_out[index], rsm_in[index])[None])[0]
        assert run.kernel_distance[index] == pytest.approx(expected, abs=1e-9)
    assert run.kernel_distance[-1] > run.kernel_distance[19] > 0.05


@pytest.mark.parametrize("lam", [-1.0, 0.0, 3.0])
def test_continual_learning_forgets_the_same_for_every_lambda(lam):
    """App. D.1: a funnel converges to each task in turn, so the first task's loss after task k
    is ½‖Σ₁ − Σₖ‖² whatever λ — forgetting is set by how the tasks differ."""
    W1, W2 = lb.balanced_init(4, 2, 2, lam, 0.05, 3)
    tasks = lb.random_tasks(4, 2, 4, seed=4)
    run = lb.exact_sequence(W1, W2, tasks, (60.0, 60.0, 60.0, 60.0), points=31)
    ends = np.searchsorted(run.t, run.starts[1:] + 60.0 - 1e-9)
    for k, end in zip(range(1, 4), ends, strict=True):
        apart = np.sqrt(np.sum((tasks[0] - tasks[k]) ** 2))
        off = np.sqrt(2 * run.task_losses[end, k])  # ‖W₂W₁ − Σₖ‖: learnt up to this
        assert off < 0.02 * apart
        # |½‖Σ₁ − f‖² − ½‖Σ₁ − Σₖ‖²| ≤ ‖Σ₁ − Σₖ‖‖f − Σₖ‖ + ½‖f − Σₖ‖²
        gap = abs(run.task_losses[end, 0] - 0.5 * apart**2)
        assert gap <= apart * off + 0.5 * off**2 + 1e-12


def test_a_square_balanced_net_cannot_change_the_sign_of_its_determinant():
    """At λ = 0 a square net has |det W₁| = |det W₂|, so det W₂W₁ cannot pass 0 except at a
    saddle: a next task of the other sign flows to the saddle that lacks its weakest mode (the
    start lies on its stable manifold, until rounding lets a simulation escape); with λ ≠ 0 it
    is learnt fully."""
    first, second = lb.random_tasks(3, 3, 2, seed=11)
    assert np.linalg.det(first) * np.linalg.det(second) < 0
    weakest = np.linalg.svd(second, compute_uv=False)[-1]
    for lam in (0.0, 1.0):
        W1, W2 = lb.balanced_init(3, 3, 3, lam, 0.05, (11, 1))
        run = lb.exact_sequence(W1, W2, [first, second], (40.0, 60.0), points=41)
        signed = np.linalg.det(run.function[1:]) * np.sign(np.linalg.det(first))
        if lam == 0.0:  # det W₂W₁ falls to 0 (to rounding) and stays on its side
            assert np.min(signed) > -1e-6 and run.saddle_margins[1] < 1e-12
            assert run.loss[-1] == pytest.approx(0.5 * weakest**2, rel=1e-3)
        else:
            assert signed[-1] < 0 and run.loss[-1] < 1e-12


def test_reversal_stalls_at_lambda_zero_and_passes_through_otherwise():
    """App. D.2: from a start that has learnt Σ (task-aligned), the network's strength along the
    reversed task's top mode, u₁ᵀW₂W₁v₁ = −σ₁ at first, flows to the saddle at 0 when λ = 0 (the
    start lies on its stable manifold) and through 0 to +σ₁ when λ ≠ 0, as the raw ODE does."""
    sigma_yx = lb.random_task(3, 3, 4)
    values = np.linalg.svd(sigma_yx, compute_uv=False)
    reversed_ = lb.reversed_task(sigma_yx)
    U, _, Vt = np.linalg.svd(reversed_)
    t = np.linspace(0.0, 6.0, 31)
    for lam in (0.0, 0.5, -2.0):
        W1, W2 = lb.task_aligned_init(sigma_yx, 3, lam, values)
        run = lb.exact_sequence(W1, W2, [reversed_], [6.0], points=31)
        strength = run.mode_strengths(0, 1)[:, 0]
        W1_t, W2_t = flows.two_layer(W1, W2, reversed_, t, tolerance=1e-13)
        ode = np.einsum("i,tij,j->t", U[:, 0], W2_t @ W1_t, Vt[0])
        assert np.allclose(strength, ode, atol=1e-8)
        assert strength[0] == pytest.approx(-values[0])
        if lam == 0.0:
            assert run.saddle_margins[0] < 1e-12
            assert np.all(strength < 0) and abs(strength[-1]) < 1e-6 * values[0]
        else:
            assert run.saddle_margins[0] > 1e-3
            assert strength[-1] == pytest.approx(values[0], rel=1e-3)


def test_descent_sequence_tends_to_the_exact_flow():
    W1, W2 = lb.balanced_init(4, 2, 2, -1.0, 0.2, 6)
    tasks = lb.random_tasks(4, 2, 2, seed=3)
    exact = lb.exact_sequence(W1, W2, tasks, (5.0, 5.0), points=11)
    errors = []
    for lr in (0.01, 0.005):
        descent = lb.descent_sequence(W1, W2, tasks, (5.0, 5.0), lr, every=round(0.5 / lr))
        np.testing.assert_allclose(descent.t, exact.t, atol=1e-9)
        errors.append(float(np.max(np.abs(descent.function - exact.function))))
        assert descent.phases[1].W1_0 is not None and np.array_equal(descent.phases[1].W1_0, W1)
    assert errors[1] < 0.6 * errors[0] and errors[0] < 0.05  # first order in lr


def test_rebalanced_keeps_the_function_and_sets_lambda():
    function = lb.random_task(4, 3, 9)
    for lam in (-4.0, 0.0, 2.5):
        W1, W2 = lb.rebalanced(function, 3, lam)
        np.testing.assert_allclose(W2 @ W1, function, atol=1e-12)
        found, deviation = lb.balance(W1, W2)
        assert found == pytest.approx(lam, abs=1e-12) and deviation < 1e-12


def test_rebalancing_a_converged_net_to_its_own_lambda_changes_nothing():
    """A full-rank net trained to convergence holds W₁ᵀW₁ = ½(−λI + √(λ²I + 4ΣᵀΣ)) whatever its
    start (Thm C.3): re-balancing it to the same λ reproduces its representations."""
    sigma_yx = lb.hierarchical_task()
    for lam in (0.0, 3.0):
        W1, W2 = lb.balanced_init(8, 8, 8, lam, 0.05, 2)
        trained = lb.exact(W1, W2, sigma_yx, np.array([0.0, 80.0]))
        A1, A2 = lb.rebalanced(trained.function[-1], 8, lam)
        np.testing.assert_allclose(A1.T @ A1, trained.rsm_in[-1], atol=1e-7)
        np.testing.assert_allclose(A2 @ A2.T, trained.rsm_out[-1], atol=1e-7)


def test_new_feature_matches_least_squares_and_the_integrated_read_out():
    rng = np.random.default_rng(0)
    W1 = rng.standard_normal((3, 5))
    inputs = rng.standard_normal((6, 5))
    item, target = 2, 1.5
    # converged: the minimum-norm row w with w h_i = y (w starts at 0 and moves along h_iᵀ)
    hidden = inputs @ W1.T
    row = np.linalg.lstsq(hidden[item][None, :], np.array([target]), rcond=None)[0]
    np.testing.assert_allclose(lb.new_feature(W1.T @ W1, inputs, item, target), hidden @ row)
    # over time: the read-out's own gradient flow w' = (y − w h_i) h_iᵀ
    t = np.array([0.0, 0.01, 0.05, 0.2])
    rows = flows.integrate(
        lambda w: (target - w @ hidden[item]) * hidden[item], np.zeros(3), t, 1e-12
    )
    np.testing.assert_allclose(
        lb.new_feature(W1.T @ W1, inputs, item, target, t), rows @ hidden.T, atol=1e-9
    )


def test_reversed_and_fine_tuning_tasks():
    sigma_yx = lb.random_task(3, 4, 2)
    reversed_ = lb.reversed_task(sigma_yx, modes=(1,))
    np.testing.assert_allclose(
        np.linalg.svd(reversed_, compute_uv=False), np.linalg.svd(sigma_yx, compute_uv=False)
    )
    U, s, Vt = np.linalg.svd(sigma_yx, full_matrices=False)
    np.testing.assert_allclose(sigma_yx - reversed_, 2 * s[1] * np.outer(U[:, 1], Vt[1]))
    tree = lb.hierarchical_task()
    added = lb.fine_tuning_task("added feature")
    assert np.count_nonzero(added != tree) == 1 and added[4, 2] == tree[4, 0] > 0
    np.testing.assert_array_equal(lb.fine_tuning_task("scaled"), 2 * tree)
    np.testing.assert_allclose(lb.fine_tuning_task("reversal"), lb.reversed_task(tree))
    first = lb.random_tasks(3, 2, 3, seed=4)
    scenario = lb.scenario(lam=0.0, scale=0.1, d_in=3, hidden=2, d_out=2, seed=4)
    np.testing.assert_array_equal(first[0], scenario.sigma_yx)
    assert not np.allclose(first[1], first[2])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"W2_0": np.ones((3, 3))}, "not λ-balanced"),
        ({"tasks": [np.ones((3, 2))]}, "shape"),
        ({"tasks": [np.eye(3)] * 9, "durations": [1.0] * 9}, "1 to 8 tasks"),
        ({"durations": [1.0, 2.0]}, "one time per task"),
        ({"durations": [-1.0]}, "duration"),
        ({"durations": [1e5]}, "at most"),
        ({"points": 1}, "points"),
    ],
)
def test_bad_input_is_refused_with_a_message(change, message):
    W1, W2 = lb.balanced_init(3, 3, 3, 1.0, 0.1, 0)
    arguments = {"W1_0": W1, "W2_0": W2, "tasks": [np.eye(3)], "durations": [1.0], "points": 5}
    arguments.update(change)
    with pytest.raises(ValueError, match=message):
        lb.exact_sequence(**arguments)
    with pytest.raises(ValueError, match="kind"):
        lb.fine_tuning_task("forgotten")
    with pytest.raises(ValueError, match="item"):
        lb.new_feature(np.eye(3), np.eye(3), 5, 1.0)
    with pytest.raises(ValueError, match="modes"):
        lb.reversed_task(np.eye(3), modes=(3,))
