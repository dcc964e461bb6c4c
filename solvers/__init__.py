"""Exact learning dynamics of small linear networks, lazy and rich.

Four models, each with the exact solution of its gradient flow and a plain numpy
gradient-descent simulation with the same result type (see docs/theory.md §5.4):

* :mod:`solvers.single_neuron` — one hidden neuron, conserved δ (Kunin et al.);
* :mod:`solvers.finite_width` — finite width, one-dimensional data (Xu & Ziyin);
* :mod:`solvers.lambda_balanced` — λ-balanced two-layer networks (Dominé et al.);
* :mod:`solvers.feature_evolution` — optimal feature evolution and kernel alignment
  (Shan & Bordelon);

plus the shared :mod:`solvers.metrics`, and :mod:`solvers.networks`: nonlinear and deep networks
trained by batched gradient descent, the papers' experiments beside the exact theory.
Pure numpy/scipy: nothing here imports a web or plotting library.
"""

from . import feature_evolution, finite_width, lambda_balanced, metrics, networks, single_neuron
from ._descent import StepBudget, step_budget

__all__ = [
    "StepBudget",
    "feature_evolution",
    "finite_width",
    "lambda_balanced",
    "metrics",
    "networks",
    "single_neuron",
    "step_budget",
]
