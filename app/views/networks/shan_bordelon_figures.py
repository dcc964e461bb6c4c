"""Shan & Bordelon's network figures (*Rapid feature evolution accelerates learning*, Fig. 1, 4
and 6) as presets of the network view, each with the claim its card on the paper-figures page
checks (:mod:`app.core.claims`)."""

from __future__ import annotations

from ...core.presets import Preset
from ..kernel_alignment import PAPER as SHAN_BORDELON

#: Shan & Bordelon Fig. 1 and 6: ReLU MLPs in the NTK scaling on a subset of the digits
DIGITS_NTK = {
    "data": "digits",
    "classes": "pair",
    "n": 100,
    "n_test": 200,
    "activation": "relu",
    "depth": 2,
    "width": 200,
    "init": "gaussian",
    "sigma": 1.0,
    "scaling": "ntk",
    "loss": "mse",
    "rate_ratio": 1.0,
    "lr": 0.2,
    "steps": 1000,
    "seed": 0,
}

SB = {"paper": SHAN_BORDELON}
SB_FIG_6_CARD = {"figure": "Fig. 6", "panel": "alignment", **SB}

PRESETS = (
    Preset(
        "fig-1a-c-loss-against-kernel-gradient-descent",
        "Fig. 1A — the loss against kernel gradient descent",
        "A two-layer ReLU MLP (width 200, NTK scaling; N = 500 on MNIST there) on 100 digits: "
        "the network's loss falls below the frozen NTK's as its kernel aligns.",
        DIGITS_NTK,
        figure="Fig. 1A",
        panel="loss",
        **SB,
    ),
    Preset(
        "fig-1d-e-spectra-before-and-after",
        "Fig. 1D–E — the NTK's spectrum before and after",
        "The same network: power-law eigenvalues before and after training, and the task power "
        "concentrating on the top eigenvectors.",
        DIGITS_NTK,
        figure="Fig. 1D–E",
        panel="spectrum",
        **SB,
    ),
    Preset(
        "fig-4-kernel-specialization-ten-digits",
        "Fig. 4 — kernel specialization on the ten digits",
        "A two-layer ReLU MLP (width 100, NTK scaling) with ten outputs on 50 digit images "
        "(N = 500 on MNIST there): each output's kernel aligns most with its own class.",
        DIGITS_NTK
        | {"classes": "ten", "n": 50, "n_test": 100, "width": 100, "lr": 1.0, "steps": 2000},
        figure="Fig. 4",
        panel="specialization",
        **SB,
    ),
    Preset(
        "fig-6-depth-2-alignment-and-gamma",
        "Fig. 6 — depth 2: alignment and γ",
        "A two-layer ReLU MLP (width 50) on 100 digits (4 against 9; ten classes of MNIST "
        "there): the "
        "alignment and the fitted feature-learning rate γ — compare depth 4.",
        DIGITS_NTK | {"width": 50},
        **SB_FIG_6_CARD,
    ),
    Preset(
        "fig-6-depth-4-alignment-and-gamma",
        "Fig. 6 — depth 4: faster alignment, larger γ",
        "A four-layer ReLU MLP on the same digits: the alignment rises earlier and higher, the "
        "fitted γ is larger than at depth 2.",
        DIGITS_NTK | {"width": 50, "depth": 4},
        **SB_FIG_6_CARD,
    ),
)
