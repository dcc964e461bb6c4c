"""One module per model view; :data:`VIEWS` lists them in navigation order."""

from .finite_width import VIEW as FINITE_WIDTH
from .kernel_alignment import VIEW as KERNEL_ALIGNMENT
from .lambda_balanced import VIEW as LAMBDA_BALANCED
from .single_neuron import VIEW as SINGLE_NEURON

VIEWS = (SINGLE_NEURON, FINITE_WIDTH, LAMBDA_BALANCED, KERNEL_ALIGNMENT)

__all__ = ["VIEWS"]
