"""Kernel baselines: frozen-kernel gradient flow and the fit of Shan & Bordelon's optimal
feature evolution to a network's alignment curve (docs/networks.md (N15), (N16))."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.optimize

from .. import feature_evolution
from .._validation import as_times
from ._model import MAX_ELEMENTS, broadcast_batch, finite_array, positive_array

__all__ = ["FeatureLearningFit", "fit_feature_learning_rate", "kernel_flow"]


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


def kernel_flow(K0: np.ndarray, f0: np.ndarray, y: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Predictions ``(..., T, n, d_out)`` of gradient flow on ``(1/2n)Σ‖f − y‖²`` with the
    kernel frozen at K0 (Shan & Bordelon's kernel gradient descent; docs/networks.md (N15)):

        f' = −(1/n) K₀ (f − y)   ⇒   f(t) = y + V e^{−Λt/n} Vᵀ (f₀ − y),   K₀ = V Λ Vᵀ,

    exact through K0's eigendecomposition (eigenvalues below 0 by rounding count as 0).
    ``K0`` is ``(..., P, P)`` sample-major (P = n·d_out, as :func:`ntk` returns it), ``f0`` and
    ``y`` are ``(n, d_out)`` (``(n,)`` for one output) or carry batch axes; ``t`` are times ≥ 0
    in the units of ``t = steps·lr``.
    """
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
    times = as_times(t)
    batch = broadcast_batch([K0.shape[:-2], f0.shape[:-2], y.shape[:-2]], ["K0", "f0", "y"])
    count = int(np.prod(batch)) * times.size * samples * d_out
    if count > MAX_ELEMENTS:
        raise ValueError(
            f"the result would hold {count:,} values; at most {MAX_ELEMENTS:,}. Ask for fewer "
            "times or a smaller batch."
        )
    values, vectors = np.linalg.eigh(K0)
    values = np.maximum(values, 0.0)
    start = (f0 - y).reshape(*(f0 - y).shape[:-2], -1)  # sample-major, like the kernel
    coefficients = np.einsum("...pq,...p->...q", vectors, start)
    decay = np.exp(-np.multiply.outer(times, values) / samples)  # (T, ..., P) → move T
    decay = np.moveaxis(decay, 0, -2) if decay.ndim > 2 else decay
    modes = decay * coefficients[..., None, :]
    residual = np.einsum("...pq,...tq->...tp", vectors, modes)
    shaped = residual.reshape(*residual.shape[:-1], samples, d_out)
    return y[..., None, :, :] + shaped


# -- the feature-learning rate γ (Shan & Bordelon Fig. 6D) ----------------------------------------

#: the grid scanned before the local fit: γ·‖y‖² (the label kernel's size against ‖K₀‖ = 1)
_GRID = np.geomspace(1e-4, 1e4, 17)


@dataclass(frozen=True, eq=False)
class FeatureLearningFit:
    """Shan & Bordelon's optimal feature evolution fitted to a measured alignment curve."""

    gamma: float  #: fitted feature-learning rate γ (for the kernel normalised to ‖K₀‖_F = 1)
    fitted: np.ndarray  #: (T,) the model's alignment at the measured times, for this γ
    residual: float  #: root-mean-square difference between the model and the measurement
    gamma_final: float  #: γ from the last alignment alone (their eq. 20; inf if A ≥ 1)
    t: np.ndarray  #: (T,) the measured times
    alignment: np.ndarray  #: (T,) the measured alignment
    eta: float  #: the model's learning rate for the normalised kernel: η·‖K₀‖_F
    kernel_scale: float  #: ‖K₀‖_F


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


def fit_feature_learning_rate(
    K0: np.ndarray,
    y: np.ndarray,
    t: np.ndarray,
    alignment: np.ndarray,
    *,
    eta: float | None = None,
) -> FeatureLearningFit:
    """The effective feature-learning rate γ of a trained network (Shan & Bordelon §7,
    Fig. 6D; docs/networks.md (N16)).

    Fits the alignment ``A(K(t), y)`` of their optimal-feature-evolution model
    (:func:`solvers.feature_evolution.exact`, from zero output) started at the network's
    initial NTK to the measured curve, by least squares in γ (a scan over γ‖y‖² ∈ [1e−4, 1e4],
    then a bounded Brent search). As in the paper, K₀ is divided by ‖K₀‖_F first, so γ is
    comparable between architectures. ``gamma_final`` solves their eq. 20 from the last
    alignment value alone.

    Parameters
    ----------
    K0 : (P, P) the network's initial NTK (:func:`ntk`), P = n·d_out ≤ 1000.
    y : (n, d_out) or (n,) training targets (flattened sample-major, like the kernel).
    t, alignment : (T,) the measured curve (``Training.t``, ``Training.alignment``).
    eta : the model's learning rate in the network's time units; default ``1/n``, which makes
        the model's kernel regime the network's MSE gradient flow ``f' = −(1/n)K(f − y)``.
    """
    K0 = _check_kernel("K0", K0)
    if K0.ndim != 2:
        raise ValueError(f"K0 must be one (P, P) kernel; got shape {K0.shape}.")
    if K0.shape[0] > feature_evolution.MAX_SWEEP_SAMPLES:
        raise ValueError(
            f"K0 may be at most {feature_evolution.MAX_SWEEP_SAMPLES} wide for a fit; got "
            f"{K0.shape[0]}."
        )
    targets = _as_outputs("y", y)
    if targets.ndim != 2 or targets.size != K0.shape[0]:
        raise ValueError(
            f"y must be (n, d_out) with n·d_out = {K0.shape[0]} (the size of K0); got "
            f"{np.shape(y)}."
        )
    samples = targets.shape[0]
    flat = targets.reshape(-1)
    times = as_times(t)
    measured = finite_array("alignment", alignment)
    if measured.shape != times.shape:
        raise ValueError(
            f"alignment must have one value per time ({times.size}); got shape {measured.shape}."
        )
    rate = 1.0 / samples if eta is None else positive_array("eta", eta)
    if not isinstance(rate, float):
        raise ValueError("eta must be a single number.")
    scale = float(np.linalg.norm(K0))
    if scale == 0 or not np.any(flat != 0):
        raise ValueError("K0 and y must be non-zero to fit an alignment curve.")
    kernel = K0 / scale
    model_eta = rate * scale
    size = float(flat @ flat)

    def curve(gamma: float) -> np.ndarray:
        return feature_evolution.exact(kernel, flat, times, eta=model_eta, gamma=gamma).alignment

    def error(log_gamma: float) -> float:
        return float(np.mean((curve(np.exp(log_gamma)) - measured) ** 2))

    grid = np.log(_GRID / size)
    errors = np.array([error(value) for value in grid])
    best = int(np.argmin(errors))
    low, high = grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]
    search = scipy.optimize.minimize_scalar(
        error, bounds=(low, high), method="bounded", options={"xatol": 1e-8}
    )
    log_gamma = float(search.x) if search.fun <= errors[best] else float(grid[best])
    gamma = float(np.exp(log_gamma))
    if float(np.mean((curve(0.0) - measured) ** 2)) < min(errors[best], search.fun):
        gamma = 0.0  # a frozen kernel explains the curve better than any γ > 0
    fitted = curve(gamma)
    return FeatureLearningFit(
        gamma=gamma,
        fitted=fitted,
        residual=float(np.sqrt(np.mean((fitted - measured) ** 2))),
        gamma_final=_final_gamma(kernel, flat, float(measured[-1])),
        t=times,
        alignment=measured,
        eta=model_eta,
        kernel_scale=scale,
    )
