"""Initialisations: Kunin et al.'s symmetrised (τ, δ) two-layer networks and Gaussian layers in
the standard, NTK and mean-field scalings of Xu & Ziyin (docs/networks.md (N13), (N14))."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import as_seed
from ._model import (
    MAX_DEPTH,
    MAX_WIDTH,
    Network,
    broadcast_batch,
    check_activation,
    check_cells,
    finite_array,
    positive_array,
    positive_count,
)

__all__ = ["SCALINGS", "alpha_from_tau_delta", "gaussian_init", "kunin_init"]

#: output-scale exponent and read-out variance of each scaling, for a read-out fed by n units:
#: ``γ → γ·n^{gamma_power}`` and read-out weights ``N(0, σ²·n^{readout_power})`` — Xu & Ziyin's
#: Table 1 rows (c_γ, c_u) with the hidden width as κ (docs/networks.md (N14))
SCALINGS: dict[str, dict[str, float]] = {
    "standard": {"gamma_power": 0.0, "readout_power": -1.0},
    "ntk": {"gamma_power": -0.5, "readout_power": 0.0},
    "mean_field": {"gamma_power": -1.0, "readout_power": 0.0},
}


def alpha_from_tau_delta(tau: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """The geometry α > 0 with ``δ = τ²(α² − α⁻²)`` (Kunin et al. Fig. 1; docs/networks.md
    (N13)): ``α² = (r + √(r² + 4))/2`` with ``r = δ/τ²``, written without cancellation for
    either sign of r."""
    ratio = np.asarray(delta, dtype=np.float64) / np.asarray(tau, dtype=np.float64) ** 2
    root = np.sqrt(ratio**2 + 4.0)
    alpha_sq = np.where(ratio >= 0, 0.5 * (ratio + root), 2.0 / (root - ratio))
    return np.sqrt(alpha_sq)


def kunin_init(
    d_in: int,
    width: int,
    *,
    tau: float | np.ndarray,
    delta: float | np.ndarray,
    seed: int | None = 0,
    activation: str = "relu",
) -> Network:
    """Kunin et al.'s symmetrised two-layer network (App. D.1; docs/networks.md (N13)).

    Base draw: ``w_i ~ Unif(S^{d−1})`` and ``a_i ~ Unif{±1}`` for the first half of the units;
    the second half copies w and negates a, so the network computes 0 at initialisation. Then
    w is scaled by ``τ/α`` and a by ``ατ`` with α solving ``δ = τ²(α² − α⁻²)``, giving every
    neuron ``a_i² − ‖w_i‖² = δ`` (δ itself, not δ² as the appendix prints) and ``‖a_i w_i‖ = τ²``.

    ``tau`` (> 0) and ``delta`` broadcast to the batch axes: a τ × δ grid is
    ``tau=taus[:, None], delta=deltas[None, :]``. Every cell shares the base draw (as in the
    paper's sweep, where one seed serves the whole grid). ``width`` must be even.
    """
    d_in = positive_count("d_in", d_in, MAX_WIDTH)
    width = positive_count("width", width, MAX_WIDTH)
    if width % 2:
        raise ValueError(
            f"width must be even (the symmetrised initialisation pairs every unit with a "
            f"negated copy); got {width}. Use {width + 1} or {width - 1}."
        )
    tau = positive_array("tau", tau)
    delta = finite_array("delta", delta)
    batch = broadcast_batch([np.shape(tau), delta.shape], ["tau", "delta"])
    check_cells(batch, "this (tau, delta) grid")
    activation = check_activation(activation)
    rng = as_seed(seed)
    half = width // 2
    directions = rng.standard_normal((half, d_in))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    signs = rng.choice([-1.0, 1.0], size=half)
    w = np.concatenate([directions, directions])
    a = np.concatenate([signs, -signs])
    alpha = alpha_from_tau_delta(tau, delta)
    tau = np.broadcast_to(tau, batch)
    alpha = np.broadcast_to(alpha, batch)
    first = (tau / alpha)[..., None, None] * w
    second = (alpha * tau)[..., None, None] * a[None, :]
    return Network((first, second), activation, 1.0)


def _per_layer(name: str, value: Any, depth: int) -> np.ndarray:
    """σ as an array ``(..., L)``: a scalar, one value per layer ``(L,)``, or batch axes
    followed by a per-layer axis of length L or 1."""
    array = finite_array(name, value)
    if array.ndim == 0:
        array = array[None]
    if array.shape[-1] not in (1, depth):
        raise ValueError(
            f"{name} must be one number, one per layer ({depth}), or have batch axes followed "
            f"by an axis of length {depth} or 1; got shape {array.shape}."
        )
    if np.any(array < 0):
        raise ValueError(f"{name} must be >= 0; got {array.min():g}.")
    return np.broadcast_to(array, (*array.shape[:-1], depth))


def gaussian_init(
    widths: list[int] | tuple[int, ...],
    *,
    sigma: float | np.ndarray = 1.0,
    gamma: float | np.ndarray = 1.0,
    activation: str = "relu",
    seed: int | None = 0,
    scaling: str = "standard",
) -> Network:
    """I.i.d. Gaussian layers for ``widths = [d_in, n_1, …, d_out]`` (docs/networks.md (N14)).

    ``scaling="standard"`` (Kaiming-like, the default): every layer ``W_l ~ N(0, σ_l²/n_{l−1})``
    and output scale γ as given. ``"ntk"`` and ``"mean_field"`` follow Xu & Ziyin's Table 1
    for the read-out fed by ``n = n_{L−1}`` units: read-out weights ``N(0, σ_L²)`` (variance
    O(1)) and output scale ``γ/√n`` (NTK, c_γ = −½) or ``γ/n`` (mean field, c_γ = −1); the
    layers below keep ``N(0, σ²/n_in)``, so hidden activations stay O(1) at any width. Which
    phase a scaling lands in also depends on the learning rate (their Table 1: the mean-field
    scaling learns features with lr ∝ n, the NTK scaling with lr = O(1) is in the kernel phase).

    ``sigma`` is one number, one per layer ``(L,)``, or batch axes followed by a per-layer axis
    of length L or 1 (a σ sweep shared by all layers: ``sigma=values[:, None]``). ``gamma`` is a
    scalar or an array over the batch axes. Every cell shares the same base draw.
    """
    if isinstance(widths, str | bytes) or not hasattr(widths, "__len__"):
        raise ValueError(f"widths must be a list [d_in, n_1, …, d_out]; got {widths!r:.60}.")
    if not 2 <= len(widths) <= MAX_DEPTH + 1:
        raise ValueError(
            f"widths must list 2 to {MAX_DEPTH + 1} layer sizes [d_in, …, d_out]; got "
            f"{widths!r:.60}."
        )
    widths = tuple(positive_count(f"widths[{i}]", n, MAX_WIDTH) for i, n in enumerate(widths))
    if scaling not in SCALINGS:
        raise ValueError(f"scaling must be one of {', '.join(SCALINGS)}; got {scaling!r}.")
    depth = len(widths) - 1
    sigma = _per_layer("sigma", sigma, depth)
    gamma = positive_array("gamma", gamma)
    activation = check_activation(activation)
    batch = broadcast_batch([sigma.shape[:-1], np.shape(gamma)], ["sigma", "gamma"])
    check_cells(batch, "this initialisation")
    rng = as_seed(seed)
    rule = SCALINGS[scaling]
    weights = []
    for layer in range(depth):
        fan_in, fan_out = widths[layer], widths[layer + 1]
        base = rng.standard_normal((fan_out, fan_in))
        variance_power = rule["readout_power"] if layer == depth - 1 else -1.0
        scale = sigma[..., layer] * float(fan_in) ** (0.5 * variance_power)
        weights.append(np.asarray(scale)[..., None, None] * base)
    output_scale = gamma * float(widths[-2]) ** rule["gamma_power"]
    return Network(tuple(weights), activation, output_scale)
