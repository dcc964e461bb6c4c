"""Metrics shared by all four models (docs/theory.md §5.1).

* kernel distance ``S(0, t) = 1 − ⟨K₀, K_t⟩_F / (‖K₀‖_F ‖K_t‖_F)`` — Fort et al. (2020), used as
  the lazy/rich diagnostic by Kunin et al. (§3, Fig. 1b/3c) and Dominé et al. (Fig. 5);
* kernel–target alignment ``A(K, y) = yᵀKy / (‖K‖_F ‖y‖²)`` — Cortes et al. (2012), Shan &
  Bordelon eq. (2);
* layer alignment ``ζ = uᵀh / (‖u‖ ‖h‖)`` — Xu & Ziyin §3.2, eq. (14).

All functions broadcast over leading (time) axes. Degenerate cases get a defined value instead of
NaN: a zero kernel has distance 0 from another zero kernel and 1 from a non-zero one, and a zero
vector has alignment 0.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "SADDLE_MARGIN",
    "cosine_similarity",
    "kernel_distance",
    "kernel_distance_from_changes",
    "kernel_distance_from_inner_products",
    "kernel_target_alignment",
    "layer_alignment",
    "on_saddle",
]

#: a start whose ``saddle_margin`` (the share of it along a saddle's growing direction: single
#: neuron (1.12), λ-balanced (3.19), feature evolution (4.7) in docs/theory.md) is below this
#: counts as on the saddle's stable manifold: the exact flow lingers at the saddle for a time
#: ∝ log(1/margin), and when a simulation escapes depends on its rounding errors. The views say
#: so and the maps count such cells.
SADDLE_MARGIN = 1e-8


def on_saddle(margin: np.ndarray | float) -> np.ndarray | bool:
    """Whether a ``saddle_margin`` (or an array of them) puts a start on a saddle's stable
    manifold (below :data:`SADDLE_MARGIN`)."""
    below = np.asarray(margin) < SADDLE_MARGIN
    return bool(below) if below.ndim == 0 else below


def kernel_distance_from_inner_products(
    inner_00: np.ndarray | float, inner_0t: np.ndarray, inner_tt: np.ndarray
) -> np.ndarray:
    """Kernel distance ``S(0, t)`` from the Frobenius inner products of K₀ and K_t
    (docs/theory.md (5.4)).

    Models whose kernels have structure (a Kronecker sum, a rank-one update) compute
    ``⟨K₀, K₀⟩``, ``⟨K₀, K_t⟩`` and ``⟨K_t, K_t⟩`` in O(d) per time point and never form
    the kernel; this turns those three numbers into the distance. Absolute accuracy is about
    1e-15 (the subtraction ``1 − cos`` cannot do better).
    """
    inner_00 = np.asarray(inner_00, dtype=np.float64)
    inner_0t = np.asarray(inner_0t, dtype=np.float64)
    inner_tt = np.asarray(inner_tt, dtype=np.float64)
    norm_product = np.sqrt(np.maximum(inner_00, 0.0)) * np.sqrt(np.maximum(inner_tt, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        cosine = np.where(norm_product > 0, inner_0t / norm_product, 0.0)
    distance = 1.0 - np.clip(cosine, -1.0, 1.0)
    both_zero = (inner_00 <= 0) & (inner_tt <= 0)
    return np.where(both_zero, 0.0, distance)


def kernel_distance_from_changes(
    initial_sq: float, initial_change: np.ndarray, change_sq: np.ndarray
) -> np.ndarray:
    """``S(0, t)`` from ``‖K₀‖²``, ``⟨K₀, D⟩`` and ``‖D‖²`` with ``D = K_t − K₀``
    (docs/theory.md (5.3)).

    By Lagrange's identity ``‖K₀‖²‖K_t‖² − ⟨K₀,K_t⟩² = ‖K₀‖²‖D‖² − ⟨K₀,D⟩²``, so

        S = (‖K₀‖²‖D‖² − ⟨K₀,D⟩²) / (‖K₀‖‖K_t‖ (‖K₀‖‖K_t‖ + ⟨K₀,K_t⟩)).

    When the kernel barely moves (the lazy regime) this keeps the relative accuracy of the
    change itself: S ~ 1e-20 comes out right, where ``1 − cos`` is rounding noise (~1e-16).
    Models compute the three numbers from the parameters' changes, in O(d) per time point.
    """
    initial_sq = float(initial_sq)
    initial_change = np.asarray(initial_change, dtype=np.float64)
    change_sq = np.maximum(np.asarray(change_sq, dtype=np.float64), 0.0)
    if initial_sq <= 0:
        return np.where(change_sq > 0, 1.0, 0.0)
    # Everything relative to ‖K₀‖², so that tiny (or huge) kernels neither underflow nor overflow.
    change = initial_change / initial_sq
    spread = change_sq / initial_sq
    final = np.maximum(1.0 + 2.0 * change + spread, 0.0)  # ‖K_t‖²/‖K₀‖²
    root = np.sqrt(final)
    numerator = np.maximum(spread - change**2, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        distance = numerator / (root * (root + 1.0 + change))
    return np.where(final > 0, np.clip(distance, 0.0, 2.0), 1.0)


def kernel_distance(kernel_0: np.ndarray, kernels: np.ndarray) -> np.ndarray:
    """``S(0, t)`` between one kernel matrix and a stack of kernel matrices (shape (..., n, n);
    docs/theory.md (5.2)).

    Computed as ``½‖K₀/‖K₀‖ − K_t/‖K_t‖‖²_F``, which equals ``1 − cos`` but keeps relative
    accuracy when the kernels barely move (the lazy regime, where S is tiny).
    """
    kernel_0 = np.asarray(kernel_0, dtype=np.float64)
    kernels = np.asarray(kernels, dtype=np.float64)
    norm_0 = np.linalg.norm(kernel_0)
    norms = np.sqrt(np.sum(kernels * kernels, axis=(-2, -1)))
    with np.errstate(invalid="ignore", divide="ignore"):
        unit_0 = kernel_0 / norm_0 if norm_0 > 0 else np.zeros_like(kernel_0)
        units = np.where(norms[..., None, None] > 0, kernels / norms[..., None, None], 0.0)
    difference = units - unit_0
    distance = 0.5 * np.sum(difference * difference, axis=(-2, -1))
    one_zero = (norms > 0) != (norm_0 > 0)
    return np.where(one_zero, 1.0, np.minimum(distance, 2.0))


def kernel_target_alignment(kernel: np.ndarray, target: np.ndarray) -> np.ndarray:
    """``A(K, y) = yᵀKy / (‖K‖_F ‖y‖²)`` for a kernel (…, P, P) and target (P,) (docs/theory.md
    (4.1))."""
    kernel = np.asarray(kernel, dtype=np.float64)
    target = np.asarray(target, dtype=np.float64)
    quadratic = np.einsum("i,...ij,j->...", target, kernel, target)
    norms = np.sqrt(np.sum(kernel * kernel, axis=(-2, -1))) * float(target @ target)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(norms > 0, quadratic / norms, 0.0)


def cosine_similarity(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Cosine of the angle between vectors along the last axis (0 where either is zero)."""
    first = np.asarray(first, dtype=np.float64)
    second = np.asarray(second, dtype=np.float64)
    dot = np.sum(first * second, axis=-1)
    norms = np.linalg.norm(first, axis=-1) * np.linalg.norm(second, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(norms > 0, np.clip(dot / norms, -1.0, 1.0), 0.0)


def layer_alignment(u: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """Layer alignment ``ζ = uᵀ(W x̂) / (‖u‖ ‖W x̂‖)`` (Xu & Ziyin §3.2; docs/theory.md (5.5)).

    ``hidden`` is the hidden pre-activation ``W x`` (any positive multiple of ``W x̂`` gives
    the same ζ). For input size 1 this is their ``cos(u, w)``.
    """
    return cosine_similarity(u, hidden)
