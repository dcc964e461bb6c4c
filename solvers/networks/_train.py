"""Full-batch gradient descent on whole batches of networks, with the lazy/rich diagnostics
recorded along the way (docs/networks.md (N4)–(N11)).

The step loop runs over gradient-descent steps only: every step is a fixed set of batched array
operations over the cells, on buffers allocated once. Large batches are processed in chunks of
cells sized to a memory budget (:data:`CHUNK_BUDGET`), which bounds the memory of any request
and keeps each step's working set in cache; a cell's result does not depend on the chunking.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from . import _compiled
from ._model import (
    Network,
    positive_count,
)
from ._request import (
    CHUNK_BUDGET,
    DIVERGENCE_FACTOR,
    MAX_KERNEL_SIZE,
    MAX_RECORDED,
    MAX_RECORDED_WEIGHTS,
    MAX_RECORDS,
    MAX_TRAIN_STEPS,
    MAX_WORK,
    RECORDED,
    _allocate,
    _cells_of,
    _chunk_cells,
    _flatten,
    _Progress,
    _record_steps,
    _Request,
    _weight_records,
    default_record,
    training_work,
)
from ._steps import _Chunk, kunin_hamming, layer_alignments

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
    "kunin_hamming",
    "layer_alignments",
    "train",
    "training_work",
]


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
    start: Network | None = None,
    start_step: int = 0,
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
    start, start_step : to continue a run: ``net`` is the state that ``start_step`` steps of
        this same training (data, rates, loss) reached from ``start``, the networks' true
        start θ₀ (e.g. ``net = run.final``, ``start`` the network that run began from).
        S(0, t), the activation-pattern and parameter distances and the divergence bound are
        then measured from ``start``, and the steps numbered from ``start_step``: ``record``,
        and the result's ``steps``, ``t`` and ``diverged_at``, count from θ₀, so that the two
        runs' records are one run's (docs/networks.md, *Continuing a run*). A cell that
        diverged in the earlier run diverges again at the first step here.

    A cell whose loss or weights stop being finite, or whose loss exceeds
    :data:`DIVERGENCE_FACTOR` × its start, is frozen at its last good state and ``diverged_at``
    holds the step (docs/networks.md (N12)); the other cells go on.
    """
    start_step, record = _continued(net, start, start_step, steps, record)
    request = _Request.check(
        net, X, y, lr, steps, layer_lrs, loss, record, X_test, y_test, bool(track_kernel)
    )
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a function of one whole number; got {progress!r:.60}.")
    data = _flatten(net, request)
    if start is not None:
        data.reference = [_cells_of(W, request.batch, 2) for W in start.weights]
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
    return _result(net, data, out, diverged, request, start_step)


def _continued(net, start, start_step, steps, record) -> tuple[int, np.ndarray | None]:
    """``start_step`` checked, and ``record`` (counted from θ₀) in this call's own steps."""
    if start is None:
        if start_step != 0:
            raise ValueError(
                "start_step counts the steps already taken from start: pass start (the "
                "networks' true start) with it, or leave it at 0."
            )
        return 0, record
    if not isinstance(start, Network):
        raise ValueError(f"start must be a Network (the run's true start); got {start!r:.60}.")
    if not isinstance(net, Network):
        raise ValueError(f"net must be a Network; got {net!r:.60}.")
    same_shapes = [np.shape(W) for W in start.weights] == [np.shape(W) for W in net.weights]
    if not same_shapes or start.activation != net.activation:
        raise ValueError(
            "start must be the same networks as net before training (the same widths, "
            "activation and batch shape); got widths "
            f"{start.widths} ({start.activation}) for {net.widths} ({net.activation})."
        )
    if not np.array_equal(np.asarray(start.gamma), np.asarray(net.gamma)):
        raise ValueError("start and net must have the same output scale γ (one training run).")
    start_step = positive_count("start_step", start_step, MAX_TRAIN_STEPS, minimum=0)
    if record is None:
        return start_step, None
    absolute = _record_steps(record)
    steps = positive_count("steps", steps, MAX_TRAIN_STEPS, minimum=0)
    if absolute.min() < start_step or absolute.max() > start_step + steps:
        raise ValueError(
            "record counts steps from the true start: it must lie within start_step..start_step "
            f"+ steps = {start_step}..{start_step + steps}; got {absolute.min()}..{absolute.max()}."
        )
    return start_step, absolute - start_step


def _result(net, data, out, diverged, request: _Request, start_step: int = 0) -> Training:
    batch, lr = request.batch, request.lr
    recorded = request.recorded + start_step
    diverged = np.where(diverged >= 0, diverged + start_step, -1)

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
