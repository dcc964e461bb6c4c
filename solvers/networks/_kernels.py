"""Kernel baselines: frozen-kernel gradient flow and the fit of Shan & Bordelon's optimal
feature evolution to a network's alignment curve (docs/networks.md (N15), (N16))."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import feature_evolution
from .._validation import as_times
from ._model import MAX_ELEMENTS, broadcast_batch, finite_array, positive_array

__all__ = [
    "MAX_FIT_SIZE",
    "FeatureLearningFit",
    "akgd_rate",
    "equivalent_gamma",
    "fit_feature_learning_rate",
    "kernel_flow",
    "kernel_flow_at",
    "pooled_power",
    "power_law_exponent",
    "prepare_fit",
    "specialization",
    "task_power_exponent",
]


def _check_kernel(name: str, K: np.ndarray) -> np.ndarray:
    K = finite_array(name, K, min_ndim=2)
    if K.shape[-1] != K.shape[-2]:
        raise ValueError(f"{name} must be square (..., P, P); got shape {K.shape}.")
    scale = max(float(np.max(np.abs(K))), 1e-300)
    if np.max(np.abs(K - np.swapaxes(K, -1, -2))) > 1e-10 * scale:
        raise ValueError(f"{name} must be symmetric (an NTK); symmetrise it as (K + Kᵀ)/2.")
    return 0.5 * (K + np.swapaxes(K, -1, -2))


def _as_outputs(name: str, value, samples: int | None = None) -> np.ndarray:
    """``(n,)`` → ``(n, 1)``; otherwise ``(..., n, d_out)`` as given."""
    array = finite_array(name, value, min_ndim=1)
    if array.ndim == 1:
        array = array[:, None]
    if samples is not None and array.shape[-2] != samples:
        raise ValueError(f"{name} must have {samples} samples (rows); got shape {array.shape}.")
    return array


def _flow_arguments(K0, f0, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The checked ``(K0, f0, y)`` of a frozen-kernel flow: K0 the ``(n·d_out)²`` kernel of the
    outputs f0 ``(..., n, d_out)``, y with as many samples and columns."""
    K0 = _check_kernel("K0", K0)
    f0 = _as_outputs("f0", f0)
    samples, d_out = f0.shape[-2:]
    if samples * d_out != K0.shape[-1]:
        raise ValueError(
            f"K0 is {K0.shape[-1]}×{K0.shape[-1]} but f0 holds {samples}·{d_out} outputs; K0 "
            "must be the (n·d_out)×(n·d_out) kernel of those outputs."
        )
    y = _as_outputs("y", y, samples)
    if y.shape[-1] != d_out:
        raise ValueError(f"y must have {d_out} output columns like f0; got shape {y.shape}.")
    return K0, f0, y


def _modes(K0, f0, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """K₀'s eigenvalues (those below 0 by rounding set to 0), eigenvectors, and the initial
    residual ``f₀ − y`` (sample-major, like the kernel) in their basis."""
    values, vectors = np.linalg.eigh(K0)
    start = (f0 - y).reshape(*(f0 - y).shape[:-2], -1)
    return np.maximum(values, 0.0), vectors, np.einsum("...pq,...p->...q", vectors, start)


def kernel_flow(K0: np.ndarray, f0: np.ndarray, y: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Predictions ``(..., T, n, d_out)`` of gradient flow on ``(1/2n)Σ‖f − y‖²`` with the
    kernel frozen at K0 (Shan & Bordelon's kernel gradient descent; docs/networks.md (N15)):

        f' = −(1/n) K₀ (f − y)   ⇒   f(t) = y + V e^{−Λt/n} Vᵀ (f₀ − y),   K₀ = V Λ Vᵀ,

    exact through K0's eigendecomposition (eigenvalues below 0 by rounding count as 0).
    ``K0`` is ``(..., P, P)`` sample-major (P = n·d_out, as :func:`ntk` returns it), ``f0`` and
    ``y`` are ``(n, d_out)`` (``(n,)`` for one output) or carry batch axes; ``t`` are times ≥ 0
    in the units of ``t = steps·lr``.
    """
    K0, f0, y = _flow_arguments(K0, f0, y)
    samples, d_out = f0.shape[-2:]
    times = as_times(t)
    batch = broadcast_batch([K0.shape[:-2], f0.shape[:-2], y.shape[:-2]], ["K0", "f0", "y"])
    count = int(np.prod(batch)) * times.size * samples * d_out
    if count > MAX_ELEMENTS:
        raise ValueError(
            f"the result would hold {count:,} values; at most {MAX_ELEMENTS:,}. Ask for fewer "
            "times or a smaller batch."
        )
    values, vectors, coefficients = _modes(K0, f0, y)
    decay = np.exp(-np.multiply.outer(times, values) / samples)  # (T, ..., P) → move T
    decay = np.moveaxis(decay, 0, -2) if decay.ndim > 2 else decay
    modes = decay * coefficients[..., None, :]
    residual = np.einsum("...pq,...tq->...tp", vectors, modes)
    shaped = residual.reshape(*residual.shape[:-1], samples, d_out)
    return y[..., None, :, :] + shaped


def kernel_flow_at(
    K0: np.ndarray,
    K_cross: np.ndarray,
    f0: np.ndarray,
    f0_other: np.ndarray,
    y: np.ndarray,
    t: np.ndarray,
) -> np.ndarray:
    """Predictions ``(..., T, m, d_out)`` at other inputs (a test set) of the frozen-kernel flow
    of :func:`kernel_flow` (docs/networks.md (N15)).

    The other outputs follow the training residual through the cross kernel,
    ``g' = −(1/n) K_× (f − y)``, so with ``K₀ = VΛVᵀ``

        g(t) = g₀ − K_× V diag((1 − e^{−λt/n})/λ) Vᵀ (f₀ − y)      (t/n where λ = 0),

    exact (``expm1`` keeps small λt accurate). ``K_cross`` is ``(..., m·d_out, n·d_out)``, the
    NTK between the other inputs and the training inputs (:func:`ntk_between`), ``f0_other``
    the other inputs' initial outputs ``(m, d_out)``; the rest as in :func:`kernel_flow`.
    """
    K0, f0, y = _flow_arguments(K0, f0, y)
    samples, d_out = f0.shape[-2:]
    g0 = _as_outputs("f0_other", f0_other)
    if g0.shape[-1] != d_out:
        raise ValueError(f"f0_other must have {d_out} output columns like f0.")
    K_cross = finite_array("K_cross", K_cross, min_ndim=2)
    if K_cross.shape[-2:] != (g0.shape[-2] * d_out, samples * d_out):
        raise ValueError(
            f"K_cross must be (m·d_out, n·d_out) = ({g0.shape[-2] * d_out}, {samples * d_out}) "
            f"between the other and the training inputs; got {K_cross.shape}."
        )
    times = as_times(t)
    shapes = [K0.shape[:-2], K_cross.shape[:-2], f0.shape[:-2], g0.shape[:-2], y.shape[:-2]]
    batch = broadcast_batch(shapes, ["K0", "K_cross", "f0", "f0_other", "y"])
    count = int(np.prod(batch)) * times.size * g0.shape[-2] * d_out
    if count > MAX_ELEMENTS:
        raise ValueError(f"the result would hold {count:,} values; at most {MAX_ELEMENTS:,}.")
    values, vectors, coefficients = _modes(K0, f0, y)
    rates = np.multiply.outer(times, values) / samples  # (T, ..., P)
    with np.errstate(invalid="ignore", divide="ignore"):
        weight = np.where(
            values > 0, -np.expm1(-rates) / values, times.reshape(-1, *[1] * values.ndim) / samples
        )
    weight = np.moveaxis(weight, 0, -2) if weight.ndim > 2 else weight  # (..., T, P)
    integrated = np.einsum("...pq,...tq->...tp", vectors, weight * coefficients[..., None, :])
    moved = np.einsum("...mp,...tp->...tm", K_cross, integrated)
    shaped = moved.reshape(*moved.shape[:-1], g0.shape[-2], d_out)
    return g0[..., None, :, :] - shaped


def akgd_rate(K0: np.ndarray, K_final: np.ndarray) -> float:
    """The learning-rate factor of Shan & Bordelon's aKGD (Fig. 1A): kernel gradient descent
    with the initial NTK K₀ and a learning rate rescaled by the network's final NTK norm,
    ``‖K_final‖_F / ‖K₀‖_F`` — their "optimistic" baseline, which grants the frozen kernel the
    growth of the kernel's scale but none of its change of shape (docs/shan-bordelon.md,
    "aKGD"). The flow with ``c·K₀`` is the frozen flow at times ``c·t`` (:func:`kernel_flow`:
    K₀ and t enter only as their product), so aKGD is :func:`kernel_flow` at ``c·t``."""
    K0 = _check_kernel("K0", K0)
    K_final = _check_kernel("K_final", K_final)
    if K0.shape != K_final.shape:
        raise ValueError(
            f"K0 and K_final must be NTKs on the same points; got shapes {K0.shape} and "
            f"{K_final.shape}."
        )
    initial = float(np.linalg.norm(K0))
    if initial == 0:
        raise ValueError("K0 is zero: a frozen zero kernel has no learning rate to rescale.")
    return float(np.linalg.norm(K_final)) / initial


def specialization(K: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Shan & Bordelon's kernel specialization matrix (their eq. 16, Fig. 4): for C outputs,
    ``KSM(c, c') = A(K^{cc}, y^{c'}) / ((1/C) Σ_{c''} A(K^{c''c''}, y^{c'}))`` with the
    subkernels ``K^{cc}[μ, ν] = K[(μ,c), (ν,c)]`` of a sample-major NTK ``(n·C, n·C)`` and the
    alignment ``A(K, v) = vᵀKv/(‖K‖_F‖v‖²)`` (N8). Diagonal entries above 1: each output's
    kernel has aligned with its own target more than the outputs' kernels do on average.
    Returns ``(C, C)``; a column whose alignments all vanish is 0."""
    targets = _as_outputs("y", y)
    if targets.ndim != 2 or targets.shape[1] < 2:
        raise ValueError(f"y must be (n, C) with C ≥ 2 outputs; got {np.shape(y)}.")
    samples, outputs = targets.shape
    K = _check_kernel("K", K)
    if K.shape != (samples * outputs, samples * outputs):
        raise ValueError(
            f"K must be the ({samples * outputs}, {samples * outputs}) NTK of those outputs; got "
            f"{K.shape}."
        )
    blocks = K.reshape(samples, outputs, samples, outputs)
    sub = np.stack([blocks[:, c, :, c] for c in range(outputs)])  # (C, n, n)
    norms = np.sqrt(np.einsum("cij,cij->c", sub, sub))
    quadratic = np.einsum("id,cij,jd->cd", targets, sub, targets)  # (C kernels, C targets)
    sizes = np.sum(targets * targets, axis=0)
    denominator = norms[:, None] * sizes[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        alignment = np.where(denominator > 0, quadratic / denominator, 0.0)
        mean = alignment.mean(axis=0, keepdims=True)
        return np.where(mean != 0, alignment / np.where(mean != 0, mean, 1.0), 0.0)


def power_law_exponent(values: np.ndarray, *, floor: float = 1e-12) -> float | None:
    """The exponent p of ``values_k ∝ k^{−p}`` (k = 1, 2, …), a least-squares line through
    ``log values`` against ``log k`` over the entries above ``floor × values[0]`` (a spectrum's
    rounding tail is left out); None with fewer than three such entries. Shan & Bordelon
    Fig. 1D–E read b (eigenvalues) and a (task power) this way, before and after training."""
    values = finite_array("values", values, min_ndim=1)
    if values.ndim != 1:
        raise ValueError(f"values must be one-dimensional; got shape {values.shape}.")
    ranks = np.arange(1, values.size + 1, dtype=float)
    keep = values > floor * max(float(np.max(values)), 0.0)
    if np.count_nonzero(keep) < 3:
        return None
    slope = np.polyfit(np.log(ranks[keep]), np.log(values[keep]), 1)[0]
    return float(-slope)


#: eigenvalues closer than this fraction of the largest form one (near-)degenerate eigenspace:
#: its eigenvectors are any orthonormal basis of it (the samples' order and rounding pick one),
#: so the task power along each of them is arbitrary — only their sum is a property of the kernel
DEGENERATE = 1e-10


def pooled_power(
    eigenvalues: np.ndarray, power: np.ndarray, *, tolerance: float = DEGENERATE
) -> np.ndarray:
    """The task power ``v_k² = (u_kᵀy)²`` with every cluster of (near-)equal eigenvalues sharing
    its cluster's total equally (docs/shan-bordelon.md, "Degenerate spectra").

    ``eigenvalues`` are sorted, largest first (as :func:`solvers.feature_evolution.spectrum`
    returns them), ``power`` the power along each eigenvector. Neighbours whose gap is at most
    ``tolerance × max |λ|`` belong to one cluster (a chain of such gaps, too). Within an
    eigenspace the split of the power between eigenvectors depends on which basis the
    eigensolver returned — on the order of the samples — while the cluster's total does not:
    pooled, the power and every exponent fitted to it are the same for any order.
    """
    values = finite_array("eigenvalues", eigenvalues, min_ndim=1)
    power = finite_array("power", power, min_ndim=1)
    if values.ndim != 1 or power.shape != values.shape:
        raise ValueError(
            f"eigenvalues and power must be one-dimensional and of one length; got shapes "
            f"{values.shape} and {power.shape}."
        )
    if np.any(np.diff(values) > 0):
        raise ValueError("eigenvalues must be sorted, largest first (as spectrum() returns them).")
    if not np.isfinite(tolerance) or tolerance < 0:
        raise ValueError(f"tolerance must be a number >= 0; got {tolerance!r}.")
    if values.size == 0:
        return power.copy()
    scale = float(np.max(np.abs(values)))
    starts = np.concatenate([[True], -np.diff(values) > tolerance * scale])
    cluster = np.cumsum(starts) - 1
    totals = np.bincount(cluster, weights=power)
    sizes = np.bincount(cluster)
    return (totals / sizes)[cluster]


def task_power_exponent(
    eigenvalues: np.ndarray,
    power: np.ndarray,
    *,
    floor: float = 1e-12,
    tolerance: float = DEGENERATE,
) -> float | None:
    """The exponent a of the task power ``v_k² ∝ k^{−a}`` along a kernel's eigenvectors (Shan &
    Bordelon Fig. 1E), independent of the order of the samples.

    The power of (near-)equal eigenvalues is pooled first (:func:`pooled_power`), and only the
    ranks whose eigenvalue is resolved — above ``floor`` × the largest, as for b — are fitted
    (:func:`power_law_exponent`): below it the eigenvalues are rounding, their order says
    nothing and their eigenvectors are arbitrary. None with fewer than three such ranks (a
    kernel of rank one or two has no power law).
    """
    pooled = pooled_power(eigenvalues, power, tolerance=tolerance)
    values = np.asarray(eigenvalues, dtype=float)
    resolved = int(np.count_nonzero(values > floor * max(float(np.max(values)), 0.0)))
    return power_law_exponent(pooled[:resolved], floor=floor) if resolved >= 3 else None


def equivalent_gamma(
    gamma: float, y: np.ndarray, K_other: np.ndarray, y_other: np.ndarray
) -> float:
    """The feature-learning rate that gives the kernel ``K_other`` with targets ``y_other`` the
    same strength as ``gamma`` for a kernel of unit Frobenius norm with targets ``y`` — the γ of
    a :class:`FeatureLearningFit` carried to another task.

    Optimal feature evolution ends at ``K∞ = K₀ + γyyᵀ`` (Shan & Bordelon eq. 20): its
    alignment depends on γ only through ``γ‖y‖²/‖K₀‖_F``, so the equivalent rate is
    ``γ ‖y‖² ‖K_other‖_F / ‖y_other‖²``."""
    flat = finite_array("y", y, min_ndim=1).reshape(-1)
    other = finite_array("y_other", y_other, min_ndim=1).reshape(-1)
    K_other = _check_kernel("K_other", K_other)
    if not np.isfinite(gamma) or gamma < 0:
        raise ValueError(f"gamma must be a finite number >= 0; got {gamma!r}.")
    size, other_size = float(flat @ flat), float(other @ other)
    if size == 0 or other_size == 0:
        raise ValueError("y and y_other must be non-zero.")
    return float(gamma * size * np.linalg.norm(K_other) / other_size)


# -- the feature-learning rate γ (Shan & Bordelon Fig. 6D) ----------------------------------------

#: largest kernel (P × P) of a fit: each trial γ costs one O(P³) eigendecomposition, and a fit
#: tries about a hundred
MAX_FIT_SIZE = 400
#: the grid scanned before the local fit: γ·‖y‖² (the label kernel's size against ‖K₀‖ = 1) …
_GAMMA_GRID = np.geomspace(1e-4, 1e4, 17)
#: … and the time scale s (model time = s·t)
_SCALE_GRID = np.geomspace(1e-3, 1e1, 9)


@dataclass(frozen=True, eq=False)
class FeatureLearningFit:
    """Shan & Bordelon's optimal feature evolution fitted to a measured alignment curve."""

    gamma: float  #: fitted feature-learning rate γ (for the kernel normalised to ‖K₀‖_F = 1)
    time_scale: float  #: fitted s: the model at time s·t matches the network at t (1 if fixed)
    fitted: np.ndarray  #: (T,) the model's alignment at the measured times
    residual: float  #: root-mean-square difference between the model and the measurement
    gamma_final: float  #: γ from the last alignment alone (their eq. 20; inf if A ≥ 1)
    t: np.ndarray  #: (T,) the measured times
    alignment: np.ndarray  #: (T,) the measured alignment
    eta: float  #: the model's learning rate for the normalised kernel, η·‖K₀‖_F (before s)
    kernel_scale: float  #: ‖K₀‖_F
    #: standard error of ln γ from the search's Jacobian and residual (NaN if no search ran):
    #: above ~2 (a factor e² ≈ 7) the curve does not determine γ — ever larger γ on ever
    #: slower clocks fit it about as well — and ``gamma_final`` is the better estimate
    log_gamma_error: float = float("nan")


def _log_error(jacobian: np.ndarray, residual: np.ndarray) -> float:
    """Standard error of the first parameter (ln γ) of a least-squares fit: the residual's
    variance times the first diagonal entry of (JᵀJ)⁻¹; inf if JᵀJ is singular."""
    samples, parameters = jacobian.shape
    variance = float(residual @ residual) / max(samples - parameters, 1)
    try:
        covariance = np.linalg.inv(jacobian.T @ jacobian) * variance
    except np.linalg.LinAlgError:
        return float("inf")
    return float(np.sqrt(max(covariance[0, 0], 0.0)))


def _final_gamma(kernel: np.ndarray, y: np.ndarray, final: float) -> float:
    """Root γ ≥ 0 of ``A_∞(γ) = final`` for ‖K₀‖_F = 1 (Shan & Bordelon eq. 20).

    Squaring ``A·‖y‖²·√(1 + 2γb + γ²s²) = γs² + b`` (s = ‖y‖², b = yᵀK₀y) leaves a quadratic
    with root ``γs² = A√((s² − b²)/(1 − A²)) − b``; 0 when A is not above A₀ = b/s.
    """
    s = float(y @ y)
    b = float(y @ kernel @ y)
    if final >= 1.0:
        return float("inf")
    root = final * np.sqrt(max(s * s - b * b, 0.0) / (1.0 - final * final)) - b
    return max(root, 0.0) / (s * s)


def _check_fit(K0, y, t, alignment, eta):
    K0 = _check_kernel("K0", K0)
    if K0.ndim != 2:
        raise ValueError(f"K0 must be one (P, P) kernel; got shape {K0.shape}.")
    if K0.shape[0] > MAX_FIT_SIZE:
        raise ValueError(
            f"K0 may be at most {MAX_FIT_SIZE} wide for a fit; got {K0.shape[0]}. Fit the "
            "alignment of a subset of the samples."
        )
    targets = _as_outputs("y", y)
    if targets.ndim != 2 or targets.size != K0.shape[0]:
        raise ValueError(
            f"y must be (n, d_out) with n·d_out = {K0.shape[0]} (the size of K0); got "
            f"{np.shape(y)}."
        )
    times = as_times(t)
    measured = finite_array("alignment", alignment)
    if measured.shape != times.shape:
        raise ValueError(
            f"alignment must have one value per time ({times.size}); got shape {measured.shape}."
        )
    rate = 1.0 / targets.shape[0] if eta is None else positive_array("eta", eta)
    if not isinstance(rate, float):
        raise ValueError("eta must be a single number.")
    flat = targets.reshape(-1)
    if not np.any(K0 != 0) or not np.any(flat != 0):
        raise ValueError("K0 and y must be non-zero to fit an alignment curve.")
    return K0, flat, times, measured, rate


def prepare_fit() -> None:
    """Import what :func:`fit_feature_learning_rate` needs (scipy's optimiser, ~0.1 s): for a
    server that would rather pay it at start-up than in its first request."""
    import scipy.optimize  # noqa: F401


def fit_feature_learning_rate(
    K0: np.ndarray,
    y: np.ndarray,
    t: np.ndarray,
    alignment: np.ndarray,
    *,
    eta: float | None = None,
    fit_time_scale: bool = True,
) -> FeatureLearningFit:
    """The effective feature-learning rate γ of a trained network (Shan & Bordelon §7,
    Fig. 6D; docs/networks.md (N16)).

    Fits the alignment ``A(K(t), y)`` of their optimal-feature-evolution model
    (:func:`solvers.feature_evolution.exact`, from zero output, learning rate η) started at the
    network's initial NTK to the measured curve, by least squares. As in the paper K₀ is divided
    by ‖K₀‖_F first, so γ is comparable between architectures. With ``fit_time_scale`` (the
    default) a time scale s is fitted too — the model at time s·t against the network at t —
    since a network's features usually move on a slower clock than its function; without it
    s = 1. ``gamma_final`` solves their eq. 20 from the last alignment value alone (the paper's
    own estimate).

    Parameters
    ----------
    K0 : (P, P) the network's initial NTK (:func:`ntk`), P = n·d_out ≤ :data:`MAX_FIT_SIZE`.
    y : (n, d_out) or (n,) training targets (flattened sample-major, like the kernel).
    t, alignment : (T,) the measured curve (``Training.t``, ``Training.alignment``).
    eta : the model's learning rate in the network's time units; default ``1/n``, which makes
        the model at γ = 0 the network's frozen-kernel MSE flow ``f' = −(1/n)K(f − y)``.
    fit_time_scale : fit s as well as γ.

    Cost: about fifty evaluations of the model, each one eigendecomposition of a P × P
    matrix: a scan of γ‖y‖² ∈ [1e−4, 1e4] and s ∈ [1e−3, 10] (18), then a bounded least-squares
    search from the best of them (about 30, to a relative step of 1e−6 in γ and s; within
    γ‖y‖² ∈ [1e−6, 1e6] and s ∈ [1e−5, 1e3]). Some curves are fitted about as well by ever
    larger γ on ever slower clocks (γ·s about constant): the search stops somewhere along that
    valley, and ``log_gamma_error`` says that γ is not determined.
    """
    import scipy.optimize  # here: importing the engine stays light

    K0, flat, times, measured, rate = _check_fit(K0, y, t, alignment, eta)
    scale = float(np.linalg.norm(K0))
    kernel = K0 / scale
    model_eta = rate * scale
    size = float(flat @ flat)
    scales = _SCALE_GRID if fit_time_scale else np.ones(1)

    def curves(gamma: float, time_scales: np.ndarray) -> np.ndarray:
        """(S, T) model alignment for each time scale: one eigendecomposition for all."""
        stretched = np.multiply.outer(time_scales, times).reshape(-1)
        path = feature_evolution.exact(kernel, flat, stretched, eta=model_eta, gamma=gamma)
        return path.alignment.reshape(time_scales.size, times.size)

    def misfit(parameters: np.ndarray) -> np.ndarray:
        """Model minus measured curve at (log γ, log s)."""
        gamma = np.exp(parameters[0])
        time_scale = np.exp(parameters[1]) if fit_time_scale else 1.0
        return curves(gamma, np.array([time_scale]))[0] - measured

    # coarse scan: every γ of the grid with every time scale; γ = 0 (a frozen kernel) too
    candidates = [(0.0, 1.0)]
    scores = [float(np.mean((curves(0.0, np.ones(1))[0] - measured) ** 2))]
    for gamma in _GAMMA_GRID / size:
        errors = np.mean((curves(gamma, scales) - measured) ** 2, axis=1)
        best = int(np.argmin(errors))
        candidates.append((gamma, float(scales[best])))
        scores.append(float(errors[best]))
    gamma, time_scale = candidates[int(np.argmin(scores))]
    log_gamma_error = float("nan")
    if gamma > 0:
        # then a trust-region least-squares search on the residual curve: it needs about 30
        # evaluations where a simplex search on the summed error (Nelder–Mead) needed over 100
        free = slice(0, 2 if fit_time_scale else 1)
        start = np.log([gamma, time_scale])[free]
        # bounded: two decades beyond the scan's grids (an unbounded step can reach a γ whose
        # square overflows)
        low = np.log([_GAMMA_GRID[0] / size / 100, _SCALE_GRID[0] / 100])[free]
        high = np.log([_GAMMA_GRID[-1] / size * 100, _SCALE_GRID[-1] * 100])[free]
        search = scipy.optimize.least_squares(
            misfit, start, bounds=(low, high), method="trf", ftol=1e-6, xtol=1e-6
        )
        if np.mean(search.fun**2) <= min(scores):
            gamma = float(np.exp(search.x[0]))
            time_scale = float(np.exp(search.x[1])) if fit_time_scale else 1.0
            log_gamma_error = _log_error(search.jac, search.fun)
    fitted = curves(gamma, np.array([time_scale]))[0]
    return FeatureLearningFit(
        gamma=gamma,
        time_scale=time_scale,
        fitted=fitted,
        residual=float(np.sqrt(np.mean((fitted - measured) ** 2))),
        gamma_final=_final_gamma(kernel, flat, float(measured[-1])),
        t=times,
        alignment=measured,
        eta=model_eta,
        kernel_scale=scale,
        log_gamma_error=log_gamma_error,
    )
