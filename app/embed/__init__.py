"""What a course page needs from the app (docs/embedding.md): the script that sizes its frames
and drives them (``/embed.js``), the lessons (``/lessons/…``, :mod:`.lessons`), the origins
whose messages an embedded view reads, and the ``frame-ancestors`` that lets the app's own pages
(the lessons, the embed builder's preview) frame its views.

The script is served from a route of its own, not from ``assets/``: Dash loads every script
there into every page of the app.
"""

from __future__ import annotations

from pathlib import Path

from dash import Dash
from flask import Response, request

from ..config import Settings
from . import lessons

__all__ = ["SCRIPT", "frame_ancestors", "install", "message_origins"]

#: the course page's script
SCRIPT = Path(__file__).with_name("embed.js")
#: the page's tag that names the origins whose messages an embedded view reads (assets/app.js)
META = "lazy-rich-message-origins"


def frame_ancestors(configured: str | None) -> str | None:
    """The ``frame-ancestors`` sources the app sends for ``FRAME_ANCESTORS`` (already
    validated, app/config.py): none (any page may embed the app) when it is unset; otherwise
    the app itself first — its lessons and the builder's preview frame its views, and a lesson
    embedded in a course page has both as ancestors. ``'none'`` stays as it is: no page frames
    the app, not even its own."""
    if not configured or configured == "'none'":
        return configured or None
    return " ".join(["'self'", *(s for s in configured.split() if s != "'self'")])


def message_origins(configured: str | None) -> str:
    """The sources (CSP syntax) whose messages an embedded view reads: the app itself, and the
    ``FRAME_ANCESTORS`` origins. Unset, only the app's own pages may drive its figures — any
    page may embed it then, and a figure that any page could drive would not be the one its
    reader set; a course page that drives figures names its origin in ``FRAME_ANCESTORS``."""
    sources = frame_ancestors(configured) or "'self'"
    return "'self'" if sources == "'none'" else sources


def _script() -> Response:
    answer = Response(SCRIPT.read_text(), mimetype="text/javascript")
    answer.headers["Cache-Control"] = "public, max-age=3600"
    # any course page loads it, whatever its origin
    answer.headers["Access-Control-Allow-Origin"] = "*"
    return answer


def install(app: Dash, settings: Settings) -> None:
    """Serve the script and the lessons, and name the message origins in every page."""
    origins = message_origins(settings.frame_ancestors)
    app.index_string = app.index_string.replace(
        "{%metas%}", f'{{%metas%}}\n        <meta name="{META}" content="{origins}">', 1
    )
    routes = app.config.routes_pathname_prefix
    links = app.config.requests_pathname_prefix.rstrip("/")
    app.server.add_url_rule(routes + "embed.js", "embed_script", _script, methods=["GET"])

    def lesson(slug: str = "") -> Response:
        """A lesson (or, without a slug, their list); ``?download=1``: the file to adapt."""
        download = request.args.get("download") == "1"
        base = request.host_url.rstrip("/") + links if download else links
        page = lessons.page(slug, base)
        if page is None:
            return Response(lessons.not_found(slug, links), 404, mimetype="text/html")
        answer = Response(page, mimetype="text/html")
        if download:
            name = slug or "lessons"
            answer.headers["Content-Disposition"] = f'attachment; filename="{name}.html"'
        return answer

    def stylesheet() -> Response:
        return Response(lessons.STYLESHEET.read_text(), mimetype="text/css")

    server = app.server
    server.add_url_rule(routes + "lessons", "lessons", lesson, methods=["GET"])
    server.add_url_rule(routes + "lessons/lesson.css", "lesson_css", stylesheet, methods=["GET"])
    server.add_url_rule(routes + "lessons/<slug>", "lesson", lesson, methods=["GET"])
