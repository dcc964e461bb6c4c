"""The finite-width map's layout and plots: the (c_η, c_γ) grid, the phase plane a map's
controls pose, Table 1's markers, the width sweep's rows — and one draw function per plot (the
phase map, and the sweep's NTK change, weight change and final alignment against width)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from solvers import finite_width as fw

from ...core.panel import Figure, Panel
from ...ui import figures as fig
from .trajectory_plots import exponent_text

if TYPE_CHECKING:
    from .map import Controls, Map

SCHEMES = tuple(fw.SCALINGS)
#: the width-scaled schemes of Fig. 4 (MF's Table-1 pairs are NTK's: same initialisation)
FIG4_SCHEMES = ("NTK", "Xavier", "Kaiming")
REGIMES = ("kernel", "feature learning")
MAP_COLORS = {
    "frozen": "#d5dde6",
    "kernel": "#2166ac",
    "feature learning": "#e76f51",
    "unstable": "#f7c5c0",
}
SCHEME_COLORS = {
    "NTK": "#1f4e79",
    "MF": "#6a4c93",
    "Xavier": "#2a9d8f",
    "Kaiming": "#d1495b",
    "lazy": "#8a6d3b",
}
#: the map's window: every Table-1 point (c_η ∈ {−2, …, 1}, c_γ ∈ {−1, −½, 0, 1}) is a grid
#: point for every resolution offered (steps 6/(n − 1) and 5/(n − 1) divide ½), and the m = 0
#: line crosses it from side to side
ETA_RANGE = (-3.0, 3.0)
GAMMA_RANGE = (-3.0, 2.0)
RESOLUTIONS = (31, 61, 121)
#: the four blocks of Table 1 (:data:`solvers.finite_width.TABLE_1_BLOCKS`) on the map: the
#: legend's name, the superscript of the scheme's name and the marker
BLOCKS = {
    "as initialised": ("as initialised", "", "circle"),
    "stable": ("stable c_η*", "*", "diamond"),
    "feature learning": ("feature-learning pair", "⁺", "triangle-up"),
    "kernel": ("kernel pair", "⁻", "square"),
}


# -- what the controls pose ---------------------------------------------------------------------


def grid(controls: Controls) -> tuple[np.ndarray, np.ndarray]:
    """(c_η, c_γ) of the map's columns and rows (rounded, so Table 1's values are exact)."""
    count = int(controls.resolution)
    etas = np.round(np.linspace(*ETA_RANGE, count), 12) + 0.0
    gammas = np.round(np.linspace(*GAMMA_RANGE, count), 12) + 0.0
    return etas, gammas


def zero_output_for(controls: Controls, scheme: str) -> bool:
    """Whether the map assumes a zero initial output for ``scheme`` (Theorem 2, case 2)."""
    if controls.zero_output == "table":
        return scheme == "lazy"
    return controls.zero_output == "yes"


def plane(
    controls: Controls, scheme: str | None = None, split: float | None = None
) -> fw.PhasePlane:
    """The phase plane of ``scheme`` (the chosen one by default) as the controls pose it."""
    scheme = controls.scheme if scheme is None else scheme
    split = controls.split if split is None else split
    return fw.PhasePlane(scheme, zero_output_for(controls, scheme), split)


def sweep_schemes(controls: Controls) -> tuple[tuple[str, ...], bool]:
    """The schemes of the sweep, and whether the chosen one had to be replaced by Fig. 4's (the
    lazy scaling keeps the width fixed)."""
    if controls.sweep == "scheme":
        if controls.scheme == "lazy":
            return FIG4_SCHEMES, True
        return (controls.scheme,), False
    return FIG4_SCHEMES, False


def sweep_rows(controls: Controls) -> list[tuple[str, str]]:
    """(scheme, regime) of each sweep row, in the order of the sweep panels' traces."""
    schemes, _ = sweep_schemes(controls)
    return [(scheme, regime) for scheme in schemes for regime in REGIMES]


def widths(controls: Controls) -> np.ndarray:
    """The sweep's widths: ``count`` geometric steps over the range, rounded, unique."""
    low, high = sorted((controls.d_min, controls.d_max))
    return np.unique(np.round(np.geomspace(low, high, controls.count)).astype(np.int64))


def row_name(scheme: str, regime: str) -> str:
    return f"{scheme}{'⁻' if regime == 'kernel' else '⁺'}"


@dataclass(frozen=True)
class Markers:
    """One trace of Table-1 points on the map; each point is (scheme, block, c_η, c_γ)."""

    name: str
    symbol: str
    points: tuple[tuple[str, str, float, float], ...]
    #: points of the schemes that share the map's initialisation (else: the other schemes')
    own: bool


def markers(controls: Controls) -> list[Markers]:
    """The map's point traces in drawing order: one per Table-1 block for the schemes that share
    the chosen initialisation, then (optionally) one for every other scheme's points."""
    chosen = plane(controls)
    own = sorted(
        (s for s in SCHEMES if chosen.shares_initialisation(s)), key=lambda s: s != chosen.scheme
    )
    traces = []
    for block, (name, _mark, symbol) in BLOCKS.items():
        points = tuple((s, block, *fw.TABLE_1[s][block]) for s in own)
        traces.append(Markers(name, symbol, points, True))
    if controls.others:
        points = tuple(
            (s, block, *fw.TABLE_1[s][block]) for s in SCHEMES if s not in own for block in BLOCKS
        )
        traces.append(Markers("other schemes' points (another init)", "x-thin", points, False))
    return traces


# -- the phase map ---------------------------------------------------------------------------


def _line_traces(controls: Controls, result: Map) -> list[dict]:
    """The line m = 0, as two traces: left of the kink (kernel or feature learning, by Theorem
    2) and right of it (feature learning). Points at every grid column plus the kink."""
    etas, corner, chosen = result.phases.etas, result.kink, plane(controls)
    traces = []
    for side, phase in (("left", result.left_phase), ("right", "feature learning")):
        if side == "left":
            xs = np.append(etas[etas < corner], corner) if corner > etas[0] else np.array([])
            term = "the initialisation (kernel) term dominates"
        else:
            xs = np.insert(etas[etas > corner], 0, corner) if corner < etas[-1] else np.array([])
            term = "the feature term sets m"
        xs = xs[(xs >= etas[0]) & (xs <= etas[-1])]
        ys = chosen.boundary(xs) if xs.size else xs
        inside = (ys >= GAMMA_RANGE[0] - 1e-12) & (ys <= GAMMA_RANGE[1] + 1e-12)
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": xs[inside],
                "y": ys[inside],
                "name": f"m = 0: {phase}",
                "legendgroup": side,
                "line": {"color": MAP_COLORS[phase], "width": 4},
                "hovertemplate": f"m = 0, {term}: <b>{phase}</b><br>"
                "c_η = %{x:.3g}, c_γ = %{y:.3g}<extra></extra>",
            }
        )
    return traces


def _hover(controls: Controls, entry: Markers, point: tuple[str, str, float, float]) -> str:
    scheme, block, eta, gamma = point
    where = f"{scheme}{BLOCKS[block][1]} (c_η = {exponent_text(eta)}, c_γ = {exponent_text(gamma)})"
    here = plane(controls).phase(eta, gamma)
    if entry.own:
        return f"{where}: <b>{here}</b>"
    theirs = plane(controls, scheme, split=0.0).phase(eta, gamma)
    return (
        f"{where}, a {scheme} point: {theirs} with {scheme}'s own initialisation "
        f"(Table 1), {here} with {controls.scheme}'s"
    )


def _marker_trace(controls: Controls, entry: Markers) -> dict:
    own = entry.own
    return {
        "type": "scatter",
        "mode": "markers",
        "x": [p[2] for p in entry.points],
        "y": [p[3] for p in entry.points],
        "name": entry.name,
        "text": [_hover(controls, entry, point) for point in entry.points],
        "hovertemplate": "%{text}<extra></extra>",
        "marker": {
            "symbol": entry.symbol,
            "size": 13 if own else 9,
            "color": "white" if own else "#6c757d",
            "line": {"color": "#22313f" if own else "#6c757d", "width": 2},
        },
    }


def _marker_labels(controls: Controls, traces: list[Markers]) -> list[dict]:
    """The names of the own schemes' points written beside them (one label per place)."""
    if not controls.labels:
        return []
    names_at: dict[tuple[float, float], list] = {}
    for entry in (t for t in traces if t.own):
        for scheme, block, eta, gamma in entry.points:
            rank = (scheme != controls.scheme, SCHEMES.index(scheme), list(BLOCKS).index(block))
            names_at.setdefault((eta, gamma), []).append((rank, f"{scheme}{BLOCKS[block][1]}"))
    places = [
        (eta, gamma, " = ".join(name for _, name in sorted(names)))
        for (eta, gamma), names in names_at.items()
    ]
    offsets = fig.label_offsets(places, ETA_RANGE, GAMMA_RANGE, font=11)
    return [
        {
            "x": eta,
            "y": gamma,
            "text": text,
            "showarrow": True,
            "arrowhead": 0,
            "ax": ax,
            "ay": ay,
            "font": {"size": 11, "color": "#111"},
            "bgcolor": "rgba(255,255,255,0.85)",
            "borderpad": 2,
        }
        for (eta, gamma, text), (ax, ay) in zip(places, offsets, strict=True)
    ]


def _line_labels(controls: Controls, result: Map) -> list[dict]:
    if not controls.labels:
        return []
    corner, labels = result.kink, []
    for eta, phase, shift in (
        (max(corner - 2.6, ETA_RANGE[0] + 0.4), result.left_phase, (-20, -40)),
        (corner + 1.2, "feature learning", (40, 30)),
    ):
        # a label near the right edge points back from the left (it ran off a phone's plot)
        if eta > 0.3 * ETA_RANGE[1]:
            shift = (-abs(shift[0]), shift[1])
        if not ETA_RANGE[0] + 0.2 < eta < ETA_RANGE[1] - 0.2:
            continue
        gamma = float(plane(controls).boundary(eta)[0])
        if not GAMMA_RANGE[0] < gamma < GAMMA_RANGE[1]:
            continue
        labels.append(
            {
                "x": eta,
                "y": gamma,
                "text": f"<b>{phase}</b>",
                "showarrow": True,
                "arrowhead": 2,
                "ax": shift[0],
                "ay": shift[1],
                "font": {"size": 12, "color": MAP_COLORS[phase]},
                "bgcolor": "rgba(255,255,255,0.85)",
                "borderpad": 2,
                "xanchor": "right" if shift[0] < 0 else "left",
            }
        )
    return labels


def _colorscale() -> list:
    scale = []
    for code, name in enumerate(fw.PHASES):
        scale += [[code / 4, MAP_COLORS[name]], [(code + 1) / 4, MAP_COLORS[name]]]
    return scale


def _phase_heatmap(controls: Controls, result: Map) -> Figure:
    phases = result.phases
    regions = [(-1.9, -2.4, "frozen  (m < 0)"), (1.9, 1.4, "unstable  (m > 0)")]
    figure = fig.portrait(
        phases.codes,
        phases.etas,
        phases.gammas,
        x_title="learning-rate exponent c_η  (η ∝ κ^c_η)",
        y_title="output-scale exponent c_γ  (γ ∝ κ^c_γ)",
        colorbar="phase",
        zmin=-0.5,
        zmax=3.5,
        colorscale=_colorscale(),
        labels=regions if controls.labels else [],
        hover="c_η = %{x:.3g}, c_γ = %{y:.3g}: <b>%{text}</b>, m = %{customdata:.3g}",
        height=500,
        customdata=phases.m,
    )
    heatmap = figure["data"][0]
    heatmap["text"] = np.array(fw.PHASES, dtype=object)[phases.codes].tolist()
    # the legend is the key (a colour bar of four names took 140 px of a phone's 356)
    heatmap["showscale"] = False
    return figure


def _region_keys() -> list[dict]:
    """Legend entries (no points) for the two regions off the line m = 0."""
    return [
        {
            "type": "scatter",
            "x": [None],
            "y": [None],
            "mode": "markers",
            "name": f"{phase}  (m {sign} 0)",
            "marker": {"symbol": "square", "size": 12, "color": MAP_COLORS[phase]},
            "hoverinfo": "skip",
        }
        for phase, sign in (("frozen", "<"), ("unstable", ">"))
    ]


def draw_phase(controls: Controls, result: Map) -> Figure:
    """The phase map: cells (trace 0), the line m = 0 (traces 1 and 2), Table 1's points (from
    trace 3 on, as :func:`markers` lists them) — the order the map's clicks read."""
    figure = _phase_heatmap(controls, result)
    traces = markers(controls)
    figure["data"] += _line_traces(controls, result)
    figure["data"] += [_marker_trace(controls, entry) for entry in traces]
    figure["data"] += _region_keys()  # after the markers: clicks read curves by position
    layout = figure["layout"]
    layout["annotations"] += _line_labels(controls, result) + _marker_labels(controls, traces)
    layout["showlegend"] = True
    layout["legend"] = fig.LEGEND | {"font": {"size": 11}}
    layout["xaxis"] |= {"range": [ETA_RANGE[0] - 0.06, ETA_RANGE[1] + 0.06], "dtick": 1}
    layout["yaxis"] |= {"range": [GAMMA_RANGE[0] - 0.05, GAMMA_RANGE[1] + 0.05], "dtick": 0.5}
    return fig.fit(figure)


# -- the width sweep -----------------------------------------------------------------------------


def fit_text(slope: float | None) -> str:
    return "no fit" if slope is None else f"d^{slope:+.2f}".replace("-", "−")


def _sweep_row(result: Map, index: int, quantity: str) -> tuple[np.ndarray, str, str]:
    """(values, legend name, what the hover calls them) of sweep row ``index``."""
    sweep = result.sweep
    scheme, regime = result.rows[index]
    # the caption says which pair ⁻ and ⁺ mark (with the regime in full, a phone's legend
    # took six rows)
    name = row_name(scheme, regime)
    if quantity == "ntk":
        return sweep.ntk_change[index], f"{name}: {fit_text(result.ntk_fits[index])}", "|ΔK|/K(0)"
    if quantity == "weights":
        slope = result.weight_fits[index]
        delta = "no fit" if slope is None else f"δ = {-slope:.2f}"
        return sweep.weight_change[index], f"{name}: {delta}", "‖ΔW‖/‖W₀‖"
    return sweep.final_alignment[index], name, "ζ(∞)"


TITLES = {"ntk": "|K(∞) − K(0)| / K(0)", "weights": "‖W(∞) − W(0)‖ / ‖W(0)‖", "zeta": "ζ(∞)"}


def _sweep_figure(controls: Controls, result: Map, quantity: str) -> Figure:
    width = result.sweep.widths.astype(float)
    data = []
    for index, (scheme, regime) in enumerate(result.rows):
        values, label, what = _sweep_row(result, index, quantity)
        dash = None if regime == "kernel" else "dash"
        trace = fig.exact_trace(width, values, label, SCHEME_COLORS[scheme], dash=dash)
        trace["mode"] = "lines+markers"
        trace["marker"] = {"size": 6, "symbol": "square" if regime == "kernel" else "triangle-up"}
        name = row_name(scheme, regime)
        trace["hovertemplate"] = f"{name}: d = %{{x}}, {what} = %{{y:.4g}}<extra></extra>"
        data.append(trace)
    log_y = quantity != "zeta"
    figure = fig.figure(
        data,
        x_title="width d  (κ = d)",
        y_title=TITLES[quantity],
        log_x=True,
        log_y=log_y,
        height=380,
        hovermode="closest",
        # decades only: the 2s and 5s between ran into each other on a phone
        xaxis=fig.axis("width d  (κ = d)", log=True, dtick=1),
    )
    # (the legend above the plot, in rows: on the right it left a phone's plot 64 px wide)
    return figure


def draw_ntk(controls: Controls, result: Map) -> Figure:
    return _sweep_figure(controls, result, "ntk")


def draw_weights(controls: Controls, result: Map) -> Figure:
    return _sweep_figure(controls, result, "weights")


def draw_zeta(controls: Controls, result: Map) -> Figure:
    figure = _sweep_figure(controls, result, "zeta")
    figure["data"].append(
        {
            "type": "scatter",
            "mode": "lines",
            "x": result.sweep.widths.astype(float),
            "y": result.sweep.initial_alignment,
            "name": "ζ(0), every row",
            "line": {"color": "#6c757d", "width": 1.5, "dash": "dot"},
            "hovertemplate": "ζ(0) = %{y:.3g} at d = %{x}<extra></extra>",
        }
    )
    return figure


PANELS = (
    Panel(
        "phase",
        "Scaling phases over (c_η, c_γ) — eq. 18, Theorem 2, Table 1",
        r"Every hyperparameter is a power of $\kappa\to\infty$ ($d \propto \kappa^{c_d}$, "
        r"$\gamma \propto \kappa^{c_\gamma}$, $\sigma^2 \propto \kappa^{c}$, "
        r"$\eta \propto \kappa^{c_\eta}$). With $m = \max(2c_\gamma + c_{\eta_u} + c_{\eta_w},\ "
        r"2c_\gamma + c_d + \max(c_{\eta_w} + c_u, c_{\eta_u} + c_w))$: below the line $m = 0$ "
        r"the model is *frozen* ($t_c \to \infty$), above it *unstable* ($t_c \to 0$). On the "
        r"line it is in the *kernel* phase where the initialisation term strictly dominates and "
        r"$P/Q \to 1$ (blue), else it learns *features* (orange). With equal learning rates the "
        r"line bends at $c_\eta = c_d + \max(c_u, c_w)$, where the two terms are equal. Markers: "
        r"Table 1's scalings (○ as initialised, ◇ $c_\eta^*$, △ the feature-learning pair "
        r"$^+$, □ the kernel pair $^-$). Click anywhere to open that network at the chosen "
        r"$\kappa$; time there is in units of $t_c$, so a frozen or unstable cell shows how it "
        r"learns once it does (the learning rate only sets $t_c$ at finite width).",
        draw_phase,
        height=500,
        wide=True,
    ),
    Panel(
        "ntk",
        "How far the NTK moves, versus width (Fig. 4 set-up)",
        r"$|K(\infty) - K(0)|/K(0)$ of the exact solution with $K = K(x, x)$, for the Table-1 "
        r"pairs with $\kappa = d$: $\gamma = d^{c_\gamma}$, $\sigma_u = d^{c_u/2}$, "
        r"$\sigma_w = d^{c_w/2}$, $\eta_u = \eta_w = d^{c_\eta}$. Solid: kernel pair "
        r"($^-$), the change vanishes like a power of $d$; dashed: feature-learning pair ($^+$), "
        r"it stays $O(1)$. The legend gives the exponent of a least-squares fit on the log-log "
        r"axes. One Gaussian draw per width (the seed), so the points scatter around the power "
        r"law. Click a point to open it.",
        draw_ntk,
        height=380,
    ),
    Panel(
        "weights",
        "How far the first layer moves: ‖W(∞) − W(0)‖/‖W(0)‖",
        r"Their Fig. 4 (right) and App. B.4: $\propto d^{-\delta}$ with $\delta = 0$ in the "
        r"feature-learning phase. The legend gives the fitted $\delta$. Their B.4 estimates "
        r"$\delta = \tfrac12, 1, 2$ for NTK⁻, Xavier⁻, Kaiming⁻ (their ReLU network measured "
        r"0.47, 1.08, 1.93); in this linear model Xavier⁻'s initial output "
        r"$\gamma\sigma_u\sigma_w\sum_i g_i h_i$ grows like $\sqrt d$ and Kaiming⁻ keeps the "
        r"first-order term of their eq. 49, so the exact values differ — compare in the "
        r"summary.",
        draw_weights,
        height=380,
    ),
    Panel(
        "zeta",
        "Final layer alignment ζ(∞) versus width",
        r"$\zeta = \cos(u, W\hat x)$ at convergence (their eq. 14). In the kernel pairs it "
        r"falls towards 0 with $d$, as the random initial $\zeta(0) = O(1/\sqrt d)$ (dotted) "
        r"does: no $O(1)$ alignment is learned. The feature-learning pairs align by $O(1)$ at "
        r"every width. NTK⁺ and Xavier⁺ are one network in two parameterisations (the symmetry "
        r"$u, W \to su, sW$, $\gamma \to \gamma/s^2$, $\eta \to s^2\eta$), so their lines "
        r"coincide in every panel.",
        draw_zeta,
        height=380,
        wide=True,
    ),
)
