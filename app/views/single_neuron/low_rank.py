"""One hidden neuron on low-rank data (Kunin et al., *Get rich quick*, Fig. 4b, Theorem 3.1).

One data point ``x`` with label ``y`` gives ``XᵀX = xxᵀ`` of rank one: every β on the line
``xᵀβ = y`` fits it, and the conserved δ decides which one gradient flow reaches. The view draws
the β paths of several δ from one β₀, the interpolating line, Theorem 3.1's end points and its
δ → ±∞ limits. The maths is :mod:`solvers.single_neuron.low_rank`
(docs/theory_low_rank.md); the plots are :mod:`.low_rank_plots`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers import single_neuron as sn
from solvers.single_neuron import low_rank as lr

from ...core.downloads import Tables
from ...core.frames import Frames
from ...core.presets import Preset
from ...core.state import number, switch
from ...core.view import View
from . import low_rank_claims as claims
from . import low_rank_plots as plots
from .low_rank_plots import angle_from

#: time points of each path
CURVE_POINTS = 400
FRAMES = 120
#: δ values of the continuous curve of Theorem 3.1's end points
SWEEP_POINTS = 161
#: the compared δ, as fractions of the largest |δ|
FRACTIONS = (-1.0, -0.4, -0.2, 0.0, 0.2, 0.4, 1.0)
#: loss left at the horizon, relative to the start, below which a path counts as arrived
ARRIVED = 1e-8


@dataclass(frozen=True)
class Controls:
    spread: float = number(
        "largest |δ| compared",
        5.0,
        0.1,
        100.0,
        log=True,
        help="δ = η_w a² − η_a‖w‖² at ±1, ±0.4, ±0.2 and 0 times this",
    )
    horizon: float = number("time horizon", 20.0, 0.5, 200.0, log=True)
    beta0_1: float = number("β₀, first component", 0.4, -2.0, 2.0, step=0.01)
    beta0_2: float = number("β₀, second component", 0.05, -2.0, 2.0, step=0.01)
    beta0_scale: float = number(
        "scale of β₀", 1.0, 0.001, 10.0, log=True, help="β₀ is the two components times this"
    )
    x_1: float = number("data point x, first component", 0.5, -2.0, 2.0, step=0.05)
    x_2: float = number("data point x, second component", 1.0, -2.0, 2.0, step=0.05)
    y: float = number("label y", 1.1, -3.0, 3.0, step=0.05)
    limits: bool = switch("show the limits δ = ±∞", True, physics=False)


GROUPS = (
    ("Balance and time", ("spread", "horizon")),
    ("Initialisation β₀", ("beta0_1", "beta0_2", "beta0_scale")),
    ("Data: one point, XᵀX = xxᵀ", ("x_1", "x_2", "y")),
    ("Display", ("limits",)),
)

FIG_4B = {"spread": 5.0, "horizon": 20.0, "beta0_1": 0.4, "beta0_2": 0.05, "beta0_scale": 1.0}
FIG_4B |= {"x_1": 0.5, "x_2": 1.0, "y": 1.1}
PRESETS = (
    Preset(
        "fig-4b-low-rank-data-implicit-bias",
        "Fig. 4b — low-rank data: δ picks the interpolant",
        "XᵀX = [[0.25, 0.5], [0.5, 1]], β* = (0.44, 0.88), β₀ = (0.4, 0.05): downstream keeps "
        "β₀'s direction, upstream ends at the interpolant nearest β₀; the dots are Theorem 3.1.",
        FIG_4B,
        figure="Fig. 4b",
        panel="plane",
        claim=claims.FIG_4B,
        differs=claims.FIG_4B_DIFFERS,
        paper_setting=claims.FIG_4B_PAPER,
    ),
    Preset(
        "low-rank-small-start-upstream-like-balanced",
        "Small start: balanced ends like upstream",
        "β₀ a hundred times smaller (‖β₀‖ = 0.004): balanced and upstream flows both end near "
        "the least-norm interpolant β*, downstream ones still near β₀'s direction.",
        {**FIG_4B, "beta0_scale": 0.01},
    ),
    Preset(
        "low-rank-start-beyond-the-origin",
        "A flow through β = 0",
        "β₀ on the far side of the data (xᵀβ₀ < 0 < y): downstream flows pass through β = 0 and "
        "end at Theorem 3.1's point for −β₀ (crosses).",
        {**FIG_4B, "beta0_1": -0.4, "beta0_2": -0.05},
    ),
)


@dataclass(frozen=True)
class Path:
    """One δ's flow and where Theorem 3.1 says it ends."""

    delta: float
    t: np.ndarray  #: (T,)
    a: np.ndarray  #: (T,)
    beta: np.ndarray  #: (T, 2)
    loss: np.ndarray  #: (T,) ½(xᵀβ − y)²
    #: (2,) Theorem 3.1's interpolant (for −β₀ when the flow passes through β = 0)
    predicted: np.ndarray
    #: a changes sign on the way: β passes through 0, outside the theorem's assumption
    through_zero: bool


@dataclass(frozen=True)
class Run:
    """What the view shows: the task, the paths, the limits and the curve of end points."""

    beta0: np.ndarray  #: (2,)
    beta_star: np.ndarray  #: (2,) the least-norm interpolant
    line_direction: np.ndarray  #: (2,) unit vector along the interpolating line
    paths: tuple[Path, ...]
    upstream: np.ndarray  #: (2,) δ → +∞: the interpolant nearest β₀
    downstream: np.ndarray | None  #: (2,) δ → −∞ (None: at infinity, xᵀβ₀ = 0)
    downstream_along_start: bool  #: the δ → −∞ flow runs straight along β₀'s line
    downstream_through_zero: bool  #: … and through β = 0 (xᵀβ₀ and y of opposite signs)
    sweep_deltas: np.ndarray  #: (S,) δ of the curve of end points
    sweep_ends: np.ndarray  #: (S, 2) Theorem 3.1's interpolant at each
    sweep_through_zero: np.ndarray  #: (S,) bool: that flow passes through β = 0


def compared_deltas(controls: Controls) -> tuple[float, ...]:
    """The δ values compared: downstream to upstream around balanced."""
    return tuple(float(f"{f * controls.spread:.10g}") for f in FRACTIONS)


def _task(controls: Controls) -> tuple[np.ndarray, lr.LowRankTask]:
    if controls.x_1 == 0 and controls.x_2 == 0:
        raise ValueError("the data point x is zero, so there is nothing to learn: move x.")
    beta0 = controls.beta0_scale * np.array([controls.beta0_1, controls.beta0_2])
    if not np.any(beta0):
        raise ValueError("β₀ = 0 has no direction for Theorem 3.1 to keep: move β₀.")
    return beta0, lr.task_from_data([controls.x_1, controls.x_2], [controls.y])


def _path(delta: float, beta0: np.ndarray, problem: lr.LowRankTask, t: np.ndarray) -> Path:
    a0, w0 = sn.init_from_beta(beta0, delta)
    flow = lr.gradient_flow(a0, w0, problem.gram, problem.beta_star, t)
    ends = lr.end_points(beta0, [delta], problem.gram, problem.beta_star)
    return Path(delta, t, flow.a, flow.beta, flow.loss, ends.ends[0], bool(ends.through_zero[0]))


def compute(controls: Controls) -> Run:
    beta0, problem = _task(controls)
    t = np.linspace(0.0, controls.horizon, CURVE_POINTS)
    paths = tuple(_path(delta, beta0, problem, t) for delta in compared_deltas(controls))
    ends = lr.limits(beta0, problem.gram, problem.beta_star)
    sweep = np.linspace(-2.0 * controls.spread, 2.0 * controls.spread, SWEEP_POINTS)
    swept = lr.end_points(beta0, sweep, problem.gram, problem.beta_star)
    return Run(
        beta0=beta0,
        beta_star=problem.min_norm_interpolant,
        line_direction=problem.null_basis[:, 0],
        paths=paths,
        upstream=ends.upstream,
        downstream=ends.downstream,
        downstream_along_start=ends.downstream_along_start,
        downstream_through_zero=ends.downstream_through_zero,
        sweep_deltas=sweep,
        sweep_ends=swept.ends,
        sweep_through_zero=swept.through_zero,
    )


INTRO = (
    r"One hidden neuron, $f(x) = a\,w^\top x$, fitted to one data point: $X^\top X = xx^\top$ "
    r"has rank one, and every $\beta = aw$ on the line $x^\top\beta = y$ fits. Gradient flow "
    r"from the same $\beta_0$ reaches a different one for each conserved $\delta$: downstream "
    r"($\delta<0$) keeps the direction of $\beta_0$, upstream ($\delta>0$) moves to the "
    r"interpolant nearest $\beta_0$, as plain gradient descent on $\beta$ would. Kunin et al.'s "
    r"Theorem 3.1 predicts the end point exactly (black dots); every curve is the exact flow."
)


# -- summary, messages, frames, downloads ------------------------------------------------------


def largest_miss(run: Run) -> float:
    """Largest distance between a path's end and Theorem 3.1's point."""
    return max(float(np.max(np.abs(p.beta[-1] - p.predicted))) for p in run.paths)


def _signed(value: float, spec: str = "g") -> str:
    """A number with a true minus sign."""
    return format(value, spec).replace("-", "−")


def _vector(v: np.ndarray) -> str:
    return "(" + ", ".join(_signed(c, ".3f") for c in v) + ")"


def facts(controls: Controls, run: Run) -> list[tuple[str, str]]:
    down, up = run.paths[0], run.paths[-1]
    turned = [float(angle_from(p.beta[-1], run.beta0)) for p in (down, up)]
    limit = "at infinity (xᵀβ₀ = 0)" if run.downstream is None else _vector(run.downstream)
    return [
        ("least-norm interpolant β*", _vector(run.beta_star)),
        ("δ = −∞ / +∞ end points", f"{limit} / {_vector(run.upstream)}"),
        (
            f"δ = {_signed(down.delta)} / {_signed(up.delta)} end at",
            f"{_vector(down.beta[-1])}, {turned[0]:.1f}° from β₀ / {_vector(up.beta[-1])}, "
            f"{turned[1]:.1f}° from β₀",
        ),
        ("farthest end from Theorem 3.1", _signed(largest_miss(run), ".1e")),
    ]


def notes(controls: Controls, run: Run) -> list[str]:
    messages = []
    crossed = [_signed(p.delta) for p in run.paths if p.through_zero]
    if crossed:
        messages.append(
            f"For δ = {', '.join(crossed)} the read-out a changes sign: β passes through 0, "
            "outside Theorem 3.1's assumption. Such a flow ends at the theorem's point for −β₀ "
            "(marked ×; docs/theory_low_rank.md (2.7))."
        )
    late = [p for p in run.paths if p.loss[-1] > ARRIVED * max(p.loss[0], 1e-300)]
    if late:
        messages.append(
            f"At t = {controls.horizon:g} the path of δ = {_signed(late[0].delta)} has not "
            "reached the line of interpolants yet: lengthen the time horizon to see where it ends."
        )
    if not np.any(run.beta_star):
        messages.append(
            "With y = 0 the line of interpolants passes through β = 0, a saddle where downstream "
            "flows stall: Theorem 3.1 assumes β ≠ 0 and says nothing there."
        )
    if run.downstream is None:
        messages.append("β₀ is orthogonal to x: as δ → −∞ the end point runs off to infinity.")
    return messages


def frames(controls: Controls, run: Run) -> Frames:
    x = np.stack([p.beta[:, 0] for p in run.paths], axis=1)
    y = np.stack([p.beta[:, 1] for p in run.paths], axis=1)
    return Frames.along(run.paths[0].t, FRAMES).point("plane", x=x, y=y).line("loss")


def tables(controls: Controls, run: Run) -> Tables:
    found: dict[str, dict[str, np.ndarray]] = {
        f"exact delta={p.delta:g}": {"t": p.t, "a": p.a, "beta": p.beta, "loss": p.loss}
        for p in run.paths
    }
    found["theorem 3.1"] = {"delta": run.sweep_deltas, "beta": run.sweep_ends}
    return found


VIEW = View(
    key="single-neuron-low-rank",
    path="/single-neuron/low-rank",
    title="A single neuron on low-rank data: which interpolant δ picks",
    nav_title="Single neuron, low rank",
    summary=(
        "One data point, a whole line of solutions: the conserved δ decides which one the "
        "neuron learns — β₀'s direction downstream, the nearest interpolant upstream — and "
        "Kunin et al.'s Theorem 3.1 says exactly where."
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
)

__all__ = ["VIEW", "Controls", "Path", "Run", "compared_deltas", "largest_miss"]
