"""The exact model a trained network tends to where one exists: a two-layer *linear* network on
inputs that lie on a line is Xu & Ziyin's finite-width model (:mod:`solvers.finite_width`,
their Prop. 1), solved exactly (docs/networks.md, "Linear limits"; docs/theory.md §2).

:func:`linear_limit` maps the engine's conventions onto that model and its solution back, so
that a view can draw the exact curves over the simulated ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import finite_width
from .._validation import as_times
from ._model import Network, check_inputs
from ._request import _check_layer_lrs, _check_targets

__all__ = ["LinearLimit", "admits_linear_limit", "linear_limit"]


@dataclass(frozen=True, eq=False)
class LinearLimit:
    """The exact gradient flow of a two-layer linear network on one-dimensional data, in the
    engine's units (docs/networks.md (N4)–(N11)): the curves :func:`solvers.networks.train`
    tends to as lr → 0."""

    t: np.ndarray  #: (T,) times, in the units of ``t = steps·lr``
    loss: np.ndarray  #: (T,) training loss (1/2n)Σ(f − y)²
    test_loss: np.ndarray | None  #: (T,) loss on the test set, None without one
    zeta: np.ndarray  #: (T,) layer alignment (N10), |ζ| of the exact model
    kernel_norm: np.ndarray  #: (T,) ‖K_t‖_F of the NTK (N6) on the training inputs
    parameter_distance: np.ndarray  #: (T,) ‖θ_t − θ₀‖₂ (N11)
    slope: np.ndarray  #: (T,) the network's function f(x) = slope·x
    rho: float  #: the model's data point ρ = √(Σx²/n)
    target: float  #: the model's target ȳ = Σxy/(nρ)
    trajectory: finite_width.FiniteWidthTrajectory  #: the model's own solution


def admits_linear_limit(net: Network, X: np.ndarray, loss: str = "mse") -> bool:
    """Whether :func:`linear_limit` applies: one network (no batch axes), two layers, linear
    activation, one input and one output, the mean-square loss, inputs not all zero."""
    X = np.asarray(X, dtype=float)
    return (
        isinstance(net, Network)
        and net.batch_shape == ()
        and net.depth == 2
        and net.activation == "linear"
        and net.d_in == 1
        and net.d_out == 1
        and loss == "mse"
        and X.ndim == 2
        and bool(np.any(X != 0))
    )


def linear_limit(
    net: Network,
    X: np.ndarray,
    y: np.ndarray,
    t: np.ndarray,
    *,
    layer_lrs: Sequence[float] | None = None,
    X_test: np.ndarray | None = None,
    y_test: np.ndarray | None = None,
) -> LinearLimit:
    """The exact flow of ``net`` (two layers, linear, one input, one output) on ``(X, y)``
    under the engine's mean-square loss, from :func:`solvers.finite_width.exact`.

    The network is ``f(x) = β x`` with ``β = γ Σᵢ uᵢwᵢ`` (``W₁ = w``, ``W₂ = uᵀ``). With
    ``S = Σx²``, ``ρ = √(S/n)`` and ``ȳ = Σxy/(nρ)`` the engine's loss is
    ``(1/2n)Σ(βx_μ − y_μ)² = ½(βρ − ȳ)² + c`` with ``c = (1/2n)(Σy² − (Σxy)²/S)`` (what no β
    fits): half the finite-width loss ``(f(ρ) − ȳ)²`` on the single point ρ, plus c. Half the
    loss is the same flow at half the learning rates, so ``layer_lrs = (η₁, η₂)`` are
    ``η_w = η₁/2``, ``η_u = η₂/2`` there (docs/networks.md, "Linear limits"). Back in the
    engine's units: ``ζ = |ζ_fw|``; the NTK on the data is ``x xᵀ·2K_fw/ρ²``, so
    ``‖K‖_F = 2n·K_fw``.
    """
    if not admits_linear_limit(net, X):
        raise ValueError(
            "the exact limit needs one two-layer linear network with one input and one output, "
            "on inputs that are not all zero."
        )
    X = check_inputs("X", X, 1)
    y = _check_targets("y", y, X, 1, "mse")
    if y.ndim != 2:
        raise ValueError("y must be (n, 1) (one data set for the one network).")
    eta_w, eta_u = (float(rate) for rate in _check_layer_lrs(layer_lrs, 2))
    times = as_times(t)
    x, target = X[:, 0], y[:, 0]
    samples, size = x.size, float(x @ x)
    rho = float(np.sqrt(size / samples))
    moment = float(x @ target)
    model_target = moment / (samples * rho)
    unfit = max(0.5 / samples * (float(target @ target) - moment**2 / size), 0.0)
    W0, u0 = net.weights[0], net.weights[1][0]
    gamma = float(net.gamma)
    path = finite_width.exact(
        u0, W0, np.array([rho]), model_target, times, gamma=gamma, eta_u=eta_u / 2, eta_w=eta_w / 2
    )
    slope = path.output / rho
    test_loss = None
    if X_test is not None and y_test is not None:
        X_test = check_inputs("X_test", X_test, 1)
        y_test = _check_targets("y_test", y_test, X_test, 1, "mse")
        residual = slope[:, None] * X_test[None, :, 0] - y_test[None, :, 0]
        test_loss = 0.5 * np.mean(residual**2, axis=1)
    moved = np.sqrt(
        np.sum((path.u - u0) ** 2, axis=1) + np.sum((path.W - W0[None]) ** 2, axis=(1, 2))
    )
    return LinearLimit(
        t=times,
        loss=path.loss / 2 + unfit,
        test_loss=test_loss,
        zeta=np.abs(path.zeta),
        kernel_norm=2 * samples * path.ntk,
        parameter_distance=moved,
        slope=slope,
        rho=rho,
        target=model_target,
        trajectory=path,
    )
