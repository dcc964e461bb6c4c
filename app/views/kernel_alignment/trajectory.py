"""Kernel–target alignment under optimal feature evolution (Shan & Bordelon, *Rapid feature
evolution accelerates learning in neural networks*, §4 and Fig. 2).

The features move as fast as the feature-learning rate γ allows; the task is a power law
(:func:`solvers.feature_evolution.setup`, shared with the map). The result is the exact flow
for γ and for γ = 0, the spectra of K₀ and K∞, a γ sweep and a gradient-descent run. The maths
is :mod:`solvers.feature_evolution` (docs/theory.md §4); the plots are :mod:`.trajectory_plots`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solvers import feature_evolution as fe
from solvers import infinite_width as iw
from solvers import networks as nw
from solvers import step_budget

from ...core.downloads import Tables, columns_of
from ...core.frames import Frames
from ...core.presets import Preset
from ...core.state import choice, integer, number, switch
from ...core.view import View
from ...ui.figures import plot_times
from . import claims
from . import trajectory_plots as plots

#: the tasks: a power law of chosen exponents, or Shan & Bordelon's Fig. 2 kernel of the digits
TASKS = ("power", "digits")
#: weight layers of the digits task's ReLU NTK (their Fig. 2: "depth 3")
DIGITS_DEPTH = 3
#: hard caps that keep one request cheap whatever it asks for
MAX_SAMPLES = 300
CURVE_POINTS = 400
FRAMES = 120
SWEEP_POINTS = 30  #: γ values of the threshold sweep (Fig. 2C–D)
SWEEP_RANGE = (1e-3, 1e3)
#: gradient descent costs ~P³ per step (it updates the P×P kernel): its steps are capped so that
#: steps · (P³ + overhead) stays below this (~10 ms), and never exceed MAX_DESCENT_STEPS
DESCENT_WORK = 1e8
DESCENT_OVERHEAD = 250_000  #: the per-step Python/numpy overhead, in units of P³
MIN_DESCENT_STEPS = 20
MAX_DESCENT_STEPS = 2_000
#: the run stores K (P×P floats) at every recorded step: at most this many bytes of them
DESCENT_STORE_BYTES = 4_000_000
DESCENT_RECORDS = (8, 100)  #: fewest and most recorded steps


@dataclass(frozen=True)
class Controls:
    gamma: float = number(
        "feature-learning rate γ",
        1.0,
        1e-3,
        1e3,
        log=True,
        help="How fast the features Ψ move: γ → 0 freezes the kernel (lazy), large γ is rich",
    )
    eta: float = number(
        "learning rate η",
        1.0,
        0.1,
        10.0,
        log=True,
        help="Rescales time only: the flow depends on η·t",
    )
    task: str = choice(
        "task",
        "power",
        TASKS,
        (
            "power law: λ_k = k^−b, v_k² = k^−a",
            f"digits, even against odd: the depth-{DIGITS_DEPTH} ReLU NTK",
        ),
        help="The digits task is Shan & Bordelon's Fig. 2: K₀ the infinite-width ReLU NTK of "
        "the 8 × 8 digits, y = ±1 (a and b are then those of that kernel)",
    )
    a: float = number(
        "task-power exponent a  (v_k² ∝ k^−a)",
        1.5,
        0.2,
        4.0,
        step=0.05,
        help="How fast the target's power falls off along the kernel's eigenvectors (power "
        "law only)",
    )
    b: float = number(
        "eigenvalue exponent b  (λ_k ∝ k^−b)",
        1.2,
        0.0,
        3.0,
        step=0.05,
        help="How fast the initial kernel's eigenvalues fall off (power law only)",
    )
    samples: int = integer(
        "number of samples P",
        64,
        8,
        MAX_SAMPLES,
        help=f"Size of the P×P kernel (at most {MAX_SAMPLES})",
    )
    seed: int = integer(
        "random seed",
        0,
        0,
        99,
        help="Draws the eigenvectors of K₀ and the signs of the target (the digits: which P "
        "images)",
    )
    horizon: float = number("time horizon", 1000.0, 1.0, 1e6, log=True)
    log_time: bool = switch("logarithmic time axis", True)
    descent: bool = switch("show gradient descent (discrete feature evolution)", True)
    lr: float = number("gradient-descent step size", 0.1, 1e-4, 10.0, log=True)


GROUPS = (
    ("Feature learning", ("gamma", "eta")),
    ("Task", ("task", "a", "b", "samples", "seed")),
    ("Time and gradient descent", ("horizon", "log_time", "descent", "lr")),
)

#: the Fig. 2 presets' card on the paper-figures page: the loss, feature learning against a
#: frozen kernel, on the power-law task
FIG_2 = {
    "figure": "Fig. 2",
    "panel": "loss",
    "paper_setting": claims.FIG_2_PAPER,
    "differs": claims.POWER_LAW_DIFFERS,
}

#: Shan & Bordelon's own Fig. 2 kernel: the depth-3 ReLU NTK of the digits, even against odd
DIGITS = {"task": "digits", "samples": MAX_SAMPLES, "horizon": 100.0, "descent": False}
DIGITS_CARD = {"paper_setting": claims.FIG_2_PAPER, "differs": claims.DIGITS_DIFFERS}

DIGITS_PRESETS = (
    Preset(
        "fig-2a-digits-ntk-eigenvalues",
        "Fig. 2A — the digits' ReLU NTK: eigenvalues of K₀ and K∞",
        "K₀ the infinite-width depth-3 ReLU NTK of 300 digits, even against odd; γ = 0.3, "
        "past the threshold: the spike γyyᵀ lifts the top eigenvalues only.",
        DIGITS | {"gamma": 0.3},
        figure="Fig. 2A",
        panel="spectrum",
        claim=claims.FIG_2A,
        **DIGITS_CARD,
    ),
    Preset(
        "fig-2b-digits-ntk-task-power",
        "Fig. 2B — the digits' ReLU NTK: task power along K₀ and K∞",
        "The same kernel and γ: along K∞'s eigenvectors the target's power sits in the top "
        "mode and falls off much faster.",
        DIGITS | {"gamma": 0.3},
        figure="Fig. 2B",
        panel="task",
        claim=claims.FIG_2B,
        **DIGITS_CARD,
    ),
    Preset(
        "fig-2c-d-digits-ntk-threshold",
        "Fig. 2C–D — the digits' ReLU NTK: the threshold γ*",
        "The top eigenvector's overlap with y and A∞ over γ: a sharp turn at γ* ≈ 0.09 (0.3 "
        "on MNIST in the paper).",
        DIGITS | {"gamma": 0.1},
        figure="Fig. 2C–D",
        panel="sweep",
        claim=claims.FIG_2CD_DIGITS,
        **DIGITS_CARD,
    ),
    Preset(
        "fig-2e-digits-ntk-alignment",
        "Fig. 2E — the digits' ReLU NTK: alignment over time",
        "γ = 0.3: A(t) climbs from A₀ ≈ 0.04 to A∞ ≈ 0.94 within a few 1/c₁; the frozen kernel "
        "stays at A₀.",
        DIGITS | {"gamma": 0.3},
        figure="Fig. 2E",
        panel="alignment",
        claim=claims.FIG_2E,
        **DIGITS_CARD,
    ),
    Preset(
        "fig-2f-digits-ntk-loss",
        "Fig. 2F — the digits' ReLU NTK: the loss, exponential then power law",
        "γ = 3: an exponential phase along K∞'s top mode, then a power law far below kernel "
        "gradient descent.",
        DIGITS | {"gamma": 3.0},
        figure="Fig. 2F",
        panel="loss",
        claim=claims.FIG_2_STRONG,
        **DIGITS_CARD,
    ),
)

PRESETS = (
    Preset(
        "fig-2-kernel-regime-small-gamma",
        "Fig. 2 — kernel regime (small γ)",
        "γ = 0.01: the kernel barely moves; loss and alignment "
        "stay those of kernel gradient descent.",
        {"gamma": 0.01, "lr": 0.5, "horizon": 1000.0},
        claim=claims.FIG_2_KERNEL,
        **FIG_2,
    ),
    Preset(
        "fig-2-near-the-threshold-gamma-star",
        "Fig. 2 — near the threshold γ*",
        "γ = 0.2: K∞'s top eigenvector turns towards y; A∞ half-way between A₀ and 1.",
        {"gamma": 0.2, "lr": 0.3, "horizon": 1000.0},
        claim=claims.FIG_2_THRESHOLD,
        **FIG_2,
    ),
    Preset(
        "fig-2-strong-feature-learning-large-gamma",
        "Fig. 2 — strong feature learning (large γ)",
        "γ = 30: A → 1 almost at once; an exponential phase, then a power law.",
        {"gamma": 30.0, "lr": 0.005, "horizon": 1000.0},
        claim=claims.FIG_2_STRONG,
        **FIG_2,
    ),
    Preset(
        "fig-2-a-b-spectra-before-and-after",
        "Fig. 2 A–B — spectra before and after",
        "P = 300, γ = 1: only the top few eigenvalues of K∞ move, the task power falls off "
        "much faster.",
        {"gamma": 1.0, "samples": 300, "descent": False, "horizon": 1e4},
        figure="Fig. 2 A–B",
        panel="spectrum",
        claim=claims.FIG_2AB,
        paper_setting=claims.FIG_2_PAPER,
        differs=claims.POWER_LAW_DIFFERS,
    ),
    *DIGITS_PRESETS,
    Preset(
        "hard-task-flat-task-power-a-1-1-b-2",
        "Hard task: flat task power (a = 1.1, b = 2)",
        "Slow kernel gradient descent; feature learning gains the most.",
        {"a": 1.1, "b": 2.0, "gamma": 1.0, "lr": 0.1, "horizon": 1e5},
    ),
    Preset(
        "easy-task-steep-task-power-a-3",
        "Easy task: steep task power (a = 3)",
        "The target already sits in the top modes: A₀ is high and γ adds little.",
        {"a": 3.0, "b": 1.2, "gamma": 1.0, "lr": 0.2, "horizon": 100.0},
    ),
)

INTRO = (
    r"*Optimal feature evolution*: the features $\Psi$ (kernel $K = \Psi^\top\Psi$) move in the "
    r"direction that most decreases the loss one step ahead. For the residual $\Delta = f - y$ on "
    r"$P$ training points this gives $\Delta' = -\eta K\Delta$ and "
    r"$\Psi' = \gamma\eta\,\Psi\Delta\Delta^\top$, starting from $\Delta(0) = -y$. The matrix "
    r"$C = \gamma\Delta\Delta^\top + K$ is conserved, which solves the flow exactly: with "
    r"$C = O\,\mathrm{diag}(c)\,O^\top$,"
    "\n\n"
    r"$$\Delta(t) = \dfrac{e^{-\eta Ct}\Delta_0}{\sqrt{1 - 2\eta\gamma\,\Delta_0^\top\int_0^t "
    r"e^{-2\eta Cs}\,ds\,\Delta_0}}, \qquad K(t) = C - \gamma\Delta\Delta^\top, \qquad "
    r"K_\infty = K_0 + \gamma yy^\top.$$"
    "\n\n"
    r"The task is a power law: $K_0$ has eigenvalues $\lambda_k = k^{-b}$ and the target has "
    r"power $v_k^2 = k^{-a}$ along them — or, as in Shan & Bordelon's Fig. 2, $K_0$ is the "
    r"infinite-width depth-3 ReLU NTK of the digits and $y = \pm 1$ says even or odd. Every "
    r"curve is the exact solution; open circles are the "
    r"discrete updates $\Delta \leftarrow \Delta - \mathrm{lr}\,\eta K\Delta$, "
    r"$K \leftarrow (I + \mathrm{lr}\,\gamma\eta\Delta\Delta^\top)K(I + \mathrm{lr}\,\gamma\eta"
    r"\Delta\Delta^\top)$."
)


# -- the result -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Path:
    """A trajectory as it is drawn and downloaded: the solver's, without its stored kernels
    (a gradient-descent run keeps a P × P kernel per record)."""

    t: np.ndarray  #: (T,)
    loss: np.ndarray  #: (T,) ‖Δ‖²
    alignment: np.ndarray  #: (T,) A(K(t), y)
    residual: np.ndarray  #: (T, P) Δ(t)
    diverged_at: int | None = None

    @classmethod
    def of(cls, run: fe.FeatureEvolutionTrajectory) -> Path:
        return cls(run.t, run.loss, run.alignment, run.residual, run.diverged_at)


@dataclass(frozen=True)
class Descent:
    """The gradient-descent run and how far it was allowed to go."""

    path: Path
    steps: int  #: steps run (at most ``cap``)
    cap: int  #: the most steps a run on this P may take
    capped: bool  #: the horizon needed more than ``cap`` steps


@dataclass(frozen=True)
class Run:
    """What the view shows for one γ on one power-law task."""

    exact: Path  #: the exact flow at the chosen γ
    kernel: Path  #: γ = 0: kernel gradient descent with the frozen K₀
    initial: fe.Spectrum  #: K₀ with the target
    final: fe.Spectrum  #: K∞ = K₀ + γyyᵀ with the target
    final_alignment: float  #: A∞ at the chosen γ
    sweep: fe.GammaSweep  #: A∞ and the top-eigenvector overlap over SWEEP_RANGE
    catch_up: float  #: when kernel gradient descent reaches the exact flow's last loss
    stable_lr: float  #: a step size below which gradient descent stays stable
    descent: Descent | None = None
    #: the task power's exponent a along K₀'s and K∞'s eigenvectors (NaN where no fit)
    task_exponents: tuple[float, float] = (math.nan, math.nan)


def task(controls: Controls) -> fe.Setup:
    """The task of these controls: a power law (the map builds its cells the same way), or the
    infinite-width ReLU NTK of the digits, even against odd (Shan & Bordelon Fig. 2)."""
    if controls.task == "digits":
        return iw.digits_setup(controls.samples, depth=DIGITS_DEPTH, seed=controls.seed)
    return fe.setup(samples=controls.samples, a=controls.a, b=controls.b, seed=controls.seed)


def times(controls: Controls, top_rate: float) -> np.ndarray:
    """Plot times; on a log axis they start early enough to show the alignment rise, which
    happens at t ~ 1/(η c₁) with c₁ the top eigenvalue of K∞."""
    horizon = controls.horizon
    if not controls.log_time:
        return plot_times(horizon, False, CURVE_POINTS)
    start = min(horizon * 1e-4, 0.01 / (controls.eta * top_rate))
    return np.geomspace(max(start, horizon * 1e-10), horizon, CURVE_POINTS)


def descent_cap(samples: int) -> int:
    """Most gradient-descent steps for P samples (each step costs ~P³)."""
    cap = int(DESCENT_WORK // (samples**3 + DESCENT_OVERHEAD))
    return min(max(cap, MIN_DESCENT_STEPS), MAX_DESCENT_STEPS)


def descent_every(steps: int, samples: int) -> int:
    """Record every n-th step so that the stored kernels stay below DESCENT_STORE_BYTES."""
    records = DESCENT_STORE_BYTES // (8 * samples**2)
    records = min(max(records, DESCENT_RECORDS[0]), DESCENT_RECORDS[1])
    return max(1, math.ceil(steps / records))


def _descent(controls: Controls, setup: fe.Setup) -> Descent:
    budget = step_budget(controls.horizon, controls.lr, descent_cap(controls.samples))
    steps = budget.steps
    every = descent_every(steps, controls.samples)
    run = setup.gradient_descent(
        controls.lr, steps, eta=controls.eta, gamma=controls.gamma, every=every
    )
    return Descent(Path.of(run), steps, budget.cap, budget.capped)


def task_exponent(spectrum: fe.Spectrum) -> float:
    """a of ``v_k² ∝ k^−a`` along the spectrum's eigenvectors, pooled over equal eigenvalues
    (:func:`solvers.networks.task_power_exponent`); NaN where there is no power law."""
    found = nw.task_power_exponent(spectrum.eigenvalues, spectrum.power)
    return math.nan if found is None else found


def compute(controls: Controls) -> Run:
    setup = task(controls)
    gamma, eta = controls.gamma, controls.eta
    final = setup.final(gamma)
    t = times(controls, float(final.eigenvalues[0]))
    rich = setup.exact(t, eta=eta, gamma=gamma)
    return Run(
        exact=Path.of(rich),
        kernel=Path.of(setup.kernel_gradient_descent(t, eta=eta)),
        initial=setup.initial,
        final=final,
        final_alignment=fe.final_alignment(setup.K0, setup.y, gamma),
        sweep=setup.sweep(np.geomspace(*SWEEP_RANGE, SWEEP_POINTS)),
        catch_up=fe.kernel_descent_time(setup.initial, float(rich.loss[-1]), eta=eta),
        stable_lr=fe.stable_lr(setup.K0, setup.y, eta=eta, gamma=gamma),
        descent=_descent(controls, setup) if controls.descent else None,
        task_exponents=(task_exponent(setup.initial), task_exponent(final)),
    )


# -- summary, messages, frames, downloads ------------------------------------------------------


def _speed_up(controls: Controls, run: Run) -> str:
    rich, lazy = run.exact.loss[-1], run.kernel.loss[-1]
    horizon = run.exact.t[-1]
    text = f"{rich:.3g} with γ = {controls.gamma:g}, {lazy:.3g} with γ = 0"
    if rich > 0:
        text += f" ({lazy / rich:.3g}× lower)"
    if math.isinf(run.catch_up):
        return text + "; kernel gradient descent never gets there in floating point"
    if run.catch_up > horizon:
        text += (
            f"; kernel gradient descent needs t ≈ {run.catch_up:.3g} to get there, "
            f"{run.catch_up / horizon:.3g}× longer"
        )
    return text


def _descent_fact(controls: Controls, descent: Descent) -> str:
    steps, lr = descent.steps, controls.lr
    text = f"{steps:,} steps of size {lr:g}, to t = {steps * lr:.3g}"
    stop = descent.path.diverged_at
    if stop is not None:
        text = f"diverged at step {stop:,} (t = {stop * lr:.3g}) of {steps:,} steps of size {lr:g}"
    if descent.capped:
        text += (
            f" — limited to {descent.cap:,} steps for P = {controls.samples} (each step "
            "updates the P×P kernel), so it stops before the horizon"
        )
    return text


def facts(controls: Controls, run: Run) -> list[tuple[str, str]]:
    star = run.sweep.threshold
    items = [
        (
            "what γ is",
            "the feature-learning rate: how fast the features (and so the kernel) move "
            "relative to the function — γ → 0 is a frozen kernel (lazy), large γ pulls K "
            "towards yyᵀ (rich).",
        ),
        ("alignment A₀ → A∞", f"{run.sweep.initial_alignment:.3f} → {run.final_alignment:.3f}"),
        (
            "overlap of K∞'s top eigenvector with y",
            f"{run.final.top_overlap:.3f} (γ → 0: {run.sweep.initial_overlap:.3f}"
            + (f"; threshold γ* ≈ {star:.2g})" if star is not None else ")"),
        ),
        (f"loss at t = {run.exact.t[-1]:.3g}", _speed_up(controls, run)),
    ]
    if run.descent is not None:
        items.append(("gradient descent", _descent_fact(controls, run.descent)))
    return items


def notes(controls: Controls, run: Run) -> list[str]:
    if run.descent is None or run.descent.path.diverged_at is None:
        return []
    stop = run.descent.path.diverged_at
    return [
        f"Gradient descent diverged at step {stop} (t = {stop * controls.lr:.3g}): step size "
        f"{controls.lr:g} is too large for γ = {controls.gamma:g}; below about "
        f"{run.stable_lr:.2g} it stays stable. Its markers stop where it blows up."
    ]


def frames(controls: Controls, run: Run) -> Frames:
    exact = run.exact
    return (
        Frames.along(exact.t, FRAMES)
        .point("loss", x=exact.t, y=np.maximum(exact.loss, plots.loss_floor(run)))
        .point("alignment", x=exact.t, y=exact.alignment)
        .lines_on("loss", "alignment")
    )


COLUMNS = ("t", "loss", "alignment", "residual")


def tables(controls: Controls, run: Run) -> Tables:
    found = {
        f"exact gamma={controls.gamma:g}": run.exact,
        "kernel gradient descent gamma=0": run.kernel,
        "gradient descent": run.descent.path if run.descent is not None else None,
    }
    return {name: columns_of(path, COLUMNS) for name, path in found.items() if path is not None}


VIEW = View(
    key="kernel-alignment",
    path="/kernel-alignment",
    title="Kernel–target alignment under optimal feature evolution",
    nav_title="Kernel alignment",
    summary=(
        "Let the features move as fast as γ allows: the kernel aligns with the target "
        "(A₀ → A∞), its top eigenvector locks onto y past a threshold γ*, and the power-law "
        "loss of kernel gradient descent is beaten by an exponential phase."
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
