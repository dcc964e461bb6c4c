"""A single hidden neuron (Kunin et al., *Get rich quick*): its trajectory view and its τ × δ
map. Solver: :mod:`solvers.single_neuron`; theory: docs/theory.md §1."""

from solvers import single_neuron

from ...core.model import Model
from ...core.presets import Paper
from .low_rank import VIEW as LOW_RANK
from .map import VIEW as MAP
from .trajectory import VIEW as TRAJECTORY

PAPER = Paper("Kunin et al.", "Get rich quick", "a single hidden neuron")

MODEL = Model(order=1, paper=PAPER, views=(TRAJECTORY, MAP, LOW_RANK), solver=single_neuron)
