"""Solver results cached with flask-caching, keyed on the tuple of parameters.

flask-caching's ``memoize`` keys on the arguments' ``repr``, which numpy abbreviates for long
arrays (two different arrays can share a key). Here the key is built from the view's tuple of
scalar parameters instead. A failing backend degrades to computing every time; it never breaks
a request, and after a failure it is left alone for a while so that an unreachable Redis costs
one timeout per worker every half minute, not one per request.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from flask_caching import Cache

__all__ = ["ResultCache"]

log = logging.getLogger(__name__)
Result = TypeVar("Result")

#: bump when the shape of cached results changes, so old entries are not misread
VERSION = "1"

#: seconds a failing backend is bypassed before it is tried again
RETRY_AFTER_SECONDS = 30.0


class ResultCache:
    def __init__(self, cache: Cache, retry_after: float = RETRY_AFTER_SECONDS) -> None:
        self.cache = cache
        self.retry_after = retry_after
        self.hits = 0
        self.misses = 0
        self.failures = 0
        self._bypass_until = 0.0
        self._lock = threading.Lock()

    @staticmethod
    def key(namespace: str, parameters: tuple) -> str:
        digest = hashlib.sha256(repr(parameters).encode()).hexdigest()[:40]
        return f"lazy-rich:{VERSION}:{namespace}:{digest}"

    @property
    def available(self) -> bool:
        """False while a failed backend is being bypassed."""
        return time.monotonic() >= self._bypass_until

    def _failed(self, action: str, key: str, error: Exception) -> None:
        with self._lock:
            self.failures += 1
            self._bypass_until = time.monotonic() + self.retry_after
        log.warning(
            "cache %s failed for %s (%s: %s); computing without the cache for %.0f s",
            action,
            key,
            type(error).__name__,
            error,
            self.retry_after,
        )

    def get_or_compute(
        self, namespace: str, parameters: tuple, compute: Callable[[], Result]
    ) -> Result:
        key = self.key(namespace, parameters)
        found: Any = None
        if self.available:
            try:
                found = self.cache.get(key)
            except Exception as error:  # a broken backend must not break the page
                self._failed("read", key, error)
        if isinstance(found, tuple) and len(found) == 2 and found[0] == parameters:
            self.hits += 1  # the parameters are compared too: a hash collision is a miss
            return found[1]
        self.misses += 1
        result = compute()
        if self.available:
            try:
                self.cache.set(key, (parameters, result))
            except Exception as error:
                self._failed("write", key, error)
        return result
