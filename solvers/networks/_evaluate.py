"""One evaluation of a batch of networks: loss, gradient and NTK (docs/networks.md (N4)–(N6)),
through the same batched passes that :func:`solvers.networks.train` runs at every step."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ._engine import Passes, cross_ntk_from_passes, ntk_from_passes, objective
from ._model import Network, broadcast_batch, check_inputs, check_size
from ._request import _cells_of, _check_layer_lrs, _check_loss, _check_targets, _per_cell

__all__ = [
    "active_units",
    "gradient",
    "loss_value",
    "neuron_vectors",
    "ntk",
    "ntk_between",
    "outputs_and_active_units",
]


def _single_passes(net: Network, X: np.ndarray, extra_shapes, extra_names):
    """Flattened cells for one forward pass with slopes: ``(passes, weights, gamma, batch)``."""
    batch = broadcast_batch(
        [net.batch_shape, X.shape[:-2], *extra_shapes], ["net", "X", *extra_names]
    )
    cells = math.prod(batch)
    weights = [_cells_of(W, batch, 2) for W in net.weights]
    inputs = X if X.ndim == 2 else _cells_of(X, batch, 2)
    passes = Passes(net.widths, net.activation, inputs, cells, slopes=True)
    gamma = _per_cell(net.gamma, batch)
    passes.forward(weights, gamma[:, None, None])
    return passes, weights, gamma, batch


def loss_value(net: Network, X: np.ndarray, y: np.ndarray, *, loss: str = "mse") -> np.ndarray:
    """The training loss ``(...)`` of every network of the batch (docs/networks.md (N4))."""
    kind = _check_loss(loss)
    X = check_inputs("X", X, net.d_in)
    y = _check_targets("y", y, X, net.d_out, kind)
    passes, _, _, batch = _single_passes(net, X, [y.shape[:-2]], ["y"])
    targets = y if y.ndim == 2 else _cells_of(y, batch, 2)
    return objective(kind, passes.output, targets).reshape(batch)


def gradient(
    net: Network, X: np.ndarray, y: np.ndarray, *, loss: str = "mse"
) -> tuple[np.ndarray, ...]:
    """``∂L/∂W_l`` for every layer, each ``(..., n_out, n_in)``, by the analytic
    back-propagation that :func:`train` uses (docs/networks.md (N5))."""
    kind = _check_loss(loss)
    X = check_inputs("X", X, net.d_in)
    y = _check_targets("y", y, X, net.d_out, kind)
    passes, weights, gamma, batch = _single_passes(net, X, [y.shape[:-2]], ["y"])
    targets = y if y.ndim == 2 else _cells_of(y, batch, 2)
    objective(kind, passes.output, targets, passes.residual)
    top = passes.residual * gamma[:, None, None]
    grads = passes.backward(weights, top, [np.empty_like(W) for W in weights])
    return tuple(g.reshape(batch + g.shape[1:]) for g in grads)


def ntk(
    net: Network, X: np.ndarray, *, layer_lrs: Sequence[float | np.ndarray] | None = None
) -> np.ndarray:
    """Empirical NTK ``K[(μ,c),(ν,c')] = Σ_l η_l Σ ∂f_c(x_μ)/∂W_l · ∂f_c'(x_ν)/∂W_l``, shape
    ``(..., n·d_out, n·d_out)``, sample-major (index ``μ·d_out + c``) (docs/networks.md (N6))."""
    X = check_inputs("X", X, net.d_in)
    rates = _check_layer_lrs(layer_lrs, net.depth)
    size = X.shape[-2] * net.d_out
    shapes = [np.shape(rate) for rate in rates]
    names = [f"layer_lrs[{i}]" for i in range(net.depth)]
    batch = broadcast_batch([net.batch_shape, X.shape[:-2], *shapes], ["net", "X", *names])
    size_of = math.prod(batch) * size * size
    check_size("this NTK", "entries", size_of, f"batch {batch}, n·d_out = {size}")
    passes, weights, gamma, batch = _single_passes(net, X, shapes, names)
    etas = [_per_cell(rate, batch) for rate in rates]
    return ntk_from_passes(passes, weights, gamma, etas).reshape((*batch, size, size))


def ntk_between(
    net: Network,
    X: np.ndarray,
    X_other: np.ndarray,
    *,
    layer_lrs: Sequence[float | np.ndarray] | None = None,
) -> np.ndarray:
    """The empirical NTK between two input sets, ``(..., n·d_out, m·d_out)`` for ``X (n, d_in)``
    and ``X_other (m, d_in)`` (or with batch axes), sample-major on both sides
    (docs/networks.md (N6)): ``K[(μ,c),(ν,c')] = Σ_l η_l Σ ∂f_c(x_μ)/∂W_l · ∂f_c'(x'_ν)/∂W_l``.

    With ``X_other = X`` it is :func:`ntk`; the block between training and test points is what
    a frozen-kernel flow predicts the test outputs with (:func:`kernel_flow_at`)."""
    X = check_inputs("X", X, net.d_in)
    X_other = check_inputs("X_other", X_other, net.d_in)
    rates = _check_layer_lrs(layer_lrs, net.depth)
    shapes = [np.shape(rate) for rate in rates]
    names = [f"layer_lrs[{i}]" for i in range(net.depth)]
    batch = broadcast_batch(
        [net.batch_shape, X.shape[:-2], X_other.shape[:-2], *shapes],
        ["net", "X", "X_other", *names],
    )
    rows, columns = X.shape[-2] * net.d_out, X_other.shape[-2] * net.d_out
    size_of = math.prod(batch) * rows * columns
    check_size("this NTK", "entries", size_of, f"batch {batch}, {rows} × {columns}")
    first, weights, gamma, batch = _single_passes(net, X, [X_other.shape[:-2], *shapes], names)
    cells = math.prod(batch)
    inputs = X_other if X_other.ndim == 2 else _cells_of(X_other, batch, 2)
    second = Passes(net.widths, net.activation, inputs, cells, slopes=True)
    second.forward(weights, gamma[:, None, None])
    etas = [_per_cell(rate, batch) for rate in rates]
    kernel = cross_ntk_from_passes(first, second, weights, gamma, etas)
    return kernel.reshape((*batch, rows, columns))


def active_units(net: Network, X: np.ndarray) -> np.ndarray:
    """How many hidden units are active (``z > 0``) at each input, ``(..., n)``, pooled over the
    hidden layers: the activation pattern that partitions the input space into the convex
    regions of Kunin et al. Fig. 5 (their parity colours the regions; docs/networks.md (N9))."""
    return outputs_and_active_units(net, X)[1]


def outputs_and_active_units(net: Network, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(forward(net, X), active_units(net, X))`` from one forward pass: the outputs
    ``(..., n, d_out)`` and the active hidden units ``(..., n)``."""
    if not isinstance(net, Network):
        raise ValueError(f"net must be a Network; got {net!r:.60}.")
    X = check_inputs("X", X, net.d_in)
    batch = broadcast_batch([net.batch_shape, X.shape[:-2]], ["net", "X"])
    check_size(
        "this forward pass",
        "values per layer",
        math.prod(batch) * X.shape[-2] * max(net.widths),
        f"batch {batch}, {X.shape[-2]} samples, widest layer {max(net.widths)}",
    )
    passes, _, _, batch = _single_passes(net, X, [], [])
    counts = sum(np.count_nonzero(pattern, axis=-1) for pattern in passes.patterns())
    if isinstance(counts, int):  # no hidden layer
        counts = np.zeros((math.prod(batch), X.shape[-2]), dtype=np.int64)
    outputs = passes.output.reshape((*batch, *passes.output.shape[1:]))
    return outputs, counts.reshape((*batch, X.shape[-2]))


def neuron_vectors(net: Network) -> np.ndarray:
    """Each hidden neuron's ``|aᵢ| wᵢ`` of a two-layer network with one output, ``(..., h, d_in)``:
    the points whose paths Kunin et al.'s Fig. 1a draws (for the ReLU network the neuron's
    function is ``aᵢ σ(wᵢᵀx) = sgn(aᵢ) σ(|aᵢ|wᵢᵀx)``, so its size and direction are in them)."""
    if not isinstance(net, Network) or net.depth != 2 or net.d_out != 1:
        raise ValueError("neuron_vectors needs a two-layer network with one output.")
    first, second = net.weights
    return np.abs(np.swapaxes(second, -1, -2)) * first
