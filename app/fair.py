"""Fair use of a shared server: who a request is from, how many of a client's updates are
computed at once, and logging that a flood of bad requests cannot flood.

A *client* is a page: its layout carries a random id (the ``client`` of its ``{key}-page``
store), which every update sends back. A class behind one NAT shares one IP address, so the
address is only the fallback for requests without a page's id. A client that makes up a new
id for every request escapes the per-client bound; the global bounds (the job queue, the
server's threads) and the lower priority of background jobs still hold for it.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import io
import json
import logging
import multiprocessing
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "BY_ADDRESS",
    "ClientRate",
    "ClientSlots",
    "RateLimitedLog",
    "RequestGate",
    "client_of",
    "gate_requests",
    "page_of",
    "process_alive",
]

_CLIENT = re.compile(r"[0-9a-f]{16,64}")
#: how the id of a client known only by its address begins
BY_ADDRESS = "ip-"


def client_of(page: Any, address: str | None) -> str:
    """The client a request is from: the page's id, else its address."""
    ident = page.get("client") if isinstance(page, dict) else None
    if isinstance(ident, str) and _CLIENT.fullmatch(ident):
        return ident
    return BY_ADDRESS + hashlib.sha256(str(address or "?").encode()).hexdigest()[:16]


def _bucket(client: str, buckets: int) -> int:
    return int(hashlib.sha256(client.encode()).hexdigest()[:8], 16) % buckets


def process_alive(pid: int) -> bool:
    """Whether a process with this id runs (one of another user counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ClientSlots:
    """How many requests each client has being computed, shared by every process forked from
    the one that made it (gunicorn's workers, with ``preload_app``): up to ``limit`` holders
    per hash bucket of clients, in shared memory, each the process id that holds it. A slot
    whose process died mid-request (a worker killed or timed out) is free again at once."""

    def __init__(self, limit: int, buckets: int = 4096) -> None:
        self.limit = limit
        self._buckets = buckets
        self._holders = multiprocessing.RawArray(ctypes.c_int, buckets * limit)
        self._lock = multiprocessing.Lock()

    def _take(self, client: str) -> int | None:
        base, pid = _bucket(client, self._buckets) * self.limit, os.getpid()
        with self._lock:
            for index in range(base, base + self.limit):
                holder = self._holders[index]
                if holder == 0 or (holder != pid and not process_alive(holder)):
                    self._holders[index] = pid
                    return index
        return None

    @contextlib.contextmanager
    def hold(self, client: str) -> Iterator[bool]:
        """Whether the client may have one more request computed now (held until the block
        ends)."""
        index = self._take(client)
        try:
            yield index is not None
        finally:
            if index is not None:
                with self._lock:
                    self._holders[index] = 0

    def held(self, client: str) -> int:
        base = _bucket(client, self._buckets) * self.limit
        return sum(1 for index in range(base, base + self.limit) if self._holders[index])


class ClientRate:
    """How many callback requests a second each client may send: a token bucket per hash
    bucket of clients, in memory shared by every process forked from the one that made it.
    Past ``per_second`` (after a burst of ``burst``) a client's requests are refused at once,
    before any work."""

    def __init__(self, per_second: float, burst: float, buckets: int = 4096) -> None:
        self.per_second, self.burst = per_second, burst
        self._tokens = multiprocessing.RawArray(ctypes.c_double, buckets)
        self._stamps = multiprocessing.RawArray(ctypes.c_double, buckets)
        self._lock = multiprocessing.Lock()

    def allow(self, client: str) -> bool:
        bucket = _bucket(client, len(self._tokens))
        now = time.monotonic()
        with self._lock:
            if self._stamps[bucket] == 0.0:
                self._tokens[bucket] = self.burst
            elapsed = max(0.0, now - self._stamps[bucket]) if self._stamps[bucket] else 0.0
            tokens = min(self.burst, self._tokens[bucket] + elapsed * self.per_second)
            self._stamps[bucket] = now
            if tokens < 1.0:
                self._tokens[bucket] = tokens
                return False
            self._tokens[bucket] = tokens - 1.0
            return True


class RequestGate:
    """Whether a client's callback request may go on: within its ``rate``, always. A page
    sends one update at a time, each after the last one's answer — up to one a frame while a
    slider is dragged over a quick view — and a poll twice a second; a script that sends
    faster (on any number of connections) is refused at once, before any work, which costs
    the server a fraction of what even a refused update costs. (Counting a client's
    requests in progress instead misses a flood whose requests are answered quickly: they
    seldom overlap.) A client known only by its address always may: a class behind one
    address must not share one budget."""

    def __init__(self, rate: ClientRate) -> None:
        self.rate = rate

    def enter(self, client: str) -> bool:
        return client.startswith(BY_ADDRESS) or self.rate.allow(client)


def page_of(body: Any) -> Any:
    """The page store a callback request carries (``{key}-page``'s data), if any."""
    if not isinstance(body, dict):
        return None
    state = body.get("state")
    for entry in state if isinstance(state, list) else ():
        if (
            isinstance(entry, dict)
            and isinstance(entry.get("id"), str)
            and entry["id"].endswith("-page")
            and entry.get("property") == "data"
        ):
            return entry.get("value")
    return None


def _refused(start_response: Callable, status: str, message: str, extra=()) -> list[bytes]:
    body = json.dumps({"error": message}).encode()
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    start_response(status, headers + list(extra))
    return [body]


def gate_requests(wsgi_app: Callable, path: str, gate: RequestGate, max_bytes: int) -> Callable:
    """``wsgi_app`` behind ``gate`` for POSTs to ``path`` (Dash's callback requests): a client
    past its rate is answered 429 (``Retry-After: 1``) before the request reaches Flask or
    Dash. This is WSGI middleware rather than a Flask hook because a flood's requests are
    refused by the hundred a second, and a refusal here costs a fifth of one through Flask's
    request machinery, time the other pages' requests would wait for in the same process. The
    body read is handed on unchanged; one larger than ``max_bytes`` is refused (413)."""

    def gated(environ: dict, start_response: Callable) -> Any:
        if environ.get("REQUEST_METHOD") != "POST" or environ.get("PATH_INFO") != path:
            return wsgi_app(environ, start_response)
        try:
            length = int(environ.get("CONTENT_LENGTH") or -1)
        except ValueError:
            length = -1
        if length > max_bytes:
            return _refused(start_response, "413 Request Entity Too Large", "request too large")
        body = environ["wsgi.input"].read(length if length >= 0 else max_bytes + 1)
        if len(body) > max_bytes:
            return _refused(start_response, "413 Request Entity Too Large", "request too large")
        environ["wsgi.input"], environ["CONTENT_LENGTH"] = io.BytesIO(body), str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)  # the body is now whole, of that length
        try:
            page = page_of(json.loads(body))
        except (ValueError, RecursionError):  # malformed: refused further on (400)
            page = None
        if gate.enter(client_of(page, environ.get("REMOTE_ADDR"))):
            return wsgi_app(environ, start_response)
        return _refused(
            start_response, "429 Too Many Requests", "too many requests", [("Retry-After", "1")]
        )

    return gated


class RateLimitedLog:
    """At most ``per_minute`` lines a minute from one call site; the next line after a quiet
    spell says how many were left out (a flood of malformed requests must not fill the disk
    or drown the lines that matter)."""

    def __init__(self, logger: logging.Logger, per_minute: int = 10) -> None:
        self.logger = logger
        self.per_minute = per_minute
        self._window = 0.0
        self._sent = 0
        self._left_out = 0
        self._lock = threading.Lock()

    def warning(self, message: str, *args: Any) -> None:
        now = time.monotonic()
        with self._lock:
            if now - self._window >= 60:
                self._window, self._sent = now, 0
            if self._sent >= self.per_minute:
                self._left_out += 1
                return
            self._sent += 1
            left_out, self._left_out = self._left_out, 0
        if left_out:
            message += f" (and {left_out} more like it left out of the log)"
        self.logger.warning(message, *args)
