"""Nonlinear and deep fully connected networks trained by full-batch gradient descent — the
papers' experiments next to the exact linear theory (docs/networks.md).

Pure numpy (scikit-learn only for its bundled digits, imported when :func:`digits` is called;
numba, where installed, runs the steps of small networks compiled — :func:`train` gives the
same results without it, up to rounding).
Every array may carry leading batch axes, so a whole τ × δ grid of networks (or a sweep over σ,
γ or the learning rate) trains as one set of array operations:

* :class:`Network`, :func:`forward`, :func:`ntk`, :func:`train` (→ :class:`Training`);
* :func:`kunin_init` (Kunin et al. App. D.1), :func:`gaussian_init` (Xu & Ziyin's scalings);
* :func:`kernel_flow` (frozen-kernel gradient flow), :func:`fit_feature_learning_rate`
  (Shan & Bordelon's γ);
* data sets :func:`teacher_student`, :func:`xor`, :func:`two_gaussians`,
  :func:`regression_line`, :func:`digits`;
* :func:`sweep_widths`, :func:`sweep_scale`, :func:`sweep_sigma` (Xu & Ziyin's sweeps of ReLU
  networks over width, initial scale and σ);
* :func:`linear_limit` (the exact finite-width solution a linear network tends to) and
  :func:`scenario` (the data, network and training settings a dashboard view poses).
"""

from ._compiled import runs_fused
from ._data import (
    digit_bundle,
    digits,
    regression_line,
    teacher_student,
    teacher_weights,
    two_gaussians,
    xor,
)
from ._evaluate import (
    active_units,
    gradient,
    loss_value,
    neuron_vectors,
    ntk,
    ntk_between,
    outputs_and_active_units,
)
from ._init import SCALINGS, alpha_from_tau_delta, gaussian_init, kunin_init
from ._kernels import (
    MAX_FIT_SIZE,
    FeatureLearningFit,
    akgd_rate,
    equivalent_gamma,
    fit_feature_learning_rate,
    kernel_flow,
    kernel_flow_at,
    pooled_power,
    power_law_exponent,
    prepare_fit,
    specialization,
    task_power_exponent,
)
from ._limits import LinearLimit, admits_linear_limit, linear_limit
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
from ._scenario import (
    DATA_SETS,
    DATA_STREAM,
    DIGIT_CLASSES,
    INITS,
    WEIGHT_STREAM,
    Data,
    FrozenKernel,
    Scenario,
    data_set,
    layer_rates,
    scenario,
)
from ._stages import train_in_stages
from ._steps import trains_compiled
from ._sweeps import (
    MAX_SWEEP_VALUES,
    SWEEP_BASE_WIDTH,
    SWEEP_KAPPA,
    SWEEP_ROWS,
    Setting,
    Sweep,
    scale_setting,
    sigma_rates,
    sweep_scale,
    sweep_sigma,
    sweep_widths,
    sweep_work,
    width_setting,
)
from ._train import (
    CHUNK_BUDGET,
    DIVERGENCE_FACTOR,
    MAX_KERNEL_SIZE,
    MAX_RECORDED,
    MAX_RECORDED_WEIGHTS,
    MAX_RECORDS,
    MAX_TRAIN_STEPS,
    MAX_WORK,
    RECORDED,
    Training,
    compile_training_loop,
    default_record,
    kunin_hamming,
    layer_alignments,
    train,
    training_work,
)

__all__ = [
    "ACTIVATIONS",
    "CHUNK_BUDGET",
    "DATA_SETS",
    "DATA_STREAM",
    "DIGIT_CLASSES",
    "DIVERGENCE_FACTOR",
    "INITS",
    "LEAKY_SLOPE",
    "MAX_CELLS",
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "MAX_FIT_SIZE",
    "MAX_KERNEL_SIZE",
    "MAX_RECORDED",
    "MAX_RECORDED_WEIGHTS",
    "MAX_RECORDS",
    "MAX_SAMPLES",
    "MAX_SWEEP_VALUES",
    "MAX_TRAIN_STEPS",
    "MAX_WIDTH",
    "MAX_WORK",
    "RECORDED",
    "SCALINGS",
    "SWEEP_BASE_WIDTH",
    "SWEEP_KAPPA",
    "SWEEP_ROWS",
    "WEIGHT_STREAM",
    "Data",
    "FeatureLearningFit",
    "FrozenKernel",
    "LinearLimit",
    "Network",
    "Scenario",
    "Setting",
    "Sweep",
    "Training",
    "active_units",
    "admits_linear_limit",
    "akgd_rate",
    "alpha_from_tau_delta",
    "compile_training_loop",
    "data_set",
    "default_record",
    "digit_bundle",
    "digits",
    "equivalent_gamma",
    "fit_feature_learning_rate",
    "forward",
    "gaussian_init",
    "gradient",
    "kernel_flow",
    "kernel_flow_at",
    "kunin_hamming",
    "kunin_init",
    "layer_alignments",
    "layer_rates",
    "linear_limit",
    "loss_value",
    "neuron_vectors",
    "ntk",
    "ntk_between",
    "outputs_and_active_units",
    "pooled_power",
    "power_law_exponent",
    "prepare_fit",
    "regression_line",
    "runs_fused",
    "scale_setting",
    "scenario",
    "sigma_rates",
    "specialization",
    "stack",
    "sweep_scale",
    "sweep_sigma",
    "sweep_widths",
    "sweep_work",
    "task_power_exponent",
    "teacher_student",
    "teacher_weights",
    "train",
    "train_in_stages",
    "training_work",
    "trains_compiled",
    "two_gaussians",
    "width_setting",
    "xor",
]
