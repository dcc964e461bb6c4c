"""A paper figure's claim, and its check over the figure's own computed result.

A card on the paper-figures page says in one sentence what its paper's figure shows — or, where
the model drawn here differs from the paper's, what this model shows instead — and proves it on
the numbers it draws: ``check(controls, result)`` returns :class:`Evidence`, whether the claim
holds and the numbers that decide it. The page prints the evidence under the claim; a test
evaluates every card's check (tests/integration/test_paper_claims.py), so a card whose data stop
showing its claim fails CI instead of teaching the wrong thing.

The helpers read curves the way a reader of the plot would: the value at a time, the first time
a curve crosses a level, the time of its steepest rise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "Claim",
    "Evidence",
    "all_of",
    "crossing_time",
    "num",
    "value_at",
]


@dataclass(frozen=True)
class Evidence:
    """Whether a claim holds on a card's data, and the numbers that decide it (plain words)."""

    holds: bool
    found: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "holds", bool(self.holds))  # numpy's bool is not JSON's


@dataclass(frozen=True)
class Claim:
    """One sentence and the predicate over ``(controls, result)`` that checks it."""

    text: str
    check: Callable[[Any, Any], Evidence]

    def evaluate(self, controls: Any, result: Any) -> Evidence:
        """The evidence, or a failed one naming the error (a check that cannot read its data
        has not shown its claim)."""
        try:
            evidence = self.check(controls, result)
        except (ArithmeticError, AttributeError, IndexError, KeyError, TypeError, ValueError) as e:
            return Evidence(False, f"the check could not be evaluated: {e}")
        if not isinstance(evidence, Evidence):
            raise TypeError(f"a claim's check must return Evidence, not {type(evidence).__name__}")
        return evidence


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def num(value: float, spec: str = ".3g") -> str:
    """A number as the page prints it: ``spec`` digits, a true minus sign, and powers of ten
    written out (``1.8·10⁻¹⁵``, not ``1.8e-15``)."""
    text = format(value, spec)
    if "e" in text:
        mantissa, exponent = text.split("e")
        power = "10" + str(int(exponent)).translate(_SUPERSCRIPT)
        text = power if mantissa in ("1", "1.0") else f"{mantissa}·{power}"
    return text.replace("-", "−")


def all_of(*parts: Evidence) -> Evidence:
    """Several findings that must all hold, reported together."""
    return Evidence(all(p.holds for p in parts), "; ".join(p.found for p in parts))


def value_at(t: Sequence[float] | np.ndarray, values: Sequence[float] | np.ndarray, time: float):
    """A curve's value at ``time`` (linear between its points; its last value beyond them)."""
    t, values = np.asarray(t, dtype=float), np.asarray(values, dtype=float)
    return float(np.interp(time, t, values))


def crossing_time(
    t: Sequence[float] | np.ndarray, values: Sequence[float] | np.ndarray, level: float
) -> float:
    """The first time a curve reaches ``level`` from below (linear between its points), or
    ``inf`` if it never does."""
    t, values = np.asarray(t, dtype=float), np.asarray(values, dtype=float)
    above = np.flatnonzero(values >= level)
    if above.size == 0:
        return math.inf
    k = int(above[0])
    if k == 0:
        return float(t[0])
    v0, v1 = values[k - 1], values[k]
    return float(t[k - 1] + (level - v0) / (v1 - v0) * (t[k] - t[k - 1]))
