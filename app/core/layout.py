"""A model view's page: the sidebar of presets and controls, then the summary, the play bar and
the plots. Built from the view's declaration and the state its link describes."""

from __future__ import annotations

from collections.abc import Sequence
from secrets import token_hex
from typing import Any

from dash import dcc, html

from ..ui import components
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
    )


def _controls(view: Any, state: PageState) -> list[html.Fieldset]:
    groups = view.groups or (("Settings", tuple(view.spec.names)),)
    fieldsets = []
    for heading, names in groups:
        controls = [
            components.control(view.key, view.spec.by_name[name], getattr(state.controls, name))
            for name in names
        ]
        fieldsets.append(
            html.Fieldset([html.Legend(heading), *controls], className="control-group")
        )
    return fieldsets


def _related(links: Sequence[tuple[str, str]]) -> list:
    if not links:
        return []
    items = [dcc.Link(text, href=href, className="related-link") for text, href in links]
    return [html.Nav(items, className="related", **{"aria-label": "related views"})]


def _content(view: Any, state: PageState, related: Sequence[tuple[str, str]]) -> html.Section:
    panels = [
        components.graph_card(
            view.key,
            panel.graph,
            panel.title,
            panel.explanation,
            height=panel.height,
            wide=panel.wide,
            embed=state.embed,
            min_width=panel.min_width,
        )
        for panel in view.panels
    ]
    hint = (
        [html.P("Click a cell or a point to open its trajectory.", className="click-hint")]
        if view.clicks and not state.embed
        else []
    )
    return html.Section(
        [
            *([] if state.embed else [html.H1(view.title), *_related(related)]),
            *([] if state.embed else [components.explanation(view.intro)]),
            components.message_box(view.key, state.messages),
            html.Div(id=f"{view.key}-summary", className="summary"),
            html.P(id=f"{view.key}-timing", className="timing"),
            html.Div(components.animation_bar(view.key, state.frame), hidden=not view.animated),
            *(page_parts(view.key) if view.heavy is not None else []),
            *hint,
            html.Div(panels, className="graph-grid", id=f"{view.key}-plots", tabIndex="-1"),
        ],
        className="content",
    )


def view_page(view: Any, state: PageState, related: Sequence[tuple[str, str]] = ()) -> html.Div:
    key = view.key
    # a panel above the plots on a phone (collapsible), a sticky column beside them elsewhere
    sidebar = html.Aside(
        html.Details(
            [
                html.Summary("Controls", className="sidebar-summary"),
                _presets(view, state),
                *_controls(view, state),
                components.download_bar(key),
                components.share_bar(key),
            ],
            open=True,
            className="sidebar-panel",
        ),
        className="sidebar",
        **{"aria-label": "controls"},
    )
    # the page's own id: fair use counts requests per page (app/fair.py), not per address
    page = {"embed": state.embed, "messages": list(state.messages), "client": token_hex(8)}
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
            html.Div([sidebar, _content(view, state, related)], className="view-body"),
        ],
        className=f"view view-{key}",
        id=f"{key}-view",
    )
