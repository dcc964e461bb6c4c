"""λ-balanced two-layer linear networks (Dominé et al., *From lazy to rich*): their trajectory
view, several λ side by side on one task or tasks in turn, the λ × architecture map, the
transfer map and how balanced a LeCun start is. Solvers: :mod:`solvers.lambda_balanced` (its
task sequences included); theory: docs/theory.md §3, docs/lambda-balanced-applications.md."""

from solvers import lambda_balanced

from ...core.model import Model
from ...core.presets import Paper
from .initialisation import VIEW as INITIALISATION
from .map import VIEW as MAP
from .sequences import VIEW as SEQUENCES
from .trajectory import VIEW as TRAJECTORY
from .transfer import VIEW as TRANSFER

PAPER = Paper("Dominé et al.", "From lazy to rich", "λ-balanced two-layer linear networks")

MODEL = Model(
    order=3,
    paper=PAPER,
    views=(TRAJECTORY, SEQUENCES, MAP, TRANSFER, INITIALISATION),
    solver=lambda_balanced,
)
