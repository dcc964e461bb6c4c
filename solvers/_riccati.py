"""Closed-form evaluation of the Riccati flow ``Q' = F Q − ½ Q Qᵀ Q`` (F symmetric).

Every model in this package reduces to it (SPEC §1, §3; Dominé et al. Thm 4.3; Kunin et al.
App. A.2): its solution is

    Q Qᵀ(t) = e^{Ft} Q₀ [I + Q₀ᵀ (∫₀ᵗ e^{2Fs} ds) Q₀]⁻¹ Q₀ᵀ e^{Ft}.

Evaluated literally this overflows (e^{Ft} grows) and, when Q has several columns, loses all
accuracy once the bracketed matrix becomes ill-conditioned. Two evaluators avoid both:

* :func:`rank_one_coefficients` — one column (single neuron). In the eigenbasis of F the solution
  is ``q = Σ_j c_j e^{f_j t} o_j / √(1 + Σ_j c_j² h(f_j, t))``; the square root is a sum of
  non-negative terms, so it is taken as a log-sum-exp and each coefficient comes out as one
  bounded exponential. Exact to rounding for any t.
* :class:`MatrixRiccati` — several columns (λ-balanced). The flow is a semigroup and the closed
  form is exact from any state, so it is restarted every ``Δ ≈ 2/max|f|``, carrying a factor of
  ``Q Qᵀ`` forward through the Cholesky factor of the small h×h matrix (SPEC §3). Within one
  interval the matrix is well conditioned, so the error stays at rounding level at any horizon.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MatrixRiccati", "growth_integral", "log_growth_integral", "rank_one_coefficients"]


def growth_integral(rates: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``h(f, t) = ∫₀ᵗ e^{2fs} ds = expm1(2ft)/(2f)`` (t at f = 0), broadcasting f against t."""
    rates = np.asarray(rates, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    zero = rates == 0.0
    with np.errstate(over="ignore"):
        value = np.expm1(2.0 * rates * t) / (2.0 * np.where(zero, 1.0, rates))
    return np.where(zero, t, value) if np.any(zero) else value


def log_growth_integral(rates: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``log h(f, t)`` without overflow (−inf at t = 0), broadcasting f against t."""
    rates = np.asarray(rates, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    exponent = 2.0 * rates * t
    magnitude = np.where(rates == 0.0, 1.0, np.abs(2.0 * rates))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # f > 0: h = e^{2ft}(1 − e^{−2ft})/(2f); f < 0: h = (1 − e^{2ft})/(2|f|).
        growing = exponent + np.log(-np.expm1(-exponent)) - np.log(magnitude)
        decaying = np.log(-np.expm1(exponent)) - np.log(magnitude)
        flat = np.log(t * np.ones_like(rates))
    return np.where(rates > 0, growing, np.where(rates < 0, decaying, flat))


def rank_one_coefficients(coefficients: np.ndarray, rates: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Coefficients of the one-column Riccati solution in the eigenbasis of F.

    Given ``q₀ = Σ_j c_j o_j`` with ``F o_j = f_j o_j`` (o_j orthonormal), returns the array
    ``s`` of shape (T, J) with ``q(t) = Σ_j s[:, j] o_j``, i.e.
    ``s_j(t) = c_j e^{f_j t} / √(1 + Σ_k c_k² h(f_k, t))``.
    """
    coefficients = np.asarray(coefficients, dtype=np.float64)
    rates = np.asarray(rates, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)[:, None]
    span = float(np.max(np.abs(rates), initial=0.0)) * float(np.max(t, initial=0.0))
    if span < _DIRECT_LIMIT:
        # No exponential can overflow or become subnormal: evaluate the sum of non-negative
        # terms directly (as accurate as the log-space form, and several times faster).
        denominator = 1.0 + growth_integral(rates, t) @ coefficients**2
        return coefficients * np.exp(rates * t) / np.sqrt(denominator)[:, None]
    active = coefficients != 0.0
    with np.errstate(divide="ignore"):
        log_abs = np.where(active, np.log(np.abs(coefficients)), -np.inf)
    terms = np.concatenate(
        [np.zeros((t.shape[0], 1)), 2.0 * log_abs + log_growth_integral(rates, t)], axis=1
    )
    log_denominator = _logsumexp(terms)
    with np.errstate(invalid="ignore"):
        exponent = log_abs + rates * t - 0.5 * log_denominator[:, None]
    # Terms below e^{−700} relative to the largest coefficient are flushed to zero: they are
    # invisible next to it, and subnormal numbers slow every later operation ~20×.
    negligible = exponent < np.max(log_abs) - 700.0
    return np.where(active & ~negligible, np.sign(coefficients) * np.exp(exponent), 0.0)


#: |f|·t below which e^{±2ft} is evaluated directly (e^{600} is far from overflow, e^{−600}
#: far from the subnormal range).
_DIRECT_LIMIT = 300.0


def _logsumexp(terms: np.ndarray) -> np.ndarray:
    peak = np.max(terms, axis=1)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    return peak + np.log(np.sum(np.exp(np.maximum(terms - peak[:, None], -700.0)), axis=1))


class MatrixRiccati:
    """Exact solution of ``Q' = F Q − ½ Q Qᵀ Q`` for an n×h matrix Q, evaluated at any times.

    Factorises F once (``eigh``); :meth:`factors` then returns, for each requested time, an
    n×h matrix X(t) with ``X Xᵀ = Q Qᵀ(t)`` exactly (X equals Q up to an h×h rotation).
    """

    #: restart interval in units of 1/max|f|. Checked against a 700-digit evaluation of the
    #: closed form up to t = 1e3: intervals up to 8/max|f| stay exact to ~1e-15 relative,
    #: 16/max|f| does not; 6 keeps a margin while needing 3× fewer steps than 2.
    RESTART = 6.0
    #: relative change of Q Qᵀ over one interval below which the flow counts as settled.
    SETTLED = 4 * np.finfo(np.float64).eps
    #: upper bound on sequential restarts (≈ 20 s); a flow still moving after that is refused.
    MAX_RESTARTS = 2_000_000

    def __init__(self, generator: np.ndarray, initial: np.ndarray) -> None:
        rates, basis = np.linalg.eigh(generator)
        self.rates = rates
        self.basis = basis
        self.initial = basis.T @ initial
        largest = float(np.max(np.abs(rates))) if rates.size else 0.0
        self.interval = self.RESTART / largest if largest > 0 else np.inf

    def unstable_margin(self) -> float:
        """How far the initial state is from the stable manifold of a saddle.

        The smallest relevant singular value of the initial state's projection onto the growing
        eigenspace of F, relative to the size (spectral norm) of the whole initial state. Near
        zero (≲ 1e-12) the exact flow converges to a saddle while any floating-point
        simulation escapes after a delay that depends on rounding (Dominé et al. App. D): no
        double-precision method, this one included, can follow such a trajectory past the
        escape.
        """
        # Rates within rounding of zero (e.g. the ±λ/2 leftovers when λ ≈ 0) lift nothing off
        # a saddle on any practical horizon.
        largest = float(np.max(np.abs(self.rates), initial=0.0))
        unstable = self.initial[self.rates > 1e-9 * largest]
        needed = min(unstable.shape[0], self.initial.shape[1])
        size = float(np.linalg.norm(self.initial, 2)) if self.initial.size else 0.0
        if needed == 0 or size == 0:
            return 0.0
        singular = np.linalg.svd(unstable, compute_uv=False)
        return float(singular[needed - 1] / size)

    def _advance(self, state: np.ndarray, growth: np.ndarray, integral: np.ndarray) -> np.ndarray:
        """One closed-form step from ``state``; works on stacks (…, n, h)."""
        hidden = state.shape[-1]
        gram = np.eye(hidden) + np.swapaxes(state, -1, -2) @ (integral[..., :, None] * state)
        lower = np.linalg.cholesky(gram)
        grown = growth[..., :, None] * state
        # X' = E Z L⁻ᵀ so that X' X'ᵀ = E Z G⁻¹ Zᵀ E. G ≥ I keeps L well conditioned, so the
        # explicit inverse is as accurate as a triangular solve (and faster on stacks).
        return grown @ np.swapaxes(np.linalg.inv(lower), -1, -2)

    def factors(self, t: np.ndarray) -> np.ndarray:
        """Factors X(t) of shape (T, n, h) in the original coordinates."""
        t = np.asarray(t, dtype=np.float64)
        if np.isfinite(self.interval):
            checkpoint_index = np.floor(np.minimum(t / self.interval, 2.0**62)).astype(np.int64)
        else:
            checkpoint_index = np.zeros(t.shape, dtype=np.int64)
        if np.isfinite(self.interval):
            # Clipped: beyond 2⁶² intervals only a settled (fixed-point) state is ever reached.
            remainder = np.clip(t - checkpoint_index * self.interval, 0.0, self.interval)
        else:
            remainder = t
        needed, position = np.unique(checkpoint_index, return_inverse=True)
        checkpoints = np.empty((needed.size, *self.initial.shape))
        growth = np.exp(self.rates * self.interval) if np.isfinite(self.interval) else None
        integral = growth_integral(self.rates, self.interval) if growth is not None else None
        state, gram, step, settled = self.initial, self.initial @ self.initial.T, 0, False
        for slot, target in enumerate(needed):
            while step < target and not settled:
                if step >= self.MAX_RESTARTS:
                    raise ValueError(
                        f"the flow has not settled by t = {step * self.interval:.4g}, and reaching "
                        f"t = {target * self.interval:.4g} would take more than "
                        f"{self.MAX_RESTARTS:,} restarts of the closed form; ask for a shorter "
                        "horizon."
                    )
                state = self._advance(state, growth, integral)
                step += 1
                previous, gram = gram, state @ state.T
                # At a fixed point (to rounding) every later checkpoint is the same state:
                # stop stepping, so that huge horizons cost no more than convergence does.
                settled = np.linalg.norm(gram - previous) <= self.SETTLED * np.linalg.norm(gram)
            checkpoints[slot] = state
        starts = checkpoints[position]
        growth = np.exp(self.rates[None, :] * remainder[:, None])
        integral = growth_integral(self.rates[None, :], remainder[:, None])
        eigen_factors = self._advance(starts, growth, integral)
        return self.basis @ eigen_factors
