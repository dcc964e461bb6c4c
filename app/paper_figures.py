"""The paper-figures page: one card per figure of the papers that a view's preset reproduces —
its caption, the figure computed from the preset, the paper's claim checked on the card's own
numbers, how the model differs from the paper, and a link that opens the same setup in the
interactive view.

A preset with a ``figure`` gets a card; its ``panel`` says which plot the card shows, its
``claim`` what the figure shows and the check of it (:mod:`app.core.claims`). The cards are
fixed, so each is computed once per deployment into the shared result cache — by a process
started with the server (:func:`warm_up_in_background`) or by the first visitor — and served as
JSON from ``paper-figures/card/<key>``. The page draws a card when it scrolls into view
(``assets/paper_figures.js``): nothing is computed or drawn for cards nobody looks at. A card that
cannot be computed says so; the others still render.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dash import Dash, dcc, html
from flask import Response, request
from plotly.io.json import to_json_plotly

from . import across_seeds
from .cache import ResultCache
from .core.claims import Evidence
from .core.page import Page
from .core.panel import Figure, Panel
from .core.presets import Paper, Preset
from .core.view import View
from .fingerprint import code_version
from .ui import components
from .ui.figures import CURSOR, compact
from .ui.notation import typeset, typeset_figure
from .ui.theme import themed
from .views import MODELS

__all__ = ["CARDS", "GROUPS", "PAGE", "Card", "CardContent", "card_content", "code_version"]

log = logging.getLogger(__name__)

PATH = "/paper-figures"
PREFIX = "paper-figures"
#: where a card's content is served, below the app's routes prefix
CARD_ROUTE = "paper-figures/card/"
#: the result cache's namespace for drawn cards
NAMESPACE = "paper-card"

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

#: the environment variable that turns the start-up computation of every card off ("0")
WARM_UP = "PAPER_FIGURES_WARM_UP"

INTRO = (
    "Every figure of the papers that this explorer reproduces, computed by the exact solvers and "
    "the network engine. Each card shows one panel of the figure's setup, says what the paper's "
    "figure shows and checks it on the card's own numbers, and says where the model or the "
    "setting here differs from the paper's. Its link opens the same setup in the interactive "
    "view, with all its panels and controls."
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
    def slot_id(self) -> str:
        return f"{PREFIX}-{self.key}-plot"

    @property
    def note_id(self) -> str:
        return f"{PREFIX}-{self.key}-note"

    @property
    def evidence_id(self) -> str:
        return f"{PREFIX}-{self.key}-evidence"

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
BY_KEY = {card.key: card for card in CARDS}


# -- a card's content ------------------------------------------------------------------------


@dataclass(frozen=True)
class CardContent:
    """What a deployment computes once per card and every visitor reads: the drawn figure (JSON
    text, light theme) and its claim's evidence on the card's own data."""

    figure: str
    height: int
    holds: bool
    found: str


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
    if "margin" in layout and "yaxis2" not in layout:  # (a right-hand axis keeps its room)
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


def _draw(card: Card, cache: ResultCache) -> CardContent:
    controls = card.view.spec.with_overrides(card.preset.values)
    result = card.view.results(cache, controls).result
    figure = typeset_figure(card.panel.draw(controls, result))
    _static(figure)
    _at_the_end(figure, card, controls, result)
    _fit_to_card(figure, card)
    claim = card.preset.claim
    evidence = claim.evaluate(controls, result) if claim else Evidence(True, "")
    height = int(figure["layout"]["height"])
    return CardContent(to_json_plotly(compact(figure)), height, evidence.holds, evidence.found)


#: seconds a drawn card is kept: a card is fixed for a version of the code (its key), so it
#: is kept as long as the cache allows (the longest ``CACHE_DEFAULT_TIMEOUT``), not an hour
#: after which a visitor's request would compute it again
CARD_LIFETIME = 30 * 86400
#: seconds a request waits for a card another request (or the warm-up) is computing before it
#: computes the card itself: a class opening the page at once computes each card once (below
#: nginx's 60-s wait for an answer, docs/deploy/nginx.conf, with a card's computation after it)
CARD_WAIT = 40.0


def card_content(card: Card, cache: ResultCache) -> CardContent:
    """The card's drawn figure and evidence, from the cache or computed (and cached) now —
    once, however many requests ask for it at the same time."""
    return cache.get_or_compute(
        NAMESPACE,
        (card.key, code_version()),
        lambda: _draw(card, cache),
        CardContent,
        timeout=CARD_LIFETIME,
        wait_for_others=CARD_WAIT,
    )


def card_answer(card: Card, cache: ResultCache, theme: str = "light") -> str:
    """The JSON the page reads for a card: ``figure``, ``height``, ``claim`` (``holds`` and
    ``found``) and ``message`` (why the figure could not be made, else null)."""
    try:
        content = card_content(card, cache)
    except Exception as error:  # one broken card must not take the page down
        log.exception("paper figure %s could not be computed", card.key)
        failed = components.failed_figure()
        hidden = {"visible": False}
        failed["layout"] |= {"height": card.height, "xaxis": hidden, "yaxis": hidden}
        message = f"This figure could not be computed: {str(error)[:200]}"
        body = {"figure": failed, "height": card.height, "claim": None, "message": message}
        return json.dumps(body)
    figure = content.figure
    if theme == "dark":
        figure = to_json_plotly(themed(json.loads(figure), "dark"))
    found = typeset(content.found, prose=True)
    claim = json.dumps({"holds": content.holds, "found": found})
    return f'{{"figure": {figure}, "height": {content.height}, "claim": {claim}, "message": null}}'


# -- layout ----------------------------------------------------------------------------------


def card_entry(card: Card, link: Callable[[str], str], embed: bool) -> dict[str, Any]:
    """What the page shows of a card before its figure: ids, texts and links, as data.

    ``assets/paper_figures.js`` builds each card's DOM from this (an ``article`` with its
    heading, caption, plot slot, claim, evidence, differences and link). Rendered by Dash as
    components, some seventy cards of a dozen nodes each took the page seconds to show; built
    by the script, milliseconds."""
    preset = card.preset
    return {
        "id": f"{PREFIX}-{card.key}",
        "source": link("/" + CARD_ROUTE + card.key) + f"?v={code_version()}",
        "slot": card.slot_id,
        "graph": card.graph_id,
        "note": card.note_id,
        "evidence": card.evidence_id,
        "height": card.height,
        # texts typeset as the plots' are: markup of <i>, <sub> and <sup> only, which the
        # script turns into elements (never parsed as HTML)
        "title": typeset(preset.name, prose=True),
        "caption": typeset(preset.caption, prose=True),
        "label": f"{preset.name}: {card.panel.title}",
        "claim": typeset(preset.claim.text, prose=True) if preset.claim is not None else None,
        "differs": typeset(preset.differs, prose=True) if preset.differs else None,
        "seeds": _across_seeds(card),
        "panel": "Panel shown: " + typeset(card.panel.title, prose=True),
        "href": card.href(link, embed),
        "link_title": f"{preset.name}: open in the {card.view.nav_title} view",
    }


def _across_seeds(card: Card) -> str | None:
    """What the card says of its claim in other seeds (:mod:`app.across_seeds`)."""
    controls = card.view.spec.with_overrides(card.preset.values)
    seed = getattr(controls, "seed", None)
    found = None if seed is None else across_seeds.note(card.key, seed)
    return None if found is None else typeset(found, prose=True)


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
                    html.Div(
                        className="paper-cards",
                        **{"data-cards": json.dumps([card_entry(c, link, embed) for c in cards])},
                    ),
                ],
                className="paper-group",
                **{"aria-labelledby": heading},
            )
        )
    # plain text: the intro has no formula
    intro = [] if embed else [html.H1("Paper figures"), html.P(INTRO, className="explanation")]
    return html.Div(
        [*intro, *sections],
        className="paper-figures",
        **{"data-graph-config": json.dumps(GRAPH_CONFIG)},
    )


# -- serving -------------------------------------------------------------------------------


def register(app: Dash, cache: ResultCache) -> None:
    """The route that serves a card's content (``?theme=dark`` for the dark theme). Its link
    carries the code's version, so the browser may keep an answer as long as it likes."""
    route = app.config.routes_pathname_prefix + CARD_ROUTE + "<key>"

    def serve(key: str) -> Response:
        card = BY_KEY.get(key)
        if card is None:
            return Response(json.dumps({"error": "no such card"}), 404, mimetype="application/json")
        theme = "dark" if request.args.get("theme") == "dark" else "light"
        answer = Response(card_answer(card, cache, theme), mimetype="application/json")
        current = request.args.get("v") == code_version()
        answer.headers["Cache-Control"] = "public, max-age=86400" if current else "no-cache"
        return answer

    app.server.add_url_rule(route, "paper_figure_card", serve, methods=["GET"])
    _preload_first_cards(app)


#: the cards whose content the page's own answer announces (those in view on a laptop)
PRELOADED = 3


def _preload_first_cards(app: Dash) -> None:
    """The page's HTML answer names the content of its first cards as ``Link: rel=preload``,
    one per colour scheme: the browser fetches them while it loads the page's scripts, and
    the script's request for a card in view is answered from memory (the fetch otherwise
    waits until Dash has rendered the page and the cards are built)."""
    page = app.config.routes_pathname_prefix + PATH.lstrip("/")
    prefix = app.config.requests_pathname_prefix.rstrip("/")
    links = []
    for card in CARDS[:PRELOADED]:
        source = f"{prefix}/{CARD_ROUTE}{card.key}?v={code_version()}"
        for theme, extra in (("light", ""), ("dark", "&theme=dark")):
            media = f"(prefers-color-scheme: {theme})"
            links.append(f'<{source}{extra}>; rel=preload; as=fetch; crossorigin; media="{media}"')
    header = ", ".join(links)

    @app.server.after_request
    def announce(response: Response) -> Response:
        if request.path == page and request.method == "GET" and response.mimetype == "text/html":
            response.headers["Link"] = header
        return response


def warm_up(cache: ResultCache) -> int:
    """Compute every card into ``cache``; the number that could not be computed."""
    failed = 0
    for card in CARDS:
        try:
            card_content(card, cache)
        except Exception:
            failed += 1
            log.exception("paper figure %s could not be computed", card.key)
    return failed


def warm_up_in_background(settings: Any) -> subprocess.Popen | None:
    """Start computing every card into the deployment's shared cache, in a process of its own
    at low priority, so that the page's first visitor finds them drawn. Nothing is started
    for a cache the web workers do not share, or when ``PAPER_FIGURES_WARM_UP=0``."""
    if os.environ.get(WARM_UP, "1").strip() == "0":
        return None
    if settings.cache_type not in ("FileSystemCache", "RedisCache"):
        return None
    return subprocess.Popen(
        [sys.executable, "-m", "app.precompute", str(os.getpid())],
        stdin=subprocess.DEVNULL,
    )


PAGE = Page(path=PATH, nav_title="Paper figures", layout=layout, register=register)
