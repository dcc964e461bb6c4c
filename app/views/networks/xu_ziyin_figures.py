"""Xu & Ziyin's network figures (*Three mechanisms of feature learning in a linear network*,
Fig. 1, 2a, 6 and 7) as presets of the network view, each with the claim its card on the
paper-figures page checks (:mod:`app.core.claims`)."""

from __future__ import annotations

from ...core.presets import Preset
from ..finite_width import PAPER as XU_ZIYIN
from . import xu_ziyin_claims as claims

#: Xu & Ziyin Fig. 1: 100 points y = 2x + N(0, 1)/10, N(0, 1) layers, width 200 (10⁴ there)
FIG_XZ_1 = {
    "data": "line",
    "n": 100,
    "n_test": 100,
    "depth": 2,
    "width": 200,
    "init": "gaussian",
    "sigma": 1.0,
    "loss": "mse",
    "rate_ratio": 1.0,
    "seed": 0,
}

XZ = {"paper": XU_ZIYIN}
FIG_1_CARD = {
    "figure": "Fig. 1",
    "panel": "zeta",
    "paper_setting": claims.FIG_1_PAPER,
    "differs": claims.FIG_1_DIFFERS,
    **XZ,
}
#: Fig. 1's two rows: Gaussian layers in the mean-field scaling, and nearly parallel layers
#: u ~ N(0, 10), w = u + N(0, 0.1) with γ = 1/√d (σ = √10)
ALIGNING = FIG_XZ_1 | {"scaling": "mean_field", "lr": 20.0, "steps": 2000}
DISALIGNING = FIG_XZ_1 | {"init": "parallel", "sigma": 3.162, "scaling": "ntk"}
DISALIGNING |= {"lr": 0.005, "steps": 2000}
#: a sigmoid network learns more slowly in both rows: a longer time (t = lr·steps) in the upper
#: row, and a larger step in the lower. The upper row's time comes from more steps, not a larger
#: one: as the layers align its kernel grows (‖K‖ ≈ 2–4.4 by the end over seeds 0–7), and at
#: lr = 80 seed 3's crosses gradient descent's stability edge and the loss stalls at 0.07.
SLOWER = {"sigmoid": ({"lr": 40.0, "steps": 4000}, 0.2)}


def _fig_1_pair(activation: str, label: str) -> tuple[Preset, Preset]:
    """Fig. 1's alignment and disalignment presets for one activation (beside ReLU's)."""
    rise, fall = SLOWER.get(activation, ({}, DISALIGNING["lr"]))
    return (
        Preset(
            f"fig-1-{activation.replace('_', '-')}-alignment-feature-learning",
            f"Fig. 1 — {label}, alignment in the feature-learning phase (γ = 1/d)",
            f"As ReLU's card with {label} units: 100 points y = 2x + noise, N(0, 1) layers, "
            "γ = 1/d, width 200 (10⁴ there).",
            ALIGNING | {"activation": activation} | rise,
            claim=claims.alignment(activation),
            **FIG_1_CARD,
        ),
        Preset(
            f"fig-1-{activation.replace('_', '-')}-disalignment-nearly-parallel",
            f"Fig. 1 — {label}, disalignment from nearly parallel layers",
            f"As ReLU's card with {label} units: u ~ N(0, 10), w = u + N(0, 0.1), γ = 1/√d.",
            DISALIGNING | {"activation": activation, "lr": fall},
            claim=claims.disalignment(activation),
            **FIG_1_CARD,
        ),
    )


#: Fig. 2a and Fig. 6: deep ReLU networks on the ten digits (MNIST there), from σ = 0.5
DEEP_DIGITS = {
    "data": "digits",
    "classes": "ten",
    "n": 50,
    "n_test": 100,
    "activation": "relu",
    "width": 50,
    "init": "gaussian",
    "sigma": 0.5,
    "scaling": "standard",
    "loss": "mse",
    "lr": 1.0,
    "steps": 1000,
    "seed": 0,
}
#: Fig. 7: two Gaussians, logistic loss
GAUSSIANS = {
    "data": "gaussians",
    "n": 100,
    "n_test": 200,
    "activation": "relu",
    "depth": 2,
    "width": 200,
    "loss": "bce",
    "rate_ratio": 1.0,
    "seed": 0,
}
FIG_7_CARD = {"figure": "Fig. 7", "panel": "zeta", "paper_setting": claims.FIG_7_PAPER, **XZ}

PRESETS = (
    Preset(
        "fig-1-relu-alignment-feature-learning",
        "Fig. 1 — ReLU, alignment in the feature-learning phase (γ = 1/d)",
        "100 points y = 2x + noise, N(0, 1) layers, γ = 1/d, width 200 (10⁴ there): ζ rises "
        "from ≈ 0 as the layers align.",
        ALIGNING | {"activation": "relu"},
        claim=claims.alignment("relu"),
        **FIG_1_CARD,
    ),
    Preset(
        "fig-1-linear-exact-alignment",
        "Fig. 1 — linear: the exact solution over the network",
        "A two-layer linear network on the same data: the exact finite-width solution (lines) "
        "over gradient descent (points), γ = 1/d, width 200 (10⁴ there).",
        FIG_XZ_1 | {"activation": "linear", "scaling": "mean_field", "lr": 10.0, "steps": 4000},
        claim=claims.FIG_1_LINEAR,
        **FIG_1_CARD | {"differs": claims.FIG_1_LINEAR_DIFFERS},
    ),
    Preset(
        "fig-1-relu-kernel-phase",
        "Fig. 1 — ReLU, kernel phase (γ = 1/√d)",
        "The same network with γ = 1/√d: ζ rises far less (to ≈ 0.3 at width 200, less the wider "
        "the network) and the kernel barely moves (by a few per cent, of order 1/√d).",
        FIG_XZ_1 | {"activation": "relu", "scaling": "ntk", "lr": 0.1, "steps": 2000},
        claim=claims.FIG_1_KERNEL,
        **FIG_1_CARD | {"differs": claims.FIG_1_KERNEL_DIFFERS},
    ),
    Preset(
        "fig-1-relu-disalignment-nearly-parallel",
        "Fig. 1 — ReLU, disalignment from nearly parallel layers",
        "u ~ N(0, 10), w = u + N(0, 0.1), γ = 1/√d: the output starts far too large and the "
        "layers turn apart, ζ falls from ≈ 1.",
        DISALIGNING | {"activation": "relu"},
        claim=claims.disalignment("relu"),
        **FIG_1_CARD,
    ),
    *_fig_1_pair("leaky_relu", "leaky ReLU"),
    *_fig_1_pair("sigmoid", "sigmoid"),
    *_fig_1_pair("swish", "swish"),
    Preset(
        "fig-2-four-layer-relu-on-the-digits",
        "Fig. 2a — a four-layer ReLU net on the ten digits",
        "ζ between each pair of layers of a 64 → 50 → 50 → 50 → 10 ReLU MLP (σ = 0.5) on 50 "
        "digit images (MNIST with batch 2000 there): every pair aligns during training.",
        DEEP_DIGITS | {"depth": 4},
        figure="Fig. 2",
        panel="zeta",
        claim=claims.FIG_2A,
        differs=claims.DIGITS_DIFFERS,
        paper_setting=claims.FIG_2_PAPER,
        **XZ,
    ),
    Preset(
        "fig-6-six-layer-relu-on-the-digits",
        "Fig. 6 — a six-layer ReLU net on the ten digits",
        "The same as Fig. 2a with six weight layers (five pairs): every pair aligns, less "
        "steadily than in four layers.",
        DEEP_DIGITS | {"depth": 6},
        figure="Fig. 6",
        panel="zeta",
        claim=claims.FIG_6,
        differs=claims.DIGITS_DIFFERS,
        paper_setting=claims.FIG_6_PAPER,
        **XZ,
    ),
    Preset(
        "fig-7-two-gaussians-logistic-loss",
        "Fig. 7 — two Gaussians, logistic loss",
        "N(0, 1) against N(4, 1) with the binary cross-entropy, ReLU, γ = 1/d, width 200 (10⁴ "
        "there): the layers align, and ζ still rises when the loss has settled.",
        GAUSSIANS
        | {"init": "gaussian", "sigma": 1.0, "scaling": "mean_field", "lr": 100.0}
        | {"steps": 10_000},
        claim=claims.FIG_7_ALIGNMENT,
        differs=claims.FIG_7_ALIGNMENT_DIFFERS,
        **FIG_7_CARD,
    ),
    Preset(
        "fig-7-two-gaussians-disalignment",
        "Fig. 7 — two Gaussians, disalignment from nearly parallel layers",
        "The same task from u ~ N(0, 10), w = u + N(0, 0.1), γ = 1/√d: the layers turn apart "
        "as the loss falls to its floor.",
        GAUSSIANS
        | {"init": "parallel", "sigma": 3.162, "scaling": "ntk", "lr": 1.0, "steps": 2000},
        claim=claims.FIG_7_DISALIGNMENT,
        differs=claims.FIG_7_DISALIGNMENT_DIFFERS,
        **FIG_7_CARD,
    ),
)

#: not a figure: the linear network of Fig. 1 in the kernel phase
LINEAR_KERNEL_PHASE = (
    Preset(
        "linear-network-kernel-phase-exact",
        "A linear network in the kernel phase, exactly",
        "The 1-d regression with a two-layer linear network and γ = 1/√d: the exact "
        "finite-width solution over gradient descent, the layers hardly aligning.",
        FIG_XZ_1 | {"activation": "linear", "scaling": "ntk", "lr": 0.1, "steps": 2000},
    ),
)
