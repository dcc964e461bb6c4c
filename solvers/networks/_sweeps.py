"""Sweeps of ReLU networks over one setting, each network trained alike and measured where it
ends — Xu & Ziyin's network experiments beside their exact linear theory (docs/network-sweeps.md):

* :func:`sweep_widths` — their Fig. 4: two-layer networks of growing width d in the six
  scalings of their Table 1 (NTK⁻ = NTK, NTK⁺ = mean field, Kaiming±, Xavier±), with κ = d/100
  so that each ± pair is its base scheme at d = 100 (their App. C.4);
* :func:`sweep_scale` — their Fig. 5: a two-layer network of fixed width whose initial scale is
  a power c of κ = 10 (their §4.2: c_w = c, c_u = max(c, 0), c_γ = min(−c/2, 0));
* :func:`sweep_sigma` — their Fig. 2b: a deep network with every layer scaled by σ (the network
  view's Gaussian layers, :func:`gaussian_init` "standard"), step size lr·min(1, σ^−2(L−1)).

Every network trains by full-batch gradient descent on the mean-square loss (:func:`train`) for
the same number of steps; a sweep keeps the first layer's relative change ‖W₁ − W₁(0)‖_F/‖W₁(0)‖_F
(their Figs. 4 and 5, right), the training and test accuracy (left), and the alignment ζ of
every pair of consecutive layers at the start and at the end (Fig. 2b).

Seeds follow the views' convention: the weights of seed s come from
``np.random.default_rng([s, 1])``, so a σ-sweep network is exactly the network view's network
for that σ (:func:`scenario` with the same seed).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields

import numpy as np

from .. import finite_width
from ._init import gaussian_init
from ._model import MAX_DEPTH, MAX_WIDTH, Network, finite_array, forward, positive_count
from ._train import MAX_TRAIN_STEPS, train, training_work

__all__ = [
    "MAX_SWEEP_VALUES",
    "SWEEP_BASE_WIDTH",
    "SWEEP_KAPPA",
    "SWEEP_ROWS",
    "Setting",
    "Sweep",
    "scale_setting",
    "sigma_rates",
    "sweep_scale",
    "sweep_sigma",
    "sweep_widths",
    "sweep_work",
    "width_setting",
]

#: the rows of :func:`sweep_widths`: (scheme, Table-1 block), in the order of their Fig. 4's
#: legend — NTK as initialised is NTK⁻ and the mean-field scaling is NTK⁺ (one initialisation)
SWEEP_ROWS: tuple[tuple[str, str], ...] = (
    ("NTK", "kernel"),
    ("NTK", "feature learning"),
    ("Kaiming", "kernel"),
    ("Kaiming", "feature learning"),
    ("Xavier", "kernel"),
    ("Xavier", "feature learning"),
)
#: the width at which each ± pair of :func:`sweep_widths` is its base scheme (κ = d/100)
SWEEP_BASE_WIDTH = 100
#: κ of :func:`sweep_scale` (their App. C.5)
SWEEP_KAPPA = 10.0
#: most values of one sweep
MAX_SWEEP_VALUES = 32
#: the weight stream of a seed (the views' convention, :data:`WEIGHT_STREAM` of scenarios)
_WEIGHTS = 1

#: ``progress(fraction done)``, called now and then while a sweep trains
Progress = Callable[[float], None]


@dataclass(frozen=True, eq=False)
class Sweep:
    """Where each network of a sweep ends. Arrays are ``(R, V)``: rows (the six scalings of
    :data:`SWEEP_ROWS`, or a single row) × swept values; the alignments add the pairs of
    consecutive layers, ``(R, V, L − 1)``."""

    kind: str  #: "widths", "scale" or "sigma"
    values: np.ndarray  #: (V,) the widths d, the exponents c or the scales σ
    rows: tuple[str, ...]  #: (R,) row names ("NTK⁻", "NTK⁺", …; "" for a single row)
    steps: int
    lr: np.ndarray  #: step size of each network
    gamma: np.ndarray  #: output scale of each network
    initial_loss: np.ndarray
    loss: np.ndarray  #: final training loss (1/2n)Σ‖f − y‖²
    test_loss: np.ndarray | None
    train_accuracy: np.ndarray  #: share of training points classified right at the end
    test_accuracy: np.ndarray | None
    weight_change: np.ndarray  #: ‖W₁ − W₁(0)‖_F/‖W₁(0)‖_F of the first layer
    initial_alignment: np.ndarray  #: ζ of each pair of consecutive layers at the start
    final_alignment: np.ndarray  #: … and at the end
    diverged_at: np.ndarray  #: step at which a network diverged, −1 if it did not


# -- the settings ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """A two-layer network's hyperparameters: layers ``σ_w G₁/√d_in`` and ``σ_u G₂`` of standard
    normal draws G₁ (d, d_in), G₂ (d_out, d), output scale γ, step size lr."""

    sigma_w: float
    sigma_u: float
    gamma: float
    lr: float


def width_setting(scheme: str, regime: str, width: int, lr: float) -> Setting:
    """Xu & Ziyin's Fig. 4 scaling ``(scheme, regime)`` at width d (Table 1, App. C.4):
    ``σ_u² = d^{c_u}``, ``σ_w² = d^{c_w}`` (read-out N(0, σ_u²), first layer N(0, σ_w²/d_in)),
    ``γ = γ₀ κ^{c_γ}``, ``lr = lr₀ κ^{c_η}`` with κ = d/100 and γ₀ the output scale of the
    scheme as initialised at d = 100 (NTK's 1/√100 also for the mean-field row; 1 for Kaiming
    and Xavier) — each ± pair is its base scheme at d = 100, as the paper chose."""
    if (scheme, regime) not in SWEEP_ROWS:
        raise ValueError(f"unknown scaling {(scheme, regime)!r}; choose from {SWEEP_ROWS}.")
    scaling = finite_width.SCALINGS[scheme]
    c_eta, c_gamma = finite_width.TABLE_1[scheme][regime]
    base = finite_width.TABLE_1[scheme]["as initialised"][1]
    kappa = width / SWEEP_BASE_WIDTH
    return Setting(
        math.sqrt(float(width) ** scaling["c_w"]),
        math.sqrt(float(width) ** scaling["c_u"]),
        SWEEP_BASE_WIDTH**base * kappa**c_gamma,
        lr * kappa**c_eta,
    )


def scale_setting(c: float, width: int, lr: float, kappa: float = SWEEP_KAPPA) -> Setting:
    """Xu & Ziyin's Fig. 5 network at the initial-scale exponent c (§4.2, fixed width d):
    ``σ_w² = κ^c``, ``σ_u² = κ^{max(c, 0)}``, ``γ = κ^{min(−c/2, 0)}``, the layers at their
    fan-in scale (first N(0, σ_w²/d_in), read-out N(0, σ_u²/d)) and one step size for all c.
    Every c satisfies their eq. 18 (neither frozen nor unstable); c > 0 is the kernel phase by
    Theorem 2, c ≤ 0 feature learning."""
    return Setting(
        kappa ** (c / 2),
        kappa ** (max(c, 0.0) / 2) / math.sqrt(width),
        kappa ** min(-c / 2, 0.0),
        lr,
    )


def sigma_rates(sigmas, depth: int, lr: float) -> np.ndarray:
    """Step sizes of :func:`sweep_sigma`, ``lr·min(1, σ^{−2(L−1)})``: a depth-L ReLU network's
    NTK grows like σ^{2(L−1)}, so above σ = 1 the step shrinks with it and training stays stable;
    below σ = 1 the network starts near the saddle at the origin and keeps the step of σ = 1."""
    return lr * np.minimum(1.0, np.asarray(sigmas, dtype=float) ** (-2.0 * (depth - 1)))


# -- measuring a training run ---------------------------------------------------------------------


def _accuracy(outputs: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Share of points classified right: the largest output for one-hot targets, the output's
    sign for ±1 targets."""
    if targets.shape[-1] == 1:
        return np.mean(np.sign(outputs[..., 0]) == np.sign(targets[:, 0]), axis=-1)
    return np.mean(np.argmax(outputs, axis=-1) == np.argmax(targets, axis=-1), axis=-1)


@dataclass(frozen=True)
class _Ends:
    """What a sweep keeps of one training call: arrays over the call's networks."""

    initial_loss: np.ndarray
    loss: np.ndarray
    test_loss: np.ndarray | None
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray | None
    weight_change: np.ndarray
    initial_alignment: np.ndarray
    final_alignment: np.ndarray
    diverged_at: np.ndarray


@dataclass(frozen=True)
class _Data:
    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray | None
    y_test: np.ndarray | None

    @classmethod
    def of(cls, X, y, X_test, y_test) -> _Data:
        def column(values):
            values = np.asarray(values, dtype=float)
            return values[:, None] if values.ndim == 1 else values

        if (X_test is None) != (y_test is None):
            raise ValueError("give both X_test and y_test, or neither.")
        tests = (None, None) if X_test is None else (np.asarray(X_test, float), column(y_test))
        return cls(np.asarray(X, dtype=float), column(y), *tests)


def _trained(net: Network, lr: np.ndarray, data: _Data, steps: int, heard) -> _Ends:
    """Train ``net`` (a batch) for ``steps`` steps and measure where each network ends."""
    run = train(
        net,
        data.X,
        data.y,
        lr=lr,
        steps=steps,
        record=np.array([0, steps]),
        X_test=data.X_test,
        y_test=data.y_test,
        track_kernel=False,
        progress=heard,
    )
    first, moved = net.weights[0], run.final.weights[0]
    change = np.sqrt(np.sum((moved - first) ** 2, axis=(-2, -1)) / np.sum(first**2, axis=(-2, -1)))
    tested = (
        None if data.X_test is None else _accuracy(forward(run.final, data.X_test), data.y_test)
    )
    return _Ends(
        run.loss[..., 0],
        run.loss[..., -1],
        None if run.test_loss is None else run.test_loss[..., -1],
        _accuracy(forward(run.final, data.X), data.y),
        tested,
        change,
        run.zeta[..., 0, :],
        run.zeta[..., -1, :],
        np.broadcast_to(np.asarray(run.diverged_at), run.loss.shape[:-1]).astype(np.int64),
    )


def _joined(parts: list[_Ends], axis: int) -> dict:
    """The ends of the calls stacked along ``axis``: 1 for one call per value (a batch of
    rows each), 0 for a single call whose batch holds the values (one row)."""
    joined = {}
    for field in fields(_Ends):
        values = [getattr(part, field.name) for part in parts]
        joined[field.name] = None if values[0] is None else np.stack(values, axis=axis)
    return joined


def _values(name: str, values, *, positive: bool = False) -> np.ndarray:
    values = np.atleast_1d(finite_array(name, values)).astype(float)
    if values.ndim != 1 or not 1 <= values.size <= MAX_SWEEP_VALUES:
        raise ValueError(
            f"{name} must be 1 to {MAX_SWEEP_VALUES} numbers; got shape {values.shape}."
        )
    if positive and np.any(values <= 0):
        raise ValueError(f"{name} must all be > 0; got {values.min():g}.")
    return values


def _rate(name: str, value: float) -> float:
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a number > 0; got {value!r}.")
    return value


def _rng(seed: int) -> np.random.Generator:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0; got {seed!r}.")
    return np.random.default_rng([int(seed), _WEIGHTS])


def _draw(seed: int, width: int, d_in: int, d_out: int, zero_output: bool):
    """Standard normal (G₁ (d, d_in), G₂ (d_out, d)) from the seed's weight stream; with
    ``zero_output`` the second half of the units copies the first half's G₁ and negates its G₂
    (Chizat's lazy initialisation: the network starts at f ≡ 0 whatever its scales)."""
    rng = _rng(seed)
    if not zero_output:
        return rng.standard_normal((width, d_in)), rng.standard_normal((d_out, width))
    if width % 2:
        raise ValueError(f"a zero-output start pairs the units: widths must be even; got {width}.")
    half_in = rng.standard_normal((width // 2, d_in))
    half_out = rng.standard_normal((d_out, width // 2))
    return np.concatenate([half_in, half_in]), np.concatenate([half_out, -half_out], axis=1)


def _two_layer(settings: list[Setting], G1: np.ndarray, G2: np.ndarray):
    """(networks, step sizes): one two-layer ReLU network per setting, on one draw (G₁, G₂)."""
    fan_in = 1.0 / math.sqrt(G1.shape[1])
    first = np.stack([s.sigma_w * fan_in * G1 for s in settings])
    second = np.stack([s.sigma_u * G2 for s in settings])
    gamma = np.array([s.gamma for s in settings])
    return Network((first, second), "relu", gamma), np.array([s.lr for s in settings])


def _sweep(kind, values, rows, steps, built, data, progress) -> Sweep:
    """Train each (networks, step sizes) of ``built`` — one call per value with a network per
    row, or a single call with a network per value — and gather the ends; ``progress`` hears
    the share of the work done (calls weighed by their first layers' sizes)."""
    shares = np.array([float(np.size(net.weights[0])) for net, _ in built])
    shares = shares / shares.sum()
    axis = 1 if len(built) > 1 or len(rows) > 1 else 0
    parts, done = [], 0.0
    for (net, rate), share in zip(built, shares, strict=True):

        def heard(k: int, done=done, share=share) -> None:
            if progress is not None:
                progress(min(1.0, done + share * k / steps))

        parts.append(_trained(net, rate, data, steps, heard))
        done += share
    rates = np.stack([rate for _, rate in built], axis=axis)
    gammas = np.stack([np.broadcast_to(net.gamma, rate.shape) for net, rate in built], axis=axis)
    return Sweep(kind, values, rows, steps, rates, gammas, **_joined(parts, axis))


# -- the three sweeps ------------------------------------------------------------------------------


def sweep_widths(
    X: np.ndarray,
    y: np.ndarray,
    widths,
    *,
    lr: float,
    steps: int,
    X_test: np.ndarray | None = None,
    y_test: np.ndarray | None = None,
    seed: int = 0,
    zero_output: bool = False,
    progress: Progress | None = None,
) -> Sweep:
    """Xu & Ziyin's Fig. 4 with two-layer ReLU networks: at each width d the six scalings of
    :data:`SWEEP_ROWS` (:func:`width_setting`, base step size ``lr``), all from the seed's one
    standard-normal draw of that width (``zero_output``: paired units, f ≡ 0 at the start),
    trained for ``steps`` steps. Their App. B.4 predicts that the kernel rows' first layer moves
    like d^−δ with δ = ½, 1, 2 (NTK⁻, Xavier⁻, Kaiming⁻) and the feature-learning rows' by O(1).
    """
    widths = [positive_count("widths", w, MAX_WIDTH) for w in _values("widths", widths)]
    data, steps, lr = _Data.of(X, y, X_test, y_test), _steps(steps), _rate("lr", lr)
    built = []
    for width in widths:
        G1, G2 = _draw(seed, width, data.X.shape[1], data.y.shape[1], zero_output)
        built.append(_two_layer([width_setting(s, r, width, lr) for s, r in SWEEP_ROWS], G1, G2))
    rows = tuple(f"{s}{'⁻' if r == 'kernel' else '⁺'}" for s, r in SWEEP_ROWS)
    return _sweep("widths", np.array(widths, dtype=float), rows, steps, built, data, progress)


def sweep_scale(
    X: np.ndarray,
    y: np.ndarray,
    exponents,
    *,
    width: int,
    lr: float,
    steps: int,
    X_test: np.ndarray | None = None,
    y_test: np.ndarray | None = None,
    seed: int = 0,
    kappa: float = SWEEP_KAPPA,
    progress: Progress | None = None,
) -> Sweep:
    """Xu & Ziyin's Fig. 5 with a two-layer ReLU network of fixed ``width``: one network per
    exponent c (:func:`scale_setting`), all on the seed's one draw, trained together for
    ``steps`` steps of ``lr``. The paper: c > 0 (kernel phase) moves the weights little and
    generalises worse than c ≤ 0 (feature learning)."""
    exponents = _values("exponents", exponents)
    width = positive_count("width", width, MAX_WIDTH)
    data, steps, lr = _Data.of(X, y, X_test, y_test), _steps(steps), _rate("lr", lr)
    kappa = _rate("kappa", kappa)
    G1, G2 = _draw(seed, width, data.X.shape[1], data.y.shape[1], False)
    built = _two_layer([scale_setting(c, width, lr, kappa) for c in exponents], G1, G2)
    return _sweep("scale", exponents, ("",), steps, [built], data, progress)


def sweep_sigma(
    X: np.ndarray,
    y: np.ndarray,
    sigmas,
    *,
    depth: int,
    width: int,
    lr: float,
    steps: int,
    X_test: np.ndarray | None = None,
    y_test: np.ndarray | None = None,
    seed: int = 0,
    progress: Progress | None = None,
) -> Sweep:
    """Xu & Ziyin's Fig. 2b: ReLU networks of ``depth`` weight layers of ``width`` units, every
    layer N(0, σ²/n_in) (:func:`gaussian_init`, "standard", the seed's one draw), trained
    together for ``steps`` steps of :func:`sigma_rates`. The paper: the layers align during
    training at small σ, and stop aligning as σ grows."""
    sigmas = _values("sigmas", sigmas, positive=True)
    depth = positive_count("depth", depth, MAX_DEPTH, minimum=2)
    width = positive_count("width", width, MAX_WIDTH)
    data, steps, lr = _Data.of(X, y, X_test, y_test), _steps(steps), _rate("lr", lr)
    widths = [data.X.shape[1], *([width] * (depth - 1)), data.y.shape[1]]
    net = gaussian_init(widths, sigma=sigmas[:, None], seed=_rng(seed))
    rates = sigma_rates(sigmas, depth, lr)
    return _sweep("sigma", sigmas, ("",), steps, [(net, rates)], data, progress)


def _steps(steps) -> int:
    return positive_count("steps", steps, MAX_TRAIN_STEPS)


def sweep_work(widths_per_network, samples: int, *, steps: int, tests: int = 0) -> float:
    """Estimated floating-point operations of a sweep: :func:`training_work` of each network
    (``widths_per_network``: one list of layer sizes per network), recorded at the start and
    the end only, without the NTK."""
    return sum(
        training_work(w, samples, steps=steps, records=2, tests=tests, track_kernel=False)
        for w in widths_per_network
    )
