"""λ-balanced two-layer linear networks (Dominé et al., *From lazy to rich*): the relative scale λ
and the architecture decide between lazy, rich and delayed-rich learning.

The state is the view's controls; the network, task and start are one
:func:`solvers.lambda_balanced.scenario` (the map's cells are scenarios too), the result its
exact trajectory with a gradient-descent run on top. The maths is
:mod:`solvers.lambda_balanced` (docs/theory.md §3); the plots are :mod:`.trajectory_plots`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers import lambda_balanced as lb
from solvers import step_budget
from solvers.metrics import on_saddle

from ...core.downloads import Tables, columns_of
from ...core.frames import Frames
from ...core.presets import Preset
from ...core.state import choice, integer, number, switch
from ...core.view import View
from ...ui.figures import plot_times
from . import claims
from . import trajectory_plots as plots

#: hard caps that keep one request cheap whatever it asks for
MAX_DIM = 10
MAX_DESCENT_STEPS = 2_000
DESCENT_POINTS = 300
CURVE_POINTS = 400


@dataclass(frozen=True)
class Controls:
    lam: float = number(
        "relative scale λ",
        0.0,
        -20.0,
        20.0,
        step=0.1,
        help="W₂ᵀW₂ − W₁W₁ᵀ = λI is conserved: λ > 0 large read-out, λ < 0 large first layer",
    )
    scale: float = number(
        "absolute scale ‖W₂W₁‖ at t = 0",
        0.05,
        0.001,
        10.0,
        log=True,
        help="Size of the network function at initialisation",
    )
    shape: str = choice(
        "network shape",
        "square",
        lb.SHAPE_NAMES,
        ("funnel", "square", "inverted funnel", "any"),
        help="funnel: d_in > h ≥ d_out; square: d_in = h = d_out; inverted funnel: "
        "d_in ≤ h < d_out; any: the sizes as set",
    )
    d_in: int = integer("input size d_in", 3, 1, MAX_DIM)
    hidden: int = integer("hidden width h", 3, 1, MAX_DIM)
    d_out: int = integer("output size d_out", 3, 1, MAX_DIM)
    task: str = choice(
        "task", "random", lb.TASKS, ("random regression", "semantic hierarchy (8 × 8)")
    )
    init: str = choice("initialisation", "random", lb.INITS, ("random λ-balanced", "task-aligned"))
    seed: int = integer(
        "random seed", 4, 0, 999, help="Seeds the random task and the random initialisation"
    )
    horizon: float = number("time horizon", 20.0, 0.5, 1000.0, log=True)
    log_time: bool = switch("logarithmic time axis", False)
    descent: bool = switch("show gradient descent", True)
    lr: float = number("gradient-descent step size", 0.05, 0.001, 2.0, log=True)


GROUPS = (
    ("Scales", ("lam", "scale")),
    ("Architecture", ("shape", "d_in", "hidden", "d_out")),
    ("Task and initialisation", ("task", "init", "seed")),
    ("Time and gradient descent", ("horizon", "log_time", "descent", "lr")),
)


FUNNEL = {
    "shape": "funnel",
    "d_in": 4,
    "hidden": 2,
    "d_out": 2,
    "task": "random",
    "init": "random",
    "scale": 0.1,
    "seed": 1,
}
INVERTED = FUNNEL | {"shape": "inverted funnel", "d_in": 2, "hidden": 2, "d_out": 4}
HIERARCHY = {
    "task": "hierarchy",
    "shape": "square",
    "d_in": 8,
    "hidden": 8,
    "d_out": 8,
    "init": "random",
    "seed": 3,
    "horizon": 30.0,
}
ALIGNED = {
    "shape": "square",
    "d_in": 3,
    "hidden": 3,
    "d_out": 3,
    "task": "random",
    "init": "aligned",
    "scale": 0.001,
    "seed": 0,
    "horizon": 25.0,
}
PRESETS = (
    Preset(
        "fig-5-funnel-lambda-plus-10-lazy",
        "Fig. 5 — funnel, λ = +10: lazy",
        "Large read-out in a funnel: the kernel barely moves "
        "and the singular values rise exponentially.",
        FUNNEL | {"lam": 10.0, "horizon": 3.0, "lr": 0.01},
        figure="Fig. 5",
        panel="kernel",
        claim=claims.LAZY_FUNNEL,
        differs=claims.FIG_5_DIFFERS,
        paper_setting=claims.FIG_5_PAPER,
    ),
    Preset(
        "fig-5-funnel-lambda-minus-10-delayed-rich",
        "Fig. 5 — funnel, λ = −10: delayed rich",
        "Large first layer in a funnel: a lazy phase, then a late change of the kernel.",
        FUNNEL | {"lam": -10.0, "horizon": 300.0, "log_time": True, "descent": False},
        figure="Fig. 5",
        panel="kernel",
        claim=claims.DELAYED_FUNNEL,
        differs=claims.FIG_5_DIFFERS,
        paper_setting=claims.FIG_5_PAPER,
    ),
    Preset(
        "fig-5-inverted-funnel-lambda-plus-10-delayed-rich",
        "Fig. 5 — inverted funnel, λ = +10: delayed rich",
        "The mirror image: now λ > 0 gives the plateau and the late kernel change.",
        INVERTED | {"lam": 10.0, "horizon": 300.0, "log_time": True, "descent": False},
        figure="Fig. 5",
        panel="kernel",
        claim=claims.DELAYED_INVERTED,
        differs=claims.FIG_5_DIFFERS,
        paper_setting=claims.FIG_5_PAPER,
    ),
    Preset(
        "fig-5-inverted-funnel-lambda-minus-10-lazy",
        "Fig. 5 — inverted funnel, λ = −10: lazy",
        "The mirror image: λ < 0 is lazy in an inverted funnel.",
        INVERTED | {"lam": -10.0, "horizon": 3.0, "lr": 0.01},
        figure="Fig. 5",
        panel="kernel",
        claim=claims.LAZY_INVERTED,
        differs=claims.FIG_5_DIFFERS,
        paper_setting=claims.FIG_5_PAPER,
    ),
    Preset(
        "fig-4-semantic-hierarchy-lambda-0-rich",
        "Fig. 4 — semantic hierarchy, λ ≈ 0: rich",
        "Balanced and small: both representations learn the tree, one level after another.",
        HIERARCHY | {"lam": 0.001, "scale": 0.01},
        figure="Fig. 4",
        panel="rsm_in",
        claim=claims.RICH_HIERARCHY,
        differs=claims.FIG_4_DIFFERS,
        paper_setting=claims.FIG_4_PAPER,
    ),
    Preset(
        "fig-4-semantic-hierarchy-lambda-plus-10-tree-in-w-1-only",
        "Fig. 4 — semantic hierarchy, λ = +10: tree in W₁ only",
        "Large read-out: W₂W₂ᵀ stays ≈ λI (lazy) while the small W₁ᵀW₁ holds the hierarchy.",
        HIERARCHY | {"lam": 10.0, "scale": 0.1, "horizon": 5.0, "lr": 0.01},
        figure="Fig. 4",
        panel="rsm_in",
        claim=claims.TREE_IN_FIRST_LAYER,
        differs=claims.FIG_4_DIFFERS,
        paper_setting=claims.FIG_4_PAPER,
    ),
    Preset(
        "fig-4-semantic-hierarchy-lambda-minus-10-tree-in-w-2-only",
        "Fig. 4 — semantic hierarchy, λ = −10: tree in W₂ only",
        "Large first layer: W₁ᵀW₁ stays ≈ |λ|I (lazy) while the small W₂W₂ᵀ holds the task's "
        "structure, the tree's levels.",
        HIERARCHY | {"lam": -10.0, "scale": 0.1, "horizon": 5.0, "lr": 0.01},
        figure="Fig. 4",
        panel="rsm_out",
        claim=claims.TREE_IN_READ_OUT,
        differs=claims.FIG_4_DIFFERS,
        paper_setting=claims.FIG_4_PAPER,
    ),
    Preset(
        "fig-3a-exponential-singular-values-aligned-lambda-minus-10",
        "Fig. 3A — exponential singular values (aligned, λ = −10)",
        "Task-aligned with a large first layer: every mode rises exponentially and at once (lazy).",
        ALIGNED | {"lam": -10.0, "horizon": 2.0, "lr": 0.01},
        figure="Fig. 3A",
        panel="singular",
        claim=claims.FIG_3_LAZY,
        differs=claims.FIG_3_DIFFERS,
        paper_setting=claims.FIG_3_PAPER,
    ),
    Preset(
        "sigmoidal-singular-values-aligned-lambda-0",
        "Fig. 3B — sigmoidal singular values (aligned, λ = 0)",
        "Task-aligned and small: each mode is "
        "learned in a sudden sigmoidal step, largest first (rich).",
        ALIGNED | {"lam": 0.0, "horizon": 100.0, "log_time": True},
        figure="Fig. 3B",
        panel="singular",
        claim=claims.FIG_3B,
        differs=claims.FIG_3_DIFFERS,
        paper_setting=claims.FIG_3_PAPER,
    ),
    Preset(
        "exponential-singular-values-aligned-lambda-10",
        "Fig. 3C — exponential singular values (aligned, λ = 10)",
        "Task-aligned with a large λ: every mode rises exponentially and at once (lazy).",
        ALIGNED | {"lam": 10.0, "horizon": 2.0, "lr": 0.01},
        figure="Fig. 3C",
        panel="singular",
        claim=claims.FIG_3_LAZY,
        differs=claims.FIG_3_DIFFERS,
        paper_setting=claims.FIG_3_PAPER,
    ),
)


@dataclass(frozen=True)
class Run:
    """What the view shows: the scenario, its exact trajectory and gradient descent from it."""

    scenario: lb.Scenario
    exact: lb.LambdaBalancedTrajectory
    descent: lb.LambdaBalancedTrajectory | None = None
    #: gradient descent stopped short of the horizon (its step cap), in words
    descent_note: str | None = None

    @property
    def descent_inside(self) -> np.ndarray | None:
        """Recorded descent steps before the run first leaves the plot (singular values above
        ten times the largest of the exact curves and the task): drawing a runaway run would
        squash the exact curves, and overflow float32."""
        if self.descent is None:
            return None
        largest = max(
            float(np.max(self.exact.singular_values)),
            float(self.scenario.task_singular_values[0]),
            1e-3,
        )
        within = np.all(self.descent.singular_values <= 10.0 * largest, axis=1)
        return np.cumprod(within).astype(bool)


def scenario_of(controls: Controls) -> lb.Scenario:
    """The network, task and start these controls describe (sizes adjusted, see its notes)."""
    return lb.scenario(
        lam=controls.lam,
        scale=controls.scale,
        d_in=controls.d_in,
        hidden=controls.hidden,
        d_out=controls.d_out,
        shape=controls.shape,
        task=controls.task,
        init=controls.init,
        seed=controls.seed,
        largest=MAX_DIM,
    )


def _descent(
    controls: Controls, scenario: lb.Scenario
) -> tuple[lb.LambdaBalancedTrajectory, str | None]:
    budget = step_budget(controls.horizon, controls.lr, MAX_DESCENT_STEPS)
    steps = budget.steps
    run = scenario.gradient_descent(controls.lr, steps, every=max(1, steps // DESCENT_POINTS))
    return run, budget.note(controls.lr)


def compute(controls: Controls) -> Run:
    scenario = scenario_of(controls)
    t = plot_times(controls.horizon, controls.log_time, CURVE_POINTS)
    if controls.log_time:  # the kernel distance is measured from t = 0
        t = np.concatenate([[0.0], t])
    exact = scenario.exact(t)
    if not controls.descent:
        return Run(scenario, exact)
    descent, note = _descent(controls, scenario)
    return Run(scenario, exact, descent, note)


INTRO = (
    r"A two-layer linear network $f(x) = W_2W_1x$ trained by gradient flow on whitened data, "
    r"$\mathcal{L} = \tfrac12\|\Sigma_{yx} - W_2W_1\|_F^2$. Its *relative scale* $\lambda$, "
    r"$W_2^\top W_2 - W_1W_1^\top = \lambda I_h$, is conserved, and with it the flow is solved "
    r"exactly (Dominé et al., Thm 4.3): $Q = \begin{bmatrix} W_1^\top \\ W_2 \end{bmatrix}$ obeys "
    r"$\dot Q = FQ - \tfrac12 QQ^\top Q$, so"
    "\n\n"
    r"$$QQ^\top(t) = e^{Ft}Q_0\left[I + Q_0^\top\!\int_0^t e^{2Fs}ds\;Q_0\right]^{-1}"
    r"Q_0^\top e^{Ft}, \qquad F = \begin{bmatrix} -\tfrac\lambda2 I & \Sigma_{yx}^\top \\ "
    r"\Sigma_{yx} & \tfrac\lambda2 I \end{bmatrix},$$"
    "\n\n"
    r"whose blocks are $W_1^\top W_1$, $W_2W_1$ and $W_2W_2^\top$. "
    r"$\lambda \approx 0$ is rich; large $|\lambda|$ is lazy or *delayed rich* depending on the "
    r"architecture: a funnel ($d_{in} > h \ge d_{out}$) is lazy as $\lambda \to +\infty$ and "
    r"delayed rich as $\lambda \to -\infty$, an inverted funnel ($d_{in} \le h < d_{out}$) the "
    r"reverse. Every curve is the exact solution; open circles are a real gradient-descent run."
)


# -- summary, messages, frames, downloads ------------------------------------------------------

LAZY = "lazy: exponential singular values, the kernel hardly moves"
REGIME_TEXT = {
    "rich": "near balance — rich: sigmoidal singular values and a moving kernel "
    "(from a small scale)",
    "lazy": LAZY,
    "delayed rich": "delayed rich: a lazy phase, then the kernel changes late",
    "lazy in W1": "lazy, the task's structure learnt in W₁ (W₂W₂ᵀ ≈ λI) only",
    "lazy in W2": "lazy, the task's structure learnt in W₂ (W₁ᵀW₁ ≈ |λ|I) only",
    "bottleneck": "lazy at first, rich learning possibly delayed (a bottleneck: neither funnel)",
}


def regime_text(architecture: lb.Architecture, lam: float, sigma_max: float) -> str:
    """The regime Dominé et al. predict for this architecture and relative scale, in words."""
    name, settled = lb.regime(architecture.kind, lam, sigma_max)
    text = REGIME_TEXT[name]
    return text if settled else "between rich and " + text


def facts(controls: Controls, run: Run) -> list[tuple[str, str]]:
    scenario, exact = run.scenario, run.exact
    architecture = scenario.architecture
    d_in, hidden, d_out = architecture.dims
    kind = architecture.kind if architecture.kind != "other" else "bottleneck"
    best = scenario.best_loss
    items = [
        ("λ", f"{controls.lam:g}"),
        ("network", f"{kind}, {d_in} → {hidden} → {d_out}"),
        (
            "expected regime",
            regime_text(architecture, controls.lam, float(scenario.task_singular_values[0])),
        ),
        (
            "final loss",
            f"{exact.loss[-1]:.3g}"
            + (f" (best possible with h = {hidden}: {best:.3g})" if best > 0 else ""),
        ),
        ("largest S(0, t)", f"{np.max(exact.kernel_distance):.3g}"),
    ]
    if on_saddle(exact.saddle_margin):
        items.append(
            (
                "warning",
                f"saddle margin {exact.saddle_margin:.1e}: the start lies on a saddle's stable "
                "manifold, so the exact flow stalls at the saddle",
            )
        )
    return items


def _descent_warning(controls: Controls, run: Run) -> str | None:
    descent, inside = run.descent, run.descent_inside
    if descent is None or (descent.diverged_at is None and inside.all()):
        return None
    what = (
        f"diverged at step {descent.diverged_at}"
        if descent.diverged_at is not None
        else f"ran away from t = {descent.t[np.argmin(inside)]:.3g} on"
    )
    return (
        f"Gradient descent {what}: step size {controls.lr:g} is too large for these "
        "weights (try one below 1/(|λ| + largest σ)); its markers stop where it leaves "
        "the plot."
    )


def notes(controls: Controls, run: Run) -> list[str]:
    messages = [*run.scenario.architecture.notes]
    messages += [m for m in (run.descent_note, _descent_warning(controls, run)) if m]
    if on_saddle(run.exact.saddle_margin):
        messages.append(
            "This start lies on the stable manifold of a saddle: the exact flow stalls there, "
            "while any simulation (gradient descent included) escapes after a delay set by "
            "rounding. Change the seed or move λ away from 0."
        )
    return messages


def frames(controls: Controls, run: Run) -> Frames:
    exact, keep = run.exact, plots.shown(controls, run)
    return (
        Frames.along(exact.t[keep], plots.FRAMES)
        .lines_on("singular", "loss", "kernel")
        .heatmap("function", exact.function[keep])
        .heatmap("rsm_in", exact.rsm_in[keep])
        .heatmap("rsm_out", exact.rsm_out[keep])
    )


COLUMNS = ("t", "singular_values", "loss", "kernel_distance", "function", "rsm_in", "rsm_out")


def tables(controls: Controls, run: Run) -> Tables:
    found = {"exact": run.exact, "gradient descent": run.descent}
    return {name: columns_of(path, COLUMNS) for name, path in found.items() if path is not None}


VIEW = View(
    key="lambda-balanced",
    path="/lambda-balanced",
    title="λ-balanced deep linear networks",
    nav_title="λ-balanced",
    summary=(
        "A two-layer linear network whose layers keep a fixed relative scale λ: watch rich, lazy "
        "and delayed-rich learning depend on λ and on the shape of the network, and the "
        "representation of a semantic hierarchy move between the layers."
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
