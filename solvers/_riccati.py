"""Closed-form evaluation of the Riccati flow ``Q' = F Q − ½ Q Qᵀ Q`` (F symmetric).

Every model in this package reduces to it (docs/theory.md (0.4)–(0.7), (1.8), (3.3); Dominé et
al. Thm 4.3; Kunin et al. App. A.2): its solution is

    Q Qᵀ(t) = e^{Ft} Q₀ [I + Q₀ᵀ (∫₀ᵗ e^{2Fs} ds) Q₀]⁻¹ Q₀ᵀ e^{Ft}.

Evaluated literally this overflows (e^{Ft} grows) and, when Q has several columns, loses all
accuracy once the bracketed matrix becomes ill-conditioned. Two evaluators avoid both:

* :func:`rank_one_coefficients` — one column (single neuron). In the eigenbasis of F the solution
  is ``q = Σ_j c_j e^{f_j t} o_j / √(1 + Σ_j c_j² h(f_j, t))``; the square root is a sum of
  non-negative terms, so it is taken as a log-sum-exp with the fastest growth factored out
  analytically, and each coefficient comes out as one bounded exponential whose exponent never
  subtracts two multiples of t. Exact to rounding for any t (checked to t = 1e308).
* :class:`MatrixRiccati` — several columns (λ-balanced). The flow is a semigroup and the closed
  form is exact from any state, so it is restarted — every ``6/max|f|`` at first — carrying a
  factor of ``Q Qᵀ`` through the Cholesky factor of the small h×h matrix (docs/theory.md (3.7)–
  (3.9)). The factor is
  kept lower-trapezoidal in rate order and its columns scaled by their own growth, so a step
  stays exact while fast modes grow by e^{fτ} and slow ones crawl; the step then doubles as long
  as one double step agrees with two single ones, so slow (even algebraic) tails cost O(log t)
  steps. Checked against a 900-digit evaluation to ~1e-15 up to t = 1e3 and against exact scalar
  laws up to t = 1e12. A horizon that would need more than ``MAX_RESTARTS`` steps (rates spread
  over many decades, watched far beyond the slow ones) is refused with a ValueError.
* :class:`DecayingForm` — several columns, restart-free: when the initial factor's component on
  the h fastest modes of F is invertible and the fastest h rates are positive, the same closed
  form can be rewritten with only decaying exponentials (docs/theory.md (3.10)–(3.18),
  "λ-balanced: restart-free closed form"; Dominé et al. App. B.5). Every time is then one array
  expression, and a bound on the condition number, formed along the way, says where it is as
  exact as the march; :meth:`MatrixRiccati.factors` uses it there and marches elsewhere.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "DecayingForm",
    "MatrixRiccati",
    "growth_integral",
    "log_growth_integral",
    "rank_one_coefficients",
    "unstable_margin",
    "unstable_margins",
]


def growth_integral(rates: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``h(f, t) = ∫₀ᵗ e^{2fs} ds = expm1(2ft)/(2f)`` (t at f = 0), broadcasting f against t
    (docs/theory.md (0.6))."""
    rates = np.asarray(rates, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    zero = rates == 0.0
    with np.errstate(over="ignore"):
        value = np.expm1(2.0 * rates * t) / (2.0 * np.where(zero, 1.0, rates))
    return np.where(zero, t, value) if np.any(zero) else value


def log_growth_integral(rates: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``log h(f, t)`` without overflow (−inf at t = 0), broadcasting f against t (docs/theory.md
    (0.6))."""
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
    """Coefficients of the one-column Riccati solution in the eigenbasis of F (docs/theory.md
    (0.7); evaluated as in (1.11)).

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
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # inf at t ~ 1e308 is fine
        return _rank_one_in_log_space(coefficients, rates, t)


def _rank_one_in_log_space(
    coefficients: np.ndarray, rates: np.ndarray, t: np.ndarray
) -> np.ndarray:
    active = coefficients != 0.0
    log_abs = np.where(active, np.log(np.abs(coefficients)), -np.inf)
    # Factor the fastest active growth e^{2f*t} out of the denominator analytically, so that
    # the exponent of the dominant term carries no f*t at all: subtracting two huge numbers
    # (f t and ½ log D) would lose ε·f·t of relative accuracy at long horizons.
    fastest = max(float(np.max(rates[active], initial=0.0)), 0.0)
    relative = rates - fastest  # exactly 0 for the dominant rate
    scaled_growth = _log_scaled_growth(rates, relative, t, fastest)
    # an inactive term is exactly 0 (its −inf must not meet an overflowing +inf growth)
    scaled_terms = np.where(active, 2.0 * log_abs + scaled_growth, -np.inf)
    terms = np.concatenate([np.full((t.shape[0], 1), -2.0 * fastest) * t, scaled_terms], axis=1)
    log_denominator = _logsumexp(terms)
    exponent = np.where(active, log_abs + relative * t - 0.5 * log_denominator[:, None], -np.inf)
    # Terms below e^{−700} relative to the largest coefficient are flushed to zero: they are
    # invisible next to it, and subnormal numbers slow every later operation ~20×.
    negligible = exponent < np.max(log_abs) - 700.0
    return np.where(active & ~negligible, np.sign(coefficients) * np.exp(exponent), 0.0)


def _log_scaled_growth(rates: np.ndarray, relative: np.ndarray, t: np.ndarray, fastest: float):
    """``log(h(f, t) e^{−2f*t})`` for every rate, the (f − f*)t part kept exact."""
    magnitude = np.where(rates == 0.0, 1.0, np.abs(2.0 * rates))
    exponent = 2.0 * rates * t
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        growing = 2.0 * relative * t + np.log(-np.expm1(-exponent)) - np.log(magnitude)
        decaying = np.log(-np.expm1(exponent)) - np.log(magnitude) - 2.0 * fastest * t
        flat = np.log(t * np.ones_like(rates)) - 2.0 * fastest * t
    return np.where(rates > 0, growing, np.where(rates < 0, decaying, flat))


#: |f|·t below which e^{±2ft} is evaluated directly (e^{600} is far from overflow, e^{−600}
#: far from the subnormal range).
_DIRECT_LIMIT = 300.0


def _logsumexp(terms: np.ndarray) -> np.ndarray:
    peak = np.max(terms, axis=1)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    return peak + np.log(np.sum(np.exp(np.maximum(terms - peak[:, None], -700.0)), axis=1))


#: rates within this fraction of the largest |rate| are rounding noise around zero (e.g. the
#: ±λ/2 leftovers when λ ≈ 0): such a rate decays nothing on any practical horizon
ZERO_RATE = 1e-9


def unstable_margin(rates: np.ndarray, initial: np.ndarray) -> float:
    """:meth:`MatrixRiccati.unstable_margin` from F's rates and the initial factor in F's
    eigenbasis (n, h)."""
    return float(unstable_margins(rates[None], initial[None])[0])


def unstable_margins(rates: np.ndarray, initial: np.ndarray) -> np.ndarray:
    """:func:`unstable_margin` of each flow of a stack: rates (C, n), initial (C, n, h)."""
    # Rates within rounding of zero (e.g. the ±λ/2 leftovers when λ ≈ 0) lift nothing off
    # a saddle on any practical horizon.
    largest = np.max(np.abs(rates), axis=-1, keepdims=True, initial=0.0)
    unstable = rates > ZERO_RATE * largest
    needed = np.minimum(np.count_nonzero(unstable, axis=-1), initial.shape[-1])
    if initial.size == 0:
        return np.zeros(rates.shape[0])
    # the rows off the unstable modes are zeroed, which leaves the singular values of the rest
    singular = np.linalg.svd(np.where(unstable[..., None], initial, 0.0), compute_uv=False)
    size = np.linalg.svd(initial, compute_uv=False)[:, 0]  # spectral norm
    picked = np.take_along_axis(singular, np.maximum(needed - 1, 0)[:, None], axis=-1)[:, 0]
    usable = (needed > 0) & (size > 0)
    return np.where(usable, picked / np.where(usable, size, 1.0), 0.0)


class MatrixRiccati:
    """Exact solution of ``Q' = F Q − ½ Q Qᵀ Q`` for an n×h matrix Q, evaluated at any times
    (docs/theory.md (0.5), (3.6)–(3.18)).

    Factorises F once (``eigh``); :meth:`factors` then returns, for each requested time, an
    n×h matrix X(t) with ``X Xᵀ = Q Qᵀ(t)`` to rounding (X equals Q up to an h×h rotation);
    see the module docstring for how long horizons stay exact and where they are refused.
    Setting ``DecayingForm.CONDITION_LIMIT = 0`` forces the restarted march everywhere.
    """

    #: base restart interval in units of 1/max|f|. Checked against a 700-digit evaluation of
    #: the closed form up to t = 1e3: intervals up to 8/max|f| stay exact to ~1e-15 relative,
    #: 16/max|f| does not; 6 keeps a margin.
    RESTART = 6.0
    #: a step of twice the interval is accepted when it agrees with two single steps to this
    #: relative accuracy (in QQᵀ); the interval then grows geometrically wherever the flow
    #: allows, so that slow (even algebraic) tails cost O(log t) steps. A refused doubling is
    #: retried after 1, 2, 4, … steps.
    DOUBLING_TOLERANCE = 1e-13
    #: upper bound on sequential restarts (a few seconds): a flow still moving after that —
    #: rates spread over many decades, watched over a horizon far beyond the slow ones — is
    #: refused with a ValueError rather than answered inexactly.
    MAX_RESTARTS = 300_000

    def __init__(self, generator: np.ndarray, initial: np.ndarray) -> None:
        rates, basis = np.linalg.eigh(generator)
        self.rates = rates
        self.basis = basis
        self.initial = basis.T @ initial
        largest = float(np.max(np.abs(rates))) if rates.size else 0.0
        self.interval = self.RESTART / largest if largest > 0 else np.inf
        self.fastest_first = np.argsort(-rates, kind="stable")

    def triangularise(self, state: np.ndarray) -> np.ndarray:
        """The same QQᵀ from a factor that is lower-trapezoidal when its rows are ordered by
        decreasing rate (an h×h rotation, via QR; docs/theory.md (3.8)).

        Then the fastest growing mode lives in the first column only — with exact zeros, not
        rounding noise, elsewhere — so its growth e^{2fτ} enters a single pivot of the h×h
        system instead of amplifying rounding in every other column. This is what lets a step
        stay exact while fast modes grow by e^{±fτ} and slow ones crawl.
        """
        ordered = state[self.fastest_first]
        _, upper = np.linalg.qr(ordered.T, mode="complete")  # orderedᵀ = Q·upper
        lower = upper.T[:, : state.shape[1]] if upper.shape[0] >= state.shape[1] else upper.T
        result = np.zeros_like(state)
        result[self.fastest_first, : lower.shape[1]] = lower
        return result

    def unstable_margin(self) -> float:
        """How far the initial state is from the stable manifold of a saddle (docs/theory.md
        (3.19)).

        The smallest relevant singular value of the initial state's projection onto the growing
        eigenspace of F, relative to the size (spectral norm) of the whole initial state. Near
        zero (≲ 1e-12) the exact flow converges to a saddle while any floating-point
        simulation escapes after a delay that depends on rounding (Dominé et al. App. D): no
        double-precision method, this one included, can follow such a trajectory past the
        escape.
        """
        return unstable_margin(self.rates, self.initial)

    def column_rates(self, state: np.ndarray) -> np.ndarray:
        """g_j ≥ 0: the fastest rate among the rows where column j is non-zero (…, h)."""
        present = state != 0.0
        return np.maximum(np.max(np.where(present, self.rates[:, None], -np.inf), axis=-2), 0.0)

    def advance(
        self, state: np.ndarray, length: np.ndarray | float, top: np.ndarray | None = None
    ) -> np.ndarray:
        """One closed-form step of ``length`` from ``state``; works on stacks (…, n, h)
        (docs/theory.md (3.7)).

        ``X' = E Z L⁻ᵀ`` with ``LLᵀ = G = I + Zᵀ D Z`` (E = e^{Fτ}, D = ∫₀^τ e^{2Fs}ds), so that
        ``X'X'ᵀ = E Z G⁻¹ Zᵀ E``. Each column j is scaled by e^{g_j τ}, g_j the fastest rate in
        its support (``top``, from :meth:`column_rates`): with ``S = diag(e^{gτ})``,
        ``G = S Ĝ S`` where ``Ĝ = S⁻² + VᵀV`` and ``V_ij = z_ij √D_i e^{−g_j τ} ≤ O(1)``, and
        ``X' = (E Z S⁻¹) L̂⁻ᵀ``. Nothing in Ĝ exceeds O(τ), so no step length overflows.
        """
        length = np.asarray(length, dtype=np.float64)
        tau = length[..., None, None]
        top = (self.column_rates(state) if top is None else top)[..., None, :]
        rates = self.rates[:, None]
        relative = rates - top  # exactly 0 where a column's fastest rate is the row's rate
        with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
            # Entries outside a column's support are exactly 0; capping their exponents (they
            # could exceed the column's rate) keeps 0·e^{…} at 0 without a mask.
            grown = state * np.exp(np.minimum(relative * tau, 0.0))
            # log(√D_i e^{−g_j τ}) with the (f_i − g_j)τ part formed first: subtracting two
            # multiples of τ would cost ε·fτ of relative accuracy on long steps.
            magnitude = np.where(rates == 0.0, 1.0, np.abs(2.0 * rates))
            tail = 0.5 * (np.log(-np.expm1(-2.0 * rates * tau)) - np.log(magnitude))
            other = 0.5 * log_growth_integral(rates, tau) - top * tau
            log_root = np.where(rates > 0, relative * tau + tail, other)
            weighted = state * np.exp(np.minimum(log_root, 400.0))
            diagonal = np.exp(-2.0 * top[..., 0, :] * length[..., None])
        gram = np.swapaxes(weighted, -1, -2) @ weighted
        gram = gram + diagonal[..., :, None] * np.eye(state.shape[-1])
        lower = np.linalg.cholesky(gram)
        # Ĝ ≥ S⁻² is well conditioned here, so the explicit inverse is as accurate as a
        # triangular solve (and faster on stacks).
        return grown @ np.swapaxes(np.linalg.inv(lower), -1, -2)

    def _advance_plain(self, state: np.ndarray, length: np.ndarray) -> np.ndarray:
        """:meth:`advance` without the column scaling, for steps within the base interval."""
        tau = np.asarray(length, dtype=np.float64)[..., None]
        growth = np.exp(self.rates * tau)
        integral = growth_integral(self.rates, tau)
        gram = np.swapaxes(state, -1, -2) @ (integral[..., :, None] * state)
        lower = np.linalg.cholesky(gram + np.eye(state.shape[-1]))
        return (growth[..., :, None] * state) @ np.swapaxes(np.linalg.inv(lower), -1, -2)

    def _step(self, state: np.ndarray, length: float) -> np.ndarray:
        try:
            return self.advance(state, length)
        except np.linalg.LinAlgError:  # a step too long to be resolved: never accepted
            return np.full_like(state, np.nan)

    def factors(self, t: np.ndarray) -> np.ndarray:
        """Factors X(t) of shape (T, n, h) in the original coordinates (policy: docs/theory.md
        (3.18)).

        Every time where :class:`DecayingForm` applies and is well conditioned comes from that
        restart-free form in one array expression; the others (near a saddle, zero rates) from
        the restarted march, which then only has to reach the latest of them.
        """
        t = np.asarray(t, dtype=np.float64)
        form = DecayingForm(self.rates[None], self.basis[None], self.initial[None])
        if not form.usable[0]:
            return self.marched_factors(t)
        result, condition = (part[0] for part in form.factors(t))
        refused = ~(condition <= form.CONDITION_LIMIT)
        if np.any(refused):
            result[refused] = self.marched_factors(t[refused])
        return result

    def marched_factors(self, t: np.ndarray) -> np.ndarray:
        """:meth:`factors` by the restarted march alone (the reference for the closed form)."""
        t = np.asarray(t, dtype=np.float64)
        if not np.isfinite(self.interval):  # F = 0: one closed-form step is exact for any t
            states, which, remainder = self.initial[None], np.zeros(t.size, dtype=int), t
        else:
            states, which, remainder = self._checkpoints(t)
        largest = float(np.max(np.abs(self.rates), initial=0.0))
        if largest * float(np.max(remainder, initial=0.0)) <= self.RESTART:
            # every remainder is within the base interval: the plain step is exact and cheaper
            return self.basis @ self._advance_plain(states[which], remainder)
        tops = self.column_rates(states)
        return self.basis @ self.advance(states[which], remainder, tops[which])

    def _checkpoints(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Checkpoint states, and for every time the index of its checkpoint (at s ≤ t) and the
        remainder t − s, which is within a validated step."""
        march = _March(self, self.initial)
        states, positions, steps = [march.state], [0.0], [march.step]
        which = np.empty(t.size, dtype=int)
        order = np.argsort(t, kind="stable")
        for index in order:
            target = float(t[index])
            if target - march.position > march.step:
                while target - march.position > march.step:
                    march.advance(allow_doubling=target - march.position > 2 * march.step)
                states.append(march.state)
                positions.append(march.position)
                steps.append(march.step)
            which[index] = len(states) - 1
        remainder = np.minimum(
            np.maximum(t - np.asarray(positions)[which], 0.0), np.asarray(steps)[which]
        )
        return np.stack(states), which, remainder


class _March:
    """The sequential part of :class:`MatrixRiccati`: restarts of the closed form, with a step
    that doubles while one double step agrees with two single ones (step doubling)."""

    def __init__(self, flow: MatrixRiccati, state: np.ndarray) -> None:
        state = flow.triangularise(state)
        self.flow, self.state = flow, state
        self.position, self.step = 0.0, flow.interval
        self.restarts = 0
        # after a refused doubling, wait this many steps before trying again (doubles each time)
        self.patience, self.wait = 1, 0

    def _accept(self, state: np.ndarray, length: float) -> None:
        self.state = self.flow.triangularise(state)
        self.position += length

    def advance(self, allow_doubling: bool) -> None:
        flow = self.flow
        if self.restarts >= flow.MAX_RESTARTS:
            raise ValueError(
                f"reaching beyond t = {self.position:.4g} took {flow.MAX_RESTARTS:,} restarts of "
                "the closed form (rates spread over many decades); ask for a shorter horizon."
            )
        single = flow._step(self.state, self.step)
        self.restarts += 1
        self.wait = max(self.wait - 1, 0)
        if not (allow_doubling and self.wait == 0):
            self._accept(single, self.step)
            return
        twice = flow._step(single, self.step)
        once = flow._step(self.state, 2 * self.step)
        self.restarts += 2
        gram = twice @ twice.T
        with np.errstate(invalid="ignore"):  # an overflowing double step compares as NaN
            agree = np.linalg.norm(
                once @ once.T - gram
            ) <= flow.DOUBLING_TOLERANCE * np.linalg.norm(gram)
        if agree:
            self._accept(twice, 2 * self.step)
            self.step *= 2
            self.patience = 1
        else:  # too bold: keep the single step, back off, and wait longer before trying again
            self._accept(single, self.step)
            self.step = max(self.step / 2, flow.interval)
            self.patience = min(2 * self.patience, 1024)
            self.wait = self.patience


def scaled_growth_root(rates: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``√(h(m, t)·e^{−2 max(m, 0) t})`` with ``h(m, t) = ∫₀ᵗ e^{2ms} ds``: the bounded part of
    ``√h``, equal to ``√((1 − e^{−2|m|t})/(2|m|))`` for either sign of m (√t at m = 0);
    docs/theory.md (3.13).

    Where ``x = 2|m|t ≤ 1`` it is taken as ``√(t·(1 − e^{−x})/x)``, which stays right when x
    underflows (rates within rounding of zero); nothing overflows for any finite t.
    """
    size = np.abs(2.0 * rates)
    x = size * t
    small = x <= 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        near = t * np.where(x > 0.0, -np.expm1(-x) / np.where(small & (x > 0.0), x, 1.0), 1.0)
        far = -np.expm1(-x) / size
    return np.sqrt(np.where(small, near, far))


class DecayingForm:
    """The closed form with only decaying exponentials, for a stack of flows, restart-free.

    In the eigenbasis of F, with the h fastest rates ``p₁ ≥ … ≥ p_h > 0`` first ("fast" rows)
    and the other rates ``m_i ≤ p_h`` ("slow" rows), write the initial factor as ``[A; B]``.
    When the h×h block A is invertible, with ``R = A⁻¹`` and ``K₀ = B A⁻¹``,

        Q Qᵀ(t) = [I; K(t)] M(t)⁻¹ [I; K(t)]ᵀ,
        K(t) = e^{Nt} K₀ e^{−Pt},
        M(t) = D(t) + e^{−Pt} (Rᵀ R + K₀ᵀ H_N(t) K₀) e^{−Pt},

    ``D = diag((1 − e^{−2pt})/(2p))``, ``H_N = diag(h(m_i, t))`` (see docs/theory.md
    (3.10)–(3.16), "λ-balanced: restart-free closed form"; Dominé et al. Thm B.5 rearrange their
    Thm 4.3 in the same spirit, assuming an invertible initial overlap). Every
    exponential decays or is bounded: ``e^{(m_i − p_j)t} ≤ 1`` and ``h(m_i, t) e^{−2p_j t}``
    stays O(1/p) even for growing slow modes. So one array expression evaluates any set of
    times. ``M = VᵀV`` with ``V = [D^{1/2}; R e^{−Pt}; H_N^{1/2} K₀ e^{−Pt}]``; V is factored
    by QR after scaling its columns to unit length (no Gram matrix, so no squared condition).

    Where it is exact: rounding in this evaluation is amplified by at most the condition number
    κ of the column-scaled V, which :meth:`factors` bounds at every time from quantities it
    forms anyway (``κ² ≤ h / min_j γ_j``, see there). κ is ≤ √h·κ(Â) at t = 0 (Â: A with unit
    rows) and tends to √h as the flow converges, so starts near a saddle's stable manifold
    (A nearly singular) are refused early on and accepted once they have left it.
    """

    #: times whose bound on κ exceeds this are left to the restarted march. Measured against
    #: an arbitrary-precision evaluation on near-singular starts, this form's relative error
    #: is up to ~0.1·ε·κ: 1e2 keeps it at the march's own few·1e-15 (both lose more where a
    #: start near a saddle makes the problem itself ill-conditioned). Random λ-balanced starts
    #: have κ ≲ 60 at t = 0 (99 %), and κ only falls as they learn.
    CONDITION_LIMIT = 1e2
    #: κ(Â) beyond which A counts as singular (its inverse would be rounding noise)
    SINGULAR = 1e12

    def __init__(self, rates: np.ndarray, basis: np.ndarray, initial: np.ndarray) -> None:
        """rates (C, n), basis (C, n, n) (eigenvectors of F in columns), initial (C, n, h) in
        the eigenbasis: C flows of the same size."""
        hidden = initial.shape[-1]
        order = np.argsort(-rates, axis=-1, kind="stable")
        fast, slow = order[:, :hidden], order[:, hidden:]
        self.fast = np.take_along_axis(rates, fast, axis=-1)  # p (C, h)
        self.slow = np.take_along_axis(rates, slow, axis=-1)  # m (C, n − h)
        top = np.take_along_axis(initial, fast[..., None], axis=1)  # A (C, h, h)
        rest = np.take_along_axis(initial, slow[..., None], axis=1)  # B (C, n − h, h)
        self.basis = np.take_along_axis(basis, order[:, None, :], axis=2)  # fast columns first
        rows = np.linalg.norm(top, axis=-1)  # Δ (C, h)
        largest = np.max(np.abs(rates), axis=-1)
        usable = (self.fast[:, -1] > ZERO_RATE * largest) & np.all(rows > 0, axis=-1)
        rows = np.where(rows > 0, rows, 1.0)
        singular = np.linalg.svd(top / rows[..., None], compute_uv=False)  # of Â, (C, h)
        usable &= singular[:, -1] * self.SINGULAR > singular[:, 0]
        # ‖R‖ ≤ 1/(min Δ·σ_min(Â)) and ‖K₀‖ ≤ ‖B‖‖R‖ must stay far from overflow when squared
        # (only starts of size ≲ 1e-150 — or that far from the fast modes — are refused)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            reach = 1.0 / (np.min(rows, axis=-1) * singular[:, -1])
            usable &= (reach < 1e150) & (np.linalg.norm(rest, axis=(-2, -1)) * reach < 1e150)
        self.usable = usable
        top = np.where(usable[:, None, None], top, np.eye(hidden))  # keep refused cells finite
        self.inverse = np.linalg.inv(top)  # R (C, h, h)
        self.graph = rest @ self.inverse  # K₀ (C, n − h, h)
        # ‖R y‖ ≥ ‖Δ⁻¹ y‖/‖Â‖: the lower bound behind the condition estimate
        norm = np.where(usable, singular[:, 0], 1.0)[:, None]  # ‖Â‖ (1 where refused)
        self.floor = 1.0 / (np.where(usable[:, None], rows, 1.0) * norm) ** 2  # (C, h)

    def factors(
        self, t: np.ndarray, cells: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Factors X(t) (C, T, n, h) in the original coordinates (X Xᵀ = Q Qᵀ(t)) and, per
        time, a bound on the condition number κ of the evaluation (C, T; docs/theory.md (3.14),
        (3.15)); inf for flows where the form does not apply. ``t`` is (T,) or (C, T); ``cells``
        (C,) picks flows of the stack (default: all of them)."""
        cells = np.arange(self.fast.shape[0]) if cells is None else np.asarray(cells)
        hidden, size = self.fast.shape[1], self.basis.shape[-1]
        t = np.broadcast_to(np.asarray(t, dtype=np.float64), (cells.size, np.shape(t)[-1]))
        result = np.zeros((*t.shape, size, hidden))
        condition = np.full(t.shape, np.inf)
        usable = self.usable[cells]
        if np.any(usable):
            result[usable], condition[usable] = self._evaluate(cells[usable], t[usable])
        return result, condition

    def _evaluate(self, where: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        hidden = self.fast.shape[1]
        diagonal, decay, inverse_part, slow_part, graph = self._parts(where, t)
        column_sq = (
            diagonal
            + np.einsum("...ij,...ij->...j", inverse_part, inverse_part)
            + np.einsum("...ij,...ij->...j", slow_part, slow_part)
        )  # ρ_j = ‖V e_j‖²
        # ‖V S x‖² ≥ Σ_j x_j² γ_j with S = diag(ρ^{-1/2}) (dropping the slow part, bounding
        # the R part by the floor) and ‖V S‖² ≤ h: so κ(V S)² ≤ h / min γ.
        gamma = (diagonal + decay**2 * self.floor[where][:, None]) / column_sq
        condition = np.sqrt(hidden / np.min(gamma, axis=-1))
        scale = 1.0 / np.sqrt(column_sq)
        stacked = np.concatenate(
            [np.sqrt(diagonal)[..., None] * np.eye(hidden), inverse_part, slow_part], axis=-2
        )
        upper = np.linalg.qr(stacked * scale[..., None, :], mode="r")
        # V = (V S) S⁻¹ = Θ (T̂ S⁻¹), so M⁻¹ = (S T̂⁻¹)(S T̂⁻¹)ᵀ
        fast_rows = scale[..., :, None] * upper_inverse(upper)
        rows = np.concatenate([fast_rows, graph @ fast_rows], axis=-2)
        return self.basis[where][:, None] @ rows, condition

    def _parts(self, where: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, ...]:
        """D (C, T, h), e^{−pt} (C, T, h), the blocks ``R e^{−Pt}`` (C, T, h, h) and
        ``H_N^{1/2} K₀ e^{−Pt}`` (C, T, n − h, h) of V, and K(t) (C, T, n − h, h)."""
        fast = self.fast[where][:, None, :]  # p (C, 1, h)
        slow = self.slow[where][:, None, :]  # m (C, 1, n − h)
        time = t[..., None]  # (C, T, 1)
        decay = np.exp(-fast * time)  # e^{−pt} (C, T, h)
        diagonal = -np.expm1(-2.0 * fast * time) / (2.0 * fast)  # D
        inverse_part = self.inverse[where][:, None] * decay[..., None, :]  # R e^{−Pt}
        # e^{(m − p)t} = e^{m⁻t}·G with G = e^{(m⁺ − p)t} ≤ 1: the difference m − p is formed
        # before multiplying by t where m > 0 (as one exponent, it keeps ε relative accuracy)
        if np.any(slow > 0):
            growing = np.maximum(slow, 0.0)[..., :, None]
            shared = np.exp((growing - fast[..., None, :]) * time[..., None])  # G (C, T, n−h, h)
        else:  # G = e^{−pt} on every slow row
            shared = decay[..., None, :]
        graph = self.graph[where][:, None] * shared
        # H_N^{1/2} K₀ e^{−Pt}: √h(m, t) e^{−pt} = G·√(h e^{−2m⁺t}), every factor ≤ O(1)
        slow_part = graph * scaled_growth_root(slow, time)[..., None]
        graph = graph * np.exp(np.minimum(slow, 0.0) * time)[..., None]  # K(t)
        return diagonal, decay, inverse_part, slow_part, graph


def upper_inverse(upper: np.ndarray) -> np.ndarray:
    """Inverse of a stack of upper triangular matrices by back substitution, one row of all of
    them at a time (several times faster than a general inverse on stacks of small matrices)."""
    size = upper.shape[-1]
    inverse = np.zeros_like(upper)
    diagonal = np.diagonal(upper, axis1=-2, axis2=-1)
    for k in range(size - 1, -1, -1):
        row = -np.einsum("...j,...jl->...l", upper[..., k, k + 1 :], inverse[..., k + 1 :, :])
        row[..., k] += 1.0
        inverse[..., k, :] = row / diagonal[..., k, None]
    return inverse
