"""Kernel–target alignment under optimal feature evolution (Shan & Bordelon, *Rapid feature
evolution accelerates learning*): its trajectory view. Solver:
:mod:`solvers.feature_evolution`; theory: docs/theory.md §4."""

from ...core.presets import Paper
from .trajectory import VIEW as TRAJECTORY

#: place of this model among the others (navigation order)
ORDER = 4
VIEWS = (TRAJECTORY,)

PAPER = Paper(
    "Shan & Bordelon",
    "Rapid feature evolution accelerates learning",
    "kernel–target alignment under optimal feature evolution",
)
