"""A two-layer linear network of finite width on one-dimensional data (Xu & Ziyin, *Three
mechanisms of feature learning in a linear network*): its trajectory view and its map of
scaling phases. Solver: :mod:`solvers.finite_width`; theory: docs/theory.md §2."""

from ...core.presets import Paper
from .map import VIEW as MAP
from .trajectory import VIEW as TRAJECTORY

#: place of this model among the others (navigation order)
ORDER = 2
VIEWS = (TRAJECTORY, MAP)

PAPER = Paper(
    "Xu & Ziyin",
    "Three mechanisms of feature learning in a linear network",
    "a two-layer linear network of finite width",
)
