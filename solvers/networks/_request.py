"""What :func:`solvers.networks.train` checks and allocates: the caps (docs/networks.md,
"Caps"), the request with its data, rates and recorded steps, the flattened cells and the
arrays the records go into, the work estimate, and progress reports."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._engine import LOSSES
from ._model import (
    Network,
    broadcast_batch,
    check_cells,
    check_inputs,
    finite_array,
    positive_array,
    positive_count,
)

#: most gradient-descent steps of one call
MAX_TRAIN_STEPS = 1_000_000


#: most recorded steps of one call
MAX_RECORDS = 1000


#: most (cell, recorded step) pairs of one call (each holds a dozen numbers)
MAX_RECORDED = 2**18


#: most weights kept by ``record_weights`` (networks × recorded steps × parameters): 32 MB
MAX_RECORDED_WEIGHTS = 2**22


#: how often ``progress`` hears from a run: about this many times per chunk of networks
PROGRESS_CALLS = 100


#: largest NTK (n·d_out) recorded during training
MAX_KERNEL_SIZE = 1024


#: most floating-point operations of one call (training steps plus recorded NTKs), estimated
#: as in docs/networks.md ("Caps"): about a minute of one core
MAX_WORK = 1e12


#: a cell has diverged once its loss exceeds this multiple of its initial loss (docs/networks.md
#: (N12))
DIVERGENCE_FACTOR = 1e12


#: float64 working values per chunk of cells (16 MB): step buffers and the initial kernels
CHUNK_BUDGET = 2**21


#: float64 values of the recorded NTKs built at once (1 MB): larger kernels are built a few cells
#: at a time, so that their products stay in cache
KERNEL_BLOCK = 2**17


#: the diagnostics :class:`Training` records at each recorded step (docs/networks.md, "What
#: train records"): what a caller keeps of a run besides its times, networks and weights
RECORDED = (
    "loss",
    "test_loss",
    "kernel_distance",
    "alignment",
    "kernel_norm",
    "zeta",
    "activation_distance",
    "parameter_distance",
)


def default_record(steps: int, count: int = 200) -> np.ndarray:
    """``count`` steps from 0 to ``steps`` (both included), log-spaced where they are far apart
    and every step where log spacing would round several onto one (all of them if
    ``steps < count``)."""
    if steps < count:
        return np.arange(steps + 1)
    points = count - 1
    while True:  # rounding merges early points: ask for more until ``count`` distinct remain
        spaced = np.unique(np.round(np.geomspace(1, steps, points)).astype(np.int64))
        if spaced.size >= count - 1:
            return np.concatenate([[0], spaced])
        points += count - 1 - spaced.size


def _check_targets(name: str, y: Any, X: np.ndarray, d_out: int, kind: str) -> np.ndarray:
    y = finite_array(name, y, min_ndim=1)
    if d_out == 1 and (y.ndim == 1 or y.shape[-1] != 1):
        y = y[..., None]
    if y.ndim < 2 or y.shape[-2:] != (X.shape[-2], d_out):
        raise ValueError(
            f"{name} must have shape (n, d_out) = ({X.shape[-2]}, {d_out}) to match the inputs "
            f"and the network's outputs (or (n,) when d_out = 1); got {y.shape}."
        )
    if kind == "bce" and not np.all(np.abs(y) == 1):
        raise ValueError(
            f"{name} must hold labels ±1 for loss='bce' (the logistic loss log(1 + e^(−y·f))); "
            "map classes to −1 and +1, or use loss='mse'."
        )
    return y


def _check_loss(loss: Any) -> str:
    if loss not in LOSSES:
        raise ValueError(f"loss must be 'mse' or 'bce'; got {loss!r}.")
    return loss


def _check_layer_lrs(layer_lrs: Any, depth: int) -> list[np.ndarray | float]:
    """Per-layer rates η_l ≥ 0 (scalars or arrays over the batch axes); default all 1."""
    if layer_lrs is None:
        return [1.0] * depth
    if isinstance(layer_lrs, np.ndarray | str) or not isinstance(layer_lrs, Sequence):
        raise ValueError(
            f"layer_lrs must be a sequence of {depth} learning-rate factors (one per layer); got "
            f"{layer_lrs!r}."
        )
    if len(layer_lrs) != depth:
        raise ValueError(
            f"layer_lrs must hold one factor per layer ({depth}); got {len(layer_lrs)}."
        )
    rates = []
    for index, rate in enumerate(layer_lrs):
        array = finite_array(f"layer_lrs[{index}]", rate)
        if np.any(array < 0):
            raise ValueError(
                f"layer_lrs[{index}] must be >= 0 (0 freezes the layer); got {array.min():g}."
            )
        rates.append(float(array) if array.ndim == 0 else array)
    if all(np.all(np.asarray(rate) == 0) for rate in rates):
        raise ValueError("layer_lrs are all 0: at least one layer must learn.")
    return rates


def _per_cell(value: np.ndarray | float, batch: tuple[int, ...]) -> np.ndarray:
    return np.ascontiguousarray(np.broadcast_to(value, batch), dtype=np.float64).reshape(-1)


def _cells_of(array: np.ndarray, batch: tuple[int, ...], tail: int) -> np.ndarray:
    """``array`` broadcast to the batch and flattened to ``(C, *last tail axes)``."""
    shape = batch + array.shape[-tail:]
    return np.ascontiguousarray(np.broadcast_to(array, shape)).reshape(-1, *shape[-tail:])


def _step_flops(widths: tuple[int, ...], samples: int) -> float:
    """Matmul flops of one gradient-descent step of one cell (docs/networks.md, "Benchmark"):
    forward and weight gradient 2·n·n_l·n_{l−1} each per layer, back-propagation to the inputs
    of every layer but the first another 2·n·n_l·n_{l−1}."""
    products = [a * b for a, b in itertools.pairwise(widths)]
    return 2.0 * samples * (2 * sum(products) + sum(products[1:]))


def _kernel_flops(widths: tuple[int, ...], samples: int) -> float:
    size = samples * widths[-1]
    return 2.0 * sum(size**2 * w + samples**2 * v for v, w in itertools.pairwise(widths))


@dataclass
class _Cells:
    """The per-cell arrays of one training call, flattened to a leading cell axis."""

    weights: list[np.ndarray]  # (C, n_out, n_in) per layer
    gamma: np.ndarray  # (C,)
    lr: np.ndarray  # (C,)
    etas: list[np.ndarray]  # (C,) per layer
    X: np.ndarray  # (n, d) shared or (C, n, d)
    y: np.ndarray  # (n, d_out) shared or (C, n, d_out)
    X_test: np.ndarray | None
    y_test: np.ndarray | None
    final: list[np.ndarray]  # (C, n_out, n_in) per layer, written by each chunk at its end
    #: (C, n_out, n_in) per layer: the true start θ₀ of a continued run, else None
    reference: list[np.ndarray] | None = None


@dataclass
class _Records:
    """Output arrays (C, R, …), filled chunk by chunk."""

    loss: np.ndarray
    test_loss: np.ndarray | None
    kernel_distance: np.ndarray | None
    alignment: np.ndarray | None
    kernel_norm: np.ndarray | None
    zeta: np.ndarray
    activation_distance: np.ndarray
    parameter_distance: np.ndarray
    weights: list[np.ndarray] | None  # (C, R, n_out, n_in) per layer, with record_weights


class _Progress:
    """Tells ``progress`` how far one chunk of cells has got, as steps averaged over the whole
    batch: cells before the chunk count as done, cells after it as not started."""

    def __init__(self, progress, steps: int, start: int, stop: int, cells: int) -> None:
        self.progress, self.steps = progress, steps
        self.done, self.share = start / cells, (stop - start) / cells
        self.every = max(1, steps // PROGRESS_CALLS)

    def __call__(self, k: int) -> None:
        if self.progress is not None and k % self.every == 0:
            self.progress(int(self.steps * self.done + k * self.share))


def _weight_records(widths: tuple[int, ...], cells: int, records: int) -> list[np.ndarray]:
    parameters = sum(a * b for a, b in itertools.pairwise(widths))
    if cells * records * parameters > MAX_RECORDED_WEIGHTS:
        raise ValueError(
            f"recording the weights of {cells} networks at {records} steps keeps "
            f"{cells * records * parameters:,} numbers; at most {MAX_RECORDED_WEIGHTS:,}. Record "
            "fewer steps, or smaller or fewer networks."
        )
    return [np.zeros((cells, records, b, a)) for a, b in itertools.pairwise(widths)]


@dataclass
class _Request:
    """The validated arguments of one :func:`train` call."""

    kind: str
    X: np.ndarray
    y: np.ndarray
    lr: float | np.ndarray
    steps: int
    rates: list[np.ndarray | float]
    X_test: np.ndarray | None
    y_test: np.ndarray | None
    track_kernel: bool
    batch: tuple[int, ...]
    cells: int
    recorded: np.ndarray

    @classmethod
    def check(cls, net, X, y, lr, steps, layer_lrs, loss, record, X_test, y_test, track_kernel):
        if not isinstance(net, Network):
            raise ValueError(f"net must be a Network; got {net!r:.60}.")
        kind = _check_loss(loss)
        X = check_inputs("X", X, net.d_in)
        y = _check_targets("y", y, X, net.d_out, kind)
        lr = positive_array("lr", lr)
        steps = positive_count("steps", steps, MAX_TRAIN_STEPS, minimum=0)
        rates = _check_layer_lrs(layer_lrs, net.depth)
        if (X_test is None) != (y_test is None):
            raise ValueError("pass both X_test and y_test, or neither.")
        shapes = [net.batch_shape, X.shape[:-2], y.shape[:-2], np.shape(lr)]
        shapes += [np.shape(rate) for rate in rates]
        names = ["net", "X", "y", "lr"] + [f"layer_lrs[{i}]" for i in range(net.depth)]
        if X_test is not None:
            X_test = check_inputs("X_test", X_test, net.d_in)
            y_test = _check_targets("y_test", y_test, X_test, net.d_out, kind)
            shapes += [X_test.shape[:-2], y_test.shape[:-2]]
            names += ["X_test", "y_test"]
        batch = broadcast_batch(shapes, names)
        request = cls(
            kind,
            X,
            y,
            lr,
            steps,
            rates,
            X_test,
            y_test,
            track_kernel,
            batch,
            check_cells(batch, "this training run"),
            _check_record(record, steps),
        )
        request.check_size(net.widths)
        return request

    def check_size(self, widths: tuple[int, ...]) -> None:
        samples, d_out = self.X.shape[-2], widths[-1]
        if self.track_kernel and samples * d_out > MAX_KERNEL_SIZE:
            raise ValueError(
                f"recording the NTK needs n·d_out ≤ {MAX_KERNEL_SIZE}; got {samples}·{d_out}. "
                "Use fewer samples or track_kernel=False."
            )
        if self.cells * self.recorded.size > MAX_RECORDED:
            raise ValueError(
                f"{self.cells} networks × {self.recorded.size} recorded steps exceed "
                f"{MAX_RECORDED:,} records; record fewer steps or train fewer networks."
            )
        _check_work(
            widths,
            samples,
            self.X_test,
            self.cells,
            self.steps,
            self.recorded.size,
            self.track_kernel,
        )


def _flatten(net: Network, request: _Request) -> _Cells:
    """Every per-network quantity with one leading cell axis. Each argument keeps batch axes
    only where it has them: data shared by the batch stay shared (and the matmuls broadcast)."""
    batch, X, y = request.batch, request.X, request.y
    shared = X.ndim == 2 and y.ndim == 2
    data = _Cells(
        weights=[_cells_of(W, batch, 2) for W in net.weights],
        gamma=_per_cell(net.gamma, batch),
        lr=_per_cell(request.lr, batch),
        etas=[_per_cell(rate, batch) for rate in request.rates],
        X=X if shared else _cells_of(X, batch, 2),
        y=y if shared else _cells_of(y, batch, 2),
        X_test=None,
        y_test=None,
        final=[np.empty((request.cells, *W.shape[-2:])) for W in net.weights],
    )
    X_test, y_test = request.X_test, request.y_test
    if X_test is not None:
        shared = X_test.ndim == 2 and y_test.ndim == 2
        data.X_test = X_test if shared else _cells_of(X_test, batch, 2)
        data.y_test = y_test if shared else _cells_of(y_test, batch, 2)
    return data


def _record_steps(record: Any) -> np.ndarray:
    """``record`` as a 1-d array of whole step numbers (not yet checked against a run's)."""
    array = np.atleast_1d(np.asarray(record))
    if array.ndim != 1 or array.size == 0 or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(
            f"record must be a non-empty 1-d sequence of whole step numbers; got {record!r:.60}."
        )
    return array


def _check_record(record: Any, steps: int) -> np.ndarray:
    if record is None:
        return default_record(steps)
    array = _record_steps(record)
    if array.min() < 0 or array.max() > steps:
        raise ValueError(
            f"record must lie within 0..steps = 0..{steps}; got {array.min()}..{array.max()}."
        )
    array = np.unique(array)
    if array.size > MAX_RECORDS:
        raise ValueError(f"record may hold at most {MAX_RECORDS} steps; got {array.size}.")
    return array


def training_work(
    widths: Sequence[int],
    samples: int,
    *,
    steps: int,
    records: int,
    tests: int = 0,
    cells: int = 1,
    track_kernel: bool = True,
) -> float:
    """Estimated floating-point operations of a :func:`train` call (docs/networks.md, "Caps"):
    ``cells × (steps × step flops + records × (test forward pass + NTK flops))`` — the
    estimate that :data:`MAX_WORK` bounds, for a caller that wants to size its own request.

    Per network and step, matmuls only: forward ``2n Σ n_l n_{l−1}``, weight gradients the
    same, back-propagation ``2n Σ_{l≥2} n_l n_{l−1}``; a recorded NTK (N6) costs
    ``2 Σ_l (P² n_l + n² n_{l−1})`` with ``P = n·d_out``, and the test set's forward pass a
    third of a step on ``tests`` samples."""
    widths = tuple(int(w) for w in widths)
    per_step = _step_flops(widths, samples)
    per_record = _step_flops(widths, tests) / 3 + (
        _kernel_flops(widths, samples) if track_kernel else 0.0
    )
    return float(cells) * (steps * per_step + records * per_record)


def _check_work(widths, samples, X_test, cells, steps, records, track_kernel) -> None:
    tests = 0 if X_test is None else X_test.shape[-2]
    work = training_work(
        widths,
        samples,
        steps=steps,
        records=records,
        tests=tests,
        cells=cells,
        track_kernel=track_kernel,
    )
    if work > MAX_WORK:
        raise ValueError(
            f"this run needs about {work:.2g} floating-point operations ({cells} networks × "
            f"{steps:,} steps, plus {records} recorded NTKs each); at most {MAX_WORK:.0e} are "
            "allowed. Use fewer steps, records, samples or networks."
        )


def _chunk_cells(widths, samples, X_test, track_kernel, cells) -> int:
    """Cells per chunk: as many as fit :data:`CHUNK_BUDGET` float64 working values."""
    tests = 0 if X_test is None else X_test.shape[-2]
    per_cell = _cell_values(widths, samples, tests, track_kernel)
    return max(1, min(cells, CHUNK_BUDGET // max(per_cell, 1)))


def _cell_values(widths, samples: int, tests: int, track_kernel: bool) -> int:
    """float64 working values of one cell: pass buffers, weights and their copies, and the
    initial kernel (the others are built a block at a time)."""
    hidden = sum(widths[1:])
    per_cell = (
        3 * samples * hidden
        + 2 * tests * hidden
        + 3 * sum(a * b for a, b in itertools.pairwise(widths))
    )
    if track_kernel:
        size = samples * widths[-1]
        per_cell += size * size
    return per_cell


def _allocate(cells, records, depth, with_test, track_kernel) -> _Records:
    def empty() -> np.ndarray:
        return np.zeros((cells, records))

    return _Records(
        loss=empty(),
        test_loss=empty() if with_test else None,
        kernel_distance=empty() if track_kernel else None,
        alignment=empty() if track_kernel else None,
        kernel_norm=empty() if track_kernel else None,
        zeta=np.zeros((cells, records, max(depth - 1, 0))),
        activation_distance=empty(),
        parameter_distance=empty(),
        weights=None,
    )


def _take(array: np.ndarray | None, span: slice) -> np.ndarray | None:
    """Rows ``span`` of a per-cell array; shared (2-d) data pass through."""
    if array is None or array.ndim == 2:
        return array
    return array[span]
