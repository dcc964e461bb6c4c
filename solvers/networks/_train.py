"""Full-batch gradient descent on whole batches of networks, with the lazy/rich diagnostics
recorded along the way (docs/networks.md (N4)–(N11)).

The step loop runs over gradient-descent steps only: every step is a fixed set of batched array
operations over the cells, on buffers allocated once. Large batches are processed in chunks of
cells sized to a memory budget (:data:`CHUNK_BUDGET`), which bounds the memory of any request
and keeps each step's working set in cache; a cell's result does not depend on the chunking.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _compiled
from ._engine import LOSSES, Passes, ntk_from_passes, objective, spectral_norm
from ._model import (
    Network,
    broadcast_batch,
    check_cells,
    check_inputs,
    finite_array,
    positive_array,
    positive_count,
)

__all__ = [
    "CHUNK_BUDGET",
    "DIVERGENCE_FACTOR",
    "MAX_KERNEL_SIZE",
    "MAX_RECORDED",
    "MAX_RECORDED_WEIGHTS",
    "MAX_RECORDS",
    "MAX_TRAIN_STEPS",
    "MAX_WORK",
    "RECORDED",
    "Training",
    "compile_training_loop",
    "default_record",
    "layer_alignments",
    "train",
    "training_work",
]

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


@dataclass(frozen=True, eq=False)
class Training:
    """What :func:`train` recorded: batch axes first, then the recorded steps (docs/networks.md).

    Every array is finite. A diverged cell is frozen at its last good state, so its later
    records repeat that state (docs/networks.md (N12)).
    """

    steps: np.ndarray  #: (R,) recorded step numbers k
    t: np.ndarray  #: k·lr: (R,) for a scalar lr, else (..., R)
    loss: np.ndarray  #: (..., R) training loss (N4)
    test_loss: np.ndarray | None  #: (..., R) loss on the test set, None without one
    kernel_distance: np.ndarray | None  #: (..., R) S(0, t) of the empirical NTK (N7)
    alignment: np.ndarray | None  #: (..., R) kernel–target alignment A(K_t, y) (N8)
    kernel_norm: np.ndarray | None  #: (..., R) ‖K_t‖_F
    zeta: np.ndarray  #: (..., R, L−1) layer alignment ζ between consecutive layers (N10)
    activation_distance: np.ndarray  #: (..., R) activation-pattern (Hamming) distance (N9)
    parameter_distance: np.ndarray  #: (..., R) ‖θ_t − θ₀‖₂ (N11)
    final: Network  #: the trained networks (a diverged cell at its last good state)
    diverged_at: int | np.ndarray  #: step at which each cell diverged, −1 if it did not
    lr: float | np.ndarray
    objective: str  #: "mse" or "bce"
    #: with ``record_weights``: per layer ``(..., R, n_out, n_in)``, the weights at each recorded
    #: step (a diverged cell's repeat its last good state); else None
    weights: tuple[np.ndarray, ...] | None = None


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


def compile_training_loop() -> bool:
    """Compile the loop that runs small networks' steps (:mod:`._compiled`), or load it from
    numba's on-disk cache, so that no later :func:`train` call waits for it: a few seconds the
    first time on a machine, a fraction of one after. Returns whether numba is there (without
    it every step runs in numpy and there is nothing to compile)."""
    if _compiled.AVAILABLE:
        rng = np.random.default_rng(0)
        net = Network((rng.normal(size=(3, 2)), rng.normal(size=(1, 3))), "relu", 1.0)
        train(net, rng.normal(size=(4, 2)), rng.normal(size=(4, 1)), lr=0.1, steps=2)
    return _compiled.AVAILABLE


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


def train(
    net: Network,
    X: np.ndarray,
    y: np.ndarray,
    *,
    lr: float | np.ndarray,
    steps: int,
    layer_lrs: Sequence[float | np.ndarray] | None = None,
    loss: str = "mse",
    record: Sequence[int] | np.ndarray | None = None,
    X_test: np.ndarray | None = None,
    y_test: np.ndarray | None = None,
    track_kernel: bool = True,
    record_weights: bool = False,
    progress: Callable[[int], None] | None = None,
) -> Training:
    """Full-batch gradient descent ``W_l ← W_l − lr·η_l ∂L/∂W_l`` with analytic
    back-propagation (docs/networks.md (N4), (N5)), every network of the batch at once.

    Parameters
    ----------
    net : the initial network(s); its batch axes broadcast with those of ``lr``, ``gamma``,
        ``layer_lrs`` and batched data.
    X, y : training inputs ``(n, d_in)`` and targets ``(n, d_out)`` (``(n,)`` for one output),
        shared by the batch, or with leading batch axes.
    lr : step size(s) > 0, a scalar or an array over the batch axes (e.g. ``c/τ²`` on a τ
        grid: Kunin et al. Fig. 1b's ``5e-3/τ²`` on their (1/n)Σ loss is ``1e-2/τ²`` on this
        (1/2n)Σ one). Step k is reported at ``t = k·lr``.
    steps : number of gradient-descent steps.
    layer_lrs : per-layer factors η_l ≥ 0 (default 1); they also weight the NTK (N6).
    loss : ``"mse"`` ``(1/2n)Σ‖f − y‖²`` or ``"bce"`` (logistic loss, labels ±1).
    record : the step indices to record (default ~200 log-spaced, 0 and ``steps`` included).
    X_test, y_test : an optional test set for ``test_loss``.
    track_kernel : record the NTK diagnostics (kernel distance, alignment, kernel norm);
        they need ``n·d_out ≤`` :data:`MAX_KERNEL_SIZE`. Without them those fields are None.
    record_weights : keep the weights at every recorded step (``Training.weights``), at most
        :data:`MAX_RECORDED_WEIGHTS` numbers in all.
    progress : called now and then (about :data:`PROGRESS_CALLS` times per chunk of networks,
        and once at the end) with the number of steps done so far, averaged over the networks
        of the batch: it rises from 0 to ``steps`` (a large batch runs in chunks, one after the
        other). Pure Python; what it does with the number is the caller's business.

    A cell whose loss or weights stop being finite, or whose loss exceeds
    :data:`DIVERGENCE_FACTOR` × its start, is frozen at its last good state and ``diverged_at``
    holds the step (docs/networks.md (N12)); the other cells go on.
    """
    request = _Request.check(
        net, X, y, lr, steps, layer_lrs, loss, record, X_test, y_test, bool(track_kernel)
    )
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a function of one whole number; got {progress!r:.60}.")
    data = _flatten(net, request)
    cells, recorded = request.cells, request.recorded
    out = _allocate(cells, recorded.size, net.depth, X_test is not None, request.track_kernel)
    if record_weights:
        out.weights = _weight_records(net.widths, cells, recorded.size)
    diverged = np.full(cells, -1, dtype=np.int64)
    chunk = _chunk_cells(net.widths, request.X.shape[-2], X_test, request.track_kernel, cells)
    for start in range(0, cells, chunk):
        span = slice(start, min(start + chunk, cells))
        report = _Progress(progress, request.steps, start, span.stop, cells)
        _Chunk(net, data, span, request).run(out, diverged, data.final, report)
    if progress is not None:
        progress(request.steps)
    return _result(net, data, out, diverged, request)


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


def _check_record(record: Any, steps: int) -> np.ndarray:
    if record is None:
        return default_record(steps)
    array = np.atleast_1d(np.asarray(record))
    if array.ndim != 1 or array.size == 0 or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(
            f"record must be a non-empty 1-d sequence of whole step numbers; got {record!r:.60}."
        )
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


class _Chunk:
    """The gradient-descent loop of one chunk of cells (docs/networks.md (N5), (N12))."""

    def __init__(self, net: Network, data: _Cells, span: slice, request: _Request) -> None:
        self.kind, self.recorded, self.steps = request.kind, request.recorded, request.steps
        self.span = span
        track_kernel = request.track_kernel
        self.current = [np.array(W[span]) for W in data.weights]
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
        step_flops = cells * _step_flops(net.widths, self.passes.samples)
        self.compiled = _compiled.AVAILABLE and step_flops <= _compiled.MAX_STEP_FLOPS
        self.activation = net.activation

    def run(
        self, out: _Records, diverged: np.ndarray, final: list[np.ndarray], report: _Progress
    ) -> None:
        span, passes = self.span, self.passes
        diverged_here = np.full(self.cells, -1, dtype=np.int64)
        with np.errstate(all="ignore"):  # a diverging cell may overflow; it is caught below
            output = passes.forward(self.current, self.gamma_column)
            loss = objective(self.kind, output, self.y, passes.residual)
            if not np.all(np.isfinite(loss)):
                raise ValueError(
                    "the initial loss overflows double precision for some networks; use scales "
                    "closer to 1 (weights, targets, output scale γ)."
                )
            limit = DIVERGENCE_FACTOR * loss
            self.initial_patterns = passes.patterns()
            if self.kernels is not None:  # the reference of S(0, t), whatever is recorded
                self.initial_kernel_record = self.kernels.measure(self.current, first=True)
            run = self._run_compiled if self.compiled else self._run_arrays
            run(out, loss, limit, diverged_here, report)
        diverged[span] = diverged_here
        for target, W in zip(final, self.current, strict=True):
            target[span] = W

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
        block = max(1, CHUNK_BUDGET // (chunk.cells * per_state))
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
            **{name: _block_array(getattr(out, name), cells) for name in _RECORD_FIELDS},
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


_RECORD_FIELDS = (
    "loss",
    "test_loss",
    "kernel_distance",
    "alignment",
    "kernel_norm",
    "zeta",
    "activation_distance",
    "parameter_distance",
)


def _fields(records: _Records) -> list[np.ndarray | None]:
    """The per-(cell, record) arrays of ``records``, in field order, weights layer by layer."""
    arrays = [getattr(records, name) for name in _RECORD_FIELDS]
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
        self.block = max(1, KERNEL_BLOCK // (3 * self.size * self.size))
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


def _result(net, data, out, diverged, request: _Request) -> Training:
    batch, recorded, lr = request.batch, request.recorded, request.lr

    def shaped(array):
        return None if array is None else array.reshape(batch + array.shape[1:])

    final = Network(
        tuple(W.reshape(batch + W.shape[1:]) for W in data.final),
        net.activation,
        net.gamma,
    )
    times = recorded * lr if np.ndim(lr) == 0 else np.asarray(lr)[..., None] * recorded
    if np.ndim(lr) != 0:
        times = np.broadcast_to(times, batch + recorded.shape).copy()
    return Training(
        steps=recorded.copy(),
        t=times,
        loss=shaped(out.loss),
        test_loss=shaped(out.test_loss),
        kernel_distance=shaped(out.kernel_distance),
        alignment=shaped(out.alignment),
        kernel_norm=shaped(out.kernel_norm),
        zeta=shaped(out.zeta),
        activation_distance=shaped(out.activation_distance),
        parameter_distance=shaped(out.parameter_distance),
        final=final,
        diverged_at=int(diverged[0]) if batch == () else diverged.reshape(batch),
        lr=lr,
        objective=request.kind,
        weights=None if out.weights is None else tuple(shaped(W) for W in out.weights),
    )
