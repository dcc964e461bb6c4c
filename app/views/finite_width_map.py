"""Finite-width map (Xu & Ziyin, *Three mechanisms of feature learning in a linear network*, §4):
the scaling-phase diagram over the learning-rate and output-scale exponents (c_η, c_γ) of one
initialisation scheme (their eq. 18, Theorem 2, Table 1), and the width sweep of their Fig. 4 —
how far the exact t → ∞ solution moves from its initialisation as the width d grows, in the
kernel and the feature-learning scalings of Table 1. Clicking a cell, a line or a point opens
that network in the finite-width trajectory view."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from dash import html

from solvers import finite_width as fw

from .. import components
from .. import figures as fig
from ..state import Field, StateSpec
from ..view import Panel, Preset, Rendered, View, clicked_cell, nearest_index
from . import finite_width as trajectory

SCHEMES = ("NTK", "MF", "Xavier", "Kaiming", "lazy")
#: the width-scaled schemes of Fig. 4 (MF's Table-1 pairs are NTK's: same initialisation)
FIG4_SCHEMES = ("NTK", "Xavier", "Kaiming")
REGIMES = ("kernel", "feature learning")
PHASES = ("frozen", "kernel", "feature learning", "unstable")  # codes 0…3 of the map
PHASE_CODE = {name: code for code, name in enumerate(PHASES)}
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
#: a click opens at most this width (the trajectory view's cap)
MAX_OPEN_WIDTH = trajectory.MAX_WIDTH
#: width of a fixed-width scheme (c_d = 0, the lazy scaling) when a click opens it
LAZY_WIDTH = 100
#: the four blocks of Table 1 (their §4) as (name, superscript, marker): c_η = 0 with the
#: scheme's own c_γ; the stabilising c_η*; the feature-learning (⁺) and kernel (⁻) pairs
#: (c_η, c_γ). The values come from the trajectory view's copy of the table (lazy included).
BLOCKS = (
    ("as initialised", "", "circle"),
    ("stable c_η*", "*", "diamond"),
    ("feature-learning pair", "⁺", "triangle-up"),
    ("kernel pair", "⁻", "square"),
)

SPEC = StateSpec(
    (
        Field(
            "scheme",
            "initialisation scheme",
            "choice",
            "NTK",
            choices=SCHEMES,
            help="Table 1's schemes fix c_d, c_u, c_w (σ_u² ∝ κ^c_u, σ_w² ∝ κ^c_w); NTK and MF "
            "share their initialisation, so they share a map",
        ),
        Field(
            "zero_output",
            "zero initial output (Chizat's lazy init)",
            "choice",
            "table",
            choices=("table", "yes", "no"),
            choice_labels=("as in Table 1 (lazy only)", "yes", "no"),
            help="A zero initial output makes P/Q → 1 (Theorem 2, case 2)",
        ),
        Field(
            "split",
            "c_ηu − c_ηw",
            "float",
            0.0,
            -2.0,
            2.0,
            step=0.25,
            help="0: both layers learn at κ^c_η (Table 1); otherwise c_ηu = c_η + split/2, "
            "c_ηw = c_η − split/2 (case 3 of Theorem 2)",
        ),
        Field(
            "resolution",
            "cells per side",
            "choice",
            61,
            choices=RESOLUTIONS,
            help="Every Table-1 point is a cell at each resolution",
        ),
        Field("labels", "write phases and Table-1 points on the map", "bool", True, physics=False),
        Field(
            "others",
            "show the other schemes' Table-1 points",
            "bool",
            False,
            physics=False,
            help="Grey: points of schemes with another initialisation (their phase is theirs, "
            "not this map's)",
        ),
        Field(
            "kappa",
            "κ of a clicked map cell",
            "int",
            100,
            2,
            MAX_OPEN_WIDTH,
            log=True,
            physics=False,
            help=f"A click opens the network at this κ: width d = κ (c_d = 1) or d = {LAZY_WIDTH} "
            "(lazy, c_d = 0), γ = κ^c_γ, σ² = κ^c, η = κ^c_η",
        ),
        Field(
            "sweep",
            "rows of the width sweep",
            "choice",
            "all",
            choices=("scheme", "all"),
            choice_labels=("the chosen scheme", "NTK, Xavier, Kaiming (Fig. 4)"),
        ),
        # from d = 2: a single neuron is always aligned (ζ = ±1), and its sweep has no limit
        # when the flow runs into u = 0 or w = 0 (y = 0)
        Field("d_min", "smallest width", "int", 10, 2, fw.MAX_SWEEP_WIDTH, log=True),
        Field("d_max", "largest width", "int", 1000, 2, fw.MAX_SWEEP_WIDTH, log=True),
        Field(
            "count",
            "number of widths",
            "int",
            21,
            2,
            fw.MAX_SWEEP_WIDTHS,
            step=1,
            help="Geometrically spaced, rounded to whole widths",
        ),
        Field("y", "target y (x = 1)", "float", 1.0, -10.0, 10.0, step=0.1),
        Field("seed", "random seed", "int", 0, 0, 999, step=1),
    )
)

GROUPS = (
    ("Phase map", ("scheme", "zero_output", "split", "resolution", "labels", "others", "kappa")),
    ("Width sweep", ("sweep", "d_min", "d_max", "count", "y", "seed")),
)

PRESETS = (
    Preset(
        "Table 1 — NTK and MF (σ_u = σ_w = 1)",
        "Standard NTK (c_η = 0, c_γ = −½) sits on the kernel segment; MF (c_γ = −1) is frozen "
        "at c_η = 0 and learns features at c_η* = 1, the kink (= NTK⁺ = MF⁺).",
        {"scheme": "NTK", "zero_output": "table", "split": 0.0, "sweep": "scheme"},
    ),
    Preset(
        "Table 1 — Xavier",
        "Xavier (σ² = 1/d) learns features as it is: c_η = c_γ = 0 is the kink of the m = 0 "
        "line. Xavier⁻ = (−2, 1) is the kernel phase.",
        {"scheme": "Xavier", "zero_output": "table", "split": 0.0, "sweep": "scheme"},
    ),
    Preset(
        "Table 1 — Kaiming",
        "Kaiming (σ_u² = 1/d, σ_w² = 1) is unstable at c_η = 0 and in the kernel phase at "
        "c_η* = −1 (= Kaiming⁻); Kaiming⁺ = (1, −1) learns features.",
        {"scheme": "Kaiming", "zero_output": "table", "split": 0.0, "sweep": "scheme"},
    ),
    Preset(
        "Table 1 — lazy (fixed width, zero initial output)",
        "Chizat's scaling γ = κ: unstable at c_η = 0, kernel at c_η* = −2 (= lazy⁻), features "
        "at (0, 0). Fixed width has no width sweep: the sweep shows Fig. 4's schemes.",
        {"scheme": "lazy", "zero_output": "table", "split": 0.0, "sweep": "all"},
    ),
    Preset(
        "Theorem 2 — lazy scaling with a random initial output",
        "At fixed width a non-zero initial output keeps P/Q away from 1: the whole m = 0 line "
        "learns features, lazy⁻ included.",
        {"scheme": "lazy", "zero_output": "no", "split": 0.0, "sweep": "all"},
    ),
    Preset(
        "Theorem 2, case 3 — unbalanced learning rates",
        "c_ηu − c_ηw = 1 ≠ c_u − c_w: P/Q → 1 at fixed width without a zero output, so the "
        "left part of the line is kernel again (it moves down by ¼, off the equal-rate points).",
        {"scheme": "lazy", "zero_output": "no", "split": 1.0, "sweep": "all"},
    ),
    Preset(
        "Fig. 4 — kernel and feature-learning pairs, d = 10 to 1000",
        "NTK, Xavier, Kaiming: the kernel pairs (solid) move less and less as d grows, the "
        "feature-learning pairs (dashed) keep moving by O(1). Every point opens.",
        {"sweep": "all", "d_min": 10, "d_max": 1000, "count": 21, "seed": 0},
    ),
    Preset(
        "Fig. 4 at the caps — 64 widths up to 10⁴",
        "The largest sweep (64 widths, d ≤ 10⁴) and the finest map; widths above 1000 do not "
        "open (the trajectory view stops there).",
        {"sweep": "all", "d_min": 10, "d_max": 10_000, "count": 64, "resolution": 121},
    ),
)

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
        height=380,
        wide=True,
    ),
)

INTRO = (
    r"Xu & Ziyin's phase diagram of a two-layer linear network, $f(x) = \gamma\sum_i u_i\, "
    r"w_i^\top x$, when width, output scale, initialisation and learning rates all scale as "
    r"powers of $\kappa$. Their learning time obeys $t_c^{-2} = \eta_u\eta_w\gamma^2\rho^2y^2 + "
    r"4\rho^4(\gamma^2 d)^2PQ$: the first term is feature learning, the second the kernel. "
    r"Learning is neither frozen nor unstable only on the line $m = 0$ of eq. 18, and on that "
    r"line Theorem 2 decides: kernel where the initialisation term wins strictly and "
    r"$P/Q \to 1$, features otherwise. Pick an initialisation (Table 1's columns) to see where "
    r"its standard, stable, feature-learning and kernel scalings fall; below, the exact "
    r"solution at growing width shows the difference the phase makes (their Fig. 4)."
)


# -- the map --------------------------------------------------------------------------------------


def grid(values: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """(c_η, c_γ) of the map's columns and rows (rounded, so Table 1's values are exact)."""
    count = int(values["resolution"])
    etas = np.round(np.linspace(*ETA_RANGE, count), 12) + 0.0
    gammas = np.round(np.linspace(*GAMMA_RANGE, count), 12) + 0.0
    return etas, gammas


def exponents(scheme: str) -> tuple[float, float, float]:
    """(c_d, c_u, c_w) of a Table-1 scheme."""
    scaling = fw.SCALINGS[scheme]
    return scaling["c_d"], scaling["c_u"], scaling["c_w"]


def zero_output_for(values: Mapping[str, Any], scheme: str) -> bool:
    """Whether the map assumes a zero initial output for ``scheme`` (Theorem 2, case 2)."""
    if values["zero_output"] == "table":
        return scheme == "lazy"
    return values["zero_output"] == "yes"


def learning_rates(values: Mapping[str, Any], c_eta: float) -> tuple[float, float]:
    """(c_ηu, c_ηw) of the map's column c_η (the split shares the difference evenly)."""
    half = values["split"] / 2
    return c_eta + half, c_eta - half


def phase_at(values: Mapping[str, Any], scheme: str, c_eta: float, c_gamma: float) -> str:
    """:func:`solvers.finite_width.phase` of ``scheme``'s initialisation at (c_η, c_γ)."""
    c_d, c_u, c_w = exponents(scheme)
    return fw.phase(
        c_d,
        c_gamma,
        c_u,
        c_w,
        *learning_rates(values, c_eta),
        zero_output_init=zero_output_for(values, scheme),
    )


def boundary(values: Mapping[str, Any], scheme: str, c_eta) -> np.ndarray:
    """c_γ of the line m = 0 at ``c_eta``: both terms of eq. 18 are 2c_γ plus a function of the
    learning rates alone (read off :func:`solvers.finite_width.phase_terms` at c_γ = 0), so
    m = 0 ⇔ c_γ = −max(feature, kernel)/2 there."""
    c_d, c_u, c_w = exponents(scheme)
    etas = np.atleast_1d(np.asarray(c_eta, dtype=float))
    out = np.empty_like(etas)
    for index, eta in enumerate(etas):
        terms = fw.phase_terms(c_d, 0.0, c_u, c_w, *learning_rates(values, float(eta)))
        out[index] = -terms.m / 2
    return out


def kink(values: Mapping[str, Any], scheme: str) -> float:
    """c_η where the two terms of eq. 18 are equal: left of it the initialisation (kernel)
    term sets m, right of it the feature term. Their difference falls with slope −1 in c_η."""
    c_d, c_u, c_w = exponents(scheme)
    terms = fw.phase_terms(c_d, 0.0, c_u, c_w, *learning_rates(values, 0.0))
    return terms.kernel_term - terms.feature_term


def phase_grid(values: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """(codes, m) over the grid, codes indexing :data:`PHASES`.

    m = 2c_γ + max(feature, kernel)|_{c_γ=0} per column (from
    :func:`solvers.finite_width.phase_terms`); off the line m = 0 the phase is frozen (m < 0) or
    unstable (m > 0), and each cell on the line is classified by :func:`solvers.finite_width.phase`
    itself — the tests check the whole grid against a cell-by-cell call of it."""
    scheme = values["scheme"]
    etas, gammas = grid(values)
    offset = -2 * boundary(values, scheme, etas)  # max of the two terms at c_γ = 0
    m = 2 * gammas[:, None] + offset[None, :]
    codes = np.where(m < 0, PHASE_CODE["frozen"], PHASE_CODE["unstable"])
    for row, column in zip(*np.nonzero(np.abs(m) < 1e-6), strict=True):
        name = phase_at(values, scheme, float(etas[column]), float(gammas[row]))
        codes[row, column] = PHASE_CODE[name]
        m[row, column] = 0.0 if name in ("kernel", "feature learning") else m[row, column]
    return codes, m


def table_points(scheme: str) -> list[tuple[int, float, float]]:
    """Table 1's (block, c_η, c_γ) for one scheme (block indexes :data:`BLOCKS`)."""
    row = trajectory.TABLE_1[scheme]
    own_gamma = fw.SCALINGS[scheme]["c_gamma"]
    return [
        (0, 0.0, own_gamma),
        (1, row["star"], own_gamma),
        (2, *row["plus"]),
        (3, *row["minus"]),
    ]


def same_initialisation(scheme: str, other: str) -> bool:
    return exponents(scheme) == exponents(other)


def markers(values: Mapping[str, Any]) -> list[dict]:
    """The map's point traces in drawing order: one per Table-1 block for the schemes that share
    the chosen initialisation, then (optionally) one for every other scheme's points. Each entry
    lists its points as (scheme, block, c_η, c_γ)."""
    scheme = values["scheme"]
    own = [s for s in SCHEMES if same_initialisation(scheme, s)]
    own.sort(key=lambda s: s != scheme)
    traces = []
    for block, (name, _mark, symbol) in enumerate(BLOCKS):
        points = [
            (s, b, eta, gamma) for s in own for b, eta, gamma in table_points(s) if b == block
        ]
        traces.append({"name": name, "symbol": symbol, "points": points, "own": True})
    if values["others"]:
        points = [
            (s, b, eta, gamma) for s in SCHEMES if s not in own for b, eta, gamma in table_points(s)
        ]
        traces.append({"name": "other schemes", "symbol": "x-thin", "points": points, "own": False})
    return traces


# -- the width sweep ------------------------------------------------------------------------------


def sweep_schemes(values: Mapping[str, Any]) -> tuple[tuple[str, ...], str | None]:
    """The schemes of the sweep, and a note when the choice cannot be honoured."""
    if values["sweep"] == "scheme":
        if values["scheme"] == "lazy":
            return FIG4_SCHEMES, (
                "The lazy scaling keeps the width fixed (c_d = 0), so it has no width sweep: "
                "the sweep shows NTK, Xavier and Kaiming instead."
            )
        return (values["scheme"],), None
    return FIG4_SCHEMES, None


def sweep_rows(values: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(scheme, regime) of each sweep row, in the order of the sweep panels' traces."""
    schemes, _ = sweep_schemes(values)
    return [(scheme, regime) for scheme in schemes for regime in REGIMES]


def widths(values: Mapping[str, Any]) -> np.ndarray:
    """The sweep's widths: ``count`` geometric steps over the range, rounded, unique."""
    low, high = sorted((values["d_min"], values["d_max"]))
    return np.unique(np.round(np.geomspace(low, high, values["count"])).astype(np.int64))


def row_name(scheme: str, regime: str) -> str:
    return f"{scheme}{'⁻' if regime == 'kernel' else '⁺'}"


def power_fit(width: np.ndarray, values: np.ndarray) -> float | None:
    """Slope of log(values) against log(width) (least squares), None without two points."""
    keep = (values > 0) & np.isfinite(values)
    if np.count_nonzero(keep) < 2 or np.ptp(np.log(width[keep])) == 0:
        return None
    return float(np.polyfit(np.log(width[keep]), np.log(values[keep]), 1)[0])


def predicted_delta(scheme: str, regime: str) -> float:
    """App. B.4's exponent δ of ‖W − W₀‖/‖W₀‖ ∝ κ^{−δ}: 0 for feature learning; in the kernel
    phase −(2c_γ + c_ηu + c_ηw)/2 when c_u = c_w, else −(2c_γ + c_ηu + c_ηw)."""
    if regime != "kernel":
        return 0.0
    c_eta, c_gamma = fw.TABLE_1[scheme][regime]
    _, c_u, c_w = exponents(scheme)
    exponent = 2 * c_gamma + 2 * c_eta
    return -exponent / 2 if c_u == c_w else -exponent


# -- compute, render, export ---------------------------------------------------------------------


def compute(values: Mapping[str, Any]) -> dict:
    start = time.perf_counter()
    scheme = values["scheme"]
    etas, gammas = grid(values)
    codes, m = phase_grid(values)
    corner = kink(values, scheme)
    # the line left of the kink, where the initialisation (kernel) term sets m
    left_eta = corner - 1.0
    left = phase_at(values, scheme, left_eta, float(boundary(values, scheme, left_eta)[0]))
    mapped = time.perf_counter()
    schemes, sweep_note = sweep_schemes(values)
    width = widths(values)
    sweep = fw.width_sweep(
        width, schemes=schemes, regimes=REGIMES, x=1.0, y=values["y"], seed=values["seed"]
    )
    rows = list(zip(sweep.schemes, sweep.regimes, strict=True))
    fits = {
        "ntk": [power_fit(width.astype(float), sweep.ntk_change[r]) for r in range(len(rows))],
        "weights": [
            power_fit(width.astype(float), sweep.weight_change[r]) for r in range(len(rows))
        ],
    }
    table = {
        s: [
            (b, eta, gamma, phase_at(values, scheme, eta, gamma))
            for b, eta, gamma in table_points(s)
        ]
        for s in SCHEMES
    }
    end = time.perf_counter()
    return {
        "etas": etas,
        "gammas": gammas,
        "codes": codes,
        "m": m,
        "kink": corner,
        "left_phase": left,
        "table": table,
        "sweep": sweep,
        "rows": rows,
        "sweep_note": sweep_note,
        "fits": fits,
        "map_ms": 1e3 * (mapped - start),
        "sweep_ms": 1e3 * (end - mapped),
    }


def _fmt(value: float) -> str:
    """Exponents as the paper prints them (−1/2, 3/4, …)."""
    value = float(value)
    for denominator in (1, 2, 4, 3):
        if abs(value * denominator - round(value * denominator)) < 1e-9:
            numerator = round(value * denominator)
            text = str(numerator) if denominator == 1 else f"{numerator}/{denominator}"
            return text.replace("-", "−")
    return f"{value:.3g}".replace("-", "−")


def _line_traces(values: Mapping[str, Any], result: dict) -> list[dict]:
    """The line m = 0, as two traces: left of the kink (kernel or feature learning, by Theorem
    2) and right of it (feature learning). Points at every grid column plus the kink."""
    scheme, etas = values["scheme"], result["etas"]
    corner = result["kink"]
    traces = []
    for side, phase in (("left", result["left_phase"]), ("right", "feature learning")):
        if side == "left":
            xs = np.append(etas[etas < corner], corner) if corner > etas[0] else np.array([])
            term = "the initialisation (kernel) term dominates"
        else:
            xs = np.insert(etas[etas > corner], 0, corner) if corner < etas[-1] else np.array([])
            term = "the feature term sets m"
        xs = xs[(xs >= etas[0]) & (xs <= etas[-1])]
        ys = boundary(values, scheme, xs) if xs.size else xs
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


def _marker_traces(values: Mapping[str, Any], result: dict) -> tuple[list[dict], list[dict]]:
    """Table 1's points (one trace per block, then the other schemes' points) and, with labels
    on, their names written beside them (points at the same place share one label)."""
    scheme = values["scheme"]
    traces, names_at = [], {}
    for entry in markers(values):
        own = entry["own"]
        hover = []
        for s, block, eta, gamma in entry["points"]:
            name = f"{s}{BLOCKS[block][1]}"
            where = f"{name} (c_η = {_fmt(eta)}, c_γ = {_fmt(gamma)})"
            here = phase_at(values, scheme, eta, gamma)
            if own:
                rank = (s != scheme, SCHEMES.index(s), block)
                names_at.setdefault((eta, gamma), []).append((rank, name))
                hover.append(f"{where}: <b>{here}</b>")
            else:
                theirs = phase_at(values | {"split": 0.0}, s, eta, gamma)
                hover.append(
                    f"{where}, a {s} point: {theirs} with {s}'s own initialisation "
                    f"(Table 1), {here} with {scheme}'s"
                )
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": [p[2] for p in entry["points"]],
                "y": [p[3] for p in entry["points"]],
                "name": entry["name"] if own else "other schemes' points (another init)",
                "text": hover,
                "hovertemplate": "%{text}<extra></extra>",
                "marker": {
                    "symbol": entry["symbol"],
                    "size": 13 if own else 9,
                    "color": "white" if own else "#6c757d",
                    "line": {"color": "#22313f" if own else "#6c757d", "width": 2},
                },
            }
        )
    annotations = [
        {
            "x": eta,
            "y": gamma,
            "text": " = ".join(name for _, name in sorted(names)),
            "showarrow": True,
            "arrowhead": 0,
            "ax": 34,
            "ay": -26,
            "font": {"size": 12, "color": "#111"},
            "bgcolor": "rgba(255,255,255,0.85)",
            "borderpad": 2,
        }
        for (eta, gamma), names in names_at.items()
    ]
    return traces, annotations if values["labels"] else []


def _region_labels(values: Mapping[str, Any], result: dict) -> list[tuple[float, float, str]]:
    if not values["labels"]:
        return []
    return [(-1.9, -2.4, "frozen  (m < 0)"), (1.9, 1.4, "unstable  (m > 0)")]


def _line_labels(values: Mapping[str, Any], result: dict) -> list[dict]:
    if not values["labels"]:
        return []
    scheme, corner = values["scheme"], result["kink"]
    labels = []
    for eta, phase, shift in (
        (max(corner - 2.6, ETA_RANGE[0] + 0.4), result["left_phase"], (-20, -40)),
        (corner + 1.2, "feature learning", (40, 30)),
    ):
        if not ETA_RANGE[0] + 0.2 < eta < ETA_RANGE[1] - 0.2:
            continue
        gamma = float(boundary(values, scheme, eta)[0])
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
                "font": {"size": 14, "color": MAP_COLORS[phase]},
                "bgcolor": "rgba(255,255,255,0.85)",
                "borderpad": 3,
            }
        )
    return labels


def _colorscale() -> list:
    scale = []
    for code, name in enumerate(PHASES):
        scale += [[code / 4, MAP_COLORS[name]], [(code + 1) / 4, MAP_COLORS[name]]]
    return scale


def phase_figure(values: Mapping[str, Any], result: dict) -> dict:
    etas, gammas, codes = result["etas"], result["gammas"], result["codes"]
    names = np.array(PHASES, dtype=object)[codes]
    figure = fig.portrait(
        codes,
        etas,
        gammas,
        x_title="learning-rate exponent c_η  (η ∝ κ^c_η)",
        y_title="output-scale exponent c_γ  (γ ∝ κ^c_γ)",
        colorbar="phase",
        zmin=-0.5,
        zmax=3.5,
        colorscale=_colorscale(),
        labels=_region_labels(values, result),
        hover="c_η = %{x:.3g}, c_γ = %{y:.3g}: <b>%{text}</b>, m = %{customdata:.3g}",
        height=500,
        customdata=result["m"],
    )
    heatmap = figure["data"][0]
    heatmap["text"] = names.tolist()
    heatmap["colorbar"] |= {
        "tickvals": list(range(len(PHASES))),
        "ticktext": list(PHASES),
        "title": {"text": "phase", "side": "top"},
        "len": 0.75,
        "y": 0.4,
    }
    marker_traces, marker_labels = _marker_traces(values, result)
    figure["data"] += _line_traces(values, result) + marker_traces
    layout = figure["layout"]
    layout["annotations"] += _line_labels(values, result) + marker_labels
    layout["showlegend"] = True
    layout["legend"] = {
        "orientation": "h",
        "y": 1.01,
        "yanchor": "bottom",
        "x": 0,
        "font": {"size": 11},
    }
    layout["margin"] = {"l": 64, "r": 10, "t": 40, "b": 48}
    layout["xaxis"] |= {"range": [ETA_RANGE[0] - 0.06, ETA_RANGE[1] + 0.06], "dtick": 1}
    layout["yaxis"] |= {"range": [GAMMA_RANGE[0] - 0.05, GAMMA_RANGE[1] + 0.05], "dtick": 0.5}
    return figure


def _fit_text(slope: float | None) -> str:
    return "no fit" if slope is None else f"d^{slope:+.2f}".replace("-", "−")


def sweep_figure(values: Mapping[str, Any], result: dict, quantity: str) -> dict:
    sweep, rows = result["sweep"], result["rows"]
    width = sweep.widths.astype(float)
    data = []
    for index, (scheme, regime) in enumerate(rows):
        name = row_name(scheme, regime)
        if quantity == "ntk":
            y = sweep.ntk_change[index]
            label = f"{name} ({regime}): {_fit_text(result['fits']['ntk'][index])}"
            what = "|ΔK|/K(0)"
        elif quantity == "weights":
            y = sweep.weight_change[index]
            slope = result["fits"]["weights"][index]
            delta = "no fit" if slope is None else f"δ = {-slope:.2f}"
            label = f"{name} ({regime}): {delta}"
            what = "‖ΔW‖/‖W₀‖"
        else:
            y = sweep.final_alignment[index]
            label = f"{name} ({regime})"
            what = "ζ(∞)"
        trace = fig.exact_trace(
            width,
            y,
            label,
            SCHEME_COLORS[scheme],
            dash=None if regime == "kernel" else "dash",
        )
        trace["mode"] = "lines+markers"
        trace["marker"] = {
            "size": 6,
            "symbol": "square" if regime == "kernel" else "triangle-up",
        }
        trace["hovertemplate"] = f"{name}: d = %{{x}}, {what} = %{{y:.4g}}<extra></extra>"
        data.append(trace)
    log_y = quantity != "zeta"
    if quantity == "zeta":
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": width,
                "y": sweep.initial_alignment,
                "name": "ζ(0), every row",
                "line": {"color": "#6c757d", "width": 1.5, "dash": "dot"},
                "hovertemplate": "ζ(0) = %{y:.3g} at d = %{x}<extra></extra>",
            }
        )
    titles = {
        "ntk": "|K(∞) − K(0)| / K(0)",
        "weights": "‖W(∞) − W(0)‖ / ‖W(0)‖",
        "zeta": "ζ(∞)",
    }
    figure = fig.figure(
        data,
        x_title="width d  (κ = d)",
        y_title=titles[quantity],
        log_x=True,
        log_y=log_y,
        height=380,
        hovermode="closest",
    )
    figure["layout"]["legend"] = {
        "orientation": "v",
        "x": 1.02,
        "xanchor": "left",
        "y": 1,
        "font": {"size": 11},
    }
    figure["layout"]["margin"] |= {"r": 190, "l": 80 if log_y else 60}
    return figure


def render(values: Mapping[str, Any], result: dict) -> Rendered:
    figures = {
        "phase": phase_figure(values, result),
        "ntk": sweep_figure(values, result, "ntk"),
        "weights": sweep_figure(values, result, "weights"),
        "zeta": sweep_figure(values, result, "zeta"),
    }
    messages = []
    if result["sweep_note"]:
        messages.append(result["sweep_note"])
    if values["d_min"] > values["d_max"]:
        messages.append(
            f"The smallest width ({values['d_min']}) is above the largest ({values['d_max']}): "
            "the sweep runs between them anyway."
        )
    if values["split"] != 0:
        messages.append(
            "Table 1 sets both learning rates equal; with c_ηu − c_ηw = "
            f"{_fmt(values['split'])} its points are placed at their mean c_η."
        )
    return Rendered(figures=figures, summary=_summary(values, result), messages=messages)


def _verdict(slope: float | None) -> str:
    if slope is None:
        return "no fit"
    if slope < -0.25:
        return "vanishes with d"
    return "stays O(1)" if abs(slope) <= 0.25 else "grows with d"


def _summary(values: Mapping[str, Any], result: dict) -> html.Dl:
    scheme = values["scheme"]
    c_d, c_u, c_w = exponents(scheme)
    table = result["table"][scheme]
    (_, _, own_gamma, standard), (_, star, _, stable) = table[0], table[1]
    standing = (
        f"as initialised (c_η = 0, c_γ = {_fmt(own_gamma)}) it is {standard}; with the stable "
        f"learning rate c_η* = {_fmt(star)} it is {stable}; "
        + "; ".join(
            f"{scheme}{BLOCKS[b][1]} = ({_fmt(eta)}, {_fmt(gamma)}) is {phase}"
            for b, eta, gamma, phase in table[2:]
        )
    )
    corner = result["kink"]
    line = (
        "m = 0 along c_γ = −(c_d + max(c_ηw + c_u, c_ηu + c_w))/2 left of the kink at "
        f"(c_η, c_γ) = ({_fmt(corner)}, {_fmt(-corner)}): there the initialisation term sets m "
        f"and the line is {result['left_phase']}, since P/Q "
        f"{'→ 1' if result['left_phase'] == 'kernel' else 'does not tend to 1'}. From the kink "
        "on the line is c_γ = −c_η and learns features."
    )
    sweep, rows = result["sweep"], result["rows"]
    largest = int(sweep.widths[-1])
    ntk = "; ".join(
        f"{row_name(s, r)} {sweep.ntk_change[i, -1]:.2g}, ∝ {_fit_text(slope)} ({_verdict(slope)})"
        for i, ((s, r), slope) in enumerate(zip(rows, result["fits"]["ntk"], strict=True))
    )
    weights = "; ".join(
        f"{row_name(s, r)} {'—' if slope is None else f'{-slope:.2f}'} "
        f"(B.4: {_fmt(predicted_delta(s, r))})"
        for (s, r), slope in zip(rows, result["fits"]["weights"], strict=True)
    )
    opens = (
        f"A click on the map opens that network at κ = {values['kappa']} "
        f"(width {values['kappa'] if c_d == 1 else LAZY_WIDTH}); a click on a sweep point opens "
        "that width"
        + (
            f" — widths above {MAX_OPEN_WIDTH} do not open (the trajectory view stops there)."
            if largest > MAX_OPEN_WIDTH
            else "."
        )
    )
    items = [
        (
            f"{scheme} (c_d = {_fmt(c_d)}, c_u = {_fmt(c_u)}, c_w = {_fmt(c_w)}"
            + (", zero initial output)" if zero_output_for(values, scheme) else ")"),
            standing,
        ),
        ("phase boundary", line),
        (f"NTK change |ΔK|/K at d = {largest:,}, and its power law (log-log fit)", ntk),
        ("first layer: fitted δ of ‖ΔW‖/‖W₀‖ ∝ d^−δ (their App. B.4)", weights),
        (
            "computed in",
            f"{result['map_ms']:.1f} ms for the {len(result['etas'])}² map, "
            f"{result['sweep_ms']:.1f} ms for {len(rows)} rows × {sweep.widths.size} widths",
        ),
        ("clicking", opens),
    ]
    return components.facts(items)


def export(values: Mapping[str, Any], result: dict) -> dict[str, dict[str, np.ndarray]]:
    etas, gammas = np.meshgrid(result["etas"], result["gammas"])
    codes = "codes: 0 frozen; 1 kernel; 2 feature learning; 3 unstable"
    tables = {
        f"phase map {values['scheme']} ({codes})": {
            "c_eta": etas.ravel(),
            "c_gamma": gammas.ravel(),
            "phase_code": result["codes"].ravel().astype(float),
            "m": result["m"].ravel(),
        }
    }
    sweep = result["sweep"]
    for index, (scheme, regime) in enumerate(result["rows"]):
        tables[f"width sweep {row_name(scheme, regime)} ({regime})"] = {
            "d": sweep.widths.astype(float),
            "gamma": sweep.gamma[index],
            "eta": sweep.eta[index],
            "sigma_u": sweep.sigma_u[index],
            "sigma_w": sweep.sigma_w[index],
            "zeta_initial": sweep.initial_alignment,
            "zeta_final": sweep.final_alignment[index],
            "ntk_change": sweep.ntk_change[index],
            "weight_change": sweep.weight_change[index],
            "alpha_plus": sweep.alpha_plus[index],
            "t_c": sweep.t_c[index],
        }
    return tables


# -- clicks ---------------------------------------------------------------------------------------


def _whole(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        return None
    return int(value)


def _real(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _in_range(field: Field, value: float) -> bool:
    slack = 1e-9 * max(1.0, abs(field.high), abs(field.low))
    return field.low - slack <= value <= field.high + slack


def _balanced_scale(gamma: float, sigma_u: float, sigma_w: float) -> float | None:
    """s of the exact symmetry u → s u, W → s W, γ → γ/s², η → s²η (the network, ζ and the
    relative NTK change are unchanged; time runs s² times faster), chosen so that γ/s², sσ_u and
    sσ_w lie in the trajectory view's ranges: s = 1 if possible, else γ/s² = 1, else the s
    nearest 1. None when no s fits. (Their footnote 5 states this abc symmetry; in exponents it
    is (c_u, c_w, c_η, c_γ) → (+θ, +θ, +θ, −θ).)"""
    spec = trajectory.SPEC.by_name
    log_gamma = math.log(gamma)
    low = max(
        (log_gamma - math.log(spec["gamma"].high)) / 2,
        math.log(spec["sigma_u"].low / sigma_u),
        math.log(spec["sigma_w"].low / sigma_w),
    )
    high = min(
        (log_gamma - math.log(spec["gamma"].low)) / 2,
        math.log(spec["sigma_u"].high / sigma_u),
        math.log(spec["sigma_w"].high / sigma_w),
    )
    if low > high:
        return None
    if low <= 0 <= high:
        return 1.0
    unit = log_gamma / 2  # γ/s² = 1
    if low <= unit <= high:
        return math.exp(unit)
    return math.exp(min(max(0.0, low), high))


def open_network(
    values: Mapping[str, Any],
    scheme: str,
    c_eta_u: float,
    c_eta_w: float,
    c_gamma: float,
    kappa: float,
    width: int,
):
    """(trajectory view, its values) for ``scheme`` at κ: width ``width``, γ = κ^c_γ,
    σ_u = κ^{c_u/2}, σ_w = κ^{c_w/2}, η_u/η_w = κ^{c_ηu − c_ηw} (the trajectory view keeps
    η_uη_w = 1 and measures time in t_c, so the common learning rate — which only sets t_c —
    drops out), the map's y and seed, and the exponents for its phase table. None when the
    network does not fit that view's ranges."""
    c_d, c_u, c_w = exponents(scheme)
    if not 1 <= width <= MAX_OPEN_WIDTH:
        return None
    gamma = kappa**c_gamma
    sigma_u, sigma_w = kappa ** (c_u / 2), kappa ** (c_w / 2)
    ratio = kappa ** (c_eta_u - c_eta_w)
    if not all(math.isfinite(v) and v > 0 for v in (gamma, sigma_u, sigma_w, ratio)):
        return None
    scale = _balanced_scale(gamma, sigma_u, sigma_w)
    if scale is None:
        return None
    rule = "free"
    if scale == 1.0 and c_d == 1 and kappa == width:
        rule = {-1.0: "mf", -0.5: "ntk"}.get(c_gamma, "free")
    overrides = {
        "d": width,
        "d0": 1,
        "x_norm": 1.0,
        "y": values["y"],
        "gamma_rule": rule,
        "gamma": gamma / scale**2,
        "init": "gaussian",
        "sigma_u": sigma_u * scale,
        "sigma_w": sigma_w * scale,
        "seed": values["seed"],
        "eta_ratio": ratio,
        "c_d": c_d,
        "c_gamma": c_gamma,
        "c_u": c_u,
        "c_w": c_w,
        "c_eta_u": c_eta_u,
        "c_eta_w": c_eta_w,
        "zero_output": zero_output_for(values, scheme),
        "independent": True,
    }
    fields = trajectory.SPEC.by_name
    for name, value in overrides.items():
        field = fields[name]
        if field.kind in ("float", "int") and not _in_range(field, float(value)):
            return None
    # a horizon long enough to reach α₊ (leaving a small initialisation takes ~ t_c ln α₊/4)
    start_values = trajectory.SPEC.with_overrides(overrides)
    u0, W0 = trajectory.initial_layers(start_values)
    eta_u, eta_w = trajectory.etas(start_values)
    start = fw.exact(
        u0,
        W0,
        trajectory.data_point(start_values),
        start_values["y"],
        [0.0],
        gamma=trajectory.gamma_of(start_values),
        eta_u=eta_u,
        eta_w=eta_w,
    )
    alpha = start.alpha_plus
    spread = abs(math.log(alpha)) if math.isfinite(alpha) and alpha > 0 else 40.0
    horizon = float(f"{min(max(5.0, 3.0 + spread / 2), 1000.0):.3g}")
    overrides |= {"horizon": horizon, "log_time": horizon > 100}
    return trajectory.VIEW, overrides


def _map_cell(values: Mapping[str, Any], point: Mapping[str, Any]) -> tuple[float, float] | None:
    """(c_η, c_γ) of a clicked heatmap cell: from its grid indices when the browser sends them,
    else the grid point nearest its coordinates (they travel as float32)."""
    etas, gammas = grid(values)
    found = clicked_cell(point, gammas.size, etas.size)
    if found is not None:
        return float(etas[found[1]]), float(gammas[found[0]])
    x, y = _real(point.get("x")), _real(point.get("y"))
    if x is None or y is None:
        return None
    step_x, step_y = etas[1] - etas[0], gammas[1] - gammas[0]
    if not (etas[0] - step_x <= x <= etas[-1] + step_x):
        return None
    if not (gammas[0] - step_y <= y <= gammas[-1] + step_y):
        return None
    return float(etas[nearest_index(etas, x)]), float(gammas[nearest_index(gammas, y)])


def open_map_point(values: Mapping[str, Any], point: Mapping[str, Any]):
    """A click on the phase map: a cell (curve 0), a point of the line m = 0 (curves 1, 2: kept
    on the line) or a Table-1 point (that scheme's own initialisation), at the chosen κ."""
    curve = _whole(point.get("curveNumber", 0))
    scheme = values["scheme"]
    if curve is None or curve < 0:
        return None
    if curve == 0:
        cell = _map_cell(values, point)
        if cell is None:
            return None
        c_eta, c_gamma = cell
    elif curve in (1, 2):
        x = _real(point.get("x"))
        if x is None or not ETA_RANGE[0] - 1e-6 <= x <= ETA_RANGE[1] + 1e-6:
            return None
        c_eta = round(x, 6) + 0.0  # grid columns and the kink are multiples of 1/240
        c_gamma = float(boundary(values, scheme, c_eta)[0])
    else:
        traces = markers(values)
        if curve - 3 >= len(traces):
            return None
        points = traces[curve - 3]["points"]
        index = _whole(point.get("pointNumber"))
        if index is None or not 0 <= index < len(points):
            return None
        scheme, _block, c_eta, c_gamma = points[index]
    c_d = exponents(scheme)[0]
    kappa = values["kappa"]
    width = kappa if c_d == 1 else LAZY_WIDTH
    return open_network(values, scheme, *learning_rates(values, c_eta), c_gamma, kappa, width)


def open_sweep_point(values: Mapping[str, Any], point: Mapping[str, Any]):
    """A click on a sweep point: that row's scheme and Table-1 pair at that width (κ = d)."""
    rows = sweep_rows(values)
    curve = _whole(point.get("curveNumber"))
    if curve is None or not 0 <= curve < len(rows):
        return None  # the ζ(0) reference line, or no curve at all
    width = widths(values)
    index = _whole(point.get("pointNumber"))
    if index is not None and 0 <= index < width.size:
        d = int(width[index])
    else:
        x = _real(point.get("x"))
        column = None if x is None else nearest_index(width, x, log=True)
        if column is None:
            return None
        d = int(width[column])
    scheme, regime = rows[curve]
    c_eta, c_gamma = fw.TABLE_1[scheme][regime]
    return open_network(values | {"zero_output": "no"}, scheme, c_eta, c_eta, c_gamma, d, d)


VIEW = View(
    key="finite-width-map",
    path="/finite-width/map",
    title="Finite width: the map of scaling phases",
    nav_title="Finite-width map",
    summary=(
        "Xu & Ziyin's §4 as a map: frozen, unstable, kernel and feature-learning phases over the "
        "learning-rate and output-scale exponents of NTK, MF, Xavier, Kaiming and lazy scalings, "
        "and their Fig. 4 width sweep solved exactly. Click to open a network."
    ),
    intro=INTRO,
    spec=SPEC,
    panels=PANELS,
    presets=PRESETS,
    compute=compute,
    render=render,
    export=export,
    groups=GROUPS,
    animated=False,
    click_targets={
        "phase": open_map_point,
        "ntk": open_sweep_point,
        "weights": open_sweep_point,
        "zeta": open_sweep_point,
    },
    in_nav=False,
    result_type=dict[str, fw.WidthSweep],
)
