"""The low-rank view's plots, one function each: the β plane with the paths, the line of
interpolants and Theorem 3.1's end points; the end point's angle from β₀ against δ; the loss
over time."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...core.panel import Figure, Panel
from ...ui import figures as fig

if TYPE_CHECKING:
    from .low_rank import Controls, Run

#: colour of Theorem 3.1's predictions (the paper's black dots)
PREDICTION = "#111"
LIMIT = fig.COLORS["kernel"]


def angle_from(beta: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Angle (°) between each β (…, 2) and a reference direction (2,): how far an end point has
    turned from it."""
    cross = beta[..., 0] * reference[1] - beta[..., 1] * reference[0]
    return np.degrees(np.abs(np.arctan2(cross, beta @ reference)))


def _colours(run: Run) -> list[str]:
    return fig.colors_for([p.delta for p in run.paths])


def _box(run: Run) -> tuple[list[float], list[float]]:
    """x and y ranges holding the paths, the points drawn and the origin, with a margin."""
    points = [run.beta0, run.beta_star, run.upstream, np.zeros(2)]
    points += [p.predicted for p in run.paths]
    if run.downstream is not None:
        points.append(run.downstream)
    stacked = np.concatenate([np.array(points), *[p.beta for p in run.paths]])
    low, high = stacked.min(axis=0), stacked.max(axis=0)
    pad = 0.08 * float(np.max(high - low)) + 1e-3
    return [low[0] - pad, high[0] + pad], [low[1] - pad, high[1] + pad]


def _line_of_interpolants(run: Run, x_range: list[float], y_range: list[float]) -> dict:
    reach = 2.0 * (x_range[1] - x_range[0] + y_range[1] - y_range[0])
    ends = run.beta_star + np.outer([-reach, reach], run.line_direction)
    return fig.exact_trace(
        ends[:, 0], ends[:, 1], "interpolants xᵀβ = y", fig.COLORS["target"], width=1.5
    )


def _points(x, y, name: str, symbol: str, colour: str, size: int = 9, **extra) -> dict:
    return {
        "type": "scatter",
        "mode": "markers",
        "x": np.asarray(x, dtype=float),
        "y": np.asarray(y, dtype=float),
        "name": name,
        "marker": {"symbol": symbol, "size": size, "color": colour, **extra},
        "hovertemplate": "(%{x:.4f}, %{y:.4f})<extra>" + name + "</extra>",
    }


def _label(point: np.ndarray, text: str, symbol: str, colour: str, size: int) -> dict:
    """A marked point named on the plot itself rather than in the legend."""
    trace = _points([point[0]], [point[1]], text, symbol, colour, size)
    trace.update(mode="markers+text", text=[text], textposition="top left", showlegend=False)
    return trace


def _limit(start: np.ndarray, end: np.ndarray, name: str, dash: str) -> dict:
    """A limit's straight path, with an open circle where it ends."""
    trace = fig.exact_trace(*np.stack([start, end]).T, name, LIMIT, dash=dash, width=1.5)
    marker = {"symbol": "circle-open", "size": [0, 10], "color": LIMIT, "line": {"width": 2}}
    trace.update(mode="lines+markers", marker=marker)
    return trace


def _limit_traces(run: Run) -> list[dict]:
    """δ → +∞: straight from β₀ along x; δ → −∞: along β₀'s line (through 0 if it must)."""
    traces = [_limit(run.beta0, run.upstream, "δ = +∞", "dash")]
    if run.downstream is not None and run.downstream_along_start:
        traces.append(_limit(run.beta0, run.downstream, "δ = −∞", "dot"))
    return traces


def _prediction_traces(run: Run) -> list[dict]:
    traces = []
    for crossed, name, symbol in (
        (False, "Theorem 3.1", "circle"),
        (True, "Theorem 3.1 for −β₀", "x"),
    ):
        chosen = np.array([p.predicted for p in run.paths if p.through_zero == crossed])
        if chosen.size:
            traces.append(_points(chosen[:, 0], chosen[:, 1], name, symbol, PREDICTION, 8))
    return traces


def draw_plane(controls: Controls, run: Run) -> Figure:
    x_range, y_range = _box(run)
    data = [_line_of_interpolants(run, x_range, y_range)]
    if controls.limits:
        data += _limit_traces(run)
    for path, colour in zip(run.paths, _colours(run), strict=True):
        data.append(
            fig.exact_trace(path.beta[:, 0], path.beta[:, 1], f"δ = {path.delta:g}", colour)
        )
    data += _prediction_traces(run)
    data.append(_label(run.beta_star, "β*", "star", fig.COLORS["target"], 13))
    data.append(_label(run.beta0, "β₀", "diamond", fig.COLORS["start"], 9))
    cursor = fig.cursor_point(0.0, 0.0)
    cursor["x"] = [float(p.beta[0, 0]) for p in run.paths]
    cursor["y"] = [float(p.beta[0, 1]) for p in run.paths]
    data.append(cursor)
    return fig.figure(
        data,
        x_title="β₁",
        y_title="β₂",
        height=440,
        xaxis=fig.axis("β₁", range=x_range),
        yaxis=fig.axis("β₂", range=y_range, scaleanchor="x", scaleratio=1),
    )


def _limit_levels(run: Run) -> list[dict]:
    """The end points' angles as δ → ±∞, as horizontal lines across the δ axis."""
    span = run.sweep_deltas[[0, -1]]
    down = run.downstream if run.downstream_along_start else None
    levels = []
    for end, name, dash in ((run.upstream, "δ = +∞", "dash"), (down, "δ = −∞", "dot")):
        if end is not None:
            level = float(angle_from(end, run.beta0))
            levels.append(fig.exact_trace(span, [level, level], name, LIMIT, dash=dash, width=1.5))
    return levels


def _theorem_curve(run: Run) -> dict:
    """Theorem 3.1's end point against δ, broken where the flows start passing through β = 0
    (the end point jumps there: in between, a flow stops on the saddle at 0)."""
    angles = angle_from(run.sweep_ends, run.beta0)
    jumps = np.flatnonzero(np.diff(run.sweep_through_zero.astype(int))) + 1
    deltas = np.insert(run.sweep_deltas, jumps, np.nan)
    return fig.exact_trace(deltas, np.insert(angles, jumps, np.nan), "Theorem 3.1", PREDICTION)


def draw_ends(controls: Controls, run: Run) -> Figure:
    data = [_theorem_curve(run)]
    if controls.limits:
        data += _limit_levels(run)
    name = f"flow at t = {controls.horizon:g}"
    for index, (path, colour) in enumerate(zip(run.paths, _colours(run), strict=True)):
        angle = angle_from(path.beta[-1:], run.beta0)
        circle = _points([path.delta], angle, name, "circle-open", colour, 11, line={"width": 2})
        circle.update(legendgroup="flows", showlegend=index == 0)
        data.append(circle)
    return fig.figure(data, x_title="relative scale δ", y_title="angle from β₀ (°)", height=300)


def draw_loss(controls: Controls, run: Run) -> Figure:
    # a log axis cannot show 0: below ~1e-28 of the start only rounding is left
    floor = 1e-28 * max(float(run.paths[0].loss[0]), 1e-300)
    data = [
        fig.exact_trace(p.t, np.maximum(p.loss, floor), f"δ = {p.delta:g}", colour)
        for p, colour in zip(run.paths, _colours(run), strict=True)
    ]
    cursor = [fig.cursor_line(float(run.paths[0].t[0]))]
    return fig.figure(data, y_title="loss", log_y=True, shapes=cursor)


PANELS = (
    Panel(
        "plane",
        "Function space β = a w",
        r"The paths of $\beta(t)$ from one $\beta_0$, one per $\delta$. The green line holds every "
        r"$\beta$ with $x^\top\beta = y$ — all of them fit the data. Black dots: where Kunin et "
        r"al.'s Theorem 3.1 says each flow ends, the interpolant minimising "
        r"$\Psi_\delta(\beta) - \psi_\delta\,\hat\beta_0^\top\beta$. Grey: the limits, "
        r"$\delta \to +\infty$ (straight along $x$, as gradient flow on $\beta$ itself) and "
        r"$\delta \to -\infty$ (along $\beta_0$).",
        draw_plane,
        height=440,
        wide=True,
    ),
    Panel(
        "ends",
        "Where the flow ends, against δ",
        r"The angle between the end point and $\beta_0$: Theorem 3.1 for every $\delta$ (line) "
        r"and the flows drawn above (circles). Downstream the end keeps $\beta_0$'s direction; "
        r"upstream it turns to the interpolant nearest $\beta_0$.",
        draw_ends,
    ),
    Panel(
        "loss",
        "Loss",
        r"$\mathcal{L} = \tfrac12(x^\top\beta - y)^2$: every path reaches the line of "
        r"interpolants; which point of it is δ's choice.",
        draw_loss,
    ),
)
