"""What Dominé et al.'s figures of several λ and of task sequences show, checked on the presets'
own exact solutions (:mod:`app.core.claims`): three relative scales on one task (Figs. 1B, 2),
continual learning (Fig. 11), reversal learning (Fig. 12), transfer to a new feature (Fig. 13)
and fine-tuning after re-balancing (Fig. 14)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from solvers.metrics import on_saddle

from ...core.claims import Claim, Evidence, all_of, crossing_time, num, value_at

if TYPE_CHECKING:
    from .sequences import Comparison, Curves


def _by_lam(result: Comparison) -> dict[float, Curves]:
    return {c.lam: c for c in result.curves}


def _half_times(curves: Curves, sigma: np.ndarray) -> list[float]:
    """When each of the first task's modes first reaches half its σᵢ."""
    return [
        crossing_time(curves.t, curves.strengths[:, i], 0.5 * sigma[i])
        for i in range(curves.strengths.shape[1])
    ]


def _words(values: list[float]) -> str:
    return ", ".join(num(v, ".2g") for v in values)


# -- Fig. 1B: one absolute scale, three relative scales ----------------------------------------


def _three_regimes(controls: Any, result: Comparison) -> Evidence:
    curves = _by_lam(result)
    rich = curves[0.0]
    moved = float(np.max(rich.kernel_distance))
    staged = _half_times(rich, result.sigma)
    parts = [
        Evidence(
            moved > 0.05 and max(staged) > 1.5 * min(staged),
            f"λ = 0: S reaches {moved:.2f} and the modes reach half their σ one after another, "
            f"at t = {_words(staged)}",
        )
    ]
    for lam, lazy in curves.items():
        if lam == 0.0:
            continue
        # lazy: the kernel moves a small share of the balanced one's distance (an absolute bound
        # was set on one draw: S grows as (σ₁/λ)², to 0.036 where σ₁ ≈ 2), and every mode is
        # learnt at the kernel's one rate |λ| — half its σ within 1.5 × ln 2/|λ| (a weak mode
        # the random start already points along gets there sooner)
        together = _half_times(lazy, result.sigma)
        still = float(np.max(lazy.kernel_distance))
        parts.append(
            Evidence(
                still < 0.1 * moved and max(together) < 1.5 * np.log(2) / abs(lam),
                f"λ = {num(lam)}: S ≤ {still:.3f}, all modes at once (t = {_words(together)})",
            )
        )
    return all_of(*parts)


FIG_1B = Claim(
    "At one absolute scale the relative scale alone changes how the network learns: balanced "
    "(λ = 0) its kernel moves and the task's modes are learnt one after another, unbalanced "
    "(λ = ±2) its kernel stays put and every mode is learnt at once.",
    _three_regimes,
)
FIG_1B_DIFFERS = (
    "Exact gradient flow on a 3→3→3 network and a random task at absolute scale 0.05, with "
    "λ = −2, 0, 2; the card shows the kernel distance (the view draws the loss and each mode "
    "too)."
)
FIG_1B_PAPER = (
    "Three networks on one random regression task, with a negative, zero and positive λ at the "
    "same absolute scale, trained by gradient descent (sizes, λ values and learning rate are "
    "not legible in our copy of the paper); panel C is LeCun's initialisation with d_in = 40, "
    "h = 120, d_out = 250."
)

# -- Fig. 2: the exact solution against simulation --------------------------------------------


def _matches_descent(controls: Any, result: Comparison) -> Evidence:
    parts = []
    for curves in result.curves:
        exact = np.interp(curves.descent_t, curves.t, curves.loss)
        start = float(curves.loss[0])
        kept = exact > 1e-6 * start
        apart = float(np.max(np.abs(np.log10(curves.descent_loss[kept] / exact[kept]))))
        fallen = float(curves.loss[-1] / start)
        parts.append(
            Evidence(
                apart < 0.15 and fallen < 1e-2,
                f"λ = {num(curves.lam)}: at most {apart:.2f} decades apart while the loss falls "
                f"to {num(fallen, '.0e')} of its start",
            )
        )
    return all_of(*parts)


FIG_2 = Claim(
    "For every λ the exact solution is what gradient descent with a small step follows: the "
    "simulated losses lie on the exact curves while they fall by orders of magnitude.",
    _matches_descent,
)
FIG_2_DIFFERS = (
    "Gradient descent with step 0.01 against the exact flow on one 3→3→3 network and random "
    "task, λ = −2, 0, 2, for t = 15: the unbalanced losses fall by ~30 decades, the balanced "
    "one (λ = 0, learning its modes in stages) by 2 to 8 depending on the draw; the card shows "
    "the loss (the trajectory view draws the network function "
    "and both representations of one λ against its simulation)."
)
FIG_2_PAPER = (
    "One random regression task and three λ-balanced starts (a negative, zero and positive λ): "
    "the loss, network function, representations and NTK of the exact solution against "
    "simulation (values not legible in our copy of the paper)."
)

# -- Fig. 11: continual learning -----------------------------------------------------------------


def _ends(result: Comparison, curves: Curves) -> np.ndarray:
    """Indices of the last time of every task after the first."""
    ends = np.append(result.switches[1:], curves.t[-1])
    return np.searchsorted(curves.t, ends - 1e-9)


def _forgetting(controls: Any, result: Comparison) -> Evidence:
    rows, learnt, forgotten, first_learnt = [], True, True, 0.0
    for curves in result.curves:
        ends = _ends(result, curves)
        start = float(curves.first_loss[0])
        switch = np.searchsorted(curves.t, result.switches[0] - 1e-9)
        first_learnt = max(first_learnt, float(curves.first_loss[switch]) / start)
        learnt &= bool(np.all(curves.loss[ends] < 1e-4 * curves.loss[0]))
        # forgotten: back to the order of the untrained loss, ½‖Σ₁‖² (the untrained loss is
        # not a floor: ½‖Σₖ − Σ₁‖² falls below it for a later task that happens to share
        # much of the first; over seeds 0–39 it stays above a third of it)
        forgotten &= bool(np.all(curves.first_loss[ends] > 0.2 * start))
        rows.append(curves.first_loss[ends])
    rows = np.array(rows)
    spread = float(np.max(np.ptp(rows, axis=0) / np.mean(rows, axis=0)))
    first = result.curves[0].first_loss[0]
    return Evidence(
        learnt and first_learnt < 0.1 and forgotten and spread < 0.01,
        f"the first task is learnt to {num(first_learnt, '.0e')} of its loss {first:.2g} before "
        f"any training; after tasks 2, 3, 4 its loss is back at {_words(list(rows[0]))} for "
        f"every λ (the same to {num(spread, '.0e')} relative); each task is learnt before the "
        "next",
    )


FIG_11 = Claim(
    "Whatever λ, learning each new task overwrites the first: once a later task is learnt, the "
    "first task's loss is the same for every λ — set by how the tasks differ — and back to the "
    "order of its loss before any training.",
    _forgetting,
)
FIG_11_DIFFERS = (
    "Exact gradient flow on a 4→2→2 funnel, λ = −1, 0, 1, 60 time units per task (at λ = −1 "
    "the funnel learns late, and a task of some draws needs more than 40 to be learnt). In a "
    "square network at λ = 0 a new task whose determinant has the other sign cannot be learnt "
    "fully (the flow stops at a saddle without the task's weakest mode): the view shows it with "
    "the square shape."
)
FIG_11_PAPER = (
    "A two-layer linear network trained on four random regression tasks in turn from small "
    "initial weights, with a small learning rate (sizes and λ values are not legible in our "
    "copy of the paper)."
)

# -- Fig. 12: reversal learning -------------------------------------------------------------------


def _reversal(controls: Any, result: Comparison) -> Evidence:
    switch, sigma = float(result.switches[0]), float(result.sigma[0])
    curves = _by_lam(result)
    stuck = curves[0.0]
    window = (stuck.t > switch + 3) & (stuck.t < switch + 15)
    wander = float(np.max(np.abs(stuck.strengths[window, 0])))
    times = {
        lam: crossing_time(c.t, -c.strengths[:, 0], 0.5 * sigma) - switch
        for lam, c in curves.items()
        if lam != 0.0
    }
    sizes = sorted({abs(lam) for lam in times})
    order = [max(t for lam, t in times.items() if abs(lam) == size) for size in sizes]
    mirrored = all(
        abs(times[lam] - times[-lam]) < 0.01 * times[lam] for lam in times if -lam in times
    )
    return all_of(
        Evidence(
            on_saddle(stuck.saddle_margin) and wander < 0.02 * sigma,
            f"λ = 0: the reversal starts on a saddle's stable manifold (margin "
            f"{num(stuck.saddle_margin, '.0e')}) and the mode stays within {num(wander, '.0e')} "
            "of 0 from 3 to 15 time units after the switch",
        ),
        Evidence(
            all(np.diff(order) < 0) and max(order) < 5 and mirrored,
            "λ = " + ", ".join(f"{num(lam)}: −σ₁/2 after {times[lam]:.2f}" for lam in times),
        ),
    )


FIG_12 = Claim(
    "Reversing a learnt mode stalls at λ = 0 — the mode collapses to the saddle at 0 and waits "
    "there — while any λ ≠ 0 carries it through 0 to −σ₁, the faster the larger |λ|, whatever "
    "its sign.",
    _reversal,
)
FIG_12_DIFFERS = (
    "A 3→3→3 network first learns a random task from a small task-aligned start, then the "
    "task's top mode is reversed; λ = −1, 0, 1, 2, exact gradient flow. At λ = 0 the exact flow "
    "would stay at the saddle for ever: the curve drawn leaves it about 25 time units after the "
    "switch, a delay set by rounding, as the paper's simulations escape."
)
FIG_12_PAPER = (
    "A square network whose function shares the task's singular vectors, trained on the task "
    "with one left singular vector reversed; λ = 0 against non-zero λ, simulated (values not "
    "legible in our copy of the paper)."
)

# -- Fig. 14: fine-tuning after re-balancing ------------------------------------------------------


def _fine_tuning(controls: Any, result: Comparison) -> Evidence:
    pre = result.pretraining  # the curves start at the re-balancing, t = 0
    learnt = float(pre.loss[-1] / pre.loss[0])
    rows = {lag: [value_at(c.t, c.loss, lag) for c in result.curves] for lag in (0.5, 1, 2)}
    falling = all(np.all(np.diff(row) < 0) for row in rows.values())
    slowest = rows[1][0] / rows[1][-1]
    lams = ", ".join(num(c.lam) for c in result.curves)
    return all_of(
        Evidence(
            learnt < 1e-8 and not on_saddle(pre.saddle_margin),
            f"training first at λ = {num(pre.lam)} learns the hierarchy (loss "
            f"{num(learnt, '.0e')} of its start)",
        ),
        Evidence(
            falling and slowest > 10,
            f"one time unit after re-balancing the new task's loss is {_words(rows[1])} for "
            f"λ = {lams}: "
            f"λ = 0 is {slowest:.0f} times behind",
        ),
    )


FIG_14 = Claim(
    "Fine-tuning a pre-trained network goes faster the larger the λ it is re-balanced to, and "
    "slowest at λ = 0.",
    _fine_tuning,
)
FIG_14_DIFFERS = (
    "Exact gradient flow; pre-training at λ = 1 on the hierarchy, to convergence from every "
    "random start (a square network started at λ = 0 instead stops at a saddle without the "
    "weakest mode from about half the starts, as the determinant of its function W₂W₁ cannot "
    "change sign), re-balanced to λ = 0, 2, 4 and fine-tuned on the task with a feature added "
    "to another item (the view has the other two tasks; at λ = 0 the reversal is not learnt at "
    "all, its re-balanced start lying on a saddle's stable manifold). Re-balancing keeps the "
    "network function but makes one layer's weights, and with them the kernel, larger the "
    "larger |λ|: part of the speed-up is what a larger kernel gives any learner."
)
FIG_14_PAPER = (
    "Networks pre-trained on the semantic hierarchy from several λ, re-balanced to a new λ by "
    "rescaling each layer's singular values with the network's, then fine-tuned on three tasks: "
    "an existing feature added to another item, one singular vector reversed, the hierarchy "
    "scaled by 2."
)

# -- Fig. 5C: the funnel's delayed rich phase across λ ------------------------------------------


def _delays(controls: Any, result: Comparison) -> Evidence:
    below = [c for c in result.curves if c.lam < 0]
    if len(below) < 3 or min(c.lam for c in below) > -4:
        return Evidence(False, "fewer than three values of λ < 0, or none at or below −4")

    def reaches(share: float) -> dict[float, float]:
        """When each kernel distance first reaches this share of where it ends."""
        return {
            c.lam: crossing_time(c.t, c.kernel_distance, share * c.kernel_distance[-1])
            for c in below
        }

    # the lazy phase's end (a tenth of the way) and the rich phase's middle (half of it), each
    # later the more negative λ; the distance each kernel ends at is read once the weaker mode
    # is learnt, which takes long where the task's σ₂ is small (at t = 100 seed 0's kernels,
    # σ₂ = 0.33, were still moving and out of order); an absolute bound on S(1) was set on one
    # draw and missed draws with larger σ, whose lazy phase is short
    starts, halves = reaches(0.1), reaches(0.5)
    order = sorted(halves, reverse=True)  # from the λ nearest 0 down to the most negative
    later = all(np.all(np.diff([times[lam] for lam in order]) > 0) for times in (starts, halves))
    final = min(float(c.kernel_distance[-1]) for c in below)
    return Evidence(
        bool(later) and final > 0.1,
        "S reaches a tenth, then half, of its final value at t = "
        + ", ".join(
            f"{starts[lam]:.1f}, {halves[lam]:.1f} (λ = {num(lam)})" for lam in sorted(halves)
        )
        + f"; every S ends above {final:.2f}",
    )


FIG_5C = Claim(
    "In a funnel the more negative λ, the longer the kernel stays put before it moves: the "
    "magnitude of λ sets the length of the lazy phase before the delayed rich one.",
    _delays,
)
FIG_5C_DIFFERS = (
    "Exact gradient flow on the 4→2→2 funnel and random task of the Fig. 5 cards (absolute scale "
    "0.1), six values of λ from −10 to 0 (the side on which a funnel is delayed rich) instead "
    "of the paper's 21, whose range is not legible in our copy, to t = 200. The kernel settles "
    "only once the weaker of the task's two modes is learnt, late where that mode is weak (σ₂ "
    "≈ 0.3 in some draws): the times are read against where each kernel stands at t = 200."
)
