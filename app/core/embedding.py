"""What an embedded view shows: the embed flags of its link (docs/embedding.md).

Besides ``embed=1`` a link may say which controls appear (``controls=delta,tau``; the others
keep their values, hidden or, with ``readonly=1``, shown but not movable), which plots
appear (``plots=kernel,mu``), the theme (``theme=auto|light|dark``) and the layout
(``layout=full|compact|beside``: the sidebar, or the chosen controls in a row above the plots or
in a column beside them). A flag that names nothing the view has, or a value it does not know,
is left out and said so on the page, like a bad control value: never an error.

The flags travel with the page (its ``{key}-page`` store) and every link the page writes
afterwards carries them again (:func:`carried`): an answer's link, a preset chosen inside the
frame, a click on a map cell that opens another view (which keeps the flags that fit it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["FLAGS", "LAYOUTS", "PRESET", "THEMES", "Embedding", "carried"]

#: the link names of the flags, in the order a link writes them (no control may take one:
#: tests/integration/test_embedding.py)
FLAGS = ("controls", "plots", "readonly", "layout", "theme")
THEMES = ("auto", "light", "dark")
LAYOUTS = ("full", "compact", "beside")
#: the presets menu, which ``controls=`` may list like a control
PRESET = "preset"
#: ``controls=none``: no control at all (the page's text or the course page moves the figure)
NONE = "none"
#: a list flag names at most this many things (a hostile link is bounded)
_MOST = 50


def _names(raw: str) -> list[str]:
    """``"delta, tau"`` → ``["delta", "tau"]`` (empty items dropped, bounded)."""
    return [part.strip() for part in raw.split(",") if part.strip()][:_MOST]


def _quoted(names: Sequence[str]) -> str:
    return ", ".join(repr(name[:30]) for name in names[:5])


def _choose(
    raw: str | None, known: Sequence[str], what: str, flag: str
) -> tuple[tuple[str, ...] | None, list[str]]:
    """The names of ``known`` that a list flag chooses, in the view's order (None: all)."""
    if raw is None:
        return None, []
    names = _names(raw)
    if names == [NONE]:
        return (), []
    unknown = [name for name in names if name not in known]
    chosen = tuple(name for name in known if name in names)
    messages = []
    if unknown:
        messages.append(
            f"Embed: no {what} named {_quoted(unknown)} here ({flag}= lists "
            f"{', '.join(known)}), so {'it was' if len(unknown) == 1 else 'they were'} left out."
        )
    if not chosen:
        messages.append(f"Embed: {flag}= chose none of this view's {what}s, so all are shown.")
        return None, messages
    return chosen, messages


def _pick(raw: str | None, options: Sequence[str], flag: str) -> tuple[str, list[str]]:
    if raw is None or raw.strip().lower() in options:
        return (raw.strip().lower() if raw else options[0]), []
    return options[0], [
        f"Embed: {flag}={raw[:30]!r} is not one of {', '.join(options)}, so {options[0]} is used."
    ]


def _yes_no(raw: str | None) -> tuple[bool, list[str]]:
    if raw is None or raw.strip().lower() in ("1", "0", "yes", "no", "true", "false", "on", "off"):
        return bool(raw) and raw.strip().lower() in ("1", "yes", "true", "on"), []
    return False, [f"Embed: readonly={raw[:30]!r} is neither 1 nor 0, so 0 is used."]


@dataclass(frozen=True)
class Embedding:
    """The embed flags of a link; the defaults show the whole view."""

    #: names of the controls shown (``preset`` for the presets menu); None: every one
    controls: tuple[str, ...] | None = None
    #: names of the plots shown (a panel's ``graph``); None: every one
    plots: tuple[str, ...] | None = None
    #: the controls not listed are shown, not movable (else they are out of sight)
    readonly: bool = False
    layout: str = "full"
    theme: str = "auto"

    @property
    def compact(self) -> bool:
        """No sidebar: the controls shown sit in a row above the plots or in a column beside."""
        return self.layout != "full"

    def shows_control(self, name: str) -> bool:
        return self.controls is None or name in self.controls

    def shows_plot(self, graph: str) -> bool:
        return self.plots is None or graph in self.plots

    def pairs(self) -> list[tuple[str, str]]:
        """The flags that differ from the defaults, as a link writes them."""
        pairs = []
        if self.controls is not None:
            pairs.append(("controls", ",".join(self.controls) or NONE))
        if self.plots is not None:
            pairs.append(("plots", ",".join(self.plots)))
        if self.readonly:
            pairs.append(("readonly", "1"))
        default = Embedding()
        pairs += [
            (flag, getattr(self, flag))
            for flag in ("layout", "theme")
            if getattr(self, flag) != getattr(default, flag)
        ]
        return pairs

    @classmethod
    def parse(
        cls, given: Mapping[str, str], controls: Sequence[str], plots: Sequence[str]
    ) -> tuple[Embedding, list[str]]:
        """The flags of a link (``given``: its first value of each name) for a view with these
        control and plot names, and a message for each flag left out."""
        shown, messages = _choose(given.get("controls"), [PRESET, *controls], "control", "controls")
        chosen, notes = _choose(given.get("plots"), list(plots), "plot", "plots")
        readonly, readonly_note = _yes_no(given.get("readonly"))
        layout, layout_note = _pick(given.get("layout"), LAYOUTS, "layout")
        theme, theme_note = _pick(given.get("theme"), THEMES, "theme")
        notes = [*messages, *notes, *readonly_note, *layout_note, *theme_note]
        return cls(shown, chosen, readonly, layout, theme), notes

    def to_page(self) -> dict[str, str]:
        """What the page keeps (its ``{key}-page`` store) for :func:`carried`."""
        return dict(self.pairs())


def carried(page: Any, controls: Sequence[str], plots: Sequence[str]) -> list[tuple[str, str]]:
    """The flags a page was opened with (its store, sent back by the browser: read like a
    link, anything malformed left out), as the link of a view with these control and plot
    names writes them: every later link of an embedded page keeps them."""
    kept = page.get("embedding") if isinstance(page, dict) else None
    if not isinstance(kept, dict):
        return []
    given = {k: v[:500] for k, v in kept.items() if k in FLAGS and isinstance(v, str)}
    return Embedding.parse(given, controls, plots)[0].pairs()
