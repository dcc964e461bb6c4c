"""The kernel-alignment map's plots, one function each: A∞ and the top-eigenvector overlap over
γ × the exponent (with each row's threshold γ*), one row of both as curves, and A(t) over γ and
time."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...core.panel import Figure, Panel
from ...ui import figures as fig
from .trajectory_plots import threshold_line

if TYPE_CHECKING:
    from .map import Controls, Map

EXPONENT_NAMES = {"a": "task-power exponent a", "b": "eigenvalue exponent b"}


def _labels(controls: Controls, rows: np.ndarray) -> list[tuple[float, float, str]]:
    if not controls.labels:
        return []
    low, high = controls.gamma_low, controls.gamma_high
    middle = float(0.5 * (rows[0] + rows[-1]))
    return [
        # in two lines: side by side they ran into each other on a phone
        (low * (high / low) ** 0.12, middle, "lazy<br>(kernel regime)"),
        (low * (high / low) ** 0.88, middle, "rich<br>(aligned)"),
    ]


def _threshold_trace(axis: str, result: Map) -> dict:
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "x": result.threshold[result.found],
        "y": result.exponents[result.found],
        "name": "threshold γ*",
        "line": {"color": "white", "width": 1.5},
        "marker": {"size": 6, "color": "white", "line": {"color": "#22313f", "width": 1}},
        "hovertemplate": f"γ* = %{{x:.3g}} at {axis} = %{{y:.3g}}<extra></extra>",
        "showlegend": False,
    }


def _current_row(controls: Controls) -> dict:
    level = getattr(controls, controls.axis)
    return {
        "type": "line",
        "xref": "paper",
        "yref": "y",
        "x0": 0,
        "x1": 1,
        "y0": level,
        "y1": level,
        "line": {"color": fig.COLORS["cursor"], "width": 2, "dash": "dash"},
    }


def _map(controls: Controls, result: Map, z: np.ndarray, name: str, height: int) -> Figure:
    axis = controls.axis
    figure = fig.portrait(
        z,
        result.gammas,
        result.exponents,
        x_title="feature-learning rate γ",
        y_title=EXPONENT_NAMES[axis],
        colorbar=name,
        log_x=True,
        zmin=0.0,
        zmax=1.0,
        labels=_labels(controls, result.exponents),
        hover=f"γ = %{{x:.3g}}, {axis} = %{{y:.3g}}: {name} = %{{z:.3f}}",
        height=height,
    )
    figure["data"].append(_threshold_trace(axis, result))
    figure["layout"]["shapes"] = [_current_row(controls)]
    return figure


def draw_alignment(controls: Controls, result: Map) -> Figure:
    return _map(controls, result, result.final_alignment, "A∞", 420)


def draw_overlap(controls: Controls, result: Map) -> Figure:
    return _map(controls, result, result.top_overlap, "|u₁ᵀy|/‖y‖", 380)


def _exponents_title(controls: Controls) -> str:
    """Short enough for a phone's plot (the card's title says what γ is)."""
    return f"rate γ  (a = {controls.a:g}, b = {controls.b:g})"


def draw_sweep(controls: Controls, result: Map) -> Figure:
    grid, current = result.gammas, result.current
    data = [
        fig.exact_trace(
            grid, current.top_overlap, "top-eigenvector overlap |u₁ᵀy|/‖y‖", fig.COLORS["exact"]
        ),
        fig.exact_trace(grid, current.final_alignment, "final alignment A∞", fig.COLORS["feature"]),
        fig.exact_trace(
            [grid[0], grid[-1]],
            [current.initial_alignment] * 2,
            "A₀ (γ → 0)",
            fig.COLORS["kernel"],
            dash="dash",
            width=1.3,
        ),
    ]
    for trace in data[:2]:
        trace["hovertemplate"] = "γ = %{x:.3g}: %{y:.4f}<extra>" + trace["name"] + "</extra>"
    if current.threshold is not None:
        data.append(threshold_line(current.threshold))
    return fig.figure(
        data,
        x_title=_exponents_title(controls),
        y_title="overlap, alignment",
        log_x=True,
        height=380,
        hovermode="closest",
        yaxis=fig.axis("overlap, alignment", range=fig.UNIT_RANGE),
    )


def _rise(result: Map) -> dict:
    """The dotted line t = 1/c₁ where A(t) climbs, inside the times drawn."""
    over_time = result.over_time
    rise = 1.0 / over_time.rates
    inside = (rise >= over_time.t[0]) & (rise <= over_time.t[-1])
    return {
        "type": "scatter",
        "mode": "lines",
        "x": over_time.gammas[inside],
        "y": rise[inside],
        "name": "t = 1/c₁",
        "line": {"color": "white", "width": 1.5, "dash": "dot"},
        "hovertemplate": "γ = %{x:.3g}: 1/c₁ = %{y:.3g}<extra></extra>",
        "showlegend": False,
    }


def draw_time(controls: Controls, result: Map) -> Figure:
    over_time = result.over_time
    figure = fig.portrait(
        over_time.alignment,
        over_time.gammas,
        over_time.t,
        x_title=_exponents_title(controls),
        y_title="time t",
        colorbar="A(t)",
        log_x=True,
        log_y=True,
        zmin=0.0,
        zmax=1.0,
        hover="γ = %{x:.3g}, t = %{y:.3g}: A = %{z:.3f}",
        height=380,
    )
    figure["data"].append(_rise(result))
    return figure


PANELS = (
    Panel(
        "alignment",
        "Final alignment A∞ over γ and the exponent",
        r"Each cell is $A_\infty = \dfrac{\gamma\|y\|^4 + y^\top K_0 y}{\|K_0 + \gamma yy^\top\|_F"
        r"\,\|y\|^2}$ (their eq. 11) of the power-law task with that exponent: the alignment of "
        r"the final kernel $K_\infty = K_0 + \gamma yy^\top$ with the target. White dots: the "
        r"threshold $\gamma^*$ of each row; dashed: the row of the line plots.",
        draw_alignment,
        height=420,
        wide=True,
    ),
    Panel(
        "overlap",
        "Top eigenvector of K∞ against the target",
        r"$|u_1^\top y|/\|y\|$ for the top eigenvector $u_1$ of $K_\infty$ (their Fig. 2C): small "
        r"while $K_0$'s own top mode dominates, close to 1 once $\gamma yy^\top$ takes over. White "
        r"dots: $\gamma^*$, where the overlap is half-way from its $\gamma \to 0$ value to 1.",
        draw_overlap,
        height=380,
    ),
    Panel(
        "sweep",
        "A∞ and the overlap against γ for the current a, b",
        r"One row of both maps (Fig. 2C–D) at the exponents set on the left; dotted: the threshold "
        r"$\gamma^*$; dashed: the initial alignment $A_0 = A(K_0, y)$, the $\gamma \to 0$ limit.",
        draw_sweep,
        height=380,
    ),
    Panel(
        "time",
        "Alignment A(t) over γ and time",
        r"The exact $A(K(t), y)$ with $K(t) = K_0 + \gamma(yy^\top - \Delta\Delta^\top)$ for the "
        r"current $a, b$: it climbs from $A_0$ to $A_\infty$ around $t \sim 1/(\eta c_1)$ "
        r"(dotted), $c_1$ the top eigenvalue of $K_\infty$ — sooner and higher for larger "
        r"$\gamma$ ($\eta = 1$).",
        draw_time,
        height=380,
        wide=True,
    ),
)
