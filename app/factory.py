"""The app factory: one Dash app per call, with every callback registered on that instance
(the global ``dash.callback`` registry would attach callbacks to the first app only)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable

from dash import Dash, Input, Output, State, dcc, html
from flask import Response, jsonify
from werkzeug.exceptions import HTTPException

from solvers.networks import compile_training_loop, prepare_fit

from . import embed, home, paper_figures
from .cache import ResultCache
from .compression import enable_compression
from .config import MAX_REQUEST_BYTES, Settings
from .core.jobs import Jobs
from .core.page import Page
from .core.state import EMBED, query_pairs
from .fair import ClientRate, ClientSlots, RateLimitedLog, RequestGate, gate_requests
from .job_runner import jobs_for
from .memory import keep_freed_memory
from .ui import components
from .views import BY_KEY, MAPS, PAPERS, VIEWS

__all__ = ["create_app"]

log = logging.getLogger(__name__)
#: malformed requests are logged, but a flood of them writes a few lines a minute
refusals = RateLimitedLog(log, per_minute=10)

#: pages that are not model views, besides the start page
PAGES: tuple[Page, ...] = (paper_figures.PAGE,)


def _embedded(search: str) -> bool:
    """The link's ``embed`` flag, read by the same validator as every view's state."""
    raw = next((value for key, value in query_pairs(search) if key == "embed"), None)
    return EMBED.clean(raw)[0]


def create_app(settings: Settings | None = None, **dash_options) -> Dash:
    """A new app instance. ``settings`` defaults to :meth:`Settings.from_env`; ``dash_options``
    go to :class:`dash.Dash` (and override the path prefixes of ``settings``)."""
    settings = settings or Settings.from_env()
    keep_freed_memory()  # large temporaries reuse memory instead of page-faulting afresh
    _compile_training_loop()
    app = Dash(
        __name__,
        title="Lazy vs rich learning, exactly",
        assets_folder=str(_assets_folder()),
        suppress_callback_exceptions=True,
        update_title=None,
        **(settings.dash_paths() | dash_options),
    )
    # the page's language, for screen readers and hyphenation; a colour scheme of both kinds
    app.index_string = app.index_string.replace("<html>", '<html lang="en">', 1).replace(
        "{%metas%}", '{%metas%}\n        <meta name="color-scheme" content="light dark">', 1
    )
    app.server.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    cache = ResultCache.for_app(
        app.server, settings.flask_caching_config(), settings.cache_retry_after
    )
    app.server.config["RESULT_CACHE"] = cache
    jobs, celery = jobs_for(settings, cache, BY_KEY)
    app.server.config["JOBS"] = jobs
    app.server.config["CELERY_APP"] = celery  # the worker's entry point (app/worker.py)
    # (made before gunicorn forks its workers, so that they share the counts)
    slots = ClientSlots(settings.updates_per_client)
    app.layout = html.Div([dcc.Location(id="url"), html.Div(id="page")])
    _register_router(app)
    for view in VIEWS:
        view.register(app, cache, jobs, slots)
    for page in PAGES:
        if page.register is not None:
            page.register(app, cache)
    if settings.compress:
        enable_compression(app.server, (app.config.routes_pathname_prefix,))
    _add_health_check(app, settings, cache, jobs)
    embed.install(app, settings)  # /embed.js, the lessons, the origins that may drive embeds
    _add_security_headers(app, settings)
    _refuse_malformed_requests(app)
    # a client past its rate is refused before Flask sees the request (app/fair.py); a page
    # resends a request refused so after the Retry-After it names (assets/app.js)
    rate = ClientRate(settings.requests_per_second, 4 * settings.requests_per_second)
    app.server.wsgi_app = gate_requests(
        app.server.wsgi_app,
        app.config.routes_pathname_prefix + "_dash-update-component",
        RequestGate(rate),
        MAX_REQUEST_BYTES,
    )
    _register_component_bundles(app)
    _set_up_before_serving(app)
    return app


def _set_up_before_serving(app: Dash) -> None:
    """Dash sets its server up (lists the assets, writes the page's script tags) on the first
    request, and marks that done before doing it: a second request arriving meanwhile — a
    worker's first two at once, a course page loading a frame and its embed script — got a page
    without its scripts and styles, blank. One request in-process, before any worker serves."""
    with app.server.test_client() as client:
        client.get(app.config.routes_pathname_prefix + "_dash-layout")


def _compile_training_loop() -> None:
    """Have the compiled step loop of small networks ready before the first request (gunicorn
    loads the app in its master, so the workers it forks inherit it): ~13 s the first time on
    a machine, while numba compiles and caches it; under a second after. The
    optimiser of the network view's fit is loaded here too (the engine imports it on first
    use: ~0.1 s that the first request of every worker would wait)."""
    start = time.perf_counter()
    prepare_fit()
    if compile_training_loop():
        log.info("training loop compiled in %.1f s", time.perf_counter() - start)


def _linker(prefix: str) -> Callable[[str], str]:
    def link(path: str) -> str:
        """An app path ("/single-neuron") as the browser must request it (with the prefix)."""
        return prefix.rstrip("/") + path if path != "/" else prefix

    return link


def _app_path(prefix: str, pathname: str) -> str | None:
    """The browser's pathname without the prefix, or None if it lies outside the app."""
    base = prefix.rstrip("/")
    if base and not (pathname == base or pathname.startswith(base + "/")):
        return None
    return "/" + pathname[len(base) :].strip("/")


def navigation(link: Callable[[str], str]) -> components.Navigation:
    item = components.NavItem
    return components.Navigation(
        home=link("/"),
        views=tuple(item(v.nav_title, link(v.path)) for v in VIEWS if not v.is_map),
        maps=tuple(item(v.nav_title, link(v.path)) for v in MAPS),
        pages=tuple(item(p.nav_title, link(p.path)) for p in PAGES),
        papers=tuple((paper.authors, paper.title) for paper in PAPERS),
    )


def related(view, link: Callable[[str], str]) -> list[tuple[str, str]]:
    """A trajectory view links to its map, a map to its trajectory view."""
    if view.is_map:
        home = BY_KEY[view.map_of]
        return [(f"← {home.nav_title}: one trajectory", link(home.path))]
    return [
        (f"{m.nav_title}: the whole grid →", link(m.path)) for m in MAPS if m.map_of == view.key
    ]


def _not_found(pathname: str, link: Callable[[str], str]) -> html.Div:
    return html.Div(
        [
            html.H1("Page not found"),
            html.P(["Nothing lives at ", html.Code(pathname[:100]), "."]),
            dcc.Link("Back to the start page", href=link("/")),
        ]
    )


def _register_router(app: Dash) -> None:
    prefix = app.config.requests_pathname_prefix
    link = _linker(prefix)
    shell = navigation(link)
    views = {view.path: view for view in VIEWS}
    pages = {page.path: page for page in (home.PAGE, *PAGES)}

    @app.callback(Output("page", "children"), Input("url", "pathname"), State("url", "search"))
    def route(pathname, search):
        pathname = pathname if isinstance(pathname, str) else "/"
        search = search if isinstance(search, str) else ""
        embed = _embedded(search)
        path = _app_path(prefix, pathname)
        if path in views:
            view = views[path]
            body, current = view.layout(search, related(view, link)), link(path)
        elif path in pages:
            body, current = pages[path].layout(link, search, embed), link(path)
        else:
            body, current = _not_found(pathname, link), ""
        return components.page_shell(body, navigation=shell, current=current, embed=embed)


def _add_health_check(app: Dash, settings: Settings, cache: ResultCache, jobs: Jobs | None) -> None:
    """``/healthz`` (and under the routes prefix) for load balancers: cheap, always 200 while
    the worker serves. A failing cache does not make the app unhealthy — pages still compute;
    when no job worker has answered lately, or the job store is away, the status is
    ``degraded`` and ``jobs`` says why (maps wait, sliders do not)."""

    def health():
        body = {"status": "ok", "cache": settings.cache_type, "cache_available": cache.reachable()}
        if jobs is not None:
            body["jobs"] = jobs.health()
            if body["jobs"].get("problem") or not body["jobs"].get("store_available"):
                body["status"] = "degraded"
        return Response(json.dumps(body), mimetype="application/json")

    paths = {"/healthz", app.config.routes_pathname_prefix + "healthz"}
    for number, path in enumerate(sorted(paths)):
        app.server.add_url_rule(path, f"healthz_{number}", health, methods=["GET", "HEAD"])


def _add_security_headers(app: Dash, settings: Settings) -> None:
    """Headers on every answer. Embedding in iframes is allowed unless ``FRAME_ANCESTORS``
    names the pages that may embed the app; no ``X-Frame-Options`` is sent, as it cannot name
    several origins and would override the CSP in old browsers."""
    # scripts only from the app itself and Dash's own inline ones, by their hashes
    scripts = " ".join(["'self'", *app.csp_hashes()])
    policy = [f"script-src {scripts}", "base-uri 'self'", "object-src 'none'", "form-action 'self'"]
    ancestors = embed.frame_ancestors(settings.frame_ancestors)  # and the app's own lessons
    if ancestors:
        policy.append(f"frame-ancestors {ancestors}")
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
        refusals.warning("refused a request that failed: %r", error)
        return jsonify({"error": "bad request", "detail": type(error).__name__}), 400
