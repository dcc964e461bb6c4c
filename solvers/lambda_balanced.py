"""λ-balanced two-layer linear networks (Dominé et al., *From lazy to rich: exact learning
dynamics in deep linear networks*, Theorem 4.3).

``f(x) = W₂W₁x`` with ``W₁ ∈ ℝ^{h×dᵢ}``, ``W₂ ∈ ℝ^{dₒ×h}``, whitened inputs, loss
``L = ½‖Σyx − W₂W₁‖²_F``; gradient flow ``W₁' = W₂ᵀ(Σyx − W₂W₁)``, ``W₂' = (Σyx − W₂W₁)W₁ᵀ``.
The balance ``W₂ᵀW₂ − W₁W₁ᵀ = λI_h`` is conserved; λ is the relative scale (λ > 0: large
read-out, like δ > 0 for the single neuron).

Exact solution (docs/theory.md (3.3)–(3.5)): ``Q = [W₁ᵀ; W₂]`` obeys ``Q' = FQ − ½QQᵀQ`` with
``F = [[−λ/2·I, Σyxᵀ], [Σyx, λ/2·I]]``; ``QQᵀ(t)`` holds the input similarity ``W₁ᵀW₁``, the
network function ``W₂W₁`` and the output similarity ``W₂W₂ᵀ``. It is evaluated by
:class:`solvers._riccati.MatrixRiccati` (the one-shot formula loses all accuracy by t ≈ 8 when
growth rates differ widely: its h×h matrix reaches condition number 1e16): wherever it is well
conditioned — generic starts with λ ≠ 0 or a task of rank ≥ h — by a restart-free form with
only decaying exponentials, all times in one array expression (docs/theory.md, "λ-balanced:
restart-free closed form"); elsewhere (near a saddle, zero rates) by restarting the closed form
from intermediate states, which stays exact at long horizons.

The networks the views show are *scenarios* (:func:`scenario`): sizes that fit the architecture,
λ and start asked for (:func:`architecture`), a task and a start drawn from the streams of one
seed; a map's cells are scenarios too (:func:`scenario_sweep`).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from . import single_neuron
from ._descent import run_descent
from ._riccati import DecayingForm, MatrixRiccati, _March, unstable_margins
from ._validation import (
    as_array,
    as_finite_scalar,
    as_positive,
    as_positive_int,
    as_seed,
    as_times,
    guard_overflow,
    require_finite,
)
from .metrics import kernel_distance_from_changes

__all__ = [
    "HIERARCHY_FEATURES",
    "HIERARCHY_ITEMS",
    "SHAPES",
    "LambdaBalancedTrajectory",
    "aligned_singular_values",
    "balance",
    "balanced_init",
    "exact",
    "gradient_descent",
    "hierarchical_task",
    "random_generator",
    "random_task",
    "shape_kind",
    "task_aligned_init",
]

#: a seed of the random draws: see :func:`random_generator`
Seed = int | tuple[int, ...] | np.random.Generator | None
#: longest tuple of whole numbers a seed may be
MAX_SEED_WORDS = 8


def random_generator(seed: Seed) -> np.random.Generator:
    """The random generator a seed names: a whole number ≥ 0, None or a Generator (read as
    everywhere in :mod:`solvers`), or a tuple of whole numbers ≥ 0 — the entropy of numpy's
    ``SeedSequence``, so ``(seed, 1)`` draws what ``np.random.default_rng([seed, 1])`` draws.
    Scenarios spell their streams that way (:data:`TASK_STREAM`, :data:`WEIGHT_STREAM`)."""
    if not isinstance(seed, tuple):
        return as_seed(seed)
    if not 0 < len(seed) <= MAX_SEED_WORDS:
        raise ValueError(f"a seed tuple holds 1 to {MAX_SEED_WORDS} whole numbers; got {seed!r}.")
    for word in seed:
        if isinstance(word, bool) or not isinstance(word, numbers.Integral) or word < 0:
            raise ValueError(f"a seed tuple holds whole numbers >= 0; got {word!r} in it.")
    return np.random.default_rng([int(word) for word in seed])


#: Example dimensions (dᵢ, h, dₒ) of the three architectures of Dominé et al. Fig. 5.
SHAPES: dict[str, tuple[int, int, int]] = {
    "funnel": (4, 2, 2),
    "square": (3, 3, 3),
    "inverted funnel": (2, 2, 4),
}

#: Leaves of the semantic tree of Saxe et al. (2019) / Braun et al. (2022), in input order.
HIERARCHY_ITEMS = (
    "goldfish",
    "blue fish",
    "canary",
    "robin",
    "green algae",
    "red algae",
    "rose",
    "daisy",
)
#: Output features: one per node of the tree (+1 left child, −1 right child, 0 not below it).
HIERARCHY_FEATURES = (
    "living thing",
    "animal | plant",
    "fish | bird",
    "algae | flower",
    "goldfish | blue fish",
    "canary | robin",
    "green | red algae",
    "rose | daisy",
)


@dataclass(frozen=True)
class LambdaBalancedTrajectory:
    """Trajectory of a λ-balanced network (first axis of every array = time)."""

    t: np.ndarray  #: (T,)
    function: np.ndarray  #: (T, dₒ, dᵢ) network function W₂W₁
    rsm_in: np.ndarray  #: (T, dᵢ, dᵢ) input representational similarity W₁ᵀW₁
    rsm_out: np.ndarray  #: (T, dₒ, dₒ) output representational similarity W₂W₂ᵀ
    sigma_yx: np.ndarray  #: (dₒ, dᵢ)
    W1_0: np.ndarray  #: (h, dᵢ) initial first layer (the kernel distance's reference)
    W2_0: np.ndarray  #: (dₒ, h) initial second layer
    lam: float  #: λ of the initialisation
    method: str
    diverged_at: int | None = None
    W1: np.ndarray | None = None  #: (T, h, dᵢ), gradient descent only
    W2: np.ndarray | None = None  #: (T, dₒ, h), gradient descent only
    #: distance of the initial state from a saddle's stable manifold (see
    #: :meth:`solvers._riccati.MatrixRiccati.unstable_margin`). Below
    #: :data:`solvers.metrics.SADDLE_MARGIN` the flow stalls at a saddle (e.g. square λ = 0 nets
    #: whose det W₂W₁ has the wrong sign), and rounding decides when a simulation escapes.
    saddle_margin: float | None = None

    @cached_property
    def loss(self) -> np.ndarray:
        """(T,) ``½‖Σyx − W₂W₁‖²_F``."""
        residual = self.function - self.sigma_yx
        return 0.5 * np.sum(residual * residual, axis=(1, 2))

    @cached_property
    def singular_values(self) -> np.ndarray:
        """(T, min(dₒ, dᵢ)) singular values of the network function, largest first."""
        return np.linalg.svd(self.function, compute_uv=False)

    @cached_property
    def ntk(self) -> np.ndarray:
        """(T, dₒdᵢ, dₒdᵢ) NTK on the whitened basis, ``W₂W₂ᵀ ⊗ I + I ⊗ W₁ᵀW₁`` (row-major vec;
        docs/theory.md (3.20))."""
        d_out, d_in = self.sigma_yx.shape
        return np.einsum("tab,ij->taibj", self.rsm_out, np.eye(d_in)).reshape(
            -1, d_out * d_in, d_out * d_in
        ) + np.einsum("ab,tij->taibj", np.eye(d_out), self.rsm_in).reshape(
            -1, d_out * d_in, d_out * d_in
        )

    @cached_property
    def kernel_distance(self) -> np.ndarray:
        """(T,) ``S(0, t)`` of the NTK (see :func:`_kernel_distance`; docs/theory.md (3.20))."""
        return _kernel_distance(
            self.W2_0 @ self.W2_0.T, self.W1_0.T @ self.W1_0, self.rsm_out, self.rsm_in
        )


def _kernel_distance(
    out_0: np.ndarray, in_0: np.ndarray, rsm_out: np.ndarray, rsm_in: np.ndarray
) -> np.ndarray:
    """(T,) ``S(0, t)`` of the NTK ``W₂W₂ᵀ ⊗ I + I ⊗ W₁ᵀW₁`` from its blocks at t = 0 (dₒ×dₒ,
    dᵢ×dᵢ) and at each time (T, …), through ``⟨A⊗I + I⊗B, C⊗I + I⊗D⟩ =
    dᵢ⟨A,C⟩ + tr A tr D + tr B tr C + dₒ⟨B,D⟩`` (never forms the dₒdᵢ × dₒdᵢ kernel),
    applied to K₀ and the change K_t − K₀ (see
    :func:`solvers.metrics.kernel_distance_from_changes`)."""
    return kernel_distance_from_changes(*_kernel_products(out_0, in_0, rsm_out, rsm_in))


def _kernel_products(
    out_0: np.ndarray, in_0: np.ndarray, rsm_out: np.ndarray, rsm_in: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``‖K₀‖²``, ``⟨K₀, D⟩`` and ``‖D‖²`` (D = K_t − K₀) of :func:`_kernel_distance`; all
    arguments may carry the same leading axes."""
    d_out, d_in = out_0.shape[-1], in_0.shape[-1]
    out_d, in_d = rsm_out - out_0, rsm_in - in_0  # D = K_t − K₀ in its two blocks

    def inner(out_a, in_a, out_b, in_b):
        return (
            d_in * np.sum(out_a * out_b, axis=(-2, -1))
            + np.trace(out_a, axis1=-2, axis2=-1) * np.trace(in_b, axis1=-2, axis2=-1)
            + np.trace(in_a, axis1=-2, axis2=-1) * np.trace(out_b, axis1=-2, axis2=-1)
            + d_out * np.sum(in_a * in_b, axis=(-2, -1))
        )

    return (
        inner(out_0, in_0, out_0, in_0),
        inner(out_0, in_0, out_d, in_d),
        inner(out_d, in_d, out_d, in_d),
    )


def _flow(W1_0: np.ndarray, W2_0: np.ndarray, sigma_yx: np.ndarray, lam: float) -> MatrixRiccati:
    """The Riccati flow of docs/theory.md (3.3): ``F = [[−λ/2·I, Σyxᵀ], [Σyx, λ/2·I]]``,
    ``Q₀ = [W₁ᵀ; W₂]``."""
    d_out, d_in = sigma_yx.shape
    generator = np.block(
        [[-0.5 * lam * np.eye(d_in), sigma_yx.T], [sigma_yx, 0.5 * lam * np.eye(d_out)]]
    )
    return MatrixRiccati(generator, np.vstack([W1_0.T, W2_0]))


def balance(W1: np.ndarray, W2: np.ndarray) -> tuple[float, float]:
    """``(λ, relative deviation)`` of ``W₂ᵀW₂ − W₁W₁ᵀ`` from ``λ I`` (λ = its mean eigenvalue).

    The λ-balance of Dominé et al. (their Def. 4.1; docs/theory.md (3.2)), conserved by gradient
    flow.
    """
    W1 = as_array("W1", W1, ndim=2)
    W2 = as_array("W2", W2, ndim=2, shape=(None, W1.shape[0]))
    out_gram = W2.T @ W2
    in_gram = W1 @ W1.T
    difference = out_gram - in_gram
    hidden = difference.shape[0]
    lam = float(np.trace(difference)) / hidden
    deviation = float(np.linalg.norm(difference - lam * np.eye(hidden)))
    scale = float(np.linalg.norm(out_gram) + np.linalg.norm(in_gram))
    return lam, (deviation / scale if scale > 0 else 0.0)


#: relative deviation from λI above which an initialisation is rejected as not λ-balanced.
BALANCE_TOLERANCE = 1e-8


def _check(W1_0, W2_0, sigma_yx):
    W1_0 = as_array("W1_0", W1_0, ndim=2)
    hidden, d_in = W1_0.shape
    W2_0 = as_array("W2_0", W2_0, ndim=2)
    if W2_0.shape[1] != hidden:
        raise ValueError(
            f"W2_0 must have {hidden} columns to match the {hidden} rows of W1_0 (hidden width); "
            f"got shape {W2_0.shape}."
        )
    d_out = W2_0.shape[0]
    sigma_yx = as_array("sigma_yx", sigma_yx, ndim=2, shape=(d_out, d_in))
    return W1_0, W2_0, sigma_yx


@guard_overflow
def exact(
    W1_0: np.ndarray, W2_0: np.ndarray, sigma_yx: np.ndarray, t: np.ndarray
) -> LambdaBalancedTrajectory:
    """Exact gradient flow of a λ-balanced network (Dominé et al. Thm 4.3; docs/theory.md §3).

    Parameters
    ----------
    W1_0 : (h, dᵢ); W2_0 : (dₒ, h) — must satisfy ``W₂ᵀW₂ − W₁W₁ᵀ = λI`` (build them with
    :func:`balanced_init` or :func:`task_aligned_init`); sigma_yx : (dₒ, dᵢ) input–output
    covariance; t : times ≥ 0.

    Raises ``ValueError`` if the initialisation is not λ-balanced (relative deviation above
    ``BALANCE_TOLERANCE``): the closed form holds only on the balanced manifold.
    """
    W1_0, W2_0, sigma_yx = _check(W1_0, W2_0, sigma_yx)
    times = as_times(t)
    lam, deviation = balance(W1_0, W2_0)
    if deviation > BALANCE_TOLERANCE:
        raise ValueError(
            f"W1_0, W2_0 are not λ-balanced: W2ᵀW2 − W1W1ᵀ differs from λI (λ = {lam:.4g}) by a "
            f"relative {deviation:.2e} (> {BALANCE_TOLERANCE:g}). Build the initialisation with "
            "lambda_balanced.balanced_init or task_aligned_init, or use gradient_descent, which "
            "accepts any initialisation."
        )
    d_in = sigma_yx.shape[1]
    flow = _flow(W1_0, W2_0, sigma_yx, lam)
    factors = flow.factors(times)
    require_finite("lambda_balanced.exact", factors)
    first = factors[:, :d_in]  # W₁ᵀ up to an h×h rotation
    second = factors[:, d_in:]  # W₂ up to the same rotation
    swap = (0, 2, 1)
    return LambdaBalancedTrajectory(
        t=times,
        function=second @ first.transpose(swap),
        rsm_in=first @ first.transpose(swap),
        rsm_out=second @ second.transpose(swap),
        sigma_yx=sigma_yx,
        W1_0=W1_0,
        W2_0=W2_0,
        lam=lam,
        method="exact",
        saddle_margin=flow.unstable_margin(),
    )


@guard_overflow
def gradient_descent(
    W1_0: np.ndarray,
    W2_0: np.ndarray,
    sigma_yx: np.ndarray,
    lr: float,
    steps: int,
    *,
    every: int = 1,
) -> LambdaBalancedTrajectory:
    """Gradient descent ``W₁ += lr·W₂ᵀE``, ``W₂ += lr·E W₁ᵀ`` (E = Σyx − W₂W₁), step k at t = k·lr
    — the discrete counterpart of Dominé et al.'s flow (their eq. 2; docs/theory.md (3.1), (0.2)).

    Any initialisation is accepted (discrete steps break the balance slightly anyway);
    ``lam`` reports the balance of the initial state.
    """
    W1_0, W2_0, sigma_yx = _check(W1_0, W2_0, sigma_yx)

    def step(state):
        W1, W2 = state
        error = sigma_yx - W2 @ W1
        return W1 + lr * W2.T @ error, W2 + lr * error @ W1.T

    run = run_descent(step, (W1_0, W2_0), lr, steps, every)
    W1, W2 = run.states
    lam = balance(W1_0, W2_0)[0]
    swap = (0, 2, 1)
    return LambdaBalancedTrajectory(
        t=run.t,
        function=W2 @ W1,
        rsm_in=W1.transpose(swap) @ W1,
        rsm_out=W2 @ W2.transpose(swap),
        sigma_yx=sigma_yx,
        W1_0=W1_0,
        W2_0=W2_0,
        lam=lam,
        method="gradient descent",
        diverged_at=run.diverged_at,
        W1=W1,
        W2=W2,
        saddle_margin=_flow(W1_0, W2_0, sigma_yx, lam).unstable_margin(),
    )


def _psd_sqrt(matrix: np.ndarray) -> np.ndarray:
    """Square root of a (stack of) positive semi-definite matrices."""
    values, vectors = np.linalg.eigh(matrix)
    roots = np.sqrt(np.maximum(values, 0.0))[..., None, :]
    return (vectors * roots) @ np.swapaxes(vectors, -1, -2)


def _orthonormal_columns(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.standard_normal((rows, cols)))
    return q * np.sign(np.diag(r))


@guard_overflow
def balanced_init(
    d_in: int,
    hidden: int,
    d_out: int,
    lam: float,
    scale: float,
    seed: Seed = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Random λ-balanced ``(W1, W2)`` whose initial network function has ``‖W₂W₁‖_F = scale``.

    λ is the relative scale, ``scale`` the absolute one (Dominé et al. §4, App. A.4). For λ ≥ 0
    ``W₂ = O(W₁W₁ᵀ + λI)^{1/2}`` with O (dₒ×h) orthonormal, which needs ``h ≤ dₒ``; for λ < 0
    ``W₁ = (W₂ᵀW₂ − λI)^{1/2}Pᵀ`` with P (dᵢ×h) orthonormal, which needs ``h ≤ dᵢ``
    (docs/theory.md §3; :func:`admits`). The random factor's size c solves
    ``c⁴‖RRᵀ‖² + |λ|c²‖R‖² = scale²``. ``seed``: see :func:`random_generator`.
    """
    d_in = as_positive_int("d_in", d_in)
    hidden = as_positive_int("hidden", hidden)
    d_out = as_positive_int("d_out", d_out)
    lam = as_finite_scalar("lam", lam)
    scale = as_finite_scalar("scale", scale)
    if scale < 0:
        raise ValueError(f"scale must be >= 0 (it is ‖W2 W1‖ at initialisation); got {scale:g}.")
    rng = random_generator(seed)
    read_out_side = lam > 0 or (lam == 0 and hidden <= d_out)
    if read_out_side and hidden > d_out:
        raise ValueError(
            f"λ > 0 needs hidden ≤ d_out (W2ᵀW2 = W1W1ᵀ + λI must have rank h); got hidden = "
            f"{hidden} > d_out = {d_out}. Use λ ≤ 0 or a narrower hidden layer."
        )
    if not read_out_side and hidden > d_in:
        raise ValueError(
            f"λ < 0 needs hidden ≤ d_in (W1W1ᵀ = W2ᵀW2 − λI must have rank h); got hidden = "
            f"{hidden} > d_in = {d_in}. Use λ ≥ 0 or a narrower hidden layer."
        )
    W1, W2 = _balanced_stack(d_in, hidden, d_out, np.array([lam]), scale, rng)
    return W1[0], W2[0]


def _balanced_stack(
    d_in: int, hidden: int, d_out: int, lams: np.ndarray, scale: float, seed
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`balanced_init` for a stack of admissible λ (C,) → W1 (C, h, dᵢ), W2 (C, dₒ, h).

    The draws depend only on the side λ falls on (the read-out side for λ > 0, the first
    layer's for λ < 0), so each side draws them once from a fresh ``random_generator(seed)`` and
    rescales them per λ: for a seed that is not a Generator, the weights one call per λ
    returns.
    """
    W1 = np.empty((lams.size, hidden, d_in))
    W2 = np.empty((lams.size, d_out, hidden))
    read_out = (lams > 0) | ((lams == 0) & (hidden <= d_out))
    for side in (True, False):
        which = np.flatnonzero(read_out == side)
        if not which.size:
            continue
        rng = random_generator(seed)
        lam = lams[which][:, None, None]
        shift = lam * np.eye(hidden)
        if side:
            random = rng.standard_normal((hidden, d_in))
            gram = random @ random.T
        else:
            random = rng.standard_normal((d_out, hidden))
            gram = random.T @ random
        quartic = float(np.sum(gram * gram))
        quadratic = np.abs(lam) * float(np.sum(random * random))
        # c² = positive root of quartic·s² + quadratic·s − scale², written without cancellation.
        denominator = quadratic + np.sqrt(quadratic**2 + 4 * quartic * scale**2)
        positive = denominator > 0
        size_sq = np.where(positive, 2 * scale**2 / np.where(positive, denominator, 1.0), 0.0)
        factor = np.sqrt(size_sq) * random
        if side:
            W1[which] = factor
            gram = factor @ np.swapaxes(factor, -1, -2) + shift
            W2[which] = _orthonormal_columns(rng, d_out, hidden) @ _psd_sqrt(gram)
        else:
            W2[which] = factor
            gram = np.swapaxes(factor, -1, -2) @ factor - shift
            W1[which] = _psd_sqrt(gram) @ _orthonormal_columns(rng, d_in, hidden).T
    return W1, W2


def _aligned_pair(lam: float, s0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Singular values (a of W₁, b of W₂) with ``ab = s0`` and ``b² − a² = λ``."""
    root = np.sqrt(lam**2 + 4 * s0**2)
    if lam >= 0:
        a_sq = np.where(root + lam > 0, 2 * s0**2 / np.where(root + lam > 0, root + lam, 1), 0)
        b_sq = a_sq + lam
    else:
        b_sq = 2 * s0**2 / (root - lam)
        a_sq = b_sq - lam
    return np.sqrt(a_sq), np.sqrt(b_sq)


def task_aligned_init(
    sigma_yx: np.ndarray,
    hidden: int,
    lam: float,
    initial_singular_values: float | np.ndarray,
    *,
    rotation_seed: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """λ-balanced weights aligned with the task's singular vectors (Saxe et al. 2014).

    With ``Σyx = U S Vᵀ``: ``W₁ = R diag(a) V_hᵀ``, ``W₂ = U_h diag(b) Rᵀ``, ``ab = s₀`` and
    ``b² − a² = λ`` (docs/theory.md (3.23)); R is the identity or, with ``rotation_seed``, a
    random rotation. Each mode's singular value then follows ``s' = √(λ² + 4s²)(σ − s)`` (see
    :func:`aligned_singular_values`). Needs ``hidden ≤ min(dᵢ, dₒ)``.
    """
    sigma_yx = as_array("sigma_yx", sigma_yx, ndim=2)
    hidden = as_positive_int("hidden", hidden)
    lam = as_finite_scalar("lam", lam)
    d_out, d_in = sigma_yx.shape
    if hidden > min(d_in, d_out):
        raise ValueError(
            f"a task-aligned initialisation needs hidden ≤ min(d_in, d_out) = {min(d_in, d_out)}; "
            f"got hidden = {hidden}."
        )
    s0 = as_array("initial_singular_values", initial_singular_values, ndim=(0, 1))
    if s0.ndim == 1 and s0.size != hidden:
        raise ValueError(
            f"initial_singular_values must be one number or {hidden} (one per hidden unit); "
            f"got {s0.size}."
        )
    s0 = np.broadcast_to(s0, (hidden,)).astype(np.float64)
    if np.any(s0 < 0):
        raise ValueError("initial_singular_values must be >= 0.")
    U, _, Vt = np.linalg.svd(sigma_yx)
    a, b = _aligned_pair(lam, s0)
    rotation = (
        np.eye(hidden)
        if rotation_seed is None
        else _orthonormal_columns(as_seed(rotation_seed), hidden, hidden)
    )
    W1 = rotation @ (a[:, None] * Vt[:hidden])
    W2 = (U[:, :hidden] * b) @ rotation.T
    return W1, W2


def aligned_singular_values(sigma: float, s0: float, lam: float, t: np.ndarray) -> np.ndarray:
    """Singular value s(t) of one task-aligned mode: ``s' = √(λ² + 4s²)(σ − s)``, s(0) = s0
    (Dominé et al. §5 on task-aligned starts; Saxe et al. 2014 at λ = 0).

    Each mode is a scalar single neuron (docs/theory.md (3.24): h = dₒ = 1, λ = δ) with
    ``a = b``, ``w = a`` of :func:`_aligned_pair`: sigmoidal as λ → 0 (rich), exponential
    as |λ| → ∞ (lazy). Computed with :func:`solvers.single_neuron.exact`.
    """
    sigma = as_finite_scalar("sigma", sigma)
    s0 = as_finite_scalar("s0", s0)
    lam = as_finite_scalar("lam", lam)
    if s0 < 0:
        raise ValueError(f"s0 must be >= 0; got {s0:g}.")
    first, second = _aligned_pair(lam, np.array([s0]))
    path = single_neuron.exact(float(second[0]), first, np.array([sigma]), t)
    return path.a * path.w[:, 0]


def hierarchical_task() -> np.ndarray:
    """Σyx (8×8) of the hierarchical semantic task (Saxe et al. 2019; Braun et al. 2022).

    Items are one-hot inputs scaled by √8 so that Σxx = I (whitened, Dominé et al. App. E.2.2);
    each output feature is a node of the tree: +1 for items below its left child, −1 for items
    below its right child, 0 otherwise (the root feature is 1 for every item). Singular values
    come in the groups of the tree: 1, 1, 1/√2, 1/√2, ½, ½, ½, ½.
    """
    labels = np.array(
        [
            [1, 1, 1, 1, 1, 1, 1, 1],
            [1, 1, 1, 1, -1, -1, -1, -1],
            [1, 1, -1, -1, 0, 0, 0, 0],
            [0, 0, 0, 0, 1, 1, -1, -1],
            [1, -1, 0, 0, 0, 0, 0, 0],
            [0, 0, 1, -1, 0, 0, 0, 0],
            [0, 0, 0, 0, 1, -1, 0, 0],
            [0, 0, 0, 0, 0, 0, 1, -1],
        ],
        dtype=np.float64,
    )
    items = labels.shape[1]
    inputs = np.sqrt(items) * np.eye(items)  # X Xᵀ / P = I
    return labels @ inputs.T / items


def random_task(d_in: int, d_out: int, seed: Seed = 0) -> np.ndarray:
    """Σyx of a random regression task: i.i.d. Gaussian entries with variance 1/dₒ
    (targets' variance scaled by the number of outputs, Dominé et al. App. E.2.1). ``seed``:
    see :func:`random_generator`."""
    d_in = as_positive_int("d_in", d_in)
    d_out = as_positive_int("d_out", d_out)
    return random_generator(seed).standard_normal((d_out, d_in)) / np.sqrt(d_out)


def shape_kind(d_in: int, hidden: int, d_out: int) -> str:
    """The architecture's name, as in Dominé et al. §6 / Fig. 5A (docs/theory.md (3.22)).

    "funnel" (dᵢ > h ≥ dₒ), "square" (dᵢ = h = dₒ), "inverted funnel" (dᵢ ≤ h < dₒ) or "other".
    """
    d_in = as_positive_int("d_in", d_in)
    hidden = as_positive_int("hidden", hidden)
    d_out = as_positive_int("d_out", d_out)
    if d_in > hidden >= d_out:
        return "funnel"
    if d_in == hidden == d_out:
        return "square"
    if d_in <= hidden < d_out:
        return "inverted funnel"
    return "other"


# -- λ sweep across architectures (Dominé et al. Fig. 5B, App. A.4) ----------------------------

__all__ += ["MAX_SWEEP_LAMBDAS", "LambdaSweep", "lambda_sweep"]

#: most λ values of one sweep
MAX_SWEEP_LAMBDAS = 201
#: largest |λ| of a sweep (the fastest rate of F grows like |λ|/2)
MAX_SWEEP_ABS_LAMBDA = 1e3
#: most architectures of one sweep (≤ 804 cells), and largest dimension of each
MAX_SWEEP_SHAPES = 4
MAX_SWEEP_DIMENSION = 32
#: longest time or horizon of a sweep
MAX_SWEEP_TIME = 1e6


@dataclass(frozen=True)
class LambdaSweep:
    """Kernel distance and learning speed across the relative scale λ, one row per architecture.

    Every array field has shape ``(len(shapes), len(lams))``. Cells where the architecture
    cannot be λ-balanced (λ > 0 needs h ≤ dₒ, λ < 0 needs h ≤ dᵢ) have ``valid = False`` and
    hold 0.0 in every float field except ``time_to_threshold`` (inf): mask them with ``valid``.
    """

    lams: np.ndarray  #: (L,) relative scales λ
    shapes: tuple[str, ...]  #: architecture names, one per row
    dimensions: tuple[tuple[int, int, int], ...]  #: (dᵢ, h, dₒ) per row
    sigma_yx: tuple[np.ndarray, ...]  #: the task of each row (dₒ × dᵢ)
    t: float  #: time of ``kernel_distance`` and ``loss``
    horizon: float  #: ``time_to_threshold`` is inf when the threshold is not reached by then
    threshold: float  #: relative loss level of ``time_to_threshold``
    scale: float  #: absolute scale ‖W₂W₁‖_F at t = 0 (:func:`balanced_init`)
    seed: int | tuple[int, ...] | None  #: seed of :func:`balanced_init` (the same for every cell)
    valid: np.ndarray  #: bool, the architecture admits this λ
    kernel_distance: np.ndarray  #: S(0, t) of the NTK
    loss: np.ndarray  #: ``½‖Σyx − W₂W₁‖²`` at t
    initial_loss: np.ndarray  #: the loss at t = 0
    #: first time with ``loss ≤ threshold · initial_loss`` (0 if already there; inf if not by
    #: ``horizon``)
    time_to_threshold: np.ndarray
    #: as :attr:`LambdaBalancedTrajectory.saddle_margin`: below
    #: :data:`solvers.metrics.SADDLE_MARGIN` the start lies on a saddle's stable manifold (it
    #: stalls there, e.g. λ = 0 with det W₂ of the wrong sign)
    saddle_margin: np.ndarray


class _Checkpoints:
    """A forward-only march of one :class:`MatrixRiccati` flow that keeps every restart state.

    Any time up to the marched position + one step is then one closed-form step from its
    checkpoint — each step within the length the march validated, exactly as
    :meth:`MatrixRiccati.factors` does — so root-finding in time costs no re-marching.
    """

    def __init__(self, flow: MatrixRiccati) -> None:
        self.flow = flow
        self.march = _March(flow, flow.initial)
        self.positions = [0.0]
        self.states = [self.march.state]

    def reach(self, target: float) -> None:
        march = self.march
        while target - march.position > march.step:
            march.advance(allow_doubling=target - march.position > 2 * march.step)
            self.positions.append(march.position)
            self.states.append(march.state)

    def factors(self, times: np.ndarray) -> np.ndarray:
        """(T, n, h) factors X(t) (X Xᵀ = Q Qᵀ(t)) in the original coordinates, t reached."""
        times = np.asarray(times, dtype=np.float64)
        which = np.searchsorted(np.asarray(self.positions), times, side="right") - 1
        states = np.stack(self.states)[which]
        remainder = np.maximum(times - np.asarray(self.positions)[which], 0.0)
        return self.flow.basis @ self.flow.advance(states, remainder)


def _blocks(factors: np.ndarray, d_in: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(function W₂W₁, rsm_in W₁ᵀW₁, rsm_out W₂W₂ᵀ) from factors (…, dᵢ + dₒ, h)."""
    first, second = factors[..., :d_in, :], factors[..., d_in:, :]
    first_t, second_t = np.swapaxes(first, -1, -2), np.swapaxes(second, -1, -2)
    return second @ first_t, first @ first_t, second @ second_t


def _sweep_loss(function: np.ndarray, sigma_yx: np.ndarray) -> np.ndarray:
    residual = function - sigma_yx
    return 0.5 * np.sum(residual * residual, axis=(-2, -1))


def admits(d_in: int, hidden: int, d_out: int, lam: float) -> bool:
    """Whether a λ-balanced network of these sizes exists (and :func:`balanced_init` builds
    one): ``W₂ᵀW₂ = W₁W₁ᵀ + λI_h`` has rank h, so λ > 0 needs h ≤ dₒ, λ < 0 needs h ≤ dᵢ and
    λ = 0 one of the two (docs/theory.md §3)."""
    if lam > 0:
        return hidden <= d_out
    if lam < 0:
        return hidden <= d_in
    return hidden <= d_out or hidden <= d_in


def _first_crossing(
    path: _Checkpoints, sigma_yx: np.ndarray, d_in: int, target: float, horizon: float
) -> float:
    """First t ≤ horizon with loss(t) ≤ target (inf if none): the loss never increases under
    the flow, so the checkpoints bracket the crossing, and a safeguarded Newton iteration on
    log loss — with the exact slope ``dL/dt = −‖∇L‖² = −(⟨E, W₂W₂ᵀE⟩ + ⟨E, EW₁ᵀW₁⟩)``,
    ``E = Σyx − W₂W₁`` — pins it to ~1e-14 relative."""
    for stage in range(2):  # first within what is already marched, then up to the horizon
        if stage:
            path.reach(horizon)
        positions = np.asarray(path.positions)
        inside = positions[positions <= horizon]
        end = min(horizon, path.march.position + path.march.step)
        times = np.append(inside, end) if inside[-1] < end else inside
        losses = _sweep_loss(_blocks(path.factors(times), d_in)[0], sigma_yx)
        below = np.flatnonzero(losses <= target)
        if below.size:
            break
    else:
        return np.inf
    index = int(below[0])
    if index == 0:
        return 0.0

    def evaluate(times: np.ndarray, _: np.ndarray) -> tuple[np.ndarray, ...]:
        return (*_loss_and_slope(path.factors(times), sigma_yx, d_in), np.ones(1, dtype=bool))

    return float(
        _newton_crossings(
            evaluate,
            np.array([times[index - 1]]),
            np.array([times[index]]),
            losses[index - 1 : index + 1, None],
            np.array([target]),
        )[0]
    )


def _loss_and_slope(
    factors: np.ndarray, sigma_yx: np.ndarray, d_in: int
) -> tuple[np.ndarray, np.ndarray]:
    """Loss and its exact slope ``dL/dt = −‖∇L‖² = −(⟨E, W₂W₂ᵀE⟩ + ⟨E, EW₁ᵀW₁⟩)``,
    ``E = Σyx − W₂W₁``, from factors (C, n, h)."""
    function, rsm_in, rsm_out = _blocks(factors, d_in)
    error = sigma_yx - function
    loss = 0.5 * np.sum(error * error, axis=(-2, -1))
    slope = -(
        np.sum(error * (rsm_out @ error), axis=(-2, -1))
        + np.sum(error * (error @ rsm_in), axis=(-2, -1))
    )
    return loss, slope


def _newton_crossings(evaluate, low, high, losses, targets) -> np.ndarray:
    """Times where the loss falls to ``targets`` (C,), each inside its bracket ``(low, high]``
    (``losses`` (2, C) at the ends: above, then at or below the target): a safeguarded Newton
    iteration on log loss, bisecting whenever Newton leaves the bracket, to ~1e-14 relative.

    ``evaluate(times, cells)`` returns loss, slope and whether each was evaluated exactly;
    a cell whose evaluation is not exact comes out NaN.
    """
    log_target = np.log(targets)
    with np.errstate(divide="ignore"):
        excess_low = np.log(losses[0]) - log_target  # > 0
        excess_high = np.log(losses[1]) - log_target  # ≤ 0 (−inf if the loss is 0)
    with np.errstate(invalid="ignore"):
        time = low + (high - low) * excess_low / (excess_low - excess_high)  # secant in log loss
    time = np.where((low < time) & (time < high), time, 0.5 * (low + high))
    result = np.full(targets.shape, np.nan)
    active = np.arange(targets.size)
    for _ in range(100):
        loss, slope, exact = evaluate(time[active], active)
        active, loss, slope = active[exact], loss[exact], slope[exact]
        if not active.size:
            return result
        now = time[active]
        with np.errstate(divide="ignore", invalid="ignore"):
            excess = np.where(loss > 0, np.log(loss), -np.inf) - log_target[active]
            above = excess > 0
            low[active] = np.where(above, now, low[active])
            high[active] = np.where(above, high[active], now)
            newton = (slope < 0) & np.isfinite(excess)
            step = np.where(newton, -excess * loss / np.where(newton, slope, 1), np.nan)
        following = now + step
        # A Newton step below 1e-14 relative ends the search even if rounding put it on or
        # just past the bracket's end (e.g. a loss exactly at the target gives step 0 there):
        # bisecting instead would crawl back from the far end of the bracket.
        settled = np.abs(step) <= 1e-14 * np.abs(following)
        inside = settled | ((low[active] < following) & (following < high[active]))
        following = np.where(inside, following, 0.5 * (low[active] + high[active]))  # bisect
        done = (np.abs(following - now) <= 1e-14 * following) | (
            high[active] - low[active] <= 1e-14 * high[active]
        )
        result[active[done]] = following[done]
        time[active] = following
        active = active[~done]
        if not active.size:
            return result
    result[active] = high[active]
    return result


def _sweep_shapes(shapes, sigma_yx, task_seed):
    if shapes is None:
        shapes = SHAPES
    if not isinstance(shapes, Mapping) or not shapes:
        raise ValueError(
            "shapes must be a non-empty mapping name → (d_in, hidden, d_out), e.g. "
            "lambda_balanced.SHAPES."
        )
    if len(shapes) > MAX_SWEEP_SHAPES:
        raise ValueError(f"at most {MAX_SWEEP_SHAPES} shapes per sweep; got {len(shapes)}.")
    if sigma_yx is not None and not isinstance(sigma_yx, Mapping):
        raise ValueError("sigma_yx must be a mapping from shape name to its Σyx (d_out × d_in).")
    names, dimensions, tasks = [], [], []
    for name, dims in shapes.items():
        if not isinstance(dims, tuple | list) or len(dims) != 3:
            raise ValueError(f"shape {name!r} must be (d_in, hidden, d_out); got {dims!r}.")
        d_in, hidden, d_out = (
            as_positive_int(f"{name} {part}", value, maximum=MAX_SWEEP_DIMENSION)
            for part, value in zip(("d_in", "hidden", "d_out"), dims, strict=True)
        )
        if sigma_yx is not None and name in sigma_yx:
            task = as_array(f"sigma_yx[{name!r}]", sigma_yx[name], ndim=2, shape=(d_out, d_in))
        else:
            task = random_task(d_in, d_out, task_seed)
        names.append(str(name))
        dimensions.append((d_in, hidden, d_out))
        tasks.append(task)
    if sigma_yx is not None:
        unknown = set(sigma_yx) - set(shapes)
        if unknown:
            raise ValueError(f"sigma_yx names shapes that are not swept: {sorted(unknown)}.")
    return tuple(names), tuple(dimensions), tuple(tasks)


#: what :func:`_sweep_row` returns for each λ of one architecture
_ROW_FIELDS = ("valid", "distance", "loss", "initial_loss", "crossing", "margin")
#: points of the geometric grid (from 1e-12 × the horizon to the horizon) on which the batched
#: threshold search brackets each crossing; the loss never increases, so any grid brackets it
_BRACKET_POINTS = 64


def _generators(sigma_yx: np.ndarray, lams: np.ndarray) -> np.ndarray:
    """(C, n, n) ``F = [[−λ/2·I, Σyxᵀ], [Σyx, λ/2·I]]`` for each λ, as :func:`_flow` builds it."""
    d_out, d_in = sigma_yx.shape
    generators = np.zeros((lams.size, d_in + d_out, d_in + d_out))
    generators[:, :d_in, d_in:] = sigma_yx.T
    generators[:, d_in:, :d_in] = sigma_yx
    inputs, outputs = np.arange(d_in), d_in + np.arange(d_out)
    generators[:, inputs, inputs] = -0.5 * lams[:, None]
    generators[:, outputs, outputs] = 0.5 * lams[:, None]
    return generators


def _sweep_row(dims, task, lams, t, horizon, threshold, scale, seed) -> dict[str, np.ndarray]:
    """Every λ of one architecture: the valid cells are initialised, factorised and evaluated
    as one stack by the restart-free closed form; cells it refuses are marched one by one."""
    d_in, hidden, d_out = dims
    valid = np.array([admits(d_in, hidden, d_out, float(lam)) for lam in lams], dtype=bool)
    row = {field: np.zeros(lams.size) for field in _ROW_FIELDS} | {"valid": valid}
    row["crossing"][:] = np.inf
    columns = np.flatnonzero(valid)
    if not columns.size:
        return row
    W1, W2 = _balanced_stack(d_in, hidden, d_out, lams[columns], scale, seed)
    # F from the λ the weights carry (as exact does, see balance): at long horizons and large
    # |λ| the rounding of the nominal λ (~1e-13) would shift the loss by ~1e-7.
    difference = np.swapaxes(W2, -1, -2) @ W2 - W1 @ np.swapaxes(W1, -1, -2)
    carried = np.trace(difference, axis1=-2, axis2=-1) / hidden
    rates, basis = np.linalg.eigh(_generators(task, carried))
    initial = np.swapaxes(basis, -1, -2) @ np.concatenate([np.swapaxes(W1, -1, -2), W2], axis=-2)
    form = DecayingForm(rates, basis, initial)
    start = _sweep_loss(W2 @ W1, task)
    distance, loss = _closed_at(form, W1, W2, task, t)
    crossing = _closed_crossings(form, task, start, threshold, horizon)
    for k in np.flatnonzero(np.isnan(distance) | np.isnan(crossing)):
        distance[k], loss[k], crossing[k] = _marched_cell(
            W1[k], W2[k], task, carried[k], t, threshold, horizon
        )
    for field, values in zip(_ROW_FIELDS[1:5], (distance, loss, start, crossing), strict=True):
        row[field][columns] = values
    row["margin"][columns] = unstable_margins(rates, initial)
    return row


def _closed_at(
    form: DecayingForm, W1: np.ndarray, W2: np.ndarray, task: np.ndarray, t: float
) -> tuple[np.ndarray, np.ndarray]:
    """(kernel distance, loss) at t of every cell of a stack by the closed form; NaN where it
    is refused."""
    factors, condition = form.factors(np.array([t]))
    exact = condition[:, 0] <= form.CONDITION_LIMIT
    function, rsm_in, rsm_out = _blocks(factors[exact, 0], task.shape[1])
    require_finite("lambda_balanced.lambda_sweep", function, rsm_in, rsm_out)
    products = _kernel_products(
        W2[exact] @ np.swapaxes(W2[exact], -1, -2),
        np.swapaxes(W1[exact], -1, -2) @ W1[exact],
        rsm_out,
        rsm_in,
    )
    distance = np.full(exact.shape, np.nan)
    loss = np.full(exact.shape, np.nan)
    distance[exact] = [kernel_distance_from_changes(*cell) for cell in zip(*products, strict=True)]
    loss[exact] = _sweep_loss(function, task)
    return distance, loss


def _closed_crossings(
    form: DecayingForm, task: np.ndarray, start: np.ndarray, threshold: float, horizon: float
) -> np.ndarray:
    """First t ≤ horizon with ``loss ≤ threshold · start`` for every cell of a stack (0 if
    already there, inf if not by the horizon), by the closed form; NaN where it is refused.

    The loss on a geometric grid brackets each crossing (only grid points the closed form
    evaluates exactly count); :func:`_newton_crossings` then pins it down for all cells at
    once, exactly as :func:`_first_crossing` does for one marched cell."""
    crossing = np.zeros(start.shape)
    search = np.flatnonzero((start > 0) & (threshold < 1))
    if not search.size:
        return crossing
    d_in, targets = task.shape[1], threshold * start[search]
    grid = horizon * np.geomspace(1e-12, 1.0, _BRACKET_POINTS)
    factors, condition = form.factors(grid, search)
    losses = _sweep_loss(_blocks(factors, d_in)[0], task)
    exact = condition <= form.CONDITION_LIMIT
    below = exact & (losses <= targets[:, None])
    above = exact & (losses > targets[:, None])
    reached = np.any(below, axis=1)
    # never reached: inf if the loss at the horizon itself was evaluated exactly
    crossing[search[~reached]] = np.where(above[~reached, -1], np.inf, np.nan)
    cells = np.flatnonzero(reached)
    first = np.argmax(below[cells], axis=1)
    # low end: the last exact grid point above the target before it, else t = 0 (the start)
    before = above[cells] & (np.arange(grid.size) < first[:, None])
    last = grid.size - 1 - np.argmax(before[:, ::-1], axis=1)
    has_low = np.any(before, axis=1)
    low = np.where(has_low, grid[last], 0.0)
    ends = np.stack(
        [
            np.where(has_low, losses[cells, last], start[search[cells]]),
            losses[cells, first],
        ]
    )

    def evaluate(times: np.ndarray, which: np.ndarray) -> tuple[np.ndarray, ...]:
        factors, condition = form.factors(times[:, None], search[cells[which]])
        loss, slope = _loss_and_slope(factors[:, 0], task, d_in)
        return loss, slope, condition[:, 0] <= form.CONDITION_LIMIT

    crossing[search[cells]] = _newton_crossings(evaluate, low, grid[first], ends, targets[cells])
    return crossing


def _marched_cell(
    W1: np.ndarray,
    W2: np.ndarray,
    task: np.ndarray,
    lam: float,
    t: float,
    threshold: float,
    horizon: float,
) -> tuple[float, float, float]:
    """(kernel distance at t, loss at t, time to the threshold) of one cell by the restarted
    march: for the cells the closed form refuses, and the reference it is tested against."""
    d_in = task.shape[1]
    path = _Checkpoints(_flow(W1, W2, task, lam))
    path.reach(t)
    function, rsm_in, rsm_out = _blocks(path.factors(np.array([t])), d_in)
    require_finite("lambda_balanced.lambda_sweep", function, rsm_in, rsm_out)
    distance = _kernel_distance(W2 @ W2.T, W1.T @ W1, rsm_out, rsm_in)[0]
    start = float(_sweep_loss(W2 @ W1, task))
    crossing = (
        0.0
        if start == 0 or threshold == 1
        else _first_crossing(path, task, d_in, threshold * start, horizon)
    )
    return float(distance), float(_sweep_loss(function, task)[0]), crossing


@guard_overflow
def lambda_sweep(
    lams: np.ndarray,
    t: float,
    *,
    horizon: float = 100.0,
    threshold: float = 1e-2,
    scale: float = 0.1,
    seed: int | tuple[int, ...] | None = 0,
    task_seed: int | tuple[int, ...] | None = 0,
    shapes: Mapping[str, tuple[int, int, int]] | None = None,
    sigma_yx: Mapping[str, np.ndarray] | None = None,
) -> LambdaSweep:
    """Kernel distance S(0, t) and time to learn versus λ for funnel, square and inverted-funnel
    networks — Dominé et al., *From lazy to rich*, Fig. 5B (NTK distance vs λ per architecture)
    and App. A.4 (scale vs relative scale), with the exact matrix-Riccati flow of docs/theory.md
    (3.3); the time to the threshold as in (3.25).

    Parameters
    ----------
    lams : (L,) relative scales λ (at most 201, |λ| ≤ 1e3).
    t : time ≥ 0 of the kernel distance and loss.
    horizon : > 0, how long to look for the loss threshold (inf where it is not reached).
    threshold : in (0, 1]; ``time_to_threshold`` is the first t with
        ``loss(t) ≤ threshold · loss(0)``.
    scale : absolute scale ‖W₂W₁‖_F at initialisation (≥ 0).
    seed : seed of every cell's :func:`balanced_init` ``(dᵢ, h, dₒ, λ, scale, seed)`` — the same
        random factor, rescaled, for every λ (a whole number, a tuple of them or None; see
        :func:`random_generator`).
    task_seed : seed of :func:`random_task` ``(dᵢ, dₒ, task_seed)``, the task of every shape
        not given in ``sigma_yx``.
    shapes : name → (dᵢ, h, dₒ); default :data:`SHAPES` (funnel 4-2-2, square 3-3-3, inverted
        funnel 2-2-4, i.e. h = min(dᵢ, dₒ) as in the paper, valid for every λ).
    sigma_yx : optional name → Σyx (dₒ × dᵢ) overriding the random task of that shape.

    Each cell equals :func:`exact` from that initialisation (its kernel distance and loss at t,
    and the crossing time found by Newton's method on the exact loss, to ~1e-14 relative in t).
    The cells of one architecture are computed as one stack: one batched factorisation of F,
    the restart-free closed form at t for all of them (:class:`solvers._riccati.DecayingForm`),
    and one Newton iteration for all their crossing times. A cell it refuses (a start within
    rounding of a saddle's stable manifold, a zero rate) is marched on its own, the march then
    shared by t and the threshold search.
    """
    lams = np.atleast_1d(as_array("lams", lams, ndim=(0, 1)))
    if lams.size > MAX_SWEEP_LAMBDAS:
        raise ValueError(f"lams may hold at most {MAX_SWEEP_LAMBDAS} values; got {lams.size}.")
    if np.max(np.abs(lams)) > MAX_SWEEP_ABS_LAMBDA:
        raise ValueError(
            f"|λ| must be at most {MAX_SWEEP_ABS_LAMBDA:g} in a sweep (beyond it the net is "
            f"lazy to rounding); got {np.max(np.abs(lams)):g}."
        )
    t = as_finite_scalar("t", t)
    if not 0 <= t <= MAX_SWEEP_TIME:
        raise ValueError(f"t must be in [0, {MAX_SWEEP_TIME:g}]; got {t:g}.")
    horizon = as_positive("horizon", horizon)
    if horizon > MAX_SWEEP_TIME:
        raise ValueError(f"horizon must be at most {MAX_SWEEP_TIME:g}; got {horizon:g}.")
    threshold = as_positive("threshold", threshold)
    if threshold > 1:
        raise ValueError(
            f"threshold is a fraction of the initial loss and must be in (0, 1]; got {threshold:g}."
        )
    scale = as_finite_scalar("scale", scale)
    if scale < 0:
        raise ValueError(f"scale must be >= 0 (it is ‖W2 W1‖ at initialisation); got {scale:g}.")
    for name, value in (("seed", seed), ("task_seed", task_seed)):
        if isinstance(value, np.random.Generator):
            raise ValueError(
                f"{name} must be a whole number, a tuple of them or None (every cell reuses "
                "it), not a Generator."
            )
        random_generator(value)  # the same checks as balanced_init / random_task, before any work
    names, dimensions, tasks = _sweep_shapes(shapes, sigma_yx, task_seed)

    rows = [
        _sweep_row(dims, task, lams, t, horizon, threshold, scale, seed)
        for dims, task in zip(dimensions, tasks, strict=True)
    ]
    valid, distance, loss, initial_loss, crossing, margin = (
        np.stack([row[field] for row in rows]) for field in _ROW_FIELDS
    )
    return LambdaSweep(
        lams=lams,
        shapes=names,
        dimensions=dimensions,
        sigma_yx=tasks,
        t=t,
        horizon=horizon,
        threshold=threshold,
        scale=scale,
        seed=seed,
        valid=valid,
        kernel_distance=distance,
        loss=loss,
        initial_loss=initial_loss,
        time_to_threshold=crossing,
        saddle_margin=margin,
    )


# -- scenarios: the networks the views pose (docs/theory.md §3) -------------------------------

__all__ += [
    "INITS",
    "SHAPE_NAMES",
    "TASKS",
    "TASK_STREAM",
    "WEIGHT_STREAM",
    "Architecture",
    "Scenario",
    "admits",
    "architecture",
    "limit_regime",
    "regime",
    "scenario",
    "scenario_sweep",
    "sweep_shapes",
]

#: the architectures a scenario may ask for (Dominé et al. Fig. 5A), or "any" for the sizes given
SHAPE_NAMES = ("funnel", "square", "inverted funnel", "any")
#: the tasks: a random regression (:func:`random_task`) or the semantic hierarchy
#: (:func:`hierarchical_task`)
TASKS = ("random", "hierarchy")
#: the starts: random λ-balanced (:func:`balanced_init`) or task-aligned (:func:`task_aligned_init`)
INITS = ("random", "aligned")
#: the streams of a scenario's seed s: its random task draws from ``(s, TASK_STREAM)``, its
#: random weights from ``(s, WEIGHT_STREAM)`` (see :func:`random_generator`)
TASK_STREAM = 0
WEIGHT_STREAM = 1


@dataclass(frozen=True)
class Architecture:
    """The sizes of a scenario's network and why they differ from those asked for."""

    d_in: int
    hidden: int
    d_out: int
    #: every change to the sizes asked for, in plain words (empty if none was needed)
    notes: tuple[str, ...] = ()

    @property
    def dims(self) -> tuple[int, int, int]:
        return self.d_in, self.hidden, self.d_out

    @property
    def kind(self) -> str:
        """The name of the shape: funnel, square, inverted funnel or other (:func:`shape_kind`)."""
        return shape_kind(*self.dims)

    @property
    def rank(self) -> int:
        """Largest rank of the network function W₂W₁."""
        return min(self.dims)


def _choice(name: str, value: str, options: tuple[str, ...]) -> str:
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(options)}; got {value!r}.")
    return value


def _shaped(d_in: int, hidden: int, d_out: int, shape: str, largest: int | None):
    """Sizes that have the named shape (changing as few as possible), and the rule broken."""
    cap = largest if largest is not None else max(d_in, hidden, d_out) + 1
    if shape == "square" and not d_in == hidden == d_out:
        return (hidden, hidden, hidden), "d_in = h = d_out"
    if shape == "funnel" and not d_in > hidden >= d_out:
        hidden = min(hidden, cap - 1)
        return (max(d_in, hidden + 1), hidden, min(d_out, hidden)), "d_in > h ≥ d_out"
    if shape == "inverted funnel" and not d_in <= hidden < d_out:
        hidden = min(hidden, cap - 1)
        return (min(d_in, hidden), hidden, max(d_out, hidden + 1)), "d_in ≤ h < d_out"
    return (d_in, hidden, d_out), None


def _hierarchy_sizes(requested, shape: str) -> tuple[tuple[int, int, int], list[str]]:
    size = len(HIERARCHY_ITEMS)
    hidden, reason = requested[1], ""
    if shape in ("funnel", "inverted funnel"):
        reason = f" (a {shape} is impossible with equal input and output sizes)"
        shape = "square"
    if shape == "square":
        hidden = size
    dims = (size, hidden, size)
    if dims == tuple(requested):
        return dims, []
    arrow = " → ".join(map(str, dims))
    return dims, [
        f"The semantic hierarchy has {size} items and {size} features{reason}: using {arrow}."
    ]


def _ranked(dims, lam: float, init: str) -> tuple[int, list[str]]:
    """The hidden width that λ and the start allow (:func:`admits`), and why it changed."""
    d_in, hidden, d_out = dims
    notes = []
    if lam > 0 and hidden > d_out:
        notes.append(f"λ > 0 needs h ≤ d_out (W₂ᵀW₂ = W₁W₁ᵀ + λI has rank h): using h = {d_out}.")
        hidden = d_out
    elif lam < 0 and hidden > d_in:
        notes.append(f"λ < 0 needs h ≤ d_in (W₁W₁ᵀ = W₂ᵀW₂ − λI has rank h): using h = {d_in}.")
        hidden = d_in
    elif lam == 0 and hidden > max(d_in, d_out):
        notes.append(
            f"A balanced network needs h ≤ max(d_in, d_out): using h = {max(d_in, d_out)}."
        )
        hidden = max(d_in, d_out)
    if init == "aligned" and hidden > min(d_in, d_out):
        notes.append(
            f"A task-aligned start needs h ≤ min(d_in, d_out): using h = {min(d_in, d_out)}."
        )
        hidden = min(d_in, d_out)
    return hidden, notes


def architecture(
    d_in: int,
    hidden: int,
    d_out: int,
    *,
    shape: str = "any",
    lam: float = 0.0,
    task: str = "random",
    init: str = "random",
    largest: int | None = None,
) -> Architecture:
    """The sizes (dᵢ, h, dₒ) a scenario can use, closest to those asked for.

    Instead of failing, each constraint changes the offending size and says so in ``notes``:
    the semantic hierarchy fixes dᵢ = dₒ = 8 (no funnel of either kind then exists); a named
    ``shape`` needs funnel dᵢ > h ≥ dₒ, square dᵢ = h = dₒ or inverted funnel dᵢ ≤ h < dₒ
    (Dominé et al. Fig. 5A), with no size above ``largest``; λ needs :func:`admits`; a
    task-aligned start needs h ≤ min(dᵢ, dₒ) (:func:`task_aligned_init`).
    """
    requested = tuple(
        as_positive_int(n, v)
        for n, v in zip(("d_in", "hidden", "d_out"), (d_in, hidden, d_out), strict=True)
    )
    shape = _choice("shape", shape, SHAPE_NAMES)
    task = _choice("task", task, TASKS)
    init = _choice("init", init, INITS)
    lam = as_finite_scalar("lam", lam)
    if largest is not None and as_positive_int("largest", largest) < 2:
        raise ValueError(f"largest must be at least 2 (a funnel has two sizes); got {largest}.")
    if task == "hierarchy":
        dims, notes = _hierarchy_sizes(requested, shape)
    else:
        dims, rule = _shaped(*requested, shape, largest)
        notes = []
        if rule is not None:
            arrow = " → ".join(map(str, dims))
            notes.append(f"A {shape} network needs {rule}: using {arrow}.")
    hidden, ranked = _ranked(dims, lam, init)
    return Architecture(dims[0], hidden, dims[2], tuple(notes + ranked))


def _seed_number(seed: int) -> int:
    """A scenario's seed: a whole number ≥ 0 (checked as a stream of :func:`random_generator`)."""
    random_generator((seed, 0))
    return int(seed)


def _task_matrix(task: str, d_in: int, d_out: int, seed: int) -> np.ndarray:
    if task == "hierarchy":
        return hierarchical_task()
    return random_task(d_in, d_out, (seed, TASK_STREAM))


def _labels(task: str, d_in: int, d_out: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if task == "hierarchy":
        return HIERARCHY_ITEMS, HIERARCHY_FEATURES
    return tuple(f"x{i + 1}" for i in range(d_in)), tuple(f"y{i + 1}" for i in range(d_out))


@dataclass(frozen=True)
class Scenario:
    """One network as the views pose it: sizes, task and initial weights (built by
    :func:`scenario`, which owns the seeding)."""

    architecture: Architecture
    lam: float  #: relative scale λ: ``W₂ᵀW₂ − W₁W₁ᵀ = λI``
    scale: float  #: absolute scale ‖W₂W₁‖_F at t = 0
    task: str  #: one of :data:`TASKS`
    init: str  #: one of :data:`INITS`
    seed: int
    sigma_yx: np.ndarray  #: (dₒ, dᵢ) the task
    W1: np.ndarray  #: (h, dᵢ) initial first layer
    W2: np.ndarray  #: (dₒ, h) initial read-out
    inputs: tuple[str, ...]  #: names of the inputs (the tree's items for the hierarchy)
    outputs: tuple[str, ...]  #: names of the outputs (the tree's features)

    @cached_property
    def task_singular_values(self) -> np.ndarray:
        """(min(dₒ, dᵢ),) singular values σᵢ of Σyx, largest first."""
        return np.linalg.svd(self.sigma_yx, compute_uv=False)

    @property
    def best_loss(self) -> float:
        """The least loss of a network of hidden width h: ``½ Σ_{i>h} σᵢ²`` (Eckart–Young),
        where the flow from a generic start ends."""
        return 0.5 * float(np.sum(self.task_singular_values[self.architecture.hidden :] ** 2))

    def exact(self, t: np.ndarray) -> LambdaBalancedTrajectory:
        """The exact gradient flow from this start (:func:`exact`)."""
        return exact(self.W1, self.W2, self.sigma_yx, t)

    def gradient_descent(self, lr: float, steps: int, every: int = 1) -> LambdaBalancedTrajectory:
        """Gradient descent from this start (:func:`gradient_descent`)."""
        return gradient_descent(self.W1, self.W2, self.sigma_yx, lr, steps, every=every)


def scenario(
    *,
    lam: float,
    scale: float,
    d_in: int = 3,
    hidden: int = 3,
    d_out: int = 3,
    shape: str = "any",
    task: str = "random",
    init: str = "random",
    seed: int = 0,
    largest: int | None = None,
) -> Scenario:
    """The network, task and start of Dominé et al.'s experiments for these settings.

    The sizes are :func:`architecture`'s. The task is the semantic hierarchy or a random one
    drawn from the stream ``(seed, TASK_STREAM)``; the start is task-aligned, each of its h
    modes at ``scale/√h`` (so ``‖W₂W₁‖_F = scale``), or random λ-balanced from the stream
    ``(seed, WEIGHT_STREAM)`` (:func:`balanced_init`). A map's cells are scenarios too
    (:func:`scenario_sweep`), so a cell and the trajectory it opens start from the same weights.
    """
    found = architecture(
        d_in, hidden, d_out, shape=shape, lam=lam, task=task, init=init, largest=largest
    )
    seed = _seed_number(seed)
    scale = as_finite_scalar("scale", scale)
    sigma_yx = _task_matrix(task, found.d_in, found.d_out, seed)
    if init == "aligned":
        W1, W2 = task_aligned_init(sigma_yx, found.hidden, lam, scale / np.sqrt(found.hidden))
    else:
        W1, W2 = balanced_init(*found.dims, lam, scale, (seed, WEIGHT_STREAM))
    inputs, outputs = _labels(task, found.d_in, found.d_out)
    return Scenario(
        found, float(lam), float(scale), task, init, seed, sigma_yx, W1, W2, inputs, outputs
    )


def sweep_shapes(task: str) -> dict[str, tuple[int, int, int]]:
    """The architectures a map compares: :data:`SHAPES` for a random task; the square 8 → 8 → 8
    alone for the hierarchy (equal input and output sizes leave no funnel)."""
    if _choice("task", task, TASKS) == "hierarchy":
        size = len(HIERARCHY_ITEMS)
        return {"square": (size, size, size)}
    return dict(SHAPES)


def scenario_sweep(
    lams: np.ndarray,
    t: float,
    *,
    scale: float,
    task: str = "random",
    seed: int = 0,
    shapes: Mapping[str, tuple[int, int, int]] | None = None,
    horizon: float = 100.0,
    threshold: float = 1e-2,
) -> LambdaSweep:
    """:func:`lambda_sweep` over random-start scenarios: the cell of architecture ``name``
    (dᵢ, h, dₒ) and relative scale λ starts from exactly the weights and task of
    ``scenario(lam=λ, scale=scale, d_in=dᵢ, hidden=h, d_out=dₒ, shape=name, task=task,
    seed=seed)`` (Dominé et al. Fig. 5B, App. A.4). ``shapes`` defaults to
    :func:`sweep_shapes` of the task; the sweep's ``seed`` is the weights' stream.
    """
    shapes = sweep_shapes(task) if shapes is None else shapes
    seed = _seed_number(seed)
    tasks = {name: _task_matrix(task, dims[0], dims[2], seed) for name, dims in shapes.items()}
    return lambda_sweep(
        lams,
        t,
        horizon=horizon,
        threshold=threshold,
        scale=scale,
        seed=(seed, WEIGHT_STREAM),
        shapes=shapes,
        sigma_yx=tasks,
    )


def limit_regime(kind: str, sign: int) -> str:
    """The regime Dominé et al. (§6, Fig. 5B) predict as λ → sign·∞ for an architecture
    (:func:`shape_kind`): "lazy" or "delayed rich" for the funnels (a funnel is lazy as λ → +∞
    and delayed rich as λ → −∞, an inverted funnel the reverse); for a square net
    "lazy in W1" (λ → +∞: W₂W₂ᵀ ≈ λI, the task's structure in W₁ only) or "lazy in W2";
    "bottleneck" (lazy first, possibly delayed rich) for the other shapes."""
    if kind == "funnel":
        return "lazy" if sign > 0 else "delayed rich"
    if kind == "inverted funnel":
        return "delayed rich" if sign > 0 else "lazy"
    if kind == "square":
        return "lazy in W1" if sign > 0 else "lazy in W2"
    return "bottleneck"


def regime(kind: str, lam: float, sigma_max: float) -> tuple[str, bool]:
    """(regime, settled) of an architecture at relative scale λ, for a task whose largest
    singular value is ``sigma_max``: "rich" while |λ| ≤ σ_max/2, else :func:`limit_regime`;
    ``settled`` once |λ| > 2σ_max, where λ dominates the scale of the task (between the two the
    net is between rich and that regime)."""
    lam = as_finite_scalar("lam", lam)
    sigma_max = as_finite_scalar("sigma_max", sigma_max)
    if abs(lam) <= 0.5 * sigma_max:
        return "rich", True
    return limit_regime(kind, 1 if lam > 0 else -1), abs(lam) > 2 * sigma_max
