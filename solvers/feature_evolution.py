"""Kernel–target alignment under optimal feature evolution (Shan & Bordelon, *Rapid feature
evolution accelerates learning in neural networks*, §4 and App. A.1).

Residual ``Δ ∈ ℝᴾ`` (Δ(0) = −y: zero initial output), features Ψ with kernel ``K = ΨᵀΨ``,

    Δ' = −η K Δ,   Ψ' = γη Ψ Δ Δᵀ,

so ``C = γΔΔᵀ + K`` is conserved (their eq. 9) and ``K(∞) = K₀ + γyyᵀ``. Exact solution
(docs/theory.md (4.5)): with ``C = O diag(c) Oᵀ``,

    Δ(t) = e^{−ηCt}Δ₀ / √(1 − 2ηγ Δ₀ᵀ(∫₀ᵗ e^{−2ηCs} ds)Δ₀).

The quantity under the root equals ``s∞ + γ Σ_k (b_k²/c_k) e^{−2ηc_k t}`` (b = OᵀΔ₀) with
``s∞ = 1/(1 + γ yᵀK₀⁻¹y) > 0``: a sum of positive terms, evaluated as a log-sum-exp so that no
horizon overflows or underflows to 0/0. γ = 0 is kernel gradient descent with the fixed K₀.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.linalg
import scipy.optimize

from ._descent import run_descent
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
from .metrics import kernel_target_alignment

__all__ = [
    "FeatureEvolutionTrajectory",
    "exact",
    "final_alignment",
    "final_kernel",
    "gradient_descent",
    "kernel_gradient_descent",
    "power_law_task",
    "top_eigenvector_overlap",
]


_NEGLIGIBLE = -700.0


@dataclass(frozen=True)
class FeatureEvolutionTrajectory:
    """Trajectory of optimal feature evolution (first axis of every array = time)."""

    t: np.ndarray  #: (T,)
    residual: np.ndarray  #: (T, P) Δ(t) = f(t) − y on the training points
    K0: np.ndarray  #: (P, P) initial kernel
    y: np.ndarray  #: (P,) targets
    eta: float
    gamma: float
    method: str
    diverged_at: int | None = None
    recorded_K: np.ndarray | None = None  #: (T, P, P) when the run stored K (gradient descent)
    #: (exact only) when y is partly outside the range of K₀ (s∞ = 0), the share of y along the
    #: mode that sets the long-time limit; below :data:`solvers.metrics.SADDLE_MARGIN` the start
    #: lies on a saddle's stable manifold and rounding decides whether the residual ever leaves
    #: −y's subspace.
    saddle_margin: float = 1.0

    @cached_property
    def loss(self) -> np.ndarray:
        """(T,) ``L = ‖Δ‖²``."""
        return np.sum(self.residual**2, axis=1)

    @cached_property
    def K(self) -> np.ndarray:
        """(T, P, P) kernel; on the exact flow ``K(t) = K₀ + γ(yyᵀ − ΔΔᵀ)`` (conservation of C,
        docs/theory.md (4.3))."""
        if self.recorded_K is not None:
            return self.recorded_K
        outer = np.einsum("ti,tj->tij", self.residual, self.residual)
        return self.K0 + self.gamma * (np.outer(self.y, self.y) - outer)

    @cached_property
    def alignment(self) -> np.ndarray:
        """(T,) kernel–target alignment ``A(K(t), y) = yᵀKy/(‖K‖_F‖y‖²)`` (their eq. 2;
        docs/theory.md (4.1), (4.8))."""
        if self.recorded_K is not None:
            return kernel_target_alignment(self.recorded_K, self.y)
        # K = K₀ + γE, E = yyᵀ − ΔΔᵀ: O(P²) per time point through a few scalars.
        y, residual, gamma = self.y, self.residual, self.gamma
        y_sq = float(y @ y)
        y_k0_y = float(y @ self.K0 @ y)
        k0_sq = float(np.sum(self.K0 * self.K0))
        y_res = residual @ y
        res_sq = np.sum(residual**2, axis=1)
        res_k0_res = np.sum((residual @ self.K0) * residual, axis=1)
        perpendicular = residual - np.outer(y_res / y_sq, y)
        wedge = y_sq * np.sum(perpendicular**2, axis=1)  # ‖y‖²‖Δ‖² − (yᵀΔ)², no cancellation
        E_sq = (y_sq - res_sq) ** 2 + 2 * wedge
        numerator = y_k0_y + gamma * (y_sq - np.abs(y_res)) * (y_sq + np.abs(y_res))
        norm_sq = k0_sq + 2 * gamma * (y_k0_y - res_k0_res) + gamma**2 * E_sq
        norm = np.sqrt(np.maximum(norm_sq, 0.0))
        # A kernel at rounding level of the conserved C (e.g. K₀ = 0 with Δ stuck at −y) has no
        # resolvable direction: alignment 0, as for the zero kernel.
        scale = np.sqrt(k0_sq) + gamma * y_sq
        resolved = norm > 64 * np.finfo(np.float64).eps * scale
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(resolved, np.clip(numerator / (norm * y_sq), -1.0, 1.0), 0.0)

    @property
    def final_alignment(self) -> float:
        """A_∞ of this run's (K₀, y, γ)."""
        return final_alignment(self.K0, self.y, self.gamma)


#: the largest γ‖y‖² accepted (its square must stay finite)
MAX_GAMMA_Y_SQ = 1e150


def _check(K0, y, eta, gamma):
    """Validate the inputs; returns them with K₀ symmetrised."""
    y = as_array("y", y, ndim=1)
    if not np.any(y != 0):
        raise ValueError("y must be non-zero: the alignment A(K, y) divides by ‖y‖².")
    K0 = as_array("K0", K0, ndim=2, shape=(y.shape[0], y.shape[0]))
    scale = max(float(np.max(np.abs(K0))), 1e-300)
    if np.max(np.abs(K0 - K0.T)) > 1e-10 * scale:
        raise ValueError(
            "K0 must be symmetric (a kernel matrix ΨᵀΨ); symmetrise it as (K0 + K0.T)/2."
        )
    K0 = 0.5 * (K0 + K0.T)
    try:  # positive semi-definite up to 1e-10 of its scale: a Cholesky factor then exists
        np.linalg.cholesky(K0 + 1e-10 * scale * np.eye(K0.shape[0]))
    except np.linalg.LinAlgError:
        smallest = float(np.linalg.eigvalsh(K0)[0])
        raise ValueError(
            f"K0 must be positive semi-definite (a kernel ΨᵀΨ); its smallest eigenvalue is "
            f"{smallest:.3g}."
        ) from None
    eta = as_positive("eta", eta)
    gamma = as_finite_scalar("gamma", gamma)
    if gamma < 0:
        raise ValueError(f"gamma (the feature-learning rate) must be >= 0; got {gamma:g}.")
    # the kernel's norm holds γ²‖y‖⁴: past this it overflows double precision
    if gamma * float(y @ y) > MAX_GAMMA_Y_SQ:
        raise ValueError(
            f"gamma·‖y‖² = {gamma * float(y @ y):.3g} is too large: the kernel's norm would "
            f"overflow double precision; keep gamma·‖y‖² ≤ {MAX_GAMMA_Y_SQ:g}."
        )
    return K0, y, eta, gamma


def _asymptotic_denominator(K0: np.ndarray, y: np.ndarray, gamma: float, direct: float) -> float:
    """``s∞ = 1 − γ yᵀC⁻¹y = 1/(1 + γ yᵀK₀⁻¹y)``.

    ``direct`` is the first form from C's eigendecomposition; it is accurate unless it nearly
    cancels (strong feature learning, or y partly outside the range of K₀). Then the second
    form is used, a sum of positive terms over K₀'s eigenvalues; eigenvalues below
    ``P·ε·λ_max`` count as exact zeros (K₀ = ΨᵀΨ with fewer features than samples is singular),
    and if y has a component there no kernel in reach fits it: ``s∞ = 0`` exactly and the loss
    settles at a positive value.
    """
    if gamma == 0:
        return 1.0
    if direct > 1e-3:
        return direct
    values, vectors = np.linalg.eigh(K0)
    projection = vectors.T @ y
    tolerance = values.size * np.finfo(np.float64).eps * max(float(values[-1]), 0.0)
    in_range = values > tolerance
    null_part = float(np.sum(projection[~in_range] ** 2))
    if null_part > (1e-10) ** 2 * float(y @ y):
        return 0.0
    quadratic = float(np.sum(projection[in_range] ** 2 / values[in_range]))
    return 1.0 / (1.0 + gamma * quadratic)


@guard_overflow
def exact(
    K0: np.ndarray, y: np.ndarray, t: np.ndarray, *, eta: float = 1.0, gamma: float = 1.0
) -> FeatureEvolutionTrajectory:
    """Exact optimal-feature-evolution dynamics from zero output (Shan & Bordelon §4;
    docs/theory.md (4.5)–(4.7)).

    Parameters
    ----------
    K0 : (P, P) symmetric positive semi-definite initial kernel; y : (P,) non-zero targets;
    t : times ≥ 0; eta : learning rate > 0; gamma : feature-learning rate ≥ 0 (0 = kernel GD).

    Accuracy: no horizon overflows or loses accuracy through the evaluation itself (checked
    against 80-digit arithmetic to ~1e-15, and up to t = 1e300). What remains is inherent to
    the eigendecomposition of C: a relative error of about ``η·t·ε·‖C‖`` in the slowest modes,
    which matters only for very ill-conditioned kernels watched very long (e.g. eigenvalues down
    to 1e-12 of the largest at t ~ 1e9).
    """
    K0, y, eta, gamma = _check(K0, y, eta, gamma)
    times = as_times(t)
    conserved = K0 + gamma * np.outer(y, y)
    rates, basis = np.linalg.eigh(conserved)
    # For γ > 0, y lies in the range of C, so directions where C vanishes (to rounding) carry
    # no part of it; the rounding noise there would otherwise dominate the long-time limit.
    # (For γ = 0 the part of y outside the range of K₀ simply stays put.)
    null = rates <= rates.size * np.finfo(np.float64).eps * max(float(rates[-1]), 0.0)
    if gamma == 0:
        null = np.zeros_like(null)
    rates = np.where(null, 0.0, np.maximum(rates, 0.0))
    coefficients = np.where(null, 0.0, -(basis.T @ y))
    positive = rates > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        weights = np.where(positive, gamma * coefficients**2 / np.where(positive, rates, 1), 0.0)
    asymptote = _asymptotic_denominator(K0, y, gamma, 1.0 - float(np.sum(weights)))
    # When s∞ = 0 the slowest active mode sets the long-time limit; factor its decay out
    # analytically so that no exponent subtracts two huge multiples of t (ε·ηct accuracy).
    active = weights > 0
    slowest = float(np.min(rates[active])) if asymptote == 0 and np.any(active) else 0.0
    relative = rates - slowest  # exactly 0 for the slowest active mode
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        # inactive terms are exactly 0: mask them (their −inf must not meet an overflowing +inf)
        log_terms = np.concatenate(
            [
                np.where(
                    asymptote > 0, np.log(asymptote) + 2 * eta * slowest * times[:, None], -np.inf
                ),
                np.where(
                    active,
                    np.log(weights)[None, :] - 2 * eta * relative[None, :] * times[:, None],
                    -np.inf,
                ),
            ],
            axis=1,
        )
        peak = np.max(log_terms, axis=1, keepdims=True)
        # Clipping at e^{−700} avoids subnormal numbers, which slow later arithmetic ~20×.
        log_denominator = peak[:, 0] + np.log(
            np.sum(np.exp(np.maximum(log_terms - peak, _NEGLIGIBLE)), axis=1)
        )
        log_abs = np.log(np.abs(coefficients))
        exponent = np.where(
            coefficients != 0,
            log_abs[None, :]
            - eta * relative[None, :] * times[:, None]
            - 0.5 * log_denominator[:, None],
            -np.inf,
        )
    # Entries below e^{−700}·‖y‖ are flushed to zero for the same reason.
    negligible = exponent < np.log(np.linalg.norm(y)) + _NEGLIGIBLE
    eigen_residual = np.where(
        (coefficients == 0) | negligible, 0.0, np.sign(coefficients) * np.exp(exponent)
    )
    residual = eigen_residual @ basis.T
    require_finite("feature_evolution.exact", residual)
    # With s∞ = 0 the limit hangs on the slowest active mode; if its share of y is at rounding
    # level, the start lies on a saddle's stable manifold (the exact flow never leaves it).
    margin = 1.0
    if asymptote == 0 and np.any(active):
        margin = float(np.max(np.abs(coefficients[active & (rates == slowest)]))) / float(
            np.linalg.norm(y)
        )
    return FeatureEvolutionTrajectory(
        times, residual, K0, y, eta, gamma, "exact", saddle_margin=margin
    )


def kernel_gradient_descent(
    K0: np.ndarray, y: np.ndarray, t: np.ndarray, *, eta: float = 1.0
) -> FeatureEvolutionTrajectory:
    """Kernel gradient descent with the fixed kernel K₀ (γ = 0): ``Δ(t) = −e^{−ηK₀t} y``
    (Shan & Bordelon §2: ``L_t = Σ_k e^{−2ηλ_k t}(u_kᵀy)²``; docs/theory.md (4.10))."""
    return exact(K0, y, t, eta=eta, gamma=0.0)


@guard_overflow
def gradient_descent(
    K0: np.ndarray,
    y: np.ndarray,
    lr: float,
    steps: int,
    *,
    eta: float = 1.0,
    gamma: float = 1.0,
    every: int = 1,
) -> FeatureEvolutionTrajectory:
    """Discrete optimal feature evolution, step k at t = k·lr.

    ``Δ ← Δ − lr·η K Δ`` and ``Ψ ← Ψ(I + lr·γη ΔΔᵀ)``, i.e.
    ``K ← (I + lr·γηΔΔᵀ) K (I + lr·γηΔΔᵀ)`` — the Euler step of their eq. (8), kept positive
    semi-definite (docs/theory.md (4.11)). Stores K at every recorded step.
    """
    K0, y, eta, gamma = _check(K0, y, eta, gamma)

    rate = lr * gamma * eta

    def step(state):
        residual, kernel = state
        pulled = kernel @ residual
        # (I + αΔΔᵀ)K(I + αΔΔᵀ) = K + α(Δ(KΔ)ᵀ + (KΔ)Δᵀ) + α²(ΔᵀKΔ)ΔΔᵀ: O(P²), not O(P³).
        cross = np.outer(residual, pulled)
        updated = (
            kernel
            + rate * (cross + cross.T)
            + rate**2 * float(residual @ pulled) * np.outer(residual, residual)
        )
        return residual - lr * eta * pulled, updated

    run = run_descent(step, (-y, K0), lr, steps, every)
    residual, kernels = run.states
    return FeatureEvolutionTrajectory(
        run.t, residual, K0, y, eta, gamma, "gradient descent", run.diverged_at, recorded_K=kernels
    )


def final_kernel(K0: np.ndarray, y: np.ndarray, gamma: float) -> np.ndarray:
    """``K_∞ = C = K₀ + γyyᵀ`` (their eq. 10; docs/theory.md (4.3))."""
    K0, y, _, gamma = _check(K0, y, 1.0, gamma)
    return K0 + gamma * np.outer(y, y)


@guard_overflow
def final_alignment(K0: np.ndarray, y: np.ndarray, gamma: float) -> float:
    """``A_∞ = (γ‖y‖⁴ + yᵀK₀y)/(‖K₀ + γyyᵀ‖_F ‖y‖²)`` (their eq. 11; docs/theory.md (4.9)); → 1
    as γ → ∞."""
    K0, y, _, gamma = _check(K0, y, 1.0, gamma)
    y_sq = float(y @ y)
    y_k0_y = float(y @ K0 @ y)
    norm = np.sqrt(float(np.sum(K0 * K0)) + 2 * gamma * y_k0_y + gamma**2 * y_sq**2)
    return float((gamma * y_sq**2 + y_k0_y) / (norm * y_sq)) if norm > 0 else 0.0


def top_eigenvector_overlap(K0: np.ndarray, y: np.ndarray, gamma: float) -> float:
    """``|u₁ᵀy|/‖y‖`` for the top eigenvector u₁ of K_∞ (their Fig. 2C: a sharp rise past a
    threshold γ*; docs/theory.md (4.12), (4.14))."""
    kernel = final_kernel(K0, y, gamma)
    _, vectors = scipy.linalg.eigh(kernel, check_finite=False)
    return float(abs(vectors[:, -1] @ y) / np.linalg.norm(y))


def power_law_task(
    samples: int, a: float, b: float, seed: int | None = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Initial kernel and target with power-law spectra (Shan & Bordelon §2).

    ``K₀ = U diag(λ) Uᵀ`` with ``λ_k = k^{−b}`` and a random orthogonal U; ``y = U v`` with task
    power ``v_k² = k^{−a}`` (random signs). Returns ``(K0, y)``.
    """
    samples = as_positive_int("samples", samples)
    a = as_finite_scalar("a", a)
    b = as_finite_scalar("b", b)
    if a < 0 or b < 0:
        raise ValueError(f"the exponents a and b must be >= 0; got a = {a:g}, b = {b:g}.")
    rng = as_seed(seed)
    q, r = np.linalg.qr(rng.standard_normal((samples, samples)))
    basis = q * np.sign(np.diag(r))
    index = np.arange(1, samples + 1, dtype=np.float64)
    eigenvalues = index**-b
    power = index ** (-0.5 * a) * rng.choice([-1.0, 1.0], size=samples)
    kernel = (basis * eigenvalues) @ basis.T
    return 0.5 * (kernel + kernel.T), basis @ power


# -- γ sweep (Shan & Bordelon Fig. 2C–D) ---------------------------------------------------------

__all__ += ["MAX_SWEEP_GAMMAS", "MAX_SWEEP_SAMPLES", "GammaSweep", "gamma_sweep"]

#: most γ values of one sweep
MAX_SWEEP_GAMMAS = 400
#: largest kernel (P × P) of one sweep: one O(P³) eigendecomposition, ~0.15 s at P = 1000
MAX_SWEEP_SAMPLES = 1000


@dataclass(frozen=True)
class GammaSweep:
    """Final alignment and top-eigenvector overlap of ``K_∞ = K₀ + γyyᵀ`` across γ (each (G,))."""

    gammas: np.ndarray  #: (G,) feature-learning rates γ ≥ 0
    final_alignment: np.ndarray  #: A_∞(γ), as :func:`final_alignment`
    top_overlap: np.ndarray  #: |u₁ᵀy|/‖y‖, as :func:`top_eigenvector_overlap`
    top_eigenvalue: np.ndarray  #: largest eigenvalue of K_∞
    initial_alignment: float  #: A(K₀, y) (the γ = 0 value of ``final_alignment``)
    initial_overlap: float  #: |u₁ᵀy|/‖y‖ of K₀ itself

    @property
    def threshold(self) -> float | None:
        """The threshold γ* of their Fig. 2C: where ``top_overlap`` first reaches half-way from
        its γ → 0 value (``initial_overlap``) to 1, interpolated linearly in log γ between the
        two swept values around it (docs/theory.md §4).

        None when the sweep does not bracket it: the top eigenvector of K₀ is aligned with y
        from the start (initial overlap above 0.98), the overlap is already past half-way at
        the smallest γ swept (e.g. K₀ = I, where any γ > 0 turns it onto y), or still short of
        it at the largest.
        """
        start = self.initial_overlap
        level = 0.5 * (start + 1.0)
        order = np.argsort(self.gammas, kind="stable")
        gammas, overlap = self.gammas[order], self.top_overlap[order]
        if start > 0.98 or gammas.size == 0 or overlap[-1] < level:
            return None
        index = int(np.argmax(overlap >= level))
        if index == 0:
            return None
        low, high = float(gammas[index - 1]), float(gammas[index])
        fraction = float((level - overlap[index - 1]) / (overlap[index] - overlap[index - 1]))
        if low <= 0:  # γ = 0 has no logarithm: linear in γ on that one interval
            return low + fraction * (high - low)
        return low * (high / low) ** fraction


def _secular_gap(power: np.ndarray, gaps: np.ndarray, gammas: np.ndarray) -> np.ndarray:
    """For each γ > 0 the root x > 0 of the secular equation ``γ φ(x) = 1``,
    ``φ(x) = Σ_k v_k²/(x + g_k)`` (gaps g_k ≥ 0, the smallest 0, its weight v² > 0).

    The top eigenvalue of ``K₀ + γyyᵀ`` is then (the eigenvalue with g = 0) + x. Safeguarded
    Newton on ``log(γφ(e^u)) = 0`` in u = log x, within a bracket that always holds the root:
    from below ``x ≥`` the root of the two-pole bound ``φ ≥ v₀²/x + R/(x + g_max)``, from above
    ``x ≤ γ‖v‖²``. A step that leaves the bracket is replaced by bisection (in log x), so it
    converges for any spectrum — quadratically once close, in a few steps in practice.
    """
    lead = float(np.sum(power[gaps == 0]))
    total = float(np.sum(power))
    widest = float(np.max(gaps))
    # Two-pole lower bound: x² + (g − γ(lead + R))x − γ·lead·g = 0 with R = total − lead.
    linear = widest - gammas * total
    discriminant = np.sqrt(linear**2 + 4 * gammas * lead * widest)
    with np.errstate(divide="ignore", invalid="ignore"):
        below = np.where(
            linear > 0,
            2 * gammas * lead * widest / (linear + discriminant),
            0.5 * (discriminant - linear),
        )
    below = np.where(widest > 0, below, gammas * lead)  # one distinct pole: exactly γ·lead
    low = np.log(np.maximum(below, np.finfo(np.float64).tiny))
    high = np.log(gammas * total) + 1e-15
    u = low.copy()
    log_gamma = np.log(gammas)
    pending = np.arange(gammas.size)
    # (errstate: kernels near the ends of the double range; the caller checks the result)
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        for _ in range(200):
            if pending.size == 0:
                break
            here = u[pending]
            x = np.exp(here)
            spread = x[:, None] + gaps[None, :]
            phi = np.sum(power / spread, axis=1)
            slope = np.sum(power / spread**2, axis=1)  # −φ'
            excess = log_gamma[pending] + np.log(phi)  # > 0 left of the root (φ decreases)
            left = excess > 0
            low[pending] = np.where(left, here, low[pending])
            high[pending] = np.where(left, high[pending], here)
            newton = here + excess * phi / (x * slope)  # d excess/du = −x·slope/φ
            inside = (newton >= low[pending]) & (newton <= high[pending])
            following = np.where(inside, newton, 0.5 * (low[pending] + high[pending]))
            tolerance = 4 * np.finfo(np.float64).eps * np.maximum(np.abs(here), 1.0)
            settled = (
                (excess == 0)
                | (np.abs(following - here) <= tolerance)
                | (high[pending] - low[pending] <= tolerance)
            )
            u[pending] = np.where(excess == 0, here, following)
            pending = pending[~settled]
        return np.exp(u)


def _pole_sums(power: np.ndarray, gaps: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(Σ v_k²/(x + g_k), ‖w‖)`` with ``w_k = v_k/(x + g_k)`` ∝ u₁: then |u₁ᵀy| = φ/‖w‖."""
    spread = x[:, None] + gaps[None, :]
    return np.sum(power / spread, axis=1), np.sqrt(np.sum(power / spread**2, axis=1))


@guard_overflow
def gamma_sweep(K0: np.ndarray, y: np.ndarray, gammas: np.ndarray) -> GammaSweep:
    """A_∞ and the overlap of K_∞'s top eigenvector with y across the feature-learning rate γ —
    Shan & Bordelon, *Rapid feature evolution accelerates learning*, Fig. 2C (overlap
    |u₁ᵀy|/‖y‖, a sharp rise past a threshold γ*) and Fig. 2D (A_∞ rising with γ), eq. (11).

    Parameters
    ----------
    K0 : (P, P) symmetric positive semi-definite initial kernel, P ≤ 1000.
    y : (P,) non-zero targets.
    gammas : (G,) feature-learning rates γ ≥ 0, at most 400.

    One eigendecomposition of K₀ = V diag(λ) Vᵀ serves every γ (docs/theory.md (4.12)–(4.13)):
    with v = Vᵀy the top eigenvalue of ``K₀ + γyyᵀ`` is ``λ₁ + x``, x the root of
    ``γ Σ v_k²/(x + λ₁ − λ_k) = 1``, and
    ``u₁ ∝ Σ v_k/(x + λ₁ − λ_k) e_k`` — O(P) per γ instead of an O(P³) eigendecomposition.
    A_∞ is :func:`final_alignment`'s formula from three scalars. Each value equals the
    single-γ functions to ~1e-13 (the eigenvector's own conditioning, ε‖K‖/gap, aside).
    """
    samples = np.shape(y)[0] if np.ndim(y) == 1 else 0
    if samples > MAX_SWEEP_SAMPLES:  # before the O(P³) checks of K0
        raise ValueError(
            f"a γ sweep takes at most {MAX_SWEEP_SAMPLES} samples (K0 is P×P); got P = {samples}."
        )
    K0, y, _, _ = _check(K0, y, 1.0, 0.0)
    gammas = np.atleast_1d(as_array("gammas", gammas, ndim=(0, 1)))
    if gammas.size > MAX_SWEEP_GAMMAS:
        raise ValueError(f"gammas may hold at most {MAX_SWEEP_GAMMAS} values; got {gammas.size}.")
    if np.any(gammas < 0):
        raise ValueError(
            f"gammas (feature-learning rates) must be >= 0; the smallest is {gammas.min():g}."
        )
    y_sq = float(y @ y)
    y_k0_y = float(y @ K0 @ y)
    k0_sq = float(np.sum(K0 * K0))
    norm = np.sqrt(k0_sq + 2 * gammas * y_k0_y + gammas**2 * y_sq**2)
    with np.errstate(invalid="ignore", divide="ignore"):
        alignment = np.where(norm > 0, (gammas * y_sq**2 + y_k0_y) / (norm * y_sq), 0.0)

    values, vectors = scipy.linalg.eigh(K0, check_finite=False)
    components = vectors.T @ y
    initial_overlap = float(abs(vectors[:, -1] @ y) / np.linalg.norm(y))
    power = components**2
    active = power > 0
    reference = float(np.max(values[active]))  # top eigenvalue that y touches
    gaps = np.maximum(reference - values[active], 0.0)
    overlap = np.full(gammas.shape, initial_overlap)
    top = np.full(gammas.shape, float(values[-1]))
    positive = gammas > 0
    if np.any(positive):
        x = _secular_gap(power[active], gaps, gammas[positive])
        with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
            phi, length = _pole_sums(power[active], gaps, x)
        candidate = reference + x
        # An eigenvalue of K₀ above it whose eigenvector is orthogonal to y stays on top.
        beaten = candidate < float(values[-1])
        overlap[positive] = np.where(beaten, 0.0, np.minimum(phi / (length * np.sqrt(y_sq)), 1.0))
        top[positive] = np.maximum(candidate, float(values[-1]))
    require_finite("feature_evolution.gamma_sweep", alignment, overlap, top)
    return GammaSweep(
        gammas=gammas,
        final_alignment=alignment,
        top_overlap=overlap,
        top_eigenvalue=top,
        initial_alignment=float(y_k0_y / (np.sqrt(k0_sq) * y_sq)) if k0_sq > 0 else 0.0,
        initial_overlap=initial_overlap,
    )


# -- the power-law task of the views (Shan & Bordelon §2 and Fig. 2) -----------------------------

__all__ += ["Setup", "Spectrum", "kernel_descent_time", "setup", "spectrum", "stable_lr"]


@dataclass(frozen=True)
class Spectrum:
    """A kernel's eigenvalues, largest first, and the target's components along its
    eigenvectors: ``v_k = u_kᵀy``, whose squares are the task power of Shan & Bordelon §2
    (docs/theory.md §4)."""

    eigenvalues: np.ndarray  #: (P,) λ₁ ≥ λ₂ ≥ …
    components: np.ndarray  #: (P,) v_k = u_kᵀy (the sign of each eigenvector is arbitrary)

    @property
    def power(self) -> np.ndarray:
        """(P,) task power ``v_k²``; it sums to ‖y‖²."""
        return self.components**2

    @property
    def top_overlap(self) -> float:
        """``|u₁ᵀy|/‖y‖``: how much of the target lies along the top eigenvector."""
        return float(abs(self.components[0]) / np.sqrt(np.sum(self.power)))


def spectrum(kernel: np.ndarray, y: np.ndarray) -> Spectrum:
    """The :class:`Spectrum` of a symmetric positive semi-definite ``kernel`` (P × P) with the
    targets ``y`` (P,): one eigendecomposition (Shan & Bordelon's Fig. 2A–B draw it for K₀ and
    K_∞; docs/theory.md §4)."""
    kernel, y, _, _ = _check(kernel, y, 1.0, 0.0)
    values, vectors = scipy.linalg.eigh(kernel, check_finite=False)
    return Spectrum(values[::-1].copy(), (vectors.T @ y)[::-1].copy())


def _log_loss(log_power: np.ndarray, rates: np.ndarray, t: float) -> float:
    """``log Σ_k e^{log p_k − r_k t}`` without overflow or underflow."""
    terms = log_power - rates * t
    peak = float(np.max(terms))
    return peak + math.log(float(np.sum(np.exp(terms - peak))))


@guard_overflow
def kernel_descent_time(initial: Spectrum, loss: float, *, eta: float = 1.0) -> float:
    """The time kernel gradient descent (γ = 0: the kernel stays K₀) takes to bring the loss
    down to ``loss``: the root t of ``L(t) = Σ_k v_k² e^{−2ηλ_k t} = loss`` (Shan & Bordelon
    §2; docs/theory.md §4), from the :class:`Spectrum` of K₀ with the target.

    0 if the loss starts at or below ``loss``; ``inf`` if kernel gradient descent never gets
    there: the target's power along K₀'s null space (eigenvalues below P·ε·λ₁) stays, so L
    never falls below it. The root is found in log t by Brent's method within the bracket
    ``ln(S/ℓ)/r̄ ≤ t ≤ ln(S/ℓ)/r_min`` (S the power that decays, ℓ what is left of it at the
    root, r̄ its power-weighted mean rate — by Jensen's inequality — and r_min its slowest
    rate), with L as a log-sum-exp, so that any time scale is resolved.
    """
    eta = as_positive("eta", eta)
    loss = as_finite_scalar("loss", loss)
    values = np.asarray(initial.eigenvalues, dtype=np.float64)
    power = np.asarray(initial.components, dtype=np.float64) ** 2
    if loss >= float(np.sum(power)):
        return 0.0
    tolerance = values.size * np.finfo(np.float64).eps * max(float(np.max(values)), 0.0)
    decaying = (values > tolerance) & (power > 0)
    left = loss - float(np.sum(power[~decaying]))  # what the decaying modes must come down to
    if left <= 0:
        return math.inf
    rates, log_power = 2 * eta * values[decaying], np.log(power[decaying])
    reach = float(np.sum(power[decaying]))
    ratio = math.log(reach / left)
    low = ratio * reach / float(power[decaying] @ rates)
    high = ratio / float(np.min(rates))
    target = math.log(left)

    def excess(u: float) -> float:
        return _log_loss(log_power, rates, math.exp(u)) - target

    bracket = math.log(low), math.log(high)
    if bracket[1] - bracket[0] <= 1e-15 * max(abs(bracket[0]), 1.0) or excess(bracket[0]) <= 0:
        return low  # one rate (or rounding at the lower bound): the bound is the root
    if excess(bracket[1]) >= 0:
        return high
    root = scipy.optimize.brentq(
        excess, *bracket, xtol=1e-15, rtol=4 * np.finfo(np.float64).eps, maxiter=200
    )
    return math.exp(root)


@guard_overflow
def stable_lr(K0: np.ndarray, y: np.ndarray, *, eta: float = 1.0, gamma: float = 1.0) -> float:
    """A step size at which discrete optimal feature evolution (:func:`gradient_descent`) stays
    stable: half the smaller of two bounds (docs/theory.md §4).

    * The kernel bound ``2/(η c₁)``: the residual step ``Δ ← (I − lr·ηK)Δ`` is stable while
      ``lr·η·λ_max(K) < 2``. On the flow ``K = C − γΔΔᵀ ⪯ C = K₀ + γyyᵀ`` (C is conserved), so
      the top eigenvalue c₁ of K_∞ = C is the largest the kernel ever gets; for γ = 0 the
      bound is exact.
    * The feature bound ``1/(ηγ‖y‖²)``: one feature step ``Ψ ← Ψ(I + lr·γηΔΔᵀ)`` stretches Ψ
      along Δ by ``1 + lr·γη‖Δ‖² ≤ 1 + lr·γη‖y‖²`` (the loss only decreases), which this keeps
      below 2.

    The factor ½ is a margin: the bounds hold on the exact flow, which discrete steps only
    approximate. ``inf`` when neither bound applies (K₀ = 0 and γ = 0).
    """
    K0, y, eta, gamma = _check(K0, y, eta, gamma)
    kernel = K0 + gamma * np.outer(y, y)
    last = kernel.shape[0] - 1
    top = float(scipy.linalg.eigh(kernel, eigvals_only=True, subset_by_index=(last, last))[0])
    kernel_bound = 2.0 / (eta * top) if top > 0 else math.inf
    feature_bound = 1.0 / (eta * gamma * float(y @ y)) if gamma > 0 else math.inf
    return 0.5 * min(kernel_bound, feature_bound)


@dataclass(frozen=True)
class Setup:
    """The power-law task the kernel-alignment views pose (Shan & Bordelon §2 and Fig. 2;
    docs/theory.md §4): :func:`power_law_task` of ``samples`` points with task power
    ``v_k² = k^{−a}`` along eigenvalues ``λ_k = k^{−b}``, drawn from ``seed``. The trajectory
    view and its map build every task through :func:`setup`, so that a cell of the map opens
    exactly the task it was computed from."""

    samples: int
    a: float
    b: float
    seed: int
    K0: np.ndarray  #: (P, P) initial kernel
    y: np.ndarray  #: (P,) targets

    @cached_property
    def initial(self) -> Spectrum:
        """K₀'s spectrum with the target (by construction ``λ_k = k^{−b}``, ``v_k² = k^{−a}``)."""
        return spectrum(self.K0, self.y)

    def final(self, gamma: float) -> Spectrum:
        """The spectrum of ``K_∞ = K₀ + γyyᵀ`` with the target (their Fig. 2A–B)."""
        return spectrum(final_kernel(self.K0, self.y, gamma), self.y)

    def exact(self, t: np.ndarray, *, eta: float = 1.0, gamma: float = 1.0):
        """The exact flow on this task (:func:`exact`)."""
        return exact(self.K0, self.y, t, eta=eta, gamma=gamma)

    def kernel_gradient_descent(self, t: np.ndarray, *, eta: float = 1.0):
        """Kernel gradient descent with the frozen K₀ (:func:`kernel_gradient_descent`)."""
        return kernel_gradient_descent(self.K0, self.y, t, eta=eta)

    def gradient_descent(
        self, lr: float, steps: int, *, eta: float = 1.0, gamma: float = 1.0, every: int = 1
    ):
        """Discrete feature evolution on this task (:func:`gradient_descent`)."""
        return gradient_descent(self.K0, self.y, lr, steps, eta=eta, gamma=gamma, every=every)

    def sweep(self, gammas: np.ndarray) -> GammaSweep:
        """A_∞ and the top eigenvector's overlap across γ (:func:`gamma_sweep`)."""
        return gamma_sweep(self.K0, self.y, gammas)


def setup(*, samples: int, a: float, b: float, seed: int = 0) -> Setup:
    """The :class:`Setup` of a power-law task (Shan & Bordelon §2, :func:`power_law_task`;
    docs/theory.md §4)."""
    K0, y = power_law_task(samples, a, b, seed)
    return Setup(int(samples), float(a), float(b), int(seed), K0, y)
