"""λ-balanced two-layer linear networks (Dominé et al., *From lazy to rich*): their trajectory
view and the λ × architecture map. Solver: :mod:`solvers.lambda_balanced`; theory:
docs/theory.md §3."""

from ...core.presets import Paper
from .map import VIEW as MAP
from .sequences import VIEW as SEQUENCES
from .trajectory import VIEW as TRAJECTORY
from .transfer import VIEW as TRANSFER

#: place of this model among the others (navigation order)
ORDER = 3
VIEWS = (TRAJECTORY, SEQUENCES, MAP, TRANSFER)

PAPER = Paper("Dominé et al.", "From lazy to rich", "λ-balanced two-layer linear networks")
