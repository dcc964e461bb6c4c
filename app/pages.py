"""Pages that are not model views (the paper-figures gallery, …): a path, a navigation title,
a layout built for the request, and optional callbacks registered on the app instance."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dash import Dash

from .cache import ResultCache

__all__ = ["PAGES", "Page"]


@dataclass(frozen=True)
class Page:
    path: str
    nav_title: str
    #: (link, search, embed) → page body; ``link`` turns an app path into an href (adds any
    #: path prefix), ``search`` is the query string the page was opened with
    layout: Callable[[Callable[[str], str], str, bool], object]
    register: Callable[[Dash, ResultCache], None] | None = None


# imported last: the pages themselves import :class:`Page` from here
from .paper_figures import PAGE as PAPER_FIGURES  # noqa: E402

#: extra pages in navigation order (after the model views)
PAGES: tuple[Page, ...] = (PAPER_FIGURES,)
