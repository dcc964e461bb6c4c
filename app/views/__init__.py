"""One module per view; :data:`VIEWS` lists them in navigation order (the model views, then
the maps, which the navigation bar reaches through one "Maps" entry)."""

from .finite_width import VIEW as FINITE_WIDTH
from .kernel_alignment import VIEW as KERNEL_ALIGNMENT
from .lambda_balanced import VIEW as LAMBDA_BALANCED
from .single_neuron import VIEW as SINGLE_NEURON
from .single_neuron_map import VIEW as SINGLE_NEURON_MAP

VIEWS = (SINGLE_NEURON, FINITE_WIDTH, LAMBDA_BALANCED, KERNEL_ALIGNMENT, SINGLE_NEURON_MAP)

__all__ = ["VIEWS"]
