"""The figures a view last sent, kept so that the next answer need not draw them again.

An answer is a difference against what the page shows (:mod:`app.core.updates`), and what the
page shows is, nearly always, what this worker sent it a moment ago: the page's gate names that
state (control values, frame, theme) in its next request. Redrawing it cost as much as drawing
the answer itself, after reading its result back from the cache (a step's answer on the server,
side by side: finite width 26 → 22–23 ms, networks 58 → 50–52 ms, kernel-alignment map 33–35 →
31 ms; docs/performance.md, *The server*). So each view keeps the figures of its last few
answers, by the state they show; a state it no longer holds (another worker answered, or many
pages took turns) is drawn again as before.

A figure is a pure function of the view's controls, the frame and the theme (results are
deterministic and cached by their physics), so a kept figure is the one a redraw would give.
Kept figures are not changed afterwards: the answer sends them as they are.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence

from .panel import Figure

__all__ = ["SENT_STATES", "SentFigures"]

#: states kept per view and worker: a class's pages on one view take turns on a worker; a
#: state's figures take 0.1–0.2 MB (finite-width's, the largest, 0.2 MB traced), so at most
#: ~25 MB a worker with every view in use
SENT_STATES = 8


class SentFigures:
    """A view's recently sent figures, by state (thread-safe: a worker answers on threads)."""

    def __init__(self, size: int = SENT_STATES) -> None:
        self._size = size
        self._states: OrderedDict[Hashable, dict[str, Figure]] = OrderedDict()
        self._lock = threading.Lock()

    def keep(
        self, state: Hashable, graphs: Sequence[str], figures: Sequence[Figure | None]
    ) -> None:
        """Remember the figures sent for ``state`` (None: a graph not drawn in that answer)."""
        drawn = {g: f for g, f in zip(graphs, figures, strict=True) if f is not None}
        if not drawn or not _hashable(state):
            return
        with self._lock:
            self._states[state] = drawn
            self._states.move_to_end(state)
            while len(self._states) > self._size:
                self._states.popitem(last=False)

    def recall(
        self, state: Hashable, graphs: Sequence[str], skip: frozenset[str]
    ) -> list[Figure | None] | None:
        """The figures of ``state`` for every graph not in ``skip`` (None for those), or None
        if any of them was not kept."""
        if not _hashable(state):
            return None
        with self._lock:
            kept = self._states.get(state)
            if kept is None:
                return None
            self._states.move_to_end(state)
        if any(g not in kept for g in graphs if g not in skip):
            return None
        return [None if g in skip else kept[g] for g in graphs]

    def clear(self) -> None:
        with self._lock:
            self._states.clear()


def _hashable(state: Hashable) -> bool:
    try:
        hash(state)
    except TypeError:
        return False
    return True
