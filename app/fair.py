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
import logging
import multiprocessing
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["ClientSlots", "RateLimitedLog", "client_of"]

_CLIENT = re.compile(r"[0-9a-f]{16,64}")


def client_of(page: Any, address: str | None) -> str:
    """The client a request is from: the page's id, else its address."""
    ident = page.get("client") if isinstance(page, dict) else None
    if isinstance(ident, str) and _CLIENT.fullmatch(ident):
        return ident
    return "ip-" + hashlib.sha256(str(address or "?").encode()).hexdigest()[:16]


class ClientSlots:
    """How many requests each client has being computed, shared by every process forked from
    the one that made it (gunicorn's workers, with ``preload_app``): counters in shared
    memory, one per hash bucket. A count left by a worker that was killed mid-request is
    forgotten after ``stale_after`` seconds (longer than any request may take)."""

    def __init__(self, limit: int, buckets: int = 4096, stale_after: float = 60.0) -> None:
        self.limit = limit
        self.stale_after = stale_after
        self._counts = multiprocessing.RawArray(ctypes.c_int, buckets)
        self._stamps = multiprocessing.RawArray(ctypes.c_double, buckets)
        self._lock = multiprocessing.Lock()

    def _bucket(self, client: str) -> int:
        return int(hashlib.sha256(client.encode()).hexdigest()[:8], 16) % len(self._counts)

    @contextlib.contextmanager
    def hold(self, client: str) -> Iterator[bool]:
        """Whether the client may have one more request computed now (held until the block
        ends)."""
        bucket, now = self._bucket(client), time.time()
        with self._lock:
            if self._counts[bucket] > 0 and now - self._stamps[bucket] > self.stale_after:
                self._counts[bucket] = 0
            admitted = self._counts[bucket] < self.limit
            if admitted:
                self._counts[bucket] += 1
                self._stamps[bucket] = now
        try:
            yield admitted
        finally:
            if admitted:
                with self._lock:
                    self._counts[bucket] = max(0, self._counts[bucket] - 1)

    def held(self, client: str) -> int:
        return self._counts[self._bucket(client)]


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
