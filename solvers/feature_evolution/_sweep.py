"""The γ sweep (Shan & Bordelon Fig. 2C–D): A∞ and the overlap of K∞'s top eigenvector with y
across the feature-learning rate γ, from one eigendecomposition."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.optimize

from .._validation import (
    as_array,
    guard_overflow,
    require_finite,
)
from ._exact import _check

__all__ = ["MAX_SWEEP_GAMMAS", "MAX_SWEEP_SAMPLES", "GammaSweep", "gamma_sweep"]

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
