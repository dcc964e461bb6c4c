"""The networks the views pose (Xu & Ziyin Fig. 1 and §4): data, output scale, initialisation
and learning rates, built from the values a person chooses; each neuron's conserved hyperbola."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._validation import (
    as_array,
    as_finite_scalar,
    as_positive,
    as_positive_int,
)
from ._exact import (
    FiniteWidthTrajectory,
    exact,
    gaussian_init,
    gradient_descent,
    near_parallel_init,
    parallel_init,
)

__all__ = [
    "GAMMA_RULES",
    "INITS",
    "Hyperbolas",
    "Network",
    "TimeUnit",
    "balanced_rates",
    "hyperbolas",
    "learning_time",
    "network",
    "output_scale",
]

#: initialisations of :func:`network`: independent Gaussian layers, parallel layers (u ∥ W x),
#: nearly parallel layers
INITS = ("gaussian", "parallel", "near_parallel")
#: output scales of :func:`network`: γ = 1/d (mean field), γ = 1/√d (NTK), or a given γ
GAMMA_RULES = ("mf", "ntk", "free")


def output_scale(rule: str, d: int, gamma: float = 1.0) -> float:
    """γ of a width-d network by one of :data:`GAMMA_RULES`: ``1/d`` for "mf" (mean field),
    ``1/√d`` for "ntk", ``gamma`` itself for "free" (Xu & Ziyin §4, docs/theory.md §2)."""
    d = as_positive_int("d", d)
    if rule == "mf":
        return 1.0 / d
    if rule == "ntk":
        return 1.0 / float(np.sqrt(d))
    if rule == "free":
        return as_positive("gamma", gamma)
    raise ValueError(f"gamma_rule must be one of {', '.join(GAMMA_RULES)}; got {rule!r}.")


def balanced_rates(ratio: float) -> tuple[float, float]:
    """``(η_u, η_w)`` with ratio ``η_u/η_w = ratio`` and product 1. A common factor of both
    learning rates only rescales time (it sets t_c, not the path), so this loses nothing."""
    eta_u = float(np.sqrt(as_positive("eta_ratio", ratio)))
    return eta_u, 1.0 / eta_u


@dataclass(frozen=True)
class TimeUnit:
    """The unit of time a view measures horizons and step sizes in.

    ``basis`` is "t_c" (the solution's own time scale, their eq. 10); "kernel" when t_c is
    infinite (y = 0 and P·Q = 0, so A(t) approaches α₊ only algebraically) and the unit is
    ``1/(2K(0))``, the rate at which the output starts to move; "none" when nothing can move
    (K(0) = 0) and the unit is 1.
    """

    value: float
    basis: str


@dataclass(frozen=True)
class Network:
    """A finite-width network and its one data point, ready to train: ``f(x) = γ Σᵢ uᵢ wᵢ·x``,
    loss ``(f(x) − y)²``, learning rates η_u, η_w (Xu & Ziyin, docs/theory.md §2)."""

    u0: np.ndarray  #: (d,) second layer
    W0: np.ndarray  #: (d, d₀) first layer
    x: np.ndarray  #: (d₀,) the data point
    y: float
    gamma: float
    eta_u: float
    eta_w: float

    @property
    def rho(self) -> float:
        """‖x‖."""
        return float(np.sqrt(self.x @ self.x))

    def exact(self, t: np.ndarray) -> FiniteWidthTrajectory:
        """The exact gradient flow at times ``t`` (:func:`exact`)."""
        return exact(
            self.u0,
            self.W0,
            self.x,
            self.y,
            t,
            gamma=self.gamma,
            eta_u=self.eta_u,
            eta_w=self.eta_w,
        )

    def gradient_descent(self, lr: float, steps: int, every: int = 1) -> FiniteWidthTrajectory:
        """Gradient descent from the same start (:func:`gradient_descent`)."""
        return gradient_descent(
            self.u0,
            self.W0,
            self.x,
            self.y,
            lr,
            steps,
            gamma=self.gamma,
            eta_u=self.eta_u,
            eta_w=self.eta_w,
            every=every,
        )

    @cached_property
    def start(self) -> FiniteWidthTrajectory:
        """The initial state with the constants of its solution (t_c, α±, P, Q, mechanism)."""
        return self.exact(np.zeros(1))

    def time_unit(self) -> TimeUnit:
        """t_c, or a stand-in where t_c is infinite (see :class:`TimeUnit`)."""
        t_c = float(self.start.t_c)
        if np.isfinite(t_c) and t_c > 0:
            return TimeUnit(t_c, "t_c")
        kernel = float(self.start.ntk[0])
        if kernel > 0 and np.isfinite(1 / (2 * kernel)):
            return TimeUnit(1 / (2 * kernel), "kernel")
        return TimeUnit(1.0, "none")


def network(
    d: int,
    *,
    y: float,
    d0: int = 1,
    x_norm: float = 1.0,
    gamma_rule: str = "free",
    gamma: float = 1.0,
    init: str = "gaussian",
    sigma_u: float = 1.0,
    sigma_w: float = 1.0,
    noise: float = 0.1,
    seed: int | None = 0,
    eta_u: float = 1.0,
    eta_w: float = 1.0,
) -> Network:
    """The network of Xu & Ziyin's experiments (their Fig. 1 and §4) from its description.

    The data point is ``x = ‖x‖ (1, …, 1)/√d₀``; γ follows ``gamma_rule`` (:func:`output_scale`);
    the layers are drawn by ``init``: "gaussian" (:func:`gaussian_init`), "parallel"
    (:func:`parallel_init`) or "near_parallel" (:func:`near_parallel_init` with ``noise``), all
    from ``seed``. Gaussian layers are ``σ_u g``, ``σ_w G`` of one standard-normal draw (g, G)
    per (d, d₀, seed), whatever σ_u and σ_w are — the draw :func:`width_sweep` scales.
    """
    d = as_positive_int("d", d)
    d0 = as_positive_int("d0", d0)
    x = np.full(d0, as_positive("x_norm", x_norm) / np.sqrt(d0))
    if init == "gaussian":
        u0, W0 = gaussian_init(d, d0, sigma_u, sigma_w, seed)
    elif init == "parallel":
        u0, W0 = parallel_init(d, x, sigma_u, sigma_w, seed)
    elif init == "near_parallel":
        u0, W0 = near_parallel_init(d, x, sigma_u, sigma_w, seed, noise=noise)
    else:
        raise ValueError(f"init must be one of {', '.join(INITS)}; got {init!r}.")
    return Network(
        u0,
        W0,
        x,
        as_finite_scalar("y", y),
        output_scale(gamma_rule, d, gamma),
        as_positive("eta_u", eta_u),
        as_positive("eta_w", eta_w),
    )


def learning_time(alpha_plus: float) -> float:
    """About how long learning takes, in units of t_c: ``2 + |ln α₊|/4``.

    A(t) runs from 1 to α₊ and, far from both ends, grows or shrinks like ``e^{±4t/t_c}``
    (their eq. 9): leaving a small initialisation takes ``t_c |ln α₊|/4``, and the last
    approach to α₊ a couple of t_c. Infinite when α₊ is not a positive number (P = 0: the
    flow heads for the saddle at the origin and never fits y).
    """
    alpha_plus = float(alpha_plus)
    if not np.isfinite(alpha_plus) or alpha_plus <= 0:
        return float("inf")
    return 2.0 + abs(float(np.log(alpha_plus))) / 4.0


@dataclass(frozen=True)
class Hyperbolas:
    """Each neuron's conserved hyperbola in its (uᵢ, hᵢ) plane, inside a box."""

    u: np.ndarray  #: (n, points) second-layer weight along the branch; NaN outside the box
    h: np.ndarray  #: (n, points) hidden pre-activation ``hᵢ = wᵢ·x``; NaN outside the box
    #: the asymptotes p = 0 and q = 0 are the lines ``h = ∓slope·u``
    slope: float


def hyperbolas(
    u0: np.ndarray,
    hidden0: np.ndarray,
    *,
    rho: float,
    eta_u: float,
    eta_w: float,
    u_max: float,
    h_max: float,
    points: int = 64,
) -> Hyperbolas:
    """The branch of ``pᵢqᵢ = pᵢ(0)qᵢ(0)`` through each neuron's start, inside the box
    ``|u| ≤ u_max``, ``|h| ≤ h_max`` (Xu & Ziyin Theorem 1: ``pᵢ → pᵢ√A``, ``qᵢ → qᵢ/√A``, so
    ``η_u hᵢ² − η_w ρ² uᵢ² = 4ρ² pᵢqᵢ`` is conserved). Parametrised as ``p = p₀s``, ``q = q₀/s``
    over the range of s > 0 that reaches the box's edge on either side."""
    u0 = as_array("u0", u0, ndim=1)
    hidden0 = as_array("hidden0", hidden0, ndim=1, shape=u0.shape)
    rho, eta_u, eta_w = (
        as_positive(n, v) for n, v in (("rho", rho), ("eta_u", eta_u), ("eta_w", eta_w))
    )
    root_u, root_w = np.sqrt(eta_u), np.sqrt(eta_w)
    p0 = (root_u * hidden0 + root_w * rho * u0) / (2 * rho)
    q0 = (root_u * hidden0 - root_w * rho * u0) / (2 * rho)
    reach = 0.5 * (root_u * h_max / rho + root_w * u_max)  # the largest |p|, |q| in the box
    abs_p, abs_q = np.abs(p0), np.abs(q0)
    with np.errstate(divide="ignore"):
        low = np.where(abs_q > 0, abs_q / reach, 1e-6 * np.where(abs_p > 0, reach / abs_p, 1.0))
        high = np.where(abs_p > 0, reach / abs_p, 1e6 * np.where(abs_q > 0, abs_q / reach, 1.0))
    low, high = np.minimum(low, 1.0), np.maximum(high, 1.0)
    fraction = np.linspace(0.0, 1.0, points)
    s = np.exp(np.log(low)[:, None] + fraction[None, :] * np.log(high / low)[:, None])
    p, q = p0[:, None] * s, q0[:, None] / s
    u = (p - q) / root_w
    h = rho * (p + q) / root_u
    outside = (np.abs(u) > 1.02 * u_max) | (np.abs(h) > 1.02 * h_max)
    return Hyperbolas(
        np.where(outside, np.nan, u), np.where(outside, np.nan, h), float(root_w * rho / root_u)
    )
