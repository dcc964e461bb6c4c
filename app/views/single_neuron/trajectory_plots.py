"""The single-neuron view's plots, one function each: the parameter space with the δ-surface,
function space, and μ, φ, S(0, t) and the loss over time."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from solvers import single_neuron as sn

from ...core.panel import Figure, Panel
from ...ui import figures as fig

if TYPE_CHECKING:
    from .trajectory import Controls, Run

#: gradient-descent markers drawn in the 3-D scene (each costs a software-rendered sprite)
SCENE_MARKERS = 80


#: the 3-D box's half-widths are taken from this ladder (ten to a decade): a slider's step
#: seldom changes them, and the scene then keeps its axes — plotly rebuilds a 3-D axis's
#: tick labels (text traced into triangles) whenever its range changes
BOX_STEPS_PER_DECADE = 10


def _on_ladder(extent: float) -> float:
    """The ladder's first value at or above ``extent``."""
    rung = math.ceil(BOX_STEPS_PER_DECADE * math.log10(extent) - 1e-9)
    return 10.0 ** (rung / BOX_STEPS_PER_DECADE)


def _extents(run: Run) -> tuple[float, float]:
    """Half-widths of the 3-D box: the path with a margin of a quarter (at least 0.5), up to
    a quarter more to the ladder's next rung."""
    w, a = run.exact.w, run.exact.a
    extent_w = 1.25 * max(float(np.max(np.hypot(w[:, 0], w[:, 1]))), 0.5)
    extent_a = 1.25 * max(float(np.max(np.abs(a))), 0.5)
    return _on_ladder(extent_w), _on_ladder(extent_a)


def _surface_traces(run: Run, extent_w: float, extent_a: float) -> list[dict]:
    setup = run.setup
    sheets = sn.level_set(
        run.exact.delta,
        setup.beta_star,
        extent_w,
        extent_a,
        eta_a=setup.eta_a,
        eta_w=setup.eta_w,
    )
    return [
        {
            "type": "surface",
            "x": sheet.w1,
            "y": sheet.w2,
            "z": sheet.a,
            "surfacecolor": np.log10(sheet.loss + 1e-3),
            "colorscale": fig.RED_YELLOW_BLUE,
            "showscale": index == 0,
            "opacity": 0.55,
            "hoverinfo": "skip",
            # under the scene: the legend is above it
            "colorbar": fig.colour_bar("log₁₀ loss") | {"y": 0, "yanchor": "bottom"},
            "name": "δ-hyperboloid",
            "showlegend": False,
            "contours": {"z": {"show": False}},
        }
        for index, sheet in enumerate(sheets)
    ]


def _minima_traces(beta_star: np.ndarray, extent_w: float, extent_a: float) -> list[dict]:
    smallest = max(float(np.hypot(*beta_star)) / extent_w, 1e-3)
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


def _path_traces(run: Run) -> list[dict]:
    w, a = run.exact.w, run.exact.a
    traces = [
        {
            "type": "scatter3d",
            "mode": "lines",
            "x": w[:, 0],
            "y": w[:, 1],
            "z": a,
            "line": {"color": fig.COLORS["exact"], "width": 6},
            "name": "exact path",
        },
        {
            "type": "scatter3d",
            "mode": "markers",
            "x": [w[0, 0]],
            "y": [w[0, 1]],
            "z": [a[0]],
            "marker": {"size": 5, "color": fig.COLORS["start"], "symbol": "diamond"},
            "name": "start",
        },
    ]
    if run.descent is not None:
        keep = fig.thin(len(run.descent.t), SCENE_MARKERS)
        traces.append(
            {
                "type": "scatter3d",
                "mode": "markers",
                "x": run.descent.w[keep, 0],
                "y": run.descent.w[keep, 1],
                "z": run.descent.a[keep],
                "name": "gradient descent",
                "marker": {"size": 3, "color": fig.COLORS["descent"], "symbol": "circle-open"},
            }
        )
    traces.append(fig.cursor_point(w[0, 0], w[0, 1], a[0]))
    return traces


def draw_surface(controls: Controls, run: Run) -> Figure:
    extent_w, extent_a = _extents(run)
    data = _surface_traces(run, extent_w, extent_a)
    data += _minima_traces(run.setup.beta_star, extent_w, extent_a)
    data += _path_traces(run)
    scene_axis = {"gridcolor": fig.COLORS["grid"], "zeroline": False}
    return {
        "data": data,
        "layout": {
            "font": fig.FONT,
            "height": 420,
            "margin": {"l": 0, "r": 0, "t": 10, "b": 0},
            # above the scene, in rows (inside it, its box hid a corner of the surface)
            "legend": dict(fig.LEGEND),
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


def _series(run: Run) -> list[tuple[str, sn.SingleNeuronTrajectory, str]]:
    """(legend name, path, colour) of every exact curve: one, or one per compared δ."""
    if not run.compare:
        return [("exact", run.exact, fig.COLORS["exact"])]
    colours = fig.colors_for([c.delta for c in run.compare])
    return [
        (f"δ = {c.delta:g}", c.path, colour) for c, colour in zip(run.compare, colours, strict=True)
    ]


def _marker(x: float, y: float, text: str, symbol: str, size: int, colour: str, where: str):
    return {
        "type": "scatter",
        "mode": "markers+text",
        "x": [x],
        "y": [y],
        "text": [text],
        "textposition": where,
        "marker": {"symbol": symbol, "size": size, "color": colour},
        "name": text,
        "showlegend": False,
    }


def draw_function(controls: Controls, run: Run) -> Figure:
    beta_star, beta0 = run.setup.beta_star, run.exact.beta[0]
    data = [
        fig.exact_trace(
            [beta0[0], beta_star[0]],
            [beta0[1], beta_star[1]],
            "gradient flow on β",
            fig.COLORS["kernel"],
            dash="dash",
            width=1.5,
        )
    ]
    for name, path, colour in _series(run):
        data.append(fig.exact_trace(path.beta[:, 0], path.beta[:, 1], name, colour))
    if run.descent is not None:
        data.append(fig.descent_trace(run.descent.beta[:, 0], run.descent.beta[:, 1]))
    data += [
        _marker(*beta_star, "β*", "star", 14, fig.COLORS["target"], "top center"),
        _marker(*beta0, "β₀", "diamond", 9, fig.COLORS["start"], "bottom center"),
        fig.cursor_point(beta0[0], beta0[1]),
    ]
    # room around the points for their names (β* sat on the edge, its name cut off)
    x_range, y_range = _padded(data)
    return fig.figure(
        data,
        x_title="β₁",
        y_title="β₂",
        height=300,
        xaxis=fig.axis("β₁", range=x_range),
        yaxis=fig.axis("β₂", range=y_range, scaleanchor="x", scaleratio=1),
    )


def _padded(data: list[dict], share: float = 0.18) -> tuple[list[float], list[float]]:
    """x and y ranges over every point of ``data``, widened by ``share`` of the larger span."""
    xs = np.concatenate([np.asarray(t["x"], dtype=float).ravel() for t in data])
    ys = np.concatenate([np.asarray(t["y"], dtype=float).ravel() for t in data])
    xs, ys = xs[np.isfinite(xs)], ys[np.isfinite(ys)]
    pad = share * max(np.ptp(xs), np.ptp(ys), 1e-6)
    return (
        [float(xs.min() - pad), float(xs.max() + pad)],
        [float(ys.min() - pad), float(ys.max() + pad)],
    )


def _over_time(
    controls: Controls,
    run: Run,
    quantity: str,
    y_title: str,
    log_y: bool = False,
    y_range: list[float] | None = None,
):
    # A log axis cannot show 0, and below ~1e-28 of the largest value only rounding is left.
    floor = 1e-28 * float(np.max(getattr(run.exact, quantity))) if log_y else -np.inf
    data = [
        fig.exact_trace(path.t, np.maximum(getattr(path, quantity), floor), name, colour)
        for name, path, colour in _series(run)
    ]
    descent = run.descent
    if descent is not None:
        keep = descent.t > 0 if controls.log_time else slice(None)
        values = np.maximum(getattr(descent, quantity)[keep], floor)
        data.append(fig.descent_trace(descent.t[keep], values))
    cursor = [fig.cursor_line(float(run.exact.t[0]))]  # shapes sit in data units, log or not
    extra = {"yaxis": fig.axis(y_title, range=y_range)} if y_range else {}
    return fig.figure(
        data, y_title=y_title, log_x=controls.log_time, log_y=log_y, shapes=cursor, **extra
    )


def draw_mu(controls: Controls, run: Run) -> Figure:
    return _over_time(controls, run, "mu", "μ")


def draw_phi(controls: Controls, run: Run) -> Figure:
    # a cosine: on its whole range, so that a small turn looks small
    return _over_time(controls, run, "phi", "φ", y_range=fig.COSINE_RANGE)


def draw_kernel(controls: Controls, run: Run) -> Figure:
    # S on its whole range [0, 1]: a lazy run's 0.01 stays flat beside a rich run's 0.7
    return _over_time(controls, run, "kernel_distance", "S(0, t)", y_range=fig.UNIT_RANGE)


def draw_loss(controls: Controls, run: Run) -> Figure:
    return _over_time(controls, run, "loss", "loss", log_y=True)


PANELS = (
    Panel(
        "surface",
        "Parameter space (w₁, w₂, a)",
        r"The conserved quantity $\delta = \eta_w a^2 - \eta_a \|w\|^2$ keeps the parameters on a "
        r"hyperboloid (two sheets for $\delta>0$, a cone for $\delta=0$, one sheet for "
        r"$\delta<0$). "
        r"The surface is coloured by the loss; the green curves are the minima $a\,w = \beta_*$.",
        draw_surface,
        height=420,
        wide=True,
    ),
    Panel(
        "function",
        "Function space β = a w",
        r"The learned function $\beta(t) = a(t)\,w(t)$. The dashed line is plain gradient flow on "
        r"$\beta$ — the lazy limit $\delta \to +\infty$.",
        draw_function,
    ),
    Panel(
        "mu",
        "Scale μ = a‖w‖",
        r"$\mu = a\|w\|$: the size of the function. Downstream it first collapses towards 0.",
        draw_mu,
    ),
    Panel(
        "phi",
        "Alignment φ",
        r"$\phi = \dfrac{w^\top \beta_*}{\|w\|\,\|\beta_*\|}$: how well the hidden neuron points "
        r"at the target.",
        draw_phi,
    ),
    Panel(
        "kernel",
        "Kernel distance S(0, t)",
        r"$S(0,t) = 1 - \dfrac{\langle M_0, M_t\rangle_F}{\|M_0\|_F\|M_t\|_F}$ with the NTK "
        r"$M = \eta_w a^2 I + \eta_a w w^\top$. Near 0: lazy; large: rich.",
        draw_kernel,
    ),
    Panel("loss", "Loss", r"$\mathcal{L} = \tfrac12\|\beta - \beta_*\|^2$.", draw_loss),
)
