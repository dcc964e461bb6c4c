"""The step loop of :func:`solvers.networks.train`: a chunk of cells trained as one set of array
operations (or by the compiled loop, :mod:`._compiled`), its records evaluated many at a time,
the NTK tracked in blocks, and the diagnostics of docs/networks.md (N7)–(N11)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from . import _compiled, _request  # the budgets are read from _request when used (tests lower them)
from ._engine import Passes, ntk_from_passes, objective, spectral_norm
from ._model import (
    MAX_CELLS,
    MAX_WIDTH,
    Network,
    check_activation,
    positive_count,
)
from ._request import (
    DIVERGENCE_FACTOR,
    RECORDED,
    _cell_values,
    _Cells,
    _Progress,
    _Records,
    _Request,
    _step_flops,
    _take,
)


def trains_compiled(widths: Sequence[int], activation: str, samples: int, cells: int = 1) -> bool:
    """Whether ``cells`` networks of ``widths`` and ``activation`` on ``samples`` points train
    in the compiled loop (numba there: a step of few flops, or the fused pass,
    :mod:`._compiled`) rather than as numpy's batched matmuls: what their steps cost (a view's
    time estimate) depends on it."""
    if isinstance(widths, str | bytes) or np.ndim(widths) != 1 or len(widths) < 2:
        raise ValueError(f"widths must be the layer sizes (d, …, d_out); got {widths!r:.60}.")
    widths = tuple(positive_count("a width", width, MAX_WIDTH) for width in widths)
    activation = check_activation(activation)
    samples = positive_count("samples", samples, 2**31)
    cells = positive_count("cells", cells, MAX_CELLS)
    return _trains_compiled(widths, activation, samples, cells)


def _trains_compiled(widths: tuple[int, ...], activation: str, samples: int, cells: int) -> bool:
    step_flops = cells * _step_flops(widths, samples)
    return _compiled.runs_compiled(widths, activation, cells, step_flops)


class _Chunk:
    """The gradient-descent loop of one chunk of cells (docs/networks.md (N5), (N12))."""

    def __init__(self, net: Network, data: _Cells, span: slice, request: _Request) -> None:
        self.kind, self.recorded, self.steps = request.kind, request.recorded, request.steps
        self.span = span
        track_kernel = request.track_kernel
        self.current = [np.array(W[span]) for W in data.weights]
        # θ₀, from which the distances are measured: this call's start, or a continued run's
        self.continued = data.reference is not None
        if self.continued:
            self.initial = [np.array(W[span]) for W in data.reference]
        else:
            self.initial = [W.copy() for W in self.current]
        self.previous = [np.empty_like(W) for W in self.current]
        self.grads = [np.empty_like(W) for W in self.current]
        cells = self.current[0].shape[0]
        self.cells = cells
        self.gamma = data.gamma[span]
        self.gamma_column = self.gamma[:, None, None]
        self.lr = data.lr[span]
        self.etas = [eta[span] for eta in data.etas]
        # the step of layer l for each cell: lr·η_l, shaped to scale (C, n_out, n_in) arrays
        self.step_sizes = [(self.lr * eta)[:, None, None] for eta in self.etas]
        self.X, self.y = _take(data.X, span), _take(data.y, span)
        self.passes = Passes(net.widths, net.activation, self.X, cells, slopes=True)
        self.test = None
        if data.X_test is not None:
            X_test = _take(data.X_test, span)
            self.test = Passes(net.widths, net.activation, X_test, cells, slopes=False)
            self.y_test = _take(data.y_test, span)
        self.alive = np.ones(cells, dtype=bool)
        # γ·(1 if alive else 0) per cell: the factor of the residual a step back-propagates
        self.top_scale = np.array(self.gamma_column, dtype=float)  # a copy: zeroed per cell
        self.weights_finite = np.ones(cells, dtype=bool)
        self.kernels = _KernelTracker(self) if track_kernel else None
        # small steps run compiled; larger ones as batched numpy matmuls (BLAS is faster there)
        self.compiled = _trains_compiled(net.widths, net.activation, self.passes.samples, cells)
        self.activation = net.activation

    def run(
        self, out: _Records, diverged: np.ndarray, final: list[np.ndarray], report: _Progress
    ) -> None:
        span, passes = self.span, self.passes
        diverged_here = np.full(self.cells, -1, dtype=np.int64)
        with np.errstate(all="ignore"):  # a diverging cell may overflow; it is caught below
            if self.continued:  # θ₀'s loss, patterns and kernel: the references
                limit = DIVERGENCE_FACTOR * self._references(self.initial)
            output = passes.forward(self.current, self.gamma_column)
            loss = objective(self.kind, output, self.y, passes.residual)
            if not self.continued:
                limit = DIVERGENCE_FACTOR * self._references(self.current, loss)
            elif self.kernels is not None:  # this call's first record, from θ₀'s kernel
                self.initial_kernel_record = self.kernels.measure(self.current)
            if not np.all(np.isfinite(loss)):
                raise ValueError(
                    "the loss of the networks given overflows double precision for some of "
                    "them; use scales closer to 1 (weights, targets, output scale γ)."
                )
            run = self._run_compiled if self.compiled else self._run_arrays
            run(out, loss, limit, diverged_here, report)
        diverged[span] = diverged_here
        for target, W in zip(final, self.current, strict=True):
            target[span] = W

    def _references(self, weights: list[np.ndarray], loss: np.ndarray | None = None):
        """Take the references of the distances from ``weights`` (θ₀): its activation
        patterns and its NTK (and, as this call's first record, that NTK's own figures);
        returns its loss (``loss``, when the last forward pass was of ``weights``), which
        bounds the divergence test."""
        if loss is None:
            output = self.passes.forward(weights, self.gamma_column)
            loss = objective(self.kind, output, self.y)
            if not np.all(np.isfinite(loss)):
                raise ValueError(
                    "the loss of start overflows double precision for some networks; use "
                    "scales closer to 1 (weights, targets, output scale γ)."
                )
        self.initial_patterns = self.passes.patterns()
        if self.kernels is not None:  # the reference of S(0, t), whatever is recorded
            self.initial_kernel_record = self.kernels.measure(weights, first=True)
        return loss

    def _run_arrays(self, out, loss, limit, diverged_here, report) -> None:
        """Every step as numpy calls on the whole chunk (:meth:`_step`)."""
        passes, next_record = self.passes, 0
        for k in range(self.steps + 1):
            if k > 0:
                output = passes.forward(self.current, self.gamma_column)
                loss = objective(self.kind, output, self.y, passes.residual)
                healthy = self.weights_finite & (loss <= limit)  # NaN fails too
                if not healthy.all():  # (checked first: one call in the usual case)
                    bad = self.alive & ~healthy
                    if bad.any():
                        loss = self._freeze(bad, k, diverged_here)
            if next_record < self.recorded.size and k == self.recorded[next_record]:
                self._record(out, next_record, loss, k)
                next_record += 1
            if k == self.steps:
                break
            report(k)
            self._step()

    def _run_compiled(self, out, loss, limit, diverged_here, report) -> None:
        """The steps between records in compiled code, a cell at a time
        (:func:`._compiled.advance`). The recorded states are kept and evaluated a block at a
        time (:class:`_States`): one set of array operations for many records."""
        passes, done = self.passes, 0
        # every cell's weights in one (C, P) array, which the layers of ``current`` view
        params = np.concatenate([W.reshape(self.cells, -1) for W in self.current], axis=1)
        layout = _compiled.layout(passes.widths, passes.samples)
        self.current = [
            params[:, start : start + n_out * n_in].reshape(self.cells, n_out, n_in)
            for start, (n_out, n_in) in zip(layout[0], layout[1], strict=True)
        ]

        def cells_first(array: np.ndarray) -> np.ndarray:
            return np.ascontiguousarray(array[None] if array.ndim == 2 else array, np.float64)

        arguments = (
            _compiled.activation_code(self.activation),
            self.kind == "bce",
            params,
            layout,
            cells_first(passes.X),
            cells_first(self.y),
            self.gamma,
            np.stack([self.lr * eta for eta in self.etas], axis=1),
            np.ascontiguousarray(limit),
            self.alive,
            diverged_here,
        )
        states = _States(self, params.shape[1])
        for index, k in enumerate(self.recorded):
            if k > done:
                done = self._advance(arguments, done, int(k), report)
            if k == 0:  # the start: the forward pass above holds it
                self._record(out, index, loss, 0)
            elif states.keep(index, params):
                states.record(out)
        self._advance(arguments, done, self.steps, report)
        states.record(out)

    @staticmethod
    def _advance(arguments: tuple, start: int, stop: int, report: _Progress) -> int:
        """Steps ``start → stop``, split at the multiples of ``report.every`` (which
        ``report`` is told of, as the numpy loop tells it)."""
        while start < stop:
            report(start)
            end = min((start // report.every + 1) * report.every, stop)
            _compiled.advance(*arguments, start, end)
            start = end
        return stop

    def repeated(self, count: int, weights: list[np.ndarray]) -> _Chunk:
        """This chunk's cells ``count`` times over (record-major) at the states ``weights``
        (``(count·C, n_out, n_in)`` per layer), their forward pass done and its loss in
        ``loss``: the recorded states :class:`_States` evaluates with :meth:`_record`."""

        def tiled(array: np.ndarray) -> np.ndarray:  # a per-cell array, repeated
            return np.tile(array, (count,) + (1,) * (array.ndim - 1))

        def data(array: np.ndarray) -> np.ndarray:  # data shared by the cells stay shared
            return array if array.ndim == 2 else tiled(array)

        block = object.__new__(_Chunk)
        block.kind, block.cells = self.kind, count * self.cells
        block.span = slice(0, block.cells)
        block.current, block.initial = weights, [tiled(W) for W in self.initial]
        block.gamma, block.etas = tiled(self.gamma), [tiled(eta) for eta in self.etas]
        block.gamma_column = block.gamma[:, None, None]
        block.y, block.initial_patterns = data(self.y), [tiled(p) for p in self.initial_patterns]
        widths, activation = self.passes.widths, self.activation
        block.passes = Passes(widths, activation, data(self.passes.X), block.cells, slopes=True)
        output = block.passes.forward(weights, block.gamma_column)
        block.loss = objective(self.kind, output, block.y)
        block.test = None
        if self.test is not None:
            X_test = data(self.test.X)
            block.test = Passes(widths, activation, X_test, block.cells, slopes=False)
            block.y_test = data(self.y_test)
        block.kernels = None
        if self.kernels is not None:
            block.kernels = _KernelTracker(block)
            block.kernels.unit_initial = tiled(self.kernels.unit_initial)
            block.kernels.initial_zero = tiled(self.kernels.initial_zero)
        return block

    def _freeze(self, bad: np.ndarray, k: int, diverged_here: np.ndarray) -> np.ndarray:
        """Stop the cells ``bad`` at their previous (last good) state and redo the forward
        pass, so that what is recorded from here on is that state."""
        diverged_here[bad] = k
        self.alive &= ~bad
        self.top_scale[bad] = 0.0
        for current, previous in zip(self.current, self.previous, strict=True):
            current[bad] = previous[bad]
        self.weights_finite[bad] = True
        output = self.passes.forward(self.current, self.gamma_column)
        return objective(self.kind, output, self.y, self.passes.residual)

    def _step(self) -> None:
        """One gradient-descent step from the residual the last forward pass left behind.

        Frozen cells get a zero gradient (their residual is multiplied by 0, and their state is
        finite, so every product stays exactly 0). The new weights go to the other buffer, so
        the previous state stays at hand for :meth:`_freeze`.
        """
        passes = self.passes
        top = passes.residual
        top *= self.top_scale
        passes.backward(self.current, top, self.grads)
        for W, grad, step, target in zip(
            self.current, self.grads, self.step_sizes, self.previous, strict=True
        ):
            grad *= step
            np.subtract(W, grad, out=target)
        self.current, self.previous = self.previous, self.current
        # a weight that overflowed makes its cell's sum non-finite (inf − inf is NaN)
        total = self.current[0].sum(axis=(1, 2))
        for W in self.current[1:]:
            total += W.sum(axis=(1, 2))
        self.weights_finite = np.isfinite(total)

    def _record(self, out: _Records, index: int, loss: np.ndarray, k: int) -> None:
        span, passes = self.span, self.passes
        out.loss[span, index] = loss
        if self.test is not None:
            test_output = self.test.forward(self.current, self.gamma_column)
            out.test_loss[span, index] = objective(self.kind, test_output, self.y_test)
        if self.kernels is not None:
            if k == 0:
                norm, distance, alignment = self.initial_kernel_record
            else:
                norm, distance, alignment = self.kernels.measure(self.current)
            out.kernel_norm[span, index] = norm
            out.kernel_distance[span, index] = distance
            out.alignment[span, index] = alignment
        out.zeta[span, index] = layer_alignments(self.current)
        out.activation_distance[span, index] = _pattern_distance(
            passes.patterns(), self.initial_patterns, self.cells
        )
        distance_sq = sum(
            np.sum((W - W0) ** 2, axis=(1, 2))
            for W, W0 in zip(self.current, self.initial, strict=True)
        )
        out.parameter_distance[span, index] = np.sqrt(distance_sq)
        if out.weights is not None:
            for target, W in zip(out.weights, self.current, strict=True):
                target[span, index] = W


class _States:
    """Recorded states of a compiled run, waiting to be evaluated as one batch.

    A block of B recorded states of the chunk's C cells is evaluated as a chunk of B·C cells
    (record-major) by the same :meth:`_Chunk._record` as every other record, then written to
    each cell's row: the diagnostics cost one set of array operations per block instead of one
    per record. Blocks are sized to :data:`CHUNK_BUDGET` working values.
    """

    def __init__(self, chunk: _Chunk, parameters: int) -> None:
        self.chunk = chunk
        passes = chunk.passes
        tests = 0 if chunk.test is None else chunk.test.samples
        kernel = chunk.kernels is not None
        # (the repeated initial kernels are a second P² per state, beside the tracker's own)
        extra = passes.samples**2 * passes.widths[-1] ** 2 if kernel else 0
        per_state = parameters + extra + _cell_values(passes.widths, passes.samples, tests, kernel)
        block = max(1, _request.CHUNK_BUDGET // (chunk.cells * per_state))
        self.values = np.empty((min(block, chunk.recorded.size), chunk.cells, parameters))
        self.indices: list[int] = []

    def keep(self, index: int, params: np.ndarray) -> bool:
        """Keep the state of record ``index``; True once the block is full."""
        self.values[len(self.indices)] = params
        self.indices.append(index)
        return len(self.indices) == self.values.shape[0]

    def record(self, out: _Records) -> None:
        """Evaluate and write the kept states; the block is empty after."""
        if not self.indices:
            return
        chunk, count = self.chunk, len(self.indices)
        cells = count * chunk.cells
        flat = self.values[:count].reshape(cells, -1)
        weights, start = [], 0
        for W in chunk.initial:
            size = W.shape[1] * W.shape[2]
            weights.append(flat[:, start : start + size].reshape(cells, *W.shape[1:]))
            start += size
        batch = _Records(
            **{name: _block_array(getattr(out, name), cells) for name in RECORDED},
            weights=None if out.weights is None else [_block_array(W, cells) for W in out.weights],
        )
        block = chunk.repeated(count, weights)
        block._record(batch, 0, block.loss, -1)
        columns = np.array(self.indices)
        for target, values in zip(_fields(out), _fields(batch), strict=True):
            if target is not None:
                rows = values.reshape(count, chunk.cells, *values.shape[2:])
                target[chunk.span, columns] = np.swapaxes(rows, 0, 1)
        self.indices = []


def _fields(records: _Records) -> list[np.ndarray | None]:
    """The per-(cell, record) arrays of ``records``, in field order, weights layer by layer."""
    arrays = [getattr(records, name) for name in RECORDED]
    return arrays + (list(records.weights) if records.weights is not None else [])


def _block_array(array: np.ndarray | None, cells: int) -> np.ndarray | None:
    """A (cells, 1, …) array shaped like ``array``'s (C, R, …), for one block of states."""
    return None if array is None else np.zeros((cells, 1, *array.shape[2:]))


class _KernelTracker:
    """The NTK diagnostics of one chunk: norm, S(0, t) and A(K_t, y) (docs/networks.md (N6)–(N8)).

    Keeps the normalised initial kernel of every cell of the chunk; the current kernels are
    built :data:`KERNEL_BLOCK` values at a time (a few cells, or one), since each is used once.
    """

    def __init__(self, chunk: _Chunk) -> None:
        # (no reference to the chunk itself: a cycle would keep its buffers alive after it ends)
        passes = chunk.passes
        self.passes, self.gamma, self.etas, self.cells = (
            passes,
            chunk.gamma,
            chunk.etas,
            chunk.cells,
        )
        self.size = passes.samples * passes.widths[-1]
        self.block = max(1, _request.KERNEL_BLOCK // (3 * self.size * self.size))
        X = passes.X
        self.input_gram = X @ X.T if X.ndim == 2 else None  # shared data: X Xᵀ never changes
        self.flat_y = chunk.y.reshape(*chunk.y.shape[:-2], -1)
        self.y_norm_sq = np.sum(self.flat_y * self.flat_y, axis=-1)
        self.unit_initial = np.empty((chunk.cells, self.size, self.size))
        self.initial_zero = np.zeros(chunk.cells, dtype=bool)

    def measure(self, weights: list[np.ndarray], *, first: bool = False):
        """``(‖K_t‖_F, S(0, t), A(K_t, y))``, each ``(C,)``; ``first`` stores K₀."""
        cells = self.cells
        norm, distance, alignment = np.empty(cells), np.empty(cells), np.empty(cells)
        for start in range(0, cells, self.block):
            part = slice(start, min(start + self.block, cells))
            kernel = ntk_from_passes(
                self.passes, weights, self.gamma, self.etas, part, self.input_gram
            )
            norm[part] = np.sqrt(np.einsum("cij,cij->c", kernel, kernel))
            shared = self.flat_y.ndim == 1
            y = self.flat_y if shared else self.flat_y[part]
            size_sq = self.y_norm_sq if shared else self.y_norm_sq[part]
            alignment[part] = _alignment(kernel, norm[part], y, size_sq)
            _normalise(kernel, norm[part])  # in place: the kernel is not needed any more
            if first:
                self.unit_initial[part] = kernel
                self.initial_zero[part] = norm[part] == 0
            distance[part] = _distance(
                self.unit_initial[part], self.initial_zero[part], kernel, norm[part] == 0
            )
        return norm, distance, alignment


def _normalise(kernel: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """``K/‖K‖_F`` in place (a zero kernel stays zero)."""
    kernel *= (1.0 / np.where(norm > 0, norm, 1.0))[:, None, None]
    return kernel


def _distance(unit_initial, initial_zero, unit, now_zero) -> np.ndarray:
    """``S(0, t) = ½‖K₀/‖K₀‖ − K_t/‖K_t‖‖²_F`` (docs/networks.md (N7)) from the normalised
    kernels: equal to ``1 − cos`` but accurate when the kernel barely moves. A zero kernel counts
    as distance 1 from a non-zero one and 0 from another zero kernel. Overwrites ``unit``."""
    unit -= unit_initial
    distance = 0.5 * np.einsum("cij,cij->c", unit, unit)
    return np.where(initial_zero != now_zero, 1.0, np.where(now_zero, 0.0, distance))


def _alignment(kernel, norm, flat_y, y_norm_sq) -> np.ndarray:
    """``A(K, y) = yᵀKy/(‖K‖_F‖y‖²)`` per cell (docs/networks.md (N8)); 0 for a zero K or y."""
    if flat_y.ndim == 1:
        quadratic = (kernel @ flat_y) @ flat_y
    else:
        quadratic = np.einsum("ci,cij,cj->c", flat_y, kernel, flat_y)
    denominator = norm * y_norm_sq
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, quadratic / denominator, 0.0)


def _pattern_distance(
    patterns: list[np.ndarray], initial: list[np.ndarray], cells: int
) -> np.ndarray:
    """Share of (input, hidden unit) pairs, pooled over the hidden layers, whose
    pre-activation sign differs from the start (docs/networks.md (N9))."""
    if not patterns:
        return np.zeros(cells)
    changed = sum(
        np.count_nonzero(now != then, axis=(1, 2))
        for now, then in zip(patterns, initial, strict=True)
    )
    pairs = sum(now.shape[1] * now.shape[2] for now in patterns)
    return changed / pairs


def kunin_hamming(activation_distance: np.ndarray | float, width: int) -> np.ndarray:
    """Kunin et al.'s Hamming distance (their Fig. 10; their code's
    ``compute_hamming_distance``) of a two-layer network of ``width`` hidden units, from its
    ``activation_distance`` (docs/networks.md (N9)): for each training input, the number of
    hidden units whose pre-activation sign changed, averaged over the inputs — ``width`` times
    the share of (input, unit) pairs, from 0 to ``width``."""
    width = positive_count("width", width, MAX_WIDTH)
    share = np.asarray(activation_distance, dtype=float)
    if np.any(~np.isfinite(share)) or np.any((share < 0) | (share > 1)):
        raise ValueError(
            "activation_distance must be a share of (input, unit) pairs, between 0 and 1 "
            "(a Training's activation_distance)"
        )
    return width * share


def layer_alignments(weights: Sequence[np.ndarray]) -> np.ndarray:
    """``ζ_l = ‖W_{l+1}W_l‖₂/(‖W_{l+1}‖₂‖W_l‖₂)`` for consecutive layers, shape ``(..., L−1)``
    (Xu & Ziyin §3.5; docs/networks.md (N10)); 0 where a layer is zero."""
    values = []
    for lower, upper in itertools.pairwise(weights):
        denominator = spectral_norm(upper) * spectral_norm(lower)
        numerator = spectral_norm(upper @ lower)
        with np.errstate(invalid="ignore", divide="ignore"):
            values.append(np.where(denominator > 0, np.minimum(numerator / denominator, 1.0), 0.0))
    if not values:
        return np.zeros((*np.shape(weights[0])[:-2], 0))
    return np.stack(values, axis=-1)
