"""The app factory: one Dash app per call, with every callback registered on that instance
(the global ``dash.callback`` registry would attach callbacks to the first app only)."""

from __future__ import annotations

import logging
from urllib.parse import parse_qs

from dash import Dash, Input, Output, State, dcc, html
from flask import jsonify
from flask_caching import Cache
from werkzeug.exceptions import HTTPException

from solvers.performance import keep_freed_memory

from . import components
from .cache import ResultCache
from .config import Settings
from .views import VIEWS

__all__ = ["create_app"]

log = logging.getLogger(__name__)


def _embed(search: str | None) -> bool:
    return parse_qs((search or "").lstrip("?")).get("embed", ["0"])[0] in ("1", "true", "yes")


def home_layout() -> html.Div:
    cards = [
        html.Div(
            [
                html.H2(dcc.Link(view.nav_title, href=view.path)),
                html.P(view.summary),
                dcc.Link("Open →", href=view.path, className="card-link"),
            ],
            className="view-card",
        )
        for view in VIEWS
    ]
    intro = components.explanation(
        "How does a neural network learn? In the **lazy** regime its features — the neural "
        "tangent kernel (NTK) — hardly move: training is kernel regression with the kernel it "
        "started with. In the **rich** regime the features themselves change to fit the task. "
        "Which one you get depends on the initialisation: its overall scale, the balance between "
        "layers, the width, the learning rates. For small linear networks the learning dynamics "
        "can be solved *exactly*; every curve in this explorer is such an exact solution, with a "
        "real gradient-descent run drawn on top."
    )
    return html.Div(
        [html.H1("Lazy vs rich learning, exactly"), intro, html.Div(cards, className="cards")],
        className="home",
    )


def create_app(settings: Settings | None = None, **dash_options) -> Dash:
    settings = settings or Settings.from_env()
    keep_freed_memory()  # large temporaries reuse memory instead of page-faulting afresh
    app = Dash(
        __name__,
        title="Lazy vs rich learning, exactly",
        assets_folder=str(_assets_folder()),
        suppress_callback_exceptions=True,
        update_title=None,
        **dash_options,
    )
    flask_cache = Cache(app.server, config=settings.flask_caching_config())
    cache = ResultCache(flask_cache)
    app.server.config["RESULT_CACHE"] = cache

    nav = [{"title": view.nav_title, "path": view.path} for view in VIEWS]
    by_path = {view.path: view for view in VIEWS}

    app.layout = html.Div([dcc.Location(id="url"), html.Div(id="page")])

    @app.callback(Output("page", "children"), Input("url", "pathname"), State("url", "search"))
    def route(pathname, search):
        pathname = pathname if isinstance(pathname, str) else "/"
        search = search if isinstance(search, str) else ""
        embed = _embed(search)
        view = by_path.get(pathname.rstrip("/") or "/")
        if view is not None:
            return components.page_shell(
                view.layout(search, embed), nav=nav, current=view.path, embed=embed
            )
        if pathname in ("/", ""):
            return components.page_shell(home_layout(), nav=nav, current="/", embed=embed)
        body = html.Div(
            [
                html.H1("Page not found"),
                html.P(["Nothing lives at ", html.Code(pathname[:100]), "."]),
                dcc.Link("Back to the start page", href="/"),
            ]
        )
        return components.page_shell(body, nav=nav, current="", embed=embed)

    for view in VIEWS:
        view.register(app, cache)

    _refuse_malformed_requests(app)
    _register_component_bundles(app)
    return app


def _register_component_bundles(app: Dash) -> None:
    """Render the index page once so that this instance knows every component bundle.

    Dash records the bundles it may serve while rendering the index; a gunicorn worker whose
    first request is for a bundle (the page came from another worker) would refuse it.
    """
    with app.server.test_request_context("/"):
        app.index()


def _assets_folder():
    from pathlib import Path

    return Path(__file__).resolve().parent.parent / "assets"


def _refuse_malformed_requests(app: Dash) -> None:
    """Turn errors from malformed requests into 400s: the server never answers 500."""

    @app.server.errorhandler(Exception)
    def handle(error):
        if isinstance(error, HTTPException):
            return error
        log.warning("refused a request that failed: %r", error)
        return jsonify({"error": "bad request", "detail": str(error)[:200]}), 400
