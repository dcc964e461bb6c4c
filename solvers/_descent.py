"""The discrete gradient-descent loop shared by every model.

Convention (docs/theory.md (0.2)): ``θ ← θ − lr·η_θ ∂L/∂θ``; step k is reported at time
``t = k·lr`` so that
gradient descent tends to the exact flow as lr → 0. A run whose parameters stop being finite,
or grow past :data:`DIVERGENCE_LIMIT`, is stopped and the step is reported; the caller never
receives NaN/inf arrays.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ._validation import MAX_STEPS, as_positive, as_positive_int

__all__ = ["DIVERGENCE_LIMIT", "DescentRun", "StepBudget", "run_descent", "step_budget"]

#: parameters larger than this in absolute value count as diverged. Far above any sensible
#: initialisation, yet small enough that losses and kernels built from them stay finite.
DIVERGENCE_LIMIT = 1e50

State = tuple[np.ndarray, ...]


@dataclass(frozen=True)
class DescentRun:
    """Recorded states of one gradient-descent run."""

    steps: np.ndarray  #: step numbers k of the recorded states
    states: tuple[np.ndarray, ...]  #: one stacked array per parameter, first axis = record
    lr: float
    diverged_at: int | None  #: first step whose parameters were not finite or too large

    @property
    def t(self) -> np.ndarray:
        return self.steps * self.lr


def _healthy(state: State) -> bool:
    # one reduction a part: the largest magnitude is NaN if any entry is, inf if any is, and
    # neither compares as at most the limit (a separate isfinite pass made this check, about
    # half of a small model's step, twice as long: 12 → 6.5 µs a step at d = 1000)
    return all(float(np.max(np.abs(part), initial=0.0)) <= DIVERGENCE_LIMIT for part in state)


def run_descent(
    step: Callable[[State], State],
    initial: Sequence[np.ndarray],
    lr: float,
    steps: int,
    every: int = 1,
) -> DescentRun:
    """Iterate ``step`` ``steps`` times from ``initial``, recording every ``every``-th state.

    The final state (or the last finite one, if the run diverged) is always recorded.
    ``step`` receives and returns a tuple of arrays and must not modify its argument in place.
    """
    lr = as_positive("lr", lr)
    steps = as_positive_int("steps", steps, minimum=0, maximum=MAX_STEPS)
    every = as_positive_int("every", every)
    state: State = tuple(np.array(part, dtype=np.float64) for part in initial)
    recorded_steps = [0]
    records = [[part] for part in state]
    diverged_at = None
    for k in range(1, steps + 1):
        with np.errstate(over="ignore", invalid="ignore"):
            candidate = step(state)
        if not _healthy(candidate):
            diverged_at = k
            if recorded_steps[-1] != k - 1:  # keep the last good state for the plot
                recorded_steps.append(k - 1)
                for record, part in zip(records, state, strict=True):
                    record.append(part)
            break
        state = candidate
        if k % every == 0 or k == steps:
            recorded_steps.append(k)
            for record, part in zip(records, state, strict=True):
                record.append(part)
    return DescentRun(
        steps=np.asarray(recorded_steps, dtype=np.float64),
        states=tuple(np.stack(record) for record in records),
        lr=lr,
        diverged_at=diverged_at,
    )


@dataclass(frozen=True)
class StepBudget:
    """How many gradient-descent steps a horizon asks for, and how many a cap allows: the one
    rule of every view that runs gradient descent beside an exact solution."""

    wanted: int  #: steps to reach the horizon (step k is at t = k·lr)
    cap: int  #: most steps one run may take

    @property
    def steps(self) -> int:
        return min(self.wanted, self.cap)

    @property
    def capped(self) -> bool:
        return self.wanted > self.cap

    def note(self, lr: float, *, unit: str = "", why: str = "") -> str | None:
        """What a capped run means, in words (None if it reaches the horizon): ``unit`` follows
        times and step sizes (" t_c"), ``why`` follows the cap (" here (d = 100)")."""
        if not self.capped:
            return None
        return (
            f"Gradient descent is limited to {self.cap:,} steps{why}: with step size {lr:g}{unit} "
            f"it reaches t = {self.cap * lr:.3g}{unit}, not the horizon."
        )


def step_budget(horizon: float, lr: float, cap: int) -> StepBudget:
    """The steps of size ``lr`` that reach ``horizon`` (a horizon that is a whole number of
    steps is not rounded up by the division's rounding error), at most ``cap``."""
    horizon, lr = as_positive("horizon", horizon), as_positive("lr", lr)
    cap = as_positive_int("cap", cap)
    return StepBudget(max(1, math.ceil(horizon / lr - 1e-9)), cap)
