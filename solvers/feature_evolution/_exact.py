"""Optimal feature evolution from zero output (Shan & Bordelon §4; docs/theory.md §4): the exact
residual, kernel and alignment, kernel gradient descent with a frozen kernel, the discrete
updates, and the t → ∞ limits."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.linalg
import scipy.optimize

from .._descent import run_descent
from .._validation import (
    as_array,
    as_finite_scalar,
    as_positive,
    as_positive_int,
    as_seed,
    as_times,
    guard_overflow,
    require_finite,
)
from ..metrics import kernel_target_alignment

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
