"""The paper-figures page: one card per figure of the four papers that a view's preset reproduces
— its caption, the figure computed by the solvers when the page opens, and a link that opens the
same setup in the interactive view.

Nothing is stored: when the page opens, one server callback per card computes it (through its
view's cached ``results`` and its ``render``) and shows the most telling panel. A card that
cannot be computed says so; the others still render.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dash import Dash, Input, Output, dcc, html

from . import components
from .cache import ResultCache
from .figures import CURSOR, compact
from .pages import Page
from .view import Panel, Preset, View
from .views import VIEWS

__all__ = [
    "CARDS",
    "GROUPS",
    "PAGE",
    "PAPERS",
    "Card",
    "Paper",
    "card_figure",
    "card_figures",
    "paper_figure_presets",
]

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


@dataclass(frozen=True)
class Paper:
    authors: str
    title: str
    subject: str
    #: keys of the views whose presets reproduce this paper's figures
    views: tuple[str, ...]


PAPERS = (
    Paper("Kunin et al.", "Get rich quick", "a single hidden neuron", ("single-neuron",)),
    Paper(
        "Xu & Ziyin",
        "Three mechanisms of feature learning in a linear network",
        "a two-layer linear network of finite width",
        ("finite-width",),
    ),
    Paper(
        "Dominé et al.",
        "From lazy to rich",
        "λ-balanced two-layer linear networks",
        ("lambda-balanced",),
    ),
    Paper(
        "Shan & Bordelon",
        "Rapid feature evolution accelerates learning",
        "kernel–target alignment under optimal feature evolution",
        ("kernel-alignment",),
    ),
)

#: which panel a card shows, per view: the first rule whose prefix starts the preset's name
#: wins; otherwise the view's first panel
PANEL_RULES: dict[str, Sequence[tuple[str, str]]] = {
    "single-neuron": (
        ("Fig. 2", "surface"),  # the hyperboloid the path lies on
        ("Fig. 3", "kernel"),  # S(0, t): lazy, rich and delayed rich side by side
        ("Fig. 4", "function"),  # the β paths
    ),
    "finite-width": (("Fig. 1", "zeta"),),
    "finite-width-map": (("Fig. 4", "ntk"),),  # how far the NTK moves, against the width
    "lambda-balanced": (
        ("Fig. 5", "kernel"),  # the kernel distance of their Fig. 5B
        ("Fig. 4 — semantic hierarchy, λ = −", "rsm_out"),  # the tree lives in W₂ only
        ("Fig. 4", "rsm_in"),
        ("", "singular"),
    ),
    "lambda-balanced-map": (("Fig. 5B", "lines"),),  # one curve per architecture, as printed
    "kernel-alignment": (
        ("Fig. 2 A–B", "spectrum"),
        ("Fig. 2", "loss"),
    ),
    "kernel-alignment-map": (("Fig. 2C–D", "sweep"),),  # A∞ and the overlap against γ
}

INTRO = (
    "Every figure of the four papers that this explorer reproduces, computed afresh by the exact "
    "solvers when the page opens. Each card shows one panel of the figure's setup; its link "
    "opens the same setup in the interactive view, with all its panels and controls."
)


def paper_figure_presets(view: View) -> list[Preset]:
    """The presets of ``view`` that reproduce a figure of its paper."""
    return [preset for preset in view.presets if preset.name.startswith("Fig.")]


def _panel_for(view: View, preset: Preset) -> str:
    graphs = {panel.graph for panel in view.panels}
    for prefix, graph in PANEL_RULES.get(view.key, ()):
        if preset.name.startswith(prefix) and graph in graphs:
            return graph
    return view.panels[0].graph


def _belongs(view: View, paper: Paper) -> bool:
    """A paper's views and their maps ("lambda-balanced" and "lambda-balanced-map")."""
    return any(view.key == key or view.key.startswith(f"{key}-") for key in paper.views)


@dataclass(frozen=True)
class Card:
    view: View
    preset: Preset
    graph: str

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
        return next(p for p in self.view.panels if p.graph == self.graph)

    @property
    def height(self) -> int:
        return max(LINE_HEIGHT, min(MAX_HEIGHT, round(0.85 * self.panel.height)))

    def href(self, link: Callable[[str], str], embed: bool = False) -> str:
        """The interactive view with this figure's preset (kept chrome-less when embedded)."""
        return link(self.view.path) + "?preset=" + self.preset.slug + ("&embed=1" if embed else "")


def _figure_number(card: Card) -> int:
    """1 for "Fig. 1b — …": cards of one paper go in the order of its figures."""
    digits = re.match(r"Fig\.\s*(\d+)", card.preset.name)
    return int(digits.group(1)) if digits else 0


def _groups() -> list[tuple[Paper, list[Card]]]:
    """Every paper with its cards, in the order of :data:`PAPERS`; a view no paper names gets a
    group of its own (after them)."""
    papers = list(PAPERS) + [
        Paper("", view.title, "", (view.key,))
        for view in VIEWS
        if not any(_belongs(view, paper) for paper in PAPERS)
    ]
    groups = []
    for paper in papers:
        cards = [
            Card(view, preset, _panel_for(view, preset))
            for view in VIEWS
            if _belongs(view, paper)
            for preset in paper_figure_presets(view)
        ]
        if cards:
            groups.append((paper, sorted(cards, key=_figure_number)))
    return groups


GROUPS = _groups()
CARDS: tuple[Card, ...] = tuple(card for _, cards in GROUPS for card in cards)


# -- figures ---------------------------------------------------------------------------------


def _for_card(figure: dict, frames: dict | None, card: Card) -> dict:
    """A view's panel made static and small: no animation cursor, matrices at the end of the
    run, the card's height."""
    figure["data"] = [
        trace
        for trace in figure.get("data", [])
        if not (trace.get("uid") == CURSOR and trace.get("type") in ("scatter", "scatter3d"))
    ]
    layout = figure.setdefault("layout", {})
    if "shapes" in layout:
        layout["shapes"] = [s for s in layout["shapes"] if s.get("name") != CURSOR]
    stack = ((frames or {}).get("heatmaps") or {}).get(card.graph)
    if stack and figure["data"] and figure["data"][0].get("type") == "heatmap":
        figure["data"][0]["z"] = stack[-1]  # the last animation frame: the end of the run
        end = frames["t"][-1]
        layout["title"] = {
            "text": f"at t = {end:g}",
            "x": 0,
            "xanchor": "left",
            "font": {"size": 12},
        }
        layout["margin"] = {**layout.get("margin", {}), "t": 28}
    layout["height"] = card.height
    layout["font"] = {**layout.get("font", {}), "size": 11}
    if "scene" in layout:  # 3-D: the view's own legend, in smaller type
        layout["legend"] = {**layout.get("legend", {}), "font": {"size": 10}}
        return figure
    if "margin" in layout:
        layout["margin"] = {**layout["margin"], "r": 10}
    for name in ("xaxis", "yaxis"):  # narrow cards: titles must not run into the tick labels
        if isinstance(layout.get(name), dict):
            layout[name] = {**layout[name], "automargin": True}
    # one legend style in every card: a row above the plot, which keeps the plot wide
    layout["legend"] = {
        **layout.get("legend", {}),
        "orientation": "h",
        "x": 0,
        "xanchor": "left",
        "y": 1.02,
        "yanchor": "bottom",
        "font": {"size": 10},
    }
    # a legend of many rows gets room of its own instead of a scroll bar
    rows = _legend_rows(
        [t["name"] for t in figure["data"] if t.get("showlegend", True) and t.get("name")]
    )
    if rows > LEGEND_ROWS:
        layout["height"] += (rows - LEGEND_ROWS) * LEGEND_ROW_HEIGHT
        layout["legend"]["maxheight"] = 1.0
    return figure


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


def _failed(card: Card) -> dict:
    note = {
        "text": "could not be computed",
        "showarrow": False,
        "xref": "paper",
        "yref": "paper",
        "x": 0.5,
        "y": 0.5,
    }
    hidden = {"visible": False}
    return {
        "data": [],
        "layout": {
            "height": card.height,
            "annotations": [note],
            "xaxis": hidden,
            "yaxis": hidden,
        },
    }


def card_figure(card: Card, cache: ResultCache) -> tuple[dict, dict, str | None]:
    """One card's figure (packed for the browser), the graph's style (its height) and a
    message if the figure could not be made."""
    try:
        values = card.view.spec.with_overrides(card.preset.values)
        rendered = card.view.render(values, card.view.results(cache, values))
        figure = compact(_for_card(rendered.figures[card.graph], rendered.frames, card))
        message = None
    except Exception as error:  # one broken card must not take the page down
        log.exception("paper figure %s could not be computed", card.key)
        figure = _failed(card)
        message = f"This figure could not be computed: {str(error)[:200]}"
    return figure, {"height": f"{figure['layout']['height']}px"}, message


def card_figures(cache: ResultCache) -> list[tuple[dict, dict, str | None]]:
    """(figure, style, message) for every card, in the order of :data:`CARDS`."""
    return [card_figure(card, cache) for card in CARDS]


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
    if not paper.authors:
        return html.H2(paper.title, id=ident)
    return html.H2([f"{paper.authors}, ", html.I(paper.title)], id=ident)


def _view_links(paper: Paper, link: Callable[[str], str]) -> list:
    views = [view for view in VIEWS if _belongs(view, paper)]
    parts: list[Any] = [f"{paper.subject.capitalize()} — open " if paper.subject else "Open "]
    for index, view in enumerate(views):
        if index:
            parts.append(" or ")
        parts.append(dcc.Link(f"the {view.nav_title} view", href=link(view.path)))
    return parts


def layout(link: Callable[[str], str], search: str, embed: bool) -> html.Div:
    sections = []
    for number, (paper, cards) in enumerate(GROUPS):
        heading = f"{PREFIX}-paper-{number + 1}"
        sections.append(
            html.Section(
                [
                    _heading(paper, heading),
                    html.P(_view_links(paper, link), className="paper-group-subject"),
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


# -- callback --------------------------------------------------------------------------------


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
