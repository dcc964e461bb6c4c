"""What the network view computes for its controls, part by part: the scenario it trains
(:func:`solvers.networks.scenario`, shared with the map), the recorded run, the frozen-NTK
baseline, the exact linear limit, the fitted feature-learning rate, the NTK's spectra, the
kernel specialization and the function over the input plane.

Every part is a frozen dataclass the result cache can store; only what a plot draws or a
download holds is kept (docs/networks.md, "Scenarios" and "The views' sizes"). The maths is
the engine's (:mod:`solvers.networks`, docs/networks.md (N1)–(N17)); here are the caps that
keep one request bounded and the order in which the parts are computed.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import itertools
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from solvers import feature_evolution as fe
from solvers import networks as nw

if TYPE_CHECKING:
    from .trajectory import Controls

#: recorded steps of a run: every curve's points and the play bar's frames
RECORDS = 60
#: fewest recorded steps when the NTKs of a large request have to be thinned
MIN_RECORDS = 8
#: the function over the plane: grid points per side
GRID = 33
#: the most training points of the ten-class digits: their NTK (n·10 wide) must fit
#: :data:`solvers.networks.MAX_KERNEL_SIZE`
MAX_TEN_CLASS_SAMPLES = 100
#: entries of the kernel between test and training points (the frozen-NTK test curve)
CROSS_ENTRIES = 2**21
#: floating-point operations of one request's training (:func:`solvers.networks.training_work`)
#: — a few seconds on one core: larger requests train fewer steps, and say so
WORK = 4e10
#: largest NTK (n·d_out) whose alignment curve is fitted (each of ~50 trials is one
#: eigendecomposition of it)
FIT_SIZE = 200
#: above this standard error of ln γ the fitted γ is reported as undetermined
UNDETERMINED_LOG_ERROR = 2.0
#: values of one forward pass over the plane (records × grid points × widest layer)
SURFACE_BLOCK = 2**21
#: points of the exact linear limit's curves
CURVE_POINTS = 240
#: points of a one-dimensional network's function
LINE_POINTS = 200
#: the kernel-alignment view's task that a fitted γ is carried to: its largest P
ALIGNMENT_SAMPLES = 300

#: ``report(fraction done, what is being done)``: a background job's progress
Report = Callable[[float, str], None]


def quiet(fraction: float, text: str) -> None:
    """A report that goes nowhere (the synchronous computation)."""


# -- the scenario ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """What was trained: the network, the data sizes and every change to the request."""

    widths: tuple[int, ...]
    activation: str
    loss: str
    steps: int
    records: int
    n: int
    n_test: int
    #: every change made to the controls' request, in plain words
    notes: tuple[str, ...] = ()


def outputs_of(controls: Controls) -> int:
    """d_out of the data set the controls choose."""
    return 10 if controls.data == "digits" and controls.classes == "ten" else 1


def sizes(controls: Controls) -> tuple[int, int, list[str]]:
    """(n, n_test) within the view's caps, and what was cut."""
    n, n_test, d_out, notes = controls.n, controls.n_test, outputs_of(controls), []
    if d_out > 1 and n > MAX_TEN_CLASS_SAMPLES:
        notes.append(
            f"With ten classes the NTK is n × 10 wide: at most {MAX_TEN_CLASS_SAMPLES} training "
            f"images are used (not {n})."
        )
        n = MAX_TEN_CLASS_SAMPLES
    cross = CROSS_ENTRIES // (d_out * d_out * n)
    if n_test > cross:
        notes.append(
            f"The frozen-NTK test curve needs the kernel between test and training points: at "
            f"most {cross} test points are used here (not {n_test})."
        )
        n_test = cross
    return n, n_test, notes


def _budget(scenario: nw.Scenario, n_test: int) -> tuple[int, int, list[str]]:
    """(steps, records) within :data:`WORK`, and what was cut."""
    widths, samples = scenario.net.widths, scenario.data.X.shape[0]

    def work(steps: int, records: int) -> float:
        return nw.training_work(widths, samples, steps=steps, records=records, tests=n_test)

    per_record = work(0, 1)
    records = int(min(RECORDS, max(MIN_RECORDS, 0.5 * WORK // per_record)))
    per_step = work(1, 0)
    steps = int(min(scenario.steps, max(1, (WORK - work(0, records)) // per_step)))
    notes = []
    if records < RECORDS:
        notes.append(
            f"Each recorded NTK costs {per_record:.2g} operations here: {records} steps are "
            f"recorded (not {RECORDS})."
        )
    if steps < scenario.steps:
        notes.append(
            f"This network and data set take {per_step:.2g} operations a step: training stops "
            f"after {steps:,} of the {scenario.steps:,} steps asked for (fewer samples, a "
            "narrower or shallower network allow more)."
        )
    return steps, records, notes


def build(controls: Controls) -> tuple[nw.Scenario, Setting]:
    """The scenario the controls describe, within the view's caps (the map's cells and a click
    from the map build theirs the same way)."""
    n, n_test, notes = sizes(controls)
    scenario = nw.scenario(
        controls.data,
        d=controls.d,
        k=controls.k,
        n=n,
        n_test=n_test,
        classes=controls.classes,
        activation=controls.activation,
        depth=controls.depth,
        width=controls.width,
        init=controls.init,
        tau=controls.tau,
        delta=controls.delta,
        sigma=controls.sigma,
        scaling=controls.scaling,
        balance=controls.balance,
        rate_ratio=controls.rate_ratio,
        lr=controls.lr,
        steps=controls.steps,
        loss=controls.loss,
        seed=controls.seed,
    )
    tests = 0 if scenario.data.X_test is None else scenario.data.X_test.shape[0]
    steps, records, cut = _budget(scenario, tests)
    scenario = dataclasses.replace(scenario, steps=steps)
    net = scenario.net
    setting = Setting(
        net.widths,
        net.activation,
        scenario.loss,
        steps,
        records,
        scenario.data.X.shape[0],
        tests,
        (*notes, *scenario.notes, *cut),
    )
    return scenario, setting


# -- the parts of a run ----------------------------------------------------------------------


@dataclass(frozen=True)
class Curves:
    """The network's recorded diagnostics (docs/networks.md, "What train records")."""

    t: np.ndarray  #: (R,)
    steps: np.ndarray  #: (R,)
    loss: np.ndarray
    test_loss: np.ndarray | None
    kernel_distance: np.ndarray
    alignment: np.ndarray
    kernel_norm: np.ndarray
    zeta: np.ndarray  #: (R, L − 1)
    activation_distance: np.ndarray
    parameter_distance: np.ndarray

    @classmethod
    def of(cls, run: nw.Training) -> Curves:
        """The run's records (:data:`solvers.networks.RECORDED`) and their times."""
        return cls(**{name: getattr(run, name) for name in ("t", "steps", *nw.RECORDED)})


@dataclass(frozen=True)
class Baseline:
    """Kernel gradient descent with the NTK frozen at initialisation (Shan & Bordelon's KGD),
    and with its learning rate rescaled by the final NTK's norm (their aKGD, Fig. 1A), at the
    recorded times."""

    loss: np.ndarray
    test_loss: np.ndarray | None
    #: aKGD's factor ‖K_final‖_F/‖K₀‖_F (:func:`solvers.networks.akgd_rate`)
    rescale: float = 1.0
    rescaled_loss: np.ndarray | None = None
    rescaled_test_loss: np.ndarray | None = None


@dataclass(frozen=True)
class Bridge:
    """The exact finite-width solution (:func:`solvers.networks.linear_limit`)."""

    t: np.ndarray
    loss: np.ndarray
    test_loss: np.ndarray | None
    zeta: np.ndarray
    parameter_distance: np.ndarray


@dataclass(frozen=True)
class Fit:
    """Shan & Bordelon's optimal feature evolution fitted to the alignment curve, and the
    settings of the kernel-alignment view that carry it."""

    gamma: float
    time_scale: float
    fitted: np.ndarray  #: (R,) the model's alignment
    residual: float
    gamma_final: float
    link: dict[str, Any]
    #: the curve determines γ (see :attr:`solvers.networks.FeatureLearningFit.log_gamma_error`)
    determined: bool = True


@dataclass(frozen=True)
class Spectra:
    """The NTK's eigenvalues and the task power along them, before and after training, with
    their power-law exponents (NaN where there is no fit)."""

    initial_eigenvalues: np.ndarray
    initial_power: np.ndarray
    final_eigenvalues: np.ndarray
    final_power: np.ndarray
    exponents: tuple[float, float, float, float]  #: b before, a before, b after, a after


@dataclass(frozen=True)
class Specialization:
    """Shan & Bordelon's kernel specialization matrix before and after training."""

    initial: np.ndarray  #: (C, C)
    final: np.ndarray


@dataclass(frozen=True)
class Plane:
    """A network on two-dimensional inputs: the recorded networks, whose function and
    activation regions over the plane (:attr:`function`, :attr:`parity`) are computed when a
    plot first needs them, the data, and (two layers) each neuron's |aᵢ|wᵢ."""

    extent: float  #: the grid spans [−extent, extent]²
    weights: tuple[np.ndarray, ...]  #: per layer (R, n_out, n_in): the network at each record
    activation: str
    gamma: float
    X: np.ndarray  #: (n, 2)
    y: np.ndarray  #: (n,)
    neurons: np.ndarray | None  #: (R, h, 2)
    signs: np.ndarray | None  #: (h,) the sign of each aᵢ at the start
    teacher: np.ndarray | None  #: (k, 2) the teacher's directions

    @property
    def function(self) -> np.ndarray:
        """(R, G, G) float32: f at grid point (row y, column x) at each record."""
        return _surface_of(self)[0]

    @property
    def parity(self) -> np.ndarray:
        """(R, G, G) bool: an odd number of active hidden units."""
        return _surface_of(self)[1]


#: the surfaces computed last in this process, by the recorded networks they are of: a plot
#: in sight is drawn for each change and for the state before it (to send only what changed)
_SURFACES: collections.OrderedDict[bytes, tuple[np.ndarray, np.ndarray]] = collections.OrderedDict()
SURFACES_KEPT = 4
_SURFACES_LOCK = threading.Lock()


def _surface_of(plane: Plane) -> tuple[np.ndarray, np.ndarray]:
    """(function, parity) of ``plane`` over its grid: ~20 ms at width 50, so computed only for
    a plot that shows it (the plane is below the fold), and kept for the next request."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{plane.activation} {plane.gamma!r} {plane.extent!r}".encode())
    for W in plane.weights:
        digest.update(np.ascontiguousarray(W).data)
    key = digest.digest()
    with _SURFACES_LOCK:
        found = _SURFACES.get(key)
        if found is not None:
            _SURFACES.move_to_end(key)
            return found
    axis = np.linspace(-plane.extent, plane.extent, GRID)
    points = np.stack(np.meshgrid(axis, axis), axis=-1).reshape(-1, 2)  # row y, column x
    values, counts = _surface(plane.weights, plane.activation, plane.gamma, points)
    shape = (values.shape[0], GRID, GRID)
    found = (values.reshape(shape).astype(np.float32), (counts % 2 == 1).reshape(shape))
    with _SURFACES_LOCK:
        _SURFACES[key] = found
        while len(_SURFACES) > SURFACES_KEPT:
            _SURFACES.popitem(last=False)
    return found


@dataclass(frozen=True)
class Line:
    """A network on one-dimensional inputs: its function at the start and the end."""

    x: np.ndarray
    initial: np.ndarray
    final: np.ndarray
    X: np.ndarray  #: (n,)
    y: np.ndarray  #: (n,)


@dataclass(frozen=True)
class Run:
    setting: Setting
    curves: Curves
    diverged_at: int
    baseline: Baseline | None = None
    bridge: Bridge | None = None
    fit: Fit | None = None
    spectra: Spectra | None = None
    specialization: Specialization | None = None
    plane: Plane | None = None
    line: Line | None = None
    #: parts left out, in plain words (a fit that failed, a plane too large to record)
    omitted: tuple[str, ...] = ()
    #: why the feature-learning rate was not fitted, when the run is too large for it
    unfitted: str | None = None


def _baseline(scenario: nw.Scenario, t: np.ndarray, K0: np.ndarray, K1: np.ndarray):
    """The frozen-NTK flow and aKGD, the same flow at times ``rescale·t`` (the kernel scaled
    by the final NTK's norm), both from one call (mean-square loss only; else None)."""
    if scenario.loss != "mse":
        return None
    rescale = nw.akgd_rate(K0, K1)
    frozen = scenario.frozen_kernel(np.concatenate([t, rescale * t]))
    loss, rescaled = np.split(frozen.loss, 2)
    test, rescaled_test = (None, None)
    if frozen.test_loss is not None:
        test, rescaled_test = np.split(frozen.test_loss, 2)
    return Baseline(loss, test, rescale, rescaled, rescaled_test)


def _bridge(scenario: nw.Scenario, t: np.ndarray) -> Bridge | None:
    if t[-1] <= 0:
        return None
    dense = np.concatenate([[0.0], np.geomspace(t[-1] * 1e-4, t[-1], CURVE_POINTS - 1)])
    limit = scenario.linear_limit(dense)
    if limit is None:
        return None
    return Bridge(dense, limit.loss, limit.test_loss, limit.zeta, limit.parameter_distance)


def _exponents(spectrum: fe.Spectrum) -> tuple[float, float]:
    """(b, a): the eigenvalues' exponent and the task power's, pooled over (near-)equal
    eigenvalues so that it does not depend on the order of the samples (NaN where no fit)."""
    values = spectrum.eigenvalues
    found = nw.power_law_exponent(values), nw.task_power_exponent(values, spectrum.power)
    return tuple(math.nan if exponent is None else exponent for exponent in found)


def _spectra(scenario: nw.Scenario, K0: np.ndarray, K1: np.ndarray) -> Spectra:
    y = scenario.data.y.reshape(-1)
    before, after = fe.spectrum(K0, y), fe.spectrum(K1, y)
    exponents = (*_exponents(before), *_exponents(after))
    return Spectra(before.eigenvalues, before.power, after.eigenvalues, after.power, exponents)


def _clamped(value: float, low: float, high: float) -> float:
    return float(f"{min(max(value, low), high):.4g}")


def _link(gamma: float, y: np.ndarray, spectra: Spectra) -> dict[str, Any]:
    """The kernel-alignment view's settings for a fitted ``gamma``: its power-law task with
    the network's initial exponents, and the γ of the same strength there
    (:func:`equivalent_gamma`)."""
    b, a = spectra.exponents[:2]
    b = _clamped(1.2 if math.isnan(b) else b, 0.0, 3.0)
    a = _clamped(1.5 if math.isnan(a) else a, 0.2, 4.0)
    samples = int(min(max(y.size, 8), ALIGNMENT_SAMPLES))
    K_task, y_task = fe.power_law_task(samples, a, b, 0)
    gamma = nw.equivalent_gamma(gamma, y, K_task, y_task)
    return {"gamma": _clamped(gamma, 1e-3, 1e3), "a": a, "b": b, "samples": samples, "seed": 0}


def _fit(scenario: nw.Scenario, curves: Curves, K0: np.ndarray, spectra: Spectra | None):
    """(the fit, or None, and why there is none)."""
    if scenario.loss != "mse" or spectra is None:
        return None, None
    if K0.shape[0] > FIT_SIZE:
        return None, (
            f"not fitted: n·d_out = {K0.shape[0]} is above {FIT_SIZE} (each of ~50 trials is "
            "an eigendecomposition that wide)"
        )
    y = scenario.data.y
    try:
        fit = nw.fit_feature_learning_rate(K0, y, curves.t, curves.alignment)
    except ValueError as error:
        return None, f"could not be fitted: {error}"
    # a standard error of ln γ above 2 is a factor e² ≈ 7 either way: no determination
    determined = not fit.log_gamma_error > UNDETERMINED_LOG_ERROR
    strength = fit.gamma if determined or not math.isfinite(fit.gamma_final) else fit.gamma_final
    link = _link(strength, y.reshape(-1), spectra)
    found = Fit(
        fit.gamma, fit.time_scale, fit.fitted, fit.residual, fit.gamma_final, link, determined
    )
    return found, None


def _surface(weights: tuple[np.ndarray, ...], activation: str, gamma, points: np.ndarray):
    """(f, active units) of the recorded networks at ``points``, a block of records at a time."""
    records, widest = weights[0].shape[0], max(max(W.shape[-2:]) for W in weights)
    block = max(1, SURFACE_BLOCK // (points.shape[0] * widest))
    values, counts = [], []
    for start in range(0, records, block):
        part = slice(start, start + block)
        net = nw.Network(tuple(W[part] for W in weights), activation, gamma)
        outputs, active = nw.outputs_and_active_units(net, points)
        values.append(outputs[..., 0])
        counts.append(active)
    return np.concatenate(values), np.concatenate(counts)


def _plane(scenario: nw.Scenario, run: nw.Training) -> Plane:
    data, net = scenario.data, scenario.net
    extent = float(f"{1.15 * max(float(np.max(np.abs(data.X))), 1e-3):.3g}")
    neurons = signs = None
    if net.depth == 2 and net.d_out == 1:
        neurons = nw.neuron_vectors(nw.Network(run.weights, net.activation, net.gamma))
        signs = np.sign(net.weights[1][0])
    return Plane(
        extent,
        run.weights,
        net.activation,
        float(net.gamma),
        data.X,
        data.y[:, 0],
        neurons,
        signs,
        data.teacher,
    )


def _line(scenario: nw.Scenario, run: nw.Training) -> Line:
    X, y = scenario.data.X[:, 0], scenario.data.y[:, 0]
    spread = max(float(np.ptp(X)), 1.0)
    x = np.linspace(X.min() - 0.25 * spread, X.max() + 0.25 * spread, LINE_POINTS)
    initial = nw.forward(scenario.net, x[:, None])[:, 0]
    return Line(x, initial, nw.forward(run.final, x[:, None])[:, 0], X, y)


def _plane_fits(scenario: nw.Scenario, records: int) -> bool:
    widths = scenario.net.widths
    parameters = sum(a * b for a, b in itertools.pairwise(widths))
    return records * parameters <= nw.MAX_RECORDED_WEIGHTS


def _train(scenario: nw.Scenario, setting: Setting, report: Report) -> nw.Training:
    steps = max(scenario.steps, 1)

    def heard(done: int) -> None:
        report(0.05 + 0.75 * done / steps, f"training: step {done:,} of {scenario.steps:,}")

    plane = scenario.net.d_in == 2 and _plane_fits(scenario, setting.records)
    return scenario.train(records=setting.records, record_weights=plane, progress=heard)


def _kernel_parts(scenario: nw.Scenario, run: nw.Training, curves: Curves, report: Report):
    """(baseline, bridge, spectra, specialization, fit, omitted notes)."""
    report(0.82, "the frozen-NTK baselines")
    K0 = nw.ntk(scenario.net, scenario.data.X, layer_lrs=scenario.layer_lrs)
    K1 = nw.ntk(run.final, scenario.data.X, layer_lrs=scenario.layer_lrs)
    baseline = _baseline(scenario, curves.t, K0, K1)
    bridge = _bridge(scenario, curves.t)
    report(0.88, "the NTK's spectra")
    spectra = _spectra(scenario, K0, K1) if np.any(scenario.data.y != 0) else None
    specialization = None
    if scenario.net.d_out > 1:
        y = scenario.data.y
        specialization = Specialization(nw.specialization(K0, y), nw.specialization(K1, y))
    report(0.92, "fitting the feature-learning rate")
    fit, why = _fit(scenario, curves, K0, spectra)
    return baseline, bridge, spectra, specialization, fit, why


def compute_job(controls: Controls, report: Report) -> Run:
    """The run for these controls, telling ``report`` how far it has got."""
    report(0.0, "building the data and the network")
    scenario, setting = build(controls)
    run = _train(scenario, setting, report)
    curves = Curves.of(run)
    diverged = int(run.diverged_at)
    baseline, bridge, spectra, specialization, fit, unfitted = _kernel_parts(
        scenario, run, curves, report
    )
    omitted = ()
    report(0.97, "the function over the inputs")
    plane = _plane(scenario, run) if run.weights is not None else None
    if scenario.net.d_in == 2 and plane is None:
        omitted += (
            "The function over the plane needs the weights at every recorded step, "
            "too many for this network: use a narrower or shallower one.",
        )
    line = _line(scenario, run) if scenario.net.d_in == 1 else None
    report(1.0, "done")
    return Run(
        setting,
        curves,
        diverged,
        baseline,
        bridge,
        fit,
        spectra,
        specialization,
        plane,
        line,
        omitted,
        unfitted,
    )


def compute(controls: Controls) -> Run:
    return compute_job(controls, quiet)
