"""The λ side-by-side view: its curves against the engine called here by hand from the view's
seeding convention, for one task and for each task sequence, and the settings it changes
instead of failing."""

import numpy as np
import pytest

from app.views.lambda_balanced.sequence_claims import FIG_1B
from app.views.lambda_balanced.sequences import MAX_DESCENT_STEPS, VIEW
from solvers import lambda_balanced as lb
from tests.integration.figures import trace
from tests.integration.lambda_balanced import drawn


def start(chosen, lam, d_in, hidden, d_out):
    """The random λ-balanced start of the view: weights from the generator seeded [seed, 1]."""
    rng = np.random.default_rng([chosen.seed, 1])
    return lb.balanced_init(d_in, hidden, d_out, lam, chosen.scale, rng)


def test_one_task_is_the_trajectory_of_each_lambda():
    chosen, result, figures = drawn(VIEW, lam_low=2.0, lam_high=-1.0, count=4, first=6.0)
    assert [c.lam for c in result.curves] == [-1.0, 0.0, 1.0, 2.0]
    sigma_yx = lb.random_task(3, 3, np.random.default_rng([chosen.seed, 0]))
    for curves in result.curves:
        path = lb.exact(*start(chosen, curves.lam, 3, 3, 3), sigma_yx, curves.t)
        np.testing.assert_allclose(curves.loss, path.loss, rtol=1e-9, atol=1e-14)
        np.testing.assert_allclose(curves.kernel_distance, path.kernel_distance, atol=1e-10)
        drawn_curve = trace(figures["kernel"], f"λ = {curves.lam:g}")
        np.testing.assert_allclose(np.asarray(drawn_curve["x"]), curves.t)
        np.testing.assert_allclose(np.asarray(drawn_curve["y"]), path.kernel_distance, atol=1e-10)
    values = np.linalg.svd(sigma_yx, compute_uv=False)
    np.testing.assert_allclose(result.sigma, values)
    last = result.curves[-1]
    np.testing.assert_allclose(last.strengths[-1], values, rtol=1e-4)  # every mode learnt


def test_continual_learning_runs_the_seeded_tasks_in_turn():
    chosen, result, figures = drawn(
        VIEW, experiment="continual", tasks=3, first=10.0, duration=5.0, count=2
    )
    tasks = [lb.random_task(3, 3, np.random.default_rng([chosen.seed, 0]))]
    tasks += [lb.random_task(3, 3, np.random.default_rng([chosen.seed, 0, k])) for k in (1, 2)]
    np.testing.assert_allclose(result.switches, [10.0, 15.0])
    for curves in result.curves:
        W1, W2 = start(chosen, curves.lam, 3, 3, 3)
        run = lb.exact_sequence(W1, W2, tasks, (10.0, 5.0, 5.0), 2)
        # the view's own record, and the end of this independent run
        assert curves.t[-1] == pytest.approx(20.0)
        assert curves.loss[-1] == pytest.approx(run.loss[-1], rel=1e-9, abs=1e-14)
        expected_first = 0.5 * np.sum((run.function[-1] - tasks[0]) ** 2)
        assert curves.first_loss[-1] == pytest.approx(expected_first, rel=1e-9)
    y = np.asarray(trace(figures["first"], f"λ = {result.curves[0].lam:g}")["y"])
    np.testing.assert_allclose(y, result.curves[0].first_loss)


def test_reversal_learning_reverses_the_top_mode_of_the_first_task():
    chosen, result, _ = drawn(
        VIEW, experiment="reversal", init="aligned", lam_low=0.0, lam_high=1.0, count=2
    )
    sigma_yx = lb.random_task(3, 3, np.random.default_rng([chosen.seed, 0]))
    top = np.linalg.svd(sigma_yx, compute_uv=False)[0]
    assert result.sigma == pytest.approx([top])  # one mode drawn: the reversed one
    for curves in result.curves:
        assert curves.strengths.shape[1] == 1
        assert curves.strengths[np.searchsorted(curves.t, 30.0), 0] == pytest.approx(top, rel=1e-4)
    stuck, moved = result.curves
    assert stuck.saddle_margin < 1e-12 < moved.saddle_margin
    assert moved.strengths[-1, 0] == pytest.approx(-top, rel=1e-6)
    messages = VIEW.notes(chosen, result)
    assert any("At λ = 0 a task starts on the stable manifold of a saddle" in m for m in messages)


def test_fine_tuning_re_balances_the_pre_trained_network():
    chosen, result, figures = drawn(
        VIEW, experiment="fine-tuning", seed=3, lam_low=0.0, lam_high=3.0, count=2, duration=2.0
    )
    messages = VIEW.notes(chosen, result)
    assert any("Fine-tuning uses the semantic hierarchy" in m for m in messages)
    tree = lb.hierarchical_task()
    W1, W2 = start(chosen, chosen.lam_init, 8, 8, 8)
    trained = lb.exact(W1, W2, tree, np.array([0.0, chosen.first])).function[-1]
    new_task = lb.fine_tuning_task("added feature")
    for curves in result.curves:
        A1, A2 = lb.rebalanced(trained, 8, curves.lam)
        assert lb.balance(A1, A2)[0] == pytest.approx(curves.lam, abs=1e-9)
        path = lb.exact(A1, A2, new_task, curves.t)  # drawn from the re-balancing on
        np.testing.assert_allclose(curves.loss, path.loss, rtol=1e-6, atol=1e-12)
        forgotten = 0.5 * np.sum((path.function - tree) ** 2, axis=(1, 2))
        np.testing.assert_allclose(curves.first_loss, forgotten, rtol=1e-6, atol=1e-12)
    assert result.pretraining.t[-1] == pytest.approx(chosen.first)
    assert result.curves[0].t[0] == 0.0 and result.switches.size == 0
    assert figures["loss"]["layout"]["xaxis"]["title"]["text"] == "time t since re-balancing"


def test_sizes_that_fit_every_lambda_and_a_capped_descent_are_explained():
    chosen, result, _ = drawn(VIEW, shape="any", d_in=4, hidden=4, d_out=2)
    assert result.dims == (4, 2, 2)
    assert any("h ≤ min(d_in, d_out)" in m for m in VIEW.notes(chosen, result))
    chosen, result, _ = drawn(VIEW, descent=True, lr=0.001, first=500.0)
    assert 500.0 / 0.001 > MAX_DESCENT_STEPS and result.curves[0].descent_t is None
    assert any("Gradient descent would need" in m for m in VIEW.notes(chosen, result))
    chosen, result, _ = drawn(VIEW, descent=True, lr=0.05, first=5.0)
    descent = result.curves[0]
    W1, W2 = start(chosen, descent.lam, 3, 3, 3)
    sigma_yx = lb.random_task(3, 3, np.random.default_rng([chosen.seed, 0]))
    steps = lb.gradient_descent(W1, W2, sigma_yx, 0.05, 100)
    np.testing.assert_allclose(descent.descent_loss[-1], steps.loss[-1], rtol=1e-9)
    names = list(VIEW.tables(chosen, result))
    assert names[:3] == ["exact lam=-2", "exact lam=0", "exact lam=2"]
    assert names[3:] == [
        "gradient descent lam=-2",
        "gradient descent lam=0",
        "gradient descent lam=2",
    ]


def test_a_square_network_pre_trained_at_lambda_0_can_miss_the_weakest_mode():
    """Why the Fig. 14 card pre-trains at λ = 1: at λ = 0 the determinant of W₂W₁ cannot change
    sign, so from some random starts the hierarchy's weakest mode is never learnt; at λ = 1 the
    pre-training converges from every start."""
    stalled = []
    for seed in range(8):
        losses = {}
        for lam_init in (0.0, 1.0):
            _, result, _ = drawn(
                VIEW,
                experiment="fine-tuning",
                first=40.0,
                duration=1.0,
                lam_init=lam_init,
                seed=seed,
                lam_low=0.0,
                lam_high=0.0,
                count=1,
            )
            pre = result.pretraining
            losses[lam_init] = pre.loss[-1] / pre.loss[0]
        assert losses[1.0] < 1e-8
        stalled.append(losses[0.0] > 1e-2)
    assert any(stalled) and not all(stalled)


def test_near_balanced_lambdas_do_not_pass_for_lazy():
    """The Fig. 1B check against its contrast: λ = ±0.5 from the same start moves the kernel
    and learns the modes in turn, so the claim that λ = ±2 stays lazy fails there."""
    for lam, holds in ((2.0, True), (0.5, False)):
        chosen, result, _ = drawn(VIEW, first=15.0, lam_low=-lam, lam_high=lam, seed=2)
        assert FIG_1B.evaluate(chosen, result).holds is holds
