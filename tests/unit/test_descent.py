"""The gradient-descent loop every model shares (solvers/_descent.py): a run stops at the first
step whose parameters are not finite or exceed :data:`DIVERGENCE_LIMIT`, reports that step and
keeps the last good state; the caller never receives NaN or inf."""

import numpy as np
import pytest

from solvers._descent import DIVERGENCE_LIMIT, run_descent


def _step_to(bad_at: int, bad: float):
    """A step that doubles the parameters, and writes ``bad`` into one entry at step ``bad_at``."""
    count = {"k": 0}

    def step(state):
        count["k"] += 1
        doubled = tuple(2 * part for part in state)
        if count["k"] == bad_at:
            doubled[1].flat[-1] = bad
        return doubled

    return step


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, -2 * DIVERGENCE_LIMIT])
def test_a_run_stops_at_the_first_step_that_is_not_finite_or_too_large(bad):
    initial = (np.ones(3), np.ones((2, 2)))
    run = run_descent(_step_to(4, bad), initial, lr=0.1, steps=10)
    assert run.diverged_at == 4
    assert list(run.steps) == [0, 1, 2, 3]  # the last good state is recorded
    assert all(np.all(np.isfinite(part)) for part in run.states)
    np.testing.assert_array_equal(run.states[1][-1], 8 * np.ones((2, 2)))


def test_a_run_within_the_limit_goes_to_its_end():
    initial = (np.ones(2), np.array([DIVERGENCE_LIMIT / 2**10]))
    run = run_descent(_step_to(0, np.nan), initial, lr=0.5, steps=10)  # 2¹⁰ × limit / 2¹⁰
    assert run.diverged_at is None and run.steps[-1] == 10
    assert run.states[1][-1, 0] == DIVERGENCE_LIMIT
    np.testing.assert_allclose(run.t, 0.5 * run.steps)
