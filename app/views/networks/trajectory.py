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

from dataclasses import dataclass

import numpy as np
from dash import dcc

from solvers import networks as nw

from ...core.downloads import Tables, columns_of
from ...core.frames import Frames
from ...core.presets import Preset
from ...core.state import choice, integer, number, switch
from ...core.view import View
from ..finite_width import PAPER as XU_ZIYIN
from ..kernel_alignment import PAPER as SHAN_BORDELON
from ..kernel_alignment import trajectory as alignment_view
from . import trajectory_plots as plots
from .results import RECORDS, Run, build, compute, compute_job

#: the play bar's frames: every recorded step
FRAMES = RECORDS
#: a request is "heavy" (a background job where the server runs them) above this many seconds
HEAVY_SECONDS = 1.0
#: this machine's pace for a single network, to estimate a request's time: floating-point
#: operations a second, and the fixed cost of one step (a dozen small array operations)
FLOPS_PER_SECOND = 1e10
SECONDS_PER_STEP = 4e-5

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
    depth: int = integer("depth (weight layers)", 2, 2, 4)
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
        0.01,
        100.0,
        log=True,
        help="Read-out against first layer, η₁η_L = 1 (layers between: 1)",
    )
    lr: float = number("step size lr", 0.02, 1e-4, 100.0, log=True, help="Time t = steps × lr")
    steps: int = integer("steps", 2000, 10, 20_000, step=10)
    seed: int = integer("seed", 0, 0, 999, help="Draws the data and, separately, the weights")
    log_time: bool = switch("logarithmic time axis", True, physics=False)


GROUPS = (
    ("Data", ("data", "d", "k", "classes", "n", "n_test")),
    ("Network", ("activation", "depth", "width")),
    ("Initialisation", ("init", "tau", "delta", "sigma", "scaling", "balance")),
    ("Training", ("loss", "rate_ratio", "lr", "steps", "seed", "log_time")),
)

# -- the papers' figures -----------------------------------------------------------------------

#: Kunin et al. Fig. 1a: d = 2, h = 50, k = 3, n = 20; 10⁶ steps of 10⁻⁴ there, t = 100 here too
FIG_1A = {
    "data": "teacher",
    "d": 2,
    "k": 3,
    "n": 20,
    "n_test": 200,
    "activation": "relu",
    "depth": 2,
    "width": 50,
    "init": "kunin",
    "loss": "mse",
    "rate_ratio": 1.0,
    "lr": 0.02,
    "steps": 5000,
    "seed": 0,
}
FIG_1A_CAPTION = "5,000 steps of 0.02 (t = 100, as the paper's 10⁶ steps of 10⁻⁴)"
#: Kunin et al. Fig. 5: twenty ReLU neurons from f ≈ 0 on an XOR-like task
FIG_5 = {
    "data": "xor",
    "n": 40,
    "n_test": 200,
    "activation": "relu",
    "depth": 2,
    "width": 20,
    "init": "kunin",
    "tau": 0.1,
    "loss": "mse",
    "rate_ratio": 1.0,
    "lr": 0.05,
    "steps": 4000,
    "seed": 1,
}
#: Kunin et al. Fig. 6a (LeNet-5 on MNIST there): a three-layer ReLU MLP on the digits
FIG_6A = {
    "data": "digits",
    "classes": "pair",
    "n": 100,
    "n_test": 200,
    "activation": "relu",
    "depth": 3,
    "width": 50,
    "init": "gaussian",
    "sigma": 1.4,
    "scaling": "standard",
    "loss": "mse",
    "rate_ratio": 1.0,
    "lr": 0.01,
    "steps": 3000,
    "seed": 0,
}
#: Xu & Ziyin Fig. 1: 100 points y = 2x + N(0, 1)/10, N(0, 1) layers, width 200 (10⁴ there)
FIG_XZ_1 = {
    "data": "line",
    "n": 100,
    "n_test": 100,
    "depth": 2,
    "width": 200,
    "init": "gaussian",
    "sigma": 1.0,
    "loss": "mse",
    "rate_ratio": 1.0,
    "seed": 0,
}
#: Shan & Bordelon Fig. 1 and 6: ReLU MLPs in the NTK scaling on a subset of the digits
DIGITS_NTK = {
    "data": "digits",
    "classes": "pair",
    "n": 100,
    "n_test": 200,
    "activation": "relu",
    "depth": 2,
    "width": 200,
    "init": "gaussian",
    "sigma": 1.0,
    "scaling": "ntk",
    "loss": "mse",
    "rate_ratio": 1.0,
    "lr": 0.2,
    "steps": 1000,
    "seed": 0,
}
#: the paper-figures cards: which figure each preset draws, in which panel, of which paper
FIG_1A_CARD = {"figure": "Fig. 1a", "panel": "neurons"}
FIG_5_CARD = {"figure": "Fig. 5", "panel": "function"}
FIG_6A_CARD = {"figure": "Fig. 6a", "panel": "distances"}
XZ = {"paper": XU_ZIYIN}
XZ_FIG_1_CARD = {"figure": "Fig. 1", "panel": "zeta", **XZ}
SB = {"paper": SHAN_BORDELON}
SB_FIG_6_CARD = {"figure": "Fig. 6", "panel": "alignment", **SB}

PRESETS = (
    Preset(
        "fig-1a-small-scale-balanced-rich",
        "Fig. 1a — small scale, balanced: rich",
        "τ = 0.1, δ = 0: the neurons grow from almost nothing and turn towards the teacher "
        f"(dotted). {FIG_1A_CAPTION}.",
        FIG_1A | {"tau": 0.1, "delta": 0.0},
        **FIG_1A_CARD,
    ),
    Preset(
        "fig-1a-large-scale-lazy",
        "Fig. 1a — large scale: lazy",
        f"τ = 2, δ = 0: the neurons hardly move, the kernel stays put. {FIG_1A_CAPTION}.",
        FIG_1A | {"tau": 2.0, "delta": 0.0},
        **FIG_1A_CARD,
    ),
    Preset(
        "fig-1a-upstream-aligns-with-the-teacher",
        "Fig. 1a — upstream (δ = 1): aligns with the teacher",
        f"τ = 0.1, δ = 1: rapid rich learning, the neurons snap onto the teacher's directions. "
        f"{FIG_1A_CAPTION}.",
        FIG_1A | {"tau": 0.1, "delta": 1.0},
        **FIG_1A_CARD,
    ),
    Preset(
        "fig-1a-downstream-does-not-align",
        "Fig. 1a — downstream (δ = −1): no alignment",
        f"τ = 0.1, δ = −1: the first layer barely turns; the read-out fits the data. "
        f"{FIG_1A_CAPTION}.",
        FIG_1A | {"tau": 0.1, "delta": -1.0},
        **FIG_1A_CARD,
    ),
    Preset(
        "fig-5-xor-rich-upstream",
        "Fig. 5 — XOR, upstream: the regions move",
        "Twenty ReLU neurons from f ≡ 0, δ = 1: the activation regions turn first, then the "
        "function grows (the paper draws the surface in 3-D; here f and the regions' parity).",
        FIG_5 | {"delta": 1.0},
        **FIG_5_CARD,
    ),
    Preset(
        "fig-5-xor-lazy-downstream",
        "Fig. 5 — XOR, downstream: the regions stay",
        "Twenty ReLU neurons from f ≡ 0, δ = −1: the partition hardly changes; the network "
        "fits by reweighting its neurons.",
        FIG_5 | {"delta": -1.0},
        **FIG_5_CARD,
    ),
    Preset(
        "fig-6a-upstream-patterns-move",
        "Fig. 6a — upstream (α = 3): patterns and kernel move",
        "A three-layer ReLU MLP on the digits 4 and 9 (LeNet-5 on MNIST there), first layer ÷ 3 "
        "and read-out × 3: the activation patterns and the kernel move far, the parameters little.",
        FIG_6A | {"balance": 3.0},
        **FIG_6A_CARD,
    ),
    Preset(
        "fig-6a-downstream-patterns-stay",
        "Fig. 6a — downstream (α = 1/3): patterns stay",
        "The same network with the first layer × 3 and the read-out ÷ 3: lazier, fewer "
        "activation patterns change and the kernel moves less.",
        FIG_6A | {"balance": 1 / 3},
        **FIG_6A_CARD,
    ),
    Preset(
        "fig-1-relu-alignment-feature-learning",
        "Fig. 1 — ReLU, alignment in the feature-learning phase (γ = 1/d)",
        "100 points y = 2x + noise, N(0, 1) layers, γ = 1/d, width 200 (10⁴ there): ζ rises "
        "from ≈ 0 as the layers align.",
        FIG_XZ_1 | {"activation": "relu", "scaling": "mean_field", "lr": 20.0, "steps": 2000},
        **XZ_FIG_1_CARD,
    ),
    Preset(
        "fig-1-linear-exact-alignment",
        "Fig. 1 — linear: the exact solution over the network",
        "A two-layer linear network on the same data: the exact finite-width solution (lines) "
        "over gradient descent (points), γ = 1/d, width 200 (10⁴ there).",
        FIG_XZ_1 | {"activation": "linear", "scaling": "mean_field", "lr": 10.0, "steps": 4000},
        **XZ_FIG_1_CARD,
    ),
    Preset(
        "fig-1-relu-kernel-phase",
        "Fig. 1 — ReLU, kernel phase (γ = 1/√d)",
        "The same network with γ = 1/√d: ζ rises far less (to ≈ 0.3 at width 200, less the wider "
        "the network) and the kernel barely moves (S ≈ 10⁻⁴).",
        FIG_XZ_1 | {"activation": "relu", "scaling": "ntk", "lr": 0.1, "steps": 2000},
        **XZ_FIG_1_CARD,
    ),
    Preset(
        "fig-1-relu-disalignment-nearly-parallel",
        "Fig. 1 — ReLU, disalignment from nearly parallel layers",
        "u ~ N(0, 10), w = u + N(0, 0.1), γ = 1/√d: the output starts far too large and the "
        "layers turn apart, ζ falls from ≈ 1.",
        FIG_XZ_1
        | {"activation": "relu", "init": "parallel", "sigma": 3.162, "scaling": "ntk"}
        | {"lr": 0.005, "steps": 2000},
        **XZ_FIG_1_CARD,
    ),
    Preset(
        "fig-2-four-layer-relu-on-the-digits",
        "Fig. 2 — a four-layer ReLU net on the ten digits",
        "ζ between each pair of layers of a 64 → 50 → 50 → 50 → 10 ReLU MLP (Kaiming, σ = 1) "
        "on 50 digit images (MNIST with batch 2000 there): every pair aligns during training.",
        {
            "data": "digits",
            "classes": "ten",
            "n": 50,
            "n_test": 100,
            "activation": "relu",
            "depth": 4,
            "width": 50,
            "init": "gaussian",
            "sigma": 1.0,
            "scaling": "standard",
            "loss": "mse",
            "lr": 0.1,
            "steps": 1000,
            "seed": 0,
        },
        figure="Fig. 2",
        panel="zeta",
        **XZ,
    ),
    Preset(
        "fig-7-two-gaussians-logistic-loss",
        "Fig. 7 — two Gaussians, logistic loss",
        "N(0, 1) against N(4, 1) with the binary cross-entropy, ReLU, γ = 1/d, width 200 (10⁴ "
        "there): the layers align; ζ keeps drifting after the loss has converged.",
        {
            "data": "gaussians",
            "n": 100,
            "n_test": 200,
            "activation": "relu",
            "depth": 2,
            "width": 200,
            "init": "gaussian",
            "sigma": 1.0,
            "scaling": "mean_field",
            "loss": "bce",
            "lr": 20.0,
            "steps": 2000,
            "seed": 0,
        },
        figure="Fig. 7",
        panel="zeta",
        **XZ,
    ),
    Preset(
        "fig-1a-c-loss-against-kernel-gradient-descent",
        "Fig. 1A — the loss against kernel gradient descent",
        "A two-layer ReLU MLP (width 200, NTK scaling; N = 500 on MNIST there) on 100 digits: "
        "the network's loss falls below the frozen NTK's as its kernel aligns.",
        DIGITS_NTK,
        figure="Fig. 1A",
        panel="loss",
        **SB,
    ),
    Preset(
        "fig-1d-e-spectra-before-and-after",
        "Fig. 1D–E — the NTK's spectrum before and after",
        "The same network: power-law eigenvalues before and after training, and the task power "
        "concentrating on the top eigenvectors.",
        DIGITS_NTK,
        figure="Fig. 1D–E",
        panel="spectrum",
        **SB,
    ),
    Preset(
        "fig-4-kernel-specialization-ten-digits",
        "Fig. 4 — kernel specialization on the ten digits",
        "A two-layer ReLU MLP (width 100, NTK scaling) with ten outputs on 50 digit images "
        "(N = 500 on MNIST there): each output's kernel aligns most with its own class.",
        DIGITS_NTK
        | {"classes": "ten", "n": 50, "n_test": 100, "width": 100, "lr": 1.0, "steps": 2000},
        figure="Fig. 4",
        panel="specialization",
        **SB,
    ),
    Preset(
        "fig-6-depth-2-alignment-and-gamma",
        "Fig. 6 — depth 2: alignment and γ",
        "A two-layer ReLU MLP (width 50) on 100 digits (4 against 9; ten classes of MNIST "
        "there): the "
        "alignment and the fitted feature-learning rate γ — compare depth 4.",
        DIGITS_NTK | {"width": 50},
        **SB_FIG_6_CARD,
    ),
    Preset(
        "fig-6-depth-4-alignment-and-gamma",
        "Fig. 6 — depth 4: faster alignment, larger γ",
        "A four-layer ReLU MLP on the same digits: the alignment rises earlier and higher, the "
        "fitted γ is larger than at depth 2.",
        DIGITS_NTK | {"width": 50, "depth": 4},
        **SB_FIG_6_CARD,
    ),
    Preset(
        "linear-network-kernel-phase-exact",
        "A linear network in the kernel phase, exactly",
        "The 1-d regression with a two-layer linear network and γ = 1/√d: the exact "
        "finite-width solution over gradient descent, the layers hardly aligning.",
        FIG_XZ_1 | {"activation": "linear", "scaling": "ntk", "lr": 0.1, "steps": 2000},
    ),
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


CURVES = (
    "t",
    "steps",
    "loss",
    "test_loss",
    "kernel_distance",
    "alignment",
    "kernel_norm",
    "zeta",
    "activation_distance",
    "parameter_distance",
)


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
    """About how long the request takes on this machine (for the background-job decision)."""
    setting = build(controls)[1]
    work = nw.training_work(
        setting.widths,
        setting.n,
        steps=setting.steps,
        records=setting.records,
        tests=setting.n_test,
    )
    size = setting.n * setting.widths[-1]
    return work / FLOPS_PER_SECOND + setting.steps * SECONDS_PER_STEP + 4e-9 * size**3


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
