"""Compressed answers: the page's scripts (8.9 MB, plotly.js alone 4.8 MB) and every callback's
JSON travel as brotli (or gzip for browsers without it).

Measured on the 2-core machine (``benchmarks/compression.py``): brotli at quality 4 shrinks a
callback's answer to about a third in 0.1–2 ms, a few per cent of the callback's own time, and
plotly.js to 1.4 MB in ~70 ms. Scripts do not change while the server runs, so each is
compressed once per worker and kept; answers are compressed as they go, those over
:data:`LARGE_BYTES` (downloads) at the fastest level.
"""

from __future__ import annotations

import gzip
import threading

from flask import Flask, Response, request

try:  # brotli comes with flask-compress; gzip is the fallback
    import brotli
except ImportError:  # pragma: no cover - a minimal install
    brotli = None

__all__ = ["enable_compression"]

BROTLI_QUALITY = 4
GZIP_LEVEL = 6
#: answers above this size (downloads: the finite-width CSV is 2.9 MB) are compressed at the
#: fastest levels: brotli 1 took 18 ms where 4 took 62 ms, for 4 % more bytes
LARGE_BYTES = 256 * 1024
LARGE_BROTLI_QUALITY = 1
LARGE_GZIP_LEVEL = 1
#: smaller answers are not worth the header
MIN_BYTES = 1024
MIMETYPES = frozenset(
    {"application/javascript", "text/javascript", "text/css", "application/json", "text/html"}
)
#: requests whose answers never change while the server runs (compressed once, kept)
STATIC_PREFIXES = ("_dash-component-suites/", "assets/")


def _algorithm(accepted: str) -> str | None:
    tokens = {part.split(";")[0].strip().lower() for part in accepted.split(",")}
    if "br" in tokens and brotli is not None:
        return "br"
    return "gzip" if "gzip" in tokens else None


def _compress(data: bytes, algorithm: str, fastest: bool = False) -> bytes:
    if algorithm == "br":
        return brotli.compress(data, quality=LARGE_BROTLI_QUALITY if fastest else BROTLI_QUALITY)
    return gzip.compress(data, LARGE_GZIP_LEVEL if fastest else GZIP_LEVEL, mtime=0)


class _Kept:
    """Compressed static answers of one worker, by path and algorithm."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str], bytes] = {}
        self.lock = threading.Lock()

    def get(self, key: tuple[str, str], data: bytes, algorithm: str) -> bytes:
        with self.lock:
            found = self.entries.get(key)
        if found is None:
            found = _compress(data, algorithm)
            with self.lock:
                self.entries[key] = found
        return found


def enable_compression(server: Flask, prefixes: tuple[str, ...]) -> None:
    """Compress ``server``'s answers; ``prefixes``: the app's routes prefixes (a path
    prefix deployment serves its scripts under it)."""
    kept = _Kept()
    static = tuple(p.rstrip("/") + "/" + s for p in prefixes for s in STATIC_PREFIXES)

    @server.after_request
    def compress(response: Response) -> Response:
        response.vary.add("Accept-Encoding")
        algorithm = _algorithm(request.headers.get("Accept-Encoding", ""))
        kept_once = request.method == "GET" and request.path.startswith(static)
        if (
            algorithm is None
            or response.status_code != 200
            # (the assets are files, sent as a stream: read whole, they are compressed once)
            or (response.is_streamed and not kept_once)
            or response.mimetype not in MIMETYPES
            or "Content-Encoding" in response.headers
        ):
            return response
        response.direct_passthrough = False
        data = response.get_data()
        if len(data) < MIN_BYTES:
            return response
        if kept_once:
            body = kept.get((request.full_path, algorithm), data, algorithm)
        else:
            body = _compress(data, algorithm, fastest=len(data) > LARGE_BYTES)
        response.set_data(body)
        response.headers["Content-Encoding"] = algorithm
        etag, weak = response.get_etag()
        if etag:
            response.set_etag(f"{etag}-{algorithm}", weak=weak)
        return response
