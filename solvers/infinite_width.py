"""The infinite-width kernels of ReLU MLPs — the NNGP and the neural tangent kernel, closed
forms through the arc-cosine kernel — and the task of Shan & Bordelon's Fig. 2: the depth-3
ReLU NTK on the digits, even against odd (docs/shan-bordelon.md, "The infinite-width ReLU NTK").

A network in the NTK parametrisation (Jacot et al.; Neural Tangents' ``stax.Dense``) with L
weight layers of widths n_l → ∞,

    z¹ = (σ_w/√d) W¹x + σ_b b¹,   z^{l+1} = (σ_w/√n_l) W^{l+1} relu(z^l) + σ_b b^{l+1},
    f = z^L,   every W, b ~ N(0, 1) and trained at the same rate,

has the kernels (Arora et al. 2019, eqs. 4–6; Cho & Saul 2009 for the arc-cosine integrals)

    Σ¹(x, x') = σ_w² x·x'/d + σ_b²,
    Σ^{l+1} = σ_w² √(Σ^l(x,x) Σ^l(x',x')) (sin θ + (π − θ) cos θ)/(2π) + σ_b²,
    Σ̇^{l+1} = σ_w² (π − θ)/(2π),      cos θ = Σ^l(x,x')/√(Σ^l(x,x) Σ^l(x',x')),
    Θ¹ = Σ¹,   Θ^{l+1} = Σ^{l+1} + Θ^l Σ̇^{l+1};

the NTK is Θ^L and the NNGP Σ^L. Without biases the shape of Θ^L does not depend on σ_w (only
its scale, σ_w^{2L}).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import feature_evolution as fe
from ._validation import as_array, as_finite_scalar, as_positive_int, as_seed

__all__ = [
    "MAX_DEPTH",
    "MAX_POINTS",
    "ReluKernels",
    "digits_setup",
    "even_odd_digits",
    "relu_kernels",
    "relu_ntk",
]

#: most weight layers of a kernel (each adds one arc-cosine step)
MAX_DEPTH = 20
#: most points on either side of a kernel (it holds MAX_POINTS² entries per layer step)
MAX_POINTS = 2000


@dataclass(frozen=True)
class ReluKernels:
    """The infinite-width kernels between two sets of inputs."""

    nngp: np.ndarray  #: (n, m) Σ^L, the output's covariance at initialisation
    ntk: np.ndarray  #: (n, m) Θ^L, the neural tangent kernel


def _inputs(name: str, X) -> np.ndarray:
    X = as_array(name, X, ndim=2)
    if X.shape[0] > MAX_POINTS:
        raise ValueError(f"{name} may hold at most {MAX_POINTS} points; got {X.shape[0]}.")
    return X


def _arc_cosine(cross, left, right, same: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(√(Σ(x,x)Σ(x',x')), sin θ, θ) of a covariance, with cos θ clipped into [−1, 1] (a point
    with zero variance counts as orthogonal: its terms carry the factor 0 anyway). A point with
    itself (``same``: the diagonal) has θ = 0 exactly: arccos near 1 would turn the rounding of
    cos θ (~10⁻¹⁶) into θ ~ 10⁻⁸."""
    scale = np.sqrt(np.outer(left, right))
    with np.errstate(divide="ignore", invalid="ignore"):
        cosine = np.where(scale > 0, cross / scale, 0.0)
    angle = np.arccos(np.clip(cosine, -1.0, 1.0))
    if same:
        np.fill_diagonal(angle, 0.0)
    return scale, np.sin(angle), angle


def relu_kernels(
    X,
    X_other=None,
    *,
    depth: int,
    weight_std: float = 1.0,
    bias_std: float = 0.0,
) -> ReluKernels:
    """The infinite-width NNGP and NTK of a ReLU MLP with ``depth`` weight layers in the NTK
    parametrisation (the module's recursion), between the rows of ``X`` (n, d) and of
    ``X_other`` (m, d; default ``X``). ``weight_std`` σ_w and ``bias_std`` σ_b default to
    Neural Tangents' ``Dense`` (1 and 0). Exact to rounding; O(depth·n·m) after the Gram
    matrix."""
    X = _inputs("X", X)
    Y = X if X_other is None else _inputs("X_other", X_other)
    if Y.shape[1] != X.shape[1]:
        raise ValueError(f"X_other must have {X.shape[1]} features like X; got {Y.shape[1]}.")
    depth = as_positive_int("depth", depth, maximum=MAX_DEPTH)
    weight_var = as_finite_scalar("weight_std", weight_std) ** 2
    bias_var = as_finite_scalar("bias_std", bias_std) ** 2
    features = X.shape[1]
    cross = weight_var * (X @ Y.T) / features + bias_var
    left = weight_var * np.sum(X * X, axis=1) / features + bias_var
    right = weight_var * np.sum(Y * Y, axis=1) / features + bias_var
    tangent = cross
    for _ in range(depth - 1):
        scale, sine, angle = _arc_cosine(cross, left, right, X_other is None)
        cross = weight_var * scale * (sine + (np.pi - angle) * np.cos(angle)) / (2 * np.pi)
        cross += bias_var
        derivative = weight_var * (np.pi - angle) / (2 * np.pi)
        tangent = cross + tangent * derivative
        # on the diagonal θ = 0: E[relu(u)²] = Σ(x,x)/2
        left, right = weight_var * left / 2 + bias_var, weight_var * right / 2 + bias_var
    return ReluKernels(cross, tangent)


def relu_ntk(X, *, depth: int, weight_std: float = 1.0, bias_std: float = 0.0) -> np.ndarray:
    """The (n, n) infinite-width ReLU NTK of the rows of ``X`` (:func:`relu_kernels`),
    symmetrised against rounding."""
    ntk = relu_kernels(X, depth=depth, weight_std=weight_std, bias_std=bias_std).ntk
    return 0.5 * (ntk + ntk.T)


def even_odd_digits(samples: int, *, seed=0) -> tuple[np.ndarray, np.ndarray]:
    """``samples`` of the bundled 8 × 8 digits (all ten, pixels in [0, 1], drawn as
    :func:`solvers.networks.digits` draws them) with one output: y = +1 for an even digit, −1
    for an odd one (Shan & Bordelon's MNIST even-vs-odd task, Fig. 2). Returns (X, y)."""
    from .networks import digits  # the network engine is heavier; only this needs it

    samples = as_positive_int("samples", samples, maximum=MAX_POINTS)
    X, one_hot = digits(None, samples, seed=as_seed(seed))
    digit = np.argmax(one_hot, axis=1)
    return X, np.where(digit % 2 == 0, 1.0, -1.0)


def digits_setup(samples: int, *, depth: int = 3, seed: int = 0) -> fe.Setup:
    """Shan & Bordelon's Fig. 2 task as a :class:`solvers.feature_evolution.Setup`: K₀ the
    infinite-width depth-``depth`` ReLU NTK (:func:`relu_ntk`, σ_w = 1, no biases) of
    :func:`even_odd_digits`, y = ±1. Its ``a`` and ``b`` are the power-law exponents fitted to
    K₀'s task power and eigenvalues (:func:`solvers.networks.task_power_exponent`,
    :func:`solvers.networks.power_law_exponent`; NaN where there is none)."""
    from .networks import power_law_exponent, task_power_exponent

    X, y = even_odd_digits(samples, seed=seed)
    K0 = relu_ntk(X, depth=depth)
    spectrum = fe.spectrum(K0, y)
    b = power_law_exponent(spectrum.eigenvalues)
    a = task_power_exponent(spectrum.eigenvalues, spectrum.power)
    nan = float("nan")
    return fe.Setup(
        int(samples), nan if a is None else a, nan if b is None else b, int(seed), K0, y
    )
