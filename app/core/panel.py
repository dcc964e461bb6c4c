"""A panel: one plot of a view, drawn by one function from the view's controls and result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["Figure", "Panel"]

Controls = TypeVar("Controls")
Result = TypeVar("Result")

#: a plotly figure as a plain dict (``{"data": [...], "layout": {...}}``): no per-call validation,
#: so drawing stays fast
Figure = dict[str, Any]


@dataclass(frozen=True)
class Panel(Generic[Controls, Result]):
    #: the graph's name in the page (``{view}-graph-{graph}``) and in the animation frames
    graph: str
    title: str
    #: Markdown with TeX formulas (app/ui/prose.py), shown under the plot (not in embedded pages)
    explanation: str
    draw: Callable[[Controls, Result], Figure]
    height: int = 300
    wide: bool = False
    #: narrowest the plot may be drawn (px): a wide table scrolls inside its own box on a
    #: phone rather than being crushed
    min_width: int | None = None
