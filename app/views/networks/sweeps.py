"""Xu & Ziyin's sweeps of ReLU networks on the digits (*Three mechanisms of feature learning in a
linear network*): the layer alignment at the end of training against the initial scale σ of a
deep network (Fig. 2b), the first layer's change and the accuracy against the initial-scale
exponent c at fixed width (Fig. 5), and against the width in the six scalings of their Table 1
(Fig. 4) — every network trained alike by full-batch gradient descent.

The engine is :mod:`solvers.networks` (:func:`~solvers.networks.sweep_sigma`,
:func:`~solvers.networks.sweep_scale`, :func:`~solvers.networks.sweep_widths`;
docs/network-sweeps.md); the plots are :mod:`.sweeps_plots`. A σ-sweep network is the network
view's own: a click on one of its points opens it there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from solvers import finite_width as fw
from solvers import networks as nw

from ...core.clicks import ClickPoint, Link, nearest_index
from ...core.downloads import Tables
from ...core.presets import Preset
from ...core.state import choice, integer, number, switch
from ...core.view import View
from ..finite_width import PAPER as XU_ZIYIN
from . import sweep_claims as claims
from . import sweeps_plots as plots
from . import trajectory

SWEEPS = ("sigma", "scale", "widths")
SWEEP_LABELS = (
    "the scale σ of a deep network (Fig. 2b)",
    "the initial-scale exponent c at a fixed width (Fig. 5)",
    "the width, in six scalings (Fig. 4)",
)
#: this machine's pace on batches of small networks (as the networks map's): floating-point
#: operations a second, and the fixed cost of one network's step
FLOPS_PER_SECOND = 2.5e10
SECONDS_PER_CELL_STEP = 2.5e-6
#: a request is a background job (where the server runs them) above this many seconds
HEAVY_SECONDS = 1.0
#: the longest a sweep may train, as a background job; a larger one trains fewer steps
SWEEP_SECONDS = 300.0
#: the longest a sweep may take inside a web request (a server without background jobs)
INLINE_SECONDS = 15.0


@dataclass(frozen=True)
class Controls:
    sweep: str = choice("sweep over", "sigma", SWEEPS, SWEEP_LABELS)
    n: int = integer("training images (ten digits)", 30, 10, 100)
    n_test: int = integer("test images", 200, 0, 1000)
    lr: float = number(
        "step size lr",
        0.2,
        1e-3,
        10.0,
        log=True,
        help="σ: at σ ≤ 1 (× σ^−2(L−1) above); c: every c; width: at d = 100 (× κ^c_η)",
    )
    steps: int = integer("steps", 500, 10, 5000, step=10)
    seed: int = integer("seed", 0, 0, 999, help="Draws the images and, separately, the weights")
    depth: int = integer("depth (weight layers)", 3, 2, 6)
    width: int = integer("width (hidden units per layer)", 30, 2, 200, step=2)
    sigma_min: float = number("smallest σ", 0.25, 0.05, 10.0, log=True)
    sigma_max: float = number("largest σ", 2.0, 0.05, 10.0, log=True)
    scale_width: int = integer("width d", 50, 10, 1000, step=10)
    c_min: float = number("smallest c", -2.0, -3.0, 3.0, step=0.25)
    c_max: float = number("largest c", 2.0, -3.0, 3.0, step=0.25)
    d_min: int = integer("smallest width", 20, 10, 1000, step=2)
    d_max: int = integer("largest width", 200, 10, 1000, step=2)
    zero_output: bool = switch(
        "start from a zero output (c and width sweeps)",
        False,
        help="Paired units, the second half's read-out negated (Chizat's lazy initialisation)",
    )
    points: int = integer("points", 5, 2, nw.MAX_SWEEP_VALUES)


GROUPS = (
    (
        "Sweep and training",
        ("sweep", "n", "n_test", "lr", "steps", "seed", "points", "zero_output"),
    ),
    ("σ of a deep network (Fig. 2b)", ("depth", "width", "sigma_min", "sigma_max")),
    ("Initial scale at fixed width (Fig. 5)", ("scale_width", "c_min", "c_max")),
    ("Width (Fig. 4)", ("d_min", "d_max")),
)


# -- what the controls pose -----------------------------------------------------------------------


def _ten_digits(values: np.ndarray) -> np.ndarray:
    """Values as a link carries them (10 significant digits): a click opens exactly them."""
    return np.array([float(f"{v:.10g}") + 0.0 for v in np.asarray(values, dtype=float)])


def swept_values(controls: Controls) -> np.ndarray:
    """The values the sweep runs over: σ and widths geometrically spaced (widths rounded to
    whole, even numbers, unique), c evenly."""
    count = controls.points
    if controls.sweep == "sigma":
        low, high = sorted((controls.sigma_min, controls.sigma_max))
        return _ten_digits(np.geomspace(low, high, count))
    if controls.sweep == "scale":
        low, high = sorted((controls.c_min, controls.c_max))
        return _ten_digits(np.linspace(low, high, count))
    low, high = sorted((controls.d_min, controls.d_max))
    return np.unique(2 * np.round(np.geomspace(low, high, count) / 2)).astype(float)


def _networks(controls: Controls) -> list[tuple[int, ...]]:
    """The layer sizes of every network the sweep trains (for its cost)."""
    values = swept_values(controls)
    if controls.sweep == "sigma":
        return [(64, *[controls.width] * (controls.depth - 1), 10)] * values.size
    if controls.sweep == "scale":
        return [(64, controls.scale_width, 10)] * values.size
    return [(64, int(d), 10) for d in values for _ in nw.SWEEP_ROWS]


def _seconds(controls: Controls, steps: int) -> float:
    networks = _networks(controls)
    work = nw.sweep_work(networks, controls.n, steps=steps, tests=controls.n_test)
    return work / FLOPS_PER_SECOND + len(networks) * steps * SECONDS_PER_CELL_STEP


def within_budget(controls: Controls) -> Controls:
    """The sweep the controls ask for, with as many of its steps as :data:`SWEEP_SECONDS`
    allows."""
    per_step = _seconds(controls, 1)
    steps = int(min(controls.steps, max(1, SWEEP_SECONDS // per_step)))
    return dataclasses.replace(controls, steps=steps)


def seconds(controls: Controls) -> float:
    """About how long the sweep takes on this machine."""
    fitted = within_budget(controls)
    return _seconds(fitted, fitted.steps)


def heavy(controls: Controls) -> bool:
    return seconds(controls) > HEAVY_SECONDS


# -- computing ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepRun:
    sweep: nw.Sweep
    #: per row: the exponent k of ‖W₁ − W₁(0)‖/‖W₁(0)‖ ∝ value^k (widths only), None otherwise
    fits: tuple[float | None, ...]
    steps_asked: int


Report = Callable[[float, str], None]


def _data(controls: Controls) -> nw.Data:
    """The ten digits, drawn as the network view draws them (the seed's data stream)."""
    return nw.data_set(
        "digits", n=controls.n, n_test=controls.n_test, classes="ten", seed=controls.seed
    )


def compute_job(controls: Controls, report: Report) -> SweepRun:
    """The sweep, telling ``report`` how far it has got."""
    asked = controls.steps
    controls = within_budget(controls)
    report(0.0, "drawing the digits and the networks")
    data, values = _data(controls), swept_values(controls)

    def heard(fraction: float) -> None:
        report(0.99 * fraction, f"training: {fraction:.0%} of the networks' steps")

    common = {
        "lr": controls.lr,
        "steps": controls.steps,
        "X_test": data.X_test,
        "y_test": data.y_test,
        "seed": controls.seed,
        "progress": heard,
    }
    if controls.sweep == "sigma":
        found = nw.sweep_sigma(
            data.X, data.y, values, depth=controls.depth, width=controls.width, **common
        )
    elif controls.sweep == "scale":
        found = nw.sweep_scale(
            data.X,
            data.y,
            values,
            width=controls.scale_width,
            zero_output=controls.zero_output,
            **common,
        )
    else:
        found = nw.sweep_widths(data.X, data.y, values, zero_output=controls.zero_output, **common)
    fits = tuple(
        fw.power_fit(values, row) if controls.sweep == "widths" else None
        for row in found.weight_change
    )
    report(1.0, "done")
    return SweepRun(found, fits, asked)


def _quiet(fraction: float, text: str) -> None:
    """No one listens to a synchronous sweep."""


def compute(controls: Controls) -> SweepRun:
    """The sweep inside a web request: only one of a few seconds (a larger one is a background
    job where the server runs them, :func:`heavy`)."""
    expected = seconds(controls)
    if expected > INLINE_SECONDS:
        raise ValueError(
            f"This sweep takes about {expected:.0f} s on this machine, and this server runs no "
            "background jobs (they need a shared cache: CACHE_TYPE=FileSystemCache or "
            f"RedisCache). Choose fewer points, steps, images or narrower networks — at most "
            f"about {INLINE_SECONDS:g} s of work."
        )
    return compute_job(controls, _quiet)


# -- summary, messages, downloads, clicks ---------------------------------------------------------


def _shape(controls: Controls) -> str:
    if controls.sweep == "sigma":
        hidden = " → ".join([str(controls.width)] * (controls.depth - 1))
        return f"64 → {hidden} → 10 ReLU networks, every layer N(0, σ²/n_in)"
    start = ", from a zero output" if controls.zero_output else ""
    if controls.sweep == "scale":
        return (
            f"64 → {controls.scale_width} → 10 ReLU networks, σ_w² = 10^c, σ_u² = 10^max(c, 0), "
            f"γ = 10^min(−c/2, 0){start}"
        )
    return f"64 → d → 10 ReLU networks in six scalings (Table 1, κ = d/100){start}"


def _findings(controls: Controls, result: SweepRun) -> tuple[str, str]:
    sweep, x = result.sweep, result.sweep.values
    if controls.sweep == "widths":
        fitted = "; ".join(
            f"{name} {'—' if slope is None else f'{-slope:.2f}'}"
            for name, slope in zip(sweep.rows, result.fits, strict=True)
        )
        return "fitted δ of ‖ΔW₁‖/‖W₁(0)‖ ∝ d^−δ (App. B.4: NTK⁻ ½, Xavier⁻ 1, Kaiming⁻ 2)", fitted
    if controls.sweep == "scale":
        change = sweep.weight_change[0]
        return "‖ΔW₁‖/‖W₁(0)‖ at each c", ", ".join(
            f"{c:g}: {v:.3g}" for c, v in zip(x, change, strict=True)
        )
    final, start = sweep.final_alignment[0], sweep.initial_alignment[0, 0]
    pairs = "; ".join(
        f"layers {k + 1}–{k + 2}: {start[k]:.2f} → {final[0, k]:.2f} (σ = {x[0]:.3g}), "
        f"{final[-1, k]:.2f} (σ = {x[-1]:.3g})"
        for k in range(final.shape[1])
    )
    return "ζ at the start → at the end", pairs


def facts(controls: Controls, result: SweepRun) -> list[tuple[str, str]]:
    sweep = result.sweep
    tested = "" if sweep.test_accuracy is None else f", test {np.min(sweep.test_accuracy):.2f}"
    tested += "" if sweep.test_accuracy is None else f" to {np.max(sweep.test_accuracy):.2f}"
    return [
        ("networks", f"{sweep.loss.size} {_shape(controls)}"),
        (
            "training",
            f"{sweep.steps:,} steps of full-batch gradient descent on {controls.n} digit "
            f"images (ten classes), mean-square loss, final loss {np.min(sweep.loss):.2g} to "
            f"{np.max(sweep.loss):.2g}",
        ),
        (
            "accuracy",
            f"training {np.min(sweep.train_accuracy):.2f} to "
            f"{np.max(sweep.train_accuracy):.2f}{tested}",
        ),
        _findings(controls, result),
    ]


def notes(controls: Controls, result: SweepRun) -> list[str]:
    messages = []
    if result.sweep.steps < result.steps_asked:
        messages.append(
            f"A sweep may train for about {SWEEP_SECONDS:g} s here: it trains "
            f"{result.sweep.steps:,} of the {result.steps_asked:,} steps asked for (fewer "
            "points, images or narrower networks allow more)."
        )
    stopped = int(np.count_nonzero(result.sweep.diverged_at >= 0))
    if stopped:
        messages.append(
            f"{stopped} of the {result.sweep.diverged_at.size} networks diverged (the step size "
            "is too large for them); each is measured at its last finite state."
        )
    if controls.sweep == "widths" and controls.zero_output and controls.d_min % 2:
        messages.append("A zero-output start pairs units: every width is even.")
    return messages


def tables(controls: Controls, result: SweepRun) -> Tables:
    sweep, found = result.sweep, {}
    for row, name in enumerate(sweep.rows):
        columns = {
            controls.sweep: sweep.values,
            "lr": sweep.lr[row],
            "gamma": sweep.gamma[row],
            "initial_loss": sweep.initial_loss[row],
            "loss": sweep.loss[row],
            "train_accuracy": sweep.train_accuracy[row],
            "weight_change": sweep.weight_change[row],
            "diverged_at": sweep.diverged_at[row].astype(float),
        }
        if sweep.test_accuracy is not None:
            columns["test_loss"] = sweep.test_loss[row]
            columns["test_accuracy"] = sweep.test_accuracy[row]
        for pair in range(sweep.final_alignment.shape[-1]):
            columns[f"zeta_{pair + 1}_initial"] = sweep.initial_alignment[row, :, pair]
            columns[f"zeta_{pair + 1}_final"] = sweep.final_alignment[row, :, pair]
        found[f"sweep over {controls.sweep}{f' {name}' if name else ''}"] = columns
    return found


def sigma_network(controls: Controls, index: int) -> dict:
    """The network view's controls for the σ sweep's network ``index``: exactly that network."""
    sigma = float(swept_values(controls)[index])
    rate = float(nw.sigma_rates(np.array([sigma]), controls.depth, controls.lr)[0])
    return {
        "data": "digits",
        "classes": "ten",
        "n": controls.n,
        "n_test": controls.n_test,
        "activation": "relu",
        "depth": controls.depth,
        "width": controls.width,
        "init": "gaussian",
        "sigma": sigma,
        "scaling": "standard",
        "balance": 1.0,
        "loss": "mse",
        "rate_ratio": 1.0,
        "lr": float(f"{rate:.10g}"),
        "steps": within_budget(controls).steps,
        "seed": controls.seed,
        "log_time": True,
    }


def open_point(controls: Controls, point: ClickPoint) -> Link | None:
    """A click on a point of a σ sweep opens that network in the network view (the other
    sweeps' networks have output scales and per-layer scales the view does not pose)."""
    if controls.sweep != "sigma":
        return None
    values = swept_values(controls)
    if isinstance(point.index, int) and 0 <= point.index < values.size:
        index = point.index
    else:
        index = nearest_index(values, point.x, log=True)
        if index is None:
            return None
    found = sigma_network(controls, index)
    limits = trajectory.VIEW.spec.by_name
    if not limits["lr"].low <= found["lr"] <= limits["lr"].high:
        return None
    return Link(trajectory.VIEW, found)


XZ = {"paper": XU_ZIYIN}
PRESETS = (
    Preset(
        "fig-2b-final-alignment-against-sigma",
        "Fig. 2b — final layer alignment against σ, four ReLU layers",
        "64 → 50 → 50 → 50 → 10 ReLU networks on 50 digit images, every layer N(0, σ²/n_in), "
        "1,000 steps: the smaller σ, the more the layers align; large σ ends where it started.",
        {"sweep": "sigma", "depth": 4, "width": 50, "n": 50, "lr": 1.0, "steps": 1000}
        | {"sigma_min": 0.25, "sigma_max": 2.0, "points": 7},
        figure="Fig. 2",
        panel="zeta",
        claim=claims.FIG_2B,
        differs=claims.FIG_2B_DIFFERS,
        paper_setting=claims.FIG_2B_PAPER,
        **XZ,
    ),
    Preset(
        "initial-scale-at-width-50-quick",
        "Initial scale at width 50 — a quick look",
        "Fig. 5's sweep with a narrow network (width 50, 1,000 steps): from c = −2 to 2 the first "
        "layer's change falls from about 4 to 0.15 of itself and the test accuracy from 0.78 to "
        "0.39.",
        {"sweep": "scale", "scale_width": 50, "n": 50, "lr": 0.1, "steps": 1000, "points": 9}
        | {"c_min": -2.0, "c_max": 2.0},
    ),
    Preset(
        "fig-4-relu-widths-six-scalings",
        "Fig. 4 — ReLU networks of width 50 to 1,000 in six scalings",
        "Two-layer ReLU networks on 50 digit images, NTK⁻ (NTK), NTK⁺ (mean field), Kaiming±, "
        "Xavier± by Table 1 with κ = d/100, 1,000 steps: the kernel scalings' first layer moves "
        "less and less, the feature-learning ones' by O(1).",
        {"sweep": "widths", "n": 50, "lr": 0.1, "steps": 1000, "d_min": 50, "d_max": 1000}
        | {"points": 6},
        figure="Fig. 4",
        panel="weights",
        claim=claims.FIG_4_RELU,
        differs=claims.FIG_4_RELU_DIFFERS,
        paper_setting=claims.FIG_4_RELU_PAPER,
        **XZ,
    ),
    Preset(
        "fig-5-initial-scale-at-fixed-width",
        "Fig. 5 — initial scale κ^c at a fixed width",
        "A two-layer ReLU network of width 200 on 50 digit images, σ_w² = 10^c, σ_u² = "
        "10^max(c, 0), γ = 10^min(−c/2, 0), 2,000 steps: for c > 0 (kernel phase) the weights "
        "move less and the test accuracy is lower.",
        {"sweep": "scale", "scale_width": 200, "n": 50, "lr": 0.1, "steps": 2000}
        | {"c_min": -2.0, "c_max": 2.0, "points": 9},
        figure="Fig. 5",
        panel="weights",
        claim=claims.FIG_5,
        differs=claims.FIG_5_DIFFERS,
        paper_setting=claims.FIG_5_PAPER,
        **XZ,
    ),
    Preset(
        "three-layers-sigma-sweep",
        "Three layers: alignment against σ",
        "64 → 50 → 50 → 10 ReLU networks, step size 0.5: the first pair of layers aligns to 0.94 "
        "at σ = 0.25 and only to 0.62 at σ = 2, from 0.62.",
        {"sweep": "sigma", "depth": 3, "width": 50, "n": 50, "lr": 0.5, "steps": 1000}
        | {"sigma_min": 0.25, "sigma_max": 2.0, "points": 7},
    ),
)

INTRO = (
    r"Xu & Ziyin test their exact linear theory on ReLU networks trained on images. Here each "
    r"sweep trains a family of ReLU networks on the bundled $8\times 8$ digits (ten classes, "
    r"one-hot targets, mean-square loss, full-batch gradient descent) and measures where each "
    r"ends: the alignment $\zeta = \|W_{l+1}W_l\|_2/(\|W_{l+1}\|_2\|W_l\|_2)$ of consecutive "
    r"layers against the initial scale $\sigma$ (their Fig. 2b), and the first layer's relative "
    r"change $\|W_1 - W_1(0)\|/\|W_1(0)\|$ and the accuracy against the initial-scale exponent "
    r"$c$ at fixed width (Fig. 5) or against the width $d$ in the kernel ($^-$) and "
    r"feature-learning ($^+$) scalings of their Table 1 (Fig. 4). Click a point of a "
    r"$\sigma$ sweep to open that network."
)

VIEW = View(
    key="networks-sweeps",
    path="/networks/sweeps",
    title="Networks: Xu & Ziyin's sweeps over scale and width",
    nav_title="Networks sweeps",
    summary=(
        "Xu & Ziyin's Figs. 2b, 4 and 5 with ReLU networks on the digits: layer alignment "
        "against the initial scale, and the weights' change and accuracy against the "
        "initial-scale exponent and the width in six scalings."
    ),
    intro=INTRO,
    controls=Controls,
    compute=compute,
    result_type=SweepRun,
    panels=plots.PANELS,
    facts=facts,
    tables=tables,
    presets=PRESETS,
    groups=GROUPS,
    notes=notes,
    clicks={"zeta": open_point, "weights": open_point, "accuracy": open_point},
    map_of=trajectory.VIEW.key,
    heavy=heavy,
    compute_job=compute_job,
)
