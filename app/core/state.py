"""A page's whole state: one typed object that round-trips through the URL query string.

A view declares its controls as a frozen dataclass whose fields are made by :func:`number`,
:func:`integer`, :func:`choice` and :func:`switch` (each carries its label, range and help).
:class:`StateSpec` reads that class once. The same spec parses the query string of a shared
link and the raw values a callback receives (which may come from a hand-made request), so both
paths enforce identical types, ranges and caps. Bad values never raise: they are replaced (by
the default) or clamped (to the range), and each change is reported as a plain-language
message for the page.

:class:`PageState` adds what a link carries besides the controls — the preset it names, the
animation frame, the embed flag — parsed by the same validators, with one truth convention.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar
from urllib.parse import parse_qsl, urlencode

from .embedding import FLAGS, Embedding
from .presets import Preset

__all__ = [
    "Field",
    "PageState",
    "StateSpec",
    "choice",
    "integer",
    "number",
    "query_pairs",
    "switch",
]

Controls = TypeVar("Controls")

#: metadata key of a control's :class:`Field` on a controls dataclass
_FIELD = "lazy-rich-field"
#: the optional method of a controls dataclass that applies the limits one control sets another
#: (``n`` at most 100 with ten classes): ``within_limits(self) -> (controls, messages)``. The
#: values it returns are the ones used — the link carries them and the page's controls are set
#: to them (assets/app.js) — so that a message never describes what the controls do not show.
LIMITS = "within_limits"
#: words a link or a form may use for yes and no
_YES = ("1", "true", "yes", "on")
_NO = ("0", "false", "no", "off")


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
        value = truth(raw)
        if value is None:
            return self.default, f"{self.label}: not a yes/no value, so it was reset."
        return value, None

    def _clean_choice(self, raw: Any) -> tuple[Any, str | None]:
        for option in self.choices:
            if raw == option or (isinstance(raw, str) and raw == str(option)):
                return option, None
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
        if self.log:
            return math.log10(value)
        if self.kind == "bool":
            return ["on"] if value else []
        return value

    def from_control(self, raw: Any) -> Any:
        """Undo :meth:`to_control` for a raw control value (still to be cleaned: a whole
        number's is rounded then)."""
        if self.log:
            number = _to_number(raw)
            if number is None or not math.isfinite(number):
                return raw  # clean() reports it
            return 10.0 ** min(max(number, -300.0), 300.0)  # out of range: clean() clamps
        return raw


def truth(raw: Any) -> bool | None:
    """The one reading of yes/no everywhere (links, forms, checklists); None if it is neither."""
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, numbers.Real) and raw in (0, 1):
        return bool(raw)
    if isinstance(raw, str) and raw.strip().lower() in _YES + _NO:
        return raw.strip().lower() in _YES
    if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
        return bool(raw)  # a Checklist's value
    return None


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


# -- declaring controls ------------------------------------------------------------------


def _declare(kind: str, label: str, default: Any, **options: Any) -> Any:
    spec = Field("", label, kind, default, **options)
    return dataclasses.field(default=default, metadata={_FIELD: spec})


def number(
    label: str,
    default: float,
    low: float,
    high: float,
    *,
    log: bool = False,
    step: float | None = None,
    physics: bool = True,
    help: str = "",
) -> Any:
    """A real number in [low, high]; ``log`` for a slider over decades."""
    return _declare(
        "float",
        label,
        float(default),
        low=low,
        high=high,
        log=log,
        step=step,
        physics=physics,
        help=help,
    )


def integer(
    label: str,
    default: int,
    low: int,
    high: int,
    *,
    step: int = 1,
    log: bool = False,
    physics: bool = True,
    help: str = "",
) -> Any:
    """A whole number in [low, high]; ``log`` for a slider over decades (its positions are
    rounded: 10, 13, 16, 20, 25, …)."""
    return _declare(
        "int",
        label,
        int(default),
        low=low,
        high=high,
        step=step,
        log=log,
        physics=physics,
        help=help,
    )


def choice(
    label: str,
    default: Any,
    options: Sequence[Any],
    labels: Sequence[str] = (),
    *,
    physics: bool = True,
    help: str = "",
) -> Any:
    return _declare(
        "choice",
        label,
        default,
        choices=tuple(options),
        choice_labels=tuple(labels),
        physics=physics,
        help=help,
    )


def switch(label: str, default: bool, *, physics: bool = True, help: str = "") -> Any:
    return _declare("bool", label, bool(default), physics=physics, help=help)


# -- the state of a page -----------------------------------------------------------------

#: what a link carries besides the controls, validated like a control
EMBED = Field("embed", "embed", "bool", False)
FRAME = Field("frame", "animation frame", "int", 0, 0, 10_000)


@dataclass(frozen=True)
class PageState(Generic[Controls]):
    """Everything a link says about a view: its controls, the preset it named, the animation
    frame, whether it is embedded and what it then shows, and what had to be corrected to get
    there."""

    controls: Controls
    preset: Preset | None = None
    frame: int = 0
    embed: bool = False
    messages: tuple[str, ...] = ()
    #: the embed flags (the defaults when the page is not embedded)
    embedding: Embedding = dataclasses.field(default_factory=Embedding)


class StateSpec(Generic[Controls]):
    """The fields of one controls dataclass, in declaration order, and how they travel."""

    def __init__(self, controls: type[Controls]) -> None:
        self.type = controls
        self.fields: tuple[Field, ...] = tuple(
            dataclasses.replace(item.metadata[_FIELD], name=item.name)
            for item in dataclasses.fields(controls)
        )
        self.by_name = {spec.name: spec for spec in self.fields}

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    def defaults(self) -> Controls:
        return self.type()

    def parse(self, raw: Mapping[str, Any]) -> tuple[Controls, tuple[str, ...]]:
        """Validate a mapping of raw values (missing names take their defaults), then apply
        the limits one control sets another (:data:`LIMITS`)."""
        values, messages = {}, []
        for spec in self.fields:
            value, message = spec.clean(raw.get(spec.name))
            values[spec.name] = value
            if message:
                messages.append(message)
        controls = self.type(**values)
        limit = getattr(controls, LIMITS, None)
        if callable(limit):
            controls, notes = limit()
            messages.extend(notes)
        return controls, tuple(messages)

    def parse_controls(self, raw_values: Sequence[Any]) -> tuple[Controls, tuple[str, ...]]:
        """Validate the values of the view's controls, in field order (from a callback)."""
        raw_values = list(raw_values)[: len(self.fields)]
        raw_values += [None] * (len(self.fields) - len(raw_values))
        pairs = zip(self.fields, raw_values, strict=True)
        return self.parse({spec.name: spec.from_control(value) for spec, value in pairs})

    def parse_query(
        self, search: str | None, presets: Sequence[Preset] = (), plots: Sequence[str] = ()
    ) -> PageState[Controls]:
        """The page state a query string ('?a=1&b=2') describes. A ``preset`` it names (by
        slug or an earlier slug) gives the values the link leaves out, else the defaults.
        ``plots``: the names of the view's plots, which the embed flags may choose."""
        given: dict[str, str] = {}
        for key, value in query_pairs(search):
            given.setdefault(key, value)
        messages: list[str] = []
        preset = None
        if "preset" in given:
            preset = next((p for p in presets if p.answers_to(given["preset"])), None)
            if preset is None:
                known = ", ".join(p.slug for p in presets)
                messages.append(
                    f"Unknown preset {given['preset'][:40]!r} in the link; known: {known}."
                )
        raw = dict(preset.values if preset else {}) | {
            k: v for k, v in given.items() if k in self.by_name
        }
        controls, corrected = self.parse(raw)
        embed, embed_note = EMBED.clean(given.get("embed"))
        frame, frame_note = FRAME.clean(given.get("frame"))
        unknown = sorted(set(given) - set(self.by_name) - {"embed", "frame", "preset", *FLAGS})
        if unknown:
            messages.append("Ignored unknown link settings: " + ", ".join(unknown[:5]) + ".")
        embedding, flag_notes = self._embedding(given, embed, plots)
        notes = [note for note in (embed_note, frame_note) if note] + flag_notes
        state = PageState(controls, preset, frame, embed, (*messages, *corrected, *notes))
        return dataclasses.replace(state, embedding=embedding)

    def _embedding(
        self, given: Mapping[str, str], embed: bool, plots: Sequence[str]
    ) -> tuple[Embedding, list[str]]:
        """The embed flags of a link; a page that is not embedded shows everything."""
        flags = sorted(name for name in FLAGS if name in given)
        if flags and not embed:
            return Embedding(), [
                f"{', '.join(flags)}: only an embedded view (embed=1) shows a part of itself, "
                "so the whole view is shown."
            ]
        return Embedding.parse(given, self.names, plots)

    def encode(
        self, controls: Controls, *, embed: bool = False, flags: Sequence[tuple[str, str]] = ()
    ) -> str:
        """The query string ('?…') of a full set of values (every field, in order), then
        ``embed=1`` and the embed ``flags`` (:meth:`Embedding.pairs`) of an embedded page."""
        pairs = [(spec.name, spec.encode(getattr(controls, spec.name))) for spec in self.fields]
        if embed:
            pairs += [("embed", "1"), *flags]
        return "?" + urlencode(pairs, safe=",")

    def physics_key(self, controls: Controls) -> tuple:
        """The tuple of scalars that determines the computed result (the cache key)."""
        return tuple(
            (spec.name, getattr(controls, spec.name)) for spec in self.fields if spec.physics
        )

    def physics_only(self, controls: Controls) -> Controls:
        """``controls`` with every display-only field at its default: what a computation may
        see, so that results cached under :meth:`physics_key` cannot depend on anything else."""
        display = {spec.name: spec.default for spec in self.fields if not spec.physics}
        return dataclasses.replace(controls, **display) if display else controls

    def to_controls(self, controls: Controls) -> list[Any]:
        """The values the page's controls show for ``controls`` (log sliders on log10)."""
        return [spec.to_control(getattr(controls, spec.name)) for spec in self.fields]

    def with_overrides(self, overrides: Mapping[str, Any], *, clamp: bool = False) -> Controls:
        """Defaults updated by ``overrides`` (a preset's values, a click's target), validated.

        A value the page would change (out of range, not a choice) raises ``ValueError``
        unless ``clamp``: then it is changed as the page changes it (a link to another view
        whose sliders do not reach the value). Silently clamped, a preset or a test's state
        would not be the one it names."""
        unknown = sorted(set(overrides) - set(self.by_name))
        if unknown:
            raise ValueError(f"no control named {', '.join(unknown)}; controls: {self.names}")
        controls, messages = self.parse(dataclasses.asdict(self.defaults()) | dict(overrides))
        if messages and not clamp:
            raise ValueError("; ".join(messages))
        return controls


def query_pairs(search: str | None) -> list[tuple[str, str]]:
    """(key, value) pairs of a query string, bounded in number and length (hostile links)."""
    pairs = parse_qsl((search or "").lstrip("?"), keep_blank_values=True)[:200]
    return [(key[:64], value[:200]) for key, value in pairs]
