"""Input checks shared by every model.

Every public solver funnels its arguments through these helpers so that bad input fails early
with a :class:`ValueError` that names the argument and says what to change, instead of
surfacing later as a NaN, an overflow or a cryptic numpy broadcasting error.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "MAX_STEPS",
    "as_array",
    "as_finite_scalar",
    "as_positive",
    "as_positive_int",
    "as_seed",
    "as_times",
]


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_array(
    name: str,
    value: Any,
    *,
    ndim: int | tuple[int, ...],
    shape: tuple[int | None, ...] | None = None,
    allow_empty: bool = False,
) -> np.ndarray:
    """Return ``value`` as a finite float64 array of the given dimensionality.

    ``shape`` may contain ``None`` for axes of any length.
    """
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as error:
        raise ValueError(
            f"{name} must be an array of real numbers; got {_describe(value)} ({error})."
        ) from None
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    if array.ndim not in allowed:
        wanted = " or ".join(f"{n}-d" for n in allowed)
        raise ValueError(f"{name} must be a {wanted} array; got an array of shape {array.shape}.")
    if shape is not None:
        for axis, (got, want) in enumerate(zip(array.shape, shape, strict=False)):
            if want is not None and got != want:
                raise ValueError(
                    f"{name} must have shape {_shape_text(shape)}; got {array.shape} "
                    f"(axis {axis} has length {got}, expected {want})."
                )
    if array.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty; got shape {array.shape}.")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or infinite entries; pass finite numbers only.")
    return array


def _shape_text(shape: tuple[int | None, ...]) -> str:
    return "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"


def as_times(value: Any, name: str = "t") -> np.ndarray:
    """Return evaluation times as a finite, non-negative 1-d float array (a scalar becomes (1,))."""
    times = as_array(name, value, ndim=(0, 1))
    times = np.atleast_1d(times)
    if np.any(times < 0):
        raise ValueError(
            f"{name} must contain times >= 0 (gradient flow runs forward from the "
            f"initialisation); the smallest given is {times.min():g}."
        )
    return times


def as_finite_scalar(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real | np.ndarray):
        raise ValueError(f"{name} must be a real number; got {_describe(value)}.")
    try:
        array = np.asarray(value, dtype=np.float64)
    except OverflowError:
        raise ValueError(
            f"{name} is beyond the range of double precision; got {_describe(value)}."
        ) from None
    if array.ndim != 0:
        raise ValueError(f"{name} must be a single number; got an array of shape {array.shape}.")
    number = float(array)
    if not np.isfinite(number):
        raise ValueError(f"{name} must be finite; got {number}.")
    return number


def as_positive(name: str, value: Any) -> float:
    number = as_finite_scalar(name, value)
    if number <= 0:
        raise ValueError(f"{name} must be > 0; got {number:g}.")
    return number


def as_positive_int(name: str, value: Any, *, minimum: int = 1, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be a whole number; got {_describe(value)}.")
    number = int(value)
    if number < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {number}.")
    if maximum is not None and number > maximum:
        raise ValueError(f"{name} must be at most {maximum:,}; got {number:,}.")
    return number


def as_seed(value: Any) -> np.random.Generator:
    """Accept an int seed, None or a numpy Generator."""
    if isinstance(value, np.random.Generator):
        return value
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
        raise ValueError(f"seed must be a whole number or None; got {_describe(value)}.")
    if value is not None and int(value) < 0:
        raise ValueError(f"seed must be >= 0; got {value}.")
    return np.random.default_rng(value)


#: most gradient-descent steps one call may take (a larger step covers a longer horizon)
MAX_STEPS = 100_000_000

Function = TypeVar("Function", bound=Callable[..., Any])


def guard_overflow(function: Function) -> Function:
    """Turn overflow of double precision inside a solver into an actionable ValueError.

    Parameters far from any sensible scale (say γ = 1e200, or a weight of 1e200) make
    intermediate products exceed 1.8e308; the caller then learns which call and what to do,
    instead of receiving inf or NaN.
    """

    @functools.wraps(function)
    def guarded(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except OverflowError as error:  # Python-float arithmetic on the scalar parameters
            raise ValueError(
                f"{function.__module__.rsplit('.', 1)[-1]}.{function.__name__}: these parameters "
                f"overflow double precision ({error}); use scales closer to 1 "
                "(weights, targets, learning rates, output scale)."
            ) from None

    return guarded  # type: ignore[return-value]


def require_finite(where: str, *arrays: np.ndarray) -> None:
    if not all(np.all(np.isfinite(array)) for array in arrays):
        raise ValueError(
            f"{where}: the result overflows double precision for these parameters; use scales "
            "closer to 1 (weights, targets, learning rates, output scale)."
        )
