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

The package: the trajectory, its start and its basin here; F's eigen-structure, shared with
the map, in :mod:`._geometry`; the whole τ × δ map in :mod:`._portrait`; the views' set-up
(angles, a rate ratio, τ and δ) at the end of this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._descent import run_descent
from .._riccati import rank_one_coefficients
from .._validation import (
    as_array,
    as_finite_scalar,
    as_positive,
    as_times,
    guard_overflow,
    require_finite,
)
from ..metrics import kernel_distance_from_changes
from ._geometry import eigenplane, margins, target_direction
from ._geometry import unit as _unit
from ._portrait import (
    MAX_PORTRAIT_CELLS,
    MAX_PORTRAIT_SCALE,
    MAX_PORTRAIT_SIDE,
    MAX_PORTRAIT_TIMES,
    Portrait,
    portrait,
)

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
#: the τ × δ map (._portrait)
__all__ += [
    "MAX_PORTRAIT_CELLS",
    "MAX_PORTRAIT_SCALE",
    "MAX_PORTRAIT_SIDE",
    "MAX_PORTRAIT_TIMES",
    "Portrait",
    "portrait",
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
    direction = target_direction(beta_star, w0)
    plane_of = eigenplane(delta, np.sqrt(eta_a * eta_w) * float(np.linalg.norm(beta_star)))
    plus = np.array([float(plane_of.plus_x), float(plane_of.plus_a)])
    minus = np.array([-plus[1], plus[0]])
    omega = float(plane_of.omega)
    along = float(direction @ w0)
    rest = np.sqrt(eta_a) * (w0 - along * direction)
    rest_norm = float(np.linalg.norm(rest))
    rest_direction = rest / rest_norm if rest_norm > 0 else rest
    plane = np.array([np.sqrt(eta_a) * along, np.sqrt(eta_w) * a0])
    coefficients = np.array([plus @ plane, minus @ plane, rest_norm])
    rates = np.array([omega, -omega, -0.5 * delta])
    scaled = rank_one_coefficients(coefficients, rates, times)
    state_sq = float(np.linalg.norm(plane)) ** 2 + rest_norm**2
    margin = float(margins(plane_of, plane[0], plane[1], state_sq))
    plane_t = scaled[:, :2] @ np.stack([plus, minus])
    # w(t) = (x(t) û + r(t) r̂)/√η_a as one (T, 2) × (2, d) product.
    directions = np.stack([direction, rest_direction]) / np.sqrt(eta_a)
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
    coupling = np.sqrt(eta_a * eta_w) * float(np.linalg.norm(beta_star))
    return np.concatenate([eta_a * beta_star, [float(eigenplane(delta, coupling).growth_of_a)]])


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
    plane_of = eigenplane(delta, np.sqrt(eta_a * eta_w) * float(np.linalg.norm(beta_star)))
    along = np.sqrt(eta_a) * float(target_direction(beta_star, w0) @ w0)
    state_sq = eta_a * float(w0 @ w0) + eta_w * a0**2
    return float(margins(plane_of, along, np.sqrt(eta_w) * a0, state_sq))


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
    ``|a| ≤ extent_a``.

    No row of the grid is a single point (all its angles at r = 0), as a drawn surface takes
    its shading from the grid's cells and a cell of zero area has no normal (a dark dot): a
    sheet's first radius is a thousandth of a row's width, and a row at a = 0 (the cone's apex)
    is at a thousandth of a row's height — each point still exactly on the surface."""
    delta = as_finite_scalar("delta", delta)
    eta_a, eta_w = as_positive("eta_a", eta_a), as_positive("eta_w", eta_w)
    beta_star = as_array("beta_star", beta_star, ndim=1, shape=(2,))
    angle = np.linspace(0.0, 2.0 * np.pi, angles)
    if delta > 0:  # two sheets, parametrised by the radius of w
        radius = np.linspace(0.0, extent_w, rows)
        radius[0] = 1e-3 * radius[1]
        height = np.sqrt((delta + eta_a * radius**2) / eta_w)
        profiles = [(radius, height), (radius, -height)]
    else:  # one sheet or the cone, parametrised by a
        height = np.linspace(-extent_a, extent_a, rows)
        height[np.abs(height) < 1e-9 * extent_a] = 1e-3 * (height[1] - height[0])
        profiles = [(np.sqrt(np.maximum((eta_w * height**2 - delta) / eta_a, 0.0)), height)]
    sheets = []
    for radius, height in profiles:
        r, a = radius[:, None] * np.ones_like(angle), height[:, None] * np.ones_like(angle)
        w1, w2 = r * np.cos(angle), r * np.sin(angle)
        loss = 0.5 * ((a * w1 - beta_star[0]) ** 2 + (a * w2 - beta_star[1]) ** 2)
        inside = (r <= extent_w * 1.0001) & (np.abs(a) <= extent_a * 1.0001)
        sheets.append(Sheet(*(np.where(inside, v, np.nan) for v in (w1, w2, a)), loss=loss))
    return tuple(sheets)
