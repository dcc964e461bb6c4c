"""Pages that are not model views (the start page, the paper-figures gallery): a path, a
navigation title, a layout built for the request, and optional callbacks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dash import Dash

from ..cache import ResultCache

__all__ = ["Page"]


@dataclass(frozen=True)
class Page:
    path: str
    nav_title: str
    #: (link, search, embed) → page body; ``link`` turns an app path into an href (adds any
    #: path prefix), ``search`` is the query string the page was opened with
    layout: Callable[[Callable[[str], str], str, bool], object]
    register: Callable[[Dash, ResultCache], None] | None = None
