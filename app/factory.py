"""The app factory: one Dash app per call, with every callback registered on that instance
(the global ``dash.callback`` registry would attach callbacks to the first app only)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from urllib.parse import parse_qs

from dash import Dash, Input, Output, State, dcc, html
from flask import Response, jsonify
from werkzeug.exceptions import HTTPException

from solvers.performance import keep_freed_memory

from . import components
from .cache import ResultCache
from .config import MAX_REQUEST_BYTES, Settings
from .pages import PAGES
from .views import VIEWS

__all__ = ["create_app"]

log = logging.getLogger(__name__)


def _embed(search: str | None) -> bool:
    return parse_qs((search or "").lstrip("?")).get("embed", ["0"])[0] in ("1", "true", "yes")


def home_layout(link: Callable[[str], str] = str) -> html.Div:
    """The start page; ``link`` turns an app path into an href (adding any path prefix)."""

    def cards(views) -> html.Div:
        return html.Div(
            [
                html.Div(
                    [
                        html.H2(dcc.Link(view.nav_title, href=link(view.path))),
                        html.P(view.summary),
                        dcc.Link("Open →", href=link(view.path), className="card-link"),
                    ],
                    className="view-card",
                )
                for view in views
            ],
            className="cards",
        )

    intro = components.explanation(
        "How does a neural network learn? In the **lazy** regime its features — the neural "
        "tangent kernel (NTK) — hardly move: training is kernel regression with the kernel it "
        "started with. In the **rich** regime the features themselves change to fit the task. "
        "Which one you get depends on the initialisation: its overall scale, the balance between "
        "layers, the width, the learning rates. For small linear networks the learning dynamics "
        "can be solved *exactly*; every curve in this explorer is such an exact solution, with a "
        "real gradient-descent run drawn on top."
    )
    maps = [view for view in VIEWS if not view.in_nav]
    return html.Div(
        [
            html.H1("Lazy vs rich learning, exactly"),
            intro,
            cards(view for view in VIEWS if view.in_nav),
            *(
                [
                    html.H2("Phase portraits: where the boundary lies", id="maps"),
                    components.explanation(
                        "Each map is a whole grid of exact solutions, recomputed whenever a "
                        "control moves (the time slider included, where the map has one). "
                        "Click a cell to open that trajectory."
                    ),
                    cards(maps),
                ]
                if maps
                else []
            ),
        ],
        className="home",
    )


def create_app(settings: Settings | None = None, **dash_options) -> Dash:
    """A new app instance. ``settings`` defaults to :meth:`Settings.from_env`; ``dash_options``
    go to :class:`dash.Dash` (and override the path prefixes of ``settings``)."""
    settings = settings or Settings.from_env()
    keep_freed_memory()  # large temporaries reuse memory instead of page-faulting afresh
    app = Dash(
        __name__,
        title="Lazy vs rich learning, exactly",
        assets_folder=str(_assets_folder()),
        suppress_callback_exceptions=True,
        update_title=None,
        **(settings.dash_paths() | dash_options),
    )
    app.server.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    cache = ResultCache.for_app(
        app.server, settings.flask_caching_config(), settings.cache_retry_after
    )
    app.server.config["RESULT_CACHE"] = cache

    prefix = app.config.requests_pathname_prefix

    def link(path: str) -> str:
        """An app path ("/single-neuron") as the browser must request it (with the prefix)."""
        return prefix.rstrip("/") + path if path != "/" else prefix

    def app_path(pathname: str) -> str | None:
        """The browser's pathname without the prefix, or None if it lies outside the app."""
        base = prefix.rstrip("/")
        if base and not (pathname == base or pathname.startswith(base + "/")):
            return None
        return "/" + pathname[len(base) :].strip("/")

    nav = [{"title": view.nav_title, "path": link(view.path)} for view in VIEWS if view.in_nav]
    maps = [view for view in VIEWS if not view.in_nav]
    if maps:  # one entry for the maps; the start page lists all of them
        nav.append({"title": "Maps", "path": link(maps[0].path)})
    nav += [{"title": page.nav_title, "path": link(page.path)} for page in PAGES]
    by_path = {view.path: view for view in VIEWS}
    pages = {page.path: page for page in PAGES}

    app.layout = html.Div([dcc.Location(id="url"), html.Div(id="page")])

    @app.callback(Output("page", "children"), Input("url", "pathname"), State("url", "search"))
    def route(pathname, search):
        pathname = pathname if isinstance(pathname, str) else "/"
        search = search if isinstance(search, str) else ""
        embed = _embed(search)
        path = app_path(pathname)
        shell = {"nav": nav, "home": link("/"), "embed": embed}
        view = by_path.get(path) if path else None
        if view is not None:
            return components.page_shell(
                view.layout(search, embed), current=link(view.path), **shell
            )
        if path in pages:
            page = pages[path]
            body = page.layout(link, search, embed)
            return components.page_shell(body, current=link(page.path), **shell)
        if path == "/":
            return components.page_shell(home_layout(link), current=link("/"), **shell)
        body = html.Div(
            [
                html.H1("Page not found"),
                html.P(["Nothing lives at ", html.Code(pathname[:100]), "."]),
                dcc.Link("Back to the start page", href=link("/")),
            ]
        )
        return components.page_shell(body, current="", **shell)

    for view in VIEWS:
        view.register(app, cache)
    for page in PAGES:
        if page.register is not None:
            page.register(app, cache)

    _add_health_check(app, settings, cache)
    _add_security_headers(app, settings)
    _refuse_malformed_requests(app)
    _register_component_bundles(app)
    return app


def _add_health_check(app: Dash, settings: Settings, cache: ResultCache) -> None:
    """``/healthz`` (and under the routes prefix) for load balancers: cheap, always 200 while
    the worker serves. A failing cache does not make the app unhealthy — pages still compute."""

    def health():
        body = {"status": "ok", "cache": settings.cache_type, "cache_available": cache.available}
        return Response(json.dumps(body), mimetype="application/json")

    paths = {"/healthz", app.config.routes_pathname_prefix + "healthz"}
    for number, path in enumerate(sorted(paths)):
        app.server.add_url_rule(path, f"healthz_{number}", health, methods=["GET", "HEAD"])


def _add_security_headers(app: Dash, settings: Settings) -> None:
    """Headers on every answer. Embedding in iframes is allowed unless ``FRAME_ANCESTORS``
    names the pages that may embed the app; no ``X-Frame-Options`` is sent, as it cannot name
    several origins and would override the CSP in old browsers."""
    policy = ["base-uri 'self'", "object-src 'none'", "form-action 'self'"]
    if settings.frame_ancestors:
        policy.append(f"frame-ancestors {settings.frame_ancestors}")
    headers = {
        "Content-Security-Policy": "; ".join(policy),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "strict-origin-when-cross-origin",
    }

    @app.server.after_request
    def secure(response):
        for name, value in headers.items():
            response.headers.setdefault(name, value)
        return response


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
