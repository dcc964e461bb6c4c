"""What Xu & Ziyin's network figures show, checked on the presets' own training runs
(:mod:`app.core.claims`): alignment and disalignment of two-layer networks of five activations
(Fig. 1), the exact linear solution through gradient descent, the layer pairs of deep ReLU nets
on the digits aligning (Fig. 2a, Fig. 6), and the logistic loss of Fig. 7."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.claims import Claim, Evidence, all_of, num, value_at

if TYPE_CHECKING:
    from .results import Run

#: names of the activations as the claims write them
NAMES = {
    "linear": "linear",
    "relu": "ReLU",
    "leaky_relu": "leaky-ReLU",
    "sigmoid": "sigmoid",
    "swish": "swish",
}


def _zeta(run: Run, pair: int = 0) -> np.ndarray:
    return run.curves.zeta[:, pair]


#: ζ of two independent Gaussian layers is of order 1/√d: "≈ 0" means below this many 1/√d
#: (at d = 200 the draws of seeds 0–7 start at 0.003–0.12, i.e. up to 1.7/√d)
CHANCE = 3.0


def _chance(controls: Any) -> float:
    """The level below which ζ counts as ≈ 0: :data:`CHANCE` times 1/√d."""
    return CHANCE / np.sqrt(controls.width)


def _fitted(run: Run, factor: float) -> Evidence:
    """The training loss fell by at least ``factor``."""
    loss = run.curves.loss
    return Evidence(loss[-1] * factor < loss[0], f"the loss falls {num(loss[0])} → {num(loss[-1])}")


def _aligns(controls: Any, run: Run) -> Evidence:
    zeta = _zeta(run)
    return all_of(
        Evidence(
            abs(zeta[0]) < _chance(controls) and zeta[-1] > 0.9,
            f"ζ climbs {zeta[0]:.3f} → {zeta[-1]:.3f} (chance level 1/√d = "
            f"{1 / np.sqrt(controls.width):.3f})",
        ),
        _fitted(run, 50),
    )


def _disaligns(controls: Any, run: Run) -> Evidence:
    zeta = _zeta(run)
    return all_of(
        Evidence(
            zeta[0] > 0.95 and zeta[-1] < zeta[0] - 0.2, f"ζ falls {zeta[0]:.3f} → {zeta[-1]:.3f}"
        ),
        _fitted(run, 100),
    )


def alignment(activation: str) -> Claim:
    """Fig. 1 (upper row) for one activation: Gaussian layers, γ = 1/d."""
    return Claim(
        f"In the feature-learning phase (γ = 1/d) the {NAMES[activation]} network learns by "
        "alignment, as the linear one does: ζ climbs from ≈ 0 to near 1 as the loss is fitted.",
        _aligns,
    )


def disalignment(activation: str) -> Claim:
    """Fig. 1 (lower row) for one activation: nearly parallel layers, a large output."""
    return Claim(
        f"From nearly parallel layers with an output far too large, the {NAMES[activation]} "
        "network learns by disalignment: ζ falls from ≈ 1 while the loss falls by orders of "
        "magnitude.",
        _disaligns,
    )


def _kernel_moved(run: Run) -> float:
    """The most the NTK on the training points moves during the run, ``‖K_t − K₀‖/‖K₀‖``,
    from the recorded ``S = 1 − cos(K₀, K_t)`` and ``r = ‖K_t‖/‖K₀‖``:
    ``‖K_t − K₀‖²/‖K₀‖² = (r − 1)² + 2rS``."""
    curves = run.curves
    ratio = curves.kernel_norm / curves.kernel_norm[0]
    return float(np.max(np.sqrt((ratio - 1) ** 2 + 2 * ratio * curves.kernel_distance)))


def _kernel_phase(controls: Any, run: Run) -> Evidence:
    """The kernel phase: the NTK moves by O(1/√d) of itself (3–12 % over seeds 0–7 at d = 200,
    0.45–1.8 times 1/√d, where the feature-learning phase's grows by 300–360 %)."""
    zeta, moved = _zeta(run), _kernel_moved(run)
    return all_of(
        Evidence(zeta[-1] < 0.4, f"ζ only reaches {zeta[-1]:.3f} (from {zeta[0]:.3f})"),
        Evidence(
            moved < _chance(controls),
            f"the kernel moves by at most ‖K_t − K₀‖/‖K₀‖ = {moved:.3f} (1/√d = "
            f"{1 / np.sqrt(controls.width):.3f})",
        ),
        _fitted(run, 50),
    )


FIG_1_KERNEL = Claim(
    "In the kernel phase (γ = 1/√d) the ReLU network's layers align far less — ζ stays well "
    "below 1 — and its kernel barely moves, by a share of order 1/√d, while the loss is fitted.",
    _kernel_phase,
)


def _slope(x: np.ndarray, f: np.ndarray) -> float:
    """The slope of a linear network's function f(x) = βx, from its values on a grid."""
    return float(x @ f / (x @ x))


def _signed_exact_zeta(run: Run) -> np.ndarray:
    """The exact ζ = uᵀw/(‖u‖‖w‖) with its sign. The view draws |ζ|; a linear network's slope
    is γuᵀw, so ζ starts with the sign of the initial slope and, once the positive slope is
    fitted, ends positive. Starting negative, a monotone ζ is negative until it crosses 0,
    where |ζ| has its minimum: the part before that minimum takes the minus sign."""
    zeta = np.array(run.bridge.zeta, dtype=float)
    line = run.line
    if line is not None and _slope(line.x, line.initial) < 0:
        zeta[: int(np.argmin(zeta))] *= -1
    return zeta


def _exact_through_descent(controls: Any, run: Run) -> Evidence:
    bridge, t, line = run.bridge, run.curves.t, run.line
    exact = np.array([value_at(bridge.t, bridge.zeta, time) for time in t])
    apart = float(np.max(np.abs(exact - _zeta(run))))
    signed = _signed_exact_zeta(run)
    rising = bool(np.all(np.diff(signed) >= -1e-12))
    ends_positive = line is not None and _slope(line.x, line.final) > 0
    return all_of(
        Evidence(apart < 0.05, f"gradient descent's ζ stays within {apart:.3f} of the exact one"),
        Evidence(
            rising and ends_positive and abs(signed[0]) < _chance(controls) and signed[-1] > 0.8,
            f"the exact ζ climbs monotonically {signed[0]:.3f} → {signed[-1]:.3f} (chance "
            f"level 1/√d = {1 / np.sqrt(controls.width):.3f})",
        ),
    )


FIG_1_LINEAR = Claim(
    "For the linear network the exact finite-width solution (their equation 14) runs through "
    "gradient descent's points: ζ = uᵀw/(‖u‖‖w‖) climbs monotonically from ≈ 0 to ≈ 0.9.",
    _exact_through_descent,
)

FIG_1_PAPER = (
    "Two-layer networks of width d = 10⁴ (linear, ReLU, sigmoid, swish, leaky ReLU) on 100 points "
    "x ~ N(0, 1), y = 2x + N(0, 1)/10; N(0, 1) layers with γ = 1/√d (kernel phase) or 1/d "
    "(feature learning); the nearly parallel start u ~ N(0, 10), w = u + N(0, 0.1); learning "
    "rates chosen to converge; lines their eq. 14 for the linear network."
)
FIG_1_DIFFERS = (
    "Width 200 instead of 10⁴ (the view's cap), full-batch gradient descent for 2,000–4,000 steps, "
    "no biases."
)
FIG_1_LINEAR_DIFFERS = (
    f"{FIG_1_DIFFERS} The card draws |ζ| (the paper's ‖UW‖/(‖U‖‖W‖) for deeper networks): "
    "where the layers happen to start slightly anti-aligned (ζ < 0, as in seeds 3 and 7) it "
    "first dips to 0 as ζ crosses it, then climbs."
)
FIG_1_KERNEL_DIFFERS = (
    "Width 200 instead of 10⁴: in the kernel phase ζ's rise and the kernel's change shrink like "
    "1/√d, so at this width they are still visible (ζ ≈ 0.3, the kernel moving by 3–12 %), "
    "where the paper's are negligible."
)


# -- deep ReLU networks on the digits (Fig. 2a, Fig. 6) ------------------------------------------


#: each hidden pair's least rise of ζ, and the largest rise's least
RISES, LARGEST = 0.1, 0.2


def _pairs_align(controls: Any, run: Run) -> Evidence:
    """The pairs of hidden layers align; the pair that feeds the ten outputs is reported but
    not checked (it moves −0.05 to +0.26 over seeds 0–7, ending below its start in some)."""
    zeta = run.curves.zeta
    rises = zeta[-1] - zeta[0]
    hidden = rises[:-1]
    pairs = ", ".join(
        f"{a:.2f} → {b:.2f}" for a, b in zip(zeta[0, :-1], zeta[-1, :-1], strict=True)
    )
    return all_of(
        Evidence(
            bool(np.all(hidden > RISES)) and float(np.max(hidden)) > LARGEST,
            f"ζ of the {hidden.size} hidden pairs: {pairs}; of the pair feeding the outputs "
            f"{zeta[0, -1]:.2f} → {zeta[-1, -1]:.2f}",
        ),
        _fitted(run, 100),
    )


FIG_2A = Claim(
    "Trained on the digits, every pair of consecutive hidden layers of a four-layer ReLU network "
    "aligns: each such ζ ends clearly above its start.",
    _pairs_align,
)
FIG_6 = Claim(
    "In a six-layer ReLU network every pair of consecutive hidden layers aligns as well: each of "
    "the four such ζ ends clearly above its start.",
    _pairs_align,
)
FIG_2_PAPER = (
    "Four-layer ReLU FCN on MNIST, full-batch gradient descent (batch 2,000) for 1,000 "
    "iterations to over 95 % training accuracy, Kaiming initialisation with every layer scaled "
    "by σ; (a) ζ during training at σ = 1, (b) the final ζ against σ."
)
FIG_6_PAPER = "A six-layer ReLU FCN on MNIST, with the same settings as Fig. 2."
DIGITS_DIFFERS = (
    "50 of the bundled 8 × 8 digits (ten classes, one-hot targets, mean-square loss) stand in "
    "for MNIST, width 50, layers N(0, σ²/n_in); at σ = 1 the pairs here align by only 0.02–0.05, "
    "so the card starts from σ = 0.5, where they align clearly (Fig. 2b's card sweeps σ). "
    "There the hidden pairs' ζ rise by 0.1–0.35, but the pair that feeds the ten outputs "
    "moves by −0.05 to +0.26 over seeds 0–7 and ends a little below its start in some: its "
    "ten output directions keep it from aligning with one, where the paper has every pair "
    "align."
)


# -- the logistic loss (Fig. 7) ------------------------------------------------------------------


def _last_decade(run: Run) -> tuple[float, float, float]:
    """(relative fall of the loss, 1 − ζ at a tenth of the run's time, 1 − ζ at its end)."""
    curves = run.curves
    tenth = curves.t[-1] / 10
    earlier = value_at(curves.t, curves.loss, tenth)
    fall = (earlier - curves.loss[-1]) / curves.loss[-1]
    return fall, 1 - value_at(curves.t, _zeta(run), tenth), 1 - float(_zeta(run)[-1])


#: over the last decade of time the loss may fall by this share at most ("settled") while
#: 1 − ζ must fall at least to this share of itself
SETTLED, HALVES = 0.1, 0.6


def _aligns_after_the_loss(controls: Any, run: Run) -> Evidence:
    zeta = _zeta(run)
    fall, before, after = _last_decade(run)
    chance = _chance(controls)
    return all_of(
        Evidence(
            zeta[0] < chance and zeta[-1] > 0.95,
            f"ζ climbs {zeta[0]:.3f} → {zeta[-1]:.3f} (chance level 1/√d = "
            f"{1 / np.sqrt(controls.width):.3f})",
        ),
        Evidence(
            fall < SETTLED and after < HALVES * before,
            f"over the last decade of time the loss falls by {100 * fall:.2g} % while 1 − ζ "
            f"goes {before:.4f} → {after:.4f}",
        ),
    )


FIG_7_ALIGNMENT = Claim(
    "With the logistic loss on N(0, 1) against N(4, 1), Gaussian layers (γ = 1/d) learn by "
    "alignment, and ζ keeps rising after the loss has nearly settled: over the last decade of "
    "training the loss moves by a few per cent while 1 − ζ falls by half or so.",
    _aligns_after_the_loss,
)


#: the loss counts as at its floor once within this share of its final value
FLOOR = 0.01


def _disaligns_to_a_floor(controls: Any, run: Run) -> Evidence:
    curves = run.curves
    zeta, loss, t = _zeta(run), curves.loss, curves.t
    floor = float(loss[-1])
    reached = int(np.argmax(loss <= (1 + FLOOR) * floor))  # the first record at the floor
    half = value_at(t, loss, t[-1] / 2)
    return all_of(
        Evidence(
            zeta[0] > 0.95 and zeta[reached] < zeta[0] - 0.03,
            f"ζ goes {zeta[0]:.3f} → {zeta[reached]:.3f} by t = {num(t[reached])}, when the "
            f"loss reaches its floor (ζ {zeta[-1]:.3f} at t = {num(t[-1])})",
        ),
        Evidence(
            loss[0] > 10 * floor and half < (1 + FLOOR) * floor,
            f"the loss falls {num(loss[0])} → {num(floor)} and stays over the second half of "
            f"the run (within {num(100 * (half / floor - 1), '.1g')} %)",
        ),
    )


FIG_7_DISALIGNMENT = Claim(
    "From nearly parallel layers with a large output the logistic loss is learned by "
    "disalignment: ζ falls from ≈ 1 as the loss falls to its floor.",
    _disaligns_to_a_floor,
)
FIG_7_PAPER = (
    "Two-layer ReLU, sigmoid, swish and leaky-ReLU networks, d = 10⁴, binary cross-entropy on "
    "samples of N(0, 1) against N(4, 1), initialised as in Fig. 1 (N(0, 1) layers; nearly "
    "parallel u ~ N(0, 10), w = u + N(0, 0.1))."
)
FIG_7_ALIGNMENT_DIFFERS = (
    "ReLU only, width 200 instead of 10⁴, 100 training points, 10,000 steps of full-batch "
    "gradient descent (t = 10⁶): the loss approaches its floor slowly, so 'settled' means it "
    "changes by 1–6 % over the last decade of time (over seeds 0–7), while 1 − ζ falls by "
    "54–77 % there."
)
FIG_7_DISALIGNMENT_DIFFERS = (
    "ReLU only, width 200, no biases: such a network cannot separate N(0, 1) from N(4, 1), so "
    "the logistic loss has a finite minimum (0.20–0.35 over seeds 0–7) where every gradient "
    "vanishes and ζ stops with it — the paper's ζ keeps decreasing after its loss has "
    "converged. In some draws the loss then creeps down by a few tenths of a per cent per "
    "decade of time and ζ rises back a little (seed 7: 0.926 → 0.938 by t = 2·10⁴)."
)
