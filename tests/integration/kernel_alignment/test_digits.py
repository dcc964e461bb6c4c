"""The kernel-alignment view on Shan & Bordelon's own Fig. 2 kernel — the infinite-width depth-3
ReLU NTK of the digits, even against odd — against the flow ODE integrated here from that
kernel and the target built by hand from scikit-learn's bundle."""

import numpy as np
import pytest
import scipy.integrate

from app.views.kernel_alignment import TRAJECTORY as VIEW
from solvers import infinite_width as iw
from solvers import networks as nw
from tests.integration.figures import trace

CHOSEN = VIEW.spec.with_overrides(
    {"task": "digits", "samples": 40, "seed": 5, "gamma": 0.5, "horizon": 5.0, "descent": False}
)


def _task_by_hand(samples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The view's draw of the digits (networks.digits' convention), labelled ±1 by parity here,
    and their three-layer NTK."""
    X, one_hot = nw.digits(None, samples, seed=np.random.default_rng(seed))
    y = np.where(np.argmax(one_hot, axis=1) % 2 == 0, 1.0, -1.0)
    return iw.relu_ntk(X, depth=3), y


def test_the_digits_task_is_the_flow_of_their_relu_ntk():
    result = VIEW.compute(CHOSEN)
    K0, y = _task_by_hand(CHOSEN.samples, CHOSEN.seed)
    np.testing.assert_allclose(result.initial.eigenvalues, np.linalg.eigvalsh(K0)[::-1], rtol=1e-10)
    gamma, t = CHOSEN.gamma, result.exact.t

    def flow(_, state):  # Δ' = −ηKΔ, K' = γη(ΔΔᵀK + KΔΔᵀ) (K = ΨᵀΨ, Ψ' = γηΨΔΔᵀ)
        residual, kernel = state[: y.size], state[y.size :].reshape(y.size, y.size)
        outer = np.outer(residual, residual)
        change = gamma * (outer @ kernel + kernel @ outer)
        return np.concatenate([-kernel @ residual, change.ravel()])

    start = np.concatenate([-y, K0.ravel()])
    solved = scipy.integrate.solve_ivp(
        flow, (0.0, t[-1]), start, t_eval=t, rtol=1e-10, atol=1e-12, method="DOP853"
    )
    loss = np.sum(solved.y[: y.size] ** 2, axis=0)
    np.testing.assert_allclose(result.exact.loss, loss, rtol=1e-6, atol=1e-10)
    drawn = trace(VIEW.panels[0].draw(CHOSEN, result), f"γ = {gamma:g}")
    assert np.asarray(drawn["y"], dtype=float)[-1] == pytest.approx(loss[-1], rel=1e-6)


def test_the_power_law_sliders_do_not_move_the_digits_task():
    one = VIEW.compute(CHOSEN)
    other = VIEW.compute(VIEW.spec.with_overrides(vars(CHOSEN) | {"a": 3.0, "b": 0.5}))
    np.testing.assert_array_equal(one.exact.loss, other.exact.loss)
    assert not np.isnan(one.task_exponents).any()
