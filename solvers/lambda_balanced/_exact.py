"""The exact flow of a λ-balanced two-layer linear network and its gradient descent (Dominé et al.
Thm 4.3; docs/theory.md §3), its balanced and task-aligned starts and its tasks."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .. import single_neuron
from .._descent import run_descent
from .._riccati import MatrixRiccati
from .._validation import (
    as_array,
    as_finite_scalar,
    as_positive_int,
    as_seed,
    as_times,
    guard_overflow,
    require_finite,
)
from ..metrics import kernel_distance_from_changes

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
