"""Kernel–target alignment under optimal feature evolution (Shan & Bordelon, *Rapid feature
evolution accelerates learning*): its trajectory view and its γ × spectrum map. Solver:
:mod:`solvers.feature_evolution`; theory: docs/theory.md §4."""

from ...core.presets import Paper
from .map import VIEW as MAP
from .trajectory import VIEW as TRAJECTORY

#: place of this model among the others (navigation order)
ORDER = 4
VIEWS = (TRAJECTORY, MAP)

PAPER = Paper(
    "Shan & Bordelon",
    "Rapid feature evolution accelerates learning",
    "kernel–target alignment under optimal feature evolution",
)
