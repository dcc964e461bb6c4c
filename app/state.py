"""A view's whole state: one validated object that round-trips through the URL query string.

Each view declares its controls as :class:`Field` s in a :class:`StateSpec`. The same spec
parses the query string of a shared link and the raw values a callback receives (which may come
from a hand-made request), so both paths enforce identical types, ranges and caps. Bad values
never raise: they are replaced (by the default) or clamped (to the range), and each change is
reported as a plain-language message for the page.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

__all__ = ["Field", "Parsed", "StateSpec"]


@dataclass(frozen=True)
class Field:
    """One control of a view.

    kind: "float", "int", "choice" or "bool". Numbers have a closed range [low, high];
    ``log`` marks numbers whose control works on log10 of the value (spans of decades).
    ``physics`` fields change the computed result (they key the cache); others only change
    how it is shown.
    """

    name: str
    label: str
    kind: str
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] = ()
    choice_labels: tuple[str, ...] = ()
    log: bool = False
    step: float | None = None
    physics: bool = True
    help: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("float", "int", "choice", "bool"):
            raise ValueError(f"unknown field kind {self.kind!r}")
        if self.kind in ("float", "int") and (self.low is None or self.high is None):
            raise ValueError(f"field {self.name} needs a range")
        if self.kind == "choice" and self.default not in self.choices:
            raise ValueError(f"field {self.name}: default not among choices")

    # -- values ----------------------------------------------------------------------------

    def clean(self, raw: Any) -> tuple[Any, str | None]:
        """(valid value, message or None) for any raw input: never raises."""
        if raw is None or (isinstance(raw, str) and raw.strip() == ""):
            return self.default, None
        if self.kind == "bool":
            return self._clean_bool(raw)
        if self.kind == "choice":
            return self._clean_choice(raw)
        return self._clean_number(raw)

    def _clean_bool(self, raw: Any) -> tuple[Any, str | None]:
        if isinstance(raw, bool):
            return raw, None
        if isinstance(raw, numbers.Real) and raw in (0, 1):
            return bool(raw), None
        if isinstance(raw, str) and raw.lower() in (
            "1",
            "true",
            "yes",
            "on",
            "0",
            "false",
            "no",
            "off",
        ):
            return raw.lower() in ("1", "true", "yes", "on"), None
        if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
            return bool(raw), None  # a Checklist's value
        return self.default, f"{self.label}: not a yes/no value, so it was reset."

    def _clean_choice(self, raw: Any) -> tuple[Any, str | None]:
        for choice in self.choices:
            if raw == choice or (isinstance(raw, str) and raw == str(choice)):
                return choice, None
        return self.default, f"{self.label}: unknown option {_short(raw)}, so the default was used."

    def _clean_number(self, raw: Any) -> tuple[Any, str | None]:
        number = _to_number(raw)
        if number is None:
            return (
                self.default,
                f"{self.label}: {_short(raw)} is not a number, so the default was used.",
            )
        if not math.isfinite(number):
            return (
                self.default,
                f"{self.label}: {_short(raw)} is not finite, so the default was used.",
            )
        message = None
        if number < self.low or number > self.high:
            clamped = min(max(number, self.low), self.high)
            message = (
                f"{self.label}: {number:.6g} is outside [{self.low:g}, {self.high:g}]; "
                f"using {clamped:g}."
            )
            number = clamped
        if self.kind == "int":
            return round(number), message
        # Exactly what the link carries (encode uses 10 digits): a copied link recomputes the
        # same numbers, and the cache key is the same.
        return float(f"{number:.10g}"), message

    def encode(self, value: Any) -> str:
        if self.kind == "bool":
            return "1" if value else "0"
        if self.kind == "float":
            return f"{value:.10g}"
        return str(value)

    # -- the control's own representation (log sliders work on log10) --------------------

    def to_control(self, value: Any) -> Any:
        if self.kind == "float" and self.log:
            return math.log10(value)
        if self.kind == "bool":
            return ["on"] if value else []
        return value

    def from_control(self, raw: Any) -> Any:
        """Undo :meth:`to_control` for a raw control value (still to be cleaned)."""
        if self.kind == "float" and self.log:
            number = _to_number(raw)
            if number is None or not math.isfinite(number):
                return raw  # clean() reports it
            return 10.0 ** min(max(number, -300.0), 300.0)  # out of range: clean() clamps
        return raw


def _to_number(raw: Any) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, numbers.Real):
        return float(raw)
    if isinstance(raw, str):
        try:
            return float(raw.strip())
        except ValueError:
            return None
    return None


def _short(raw: Any) -> str:
    text = repr(raw)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Parsed:
    """Validated values of every field, and what had to be changed to get them."""

    values: dict[str, Any]
    messages: tuple[str, ...] = ()

    def __getitem__(self, name: str) -> Any:
        return self.values[name]


@dataclass(frozen=True)
class StateSpec:
    """The fields of one view, in control order."""

    fields: tuple[Field, ...]
    #: query-string keys that are not fields but must survive a round trip (e.g. embed)
    passthrough: tuple[str, ...] = ("embed",)
    by_name: dict[str, Field] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {f.name: f for f in self.fields})

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    def defaults(self) -> dict[str, Any]:
        return {f.name: f.default for f in self.fields}

    def parse(self, raw: Mapping[str, Any]) -> Parsed:
        """Validate a mapping of raw values (missing names take their defaults)."""
        values, messages = {}, []
        for spec in self.fields:
            value, message = spec.clean(raw.get(spec.name))
            values[spec.name] = value
            if message:
                messages.append(message)
        return Parsed(values, tuple(messages))

    def parse_controls(self, raw_values: Sequence[Any]) -> Parsed:
        """Validate the values of the view's controls, in field order (from a callback)."""
        raw_values = list(raw_values) + [None] * (len(self.fields) - len(raw_values))
        pairs = zip(self.fields, raw_values, strict=True)
        raw = {spec.name: spec.from_control(value) for spec, value in pairs}
        return self.parse(raw)

    def parse_query(
        self, search: str | None, base: Mapping[str, Any] | None = None
    ) -> tuple[Parsed, dict[str, str]]:
        """Validate a query string ('?a=1&b=2'); also returns the passthrough keys present.
        Names the query leaves out take their value from ``base`` (a preset), else the default.
        """
        raw: dict[str, Any] = dict(base or {})
        given: set[str] = set()
        for key, value in query_pairs(search):
            if key not in given:
                given.add(key)
                raw[key] = value
        # "frame" (the animation's position) is written and read by the browser itself;
        # "preset" is resolved by the view into ``base``.
        known = set(self.by_name) | set(self.passthrough) | {"frame", "preset"}
        unknown = [k for k in given if k not in known]
        parsed = self.parse(raw)
        messages = list(parsed.messages)
        if unknown:
            messages.append(
                "Ignored unknown link settings: " + ", ".join(sorted(unknown)[:5]) + "."
            )
        extras = {k: raw[k] for k in self.passthrough if k in given}
        return Parsed(parsed.values, tuple(messages)), extras

    def encode(self, values: Mapping[str, Any], extras: Mapping[str, str] | None = None) -> str:
        """The query string ('?…') of a full set of values (every field, in order)."""
        pairs = [(spec.name, spec.encode(values[spec.name])) for spec in self.fields]
        pairs += list((extras or {}).items())
        return "?" + urlencode(pairs)

    def physics_key(self, values: Mapping[str, Any]) -> tuple:
        """The tuple of scalars that determines the computed result (cache key)."""
        return tuple((spec.name, values[spec.name]) for spec in self.fields if spec.physics)

    def controls(self, values: Mapping[str, Any]) -> list[Any]:
        return [spec.to_control(values[spec.name]) for spec in self.fields]

    def with_overrides(self, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults updated by a preset's overrides, validated."""
        merged = self.defaults() | dict(overrides)
        return self.parse(merged).values


def query_pairs(search: str | None) -> list[tuple[str, str]]:
    """(key, value) pairs of a query string, bounded in number and length (hostile links)."""
    pairs = parse_qsl((search or "").lstrip("?"), keep_blank_values=True)[:200]
    return [(key[:64], value[:200]) for key, value in pairs]
