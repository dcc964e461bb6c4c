"""Bad input raises ValueError with a message that names what to fix."""

import numpy as np
import pytest

from solvers import feature_evolution as fe
from solvers import finite_width as fw
from solvers import lambda_balanced as lb
from solvers import single_neuron as sn

NAN = float("nan")
W1_OK, W2_OK = lb.balanced_init(3, 2, 2, 0.5, 0.5, seed=0)
K0_OK, Y_OK = fe.power_law_task(4, 1.0, 1.0, seed=0)

CASES = [
    # (call, words the message must contain)
    (lambda: sn.exact(1.0, [1.0, NAN], [1.0, 0.0], [0, 1]), "w0"),
    (lambda: sn.exact(1.0, [1.0, 0.0], [1.0, 0.0, 2.0], [0, 1]), "beta_star"),
    (lambda: sn.exact(1.0, [1.0], [1.0], [-1.0, 1.0]), ">= 0"),
    (lambda: sn.exact(1.0, [1.0], [1.0], [[0.0, 1.0]]), "t must be"),
    (lambda: sn.exact(1.0, [1.0], [1.0], [0.0, np.inf]), "t contains"),
    (lambda: sn.exact(1.0, [1.0], [1.0], [0.0], eta_a=0.0), "eta_a"),
    (lambda: sn.exact(1.0, [1.0], [1.0], [0.0], eta_w=-1.0), "eta_w"),
    (lambda: sn.exact("one", [1.0], [1.0], [0.0]), "a0"),
    (lambda: sn.exact(1.0, [], [], [0.0]), "w0"),
    (lambda: sn.gradient_descent(1.0, [1.0], [1.0], lr=0.0, steps=10), "lr"),
    (lambda: sn.gradient_descent(1.0, [1.0], [1.0], lr=0.1, steps=-1), "steps"),
    (lambda: sn.gradient_descent(1.0, [1.0], [1.0], lr=0.1, steps=2.5), "steps"),
    (lambda: sn.gradient_descent(1.0, [1.0], [1.0], lr=0.1, steps=5, every=0), "every"),
    (lambda: sn.init_from_tau_alpha(1.0, 0.0, [1.0]), "alpha"),
    (lambda: sn.init_from_tau_alpha(1.0, 1.0, [0.0, 0.0]), "direction"),
    (lambda: sn.init_from_beta([0.0, 0.0], -1.0), "direction"),
    (lambda: sn.init_from_norm_delta(-1.0, 0.0, [1.0]), "beta0_norm"),
    (lambda: sn.minima_manifold([1.0], [0.0, 1.0]), "non-zero"),
    (lambda: fw.exact([1.0, 2.0], [[1.0], [2.0], [3.0]], [1.0], 1.0, [0.0]), "W0"),
    (lambda: fw.exact([1.0], [[1.0, 2.0]], [1.0], 1.0, [0.0]), "columns"),
    (lambda: fw.exact([1.0], [[1.0]], [0.0], 1.0, [0.0]), "x must be non-zero"),
    (lambda: fw.exact([1.0], [[1.0]], [1.0], np.inf, [0.0]), "y"),
    (lambda: fw.exact([1.0], [[1.0]], [1.0], 1.0, [0.0], gamma=0.0), "gamma"),
    (lambda: fw.gradient_descent([1.0], [[1.0]], [1.0], 1.0, lr=-1.0, steps=3), "lr"),
    (lambda: fw.gaussian_init(0, 1, 1.0, 1.0), "d must be"),
    (lambda: fw.gaussian_init(3, 1, -1.0, 1.0), "sigma_u"),
    (lambda: fw.near_parallel_init(3, [1.0], 1.0, 1.0, noise=-0.1), "noise"),
    (lambda: fw.phase(NAN, 0, 0, 0, 0, 0), "c_d"),
    (lambda: lb.exact(W1_OK, W2_OK[:, :1], np.zeros((2, 3)), [0.0]), "W2_0"),
    (lambda: lb.exact(W1_OK, W2_OK, np.zeros((3, 3)), [0.0]), "sigma_yx"),
    (lambda: lb.exact(W1_OK, 2 * W2_OK, np.zeros((2, 3)), [0.0]), "not λ-balanced"),
    (lambda: lb.balanced_init(3, 4, 2, 1.0, 1.0), "hidden ≤ d_out"),
    (lambda: lb.balanced_init(2, 4, 5, -1.0, 1.0), "hidden ≤ d_in"),
    (lambda: lb.balanced_init(3, 2, 2, 1.0, -1.0), "scale"),
    (lambda: lb.task_aligned_init(np.eye(3), 4, 0.0, 0.1), "hidden"),
    (lambda: lb.task_aligned_init(np.eye(3), 2, 0.0, -0.1), "initial_singular_values"),
    (lambda: fe.exact(K0_OK, np.zeros(4), [0.0]), "y must be non-zero"),
    (lambda: fe.exact(K0_OK + np.triu(np.ones((4, 4)), 1), Y_OK, [0.0]), "symmetric"),
    (lambda: fe.exact(-K0_OK, Y_OK, [0.0]), "positive semi-definite"),
    (lambda: fe.exact(K0_OK[:3, :3], Y_OK, [0.0]), "K0"),
    (lambda: fe.exact(K0_OK, Y_OK, [0.0], gamma=-1.0), "gamma"),
    (lambda: fe.exact(K0_OK, Y_OK, [0.0], gamma=1e200), "gamma·‖y‖²"),
    (lambda: fe.exact(K0_OK, Y_OK, [0.0], eta=0.0), "eta"),
    (lambda: fe.power_law_task(10, -1.0, 1.0), "exponents"),
    (lambda: fe.power_law_task(0, 1.0, 1.0), "samples"),
]


@pytest.mark.parametrize("call, words", CASES, ids=[words for _, words in CASES])
def test_bad_input_raises_an_actionable_value_error(call, words):
    with pytest.raises(ValueError) as error:
        call()
    assert words in str(error.value)
    assert len(str(error.value)) > 20  # a sentence, not a code
