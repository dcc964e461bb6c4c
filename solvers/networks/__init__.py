"""Nonlinear and deep fully connected networks trained by full-batch gradient descent — the
papers' experiments next to the exact linear theory (docs/networks.md).

Pure numpy (scikit-learn only for its bundled digits, imported when :func:`digits` is called).
Every array may carry leading batch axes, so a whole τ × δ grid of networks (or a sweep over σ,
γ or the learning rate) trains as one set of array operations:

* :class:`Network`, :func:`forward`, :func:`ntk`, :func:`train` (→ :class:`Training`);
* :func:`kunin_init` (Kunin et al. App. D.1), :func:`gaussian_init` (Xu & Ziyin's scalings);
* :func:`kernel_flow` (frozen-kernel gradient flow), :func:`fit_feature_learning_rate`
  (Shan & Bordelon's γ);
* data sets :func:`teacher_student`, :func:`xor`, :func:`two_gaussians`, :func:`digits`.
"""

from ._data import digits, teacher_student, two_gaussians, xor
from ._evaluate import gradient, loss_value, ntk
from ._init import SCALINGS, alpha_from_tau_delta, gaussian_init, kunin_init
from ._kernels import MAX_FIT_SIZE, FeatureLearningFit, fit_feature_learning_rate, kernel_flow
from ._model import (
    ACTIVATIONS,
    LEAKY_SLOPE,
    MAX_CELLS,
    MAX_DEPTH,
    MAX_ELEMENTS,
    MAX_SAMPLES,
    MAX_WIDTH,
    Network,
    forward,
    stack,
)
from ._train import (
    CHUNK_BUDGET,
    DIVERGENCE_FACTOR,
    MAX_KERNEL_SIZE,
    MAX_RECORDED,
    MAX_RECORDS,
    MAX_TRAIN_STEPS,
    MAX_WORK,
    Training,
    default_record,
    layer_alignments,
    train,
)

__all__ = [
    "ACTIVATIONS",
    "CHUNK_BUDGET",
    "DIVERGENCE_FACTOR",
    "LEAKY_SLOPE",
    "MAX_CELLS",
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "MAX_FIT_SIZE",
    "MAX_KERNEL_SIZE",
    "MAX_RECORDED",
    "MAX_RECORDS",
    "MAX_SAMPLES",
    "MAX_TRAIN_STEPS",
    "MAX_WIDTH",
    "MAX_WORK",
    "SCALINGS",
    "FeatureLearningFit",
    "Network",
    "Training",
    "alpha_from_tau_delta",
    "default_record",
    "digits",
    "fit_feature_learning_rate",
    "forward",
    "gaussian_init",
    "gradient",
    "kernel_flow",
    "kunin_init",
    "layer_alignments",
    "loss_value",
    "ntk",
    "stack",
    "teacher_student",
    "train",
    "two_gaussians",
    "xor",
]
