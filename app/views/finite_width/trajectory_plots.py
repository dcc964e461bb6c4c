"""The finite-width view's plots, one function each: ζ, the norms, the NTK, how far it moves and
the loss over time, every neuron on its conserved hyperbola, and the scaling-phase tables."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from solvers import finite_width as fw

from ...core.panel import Figure, Panel
from ...ui import figures as fig

if TYPE_CHECKING:
    from .trajectory import Controls, Run

SHOWN_NEURONS = 40  # neurons drawn in the (u_i, h_i) plane
PATH_POINTS = 120  # points per neuron path in the plane
HYPERBOLA_POINTS = 64
DESCENT_MARKS = 15  # gradient-descent states marked per neuron in the plane


# -- over time -----------------------------------------------------------------------------------


def drawn(controls: Controls, run: Run) -> np.ndarray:
    """The time points drawn: all of them, but not t = 0 on a log axis (the result keeps it as
    the reference of every change)."""
    t = run.exact.t
    return np.flatnonzero(t > 0) if controls.log_time else np.arange(len(t))


#: one curve of a panel: (column of :class:`Curves`, legend name, colour, dash)
Series = tuple[str, str, str, str | None]


def _over_time(
    controls: Controls,
    run: Run,
    series: list[Series],
    y_title: str,
    log_y: bool = False,
    floor_ratio: float = 1e-28,
    y_range: list[float] | None = None,
) -> Figure:
    exact, descent = run.exact, run.descent
    rows = drawn(controls, run)
    # A log axis cannot show 0: clip far below the largest value.
    top = max(float(np.max(getattr(exact, key)[rows])) for key, *_ in series) if log_y else 0.0
    floor = max(floor_ratio * top, 1e-300) if log_y else -np.inf
    data = [
        fig.exact_trace(
            exact.t[rows], np.maximum(getattr(exact, key)[rows], floor), name, colour, dash=dash
        )
        for key, name, colour, dash in series
    ]
    if descent is not None:
        curves = descent.curves
        keep = curves.t > 0 if controls.log_time else slice(None)
        for index, (key, *_rest) in enumerate(series):
            data.append(
                fig.descent_trace(
                    curves.t[keep],
                    np.maximum(getattr(curves, key)[keep], floor),
                    group="gradient descent",
                    show_legend=index == 0,
                )
            )
    cursor = [fig.cursor_line(float(exact.t[rows][0]))]  # shapes sit in data units, log or not
    extra = {"yaxis": fig.axis(y_title, range=y_range)} if y_range else {}
    return fig.figure(
        data, y_title=y_title, log_x=controls.log_time, log_y=log_y, shapes=cursor, **extra
    )


EXACT, SECOND = fig.COLORS["exact"], fig.COLORS["feature"]


def draw_zeta(controls: Controls, run: Run) -> Figure:
    # a cosine: on its whole range, so that a run that hardly aligns looks it
    series = [("zeta", "ζ exact", EXACT, None)]
    return _over_time(controls, run, series, "ζ", y_range=fig.COSINE_RANGE)


def draw_norms(controls: Controls, run: Run) -> Figure:
    series = [("u_norm", "‖u‖", EXACT, None), ("w_norm", "‖W‖", SECOND, None)]
    return _over_time(controls, run, series, "norm")


def draw_ntk(controls: Controls, run: Run) -> Figure:
    return _over_time(controls, run, [("ntk", "K(x, x; t)", EXACT, None)], "K(x, x; t)")


def draw_kernel_change(controls: Controls, run: Run) -> Figure:
    series = [("ntk_change", "|K(t) − K(0)|/K(0)", EXACT, None)]
    if controls.d0 > 1:
        series.append(("kernel_distance", "S(0, t) of M", SECOND, "dash"))
    return _over_time(controls, run, series, "relative change", log_y=True, floor_ratio=1e-8)


def draw_loss(controls: Controls, run: Run) -> Figure:
    return _over_time(controls, run, [("loss", "loss", EXACT, None)], "loss", log_y=True)


# -- the neurons' plane ------------------------------------------------------------------------


def _box(run: Run) -> tuple[int, float, float]:
    """(neurons drawn, half-width in u, half-height in h) of the plane."""
    exact = run.exact
    shown = min(exact.u.shape[1], SHOWN_NEURONS)
    u_max = 1.1 * max(float(np.max(np.abs(exact.u[:, :shown]))), 1e-12)
    h_max = 1.1 * max(float(np.max(np.abs(exact.hidden[:, :shown]))), 1e-12)
    return shown, u_max, h_max


def followed_neuron(run: Run) -> int:
    """The drawn neuron that moves most: the play bar's dot follows it."""
    shown, u_max, h_max = _box(run)
    u, h = run.exact.u[:, :shown], run.exact.hidden[:, :shown]
    moved = np.abs(u[-1] - u[0]) / u_max + np.abs(h[-1] - h[0]) / h_max
    return int(np.argmax(moved))


def _paths_with_gaps(values: np.ndarray) -> np.ndarray:
    """(T, n) paths → one flat array with a NaN after each path (one trace draws them all)."""
    columns = np.asarray(values, dtype=float).T
    return np.concatenate([columns, np.full((columns.shape[0], 1), np.nan)], axis=1).ravel()


def _guides(run: Run) -> list[dict]:
    """The asymptotes p = 0, q = 0 and every drawn neuron's conserved hyperbola."""
    shown, u_max, h_max = _box(run)
    built, exact = run.network, run.exact
    curves = fw.hyperbolas(
        exact.u[0, :shown],
        exact.hidden[0, :shown],
        rho=built.rho,
        eta_u=built.eta_u,
        eta_w=built.eta_w,
        u_max=u_max,
        h_max=h_max,
        points=HYPERBOLA_POINTS,
    )
    edge = min(u_max, h_max / curves.slope)
    ends = np.array([-edge, edge, np.nan, -edge, edge])
    heights = curves.slope * np.array([-edge, edge, np.nan, edge, -edge])
    lines = {"type": "scatter", "mode": "lines", "hoverinfo": "skip"}
    return [
        lines
        | {
            "x": ends,
            "y": heights,
            "name": "asymptotes p = 0, q = 0",
            "line": {"color": fig.COLORS["kernel"], "width": 1, "dash": "dash"},
        },
        lines
        | {
            "x": _paths_with_gaps(curves.u.T),
            "y": _paths_with_gaps(curves.h.T),
            "name": "conserved hyperbolas",
            "line": {"color": "#9aa5b1", "width": 1, "dash": "dot"},
        },
    ]


def _neuron_paths(run: Run) -> list[dict]:
    shown = _box(run)[0]
    exact = run.exact
    u, h = exact.u[:, :shown], exact.hidden[:, :shown]
    keep = fig.thin(len(exact.t), PATH_POINTS)
    data = [
        fig.exact_trace(
            _paths_with_gaps(u[keep]), _paths_with_gaps(h[keep]), "exact paths", width=1.8
        )
        | {"hovertemplate": "u = %{x:.4g}, h = %{y:.4g}<extra></extra>"},
        {
            "type": "scatter",
            "mode": "markers",
            "x": u[0],
            "y": h[0],
            "name": "start",
            "marker": {"symbol": "diamond", "size": 5, "color": fig.COLORS["start"]},
            "hovertemplate": "start: u = %{x:.4g}, h = %{y:.4g}<extra></extra>",
        },
    ]
    if run.descent is not None:
        curves = run.descent.curves
        marks = fig.thin(len(curves.t), DESCENT_MARKS)
        du, dh = curves.u[marks, :shown].T.ravel(), curves.hidden[marks, :shown].T.ravel()
        trace = fig.descent_trace(du, dh, limit=du.size)
        trace["marker"] = trace["marker"] | {"size": 5}
        trace["hovertemplate"] = "u = %{x:.4g}, h = %{y:.4g}<extra>gradient descent</extra>"
        data.append(trace)
    return data


def draw_neurons(controls: Controls, run: Run) -> Figure:
    shown, u_max, h_max = _box(run)
    follow = followed_neuron(run)
    u, h = run.exact.u, run.exact.hidden
    data = _guides(run) + _neuron_paths(run)
    data.append(fig.cursor_point(float(u[0, follow]), float(h[0, follow])))
    d = controls.d
    title = f"{d} neuron{'s' if d > 1 else ''}" if shown == d else f"first {shown} of {d} neurons"
    figure = fig.figure(
        data,
        x_title="u_i  (second layer)",
        y_title="h_i = w_i · x  (hidden)",
        height=440,
        xaxis=fig.axis("u_i  (second layer)", range=[-u_max, u_max]),
        yaxis=fig.axis("h_i = w_i · x  (hidden)", range=[-h_max, h_max]),
    )
    # said at the head of the legend: a figure title over a legend in rows ran into it
    figure["layout"]["legend"]["title"] = {"text": title, "side": "top"}
    return figure


# -- the scaling phases (§4, Table 1) ------------------------------------------------------------

#: Table 1's own words (its "learning" is the feature-learning phase)
SHORT = {
    "kernel": "kernel",
    "feature learning": "learning",
    "frozen": "frozen",
    "unstable": "unstable",
}
PHASE_COLORS = {
    "kernel": "#dbe7f3",
    "feature learning": "#fde2d4",
    "frozen": "#e9ecef",
    "unstable": "#f6c6c6",
}
HEADER = {
    "fill": {"color": "#f0f3f6"},
    "line": {"color": "#dde3ea"},
    "height": 30,
    "font": {"size": 12, "color": "#22313f"},
    "align": "center",
}
CELLS = {"line": {"color": "#dde3ea"}, "height": 26, "font": {"size": 12, "color": "#22313f"}}
#: blocks of Table 1 whose c_γ is not the scheme's own (the table prints it)
PAIRS = ("feature learning", "kernel")


def exponent_text(value: float) -> str:
    """An exponent as the paper prints it (−1/2, 3/4, …)."""
    value = float(value)
    for denominator in (1, 2, 4, 3):
        if abs(value * denominator - round(value * denominator)) < 1e-9:
            numerator = round(value * denominator)
            text = str(numerator) if denominator == 1 else f"{numerator}/{denominator}"
            return text.replace("-", "−")
    return f"{value:.3g}".replace("-", "−")


def _your_table(table: fw.PhaseTable) -> dict:
    terms = table.terms
    mine = [
        ("feature term 2c_γ + c_ηu + c_ηw", exponent_text(terms.feature_term)),
        ("kernel term 2c_γ + c_d + max(c_ηw + c_u, c_ηu + c_w)", exponent_text(terms.kernel_term)),
        ("m = max of the two", exponent_text(terms.m)),
        ("P/Q → 1 ?", "yes" if terms.p_over_q_to_one else "no"),
        ("phase", table.phase),
    ]
    fill = ["white"] * (len(mine) - 1) + [PHASE_COLORS[table.phase]]
    return {
        "type": "table",
        "name": "your exponents",
        "domain": {"x": [0, 0.28], "y": [0, 1]},
        "columnwidth": [3, 1.3],
        "header": HEADER | {"values": ["<b>your exponents</b>", "<b>value</b>"]},
        "cells": CELLS
        | {
            "values": [[r[0] for r in mine], [r[1] for r in mine]],
            "fill": {"color": [["white"] * len(mine), fill]},
            "align": ["left", "center"],
        },
    }


def _entry_text(entry: fw.TableEntry) -> str:
    setting = f"c_η={exponent_text(entry.c_eta)}"
    if entry.block in PAIRS:
        setting += f", c_γ={exponent_text(entry.c_gamma)}"
    return f"{SHORT[entry.phase]}<br><span style='font-size:10px'>{setting}</span>"


def _named_table(controls: Controls, table: fw.PhaseTable) -> dict:
    rows = table.rows
    c_eta = exponent_text(controls.c_eta_u)
    if controls.c_eta_u != controls.c_eta_w:
        c_eta += f", {exponent_text(controls.c_eta_w)}"
    columns = [[row.scheme for row in rows]]
    columns += [[exponent_text(row.exponents[k]) for row in rows] for k in range(4)]
    columns.append([f"<b>{SHORT[row.yours]}</b>" for row in rows])
    columns += [[_entry_text(row.table[b]) for row in rows] for b in range(4)]
    phases = [[row.yours for row in rows]] + [
        [row.table[b].phase for row in rows] for b in range(4)
    ]
    fills = [["white"] * len(rows)] * 5 + [[PHASE_COLORS[p] for p in column] for column in phases]
    names = ["<b>scaling</b>", "c_d", "c_γ", "c_u", "c_w", f"<b>your c_η = {c_eta}</b>"]
    return {
        "type": "table",
        "name": "Table 1",
        "domain": {"x": [0.3, 1], "y": [0, 1]},
        "columnwidth": [1.1, 0.55, 0.55, 0.55, 0.55, 1.3, 1.3, 1.3, 1.5, 1.5],
        "header": HEADER | {"values": [*names, "c_η = 0", "c_η*", "c_η⁺, c_γ⁺", "c_η⁻, c_γ⁻"]},
        "cells": CELLS
        | {"values": columns, "fill": {"color": fills}, "height": 36, "align": "center"},
    }


def phase_table(controls: Controls) -> fw.PhaseTable:
    """The §4 rule for the exponents in the sidebar, and Table 1's schemes at its c_η."""
    return fw.phase_table(
        controls.c_d,
        controls.c_gamma,
        controls.c_u,
        controls.c_w,
        controls.c_eta_u,
        controls.c_eta_w,
        zero_output_init=controls.zero_output,
        independent_init=controls.independent,
    )


def draw_phase(controls: Controls, run: Run) -> Figure:
    table = phase_table(controls)
    return {
        "data": [_your_table(table), _named_table(controls, table)],
        "layout": {
            "font": fig.FONT,
            "height": 330,
            "margin": {"l": 4, "r": 4, "t": 8, "b": 4},
            "paper_bgcolor": "white",
            "uirevision": "keep",
        },
    }


PANELS = (
    Panel(
        "zeta",
        "Layer alignment ζ(t)",
        r"$\zeta = \dfrac{u^\top W\hat x}{\|u\|\,\|W\hat x\|}$ (their eq. 14) is monotone in "
        r"time: it increases iff $\alpha_+ > 1$ (alignment), decreases iff $\alpha_+ < 1$ "
        r"(disalignment) and stays at $\pm1$ for parallel layers.",
        draw_zeta,
    ),
    Panel(
        "norms",
        "Rescaling: ‖u‖ and ‖W‖",
        r"Both norms grow while the layers align and shrink while they disalign (their §3.3). "
        r"For parallel layers this rescaling is the only thing that happens. $\|W\|$ is the "
        r"Frobenius norm (for $d_0 > 1$ it includes the part orthogonal to $x$, which never "
        r"moves).",
        draw_norms,
    ),
    Panel(
        "ntk",
        "NTK K(x, x; t)",
        r"$K = \gamma^2(\eta_u\|Wx\|^2 + \eta_w\|u\|^2\|x\|^2)$, so that "
        r"$\dot f = -2K(f - y)$ (their eq. 13 with the learning rates in the right places).",
        draw_ntk,
    ),
    Panel(
        "kernel_change",
        "How far the NTK moves",
        r"Relative change $|K(t) - K(0)|/K(0)$ on a log scale: $O(1)$ in the feature-learning "
        r"phase, vanishing with $d$ in the kernel phase. For $d_0 > 1$ the dashed curve is the "
        r"kernel distance $S(0, t)$ of $M = \gamma^2(\eta_u W^\top W + \eta_w\|u\|^2 I)$.",
        draw_kernel_change,
    ),
    Panel("loss", "Loss", r"$\mathcal{L} = (f(x) - y)^2$ (no ½), log scale.", draw_loss),
    Panel(
        "neurons",
        "Every neuron on its conserved hyperbola",
        r"Each neuron moves in its $(u_i, h_i = w_i\cdot x)$ plane on the hyperbola "
        r"$\eta_u h_i^2 - \eta_w\rho^2 u_i^2 = 4\rho^2 p_i q_i = \text{const}$ (dotted; the "
        r"branch it lives on). All neurons move in lock-step: $p_i \to p_i\sqrt{A(t)}$, "
        r"$q_i \to q_i/\sqrt{A(t)}$. Dashed lines: the asymptotes $p = 0$ and $q = 0$ "
        rf"(parallel layers sit on $q = 0$). At most {SHOWN_NEURONS} neurons are drawn, for "
        r"readability; the orange dot follows the one that moves most.",
        draw_neurons,
        height=440,
        wide=True,
    ),
    Panel(
        "phase",
        "Scaling phases (§4, Table 1)",
        r"All hyperparameters scale as powers of $\kappa\to\infty$. With "
        r"$m = \max(2c_\gamma + c_{\eta_u} + c_{\eta_w},\ 2c_\gamma + c_d + "
        r"\max(c_{\eta_w} + c_u, c_{\eta_u} + c_w))$ (their eq. 18): $m < 0$ is *frozen* "
        r"($t_c \to \infty$), $m > 0$ *unstable* ($t_c \to 0$); at $m = 0$ the model is in the "
        r"*kernel* phase iff $P/Q \to 1$ and the initialisation term strictly dominates, else it "
        r"learns *features*. $P/Q \to 1$ holds for $c_d > 0$ with independent layers, for a zero "
        r"initial output, or when $c_u + c_{\eta_w} \ne c_w + c_{\eta_u}$. Left: your exponents "
        r"(sidebar); right: Table 1's scalings at your $c_\eta$ and in the paper's four blocks "
        r"($c_\eta^*$ stabilises; $^+$ gives feature learning, $^-$ the kernel phase; "
        r"“learning” is the paper's word for feature learning).",
        draw_phase,
        height=330,
        wide=True,
        min_width=900,
    ),
)
