"""λ-balanced networks side by side (Dominé et al., *From lazy to rich*): the same task and start
at several relative scales λ — one task (their Figs. 1–3), or a sequence of tasks: continual
learning (App. D.1), reversal learning (App. D.2) and fine-tuning after re-balancing (App. D.4).

Every curve is exact: a task switch restarts the closed form from the state reached
(:func:`solvers.lambda_balanced.exact_sequence`); optional open circles are gradient
descent through the same sequence. The plots are :mod:`.sequences_plots`, the claims of the
cards :mod:`.sequence_claims`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers import lambda_balanced as lb
from solvers.metrics import on_saddle

from ...core.claims import num
from ...core.downloads import Tables
from ...core.presets import Preset
from ...core.state import choice, integer, number, switch
from ...core.view import View
from . import sequence_claims as claims
from . import sequences_plots as plots
from .claims import FIG_5_PAPER

#: hard caps that keep one request cheap whatever it asks for
MAX_DIM = 10
MAX_LAMBDAS = 7
MAX_TASKS = 5
#: recorded times per task, and gradient-descent steps over the whole sequence (per λ)
POINTS = 160
MAX_DESCENT_STEPS = 6_000
#: the most modes of the first task drawn
MODES = 3
EXPERIMENTS = ("one task", "continual", "reversal", "fine-tuning")


@dataclass(frozen=True)
class Controls:
    experiment: str = choice(
        "experiment",
        "one task",
        EXPERIMENTS,
        (
            "one task (Figs. 1–3)",
            "continual learning (App. D.1)",
            "reversal learning (App. D.2)",
            "fine-tuning after re-balancing (App. D.4)",
        ),
        help="One task; several random tasks in turn; a task then its top mode reversed; the "
        "hierarchy, then a new task after re-balancing the network to each λ",
    )
    lam_low: float = number("smallest λ", -2.0, -20.0, 20.0, step=0.1)
    lam_high: float = number("largest λ", 2.0, -20.0, 20.0, step=0.1)
    count: int = integer(
        "number of λ values",
        3,
        1,
        MAX_LAMBDAS,
        help="Evenly spread from the smallest to the largest",
    )
    scale: float = number(
        "absolute scale ‖W₂W₁‖ at t = 0",
        0.05,
        0.001,
        10.0,
        log=True,
        help="The same for every λ",
    )
    shape: str = choice(
        "network shape",
        "square",
        lb.SHAPE_NAMES,
        ("funnel", "square", "inverted funnel", "any"),
        help="h ≤ min(d_in, d_out) so that every λ of either sign fits the same network",
    )
    d_in: int = integer("input size d_in", 3, 1, MAX_DIM)
    hidden: int = integer("hidden width h", 3, 1, MAX_DIM)
    d_out: int = integer("output size d_out", 3, 1, MAX_DIM)
    task: str = choice(
        "task", "random", lb.TASKS, ("random regression", "semantic hierarchy (8 × 8)")
    )
    init: str = choice("initialisation", "random", lb.INITS, ("random λ-balanced", "task-aligned"))
    seed: int = integer("random seed", 4, 0, 999, help="Seeds the tasks and the random start")
    tasks: int = integer("tasks in turn (continual learning)", 4, 2, MAX_TASKS)
    first: float = number(
        "time on the first task",
        30.0,
        0.5,
        500.0,
        log=True,
        help="Continual and reversal learning: before the first switch; fine-tuning: pre-training",
    )
    duration: float = number("time on each later task", 30.0, 0.5, 500.0, log=True)
    lam_init: float = number("λ while pre-training (fine-tuning)", 0.0, -20.0, 20.0, step=0.1)
    fine_task: str = choice(
        "new task (fine-tuning)",
        "added feature",
        lb.FINE_TUNING_TASKS,
        ("a feature added to another item", "the top mode reversed", "the hierarchy scaled by 2"),
    )
    descent: bool = switch("show gradient descent", False)
    lr: float = number("gradient-descent step size", 0.02, 0.001, 1.0, log=True)


GROUPS = (
    ("Experiment and λ", ("experiment", "lam_low", "lam_high", "count", "scale")),
    ("Architecture", ("shape", "d_in", "hidden", "d_out")),
    ("Task and initialisation", ("task", "init", "seed")),
    ("Sequence", ("tasks", "first", "duration", "lam_init", "fine_task")),
    ("Gradient descent", ("descent", "lr")),
)


# -- the result --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Curves:
    """What is drawn of one network (one λ): every array over the times ``t``."""

    lam: float
    t: np.ndarray
    #: loss on the task being learnt at each time
    loss: np.ndarray
    #: loss on the first task of the sequence
    first_loss: np.ndarray
    #: S(0, t) of the NTK, from the start of this network's run
    kernel_distance: np.ndarray
    #: (T, r) uᵢᵀW₂W₁vᵢ along the first task's top singular vectors
    strengths: np.ndarray
    #: the smallest distance of a phase's start from a saddle's stable manifold
    saddle_margin: float
    descent_t: np.ndarray | None = None
    descent_loss: np.ndarray | None = None


@dataclass(frozen=True)
class Comparison:
    experiment: str
    dims: tuple[int, int, int]
    #: the first task's singular values (the modes' targets)
    sigma: np.ndarray
    #: times of the task switches drawn (after the start; none for fine-tuning, whose curves
    #: start at the switch)
    switches: np.ndarray
    curves: tuple[Curves, ...]
    #: fine-tuning: the common pre-training run before re-balancing (not drawn: its curves are
    #: the one-task experiment's)
    pretraining: Curves | None = None
    #: every change to the settings asked for, in plain words
    changes: tuple[str, ...] = ()


def lambdas(controls: Controls) -> np.ndarray:
    """The compared λ values, from the smallest to the largest (``+ 0.0`` makes −0 print as 0)."""
    low, high = sorted((controls.lam_low, controls.lam_high))
    return np.round(np.linspace(low, high, controls.count), 10) + 0.0


def _curves(run: lb.TaskSequence, lam: float, first_task: np.ndarray, modes: int) -> Curves:
    """The drawn quantities of one exact run at relative scale ``lam`` (as asked for: the run's
    own λ carries rounding); ``first_task`` is the sequence's first Σyx."""
    return Curves(
        lam=float(lam),
        t=run.t,
        loss=run.loss,
        first_loss=lb.loss_on(run.function, first_task),
        kernel_distance=run.kernel_distance,
        strengths=lb.mode_strengths(run.function, first_task, modes),
        saddle_margin=float(np.min(run.saddle_margins)),
    )


@dataclass(frozen=True)
class Setup:
    """The network every λ shares and the task sequence it learns."""

    dims: tuple[int, int, int]
    task: str
    tasks: tuple[np.ndarray, ...]
    durations: tuple[float, ...]
    changes: tuple[str, ...]


def _dims(controls: Controls, task: str) -> tuple[tuple[int, int, int], list[str]]:
    """Sizes that fit every λ of either sign: the shape asked for, then h ≤ min(dᵢ, dₒ)."""
    found = lb.architecture(
        controls.d_in,
        controls.hidden,
        controls.d_out,
        shape=controls.shape,
        task=task,
        largest=MAX_DIM,
    )
    d_in, hidden, d_out = found.dims
    changes = list(found.notes)
    if hidden > min(d_in, d_out):
        hidden = min(d_in, d_out)
        changes.append(
            f"Every λ of either sign needs h ≤ min(d_in, d_out) (λ > 0: h ≤ d_out, λ < 0: "
            f"h ≤ d_in): using h = {hidden}."
        )
    return (d_in, hidden, d_out), changes


def _task_kind(controls: Controls) -> tuple[str, list[str]]:
    """The task family the experiment uses: continual learning needs random tasks, fine-tuning
    the hierarchy (as in the paper's App. D.1 and D.4)."""
    wanted = {"continual": "random", "fine-tuning": "hierarchy"}.get(controls.experiment)
    if wanted is None or wanted == controls.task:
        return controls.task, []
    words = {"random": "random regression tasks", "hierarchy": "the semantic hierarchy"}
    return wanted, [f"{controls.experiment.capitalize()} uses {words[wanted]} here."]


def setup(controls: Controls) -> Setup:
    """The sizes, the tasks in turn and their durations for these controls."""
    task, changes = _task_kind(controls)
    dims, resized = _dims(controls, task)
    d_in, _, d_out = dims
    if task == "hierarchy":
        first = lb.hierarchical_task()
    else:  # the scenario's own task, as in the trajectory view
        first = lb.random_tasks(d_in, d_out, 1, controls.seed)[0]
    experiment = controls.experiment
    if experiment == "continual":
        tasks = lb.random_tasks(d_in, d_out, controls.tasks, controls.seed)
    elif experiment == "reversal":
        tasks = (first, lb.reversed_task(first))
    elif experiment == "fine-tuning":
        tasks = (first, lb.fine_tuning_task(controls.fine_task))
    else:
        tasks = (first,)
    durations = (controls.first,) + (controls.duration,) * (len(tasks) - 1)
    return Setup(dims, task, tasks, durations, tuple(changes + resized))


def _start(controls: Controls, found: Setup, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """The λ-balanced start of the scenario with these sizes, seed and λ."""
    d_in, hidden, d_out = found.dims
    scenario = lb.scenario(
        lam=lam,
        scale=controls.scale,
        d_in=d_in,
        hidden=hidden,
        d_out=d_out,
        task=found.task,
        init=controls.init,
        seed=controls.seed,
    )
    return scenario.W1, scenario.W2


def _modes(controls: Controls) -> int:
    """How many of the first task's modes are drawn: a reversal is about its top mode alone
    (the others would only crowd the plot)."""
    return 1 if controls.experiment == "reversal" else MODES


def _descent_every(controls: Controls, durations: tuple[float, ...]) -> int | None:
    """Record every k-th step (about 100 per task), or None when the run is over the cap."""
    steps = sum(durations) / controls.lr
    if not controls.descent or steps > MAX_DESCENT_STEPS:
        return None
    return max(1, round(steps / (100 * len(durations))))


def _network(
    controls: Controls, lam: float, start, tasks, durations, first_task
) -> tuple[Curves, lb.TaskSequence]:
    """One λ's exact run through the tasks (and gradient descent when asked), as drawn."""
    W1, W2 = start
    run = lb.exact_sequence(W1, W2, tasks, durations, POINTS)
    curves = _curves(run, lam, first_task, _modes(controls))
    every = _descent_every(controls, durations)
    if every is not None:
        descent = lb.descent_sequence(W1, W2, tasks, durations, controls.lr, every)
        fields = {**curves.__dict__, "descent_t": descent.t, "descent_loss": descent.loss}
        curves = Curves(**fields)
    return curves, run


def _fine_tuning(controls: Controls, found: Setup, lams: np.ndarray):
    """Pre-training at λ_init, then each λ's re-balanced copy of that network on the new task
    (Dominé et al. App. D.4)."""
    first_task, new_task = found.tasks
    first, later = found.durations  # the fine-tuning curves start at 0 (the switch)
    lam_init = controls.lam_init
    pretraining, run = _network(
        controls, lam_init, _start(controls, found, lam_init), [first_task], [first], first_task
    )
    function = run.function[-1]
    curves = tuple(
        _network(
            controls,
            lam,
            lb.rebalanced(function, found.dims[1], lam),
            [new_task],
            [later],
            first_task,
        )[0]
        for lam in lams
    )
    return curves, pretraining


def compute(controls: Controls) -> Comparison:
    found = setup(controls)
    first_task, lams = found.tasks[0], lambdas(controls)
    sigma = lb.mode_strengths(first_task[None], first_task, _modes(controls))[0]
    switches = np.cumsum(found.durations)[:-1]
    if controls.experiment == "fine-tuning":  # drawn from the switch on: no switch to mark
        curves, pretraining = _fine_tuning(controls, found, lams)
        return Comparison(
            controls.experiment, found.dims, sigma, np.zeros(0), curves, pretraining, found.changes
        )
    curves = tuple(
        _network(
            controls, lam, _start(controls, found, lam), found.tasks, found.durations, first_task
        )[0]
        for lam in lams
    )
    return Comparison(
        controls.experiment, found.dims, sigma, switches, curves, changes=found.changes
    )


FIG_5C = {
    "experiment": "one task",
    "shape": "funnel",
    "d_in": 4,
    "hidden": 2,
    "d_out": 2,
    "lam_low": -10.0,
    "lam_high": 0.0,
    "count": 6,
    "first": 200.0,
    "scale": 0.1,
    "seed": 1,
}
FIG_11 = {
    "experiment": "continual",
    "shape": "funnel",
    "d_in": 4,
    "hidden": 2,
    "d_out": 2,
    "lam_low": -1.0,
    "lam_high": 1.0,
    "first": 60.0,
    "duration": 60.0,
}
FIG_12 = {
    "experiment": "reversal",
    "init": "aligned",
    "scale": 0.01,
    "lam_low": -1.0,
    "lam_high": 2.0,
    "count": 4,
    "first": 30.0,
    "duration": 30.0,
}
FIG_14 = {
    "experiment": "fine-tuning",
    "lam_low": 0.0,
    "lam_high": 4.0,
    "count": 3,
    "first": 40.0,
    "duration": 5.0,
    "seed": 3,
    "lam_init": 1.0,
    "fine_task": "added feature",
}
PRESETS = (
    Preset(
        "fig-1b-three-relative-scales-one-absolute-scale",
        "Fig. 1B — three relative scales, one absolute scale",
        "λ = −2, 0, 2 from the same absolute scale on one task: rich in the middle, lazy on both "
        "sides.",
        {"experiment": "one task", "first": 15.0},
        figure="Fig. 1B",
        panel="kernel",
        claim=claims.FIG_1B,
        differs=claims.FIG_1B_DIFFERS,
        paper_setting=claims.FIG_1B_PAPER,
    ),
    Preset(
        "fig-2-exact-solution-against-gradient-descent",
        "Fig. 2 — the exact solution against gradient descent",
        "Three λ on one task: the exact losses and a gradient-descent run of each.",
        {"experiment": "one task", "first": 15.0, "descent": True, "lr": 0.01},
        figure="Fig. 2",
        panel="loss",
        claim=claims.FIG_2,
        differs=claims.FIG_2_DIFFERS,
        paper_setting=claims.FIG_2_PAPER,
    ),
    Preset(
        "fig-5c-funnel-delayed-rich-phase-across-lambda",
        "Fig. 5C — a funnel's rich phase comes later the more negative λ",
        "Funnel 4→2→2, λ from −10 to 0: the kernel distance over training.",
        FIG_5C,
        figure="Fig. 5C",
        panel="kernel",
        claim=claims.FIG_5C,
        differs=claims.FIG_5C_DIFFERS,
        paper_setting=FIG_5_PAPER,
    ),
    Preset(
        "fig-11-continual-learning-forgets-for-every-lambda",
        "Fig. 11 — continual learning forgets for every λ",
        "Four random tasks in turn: the loss on the first task after each switch.",
        FIG_11,
        figure="Fig. 11",
        panel="first",
        claim=claims.FIG_11,
        differs=claims.FIG_11_DIFFERS,
        paper_setting=claims.FIG_11_PAPER,
    ),
    Preset(
        "fig-12-reversal-learning-stalls-only-at-lambda-0",
        "Fig. 12 — reversal learning stalls only at λ = 0",
        "A learnt task, then its top mode reversed: the network's strength along that mode.",
        FIG_12,
        figure="Fig. 12",
        panel="modes",
        claim=claims.FIG_12,
        differs=claims.FIG_12_DIFFERS,
        paper_setting=claims.FIG_12_PAPER,
    ),
    Preset(
        "fig-14-fine-tuning-after-re-balancing",
        "Fig. 14 — fine-tuning after re-balancing",
        "The hierarchy learnt at λ = 1, re-balanced to λ = 0, 2, 4, then a new task.",
        FIG_14,
        figure="Fig. 14",
        panel="loss",
        claim=claims.FIG_14,
        differs=claims.FIG_14_DIFFERS,
        paper_setting=claims.FIG_14_PAPER,
    ),
    Preset(
        "continual-learning-square-lambda-0-misses-a-task",
        "Continual learning: a square λ = 0 network misses a task",
        "Square 3→3→3 at λ = −2, 0, 2: at λ = 0 the last task, whose determinant has the other "
        "sign, is learnt only up to its weakest mode.",
        {"experiment": "continual", "lam_low": -2.0, "lam_high": 2.0},
    ),
)

# -- summary, messages, downloads --------------------------------------------------------------

EXPERIMENT_TEXT = {
    "one task": "one task from the same start at every λ",
    "continual": "random tasks one after another (continual learning)",
    "reversal": "a task, then the same task with its top mode reversed (reversal learning)",
    "fine-tuning": "the hierarchy, then a new task after re-balancing the network to each λ",
}


def _per_lambda(result: Comparison, values) -> str:
    pairs = zip(result.curves, values, strict=True)
    return "; ".join(f"λ = {num(c.lam)}: {num(v)}" for c, v in pairs)


def facts(controls: Controls, result: Comparison) -> list[tuple[str, str]]:
    d_in, hidden, d_out = result.dims
    items = [
        ("experiment", EXPERIMENT_TEXT[result.experiment]),
        ("network", f"{lb.shape_kind(d_in, hidden, d_out)}, {d_in} → {hidden} → {d_out}"),
        ("final loss", _per_lambda(result, (c.loss[-1] for c in result.curves))),
    ]
    if result.experiment != "one task":
        items.append(
            (
                "first task's loss at the end",
                _per_lambda(result, (c.first_loss[-1] for c in result.curves)),
            )
        )
    if result.pretraining is not None:
        pre = result.pretraining
        items.append(
            (
                "pre-training",
                f"the hierarchy at λ = {num(pre.lam)} for t = {num(pre.t[-1])}: loss "
                f"{num(pre.loss[-1], '.2g')}; the curves start at the re-balancing",
            )
        )
    items.append(
        (
            "largest S(0, t)",
            _per_lambda(result, (np.max(c.kernel_distance) for c in result.curves)),
        )
    )
    return items


def _descent_note(controls: Controls, result: Comparison) -> str | None:
    if not controls.descent or result.curves[0].descent_t is not None:
        return None
    return (
        f"Gradient descent would need more than {MAX_DESCENT_STEPS:,} steps of size "
        f"{controls.lr:g} for this sequence: raise the step size or shorten the tasks to see it."
    )


def notes(controls: Controls, result: Comparison) -> list[str]:
    messages = list(result.changes)
    stalled = [c.lam for c in result.curves if on_saddle(c.saddle_margin)]
    if stalled:
        values = ", ".join(num(lam) for lam in stalled)
        messages.append(
            f"At λ = {values} a task starts on the stable manifold of a saddle: the exact flow "
            "stalls there, and leaves only after a delay set by rounding (as any simulation "
            "does)."
        )
    note = _descent_note(controls, result)
    return messages + ([note] if note else [])


def _table(curves: Curves) -> dict[str, np.ndarray]:
    return {
        "t": curves.t,
        "loss": curves.loss,
        "first_task_loss": curves.first_loss,
        "kernel_distance": curves.kernel_distance,
        "mode_strength": curves.strengths,
    }


def tables(controls: Controls, result: Comparison) -> Tables:
    found = {}
    if result.pretraining is not None:
        found[f"pre-training lam={result.pretraining.lam:g}"] = _table(result.pretraining)
    for curves in result.curves:
        found[f"exact lam={curves.lam:g}"] = _table(curves)
    for curves in result.curves:
        if curves.descent_t is not None:
            found[f"gradient descent lam={curves.lam:g}"] = {
                "t": curves.descent_t,
                "loss": curves.descent_loss,
            }
    return found


INTRO = (
    r"The same network, task and absolute scale at several relative scales $\lambda$ "
    r"($W_2^\top W_2 - W_1W_1^\top = \lambda I$), side by side — on one task (Dominé et al., "
    r"Figs. 1–3) or on tasks in turn: continual learning, reversal learning and fine-tuning "
    r"(their §6 and App. D). A task switch replaces $\Sigma_{yx}$ and keeps the weights; the "
    r"closed form is exact from any λ-balanced state, so every curve is the exact flow, "
    r"restarted at each switch. Fine-tuning first trains on the semantic hierarchy, then "
    r"re-balances the trained network to each $\lambda$ (same function, new $\lambda$) before "
    r"the new task."
)

VIEW = View(
    key="lambda-balanced-sequences",
    path="/lambda-balanced/sequences",
    title="λ-balanced networks side by side: one task or tasks in turn",
    nav_title="λ side by side",
    summary=(
        "Several relative scales λ from one start: rich and lazy learning on one task, and what "
        "λ changes when the task changes — forgetting, reversal, fine-tuning."
    ),
    intro=INTRO,
    controls=Controls,
    compute=compute,
    result_type=Comparison,
    panels=plots.PANELS,
    facts=facts,
    tables=tables,
    presets=PRESETS,
    groups=GROUPS,
    notes=notes,
)
