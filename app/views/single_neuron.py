"""Single hidden neuron (Kunin et al., *Get rich quick*): the conserved δ and its hyperboloid."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from dash import html

from solvers import single_neuron as sn

from .. import components
from .. import figures as fig
from ..state import Field, StateSpec
from ..view import Panel, Preset, Rendered, View, trajectory_tables

#: hard caps that keep one request cheap whatever it asks for
MAX_DESCENT_STEPS = 20_000
CURVE_POINTS = 400
FRAMES = 120

SPEC = StateSpec(
    (
        Field(
            "mode",
            "Mode",
            "choice",
            "single",
            choices=("single", "compare"),
            choice_labels=("one δ", "compare δ (Fig. 3)"),
        ),
        Field(
            "delta",
            "relative scale δ",
            "float",
            0.0,
            -20.0,
            20.0,
            step=0.1,
            help="δ = η_w a² − η_a‖w‖², conserved: > 0 upstream, 0 balanced, < 0 downstream",
        ),
        Field(
            "tau",
            "initial scale τ  (‖β₀‖ = τ²)",
            "float",
            1.0,
            0.03,
            3.0,
            log=True,
            help="Size of the function at initialisation",
        ),
        Field("init_angle", "direction of β₀ (°)", "float", 180.0, -180.0, 180.0, step=1.0),
        Field("sign", "sign of a₀", "choice", 1, choices=(1, -1), choice_labels=("+", "−")),
        Field("target_norm", "target size ‖β*‖", "float", 1.0, 0.1, 5.0, step=0.05),
        Field("target_angle", "direction of β* (°)", "float", 90.0, -180.0, 180.0, step=1.0),
        Field(
            "eta_ratio",
            "learning-rate ratio η_a/η_w",
            "float",
            1.0,
            0.01,
            100.0,
            log=True,
            help="η_a η_w = 1; the ratio shifts the balance like δ does",
        ),
        Field("spread", "compare: largest |δ|", "float", 10.0, 0.1, 100.0, log=True),
        Field("horizon", "time horizon", "float", 20.0, 0.5, 1000.0, log=True),
        Field("log_time", "logarithmic time axis", "bool", False),
        Field("descent", "show gradient descent", "bool", True),
        Field("lr", "gradient-descent step size", "float", 0.05, 0.001, 2.0, log=True),
    )
)

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
        "Fig. 2a — downstream, one-sheeted hyperboloid",
        "δ < 0: the path lies on a one-sheeted hyperboloid and may cross a = 0.",
        {**FIG3, "delta": -2.0, "horizon": 20.0},
    ),
    Preset(
        "Fig. 2b — balanced, double cone",
        "δ = 0: the path stays on a cone through the origin (a saddle).",
        {**FIG3, "delta": 0.0},
    ),
    Preset(
        "Fig. 2c — upstream, two-sheeted hyperboloid",
        "δ > 0: two sheets; a keeps its sign.",
        {**FIG3, "delta": 2.0},
    ),
    Preset(
        "Fig. 3 — μ, φ and S for several δ",
        "Same start and end for every δ: upstream lazy, balanced rich, downstream delayed rich.",
        {**FIG3, "mode": "compare", "spread": 10.0, "horizon": 20.0, "descent": False},
    ),
    Preset(
        "Fig. 4a — β paths for several δ",
        "Upstream follows the straight line from β₀ to β*; downstream first shrinks along β₀.",
        {**FIG3, "mode": "compare", "spread": 3.0, "horizon": 30.0, "descent": False},
    ),
    Preset(
        "Lazy: strongly upstream",
        "δ = 20: φ aligns at once, the kernel hardly moves.",
        {**FIG3, "delta": 20.0},
    ),
    Preset(
        "Delayed rich: downstream",
        "δ = −5: a long plateau, then a sudden change of the kernel.",
        {**FIG3, "delta": -5.0, "horizon": 30.0},
    ),
    Preset(
        "Rich from a small initialisation",
        "Balanced and small (τ = 0.1): a saddle-to-saddle plateau, then rich learning.",
        {**FIG3, "delta": 0.0, "tau": 0.1, "init_angle": 135.0},
    ),
)

PANELS = (
    Panel(
        "surface",
        "Parameter space (w₁, w₂, a)",
        r"The conserved quantity $\delta = \eta_w a^2 - \eta_a \|w\|^2$ keeps the parameters on a "
        r"hyperboloid (two sheets for $\delta>0$, a cone for $\delta=0$, one sheet for "
        r"$\delta<0$). "
        r"The surface is coloured by the loss; the green curves are the minima $a\,w = \beta_*$.",
        height=420,
        wide=True,
    ),
    Panel(
        "function",
        "Function space β = a w",
        r"The learned function $\beta(t) = a(t)\,w(t)$. The dashed line is plain gradient flow on "
        r"$\beta$ — the lazy limit $\delta \to +\infty$.",
    ),
    Panel(
        "mu",
        "Scale μ = a‖w‖",
        r"$\mu = a\|w\|$: the size of the function. Downstream it first collapses towards 0.",
    ),
    Panel(
        "phi",
        "Alignment φ",
        r"$\phi = \dfrac{w^\top \beta_*}{\|w\|\,\|\beta_*\|}$: how well the hidden neuron points "
        r"at the target.",
    ),
    Panel(
        "kernel",
        "Kernel distance S(0, t)",
        r"$S(0,t) = 1 - \dfrac{\langle M_0, M_t\rangle_F}{\|M_0\|_F\|M_t\|_F}$ with the NTK "
        r"$M = \eta_w a^2 I + \eta_a w w^\top$. Near 0: lazy; large: rich.",
    ),
    Panel("loss", "Loss", r"$\mathcal{L} = \tfrac12\|\beta - \beta_*\|^2$."),
)

INTRO = (
    r"One hidden neuron, $f(x) = a\,w^\top x$, trained by gradient flow on whitened data. "
    r"Whether it learns *lazily* or *richly* is decided by the conserved $\delta$: upstream "
    r"($\delta>0$, large read-out) is lazy, balanced ($\delta=0$) is rich, downstream "
    r"($\delta<0$) is lazy first and rich later. Every curve is the exact solution; open circles "
    r"are a real gradient-descent run."
)


def _unit(degrees: float) -> np.ndarray:
    radians = math.radians(degrees)
    return np.array([math.cos(radians), math.sin(radians)])


def _setup(values: Mapping[str, Any], delta: float):
    eta_a = math.sqrt(values["eta_ratio"])
    eta_w = 1.0 / eta_a
    beta_star = values["target_norm"] * _unit(values["target_angle"])
    direction = _unit(values["init_angle"])
    a0, w0 = sn.init_from_norm_delta(
        values["tau"] ** 2, delta, direction, eta_a=eta_a, eta_w=eta_w, sign=values["sign"]
    )
    return a0, w0, beta_star, eta_a, eta_w


def compare_deltas(values: Mapping[str, Any]) -> list[float]:
    spread = values["spread"]
    return [-spread, -spread / 10, 0.0, spread / 10, spread]


def _path_arrays(path) -> dict[str, np.ndarray]:
    return {
        "t": path.t,
        "a": path.a,
        "w": path.w,
        "beta": path.beta,
        "mu": path.mu,
        "phi": path.phi,
        "loss": path.loss,
        "kernel_distance": path.kernel_distance,
    }


def compute(values: Mapping[str, Any]) -> dict:
    t = fig.plot_times(values["horizon"], values["log_time"], CURVE_POINTS)
    a0, w0, beta_star, eta_a, eta_w = _setup(values, values["delta"])
    path = sn.exact(a0, w0, beta_star, t, eta_a=eta_a, eta_w=eta_w)
    result = {
        "exact": _path_arrays(path),
        "beta_star": beta_star,
        "delta": path.delta,
        "eta": (eta_a, eta_w),
        "basin": sn.basin(a0, w0, beta_star, eta_a=eta_a, eta_w=eta_w),
        "saddle_margin": path.saddle_margin,
        "descent": None,
        "descent_note": None,
        "compare": [],
    }
    if values["mode"] == "compare":
        for delta in compare_deltas(values):
            a, w, target, ea, ew = _setup(values, delta)
            result["compare"].append(
                (delta, _path_arrays(sn.exact(a, w, target, t, eta_a=ea, eta_w=ew)))
            )
    elif values["descent"]:
        steps = math.ceil(values["horizon"] / values["lr"])
        if steps > MAX_DESCENT_STEPS:
            result["descent_note"] = (
                f"Gradient descent is limited to {MAX_DESCENT_STEPS:,} steps: with step size "
                f"{values['lr']:g} it reaches t = {MAX_DESCENT_STEPS * values['lr']:.3g}, "
                "not the horizon."
            )
            steps = MAX_DESCENT_STEPS
        run = sn.gradient_descent(
            a0,
            w0,
            beta_star,
            values["lr"],
            steps,
            eta_a=eta_a,
            eta_w=eta_w,
            every=max(1, steps // 400),
        )
        result["descent"] = _path_arrays(run) | {"diverged_at": run.diverged_at}
    return result


# -- figures -----------------------------------------------------------------------------


def _surface_traces(
    delta: float,
    eta_a: float,
    eta_w: float,
    extent_w: float,
    extent_a: float,
    beta_star: np.ndarray,
) -> list[dict]:
    """The level set η_w a² − η_a‖w‖² = δ inside the box, coloured by the loss."""
    angle = np.linspace(0, 2 * np.pi, 48)
    sheets = []
    if delta > 0:  # two sheets, parametrised by the radius of w
        radius = np.linspace(0, extent_w, 28)
        height = np.sqrt((delta + eta_a * radius**2) / eta_w)
        for sign in (1, -1):
            sheets.append(
                (
                    radius[:, None] * np.ones_like(angle),
                    sign * height[:, None] * np.ones_like(angle),
                )
            )
    else:  # one sheet or the cone, parametrised by a
        height = np.linspace(-extent_a, extent_a, 41)
        radius = np.sqrt(np.maximum((eta_w * height**2 - delta) / eta_a, 0.0))
        sheets.append(
            (radius[:, None] * np.ones_like(angle), height[:, None] * np.ones_like(angle))
        )
    traces = []
    for index, (radius, height) in enumerate(sheets):
        w1, w2 = radius * np.cos(angle), radius * np.sin(angle)
        loss = 0.5 * ((height * w1 - beta_star[0]) ** 2 + (height * w2 - beta_star[1]) ** 2)
        inside = (radius <= extent_w * 1.0001) & (np.abs(height) <= extent_a * 1.0001)
        traces.append(
            {
                "type": "surface",
                "x": np.where(inside, w1, np.nan),
                "y": np.where(inside, w2, np.nan),
                "z": np.where(inside, height, np.nan),
                "surfacecolor": np.log10(loss + 1e-3),
                "colorscale": "RdYlBu",
                "showscale": index == 0,
                "opacity": 0.55,
                "hoverinfo": "skip",
                "colorbar": {"title": {"text": "log₁₀ loss"}, "thickness": 10, "len": 0.6},
                "name": "δ-hyperboloid",
                "showlegend": False,
                "contours": {"z": {"show": False}},
            }
        )
    return traces


def _manifold_traces(beta_star: np.ndarray, extent_w: float, extent_a: float) -> list[dict]:
    norm = float(np.linalg.norm(beta_star))
    smallest = max(norm / extent_w, 1e-3)
    if smallest >= extent_a:
        return []
    a = np.geomspace(smallest, extent_a, 60)
    traces = []
    for sign in (1, -1):
        w = sn.minima_manifold(beta_star, sign * a)
        traces.append(
            {
                "type": "scatter3d",
                "mode": "lines",
                "x": w[:, 0],
                "y": w[:, 1],
                "z": sign * a,
                "line": {"color": fig.COLORS["target"], "width": 5},
                "name": "minima a·w = β*",
                "showlegend": sign == 1,
                "legendgroup": "minima",
                "hoverinfo": "skip",
            }
        )
    return traces


def render(values: Mapping[str, Any], result: dict) -> Rendered:
    exact = result["exact"]
    t = exact["t"]
    log_time = values["log_time"]
    beta_star = result["beta_star"]
    eta_a, eta_w = result["eta"]
    frames_index = fig.thin(len(t), FRAMES)
    messages = []
    descent = result["descent"]
    if result["descent_note"]:
        messages.append(result["descent_note"])
    if descent is not None and descent["diverged_at"] is not None:
        messages.append(
            f"Gradient descent diverged at step {descent['diverged_at']} "
            f"(step size {values['lr']:g} is "
            "too large for this initialisation); its markers stop there."
        )
    if result["saddle_margin"] < 1e-8:
        messages.append(
            "This start lies on the stable manifold of the saddle at the origin: the exact flow "
            "ends there, while any simulation escapes after a delay set by rounding."
        )

    # 3-D parameter space
    w_path, a_path = exact["w"], exact["a"]
    extent_w = 1.25 * max(float(np.max(np.linalg.norm(w_path, axis=1))), 0.5)
    extent_a = 1.25 * max(float(np.max(np.abs(a_path))), 0.5)
    surface = _surface_traces(result["delta"], eta_a, eta_w, extent_w, extent_a, beta_star)
    surface += _manifold_traces(beta_star, extent_w, extent_a)
    surface.append(
        {
            "type": "scatter3d",
            "mode": "lines",
            "x": w_path[:, 0],
            "y": w_path[:, 1],
            "z": a_path,
            "line": {"color": fig.COLORS["exact"], "width": 6},
            "name": "exact path",
        }
    )
    surface.append(
        {
            "type": "scatter3d",
            "mode": "markers",
            "x": [w_path[0, 0]],
            "y": [w_path[0, 1]],
            "z": [a_path[0]],
            "marker": {"size": 5, "color": fig.COLORS["start"], "symbol": "diamond"},
            "name": "start",
        }
    )
    if descent is not None:
        keep = fig.thin(len(descent["t"]), 80)
        surface.append(
            {
                "type": "scatter3d",
                "mode": "markers",
                "x": descent["w"][keep, 0],
                "y": descent["w"][keep, 1],
                "z": descent["a"][keep],
                "name": "gradient descent",
                "marker": {"size": 3, "color": fig.COLORS["descent"], "symbol": "circle-open"},
            }
        )
    surface.append(fig.cursor_point(w_path[0, 0], w_path[0, 1], a_path[0]))
    scene_axis = {"gridcolor": fig.COLORS["grid"], "zeroline": False}
    surface_figure = {
        "data": surface,
        "layout": {
            "font": fig.FONT,
            "height": 420,
            "margin": {"l": 0, "r": 0, "t": 10, "b": 0},
            "legend": {"x": 0, "y": 1, "font": {"size": 11}},
            "uirevision": "keep",
            "scene": {
                "xaxis": {**scene_axis, "title": {"text": "w₁"}, "range": [-extent_w, extent_w]},
                "yaxis": {**scene_axis, "title": {"text": "w₂"}, "range": [-extent_w, extent_w]},
                "zaxis": {**scene_axis, "title": {"text": "a"}, "range": [-extent_a, extent_a]},
                "aspectmode": "cube",
                "camera": {"eye": {"x": 1.5, "y": 1.4, "z": 0.9}},
            },
        },
    }

    compare = result["compare"]
    series = compare if compare else [(None, exact)]
    colours = fig.colors_for([delta for delta, _ in compare]) if compare else [fig.COLORS["exact"]]

    def label(delta):
        return "exact" if delta is None else f"δ = {delta:g}"

    # function space
    beta0 = exact["beta"][0]
    function_data = [
        fig.exact_trace(
            [beta0[0], beta_star[0]],
            [beta0[1], beta_star[1]],
            "gradient flow on β",
            fig.COLORS["kernel"],
            dash="dash",
            width=1.5,
        )
    ]
    for (delta, path), colour in zip(series, colours, strict=True):
        function_data.append(
            fig.exact_trace(path["beta"][:, 0], path["beta"][:, 1], label(delta), colour)
        )
    if descent is not None:
        function_data.append(fig.descent_trace(descent["beta"][:, 0], descent["beta"][:, 1]))
    function_data += [
        {
            "type": "scatter",
            "mode": "markers+text",
            "x": [beta_star[0]],
            "y": [beta_star[1]],
            "text": ["β*"],
            "textposition": "top center",
            "marker": {"symbol": "star", "size": 14, "color": fig.COLORS["target"]},
            "name": "target β*",
            "showlegend": False,
        },
        {
            "type": "scatter",
            "mode": "markers+text",
            "x": [beta0[0]],
            "y": [beta0[1]],
            "text": ["β₀"],
            "textposition": "bottom center",
            "marker": {"symbol": "diamond", "size": 9, "color": fig.COLORS["start"]},
            "name": "start β₀",
            "showlegend": False,
        },
        fig.cursor_point(beta0[0], beta0[1]),
    ]
    function_figure = fig.figure(
        function_data,
        x_title="β₁",
        y_title="β₂",
        height=300,
        yaxis=fig.axis("β₂", scaleanchor="x", scaleratio=1),
    )

    cursor = [fig.cursor_line(float(t[0]))]  # shapes sit in data units, log axis or not

    def over_time(quantity: str, y_title: str, log_y: bool = False) -> dict:
        # A log axis cannot show 0, and below ~1e-28 of the largest value only rounding is left.
        floor = 1e-28 * float(np.max(exact[quantity])) if log_y else -np.inf
        data = []
        for (delta, path), colour in zip(series, colours, strict=True):
            data.append(
                fig.exact_trace(path["t"], np.maximum(path[quantity], floor), label(delta), colour)
            )
        if descent is not None:
            keep = descent["t"] > 0 if log_time else slice(None)
            data.append(
                fig.descent_trace(descent["t"][keep], np.maximum(descent[quantity][keep], floor))
            )
        return fig.figure(data, y_title=y_title, log_x=log_time, log_y=log_y, shapes=cursor)

    figures = {
        "surface": surface_figure,
        "function": function_figure,
        "mu": over_time("mu", "μ"),
        "phi": over_time("phi", "φ"),
        "kernel": over_time("kernel_distance", "S(0, t)"),
        "loss": over_time("loss", "loss", log_y=True),
    }

    frames = {
        "t": fig.rounded(t[frames_index]),
        "order": [p.graph for p in PANELS],
        "cursor": {
            "surface": {
                "x": fig.rounded(w_path[frames_index, 0]),
                "y": fig.rounded(w_path[frames_index, 1]),
                "z": fig.rounded(a_path[frames_index]),
            },
            "function": {
                "x": fig.rounded(exact["beta"][frames_index, 0]),
                "y": fig.rounded(exact["beta"][frames_index, 1]),
            },
        },
        "lines": {name: fig.rounded(t[frames_index]) for name in ("mu", "phi", "kernel", "loss")},
    }
    return Rendered(
        figures=figures, summary=_summary(values, result), messages=messages, frames=frames
    )


def _regime(delta: float, target_norm: float) -> str:
    if delta > 2 * target_norm:
        return "upstream — lazy: the kernel barely moves while w turns towards the target"
    if delta > 0:
        return "mildly upstream — between rich and lazy"
    if delta == 0:
        return "balanced — rich: scale and direction change together"
    if delta > -2 * target_norm:
        return "mildly downstream — rich after a short delay"
    return "downstream — delayed rich: a lazy plateau, then a sudden change of the kernel"


def _summary(values: Mapping[str, Any], result: dict) -> html.Div:
    exact = result["exact"]
    branch = {1: "a > 0", -1: "a < 0", 0: "the saddle at the origin"}[result["basin"]]
    crossing = (
        bool(np.any(np.sign(exact["a"][1:]) != np.sign(exact["a"][0]))) and exact["a"][0] != 0
    )
    items = [
        ("δ", f"{result['delta']:.4g}"),
        ("regime", _regime(result["delta"], values["target_norm"])),
        ("converges to", branch + (" (a changes sign on the way)" if crossing else "")),
        ("final loss", f"{exact['loss'][-1]:.3g}"),
        ("largest S(0, t)", f"{np.max(exact['kernel_distance']):.3g}"),
    ]
    return components.facts(items)


def export(values: Mapping[str, Any], result: dict) -> dict[str, dict[str, np.ndarray]]:
    columns = ("t", "a", "w", "beta", "mu", "phi", "loss", "kernel_distance")
    if result["compare"]:
        return trajectory_tables(
            columns, {f"exact delta={d:g}": path for d, path in result["compare"]}
        )
    return trajectory_tables(
        columns, {"exact": result["exact"], "gradient descent": result["descent"]}
    )


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
    spec=SPEC,
    panels=PANELS,
    presets=PRESETS,
    compute=compute,
    render=render,
    export=export,
    groups=GROUPS,
)
