"""Nonlinear and deep networks trained by gradient descent: the papers' experiments beside their
exact linear theory (Kunin et al. Fig. 1a, 5, 6a; Xu & Ziyin Fig. 1, 2, 7; Shan & Bordelon
Fig. 1, 4, 6).

The state is the view's controls; the data, network and training settings are one
:func:`solvers.networks.scenario` (the map's cells are scenarios too), the result one recorded
run with its frozen-NTK baseline, the exact linear limit where there is one, the fitted
feature-learning rate, the NTK's spectra and the function over the inputs
(:mod:`.results`). The maths is :mod:`solvers.networks` (docs/networks.md (N1)–(N17);
docs/theory.md §2 for the linear limit, §4 for the feature-learning rate); the plots are
:mod:`.trajectory_plots`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from dash import dcc

from solvers import networks as nw

from ...core.downloads import Tables, columns_of
from ...core.frames import Frames
from ...core.state import choice, integer, number, switch
from ...core.view import View
from ..kernel_alignment import trajectory as alignment_view
from . import kunin_figures, shan_bordelon_figures, xu_ziyin_figures
from . import trajectory_plots as plots
from .results import RECORDS, Run, Setting, build, compute, compute_job, sizes

#: the longest run, of a network here and of the map's (Kunin et al.'s longest: 10⁵ steps)
LONGEST_RUN = 100_000


def steps_field(help: str) -> Any:
    """The steps of a run from 10 to :data:`LONGEST_RUN`, on a slider over decades: the
    network view's and the map's (one range, so that a click on a map's cell opens its network
    for as many steps)."""
    return integer("steps", 2000, 10, LONGEST_RUN, log=True, help=help)


#: the play bar's frames: every recorded step
FRAMES = RECORDS
#: a request is "heavy" (a background job where the server runs them) above this many seconds
HEAVY_SECONDS = 1.0
#: this machine's pace for a single network, to estimate a request's time: floating-point
#: operations a second, and the fixed cost of one step (a dozen small array operations)
FLOPS_PER_SECOND = 1e10
SECONDS_PER_STEP = 4e-5
#: … in the compiled loop (``nw.trains_compiled``: a step of few flops), whose steps cost
#: little beyond their work — except a smooth activation's exp or tanh, forward and back, per
#: hidden unit and training point (measured over the presets and the defaults, each at 2,000
#: and 20,000 steps: ReLU 1.3–2 µs a step at the defaults (d = 2, h = 50, n = 20), 14–22 at
#: h = 200, n = 100; sigmoid and swish there 230–330, tanh at the defaults 13; this machine,
#: 2026-11-29; benchmarks/networks_callbacks.py prints the presets beside their estimates)
COMPILED_FLOPS_PER_SECOND = 1.3e10
SECONDS_PER_COMPILED_STEP = 1.5e-6
SECONDS_PER_SMOOTH_UNIT = 1.4e-8
#: the activations the compiled loop evaluates without exp or tanh
PIECEWISE_LINEAR = ("linear", "relu", "leaky_relu")

DATA_LABELS = (
    "teacher–student",
    "XOR-like (2-d)",
    "two Gaussians (1-d)",
    "1-d regression",
    "digits",
)
ACTIVATION_LABELS = ("linear", "ReLU", "leaky ReLU", "tanh", "sigmoid", "swish")


@dataclass(frozen=True)
class Controls:
    data: str = choice(
        "data set",
        "teacher",
        nw.DATA_SETS,
        DATA_LABELS,
        help="Teacher–student and XOR: Kunin et al.; two Gaussians and the 1-d regression: Xu & "
        "Ziyin; the 8 × 8 digits stand in for MNIST (Shan & Bordelon)",
    )
    d: int = integer("input size d (teacher–student)", 2, 2, 100, help="Inputs on the sphere")
    k: int = integer("teacher units k", 3, 1, 10)
    classes: str = choice(
        "digits", "pair", ("pair", "ten"), ("4 against 9 (y = ±1)", "all ten (one-hot)")
    )
    n: int = integer(
        "training points n",
        20,
        4,
        1000,
        help="At most 100 for the ten digits (their NTK is n × 10 wide)",
    )
    n_test: int = integer("test points", 200, 0, 1000)
    activation: str = choice("activation", "relu", nw.ACTIVATIONS, ACTIVATION_LABELS)
    depth: int = integer("depth (weight layers)", 2, 2, 6)
    width: int = integer("width (hidden units per layer)", 50, 2, 200, step=2)
    tau: float = number(
        "scale τ (Kunin)", 0.1, 0.01, 10.0, log=True, help="|aᵢ|‖wᵢ‖ = τ² for every neuron"
    )
    delta: float = number(
        "balance δ (Kunin)",
        0.0,
        -5.0,
        5.0,
        step=0.05,
        help="aᵢ² − ‖wᵢ‖² = δ: > 0 upstream, 0 balanced, < 0 downstream",
    )
    init: str = choice(
        "initialisation",
        "kunin",
        nw.INITS,
        ("Kunin et al. (τ, δ)", "Gaussian (σ, scaling, α)", "nearly parallel (Xu & Ziyin)"),
        help="Kunin et al.: symmetrised two-layer net, f ≡ 0 at the start; Gaussian: N(0, σ²/n_in) "
        "layers in a scaling; nearly parallel: w = σ(g + 0.1·G), u = σg (1-d inputs)",
    )
    sigma: float = number("σ (Gaussian, parallel)", 1.0, 0.01, 10.0, log=True)
    scaling: str = choice(
        "scaling (Gaussian, parallel)",
        "standard",
        tuple(nw.SCALINGS),
        ("standard (Kaiming-like)", "NTK (γ = 1/√n)", "mean field (γ = 1/n)"),
    )
    balance: float = number(
        "balance α (Gaussian)",
        1.0,
        0.1,
        10.0,
        log=True,
        help="First layer ÷ α, read-out × α: α > 1 upstream, α < 1 downstream (Kunin Fig. 6a)",
    )
    loss: str = choice("loss", "mse", ("mse", "bce"), ("mean square", "logistic (labels ±1)"))
    rate_ratio: float = number(
        "learning-rate ratio η_L/η₁",
        1.0,
        1e-6,
        1e6,
        log=True,
        help="Read-out against first layer, η₁η_L = 1 (layers between: 1)",
    )
    lr: float = number("step size lr", 0.02, 1e-4, 100.0, log=True, help="Time t = steps × lr")
    steps: int = steps_field(
        "Kunin et al. train to 10⁵ steps; a network beyond the view's budget trains fewer"
    )
    seed: int = integer("seed", 0, 0, 999, help="Draws the data and, separately, the weights")
    log_time: bool = switch("logarithmic time axis", True, physics=False)

    def within_limits(self) -> tuple[Controls, tuple[str, ...]]:
        """n and the test points within the view's caps (:func:`results.sizes`): the values
        used, which the controls and the link then show (app/core/state.py, ``LIMITS``)."""
        n, n_test, notes = sizes(self)
        if (n, n_test) == (self.n, self.n_test):
            return self, ()
        return dataclasses.replace(self, n=n, n_test=n_test), tuple(notes)


GROUPS = (
    ("Data", ("data", "d", "k", "classes", "n", "n_test")),
    ("Network", ("activation", "depth", "width")),
    ("Initialisation", ("init", "tau", "delta", "sigma", "scaling", "balance")),
    ("Training", ("loss", "rate_ratio", "lr", "steps", "seed", "log_time")),
)

# -- presets: the papers' figures (one module per paper) and one more --------------------------

PRESETS = (
    *kunin_figures.PRESETS,
    *xu_ziyin_figures.PRESETS,
    *shan_bordelon_figures.PRESETS,
    *xu_ziyin_figures.LINEAR_KERNEL_PHASE,
)

INTRO = (
    r"Fully connected networks $f(x) = \gamma\,W_L\,\sigma(W_{L-1}\cdots\sigma(W_1x))$ trained "
    r"by full-batch gradient descent, $W_l \leftarrow W_l - \mathrm{lr}\,\eta_l\,\partial"
    r"\mathcal{L}/\partial W_l$ at times $t = \mathrm{steps}\times\mathrm{lr}$, next to what the "
    r"exact theory says: kernel gradient descent with the NTK frozen at the start (the lazy "
    r"limit, solved exactly) and, for a two-layer linear network on one-dimensional data, the "
    r"exact finite-width solution of Xu & Ziyin. How far the kernel moves, $S(0, t)$, how it "
    r"aligns with the task, $A(t)$, how the layers align, $\zeta$, and how many activation "
    r"patterns change tell lazy from rich. Choose a paper figure above, or any data set, "
    r"activation, depth and initialisation."
)


# -- summary, messages, frames, downloads ------------------------------------------------------


def _architecture(run: Run) -> str:
    setting = run.setting
    arrow = " → ".join(str(w) for w in setting.widths)
    return f"{arrow}, {setting.activation.replace('_', ' ')}, {setting.loss} loss"


def _range(values: np.ndarray) -> str:
    return f"{values[0]:.3g} → {values[-1]:.3g}"


def _losses(run: Run) -> str:
    curves, baseline = run.curves, run.baseline
    text = f"training {_range(curves.loss)}"
    if curves.test_loss is not None:
        text += f"; test {_range(curves.test_loss)}"
    if baseline is not None and baseline.test_loss is not None:
        text += f" (frozen NTK: {baseline.test_loss[-1]:.3g})"
    elif baseline is not None:
        text += f" (frozen NTK: {baseline.loss[-1]:.3g})"
    return text


def _kernel(run: Run) -> str:
    curves = run.curves
    return (
        f"S(0, t) = {curves.kernel_distance[-1]:.3g}, alignment A {_range(curves.alignment)}, "
        f"{100 * curves.activation_distance[-1]:.3g} % of activation patterns changed, "
        f"‖θ − θ₀‖ = {curves.parameter_distance[-1]:.3g}"
    )


def _zeta(run: Run) -> str:
    zeta = run.curves.zeta
    return "; ".join(
        f"ζ_{{{index + 1},{index + 2}}} {_range(zeta[:, index])}" for index in range(zeta.shape[1])
    )


def _gamma(run: Run):
    fit = run.fit
    text = (
        f"γ = {fit.gamma:.3g} (time scale s = {fit.time_scale:.3g}, rms residual "
        f"{fit.residual:.2g}); from the final alignment alone (their eq. 20) "
        f"{fit.gamma_final:.3g}. "
    )
    if not fit.determined:
        text += (
            "The curve does not determine the fitted γ: ever larger γ on ever slower clocks "
            "fit it about as well, so the final-alignment estimate is the one to read. "
        )
    search = alignment_view.VIEW.spec.encode(
        alignment_view.VIEW.spec.with_overrides(fit.link, clamp=True)
    )
    # relative to this page, so that it also works under a path prefix
    href = alignment_view.VIEW.path.lstrip("/") + search
    words = f"Open the exact model with the same strength (γ = {fit.link['gamma']:g}) →"
    return [text, dcc.Link(words, href=href, className="related-link")]


def facts(controls: Controls, run: Run) -> list[tuple[str, object]]:
    setting = run.setting
    items = [
        ("network", _architecture(run)),
        (
            "training",
            f"{setting.steps:,} steps of lr = {controls.lr:g} (t = {run.curves.t[-1]:.3g}); "
            f"n = {setting.n}, {setting.n_test} test points",
        ),
        ("loss", _losses(run)),
        ("kernel and patterns", _kernel(run)),
    ]
    if run.curves.zeta.shape[1]:
        items.append(("layer alignment", _zeta(run)))
    if run.fit is not None:
        items.append(("feature-learning rate (Shan & Bordelon Fig. 6D)", _gamma(run)))
    elif run.unfitted is not None:
        items.append(("feature-learning rate (Shan & Bordelon Fig. 6D)", run.unfitted))
    return items


def _divergence(controls: Controls, run: Run) -> str:
    step = run.diverged_at
    text = (
        f"Gradient descent diverged at step {step:,} (t = {step * controls.lr:.3g}): the step "
        f"size {controls.lr:g} is too large here, and the curves stop changing there."
    )
    if run.spectra is not None and run.spectra.initial_eigenvalues[0] > 0:
        stable = 2 * run.setting.n / run.spectra.initial_eigenvalues[0]
        text += f" The initial NTK allows steps below about 2n/λ_max = {stable:.3g}."
    return text


def notes(controls: Controls, run: Run) -> list[str]:
    messages = [*run.setting.notes, *run.omitted]
    if run.diverged_at >= 0:
        messages.append(_divergence(controls, run))
    return messages


TIME_PANELS = ("loss", "alignment", "distances", "zeta")


def frames(controls: Controls, run: Run) -> Frames:
    found = Frames.along(run.curves.t, FRAMES).lines_on(*TIME_PANELS)
    plane = run.plane
    if plane is not None:
        # computed only if the function's plot is in sight (its matrices are sent then)
        found = found.heatmap("function", lambda: plots.encoded(plane))
        if plane.neurons is not None:
            found = found.point("neurons", x=plane.neurons[..., 0], y=plane.neurons[..., 1])
    return found


CURVES = ("t", "steps", *nw.RECORDED)


def _present(table: dict) -> dict:
    return {name: values for name, values in table.items() if values is not None}


def tables(controls: Controls, run: Run) -> Tables:
    curves = run.curves
    found = {}
    if run.baseline is not None:
        baseline = run.baseline
        found["exact kernel gradient descent (frozen NTK)"] = _present(
            {"t": curves.t, "loss": baseline.loss, "test_loss": baseline.test_loss}
        )
        if baseline.rescaled_loss is not None:
            found["aKGD (frozen NTK, rate rescaled by the final NTK norm)"] = _present(
                {
                    "t": curves.t,
                    "rate": np.full(curves.t.size, baseline.rescale),
                    "loss": baseline.rescaled_loss,
                    "test_loss": baseline.rescaled_test_loss,
                }
            )
    if run.bridge is not None:
        found["exact finite width (linear limit)"] = _present(
            columns_of(run.bridge, ("t", "loss", "test_loss", "zeta", "parameter_distance"))
        )
    found["network (gradient descent)"] = _present(columns_of(curves, CURVES))
    if run.fit is not None:
        found["optimal feature evolution fit"] = {
            "t": curves.t,
            "alignment": curves.alignment,
            "fitted": run.fit.fitted,
        }
    if run.spectra is not None:
        spectra = run.spectra
        found["NTK spectrum"] = {
            "k": np.arange(1, spectra.initial_eigenvalues.size + 1),
            **columns_of(
                spectra,
                ("initial_eigenvalues", "initial_power", "final_eigenvalues", "final_power"),
            ),
        }
    if run.specialization is not None:
        found["kernel specialization"] = columns_of(run.specialization, ("initial", "final"))
    return found


def seconds(controls: Controls) -> float:
    """About how long the request takes on this machine (for the background-job decision):
    its records (NTKs, test passes) and kernel diagnostics, and its steps."""
    setting = build(controls)[1]

    def work(steps: int, records: int) -> float:
        widths, tests = setting.widths, setting.n_test
        return nw.training_work(widths, setting.n, steps=steps, records=records, tests=tests)

    size = setting.n * setting.widths[-1]
    fixed = work(0, setting.records) / FLOPS_PER_SECOND + 4e-9 * size**3
    return fixed + setting.steps * _step_seconds(setting, work(1, 0))


def _step_seconds(setting: Setting, flops: float) -> float:
    """One step's time: numpy's array operations, or the compiled loop's (its flops, and a
    smooth activation's evaluations)."""
    widths, activation, n = setting.widths, setting.activation, setting.n
    if not nw.trains_compiled(widths, activation, n):
        return flops / FLOPS_PER_SECOND + SECONDS_PER_STEP
    units = 0 if activation in PIECEWISE_LINEAR else n * sum(widths[1:-1])
    evaluations = units * SECONDS_PER_SMOOTH_UNIT
    return flops / COMPILED_FLOPS_PER_SECOND + SECONDS_PER_COMPILED_STEP + evaluations


def heavy(controls: Controls) -> bool:
    return seconds(controls) > HEAVY_SECONDS


VIEW = View(
    key="networks",
    path="/networks",
    title="Nonlinear and deep networks",
    nav_title="Networks",
    summary=(
        "The papers' nonlinear experiments: ReLU teacher–student nets over scale and balance, "
        "an XOR-like task's activation regions, layer alignment in deep nets, and the NTK "
        "against kernel gradient descent on the digits — each next to its exact linear theory."
    ),
    intro=INTRO,
    controls=Controls,
    compute=compute,
    result_type=Run,
    panels=plots.PANELS,
    facts=facts,
    tables=tables,
    presets=PRESETS,
    groups=GROUPS,
    notes=notes,
    frames=frames,
    heavy=heavy,
    compute_job=compute_job,
)

__all__ = ["VIEW", "Controls", "heavy", "seconds"]
