"""The play bar's frames: what the browser moves through every plot while playing or scrubbing,
without asking the server (``assets/app.js`` draws them).

A view builds its :class:`Frames` with one chain of calls::

    Frames.along(t, limit=120)                       # the frame times (a thinned subset of t)
        .point("surface", x=w[:, 0], y=w[:, 1], z=a)  # a marker that follows a path
        .line("mu")                                   # a vertical time cursor (x = t)
        .heatmap("function", stack)                   # a matrix per frame

Each method takes arrays over *all* of ``t`` and keeps the frames' rows, so a view never
indexes by hand. :meth:`Frames.payload` is the JSON the browser reads.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..ui.figures import CURSOR, pack, rounded, thin

__all__ = ["Cursor", "Frames", "Matrices"]


@dataclass(frozen=True)
class Cursor:
    """A marker's position per frame: arrays (F,), or (F, k) for k markers at once."""

    x: np.ndarray
    y: np.ndarray
    z: np.ndarray | None = None


class Matrices(Mapping):
    """graph → its matrices (F, rows, columns). A stack given as a function is computed when
    first read: the matrices of a plot out of sight are left out of the answer
    (:meth:`Frames.payload`), and then never computed."""

    def __init__(self, stacks: Mapping[str, np.ndarray | Callable[[], np.ndarray]]) -> None:
        self._stacks = dict(stacks)

    def __getitem__(self, graph: str) -> np.ndarray:
        stack = self._stacks[graph]
        if callable(stack):
            stack = self._stacks[graph] = stack()
        return stack

    def __iter__(self) -> Iterator[str]:
        return iter(self._stacks)

    def __len__(self) -> int:
        return len(self._stacks)

    def adding(self, graph: str, stack: np.ndarray | Callable[[], np.ndarray]) -> Matrices:
        return Matrices({**self._stacks, graph: stack})


@dataclass(frozen=True)
class Frames:
    #: indices into the full time axis of the frames
    rows: np.ndarray
    #: the time of each frame (F,)
    t: np.ndarray
    points: Mapping[str, Cursor] = field(default_factory=dict)
    #: graph → the x position of its vertical cursor per frame (F,)
    lines: Mapping[str, np.ndarray] = field(default_factory=dict)
    #: graph → one matrix per frame (F, rows, columns)
    heatmaps: Matrices = field(default_factory=lambda: Matrices({}))

    @classmethod
    def along(cls, t: np.ndarray, limit: int = 120) -> Frames:
        """At most ``limit`` frames spread evenly over the times ``t`` (first and last kept)."""
        t = np.asarray(t, dtype=float)
        rows = thin(len(t), limit)
        return cls(rows=rows, t=t[rows])

    def _pick(self, values: Any) -> np.ndarray:
        return np.asarray(values, dtype=float)[self.rows]

    def point(self, graph: str, x: Any, y: Any, z: Any = None) -> Frames:
        """A marker on ``graph`` at (x, y[, z]) given over the full time axis (T,) or (T, k)."""
        cursor = Cursor(self._pick(x), self._pick(y), None if z is None else self._pick(z))
        return dataclasses.replace(self, points={**self.points, graph: cursor})

    def line(self, graph: str, x: Any = None) -> Frames:
        """A vertical cursor on ``graph`` at the frame's time (or at ``x`` over the full axis).
        On a log axis too: plotly.js places shapes by data value."""
        position = self.t if x is None else self._pick(x)
        return dataclasses.replace(self, lines={**self.lines, graph: position})

    def lines_on(self, *graphs: str) -> Frames:
        frames = self
        for graph in graphs:
            frames = frames.line(graph)
        return frames

    def heatmap(self, graph: str, stack: Any) -> Frames:
        """The matrix ``graph`` shows at each frame, from a stack over the full axis (T, r, c),
        or from a function returning it: called only if the matrices are needed."""
        rows = self.rows
        if callable(stack):

            def matrices() -> np.ndarray:
                return np.asarray(stack(), dtype=float)[rows]

        else:
            matrices = np.asarray(stack, dtype=float)[rows]
        return dataclasses.replace(self, heatmaps=self.heatmaps.adding(graph, matrices))

    @property
    def count(self) -> int:
        return len(self.t)

    def payload(self, order: list[str], omit: frozenset[str] = frozenset()) -> dict:
        """The JSON the browser animates from; ``order`` lists the view's graphs in page order.
        The matrices and markers of the graphs in ``omit`` are left out: plots out of sight
        that show an older state, which get their figure and frames whole when they come into
        view (a network's function plane is 60 matrices, most of an answer's bytes; its
        neurons 60 × 2 × width numbers, which the page's store takes ~20 ms to digest)."""

        def cursor(c: Cursor) -> dict:
            out = {"x": _nested(c.x), "y": _nested(c.y)}
            if c.z is not None:
                out["z"] = _nested(c.z)
            return out

        return {
            "t": rounded(self.t),
            "order": order,
            "cursor": {graph: cursor(c) for graph, c in self.points.items() if graph not in omit},
            "lines": {graph: rounded(x) for graph, x in self.lines.items()},
            # typed arrays: smaller than nested lists, and far cheaper for Dash to serialise
            "heatmaps": {
                g: [pack(m) for m in self.heatmaps[g]] for g in self.heatmaps if g not in omit
            },
        }


def _nested(values: np.ndarray) -> list:
    """Rounded numbers, one per frame, or one list per frame for several markers."""
    if values.ndim == 1:
        return rounded(values)
    return [rounded(row) for row in values]


def place(figure: dict, graph: str, payload: Mapping[str, Any] | None, index: int) -> None:
    """Prepare ``figure``'s cursor (drawn by the view at the first frame) for the browser.

    On 2-D plots the browser draws the cursor as an overlay (``assets/app.js``), so the view's
    cursor trace and line are dropped here; a 3-D marker and an animated matrix are data, and
    are moved to frame ``index`` — the play bar's position — so that a redrawn figure keeps
    it without a second redraw."""
    layout = figure.get("layout", {})
    if "scene" not in layout:
        figure["data"] = [
            t for t in figure.get("data", []) if not (t.get("uid") == CURSOR and _markers(t))
        ]
        if "shapes" in layout:
            layout["shapes"] = [s for s in layout["shapes"] if s.get("name") != CURSOR]
    if not payload or not payload["t"]:
        return
    index = min(max(index, 0), len(payload["t"]) - 1)
    point, heat = payload["cursor"].get(graph), payload["heatmaps"].get(graph)
    for trace in figure.get("data", []):
        if trace.get("uid") != CURSOR:
            continue
        if heat is not None:
            trace["z"] = heat[index]
        elif point is not None:
            for axis in ("x", "y", "z"):
                value = point[axis][index]
                trace[axis] = value if isinstance(value, list) else [value]


def _markers(trace: dict) -> bool:
    return trace.get("type", "scatter") in ("scatter", "scattergl")
