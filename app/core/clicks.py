"""Clicks on a plot that open another view (a map's cell opens its trajectory).

The browser's click arrives as plotly's ``clickData`` point; :meth:`ClickPoint.parse` validates
it once, so openers receive numbers, never raw dicts. The browser sends coordinates rounded to
float32 and Dash drops array-valued fields (a heatmap's [row, column]), so maps snap the
coordinates to their grid with :func:`nearest_index`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["ClickPoint", "Link", "nearest_index"]


@dataclass(frozen=True)
class Link:
    """Where a click leads: a view opened with these control values (validated by that
    view's own spec, so a click cannot open anything the view's controls could not show)."""

    view: Any  #: the :class:`app.core.view.View` to open
    values: Mapping[str, Any] = field(default_factory=dict)


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _real(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


@dataclass(frozen=True)
class ClickPoint:
    x: float | None
    y: float | None
    #: the trace clicked (plotly's curveNumber)
    curve: int | None
    #: the point's index in its trace, or (row, column) of a heatmap cell when the browser
    #: sends it (from hand-made requests; Dash drops it)
    index: int | tuple[int, int] | None

    @classmethod
    def parse(cls, point: Any) -> ClickPoint | None:
        """A point of plotly's clickData, or None if it is not a well-formed point."""
        if not isinstance(point, dict):
            return None
        number = point.get("pointNumber")
        index: int | tuple[int, int] | None = _integer(number)
        if isinstance(number, list) and len(number) == 2:
            row, column = _integer(number[0]), _integer(number[1])
            index = (row, column) if row is not None and column is not None else None
        curve = _integer(point.get("curveNumber"))
        return cls(_real(point.get("x")), _real(point.get("y")), curve, index)

    def cell(self, rows: int, columns: int) -> tuple[int, int] | None:
        """(row, column) of a heatmap click from its grid indices, if given and in range."""
        if isinstance(self.index, tuple):
            row, column = self.index
            if 0 <= row < rows and 0 <= column < columns:
                return row, column
        return None


def nearest_index(grid: np.ndarray, value: float | None, log: bool = False) -> int | None:
    """The grid point nearest a clicked coordinate (which reaches the server rounded to
    float32), on a logarithmic scale if ``log``; None if the value is not a usable number."""
    if value is None or not math.isfinite(value) or (log and value <= 0):
        return None
    if log:
        return int(np.argmin(np.abs(np.log(grid) - math.log(value))))
    return int(np.argmin(np.abs(grid - value)))
