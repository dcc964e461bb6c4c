"""Xu & Ziyin's network figures (*Three mechanisms of feature learning in a linear network*,
Fig. 1, 2 and 7) as presets of the network view, each with the claim its card on the
paper-figures page checks (:mod:`app.core.claims`)."""

from __future__ import annotations

from ...core.presets import Preset
from ..finite_width import PAPER as XU_ZIYIN

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
XZ_FIG_1_CARD = {"figure": "Fig. 1", "panel": "zeta", **XZ}

PRESETS = (
    Preset(
        "fig-1-relu-alignment-feature-learning",
        "Fig. 1 — ReLU, alignment in the feature-learning phase (γ = 1/d)",
        "100 points y = 2x + noise, N(0, 1) layers, γ = 1/d, width 200 (10⁴ there): ζ rises "
        "from ≈ 0 as the layers align.",
        FIG_XZ_1 | {"activation": "relu", "scaling": "mean_field", "lr": 20.0, "steps": 2000},
        **XZ_FIG_1_CARD,
    ),
    Preset(
        "fig-1-linear-exact-alignment",
        "Fig. 1 — linear: the exact solution over the network",
        "A two-layer linear network on the same data: the exact finite-width solution (lines) "
        "over gradient descent (points), γ = 1/d, width 200 (10⁴ there).",
        FIG_XZ_1 | {"activation": "linear", "scaling": "mean_field", "lr": 10.0, "steps": 4000},
        **XZ_FIG_1_CARD,
    ),
    Preset(
        "fig-1-relu-kernel-phase",
        "Fig. 1 — ReLU, kernel phase (γ = 1/√d)",
        "The same network with γ = 1/√d: ζ rises far less (to ≈ 0.3 at width 200, less the wider "
        "the network) and the kernel barely moves (S ≈ 10⁻⁴).",
        FIG_XZ_1 | {"activation": "relu", "scaling": "ntk", "lr": 0.1, "steps": 2000},
        **XZ_FIG_1_CARD,
    ),
    Preset(
        "fig-1-relu-disalignment-nearly-parallel",
        "Fig. 1 — ReLU, disalignment from nearly parallel layers",
        "u ~ N(0, 10), w = u + N(0, 0.1), γ = 1/√d: the output starts far too large and the "
        "layers turn apart, ζ falls from ≈ 1.",
        FIG_XZ_1
        | {"activation": "relu", "init": "parallel", "sigma": 3.162, "scaling": "ntk"}
        | {"lr": 0.005, "steps": 2000},
        **XZ_FIG_1_CARD,
    ),
    Preset(
        "fig-2-four-layer-relu-on-the-digits",
        "Fig. 2 — a four-layer ReLU net on the ten digits",
        "ζ between each pair of layers of a 64 → 50 → 50 → 50 → 10 ReLU MLP (Kaiming, σ = 1) "
        "on 50 digit images (MNIST with batch 2000 there): every pair aligns during training.",
        {
            "data": "digits",
            "classes": "ten",
            "n": 50,
            "n_test": 100,
            "activation": "relu",
            "depth": 4,
            "width": 50,
            "init": "gaussian",
            "sigma": 1.0,
            "scaling": "standard",
            "loss": "mse",
            "lr": 0.1,
            "steps": 1000,
            "seed": 0,
        },
        figure="Fig. 2",
        panel="zeta",
        **XZ,
    ),
    Preset(
        "fig-7-two-gaussians-logistic-loss",
        "Fig. 7 — two Gaussians, logistic loss",
        "N(0, 1) against N(4, 1) with the binary cross-entropy, ReLU, γ = 1/d, width 200 (10⁴ "
        "there): the layers align; ζ keeps drifting after the loss has converged.",
        {
            "data": "gaussians",
            "n": 100,
            "n_test": 200,
            "activation": "relu",
            "depth": 2,
            "width": 200,
            "init": "gaussian",
            "sigma": 1.0,
            "scaling": "mean_field",
            "loss": "bce",
            "lr": 20.0,
            "steps": 2000,
            "seed": 0,
        },
        figure="Fig. 7",
        panel="zeta",
        **XZ,
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
