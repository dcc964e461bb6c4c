"""Calling a view's main callback as the page does, and reading its answer by name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.ui.figures import compact


def plain(children: Any) -> str:
    """Typeset Dash components as the plain text they were set from."""
    if isinstance(children, str):
        return children
    if isinstance(children, list | tuple):
        return "".join(plain(child) for child in children)
    inner = plain(getattr(children, "children", ""))
    kind = type(children).__name__
    if kind == "Sub":
        return f"_{inner}" if len(inner) == 1 or inner.isalnum() else f"_{{{inner}}}"
    if kind == "Sup":
        return f"^{inner}"
    return inner


@dataclass(frozen=True)
class Answer:
    figures: list  #: per panel: a figure, a Patch or no_update
    summary: Any
    timing: str
    messages: list  #: the message components
    search: str
    frames: dict | None
    last_frame: int
    reply: dict  #: the answer to the page's gate
    job: Any  #: a background job to start (no_update if none)

    @property
    def texts(self) -> list[str]:
        """Each message in the views' plain notation ("d_out", "λ_max"): its typeset
        components (italics, lowered and raised parts) written back out."""
        return [plain(message.children) for message in self.messages]

    def figure(self, view, graph: str):
        return self.figures[[p.graph for p in view.panels].index(graph)]


def answer(
    view, cache, controls=None, *, raw=None, page=None, request=None, jobs=None, done=None
) -> Answer:
    """The main callback's answer for ``controls`` (or raw control values ``raw``) on a page's
    first request (``request``: the gate's request, if not that); ``jobs`` and ``done`` as
    :meth:`app.core.view.View.update` takes them."""
    if raw is None:
        raw = view.spec.to_controls(view.spec.defaults() if controls is None else controls)
    page = {"embed": False, "messages": []} if page is None else page
    request = {"seq": 1, "frame": 0, "drawn": None} if request is None else request
    values = view.update(cache, request, raw, page, jobs=jobs, done=done)
    count = len(view.panels)
    return Answer(values[:count], *values[count:])


def drawn(view, controls) -> list[dict]:
    """Every panel's figure as the browser receives it (arrays packed)."""
    result = view.compute(view.spec.physics_only(controls))
    return [compact(panel.draw(controls, result)) for panel in view.panels]
