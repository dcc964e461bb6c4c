"""The exact flow of the finite-width network and its gradient descent (Xu & Ziyin Theorem 1;
docs/theory.md §2), the scaling phase of a set of exponents (§4, eq. 18, Theorem 2) and the
initialisations of their experiments."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

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
from ..metrics import kernel_distance, kernel_distance_from_changes, layer_alignment

__all__ = [
    "SCALINGS",
    "FiniteWidthTrajectory",
    "PhaseTerms",
    "exact",
    "gaussian_init",
    "gradient_descent",
    "near_parallel_init",
    "parallel_init",
    "phase",
    "phase_terms",
]

#: Initialisation schemes of Xu & Ziyin Table 1, as exponents of κ: d ∝ κ^{c_d}, γ ∝ κ^{c_γ},
#: σ_u² ∝ κ^{c_u}, σ_w² ∝ κ^{c_w}. "lazy" is Chizat et al.'s scheme (zero initial output).
SCALINGS: dict[str, dict[str, float]] = {
    "NTK": {"c_d": 1.0, "c_gamma": -0.5, "c_u": 0.0, "c_w": 0.0},
    "MF": {"c_d": 1.0, "c_gamma": -1.0, "c_u": 0.0, "c_w": 0.0},
    "Xavier": {"c_d": 1.0, "c_gamma": 0.0, "c_u": -1.0, "c_w": -1.0},
    "Kaiming": {"c_d": 1.0, "c_gamma": 0.0, "c_u": -1.0, "c_w": 0.0},
    "lazy": {"c_d": 0.0, "c_gamma": 1.0, "c_u": 0.0, "c_w": 0.0},
}


@dataclass(frozen=True)
class FiniteWidthTrajectory:
    """Trajectory of the finite-width network (first axis of every array = time).

    The scalar constants (``t_c``, ``alpha_plus``, …, ``mechanism``) are those of the exact
    solution from the initial state; a gradient-descent run carries the same values, as the
    theory's prediction for it.
    """

    t: np.ndarray  #: (T,)
    u: np.ndarray  #: (T, d) second layer
    hidden: np.ndarray  #: (T, d) hidden pre-activations ``hᵢ = wᵢ·x``
    u0: np.ndarray  #: (d,) initial second layer (changes are measured from t = 0, whatever t[0] is)
    W0: np.ndarray  #: (d, d₀) initial first layer
    x: np.ndarray  #: (d₀,) data point
    y: float
    gamma: float
    eta_u: float
    eta_w: float
    t_c: float  #: time scale (Xu & Ziyin eq. 10)
    alpha_plus: float  #: A(∞) (eq. 11); ``inf`` when P = 0 and y > 0 (p stays 0, A grows)
    alpha_minus: float  #: positive partner, ``α₊α₋ = Q/P`` (``inf`` when P = 0)
    P: float
    Q: float
    mechanism: str  #: "alignment", "disalignment", "rescaling" or "none" (their §3.2–3.4)
    method: str
    diverged_at: int | None = None
    recorded_W: np.ndarray | None = None  #: (T, d, d₀) when the run stored W (gradient descent)

    @property
    def rho(self) -> float:
        return float(np.linalg.norm(self.x))

    @cached_property
    def hidden0(self) -> np.ndarray:
        """(d,) initial hidden pre-activations ``W₀x``."""
        return self.W0 @ self.x

    @cached_property
    def W(self) -> np.ndarray:
        """(T, d, d₀) first layer. Only the component along x ever moves (Theorem 1;
        docs/theory.md (2.10))."""
        if self.recorded_W is not None:
            return self.recorded_W
        change = self.hidden - self.hidden0
        return self.W0[None] + change[:, :, None] * (self.x / self.rho**2)[None, None, :]

    @cached_property
    def output(self) -> np.ndarray:
        """(T,) network output ``f(x) = γ uᵀW x``."""
        return self.gamma * np.sum(self.u * self.hidden, axis=1)

    @cached_property
    def loss(self) -> np.ndarray:
        """(T,) ``(f(x) − y)²``."""
        return (self.output - self.y) ** 2

    @cached_property
    def zeta(self) -> np.ndarray:
        """(T,) layer alignment ``ζ = uᵀ(W x̂)/(‖u‖‖W x̂‖)`` (their eq. 14; docs/theory.md (2.14))."""
        return layer_alignment(self.u, self.hidden)

    @cached_property
    def u_norm(self) -> np.ndarray:
        """(T,) ‖u‖ (rescaling, their §3.3)."""
        return np.linalg.norm(self.u, axis=1)

    @cached_property
    def w_norm(self) -> np.ndarray:
        """(T,) Frobenius norm ‖W‖ (rescaling, their §3.3; for d₀ = 1 their ‖w‖).

        On the exact flow W is never formed (T × d × d₀): only its component along x moves,
        ``W = W₀ + Δh x̂ᵀ/ρ``, so ``‖W‖² = ‖W₀‖² + (2Δh·h₀ + ‖Δh‖²)/ρ²``."""
        if self.recorded_W is not None:
            return np.sqrt(np.sum(self.recorded_W**2, axis=(1, 2)))
        change = self.hidden - self.hidden0
        moved = (2 * change @ self.hidden0 + np.sum(change**2, axis=1)) / self.rho**2
        return np.sqrt(np.maximum(float(np.sum(self.W0**2)) + moved, 0.0))

    @cached_property
    def _ntk_change_signed(self) -> np.ndarray:
        # K(t) − K(0) from the changes, so that a tiny change keeps its relative accuracy.
        du = self.u - self.u0
        dh = self.hidden - self.hidden0
        dh_sq = 2 * dh @ self.hidden0 + np.sum(dh * dh, axis=1)
        du_sq = 2 * du @ self.u0 + np.sum(du * du, axis=1)
        return self.gamma**2 * (self.eta_u * dh_sq + self.eta_w * self.rho**2 * du_sq)

    @cached_property
    def ntk(self) -> np.ndarray:
        """(T,) ``K(x, x; t) = γ²(η_u‖W x‖² + η_w‖u‖²‖x‖²)`` (their eq. 13, learning rates
        corrected as in docs/theory.md (2.12)), so that ``df/dt = −2K(f − y)``."""
        return self._ntk_initial + self._ntk_change_signed

    @cached_property
    def _ntk_initial(self) -> float:
        return self.gamma**2 * float(
            self.eta_u * self.hidden0 @ self.hidden0 + self.eta_w * self.rho**2 * self.u0 @ self.u0
        )

    @cached_property
    def ntk_change(self) -> np.ndarray:
        """(T,) relative change ``|K(t) − K(0)|/K(0)`` (0 when K(0) = 0: nothing moves then)."""
        initial = self._ntk_initial
        if initial <= 0:
            return np.zeros_like(self.t)
        return np.abs(self._ntk_change_signed) / initial

    @cached_property
    def kernel_distance(self) -> np.ndarray:
        """(T,) ``S(0, t)`` of ``M(t) = γ²(η_u WᵀW + η_w‖u‖² I_{d₀})`` (0 when d₀ = 1;
        docs/theory.md (2.13))."""
        if self.recorded_W is not None:
            gram = np.einsum("tij,tik->tjk", self.recorded_W, self.recorded_W)
            norms = np.sum(self.u**2, axis=1)
            kernels = self.eta_u * gram + self.eta_w * norms[:, None, None] * np.eye(self.x.size)
            initial = self.eta_u * self.W0.T @ self.W0 + self.eta_w * float(
                self.u0 @ self.u0
            ) * np.eye(self.x.size)
            return kernel_distance(initial, kernels)
        return self._structured_kernel_distance()

    def _structured_kernel_distance(self) -> np.ndarray:
        # M(t)/γ² = B + D with B = M(0)/γ² and D = η_u(v x̂ᵀ + x̂ vᵀ + c x̂x̂ᵀ) + e I, where
        # v = W₀ᵀΔh/ρ, c = ‖Δh‖²/ρ², e = η_w(‖u‖² − ‖u₀‖²): O(T·d·d₀), never forms M.
        eta_u, eta_w, rho, d0 = self.eta_u, self.eta_w, self.rho, self.x.size
        unit_x = self.x / rho
        W0, u0, h0 = self.W0, self.u0, self.hidden0
        dh = self.hidden - h0
        du = self.u - u0
        v = dh @ W0 / rho
        c = np.sum(dh * dh, axis=1) / rho**2
        e = eta_w * (2 * du @ u0 + np.sum(du * du, axis=1))
        u0_sq = float(u0 @ u0)
        small = W0 @ W0.T if W0.shape[0] <= W0.shape[1] else W0.T @ W0
        gram_sq = float(np.sum(small * small))  # ‖W₀ᵀW₀‖²_F
        trace_gram = float(np.sum(W0 * W0))
        B_sq = (
            eta_u**2 * gram_sq + 2 * eta_u * eta_w * u0_sq * trace_gram + eta_w**2 * u0_sq**2 * d0
        )
        trace_B = eta_u * trace_gram + eta_w * u0_sq * d0
        B_x = eta_u * (W0.T @ h0) / rho + eta_w * u0_sq * unit_x
        x_v = v @ unit_x
        B_D = eta_u * (2 * v @ B_x + c * (unit_x @ B_x)) + e * trace_B
        R_sq = 2 * np.sum(v * v, axis=1) + 2 * x_v**2 + c**2 + 4 * c * x_v
        D_sq = eta_u**2 * R_sq + 2 * eta_u * e * (2 * x_v + c) + e**2 * d0
        return kernel_distance_from_changes(B_sq, B_D, D_sq)


@dataclass(frozen=True)
class _Constants:
    rho: float
    p0: np.ndarray
    q0: np.ndarray
    P: float
    Q: float
    rate: float  # 1/t_c
    weight_plus: float
    weight_minus: float
    g_P: float
    g_Q: float
    drive: float  # 2γρ√(η_uη_w)(y − f₀), so that A − 1 = φ·drive/denominator
    alpha_plus: float
    alpha_minus: float
    mechanism: str


def flow_rates(b, g_P, g_Q) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(1/t_c, a₊, a₋)`` of the scalar flow for ``b = √(η_uη_w)γρy`` and ``g_P``, ``g_Q``
    (docs/theory.md (2.8); their eq. 10): ``1/t_c = √(b² + g_P g_Q)``, ``a± = 1/t_c ± b``, the
    one that would cancel formed as ``g_P g_Q / (the other)``. For one network (:func:`exact`)
    or a whole grid of them (:func:`width_sweep`); broadcasts."""
    b, g_P, g_Q = np.asarray(b, float), np.asarray(g_P, float), np.asarray(g_Q, float)
    rate = np.hypot(b, np.sqrt(g_P * g_Q))
    product = g_P * g_Q
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        big_plus, big_minus = rate + b, rate - b
        a_plus = np.where(b >= 0, big_plus, product / np.where(big_minus > 0, big_minus, 1.0))
        a_minus = np.where(
            b >= 0,
            np.where(big_plus > 0, product / np.where(big_plus > 0, big_plus, 1.0), 0.0),
            big_minus,
        )
    return rate, a_plus, a_minus


def _constants(u0, W0, x, y, gamma, eta_u, eta_w) -> _Constants:
    d = u0.shape[0]
    rho = float(np.linalg.norm(x))
    h0 = W0 @ x
    p0 = (np.sqrt(eta_u) * h0 + np.sqrt(eta_w) * rho * u0) / (2 * rho)
    q0 = (np.sqrt(eta_u) * h0 - np.sqrt(eta_w) * rho * u0) / (2 * rho)
    P = float(np.mean(p0**2))
    Q = float(np.mean(q0**2))
    b = np.sqrt(eta_u * eta_w) * gamma * rho * y
    scale = 2 * gamma**2 * d * rho**2
    g_P, g_Q = scale * P, scale * Q
    rate, a_plus, a_minus = (float(v) for v in flow_rates(b, g_P, g_Q))
    total = a_plus + a_minus
    weight_plus, weight_minus = (a_plus / total, a_minus / total) if total > 0 else (0.5, 0.5)
    # α₊ = A(∞) = (a₊ + g_Q)/(a₋ + g_P) (= a₊/g_P when P > 0); finite also for P = 0, y < 0.
    limit_den = a_minus + g_P
    alpha_plus = (a_plus + g_Q) / limit_den if limit_den > 0 else np.inf
    alpha_minus = a_minus / g_P if g_P > 0 else np.inf  # α₊α₋ = Q/P: undefined at P = 0
    f0 = gamma * float(u0 @ h0)
    drive = 2 * gamma * rho * np.sqrt(eta_u * eta_w) * (y - f0)
    # ζ² = 1 exactly when p ∥ q (Cauchy–Schwarz equality in their eq. 15).
    cross = float(np.mean(p0 * q0))
    parallel = P * Q > 0 and abs(4 * P * Q - 4 * cross**2) <= 1e-12 * 4 * P * Q
    if P * Q == 0 and P + Q > 0:
        parallel = True  # one of p, q vanishes: u ∥ W x
    if P + Q == 0 or abs(alpha_plus - 1.0) <= 1e-12:  # nothing moves, or already fitted
        mechanism = "none"
    elif parallel:
        mechanism = "rescaling"
    elif alpha_plus > 1:
        mechanism = "alignment"
    else:
        mechanism = "disalignment"
    return _Constants(
        rho,
        p0,
        q0,
        P,
        Q,
        rate,
        weight_plus,
        weight_minus,
        g_P,
        g_Q,
        drive,
        float(alpha_plus),
        float(alpha_minus),
        mechanism,
    )


def _check(u0, W0, x, y, gamma, eta_u, eta_w):
    u0 = as_array("u0", u0, ndim=1)
    W0 = as_array("W0", W0, ndim=2, shape=(u0.shape[0], None))
    x = as_array("x", x, ndim=(0, 1))
    x = np.atleast_1d(x)
    if x.shape[0] != W0.shape[1]:
        raise ValueError(
            f"x has {x.shape[0]} entries but W0 has {W0.shape[1]} columns; they must match "
            "(W0 is width × input size)."
        )
    if not np.any(x != 0):
        raise ValueError(
            "x must be non-zero: with x = 0 the network output is 0 and nothing learns."
        )
    y = as_finite_scalar("y", y)
    gamma = as_positive("gamma", gamma)
    eta_u = as_positive("eta_u", eta_u)
    eta_w = as_positive("eta_w", eta_w)
    return u0, W0, x, y, gamma, eta_u, eta_w


@guard_overflow
def exact(
    u0: np.ndarray,
    W0: np.ndarray,
    x: np.ndarray,
    y: float,
    t: np.ndarray,
    *,
    gamma: float = 1.0,
    eta_u: float = 1.0,
    eta_w: float = 1.0,
) -> FiniteWidthTrajectory:
    """Exact gradient flow of the finite-width network (Xu & Ziyin Theorem 1; docs/theory.md §2).

    Parameters
    ----------
    u0 : (d,) second layer; W0 : (d, d₀) first layer; x : (d₀,) the data point (non-zero);
    y : target; t : times ≥ 0; gamma : output scale γ > 0; eta_u, eta_w : learning rates > 0.
    """
    u0, W0, x, y, gamma, eta_u, eta_w = _check(u0, W0, x, y, gamma, eta_u, eta_w)
    times = as_times(t)
    k = _constants(u0, W0, x, y, gamma, eta_u, eta_w)
    with np.errstate(over="ignore"):  # e^{−4rt} → 0 at astronomically long times, as it should
        decay = np.exp(-4 * k.rate * times)
        # φ(t) = (1 − e^{−4rt})/(2r), → 2t as r → 0.
        phi = -np.expm1(-4 * k.rate * times) / (2 * k.rate) if k.rate > 0 else 2 * times
    # A = num/den, both sums of non-negative terms, and num − den = φ·drive exactly. The
    # changes √A − 1 and 1/√A − 1 are formed from these three without any cancellation, so
    # they keep full relative accuracy whether A stays near 1 (lazy) or runs to 0 or ∞.
    numerator = k.weight_plus + k.weight_minus * decay + k.g_Q * phi
    denominator = k.weight_minus + k.weight_plus * decay + k.g_P * phi
    difference = phi * k.drive
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        root_num, root_den = np.sqrt(numerator), np.sqrt(denominator)
        grow = difference / (root_den * (root_num + root_den))  # √A − 1
        shrink = -difference / (root_num * (root_num + root_den))  # 1/√A − 1
        grow = np.where(difference == 0, 0.0, grow)
        shrink = np.where(difference == 0, 0.0, shrink)
        dp = np.where(k.p0 == 0, 0.0, np.outer(grow, k.p0))
        dq = np.where(k.q0 == 0, 0.0, np.outer(shrink, k.q0))
    du = (dp - dq) / np.sqrt(eta_w)
    dh = k.rho * (dp + dq) / np.sqrt(eta_u)
    u = u0 + du
    hidden = W0 @ x + dh
    require_finite("finite_width.exact", u, hidden)
    t_c = 1.0 / k.rate if k.rate > 0 else np.inf
    return FiniteWidthTrajectory(
        times,
        u,
        hidden,
        u0,
        W0,
        x,
        y,
        gamma,
        eta_u,
        eta_w,
        t_c,
        k.alpha_plus,
        k.alpha_minus,
        k.P,
        k.Q,
        k.mechanism,
        "exact",
    )


@guard_overflow
def gradient_descent(
    u0: np.ndarray,
    W0: np.ndarray,
    x: np.ndarray,
    y: float,
    lr: float,
    steps: int,
    *,
    gamma: float = 1.0,
    eta_u: float = 1.0,
    eta_w: float = 1.0,
    every: int = 1,
) -> FiniteWidthTrajectory:
    """Gradient descent on ``L = (γ uᵀW x − y)²`` over the full (u, W), step k at t = k·lr.

    The discrete counterpart of Xu & Ziyin's flow (their eqs. 2–3), with the convention
    ``θ ← θ − lr·η_θ ∂L/∂θ`` of docs/theory.md (0.2); a run that diverges stops and reports
    ``diverged_at``.
    """
    u0, W0, x, y, gamma, eta_u, eta_w = _check(u0, W0, x, y, gamma, eta_u, eta_w)
    k = _constants(u0, W0, x, y, gamma, eta_u, eta_w)

    def step(state):
        u, W = state
        hidden = W @ x
        error = 2 * gamma * (gamma * (u @ hidden) - y)  # ∂L/∂f · γ
        return u - lr * eta_u * error * hidden, W - lr * eta_w * error * np.outer(u, x)

    run = run_descent(step, (u0, W0), lr, steps, every)
    u, W = run.states
    t_c = 1.0 / k.rate if k.rate > 0 else np.inf
    return FiniteWidthTrajectory(
        run.t,
        u,
        W @ x,
        u0,
        W0,
        x,
        y,
        gamma,
        eta_u,
        eta_w,
        t_c,
        k.alpha_plus,
        k.alpha_minus,
        k.P,
        k.Q,
        k.mechanism,
        "gradient descent",
        run.diverged_at,
        recorded_W=W,
    )


@dataclass(frozen=True)
class PhaseTerms:
    """The two exponents of Xu & Ziyin eq. (18) and the P/Q → 1 condition of Theorem 2."""

    feature_term: float  #: 2c_γ + c_ηu + c_ηw (the y-driven part of 1/t_c²)
    kernel_term: float  #: 2c_γ + c_d + max(c_ηw + c_u, c_ηu + c_w) (the initialisation part)
    p_over_q_to_one: bool

    @property
    def m(self) -> float:
        return max(self.feature_term, self.kernel_term)


_TOLERANCE = 1e-9


def phase_terms(
    c_d: float,
    c_gamma: float,
    c_u: float,
    c_w: float,
    c_eta_u: float,
    c_eta_w: float,
    *,
    zero_output_init: bool = False,
    independent_init: bool = True,
) -> PhaseTerms:
    """Exponents deciding the scaling phase (Xu & Ziyin §4, eq. 18, Theorem 2; docs/theory.md
    (2.16), (2.18))."""
    values = [
        as_finite_scalar(name, value)
        for name, value in (
            ("c_d", c_d),
            ("c_gamma", c_gamma),
            ("c_u", c_u),
            ("c_w", c_w),
            ("c_eta_u", c_eta_u),
            ("c_eta_w", c_eta_w),
        )
    ]
    c_d, c_gamma, c_u, c_w, c_eta_u, c_eta_w = values
    feature = 2 * c_gamma + c_eta_u + c_eta_w
    kernel = 2 * c_gamma + c_d + max(c_eta_w + c_u, c_eta_u + c_w)
    # P/Q → 1: infinite width with independent layers, zero initial output (Chizat's lazy
    # init), or learning rates unbalanced against the init scales (their three cases).
    p_over_q = (
        (c_d > _TOLERANCE and independent_init)
        or zero_output_init
        or abs((c_u + c_eta_w) - (c_w + c_eta_u)) > _TOLERANCE
    )
    return PhaseTerms(feature, kernel, bool(p_over_q))


def phase(
    c_d: float,
    c_gamma: float,
    c_u: float,
    c_w: float,
    c_eta_u: float,
    c_eta_w: float,
    *,
    zero_output_init: bool = False,
    independent_init: bool = True,
) -> str:
    """Scaling phase as κ → ∞: "kernel", "feature learning", "frozen" or "unstable".

    Xu & Ziyin §4 (docs/theory.md (2.16)–(2.18)): with
    ``m = max(2c_γ + c_ηu + c_ηw, 2c_γ + c_d + max(c_ηw + c_u, c_ηu + c_w))``,
    m < 0 is frozen (t_c → ∞), m > 0 unstable (t_c → 0); at m = 0 the model is in the kernel
    phase iff P/Q → 1 and the initialisation term strictly dominates (their eq. 19), else it
    learns features. Reproduces their Table 1 (the "lazy" column with ``zero_output_init``).
    """
    terms = phase_terms(
        c_d,
        c_gamma,
        c_u,
        c_w,
        c_eta_u,
        c_eta_w,
        zero_output_init=zero_output_init,
        independent_init=independent_init,
    )
    if terms.m < -_TOLERANCE:
        return "frozen"
    if terms.m > _TOLERANCE:
        return "unstable"
    if terms.p_over_q_to_one and terms.kernel_term > terms.feature_term + _TOLERANCE:
        return "kernel"
    return "feature learning"


def gaussian_init(
    d: int, d0: int, sigma_u: float, sigma_w: float, seed: int | None = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Independent Gaussian layers ``uᵢ ~ N(0, σ_u²)``, ``wᵢⱼ ~ N(0, σ_w²)`` (their §4)."""
    d = as_positive_int("d", d)
    d0 = as_positive_int("d0", d0)
    sigma_u = _non_negative("sigma_u", sigma_u)
    sigma_w = _non_negative("sigma_w", sigma_w)
    rng = as_seed(seed)
    return sigma_u * rng.standard_normal(d), sigma_w * rng.standard_normal((d, d0))


def parallel_init(
    d: int,
    x: np.ndarray,
    sigma_u: float,
    sigma_w: float,
    seed: int | None = 0,
    *,
    sign: int = 1,
) -> tuple[np.ndarray, np.ndarray]:
    """Parallel ("orthogonal", Saxe et al.) layers: ``u = σ_u g``, ``W = ±σ_w g x̂ᵀ``, so ζ = ±1.

    The network then learns only by rescaling (Xu & Ziyin §3.3).
    """
    return near_parallel_init(d, x, sigma_u, sigma_w, seed, noise=0.0, sign=sign)


def near_parallel_init(
    d: int,
    x: np.ndarray,
    sigma_u: float,
    sigma_w: float,
    seed: int | None = 0,
    *,
    noise: float = 0.1,
    sign: int = 1,
) -> tuple[np.ndarray, np.ndarray]:
    """Nearly parallel layers ``W = σ_w(±g x̂ᵀ + noise·G)``, ``u = σ_u g`` (ζ(0) ≈ ±1).

    With ``γσ_uσ_w‖x‖d ≫ |y|`` the initial output is far too large and the network learns by
    disalignment (Xu & Ziyin Fig. 1, lower row).
    """
    d = as_positive_int("d", d)
    x = np.atleast_1d(as_array("x", x, ndim=(0, 1)))
    rho = float(np.linalg.norm(x))
    if rho == 0:
        raise ValueError("x must be non-zero.")
    sigma_u = _non_negative("sigma_u", sigma_u)
    sigma_w = _non_negative("sigma_w", sigma_w)
    noise = _non_negative("noise", noise)
    if sign not in (1, -1):
        raise ValueError(f"sign must be +1 or -1; got {sign!r}.")
    rng = as_seed(seed)
    shared = rng.standard_normal(d)
    perturbation = rng.standard_normal((d, x.size))
    W0 = sigma_w * (sign * np.outer(shared, x / rho) + noise * perturbation)
    return sigma_u * shared, W0


def _non_negative(name: str, value) -> float:
    number = as_finite_scalar(name, value)
    if number < 0:
        raise ValueError(f"{name} must be >= 0; got {number:g}.")
    return number
