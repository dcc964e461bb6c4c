"""A single hidden neuron (Kunin et al., *Get rich quick*): its trajectory view and its τ × δ
map. Solver: :mod:`solvers.single_neuron`; theory: docs/theory.md §1."""

from ...core.presets import Paper
from .map import VIEW as MAP
from .trajectory import VIEW as TRAJECTORY

#: place of this model among the others (navigation order)
ORDER = 1
VIEWS = (TRAJECTORY, MAP)

PAPER = Paper("Kunin et al.", "Get rich quick", "a single hidden neuron")
