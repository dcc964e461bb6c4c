"""λ-balanced two-layer linear networks (Dominé et al., *From lazy to rich*): the relative scale λ
and the architecture decide between lazy, rich and delayed-rich learning."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from dash import html

from solvers import lambda_balanced as lb

from .. import components
from .. import figures as fig
from ..state import Field, StateSpec
from ..view import Panel, Preset, Rendered, View, trajectory_tables

#: hard caps that keep one request cheap whatever it asks for
MAX_DIM = 10
MAX_DESCENT_STEPS = 2_000
CURVE_POINTS = 400
FRAMES = 100
#: below this ``saddle_margin`` the start lies (within rounding) on a saddle's stable manifold
SADDLE_MARGIN = 1e-8
#: size of the hierarchical semantic task (items = features = 8)
HIERARCHY_SIZE = len(lb.HIERARCHY_ITEMS)

SHAPE_NAMES = ("funnel", "square", "inverted funnel", "any")

SPEC = StateSpec(
    (
        Field(
            "lam",
            "relative scale λ",
            "float",
            0.0,
            -20.0,
            20.0,
            step=0.1,
            help="W₂ᵀW₂ − W₁W₁ᵀ = λI is conserved: λ > 0 large read-out, λ < 0 large first layer",
        ),
        Field(
            "scale",
            "absolute scale ‖W₂W₁‖ at t = 0",
            "float",
            0.05,
            0.001,
            10.0,
            log=True,
            help="Size of the network function at initialisation",
        ),
        Field(
            "shape",
            "network shape",
            "choice",
            "square",
            choices=SHAPE_NAMES,
            choice_labels=("funnel", "square", "inverted funnel", "any"),
            help="funnel: d_in > h ≥ d_out; square: d_in = h = d_out; inverted funnel: "
            "d_in ≤ h < d_out; any: the sizes as set",
        ),
        Field("d_in", "input size d_in", "int", 3, 1, MAX_DIM),
        Field("hidden", "hidden width h", "int", 3, 1, MAX_DIM),
        Field("d_out", "output size d_out", "int", 3, 1, MAX_DIM),
        Field(
            "task",
            "task",
            "choice",
            "random",
            choices=("random", "hierarchy"),
            choice_labels=("random regression", "semantic hierarchy (8 × 8)"),
        ),
        Field(
            "init",
            "initialisation",
            "choice",
            "random",
            choices=("random", "aligned"),
            choice_labels=("random λ-balanced", "task-aligned"),
        ),
        Field(
            "seed",
            "random seed",
            "int",
            4,
            0,
            999,
            help="Seeds the random task and the random initialisation",
        ),
        Field("horizon", "time horizon", "float", 20.0, 0.5, 1000.0, log=True),
        Field("log_time", "logarithmic time axis", "bool", False),
        Field("descent", "show gradient descent", "bool", True),
        Field("lr", "gradient-descent step size", "float", 0.05, 0.001, 2.0, log=True),
    )
)

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
        "Fig. 5 — funnel, λ = +10: lazy",
        "Large read-out in a funnel: the kernel barely moves "
        "and the singular values rise exponentially.",
        FUNNEL | {"lam": 10.0, "horizon": 3.0, "lr": 0.01},
    ),
    Preset(
        "Fig. 5 — funnel, λ = −10: delayed rich",
        "Large first layer in a funnel: a lazy phase, then a late change of the kernel.",
        FUNNEL | {"lam": -10.0, "horizon": 300.0, "log_time": True, "descent": False},
    ),
    Preset(
        "Fig. 5 — inverted funnel, λ = +10: delayed rich",
        "The mirror image: now λ > 0 gives the plateau and the late kernel change.",
        INVERTED | {"lam": 10.0, "horizon": 300.0, "log_time": True, "descent": False},
    ),
    Preset(
        "Fig. 5 — inverted funnel, λ = −10: lazy",
        "The mirror image: λ < 0 is lazy in an inverted funnel.",
        INVERTED | {"lam": -10.0, "horizon": 3.0, "lr": 0.01},
    ),
    Preset(
        "Fig. 4 — semantic hierarchy, λ = 0: rich",
        "Balanced and small: both representations learn the tree, one level after another.",
        HIERARCHY | {"lam": 0.0, "scale": 0.01},
    ),
    Preset(
        "Fig. 4 — semantic hierarchy, λ = +10: tree in W₁ only",
        "Large read-out: W₂W₂ᵀ stays ≈ λI (lazy) while the small W₁ᵀW₁ holds the hierarchy.",
        HIERARCHY | {"lam": 10.0, "scale": 0.1, "horizon": 5.0, "lr": 0.01},
    ),
    Preset(
        "Fig. 4 — semantic hierarchy, λ = −10: tree in W₂ only",
        "Large first layer: W₁ᵀW₁ stays ≈ |λ|I (lazy) while W₂W₂ᵀ holds the hierarchy.",
        HIERARCHY | {"lam": -10.0, "scale": 0.1, "horizon": 5.0, "lr": 0.01},
    ),
    Preset(
        "Sigmoidal singular values (aligned, λ = 0)",
        "Task-aligned and small: each mode is "
        "learned in a sudden sigmoidal step, largest first (rich).",
        ALIGNED | {"lam": 0.0},
    ),
    Preset(
        "Exponential singular values (aligned, λ = 10)",
        "Task-aligned with a large λ: every mode rises exponentially and at once (lazy).",
        ALIGNED | {"lam": 10.0, "horizon": 2.0, "lr": 0.01},
    ),
)

PANELS = (
    Panel(
        "singular",
        "Singular values of W₂W₁",
        r"The singular values $s_i(t)$ of the network function; dashed: the task's $\sigma_i$. "
        r"From a task-aligned start each follows $\dot s = \sqrt{\lambda^2 + 4s^2}\,(\sigma - s)$: "
        r"a sudden sigmoidal step for $\lambda \approx 0$ (rich), a plain exponential for "
        r"$|\lambda| \to \infty$ (lazy).",
        height=320,
    ),
    Panel(
        "loss", "Loss", r"$\mathcal{L} = \tfrac12\|\Sigma_{yx} - W_2W_1\|_F^2$ (inputs whitened)."
    ),
    Panel(
        "kernel",
        "Kernel distance S(0, t)",
        r"$S(0,t) = 1 - \dfrac{\langle K_0, K_t\rangle_F}{\|K_0\|_F\|K_t\|_F}$ with the NTK "
        r"$K = W_2W_2^\top \otimes I + I \otimes W_1^\top W_1$. Near 0: lazy; large: rich.",
    ),
    Panel(
        "function",
        "Network function W₂W₁",
        r"$W_2W_1$ at the time of the scrubber (rows: outputs, columns: inputs); it tends to "
        r"$\Sigma_{yx}$ (or its best rank-$h$ approximation).",
        height=340,
    ),
    Panel(
        "rsm_in",
        "Input similarity W₁ᵀW₁",
        r"$W_1^\top W_1$: how the first layer represents the inputs. It ends at $\tfrac12\left("
        r"-\lambda I + \sqrt{\lambda^2 I + 4\Sigma_{yx}^\top\Sigma_{yx}}\right)$ on the learned "
        r"directions: the task's structure at $\lambda = 0$, $\approx |\lambda| I$ (task-agnostic, "
        r"lazy) for $\lambda \ll 0$, small but structured "
        r"($\approx \Sigma_{yx}^\top\Sigma_{yx}/\lambda$) for $\lambda \gg 0$.",
        height=340,
    ),
    Panel(
        "rsm_out",
        "Output similarity W₂W₂ᵀ",
        r"$W_2W_2^\top$: how the read-out represents the outputs. It ends at $\tfrac12\left("
        r"\lambda I + \sqrt{\lambda^2 I + 4\Sigma_{yx}\Sigma_{yx}^\top}\right)$ on the learned "
        r"directions: the task's structure at $\lambda = 0$, $\approx \lambda I$ (task-agnostic, "
        r"lazy) for $\lambda \gg 0$, small but structured "
        r"($\approx \Sigma_{yx}\Sigma_{yx}^\top/|\lambda|$) for $\lambda \ll 0$.",
        height=340,
    ),
)

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


# -- the network and its initialisation ---------------------------------------------------


def network(values: Mapping[str, Any]) -> tuple[tuple[int, int, int], list[str]]:
    """The sizes (d_in, h, d_out) actually used, and a message for every adjustment.

    The named shapes, the hierarchical task, the sign of λ and the task-aligned start each
    constrain the sizes; instead of failing, the offending size is changed and the change said.
    """
    d_in, hidden, d_out = requested = values["d_in"], values["hidden"], values["d_out"]
    shape, lam = values["shape"], values["lam"]
    notes = []
    if values["task"] == "hierarchy":
        size = HIERARCHY_SIZE
        d_in = d_out = size
        reason = ""
        if shape in ("funnel", "inverted funnel"):
            reason = f" (a {shape} is impossible with equal input and output sizes)"
            shape = "square"
        if shape == "square":
            hidden = size
        if (d_in, hidden, d_out) != requested:
            notes.append(
                f"The semantic hierarchy has {size} items and {size} features{reason}: "
                f"using {d_in} → {hidden} → {d_out}."
            )
    else:
        before = (d_in, hidden, d_out)
        if shape == "square" and not d_in == hidden == d_out:
            d_in = d_out = hidden
            rule = "d_in = h = d_out"
        elif shape == "funnel" and not d_in > hidden >= d_out:
            hidden = min(hidden, MAX_DIM - 1)
            d_in, d_out = max(d_in, hidden + 1), min(d_out, hidden)
            rule = "d_in > h ≥ d_out"
        elif shape == "inverted funnel" and not d_in <= hidden < d_out:
            hidden = min(hidden, MAX_DIM - 1)
            d_in, d_out = min(d_in, hidden), max(d_out, hidden + 1)
            rule = "d_in ≤ h < d_out"
        if (d_in, hidden, d_out) != before:
            notes.append(f"A {shape} network needs {rule}: using {d_in} → {hidden} → {d_out}.")
    if lam > 0 and hidden > d_out:
        notes.append(f"λ > 0 needs h ≤ d_out (W₂ᵀW₂ = W₁W₁ᵀ + λI has rank h): using h = {d_out}.")
        hidden = d_out
    elif lam < 0 and hidden > d_in:
        notes.append(f"λ < 0 needs h ≤ d_in (W₁W₁ᵀ = W₂ᵀW₂ − λI has rank h): using h = {d_in}.")
        hidden = d_in
    elif lam == 0 and hidden > max(d_in, d_out):
        notes.append(
            f"A balanced network needs h ≤ max(d_in, d_out): using h = {max(d_in, d_out)}."
        )
        hidden = max(d_in, d_out)
    if values["init"] == "aligned" and hidden > min(d_in, d_out):
        notes.append(
            f"A task-aligned start needs h ≤ min(d_in, d_out): using h = {min(d_in, d_out)}."
        )
        hidden = min(d_in, d_out)
    return (d_in, hidden, d_out), notes


def task(values: Mapping[str, Any], d_in: int, d_out: int) -> np.ndarray:
    if values["task"] == "hierarchy":
        return lb.hierarchical_task()
    return lb.random_task(d_in, d_out, np.random.default_rng([values["seed"], 0]))


def initial_weights(values: Mapping[str, Any], dims: tuple[int, int, int], sigma_yx: np.ndarray):
    d_in, hidden, d_out = dims
    if values["init"] == "aligned":  # each of the h modes starts at scale/√h: ‖W₂W₁‖ = scale
        return lb.task_aligned_init(
            sigma_yx, hidden, values["lam"], values["scale"] / math.sqrt(hidden)
        )
    return lb.balanced_init(
        d_in,
        hidden,
        d_out,
        values["lam"],
        values["scale"],
        np.random.default_rng([values["seed"], 1]),
    )


def _arrays(path) -> dict[str, np.ndarray]:
    return {
        "t": path.t,
        "singular_values": path.singular_values,
        "loss": path.loss,
        "kernel_distance": path.kernel_distance,
        "function": path.function,
        "rsm_in": path.rsm_in,
        "rsm_out": path.rsm_out,
    }


def compute(values: Mapping[str, Any]) -> dict:
    dims, notes = network(values)
    sigma_yx = task(values, dims[0], dims[2])
    W1, W2 = initial_weights(values, dims, sigma_yx)
    t = fig.plot_times(values["horizon"], values["log_time"], CURVE_POINTS)
    if values["log_time"]:  # the kernel distance is measured from t = 0
        t = np.concatenate([[0.0], t])
    path = lb.exact(W1, W2, sigma_yx, t)
    result = {
        "exact": _arrays(path),
        "dims": dims,
        "notes": notes,
        "sigma_yx": sigma_yx,
        "task_singular_values": np.linalg.svd(sigma_yx, compute_uv=False),
        "saddle_margin": path.saddle_margin,
        "descent": None,
        "descent_note": None,
    }
    if values["descent"]:
        steps = math.ceil(values["horizon"] / values["lr"])
        if steps > MAX_DESCENT_STEPS:
            result["descent_note"] = (
                f"Gradient descent is limited to {MAX_DESCENT_STEPS:,} steps: with step size "
                f"{values['lr']:g} it reaches t = {MAX_DESCENT_STEPS * values['lr']:.3g}, "
                "not the horizon."
            )
            steps = MAX_DESCENT_STEPS
        run = lb.gradient_descent(W1, W2, sigma_yx, values["lr"], steps, every=max(1, steps // 300))
        result["descent"] = _arrays(run) | {"diverged_at": run.diverged_at}
    return result


# -- figures -------------------------------------------------------------------------------


def labels(values: Mapping[str, Any], dims: tuple[int, int, int]) -> tuple[list[str], list[str]]:
    """Names of the inputs and of the outputs (the tree's items and features for the hierarchy)."""
    if values["task"] == "hierarchy":
        return list(lb.HIERARCHY_ITEMS), list(lb.HIERARCHY_FEATURES)
    return [f"x{i + 1}" for i in range(dims[0])], [f"y{i + 1}" for i in range(dims[2])]


def _heatmap(
    z_stack: np.ndarray, x_labels: list[str], y_labels: list[str], long_labels: bool
) -> dict:
    limit = float(np.max(np.abs(z_stack))) or 1.0
    figure = fig.heatmap(
        z_stack[0], x_labels=x_labels, y_labels=y_labels, title="", limit=limit, height=340
    )
    figure["layout"]["margin"] = {
        "l": 130 if long_labels else 40,
        "r": 10,
        "t": 10,
        "b": 120 if long_labels else 40,
    }
    figure["layout"]["title"] = None
    return figure


def _inside(descent: dict, bound: float) -> np.ndarray:
    """Recorded steps before the run first leaves the plot (singular values above ``bound``):
    drawing a runaway run would squash the exact curves, and overflow float32."""
    return np.cumprod(np.all(descent["singular_values"] <= bound, axis=1)).astype(bool)


def render(values: Mapping[str, Any], result: dict) -> Rendered:
    exact = result["exact"]
    log_time = values["log_time"]
    shown = exact["t"] > 0 if log_time else np.ones(len(exact["t"]), dtype=bool)
    t = exact["t"][shown]
    frames_index = np.flatnonzero(shown)[fig.thin(len(t), FRAMES)]
    dims = result["dims"]
    d_in, hidden, d_out = dims
    sigma = result["task_singular_values"]
    descent = result["descent"]
    bound = 10.0 * max(float(np.max(exact["singular_values"])), float(sigma[0]), 1e-3)
    if descent is not None:
        inside = _inside(descent, bound)
        steps = inside & (descent["t"] > 0) if log_time else inside

    messages = list(result["notes"])
    if result["descent_note"]:
        messages.append(result["descent_note"])
    if descent is not None:
        if descent["diverged_at"] is not None or not inside.all():
            what = (
                f"diverged at step {descent['diverged_at']}"
                if descent["diverged_at"] is not None
                else f"ran away from t = {descent['t'][np.argmin(inside)]:.3g} on"
            )
            messages.append(
                f"Gradient descent {what}: step size {values['lr']:g} is too large for these "
                "weights (try one below 1/(|λ| + largest σ)); its markers stop where it leaves "
                "the plot."
            )
    if result["saddle_margin"] < SADDLE_MARGIN:
        messages.append(
            "This start lies on the stable manifold of a saddle: the exact flow stalls there, "
            "while any simulation (gradient descent included) escapes after a delay set by "
            "rounding. Change the seed or move λ away from 0."
        )

    # shapes take data coordinates on a log axis too (unlike annotations)
    cursor = [fig.cursor_line(float(t[0]))]
    rank = min(hidden, d_in, d_out)
    colours = fig.colors_for(-np.arange(rank)) if rank > 1 else [fig.COLORS["exact"]]
    singular = exact["singular_values"][shown]
    data = []
    for i in range(rank):
        group = f"mode {i + 1}"
        data.append(fig.exact_trace(t, singular[:, i], f"s{i + 1}", colours[i], group=group))
        data.append(
            fig.exact_trace(
                [t[0], t[-1]],
                [sigma[i], sigma[i]],
                f"task σ{i + 1}",
                colours[i],
                dash="dash",
                group=group,
                show_legend=False,
                width=1.3,
            )
        )
    if descent is not None:
        for i in range(rank):
            data.append(
                fig.descent_trace(
                    descent["t"][steps],
                    descent["singular_values"][steps, i],
                    group="gradient descent",
                    show_legend=i == 0,
                )
            )
    figures = {
        "singular": fig.figure(
            data,
            log_x=log_time,
            shapes=cursor,
            height=320,
            yaxis=fig.axis("singular value", automargin=True),
        )
    }

    def over_time(quantity: str, y_title: str, log_y: bool = False) -> dict:
        # A log axis cannot show 0, and below ~1e-28 of the largest value only rounding is left.
        floor = 1e-28 * float(np.max(exact[quantity])) if log_y else -np.inf
        data = [fig.exact_trace(t, np.maximum(exact[quantity][shown], floor), "exact")]
        if descent is not None:
            data.append(
                fig.descent_trace(descent["t"][steps], np.maximum(descent[quantity][steps], floor))
            )
        return fig.figure(
            data,
            log_x=log_time,
            log_y=log_y,
            shapes=cursor,
            yaxis=fig.axis(y_title, log=log_y, automargin=True),
        )

    figures["loss"] = over_time("loss", "loss", log_y=True)
    figures["kernel"] = over_time("kernel_distance", "S(0, t)")

    inputs, outputs = labels(values, dims)
    long_labels = values["task"] == "hierarchy"
    matrices = {
        "function": (inputs, outputs),
        "rsm_in": (inputs, inputs),
        "rsm_out": (outputs, outputs),
    }
    heatmaps = {}
    for name, (x_labels, y_labels) in matrices.items():
        stack = exact[name][frames_index]
        figures[name] = _heatmap(stack, x_labels, y_labels, long_labels)
        # typed arrays: smaller than nested lists, and far cheaper for Dash to serialise
        heatmaps[name] = [fig.pack(matrix) for matrix in stack]

    frames_t = fig.rounded(exact["t"][frames_index])
    frames = {
        "t": frames_t,
        "order": [p.graph for p in PANELS],
        "lines": {name: frames_t for name in ("singular", "loss", "kernel")},
        "heatmaps": heatmaps,
    }
    return Rendered(
        figures=figures, summary=_summary(values, result), messages=messages, frames=frames
    )


# -- summary -------------------------------------------------------------------------------


def regime(kind: str, lam: float, sigma_max: float) -> str:
    """The regime Dominé et al. predict for this architecture and relative scale."""
    if abs(lam) <= 0.5 * sigma_max:
        return (
            "near balance — rich: sigmoidal singular values and a moving kernel "
            "(from a small scale)"
        )
    strong = abs(lam) > 2 * sigma_max
    lazy = "lazy: exponential singular values, the kernel hardly moves"
    delayed = "delayed rich: a lazy phase, then the kernel changes late"
    if kind == "funnel":
        text = lazy if lam > 0 else delayed
    elif kind == "inverted funnel":
        text = delayed if lam > 0 else lazy
    elif kind == "square":
        layer = "W₁ (W₂W₂ᵀ ≈ λI)" if lam > 0 else "W₂ (W₁ᵀW₁ ≈ |λ|I)"
        text = f"lazy, the task's structure learnt in {layer} only"
    else:
        text = "lazy at first, rich learning possibly delayed (a bottleneck: neither funnel)"
    return text if strong else "between rich and " + text


def _summary(values: Mapping[str, Any], result: dict) -> html.Div:
    exact = result["exact"]
    d_in, hidden, d_out = result["dims"]
    kind = lb.shape_kind(d_in, hidden, d_out)
    sigma = result["task_singular_values"]
    best = 0.5 * float(np.sum(sigma[hidden:] ** 2))
    margin = result["saddle_margin"]
    items = [
        ("λ", f"{values['lam']:g}"),
        ("network", f"{kind if kind != 'other' else 'bottleneck'}, {d_in} → {hidden} → {d_out}"),
        ("expected regime", regime(kind, values["lam"], float(sigma[0]))),
        (
            "final loss",
            f"{exact['loss'][-1]:.3g}"
            + (f" (best possible with h = {hidden}: {best:.3g})" if best > 0 else ""),
        ),
        ("largest S(0, t)", f"{np.max(exact['kernel_distance']):.3g}"),
    ]
    if margin < SADDLE_MARGIN:
        items.append(
            (
                "warning",
                f"saddle margin {margin:.1e}: the start lies on a saddle's stable "
                "manifold, so the exact flow stalls at the saddle",
            )
        )
    return components.facts(items)


def export(values: Mapping[str, Any], result: dict) -> dict[str, dict[str, np.ndarray]]:
    columns = ("t", "singular_values", "loss", "kernel_distance", "function", "rsm_in", "rsm_out")
    return trajectory_tables(
        columns, {"exact": result["exact"], "gradient descent": result["descent"]}
    )


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
    spec=SPEC,
    panels=PANELS,
    presets=PRESETS,
    compute=compute,
    render=render,
    export=export,
    groups=GROUPS,
)
