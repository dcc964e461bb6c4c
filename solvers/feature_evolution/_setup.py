"""The power-law task of the views (Shan & Bordelon §2 and Fig. 2): its spectrum, a stable step
size and the time kernel gradient descent takes."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.linalg
import scipy.optimize

from .._validation import (
    as_finite_scalar,
    as_positive,
    guard_overflow,
)
from ._exact import (
    _check,
    exact,
    final_kernel,
    gradient_descent,
    kernel_gradient_descent,
    power_law_task,
)
from ._sweep import GammaSweep, gamma_sweep

__all__ = ["Setup", "Spectrum", "kernel_descent_time", "setup", "spectrum", "stable_lr"]


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
