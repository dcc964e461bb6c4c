"""One redraw per change, and only of what changed.

The browser's gate (``assets/app.js``) lets one request per view through at a time: a sequence
number, the play bar's frame, and the control values and frame of what the page shows now
(``drawn``; None on a first load or after a failed answer); the server callback reads the
controls themselves as its State. The server draws both
states from cached results and answers each plot with only its difference: a ``dash.Patch`` of
the traces and layout keys that changed, or nothing at all for a plot that did not change —
so static layers (a surface, axes, annotations) are neither sent nor redrawn.

Plots scrolled out of sight are not drawn at all: the request names them (``hidden``) and they
get no update; the answer lists them as ``stale``, and the gate asks again when one comes into
view, which then gets its whole figure (the page does not know which state it shows). The play
bar's frames leave out the matrices of stale plots too (:meth:`Frames.payload`): they come
with that whole figure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from dash import Patch, no_update

from ..ui import components
from ..ui.notation import plain
from ..ui.theme import THEMES
from .panel import Figure

__all__ = [
    "ANSWER_FIELDS",
    "Answer",
    "Reply",
    "Request",
    "echo",
    "failure_text",
    "figure_update",
    "figure_updates",
    "same",
]


def _index(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0
    return int(min(max(value, 0), 10_000))


def _values(value: Any) -> list | None:
    return list(value)[:200] if isinstance(value, list) else None


def _theme(value: Any) -> str:
    return value if value in THEMES else "light"


def _names(value: Any) -> frozenset[str]:
    """A list of graph names from the page (bounded; anything else is ignored)."""
    if not isinstance(value, list):
        return frozenset()
    return frozenset(v[:100] for v in value[:50] if isinstance(v, str))


@dataclass(frozen=True)
class Request:
    """What the page's gate asks for, parsed defensively (it may be a hand-made request)."""

    seq: int | None = None
    frame: int = 0
    #: the page's colour theme ("light" or "dark"), which the plots follow
    theme: str = "light"
    #: (control values, frame, theme) of what the page shows now, if it knows
    drawn: tuple[list, int, str] | None = None
    #: graphs out of sight (not drawn now)
    hidden: frozenset[str] = frozenset()
    #: graphs that show an older state than ``drawn`` (skipped while hidden)
    stale: frozenset[str] = frozenset()
    #: graphs the page does not show at all (an embed's choice: app/core/embedding.py)
    left_out: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, raw: Any) -> Request:
        raw = raw if isinstance(raw, dict) else {}
        seq = raw.get("seq")
        seq = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
        drawn = raw.get("drawn")
        before = None
        if isinstance(drawn, dict) and _values(drawn.get("values")) is not None:
            before = (
                _values(drawn["values"]),
                _index(drawn.get("frame")),
                _theme(drawn.get("theme")),
            )
        return cls(
            seq,
            _index(raw.get("frame")),
            _theme(raw.get("theme")),
            before,
            _names(raw.get("hidden")),
            _names(raw.get("stale")),
            _names(raw.get("left_out")),
        )

    def plan(self, graphs: Sequence[str]) -> tuple[frozenset[str], frozenset[str]]:
        """(graphs to skip, graphs to send whole) for a change that is drawn: the hidden ones
        wait; a stale one in sight gets its whole figure. On a first load (nothing drawn)
        every plot is drawn but those the page leaves out."""
        known = frozenset(graphs)
        if self.drawn is None:
            return self.left_out & known, frozenset()
        return self.hidden & known, (self.stale - self.hidden) & known

    def stale_after(self, graphs: Sequence[str], skipped: frozenset[str], asked: list) -> list[str]:
        """The graphs still showing an older state once the answer to this request (for the
        control values ``asked``) is drawn."""
        unchanged = self.drawn == (asked, self.frame, self.theme)
        older = self.stale & skipped
        return sorted(older if unchanged else older | skipped, key=list(graphs).index)


def echo(value: Any, depth: int = 0) -> Any:
    """A received value as it may go back out as strict JSON (non-finite numbers as None,
    text and lists bounded): the gate compares it with what the page's controls hold."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return value[:200]
    if isinstance(value, list) and depth < 3:
        return [echo(item, depth + 1) for item in value[:50]]
    if value is None or isinstance(value, bool | int):
        return value
    return None


def same(a: Any, b: Any) -> bool:
    """Equality of figure pieces (dicts, lists, numbers, strings, small numpy arrays)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def _patch_trace(patch: Patch, index: int, old: dict, new: dict) -> None:
    if old.keys() != new.keys():
        patch["data"][index] = new
        return
    for key, value in new.items():
        if not same(old[key], value):
            patch["data"][index][key] = value


def _kinds(figure: Figure) -> list:
    return [trace.get("type") for trace in figure.get("data", [])]


def failure_text(error: Exception) -> str:
    """What the page says when a result could not be computed: the engine's own message for
    bad input (a ``ValueError`` says what to change), else only that it failed — other errors'
    texts are the server's business (they may name hosts, ports or files) and go to the log."""
    if type(error) is ValueError or type(error).__module__.startswith("solvers"):
        return f"This combination could not be computed: {str(error)[:300]}"
    return "This combination could not be computed (an error on the server, which has been logged)."


def figure_update(before: Figure | None, after: Figure) -> Any:
    """What to send for one plot: the whole figure, a Patch of its changes, or no_update."""
    if before is None or _kinds(before) != _kinds(after):
        return after
    if same(before, after):
        return no_update
    patch = Patch()
    for index, (old, new) in enumerate(zip(before["data"], after["data"], strict=True)):
        if not same(old, new):
            _patch_trace(patch, index, old, new)
    old_layout, new_layout = before.get("layout", {}), after.get("layout", {})
    for key in new_layout.keys() | old_layout.keys():
        if key not in new_layout:
            del patch["layout"][key]
        elif not same(old_layout.get(key), new_layout[key]):
            patch["layout"][key] = new_layout[key]
    return patch


def figure_updates(before: Sequence[Figure | None] | None, after: Sequence[Figure | None]) -> list:
    """Each plot's update; None in ``after`` is a plot not drawn (no update), None in
    ``before`` one whose state the page does not know (its whole figure)."""
    if before is None:
        before = [None] * len(after)
    return [
        no_update if new is None else figure_update(old, new)
        for old, new in zip(before, after, strict=True)
    ]


#: the main callback's outputs, by name (app/core/view.py registers one Output per name; the
#: figures are one Output per panel)
ANSWER_FIELDS = (
    "figures",
    "summary",
    "status",
    "messages",
    "link",
    "frames",
    "last_frame",
    "answered",
    "job",
)


@dataclass(frozen=True)
class Answer:
    """The main callback's answer, by name: what each output of the page receives.

    ``status`` is the line under the summary that students read (a background job's state, or
    nothing); how the server obtained the result (cache or computed, and how long it took) is
    ``served``, which goes to the log and to the gate's answer data, never into the text."""

    #: the panels' graph names, in the view's order
    graphs: tuple[str, ...]
    #: per panel, in that order: a whole figure, a ``Patch`` of its changes, or no_update
    figures: tuple
    summary: Any
    status: Any
    #: the message components
    messages: Any
    #: the link's query string ("?a=1&b=2") of what the page shows
    link: str
    #: the play bar's frames (None for a view without them)
    frames: Any
    last_frame: Any
    #: the answer to the page's gate (assets/app.js): {seq, values, theme, drawn, stale}
    answered: dict
    #: a background job the page now follows (its ticket and values), or no_update
    job: Any = no_update

    def outputs(self) -> dict[str, Any]:
        """The answer as Dash's grouping of the registered outputs."""
        named = {name: getattr(self, name) for name in ANSWER_FIELDS}
        return named | {"figures": list(self.figures)}

    def figure(self, graph: str) -> Any:
        """The update of the panel named ``graph``."""
        return self.figures[self.graphs.index(graph)]

    @property
    def by_graph(self) -> dict[str, Any]:
        return dict(zip(self.graphs, self.figures, strict=True))

    @property
    def texts(self) -> list[str]:
        """The messages' texts, their typeset notation written back out ("d_out", "λ_max")."""
        return [plain(message.children) for message in self.messages]

    @property
    def stale(self) -> list[str]:
        return list(self.answered.get("stale", []))


@dataclass(frozen=True)
class Reply:
    """Builds the :class:`Answer` to one request of the page's gate."""

    #: the view's graph names, in order
    graphs: tuple[str, ...]
    seq: int | None
    #: the control values asked for, as they go back to the gate (strict JSON)
    asked: list
    frame: int
    theme: str
    #: (values, frame, theme) the page shows now, as the request said
    before: tuple[list, int, str] | None
    search: str
    #: messages of the link the page was opened with (kept in front)
    carried: list[str]
    #: graphs the page said were stale (unchanged while nothing new is drawn)
    stale: list[str]

    @classmethod
    def to(
        cls,
        graphs: Sequence[str],
        ask: Request,
        raw: Sequence[Any],
        search: str,
        carried: list[str],
    ) -> Reply:
        asked = echo(list(raw))
        stale = sorted(ask.stale)
        return cls(
            tuple(graphs), ask.seq, asked, ask.frame, ask.theme, ask.drawn, search, carried, stale
        )

    def _answer(self, drawn: dict | None, stale: Sequence[str] = ()) -> dict:
        return {
            "seq": self.seq,
            "values": self.asked,
            "theme": self.theme,
            "drawn": drawn,
            "stale": list(stale),
        }

    def _messages(self, messages: Sequence[str]) -> list:
        kept = self.carried + [m for m in messages if m not in self.carried]
        return components.message_children(kept)

    def drawn(
        self,
        figures: Sequence[Any],
        summary: Any,
        messages: Sequence[str],
        frames: dict | None,
        stale: Sequence[str] = (),
    ) -> Answer:
        """The answer with ``figures`` drawn (``stale``: the plots left behind, unseen)."""
        last = max(len(frames["t"]) - 1, 1) if frames else 1
        shown = {"values": self.asked, "frame": self.frame, "theme": self.theme}
        return Answer(
            graphs=self.graphs,
            figures=tuple(figures),
            summary=summary,
            status="",
            messages=self._messages(messages),
            link=self.search,
            frames=frames,
            last_frame=last,
            answered=self._answer(shown, stale),
        )

    def partial(
        self,
        figures: Sequence[Any],
        summary: Any,
        messages: Sequence[str],
        frames: dict | None,
        status: str,
        job: Any,
    ) -> Answer:
        """The answer with a background job's partial result drawn whole, the page following
        the job (``job``: its ticket and values). What the page shows is not told to the
        gate: these figures are no state that a later answer may send differences from."""
        answer = self.drawn(figures, summary, messages, frames)
        return replace(answer, status=status, answered=self._answer(None), job=job)

    def failed(self, messages: Sequence[str]) -> Answer:
        """Every plot empty, saying it could not be computed; the messages say why."""
        return Answer(
            graphs=self.graphs,
            figures=tuple(components.failed_figure() for _ in self.graphs),
            summary=None,
            status="",
            messages=self._messages(messages),
            link=self.search,
            frames=None,
            last_frame=1,
            answered=self._answer(None),
        )

    def refused(self, messages: Sequence[str], search: str) -> Answer:
        """Nothing computed (the page has too many requests in progress): the plots stay, the
        gate learns that no values were answered (a later move asks again)."""
        answer = self.waiting("", messages, no_update)
        return replace(answer, link=search, answered=self._answer(None) | {"values": None})

    def waiting(self, status: str, messages: Sequence[str], job: Any) -> Answer:
        """The plots stay as they are while a background job computes (or could not start:
        ``job`` is then no_update and the messages say why)."""
        before = self.before
        shown = (
            None if before is None else dict(zip(("values", "frame", "theme"), before, strict=True))
        )
        return Answer(
            graphs=self.graphs,
            figures=(no_update,) * len(self.graphs),
            summary=no_update,
            status=status,
            messages=self._messages(messages),
            link=self.search,
            frames=no_update,
            last_frame=no_update,
            answered=self._answer(shown, self.stale),
            job=job,
        )
