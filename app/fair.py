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
import os
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

__all__ = [
    "BY_ADDRESS",
    "ClientRate",
    "ClientSlots",
    "RateLimitedLog",
    "RequestGate",
    "client_of",
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


class ClientCounts:
    """How many requests each client has in progress (no bound), shared like
    :class:`ClientSlots`; a count left by a process killed mid-request is forgotten after
    ``stale_after`` seconds (longer than any request may take)."""

    def __init__(self, buckets: int = 4096, stale_after: float = 60.0) -> None:
        self.stale_after = stale_after
        self._counts = multiprocessing.RawArray(ctypes.c_int, buckets)
        self._stamps = multiprocessing.RawArray(ctypes.c_double, buckets)
        self._lock = multiprocessing.Lock()

    def enter(self, client: str) -> int:
        """Count one more request of the client; how many it has now."""
        bucket, now = _bucket(client, len(self._counts)), time.time()
        with self._lock:
            if self._counts[bucket] > 0 and now - self._stamps[bucket] > self.stale_after:
                self._counts[bucket] = 0
            self._counts[bucket] += 1
            self._stamps[bucket] = now
            return self._counts[bucket]

    def leave(self, client: str) -> None:
        bucket = _bucket(client, len(self._counts))
        with self._lock:
            self._counts[bucket] = max(0, self._counts[bucket] - 1)


class ClientRate:
    """How many callback requests a second each client may send: a token bucket per hash
    bucket of clients, in memory shared by every process forked from the one that made it.
    A page sends at most one update per view in flight and a poll twice a second — a few
    dozen a second while a slider is dragged over a quick view; past ``per_second`` (after a
    burst of ``burst``) a client's requests may be refused at once, before any work."""

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
    """Whether a client's callback request may go on: always while it has at most
    ``concurrent`` in progress (what a page has: its view's update and a poll), past that only
    within its ``rate``. A client known only by its address always may: a class behind one
    address must not share one budget. Every :meth:`enter` is followed by a :meth:`leave`."""

    def __init__(self, concurrent: int, rate: ClientRate) -> None:
        self.concurrent, self.rate = concurrent, rate
        self._in_progress = ClientCounts()

    def enter(self, client: str) -> bool:
        if client.startswith(BY_ADDRESS):
            return True
        return self._in_progress.enter(client) <= self.concurrent or self.rate.allow(client)

    def leave(self, client: str) -> None:
        if not client.startswith(BY_ADDRESS):
            self._in_progress.leave(client)


def page_of(body: Any) -> Any:
    """The page store a callback request carries (``{key}-page``'s data), if any."""
    if not isinstance(body, dict):
        return None
    for entry in body.get("state") or []:
        if (
            isinstance(entry, dict)
            and isinstance(entry.get("id"), str)
            and entry["id"].endswith("-page")
            and entry.get("property") == "data"
        ):
            return entry.get("value")
    return None


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
