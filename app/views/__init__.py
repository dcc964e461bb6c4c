"""One module per model view; :data:`VIEWS` lists them in navigation order."""

from importlib import import_module
from importlib.util import find_spec

#: view modules in navigation order; each defines ``VIEW``
ORDER = ("single_neuron", "finite_width", "lambda_balanced", "kernel_alignment")

VIEWS = tuple(
    import_module(f"{__name__}.{name}").VIEW
    for name in ORDER
    if find_spec(f"{__name__}.{name}") is not None
)

__all__ = ["ORDER", "VIEWS"]
