"""The network view's plots, one function each: the losses beside the frozen NTK, the
kernel–target alignment with the fitted optimal feature evolution, the distances from the start,
the layer alignments, the function over the inputs, the neurons' paths, the NTK's spectra and
the kernel specialization.

A panel that does not apply to the chosen data set or network draws an empty plot that says
what it needs (the harness draws every panel).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...core.panel import Figure, Panel
from ...ui import figures as fig
from ...ui import theme

if TYPE_CHECKING:
    from .results import Plane, Run
    from .trajectory import Controls

NETWORK, TEST = fig.COLORS["exact"], fig.COLORS["feature"]
FROZEN, EXACT = fig.COLORS["kernel"], fig.COLORS["target"]
#: one colour per pair of layers
LAYER_COLORS = ("#1f4e79", "#e76f51", "#2a9d8f", "#6a4c93", "#8a6d3b")
#: the spectrum panel leaves out what is below this fraction of the largest value
SPECTRUM_FLOOR = 1e-12
#: the function's colours: blue < 0 < red, in two shades by the parity of the number of
#: active units (Kunin et al. Fig. 5 colours the regions by it): light and dark on a light
#: page; on a dark one f = 0 is dark (a near-white plane glared) and the odd regions lighter
REGION_SCALE = [
    [0.0, "#7fa7d1"],
    [0.25, "#f4f4f4"],
    [0.4999, "#e6957f"],
    [0.5, "#2f5f8f"],
    [0.75, "#8a8a8a"],
    [1.0, "#a33d2a"],
]
theme.dark_scale(
    REGION_SCALE,
    [
        [0.0, "#3f6f9f"],
        [0.25, "#26313c"],
        [0.4999, "#a3503d"],
        [0.5, "#86b3dd"],
        [0.75, "#4f5c69"],
        [1.0, "#e29a82"],
    ],
)


def unavailable(text: str, height: int = 300) -> Figure:
    """A panel that does not apply here: no plot, a short note of what it needs (the page
    folds such a card to its note: ``meta.unavailable``)."""
    return fig.not_applicable(text, height)


def _shown(controls: Controls, t: np.ndarray) -> np.ndarray:
    """The recorded points drawn on the time axis: not t = 0 on a log axis."""
    return t > 0 if controls.log_time else np.ones(t.size, dtype=bool)


def _timed(controls: Controls, data: list[dict], y_title: str, log_y: bool = False, **layout):
    cursor = [fig.cursor_line(0.0)]
    return fig.figure(
        data, y_title=y_title, log_x=controls.log_time, log_y=log_y, shapes=cursor, **layout
    )


def _curve(controls, t, values, name, color, *, dash=None, markers=False) -> dict:
    keep = _shown(controls, t)
    if markers:
        trace = fig.descent_trace(t[keep], values[keep], name, color)
        trace["marker"] = trace["marker"] | {"size": 5}
        return trace
    return fig.exact_trace(t[keep], values[keep], name, color, dash=dash)


def _floor(*curves: np.ndarray | None) -> float:
    """A log axis cannot show 0: values far below the largest are drawn at this floor."""
    return 1e-14 * max(float(np.max(c)) for c in curves if c is not None)


def draw_loss(controls: Controls, run: Run) -> Figure:
    curves, baseline, bridge = run.curves, run.baseline, run.bridge
    t, floor = curves.t, _floor(curves.loss, curves.test_loss)
    markers = bridge is not None  # Xu & Ziyin draw the theory as lines, the network as points
    data = [
        _curve(controls, t, np.maximum(curves.loss, floor), "training", NETWORK, markers=markers)
    ]
    if curves.test_loss is not None:
        test = np.maximum(curves.test_loss, floor)
        data.append(_curve(controls, t, test, "test", TEST, markers=markers))
    if baseline is not None:
        data.append(_curve(controls, t, np.maximum(baseline.loss, floor), "frozen NTK", FROZEN))
        if baseline.test_loss is not None:
            test = np.maximum(baseline.test_loss, floor)
            data.append(_curve(controls, t, test, "frozen NTK, test", FROZEN, dash="dash"))
        if baseline.rescaled_loss is not None:  # Shan & Bordelon's aKGD (Fig. 1A)
            rescaled = np.maximum(baseline.rescaled_loss, floor)
            name = f"aKGD (rate × {baseline.rescale:.2g})"
            data.append(_curve(controls, t, rescaled, name, FROZEN, dash="dot"))
    if bridge is not None:
        name = "exact (finite width)"
        data.append(_curve(controls, bridge.t, np.maximum(bridge.loss, floor), name, EXACT))
        if bridge.test_loss is not None:
            test = np.maximum(bridge.test_loss, floor)
            data.append(_curve(controls, bridge.t, test, f"{name}, test", EXACT, dash="dash"))
    # (the caption writes the loss out: with it, the title ran off a paper card's short plot)
    title = "logistic loss" if run.setting.loss == "bce" else "mean-square loss"
    return _timed(controls, data, title, log_y=True)


def draw_alignment(controls: Controls, run: Run) -> Figure:
    curves, t = run.curves, run.curves.t
    data = [_curve(controls, t, curves.alignment, "network A(t)", NETWORK)]
    frozen = np.full(t.size, curves.alignment[0])
    data.append(_curve(controls, t, frozen, "frozen NTK", FROZEN, dash="dot"))
    if run.fit is not None:
        name = f"optimal feature evolution, γ = {run.fit.gamma:.3g}"
        data.append(_curve(controls, t, run.fit.fitted, name, TEST, dash="dash"))
    # A on its whole range [0, 1], as on the kernel-alignment view
    return _timed(
        controls,
        data,
        "alignment A",  # (the card's title names it: a longer title ran off a short card)
        yaxis=fig.axis("alignment A", range=fig.UNIT_RANGE),
    )


def draw_distances(controls: Controls, run: Run) -> Figure:
    curves, t = run.curves, run.curves.t
    data = [
        _curve(controls, t, curves.kernel_distance, "kernel distance S(0, t)", NETWORK),
        _curve(controls, t, curves.activation_distance, "activation patterns changed", TEST),
        _curve(controls, t, curves.parameter_distance, "‖θ − θ₀‖ (right)", EXACT, dash="dash")
        | {"yaxis": "y2"},
    ]
    if run.bridge is not None:
        bridge = run.bridge
        exact = _curve(controls, bridge.t, bridge.parameter_distance, "‖θ − θ₀‖ exact", FROZEN)
        data.append(exact | {"yaxis": "y2"})
    # its own round ticks (plotly's default for an overlaying axis puts them at the left
    # axis's, 0.943 and 1.926), without a second grid
    right = fig.axis("‖θ − θ₀‖", overlaying="y", side="right", tickmode="auto", showgrid=False)
    # the two shares on their whole range [0, 1]: a lazy network's stay flat
    left = fig.axis("fraction", range=fig.UNIT_RANGE)
    return _timed(controls, data, "fraction", yaxis=left, yaxis2=right)


def draw_zeta(controls: Controls, run: Run) -> Figure:
    zeta, t = run.curves.zeta, run.curves.t
    if zeta.shape[1] == 0:
        return unavailable("ζ needs two layers or more")
    bridge = run.bridge
    data = [
        _curve(
            controls,
            t,
            zeta[:, pair],
            f"ζ between layers {pair + 1} and {pair + 2}",
            LAYER_COLORS[pair % len(LAYER_COLORS)],
            markers=bridge is not None,
        )
        for pair in range(zeta.shape[1])
    ]
    if bridge is not None:
        data.append(_curve(controls, bridge.t, bridge.zeta, "exact |ζ| (finite width)", EXACT))
    # ζ ∈ [0, 1] on its whole range: a network that hardly aligns looks it
    return _timed(
        controls,
        data,
        "layer alignment ζ",
        yaxis=fig.axis("layer alignment ζ", range=fig.UNIT_RANGE),
    )


# -- the inputs -------------------------------------------------------------------------------


def encoded(plane: Plane) -> np.ndarray:
    """The function panel's matrices (R, G, G): ``f/(2F) + ½`` in [0, 1] (F the largest |f|
    of the run), plus 1 where an odd number of hidden units is active — one matrix shows both
    the function and the activation regions (:data:`REGION_SCALE`)."""
    scale = max(float(np.max(np.abs(plane.function))), 1e-12)
    shade = np.clip(0.5 + 0.5 * plane.function / scale, 0.0, 0.999)
    return shade + plane.parity


def _data_points(X: np.ndarray, y: np.ndarray) -> dict:
    return {
        "type": "scatter",
        "mode": "markers",
        "x": X[:, 0],
        "y": X[:, 1],
        "name": "training data",
        "marker": {
            "size": 7,
            "color": y,
            "colorscale": fig.BLUE_RED,
            "cmid": 0.0,  # the sign of the label: blue < 0 < red, as the plane
            "line": {"color": "#22313f", "width": 1},
        },
        "hovertemplate": "x = (%{x:.3g}, %{y:.3g})<extra>training point</extra>",
    }


def _plane_figure(data: list[dict], extent: float, height: int = 380) -> Figure:
    edge = [-extent, extent]
    return fig.figure(
        data,
        x_title="x₁",
        y_title="x₂",
        height=height,
        xaxis=fig.axis("x₁", range=edge),
        yaxis=fig.axis("x₂", range=edge, scaleanchor="x", scaleratio=1),
        hovermode="closest",
    )


def _line_function(run: Run) -> Figure:
    line = run.line
    data = [
        fig.exact_trace(line.x, line.initial, "at the start", FROZEN, dash="dash"),
        fig.exact_trace(line.x, line.final, "after training", NETWORK),
        {
            "type": "scatter",
            "mode": "markers",
            "x": line.X,
            "y": line.y,
            "name": "training data",
            "marker": {"size": 5, "color": TEST},
        },
    ]
    return fig.figure(data, x_title="input x", y_title="f(x)", hovermode="closest")


def level_segments(z: np.ndarray, axis: np.ndarray, level: float) -> np.ndarray:
    """The level line ``z = level`` of a grid (``z[i, j]`` at x = axis[j], y = axis[i]) as
    segments, (S, 2, 2): marching squares, each cell's crossings joined in pairs (a saddle
    cell's in the order bottom–right, top–left). Drawn as a scatter trace: the page's plotly
    bundle has no contour traces."""
    d = z - level
    a, b, c, e = d[:-1, :-1], d[:-1, 1:], d[1:, 1:], d[1:, :-1]  # corners, counter-clockwise
    xs, ys = np.meshgrid(axis, axis)
    edges = []  # (mask, x, y) of the crossing on each edge: bottom, right, top, left
    for (p, q), (px, py, qx, qy) in (
        ((a, b), (xs[:-1, :-1], ys[:-1, :-1], xs[:-1, 1:], ys[:-1, 1:])),
        ((b, c), (xs[:-1, 1:], ys[:-1, 1:], xs[1:, 1:], ys[1:, 1:])),
        ((e, c), (xs[1:, :-1], ys[1:, :-1], xs[1:, 1:], ys[1:, 1:])),
        ((a, e), (xs[:-1, :-1], ys[:-1, :-1], xs[1:, :-1], ys[1:, :-1])),
    ):
        crossed = (p < 0) != (q < 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(crossed, p / (p - q), 0.0)
        edges.append((crossed, px + t * (qx - px), py + t * (qy - py)))
    mask = np.stack([m for m, _, _ in edges])  # (4, rows, cols)
    points = np.stack([np.stack([x, y], axis=-1) for _, x, y in edges])  # (4, rows, cols, 2)
    count = mask.sum(axis=0)
    order = np.argsort(~mask, axis=0, kind="stable")  # crossed edges first, in edge order
    first = np.take_along_axis(points, order[..., None], axis=0)  # (4, rows, cols, 2)
    pairs = [first[0:2, count == 2]]
    pairs += [points[[0, 1]][:, count == 4], points[[2, 3]][:, count == 4]]
    return np.concatenate([pair.transpose(1, 0, 2) for pair in pairs], axis=0)


def _level_lines(plane: Plane, axis: np.ndarray) -> dict:
    """The function after training as dotted level lines: where the colours are heading (at
    the start a network of Kunin et al.'s is 0 everywhere, and its plane one colour)."""
    final = np.asarray(plane.function[-1], dtype=float)
    top = max(float(np.max(np.abs(final))), 1e-12)
    levels = np.linspace(-0.75, 0.75, 7) * top
    segments = np.concatenate([level_segments(final, axis, level) for level in levels])
    gaps = np.full((len(segments), 1, 2), np.nan)
    path = np.concatenate([segments, gaps], axis=1).reshape(-1, 2)
    return {
        "type": "scatter",
        "mode": "lines",
        "x": path[:, 0],
        "y": path[:, 1],
        "line": {"width": 1.2, "dash": "dot", "color": "#6c757d"},
        "name": "f after training (level lines)",
        "showlegend": True,
        "hoverinfo": "skip",
    }


def draw_function(controls: Controls, run: Run) -> Figure:
    if run.line is not None:
        return _line_function(run)
    plane = run.plane
    if plane is None:
        return unavailable("only for 1-d and 2-d inputs (XOR, teacher–student with d = 2)")
    axis = np.linspace(-plane.extent, plane.extent, plane.function.shape[-1])
    heat = {
        "type": "heatmap",
        "x": axis,
        "y": axis,
        "z": encoded(plane)[0],
        "zmin": 0.0,
        "zmax": 2.0,
        "colorscale": REGION_SCALE,
        "showscale": False,
        "hoverinfo": "skip",
        "uid": fig.CURSOR,
    }
    data = [heat, _level_lines(plane, axis), _data_points(plane.X, plane.y)]
    return _plane_figure(data, plane.extent)


def _paths(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(R, m, 2) paths → x and y of one trace with a gap after each path."""
    gap = np.full((points.shape[1], 1), np.nan)
    xs = np.concatenate([points[:, :, 0].T, gap], axis=1).ravel()
    ys = np.concatenate([points[:, :, 1].T, gap], axis=1).ravel()
    return xs, ys


def _teacher_rays(teacher: np.ndarray, extent: float) -> dict:
    ends = np.stack([np.zeros_like(teacher), extent * teacher], axis=0)  # (2, k, 2)
    xs, ys = _paths(ends)
    line = {"color": "#22313f", "width": 1.5, "dash": "dot"}
    return {"type": "scatter", "mode": "lines", "x": xs, "y": ys, "name": "teacher", "line": line}


def draw_neurons(controls: Controls, run: Run) -> Figure:
    plane = run.plane
    if plane is None or plane.neurons is None:
        return unavailable("only for two-layer networks on 2-d inputs")
    neurons, data = plane.neurons, []
    extent = 1.1 * max(float(np.max(np.abs(neurons))), 1e-9)
    if plane.teacher is not None:
        data.append(_teacher_rays(plane.teacher, extent))
    for sign, name, color in ((1.0, "aᵢ > 0", TEST), (-1.0, "aᵢ < 0", NETWORK)):
        chosen = neurons[:, plane.signs == sign]
        if chosen.shape[1]:
            xs, ys = _paths(chosen)
            data.append(fig.exact_trace(xs, ys, name, color, width=1.3))
    data.append(fig.cursor_point(float(neurons[0, 0, 0]), float(neurons[0, 0, 1])))
    figure = _plane_figure(data, extent)
    figure["layout"]["xaxis"]["title"]["text"] = "|aᵢ| wᵢ₁"
    figure["layout"]["yaxis"]["title"]["text"] = "|aᵢ| wᵢ₂"
    return figure


# -- the kernel ---------------------------------------------------------------------------------


def _exponent(value: float, letter: str) -> str:
    return "" if np.isnan(value) else f" ({letter} = {value:.2f})"


def draw_spectrum(controls: Controls, run: Run) -> Figure:
    spectra = run.spectra
    if spectra is None:
        return unavailable("the spectrum needs non-zero targets")
    b0, a0, b1, a1 = spectra.exponents
    k = np.arange(1, spectra.initial_eigenvalues.size + 1)
    top = max(float(spectra.initial_eigenvalues[0]), 1e-300)
    size = max(float(np.sum(spectra.initial_power)), 1e-300)
    series = [
        (spectra.initial_eigenvalues / top, f"λ_k/λ₁ before{_exponent(b0, 'b')}", FROZEN, None),
        (spectra.final_eigenvalues / top, f"λ_k/λ₁ after{_exponent(b1, 'b')}", NETWORK, None),
        (spectra.initial_power / size, f"task power before{_exponent(a0, 'a')}", FROZEN, "dot"),
        (spectra.final_power / size, f"task power after{_exponent(a1, 'a')}", TEST, "dot"),
    ]
    # below 10⁻¹² of the largest only rounding is left (a kernel of low rank): not drawn
    data = [
        fig.exact_trace(
            k[values > SPECTRUM_FLOOR], values[values > SPECTRUM_FLOOR], name, color, dash=dash
        )
        for values, name, color, dash in series
    ]
    return fig.figure(
        data, x_title="rank k", y_title="relative size", log_x=True, log_y=True, height=340
    )


def draw_specialization(controls: Controls, run: Run) -> Figure:
    found = run.specialization
    if found is None:
        return unavailable("only for several outputs (the ten digits)")
    labels = [str(c) for c in range(found.final.shape[0])]
    trace = {
        "type": "heatmap",
        "z": found.final,
        "x": labels,
        "y": labels,
        "colorscale": "Viridis",
        "colorbar": {"title": {"text": "KSM"}, "thickness": 10},
        "hovertemplate": "kernel %{y}, target %{x}: %{z:.3g}<extra></extra>",
    }
    figure = fig.figure(
        [trace], x_title="target c′", y_title="output kernel c", height=340, show_legend=False
    )
    figure["layout"]["yaxis"] |= {"autorange": "reversed", "scaleanchor": "x"}
    figure["layout"]["hovermode"] = "closest"
    return figure


PANELS = (
    Panel(
        "loss",
        "Loss: the network against the frozen NTK",
        r"Training and test loss of the network (mean-square: $\tfrac{1}{2n}\sum_i "
        r"\|f(x_i) - y_i\|^2$), and of kernel gradient descent with the NTK "
        r"frozen at the start ($f' = -\tfrac1n K_0(f - y)$, solved exactly; Shan & Bordelon's "
        r"KGD) — the lazy limit; dotted, their aKGD: the same flow with the learning rate "
        r"rescaled by the final NTK's norm, $\|K_T\|_F/\|K_0\|_F$. For a two-layer linear "
        r"network on 1-d data the exact finite-width solution (Xu & Ziyin) is drawn as lines "
        r"over the network's points. The frozen-NTK curves are for the mean-square loss only.",
        draw_loss,
    ),
    Panel(
        "alignment",
        "Kernel–target alignment A(t)",
        r"$A(K_t, y) = y^\top K_t y/(\|K_t\|_F\|y\|^2)$: a frozen kernel keeps $A(0)$; rich "
        r"learning turns the kernel towards the task. Dashed: Shan & Bordelon's optimal feature "
        r"evolution fitted to the curve — its rate $\gamma$ (for $\|K_0\|_F = 1$) and time scale "
        r"are in the summary (their Fig. 6D).",
        draw_alignment,
    ),
    Panel(
        "distances",
        "How far the network moves",
        r"Kernel distance $S(0,t) = 1 - \langle K_0, K_t\rangle_F/(\|K_0\|_F\|K_t\|_F)$, the "
        r"share of (input, hidden unit) pairs whose activation sign changed, and (right axis) "
        r"the parameter distance $\|\theta_t - \theta_0\|$ (Kunin et al. Fig. 6a). Lazy: all "
        r"stay small; rich: the kernel and the patterns move.",
        draw_distances,
    ),
    Panel(
        "zeta",
        "Layer alignment ζ",
        r"$\zeta = \|W_{l+1}W_l\|_2/(\|W_{l+1}\|_2\|W_l\|_2)$ between consecutive layers (Xu & "
        r"Ziyin §3.5): rising is alignment, falling disalignment. For a two-layer linear network "
        r"on 1-d data the line is the exact $|\zeta(t)|$.",
        draw_zeta,
    ),
    Panel(
        "function",
        "The function over the inputs",
        r"2-d inputs: $f(x)$ over the plane (blue < 0 < red), following the play bar; the "
        r"shading flips across each hidden unit's boundary $w_i^\top x = 0$ — another shade "
        r"where an odd number of units is active (Kunin et al. Fig. 5's activation regions). "
        r"Dotted: the level lines of $f$ after training, where the colours are heading (a "
        r"network of Kunin et al.'s starts at $f \equiv 0$). 1-d inputs: $f(x)$ at the start "
        r"and after training.",
        draw_function,
        height=380,
    ),
    Panel(
        "neurons",
        "The neurons |aᵢ|wᵢ",
        r"Each hidden neuron's $|a_i|w_i$ through training (colour: the sign of $a_i$), the "
        r"teacher's directions dotted (Kunin et al. Fig. 1a); the dots follow the play bar. "
        r"Rich learning turns the neurons towards the teacher.",
        draw_neurons,
        height=380,
    ),
    Panel(
        "spectrum",
        "The NTK's spectrum before and after",
        r"Eigenvalues $\lambda_k$ of the NTK on the training inputs and the task power "
        r"$v_k^2 = (u_k^\top y)^2$ along its eigenvectors, at the start and at the end, with "
        r"their power-law exponents (Shan & Bordelon Fig. 1D–E).",
        draw_spectrum,
        height=340,
    ),
    Panel(
        "specialization",
        "Kernel specialization (ten outputs)",
        r"$\mathrm{KSM}(c, c') = A(K^{cc}, y^{c'})/\overline{A(K^{c''c''}, y^{c'})}$ after "
        r"training (Shan & Bordelon eq. 16, Fig. 4): a bright diagonal means each output's "
        r"kernel has aligned with its own class.",
        draw_specialization,
        height=340,
    ),
)
