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

__all__ = [
    "AVAILABLE",
    "FUSED_MAX_INPUTS",
    "MAX_STEP_FLOPS",
    "activation_code",
    "advance",
    "layout",
    "runs_compiled",
    "runs_fused",
]

#: whether numba is installed (a dependency of the project; the engine runs without it)
AVAILABLE = numba is not None

#: largest step run by the compiled loop, in matmul flops of a whole chunk of cells
#: (``_request._step_flops`` × cells). benchmarks/networks_speed.py: the layer-by-layer loop is
#: 1.6 times faster at depth 4 and 6e5 flops; numpy's batched matmuls are faster above it
MAX_STEP_FLOPS = 7e5

#: networks of one hidden layer with at most this many inputs, and an activation without
#: a transcendental function (:data:`FUSED_ACTIVATIONS`), run compiled however many there are
#: (:func:`_advance_two_layer`; benchmarks/networks_speed.py, numpy's batched matmuls against
#: it on the same networks): 2.5 times as fast as numpy on Kunin et al.'s map of 256
#: networks at d = 2, 1.5 for 64 at d = 5, as fast at d = 8, slower from d = 10 on
FUSED_MAX_INPUTS = 5

#: the activations of those: the others' tanh, one element at a time here, is ~3 times as
#: slow as numpy's on a batch (a 12 × 12 tanh map took 2.7 s instead of 0.8)
FUSED_ACTIVATIONS = ("relu", "leaky_relu", "linear")


def runs_fused(widths: tuple[int, ...], activation: str) -> bool:
    """Whether networks of ``widths`` and ``activation`` train in the fused compiled pass of
    one hidden layer (numba there) however many there are: what their training time is made
    of (a view's time estimate) depends on it."""
    fused = len(widths) == 3 and widths[0] <= FUSED_MAX_INPUTS and activation in FUSED_ACTIVATIONS
    return AVAILABLE and fused


def runs_compiled(widths: tuple[int, ...], activation: str, cells: int, step_flops: float) -> bool:
    """Whether a chunk of ``cells`` networks of ``widths`` and ``activation``, ``step_flops``
    matmul flops a step in all, runs in the compiled loop (numba there) rather than in numpy."""
    return AVAILABLE and (step_flops <= MAX_STEP_FLOPS or runs_fused(widths, activation))


def activation_code(activation: str) -> int:
    """The activation's index in :data:`ACTIVATIONS`, as the compiled loop takes it."""
    return ACTIVATIONS.index(activation)


def _compiled(function=None, *, inline: bool = False):
    """``function`` compiled once per machine (numba's on-disk cache), releasing the GIL. Sums
    may be reordered (and multiply-adds fused) so that loops vectorise; infinities and NaNs keep
    their meaning, which the divergence test needs. ``inline``: written into each caller (a
    function called once a sample, whose call would cost more than its work). Without numba,
    ``function`` as it is."""
    if function is None:
        return lambda function: _compiled(function, inline=inline)
    if numba is None:
        return function
    options = {"inline": "always"} if inline else {}
    return numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"}, **options)(function)


# the codes of ACTIVATIONS, for the compiled branches (constants to numba)
_LINEAR, _RELU, _LEAKY, _TANH, _SIGMOID, _SWISH = map(
    activation_code, ("linear", "relu", "leaky_relu", "tanh", "sigmoid", "swish")
)
#: the hidden units of :func:`_advance_two_layer` are padded to a multiple of this many
_UNIT_BLOCK = 32
#: the largest finite double: a weight whose magnitude is not at most this is inf or NaN
_LARGEST = float(np.finfo(np.float64).max)


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


@_compiled(inline=True)
def _hidden_units(code, x, w, z, value, slope, top):
    """One sample's hidden layer from its first input ``x`` (weights ``w``) and the others'
    sum ``z``: σ into ``value``, σ' into ``slope`` (as :func:`_activate` computes them), and
    the first output's ``top · σ`` in the same loop. The activation's branch is outside the
    loops, so that each vectorises."""
    count, f = z.shape[0], 0.0
    if code == _RELU or code == _LEAKY:
        below = 0.0 if code == _RELU else LEAKY_SLOPE
        for j in range(count):
            pre = x * w[j] + z[j]
            s = 1.0 if pre > 0.0 else below
            v = pre * s
            value[j], slope[j] = v, s
            f += top[j] * v
    elif code == _LINEAR:
        for j in range(count):
            pre = x * w[j] + z[j]
            value[j], slope[j] = pre, 1.0
            f += top[j] * pre
    elif code == _TANH:
        for j in range(count):
            v = math.tanh(x * w[j] + z[j])
            value[j], slope[j] = v, 1.0 - v * v
            f += top[j] * v
    elif code == _SIGMOID:
        for j in range(count):
            s = math.tanh(0.5 * (x * w[j] + z[j])) * 0.5 + 0.5
            value[j], slope[j] = s, s * (1.0 - s)
            f += top[j] * s
    else:  # swish z·s, slope s + swish·(1 − s)
        for j in range(count):
            pre = x * w[j] + z[j]
            s = math.tanh(0.5 * pre) * 0.5 + 0.5
            v = pre * s
            value[j], slope[j] = v, s + v * (1.0 - s)
            f += top[j] * v
    return f


@_compiled(inline=True)
def _output_loss(bce, f, target, samples, gamma):
    """One output's loss on one sample from its ``top · σ(z)``, docs/networks.md (N1), (N4),
    and its residual ``γ·∂L/∂f``, as :func:`_forward` computes them."""
    f *= gamma
    if bce:  # log(1 + e^(−m)) for the margin m = y·f, and its derivative −y·sigmoid(−m)
        margin = target * f
        residual = -target * (math.tanh(-0.5 * margin) * 0.5 + 0.5) / samples * gamma
        return max(-margin, 0.0) + math.log1p(math.exp(-abs(margin))), residual
    difference = f - target
    return 0.5 * difference * difference, difference / samples * gamma


@_compiled
def _two_layer_pass(code, bce, first, second, X, y, gamma, grad_first, grad_second, scratch):
    """The loss of a network with one hidden layer and its gradients, docs/networks.md (N1),
    (N4), (N5), in one pass over the samples: each sample's forward pass, residual and
    back-propagation in as few loops along the hidden units as its inputs allow (three for
    one input and one output, four for two): below width ~30 a step takes as long whatever
    the width, its time spent in starting and ending loops, not in their work. ``first`` is
    the first layer transposed, ``(d, h)``, and ``grad_first`` its gradient, so that every
    loop runs along the hidden units; ``second`` ``(k, h)``; ``scratch`` three rows of h."""
    samples, inputs = X.shape
    outputs, hidden = second.shape
    z, value, slope = scratch[0], scratch[1], scratch[2]
    w, top, grad_w, grad_top = first[0], second[0], grad_first[0], grad_second[0]
    grad_first[:, :] = 0.0
    grad_second[:, :] = 0.0
    loss = 0.0
    for i in range(samples):
        if inputs == 1:  # z: the pre-activations from the inputs after the first
            for j in range(hidden):
                z[j] = 0.0
        else:
            x = X[i, 1]
            for j in range(hidden):
                z[j] = x * first[1, j]
            for m in range(2, inputs):
                x = X[i, m]
                for j in range(hidden):
                    z[j] += x * first[m, j]
        x = X[i, 0]
        f = _hidden_units(code, x, w, z, value, slope, top)
        sample_loss, r = _output_loss(bce, f, y[i, 0], samples, gamma)
        loss += sample_loss
        # from here on z holds ∂L/∂z of this sample
        if outputs == 1:  # (the usual case: the first input's gradient in the same loop)
            for j in range(hidden):
                grad_top[j] += r * value[j]
                u = r * top[j] * slope[j]
                grad_w[j] += x * u
                z[j] = u
        else:
            for j in range(hidden):
                grad_top[j] += r * value[j]
                z[j] = r * top[j]
            for o in range(1, outputs):
                f = 0.0
                for j in range(hidden):
                    f += second[o, j] * value[j]
                sample_loss, r = _output_loss(bce, f, y[i, o], samples, gamma)
                loss += sample_loss
                for j in range(hidden):
                    grad_second[o, j] += r * value[j]
                    z[j] += r * second[o, j]
            for j in range(hidden):
                z[j] *= slope[j]
                grad_w[j] += x * z[j]
        for m in range(1, inputs):
            x = X[i, m]
            for j in range(hidden):
                grad_first[m, j] += x * z[j]
    return loss / samples


@_compiled
def _descend(weights, grad, rate, new, cols):
    """``new = weights − rate·grad`` in the first ``cols`` columns (those after them are the
    padding of :func:`_advance_two_layer`, which stays 0); returns whether every new weight is
    finite: their sum times 0 is 0, or NaN if one is inf or NaN (a sum, not a branch, so that
    the loop vectorises)."""
    check = 0.0
    for r in range(weights.shape[0]):
        for j in range(cols):
            w = weights[r, j] - rate * grad[r, j]
            new[r, j] = w
            check += w * 0.0
    return check == 0.0


@_compiled
def _accept(new, weights):
    """``weights[:] = new`` (a loop: a slice assignment costs a view a step)."""
    rows, cols = weights.shape
    for r in range(rows):
        for j in range(cols):
            weights[r, j] = new[r, j]


@_compiled(inline=True)
def _two_layer_steps(code, bce, cell):
    """Steps ``start → stop`` of one network of one hidden layer, in place in ``first`` (its
    first layer transposed) and ``second``; returns the step at which it diverged (it stays at
    its last good state, as in :func:`advance`), or −1. ``cell``: ``(first, second, X, y,
    gamma, rates, limit, work, start, stop)``; ``work`` the buffers of the new state, the
    gradients, :func:`_two_layer_pass`'s scratch and the hidden units before the padding."""
    first, second, X, y, gamma, rates, limit, work, start, stop = cell
    new_first, new_second, grad_first, grad_second, scratch, hidden = work
    _two_layer_pass(code, bce, first, second, X, y, gamma, grad_first, grad_second, scratch)
    for k in range(start, stop):
        finite = _descend(first, grad_first, rates[0], new_first, hidden)
        finite &= _descend(second, grad_second, rates[1], new_second, hidden)
        loss = np.nan
        if finite:  # the new state's loss, and the gradient of the next step
            loss = _two_layer_pass(
                code, bce, new_first, new_second, X, y, gamma, grad_first, grad_second, scratch
            )
        if not finite or not loss <= limit:  # NaN fails the comparison
            return k + 1
        _accept(new_first, first)
        _accept(new_second, second)
    return -1


@_compiled
def _aligned_zeros(rows, cols):
    """A ``(rows, cols)`` array of zeros that starts on a 64-byte boundary (a cache line, and
    a 512-bit register's load): numpy's arrays start on 16-byte ones, and a vector load that
    crosses a cache line costs twice one that does not (~30 % of a step, from run to run)."""
    buffer = np.zeros(rows * cols + 8)
    skip = (64 - buffer.ctypes.data % 64) % 64 // 8
    return buffer[skip : skip + rows * cols].reshape((rows, cols))


@_compiled
def _specialised_steps(code, bce, cell):
    """:func:`_two_layer_steps` on ``cell``, written out for ReLU (the maps' and the network
    view's activation) with its code a constant: with the code a value the loops run about
    half as fast (the compiler keeps the activation's branches among them, and its inlining
    decisions vary from one build to the next). A copy for every activation and loss would
    take ~30 s to compile on a machine's first start; other activations spend their time in
    tanh."""
    if code == _RELU:
        return _two_layer_steps(_RELU, bce, cell)
    return _two_layer_steps(code, bce, cell)


@_compiled
def _advance_two_layer(
    code, bce, params, layout, X, y, gamma, rates, limit, alive, diverged, start, stop
):
    """:func:`advance` for networks of one hidden layer (the papers' two-layer networks and
    every map): one fused pass over the samples a step (:func:`_two_layer_pass`), with the
    first layer held transposed and the hidden units padded with zero units to a multiple of
    :data:`_UNIT_BLOCK` (a loop's tail that fills no whole block of vector registers runs
    element by element: at width 50, 18 of 50). A zero unit stays zero: its output weight is
    0, so the gradient of its input weights is 0, and its output weight is never updated."""
    shapes = layout[1]
    hidden, inputs, outputs = shapes[0, 0], shapes[0, 1], shapes[1, 0]
    padded = -(-hidden // _UNIT_BLOCK) * _UNIT_BLOCK
    size = hidden * inputs
    first, second = _aligned_zeros(inputs, padded), _aligned_zeros(outputs, padded)
    work = (
        _aligned_zeros(inputs, padded),
        _aligned_zeros(outputs, padded),
        _aligned_zeros(inputs, padded),
        _aligned_zeros(outputs, padded),
        _aligned_zeros(3, padded),
        hidden,
    )
    for c in range(params.shape[0]):
        if not alive[c]:
            continue
        Xc, yc = X[c if X.shape[0] > 1 else 0], y[c if y.shape[0] > 1 else 0]
        first[:, :hidden] = params[c, :size].reshape((hidden, inputs)).T
        second[:, :hidden] = params[c, size:].reshape((outputs, hidden))
        cell = (first, second, Xc, yc, gamma[c], rates[c], limit[c], work, start, stop)
        step = _specialised_steps(code, bce, cell)
        if step >= 0:
            alive[c] = False
            diverged[c] = step
        params[c, :size].reshape((hidden, inputs))[:, :] = first[:, :hidden].T
        params[c, size:].reshape((outputs, hidden))[:, :] = second[:, :hidden]


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
    if layout[1].shape[0] == 2:
        _advance_two_layer(
            code, bce, params, layout, X, y, gamma, rates, limit, alive, diverged, start, stop
        )
        return
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
