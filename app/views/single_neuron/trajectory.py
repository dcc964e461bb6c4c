"""Single hidden neuron (Kunin et al., *Get rich quick*): the conserved δ and its hyperboloid.

One hidden neuron ``f(x) = a wᵀx`` on whitened data; the state is the view's controls, the
result one exact trajectory (or several, to compare δ) with a gradient-descent run on top.
The maths is :mod:`solvers.single_neuron` (docs/theory.md §1); the plots are
:mod:`.trajectory_plots`.
"""

from __future__ import annotations

from dataclasses import dataclass

from solvers import single_neuron as sn
from solvers import step_budget
from solvers.metrics import on_saddle

from ...core.downloads import Tables, columns_of
from ...core.frames import Frames
from ...core.presets import Preset
from ...core.state import choice, number, switch
from ...core.view import View
from ...ui.figures import plot_times
from . import claims
from . import trajectory_plots as plots

#: hard caps that keep one request cheap whatever it asks for
MAX_DESCENT_STEPS = 20_000
CURVE_POINTS = 400
FRAMES = 120
DESCENT_POINTS = 400


@dataclass(frozen=True)
class Controls:
    mode: str = choice("Mode", "single", ("single", "compare"), ("one δ", "compare δ (Fig. 3)"))
    delta: float = number(
        "relative scale δ",
        0.0,
        -20.0,
        20.0,
        step=0.1,
        help="δ = η_w a² − η_a‖w‖², conserved: > 0 upstream, 0 balanced, < 0 downstream",
    )
    tau: float = number(
        "initial scale τ  (‖β₀‖ = τ²)",
        1.0,
        0.03,
        3.0,
        log=True,
        help="Size of the function at initialisation",
    )
    init_angle: float = number("direction of β₀ (°)", 180.0, -180.0, 180.0, step=1.0)
    sign: int = choice("sign of a₀", 1, (1, -1), ("+", "−"))
    target_norm: float = number("target size ‖β*‖", 1.0, 0.1, 5.0, step=0.05)
    target_angle: float = number("direction of β* (°)", 90.0, -180.0, 180.0, step=1.0)
    eta_ratio: float = number(
        "learning-rate ratio η_a/η_w",
        1.0,
        0.01,
        100.0,
        log=True,
        help="η_a η_w = 1; the ratio shifts the balance like δ does",
    )
    spread: float = number("compare: largest |δ|", 10.0, 0.1, 100.0, log=True)
    horizon: float = number("time horizon", 20.0, 0.5, 1000.0, log=True)
    log_time: bool = switch("logarithmic time axis", False)
    descent: bool = switch("show gradient descent", True)
    lr: float = number("gradient-descent step size", 0.05, 0.001, 2.0, log=True)


GROUPS = (
    ("Geometry", ("mode", "delta", "spread", "eta_ratio")),
    ("Initialisation and target", ("tau", "init_angle", "sign", "target_norm", "target_angle")),
    ("Time and gradient descent", ("horizon", "log_time", "descent", "lr")),
)

FIG3 = {
    "target_norm": 1.0,
    "target_angle": 90.0,
    "tau": 1.0,
    "init_angle": 180.0,
    "sign": 1,
    "eta_ratio": 1.0,
}
PRESETS = (
    Preset(
        "fig-2a-downstream-one-sheeted-hyperboloid",
        "Fig. 2a — downstream, one-sheeted hyperboloid",
        "δ < 0: the path lies on a one-sheeted hyperboloid and may cross a = 0.",
        {**FIG3, "delta": -2.0, "horizon": 20.0},
        figure="Fig. 2a",
        panel="surface",
        claim=claims.FIG_2A,
    ),
    Preset(
        "fig-2b-balanced-double-cone",
        "Fig. 2b — balanced, double cone",
        "δ = 0: the path stays on a cone through the origin (a saddle).",
        {**FIG3, "delta": 0.0},
        figure="Fig. 2b",
        panel="surface",
        claim=claims.FIG_2B,
    ),
    Preset(
        "fig-2c-upstream-two-sheeted-hyperboloid",
        "Fig. 2c — upstream, two-sheeted hyperboloid",
        "δ > 0: two sheets; a keeps its sign.",
        {**FIG3, "delta": 2.0},
        figure="Fig. 2c",
        panel="surface",
        claim=claims.FIG_2C,
    ),
    Preset(
        "fig-3-mu-phi-and-s-for-several-delta",
        "Fig. 3 — μ, φ and S for several δ",
        "δ = ±5, ±0.5 and 0 from the same start to the same target: upstream lazy, balanced "
        "rich, downstream delayed rich.",
        {**FIG3, "mode": "compare", "spread": 5.0, "horizon": 30.0, "descent": False},
        figure="Fig. 3",
        panel="kernel",
        claim=claims.FIG_3,
        differs="The paper draws μ, φ and S side by side; the card shows S (the view has all "
        "three). Its δ values are not printed; ±5 shows the delayed rich plateau within t = 30.",
    ),
    Preset(
        "fig-4a-beta-paths-for-several-delta",
        "Fig. 4a — β paths for several δ",
        "Upstream follows the straight line from β₀ to β*; downstream first shrinks along β₀.",
        {**FIG3, "mode": "compare", "spread": 3.0, "horizon": 30.0, "descent": False},
        figure="Fig. 4a",
        panel="function",
        claim=claims.FIG_4A,
    ),
    Preset(
        "lazy-strongly-upstream",
        "Lazy: strongly upstream",
        "δ = 20: φ aligns at once, the kernel hardly moves.",
        {**FIG3, "delta": 20.0},
    ),
    Preset(
        "delayed-rich-downstream",
        "Delayed rich: downstream",
        "δ = −5: a long plateau, then a sudden change of the kernel.",
        {**FIG3, "delta": -5.0, "horizon": 30.0},
    ),
    Preset(
        "rich-from-a-small-initialisation",
        "Rich from a small initialisation",
        "Balanced and small (τ = 0.1): a saddle-to-saddle plateau, then rich learning.",
        {**FIG3, "delta": 0.0, "tau": 0.1, "init_angle": 135.0},
    ),
)


@dataclass(frozen=True)
class Compared:
    """One δ of the Fig. 3 comparison."""

    delta: float
    path: sn.SingleNeuronTrajectory


@dataclass(frozen=True)
class Run:
    """What the view shows: the exact trajectory, where it ends, and what is drawn with it."""

    setup: sn.Setup
    exact: sn.SingleNeuronTrajectory
    #: the branch of ``a w = β*`` reached: +1, −1, or 0 for the saddle at the origin
    basin: int
    descent: sn.SingleNeuronTrajectory | None = None
    #: gradient descent stopped short of the horizon (its step cap), in words
    descent_note: str | None = None
    compare: tuple[Compared, ...] = ()


def compared_deltas(controls: Controls) -> tuple[float, ...]:
    """The δ values of the comparison: downstream to upstream around balanced."""
    spread = controls.spread
    return (-spread, -spread / 10, 0.0, spread / 10, spread)


def _setup(controls: Controls) -> sn.Setup:
    return sn.setup(
        target_norm=controls.target_norm,
        target_angle=controls.target_angle,
        init_angle=controls.init_angle,
        eta_ratio=controls.eta_ratio,
    )


def _descent(controls: Controls, setup: sn.Setup) -> tuple[sn.SingleNeuronTrajectory, str | None]:
    budget = step_budget(controls.horizon, controls.lr, MAX_DESCENT_STEPS)
    steps = budget.steps
    a0, w0 = setup.start(controls.tau, controls.delta, controls.sign)
    run = sn.gradient_descent(
        a0,
        w0,
        setup.beta_star,
        controls.lr,
        steps,
        eta_a=setup.eta_a,
        eta_w=setup.eta_w,
        every=max(1, steps // DESCENT_POINTS),
    )
    return run, budget.note(controls.lr)


def compute(controls: Controls) -> Run:
    t = plot_times(controls.horizon, controls.log_time, CURVE_POINTS)
    setup = _setup(controls)
    exact = setup.exact(controls.tau, controls.delta, t, controls.sign)
    basin = sn.basin(exact.a0, exact.w0, setup.beta_star, eta_a=setup.eta_a, eta_w=setup.eta_w)
    if controls.mode == "compare":
        compare = tuple(
            Compared(delta, setup.exact(controls.tau, delta, t, controls.sign))
            for delta in compared_deltas(controls)
        )
        return Run(setup, exact, basin, compare=compare)
    if controls.descent:
        descent, note = _descent(controls, setup)
        return Run(setup, exact, basin, descent, note)
    return Run(setup, exact, basin)


INTRO = (
    r"One hidden neuron, $f(x) = a\,w^\top x$, trained by gradient flow on whitened data. "
    r"Whether it learns *lazily* or *richly* is decided by the conserved $\delta$: upstream "
    r"($\delta>0$, large read-out) is lazy, balanced ($\delta=0$) is rich, downstream "
    r"($\delta<0$) is lazy first and rich later. Every curve is the exact solution; open circles "
    r"are a real gradient-descent run."
)


# -- summary, messages, frames, downloads ------------------------------------------------------

REGIME_TEXT = {
    "upstream": "upstream — lazy: the kernel barely moves while w turns towards the target",
    "mildly upstream": "mildly upstream — between rich and lazy",
    "balanced": "balanced — rich: scale and direction change together",
    "mildly downstream": "mildly downstream — rich after a short delay",
    "downstream": "downstream — delayed rich: a lazy plateau, then a sudden change of the kernel",
}


def facts(controls: Controls, run: Run) -> list[tuple[str, str]]:
    exact = run.exact
    branch = {1: "a > 0", -1: "a < 0", 0: "the saddle at the origin"}[run.basin]
    crossing = bool((exact.a[1:] * exact.a[0] < 0).any()) and exact.a[0] != 0
    return [
        ("δ", f"{exact.delta:.4g}"),
        ("regime", REGIME_TEXT[sn.regime(exact.delta, controls.target_norm)]),
        ("converges to", branch + (" (a changes sign on the way)" if crossing else "")),
        ("final loss", f"{exact.loss[-1]:.3g}"),
        ("largest S(0, t)", f"{exact.kernel_distance.max():.3g}"),
    ]


def notes(controls: Controls, run: Run) -> list[str]:
    messages = [run.descent_note] if run.descent_note else []
    if run.descent is not None and run.descent.diverged_at is not None:
        messages.append(
            f"Gradient descent diverged at step {run.descent.diverged_at} (step size "
            f"{controls.lr:g} is too large for this initialisation); its markers stop there."
        )
    if on_saddle(run.exact.saddle_margin):
        messages.append(
            "This start lies on the stable manifold of the saddle at the origin: the exact flow "
            "ends there, while any simulation escapes after a delay set by rounding."
        )
    return messages


def frames(controls: Controls, run: Run) -> Frames:
    exact = run.exact
    return (
        Frames.along(exact.t, FRAMES)
        .point("surface", x=exact.w[:, 0], y=exact.w[:, 1], z=exact.a)
        .point("function", x=exact.beta[:, 0], y=exact.beta[:, 1])
        .lines_on("mu", "phi", "kernel", "loss")
    )


COLUMNS = ("t", "a", "w", "beta", "mu", "phi", "loss", "kernel_distance")


def tables(controls: Controls, run: Run) -> Tables:
    if run.compare:
        return {f"exact delta={c.delta:g}": columns_of(c.path, COLUMNS) for c in run.compare}
    found = {"exact": run.exact, "gradient descent": run.descent}
    return {name: columns_of(path, COLUMNS) for name, path in found.items() if path is not None}


VIEW = View(
    key="single-neuron",
    path="/single-neuron",
    title="A single hidden neuron",
    nav_title="Single neuron",
    summary=(
        "One hidden neuron and a conserved quantity δ: watch the parameters slide along a "
        "hyperboloid and the kernel stay put (upstream, lazy), move at once (balanced, rich) or "
        "wait and then jump (downstream, delayed rich)."
    ),
    intro=INTRO,
    controls=Controls,
    compute=compute,
    result_type=Run,
    panels=plots.PANELS,
    facts=facts,
    tables=tables,
    presets=PRESETS,
    groups=GROUPS,
    notes=notes,
    frames=frames,
)
