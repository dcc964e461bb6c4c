"""One module per view; :data:`VIEWS` lists them in navigation order (the model views, then
the maps, which the navigation bar reaches through one "Maps" entry)."""

from .finite_width import VIEW as FINITE_WIDTH
from .finite_width_map import VIEW as FINITE_WIDTH_MAP
from .kernel_alignment import VIEW as KERNEL_ALIGNMENT
from .kernel_alignment_map import VIEW as KERNEL_ALIGNMENT_MAP
from .lambda_balanced import VIEW as LAMBDA_BALANCED
from .lambda_balanced_map import VIEW as LAMBDA_BALANCED_MAP
from .single_neuron import VIEW as SINGLE_NEURON
from .single_neuron_map import VIEW as SINGLE_NEURON_MAP

VIEWS = (
    SINGLE_NEURON,
    FINITE_WIDTH,
    LAMBDA_BALANCED,
    KERNEL_ALIGNMENT,
    SINGLE_NEURON_MAP,
    LAMBDA_BALANCED_MAP,
    KERNEL_ALIGNMENT_MAP,
    FINITE_WIDTH_MAP,
)

__all__ = ["VIEWS"]
