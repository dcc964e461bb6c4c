"""The network itself: weights with batch axes, activations, the forward pass and the size caps.

``f(x) = γ · W_L σ(W_{L−1} … σ(W₁x))`` with no biases (docs/networks.md (N1)). Every weight
array may carry leading batch axes, so one :class:`Network` can hold a whole grid of networks of
one architecture; every function here broadcasts over them.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import as_positive_int

__all__ = [
    "ACTIVATIONS",
    "LEAKY_SLOPE",
    "MAX_CELLS",
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "MAX_SAMPLES",
    "MAX_WIDTH",
    "Network",
    "activate",
    "forward",
    "stack",
]

#: activations σ of docs/networks.md (N2)
ACTIVATIONS = ("linear", "relu", "leaky_relu", "tanh", "sigmoid", "swish")
#: slope of leaky ReLU for negative inputs
LEAKY_SLOPE = 0.01

# -- size caps (docs/networks.md, "Caps"): one request stays bounded in time and memory ---------

#: most weight layers L
MAX_DEPTH = 8
#: most units in any layer, input and output included
MAX_WIDTH = 2048
#: most samples n in a training or test set
MAX_SAMPLES = 2000
#: most networks ("cells") in one batch
MAX_CELLS = 1024
#: most float64 entries of one array a call returns (forward outputs, NTKs): 128 MB
MAX_ELEMENTS = 2**24


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def finite_array(name: str, value: Any, *, min_ndim: int = 0) -> np.ndarray:
    """``value`` as a finite float64 array with at least ``min_ndim`` axes (a fresh copy)."""
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as error:
        raise ValueError(
            f"{name} must be an array of real numbers; got {_describe(value)} ({error})."
        ) from None
    if array.ndim < min_ndim:
        raise ValueError(
            f"{name} must have at least {min_ndim} axes; got an array of shape {array.shape}."
        )
    if array.size == 0:
        raise ValueError(f"{name} must not be empty; got shape {array.shape}.")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or infinite entries; pass finite numbers only.")
    return array


def positive_array(name: str, value: Any) -> np.ndarray | float:
    """A finite, strictly positive scalar (returned as float) or array of them."""
    array = finite_array(name, value)
    if np.any(array <= 0):
        raise ValueError(f"{name} must be > 0 everywhere; the smallest given is {array.min():g}.")
    return float(array) if array.ndim == 0 else array


def check_cells(shape: tuple[int, ...], what: str) -> int:
    cells = math.prod(shape)
    if cells > MAX_CELLS:
        raise ValueError(
            f"{what} has {cells:,} networks in its batch (shape {shape}); at most {MAX_CELLS:,} "
            "train in one call. Use a coarser grid or split it over several calls."
        )
    return cells


def check_activation(activation: Any) -> str:
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        raise ValueError(
            f"activation must be one of {', '.join(ACTIVATIONS)}; got {_describe(activation)}."
        )
    return activation


def broadcast_batch(shapes: Sequence[tuple[int, ...]], names: Sequence[str]) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        listing = ", ".join(f"{name} {shape}" for name, shape in zip(names, shapes, strict=True))
        raise ValueError(
            f"the batch axes do not broadcast together: {listing}. Give every batched argument "
            "the same leading axes (or length-1 axes where it is shared)."
        ) from None


@dataclass(frozen=True, eq=False)
class Network:
    """A fully connected network ``f(x) = γ · W_L σ(W_{L−1} … σ(W₁x))`` without biases
    (docs/networks.md (N1)), possibly a whole batch of them.

    ``weights[l]`` has shape ``(..., n_{l+1}, n_l)``, layer 1 first; the leading axes are batch
    axes and broadcast between layers and with ``gamma`` (a scalar or an array over the batch
    axes). ``activation`` is one of :data:`ACTIVATIONS` (docs/networks.md (N2)). The arrays are
    copied and made read-only.
    """

    weights: tuple[np.ndarray, ...]
    activation: str = "relu"
    gamma: float | np.ndarray = 1.0

    def __post_init__(self) -> None:
        if isinstance(self.weights, np.ndarray) or not isinstance(self.weights, Sequence):
            raise ValueError(
                "weights must be a sequence of arrays (one per layer, layer 1 first); got "
                f"{_describe(self.weights)}."
            )
        if not 1 <= len(self.weights) <= MAX_DEPTH:
            raise ValueError(
                f"weights must hold between 1 and {MAX_DEPTH} layers; got {len(self.weights)}."
            )
        weights = tuple(
            finite_array(f"weights[{index}]", layer, min_ndim=2)
            for index, layer in enumerate(self.weights)
        )
        for index in range(1, len(weights)):
            fan_in, previous = weights[index].shape[-1], weights[index - 1].shape[-2]
            if fan_in != previous:
                raise ValueError(
                    f"weights[{index}] has {fan_in} columns but weights[{index - 1}] has "
                    f"{previous} rows: shapes (..., n_out, n_in) must chain, so weights[{index}] "
                    f"needs {previous} columns."
                )
        for index, layer in enumerate(weights):
            if max(layer.shape[-2:]) > MAX_WIDTH:
                raise ValueError(
                    f"weights[{index}] has shape {layer.shape}; layers may have at most "
                    f"{MAX_WIDTH} units."
                )
            layer.flags.writeable = False
        activation = check_activation(self.activation)
        gamma = positive_array("gamma", self.gamma)
        if isinstance(gamma, np.ndarray):
            gamma.flags.writeable = False
        shapes = [layer.shape[:-2] for layer in weights] + [np.shape(gamma)]
        names = [f"weights[{index}]" for index in range(len(weights))] + ["gamma"]
        check_cells(broadcast_batch(shapes, names), "this network")
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "activation", activation)
        object.__setattr__(self, "gamma", gamma)

    @property
    def depth(self) -> int:
        """Number of weight layers L."""
        return len(self.weights)

    @property
    def widths(self) -> tuple[int, ...]:
        """``(d_in, n_1, …, d_out)``."""
        return (self.weights[0].shape[-1], *(layer.shape[-2] for layer in self.weights))

    @property
    def d_in(self) -> int:
        return self.widths[0]

    @property
    def d_out(self) -> int:
        return self.widths[-1]

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """The broadcast batch axes of the weights and γ (``()`` for a single network)."""
        return np.broadcast_shapes(
            *(layer.shape[:-2] for layer in self.weights), np.shape(self.gamma)
        )

    def cell(self, index: int | tuple[int, ...]) -> Network:
        """The single network at ``index`` of the batch axes."""
        batch = self.batch_shape
        index = index if isinstance(index, tuple) else (index,)
        if len(index) != len(batch) or not all(
            isinstance(i, numbers.Integral) and -n <= i < n
            for i, n in zip(index, batch, strict=True)
        ):
            raise ValueError(
                f"index must address one cell of the batch shape {batch}; got {index}."
            )
        weights = tuple(
            np.broadcast_to(layer, batch + layer.shape[-2:])[index] for layer in self.weights
        )
        gamma = np.broadcast_to(self.gamma, batch)[index]
        return Network(weights, self.activation, float(gamma))


def stack(networks: Sequence[Network]) -> Network:
    """One batched network (a new leading axis) from single networks of one architecture."""
    if not networks:
        raise ValueError("networks must hold at least one Network.")
    first = networks[0]
    for index, net in enumerate(networks):
        if not isinstance(net, Network):
            raise ValueError(f"networks[{index}] is not a Network; got {_describe(net)}.")
        if net.widths != first.widths or net.activation != first.activation:
            raise ValueError(
                f"networks[{index}] has widths {net.widths} and activation {net.activation!r}; "
                f"all must match networks[0] ({first.widths}, {first.activation!r})."
            )
        if net.batch_shape != ():
            raise ValueError(f"networks[{index}] is itself a batch; stack single networks only.")
    weights = tuple(
        np.stack([net.weights[layer] for net in networks]) for layer in range(first.depth)
    )
    gammas = np.array([net.gamma for net in networks], dtype=np.float64)
    gamma = float(gammas[0]) if np.all(gammas == gammas[0]) else gammas
    return Network(weights, first.activation, gamma)


def sigmoid(z: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``1/(1 + e^{−z})`` as ``½(1 + tanh(z/2))``: no overflow for any z."""
    out = np.multiply(z, 0.5, out=out)
    np.tanh(out, out=out)
    out *= 0.5
    out += 0.5
    return out


def activate(
    activation: str,
    z: np.ndarray,
    value: np.ndarray | None = None,
    slope: np.ndarray | None = None,
    *,
    need_slope: bool = False,
) -> tuple[np.ndarray, np.ndarray | None]:
    """``(σ(z), σ'(z))`` of docs/networks.md (N2); the slope only when ``need_slope``.

    ``value`` and ``slope`` are optional output buffers shaped like z (the training loop reuses
    them every step). For the linear activation ``σ(z)`` is z itself and the slope is None
    (meaning 1): nothing to compute or multiply.
    """
    if activation == "linear":
        return z, None
    if value is None:
        value = np.empty_like(z)
    if need_slope and slope is None:
        slope = np.empty_like(z)
    if activation in ("relu", "leaky_relu"):
        # One comparison gives the pattern; σ(z) = z·σ'(z) for these homogeneous activations.
        pattern = slope if need_slope else value
        np.greater(z, 0.0, out=pattern)
        if activation == "leaky_relu":
            pattern *= 1.0 - LEAKY_SLOPE
            pattern += LEAKY_SLOPE
        np.multiply(z, pattern, out=value)
    elif activation == "tanh":
        np.tanh(z, out=value)
        if need_slope:
            np.multiply(value, value, out=slope)
            np.subtract(1.0, slope, out=slope)
    else:  # sigmoid, swish: s = sigmoid(z)
        s = sigmoid(z, out=slope if need_slope else value)
        if activation == "sigmoid":
            if need_slope:
                np.copyto(value, s)
                # σ' = s(1 − s), written into the slope buffer that holds s
                np.multiply(s, 1.0 - s, out=slope)
        else:
            if need_slope:
                np.multiply(z, s, out=value)  # swish = z·s
                # σ' = s + z·s(1 − s) = s + swish·(1 − s)
                slope += value * (1.0 - s)
            else:
                np.multiply(z, s, out=value)
    return value, (slope if need_slope else None)


def gamma_column(gamma: float | np.ndarray) -> float | np.ndarray:
    """γ shaped to broadcast against ``(..., n, d_out)`` outputs."""
    return gamma if np.ndim(gamma) == 0 else np.asarray(gamma)[..., None, None]


def check_inputs(name: str, value: Any, d_in: int) -> np.ndarray:
    """Inputs ``(n, d_in)`` or ``(..., n, d_in)`` (finite, at most :data:`MAX_SAMPLES` rows)."""
    X = finite_array(name, value, min_ndim=2)
    if X.shape[-1] != d_in:
        raise ValueError(
            f"{name} has {X.shape[-1]} features per sample (shape {X.shape}) but the network "
            f"takes {d_in} inputs; pass {name} of shape (n, {d_in})."
        )
    if X.shape[-2] > MAX_SAMPLES:
        raise ValueError(
            f"{name} has {X.shape[-2]:,} samples; at most {MAX_SAMPLES:,} are allowed. Use a "
            "subset."
        )
    return X


def forward(net: Network, X: np.ndarray) -> np.ndarray:
    """Outputs ``f(x_μ)`` of every network of the batch, shape ``(..., n, d_out)``
    (docs/networks.md (N1)); ``X`` is ``(n, d_in)`` or ``(..., n, d_in)`` with batch axes that
    broadcast against the network's."""
    if not isinstance(net, Network):
        raise ValueError(f"net must be a Network; got {_describe(net)}.")
    X = check_inputs("X", X, net.d_in)
    batch = broadcast_batch([net.batch_shape, X.shape[:-2]], ["net", "X"])
    check_size(
        "this forward pass",
        "values per layer",
        math.prod(batch) * X.shape[-2] * max(net.widths),
        f"batch {batch}, {X.shape[-2]} samples, widest layer {max(net.widths)}",
    )
    hidden = X
    for index, layer in enumerate(net.weights):
        z = hidden @ np.swapaxes(layer, -1, -2)
        hidden = z if index == net.depth - 1 else activate(net.activation, z)[0]
    return gamma_column(net.gamma) * hidden


def check_size(what: str, unit: str, size: int, shape: str) -> None:
    """The one size guard of the network engine: an array a call would build may hold at most
    :data:`MAX_ELEMENTS` entries (``ValueError`` naming ``what`` and its ``shape``)."""
    if size > MAX_ELEMENTS:
        raise ValueError(
            f"{what} would hold {size:,} {unit} ({shape}); at most {MAX_ELEMENTS:,}. "
            "Use fewer samples or a smaller batch."
        )


def positive_count(name: str, value: Any, maximum: int, *, minimum: int = 1) -> int:
    return as_positive_int(name, value, minimum=minimum, maximum=maximum)
