"""Kunin et al.'s network figures (*Get rich quick*, Fig. 1a, 5 and 6a) as presets of the network
view, each with the claim its card on the paper-figures page checks (:mod:`app.core.claims`)."""

from __future__ import annotations

from ...core.presets import Preset
from . import kunin_claims as claims

#: Kunin et al. Fig. 1a: d = 2, h = 50, k = 3, n = 20; 10⁶ steps of 10⁻⁴ on their (1/n)Σ loss
#: there, the same time on this engine's (1/2n)Σ loss (t = 200) here
FIG_1A = {
    "data": "teacher",
    "d": 2,
    "k": 3,
    "n": 20,
    "n_test": 200,
    "activation": "relu",
    "depth": 2,
    "width": 50,
    "init": "kunin",
    "loss": "mse",
    "rate_ratio": 1.0,
    "lr": 0.02,
    "steps": 10_000,
    "seed": 0,
}
FIG_1A_CAPTION = "10,000 steps of 0.02 (t = 200, the time of the paper's 10⁶ steps of 10⁻⁴)"
#: Kunin et al. Fig. 5: twenty ReLU neurons from f ≈ 0 on an XOR-like task
FIG_5 = {
    "data": "xor",
    "n": 40,
    "n_test": 200,
    "activation": "relu",
    "depth": 2,
    "width": 20,
    "init": "kunin",
    "tau": 0.1,
    "loss": "mse",
    "rate_ratio": 1.0,
    "lr": 0.05,
    "steps": 4000,
    "seed": 1,
}
#: Kunin et al. Fig. 6a (LeNet-5 on MNIST there): a three-layer ReLU MLP on the digits
FIG_6A = {
    "data": "digits",
    "classes": "pair",
    "n": 100,
    "n_test": 200,
    "activation": "relu",
    "depth": 3,
    "width": 50,
    "init": "gaussian",
    "sigma": 1.4,
    "scaling": "standard",
    "loss": "mse",
    "rate_ratio": 1.0,
    "lr": 0.01,
    "steps": 3000,
    "seed": 0,
}

#: the paper-figures cards: which figure each preset draws, in which panel
FIG_1A_CARD = {
    "figure": "Fig. 1a",
    "panel": "neurons",
    "paper_setting": claims.FIG_1A_PAPER,
    "differs": claims.FIG_1A_DIFFERS,
}
FIG_5_CARD = {
    "figure": "Fig. 5",
    "panel": "function",
    "paper_setting": claims.FIG_5_PAPER,
    "differs": claims.FIG_5_DIFFERS,
}
FIG_6A_CARD = {
    "figure": "Fig. 6a",
    "panel": "distances",
    "paper_setting": claims.FIG_6A_PAPER,
    "differs": claims.FIG_6A_DIFFERS,
}

PRESETS = (
    Preset(
        "fig-1a-small-scale-balanced-rich",
        "Fig. 1a — small scale, balanced: rich",
        "τ = 0.1, δ = 0: the neurons grow from almost nothing and turn as they grow (the "
        f"teacher's directions dotted). {FIG_1A_CAPTION}.",
        FIG_1A | {"tau": 0.1, "delta": 0.0},
        **FIG_1A_CARD,
        claim=claims.FIG_1A_RICH,
    ),
    Preset(
        "fig-1a-large-scale-lazy",
        "Fig. 1a — large scale: lazy",
        f"τ = 2, δ = 0: the neurons hardly move, the kernel stays put. {FIG_1A_CAPTION}.",
        FIG_1A | {"tau": 2.0, "delta": 0.0},
        **FIG_1A_CARD,
        claim=claims.FIG_1A_LAZY,
    ),
    Preset(
        "fig-1a-upstream-aligns-with-the-teacher",
        "Fig. 1a — upstream (δ = 1): aligns with the teacher",
        f"τ = 0.1, δ = 1: rapid rich learning, the neurons that grow turn onto the teacher's "
        f"directions. "
        f"{FIG_1A_CAPTION}.",
        FIG_1A | {"tau": 0.1, "delta": 1.0},
        **FIG_1A_CARD,
        claim=claims.FIG_1A_UPSTREAM,
    ),
    Preset(
        "fig-1a-downstream-does-not-align",
        "Fig. 1a — downstream (δ = −1): no alignment",
        f"τ = 0.1, δ = −1: the first layer barely turns; the read-out fits the data. "
        f"{FIG_1A_CAPTION}.",
        FIG_1A | {"tau": 0.1, "delta": -1.0},
        **FIG_1A_CARD,
        claim=claims.FIG_1A_DOWNSTREAM,
    ),
    Preset(
        "fig-5-xor-rich-upstream",
        "Fig. 5 — XOR, upstream: the patterns move first",
        "Twenty ReLU neurons from f ≡ 0, δ = 1: f over the plane at the end, with the parity of "
        "the active units (the paper draws the surface in 3-D).",
        FIG_5 | {"delta": 1.0},
        **FIG_5_CARD,
        claim=claims.FIG_5_UPSTREAM,
    ),
    Preset(
        "fig-5-xor-lazy-downstream",
        "Fig. 5 — XOR, downstream: the patterns nearly stay",
        "Twenty ReLU neurons from f ≡ 0, δ = −1: f over the plane at the end, with the parity of "
        "the active units.",
        FIG_5 | {"delta": -1.0},
        **FIG_5_CARD,
        claim=claims.FIG_5_DOWNSTREAM,
    ),
    Preset(
        "fig-6a-upstream-patterns-move",
        "Fig. 6a — upstream (α = 3): patterns and kernel move",
        "A three-layer ReLU MLP on the digits 4 and 9 (LeNet-5 on MNIST there), first layer ÷ 3 "
        "and read-out × 3: the activation patterns and the kernel move far, the parameters little.",
        FIG_6A | {"balance": 3.0},
        **FIG_6A_CARD,
        claim=claims.FIG_6A_UPSTREAM,
    ),
    Preset(
        "fig-6a-downstream-patterns-stay",
        "Fig. 6a — downstream (α = 1/3): patterns stay",
        "The same network with the first layer × 3 and the read-out ÷ 3: lazier, fewer "
        "activation patterns change and the kernel moves less.",
        FIG_6A | {"balance": 1 / 3},
        **FIG_6A_CARD,
        claim=claims.FIG_6A_DOWNSTREAM,
    ),
)
