"""What Xu & Ziyin's figures of the exact two-layer linear network show, checked on the presets'
own exact solutions (:mod:`app.core.claims`): the alignment and disalignment of Fig. 1, and the
power laws of the first layer's change against width of Fig. 4 (their App. B.4) — where the exact
model's exponents differ from the paper's estimates, the claim says so and checks the model's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.claims import Claim, Evidence, all_of, num

if TYPE_CHECKING:
    from .map import Map
    from .trajectory import Run

#: a step of an exact ζ(t) against its trend that still counts as monotone (rounding)
ROUNDING = 1e-12


def _monotone(values: np.ndarray, rising: bool) -> bool:
    steps = np.diff(np.asarray(values, dtype=float))
    return bool(np.all(steps >= -ROUNDING) if rising else np.all(steps <= ROUNDING))


def _kernel_alignment(controls: Any, run: Run) -> Evidence:
    """ζ moves the way α₊ says (Xu & Ziyin eq. 11: up when α₊ > 1) and only by a few times
    its random size 1/√d; the NTK barely moves. (The random start's output f₀ = O(1) here: in
    some draws it exceeds y and α₊ < 1.)"""
    zeta, change, loss = run.exact.zeta, float(run.exact.ntk_change[-1]), run.exact.loss
    rise, size = float(zeta[-1] - zeta[0]), 1.0 / np.sqrt(controls.d)
    rising = run.start.alpha_plus > 1
    fitted = loss[-1] < 1e-6 * loss[0]
    return Evidence(
        _monotone(zeta, rising)
        and abs(rise) < 5 * size
        and abs(zeta[-1]) < 5 * size
        and change < 0.01
        and fitted,
        f"α₊ = {run.start.alpha_plus:.4f}: ζ {'rises' if rising else 'falls'} monotonically "
        f"by only {num(abs(rise), '.2g')} ({zeta[0]:.3f} → {zeta[-1]:.3f}; 1/√d = "
        f"{size:.3f}) while the loss is fitted; the NTK changes by {100 * change:.2g} %",
    )


def _feature_alignment(controls: Any, run: Run) -> Evidence:
    zeta, change = run.exact.zeta, float(run.exact.ntk_change[-1])
    return Evidence(
        _monotone(zeta, True) and abs(zeta[0]) < 0.1 and zeta[-1] > 0.7 and change > 0.5,
        f"ζ climbs monotonically from {zeta[0]:.3f} to {zeta[-1]:.3f} (α₊ = "
        f"{run.start.alpha_plus:.3g} > 1); the NTK changes by {100 * change:.0f} %",
    )


def _disalignment(controls: Any, run: Run) -> Evidence:
    exact = run.exact
    zeta, output = exact.zeta, exact.output
    fitted = abs(output[-1] - controls.y) < 0.01 * abs(controls.y)
    return Evidence(
        _monotone(zeta, False)
        and zeta[0] > 0.95
        and zeta[-1] < 0.7
        and run.start.alpha_plus < 1
        and output[0] > 5 * controls.y
        and fitted,
        f"f(x) = {output[0]:.3g} → {output[-1]:.3g} (y = {num(controls.y)}): α₊ = "
        f"{run.start.alpha_plus:.3g} < 1 and ζ falls monotonically from {zeta[0]:.3f} to "
        f"{zeta[-1]:.3f}",
    )


FIG_1_KERNEL = Claim(
    "In the kernel phase (γ = 1/√d) the layers of a Gaussian start align only negligibly: ζ "
    "moves monotonically — up when α₊ > 1 — but stays within a few 1/√d of its random start, "
    "and the NTK barely moves.",
    _kernel_alignment,
)
FIG_1_FEATURES = Claim(
    "In the feature-learning phase (γ = 1/d) the same Gaussian layers learn by alignment: ζ "
    "climbs monotonically from ≈ 0 to an O(1) value and the NTK changes by O(1).",
    _feature_alignment,
)
FIG_1_DISALIGNMENT = Claim(
    "Started nearly parallel with an output far larger than the target, the layers learn by "
    "disalignment: α₊ < 1 and ζ falls monotonically from ≈ 1 while the output comes down to y.",
    _disalignment,
)
FIG_1_PAPER = (
    "Two-layer linear network, d = 10⁴, x = 1, y = 2, N(0, 1) layers, γ = 1/√d (kernel phase) "
    "and 1/d (feature learning); near-parallel start u ~ N(0, 10), w = u + N(0, 0.1); lines "
    "their eq. 14, points gradient descent (nonlinear networks on 100 points y = 2x + noise)."
)
FIG_1_DIFFERS = (
    "Width 1000 instead of 10⁴ (the view's cap), so the random ζ(0) and its changes, O(1/√d), "
    "are larger than the paper's; the solution is exact and gradient descent runs beside it. "
    "The paper says ζ rises because α₊ > 1 when y > 0, taking the start's output as ≈ 0; in "
    "the kernel phase that output is O(1), and in a draw where it exceeds y, α₊ < 1 and ζ "
    "falls as slightly."
)
FIG_1_DISALIGNMENT_DIFFERS = (
    "Width 1000 instead of 10⁴, and layers u ~ N(0, 1), w = u + 0.1·N(0, 1) (the paper: "
    "u ~ N(0, 10), w = u + N(0, 0.1)): the same ζ(0) ≈ 1 and an output ≈ √d ≫ y."
)


# -- Fig. 4: the first layer's change against width ---------------------------------------------

#: δ of ‖W(∞) − W(0)‖/‖W(0)‖ ∝ d^−δ that the exact model gives for the kernel pairs NTK⁻,
#: Xavier⁻, Kaiming⁻: from a random start (Xavier⁻'s initial output grows like √d) and from a
#: zero initial output (their B.4 then holds but for Kaiming⁻, whose first-order term remains)
MODEL_DELTAS = {False: (0.5, 0.5, 1.5), True: (0.5, 1.0, 1.5)}
#: how far a fitted δ (one Gaussian draw per width) may stray from the model's own value
DELTA_SLACK = 0.25
#: |δ| below which a feature-learning pair counts as moving by O(1) at every width
FLAT = 0.25
KERNEL_ROWS = ("NTK", "Xavier", "Kaiming")


def _deltas(result: Map, regime: str) -> dict[str, float]:
    """The fitted δ (minus the log-log slope) of each scheme's ``regime`` row."""
    return {
        scheme: -slope
        for (scheme, row_regime), slope in zip(result.rows, result.weight_fits, strict=True)
        if row_regime == regime and slope is not None
    }


def _weight_power_laws(controls: Any, result: Map) -> Evidence:
    zero = bool(result.sweep.zero_output_init)
    kernel, features = _deltas(result, "kernel"), _deltas(result, "feature learning")
    expected = dict(zip(KERNEL_ROWS, MODEL_DELTAS[zero], strict=True))
    near = all(abs(kernel[s] - expected[s]) < DELTA_SLACK for s in KERNEL_ROWS)
    flat = len(features) == 3 and all(abs(value) < FLAT for value in features.values())
    largest = max(abs(value) for value in features.values())
    fitted = ", ".join(f"{s}⁻ {kernel[s]:.2f}" for s in KERNEL_ROWS)
    model = ", ".join(num(v) for v in MODEL_DELTAS[zero])
    start = "a zero initial output" if zero else "a random start"
    return all_of(
        Evidence(
            near, f"from {start} the fitted δ are {fitted} (this model: {model}; B.4: 0.5, 1, 2)"
        ),
        Evidence(flat, f"the feature learning pairs' |δ| ≤ {largest:.2f}"),
    )


def _random_start_power_laws(controls: Any, result: Map) -> Evidence:
    """One draw per width from a random start: the residual y − f₀ that drives the change is
    random at every width (f₀ = O(1) for NTK⁻ and Kaiming⁻, ∝ √d for Xavier⁻), so one sweep's
    δ scatter by about ±0.15 (over seeds 0–63: NTK⁻ 0.08 to 0.83, Xavier⁻ 0.05 to 0.90 around
    their mean ½). NTK⁻ and Kaiming⁻ share that residual, so their difference is sharp (0.89 to
    1.13): the exact model's 1, not B.4's 3/2."""
    zero = bool(result.sweep.zero_output_init)
    kernel, features = _deltas(result, "kernel"), _deltas(result, "feature learning")
    steeper = kernel["Kaiming"] - kernel["NTK"]
    falling = all(kernel[s] > 0 for s in KERNEL_ROWS)
    flat = len(features) == 3 and all(abs(value) < FLAT for value in features.values())
    largest = max(abs(value) for value in features.values())
    fitted = ", ".join(f"{s}⁻ {kernel[s]:.2f}" for s in KERNEL_ROWS)
    return all_of(
        Evidence(not zero, "from a random start" if not zero else "from a zero initial output"),
        Evidence(
            falling and abs(steeper - 1.0) < DELTA_SLACK,
            f"the kernel pairs' fitted δ are {fitted}: Kaiming⁻'s exceeds NTK⁻'s by "
            f"{steeper:.2f} (this model: 1; B.4: 3/2)",
        ),
        Evidence(flat, f"the feature learning pairs' |δ| ≤ {largest:.2f}"),
    )


FIG_4_RANDOM = Claim(
    "The first layer's change ‖W − W₀‖/‖W₀‖ falls like d^−δ in the kernel pairs and stays O(1) "
    "in the feature-learning pairs, and from a random start this exact model's Kaiming⁻ falls "
    "faster than its NTK⁻ by one power of d — not by the 3/2 of appendix B.4 (δ = 2 against ½).",
    _random_start_power_laws,
)
FIG_4_ZERO = Claim(
    "With a zero initial output the exact δ become about ½, 1, 3/2: NTK⁻ and Xavier⁻ follow "
    "appendix B.4, while Kaiming⁻ keeps the first-order term of their equation 49 (∝ σ_u/σ_w) "
    "that B.4 drops, so it falls like d^−3/2, not d^−2.",
    _weight_power_laws,
)
FIG_4_PAPER = (
    "Two-layer ReLU networks on CIFAR-10 (d₀ = 3072), cross-entropy, SGD with batch 128 for 10⁴ "
    "epochs, best test accuracy and relative distance from the initialisation against the width "
    "d; NTK γ = 1/√d, η = 0.05; MF γ = 10/d, η = 0.05·d/100; Kaiming± and Xavier± by Table 1's "
    "(c_η, c_γ), equal to their base scheme at d = 100."
)
FIG_4_RANDOM_DIFFERS = (
    "The paper measures ReLU networks trained by SGD; this is the exact t → ∞ solution of the "
    "two-layer linear network on one point (x = 1, y = 1), one Gaussian draw per width. Its "
    "Xavier⁻ starts with an output ∝ √d, which B.4 assumes to be O(1), and for Kaiming⁻ B.4 "
    "drops a term that dominates here: the exact exponents are the model's, not the paper's. "
    "With one draw per width the start's output is random at every width, and so is the "
    "residual y − f(0) that drives the change: one sweep's δ scatter by about ±0.15 around the "
    "model's ½, ½, 3/2 (NTK⁻ from 0.08 to 0.83 over 64 draws), while Kaiming⁻'s exceeds "
    "NTK⁻'s by 1 in every draw, as both share that residual."
)
FIG_4_ZERO_DIFFERS = (
    "The exact linear model, as in the previous card, with the second layer's draw projected "
    "off W x so that f(0) = 0 (Chizat's lazy initialisation); the paper's networks start from "
    "a random output."
)
