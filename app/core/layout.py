"""A model view's page: the sidebar of presets and controls, then the summary, the play bar and
the plots. Built from the view's declaration and the state its link describes.

Embedded (``embed=1``), the page shows what its embed flags choose (app/core/embedding.py): the
controls it lists (the others hidden or read-only, still on the page: every callback reads
every control), the plots it lists (the others out of sight and never drawn), in the sidebar
layout or a compact one without sidebar, in the theme it names.
"""

from __future__ import annotations

from collections.abc import Sequence
from secrets import token_hex
from typing import Any

from dash import dcc, html

from ..ui import components
from ..ui.embed_builder import builder
from .embedding import PRESET, Embedding
from .jobs import page_parts
from .state import PageState

__all__ = ["view_page"]


def _presets(view: Any, state: PageState) -> html.Div:
    key, preset = view.key, state.preset
    return html.Div(
        [
            html.Label("Paper presets", htmlFor=f"{key}-preset", className="control-label"),
            dcc.Dropdown(
                id=f"{key}-preset",
                options=[{"label": p.name, "value": p.slug} for p in view.presets],
                placeholder="Reproduce a figure…",
                value=preset.slug if preset else None,
                clearable=True,
                searchable=False,
            ),
            html.Div(
                preset.caption if preset else None,
                id=f"{key}-preset-caption",
                className="preset-caption",
            ),
        ],
        className="control-group presets",
        hidden=not state.embedding.shows_control(PRESET),
    )


def _control(view: Any, state: PageState, name: str) -> html.Div:
    """One control as the embed flags show it: movable, read-only, or on the page but hidden."""
    shown = state.embedding.shows_control(name)
    readonly = not shown and state.embedding.readonly
    value = getattr(state.controls, name)
    widget = components.control(view.key, view.spec.by_name[name], value, readonly=readonly)
    return widget if shown or readonly else html.Div(widget, hidden=True)


def _in_sight(embedding: Embedding, names: Sequence[str]) -> bool:
    return embedding.readonly or any(map(embedding.shows_control, names))


def _controls(view: Any, state: PageState) -> list[html.Fieldset]:
    groups = view.groups or (("Settings", tuple(view.spec.names)),)
    return [
        html.Fieldset(
            [html.Legend(heading), *(_control(view, state, name) for name in names)],
            className="control-group",
            hidden=not _in_sight(state.embedding, names),
        )
        for heading, names in groups
    ]


def _related(links: Sequence[tuple[str, str]]) -> list:
    if not links:
        return []
    items = [dcc.Link(text, href=href, className="related-link") for text, href in links]
    return [html.Nav(items, className="related", **{"aria-label": "related views"})]


def _plots(view: Any, state: PageState) -> html.Div:
    cards = [
        components.graph_card(
            view.key,
            panel.graph,
            panel.title,
            panel.explanation,
            height=panel.height,
            wide=panel.wide,
            embed=state.embed,
            min_width=panel.min_width,
            shown=state.embedding.shows_plot(panel.graph),
        )
        for panel in view.panels
    ]
    return html.Div(cards, className="graph-grid", id=f"{view.key}-plots", tabIndex="-1")


def _open_full(search: str) -> html.P:
    """An embed's way out: the same view, whole, in a tab of its own (assets/app.js keeps its
    link in step with the page)."""
    return html.P(
        html.A(
            "Open in the explorer ↗",
            href=search,
            target="_blank",
            rel="noopener",
            className="open-full",
        ),
        className="open-full-row",
    )


def _content(
    view: Any, state: PageState, related: Sequence[tuple[str, str]], search: str
) -> html.Section:
    key, embed = view.key, state.embed
    compact = embed and state.embedding.compact
    hint = (
        [html.P("Click a cell or a point to open its trajectory.", className="click-hint")]
        if view.clicks and not embed
        else []
    )
    summary = [
        html.Div(id=f"{key}-summary", className="summary"),
        html.P(id=f"{key}-timing", className="timing"),
    ]
    if compact:  # the plots first; the numbers they show (their text alternative) below
        summary = [html.Details([html.Summary("The numbers"), *summary], className="numbers")]
    return html.Section(
        [
            *([] if embed else [html.H1(view.title), *_related(related)]),
            *([] if embed else [components.explanation(view.intro)]),
            components.message_box(key, state.messages),
            *([] if compact else summary),
            html.Div(components.animation_bar(key, state.frame), hidden=not view.animated),
            *(page_parts(key) if view.heavy is not None else []),
            *hint,
            _plots(view, state),
            *(summary if compact else []),
            *([_open_full(search)] if embed else []),
        ],
        className="content",
    )


def _sidebar(view: Any, state: PageState) -> html.Aside:
    """The presets and controls: a column beside the plots (a sheet along the bottom of a
    phone's screen), or, in a compact embed, a row above them or a column beside them."""
    compact = state.embed and state.embedding.compact
    if compact:  # one row (or column) of the controls shown, without their groups
        controls = [_control(view, state, name) for name in view.spec.names]
    else:
        controls = _controls(view, state)
    parts = [
        _presets(view, state),
        *controls,
        html.Div(components.download_bar(view.key), hidden=compact),
        *([] if state.embed else [components.share_bar(view.key)]),
    ]
    if compact:
        return html.Aside(parts, className="embed-controls", **{"aria-label": "controls"})
    return html.Aside(
        html.Details(
            [html.Summary("Controls", className="sidebar-summary"), *parts],
            open=True,
            className="sidebar-panel",
        ),
        className="sidebar",
        **{"aria-label": "controls"},
    )


def _classes(view: Any, state: PageState) -> str:
    classes = ["view", f"view-{view.key}"]
    if state.embed:
        classes += ["embedded", f"layout-{state.embedding.layout}"]
    return " ".join(classes)


def view_page(view: Any, state: PageState, related: Sequence[tuple[str, str]] = ()) -> html.Div:
    key = view.key
    embedding = state.embedding
    # the page's own id: fair use counts requests per page (app/fair.py), not per address
    page = {"embed": state.embed, "messages": list(state.messages), "client": token_hex(8)}
    if state.embed and embedding.pairs():  # the flags every later link carries again
        page["embedding"] = embedding.to_page()
    theme = {"data-theme": embedding.theme} if state.embed and embedding.theme != "auto" else {}
    return html.Div(
        [
            html.A("Skip to the plots", href=f"#{key}-plots", className="skip-link"),
            # the link of what the page shows: assets/app.js writes it into the address bar
            # in place (a Location would add a history entry per change, and Back would stay)
            dcc.Store(id=f"{key}-link"),
            dcc.Store(id=f"{key}-page", data=page),
            dcc.Store(id=f"{key}-frames"),
            dcc.Store(id=f"{key}-request"),
            dcc.Store(id=f"{key}-answered"),
            dcc.Store(id=f"{key}-wake"),
            dcc.Store(id=f"{key}-job"),
            dcc.Store(id=f"{key}-job-done"),
            *([dcc.Location(id=f"{key}-open", refresh="callback-nav")] if view.clicks else []),
            html.Div(
                [_sidebar(view, state), _content(view, state, related, _whole(view, state))],
                className="view-body",
            ),
            *([] if state.embed else [builder(view)]),
        ],
        className=_classes(view, state),
        id=f"{key}-view",
        **theme,
    )


def _whole(view: Any, state: PageState) -> str:
    """The link of the view the page shows, not embedded (its path is the page's own)."""
    return view.spec.encode(state.controls)
