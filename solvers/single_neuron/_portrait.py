"""The single neuron's lazy/rich phase portrait over the scale τ and the conserved δ (Kunin et
al. Fig. 1b): every cell of the grid an exact trajectory of :func:`solvers.single_neuron.exact`,
evaluated for all cells at once on the eigen-structure exact() uses (:mod:`._geometry`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import as_array, as_positive, as_times, guard_overflow, require_finite
from ._geometry import eigenplane, margins, unit

__all__ = [
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
    direction = unit("direction", direction, beta_star.shape[0])
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

    # F's eigen-structure per δ, as exact() has it: ±ω on span{β̂*, e_a}, −δ/2 on r̂.
    plane = eigenplane(deltas, np.sqrt(eta_a * eta_w) * target_norm)  # (D,)
    plus_x, plus_a = plane.plus_x, plane.plus_a  # minus ⟂ plus: (−plus_a, plus_x)
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
    rates = np.stack([plane.omega, -plane.omega, -0.5 * deltas], axis=-1)[None, :, :]  # (1, D, 3)
    state_sq = plane_x**2 + plane_a**2 + coefficients[..., 2] ** 2
    margin = margins(plane, plane_x, plane_a, state_sq)

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
