"""λ-balanced two-layer linear networks (Dominé et al., *From lazy to rich*): their trajectory
view and the λ × architecture map. Solver: :mod:`solvers.lambda_balanced`; theory:
docs/theory.md §3."""

from solvers import lambda_balanced

from ...core.model import Model
from ...core.presets import Paper
from .map import VIEW as MAP
from .trajectory import VIEW as TRAJECTORY

PAPER = Paper("Dominé et al.", "From lazy to rich", "λ-balanced two-layer linear networks")

MODEL = Model(order=3, paper=PAPER, views=(TRAJECTORY, MAP), solver=lambda_balanced)
