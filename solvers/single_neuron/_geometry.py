"""The eigen-structure of the single neuron's flow, shared by one trajectory (:func:`exact`)
and a whole τ × δ map (:func:`portrait`): computed once here, for one δ or an array of them.

In ``q = [√η_a w; √η_w a]`` the flow's matrix is ``F = [[−δ/2·I, kβ*], [kβ*ᵀ, δ/2]]``,
``k = √(η_aη_w)`` (docs/theory.md (1.8)–(1.10)). F acts as the 2×2 block
``[[−δ/2, k‖β*‖], [k‖β*‖, δ/2]]`` on span{β̂*, e_a}, with eigenvalues ±ω,
``ω = ½√(δ² + 4η_aη_w‖β*‖²)``, and as −δ/2 on the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import as_array


@dataclass(frozen=True)
class Eigenplane:
    """F's 2×2 block for one δ or an array of δ (every field of δ's shape)."""

    omega: np.ndarray  #: ω = ½√(δ² + 4η_aη_w‖β*‖²)
    #: unit eigenvector for +ω in (β̂*, e_a) coordinates; the one for −ω is (−plus_a, plus_x)
    plus_x: np.ndarray
    plus_a: np.ndarray
    growth_of_a: np.ndarray  #: ω + δ/2 ≥ 0, computed without cancellation

    @property
    def degenerate(self) -> np.ndarray:
        """ω = 0 (no target, δ = 0): no growing direction."""
        return self.omega == 0.0


def eigenplane(deltas, coupling: float) -> Eigenplane:
    """F's block for conserved ``deltas`` and ``coupling = √(η_aη_w)‖β*‖``. Each eigenvector is
    formed from terms of one sign (ω + |δ|/2 rather than ω − δ/2), so nothing cancels for any
    |δ| (docs/theory.md (1.10))."""
    deltas = np.asarray(deltas, dtype=float)
    omega = np.hypot(0.5 * deltas, coupling)
    upstream = deltas >= 0
    growth = omega + 0.5 * np.abs(deltas)
    first = np.where(upstream, coupling, growth)
    second = np.where(upstream, growth, coupling)
    degenerate = omega == 0.0
    size = np.where(degenerate, 1.0, np.hypot(first, second))
    with np.errstate(divide="ignore", invalid="ignore"):  # in the branch np.where discards
        growth_of_a = np.where(upstream, growth, coupling**2 / np.where(growth > 0, growth, 1.0))
    return Eigenplane(
        omega=omega,
        plus_x=np.where(degenerate, 1.0, first / size),
        plus_a=np.where(degenerate, 0.0, second / size),
        growth_of_a=np.where(degenerate, 0.0, growth_of_a),
    )


def margins(plane: Eigenplane, plane_x, plane_a, state_sq) -> np.ndarray:
    """``saddle_margin`` (docs/theory.md (1.12)): the share of the start ``(plane_x, plane_a)``
    (in (β̂*, e_a) coordinates, scaled by √η) along the growing eigenvector, relative to the
    whole scaled state ``√state_sq``; 0 with no state or no growing direction."""
    state_sq = np.asarray(state_sq, dtype=float)
    along = np.abs(plane.plus_x * plane_x + plane.plus_a * plane_a)
    usable = (state_sq > 0) & ~plane.degenerate
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(usable, along / np.sqrt(np.where(state_sq > 0, state_sq, 1.0)), 0.0)


def target_direction(beta_star: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """β̂*, or with no target the direction of ``fallback`` (or the first axis)."""
    norm = float(np.linalg.norm(beta_star))
    if norm > 0:
        return beta_star / norm
    fallback_norm = float(np.linalg.norm(fallback))
    if fallback_norm > 0:
        return fallback / fallback_norm
    direction = np.zeros_like(beta_star, dtype=float)
    direction[0] = 1.0
    return direction


def unit(name: str, vector, length: int) -> np.ndarray:
    vector = as_array(name, vector, ndim=1, shape=(length,) if length >= 0 else None)
    norm = float(np.linalg.norm(vector))
    if norm == 0:
        raise ValueError(f"{name} must be a non-zero vector.")
    return vector / norm
