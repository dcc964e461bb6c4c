"""One hidden neuron ``f(x) = a wᵀx`` on data with any ``XᵀX``, singular or not (Kunin et al.,
*Get rich quick*, §3 "Determining the implicit bias via mirror flow", Theorem 3.1, App. A.4,
Fig. 4b).

The task is given by the Gram matrix ``Σ = XᵀX`` (symmetric, positive semi-definite, possibly
of low rank) and a least-squares solution ``β*`` (``Σβ* = Xᵀy``); the loss is
``L = ½(β − β*)ᵀΣ(β − β*)``, ``½‖Xβ − y‖²`` up to a constant, with ``β = a w``
(docs/theory_low_rank.md (1.1)). Gradient flow (1.2)::

    a' = −η_a wᵀΣ(a w − β*),   w' = −η_w a Σ(a w − β*).

Whatever Σ, ``δ = η_w a² − η_a‖w‖²`` is conserved (1.3), and w moves only inside the range of
Σ: its null-space part stays where it started. So the flow lives on ``(a, p)``, ``p = V_rᵀw``
in an orthonormal eigenbasis ``V_r`` of Σ's range (1.4):

* where Σ is ``λ`` times a projection — one data point, any number of identical eigenvalues,
  whitened data — ``(a, p)`` is the whitened single neuron of :mod:`solvers.single_neuron` with
  target ``V_rᵀβ*``, run at time ``λt``: exact (1.5);
* otherwise it is integrated numerically (LSODA with the exact Jacobian, tight tolerances).

When Σ is singular the minima form an affine set and δ decides which point the flow reaches.
Theorem 3.1 (docs/theory_low_rank.md (2.1)–(2.6)) predicts it as the interpolant minimising
``Ψ_δ(β) − ψ_δ β̂₀ᵀβ``: :func:`predicted_interpolant`, with the limits δ → ±∞ (2.5) and the
closed form of App. A.4.4 where the null space is one-dimensional (2.4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.integrate import solve_ivp

from .. import single_neuron as sn
from .._descent import run_descent
from .._validation import (
    as_array,
    as_finite_scalar,
    as_positive,
    as_times,
    guard_overflow,
    require_finite,
)

__all__ = [
    "FLOW_METHODS",
    "EndPoints",
    "Limits",
    "LowRankTask",
    "LowRankTrajectory",
    "conserved_delta",
    "crosses_zero",
    "end_points",
    "gradient_descent",
    "gradient_flow",
    "implicit_bias",
    "limits",
    "predicted_interpolant",
    "task",
    "task_from_data",
]

#: eigenvalues of Σ at or below this fraction of the largest count as zero (Σ's rank)
RANK_TOLERANCE = 1e-10
#: spread of Σ's non-zero eigenvalues, relative, below which they count as equal (closed form)
EQUAL_EIGENVALUES = 1e-12
#: the numerical flow's relative and absolute tolerances
INTEGRATION_RTOL = 1e-11
INTEGRATION_ATOL = 1e-13
#: most Newton steps of the minimisation of Theorem 3.1's objective (it converges in ~10)
NEWTON_STEPS = 100
#: the ways :func:`gradient_flow` may evaluate the flow
FLOW_METHODS = ("auto", "closed form", "integrate")


# -- the task -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LowRankTask:
    """Σ = XᵀX and β*, split along Σ's range and null space (docs/theory_low_rank.md (1.4))."""

    gram: np.ndarray  #: (d, d) Σ = XᵀX
    beta_star: np.ndarray  #: (d,) a least-squares solution, Σβ* = Xᵀy
    eigenvalues: np.ndarray  #: (r,) Σ's non-zero eigenvalues, ascending
    range_basis: np.ndarray  #: (d, r) orthonormal eigenvectors of those eigenvalues
    null_basis: np.ndarray  #: (d, d − r) orthonormal basis of Σ's null space

    @property
    def rank(self) -> int:
        return int(self.eigenvalues.size)

    @property
    def dimension(self) -> int:
        return int(self.gram.shape[0])

    @cached_property
    def min_norm_interpolant(self) -> np.ndarray:
        """(d,) the interpolant of least norm: β*'s part in Σ's range."""
        return self.range_basis @ (self.range_basis.T @ self.beta_star)

    def in_range(self, w: np.ndarray) -> np.ndarray:
        """Coordinates ``V_rᵀw`` (…, r) of vectors in Σ's range."""
        return w @ self.range_basis

    def loss(self, beta: np.ndarray) -> np.ndarray:
        """``½(β − β*)ᵀΣ(β − β*)`` over the leading axes of ``beta`` (…, d)."""
        residual = self.in_range(beta - self.beta_star)
        return 0.5 * np.sum(self.eigenvalues * residual**2, axis=-1)

    @property
    def single_scale(self) -> bool:
        """Whether Σ is one eigenvalue times a projection (the flow is then closed form)."""
        low, high = float(self.eigenvalues[0]), float(self.eigenvalues[-1])
        return high - low <= EQUAL_EIGENVALUES * high


def task(gram, beta_star) -> LowRankTask:
    """Validate ``Σ = XᵀX`` (d × d, symmetric, positive semi-definite, not zero) and ``β*``
    (d,), and split Σ into its range and null space."""
    gram = as_array("gram", gram, ndim=2)
    d = gram.shape[0]
    if gram.shape != (d, d):
        raise ValueError(f"gram (XᵀX) must be a square d × d matrix; got shape {gram.shape}.")
    beta_star = as_array("beta_star", beta_star, ndim=1, shape=(d,))
    scale = float(np.max(np.abs(gram)))
    if scale == 0.0:
        raise ValueError("gram (XᵀX) is zero: the data carry nothing to learn; pass data ≠ 0.")
    if float(np.max(np.abs(gram - gram.T))) > 1e-10 * scale:
        raise ValueError("gram (XᵀX) must be symmetric; pass XᵀX itself, or (G + Gᵀ)/2.")
    values, vectors = np.linalg.eigh(0.5 * (gram + gram.T))
    if values[0] < -1e-9 * values[-1]:
        raise ValueError(
            f"gram (XᵀX) must be positive semi-definite; it has the eigenvalue {values[0]:.3g}. "
            "Pass XᵀX of real data X."
        )
    kept = values > RANK_TOLERANCE * values[-1]
    return LowRankTask(gram, beta_star, values[kept], vectors[:, kept], vectors[:, ~kept])


def task_from_data(x, y) -> LowRankTask:
    """The task of data ``X`` (n × d, or one point (d,)) and labels ``y`` (n,): ``Σ = XᵀX``
    and ``β*`` the least-squares solution of least norm."""
    x = np.atleast_2d(as_array("x", x, ndim=(1, 2)))
    y = np.atleast_1d(as_array("y", y, ndim=(0, 1)))
    if y.shape != (x.shape[0],):
        raise ValueError(f"y must hold one label per data point ({x.shape[0]}); got {y.shape}.")
    beta_star = np.linalg.lstsq(x, y, rcond=None)[0]
    return task(x.T @ x, beta_star)


# -- the trajectory -----------------------------------------------------------------------------


@dataclass(frozen=True)
class LowRankTrajectory:
    """One run of the neuron on the task (first axis of every array = time)."""

    t: np.ndarray  #: (T,) times
    a: np.ndarray  #: (T,) second-layer weight
    w: np.ndarray  #: (T, d) first-layer weights
    task: LowRankTask
    eta_a: float
    eta_w: float
    delta: float  #: conserved ``η_w a² − η_a‖w‖²`` at the start
    method: str  #: "closed form", "integrate" or "gradient descent"
    diverged_at: int | None = None  #: gradient-descent step that diverged, if any

    @cached_property
    def beta(self) -> np.ndarray:
        """(T, d) the network function ``β = a w``."""
        return self.a[:, None] * self.w

    @cached_property
    def loss(self) -> np.ndarray:
        """(T,) ``½(β − β*)ᵀΣ(β − β*)``."""
        return self.task.loss(self.beta)

    @property
    def conserved(self) -> np.ndarray:
        """(T,) ``η_w a² − η_a‖w‖²`` along the run (constant under gradient flow)."""
        return conserved_delta(self.a, self.w, eta_a=self.eta_a, eta_w=self.eta_w)

    @property
    def through_zero(self) -> bool:
        """Whether ``a`` changes sign along the run (then β passes through 0, docs/
        theory_low_rank.md (2.7))."""
        return bool(np.any(self.a * self.a[0] < 0)) if self.a[0] != 0 else False


def conserved_delta(a, w, *, eta_a: float = 1.0, eta_w: float = 1.0):
    """``δ = η_w a² − η_a‖w‖²`` (docs/theory_low_rank.md (1.3)); broadcasts over w's leading
    axes."""
    return eta_w * np.asarray(a) ** 2 - eta_a * np.sum(np.asarray(w) ** 2, axis=-1)


def _check_start(a0, w0, problem: LowRankTask, eta_a, eta_w):
    a0 = as_finite_scalar("a0", a0)
    w0 = as_array("w0", w0, ndim=1, shape=(problem.dimension,))
    return a0, w0, as_positive("eta_a", eta_a), as_positive("eta_w", eta_w)


@guard_overflow
def gradient_flow(
    a0: float,
    w0,
    gram,
    beta_star,
    t,
    *,
    eta_a: float = 1.0,
    eta_w: float = 1.0,
    method: str = "auto",
) -> LowRankTrajectory:
    """The gradient flow (docs/theory_low_rank.md (1.2)) from ``(a0, w0)`` at the times ``t``.

    ``method``: "closed form" (Σ must be one eigenvalue times a projection, (1.5)),
    "integrate" (numerically, (1.6)), or "auto" — the closed form where it applies.
    """
    problem = task(gram, beta_star)
    a0, w0, eta_a, eta_w = _check_start(a0, w0, problem, eta_a, eta_w)
    times = as_times(t)
    if method not in FLOW_METHODS:
        raise ValueError(f"method must be one of {FLOW_METHODS}; got {method!r}.")
    if method == "auto":
        method = "closed form" if problem.single_scale else "integrate"
    if method == "closed form" and not problem.single_scale:
        raise ValueError(
            "the closed form needs XᵀX with equal non-zero eigenvalues (one data point, or "
            f"whitened data); these are {problem.eigenvalues}: use method='integrate'."
        )
    flow = _closed_form if method == "closed form" else _integrated
    a, p = flow(a0, problem.in_range(w0), problem, times, eta_a, eta_w)
    # w keeps its null-space part (1.4)
    w = w0 + (p - problem.in_range(w0)) @ problem.range_basis.T
    require_finite("single_neuron.low_rank.gradient_flow", a, w)
    delta = float(conserved_delta(a0, w0, eta_a=eta_a, eta_w=eta_w))
    return LowRankTrajectory(times, a, w, problem, eta_a, eta_w, delta, method)


def _closed_form(a0, p0, problem: LowRankTask, times, eta_a, eta_w):
    """Σ = λP: (a, p) is the whitened neuron with target V_rᵀβ* at time λt ((1.5))."""
    scale = float(problem.eigenvalues[-1])
    target = problem.in_range(problem.beta_star)
    path = sn.exact(a0, p0, target, scale * times, eta_a=eta_a, eta_w=eta_w)
    return path.a, path.w


def _integrated(a0, p0, problem: LowRankTask, times, eta_a, eta_w):
    """(a, p) integrated by LSODA (stiff or not, as the flow turns) with the exact Jacobian
    ((1.6))."""
    lam = problem.eigenvalues
    target = problem.in_range(problem.beta_star)

    def rhs(_, state):
        a, p = state[0], state[1:]
        g = lam * (a * p - target)
        return np.concatenate([[-eta_a * (p @ g)], -eta_w * a * g])

    def jacobian(_, state):
        a, p = state[0], state[1:]
        g = lam * (a * p - target)
        mixed = g + a * lam * p
        top = np.concatenate([[-eta_a * (p @ (lam * p))], -eta_a * mixed])
        lower = np.column_stack([-eta_w * mixed, -eta_w * a * a * np.diag(lam)])
        return np.vstack([top, lower])

    unique, position = np.unique(times, return_inverse=True)
    start = np.concatenate([[a0], p0])
    if unique[-1] == 0.0:
        states = np.repeat(start[None, :], unique.size, axis=0)
    else:
        solution = solve_ivp(
            rhs,
            (0.0, float(unique[-1])),
            start,
            method="LSODA",
            jac=jacobian,
            t_eval=unique,
            rtol=INTEGRATION_RTOL,
            atol=INTEGRATION_ATOL,
        )
        if not solution.success:
            raise ValueError(f"the flow could not be integrated ({solution.message}).")
        states = solution.y.T
    states = states[position]
    return states[:, 0], states[:, 1:]


@guard_overflow
def gradient_descent(
    a0: float,
    w0,
    gram,
    beta_star,
    lr: float,
    steps: int,
    *,
    eta_a: float = 1.0,
    eta_w: float = 1.0,
    every: int = 1,
) -> LowRankTrajectory:
    """Gradient descent ``θ ← θ − lr·η_θ ∂L/∂θ`` on the loss (docs/theory_low_rank.md (1.1)),
    step k reported at ``t = k·lr`` (every ``every``-th step and the last); a run that
    diverges stops, ``diverged_at`` holding the step."""
    problem = task(gram, beta_star)
    a0, w0, eta_a, eta_w = _check_start(a0, w0, problem, eta_a, eta_w)
    gram, target = problem.gram, problem.beta_star

    def step(state):
        a, w = state
        gradient = gram @ (a * w - target)  # ∂L/∂β
        return a - lr * eta_a * (w @ gradient), w - lr * eta_w * a * gradient

    run = run_descent(step, (np.asarray(a0), w0), lr, steps, every)
    a, w = run.states
    delta = float(conserved_delta(a0, w0, eta_a=eta_a, eta_w=eta_w))
    return LowRankTrajectory(
        run.t, a, w, problem, eta_a, eta_w, delta, "gradient descent", run.diverged_at
    )


def crosses_zero(a0: float, w0, gram, beta_star, *, eta_a: float = 1.0, eta_w: float = 1.0) -> bool:
    """Whether the flow's read-out a changes sign on its way, i.e. β passes through 0 (then it
    ends at :func:`predicted_interpolant` with ``through_zero=True``). Where Σ has one non-zero
    eigenvalue the flow is the whitened neuron of (1.5), which changes sign at most once, iff
    its basin (theory.md (1.12)) is the other sign of a (docs/theory_low_rank.md (2.7)); other
    Σ are refused."""
    problem = task(gram, beta_star)
    a0, w0, eta_a, eta_w = _check_start(a0, w0, problem, eta_a, eta_w)
    if not problem.single_scale:
        raise ValueError(
            "crosses_zero needs XᵀX with equal non-zero eigenvalues (one data point, or "
            "whitened data); for other data run gradient_flow and read its through_zero."
        )
    target = problem.in_range(problem.beta_star)
    side = sn.basin(a0, problem.in_range(w0), target, eta_a=eta_a, eta_w=eta_w)
    return bool(a0 != 0 and side * a0 < 0)


@dataclass(frozen=True)
class EndPoints:
    """Where the flows from one β₀ end, for many δ at once (:func:`end_points`)."""

    deltas: np.ndarray  #: (S,) conserved δ of each start
    ends: np.ndarray  #: (S, d) Theorem 3.1's interpolant, for −β₀ where the flow crosses
    through_zero: np.ndarray  #: (S,) bool: that flow's a changes sign (β passes through 0)


@guard_overflow
def end_points(
    beta0, deltas, gram, beta_star, *, eta_a: float = 1.0, eta_w: float = 1.0
) -> EndPoints:
    """:func:`predicted_interpolant` with :func:`crosses_zero`'s answer, for the starts
    ``(a₀, w₀)`` of function β₀ and each δ (theory.md (1.6); either sign of a₀ gives the same
    β path), in one pass: the starts, the basins of the reduced neurons (docs/theory_low_rank.md
    (1.5), theory.md (1.12)) and the closed form (2.4) as arrays. Needs Σ with equal non-zero
    eigenvalues, as :func:`crosses_zero` does."""
    problem = task(gram, beta_star)
    beta0 = as_array("beta0", beta0, ndim=1, shape=(problem.dimension,))
    deltas = as_array("deltas", deltas, ndim=1)
    eta_a, eta_w = as_positive("eta_a", eta_a), as_positive("eta_w", eta_w)
    if not problem.single_scale:
        raise ValueError(
            "end_points needs XᵀX with equal non-zero eigenvalues (one data point, or whitened "
            "data); for other data call predicted_interpolant with each flow's through_zero."
        )
    if float(np.linalg.norm(beta0)) == 0:
        raise ValueError("beta0 must be non-zero: Theorem 3.1 needs the direction of β₀.")
    crosses = _basins(beta0, deltas, problem, eta_a, eta_w) < 0
    scale = math.sqrt(eta_a * eta_w)
    base, null = problem.min_norm_interpolant * scale, problem.null_basis
    if null.shape[1] == 0:
        return EndPoints(deltas, np.tile(problem.min_norm_interpolant, (deltas.size, 1)), crosses)
    if null.shape[1] == 1:
        ends = [
            _one_null_direction(sign * scale * beta0, base, null[:, 0], deltas) for sign in (1, -1)
        ]
        found = np.where(crosses[:, None], ends[1], ends[0])
    else:
        found = np.array(
            [
                _newton((-1 if c else 1) * scale * beta0, base, null, float(d))
                for d, c in zip(deltas, crosses, strict=True)
            ]
        )
    return EndPoints(deltas, found / scale, crosses)


def _basins(beta0, deltas, problem: LowRankTask, eta_a: float, eta_w: float) -> np.ndarray:
    """The basin sign of each start (a₀ > 0): ``η_a cᵀp₀ + (ω + δ̂/2) a₀`` of the reduced neuron
    with target ``c = V_rᵀβ*``, ``p₀ = V_rᵀw₀`` and conserved ``δ̂ = η_w a₀² − η_a‖p₀‖²``
    (theory.md (1.12)); negative where a changes sign."""
    norm0 = float(np.linalg.norm(beta0))
    rates = eta_a * eta_w
    root = np.hypot(deltas, 2.0 * math.sqrt(rates) * norm0)
    a_sq = np.where(deltas >= 0, (root + deltas) / (2.0 * eta_w), 0.0)
    a_sq = np.where(deltas >= 0, a_sq, 2.0 * eta_a * norm0**2 / (root - np.minimum(deltas, 0)))
    a0 = np.sqrt(a_sq)
    along = problem.in_range(beta0)  # p₀ = along/a₀
    target = problem.in_range(problem.beta_star)
    reduced = eta_w * a_sq - eta_a * float(along @ along) / a_sq
    coupling_sq = rates * float(target @ target)
    omega = np.hypot(0.5 * reduced, math.sqrt(coupling_sq))
    below = omega - 0.5 * reduced  # > 0; ω + δ̂/2 = coupling²/(ω − δ̂/2) without cancellation
    growth = np.where(
        reduced >= 0, omega + 0.5 * reduced, coupling_sq / np.where(below > 0, below, 1.0)
    )
    return eta_a * float(along @ target) / a0 + growth * a0


# -- Theorem 3.1: the interpolant the flow reaches ------------------------------------------------


def _kappa_minus_delta(norm, delta):
    """``κ − δ`` with ``κ = √(δ² + 4x²)``, without cancellation (docs/theory_low_rank.md
    (2.2)); broadcasts over arrays of norms and δ."""
    norm, delta = np.asarray(norm, dtype=float), np.asarray(delta, dtype=float)
    kappa = np.hypot(delta, 2.0 * norm)
    total = kappa + delta
    upstream = 4.0 * norm**2 / np.where(total > 0, total, 1.0)
    return np.where(delta >= 0, np.where(total > 0, upstream, 0.0), kappa - delta)


def _potential(norm: float, delta: float) -> float:
    """``Φ_δ(x) = Ψ_δ(x) − Ψ_δ(0)``, written without cancellation (docs/theory_low_rank.md
    (2.3))."""
    kappa = float(np.hypot(delta, 2.0 * norm))
    if delta <= 0:  # Ψ_δ(0) = 0 and √(κ + δ) = 2x/√(κ − δ)
        return (kappa - 2.0 * delta) * 2.0 * norm / (3.0 * math.sqrt(kappa - delta))
    s, s0 = math.sqrt(kappa + delta), math.sqrt(2.0 * delta)
    return float(_kappa_minus_delta(norm, delta)) * (kappa + s * s0) / (3.0 * (s + s0))


def implicit_bias(beta, beta0, delta: float) -> float:
    """Theorem 3.1's objective ``Ψ_δ(β) − ψ_δ β̂₀ᵀβ`` (η_aη_w = 1), shifted by the constant
    ``−Ψ_δ(0)`` so that it is evaluated without cancellation (docs/theory_low_rank.md (2.1),
    (2.3))."""
    beta = as_array("beta", beta, ndim=1)
    beta0 = as_array("beta0", beta0, ndim=1, shape=beta.shape)
    delta = as_finite_scalar("delta", delta)
    norm0 = float(np.linalg.norm(beta0))
    if norm0 == 0:
        raise ValueError("beta0 must be non-zero: Theorem 3.1 needs the direction of β₀.")
    weight = math.sqrt(float(_kappa_minus_delta(norm0, delta)))  # ψ_δ
    return _potential(float(np.linalg.norm(beta)), delta) - weight * float(beta0 @ beta) / norm0


@guard_overflow
def predicted_interpolant(
    beta0,
    delta: float,
    gram,
    beta_star,
    *,
    eta_a: float = 1.0,
    eta_w: float = 1.0,
    through_zero: bool = False,
) -> np.ndarray:
    """Where the flow from ``β₀`` with conserved ``δ`` ends, by Theorem 3.1 (Kunin et al.;
    docs/theory_low_rank.md (2.1)–(2.6)): the interpolant minimising ``Ψ_δ(β) − ψ_δ β̂₀ᵀβ``.

    ``δ = ±inf`` gives the limits (2.5): the interpolant nearest β₀ (upstream, +inf) and the
    one along β₀ (downstream, −inf). With one null direction the minimiser is closed form
    (2.4); with several it is found by Newton's method on the convex objective. Learning rates
    enter through ``√(η_aη_w)``, which rescales β (2.6). The theorem assumes β ≠ 0 along the
    flow; a downstream flow whose ``a`` changes sign passes through β = 0 once, and then ends
    at the prediction for ``−β₀`` (``through_zero=True``; (2.7), their App. A.4.4 remark).
    """
    problem = task(gram, beta_star)
    beta0 = as_array("beta0", beta0, ndim=1, shape=(problem.dimension,))
    delta = _delta_or_limit(delta)
    if float(np.linalg.norm(beta0)) == 0:
        raise ValueError("beta0 must be non-zero: Theorem 3.1 needs the direction of β₀.")
    scale = math.sqrt(as_positive("eta_a", eta_a) * as_positive("eta_w", eta_w))
    start = -scale * beta0 if through_zero else scale * beta0
    base = problem.min_norm_interpolant * scale
    null = problem.null_basis
    if null.shape[1] == 0:  # full rank: one interpolant
        return problem.min_norm_interpolant.copy()
    if math.isinf(delta):
        return _limit(start, base, null, delta > 0) / scale
    if null.shape[1] == 1:
        return _one_null_direction(start, base, null[:, 0], float(delta)) / scale
    return _newton(start, base, null, delta) / scale


def _delta_or_limit(value) -> float:
    """δ: a finite number, or ±inf for the limits."""
    if isinstance(value, float | int | np.floating) and math.isinf(value):
        return float(value)
    return as_finite_scalar("delta", value)


def _one_null_direction(beta0, base, direction, delta) -> np.ndarray:
    """App. A.4.4, their eq. 72: ``β = β_p + α n`` (docs/theory_low_rank.md (2.4)), for one δ
    (→ (d,)) or an array of them (→ (S, d))."""
    norm0 = float(np.linalg.norm(beta0))
    k = 0.5 * np.sqrt(_kappa_minus_delta(norm0, delta)) * float(direction @ beta0) / norm0
    c, b_sq = np.asarray(delta) + 2.0 * k * k, float(base @ base)
    root = np.hypot(c, 2.0 * math.sqrt(b_sq))
    behind = root - c  # > 0 where c < 0: then c + root = 4B²/(root − c), no cancellation
    inner = np.where(c >= 0, c + root, 4.0 * b_sq / np.where(behind > 0, behind, 1.0))
    return base + np.multiply.outer(k * np.sqrt(inner), direction)


def _newton(beta0, base, null, delta: float) -> np.ndarray:
    """The convex objective over the null-space coordinates z of ``β = β_p + N z``, by damped
    Newton steps from the upstream limit (docs/theory_low_rank.md (2.4))."""
    norm0 = float(np.linalg.norm(beta0))
    pull = math.sqrt(float(_kappa_minus_delta(norm0, delta))) * (null.T @ beta0) / norm0

    def objective(z):
        return _potential(float(np.linalg.norm(base + null @ z)), delta) - float(pull @ z)

    z = null.T @ beta0  # the upstream limit: the interpolant nearest β₀
    for _ in range(NEWTON_STEPS):
        step = np.linalg.solve(*_newton_system(base + null @ z, null, delta, pull))
        value, size = objective(z), 1.0
        while objective(z - size * step) > value + 1e-15 * abs(value) and size > 1e-6:
            size /= 2
        z = z - size * step
        if float(np.linalg.norm(size * step)) <= 1e-15 * (1.0 + float(np.linalg.norm(z))):
            break
    return base + null @ z


def _newton_system(beta, null, delta: float, pull) -> tuple[np.ndarray, np.ndarray]:
    """(Hessian, gradient) of the objective in z: ``∇Φ = q'(x) β̂`` and
    ``∇²Φ = q''(x) β̂β̂ᵀ + (q'(x)/x)(I − β̂β̂ᵀ)``, ``q' = √(κ − δ)``, ``q'' = 2x/(κ√(κ − δ))``
    (docs/theory_low_rank.md (2.2))."""
    norm = float(np.linalg.norm(beta))
    slope = math.sqrt(float(_kappa_minus_delta(norm, delta)))
    curve = 2.0 * norm / (math.hypot(delta, 2.0 * norm) * slope)
    along = null.T @ beta / norm
    hessian = (slope / norm) * np.eye(null.shape[1]) + (curve - slope / norm) * np.outer(
        along, along
    )
    return hessian, slope * along - pull


def _limit(beta0, base, null, upstream: bool) -> np.ndarray:
    """δ → +∞: the interpolant nearest β₀, ``β_p + NNᵀβ₀``; δ → −∞: the interpolant whose
    direction has β₀'s null-space part, ``β_p + N u B/√(1 − ‖u‖²)`` with ``u = Nᵀβ̂₀``,
    ``B = ‖β_p‖`` — a multiple of β₀ when one interpolates (docs/theory_low_rank.md (2.5))."""
    if upstream:
        return base + null @ (null.T @ beta0)
    part = null.T @ beta0 / float(np.linalg.norm(beta0))
    rest = 1.0 - float(part @ part)
    if rest <= 1e-12:
        raise ValueError(
            "β₀ lies in the null space of XᵀX (Xβ₀ = 0): as δ → −∞ the end point runs off to "
            "infinity; give β₀ a component along the data."
        )
    return base + null @ part * (float(np.linalg.norm(base)) / math.sqrt(rest))


@dataclass(frozen=True)
class Limits:
    """Where the flow ends as δ → ±∞ (docs/theory_low_rank.md (2.5), (2.7))."""

    upstream: np.ndarray  #: (d,) δ → +∞: the interpolant nearest β₀
    #: (d,) δ → −∞, or None when β₀ lies in Σ's null space (the end point is at infinity)
    downstream: np.ndarray | None
    #: whether the δ → −∞ flow runs straight along the line of β₀ to its end point
    downstream_along_start: bool
    #: whether it passes through β = 0 on the way (β₀'s multiples that interpolate are negative)
    downstream_through_zero: bool


def limits(beta0, gram, beta_star) -> Limits:
    """The end points as δ → ±∞. Downstream the flow moves along β₀'s line (their "projected
    gradient descent"): to a positive multiple of β₀ that interpolates, or through β = 0 to a
    negative one — (2.5) for −β₀, by (2.7) — or, where neither exists, towards (2.5)."""
    problem = task(gram, beta_star)
    beta0 = as_array("beta0", beta0, ndim=1, shape=(problem.dimension,))
    up = predicted_interpolant(beta0, math.inf, gram, beta_star)
    try:
        down = predicted_interpolant(beta0, -math.inf, gram, beta_star)
    except ValueError:
        return Limits(up, None, False, False)
    if _along(down, beta0):
        return Limits(up, down, True, False)
    mirrored = predicted_interpolant(beta0, -math.inf, gram, beta_star, through_zero=True)
    if _along(mirrored, -beta0):
        return Limits(up, mirrored, True, True)
    return Limits(up, down, False, False)


def _along(point: np.ndarray, direction: np.ndarray) -> bool:
    """Whether ``point`` is a positive multiple of ``direction`` (0 is not)."""
    size = float(np.linalg.norm(point))  # 0 when y = 0: the line of interpolants meets 0
    if size == 0:
        return False
    unit = direction / float(np.linalg.norm(direction))
    return float(np.linalg.norm(point / size - unit)) <= 1e-9
