"""Scenarios: the networks the dashboard's views pose, from the values of their controls
(docs/networks.md, "Scenarios").

:func:`scenario` turns a handful of plain settings — a data set, an architecture, an
initialisation, learning rates and a seed — into the data, the initial network(s) and the
training settings, so that a view, its map and a click from one to the other build exactly the
same networks. Requests that do not fit together are adapted (never refused), and every change
is said in plain words in :attr:`Scenario.notes`.

Seeds: a scenario's seed s draws its data from ``np.random.default_rng([s, DATA_STREAM])`` and
its weights from ``np.random.default_rng([s, WEIGHT_STREAM])`` — two independent streams, so a
change of architecture keeps the data and a change of data keeps the weights' base draw.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import finite_width
from ._data import (
    digit_bundle,
    digits,
    regression_line,
    teacher_student,
    teacher_weights,
    two_gaussians,
    xor,
)
from ._evaluate import ntk, ntk_between
from ._init import SCALINGS, gaussian_init, kunin_init
from ._kernels import kernel_flow, kernel_flow_at
from ._limits import LinearLimit, admits_linear_limit, linear_limit
from ._model import Network, forward
from ._stages import train_in_stages
from ._train import MAX_KERNEL_SIZE, Training, default_record, train

__all__ = [
    "DATA_SETS",
    "DATA_STREAM",
    "DIGIT_CLASSES",
    "INITS",
    "WEIGHT_STREAM",
    "Data",
    "FrozenKernel",
    "Scenario",
    "data_set",
    "layer_rates",
    "scenario",
]

#: the data sets: Kunin et al.'s teacher–student and XOR-like task, Xu & Ziyin's two Gaussians
#: and one-dimensional regression, and the bundled digits (Shan & Bordelon's MNIST stand-in)
DATA_SETS = ("teacher", "xor", "gaussians", "line", "digits")
#: the initialisations: Kunin et al.'s (τ, δ), Gaussian layers in a scaling (Xu & Ziyin
#: Table 1) with a balance α, and Xu & Ziyin's nearly parallel layers
INITS = ("kunin", "gaussian", "parallel")
#: the digits a digits scenario classifies: a hard pair (y = ±1) or all ten (one-hot)
DIGIT_CLASSES: dict[str, tuple[int, ...]] = {"pair": (4, 9), "ten": tuple(range(10))}
#: the streams of a scenario's seed (see the module's docstring)
DATA_STREAM = 0
WEIGHT_STREAM = 1


def _stream(seed: int, stream: int) -> np.random.Generator:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0; got {seed!r}.")
    return np.random.default_rng([int(seed), stream])


@dataclass(frozen=True, eq=False)
class Data:
    """A data set of a scenario: training and test inputs and targets."""

    name: str
    X: np.ndarray  #: (n, d_in)
    y: np.ndarray  #: (n, d_out)
    X_test: np.ndarray | None  #: (m, d_in), None without a test set
    y_test: np.ndarray | None  #: (m, d_out)
    #: the teacher's directions w_j (k, d) of a teacher–student set (else None)
    teacher: np.ndarray | None = None

    @property
    def labels(self) -> bool:
        """Whether every target is ±1 (the logistic loss needs it)."""
        return bool(np.all(np.abs(self.y) == 1))


def data_set(
    name: str,
    *,
    n: int,
    n_test: int = 0,
    d: int = 2,
    k: int = 3,
    classes: str = "pair",
    seed: int = 0,
) -> Data:
    """The data set ``name`` (one of :data:`DATA_SETS`), drawn from the seed's data stream:

    * ``teacher``: Kunin et al. App. D.1, inputs on ``S^{d−1}``, a two-layer ReLU teacher with k
      units (:func:`teacher_student`; its directions are kept for Fig. 1a);
    * ``xor``: inputs on [−1, 1]², ``y = sign(x₁x₂)`` (:func:`xor`, Kunin et al. Fig. 5);
    * ``gaussians``: N(0, 1) against N(4, 1), labels ±1 (:func:`two_gaussians`, Xu & Ziyin
      Fig. 7);
    * ``line``: ``y = 2x + N(0, 1)/10`` with ``x ~ N(0, 1)`` (:func:`regression_line`, Xu &
      Ziyin Fig. 1);
    * ``digits``: the 8 × 8 digits, ``classes`` "pair" (4 against 9, y = ±1) or "ten" (one-hot)
      (:func:`digits`, the stand-in for MNIST).
    """
    if name not in DATA_SETS:
        raise ValueError(f"data must be one of {', '.join(DATA_SETS)}; got {name!r}.")
    if classes not in DIGIT_CLASSES:
        raise ValueError(f"classes must be one of {', '.join(DIGIT_CLASSES)}; got {classes!r}.")
    rng = _stream(seed, DATA_STREAM)
    teacher = None
    if name == "teacher":
        parts = teacher_student(d, k, n, n_test=n_test, seed=rng)
        teacher = teacher_weights(d, k, seed=_stream(seed, DATA_STREAM))[0]
    elif name == "xor":
        parts = xor(n, n_test=n_test, seed=rng)
    elif name == "gaussians":
        parts = two_gaussians(n, n_test=n_test, seed=rng)
    elif name == "line":
        parts = regression_line(n, n_test=n_test, seed=rng)
    else:
        parts = digits(DIGIT_CLASSES[classes], n, n_test=n_test, seed=rng)
    X, y, X_test, y_test = (*parts, None, None)[:4]
    return Data(name, X, y, X_test, y_test, teacher)


@dataclass(frozen=True, eq=False)
class FrozenKernel:
    """Gradient flow of the mean-square loss with the NTK frozen at initialisation (Shan &
    Bordelon's kernel gradient descent, docs/networks.md (N15)) at the times ``t``."""

    t: np.ndarray  #: (T,)
    K0: np.ndarray  #: (P, P) the initial NTK on the training inputs
    loss: np.ndarray  #: (T,) (1/2n)Σ‖f − y‖² on the training set
    test_loss: np.ndarray | None  #: (T,) the same on the test set, None without one


def _mse(outputs: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """(1/2n)Σ_μ‖f_μ − y_μ‖² of outputs ``(..., n, d_out)``: docs/networks.md (N4)."""
    difference = outputs - targets
    return 0.5 * np.sum(difference * difference, axis=(-2, -1)) / targets.shape[-2]


@dataclass(frozen=True, eq=False)
class Scenario:
    """Data, initial network(s) and training settings (see :func:`scenario`)."""

    data: Data
    net: Network
    lr: float | np.ndarray
    steps: int
    layer_lrs: tuple[float, ...]
    loss: str
    #: every change made to the settings asked for, in plain words (empty if none)
    notes: tuple[str, ...] = ()

    @property
    def kernel_size(self) -> int:
        """P = n·d_out, the size of the NTK on the training inputs."""
        return self.data.X.shape[0] * self.net.d_out

    def train(
        self,
        *,
        record: np.ndarray | None = None,
        records: int = 200,
        record_weights: bool = False,
        progress: Callable[[int], None] | None = None,
        stage_steps: int | None = None,
    ) -> Training:
        """:func:`train` on the scenario's data, at ``record`` (default ``records`` log-spaced
        steps), with the NTK diagnostics whenever the NTK fits :data:`MAX_KERNEL_SIZE`;
        ``stage_steps``: fewer steps than the scenario's trains them in stages of that many
        (:func:`train_in_stages`: a run longer than one call's :data:`MAX_WORK`)."""
        data = self.data
        options = dict(
            lr=self.lr,
            layer_lrs=self.layer_lrs,
            loss=self.loss,
            X_test=data.X_test,
            y_test=data.y_test,
            track_kernel=self.kernel_size <= MAX_KERNEL_SIZE,
            progress=progress,
            steps=self.steps,
            record=default_record(self.steps, records) if record is None else record,
        )
        if stage_steps is not None and stage_steps < self.steps:
            if record_weights:
                raise ValueError("a run in stages keeps no weights: record_weights needs one call.")
            return train_in_stages(self.net, data.X, data.y, stage_steps=stage_steps, **options)
        return train(self.net, data.X, data.y, record_weights=record_weights, **options)

    def frozen_kernel(self, t: np.ndarray) -> FrozenKernel:
        """The frozen-NTK baseline of this (single) network on the training and test sets."""
        if self.net.batch_shape != ():
            raise ValueError("the frozen-kernel baseline is for one network, not a batch.")
        data, net = self.data, self.net
        K0 = ntk(net, data.X, layer_lrs=self.layer_lrs)
        f0 = forward(net, data.X)
        outputs = kernel_flow(K0, f0, data.y, t)
        test_loss = None
        if data.X_test is not None:
            cross = ntk_between(net, data.X_test, data.X, layer_lrs=self.layer_lrs)
            tests = kernel_flow_at(K0, cross, f0, forward(net, data.X_test), data.y, t)
            test_loss = _mse(tests, data.y_test)
        return FrozenKernel(np.asarray(t, dtype=float), K0, _mse(outputs, data.y), test_loss)

    def linear_limit(self, t: np.ndarray) -> LinearLimit | None:
        """The exact finite-width solution this network tends to as lr → 0, where there is one
        (a two-layer linear network on one-dimensional inputs, mean-square loss; else None)."""
        if not admits_linear_limit(self.net, self.data.X, self.loss):
            return None
        data = self.data
        return linear_limit(
            self.net,
            data.X,
            data.y,
            t,
            layer_lrs=self.layer_lrs,
            X_test=data.X_test,
            y_test=data.y_test,
        )


def layer_rates(depth: int, ratio: float) -> tuple[float, ...]:
    """Per-layer learning-rate factors with read-out/first-layer ratio ``ratio`` and product 1:
    ``η₁ = 1/√r``, ``η_L = √r``, 1 in between (as the single-neuron model's η_a/η_w)."""
    if not np.isfinite(ratio) or ratio <= 0:
        raise ValueError(f"the learning-rate ratio must be > 0; got {ratio!r}.")
    root = float(np.sqrt(ratio))
    return (1.0 / root, *([1.0] * (depth - 2)), root)


def _digits_sizes(n: int, n_test: int, classes: str) -> tuple[int, int, list[str]]:
    """Sizes that fit the digits available (the test set gives way first)."""
    available = int(np.isin(_digit_labels(), DIGIT_CLASSES[classes]).sum())
    notes = []
    if n + n_test > available:
        kept = max(available - n, 0)
        notes.append(
            f"The digits {'/'.join(map(str, DIGIT_CLASSES[classes]))} hold {available} images: "
            f"the test set is cut from {n_test} to {kept}."
        )
        n_test = kept
        if n > available:
            notes.append(f"The training set is cut from {n} to {available} images.")
            n = available
    return n, n_test, notes


def _digit_labels() -> np.ndarray:
    return digit_bundle()[1]


def _adapted(data: Data, settings: dict) -> tuple[dict, list[str]]:
    """Settings that fit the data and each other, and what had to change."""
    notes = []
    if settings["loss"] == "bce" and not data.labels:
        notes.append(
            "The logistic loss needs labels ±1, which this data set does not have: the "
            "mean-square loss is used."
        )
        settings["loss"] = "mse"
    init, d_out = settings["init"], data.y.shape[1]
    if init == "kunin" and d_out != 1:
        notes.append(
            "Kunin et al.'s (τ, δ) initialisation is for networks with one output: Gaussian "
            f"layers in the {settings['scaling'].replace('_', '-')} scaling are used."
        )
        settings["init"] = "gaussian"
    elif init == "kunin" and settings["depth"] != 2:
        notes.append(
            "Kunin et al.'s (τ, δ) initialisation is for two-layer networks: depth 2 is used."
        )
        settings["depth"] = 2
    if settings["init"] == "kunin" and settings["width"] % 2:
        notes.append(
            f"Kunin et al.'s initialisation pairs every unit with a negated copy: width "
            f"{settings['width'] + 1} is used instead of {settings['width']}."
        )
        settings["width"] += 1
    shape_fits = data.X.shape[1] == 1 and settings["depth"] == 2 and d_out == 1
    if settings["init"] == "parallel" and not shape_fits:
        notes.append(
            "Nearly parallel layers (Xu & Ziyin) are for two-layer networks on one-dimensional "
            "inputs with one output: Gaussian layers are used."
        )
        settings["init"] = "gaussian"
    return settings, notes


def _network(data: Data, settings: dict, seed: int) -> Network:
    """The initial network(s) of adapted settings, from the seed's weight stream."""
    rng = _stream(seed, WEIGHT_STREAM)
    d_in, d_out = data.X.shape[1], data.y.shape[1]
    width, depth, activation = settings["width"], settings["depth"], settings["activation"]
    init = settings["init"]
    if init == "kunin":
        return kunin_init(
            d_in,
            width,
            tau=settings["tau"],
            delta=settings["delta"],
            seed=rng,
            activation=activation,
        )
    if init == "parallel":
        sigma = settings["sigma"]
        u0, W0 = finite_width.near_parallel_init(
            width, np.ones(1), sigma, sigma, rng, noise=settings["noise"]
        )
        scale = float(width) ** SCALINGS[settings["scaling"]]["gamma_power"]
        return Network((W0, u0[None, :]), activation, scale)
    widths = [d_in, *([width] * (depth - 1)), d_out]
    net = gaussian_init(
        widths,
        sigma=settings["sigma"],
        activation=activation,
        seed=rng,
        scaling=settings["scaling"],
    )
    balance = settings["balance"]
    if balance == 1.0:
        return net
    weights = (net.weights[0] / balance, *net.weights[1:-1], net.weights[-1] * balance)
    return Network(weights, activation, net.gamma)


def scenario(
    data: str = "teacher",
    *,
    d: int = 2,
    k: int = 3,
    n: int = 20,
    n_test: int = 0,
    classes: str = "pair",
    activation: str = "relu",
    depth: int = 2,
    width: int = 50,
    init: str = "kunin",
    tau: float | np.ndarray = 1.0,
    delta: float | np.ndarray = 0.0,
    sigma: float = 1.0,
    scaling: str = "standard",
    balance: float = 1.0,
    noise: float = 0.1,
    rate_ratio: float = 1.0,
    lr: float | np.ndarray = 0.01,
    steps: int = 1000,
    loss: str = "mse",
    seed: int = 0,
) -> Scenario:
    """The data, initial network(s) and training settings these values describe.

    Data: :func:`data_set` (``d``, ``k`` for the teacher, ``classes`` for the digits), with
    ``n`` training and ``n_test`` test points. Network: ``depth`` weight layers of ``width``
    hidden units, activation as in docs/networks.md (N2), initialised as

    * ``kunin``: :func:`kunin_init` with scale ``tau`` and balance ``delta`` (every neuron has
      ``a² − ‖w‖² = δ``; both may be arrays over batch axes — a τ × δ grid — and ``lr`` with
      them, as Kunin et al.'s Fig. 1b trains with lr = c/τ²);
    * ``gaussian``: :func:`gaussian_init` with ``sigma`` in the ``scaling`` (standard, ntk,
      mean_field), then the first layer divided by ``balance`` α and the read-out multiplied by
      it (Kunin et al. Fig. 6a: α > 1 upstream, α < 1 downstream; the function of a ReLU
      network is unchanged);
    * ``parallel``: Xu & Ziyin's nearly parallel layers ``u = σg``, ``w = σ(g + noise·G)``
      (:func:`solvers.finite_width.near_parallel_init`), output scale from the ``scaling``.

    Training: step size ``lr`` for ``steps`` steps, per-layer factors from ``rate_ratio``
    (:func:`layer_rates`), ``loss`` "mse" or "bce". What does not fit — the logistic loss
    without ±1 labels, Kunin et al.'s initialisation beyond two layers or one output, nearly
    parallel layers beyond one input, an odd width for Kunin et al.'s pairs, more digits than
    the bundle holds — is adapted, and :attr:`Scenario.notes` says how.
    """
    settings = dict(
        activation=activation,
        depth=int(depth),
        width=int(width),
        init=init,
        tau=tau,
        delta=delta,
        sigma=float(sigma),
        scaling=scaling,
        balance=float(balance),
        noise=float(noise),
        loss=loss,
    )
    if init not in INITS:
        raise ValueError(f"init must be one of {', '.join(INITS)}; got {init!r}.")
    if not np.isfinite(balance) or balance <= 0:
        raise ValueError(f"balance must be > 0; got {balance!r}.")
    notes = []
    if data == "digits":
        n, n_test, notes = _digits_sizes(n, n_test, classes)
    drawn = data_set(data, n=n, n_test=n_test, d=d, k=k, classes=classes, seed=seed)
    settings, adapted = _adapted(drawn, settings)
    net = _network(drawn, settings, seed)
    rates = layer_rates(net.depth, rate_ratio)
    return Scenario(drawn, net, lr, int(steps), rates, settings["loss"], (*notes, *adapted))
