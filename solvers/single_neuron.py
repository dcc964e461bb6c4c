"""A single hidden neuron ``f(x) = a wᵀx`` with whitened data (Kunin et al., *Get rich quick*, §3).

Loss ``L = ½‖a w − β*‖²``; gradient flow ``a' = η_a (wᵀβ* − a‖w‖²)``, ``w' = η_w (aβ* − a²w)``.
The quantity ``δ = η_w a² − η_a ‖w‖²`` is conserved (Kunin et al. eq. 5): δ > 0 "upstream"
(two-sheeted hyperboloid, lazy as δ → ∞), δ = 0 balanced (cone, rich), δ < 0 "downstream"
(one-sheeted hyperboloid, delayed rich; ``a`` may change sign).

Exact solution for every δ (docs/theory.md (1.8)–(1.10)): with ``q = [√η_a w; √η_w a]`` and
``F = [[−δ/2·I, kβ*], [kβ*ᵀ, δ/2]]``, ``k = √(η_aη_w)``,

    q(t) = e^{Ft} q₀ / √(1 + q₀ᵀ (∫₀ᵗ e^{2Fs} ds) q₀).

F acts as the 2×2 block ``[[−δ/2, k‖β*‖], [k‖β*‖, δ/2]]`` (eigenvalues ±ω,
``ω = ½√(δ² + 4η_aη_w‖β*‖²)``) on span{β̂*, e_a} and as −δ/2 on the rest, so one evaluation
costs O(d) per time point. This one formula replaces the paper's per-case solutions
(eqs. 23–32) and crosses a = 0 without special handling.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ._descent import run_descent
from ._riccati import rank_one_coefficients
from ._validation import (
    as_array,
    as_finite_scalar,
    as_positive,
    as_times,
    guard_overflow,
    require_finite,
)
from .metrics import kernel_distance_from_changes

__all__ = [
    "SingleNeuronTrajectory",
    "basin",
    "basin_normal",
    "conserved_delta",
    "exact",
    "gradient_descent",
    "init_from_beta",
    "init_from_norm_delta",
    "init_from_tau_alpha",
    "minima_manifold",
    "saddle_margin",
]


@dataclass(frozen=True)
class SingleNeuronTrajectory:
    """Trajectory of the single-neuron model (first axis of every array = time)."""

    t: np.ndarray  #: (T,) times
    a: np.ndarray  #: (T,) second-layer weight
    w: np.ndarray  #: (T, d) first-layer weights
    beta_star: np.ndarray  #: (d,) target ``Xᵀy``
    eta_a: float
    eta_w: float
    delta: float  #: conserved ``η_w a² − η_a‖w‖²`` at initialisation
    a0: float  #: initial a (the reference of the kernel distance, whatever t[0] is)
    w0: np.ndarray  #: (d,) initial w
    method: str  #: "exact" or "gradient descent"
    diverged_at: int | None = None  #: gradient-descent step that diverged, if any
    #: distance of the start from the stable manifold of the saddle at the origin (see
    #: :func:`saddle_margin`); below :data:`solvers.metrics.SADDLE_MARGIN` it counts as on it.
    saddle_margin: float = 1.0

    @cached_property
    def beta(self) -> np.ndarray:
        """(T, d) network function ``β = a w``."""
        return self.a[:, None] * self.w

    @cached_property
    def mu(self) -> np.ndarray:
        """(T,) signed scale ``μ = a‖w‖`` (Kunin et al. §3)."""
        return self.a * np.linalg.norm(self.w, axis=1)

    @cached_property
    def phi(self) -> np.ndarray:
        """(T,) alignment ``φ = wᵀβ*/(‖w‖‖β*‖)`` with the target (0 where undefined)."""
        norms = np.linalg.norm(self.w, axis=1) * np.linalg.norm(self.beta_star)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(norms > 0, np.clip(self.w @ self.beta_star / norms, -1, 1), 0.0)

    @cached_property
    def loss(self) -> np.ndarray:
        """(T,) ``½‖β − β*‖²``."""
        residual = self.beta - self.beta_star
        return 0.5 * np.sum(residual * residual, axis=1)

    @cached_property
    def kernel_distance(self) -> np.ndarray:
        """(T,) ``S(0, t)`` of the NTK ``M = η_w a² I + η_a w wᵀ`` (Kunin et al. §3;
        docs/theory.md (1.5), (1.13))."""
        d = self.w.shape[1]
        ew, ea = self.eta_w, self.eta_a
        a0, w0 = self.a0, self.w0
        # D = M_t − M₀ = η_w Δ(a²) I + η_a (wwᵀ − w₀w₀ᵀ), every piece from the changes.
        da = self.a - a0
        dw = self.w - w0
        da2 = da * (self.a + a0)  # a² − a₀²
        dw2 = np.sum(dw * (self.w + w0), axis=1)  # ‖w‖² − ‖w₀‖²
        w0_sq = float(w0 @ w0)
        w0_dw = dw @ w0
        outer_change = w0_dw * (w0_dw + 2 * w0_sq)  # ⟨w₀w₀ᵀ, wwᵀ − w₀w₀ᵀ⟩ = (w₀·w)² − ‖w₀‖⁴
        if w0_sq > 0:  # ‖w‖²‖w₀‖² − (w·w₀)² = ‖w₀‖²‖Δw⊥‖², Δw⊥ ⟂ w₀
            perpendicular = dw - np.outer(w0_dw / w0_sq, w0)
            wedge = w0_sq * np.sum(perpendicular**2, axis=1)
        else:
            wedge = np.zeros_like(da)
        outer_sq = dw2**2 + 2 * wedge  # ‖wwᵀ − w₀w₀ᵀ‖²
        a0_sq = a0**2
        initial_sq = ew**2 * a0_sq**2 * d + 2 * ew * ea * a0_sq * w0_sq + ea**2 * w0_sq**2
        initial_change = (
            ew**2 * a0_sq * da2 * d + ew * ea * (a0_sq * dw2 + da2 * w0_sq) + ea**2 * outer_change
        )
        change_sq = ew**2 * da2**2 * d + 2 * ew * ea * da2 * dw2 + ea**2 * outer_sq
        return kernel_distance_from_changes(initial_sq, initial_change, change_sq)

    @cached_property
    def ntk(self) -> np.ndarray:
        """(T, d, d) NTK on the whitened input basis, ``M = η_w a² I + η_a w wᵀ``."""
        d = self.w.shape[1]
        return self.eta_w * self.a[:, None, None] ** 2 * np.eye(d) + self.eta_a * np.einsum(
            "ti,tj->tij", self.w, self.w
        )

    @property
    def conserved(self) -> np.ndarray:
        """(T,) ``η_w a² − η_a‖w‖²`` along the trajectory (constant under gradient flow)."""
        return conserved_delta(self.a, self.w, eta_a=self.eta_a, eta_w=self.eta_w)


def conserved_delta(
    a: np.ndarray | float, w: np.ndarray, *, eta_a: float = 1.0, eta_w: float = 1.0
) -> np.ndarray | float:
    """``δ = η_w a² − η_a‖w‖²`` (Kunin et al. eq. 5; docs/theory.md (1.3)); broadcasts over
    leading axes of ``w``."""
    return eta_w * np.asarray(a) ** 2 - eta_a * np.sum(np.asarray(w) ** 2, axis=-1)


def _check_common(a0, w0, beta_star, eta_a, eta_w):
    a0 = as_finite_scalar("a0", a0)
    w0 = as_array("w0", w0, ndim=1)
    beta_star = as_array("beta_star", beta_star, ndim=1, shape=(w0.shape[0],))
    eta_a = as_positive("eta_a", eta_a)
    eta_w = as_positive("eta_w", eta_w)
    return a0, w0, beta_star, eta_a, eta_w


@dataclass(frozen=True)
class _Geometry:
    """Eigen-structure of F for one (β*, δ, η) — the part of the solution shared by all t."""

    target_direction: np.ndarray  #: unit vector û spanning the active plane with e_a
    omega: float  #: ω = ½√(δ² + 4η_aη_w‖β*‖²)
    plus: np.ndarray  #: (2,) unit eigenvector for +ω in (û, e_a) coordinates
    minus: np.ndarray  #: (2,) unit eigenvector for −ω
    growth_of_a: float  #: ω + δ/2 ≥ 0, computed without cancellation


def _geometry(
    beta_star: np.ndarray, delta: float, eta_a: float, eta_w: float, fallback
) -> _Geometry:
    norm = float(np.linalg.norm(beta_star))
    if norm > 0:
        direction = beta_star / norm
    else:
        fallback_norm = float(np.linalg.norm(fallback))
        direction = np.zeros_like(beta_star)
        if fallback_norm > 0:
            direction = fallback / fallback_norm
        else:
            direction[0] = 1.0
    coupling = np.sqrt(eta_a * eta_w) * norm  # k‖β*‖
    omega = float(np.hypot(0.5 * delta, coupling))
    if omega == 0.0:
        plus, minus, growth_of_a = np.array([1.0, 0.0]), np.array([0.0, 1.0]), 0.0
    elif delta >= 0:
        growth_of_a = omega + 0.5 * delta
        plus = np.array([coupling, growth_of_a])
        minus = np.array([-growth_of_a, coupling])
    else:
        shrink = omega - 0.5 * delta  # = ω + |δ|/2, no cancellation
        growth_of_a = coupling**2 / shrink
        plus = np.array([shrink, coupling])
        minus = np.array([-coupling, shrink])
    scale = np.linalg.norm(plus) if omega > 0 else 1.0
    return _Geometry(direction, omega, plus / scale, minus / scale, growth_of_a)


@guard_overflow
def exact(
    a0: float,
    w0: np.ndarray,
    beta_star: np.ndarray,
    t: np.ndarray,
    *,
    eta_a: float = 1.0,
    eta_w: float = 1.0,
) -> SingleNeuronTrajectory:
    """Exact gradient-flow trajectory of the single hidden neuron (Kunin et al. §3, App. A.2).

    Parameters
    ----------
    a0, w0 : initial second-layer weight (scalar) and first-layer weights (d,).
    beta_star : (d,) target ``Xᵀy`` (whitened data). Zero is allowed (the flow then decays).
    t : times ≥ 0, any order.
    eta_a, eta_w : layer learning rates (> 0).

    Uses the closed form docs/theory.md (1.9) in the eigenbasis of F (1.10), evaluated in log
    space (1.11) so that nothing overflows for any horizon or δ; accurate to rounding.
    """
    a0, w0, beta_star, eta_a, eta_w = _check_common(a0, w0, beta_star, eta_a, eta_w)
    times = as_times(t)
    delta = float(conserved_delta(a0, w0, eta_a=eta_a, eta_w=eta_w))
    geometry = _geometry(beta_star, delta, eta_a, eta_w, fallback=w0)
    along = float(geometry.target_direction @ w0)
    rest = np.sqrt(eta_a) * (w0 - along * geometry.target_direction)
    rest_norm = float(np.linalg.norm(rest))
    rest_direction = rest / rest_norm if rest_norm > 0 else rest
    plane = np.array([np.sqrt(eta_a) * along, np.sqrt(eta_w) * a0])
    coefficients = np.array([geometry.plus @ plane, geometry.minus @ plane, rest_norm])
    rates = np.array([geometry.omega, -geometry.omega, -0.5 * delta])
    scaled = rank_one_coefficients(coefficients, rates, times)
    margin = _margin(geometry, plane, float(np.linalg.norm(plane)) ** 2 + rest_norm**2)
    plane_t = scaled[:, :2] @ np.stack([geometry.plus, geometry.minus])
    # w(t) = (x(t) û + r(t) r̂)/√η_a as one (T, 2) × (2, d) product.
    directions = np.stack([geometry.target_direction, rest_direction]) / np.sqrt(eta_a)
    w = np.column_stack([plane_t[:, 0], scaled[:, 2]]) @ directions
    a = plane_t[:, 1] / np.sqrt(eta_w)
    require_finite("single_neuron.exact", a, w, np.asarray(delta))
    return SingleNeuronTrajectory(
        times, a, w, beta_star, eta_a, eta_w, delta, a0, w0, "exact", saddle_margin=margin
    )


@guard_overflow
def gradient_descent(
    a0: float,
    w0: np.ndarray,
    beta_star: np.ndarray,
    lr: float,
    steps: int,
    *,
    eta_a: float = 1.0,
    eta_w: float = 1.0,
    every: int = 1,
) -> SingleNeuronTrajectory:
    """Discrete gradient descent ``θ ← θ − lr·η_θ ∂L/∂θ`` on ``L = ½‖a w − β*‖²``
    (the discrete counterpart of Kunin et al.'s flow, their eq. 4; docs/theory.md (0.2), (1.2)).

    Step k is reported at ``t = k·lr`` (every ``every``-th step and the last). A run that
    diverges stops; ``diverged_at`` then holds the offending step.
    """
    a0, w0, beta_star, eta_a, eta_w = _check_common(a0, w0, beta_star, eta_a, eta_w)

    def step(state):
        a, w = state
        residual = a * w - beta_star  # ∂L/∂β
        return a - lr * eta_a * (w @ residual), w - lr * eta_w * a * residual

    run = run_descent(step, (np.asarray(a0), w0), lr, steps, every)
    a, w = run.states
    delta = float(conserved_delta(a0, w0, eta_a=eta_a, eta_w=eta_w))
    return SingleNeuronTrajectory(
        run.t,
        a,
        w,
        beta_star,
        eta_a,
        eta_w,
        delta,
        a0,
        w0,
        "gradient descent",
        run.diverged_at,
        saddle_margin(a0, w0, beta_star, eta_a=eta_a, eta_w=eta_w),
    )


def basin_normal(
    beta_star: np.ndarray, delta: float, *, eta_a: float = 1.0, eta_w: float = 1.0
) -> np.ndarray:
    """Normal n (d+1,) of the hyperplane ``nᵀ[w; a] = 0`` separating the two basins.

    Initialisations with ``nᵀ[w₀; a₀] > 0`` converge to the ``a > 0`` branch of the minima
    manifold, ``< 0`` to the ``a < 0`` branch, ``= 0`` to the saddle at the origin
    (Kunin et al. App. A.2.5, eq. 33; here for any learning rates: ``n = [η_a β*; ω + δ/2]``,
    docs/theory.md (1.12)).
    For δ > 0 the hyperplane misses the hyperboloid and the basin is simply ``sign(a₀)``.
    """
    beta_star = as_array("beta_star", beta_star, ndim=1)
    delta = as_finite_scalar("delta", delta)
    eta_a = as_positive("eta_a", eta_a)
    eta_w = as_positive("eta_w", eta_w)
    geometry = _geometry(beta_star, delta, eta_a, eta_w, fallback=beta_star)
    return np.concatenate([eta_a * beta_star, [geometry.growth_of_a]])


def basin(
    a0: float, w0: np.ndarray, beta_star: np.ndarray, *, eta_a: float = 1.0, eta_w: float = 1.0
) -> int:
    """Sign of ``a(∞)``: ±1 for the branch of ``a w = β*`` the flow reaches, 0 for a saddle
    (docs/theory.md (1.12))."""
    a0, w0, beta_star, eta_a, eta_w = _check_common(a0, w0, beta_star, eta_a, eta_w)
    delta = float(conserved_delta(a0, w0, eta_a=eta_a, eta_w=eta_w))
    normal = basin_normal(beta_star, delta, eta_a=eta_a, eta_w=eta_w)
    return int(np.sign(normal @ np.concatenate([w0, [a0]])))


def saddle_margin(
    a0: float, w0: np.ndarray, beta_star: np.ndarray, *, eta_a: float = 1.0, eta_w: float = 1.0
) -> float:
    """Relative size of the start's component along the growing eigenvector (+ω) of F
    (docs/theory.md (1.12)).

    Zero means the start lies on the stable manifold of the saddle at the origin: in exact
    arithmetic the flow then ends at the saddle (e.g. balanced, d = 1, β₀ = −cβ*; or on the
    basin boundary of :func:`basin_normal`). Near zero, any floating-point method — this one
    included — amplifies rounding like e^{2ωt} relative to the decaying state.
    """
    a0, w0, beta_star, eta_a, eta_w = _check_common(a0, w0, beta_star, eta_a, eta_w)
    delta = float(conserved_delta(a0, w0, eta_a=eta_a, eta_w=eta_w))
    geometry = _geometry(beta_star, delta, eta_a, eta_w, fallback=w0)
    plane = np.array([np.sqrt(eta_a) * float(geometry.target_direction @ w0), np.sqrt(eta_w) * a0])
    return _margin(geometry, plane, eta_a * float(w0 @ w0) + eta_w * a0**2)


def _margin(geometry: _Geometry, plane: np.ndarray, state_norm_sq: float) -> float:
    if state_norm_sq == 0 or geometry.omega == 0:
        return 0.0
    return abs(float(geometry.plus @ plane)) / np.sqrt(state_norm_sq)


def minima_manifold(beta_star: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Points ``w = β*/a`` of the global-minimum hyperbola ``a w = β*`` for each non-zero a
    (the minima manifold of Kunin et al. §3, Fig. 2; docs/theory.md (1.4))."""
    beta_star = as_array("beta_star", beta_star, ndim=1)
    a = np.atleast_1d(as_array("a", a, ndim=(0, 1)))
    if np.any(a == 0):
        raise ValueError(
            "a must be non-zero on the minima manifold a·w = β* (it has no a = 0 point)."
        )
    return beta_star[None, :] / a[:, None]


def init_from_beta(
    beta0: np.ndarray,
    delta: float,
    *,
    eta_a: float = 1.0,
    eta_w: float = 1.0,
    sign: int = 1,
    direction: np.ndarray | None = None,
) -> tuple[float, np.ndarray]:
    """``(a₀, w₀)`` with function ``a₀w₀ = β₀`` and conserved quantity δ (Kunin et al. eq. 37;
    docs/theory.md (1.6)).

    ``a₀² = (√(δ² + 4η_aη_w‖β₀‖²) + δ)/(2η_w)``, ``a₀`` has the given ``sign``, ``w₀ = β₀/a₀``.
    When β₀ = 0 and δ < 0 then a₀ = 0 and ``w₀`` points along ``direction`` (required then).
    """
    beta0 = as_array("beta0", beta0, ndim=1)
    delta = as_finite_scalar("delta", delta)
    eta_a = as_positive("eta_a", eta_a)
    eta_w = as_positive("eta_w", eta_w)
    if sign not in (1, -1):
        raise ValueError(f"sign must be +1 or -1; got {sign!r}.")
    norm_sq = float(beta0 @ beta0)
    root = float(np.hypot(delta, 2.0 * np.sqrt(eta_a * eta_w * norm_sq)))
    if delta >= 0:
        a_sq = (root + delta) / (2.0 * eta_w)
    else:  # same value, written without cancellation
        a_sq = 2.0 * eta_a * norm_sq / (root - delta)
    a0 = sign * float(np.sqrt(a_sq))
    if a0 != 0.0:
        return a0, beta0 / a0
    if delta == 0.0:
        return 0.0, np.zeros_like(beta0)
    if direction is None:
        raise ValueError(
            "beta0 = 0 with delta < 0 puts all the weight in w; pass `direction` to say where "
            "it points."
        )
    unit = _unit("direction", direction, beta0.shape[0])
    return 0.0, np.sqrt(-delta / eta_a) * unit


def init_from_norm_delta(
    beta0_norm: float,
    delta: float,
    direction: np.ndarray,
    *,
    eta_a: float = 1.0,
    eta_w: float = 1.0,
    sign: int = 1,
) -> tuple[float, np.ndarray]:
    """``(a₀, w₀)`` from the function-space scale ‖β₀‖, δ and the direction of β₀
    (Kunin et al. eq. 37 applied to ``β₀ = ‖β₀‖·direction``; docs/theory.md (1.6))."""
    beta0_norm = as_finite_scalar("beta0_norm", beta0_norm)
    if beta0_norm < 0:
        raise ValueError(f"beta0_norm must be >= 0; got {beta0_norm:g}.")
    unit = _unit("direction", direction, -1)
    return init_from_beta(
        beta0_norm * unit, delta, eta_a=eta_a, eta_w=eta_w, sign=sign, direction=unit
    )


def init_from_tau_alpha(
    tau: float, alpha: float, direction: np.ndarray, *, sign: int = 1
) -> tuple[float, np.ndarray]:
    """Kunin et al. Fig. 1 parameterisation: ``w₀ = (τ/α)·ŵ``, ``a₀ = ±ατ`` (docs/theory.md (1.7)).

    For η_a = η_w = 1 this gives ``‖β₀‖ = τ²`` and ``δ = τ²(α² − α⁻²)``.
    """
    tau = as_finite_scalar("tau", tau)
    alpha = as_positive("alpha", alpha)
    if tau < 0:
        raise ValueError(f"tau must be >= 0; got {tau:g}.")
    if sign not in (1, -1):
        raise ValueError(f"sign must be +1 or -1; got {sign!r}.")
    unit = _unit("direction", direction, -1)
    return sign * alpha * tau, (tau / alpha) * unit


def _unit(name: str, vector, length: int) -> np.ndarray:
    vector = as_array(name, vector, ndim=1, shape=(length,) if length >= 0 else None)
    norm = float(np.linalg.norm(vector))
    if norm == 0:
        raise ValueError(f"{name} must be a non-zero vector.")
    return vector / norm


# -- phase portrait over (τ, δ) (Kunin et al. Fig. 1b) -----------------------------------------

__all__ += [
    "MAX_PORTRAIT_CELLS",
    "MAX_PORTRAIT_SCALE",
    "MAX_PORTRAIT_SIDE",
    "MAX_PORTRAIT_TIMES",
    "Portrait",
    "portrait",
]

#: most scales (rows) or δ values (columns) of one portrait
MAX_PORTRAIT_SIDE = 512
#: most evaluation times of one portrait
MAX_PORTRAIT_TIMES = 256
#: largest scale τ of a portrait (‖β₀‖ = τ² ≤ 1e60)
MAX_PORTRAIT_SCALE = 1e30
#: most (time, τ, δ) cells of one portrait (512 × 512 at one time; ~10 MB per temporary)
MAX_PORTRAIT_CELLS = 2**18


@dataclass(frozen=True)
class Portrait:
    """Lazy/rich phase portrait of the single neuron over scale τ and geometry δ.

    Cell ``[i, j]`` starts from ``β₀ = τᵢ²·direction``, ``δ = δⱼ`` and ``a₀ ≥ 0`` (Kunin et al.
    eq. 37 / :func:`init_from_beta` with ``sign = +1``). Every array field has shape
    ``(len(scales), len(deltas))`` when ``t`` was a scalar, and ``(len(t), len(scales),
    len(deltas))`` when ``t`` was a 1-d array.
    """

    scales: np.ndarray  #: (S,) τ ≥ 0
    deltas: np.ndarray  #: (D,) conserved δ
    t: float | np.ndarray  #: the time (scalar) or times (T,) as given
    beta_star: np.ndarray  #: (d,) target
    direction: np.ndarray  #: (d,) unit direction of β₀
    eta_a: float
    eta_w: float
    kernel_distance: np.ndarray  #: S(0, t) of the NTK ``M = η_w a² I + η_a w wᵀ``
    loss: np.ndarray  #: ``½‖β(t) − β*‖²``
    initial_loss: np.ndarray  #: (S, D) ``½‖β₀ − β*‖²``
    a: np.ndarray  #: second-layer weight a(t)
    beta_parallel: np.ndarray  #: component of β(t) along β̂* (along ``direction`` if β* = 0)
    beta_perpendicular: np.ndarray  #: component of β(t) orthogonal to β̂*, signed along the
    #: part of ``direction`` orthogonal to β̂* (β(t) stays in their span)
    phi: np.ndarray  #: alignment ``φ = wᵀβ*/(‖w‖‖β*‖)`` at t (0 where undefined)
    a0: np.ndarray  #: (S, D) initial a (≥ 0)
    #: (S, D) as :func:`saddle_margin`: below :data:`solvers.metrics.SADDLE_MARGIN` the start
    #: counts as on the saddle's stable manifold
    saddle_margin: np.ndarray

    @property
    def shape(self) -> tuple[int, ...]:
        return self.kernel_distance.shape


def _portrait_time(t) -> tuple[float | np.ndarray, np.ndarray, bool]:
    """``(t as given, times (T,), scalar?)`` with the checks of :func:`as_times`."""
    array = as_array("t", t, ndim=(0, 1))
    times = as_times(array)
    if times.size > MAX_PORTRAIT_TIMES:
        raise ValueError(
            f"t may hold at most {MAX_PORTRAIT_TIMES} times for a portrait; got {times.size}. "
            "Ask for fewer times (each one is a whole τ × δ map)."
        )
    scalar = array.ndim == 0
    return (float(times[0]) if scalar else times), times, scalar


def _grid_axis(name: str, value, *, non_negative: bool) -> np.ndarray:
    array = np.atleast_1d(as_array(name, value, ndim=(0, 1)))
    if array.size > MAX_PORTRAIT_SIDE:
        raise ValueError(
            f"{name} may hold at most {MAX_PORTRAIT_SIDE} values (a portrait has at most "
            f"{MAX_PORTRAIT_SIDE}×{MAX_PORTRAIT_SIDE} cells); got {array.size}."
        )
    if non_negative and np.any(array < 0):
        raise ValueError(f"{name} must be >= 0 (τ is a scale); the smallest is {array.min():g}.")
    return array


def _rank_one_grid(coefficients: np.ndarray, rates: np.ndarray, t: np.ndarray) -> np.ndarray:
    """:func:`solvers._riccati.rank_one_coefficients` for a whole grid at once.

    ``coefficients`` (..., J) and ``rates`` (..., J) broadcast against each other, ``t`` has
    shape (T, 1, ..., 1, 1); returns (T, ..., J). Always the log-space form: the fastest active
    growth ``e^{2f*t}`` is factored out of the square root analytically, so every exponent is
    bounded and none subtracts two multiples of t.
    """
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        active = coefficients != 0.0
        log_abs = np.where(active, np.log(np.abs(coefficients)), -np.inf)
        fastest = np.maximum(np.max(np.where(active, rates, -np.inf), axis=-1), 0.0)[..., None]
        relative = rates - fastest  # exactly 0 for the dominant rate
        magnitude = np.where(rates == 0.0, 1.0, np.abs(2.0 * rates))
        exponent = 2.0 * rates * t
        log_magnitude = np.log(magnitude)
        growing = 2.0 * relative * t + np.log(-np.expm1(-exponent)) - log_magnitude
        decaying = np.log(-np.expm1(exponent)) - log_magnitude - 2.0 * fastest * t
        flat = np.log(t * np.ones_like(rates)) - 2.0 * fastest * t
        scaled = np.where(rates > 0, growing, np.where(rates < 0, decaying, flat))
        scaled_terms = np.where(active, 2.0 * log_abs + scaled, -np.inf)
        first = -2.0 * fastest * t  # the 1 under the root, scaled by e^{−2f*t}
        peak = np.maximum(np.max(scaled_terms, axis=-1, keepdims=True), first)
        peak = np.where(np.isfinite(peak), peak, 0.0)
        total = np.exp(np.maximum(first - peak, -700.0)) + np.sum(
            np.exp(np.maximum(scaled_terms - peak, -700.0)), axis=-1, keepdims=True
        )
        log_denominator = peak + np.log(total)
        exponent = np.where(active, log_abs + relative * t - 0.5 * log_denominator, -np.inf)
        negligible = exponent < np.max(log_abs, axis=-1, keepdims=True) - 700.0
        return np.where(active & ~negligible, np.sign(coefficients) * np.exp(exponent), 0.0)


def _portrait_kernel_distance(
    start: tuple[np.ndarray, np.ndarray, np.ndarray],
    now: tuple[np.ndarray, np.ndarray, np.ndarray],
    d: int,
) -> np.ndarray:
    """S(0, t) of ``M = pI + q ŵŵᵀ`` without cancellation, from the states ``(√η_w a, √η_a w∥,
    √η_a w⊥)`` at 0 and t (so p = (√η_w a)², q = ‖√η_a w‖², and ``M = η_w a² I + η_a wwᵀ``).

    With ``s = sin²∠(w₀, w)`` the Gram determinant is (Lagrange's identity in the metric
    ``[[d, 1], [1, 1]]`` of (p, q), plus the rotation of w)

        ‖M₀‖²‖M_t‖² − ⟨M₀, M_t⟩²
            = (d − 1)(p₀q − q₀p)² + q₀q·s·(2d p₀p + 2p₀q + 2q₀p + q₀q(1 + cos²)),

    a sum of non-negative terms; ``p₀q − q₀p = p₀Δq − q₀Δp`` and ``q₀q·s = (w₀ × Δw)²`` (scaled)
    come from the changes. So S keeps its relative accuracy both when the kernel barely moves
    (lazy) and when it collapses, ‖M_t‖ ≪ ‖M₀‖ (a large β₀ shrinking onto a small β*), where
    ``1 − cos`` — and the change-based form of
    :func:`solvers.metrics.kernel_distance_from_changes` — lose ~ε‖M₀‖²/‖M_t‖². Each cell is
    scaled by its larger state first, so no square overflows.
    """
    size = np.maximum(
        np.hypot(start[0], np.hypot(start[1], start[2])), np.hypot(now[0], np.hypot(now[1], now[2]))
    )
    size = np.where(size > 0, size, 1.0)
    a0, x0, r0 = (part / size for part in start)
    a, x, r = (part / size for part in now)
    p0, q0 = a0**2, x0**2 + r0**2
    p, q = a**2, x**2 + r**2
    change_p = (a - a0) * (a + a0)
    change_q = (x - x0) * (x + x0) + (r - r0) * (r + r0)
    swap = p0 * change_q - q0 * change_p  # p₀q − q₀p
    cross = x0 * (r - r0) - r0 * (x - x0)  # √(q₀q·s)
    dot = x0 * x + r0 * r  # √(q₀q)·cos
    gram = (d - 1) * swap**2 + cross**2 * (2 * d * p0 * p + 2 * (p0 * q + q0 * p) + q0 * q + dot**2)
    initial = np.sqrt(d * p0**2 + 2 * p0 * q0 + q0**2)
    final = np.sqrt(d * p**2 + 2 * p * q + q**2)
    inner = d * p0 * p + p0 * q + q0 * p + dot**2
    product = initial * final
    with np.errstate(divide="ignore", invalid="ignore"):
        distance = np.clip(gram / (product * (product + inner)), 0.0, 2.0)
    # a zero kernel is at distance 0 from a zero kernel and 1 from any other (as in metrics)
    return np.where(product > 0, distance, np.where((initial > 0) | (final > 0), 1.0, 0.0))


@guard_overflow
def portrait(
    scales: np.ndarray,
    deltas: np.ndarray,
    beta_star: np.ndarray,
    direction: np.ndarray,
    t: float | np.ndarray,
    *,
    eta_a: float = 1.0,
    eta_w: float = 1.0,
) -> Portrait:
    """Kernel distance and loss at time t over a τ × δ grid — Kunin et al., *Get rich quick*,
    Fig. 1b (their sweep of scale τ and conserved δ, here for the exact single neuron of §3).

    Parameters
    ----------
    scales : (S,) τ ≥ 0; the initial function is ``β₀ = τ²·direction`` (so ‖β₀‖ = τ², as in
        their ``w₀ ∈ S^{d−1}(τ/α)``, ``a₀ = ατ`` parameterisation at η_a = η_w = 1).
    deltas : (D,) conserved ``δ = η_w a² − η_a‖w‖²`` (upstream δ > 0, downstream δ < 0).
    beta_star : (d,) target ``Xᵀy`` (whitened data).
    direction : (d,) non-zero direction of β₀ (normalised here).
    t : one time ≥ 0 (fields of shape (S, D)) or a 1-d array of times (fields (T, S, D)).
    eta_a, eta_w : layer learning rates (> 0).

    Each cell starts from ``a₀ = √((√(δ² + 4η_aη_w τ⁴) + δ)/(2η_w)) ≥ 0``, ``w₀ = β₀/a₀``
    (``w₀ = √(−δ/η_a)·direction`` when τ = 0 and δ < 0) — docs/theory.md (1.6),
    :func:`init_from_beta` with ``sign = +1`` — and evaluates the closed form of :func:`exact`
    for all cells at once (docs/theory.md (1.15)): F's 2×2 block (eigenvalues ±ω) on
    span{β̂*, e_a} and the −δ/2 direction of the part of w₀ orthogonal to β*, in log space with
    the fastest growth factored out, so nothing overflows or cancels at any horizon. S comes
    from the parameters' changes through a cancellation-free Gram determinant
    (:func:`_portrait_kernel_distance`, docs/theory.md (1.14)), accurate when the kernel barely
    moves and when it collapses. Cells agree with :func:`exact` to ~1e-12 (checked to 1e-8 on
    random cells up to t = 1e6, |δ| = 1e3; S also against 60-digit arithmetic).

    What the map shows for this model (whitened NTK, Kunin et al. §3, Fig. 3): at a fixed δ < 0
    small τ is (delayed) rich, S → ~1, and large τ nearly lazy, S falling to the O(1/d) of a
    kernel that mostly rescales; at small τ a large δ > 0 keeps the kernel fixed (M ≈ δI,
    S ≈ 0) and learns fastest ("rapid"). Caps: τ ≤ 1e30, at most 512 values of τ and of δ,
    256 times and 2¹⁸ (time, τ, δ) cells in all.
    """
    scales = _grid_axis("scales", scales, non_negative=True)
    if np.max(scales) > MAX_PORTRAIT_SCALE:
        raise ValueError(
            f"scales must be at most {MAX_PORTRAIT_SCALE:g} (the kernel grows like τ⁴ and would "
            f"overflow double precision); got {np.max(scales):g}."
        )
    deltas = _grid_axis("deltas", deltas, non_negative=False)
    beta_star = as_array("beta_star", beta_star, ndim=1)
    direction = _unit("direction", direction, beta_star.shape[0])
    eta_a = as_positive("eta_a", eta_a)
    eta_w = as_positive("eta_w", eta_w)
    t_given, times, scalar = _portrait_time(t)
    cells = times.size * scales.size * deltas.size
    if cells > MAX_PORTRAIT_CELLS:
        raise ValueError(
            f"a portrait may have at most {MAX_PORTRAIT_CELLS:,} (time, τ, δ) cells; got "
            f"{times.size} × {scales.size} × {deltas.size} = {cells:,}. Use fewer times or a "
            "coarser grid."
        )
    d = beta_star.shape[0]
    target_norm = float(np.linalg.norm(beta_star))
    unit_target = beta_star / target_norm if target_norm > 0 else direction
    cosine = float(np.clip(unit_target @ direction, -1.0, 1.0))
    sine = float(np.linalg.norm(direction - cosine * unit_target))  # ≥ 0, no cancellation

    # Initialisation per cell (Kunin et al. eq. 37): a₀ ≥ 0 and ‖w₀‖ from ‖β₀‖ = τ² and δ.
    norm_sq = (scales**2)[:, None] ** 2  # ‖β₀‖², (S, 1)
    delta = deltas[None, :]  # (1, D)
    root = np.hypot(delta, 2.0 * np.sqrt(eta_a * eta_w * norm_sq))
    with np.errstate(divide="ignore", invalid="ignore"):  # the unused branch may divide by 0
        a_sq = np.where(
            delta >= 0, (root + delta) / (2.0 * eta_w), 2.0 * eta_a * norm_sq / (root - delta)
        )
    a0 = np.sqrt(a_sq)
    # w₀ = β₀/a₀; at τ = 0 with δ < 0 all the weight sits in w (a₀ = 0, ‖w₀‖² = −δ/η_a).
    with np.errstate(over="ignore"):  # in the branch np.where discards
        w0_norm = np.where(
            a0 > 0,
            scales[:, None] ** 2 / np.where(a0 > 0, a0, 1.0),
            np.sqrt(np.maximum(-delta, 0.0) / eta_a),
        )
    w0_par, w0_perp = w0_norm * cosine, w0_norm * sine  # w₀ in the (β̂*, r̂) plane

    # Eigen-structure of F per δ (as _geometry): ±ω on span{β̂*, e_a}, −δ/2 on r̂.
    coupling = np.sqrt(eta_a * eta_w) * target_norm
    omega = np.hypot(0.5 * deltas, coupling)  # (D,)
    upstream = deltas >= 0
    growth = omega + 0.5 * np.abs(deltas)  # ω + |δ|/2, no cancellation
    first = np.where(upstream, coupling, growth)  # plus = (first, second) / ‖·‖
    second = np.where(upstream, growth, coupling)
    size = np.hypot(first, second)
    degenerate = omega == 0.0
    size = np.where(degenerate, 1.0, size)
    plus_x = np.where(degenerate, 1.0, first / size)
    plus_a = np.where(degenerate, 0.0, second / size)
    # minus ⟂ plus: (−plus_a, plus_x)
    plane_x = np.sqrt(eta_a) * w0_par
    plane_a = np.sqrt(eta_w) * a0
    coefficients = np.stack(
        [
            plus_x * plane_x + plus_a * plane_a,
            -plus_a * plane_x + plus_x * plane_a,
            np.sqrt(eta_a) * w0_perp * np.ones_like(plane_a),
        ],
        axis=-1,
    )  # (S, D, 3)
    rates = np.stack([omega, -omega, -0.5 * deltas], axis=-1)[None, :, :]  # (1, D, 3)
    state_sq = plane_x**2 + plane_a**2 + coefficients[..., 2] ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        margin = np.where(
            (state_sq > 0) & ~degenerate[None, :],
            np.abs(coefficients[..., 0]) / np.sqrt(np.where(state_sq > 0, state_sq, 1.0)),
            0.0,
        )

    scaled = _rank_one_grid(coefficients, rates, times[:, None, None, None])  # (T, S, D, 3)
    x_t = scaled[..., 0] * plus_x - scaled[..., 1] * plus_a  # √η_a w∥
    a_scaled = scaled[..., 0] * plus_a + scaled[..., 1] * plus_x  # √η_w a
    a = a_scaled / np.sqrt(eta_w)
    w_par = x_t / np.sqrt(eta_a)
    w_perp = scaled[..., 2] / np.sqrt(eta_a)

    beta_par, beta_perp = a * w_par, a * w_perp
    loss = 0.5 * ((beta_par - target_norm) ** 2 + beta_perp**2)
    initial_loss = 0.5 * ((a0 * w0_par - target_norm) ** 2 + (a0 * w0_perp) ** 2)
    w_norm = np.hypot(w_par, w_perp)
    # A w at rounding level of the state (e.g. w₀ = 0 at t = 0) has no direction: φ = 0 there.
    resolved = w_norm > 16 * np.finfo(np.float64).eps * np.hypot(a, w_norm)
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = np.where(
            resolved & (target_norm > 0),
            np.clip(w_par / np.where(w_norm > 0, w_norm, 1.0), -1.0, 1.0),
            0.0,
        )

    distance = _portrait_kernel_distance(
        (plane_a, plane_x, coefficients[..., 2]), (a_scaled, x_t, scaled[..., 2]), d
    )
    require_finite("single_neuron.portrait", a, w_par, w_perp, loss, distance)

    def shaped(array):
        return array[0] if scalar else array

    return Portrait(
        scales=scales,
        deltas=deltas,
        t=t_given,
        beta_star=beta_star,
        direction=direction,
        eta_a=eta_a,
        eta_w=eta_w,
        kernel_distance=shaped(distance),
        loss=shaped(loss),
        initial_loss=initial_loss,
        a=shaped(a),
        beta_parallel=shaped(beta_par),
        beta_perpendicular=shaped(beta_perp),
        phi=shaped(phi),
        a0=a0,
        saddle_margin=margin,
    )


# -- the dashboard's set-up: angles, a learning-rate ratio, scale τ and δ ----------------------

__all__ += ["Setup", "Sheet", "level_set", "regime", "setup", "unit_vector"]


def unit_vector(degrees: float) -> np.ndarray:
    """The unit vector of the plane at ``degrees`` from the first axis."""
    radians = np.radians(as_finite_scalar("degrees", degrees))
    return np.array([np.cos(radians), np.sin(radians)])


@dataclass(frozen=True)
class Setup:
    """A two-dimensional task and learning rates, as the single-neuron views and maps pose it:
    the target ``β*``, the direction of the initial function ``β₀`` and ``η_aη_w = 1``."""

    beta_star: np.ndarray  #: (2,) target
    direction: np.ndarray  #: (2,) unit direction of β₀
    eta_a: float
    eta_w: float

    def start(self, tau: float, delta: float, sign: int = 1) -> tuple[float, np.ndarray]:
        """``(a₀, w₀)`` with ``‖β₀‖ = τ²`` along :attr:`direction` and conserved δ (Kunin et al.
        eq. 37, :func:`init_from_norm_delta`); ``sign`` is the sign of a₀."""
        tau = as_finite_scalar("tau", tau)
        return init_from_norm_delta(
            tau**2, delta, self.direction, eta_a=self.eta_a, eta_w=self.eta_w, sign=sign
        )

    def exact(self, tau: float, delta: float, t: np.ndarray, sign: int = 1):
        """The exact trajectory from :meth:`start` (see :func:`exact`)."""
        a0, w0 = self.start(tau, delta, sign)
        return exact(a0, w0, self.beta_star, t, eta_a=self.eta_a, eta_w=self.eta_w)


def setup(
    *,
    target_norm: float,
    target_angle: float,
    init_angle: float,
    eta_ratio: float = 1.0,
) -> Setup:
    """The set-up of a target ``β* = ‖β*‖·(cos θ*, sin θ*)``, a start along ``init_angle`` and
    learning rates with ratio ``η_a/η_w`` and product 1 (the ratio shifts the balance as δ does:
    ``δ = η_w a² − η_a‖w‖²``)."""
    ratio = as_positive("eta_ratio", eta_ratio)
    norm = as_finite_scalar("target_norm", target_norm)
    eta_a = float(np.sqrt(ratio))
    return Setup(norm * unit_vector(target_angle), unit_vector(init_angle), eta_a, 1.0 / eta_a)


#: the regimes of Kunin et al. §3 by δ relative to the target's size (Fig. 3): far upstream
#: the kernel hardly moves, balanced it moves with the function, downstream it moves late
REGIMES = ("upstream", "mildly upstream", "balanced", "mildly downstream", "downstream")


def regime(delta: float, target_norm: float) -> str:
    """Which of :data:`REGIMES` a conserved δ puts the neuron in, for a target of size ‖β*‖:
    |δ| beyond 2‖β*‖ dominates the balance of the layers (docs/theory.md §1)."""
    delta = as_finite_scalar("delta", delta)
    scale = 2.0 * as_positive("target_norm", target_norm)
    if delta > scale:
        return "upstream"
    if delta > 0:
        return "mildly upstream"
    if delta == 0:
        return "balanced"
    if delta > -scale:
        return "mildly downstream"
    return "downstream"


@dataclass(frozen=True)
class Sheet:
    """One sheet of the level set ``η_w a² − η_a‖w‖² = δ`` over a grid in the (w₁, w₂, a)
    box; points outside the box are NaN."""

    w1: np.ndarray  #: (rows, angles)
    w2: np.ndarray
    a: np.ndarray
    loss: np.ndarray  #: ``½‖a w − β*‖²`` at each point


def level_set(
    delta: float,
    beta_star: np.ndarray,
    extent_w: float,
    extent_a: float,
    *,
    eta_a: float = 1.0,
    eta_w: float = 1.0,
    angles: int = 33,
    rows: int = 21,
) -> tuple[Sheet, ...]:
    """The surface the conserved δ confines a two-dimensional neuron to (Kunin et al. Fig. 2):
    two sheets ``a = ±√((δ + η_a r²)/η_w)`` over the radius r = ‖w‖ for δ > 0, else one sheet
    (a cone for δ = 0) ``r = √((η_w a² − δ)/η_a)`` over a — inside ``‖w‖ ≤ extent_w``,
    ``|a| ≤ extent_a``."""
    delta = as_finite_scalar("delta", delta)
    eta_a, eta_w = as_positive("eta_a", eta_a), as_positive("eta_w", eta_w)
    beta_star = as_array("beta_star", beta_star, ndim=1, shape=(2,))
    angle = np.linspace(0.0, 2.0 * np.pi, angles)
    if delta > 0:  # two sheets, parametrised by the radius of w
        radius = np.linspace(0.0, extent_w, rows)
        height = np.sqrt((delta + eta_a * radius**2) / eta_w)
        profiles = [(radius, height), (radius, -height)]
    else:  # one sheet or the cone, parametrised by a
        height = np.linspace(-extent_a, extent_a, rows)
        profiles = [(np.sqrt(np.maximum((eta_w * height**2 - delta) / eta_a, 0.0)), height)]
    sheets = []
    for radius, height in profiles:
        r, a = radius[:, None] * np.ones_like(angle), height[:, None] * np.ones_like(angle)
        w1, w2 = r * np.cos(angle), r * np.sin(angle)
        loss = 0.5 * ((a * w1 - beta_star[0]) ** 2 + (a * w2 - beta_star[1]) ** 2)
        inside = (r <= extent_w * 1.0001) & (np.abs(a) <= extent_a * 1.0001)
        sheets.append(Sheet(*(np.where(inside, v, np.nan) for v in (w1, w2, a)), loss=loss))
    return tuple(sheets)
