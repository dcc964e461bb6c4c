"""λ-balanced networks learning one task after another: Dominé et al.'s applications (§6,
App. D) — continual learning, reversal learning, transfer to a new feature and fine-tuning
after re-balancing — computed exactly.

A task switch replaces Σyx and keeps the weights. The closed form of :mod:`solvers.lambda_balanced`
(docs/theory.md §3) is exact from *any* λ-balanced state, and gradient flow conserves the balance
``W₂ᵀW₂ − W₁W₁ᵀ = λI``, so each phase restarts it from the factor reached at the end of the
previous one: ``Q = [W₁ᵀ; W₂]`` obeys ``Q' = F_k Q − ½QQᵀQ`` with ``F_k`` built from the k-th task
(:func:`exact_sequence`). The factor comes out up to an h×h rotation, which neither the flow nor
any block of QQᵀ sees. :func:`descent_sequence` is the same sequence by gradient descent.

The applications' other pieces are closed forms too: a task with some of its singular vectors
reversed (:func:`reversed_task`, App. D.2), a trained network re-balanced to a new λ with its
network function kept (:func:`rebalanced`, App. D.4), and a new output feature read out from a
frozen hidden layer (:func:`new_feature`, App. D.3, eqs. 186–187). The maths, with the
equation numbers the docstrings cite, is docs/lambda-balanced-applications.md (A.1)–(A.5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from .._riccati import MatrixRiccati
from .._validation import (
    as_array,
    as_finite_scalar,
    as_positive,
    as_positive_int,
    guard_overflow,
    require_finite,
)
from ._exact import (
    BALANCE_TOLERANCE,
    LambdaBalancedTrajectory,
    balance,
    gradient_descent,
    hierarchical_task,
    random_task,
    task_aligned_init,
)
from ._scenario import TASK_STREAM

__all__ = [
    "FINE_TUNING_TASKS",
    "MAX_DURATION",
    "MAX_POINTS",
    "MAX_TASKS",
    "TaskSequence",
    "descent_sequence",
    "exact_sequence",
    "fine_tuning_task",
    "loss_on",
    "mode_strengths",
    "new_feature",
    "random_tasks",
    "rebalanced",
    "reversed_task",
]

#: most tasks of one sequence
MAX_TASKS = 8
#: longest phase (the time of one task)
MAX_DURATION = 1e4
#: most recorded times of one phase
MAX_POINTS = 2_000


@dataclass(frozen=True)
class TaskSequence:
    """A λ-balanced network trained on tasks one after another. Each phase is a
    :class:`~solvers.lambda_balanced.LambdaBalancedTrajectory` on its own task, with the times of
    the whole sequence and the sequence's initial weights as its reference (so its kernel distance
    is measured from the very start); the concatenated fields below have time as first axis."""

    phases: tuple[LambdaBalancedTrajectory, ...]
    #: (K,) time at which each task starts (the first at 0)
    starts: np.ndarray
    #: the weights at the end (h × dᵢ, dₒ × h), up to an h×h rotation for the exact flow
    W1_end: np.ndarray
    W2_end: np.ndarray

    @property
    def tasks(self) -> tuple[np.ndarray, ...]:
        return tuple(phase.sigma_yx for phase in self.phases)

    @property
    def lam(self) -> float:
        return self.phases[0].lam

    def _joined(self, name: str) -> np.ndarray:
        return np.concatenate([getattr(phase, name) for phase in self.phases])

    @cached_property
    def t(self) -> np.ndarray:
        return self._joined("t")

    @cached_property
    def phase(self) -> np.ndarray:
        """(T,) index of the task being learnt at each time."""
        return np.concatenate([np.full(p.t.size, k) for k, p in enumerate(self.phases)])

    @cached_property
    def function(self) -> np.ndarray:
        return self._joined("function")

    @cached_property
    def rsm_in(self) -> np.ndarray:
        return self._joined("rsm_in")

    @cached_property
    def rsm_out(self) -> np.ndarray:
        return self._joined("rsm_out")

    @cached_property
    def loss(self) -> np.ndarray:
        """(T,) loss on the task being learnt at each time."""
        return self._joined("loss")

    @cached_property
    def task_losses(self) -> np.ndarray:
        """(T, K) ``½‖Σₖ − W₂W₁‖²_F`` on every task k of the sequence, at every time."""
        return loss_on(self.function[:, None], np.stack(self.tasks)[None])

    @cached_property
    def kernel_distance(self) -> np.ndarray:
        """(T,) S(0, t) of the NTK from the sequence's start."""
        return self._joined("kernel_distance")

    @property
    def saddle_margins(self) -> np.ndarray:
        """(K,) each phase's distance of its start from a saddle's stable manifold (≲ 1e-12:
        the exact flow would stall there; see ``LambdaBalancedTrajectory.saddle_margin``)."""
        return np.array([phase.saddle_margin for phase in self.phases])

    def mode_strengths(self, task: int = 0, modes: int | None = None) -> np.ndarray:
        """(T, r) :func:`mode_strengths` along task ``task``'s singular vectors."""
        return mode_strengths(self.function, self.tasks[task], modes)


def mode_strengths(
    function: np.ndarray, sigma_yx: np.ndarray, modes: int | None = None
) -> np.ndarray:
    """(T, r) ``uᵢᵀ W₂W₁ vᵢ`` for the top ``modes`` singular vectors of ``sigma_yx`` (all by
    default): how much of each of the task's modes the network functions (T, dₒ, dᵢ) hold, with
    a sign — +σᵢ once learnt, −σᵢ for a mode learnt the other way round (App. D.2)."""
    U, values, Vt = np.linalg.svd(sigma_yx, full_matrices=False)
    count = values.size if modes is None else min(int(modes), values.size)
    return np.einsum("ir,tij,rj->tr", U[:, :count], function, Vt[:count])


def loss_on(function: np.ndarray, sigma_yx: np.ndarray) -> np.ndarray:
    """(T,) ``½‖Σyx − W₂W₁‖²_F`` of network functions (T, dₒ, dᵢ) on one task."""
    residual = function - sigma_yx
    return 0.5 * np.sum(residual * residual, axis=(-2, -1))


def _generator(sigma_yx: np.ndarray, lam: float) -> np.ndarray:
    """F of docs/theory.md (3.3) for one task."""
    d_out, d_in = sigma_yx.shape
    return np.block(
        [[-0.5 * lam * np.eye(d_in), sigma_yx.T], [sigma_yx, 0.5 * lam * np.eye(d_out)]]
    )


def _checked(W1_0, W2_0, tasks, durations, points: int | None = None):
    W1_0 = as_array("W1_0", W1_0, ndim=2)
    hidden, d_in = W1_0.shape
    W2_0 = as_array("W2_0", W2_0, ndim=2, shape=(None, hidden))
    d_out = W2_0.shape[0]
    if isinstance(tasks, np.ndarray) and tasks.ndim == 2:
        tasks = [tasks]
    if not 1 <= len(tasks) <= MAX_TASKS:
        raise ValueError(f"a sequence holds 1 to {MAX_TASKS} tasks; got {len(tasks)}.")
    tasks = tuple(
        as_array(f"tasks[{k}]", task, ndim=2, shape=(d_out, d_in)) for k, task in enumerate(tasks)
    )
    durations = np.atleast_1d(as_array("durations", durations, ndim=(0, 1)))
    if durations.size != len(tasks):
        raise ValueError(
            f"durations must hold one time per task ({len(tasks)}); got {durations.size}."
        )
    for duration in durations:
        if not 0 < as_positive("duration", duration) <= MAX_DURATION:
            raise ValueError(f"each duration must be at most {MAX_DURATION:g}; got {duration:g}.")
    if points is not None:
        as_positive_int("points", points, minimum=2, maximum=MAX_POINTS)
    return W1_0, W2_0, tasks, durations


def _local_times(duration: float, points: int, first: bool) -> np.ndarray:
    """A phase's times from its own start, ``points`` evenly spaced over its duration; a phase
    after the first drops its start, which is the previous phase's last time."""
    times = np.linspace(0.0, duration, points)
    return times if first else times[1:]


@guard_overflow
def exact_sequence(
    W1_0: np.ndarray,
    W2_0: np.ndarray,
    tasks: Sequence[np.ndarray],
    durations: Sequence[float] | np.ndarray,
    points: int = 200,
) -> TaskSequence:
    """The exact gradient flow through a sequence of tasks (Dominé et al. §6, App. D.1; Braun
    et al. 2022; docs/lambda-balanced-applications.md (A.1)): task k is learnt for
    ``durations[k]`` from the state the previous task left.

    ``W1_0``, ``W2_0`` must be λ-balanced (as for :func:`solvers.lambda_balanced.exact`); each
    task is a Σyx of shape (dₒ, dᵢ); each phase is recorded at ``points`` evenly spaced times (a
    later phase's first is the previous phase's last, recorded once).
    Raises ``ValueError`` for unbalanced weights, mismatched shapes, more than ``MAX_TASKS``
    tasks or a duration outside (0, ``MAX_DURATION``].
    """
    W1_0, W2_0, tasks, durations = _checked(W1_0, W2_0, tasks, durations, points)
    lam, deviation = balance(W1_0, W2_0)
    if deviation > BALANCE_TOLERANCE:
        raise ValueError(
            f"W1_0, W2_0 are not λ-balanced (relative deviation {deviation:.2e} from λI, "
            f"λ = {lam:.4g}): build them with lambda_balanced.balanced_init or "
            "task_aligned_init, or use descent_sequence, which accepts any start."
        )
    d_in = W1_0.shape[1]
    factor, start, phases, starts = np.vstack([W1_0.T, W2_0]), 0.0, [], []
    for k, (task, duration) in enumerate(zip(tasks, durations, strict=True)):
        local = _local_times(float(duration), points, first=k == 0)
        flow = MatrixRiccati(_generator(task, lam), factor)
        factors = flow.factors(local)
        require_finite("lambda_balanced_sequences.exact_sequence", factors)
        first, second = factors[:, :d_in], factors[:, d_in:]  # W₁ᵀ and W₂, up to a rotation
        swap = (0, 2, 1)
        phases.append(
            LambdaBalancedTrajectory(
                t=start + local,
                function=second @ first.transpose(swap),
                rsm_in=first @ first.transpose(swap),
                rsm_out=second @ second.transpose(swap),
                sigma_yx=task,
                W1_0=W1_0,
                W2_0=W2_0,
                lam=lam,
                method="exact",
                saddle_margin=flow.unstable_margin(),
            )
        )
        starts.append(start)
        factor, start = factors[-1], start + float(duration)
    return TaskSequence(tuple(phases), np.array(starts), factor[:d_in].T, factor[d_in:])


def descent_sequence(
    W1_0: np.ndarray,
    W2_0: np.ndarray,
    tasks: Sequence[np.ndarray],
    durations: Sequence[float] | np.ndarray,
    lr: float,
    every: int = 1,
) -> TaskSequence:
    """The same sequence by gradient descent (:func:`solvers.lambda_balanced.gradient_descent`
    per task, step k of a phase at its start + k·lr, ``round(duration / lr)`` steps each); any
    start is accepted. A phase that diverges ends the sequence there."""
    W1_0, W2_0, tasks, durations = _checked(W1_0, W2_0, tasks, durations)
    lr = as_positive("lr", lr)
    W1, W2, start, phases, starts = W1_0, W2_0, 0.0, [], []
    for k, (task, duration) in enumerate(zip(tasks, durations, strict=True)):
        steps = max(1, round(float(duration) / lr))
        run = gradient_descent(W1, W2, task, lr, steps, every=every)
        keep = slice(None) if k == 0 else slice(1, None)  # the start is the last phase's end
        phases.append(
            replace(
                run,
                t=start + run.t[keep],
                function=run.function[keep],
                rsm_in=run.rsm_in[keep],
                rsm_out=run.rsm_out[keep],
                W1=run.W1[keep],
                W2=run.W2[keep],
                W1_0=W1_0,
                W2_0=W2_0,
            )
        )
        starts.append(start)
        W1, W2, start = run.W1[-1], run.W2[-1], start + steps * lr
        if run.diverged_at is not None:
            break
    return TaskSequence(tuple(phases), np.array(starts), W1, W2)


# -- the applications' tasks and closed forms ----------------------------------------------------


def reversed_task(sigma_yx: np.ndarray, modes: Sequence[int] = (0,)) -> np.ndarray:
    """Σyx with the left singular vectors of ``modes`` (0 = the largest) reversed: the reversal
    learning task of Dominé et al. App. D.2 (Braun et al. 2022; docs (A.3)), ``U D S Vᵀ`` with
    ``D`` = −1 on those modes and 1 elsewhere. Where singular values are equal the SVD picks
    the vectors."""
    sigma_yx = as_array("sigma_yx", sigma_yx, ndim=2)
    U, s, Vt = np.linalg.svd(sigma_yx, full_matrices=False)
    signs = np.ones(s.size)
    for mode in modes:
        if not 0 <= int(mode) < s.size:
            raise ValueError(f"modes must lie in 0..{s.size - 1}; got {mode}.")
        signs[int(mode)] = -1.0
    return (U * (signs * s)) @ Vt


def rebalanced(function: np.ndarray, hidden: int, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Weights ``(W1, W2)`` with the same network function and relative scale ``lam``
    (Dominé et al. App. D.4; docs (A.5)): with ``W₂W₁ = U S Vᵀ``, ``W₁ = diag(a) V_hᵀ`` and
    ``W₂ = U_h diag(b)``, ``aᵢbᵢ = sᵢ``, ``bᵢ² − aᵢ² = λ`` — each layer's singular values are
    rescaled, the network's singular vectors kept. Needs ``hidden ≤ min(dᵢ, dₒ)`` and a function
    of rank ≤ hidden (its other singular values are dropped)."""
    function = as_array("function", function, ndim=2)
    hidden = as_positive_int("hidden", hidden)
    lam = as_finite_scalar("lam", lam)
    values = np.linalg.svd(function, compute_uv=False)
    if hidden > values.size:
        raise ValueError(
            f"hidden must be at most min(d_in, d_out) = {values.size} to re-balance; got {hidden}."
        )
    return task_aligned_init(function, hidden, lam, values[:hidden])


def new_feature(
    rsm_in: np.ndarray,
    inputs: np.ndarray,
    item: int,
    target: float,
    t: float | np.ndarray = np.inf,
) -> np.ndarray:
    """A new output feature learnt from one item with the hidden layer frozen (Dominé et al.
    App. D.3): a new read-out row w, from w = 0, trained by gradient flow on ``½(y − w h_i)²``
    with ``h_i = W₁x_i``. It stays along ``h_iᵀ``, so ``w(t) = y(1 − e^{−k_ii t}) h_iᵀ / k_ii``
    and the feature predicted for item j is ``y(1 − e^{−k_ii t}) k_ij / k_ii`` with
    ``k = X W₁ᵀW₁ Xᵀ`` (eqs. 186–187; docs (A.4)): only the first layer's similarity ``rsm_in``
    = W₁ᵀW₁ decides how the feature spreads to the other items.

    ``inputs``: (n, dᵢ) the items; returns (T, n) for times ``t`` (or (n,) for one time; the
    default is the converged read-out).
    """
    rsm_in = as_array("rsm_in", rsm_in, ndim=2)
    d_in = rsm_in.shape[0]
    rsm_in = as_array("rsm_in", rsm_in, ndim=2, shape=(d_in, d_in))
    inputs = as_array("inputs", inputs, ndim=2, shape=(None, d_in))
    if not 0 <= item < inputs.shape[0]:
        raise ValueError(f"item must be in 0..{inputs.shape[0] - 1}; got {item}.")
    target = as_finite_scalar("target", target)
    times = np.asarray(t, dtype=np.float64)
    if np.any(np.isnan(times)) or np.any(times < 0):
        raise ValueError("t must be times >= 0 (inf for the converged read-out).")
    similarity = inputs[item] @ rsm_in @ inputs.T  # k_ij for every j
    own = similarity[item]
    if not own > 0:
        raise ValueError(
            f"item {item} has no hidden representation (W1 x_i = 0): no read-out can learn it."
        )
    learnt = -np.expm1(-own * times)
    return target * learnt[..., None] * similarity / own


#: the new tasks of Dominé et al.'s fine-tuning experiment (App. D.4), after the hierarchy
FINE_TUNING_TASKS = ("added feature", "reversal", "scaled")
#: the item that gains a feature, the item it comes from and the feature (the canary gets the
#: goldfish's "goldfish | blue fish" label): it breaks the tree's singular vectors
ADDED_FEATURE = (2, 0, 4)


def fine_tuning_task(kind: str) -> np.ndarray:
    """The hierarchy's Σyx changed as in App. D.4: an existing feature added to another item
    ("added feature": the canary gains the goldfish's species label), the top singular vector
    reversed ("reversal", :func:`reversed_task`) or every singular value doubled ("scaled")."""
    sigma_yx = hierarchical_task()
    if kind == "added feature":
        receiver, donor, feature = ADDED_FEATURE
        changed = sigma_yx.copy()
        changed[feature, receiver] = sigma_yx[feature, donor]
        return changed
    if kind == "reversal":
        return reversed_task(sigma_yx)
    if kind == "scaled":
        return 2.0 * sigma_yx
    raise ValueError(f"kind must be one of {', '.join(FINE_TUNING_TASKS)}; got {kind!r}.")


def random_tasks(d_in: int, d_out: int, count: int, seed: int) -> tuple[np.ndarray, ...]:
    """``count`` independent random regression tasks (:func:`solvers.lambda_balanced.random_task`)
    for the continual-learning sequence of App. D.1: the first is a scenario's own task (stream
    ``(seed, TASK_STREAM)``), task k ≥ 1 draws from ``(seed, TASK_STREAM, k)``."""
    count = as_positive_int("count", count, maximum=MAX_TASKS)
    seed = as_positive_int("seed", seed, minimum=0)
    return tuple(
        random_task(d_in, d_out, (seed, TASK_STREAM) + ((k,) if k else ())) for k in range(count)
    )
