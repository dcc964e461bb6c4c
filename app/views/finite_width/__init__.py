"""A two-layer linear network of finite width on one-dimensional data (Xu & Ziyin, *Three
mechanisms of feature learning in a linear network*): its trajectory view and its map of
scaling phases. Solver: :mod:`solvers.finite_width`; theory: docs/theory.md §2."""

from solvers import finite_width

from ...core.model import Model
from ...core.presets import Paper
from .map import VIEW as MAP
from .trajectory import VIEW as TRAJECTORY

PAPER = Paper(
    "Xu & Ziyin",
    "Three mechanisms of feature learning in a linear network",
    "a two-layer linear network of finite width",
)

MODEL = Model(order=2, paper=PAPER, views=(TRAJECTORY, MAP), solver=finite_width)
