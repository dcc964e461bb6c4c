"""How λ-balanced a LeCun start is (Dominé et al., *From lazy to rich*, Fig. 1C, App. A.3): the
balance matrix B = W₂ᵀW₂ − W₁W₁ᵀ of LeCun draws, its mean eigenvalue λ against Theorem A.3's
dₒ/h − 1, and its relative deviation from λI as the outer widths grow with the hidden width
fixed (:func:`solvers.lambda_balanced.lecun_balance`). No training: the start alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers import lambda_balanced as lb

from ...core.claims import num
from ...core.downloads import Tables
from ...core.presets import Preset
from ...core.state import integer, number
from ...core.view import View
from . import claims, trajectory
from . import initialisation_plots as plots


@dataclass(frozen=True)
class Controls:
    d_in: int = integer("input width dᵢ", 40, 2, lb.MAX_LECUN_WIDTH)
    hidden: int = integer("hidden width h", 120, 2, lb.MAX_LECUN_HIDDEN)
    d_out: int = integer("output width dₒ", 250, 2, lb.MAX_LECUN_WIDTH)
    widening: float = number(
        "widest outer layers, × the first",
        lb.MAX_LECUN_WIDENING,
        2.0,
        lb.MAX_LECUN_WIDENING,
        step=0.5,
        help="dᵢ and dₒ grow by this factor over the sweep's networks; h stays",
    )
    seed: int = integer("random seed", 0, 0, 99)
    draws: int = integer(
        "draws per width", 4, 1, lb.MAX_LECUN_DRAWS, help="Independent LeCun starts at each width"
    )


GROUPS = (
    ("The sweep's first network", ("d_in", "hidden", "d_out")),
    ("Sweep", ("widening",)),
    ("Draws", ("seed", "draws")),
)


def compute(controls: Controls) -> lb.LecunBalance:
    return lb.lecun_balance(
        controls.d_in,
        controls.hidden,
        controls.d_out,
        seed=controls.seed,
        draws=controls.draws,
        widening=controls.widening,
    )


PRESETS = (
    Preset(
        "fig-1c-a-lecun-start-is-lambda-balanced-only-when-wide",
        "Fig. 1C — a LeCun start is λ-balanced only when the outer layers are wide",
        "LeCun draws at 40 → 120 → 250 and with the outer widths up to 16 times as large.",
        {"d_in": 40, "hidden": 120, "d_out": 250, "widening": 16.0, "seed": 0, "draws": 4},
        figure="Fig. 1C",
        panel="deviation",
        claim=claims.FIG_1C,
        differs=claims.FIG_1C_DIFFERS,
        paper_setting=claims.FIG_1C_PAPER,
    ),
    Preset(
        "equal-widths",
        "Equal widths stay far from balanced",
        "100 → 100 → 100: λ ≈ 0, yet the deviation falls only once dᵢ and dₒ outgrow h.",
        {"d_in": 100, "hidden": 100, "d_out": 100},
    ),
)

INTRO = (
    r"Dominé et al.'s exact solutions assume a $\lambda$-balanced start, "
    r"$W_2^\top W_2 - W_1W_1^\top = \lambda I$. Practice draws LeCun's start instead: "
    r"$W_1 \sim \mathcal N(0, 1/d_\text{in})$, $W_2 \sim \mathcal N(0, 1/h)$. Its balance "
    r"matrix $B$ has mean $(d_\text{out}/h - 1)\,I$ (their Theorem A.3), and each entry's "
    r"spread shrinks with width. Here $B$ is drawn at the widths you set and in four more "
    r"networks whose outer widths grow up to the widening you set, $h$ fixed; its distance "
    r"from the nearest $\lambda I$ is measured in operator norm. One draw approaches "
    r"$\lambda I$ only once $d_\text{in}$ and $d_\text{out}$ are many times $h$, about like "
    r"$\sqrt{h/d}$."
)


def _shape(result: lb.LecunBalance, index: int) -> str:
    return f"{result.d_in[index]} → {result.hidden} → {result.d_out[index]}"


def facts(controls: Controls, result: lb.LecunBalance) -> list[tuple[str, str]]:
    median = result.median_deviation
    return [
        (
            "λ",
            f"mean eigenvalue {num(float(result.lam[0].mean()))} at {_shape(result, 0)}; "
            f"dₒ/h − 1 = {num(float(result.expected_lam[0]))}",
        ),
        (
            "deviation from λI",
            f"{num(median[0])} at {_shape(result, 0)}, {num(median[-1])} at {_shape(result, -1)} "
            f"(median of {result.deviation.shape[1]} draws)",
        ),
        ("decay", f"slope {num(result.slope)} on log axes; √(h/d) has −0.5"),
        *_rank(controls),
    ]


def _rank(controls: Controls) -> list[tuple[str, str]]:
    if controls.d_in >= controls.hidden:
        return []
    return [
        (
            "rank",
            f"dᵢ = {controls.d_in} < h = {controls.hidden}: W₁W₁ᵀ has rank {controls.d_in}, so "
            f"at most {controls.d_in} of B's {controls.hidden} eigenvalues at the first width "
            "fall below W₂ᵀW₂'s smallest",
        )
    ]


def notes(controls: Controls, result: lb.LecunBalance) -> list[str]:
    if abs(float(result.expected_lam[0])) >= 0.1:
        return []
    return [
        "dₒ ≈ h: λ ≈ 0, so B is all deviation until the outer widths grow; its relative "
        "deviation is near 1 there."
    ]


def tables(controls: Controls, result: lb.LecunBalance) -> Tables:
    draws = range(result.deviation.shape[1])
    return {
        "deviation by width": {
            "d_in": result.d_in,
            "hidden": np.full(result.d_in.size, result.hidden),
            "d_out": result.d_out,
            "expected_lam": result.expected_lam,
            **{f"lam_draw_{k + 1}": result.lam[:, k] for k in draws},
            **{f"deviation_draw_{k + 1}": result.deviation[:, k] for k in draws},
        },
        "eigenvalues at the first width": {
            "index": np.arange(1, result.eigenvalues.size + 1),
            "eigenvalue": result.eigenvalues,
        },
    }


VIEW = View(
    key="lambda-balanced-initialisation",
    path="/lambda-balanced/initialisation",
    title="λ-balanced networks: how balanced is a LeCun start?",
    nav_title="λ-balanced LeCun start",
    summary=(
        "Dominé et al.'s Fig. 1C measured: LeCun's random start has W₂ᵀW₂ − W₁W₁ᵀ = λI only "
        "on average, with λ = dₒ/h − 1; one draw comes close only when the outer layers are "
        "many times wider than the hidden one."
    ),
    intro=INTRO,
    controls=Controls,
    compute=compute,
    result_type=lb.LecunBalance,
    panels=plots.PANELS,
    facts=facts,
    tables=tables,
    presets=PRESETS,
    groups=GROUPS,
    notes=notes,
    map_of=trajectory.VIEW.key,
)
