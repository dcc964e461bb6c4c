"""Finite-width two-layer linear network on one-dimensional data (Xu & Ziyin, *Three mechanisms
of feature learning in a linear network*, Theorem 1).

``f(x) = γ Σᵢ uᵢ (wᵢ·x)``, width d, input size d₀, one data point x (any data set on a line
reduces to it, their Prop. 1), loss ``L = (f(x) − y)²``, learning rates η_u, η_w.

With ``ρ = ‖x‖``, ``hᵢ = wᵢ·x``, ``pᵢ = (√η_u hᵢ + √η_w ρ uᵢ)/(2ρ)``,
``qᵢ = (√η_u hᵢ − √η_w ρ uᵢ)/(2ρ)`` the flow is ``pᵢ(t) = pᵢ(0)√A(t)``, ``qᵢ(t) = qᵢ(0)/√A(t)``
where A solves the scalar Riccati equation ``A' = −4γ²dρ²(P A² − Q) + 4√(η_uη_w)γρy A``,
``A(0) = 1`` (P, Q = mean pᵢ(0)², mean qᵢ(0)²). docs/theory.md (2.5)–(2.7) gives its solution in
the paper's form (eqs. 8–11 with the misprints corrected); here it is rewritten as (2.8)–(2.9)

    A(t) = [w₊ + w₋ e^{−4t/t_c} + g_Q φ(t)] / [w₋ + w₊ e^{−4t/t_c} + g_P φ(t)],
    φ(t) = t_c (1 − e^{−4t/t_c}) / 2,   g_P = 2γ²dρ²P,   g_Q = 2γ²dρ²Q,

with weights ``w± = a±/(a₊ + a₋)``, ``a± = 2γ²dρ²P·α±``. Numerator and denominator are sums of
non-negative terms and never divide by P — the same expression covers P = 0 (their App. B),
y = 0 and the kernel limit, for any horizon. Their difference is ``φ(t)·2γρ√(η_uη_w)(y − f₀)``
exactly, and the changes ``√A − 1`` and ``1/√A − 1`` are formed from these three numbers, so
changes from initialisation keep full relative accuracy whether they are tiny (the lazy regime)
or A runs to 0 (a small initialisation with y < 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

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
from .metrics import kernel_distance, kernel_distance_from_changes, layer_alignment

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
    rate = float(np.hypot(b, np.sqrt(g_P * g_Q)))  # 1/t_c, their eq. 10
    # a± = rate ± b, the one that cancels rewritten via a₊a₋ = g_P·g_Q.
    if b >= 0:
        a_plus = rate + b
        a_minus = g_P * g_Q / a_plus if a_plus > 0 else 0.0
    else:
        a_minus = rate - b
        a_plus = g_P * g_Q / a_minus
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


# -- width sweep (Xu & Ziyin §4, Table 1, Fig. 4) ------------------------------------------------

__all__ += [
    "MAX_SWEEP_WIDTH",
    "MAX_SWEEP_WIDTHS",
    "TABLE_1",
    "TABLE_1_BLOCKS",
    "WidthSweep",
    "width_sweep",
]

#: the four blocks of Xu & Ziyin Table 1, in its order: the scheme as initialised (c_η = 0 with
#: its own c_γ), with the stabilising learning rate c_η*, and the (c_η, c_γ) pairs that put it in
#: the feature-learning phase (their "+") and in the kernel phase ("−")
TABLE_1_BLOCKS = ("as initialised", "stable", "feature learning", "kernel")

#: Xu & Ziyin Table 1: per initialisation scheme of :data:`SCALINGS`, the (c_η, c_γ) of each of
#: :data:`TABLE_1_BLOCKS`, learning-rate exponents equal for both layers (docs/theory.md §2).
#: NTK and MF share their initialisation (σ_u = σ_w = 1), so their ± pairs coincide: Table 1
#: turns each into the other. "lazy" (c_d = 0) keeps the width fixed.
TABLE_1: dict[str, dict[str, tuple[float, float]]] = {
    "NTK": {
        "as initialised": (0.0, -0.5),
        "stable": (0.0, -0.5),
        "feature learning": (1.0, -1.0),
        "kernel": (0.0, -0.5),
    },
    "MF": {
        "as initialised": (0.0, -1.0),
        "stable": (1.0, -1.0),
        "feature learning": (1.0, -1.0),
        "kernel": (0.0, -0.5),
    },
    "Xavier": {
        "as initialised": (0.0, 0.0),
        "stable": (0.0, 0.0),
        "feature learning": (0.0, 0.0),
        "kernel": (-2.0, 1.0),
    },
    "Kaiming": {
        "as initialised": (0.0, 0.0),
        "stable": (-1.0, 0.0),
        "feature learning": (1.0, -1.0),
        "kernel": (-1.0, 0.0),
    },
    "lazy": {
        "as initialised": (0.0, 1.0),
        "stable": (-2.0, 1.0),
        "feature learning": (0.0, 0.0),
        "kernel": (-2.0, 1.0),
    },
}
#: most widths of one sweep, and the largest width
MAX_SWEEP_WIDTHS = 64
MAX_SWEEP_WIDTH = 10_000
#: largest input size d₀ of a sweep
MAX_SWEEP_INPUT = 100


@dataclass(frozen=True)
class WidthSweep:
    """Where each scaling ends up (t → ∞) as the width grows, one row per (scheme, phase).

    Row r uses :data:`SCALINGS` [``schemes[r]``] and :data:`TABLE_1` [``schemes[r]``]
    [``regimes[r]``] with κ = d: ``γ = d^{c_γ}``, ``σ_u = d^{c_u/2}``, ``σ_w = d^{c_w/2}``,
    ``η_u = η_w = d^{c_η}``. Array fields have shape ``(len(schemes), len(widths))`` unless
    stated.
    """

    widths: np.ndarray  #: (W,) widths d
    schemes: tuple[str, ...]  #: (R,) initialisation scheme per row ("NTK", "MF", …)
    regimes: tuple[str, ...]  #: (R,) "kernel" or "feature learning" (Table 1's − / + block)
    c_eta: np.ndarray  #: (R,) learning-rate exponent of both layers
    c_gamma: np.ndarray  #: (R,) output-scale exponent
    predicted_phase: tuple[str, ...]  #: (R,) :func:`phase` of the row's exponents
    x: np.ndarray  #: (d₀,) the data point
    y: float  #: the target
    seed: int | None  #: seed of :func:`gaussian_init` (the same draw per width for every row)
    zero_output_init: bool  #: the second layer was projected off W x: f(0) = 0, P = Q
    gamma: np.ndarray  #: output scale γ
    eta: np.ndarray  #: learning rate of both layers (changes the time scale only)
    sigma_u: np.ndarray  #: std of the second layer
    sigma_w: np.ndarray  #: std of the first layer
    initial_alignment: np.ndarray  #: (W,) ζ(0), the same for every row (scales drop out)
    final_alignment: np.ndarray  #: ζ(∞) = cos(u, W x̂) at convergence
    ntk_change: np.ndarray  #: |K(∞) − K(0)|/K(0), K = K(x, x)
    weight_change: np.ndarray  #: ‖W(∞) − W(0)‖_F/‖W(0)‖_F (their Fig. 4, right)
    alpha_plus: np.ndarray  #: α₊ = A(∞) (p grows by √α₊, q shrinks by it)
    t_c: np.ndarray  #: time scale of the row's flow


def _powers(kappa, c_gamma, c_u, c_w, c_eta):
    """(γ, σ_u, σ_w, η) = (κ^{c_γ}, κ^{c_u/2}, κ^{c_w/2}, κ^{c_η}): how Table 1's exponents make
    a network at a finite κ (σ² ∝ κ^c, so σ = κ^{c/2}). Broadcasts over arrays."""
    return kappa**c_gamma, kappa ** (0.5 * c_u), kappa ** (0.5 * c_w), kappa**c_eta


def _sweep_rows(schemes, regimes) -> list[tuple[str, str]]:
    if isinstance(schemes, str) or isinstance(regimes, str):
        raise ValueError("schemes and regimes must be sequences of names, not a single string.")
    rows = []
    widened = sorted(name for name, scaling in SCALINGS.items() if scaling["c_d"] == 1)
    for scheme in schemes:
        if scheme not in widened:
            raise ValueError(
                f"unknown scheme {scheme!r}; choose from {widened} (the c_d = 1 rows of "
                "Table 1; 'lazy' keeps the width fixed and has no width sweep)."
            )
        for regime in regimes:
            if regime not in ("kernel", "feature learning"):
                raise ValueError(
                    f"unknown regime {regime!r}; choose 'kernel' or 'feature learning'."
                )
            rows.append((scheme, regime))
    if not rows:
        raise ValueError("schemes and regimes must name at least one row each.")
    return rows


@guard_overflow
def width_sweep(
    widths: np.ndarray,
    *,
    schemes: tuple[str, ...] = ("NTK", "MF", "Xavier", "Kaiming"),
    regimes: tuple[str, ...] = ("kernel", "feature learning"),
    x: np.ndarray | float = 1.0,
    y: float = 1.0,
    seed: int | None = 0,
    zero_output_init: bool = False,
) -> WidthSweep:
    """Final layer alignment ζ(∞) and relative NTK change versus width in the kernel and the
    feature-learning scalings — Xu & Ziyin, *Three mechanisms of feature learning in a linear
    network*, §4 (Table 1, Theorem 2) and Fig. 4 (kernel phase: the network's change from
    initialisation vanishes like a power of d; feature-learning phase: it stays O(1)).

    Parameters
    ----------
    widths : (W,) widths d, whole numbers in [1, 10⁴], at most 64 of them.
    schemes : initialisations from :data:`TABLE_1` ("NTK", "MF", "Xavier", "Kaiming").
    regimes : "kernel" and/or "feature learning": which (c_η, c_γ) of Table 1 to use.
    x : the data point (d₀ ≤ 100 entries, non-zero); y : the target.
    seed : the layers are ``gaussian_init(d, d₀, σ_u, σ_w, seed)`` — for every row the same
        standard-normal draw per width, scaled by the row's σ_u, σ_w.
    zero_output_init : project the second layer's draw off ``W x`` (``g ← g − (g·h/h·h) h``),
        so that every network starts with output 0 and P = Q exactly — Chizat's lazy
        initialisation, case 2 of their Theorem 2 (B.4's estimates assume f(0) = O(1)).

    Values are the exact solution's t → ∞ limit (docs/theory.md (2.19); A(∞) = α₊;
    :func:`exact` at t ≫ t_c gives the same to rounding). Both learning rates are d^{c_η}: a
    common learning rate only rescales time, so it sets ``t_c`` but not the limits. The
    relative NTK change is written as a product, ``∝ (y − f₀)(y + f₀)``, so it keeps its
    relative accuracy however small it is.
    Row × width arrays are computed together; only the Gaussian draws loop over widths.
    """
    widths = np.atleast_1d(as_array("widths", widths, ndim=(0, 1)))
    if widths.size > MAX_SWEEP_WIDTHS:
        raise ValueError(f"widths may hold at most {MAX_SWEEP_WIDTHS} values; got {widths.size}.")
    widths = np.array(
        [as_positive_int("widths", float(d), maximum=MAX_SWEEP_WIDTH) for d in widths],
        dtype=np.int64,
    )
    x = np.atleast_1d(as_array("x", x, ndim=(0, 1)))
    if x.size > MAX_SWEEP_INPUT:
        raise ValueError(f"x may have at most {MAX_SWEEP_INPUT} entries; got {x.size}.")
    if not np.any(x != 0):
        raise ValueError(
            "x must be non-zero: with x = 0 the network output is 0 and nothing learns."
        )
    y = as_finite_scalar("y", y)
    if isinstance(seed, np.random.Generator):
        raise ValueError("seed must be a whole number or None (every width reuses it).")
    as_seed(seed)
    rows = _sweep_rows(schemes, regimes)
    rho = float(np.linalg.norm(x))

    # Per width: the standard-normal draw and the four sums everything below needs.
    sums = np.empty((4, widths.size))
    for column, d in enumerate(widths):
        g, G = gaussian_init(int(d), x.size, 1.0, 1.0, seed)
        h = G @ x
        if zero_output_init:
            g = g - (g @ h) / (h @ h) * h
        sums[:, column] = g @ g, h @ h, g @ h, np.sum(G * G)
    gg, hh, gh, frobenius = sums

    c_eta = np.array([TABLE_1[s][r][0] for s, r in rows])
    c_gamma = np.array([TABLE_1[s][r][1] for s, r in rows])
    c_u = np.array([SCALINGS[s]["c_u"] for s, _ in rows])
    c_w = np.array([SCALINGS[s]["c_w"] for s, _ in rows])
    predicted = tuple(
        phase(
            SCALINGS[s]["c_d"],
            TABLE_1[s][r][1],
            SCALINGS[s]["c_u"],
            SCALINGS[s]["c_w"],
            TABLE_1[s][r][0],
            TABLE_1[s][r][0],
        )
        for s, r in rows
    )
    width = widths.astype(np.float64)[None, :]
    gamma, sigma_u, sigma_w, eta = _powers(
        width, c_gamma[:, None], c_u[:, None], c_w[:, None], c_eta[:, None]
    )

    # Σp², Σq², Σpq of pᵢ, qᵢ = (√η hᵢ ± √η ρ uᵢ)/(2ρ) with u = σ_u g, h = σ_w G x
    # (docs/theory.md (2.2)).
    wide, tall = sigma_w**2 * hh, (rho * sigma_u) ** 2 * gg
    mixed = 2 * rho * sigma_u * sigma_w * gh
    factor = eta / (4 * rho**2)
    sum_p = factor * (wide + tall + mixed)
    sum_q = factor * (wide + tall - mixed)
    sum_pq = factor * (wide - tall)
    f0 = gamma * sigma_u * sigma_w * gh
    b = eta * gamma * rho * y  # √(η_uη_w)γρy
    g_P, g_Q = 2 * gamma**2 * rho**2 * sum_p, 2 * gamma**2 * rho**2 * sum_q  # 2γ²dρ²·(P, Q)
    rate = np.hypot(b, np.sqrt(g_P * g_Q))  # 1/t_c
    # (over: scales near the ends of the double range; require_finite below refuses them)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a_plus = np.where(b >= 0, rate + b, g_P * g_Q / (rate - b))
        a_minus = np.where(b >= 0, g_P * g_Q / (rate + b), rate - b)
        total = a_plus + a_minus  # = 2/t_c
        alpha_plus = (a_plus + g_Q) / (a_minus + g_P)
        # At t = ∞ (e^{−4t/t_c} = 0, φ = t_c/2): A = numerator/denominator, as in exact.
        numerator = (a_plus + g_Q) / total
        denominator = (a_minus + g_P) / total
        drive = 2 * gamma * rho * eta * (y - f0)  # numerator − denominator = φ·drive
        difference = drive / total
        root_num, root_den = np.sqrt(numerator), np.sqrt(denominator)
        grow = difference / (root_den * (root_num + root_den))  # √A − 1
        shrink = -difference / (root_num * (root_num + root_den))  # 1/√A − 1
        # K(∞)/K(0) − 1 = (Σp²(A − 1) + Σq²(1/A − 1))/(Σp² + Σq²) = φ·drive·(Σp²w₊ − Σq²w₋)/
        # (numerator·denominator·(Σp² + Σq²)), and with a₊a₋ = g_P g_Q,
        # Σp²a₊ − Σq²a₋ = Σp²(a₊ − g_Q)(a₊ + g_Q)/a₊, a₊ − g_Q = g_Q·2γρη(y + f₀)/(g_Q + a₋).
        plus_gap = g_Q * 2 * gamma * rho * eta * (y + f0) / (g_Q + a_minus)
        imbalance = sum_p * plus_gap * (a_plus + g_Q) / a_plus  # Σp²a₊ − Σq²a₋
        ntk = np.abs(imbalance * drive) / (total**2 * numerator * denominator * (sum_p + sum_q))
        # ζ = cos(p − q, p + q) at t = ∞ (u ∝ p − q, W x ∝ p + q with positive factors)
        grown, shrunk = 1 + grow, 1 + shrink  # √A, 1/√A
        dot = grown**2 * sum_p - shrunk**2 * sum_q  # (p − q)·(p + q) = AΣp² − Σq²/A
        cross = 2 * grown * shrunk * sum_pq
        spread = grown**2 * sum_p + shrunk**2 * sum_q
        zeta = dot / np.sqrt((spread - cross) * (spread + cross))
        moved = grow**2 * sum_p + 2 * grow * shrink * sum_pq + shrink**2 * sum_q  # ‖Δp + Δq‖²
        weight = np.sqrt(np.maximum(moved, 0.0) / eta) / (sigma_w * np.sqrt(frobenius))
    initial = gh / np.sqrt(gg * hh)
    require_finite("finite_width.width_sweep", zeta, ntk, weight, alpha_plus, rate, initial)
    return WidthSweep(
        widths=widths,
        schemes=tuple(s for s, _ in rows),
        regimes=tuple(r for _, r in rows),
        c_eta=c_eta,
        c_gamma=c_gamma,
        predicted_phase=predicted,
        x=x,
        y=y,
        seed=seed,
        zero_output_init=bool(zero_output_init),
        gamma=gamma,
        eta=eta,
        sigma_u=sigma_u,
        sigma_w=sigma_w,
        initial_alignment=initial,
        final_alignment=np.clip(zeta, -1.0, 1.0),
        ntk_change=ntk,
        weight_change=weight,
        alpha_plus=alpha_plus,
        t_c=1.0 / rate,
    )


# -- the networks the dashboard poses: data, output scale, initialisation, learning rates --------

__all__ += [
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


# -- the scaling phases over (c_η, c_γ): eq. 18, Theorem 2, Table 1 -----------------------------

__all__ += [
    "PHASES",
    "PhaseGrid",
    "PhasePlane",
    "PhaseRow",
    "PhaseTable",
    "TableEntry",
    "phase_table",
    "power_fit",
    "predicted_delta",
]

#: the scaling phases, in the order of their codes 0…3 in :class:`PhaseGrid`
PHASES = ("frozen", "kernel", "feature learning", "unstable")


@dataclass(frozen=True)
class TableEntry:
    """One block of Table 1 for one scheme: where it sits and the phase it is in."""

    block: str  #: one of :data:`TABLE_1_BLOCKS`
    c_eta: float
    c_gamma: float
    phase: str


@dataclass(frozen=True)
class PhaseGrid:
    """The phase of every point of a grid over (c_η, c_γ)."""

    etas: np.ndarray  #: (E,) c_η of the columns
    gammas: np.ndarray  #: (G,) c_γ of the rows
    codes: np.ndarray  #: (G, E) index into :data:`PHASES`
    m: np.ndarray  #: (G, E) the exponent m of eq. 18 (0 exactly on the line m = 0)


@dataclass(frozen=True)
class PhasePlane:
    """The scaling phases of one initialisation over the learning-rate and output-scale exponents
    (c_η, c_γ) — Xu & Ziyin §4, eq. 18 and Theorem 2 (docs/theory.md §2).

    The initialisation is a scheme of :data:`SCALINGS` (its c_d, c_u, c_w; its own c_γ is one
    of the plane's coordinates); ``zero_output_init`` assumes Chizat's zero initial output
    (case 2 of Theorem 2); ``split`` = c_ηu − c_ηw shares the learning-rate exponent c_η
    unevenly between the layers (case 3): ``c_ηu = c_η + split/2``, ``c_ηw = c_η − split/2``.
    """

    scheme: str
    zero_output_init: bool = False
    split: float = 0.0

    def __post_init__(self) -> None:
        if self.scheme not in SCALINGS:
            raise ValueError(f"scheme must be one of {', '.join(SCALINGS)}; got {self.scheme!r}.")
        as_finite_scalar("split", self.split)

    @classmethod
    def as_in_table(cls, scheme: str) -> PhasePlane:
        """The plane as Table 1 assumes it: equal learning rates, a zero initial output for the
        "lazy" scheme (Chizat et al.) only."""
        return cls(scheme, zero_output_init=scheme == "lazy")

    @property
    def exponents(self) -> tuple[float, float, float]:
        """(c_d, c_u, c_w) of the scheme."""
        scaling = SCALINGS[self.scheme]
        return scaling["c_d"], scaling["c_u"], scaling["c_w"]

    def shares_initialisation(self, scheme: str) -> bool:
        """Whether ``scheme`` has this plane's (c_d, c_u, c_w) (NTK and MF do)."""
        return PhasePlane(scheme).exponents == self.exponents

    def learning_rates(self, c_eta: float) -> tuple[float, float]:
        """(c_ηu, c_ηw) at the plane's c_η."""
        half = self.split / 2
        return c_eta + half, c_eta - half

    def terms(self, c_eta: float, c_gamma: float) -> PhaseTerms:
        c_d, c_u, c_w = self.exponents
        return phase_terms(
            c_d,
            c_gamma,
            c_u,
            c_w,
            *self.learning_rates(c_eta),
            zero_output_init=self.zero_output_init,
        )

    def phase(self, c_eta: float, c_gamma: float) -> str:
        """:func:`phase` at (c_η, c_γ)."""
        c_d, c_u, c_w = self.exponents
        return phase(
            c_d,
            c_gamma,
            c_u,
            c_w,
            *self.learning_rates(c_eta),
            zero_output_init=self.zero_output_init,
        )

    def boundary(self, c_eta) -> np.ndarray:
        """c_γ of the line m = 0 at each ``c_eta``. Both terms of eq. 18 are 2c_γ plus a function
        of the learning rates alone — ``c_ηu + c_ηw`` and ``c_d + max(c_ηw + c_u, c_ηu + c_w)``
        — so m = 0 ⇔ c_γ = −max(the two)/2."""
        c_d, c_u, c_w = self.exponents
        etas = np.atleast_1d(np.asarray(c_eta, dtype=float))
        eta_u, eta_w = self.learning_rates(etas)
        feature = eta_u + eta_w
        kernel = c_d + np.maximum(eta_w + c_u, eta_u + c_w)
        return -np.maximum(feature, kernel) / 2

    @property
    def kink(self) -> float:
        """c_η where the two terms of eq. 18 are equal: left of it the initialisation (kernel)
        term sets m, right of it the feature term. Their difference falls with slope −1 in
        c_η, so the kink is that difference at c_η = 0."""
        c_d, c_u, c_w = self.exponents
        half = self.split / 2
        return c_d + max(c_u - half, c_w + half)

    @property
    def left_phase(self) -> str:
        """The phase of the line m = 0 left of the kink (kernel iff P/Q → 1 there, Theorem 2;
        right of it the line always learns features)."""
        c_eta = self.kink - 1.0
        return self.phase(c_eta, float(self.boundary(c_eta)[0]))

    def grid(self, etas: np.ndarray, gammas: np.ndarray) -> PhaseGrid:
        """The phase at every (c_η, c_γ) of a grid: frozen below the line m = 0, unstable above
        it, and on it (where |m| < 10⁻⁶) as :meth:`phase` decides."""
        etas = np.asarray(etas, dtype=float)
        gammas = np.asarray(gammas, dtype=float)
        m = 2 * gammas[:, None] - 2 * self.boundary(etas)[None, :]
        codes = np.where(m < 0, PHASES.index("frozen"), PHASES.index("unstable"))
        for row, column in zip(*np.nonzero(np.abs(m) < 1e-6), strict=True):
            name = self.phase(float(etas[column]), float(gammas[row]))
            codes[row, column] = PHASES.index(name)
            if name in ("kernel", "feature learning"):
                m[row, column] = 0.0
        return PhaseGrid(etas, gammas, codes, m)

    def table(self, scheme: str | None = None) -> tuple[TableEntry, ...]:
        """Table 1's four points of ``scheme`` (this plane's by default), each with the phase it
        has on this plane — for another scheme, at this plane's initialisation."""
        row = TABLE_1[self.scheme if scheme is None else scheme]
        return tuple(
            TableEntry(block, *row[block], self.phase(*row[block])) for block in TABLE_1_BLOCKS
        )


@dataclass(frozen=True)
class PhaseRow:
    """One scheme of Table 1 in :func:`phase_table`."""

    scheme: str
    exponents: tuple[float, float, float, float]  #: (c_d, c_γ, c_u, c_w)
    #: the scheme's phase at the learning-rate exponents asked about
    yours: str
    table: tuple[TableEntry, ...]  #: its four blocks of Table 1, as Table 1 assumes them


@dataclass(frozen=True)
class PhaseTable:
    """The §4 rule for one set of exponents, and for every scheme of Table 1."""

    terms: PhaseTerms
    phase: str
    rows: tuple[PhaseRow, ...]


def phase_table(
    c_d: float,
    c_gamma: float,
    c_u: float,
    c_w: float,
    c_eta_u: float,
    c_eta_w: float,
    *,
    zero_output_init: bool = False,
    independent_init: bool = True,
) -> PhaseTable:
    """The terms and phase of these exponents (:func:`phase_terms`, :func:`phase`), and each
    scheme of Table 1 — its own phase at these learning-rate exponents and its four blocks —
    with Table 1's assumptions (Xu & Ziyin §4, docs/theory.md §2)."""
    flags = {"zero_output_init": zero_output_init, "independent_init": independent_init}
    exponents = (c_d, c_gamma, c_u, c_w, c_eta_u, c_eta_w)
    rows = []
    for scheme, scaling in SCALINGS.items():
        own = (scaling["c_d"], scaling["c_gamma"], scaling["c_u"], scaling["c_w"])
        plane = PhasePlane.as_in_table(scheme)
        yours = phase(*own, c_eta_u, c_eta_w, zero_output_init=plane.zero_output_init)
        rows.append(PhaseRow(scheme, own, yours, plane.table()))
    return PhaseTable(phase_terms(*exponents, **flags), phase(*exponents, **flags), tuple(rows))


def predicted_delta(scheme: str, regime: str) -> float:
    """The exponent δ of ``‖W(∞) − W(0)‖/‖W(0)‖ ∝ κ^{−δ}`` that Xu & Ziyin's App. B.4 estimates
    for a Table-1 pair: 0 in the feature-learning phase; in the kernel phase
    ``−(2c_γ + c_ηu + c_ηw)/2`` when c_u = c_w, else ``−(2c_γ + c_ηu + c_ηw)``."""
    if regime not in ("kernel", "feature learning"):
        raise ValueError(f"regime must be 'kernel' or 'feature learning'; got {regime!r}.")
    if regime != "kernel":
        return 0.0
    c_eta, c_gamma = TABLE_1[scheme]["kernel"]
    scaling = SCALINGS[scheme]
    exponent = 2 * c_gamma + 2 * c_eta
    return -exponent / 2 if scaling["c_u"] == scaling["c_w"] else -exponent


def power_fit(widths: np.ndarray, values: np.ndarray) -> float | None:
    """The exponent k of a power law ``values ∝ widths^k``: the least-squares slope of
    log(values) against log(widths) over the positive, finite values; None without two
    distinct widths to fit."""
    widths = np.asarray(widths, dtype=float)
    values = np.asarray(values, dtype=float)
    keep = (values > 0) & np.isfinite(values) & (widths > 0)
    if np.count_nonzero(keep) < 2 or np.ptp(np.log(widths[keep])) == 0:
        return None
    return float(np.polyfit(np.log(widths[keep]), np.log(values[keep]), 1)[0])


# -- a Table-1 scheme at a finite κ -------------------------------------------------------------

__all__ += ["Scaled", "scaled"]


@dataclass(frozen=True)
class Scaled:
    """The hyperparameters of a Table-1 scheme at a finite κ (Xu & Ziyin §4): width, output
    scale, initial scales and learning rates, each a power of κ."""

    width: int
    gamma: float
    sigma_u: float
    sigma_w: float
    eta_u: float
    eta_w: float

    def network(self, y: float, seed: int | None = 0) -> Network:
        """Its network on the data point x = 1, Gaussian layers from ``seed``: for κ = d the
        network of :func:`width_sweep`'s row at that width."""
        return network(
            self.width,
            y=y,
            gamma=self.gamma,
            sigma_u=self.sigma_u,
            sigma_w=self.sigma_w,
            seed=seed,
            eta_u=self.eta_u,
            eta_w=self.eta_w,
        )

    def rescaled(self, s: float) -> Scaled:
        """The same network under the exact symmetry ``u, W → s u, s W``, ``γ → γ/s²``,
        ``η → s²η`` (their footnote 5; in exponents (c_u, c_w, c_η, c_γ) → (+θ, +θ, +θ, −θ)):
        the function and the path are unchanged, ``u(t), W(t) → s u(t), s W(t)``."""
        s = as_positive("s", s)
        return Scaled(
            self.width,
            self.gamma / s**2,
            self.sigma_u * s,
            self.sigma_w * s,
            self.eta_u * s**2,
            self.eta_w * s**2,
        )

    def balanced_scale(
        self,
        gamma_range: tuple[float, float],
        sigma_u_range: tuple[float, float],
        sigma_w_range: tuple[float, float],
    ) -> float | None:
        """The s of :meth:`rescaled` that puts γ/s², sσ_u and sσ_w inside the given ranges: 1
        if that works, else the s with γ/s² = 1, else the s nearest 1; None if none does."""
        log_gamma = float(np.log(self.gamma))
        low = max(
            (log_gamma - float(np.log(gamma_range[1]))) / 2,
            float(np.log(sigma_u_range[0] / self.sigma_u)),
            float(np.log(sigma_w_range[0] / self.sigma_w)),
        )
        high = min(
            (log_gamma - float(np.log(gamma_range[0]))) / 2,
            float(np.log(sigma_u_range[1] / self.sigma_u)),
            float(np.log(sigma_w_range[1] / self.sigma_w)),
        )
        if low > high:
            return None
        if low <= 0 <= high:
            return 1.0
        if low <= log_gamma / 2 <= high:
            return float(np.exp(log_gamma / 2))
        return float(np.exp(min(max(0.0, low), high)))


def scaled(
    scheme: str,
    kappa: float,
    *,
    c_gamma: float,
    c_eta_u: float,
    c_eta_w: float,
    width: int | None = None,
) -> Scaled:
    """``scheme``'s initialisation (:data:`SCALINGS`: σ_u = κ^{c_u/2}, σ_w = κ^{c_w/2}) at κ
    with output scale γ = κ^{c_γ} and learning rates η_u = κ^{c_ηu}, η_w = κ^{c_ηw}, at width
    ``width`` (κ itself by default, as for c_d = 1). :func:`width_sweep` builds its rows the
    same way, with κ = d."""
    if scheme not in SCALINGS:
        raise ValueError(f"scheme must be one of {', '.join(SCALINGS)}; got {scheme!r}.")
    kappa = as_positive("kappa", kappa)
    scaling = SCALINGS[scheme]
    gamma, sigma_u, sigma_w, eta_u = _powers(
        kappa,
        as_finite_scalar("c_gamma", c_gamma),
        scaling["c_u"],
        scaling["c_w"],
        as_finite_scalar("c_eta_u", c_eta_u),
    )
    eta_w = kappa ** as_finite_scalar("c_eta_w", c_eta_w)
    size = as_positive_int("width", round(kappa) if width is None else width)
    return Scaled(size, float(gamma), float(sigma_u), float(sigma_w), float(eta_u), float(eta_w))
