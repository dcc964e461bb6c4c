"""Kernel–target alignment under optimal feature evolution (Shan & Bordelon, *Rapid feature
evolution accelerates learning*): its trajectory view and its γ × spectrum map. Solver:
:mod:`solvers.feature_evolution`; theory: docs/theory.md §4."""

from solvers import feature_evolution

from ...core.model import Model
from ...core.presets import Paper
from .map import VIEW as MAP
from .trajectory import VIEW as TRAJECTORY

PAPER = Paper(
    "Shan & Bordelon",
    "Rapid feature evolution accelerates learning",
    "kernel–target alignment under optimal feature evolution",
)

MODEL = Model(order=4, paper=PAPER, views=(TRAJECTORY, MAP), solver=feature_evolution)
