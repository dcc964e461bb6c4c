"""Calling a view's main callback as the page does; its answer is read by name
(:class:`app.core.updates.Answer`)."""

from __future__ import annotations

from app.core.updates import Answer
from app.ui.figures import compact


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
    return view.update(cache, request, raw, page, jobs=jobs, done=done)


def drawn(view, controls) -> list[dict]:
    """Every panel's figure as the browser receives it (arrays packed)."""
    result = view.compute(view.spec.physics_only(controls))
    return [compact(panel.draw(controls, result)) for panel in view.panels]
