"""Kunin et al.'s map of lazy and rich learning in nonlinear networks (*Get rich quick*, Fig. 1b
and Fig. 10): the test loss, the kernel distance, the activation patterns changed, the parameter
distance and the training loss after training, over the initial scale τ × the balance δ of a
two-layer teacher–student network.

The whole grid is one batch of :func:`solvers.networks.scenario` (``kunin_init`` with τ and δ
arrays, ``lr = c/τ²`` per row as in the paper), trained at once; a click on a cell opens exactly
that network in the network view (the same data, seed, τ, δ, lr and steps). The maths is
:mod:`solvers.networks` (docs/networks.md (N5)–(N13)); the plots are :mod:`.map_plots`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from solvers import networks as nw

from ...config import map_seconds
from ...core.clicks import ClickPoint, Link, nearest_index
from ...core.downloads import Tables
from ...core.parts import Parts
from ...core.presets import Preset
from ...core.state import choice, integer, number, switch
from ...core.view import View
from . import kunin_claims as claims
from . import map_plots as plots
from . import trajectory

#: Kunin et al.'s τ range (logarithmic); δ runs over ±(largest |δ|)
TAU_RANGE = (0.1, 2.0)
#: the longest a map may take inside a web request (a server that runs no background jobs):
#: well within the server worker's 30-s timeout; a larger map gets a message saying what to do
INLINE_SECONDS = 10.0
#: above this many seconds the map's first message says how long it takes
SAY_SECONDS = 5.0
#: this machine's pace on a batch of networks (one core, measured with
#: benchmarks/networks_callbacks.py): floating-point operations a second, and the fixed cost of
#: one network's step, which a batch shares out but cannot avoid
FLOPS_PER_SECOND = 2.5e10
SECONDS_PER_CELL_STEP = 2.5e-6
#: … in the fused compiled pass (``nw.runs_fused``: ReLU-like networks on at most five inputs),
#: whose steps cost little beyond their work: the default map 0.50 s (estimated 0.55; 1.6 with
#: the numpy batch's cost), 32 × 32 cells 2.0 s (2.2), 10⁴ steps 1.9 s (2.7), d = 5 with n =
#: 50 and four seeds 1.7 s (1.3) on this machine, 2026-11-29
SECONDS_PER_FUSED_CELL_STEP = 0.5e-6
#: weights of the networks trained in one call (a few copies of them live at once): 16 MB
CALL_WEIGHTS = 2**21
#: the steps a map records besides its first and its last: the decades, as Kunin et al. save
#: their runs (10, 100, …, 10⁶ steps)
DECADES = (10, 100, 1000, 10_000, 100_000)
#: how a cell's balance δ is set: by its initial weights, or by its layers' learning rates
BALANCE_BY = ("weights", "rates")
#: the map after one of the decades, or after its last step
SHOWN = (*(str(step) for step in DECADES), "end")
SHOWN_LABELS = ("10 steps", "100", "1,000", "10,000", "100,000", "the last step")
#: a map is computed in the background (where the server runs jobs) above this many seconds
HEAVY_SECONDS = 1.0
#: the paper's own sizes (Kunin et al. App. D.1, Fig. 1b)
PAPER_SCALE = {"d": 100, "n": 1000, "width": 50}
#: Kunin et al.'s Fig. 1b itself (App. D.1): their sizes, 17 × 17 cells, 16 seeds, their rate
#: (5·10⁻³/τ² on their (1/n)Σ loss), 1,000 test points (they draw 10,000), their early steps
FIG_1B_PAPER = PAPER_SCALE | {
    "resolution": 17,
    "seeds": 16,
    "rate": 1e-2,
    "n_test": 1000,
    "steps": 1000,
}


@dataclass(frozen=True)
class Controls:
    activation: str = choice(
        "activation",
        "relu",
        nw.ACTIVATIONS,
        trajectory.ACTIVATION_LABELS,
        help="Kunin et al. use ReLU; the others are a control",
    )
    d: int = integer("input size d", 2, 2, 100)
    k: int = integer("teacher units k", 3, 1, 10)
    n: int = integer("training points n", 20, 4, 1000)
    n_test: int = integer("test points", 200, 0, 1000)
    width: int = integer("width h", 50, 2, 200, step=2)
    resolution: int = integer("cells per side", 16, 4, 32, help="At most 32 × 32 = 1,024 networks")
    spread: float = number("largest |δ|", 1.0, 0.25, 5.0, step=0.25, help="δ runs from −|δ| to |δ|")
    balance_by: str = choice(
        "δ set by",
        "weights",
        BALANCE_BY,
        ("initial weights", "learning rates"),
        help="Weights: read-out × α and first layer ÷ α from a balanced start (Kunin et al. "
        "Fig. 1b). Learning rates: the balanced start itself, its first layer trained at α² "
        "times the rate and its read-out at α⁻² times, which gives it the same conserved δ",
    )
    rate: float = number(
        "learning-rate constant c (lr = c/τ²)",
        5e-3,
        1e-3,
        0.1,
        log=True,
        help="lr = c/τ², so every cell moves its kernel at a similar pace; Kunin et al.'s "
        "5·10⁻³/τ² on their loss (1/n)Σ(f − y)² is c = 10⁻² on this map's (1/2n)Σ(f − y)²",
    )
    steps: int = trajectory.steps_field(
        "Kunin et al.'s maps go to 10⁵ steps; a map beyond the server's budget is cut"
    )
    seed: int = integer("seed", 0, 0, 999, help="Draws the teacher, the data and the base weights")
    seeds: int = integer(
        "seeds averaged",
        1,
        1,
        16,
        help="Seeds seed, seed + 1, …: each draws its own teacher, data and base weights, and "
        "every cell shows their mean (the hover, their spread). Kunin et al. average 16",
    )
    shown: str = choice(
        "show the map after",
        "end",
        SHOWN,
        SHOWN_LABELS,
        physics=False,
        help="The map is recorded at every decade of steps, as Kunin et al. save theirs",
    )
    labels: bool = switch("write the regimes on the map", True, physics=False)


GROUPS = (
    ("Networks and data", ("activation", "d", "k", "n", "n_test", "width")),
    (
        "Map and training",
        (
            "shown",
            "resolution",
            "spread",
            "balance_by",
            "seeds",
            "rate",
            "steps",
            "seed",
            "labels",
        ),
    ),
)

#: Kunin et al. Fig. 1b at a size the paper-figures page computes within a web request's
#: INLINE_SECONDS (~8 s): d = 5, n = 50, 16 seeds as theirs, at their rate (lr = 5·10⁻³/τ² on
#: their (1/n)Σ loss is c = 10⁻² on this map's (1/2n)Σ). At d = 2 and n = 20 which of upstream
#: and downstream generalises better changes from seed to seed (docs/networks.md).
FIG_1B = {
    "resolution": 10,
    "d": 5,
    "n": 50,
    "steps": 1000,
    "spread": 1.0,
    "rate": 1e-2,
    "seed": 0,
    "seeds": 16,
}
FIG_1B_CARD = {
    "figure": "Fig. 1b",
    "paper_setting": claims.FIG_1B_PAPER,
    "differs": claims.FIG_1B_DIFFERS,
}
FIG_1B_CAPTION = (
    "10 × 10 two-layer ReLU students (h = 50) of a k = 3 teacher on 50 points in d = 5, the "
    "mean of 16 seeds, 1,000 steps of the paper's rate (lr = 10⁻²/τ² on (1/2n)Σ(f − y)², "
    "their 5·10⁻³/τ² on (1/n)Σ)"
)

PRESETS = (
    Preset(
        "fig-1b-test-loss-and-kernel-distance",
        "Fig. 1b — kernel distance over scale τ and balance δ",
        f"{FIG_1B_CAPTION}: the kernel distance after 100 steps, when the upstream kernels "
        "have moved several times as far as the downstream ones (the map's time shows the "
        "downstream ones moving later).",
        FIG_1B | {"shown": "100"},
        panel="kernel",
        claim=claims.FIG_1B_KERNEL,
        **FIG_1B_CARD,
    ),
    Preset(
        "fig-1b-test-loss",
        "Fig. 1b — test loss over scale τ and balance δ",
        f"{FIG_1B_CAPTION}: the test loss after training.",
        FIG_1B,
        panel="test_loss",
        claim=claims.FIG_1B_TEST,
        **FIG_1B_CARD,
    ),
    Preset(
        "fig-10-activation-patterns-changed",
        "Fig. 10 — activation patterns changed over scale τ and balance δ",
        f"{FIG_1B_CAPTION}: the share of (input, unit) pairs whose activation changed (Fig. "
        "10's Hamming distance, the units changed per input, is h = 50 times it).",
        FIG_1B,
        panel="activation",
        claim=claims.FIG_10_PATTERNS,
        **FIG_1B_CARD | {"figure": "Fig. 10", "differs": claims.FIG_10_PATTERNS_DIFFERS},
    ),
    Preset(
        "fig-10-parameter-distance",
        "Fig. 10 — parameter distance over scale τ and balance δ",
        f"{FIG_1B_CAPTION}: how far all the weights moved, ‖θ − θ₀‖.",
        FIG_1B,
        panel="parameters",
        claim=claims.FIG_10_PARAMETERS,
        **FIG_1B_CARD | {"figure": "Fig. 10", "differs": claims.FIG_10_DIFFERS},
    ),
    Preset(
        "fig-10-training-loss",
        "Fig. 10 — training loss over scale τ and balance δ",
        f"{FIG_1B_CAPTION}: the training loss at the end.",
        FIG_1B,
        panel="training_loss",
        claim=claims.FIG_10_TRAINING,
        **FIG_1B_CARD | {"figure": "Fig. 10", "differs": claims.FIG_10_DIFFERS},
    ),
    Preset(
        "tanh-control",
        "Control: tanh students",
        "The same map with tanh students (c = 10⁻³): tanh is not homogeneous, so δ is not "
        "conserved and the map changes its shape.",
        {"activation": "tanh", "resolution": 12, "rate": 1e-3},
    ),
    Preset(
        "the-papers-sizes-d-100-n-1000",
        "The paper's sizes: d = 100, n = 1,000, h = 50",
        "Kunin et al.'s own networks on a 16 × 16 grid for 2,000 steps (they trained 10⁵): "
        "a few minutes, as a background job with its progress (a server that runs no "
        "background jobs says so and draws maps of up to ten seconds only).",
        PAPER_SCALE | {"resolution": 16, "steps": 2000},
    ),
    Preset(
        "fig-1b-at-the-papers-sizes-16-seeds",
        "Fig. 1b at the paper's sizes: 17 × 17 cells, 16 seeds, 1,000 steps",
        "Kunin et al.'s own Fig. 1b: their networks (d = 100, n = 1,000, h = 50, a k = 3 "
        "teacher), grid, 16 seeds and rate, recorded after 10, 100 and 1,000 steps (their "
        "early panels; they trained 10⁵), on 1,000 test points (they drew 10,000) and τ up to 2 "
        "(theirs to 1.995). About an hour of one core: a server runs it whole "
        "with a map budget of 4,100 s or more; under the default budget it is cut to 16 × 16 "
        "cells and 99 steps, and says so.",
        FIG_1B_PAPER,
    ),
    Preset(
        "delta-set-by-learning-rates",
        "δ set by learning rates (first layer α², read-out α⁻²)",
        "A balanced start trained with layer rates that give it the balance δ (Kunin et al.: "
        "the layers' variances and learning rates set the conserved δ together). For ReLU "
        "every map but the parameter distance is the weight-scaled map's: the same networks "
        "in other coordinates, whose weights travel differently.",
        {"balance_by": "rates"},
        panel="parameters",
    ),
    Preset(
        "larger-inputs-d-10",
        "Larger inputs: d = 10, n = 100",
        "Closer to the paper's set-up (d = 100, n = 1,000): about ten times the default's work.",
        {"d": 10, "n": 100, "resolution": 12, "steps": 2000},
    ),
)

INTRO = (
    r"Kunin et al.'s phase portrait for nonlinear networks: two-layer ReLU students "
    r"$f(x) = \sum_i a_i\,\sigma(w_i^\top x)$ of a narrow ReLU teacher, started at scale $\tau$ "
    r"($|a_i|\,\|w_i\| = \tau^2$, $f \equiv 0$) and balance $\delta = a_i^2 - \|w_i\|^2$ "
    r"(conserved by gradient flow), trained with $\mathrm{lr} = c/\tau^2$. Large $\tau$ is lazy "
    r"(the kernel stays put), small $\tau$ rich — and rapidly rich when upstream ($\delta > 0$), "
    r"where the paper finds the lowest test loss (averaged over 16 seeds: with one seed and few "
    r"points it changes from seed to seed). The grid trains as one batch per seed (a heavy map "
    r"in parts that the server's free workers share). Click a cell to open that network."
)


# -- the grid -----------------------------------------------------------------------------------


def _ten_digits(values: np.ndarray) -> np.ndarray:
    """Values as a link carries them (10 significant digits): a clicked cell opens on exactly
    its own numbers; ``+ 0.0`` turns −0 into 0."""
    return np.array([float(f"{v:.10g}") + 0.0 for v in np.asarray(values, dtype=float)])


def grid(controls: Controls) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(τ of each row, δ of each column, lr of each row = c/τ²)."""
    taus = _ten_digits(np.geomspace(*TAU_RANGE, controls.resolution))
    deltas = _ten_digits(np.linspace(-controls.spread, controls.spread, controls.resolution))
    return taus, deltas, _ten_digits(controls.rate / taus**2)


def recorded_steps(steps: int) -> np.ndarray:
    """The steps a map of ``steps`` steps records: 0, each of :data:`DECADES` before the last
    step, and the last step."""
    return np.array(sorted({0, *(step for step in DECADES if step < steps), int(steps)}))


def _work(controls: Controls, steps: int) -> float:
    """The floating-point operations of one seed's grid trained ``steps`` steps, recording
    what the controls' steps record (so that the work grows linearly with ``steps``)."""
    widths = (controls.d, controls.width, 1)
    cells = controls.resolution**2
    records = recorded_steps(max(controls.steps, 1)).size
    return nw.training_work(
        widths, controls.n, steps=steps, records=records, tests=controls.n_test, cells=cells
    )


def _seconds(controls: Controls, steps: int) -> float:
    cell_steps = controls.resolution**2 * steps
    fused = nw.runs_fused((controls.d, controls.width, 1), controls.activation)
    per_cell_step = SECONDS_PER_FUSED_CELL_STEP if fused else SECONDS_PER_CELL_STEP
    one_seed = _work(controls, steps) / FLOPS_PER_SECOND + cell_steps * per_cell_step
    return controls.seeds * one_seed


def budget() -> float:
    """The longest a map may train, estimated as :func:`seconds` does (s of one core): the
    deployment's ``MAP_SECONDS`` (app/config.py; 600 s unless set), as a background job.
    A larger request has fewer cells or steps, and its message says so first."""
    return float(map_seconds())


def context() -> tuple:
    """What a map's result depends on besides its controls: the budget that may cut it."""
    return (("budget", budget()),)


def within_budget(controls: Controls) -> Controls:
    """The map the controls ask for, within :func:`budget`: fewer cells per side if the NTKs at
    the recorded steps alone would take half of it, then as many of the steps as the rest
    allows."""
    limit = budget()
    resolution = controls.resolution
    while resolution > 2 and _seconds(dataclasses.replace(controls, resolution=resolution), 0) > (
        limit / 2
    ):
        resolution -= 1
    fitted = dataclasses.replace(controls, resolution=resolution)
    base = _seconds(fitted, 0)
    per_step = _seconds(fitted, 1) - base
    steps = int(min(controls.steps, max(1, (limit - base) // per_step)))
    return dataclasses.replace(fitted, steps=steps)


def seconds(controls: Controls) -> float:
    """About how long the map takes on this machine."""
    fitted = within_budget(controls)
    return _seconds(fitted, fitted.steps)


def heavy(controls: Controls) -> bool:
    return seconds(controls) > HEAVY_SECONDS


def seeds(controls: Controls) -> range:
    """The seeds the map averages: ``seed``, ``seed + 1``, …"""
    return range(controls.seed, controls.seed + controls.seeds)


def layer_rates(taus: np.ndarray, deltas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The learning-rate factors (η_w, η_a) = (α², α⁻²) that give a balanced start at scale τ
    the balance δ = η_w a² − η_a ‖w‖² = τ²(α² − α⁻²) (Kunin et al. §5; docs/networks.md
    (N13)). For a ReLU network this is the weight-scaled start in other coordinates: w/α and
    aα follow plain gradient descent step for step."""
    alpha_sq = nw.alpha_from_tau_delta(taus, deltas) ** 2
    return alpha_sq, 1.0 / alpha_sq


def scenario(controls: Controls, rows: slice = slice(None), seed: int | None = None):
    """The map's networks (rows ``rows`` of the grid, drawn from ``seed``, by default the
    first) as one batched scenario (for controls within the budget, :func:`within_budget`)."""
    taus, deltas, rates = grid(controls)
    tau, delta = taus[rows, None], deltas[None, :]
    by_rates = controls.balance_by == "rates"
    built = nw.scenario(
        "teacher",
        d=controls.d,
        k=controls.k,
        n=controls.n,
        n_test=controls.n_test,
        activation=controls.activation,
        width=controls.width,
        init="kunin",
        tau=tau,
        delta=0.0 * delta if by_rates else delta,
        lr=rates[rows, None] * np.ones((1, deltas.size)),
        steps=controls.steps,
        seed=controls.seed if seed is None else seed,
    )
    return dataclasses.replace(built, layer_lrs=layer_rates(tau, delta)) if by_rates else built


# -- the result ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measures:
    """What the map measures of each network (docs/networks.md (N4), (N7), (N9), (N11)), each
    over τ × δ — after the recorded steps' axis in a :class:`Map`."""

    loss: np.ndarray  #: training loss
    test_loss: np.ndarray | None  #: None without test points
    kernel_distance: np.ndarray  #: S(0, t)
    activation_distance: np.ndarray  #: share of (input, unit) patterns changed
    parameter_distance: np.ndarray  #: ‖θ − θ₀‖

    def at(self, index: int) -> Measures:
        return Measures(**{name: _take(values, index) for name, values in _items(self)})


def _items(measures: Measures) -> list[tuple[str, np.ndarray | None]]:
    return [(field.name, getattr(measures, field.name)) for field in dataclasses.fields(measures)]


def _take(values: np.ndarray | None, index: int) -> np.ndarray | None:
    return None if values is None else values[index]


@dataclass(frozen=True)
class Snapshot:
    """The map after one recorded step: every measure the mean over the seeds (its fields),
    their standard deviation in :attr:`spread` (zeros for one seed)."""

    taus: np.ndarray  #: (S,) τ of each row
    deltas: np.ndarray  #: (D,) δ of each column
    rates: np.ndarray  #: (S,) lr of each row
    step: int  #: the step shown
    steps: int  #: the steps trained
    seeds: int  #: seeds averaged
    loss: np.ndarray  #: (S, D)
    test_loss: np.ndarray | None  #: (S, D)
    kernel_distance: np.ndarray  #: (S, D)
    activation_distance: np.ndarray  #: (S, D)
    parameter_distance: np.ndarray  #: (S, D)
    spread: Measures  #: (S, D) each: the seeds' standard deviation
    diverged: np.ndarray  #: (S, D) the first step at which a seed's network diverged, or −1
    #: (S,) the seeds trained so far in each row, of a map still being computed (None: whole)
    seeds_done: np.ndarray | None = None


@dataclass(frozen=True)
class Map:
    """The trained map: every measure at every recorded step, averaged over the seeds."""

    taus: np.ndarray  #: (S,) τ of each row
    deltas: np.ndarray  #: (D,) δ of each column
    rates: np.ndarray  #: (S,) lr of each row
    recorded: np.ndarray  #: (R,) the steps recorded (:func:`recorded_steps`)
    seeds: int  #: seeds averaged
    mean: Measures  #: (R, S, D) each: the mean over the seeds
    spread: Measures  #: (R, S, D) each: the seeds' standard deviation
    diverged: np.ndarray  #: (S, D) the first step at which a seed's network diverged, or −1
    #: (S,) the seeds trained so far in each row, of a map still being computed: each cell
    #: the mean and spread of those (NaN in a row with none yet); None: the whole map
    seeds_done: np.ndarray | None = None

    @property
    def steps(self) -> int:
        return int(self.recorded[-1])

    def index(self, shown: str) -> int:
        """The recorded step ``shown`` names (one of :data:`SHOWN`): the last for "end" or a
        decade the map did not reach."""
        if shown != "end" and int(shown) in self.recorded:
            return int(np.flatnonzero(self.recorded == int(shown))[0])
        return self.recorded.size - 1

    def at(self, shown: str) -> Snapshot:
        """The map after the recorded step ``shown`` names (:meth:`index`)."""
        index = self.index(shown)
        return Snapshot(
            self.taus,
            self.deltas,
            self.rates,
            int(self.recorded[index]),
            self.steps,
            self.seeds,
            spread=self.spread.at(index),
            diverged=self.diverged,
            seeds_done=self.seeds_done,
            **dict(_items(self.mean.at(index))),
        )

    @property
    def final(self) -> Snapshot:
        return self.at("end")


Report = Callable[[float, str], None]


def _rows_per_call(controls: Controls, steps: int) -> int:
    """Rows of the grid per training call: each call stays within the engine's MAX_WORK (one
    row whose steps alone exceed it is trained in stages, :func:`_stage_steps`), and its
    networks' weights (which the call copies a few times) within :data:`CALL_WEIGHTS`."""
    per_row = _work(controls, steps) / controls.resolution
    by_work = nw.MAX_WORK // max(per_row, 1.0)
    parameters = controls.width * (controls.d + 1)
    by_memory = CALL_WEIGHTS // (parameters * controls.resolution)
    return int(max(1, min(controls.resolution, by_work, by_memory)))


def _stage_steps(controls: Controls, rows: int) -> int:
    """The steps one training call of ``rows`` rows may take within the engine's MAX_WORK:
    all of them, or, for a longer run (the paper's sizes for 10⁴ steps), stages that each
    continue the one before from the true start (``nw.train_in_stages``)."""
    base = _work(controls, 0) * rows / controls.resolution
    per_step = _work(controls, 1) * rows / controls.resolution - base
    return int(max(1, min(controls.steps, (nw.MAX_WORK - base) // max(per_step, 1.0))))


#: a heavy map is cut into at least this many parts (seeds × blocks of rows), so that the job
#: workers can share it (app/core/parts.py); a light one trains each seed in as few calls as
#: the engine allows. (Smaller blocks batch fewer networks per step: the default map in 4
#: parts trains as fast as in one, in 8 about 30% slower, benchmarks/shared_map.py.)
PARTS_AT_LEAST = 4


def blocks(controls: Controls) -> list[tuple[int, slice]]:
    """The map's parts, (seed, rows of the grid), for controls within the budget."""
    size, drawn = controls.resolution, seeds(controls)
    per_seed = math.ceil(PARTS_AT_LEAST / len(drawn)) if heavy(controls) else 1
    rows = min(_rows_per_call(controls, controls.steps), math.ceil(size / per_seed))
    return [
        (seed, slice(start, min(start + rows, size)))
        for seed in drawn
        for start in range(0, size, max(rows, 1))
    ]


@dataclass(frozen=True)
class Block:
    """One part of the map: one seed's networks in a block of rows, trained; each measure
    (R, rows, D) with the recorded steps first (:data:`RECORDS`)."""

    loss: np.ndarray
    test_loss: np.ndarray | None
    kernel_distance: np.ndarray
    activation_distance: np.ndarray
    parameter_distance: np.ndarray
    diverged: np.ndarray  #: (rows, D) the step at which a network diverged, or −1


def _count(controls: Controls) -> int:
    return len(blocks(within_budget(controls)))


def _train_block(controls: Controls, index: int, report: Report) -> Block:
    """Part ``index`` of the map: its seed's networks in its rows, trained (only the measures
    are kept, not the run: its trained weights would pile up)."""
    controls = within_budget(controls)
    seed, rows = blocks(controls)[index]
    steps = controls.steps
    run = scenario(controls, rows, seed).train(
        record=recorded_steps(steps),
        progress=lambda k: report(k / max(steps, 1), ""),
        stage_steps=_stage_steps(controls, rows.stop - rows.start),
    )
    found = {name: getattr(run, name) for name in RECORDS}
    moved = {name: None if v is None else np.moveaxis(v, -1, 0) for name, v in found.items()}
    return Block(**moved, diverged=np.asarray(run.diverged_at))


def _progress_text(controls: Controls, fraction: float) -> str:
    controls = within_budget(controls)
    networks = controls.resolution**2 * controls.seeds
    return f"training: {fraction:.0%} of {networks:,} networks' steps"


def _averaged(controls: Controls, parts: list[Block]) -> Map:
    """The map from its parts (each seed's blocks of rows, in order): means and spreads over
    the seeds."""
    return _combined(controls, dict(enumerate(parts)))


def _combined(controls: Controls, ready: Mapping[int, Block]) -> Map:
    """The map from the parts done (index → part, at least one): each cell's mean and spread
    over the seeds trained in its row so far (as numpy's mean and std over all of them, once
    every part is done); a row none has reached yet is NaN (a blank row on the page)."""
    controls = within_budget(controls)
    drawn, layout = seeds(controls), blocks(controls)
    taus, deltas, rates = grid(controls)
    recorded = recorded_steps(controls.steps)
    done = np.zeros((len(drawn), taus.size), dtype=bool)  # (seeds, S)
    for index in ready:
        seed, rows = layout[index]
        done[seed - drawn.start, rows] = True

    def by_seed(name: str, shape: tuple[int, ...], fill: float) -> np.ndarray | None:
        """(seeds, *shape, S, D) of the parts done, ``fill`` elsewhere."""
        if getattr(next(iter(ready.values())), name) is None:
            return None
        found = np.full((len(drawn), *shape, taus.size, deltas.size), fill)
        for index, part in ready.items():
            seed, rows = layout[index]
            found[seed - drawn.start, ..., rows, :] = getattr(part, name)
        return found

    count = done.sum(axis=0)  # (S,)
    inside = done[:, None, :, None]  # (seeds, 1, S, 1)

    def mean(values: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):  # (a row no seed reached yet)
            return np.where(inside, values, 0.0).sum(axis=0) / count[:, None]

    def spread(values: np.ndarray) -> np.ndarray:
        deviation = np.where(inside, values - mean(values), 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.sqrt((deviation * deviation).sum(axis=0) / count[:, None])

    diverged = by_seed("diverged", (), -1)  # (seeds, S, D)
    first = np.where(diverged >= 0, diverged, np.iinfo(np.int64).max).min(axis=0)
    measured = {name: by_seed(name, (recorded.size,), np.nan) for name in RECORDS}
    return Map(
        taus,
        deltas,
        rates,
        recorded=recorded,
        seeds=len(drawn),
        mean=Measures(**{n: None if v is None else mean(v) for n, v in measured.items()}),
        spread=Measures(**{n: None if v is None else spread(v) for n, v in measured.items()}),
        diverged=np.where(diverged.max(axis=0) >= 0, first, -1),
        seeds_done=None if done.all() else count,
    )


#: what the map keeps of each network's records (:data:`solvers.networks.RECORDED`): the
#: measures with one value per recorded step
RECORDS = tuple(field.name for field in dataclasses.fields(Measures))

#: the map as parts the job workers share, drawn as they finish
PARTS = Parts(_count, _train_block, _averaged, Block, _progress_text, _combined, Map)


def compute_job(controls: Controls, report: Report) -> Map:
    """The map, telling ``report`` how far it has got (each part one call of the engine,
    telling its progress step by step; the parts shared by the job workers in a job)."""
    return PARTS.compute(controls, report)


def _quiet(fraction: float, text: str) -> None:
    """No one listens to a synchronous map."""


def compute(controls: Controls) -> Map:
    """The map inside a web request: only a map of a few seconds (a larger one is a background
    job where the server runs them, :func:`heavy`)."""
    expected = seconds(controls)
    if expected > INLINE_SECONDS:
        raise ValueError(
            f"This map takes {_time_text(expected)} on this machine, and this server runs no "
            f"background jobs (they need a shared cache: CACHE_TYPE=FileSystemCache or "
            f"RedisCache). Choose fewer cells, steps or points — at most about "
            f"{INLINE_SECONDS:g} s of work."
        )
    return compute_job(controls, _quiet)


# -- summary, messages, downloads ---------------------------------------------------------------


def _time_text(value: float) -> str:
    if value < 90:
        return f"about {max(value, 0.1):.2g} s"
    return f"about {value / 60:.2g} minutes"


def _seeds_text(seeds: int, first: int) -> str:
    if seeds == 1:
        return f"seed {first}"
    return f"the mean of {seeds} seeds ({first}–{first + seeds - 1})"


def _so_far(result: Map, seeds_done: np.ndarray) -> str:
    """How much of a map still being computed its cells hold."""
    trained = int(seeds_done.sum()) * result.deltas.size
    whole = result.taus.size * result.deltas.size * result.seeds
    text = f"{trained:,} of its {whole:,} networks trained"
    if result.seeds > 1:
        text += "; each cell the mean of the seeds trained in its row so far (fewer: noisier)"
    if not seeds_done.all():
        text += "; blank rows have none yet"
    return text


def facts(controls: Controls, result: Map) -> list[tuple[str, str]]:
    shown, name = result.at(controls.shown), controls.activation.replace("_", " ")
    items = [
        (
            "the map",
            f"{shown.kernel_distance.size:,} {name} students {controls.d} → {controls.width} → 1 "
            f"of a ReLU teacher with k = {controls.k} units, "
            f"{_seeds_text(result.seeds, controls.seed)}",
        ),
        (
            "balance δ",
            "set by the initial weights (a × α, w ÷ α)"
            if controls.balance_by == "weights"
            else "set by the learning rates (η_w = α², η_a = α⁻²) of a balanced start",
        ),
        (
            "training",
            f"{result.steps:,} steps of lr = {controls.rate:g}/τ² on n = {controls.n} points "
            f"(t = {controls.rate * result.steps:.3g}/τ²)",
        ),
        (
            "shown",
            f"after {shown.step:,} steps (t = {controls.rate * shown.step:.3g}/τ²); recorded "
            "after " + ", ".join(f"{step:,}" for step in result.recorded[1:]),
        ),
        (
            "kernel distance S(0, t)",
            f"from {np.nanmin(shown.kernel_distance):.3g} to "
            f"{np.nanmax(shown.kernel_distance):.3g}",
        ),
    ]
    if result.seeds_done is not None:  # (NaN in the rows not trained yet)
        items.insert(1, ("so far", _so_far(result, result.seeds_done)))
    if shown.test_loss is not None:
        best = np.unravel_index(np.nanargmin(shown.test_loss), shown.test_loss.shape)
        items.append(
            (
                "lowest test loss",
                f"{shown.test_loss[best]:.3g} at τ = {shown.taus[best[0]]:.3g}, "
                f"δ = {shown.deltas[best[1]]:.3g}",
            )
        )
    return items


def notes(controls: Controls, result: Map) -> list[str]:
    messages, cells = [], result.diverged.size
    cut = result.steps < controls.steps or cells < controls.resolution**2
    if seconds(controls) > SAY_SECONDS or cut:
        messages.append(
            f"Expected time: {_time_text(seconds(controls))} on this machine, for "
            f"{cells * result.seeds:,} networks {controls.d} → {controls.width} → 1 on "
            f"{controls.n:,} points."
        )
    if cut:
        side = result.taus.size
        messages.append(
            f"A map may train for about {budget():g} s here: it has {side} × {side} cells and "
            f"trains {result.steps:,} of the {controls.steps:,} steps asked for. Fewer cells, "
            "seeds, points, or a smaller d or width allow more, and so does a larger map "
            "budget in the server's settings."
        )
    if controls.shown != "end" and result.at(controls.shown).step != int(controls.shown):
        messages.append(
            f"The map trained {result.steps:,} steps, fewer than {int(controls.shown):,}: it "
            "shows the last one."
        )
    stopped = int(np.count_nonzero(result.diverged >= 0))
    if stopped:
        messages.append(
            f"{stopped} of the {cells} cells diverged (lr = c/τ² is too large for them"
            + ("" if result.seeds == 1 else " in at least one seed")
            + "); each is shown at its last finite state. A smaller c avoids it."
        )
    return messages


def tables(controls: Controls, result: Map) -> Tables:
    """One table per recorded step after the first: every cell's mean over the seeds (and
    with several seeds their standard deviation, ``…_sd``)."""
    taus, deltas = np.meshgrid(result.taus, result.deltas, indexing="ij")
    rates = np.broadcast_to(result.rates[:, None], taus.shape)
    found = {}
    for index, step in enumerate(result.recorded[1:], start=1):
        mean, spread = result.mean.at(index), result.spread.at(index)
        columns = {"tau": taus.ravel(), "delta": deltas.ravel(), "lr": rates.ravel()}
        for name, values in _items(mean):
            if values is not None:
                columns[name] = values.ravel()
                if result.seeds > 1:
                    columns[f"{name}_sd"] = getattr(spread, name).ravel()
        columns["diverged_at"] = result.diverged.ravel().astype(float)
        found[f"map after {step} steps"] = columns
    return found


# -- clicks -------------------------------------------------------------------------------------


def cell_values(controls: Controls, row: int, column: int) -> dict:
    """The network view's controls for the cell (row τ, column δ): exactly that network (of
    the first seed)."""
    controls = within_budget(controls)
    taus, deltas, rates = grid(controls)
    tau, delta = float(taus[row]), float(deltas[column])
    ratio = 1.0  # η_a/η_w
    if controls.balance_by == "rates":  # a balanced start, δ set by (η_w, η_a) = (α², α⁻²)
        eta_w, eta_a = layer_rates(np.array(tau), np.array(delta))
        delta, ratio = 0.0, float(f"{float(eta_a / eta_w):.10g}")
    return {
        "data": "teacher",
        "d": controls.d,
        "k": controls.k,
        "n": controls.n,
        "n_test": controls.n_test,
        "activation": controls.activation,
        "depth": 2,
        "width": controls.width,
        "init": "kunin",
        "tau": tau,
        "delta": delta,
        "loss": "mse",
        "rate_ratio": ratio,
        "lr": float(rates[row]),
        "steps": controls.steps,
        "seed": controls.seed,
        "log_time": True,
    }


def open_cell(controls: Controls, point: ClickPoint) -> Link | None:
    """The clicked cell in the network view: from its grid indices when the browser sends
    them, else the grid point nearest its coordinates (they travel as float32)."""
    taus, deltas, _ = grid(within_budget(controls))
    found = point.cell(taus.size, deltas.size)
    if found is None:
        if point.x is None or point.y is None or point.y <= 0:
            return None
        row, column = nearest_index(taus, point.y, log=True), nearest_index(deltas, point.x)
        if row is None or column is None or not math.isfinite(point.x):
            return None
        found = (row, column)
    return Link(trajectory.VIEW, cell_values(controls, *found))


VIEW = View(
    key="networks-map",
    path="/networks/map",
    title="Networks: Kunin et al.'s map of lazy and rich",
    nav_title="Networks map",
    summary=(
        "Kunin et al.'s Fig. 1b with real ReLU networks: test loss, kernel distance and "
        "activation patterns over initial scale τ × balance δ, the whole grid trained as one "
        "batch. Click a cell to open that network."
    ),
    intro=INTRO,
    controls=Controls,
    compute=compute,
    result_type=Map,
    panels=plots.PANELS,
    facts=facts,
    tables=tables,
    presets=PRESETS,
    groups=GROUPS,
    notes=notes,
    clicks={"kernel": open_cell, "test_loss": open_cell, "activation": open_cell},
    map_of=trajectory.VIEW.key,
    heavy=heavy,
    compute_job=compute_job,
    job_seconds=seconds,
    context=context,
    parts=PARTS,
)
