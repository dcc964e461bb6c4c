"""Finite-width map (Xu & Ziyin, *Three mechanisms of feature learning in a linear network*, §4):
the scaling-phase diagram over the learning-rate and output-scale exponents (c_η, c_γ) of one
initialisation scheme (their eq. 18, Theorem 2, Table 1 — :class:`solvers.finite_width.
PhasePlane`), and the width sweep of their Fig. 4 — how far the exact t → ∞ solution moves from
its initialisation as the width d grows, in the kernel and the feature-learning scalings of
Table 1 (:func:`solvers.finite_width.width_sweep`). Clicking a cell, a line or a point opens
that network in the finite-width trajectory view (:mod:`.map_links`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers import finite_width as fw

from ...core.downloads import Tables
from ...core.presets import Preset
from ...core.state import choice, integer, number, switch
from ...core.view import View
from . import claims, trajectory
from . import map_plots as plots
from .map_links import (
    LAZY_WIDTH,
    MAX_OPEN_WIDTH,
    kappa_of,
    open_map_point,
    open_sweep_point,
    width_at,
)
from .map_plots import REGIMES, RESOLUTIONS, SCHEMES, fit_text, plane, row_name, zero_output_for
from .trajectory_plots import exponent_text


@dataclass(frozen=True)
class Controls:
    scheme: str = choice(
        "initialisation scheme",
        "NTK",
        SCHEMES,
        help="Table 1's schemes fix c_d, c_u, c_w (σ_u² ∝ κ^c_u, σ_w² ∝ κ^c_w); NTK and MF "
        "share their initialisation, so they share a map",
    )
    zero_output: str = choice(
        "zero initial output (Chizat's lazy init)",
        "table",
        ("table", "yes", "no"),
        ("as in Table 1 (lazy only)", "yes", "no"),
        help="A zero initial output makes P/Q → 1 (Theorem 2, case 2)",
    )
    split: float = number(
        "c_ηu − c_ηw",
        0.0,
        -2.0,
        2.0,
        step=0.25,
        help="0: both layers learn at κ^c_η (Table 1); otherwise c_ηu = c_η + split/2, "
        "c_ηw = c_η − split/2 (case 3 of Theorem 2)",
    )
    resolution: int = choice(
        "cells per side", 61, RESOLUTIONS, help="Every Table-1 point is a cell at each resolution"
    )
    labels: bool = switch("write phases and Table-1 points on the map", True, physics=False)
    others: bool = switch(
        "show the other schemes' Table-1 points",
        False,
        physics=False,
        help="Grey: points of schemes with another initialisation (their phase is theirs, "
        "not this map's)",
    )
    kappa: float = number(
        "κ of a clicked map cell",
        100.0,
        2.0,
        MAX_OPEN_WIDTH,
        log=True,
        physics=False,
        help=f"A click opens the network at this κ (rounded to a whole number): width d = κ "
        f"(c_d = 1) or d = {LAZY_WIDTH} (lazy, c_d = 0), γ = κ^c_γ, σ² = κ^c, η = κ^c_η",
    )
    sweep: str = choice(
        "rows of the width sweep",
        "all",
        ("scheme", "all"),
        ("the chosen scheme", "NTK, Xavier, Kaiming (Fig. 4)"),
    )
    # from d = 2: a single neuron is always aligned (ζ = ±1), and its sweep has no limit
    # when the flow runs into u = 0 or w = 0 (y = 0)
    d_min: float = number(
        "smallest width", 10.0, 2.0, fw.MAX_SWEEP_WIDTH, log=True, help="Rounded to a whole width"
    )
    d_max: float = number(
        "largest width", 1000.0, 2.0, fw.MAX_SWEEP_WIDTH, log=True, help="Rounded to a whole width"
    )
    count: int = integer(
        "number of widths",
        21,
        2,
        fw.MAX_SWEEP_WIDTHS,
        help="Geometrically spaced, rounded to whole widths",
    )
    y: float = number("target y (x = 1)", 1.0, -10.0, 10.0, step=0.1)
    seed: int = integer("random seed", 0, 0, 999)
    sweep_zero_output: bool = switch(
        "sweep from a zero initial output",
        False,
        help="The second layer's draw projected off W x, so f(0) = 0 and P = Q (App. B.4 "
        "assumes an O(1) start); such networks do not open in the trajectory view",
    )


GROUPS = (
    ("Phase map", ("scheme", "zero_output", "split", "resolution", "labels", "others", "kappa")),
    ("Width sweep", ("sweep", "d_min", "d_max", "count", "y", "seed", "sweep_zero_output")),
)

#: Xu & Ziyin Fig. 4 in the exact model: the width schemes' Table-1 pairs, d = 10 to 1000
FIG_4 = {"sweep": "all", "d_min": 10, "d_max": 1000, "count": 21, "seed": 0}

PRESETS = (
    Preset(
        "table-1-ntk-and-mf-u-w-1",
        "Table 1 — NTK and MF (σ_u = σ_w = 1)",
        "Standard NTK (c_η = 0, c_γ = −½) sits on the kernel segment; MF (c_γ = −1) is frozen "
        "at c_η = 0 and learns features at c_η* = 1, the kink (= NTK⁺ = MF⁺).",
        {"scheme": "NTK", "zero_output": "table", "split": 0.0, "sweep": "scheme"},
    ),
    Preset(
        "table-1-xavier",
        "Table 1 — Xavier",
        "Xavier (σ² = 1/d) learns features as it is: c_η = c_γ = 0 is the kink of the m = 0 "
        "line. Xavier⁻ = (−2, 1) is the kernel phase.",
        {"scheme": "Xavier", "zero_output": "table", "split": 0.0, "sweep": "scheme"},
    ),
    Preset(
        "table-1-kaiming",
        "Table 1 — Kaiming",
        "Kaiming (σ_u² = 1/d, σ_w² = 1) is unstable at c_η = 0 and in the kernel phase at "
        "c_η* = −1 (= Kaiming⁻); Kaiming⁺ = (1, −1) learns features.",
        {"scheme": "Kaiming", "zero_output": "table", "split": 0.0, "sweep": "scheme"},
    ),
    Preset(
        "table-1-lazy-fixed-width-zero-initial-output",
        "Table 1 — lazy (fixed width, zero initial output)",
        "Chizat's scaling γ = κ: unstable at c_η = 0, kernel at c_η* = −2 (= lazy⁻), features "
        "at (0, 0). Fixed width has no width sweep: the sweep shows Fig. 4's schemes.",
        {"scheme": "lazy", "zero_output": "table", "split": 0.0, "sweep": "all"},
    ),
    Preset(
        "theorem-2-lazy-scaling-with-a-random-initial-output",
        "Theorem 2 — lazy scaling with a random initial output",
        "At fixed width a non-zero initial output keeps P/Q away from 1: the whole m = 0 line "
        "learns features, lazy⁻ included.",
        {"scheme": "lazy", "zero_output": "no", "split": 0.0, "sweep": "all"},
    ),
    Preset(
        "theorem-2-case-3-unbalanced-learning-rates",
        "Theorem 2, case 3 — unbalanced learning rates",
        "c_ηu − c_ηw = 1 ≠ c_u − c_w: P/Q → 1 at fixed width without a zero output, so the "
        "left part of the line is kernel again (it moves down by ¼, off the equal-rate points).",
        {"scheme": "lazy", "zero_output": "no", "split": 1.0, "sweep": "all"},
    ),
    Preset(
        "fig-4-kernel-and-feature-learning-pairs-d-10-to-1000",
        "Fig. 4 — kernel and feature-learning pairs, d = 10 to 1000",
        "NTK, Xavier, Kaiming, exact: the first layer of the kernel pairs (solid) moves less "
        "and less as d grows, that of the feature-learning pairs (dashed) by O(1); the fitted "
        "exponents are the model's own, not all the paper's. Every point opens.",
        FIG_4,
        figure="Fig. 4",
        panel="weights",
        claim=claims.FIG_4_RANDOM,
        differs=claims.FIG_4_RANDOM_DIFFERS,
        paper_setting=claims.FIG_4_PAPER,
    ),
    Preset(
        "fig-4-from-a-zero-initial-output",
        "Fig. 4 — from a zero initial output, d = 10 to 1000",
        "The same sweep with f(0) = 0: Xavier⁻'s exponent becomes App. B.4's 1, Kaiming⁻'s "
        "stays 3/2.",
        FIG_4 | {"sweep_zero_output": True},
        figure="Fig. 4",
        panel="weights",
        claim=claims.FIG_4_ZERO,
        differs=claims.FIG_4_ZERO_DIFFERS,
        paper_setting=claims.FIG_4_PAPER,
    ),
    Preset(
        "fig-4-at-the-caps-64-widths-up-to-10",
        "Fig. 4 at the caps — 64 widths up to 10⁴",
        "The largest sweep (64 widths, d ≤ 10⁴) and the finest map; widths above 1000 do not "
        "open (the trajectory view stops there).",
        {"sweep": "all", "d_min": 10, "d_max": 10_000, "count": 64, "resolution": 121},
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


@dataclass(frozen=True)
class Map:
    phases: fw.PhaseGrid  #: the phase of every cell
    kink: float  #: c_η where the line m = 0 bends
    left_phase: str  #: the phase of the line left of the kink
    sweep: fw.WidthSweep
    #: the lazy scheme was chosen for a sweep of its own: the sweep shows Fig. 4's schemes
    fallback: bool
    ntk_fits: tuple[float | None, ...]  #: per sweep row: exponent of |ΔK|/K(0) ∝ d^k
    weight_fits: tuple[float | None, ...]  #: per sweep row: exponent of ‖ΔW‖/‖W₀‖ ∝ d^k

    @property
    def rows(self) -> list[tuple[str, str]]:
        return list(zip(self.sweep.schemes, self.sweep.regimes, strict=True))


def compute(controls: Controls) -> Map:
    chosen = plane(controls)
    phases = chosen.grid(*plots.grid(controls))
    schemes, fallback = plots.sweep_schemes(controls)
    width = plots.widths(controls)
    sweep = fw.width_sweep(
        width,
        schemes=schemes,
        regimes=REGIMES,
        x=1.0,
        y=controls.y,
        seed=controls.seed,
        zero_output_init=controls.sweep_zero_output,
    )
    rows = range(len(sweep.schemes))
    return Map(
        phases,
        chosen.kink,
        chosen.left_phase,
        sweep,
        fallback,
        tuple(fw.power_fit(width, sweep.ntk_change[r]) for r in rows),
        tuple(fw.power_fit(width, sweep.weight_change[r]) for r in rows),
    )


# -- summary, messages, downloads ------------------------------------------------------------


def _verdict(slope: float | None) -> str:
    if slope is None:
        return "no fit"
    if slope < -0.25:
        return "vanishes with d"
    return "stays O(1)" if abs(slope) <= 0.25 else "grows with d"


def _standing(controls: Controls) -> str:
    """Where the chosen scheme's Table-1 points fall on this map."""
    scheme = controls.scheme
    standard, stable, *pairs = plane(controls).table()
    marks = {block: mark for block, (_, mark, _) in plots.BLOCKS.items()}
    return (
        f"as initialised (c_η = 0, c_γ = {exponent_text(standard.c_gamma)}) it is "
        f"{standard.phase}; with the stable learning rate c_η* = {exponent_text(stable.c_eta)} "
        f"it is {stable.phase}; "
        + "; ".join(
            f"{scheme}{marks[e.block]} = ({exponent_text(e.c_eta)}, {exponent_text(e.c_gamma)}) "
            f"is {e.phase}"
            for e in pairs
        )
    )


def _boundary_text(result: Map) -> str:
    corner, left = result.kink, result.left_phase
    return (
        "m = 0 along c_γ = −(c_d + max(c_ηw + c_u, c_ηu + c_w))/2 left of the kink at "
        f"(c_η, c_γ) = ({exponent_text(corner)}, {exponent_text(-corner)}): there the "
        f"initialisation term sets m and the line is {left}, since P/Q "
        f"{'→ 1' if left == 'kernel' else 'does not tend to 1'}. From the kink on the line is "
        "c_γ = −c_η and learns features."
    )


def _sweep_texts(result: Map) -> tuple[str, str]:
    """(the NTK change at the largest width with its power law, the fitted δ of each row)."""
    sweep = result.sweep
    ntk = "; ".join(
        f"{row_name(s, r)} {sweep.ntk_change[i, -1]:.2g}, ∝ {fit_text(slope)} ({_verdict(slope)})"
        for i, ((s, r), slope) in enumerate(zip(result.rows, result.ntk_fits, strict=True))
    )
    weights = "; ".join(
        f"{row_name(s, r)} {'—' if slope is None else f'{-slope:.2f}'} "
        f"(B.4: {exponent_text(fw.predicted_delta(s, r))})"
        for (s, r), slope in zip(result.rows, result.weight_fits, strict=True)
    )
    return ntk, weights


def _clicking(controls: Controls, result: Map) -> str:
    kappa = kappa_of(controls)
    largest = int(result.sweep.widths[-1])
    beyond = (
        f" — widths above {MAX_OPEN_WIDTH} do not open (the trajectory view stops there)."
        if largest > MAX_OPEN_WIDTH
        else "."
    )
    sweep = (
        "sweep points do not open (their zero-output start is not one the trajectory view draws)."
        if controls.sweep_zero_output
        else "a click on a sweep point opens that width" + beyond
    )
    return (
        f"A click on the map opens that network at κ = {kappa} "
        f"(width {width_at(controls.scheme, kappa)}); " + sweep
    )


def facts(controls: Controls, result: Map) -> list[tuple[str, str]]:
    scheme = controls.scheme
    c_d, c_u, c_w = plane(controls).exponents
    zero = ", zero initial output)" if zero_output_for(controls, scheme) else ")"
    ntk, weights = _sweep_texts(result)
    largest = int(result.sweep.widths[-1])
    return [
        (
            f"{scheme} (c_d = {exponent_text(c_d)}, c_u = {exponent_text(c_u)}, "
            f"c_w = {exponent_text(c_w)}{zero}",
            _standing(controls),
        ),
        ("phase boundary", _boundary_text(result)),
        (f"NTK change |ΔK|/K at d = {largest:,}, and its power law (log-log fit)", ntk),
        ("first layer: fitted δ of ‖ΔW‖/‖W₀‖ ∝ d^−δ (their App. B.4)", weights),
        ("clicking", _clicking(controls, result)),
    ]


def notes(controls: Controls, result: Map) -> list[str]:
    messages = []
    if result.fallback:
        messages.append(
            "The lazy scaling keeps the width fixed (c_d = 0), so it has no width sweep: "
            "the sweep shows NTK, Xavier and Kaiming instead."
        )
    if controls.d_min > controls.d_max:
        messages.append(
            f"The smallest width ({controls.d_min:g}) is above the largest "
            f"({controls.d_max:g}): the sweep runs between them anyway."
        )
    if controls.sweep_zero_output:
        messages.append(
            "The sweep starts every network with output 0 (the second layer projected off "
            "W x): its points do not open, since the trajectory view draws independent layers."
        )
    if controls.split != 0:
        messages.append(
            "Table 1 sets both learning rates equal; with c_ηu − c_ηw = "
            f"{exponent_text(controls.split)} its points are placed at their mean c_η."
        )
    return messages


PHASE_CODES = "codes: " + "; ".join(f"{code} {name}" for code, name in enumerate(fw.PHASES))


def tables(controls: Controls, result: Map) -> Tables:
    phases = result.phases
    etas, gammas = np.meshgrid(phases.etas, phases.gammas)
    found = {
        f"phase map {controls.scheme} ({PHASE_CODES})": {
            "c_eta": etas.ravel(),
            "c_gamma": gammas.ravel(),
            "phase_code": phases.codes.ravel().astype(float),
            "m": phases.m.ravel(),
        }
    }
    sweep = result.sweep
    for index, (scheme, regime) in enumerate(result.rows):
        found[f"width sweep {row_name(scheme, regime)} ({regime})"] = {
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
    return found


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
    controls=Controls,
    compute=compute,
    result_type=Map,
    panels=plots.PANELS,
    facts=facts,
    tables=tables,
    presets=PRESETS,
    groups=GROUPS,
    notes=notes,
    clicks={
        "phase": open_map_point,
        "ntk": open_sweep_point,
        "weights": open_sweep_point,
        "zeta": open_sweep_point,
    },
    map_of=trajectory.VIEW.key,
)
