"""Solver results cached with flask-caching, keyed on the tuple of parameters.

flask-caching's ``memoize`` keys on the arguments' ``repr``, which numpy abbreviates for long
arrays (two different arrays can share a key). Here the key is built from the view's tuple of
scalar parameters instead. A failing backend degrades to computing every time; it never breaks
a request.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from flask_caching import Cache

__all__ = ["ResultCache"]

log = logging.getLogger(__name__)
Result = TypeVar("Result")

#: bump when the shape of cached results changes, so old entries are not misread
VERSION = "1"


class ResultCache:
    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(namespace: str, parameters: tuple) -> str:
        digest = hashlib.sha256(repr(parameters).encode()).hexdigest()[:40]
        return f"lazy-rich:{VERSION}:{namespace}:{digest}"

    def get_or_compute(
        self, namespace: str, parameters: tuple, compute: Callable[[], Result]
    ) -> Result:
        key = self.key(namespace, parameters)
        try:
            found: Any = self.cache.get(key)
        except Exception:  # a broken backend must not break the page
            log.exception("cache read failed for %s", key)
            found = None
        if found is not None and found[0] == parameters:  # guard against hash collisions
            self.hits += 1
            return found[1]
        self.misses += 1
        result = compute()
        try:
            self.cache.set(key, (parameters, result))
        except Exception:
            log.exception("cache write failed for %s", key)
        return result
