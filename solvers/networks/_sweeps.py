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

import itertools
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
#: most weights of the networks one training call holds (8 MB; a call copies them a few times)
CALL_WEIGHTS = 2**20
#: most hidden values of one forward pass over a block of networks (16 MB)
FORWARD_BLOCK = 2**21
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


def _accuracy(net: Network, X: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Share of points each network of a (one-axis) batch classifies right: the largest output
    for one-hot targets, the output's sign for ±1 targets — a block of networks at a time, so
    that no more than :data:`FORWARD_BLOCK` hidden values live at once."""
    cells = net.weights[0].shape[0]
    block = max(1, FORWARD_BLOCK // (X.shape[0] * max(net.widths)))
    gamma = np.broadcast_to(np.asarray(net.gamma, dtype=float), (cells,))
    found = []
    for start in range(0, cells, block):
        part = slice(start, start + block)
        weights = tuple(W[part] for W in net.weights)
        outputs = forward(Network(weights, net.activation, gamma[part]), X)
        if targets.shape[-1] == 1:
            right = np.sign(outputs[..., 0]) == np.sign(targets[:, 0])
        else:
            right = np.argmax(outputs, axis=-1) == np.argmax(targets, axis=-1)
        found.append(np.mean(right, axis=-1))
    return np.concatenate(found)


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
    tested = None if data.X_test is None else _accuracy(run.final, data.X_test, data.y_test)
    return _Ends(
        run.loss[..., 0],
        run.loss[..., -1],
        None if run.test_loss is None else run.test_loss[..., -1],
        _accuracy(run.final, data.X, data.y),
        tested,
        change,
        run.zeta[..., 0, :],
        run.zeta[..., -1, :],
        np.broadcast_to(np.asarray(run.diverged_at), run.loss.shape[:-1]).astype(np.int64),
    )


def _joined(parts: list[_Ends], per_value: bool) -> dict:
    """The ends of the calls side by side: stacked on a new value axis after the rows (one
    call per value, a network per row), or joined along the values and given one row (calls
    over blocks of values)."""
    joined = {}
    for field in fields(_Ends):
        values = [getattr(part, field.name) for part in parts]
        if values[0] is None:
            joined[field.name] = None
        else:
            joined[field.name] = (
                np.stack(values, axis=1) if per_value else np.concatenate(values)[None]
            )
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


@dataclass(frozen=True)
class _Call:
    """One training call of a sweep, built only when it runs (so that one call's networks
    live at a time): ``build() → (networks, step sizes)``; ``size``: its parameters."""

    build: Callable[[], tuple[Network, np.ndarray]]
    size: float


def _blocks(count: int, parameters: int) -> list[slice]:
    """Consecutive blocks of ``count`` networks of ``parameters`` weights each, at most
    :data:`CALL_WEIGHTS` weights a block (a call copies its weights a few times)."""
    per_call = max(1, CALL_WEIGHTS // max(parameters, 1))
    return [slice(start, min(start + per_call, count)) for start in range(0, count, per_call)]


def _sweep(kind, values, rows, steps, calls: list[_Call], data, progress, per_value) -> Sweep:
    """Run each call and gather the ends (see :func:`_joined` for ``per_value``); ``progress``
    hears the share of the work done, the calls weighed by their sizes."""
    shares = np.array([call.size for call in calls], dtype=float)
    shares = shares / shares.sum()
    parts, rates, gammas, done = [], [], [], 0.0
    for call, share in zip(calls, shares, strict=True):

        def heard(k: int, done=done, share=share) -> None:
            if progress is not None:
                progress(min(1.0, done + share * k / steps))

        net, rate = call.build()
        parts.append(_trained(net, rate, data, steps, heard))
        rates.append(rate)
        gammas.append(np.broadcast_to(np.asarray(net.gamma, dtype=float), rate.shape))
        done += share
    if per_value:
        rates, gammas = np.stack(rates, axis=1), np.stack(gammas, axis=1)
    else:
        rates, gammas = np.concatenate(rates)[None], np.concatenate(gammas)[None]
    return Sweep(kind, values, rows, steps, rates, gammas, **_joined(parts, per_value))


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
    d_in, d_out = data.X.shape[1], data.y.shape[1]

    def networks(width: int) -> _Call:
        def build():
            G1, G2 = _draw(seed, width, d_in, d_out, zero_output)
            return _two_layer([width_setting(s, r, width, lr) for s, r in SWEEP_ROWS], G1, G2)

        return _Call(build, float(width * (d_in + d_out)))

    _rng(seed)  # a bad seed says so before anything trains
    calls = [networks(width) for width in widths]
    if zero_output and any(width % 2 for width in widths):
        raise ValueError(f"a zero-output start pairs the units: widths must be even; got {widths}.")
    rows = tuple(f"{s}{'⁻' if r == 'kernel' else '⁺'}" for s, r in SWEEP_ROWS)
    values = np.array(widths, dtype=float)
    return _sweep("widths", values, rows, steps, calls, data, progress, per_value=True)


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
    zero_output: bool = False,
    progress: Progress | None = None,
) -> Sweep:
    """Xu & Ziyin's Fig. 5 with a two-layer ReLU network of fixed ``width``: one network per
    exponent c (:func:`scale_setting`), all on the seed's one draw (``zero_output``: paired
    units, f ≡ 0 at the start), trained together for ``steps`` steps of ``lr``. The paper:
    c > 0 (kernel phase) moves the weights little and generalises worse than c ≤ 0 (feature
    learning)."""
    exponents = _values("exponents", exponents)
    width = positive_count("width", width, MAX_WIDTH)
    data, steps, lr = _Data.of(X, y, X_test, y_test), _steps(steps), _rate("lr", lr)
    kappa = _rate("kappa", kappa)
    G1, G2 = _draw(seed, width, data.X.shape[1], data.y.shape[1], zero_output)
    settings = [scale_setting(c, width, lr, kappa) for c in exponents]
    calls = [
        _Call(lambda part=part: _two_layer(settings[part], G1, G2), part.stop - part.start)
        for part in _blocks(len(settings), G1.size + G2.size)
    ]
    return _sweep("scale", exponents, ("",), steps, calls, data, progress, per_value=False)


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
    _rng(seed)  # a bad seed says so before anything trains

    def networks(part: slice) -> tuple[Network, np.ndarray]:
        # every block draws from the seed afresh: the same base draw for every σ
        net = gaussian_init(widths, sigma=sigmas[part, None], seed=_rng(seed))
        return net, sigma_rates(sigmas[part], depth, lr)

    parameters = sum(a * b for a, b in itertools.pairwise(widths))
    calls = [
        _Call(lambda part=part: networks(part), part.stop - part.start)
        for part in _blocks(sigmas.size, parameters)
    ]
    return _sweep("sigma", sigmas, ("",), steps, calls, data, progress, per_value=False)


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
