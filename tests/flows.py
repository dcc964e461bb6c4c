"""Independent references for the solver tests: each model's raw gradient-flow ODE.

Written straight from the model definitions (docs/theory.md (1.2), (2.1), (3.1), (4.2)) on the
original parameters — no
change of variables, no closed form — and integrated with scipy's DOP853 at tight tolerance.
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

TOLERANCE = 1e-12


#: DOP853's stability interval on the negative real axis ends near −6; a step with h·ρ above
#: this fraction of it is no longer trusted
STABLE_STEP = 3.0


def integrate(
    rhs, y0: np.ndarray, t: np.ndarray, tolerance: float = TOLERANCE, atol: float | None = None
) -> np.ndarray:
    """Integrate ``y' = rhs(y)`` and return the states at ``t`` (shape (T, n)).

    ``atol`` defaults to ``tolerance``; pass a tiny one (1e-30) to check small states relatively.

    DOP853 does the work. Its error estimate has a blind spot: once the state has settled on
    a stiff equilibrium (every stage sees a right-hand side of rounding size), it lets the step
    grow tenfold per step far past the stability limit, and the result can be off by 1e-4.
    So the spectral radius ρ of the Jacobian at the end is measured, and from the first step
    longer than ``STABLE_STEP/ρ`` on, the tail is integrated again with Radau (implicit,
    L-stable) at the same tolerance.
    """
    unique, position = np.unique(t, return_inverse=True)
    atol = tolerance if atol is None else atol
    end = float(unique[-1])
    solution = solve_ivp(
        lambda _, y: rhs(y),
        (0.0, end),
        y0,
        method="DOP853",
        rtol=tolerance,
        atol=atol,
        dense_output=True,
    )
    assert solution.success, solution.message
    states = solution.sol(unique).T if end > 0 else np.asarray(y0, float)[None, :]
    steps = np.diff(solution.t)
    if steps.size:
        radius = spectral_radius(rhs, solution.y[:, -1])
        unstable = np.flatnonzero(steps * radius > STABLE_STEP)
        if unstable.size:
            start = solution.t[unstable[0]]
            tail = solve_ivp(
                lambda _, y: rhs(y),
                (start, end),
                solution.y[:, unstable[0]],
                method="Radau",
                rtol=tolerance,
                atol=atol,
                t_eval=unique[unique >= start],
            )
            assert tail.success, tail.message
            states[unique >= start] = tail.y.T
    return states[position]


def spectral_radius(rhs, y: np.ndarray, iterations: int = 40) -> float:
    """Largest |eigenvalue| of the Jacobian of ``rhs`` at ``y``, by power iteration on
    finite-difference Jacobian–vector products (gradient flows have a real spectrum)."""
    rng = np.random.default_rng(0)
    vector = rng.standard_normal(y.shape)
    vector /= np.linalg.norm(vector)
    base = rhs(y)
    epsilon = 1e-7 * (1.0 + np.linalg.norm(y))
    estimate = 0.0
    for _ in range(iterations):
        image = (rhs(y + epsilon * vector) - base) / epsilon
        estimate = float(np.linalg.norm(image))
        if estimate == 0.0 or not np.isfinite(estimate):
            return 0.0
        vector = image / estimate
    return estimate


def single_neuron(a0, w0, beta_star, t, eta_a=1.0, eta_w=1.0, tolerance=TOLERANCE, atol=None):
    """``a' = η_a(wᵀβ* − a‖w‖²)``, ``w' = η_w(aβ* − a²w)`` → (a (T,), w (T, d))."""

    def rhs(state):
        a, w = state[0], state[1:]
        return np.concatenate(
            [[eta_a * (w @ beta_star - a * (w @ w))], eta_w * (a * beta_star - a * a * w)]
        )

    states = integrate(rhs, np.concatenate([[a0], w0]), np.asarray(t, float), tolerance, atol)
    return states[:, 0], states[:, 1:]


def finite_width(u0, W0, x, y, t, gamma=1.0, eta_u=1.0, eta_w=1.0, tolerance=TOLERANCE, atol=None):
    """``L = (γ uᵀW x − y)²`` on (u, W) → (u (T, d), W (T, d, d₀))."""
    d, d0 = W0.shape

    def rhs(state):
        u, W = state[:d], state[d:].reshape(d, d0)
        hidden = W @ x
        error = 2 * gamma * (gamma * (u @ hidden) - y)
        return np.concatenate([-eta_u * error * hidden, (-eta_w * error * np.outer(u, x)).ravel()])

    states = integrate(rhs, np.concatenate([u0, W0.ravel()]), np.asarray(t, float), tolerance, atol)
    return states[:, :d], states[:, d:].reshape(-1, d, d0)


def two_layer(W1_0, W2_0, sigma_yx, t, tolerance=TOLERANCE):
    """``L = ½‖Σyx − W₂W₁‖²`` on (W₁, W₂) → (W1 (T, h, dᵢ), W2 (T, dₒ, h))."""
    hidden, d_in = W1_0.shape
    d_out = W2_0.shape[0]
    split = hidden * d_in

    def rhs(state):
        W1 = state[:split].reshape(hidden, d_in)
        W2 = state[split:].reshape(d_out, hidden)
        error = sigma_yx - W2 @ W1
        return np.concatenate([(W2.T @ error).ravel(), (error @ W1.T).ravel()])

    states = integrate(
        rhs, np.concatenate([W1_0.ravel(), W2_0.ravel()]), np.asarray(t, float), tolerance
    )
    return states[:, :split].reshape(-1, hidden, d_in), states[:, split:].reshape(-1, d_out, hidden)


def feature_evolution(features0, y, t, eta=1.0, gamma=1.0, tolerance=TOLERANCE):
    """``Δ' = −ηΨᵀΨΔ``, ``Ψ' = γηΨΔΔᵀ`` from Δ(0) = −y → (Δ (T, P), K = ΨᵀΨ (T, P, P))."""
    n_features, samples = features0.shape

    def rhs(state):
        residual = state[:samples]
        features = state[samples:].reshape(n_features, samples)
        kernel = features.T @ features
        return np.concatenate(
            [
                -eta * kernel @ residual,
                (gamma * eta * np.outer(features @ residual, residual)).ravel(),
            ]
        )

    states = integrate(
        rhs, np.concatenate([-y, features0.ravel()]), np.asarray(t, float), tolerance
    )
    features = states[:, samples:].reshape(-1, n_features, samples)
    return states[:, :samples], np.einsum("tni,tnj->tij", features, features)


def residual_flow(K0, y, t, eta=1.0, gamma=1.0, tolerance=TOLERANCE):
    """``Δ' = −η(C − γΔΔᵀ)Δ`` with ``C = K₀ + γyyᵀ`` — the residual alone, once the conserved
    C (checked on :func:`feature_evolution`) is substituted for K. Only P unknowns, so DOP853
    resolves it far better than the raw (Δ, Ψ) system with its N·P feature components."""
    conserved = K0 + gamma * np.outer(y, y)
    return integrate(
        lambda residual: -eta * (conserved - gamma * np.outer(residual, residual)) @ residual,
        -np.asarray(y, float),
        np.asarray(t, float),
        tolerance,
    )


def relative_error(approximate: np.ndarray, reference: np.ndarray, floor: float = 0.0) -> float:
    """``max_t ‖x(t) − x_ref(t)‖ / (‖x_ref(t)‖ + floor)`` over the flattened state at each time.

    ``floor`` stands for the integrator's own absolute accuracy: a state that has decayed
    below it cannot be compared relatively.
    """
    approximate = np.asarray(approximate).reshape(len(approximate), -1)
    reference = np.asarray(reference).reshape(len(reference), -1)
    difference = np.linalg.norm(approximate - reference, axis=1)
    return float(np.max(difference / (np.linalg.norm(reference, axis=1) + floor)))
