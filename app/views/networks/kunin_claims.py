"""What Kunin et al.'s network figures show, checked on the presets' own trained networks
(:mod:`app.core.claims`): the neurons of Fig. 1a, the activation patterns of Fig. 5 and 6a, and
the τ × δ map of Fig. 1b."""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.claims import Claim, Evidence, all_of, crossing_time, num, value_at

if TYPE_CHECKING:
    from .map import Map, Snapshot
    from .results import Run

# -- Fig. 1a: the neurons |aᵢ|wᵢ ---------------------------------------------------------------


def _directions(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(unit directions, lengths) of the rows of ``vectors``."""
    lengths = np.sqrt(np.sum(vectors**2, axis=-1))
    return vectors / np.maximum(lengths, 1e-300)[..., None], lengths


def _degrees(cosines: np.ndarray) -> np.ndarray:
    return np.degrees(np.arccos(np.clip(cosines, -1.0, 1.0)))


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """The value below which half of the total weight lies."""
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cumulative, 0.5 * cumulative[-1])])


def _neurons(run: Run) -> dict[str, float]:
    """How the neurons |aᵢ|wᵢ moved: their total relative movement, and, as medians weighted by
    each neuron's final length |aᵢ|‖wᵢ‖ (its share of the fitted function, so that the neurons
    that carry the fit count and those left near their tiny start do not), how many-fold they
    grew, how far their direction turned, and their angle to the nearest teacher direction at
    the start and at the end."""
    neurons = run.plane.neurons
    start, start_length = _directions(neurons[0])
    end, end_length = _directions(neurons[-1])
    teacher, _ = _directions(run.plane.teacher)
    moved = np.sqrt(np.sum((neurons[-1] - neurons[0]) ** 2) / np.sum(neurons[0] ** 2))

    def median(values: np.ndarray) -> float:
        return _weighted_median(values, end_length)

    return {
        "growth": median(end_length / np.maximum(start_length, 1e-300)),
        "moved": float(moved),
        "turn": median(_degrees(np.sum(start * end, axis=1))),
        "before": median(_degrees((start @ teacher.T).max(axis=1))),
        "after": median(_degrees((end @ teacher.T).max(axis=1))),
        "kernel": float(run.curves.kernel_distance[-1]),
    }


#: how the medians of :func:`_neurons` are weighted, in the evidence's words
_WEIGHTED = "medians weighted by each neuron's final length"


def _rich_small_scale(controls: Any, run: Run) -> Evidence:
    found = _neurons(run)
    return Evidence(
        found["growth"] > 5 and found["turn"] > 8,
        f"the neurons grow {num(found['growth'], '.2g')}-fold from their start and turn by "
        f"{num(found['turn'], '.0f')}° ({_WEIGHTED}); S(0, t) = {num(found['kernel'], '.2g')}",
    )


def _lazy_large_scale(controls: Any, run: Run) -> Evidence:
    found = _neurons(run)
    return Evidence(
        found["moved"] < 0.05 and found["turn"] < 1 and found["kernel"] < 1e-3,
        f"the neurons move {num(100 * found['moved'], '.1f')}% of their size and turn by "
        f"{num(found['turn'], '.1f')}° (median weighted by each neuron's final length); "
        f"S(0, t) = {num(found['kernel'], '.1e')}",
    )


def _upstream_aligns(controls: Any, run: Run) -> Evidence:
    found = _neurons(run)
    return Evidence(
        found["turn"] > 15 and found["after"] < 15 and found["after"] < 0.7 * found["before"],
        f"the neurons turn by {num(found['turn'], '.0f')}° onto the teacher: from "
        f"{num(found['before'], '.0f')}° to {num(found['after'], '.0f')}° off its nearest "
        f"direction ({_WEIGHTED})",
    )


def _downstream_stays(controls: Any, run: Run) -> Evidence:
    found = _neurons(run)
    fitted = float(run.curves.loss[-1] / run.curves.loss[0])
    return Evidence(
        found["turn"] < 10 and found["kernel"] < 0.01 and fitted < 0.01,
        f"the neurons grow {num(found['growth'], '.2g')}-fold but turn by "
        f"{num(found['turn'], '.1f')}° ({_WEIGHTED}); S(0, t) = {num(found['kernel'], '.1e')}; "
        f"the loss falls to {num(100 * fitted, '.2g')}% of its start",
    )


FIG_1A_RICH = Claim(
    "At small scale (τ = 0.1, δ = 0) learning is rich: the neurons grow from almost nothing and "
    "turn away from the directions they started in.",
    _rich_small_scale,
)
FIG_1A_LAZY = Claim(
    "At large scale (τ = 2) learning is lazy: the neurons barely move and the kernel stays put.",
    _lazy_large_scale,
)
FIG_1A_UPSTREAM = Claim(
    "Upstream (δ = 1) at small scale the neurons that carry the fit turn onto the teacher's "
    "directions.",
    _upstream_aligns,
)
FIG_1A_DOWNSTREAM = Claim(
    "Downstream (δ = −1) the first layer barely turns: the neurons grow along the directions "
    "they started in, and the read-out fits the data.",
    _downstream_stays,
)
FIG_1A_PAPER = (
    "d = 2, h = 50, a k = 3 teacher, n = 20 points on the circle; 10⁶ steps of 10⁻⁴ on the loss "
    "(1/n)Σ(f − y)²; (τ, δ) = (0.1, 0), (2, 0), (0.1, 1), (0.1, −1)."
)
FIG_1A_DIFFERS = (
    "The same sizes and the same time: the paper's 10⁶ steps of 10⁻⁴ on (1/n)Σ(f − y)² are t = "
    "200 on this view's (1/2n)Σ(f − y)², here 10,000 steps of 0.02. The teacher, data and "
    "weights are another random draw."
)

# -- Fig. 5: activation patterns on the XOR-like task ------------------------------------------


def _timing(run: Run) -> dict[str, float]:
    """When the activation patterns change against when the loss falls."""
    curves = run.curves
    patterns, loss = curves.activation_distance, curves.loss
    half_patterns = crossing_time(curves.t, patterns, 0.5 * patterns[-1])
    half_loss = crossing_time(curves.t, -loss, -0.5 * loss[0])
    return {
        "patterns": float(patterns[-1]),
        "loss_at_half_patterns": value_at(curves.t, loss, half_patterns) / loss[0],
        "patterns_at_half_loss": value_at(curves.t, patterns, half_loss),
        "half_loss": half_loss,
    }


def _xor_upstream(controls: Any, run: Run) -> Evidence:
    found = _timing(run)
    still = num(100 * found["loss_at_half_patterns"], ".0f")
    return Evidence(
        found["loss_at_half_patterns"] > 0.9 and found["patterns_at_half_loss"] > 0.15,
        f"half of the patterns' change ({num(100 * found['patterns'], '.0f')}% of input–unit "
        f"pairs in all) comes while the loss is still {still}% of its start; by the time it "
        f"has halved (t = {num(found['half_loss'], '.2g')}), "
        f"{num(100 * found['patterns_at_half_loss'], '.0f')}% have changed",
    )


def _xor_downstream(controls: Any, run: Run) -> Evidence:
    found = _timing(run)
    return Evidence(
        found["patterns_at_half_loss"] < 0.05 and found["patterns"] < 0.1,
        f"by the time the loss has halved (t = {num(found['half_loss'], '.2g')}) only "
        f"{num(100 * found['patterns_at_half_loss'], '.1f')}% of input–unit pairs have changed, "
        f"{num(100 * found['patterns'], '.1f')}% by the end",
    )


FIG_5_UPSTREAM = Claim(
    "Upstream (δ = 1) the activation patterns change first, while the function is still close "
    "to zero, and the network fits the data after.",
    _xor_upstream,
)
FIG_5_DOWNSTREAM = Claim(
    "Downstream (δ = −1) the network fits the data with its activation patterns nearly fixed, "
    "by reweighting its neurons.",
    _xor_downstream,
)
FIG_5_PAPER = (
    "Twenty ReLU neurons from f(x; θ₀) ≈ 0 on a task akin to exclusive or; the surface drawn in "
    "3-D at several times."
)
FIG_5_DIFFERS = (
    "The paper draws the surface at several times; the card shows f at the end with the parity "
    "of the active units (the view plays it over time), and the claim is read off the recorded "
    "patterns and loss. Without biases the network is positively homogeneous and cannot fit "
    "sign(x₁x₂) near the origin: both runs level off at a training loss near 0.1, from 0.5."
)

# -- Fig. 6a: activation patterns, kernel and parameters of a deeper network -------------------


def _distances(run: Run) -> tuple[float, float, float]:
    curves = run.curves
    return (
        float(curves.activation_distance[-1]),
        float(curves.kernel_distance[-1]),
        float(curves.parameter_distance[-1]),
    )


def _initial_size(controls: Any) -> float:
    """‖θ₀‖, the size of the network the controls start from (built again, not trained)."""
    from .results import build

    scenario, _ = build(controls)
    return float(np.sqrt(sum(np.sum(np.square(W)) for W in scenario.net.weights)))


def _patterns_move(controls: Any, run: Run) -> Evidence:
    patterns, kernel, parameters = _distances(run)
    share = parameters / _initial_size(controls)
    return Evidence(
        patterns > 0.1 and kernel > 0.03 and share < 0.1,
        f"{num(100 * patterns, '.0f')}% of the activation patterns change, S(0, t) = "
        f"{num(kernel, '.2f')}, the parameters move by {num(parameters, '.2f')}, "
        f"{num(100 * share, '.0f')}% of their initial norm",
    )


@functools.lru_cache(maxsize=4)
def _mirrored(controls: Any) -> Run:
    """The same preset from the reciprocal α (downstream against upstream), computed once per
    process."""
    from .results import compute  # the view imports this module

    return compute(dataclasses.replace(controls, balance=1 / controls.balance))


def _patterns_stay(controls: Any, run: Run) -> Evidence:
    patterns, kernel, parameters = _distances(run)
    other = _distances(_mirrored(controls))[2]
    share = parameters / _initial_size(controls)
    return Evidence(
        patterns < 0.06 and kernel < 0.01 and parameters > other,
        f"{num(100 * patterns, '.1f')}% of the activation patterns change, S(0, t) = "
        f"{num(kernel, '.3f')}, though ‖θ(t) − θ(0)‖ = {num(parameters, '.2f')}, against "
        f"{num(other, '.2f')} from α = {num(1 / controls.balance, '.2g')} "
        f"({num(100 * share, '.0f')}% of the initial norm here)",
    )


FIG_6A_UPSTREAM = Claim(
    "Upstream (α = 3) learning changes the activation patterns and the kernel, while the "
    "parameters move by only a small fraction of their initial norm.",
    _patterns_move,
)
FIG_6A_DOWNSTREAM = Claim(
    "Downstream (α = 1/3) the parameter distance ‖θ(t) − θ(0)‖ ends larger than upstream "
    "(α = 3), yet the activation patterns and the kernel hardly change.",
    _patterns_stay,
)
FIG_6A_PAPER = (
    "LeNet-5 (ReLU, max pooling) on MNIST, He initialisation with the first layer ÷ α and the "
    "last × α, 500 epochs of lr 10⁻⁴ in batches of 512; distances averaged over 8 runs, over a "
    "sweep of α."
)
FIG_6A_DIFFERS = (
    "A three-layer ReLU MLP on 100 of the bundled 8 × 8 digits (4 against 9), full-batch, "
    "3,000 steps, one seed, and two values of α instead of a sweep. The parameter distance is "
    "the paper's, the L2 distance between all the parameters: over seeds 0–7 it ends at "
    "0.98–1.20 downstream against 0.60–0.81 upstream, but relative to the initial norm (about "
    "31 downstream, 11 upstream, set mostly by the first layer) the downstream network moves "
    "less, 3–4 % against 5–7 %."
)

# -- Fig. 1b and Fig. 10: the τ × δ map -----------------------------------------------------


def _rows(result: Snapshot, low: float, high: float) -> np.ndarray:
    """The map's rows with low ≤ τ ≤ high."""
    return (result.taus >= low) & (result.taus <= high)


def _mean(values: np.ndarray, rows: np.ndarray, columns: np.ndarray, geometric=False) -> float:
    """The mean over a block of cells, leaving out those marked NaN (:func:`_trained`)."""
    block = values[rows][:, columns]
    return float(np.exp(np.nanmean(np.log(block)))) if geometric else float(np.nanmean(block))


def _trained(result: Snapshot, values: np.ndarray) -> np.ndarray:
    """``values`` with the cells where a seed's network diverged set to NaN: its last finite
    state (a test loss up to 10⁷) would stand for the whole block in a mean."""
    return np.where(result.diverged >= 0, np.nan, values)


def _left_out(result: Snapshot) -> str:
    count = int(np.count_nonzero(result.diverged >= 0))
    return (
        "" if count == 0 else f" ({count} cell{'s' * (count > 1)} where a seed diverged left out)"
    )


def _kernel_sides(result: Snapshot) -> tuple[float, float]:
    """S(0, t) averaged over the small scales (τ ≤ 0.2): upstream (δ > 0), downstream (δ < 0)."""
    small = result.taus <= 0.2
    distance = _trained(result, result.kernel_distance)
    return _mean(distance, small, result.deltas > 0), _mean(distance, small, result.deltas < 0)


def _rich_upstream(controls: Any, computed: Map) -> Evidence:
    result, end = computed.at(controls.shown), computed.final
    up, down = _kernel_sides(result)
    up_end, down_end = _kernel_sides(end)
    lazy = float(result.kernel_distance[_rows(result, 0.5, np.inf)].max())
    return all_of(
        Evidence(
            lazy < 0.1 * up,
            f"after {result.step:,} steps S(0, t) ≤ {num(lazy, '.1e')} for τ ≥ 0.5, under a "
            "tenth of the rich side's",
        ),
        Evidence(
            up > 3 * down,
            f"for τ ≤ 0.2 S averages {num(up, '.2g')} upstream (δ > 0) and {num(down, '.2g')} "
            "downstream",
        ),
        Evidence(
            down_end > 1.2 * down and up_end / down_end < up / down,
            f"after {end.step:,} steps the downstream kernels have moved on: "
            f"{num(up_end, '.2g')} upstream and {num(down_end, '.2g')} downstream",
        ),
    )


def _upstream_generalises(controls: Any, computed: Map) -> Evidence:
    result = computed.at(controls.shown)
    test = _trained(result, result.test_loss)
    small = result.taus <= 0.2
    up = _mean(test, small, result.deltas > 0, geometric=True)
    down = _mean(test, small, result.deltas < 0, geometric=True)
    best, lazy = float(np.nanmin(test)), float(np.nanmin(test[-1]))
    return all_of(
        Evidence(
            up < 0.75 * down,
            f"for τ ≤ 0.2 the test loss averages {num(up, '.2g')} upstream (δ > 0) and "
            f"{num(down, '.2g')} downstream (geometric means{_left_out(result)})",
        ),
        Evidence(
            lazy > 10 * best,
            f"at τ = {num(result.taus[-1], '.2g')} it is at least {num(lazy, '.2g')}, "
            f"{num(lazy / best, '.2g')} times the best",
        ),
    )


def _patterns_follow_the_kernel(controls: Any, computed: Map) -> Evidence:
    result = computed.at(controls.shown)
    patterns = result.activation_distance
    rich, lazy = float(patterns[0].max()), float(patterns[-1].max())
    return Evidence(
        rich > 0.1 and lazy < 0.02,
        f"up to {num(100 * rich, '.0f')}% of the activation patterns change at τ = "
        f"{num(result.taus[0], '.2g')}, at most {num(100 * lazy, '.1f')}% at τ = "
        f"{num(result.taus[-1], '.2g')}",
    )


FIG_1B_KERNEL = Claim(
    "Large scales are lazy and small ones rich, and at small scales the kernel moves first when "
    "the initialisation is upstream (δ > 0) — learning is rapidly rich there; the downstream "
    "kernels move later.",
    _rich_upstream,
)
FIG_1B_TEST = Claim(
    "The test loss is lowest at small scales with upstream initialisations, where learning is "
    "rapid and rich; the lazy networks at large scale generalise worst.",
    _upstream_generalises,
)


def _weights_move_most_when_rich(controls: Any, computed: Map) -> Evidence:
    result = computed.at(controls.shown)
    moved = _trained(result, result.parameter_distance)
    rich = _mean(moved, _rows(result, 0.0, 0.2), np.ones_like(result.deltas, dtype=bool))
    lazy = _mean(moved, _rows(result, 1.0, np.inf), np.ones_like(result.deltas, dtype=bool))
    return Evidence(
        rich > 2.5 * lazy,
        f"‖θ − θ₀‖ averages {num(rich, '.2g')} for τ ≤ 0.2 and {num(lazy, '.2g')} for τ ≥ 1",
    )


def _rich_networks_fit_first(controls: Any, computed: Map) -> Evidence:
    result = computed.at(controls.shown)
    every = np.ones_like(result.deltas, dtype=bool)
    loss = _trained(result, result.loss)
    rich = _mean(loss, _rows(result, 0.0, 0.2), every, geometric=True)
    lazy = _mean(loss, _rows(result, 1.0, np.inf), every, geometric=True)
    return Evidence(
        rich < 0.25 * lazy,
        f"after {result.step:,} steps the training loss averages {num(rich, '.2g')} for "
        f"τ ≤ 0.2 and {num(lazy, '.2g')} for τ ≥ 1 (geometric means)",
    )


FIG_10_PATTERNS = Claim(
    "The activation patterns change where the kernel moves: many at small scales, almost none "
    "at large ones.",
    _patterns_follow_the_kernel,
)
FIG_10_PARAMETERS = Claim(
    "The weights travel further from their start at small scales, where learning is rich, than "
    "at large ones, where it is lazy.",
    _weights_move_most_when_rich,
)
FIG_10_TRAINING = Claim(
    "After the same number of steps the rich networks at small scales fit their training "
    "points best; the lazy ones at large scales are furthest from a fit.",
    _rich_networks_fit_first,
)
FIG_10_DIFFERS = (
    "The paper's Fig. 10 trains ten times longer than its Fig. 1b (10⁶ steps) and compares "
    "the two: the training loss falls on, to 10⁻¹⁰, while the distances and the test loss stay "
    "where they were. This card is the Fig. 1b card's setting (d = 5, n = 50, 16 seeds, 1,000 "
    "steps), whose training loss has not saturated; the map's time (show the map after) "
    "compares its recorded steps, and ten times its steps compare the two as the paper does."
)
FIG_1B_PAPER = (
    "Two-layer ReLU students (h = 50) of a k = 3 teacher, d = 100, n = 1,000 (10,000 test "
    "points), τ in [0.1, 2] (log), δ in [−1, 1], 16 seeds, 10⁵ steps of lr = 5·10⁻³/τ² on "
    "(1/n)Σ(f − y)²; Fig. 10 trains ten times longer and adds the Hamming and parameter "
    "distances and the training loss."
)
FIG_1B_DIFFERS = (
    "d = 5 and n = 50 (200 test points) instead of d = 100 and n = 1,000, a 10 × 10 grid, and "
    "1,000 steps instead of 10⁵ (t = 10/τ²), at the paper's rate and with its 16 seeds averaged. "
    "The kernel card shows the map after 100 steps, where the speed of each side shows; the "
    "map's time (show the map after) draws the other recorded steps. At d = 2 and n = 20 "
    "which side generalises better changes from seed to seed. At τ = 0.1 the paper's rate is "
    "at the edge of stability: a network of some seeds diverges there, and its cell, drawn at "
    "its last finite state, is left out of the checks' means. The paper's sizes are a preset "
    "of the map, computed as a background job."
)
FIG_10_PATTERNS_DIFFERS = (
    "The paper's Hamming distance counts, for each training input, the hidden units whose "
    "activation changed (0 to 50); this card's colour is the share of (input, unit) pairs, "
    "that count ÷ 50, and the hover gives both. Otherwise as the Fig. 1b card: " + FIG_1B_DIFFERS
)
