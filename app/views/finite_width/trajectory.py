"""Finite-width two-layer linear network (Xu & Ziyin, *Three mechanisms of feature learning in a
linear network*): alignment, disalignment and rescaling, the NTK, and the scaling phases of §4.

The network is built from the controls by :func:`solvers.finite_width.network`; the result is
its exact trajectory (and a gradient-descent run) in units of the solution's time scale t_c.
The maths is :mod:`solvers.finite_width` (docs/theory.md §2); the plots are
:mod:`.trajectory_plots`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solvers import StepBudget, step_budget
from solvers import finite_width as fw

from ...core.downloads import Tables, columns_of
from ...core.frames import Frames
from ...core.presets import Preset
from ...core.state import choice, integer, number, switch
from ...core.view import View
from ...ui.figures import plot_times
from . import claims
from . import trajectory_plots as plots

#: hard caps that keep one request cheap whatever it asks for
MAX_WIDTH = 1000
MAX_DESCENT_STEPS = 2_000
DESCENT_WORK = 1_500_000  # steps × d × d₀ per request (fewer steps for wide inputs)
MIN_DESCENT_CAP = 300
CHECK_STEPS = 60  # a run is at least this long, to reveal an unstable step size
DESCENT_RECORDS = 200  # recorded gradient-descent states (the markers are thinned further)
CURVE_POINTS = 400
FRAMES = 120
EXPORT_NEURONS = 100  # neurons kept in the result (plots and downloads)


@dataclass(frozen=True)
class Controls:
    d: int = integer(
        "width d", MAX_WIDTH, 1, MAX_WIDTH, help=f"Number of hidden neurons (at most {MAX_WIDTH})"
    )
    d0: int = integer(
        "input size d₀",
        1,
        1,
        5,
        help="x = ‖x‖ (1, …, 1)/√d₀; only the component of W along x moves",
    )
    x_norm: float = number("input norm ρ = ‖x‖", 1.0, 0.1, 10.0, log=True)
    y: float = number("target y", 2.0, -10.0, 10.0, step=0.1)
    gamma_rule: str = choice(
        "output scale γ",
        "mf",
        fw.GAMMA_RULES,
        ("1/d (mean field)", "1/√d (NTK)", "slider"),
        help="γ = 1/d or 1/√d follows the width; 'slider' uses the value below",
    )
    gamma: float = number("γ (when 'slider')", 0.01, 1e-4, 10.0, log=True)
    init: str = choice(
        "initialisation",
        "gaussian",
        fw.INITS,
        ("Gaussian", "parallel", "near-parallel"),
        help="Gaussian: independent N(0, σ²) layers; parallel: u = σ_u g, W = σ_w g x̂ᵀ; "
        "near-parallel adds noise·σ_w·N(0, 1) to W",
    )
    sigma_u: float = number("σ_u (second layer)", 1.0, 1e-3, 10.0, log=True)
    sigma_w: float = number("σ_w (first layer)", 1.0, 1e-3, 10.0, log=True)
    noise: float = number(
        "near-parallel noise",
        0.1,
        0.0,
        1.0,
        step=0.01,
        help="Relative size of the random part of W (near-parallel only)",
    )
    seed: int = integer("random seed", 0, 0, 999)
    eta_ratio: float = number(
        "learning-rate ratio η_u/η_w",
        1.0,
        0.01,
        100.0,
        log=True,
        help="η_u η_w = 1: η_u = √ratio, η_w = 1/√ratio",
    )
    horizon: float = number(
        "time horizon (× t_c)",
        3.0,
        0.1,
        1000.0,
        log=True,
        help="In units of the time scale t_c of the solution (their eq. 10)",
    )
    log_time: bool = switch("logarithmic time axis", False)
    descent: bool = switch("show gradient descent", True)
    lr: float = number(
        "gradient-descent step size (× t_c)",
        0.01,
        1e-3,
        10.0,
        log=True,
        help=f"lr = value·t_c; at most {MAX_DESCENT_STEPS:,} steps (fewer when d·d₀ is large)",
    )
    # The scaling rule of §4: exponents of κ → ∞ (drawing only, not part of the cache key).
    c_d: float = number("c_d  (d ∝ κ^c_d)", 1.0, -2.0, 3.0, step=0.25, physics=False)
    c_gamma: float = number("c_γ  (γ ∝ κ^c_γ)", -1.0, -3.0, 3.0, step=0.25, physics=False)
    c_u: float = number("c_u  (σ_u² ∝ κ^c_u)", 0.0, -3.0, 3.0, step=0.25, physics=False)
    c_w: float = number("c_w  (σ_w² ∝ κ^c_w)", 0.0, -3.0, 3.0, step=0.25, physics=False)
    c_eta_u: float = number("c_ηu  (η_u ∝ κ^c_ηu)", 1.0, -3.0, 3.0, step=0.25, physics=False)
    c_eta_w: float = number("c_ηw  (η_w ∝ κ^c_ηw)", 1.0, -3.0, 3.0, step=0.25, physics=False)
    zero_output: bool = switch("zero initial output (Chizat's lazy init)", False, physics=False)
    independent: bool = switch("independent layers at init", True, physics=False)


GROUPS = (
    ("Network and data", ("d", "d0", "x_norm", "y", "gamma_rule", "gamma")),
    ("Initialisation", ("init", "sigma_u", "sigma_w", "noise", "seed")),
    (
        "Learning rates, time, gradient descent",
        ("eta_ratio", "horizon", "log_time", "descent", "lr"),
    ),
    (
        "Scaling phase (§4, table below)",
        ("c_d", "c_gamma", "c_u", "c_w", "c_eta_u", "c_eta_w", "zero_output", "independent"),
    ),
)

FIG1 = {
    "d": 1000,
    "d0": 1,
    "x_norm": 1.0,
    "y": 2.0,
    "init": "gaussian",
    "sigma_u": 1.0,
    "sigma_w": 1.0,
    "seed": 0,
    "eta_ratio": 1.0,
    "horizon": 3.0,
    "log_time": False,
}
NTK_EXPONENTS = {
    "c_d": 1.0,
    "c_gamma": -0.5,
    "c_u": 0.0,
    "c_w": 0.0,
    "c_eta_u": 0.0,
    "c_eta_w": 0.0,
}
MF_EXPONENTS = {"c_d": 1.0, "c_gamma": -1.0, "c_u": 0.0, "c_w": 0.0, "c_eta_u": 1.0, "c_eta_w": 1.0}
PRESETS = (
    Preset(
        "fig-1-alignment-kernel-phase-gamma-1-sqrt-d",
        "Fig. 1 — alignment, kernel phase (γ = 1/√d)",
        "N(0, 1) layers, d = 1000, x = 1: ζ grows only by O(1/√d) and the NTK barely moves.",
        {**FIG1, **NTK_EXPONENTS, "gamma_rule": "ntk"},
        figure="Fig. 1",
        panel="zeta",
        claim=claims.FIG_1_KERNEL,
        differs=claims.FIG_1_DIFFERS,
        paper_setting=claims.FIG_1_PAPER,
    ),
    Preset(
        "fig-1-alignment-feature-learning-phase-gamma-1-d",
        "Fig. 1 — alignment, feature-learning phase (γ = 1/d)",
        "Same layers with γ = 1/d: α₊ ≈ 4, ζ climbs from ≈ 0 to ≈ 0.9, the NTK changes by O(1).",
        {**FIG1, **MF_EXPONENTS, "gamma_rule": "mf"},
        figure="Fig. 1",
        panel="zeta",
        claim=claims.FIG_1_FEATURES,
        differs=claims.FIG_1_DIFFERS,
        paper_setting=claims.FIG_1_PAPER,
    ),
    Preset(
        "fig-1-disalignment-near-parallel-large-output",
        "Fig. 1 — disalignment (near-parallel, large output)",
        "ζ(0) ≈ 1 and f(0) ≈ 30 ≫ y = 2: α₊ < 1, the layers turn apart (ζ falls to ≈ 0.5).",
        {**FIG1, **NTK_EXPONENTS, "gamma_rule": "ntk", "init": "near_parallel", "noise": 0.1},
        figure="Fig. 1",
        panel="zeta",
        claim=claims.FIG_1_DISALIGNMENT,
        differs=claims.FIG_1_DISALIGNMENT_DIFFERS,
        paper_setting=claims.FIG_1_PAPER,
    ),
    Preset(
        "rescaling-parallel-layers",
        "Rescaling (parallel layers)",
        "u ∥ W x: ζ stays 1; the output 30 → 2 only by shrinking ‖u‖ = ‖W‖ from 31 to 8.",
        {**FIG1, **NTK_EXPONENTS, "gamma_rule": "ntk", "init": "parallel"},
    ),
    Preset(
        "ntk-moves-by-o-1-small-initialisation",
        "NTK moves by O(1): small initialisation",
        "σ = 0.05, γ = 1/√d: the kernel term of t_c is tiny, the NTK grows 25× and ζ → 1.",
        {**FIG1, **NTK_EXPONENTS, "gamma_rule": "ntk", "sigma_u": 0.05, "sigma_w": 0.05},
    ),
    Preset(
        "ntk-frozen-large-initialisation",
        "NTK frozen: large initialisation",
        "σ = 10, γ = 1/d: the initialisation term dominates t_c; the NTK changes by 0.2 %.",
        {**FIG1, **MF_EXPONENTS, "gamma_rule": "mf", "sigma_u": 10.0, "sigma_w": 10.0},
    ),
)

INTRO = (
    r"A two-layer linear network $f(x) = \gamma\sum_{i=1}^d u_i\, w_i^\top x$ of any width, "
    r"trained by gradient flow on one data point (any data on a line reduce to it) with loss "
    r"$(f(x) - y)^2$ and learning rates $\eta_u\eta_w = 1$. In the basis "
    r"$p_i = (\sqrt{\eta_u}h_i + \sqrt{\eta_w}\rho u_i)/2\rho$, "
    r"$q_i = (\sqrt{\eta_u}h_i - \sqrt{\eta_w}\rho u_i)/2\rho$ ($h_i = w_i^\top x$, "
    r"$\rho = \|x\|$) the exact solution is $p_i(t) = p_i(0)\sqrt{A(t)}$, "
    r"$q_i(t) = q_i(0)/\sqrt{A(t)}$, where one scalar $A$ runs from 1 to $\alpha_+$ on the time "
    r"scale $t_c$:"
    "\n\n"
    r"$$t_c^{-2} = \underbrace{\eta_u\eta_w\gamma^2\rho^2y^2}_{\text{feature learning}} + "
    r"\underbrace{4\rho^4(\gamma^2d)^2PQ}_{\text{kernel}},\qquad "
    r"P = \overline{p_i(0)^2},\ Q = \overline{q_i(0)^2},\ \alpha_+\alpha_- = Q/P.$$"
    "\n\n"
    r"$\alpha_+ > 1$: the layers **align**; $\alpha_+ < 1$: they **disalign**; parallel layers "
    r"only **rescale**. Curves are exact; open circles are a real gradient-descent run. Time "
    r"horizon and step size are in units of $t_c$, so a change of $\gamma$ or $d$ keeps the "
    r"learning curve in view (a small initialisation needs longer: about "
    r"$t_c\ln\alpha_+/4$ to escape). "
    f"Downloads hold every time point and the first {EXPORT_NEURONS} neurons."
)


# -- computing --------------------------------------------------------------------------------

#: the columns of a trajectory the view keeps (u and h for the first neurons only)
COLUMNS = (
    "t",
    "u",
    "hidden",
    "output",
    "loss",
    "zeta",
    "u_norm",
    "w_norm",
    "ntk",
    "ntk_change",
    "kernel_distance",
)


@dataclass(frozen=True)
class Curves:
    """What the view keeps of a trajectory: every time point, the first neurons' u and h, and
    the network's scalars (computed from all neurons)."""

    t: np.ndarray
    u: np.ndarray  #: (T, ≤ EXPORT_NEURONS)
    hidden: np.ndarray  #: (T, ≤ EXPORT_NEURONS)
    output: np.ndarray
    loss: np.ndarray
    zeta: np.ndarray
    u_norm: np.ndarray
    w_norm: np.ndarray
    ntk: np.ndarray
    ntk_change: np.ndarray
    kernel_distance: np.ndarray

    @classmethod
    def of(cls, path: fw.FiniteWidthTrajectory, rows=slice(None)) -> Curves:
        """The curves of ``path`` at its time points ``rows``."""
        columns = columns_of(path, COLUMNS)
        keep = min(path.u.shape[1], EXPORT_NEURONS)
        columns["u"], columns["hidden"] = columns["u"][:, :keep], columns["hidden"][:, :keep]
        return cls(**{name: values[rows] for name, values in columns.items()})


@dataclass(frozen=True)
class Descent:
    """A gradient-descent run over the horizon."""

    curves: Curves
    diverged_at: int | None
    #: the steps the horizon asks for and the cap (the run may go on a little past the horizon
    #: to reveal an instability)
    budget: StepBudget

    @property
    def steps(self) -> int:
        """The steps that fit the horizon."""
        return self.budget.steps


@dataclass(frozen=True)
class Run:
    """What the view shows: the network, its exact trajectory and a gradient-descent run."""

    network: fw.Network
    unit: fw.TimeUnit  #: the unit of the horizon and the step size
    exact: Curves
    descent: Descent | None = None

    @property
    def start(self) -> fw.FiniteWidthTrajectory:
        """The initial state and the constants of the exact solution (t_c, α±, P, Q, …)."""
        return self.network.start


def network(controls: Controls) -> fw.Network:
    """The network the controls describe."""
    eta_u, eta_w = fw.balanced_rates(controls.eta_ratio)
    return fw.network(
        controls.d,
        y=controls.y,
        d0=controls.d0,
        x_norm=controls.x_norm,
        gamma_rule=controls.gamma_rule,
        gamma=controls.gamma,
        init=controls.init,
        sigma_u=controls.sigma_u,
        sigma_w=controls.sigma_w,
        noise=controls.noise,
        seed=controls.seed,
        eta_u=eta_u,
        eta_w=eta_w,
    )


def descent_cap(controls: Controls) -> int:
    """Most gradient-descent steps one request may run (each step costs O(d·d₀))."""
    work = DESCENT_WORK // (controls.d * controls.d0)
    return int(min(MAX_DESCENT_STEPS, max(MIN_DESCENT_CAP, work)))


def _descent(controls: Controls, built: fw.Network, unit: float) -> Descent:
    """A gradient-descent run over the horizon (at least CHECK_STEPS steps, so that a step size
    too large to be stable shows up even when one step already passes the horizon)."""
    budget = step_budget(controls.horizon, controls.lr, descent_cap(controls))
    steps = min(max(budget.wanted, CHECK_STEPS), budget.cap)
    run = built.gradient_descent(controls.lr * unit, steps, every=max(1, steps // DESCENT_RECORDS))
    inside = run.t <= controls.horizon * unit * (1 + 1e-9)
    return Descent(Curves.of(run, inside), run.diverged_at, budget)


def compute(controls: Controls) -> Run:
    built = network(controls)
    unit = built.time_unit()
    t = plot_times(controls.horizon * unit.value, controls.log_time, CURVE_POINTS)
    if controls.log_time:  # t = 0 too: every change (W, K, S) is measured from the start
        t = np.concatenate([[0.0], t])
    exact = Curves.of(built.exact(t))
    descent = _descent(controls, built, unit.value) if controls.descent else None
    return Run(built, unit, exact, descent)


# -- summary, messages, frames, downloads ------------------------------------------------------

MECHANISMS = {
    "alignment": "alignment — α₊ > 1: p grows and q shrinks, so u and W x turn towards each "
    "other (ζ increases) and the output grows with little change of norm.",
    "disalignment": "disalignment — α₊ < 1: u and W x turn apart (ζ decreases), the way to "
    "shrink an output that starts too large without shrinking the weights.",
    "rescaling": "rescaling — u ∥ W x (ζ = ±1 throughout): only the sizes ‖u‖ and ‖W‖ change, "
    "no feature is learned.",
    "none": "none — α₊ = 1: the network already fits y; nothing moves.",
}

UNIT_NOTES = {
    "kernel": "t_c is infinite here (y = 0 and P·Q = 0): times are in units of 1/(2K(0)) "
    "instead, and A(t) approaches α₊ only algebraically.",
    "none": "Nothing can move from this initialisation (the NTK is zero): times are in plain "
    "units.",
}


def _number(value: float) -> str:
    return "∞" if math.isinf(value) else f"{value:.4g}"


def _kernel_word(change: float) -> str:
    if change < 0.01:
        return "kernel-like: the NTK barely moves"
    if change > 0.1:
        return "the NTK changes by O(1): features are learned"
    return "the NTK moves a little"


def facts(controls: Controls, run: Run) -> list[tuple[str, str]]:
    start, exact, built = run.start, run.exact, run.network
    change = float(exact.ntk_change[-1])
    return [
        ("mechanism", MECHANISMS[start.mechanism]),
        ("t_c", f"{_number(start.t_c)}  (time unit of the horizon and step size)"),
        (
            "α₊, α₋",
            f"{_number(start.alpha_plus)}, {_number(start.alpha_minus)}  "
            "(A(t) runs from 1 to α₊; α₊α₋ = Q/P)",
        ),
        ("P, Q", f"{_number(start.P)}, {_number(start.Q)}"),
        ("γ, η_u, η_w", f"{built.gamma:.4g}, {built.eta_u:.4g}, {built.eta_w:.4g}"),
        (
            "output f(x)",
            f"{exact.output[0]:.4g} → {exact.output[-1]:.4g}  (target {controls.y:g})",
        ),
        ("ζ", f"{exact.zeta[0]:.4f} → {exact.zeta[-1]:.4f}"),
        (
            "NTK K(x, x)",
            f"{exact.ntk[0]:.4g} → {exact.ntk[-1]:.4g}, relative change "
            f"{change:.3g} — {_kernel_word(change)}",
        ),
        (
            "scaling phase",
            f"{plots.phase_table(controls).phase} (for the exponents in the sidebar, §4)",
        ),
    ]


def _unfinished(controls: Controls, run: Run) -> str | None:
    """A hint when the horizon ends before learning does (small initialisations, P → 0)."""
    loss = run.exact.loss
    if not loss[0] > 0 or loss[-1] <= 1e-3 * loss[0] or run.unit.basis != "t_c":
        return None
    left = f"the loss is still {100 * loss[-1] / loss[0]:.3g} % of its initial value"
    needed = fw.learning_time(run.start.alpha_plus)
    if math.isinf(needed):
        return (
            f"At the horizon {left}: with P = 0 the flow heads for the saddle at the origin "
            "and never fits y."
        )
    if controls.horizon >= needed:
        return None
    return (
        f"At the horizon {left}. Learning takes about (2 + |ln α₊|/4) t_c ≈ {needed:.3g} t_c "
        "here — the time to leave a small initialisation grows like ln α₊ — so raise the "
        "time horizon to see it finish."
    )


def _descent_notes(controls: Controls, run: Run) -> list[str]:
    descent, messages = run.descent, []
    if descent is None:
        return messages
    why = f" here (d = {controls.d}, d₀ = {controls.d0})"
    capped = descent.budget.note(controls.lr, unit=" t_c", why=why)
    if capped:
        messages.append(capped)
    if descent.diverged_at is not None:
        step = descent.diverged_at
        where = "" if step <= descent.steps else ", just beyond the horizon"
        messages.append(
            f"Gradient descent diverged at step {step} (t = {step * controls.lr:.3g} t_c{where}): "
            f"step size {controls.lr:g} t_c = {controls.lr * run.unit.value:.3g} is too large "
            "here; its markers stop there."
        )
    return messages


def notes(controls: Controls, run: Run) -> list[str]:
    messages = [UNIT_NOTES[run.unit.basis]] if run.unit.basis in UNIT_NOTES else []
    messages += _descent_notes(controls, run)
    unfinished = _unfinished(controls, run)
    return [*messages, unfinished] if unfinished else messages


TIME_PANELS = ("zeta", "norms", "ntk", "kernel_change", "loss")


def frames(controls: Controls, run: Run) -> Frames:
    exact = run.exact
    drawn = plots.drawn(controls, run)
    follow = plots.followed_neuron(run)
    return (
        Frames.along(exact.t[drawn], FRAMES)
        .point("neurons", x=exact.u[drawn, follow], y=exact.hidden[drawn, follow])
        .lines_on(*TIME_PANELS)
    )


def tables(controls: Controls, run: Run) -> Tables:
    tables = {"exact": columns_of(run.exact, COLUMNS)}
    if run.descent is not None:
        tables["gradient descent"] = columns_of(run.descent.curves, COLUMNS)
    return tables


VIEW = View(
    key="finite-width",
    path="/finite-width",
    title="Finite width: three mechanisms of feature learning",
    nav_title="Finite width",
    summary=(
        "A two-layer linear network of any width, solved exactly: watch the layers align, "
        "disalign or just rescale, see the NTK move by O(1) or stay frozen, and find the "
        "scaling phase of NTK, mean-field, Xavier and Kaiming initialisations."
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
