"""The paper-figures page: one card per figure of the papers that a view's preset reproduces
— its caption, the figure computed when the page opens, and a link that opens the same setup in
the interactive view.

A preset with a ``figure`` gets a card; its ``panel`` says which plot the card shows. Nothing is
stored: one server callback per card computes it (through its view's cached results and that
one panel's draw function). A card that cannot be computed says so; the others still render.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dash import Dash, Input, Output, dcc, html

from .cache import ResultCache
from .core.page import Page
from .core.panel import Figure, Panel
from .core.presets import Paper, Preset
from .core.view import View
from .ui import components
from .ui.figures import CURSOR, compact
from .ui.notation import typeset_figure
from .views import MODELS

__all__ = ["CARDS", "GROUPS", "PAGE", "Card", "card_figure"]

log = logging.getLogger(__name__)

PATH = "/paper-figures"
PREFIX = "paper-figures"
LOAD_ID = f"{PREFIX}-load"

#: plot heights in a card (px): plain plots, and at most this for the panels the views draw
#: taller (3-D scenes, matrices, maps)
LINE_HEIGHT = 250
MAX_HEIGHT = 380

#: a card's legend: rows that fit in the plot's height, the height of each further row, and
#: the width the entries share (px)
LEGEND_ROWS = 2
LEGEND_ROW_HEIGHT = 19
LEGEND_WIDTH = 330

GRAPH_CONFIG = {"displaylogo": False, "displayModeBar": False, "responsive": True}

INTRO = (
    "Every figure of the papers that this explorer reproduces, computed afresh by the exact "
    "solvers when the page opens. Each card shows one panel of the figure's setup; its link "
    "opens the same setup in the interactive view, with all its panels and controls."
)


@dataclass(frozen=True)
class Card:
    view: View
    preset: Preset

    @property
    def key(self) -> str:
        return f"{self.view.key}--{self.preset.slug}"

    @property
    def graph_id(self) -> str:
        return f"{PREFIX}-{self.key}-graph"

    @property
    def note_id(self) -> str:
        return f"{PREFIX}-{self.key}-note"

    @property
    def panel(self) -> Panel:
        wanted = self.preset.panel
        return next((p for p in self.view.panels if p.graph == wanted), self.view.panels[0])

    @property
    def height(self) -> int:
        return max(LINE_HEIGHT, min(MAX_HEIGHT, round(0.85 * self.panel.height)))

    def href(self, link: Callable[[str], str], embed: bool = False) -> str:
        """The interactive view with this figure's preset (kept chrome-less when embedded)."""
        return link(self.view.path) + "?preset=" + self.preset.slug + ("&embed=1" if embed else "")


def _figure_number(card: Card) -> int:
    """1 for "Fig. 1b": cards of one paper go in the order of its figures (tables after)."""
    digits = re.match(r"Fig\.\s*(\d+)", card.preset.figure or "")
    return int(digits.group(1)) if digits else 99


def _groups() -> list[tuple[Paper, tuple[View, ...], list[Card]]]:
    """Every paper with the views that reproduce its figures and their cards: the models' own
    papers in navigation order, then any paper a preset names for itself."""
    papers: dict[Paper, tuple[list[View], list[Card]]] = {}
    for model in MODELS:
        papers.setdefault(model.paper, ([], []))
        for view in model.views:
            for preset in view.presets:
                if preset.figure is None:
                    continue
                views, cards = papers.setdefault(preset.paper or model.paper, ([], []))
                if view not in views:
                    views.append(view)
                cards.append(Card(view, preset))
    return [
        (paper, tuple(views), sorted(cards, key=_figure_number))
        for paper, (views, cards) in papers.items()
        if cards
    ]


GROUPS = _groups()
CARDS: tuple[Card, ...] = tuple(card for _, _, cards in GROUPS for card in cards)


# -- figures ---------------------------------------------------------------------------------


def _static(figure: Figure) -> None:
    """No animation cursor: a card shows the whole run."""
    figure["data"] = [
        trace
        for trace in figure.get("data", [])
        if not (trace.get("uid") == CURSOR and trace.get("type") in ("scatter", "scatter3d"))
    ]
    layout = figure.setdefault("layout", {})
    if "shapes" in layout:
        layout["shapes"] = [s for s in layout["shapes"] if s.get("name") != CURSOR]


def _at_the_end(figure: Figure, card: Card, controls: Any, result: Any) -> None:
    """A matrix that the play bar animates is shown at the end of the run."""
    if card.view.frames is None or not figure["data"]:
        return
    frames = card.view.frames(controls, result)
    stack = frames.heatmaps.get(card.panel.graph)
    if stack is None or figure["data"][0].get("type") != "heatmap":
        return
    figure["data"][0]["z"] = stack[-1]
    layout = figure["layout"]
    title = {"text": f"at t = {frames.t[-1]:g}", "x": 0, "xanchor": "left", "font": {"size": 12}}
    layout["title"] = title
    layout["margin"] = {**layout.get("margin", {}), "t": 28}


def _legend_rows(names: Sequence[str]) -> int:
    """Rows a horizontal legend of these entries takes in a card (an estimate in pixels of
    10-point text: a symbol of ~45 px, then ~6.2 px a character)."""
    rows, used = (1 if names else 0), 0.0
    for name in names:
        width = 45 + 6.2 * len(str(name))
        if used and used + width > LEGEND_WIDTH:
            rows, used = rows + 1, 0.0
        used += width
    return rows


def _fit_to_card(figure: Figure, card: Card) -> None:
    """The card's height and type size; one legend style in every card."""
    layout = figure["layout"]
    layout["height"] = card.height
    layout["font"] = {**layout.get("font", {}), "size": 11}
    if "scene" in layout:  # 3-D: the view's own legend, in smaller type
        layout["legend"] = {**layout.get("legend", {}), "font": {"size": 10}}
        return
    if "margin" in layout:
        layout["margin"] = {**layout["margin"], "r": 10}
    for name in ("xaxis", "yaxis"):  # narrow cards: titles must not run into the tick labels
        if isinstance(layout.get(name), dict):
            layout[name] = {**layout[name], "automargin": True}
    # a row above the plot, which keeps the plot wide
    layout["legend"] = {
        **layout.get("legend", {}),
        "orientation": "h",
        "x": 0,
        "xanchor": "left",
        "y": 1.02,
        "yanchor": "bottom",
        "font": {"size": 10},
    }
    names = [t["name"] for t in figure["data"] if t.get("showlegend", True) and t.get("name")]
    rows = _legend_rows(names)
    if rows > LEGEND_ROWS:  # a legend of many rows gets room of its own, not a scroll bar
        layout["height"] += (rows - LEGEND_ROWS) * LEGEND_ROW_HEIGHT
        layout["legend"]["maxheight"] = 1.0


def _failed(card: Card) -> Figure:
    figure = components.failed_figure()
    hidden = {"visible": False}
    figure["layout"] |= {"height": card.height, "xaxis": hidden, "yaxis": hidden}
    return figure


def card_figure(card: Card, cache: ResultCache) -> tuple[Figure, dict, str | None]:
    """One card's figure (packed for the browser), the graph's style (its height) and a
    message if the figure could not be made."""
    try:
        controls = card.view.spec.with_overrides(card.preset.values)
        result = card.view.results(cache, controls).result
        figure = typeset_figure(card.panel.draw(controls, result))
        _static(figure)
        _at_the_end(figure, card, controls, result)
        _fit_to_card(figure, card)
        figure, message = compact(figure), None
    except Exception as error:  # one broken card must not take the page down
        log.exception("paper figure %s could not be computed", card.key)
        figure = _failed(card)
        message = f"This figure could not be computed: {str(error)[:200]}"
    return figure, {"height": f"{figure['layout']['height']}px"}, message


# -- layout ----------------------------------------------------------------------------------


def _card(card: Card, link: Callable[[str], str], embed: bool) -> html.Article:
    return html.Article(
        [
            html.H3(card.preset.name, className="paper-card-title"),
            html.P(card.preset.caption, className="paper-card-caption"),
            dcc.Loading(
                dcc.Graph(
                    id=card.graph_id,
                    config=GRAPH_CONFIG,
                    style={"height": f"{card.height}px"},
                    figure={"data": [], "layout": {"height": card.height}},
                ),
                type="dot",
                delay_show=400,
            ),
            html.Div(id=card.note_id, className="paper-card-note", role="status"),
            html.P(f"Panel shown: {card.panel.title}", className="paper-card-panel"),
            dcc.Link(
                "Open in the interactive view →",
                href=card.href(link, embed),
                className="card-link",
                title=f"{card.preset.name}: open in the {card.view.nav_title} view",
            ),
        ],
        id=f"{PREFIX}-{card.key}",
        className="paper-card",
    )


def _heading(paper: Paper, ident: str) -> html.H2:
    return html.H2([f"{paper.authors}, ", html.I(paper.title)], id=ident)


def _view_links(paper: Paper, views: Sequence[View], link: Callable[[str], str]) -> list:
    parts: list[Any] = [f"{paper.subject.capitalize()} — open "]
    for index, view in enumerate(views):
        if index:
            parts.append(" or ")
        parts.append(dcc.Link(f"the {view.nav_title} view", href=link(view.path)))
    return parts


def layout(link: Callable[[str], str], search: str, embed: bool) -> html.Div:
    sections = []
    for number, (paper, views, cards) in enumerate(GROUPS):
        heading = f"{PREFIX}-paper-{number + 1}"
        sections.append(
            html.Section(
                [
                    _heading(paper, heading),
                    html.P(_view_links(paper, views, link), className="paper-group-subject"),
                    html.Div([_card(card, link, embed) for card in cards], className="paper-cards"),
                ],
                className="paper-group",
                **{"aria-labelledby": heading},
            )
        )
    intro = [] if embed else [html.H1("Paper figures"), components.explanation(INTRO)]
    return html.Div(
        [dcc.Store(id=LOAD_ID, data=True), *intro, *sections], className="paper-figures"
    )


# -- callbacks -------------------------------------------------------------------------------


def register(app: Dash, cache: ResultCache) -> None:
    """One callback per card: the cards arrive side by side, and a slow one (a whole map of
    solutions) holds up only itself."""
    for card in CARDS:
        _register_card(app, cache, card)


def _register_card(app: Dash, cache: ResultCache, card: Card) -> None:
    @app.callback(
        Output(card.graph_id, "figure"),
        Output(card.graph_id, "style"),
        Output(card.note_id, "children"),
        Input(LOAD_ID, "data"),
    )
    def fill(_loaded):
        return card_figure(card, cache)


PAGE = Page(path=PATH, nav_title="Paper figures", layout=layout, register=register)
