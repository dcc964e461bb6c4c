"""The gradient-descent steps between two records, compiled (numba) for small networks.

A step of a small network is a few thousand floating-point operations; numpy spends far longer
dispatching its ~25 array calls than computing them (about 30 µs a step at width 50 and 20
samples). This loop runs the same step, docs/networks.md (N4), (N5), (N12), one cell at a
time in compiled code, with no call per array operation. :mod:`._train` uses it where a step
of the chunk of cells is small (:data:`MAX_STEP_FLOPS`) and keeps numpy's batched matmuls for
larger ones, where BLAS is faster. Both run the same arithmetic; they differ by rounding only
(tests/unit compare them step by step).

Everything about a run that is not a step — validation, the initial state, what is recorded,
the NTK — stays in :mod:`._train`.
"""

from __future__ import annotations

import math

import numpy as np

from ._model import ACTIVATIONS, LEAKY_SLOPE

try:
    import numba
except ImportError:  # the engine needs numpy alone: without numba every step runs in numpy
    numba = None

__all__ = ["AVAILABLE", "MAX_STEP_FLOPS", "activation_code", "advance", "layout"]

#: whether numba is installed (a dependency of the project; the engine runs without it)
AVAILABLE = numba is not None

#: largest step run by the compiled loop, in matmul flops of a whole chunk of cells
#: (``_request._step_flops`` × cells). benchmarks/networks_speed.py: the compiled loop is 7.6
#: times faster at the network view's default (1.4e4), 3.5 at 2e5, 1.4 at 6e5; numpy's batched
#: matmuls are as fast near a million flops and 1.5 times as fast at five million
MAX_STEP_FLOPS = 7e5


def activation_code(activation: str) -> int:
    """The activation's index in :data:`ACTIVATIONS`, as the compiled loop takes it."""
    return ACTIVATIONS.index(activation)


def _compiled(function):
    """``function`` compiled once per machine (numba's on-disk cache), releasing the GIL. Sums
    may be reordered (and multiply-adds fused) so that loops vectorise; infinities and NaNs keep
    their meaning, which the divergence test needs. Without numba, ``function`` as it is."""
    if numba is None:
        return function
    return numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})(function)


# the codes of ACTIVATIONS, for the compiled branches (constants to numba)
_LINEAR, _RELU, _LEAKY, _TANH, _SIGMOID, _SWISH = map(
    activation_code, ("linear", "relu", "leaky_relu", "tanh", "sigmoid", "swish")
)


@_compiled
def _activate(code, z, value, slope):
    """σ(z) into ``value`` and σ'(z) into ``slope`` (docs/networks.md (N2)), as
    ``_model.activate`` computes them (the sigmoid as ½(1 + tanh(z/2)))."""
    rows, cols = z.shape
    for i in range(rows):
        for j in range(cols):
            x = z[i, j]
            if code == _LINEAR:
                value[i, j], slope[i, j] = x, 1.0
            elif code == _RELU:
                s = 1.0 if x > 0.0 else 0.0
                value[i, j], slope[i, j] = x * s, s
            elif code == _LEAKY:
                s = 1.0 if x > 0.0 else LEAKY_SLOPE
                value[i, j], slope[i, j] = x * s, s
            elif code == _TANH:
                v = math.tanh(x)
                value[i, j], slope[i, j] = v, 1.0 - v * v
            else:
                s = math.tanh(0.5 * x) * 0.5 + 0.5
                if code == _SIGMOID:
                    value[i, j], slope[i, j] = s, s * (1.0 - s)
                else:  # swish z·s, slope s + swish·(1 − s)
                    v = x * s
                    value[i, j], slope[i, j] = v, s + v * (1.0 - s)


@_compiled
def _product(inputs, W, out):
    """``out = inputs · Wᵀ``, the innermost loop over the longer of the two axes it can run
    along (so that it vectorises: a first layer has as few as one input)."""
    rows, cols, inner = out.shape[0], out.shape[1], W.shape[1]
    if inner >= cols:
        for i in range(rows):
            for j in range(cols):
                total = 0.0
                for k in range(inner):
                    total += inputs[i, k] * W[j, k]
                out[i, j] = total
    else:
        transposed = np.ascontiguousarray(W.T)  # (a few hundred numbers: cheap next to the sums)
        for i in range(rows):
            for j in range(cols):
                out[i, j] = 0.0
            for k in range(inner):
                a = inputs[i, k]
                for j in range(cols):
                    out[i, j] += a * transposed[k, j]


@_compiled
def _layer(flat, offsets, shapes, layer):
    """Layer ``layer`` of a flat parameter vector, as a ``(n_out, n_in)`` view."""
    start = offsets[layer]
    size = shapes[layer, 0] * shapes[layer, 1]
    return flat[start : start + size].reshape((shapes[layer, 0], shapes[layer, 1]))


@_compiled
def _units(buffer, starts, samples, widths, layer):
    """Layer ``layer``'s ``(n, n_l)`` view of a flat per-unit buffer."""
    start = starts[layer]
    return buffer[start : start + samples * widths[layer]].reshape((samples, widths[layer]))


@_compiled
def _forward(code, bce, params, layout, X, y, gamma, buffers):
    """The loss of the network ``params`` (flat) on (X, y), docs/networks.md (N1), (N4).

    Fills z, σ(z), σ'(z) of every layer (``buffers``) and the residual ``γ·∂L/∂f``, the
    gradient of the top layer's pre-activation, which :func:`_step` back-propagates.
    """
    offsets, shapes, starts = layout
    z, value, slope, residual = buffers
    samples, depth = X.shape[0], shapes.shape[0]
    widths = shapes[:, 0]
    inputs = X
    for layer in range(depth):
        out = _units(z, starts, samples, widths, layer)
        _product(inputs, _layer(params, offsets, shapes, layer), out)
        if layer < depth - 1:
            values = _units(value, starts, samples, widths, layer)
            _activate(code, out, values, _units(slope, starts, samples, widths, layer))
            inputs = values
    top = _units(z, starts, samples, widths, depth - 1)
    loss = 0.0
    for i in range(samples):
        for j in range(top.shape[1]):
            f = gamma * top[i, j]
            if bce:  # log(1 + e^(−m)) for the margin m = y·f, and its derivative −y·sigmoid(−m)
                m = y[i, j] * f
                loss += max(-m, 0.0) + math.log1p(math.exp(-abs(m)))
                s = math.tanh(-0.5 * m) * 0.5 + 0.5
                residual[i, j] = -y[i, j] * s / samples * gamma
            else:
                difference = f - y[i, j]
                loss += 0.5 * difference * difference
                residual[i, j] = difference / samples * gamma
    return loss / samples


@_compiled
def _step(params, new, rates, layout, X, buffers, grad):
    """``new_l = W_l − lr·η_l·∂L/∂W_l`` by back-propagation (docs/networks.md (N5)) from the
    residual of the last forward pass; returns whether every new weight is finite. The z
    buffer is overwritten with ``∂L/∂z_l`` (z itself is not needed any more)."""
    offsets, shapes, starts = layout
    z, value, slope, residual = buffers
    samples, depth = X.shape[0], shapes.shape[0]
    widths = shapes[:, 0]
    upstream = residual
    finite = True
    for layer in range(depth - 1, -1, -1):
        W = _layer(params, offsets, shapes, layer)
        g = _layer(grad, offsets, shapes, layer)
        inputs = X if layer == 0 else _units(value, starts, samples, widths, layer - 1)
        n_out, n_in = W.shape
        if n_in >= n_out:
            g[:, :] = 0.0
            for i in range(samples):
                for j in range(n_out):
                    u = upstream[i, j]
                    for k in range(n_in):
                        g[j, k] += u * inputs[i, k]
        else:  # accumulated transposed, so that the innermost loop runs along the longer axis
            transposed = np.zeros((n_in, n_out))
            for i in range(samples):
                for k in range(n_in):
                    x = inputs[i, k]
                    for j in range(n_out):
                        transposed[k, j] += upstream[i, j] * x
            g[:, :] = transposed.T
        if layer > 0:  # ∂L/∂z_{l−1} = (∂L/∂z_l · W_l) ⊙ σ'(z_{l−1}), from the old weights
            down = _units(z, starts, samples, widths, layer - 1)
            s = _units(slope, starts, samples, widths, layer - 1)
            for i in range(samples):
                for k in range(n_in):
                    down[i, k] = 0.0
                for j in range(n_out):
                    u = upstream[i, j]
                    for k in range(n_in):
                        down[i, k] += u * W[j, k]
                for k in range(n_in):
                    down[i, k] *= s[i, k]
            upstream = down
        target, rate = _layer(new, offsets, shapes, layer), rates[layer]
        for j in range(n_out):
            for k in range(n_in):
                w = W[j, k] - rate * g[j, k]
                target[j, k] = w
                if not math.isfinite(w):
                    finite = False
    return finite


@_compiled
def advance(code, bce, params, layout, X, y, gamma, rates, limit, alive, diverged, start, stop):
    """Steps ``start → stop`` of every live cell, in place in ``params``.

    A step whose weights are not finite, or whose loss is NaN or above the cell's ``limit``, is
    not taken: the cell stays at its last good state, ``alive[c]`` becomes False and
    ``diverged[c]`` the step (docs/networks.md (N12)), as in ``_steps._Chunk``.

    ``params`` ``(C, P)``: every cell's weights, layer after layer, each row-major
    ``(n_out, n_in)``; ``layout`` from :func:`layout`; ``X`` and ``y`` ``(1 or C, n, ·)``;
    ``gamma`` ``(C,)``, ``rates`` ``(C, L)`` (lr·η_l), ``limit`` ``(C,)``.
    """
    starts = layout[2]
    samples, units = X.shape[1], starts[-1] // X.shape[1]
    buffers = (
        np.empty(samples * units),
        np.empty(samples * units),
        np.empty(samples * units),
        np.empty((samples, y.shape[2])),
    )
    new, grad = np.empty(params.shape[1]), np.empty(params.shape[1])
    for c in range(params.shape[0]):
        if not alive[c]:
            continue
        Xc, yc = X[c if X.shape[0] > 1 else 0], y[c if y.shape[0] > 1 else 0]
        _forward(code, bce, params[c], layout, Xc, yc, gamma[c], buffers)
        for k in range(start, stop):
            finite = _step(params[c], new, rates[c], layout, Xc, buffers, grad)
            loss = np.nan
            if finite:  # the new state's loss, and the residual of the next step
                loss = _forward(code, bce, new, layout, Xc, yc, gamma[c], buffers)
            if not finite or not loss <= limit[c]:  # NaN fails the comparison
                alive[c] = False
                diverged[c] = k + 1
                break
            params[c, :] = new


def layout(widths: tuple[int, ...], samples: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each layer lives in the flat arrays of :func:`advance`: the offsets of its
    weights in a parameter row, its shape ``(n_out, n_in)``, and the offsets of its units in
    the per-unit buffers (one more entry: their total size)."""
    shapes = np.array(list(zip(widths[1:], widths[:-1], strict=True)), dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(shapes[:, 0] * shapes[:, 1])[:-1]])
    starts = np.concatenate([[0], np.cumsum(samples * shapes[:, 0])])
    return offsets.astype(np.int64), shapes, starts.astype(np.int64)
