"""Transfer of the semantic hierarchy to a new feature across λ (Dominé et al., *From lazy to
rich*, §6 and App. D.3, Fig. 13): networks learn the 8-item hierarchy at each relative scale λ,
then one new output feature is taught for a single item through a new read-out row, the rest
frozen. How the feature spreads to the other items depends only on the first layer's similarity
W₁ᵀW₁ (eqs. 186–187) — structured and small for λ ≫ 0, ≈ |λ|I for λ ≪ 0.

Each column is the exact pre-training of a trajectory-view scenario (semantic hierarchy, square
8 → 8 → 8, random λ-balanced start) and the new row's converged read-out
(:func:`solvers.lambda_balanced.new_feature`); a click opens that pre-training run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers import lambda_balanced as lb
from solvers.metrics import on_saddle

from ...core.claims import num
from ...core.clicks import ClickPoint, Link, nearest_index
from ...core.downloads import Tables
from ...core.presets import Preset
from ...core.state import choice, integer, number, switch
from ...core.view import View
from . import claims, trajectory
from . import transfer_plots as plots

TRAJECTORY = trajectory.VIEW.spec.by_name
MAX_LAMBDAS = 21
ITEMS = lb.HIERARCHY_ITEMS
#: the kingdoms of the tree: the new feature's generalisation target is the trained item's
KINGDOMS = (
    ("goldfish", "blue fish", "canary", "robin"),
    ("green algae", "red algae", "rose", "daisy"),
)


@dataclass(frozen=True)
class Controls:
    spread: float = number(
        "largest |λ|",
        10.0,
        0.5,
        TRAJECTORY["lam"].high,
        step=0.5,
        help="λ runs from −|λ| to +|λ|",
    )
    count: int = integer("number of λ values", 11, 3, MAX_LAMBDAS, step=2)
    scale: float = number(
        "absolute scale ‖W₂W₁‖ at t = 0",
        0.05,
        TRAJECTORY["scale"].low,
        TRAJECTORY["scale"].high,
        log=True,
        help="Of the random λ-balanced start of the pre-training",
    )
    seed: int = integer("random seed", 3, 0, TRAJECTORY["seed"].high)
    horizon: float = number(
        "pre-training time",
        60.0,
        1.0,
        TRAJECTORY["horizon"].high,
        log=True,
        help="How long each network learns the hierarchy before the new feature",
    )
    item: str = choice(
        "item taught the new feature",
        "goldfish",
        ITEMS,
        ITEMS,
        help="The new feature (say, 'eats worms') is taught for this item alone",
    )
    mark: bool = switch(
        "frame the items that share the feature",
        True,
        physics=False,
        help="The generalisation target: the taught item's kingdom (animals or plants)",
    )


GROUPS = (
    ("λ", ("spread", "count")),
    ("Pre-training", ("scale", "seed", "horizon")),
    ("New feature", ("item", "mark")),
)


@dataclass(frozen=True)
class Transfer:
    lams: np.ndarray  #: (L,)
    item: int  #: the item taught the new feature
    #: (L, 8) the new feature's converged value on every item (1 on the item taught)
    feature: np.ndarray
    #: (8,) the generalisation target: 1 on the trained item's kingdom, 0 on the other
    truth: np.ndarray
    #: (L,) ½ Σ over the untrained items of (feature − truth)²
    generalisation: np.ndarray
    #: (L,) the hierarchy's loss at the end of pre-training, as a fraction of its start
    learnt: np.ndarray
    #: (L,) distance of each start from a saddle's stable manifold
    saddle_margin: np.ndarray


def lambdas(controls: Controls) -> np.ndarray:
    """The λ values, from −|λ| to +|λ|, as a link carries them (10 digits; −0 → 0)."""
    values = np.linspace(-controls.spread, controls.spread, controls.count)
    return np.array([float(f"{v:.10g}") + 0.0 for v in values])


def truth(item: int) -> np.ndarray:
    """The feature the taught one stands for: true of every item of the trained item's kingdom
    (the text's example: a goldfish eats worms, so may other fish and birds; plants do not)."""
    kingdom = next(k for k in KINGDOMS if ITEMS[item] in k)
    return np.array([1.0 if name in kingdom else 0.0 for name in ITEMS])


def _scenario(controls: Controls, lam: float) -> lb.Scenario:
    size = len(ITEMS)
    return lb.scenario(
        lam=lam,
        scale=controls.scale,
        d_in=size,
        hidden=size,
        d_out=size,
        shape="square",
        task="hierarchy",
        seed=controls.seed,
    )


def compute(controls: Controls) -> Transfer:
    lams, item = lambdas(controls), ITEMS.index(controls.item)
    inputs = np.sqrt(len(ITEMS)) * np.eye(len(ITEMS))  # whitened one-hot items (App. E.2.2)
    feature, learnt, margins = [], [], []
    for lam in lams:
        path = _scenario(controls, lam).exact(np.array([0.0, controls.horizon]))
        feature.append(lb.new_feature(path.rsm_in[-1], inputs, item, 1.0))
        learnt.append(path.loss[-1] / path.loss[0])
        margins.append(path.saddle_margin)
    feature, target = np.array(feature), truth(item)
    others = np.arange(len(ITEMS)) != item
    error = feature[:, others] - target[others]
    generalisation = 0.5 * np.sum(error * error, axis=1)
    return Transfer(
        lams, item, feature, target, generalisation, np.array(learnt), np.array(margins)
    )


PRESETS = (
    Preset(
        "fig-13-a-new-feature-transfers-the-hierarchy-for-large-lambda",
        "Fig. 13 — a new feature transfers the hierarchy for large λ",
        "Eleven λ in [−10, 10]: the goldfish learns a new feature; its value on the other items.",
        {},
        figure="Fig. 13",
        panel="feature",
        claim=claims.FIG_13,
        differs=claims.FIG_13_DIFFERS,
        paper_setting=claims.FIG_13_PAPER,
    ),
    Preset(
        "new-feature-of-a-plant",
        "A new feature of a plant",
        "The rose learns the new feature: it spreads to the daisy, then the algae, for λ > 0.",
        {"item": "rose"},
    ),
)

INTRO = (
    r"Dominé et al.'s transfer experiment, computed exactly. Each network first learns the "
    r"semantic hierarchy at its relative scale $\lambda$; then a new output feature is taught "
    r"for one item through a new read-out row $w$ (from $w = 0$), the rest frozen. The row "
    r"converges to $w = h_i^\top / \|h_i\|^2$ with $h_i = W_1x_i$, so the feature's value on item "
    r"$j$ is $k_{ij}/k_{ii}$, $k = XW_1^\top W_1X^\top$: only the first layer's similarity "
    r"decides how it spreads. For $\lambda \gg 0$ that similarity is small but holds the tree "
    r"(the read-out is lazy), so the feature reaches the taught item's relatives; for "
    r"$\lambda \ll 0$ it is $\approx|\lambda| I$ and the feature stays on the item. Click a "
    r"column to open its pre-training."
)


def facts(controls: Controls, result: Transfer) -> list[tuple[str, str]]:
    best = int(np.argmin(result.generalisation))
    return [
        (
            "the map",
            f"{result.lams.size} networks pre-trained on the hierarchy for "
            f"t = {controls.horizon:g}, each then taught one new feature of the {controls.item}",
        ),
        (
            "generalisation target",
            "the feature is true of the "
            + ", ".join(
                name
                for name, value in zip(ITEMS, result.truth, strict=True)
                if value and name != controls.item
            )
            + " too, and of no other item",
        ),
        (
            "generalisation loss",
            f"from {num(result.generalisation[0])} at λ = "
            f"{num(result.lams[0])} to {num(result.generalisation[-1])} at λ = "
            f"{num(result.lams[-1])} (least at λ = {num(result.lams[best])})",
        ),
        ("pre-training", f"loss at most {num(float(np.max(result.learnt)), '.1e')} of its start"),
    ]


def notes(controls: Controls, result: Transfer) -> list[str]:
    messages = []
    stalled = result.lams[on_saddle(result.saddle_margin)]
    if stalled.size:
        values = ", ".join(num(lam) for lam in stalled)
        messages.append(
            f"At λ = {values} the start lies on the stable manifold of a saddle (a square λ = 0 "
            "network whose determinant has the other sign than the task's): pre-training stops "
            "short of the hierarchy there. Another seed avoids it."
        )
    unlearnt = result.lams[result.learnt > 1e-3]
    if unlearnt.size:
        messages.append(
            f"{unlearnt.size} networks have not learnt the hierarchy by t = {controls.horizon:g}: "
            "lengthen the pre-training."
        )
    return messages


def tables(controls: Controls, result: Transfer) -> Tables:
    return {
        f"new feature of the {controls.item}": {
            "lam": result.lams,
            **{name.replace(" ", "_"): result.feature[:, k] for k, name in enumerate(ITEMS)},
            "generalisation_loss": result.generalisation,
            "pretraining_loss_fraction": result.learnt,
        }
    }


def open_column(controls: Controls, point: ClickPoint) -> Link | None:
    """The pre-training run of the clicked λ: the trajectory view on the hierarchy, same start."""
    lams = lambdas(controls)
    column = nearest_index(lams, point.x)
    if column is None:
        return None
    size = len(ITEMS)
    return Link(
        trajectory.VIEW,
        {
            "lam": float(lams[column]),
            "scale": controls.scale,
            "shape": "square",
            "d_in": size,
            "hidden": size,
            "d_out": size,
            "task": "hierarchy",
            "init": "random",
            "seed": controls.seed,
            "horizon": controls.horizon,
            "log_time": False,
            "descent": False,
        },
    )


VIEW = View(
    key="lambda-balanced-transfer",
    path="/lambda-balanced/transfer",
    title="λ-balanced networks: a new feature across λ",
    nav_title="λ-balanced transfer",
    summary=(
        "Dominé et al.'s transfer experiment computed exactly: after learning the semantic "
        "hierarchy at each λ, a new feature taught for one item spreads to its relatives when "
        "λ ≫ 0 and stays on the item when λ ≪ 0."
    ),
    intro=INTRO,
    controls=Controls,
    compute=compute,
    result_type=Transfer,
    panels=plots.PANELS,
    facts=facts,
    tables=tables,
    presets=PRESETS,
    groups=GROUPS,
    notes=notes,
    clicks={"feature": open_column, "generalisation": open_column},
    map_of=trajectory.VIEW.key,
)
