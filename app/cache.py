"""Solver results cached with flask-caching, keyed on the tuple of parameters, stored as data.

flask-caching's ``memoize`` keys on the arguments' ``repr``, which numpy abbreviates for long
arrays (two different arrays can share a key). Here the key is built from the view's tuple of
scalar parameters and the schema of its result type (:mod:`app.codec`), so a changed result
type never reads old entries.

Entries are bytes written by :mod:`app.codec`, never pickles: :class:`DataOnlySerializer`
replaces every backend's pickling, so what is read from a shared Redis or a cache folder is
parsed as data and anything else is a miss. A failing backend degrades to computing every
time; it never breaks a request, and after a failure it is left alone for a while so that an
unreachable Redis costs one timeout per worker every half minute, not one per request.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import os
import struct
import tempfile
import threading
import time
from collections.abc import Callable
from typing import IO, Any, TypeVar

from cachelib.serializers import BaseSerializer
from flask import Flask
from flask_caching import Cache
from flask_caching.backends.filesystemcache import FileSystemCache

from .codec import CodecError, codec_for

__all__ = ["DataOnlySerializer", "ResultCache", "SafeFileSystemCache"]

log = logging.getLogger(__name__)
Result = TypeVar("Result")

#: seconds a failing backend is bypassed before it is tried again
RETRY_AFTER_SECONDS = 30.0
#: the key the health check reads (never written)
PROBE_KEY = "lazy-rich:probe"
#: the prefix of the key that says a result is being computed (:meth:`ResultCache.get_or_compute`)
CLAIM = "claim:"
#: seconds between looks for a result another process is computing
CLAIM_POLL_SECONDS = 0.2


class DataOnlySerializer(BaseSerializer):
    """The serializer of every cache backend: stores bytes and integers, reads nothing else.

    cachelib's default serializers pickle, and unpickling whatever a Redis or a cache folder
    holds would run code planted there. Integers are kept (the file-system backend counts its
    entries with one; Redis keeps them as plain digits for INCR); anything else read back —
    a pickle among them — is returned as None, a miss.
    """

    TAG = b"lazy-rich-bytes:"

    def dumps(self, value: Any, protocol: int = 0) -> bytes:
        if type(value) is int:
            return str(value).encode("ascii")
        if isinstance(value, bytes):
            return self.TAG + value
        raise TypeError(f"the result cache stores bytes, not {type(value).__name__}")

    def loads(self, value: bytes | None) -> Any:
        if not isinstance(value, bytes):
            return None
        if value.startswith(self.TAG):
            return value[len(self.TAG) :]
        try:
            return int(value.decode("ascii"))
        except (UnicodeDecodeError, ValueError):
            return None

    def dump(self, value: Any, f: IO[bytes], protocol: int = 0) -> None:
        f.write(self.dumps(value))

    def load(self, f: IO[bytes]) -> Any:
        return self.loads(f.read())


class SafeFileSystemCache(FileSystemCache):
    """flask-caching's file-system cache, except that a write that fails — a full disk, a
    folder made read-only — removes its temporary file (cachelib leaves it, an empty file
    per failed write, until the disk is full of them), and that :meth:`add` is atomic across
    processes (cachelib's looks for the file, then writes it: two processes can both add)."""

    def set(
        self, key: str, value: Any, timeout: int | None = None, mgmt_element: bool = False
    ) -> bool:
        if mgmt_element:
            timeout = 0
        else:
            self._prune()
        filename = self._get_filename(key)
        overwrite = os.path.isfile(filename)
        if not self._place(filename, value, timeout, os.replace):
            return False
        if not overwrite and not mgmt_element:
            self._update_count(delta=1)
        return True

    def add(self, key: str, value: Any, timeout: int | None = None) -> bool:
        """Store ``value`` only if ``key`` holds nothing (or an expired entry): a hard link
        of the written file, which fails when the name exists."""
        filename = self._get_filename(key)
        if os.path.exists(filename) and self.get(key) is None:  # expired: the name is free
            self.delete(key)
        self._prune()
        if not self._place(filename, value, timeout, os.link):
            return False
        self._update_count(delta=1)
        return True

    def _place(
        self, filename: str, value: Any, timeout: int | None, place: Callable[[str, str], None]
    ) -> bool:
        """Write ``value`` to a temporary file and ``place`` it at ``filename``; False when
        the disk refused or (for ``os.link``) the name was taken."""
        temporary = None
        try:
            handle, temporary = tempfile.mkstemp(suffix=self._fs_transaction_suffix, dir=self._path)
            with os.fdopen(handle, "wb") as stream:
                stream.write(struct.pack("I", self._normalize_timeout(timeout)))
                self.serializer.dump(value, stream)
            self._run_safely(place, temporary, filename)
            if place is os.replace:
                temporary = None
            self._run_safely(os.chmod, filename, self._mode)
        except FileExistsError:
            return False
        except OSError as error:
            log.warning("cache file %s not written (%s)", filename, error.strerror)
            return False
        finally:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
        return True


class ResultCache:
    def __init__(self, cache: Cache, retry_after: float = RETRY_AFTER_SECONDS) -> None:
        self.cache = cache
        self.retry_after = retry_after
        self.hits = 0
        self.misses = 0
        self.failures = 0
        #: entries that were present but not readable as results (corrupt, foreign, planted)
        self.refused = 0
        self._bypass_until = 0.0
        self._lock = threading.Lock()

    @classmethod
    def for_app(
        cls, server: Flask, config: dict[str, Any], retry_after: float = RETRY_AFTER_SECONDS
    ) -> ResultCache:
        """A result cache on ``server`` from flask-caching ``config``, with the data-only
        serializer whatever the backend."""
        if config.get("CACHE_TYPE") != "NullCache":  # the one backend that stores nothing
            config = config | {"CACHE_SERIALIZER": DataOnlySerializer()}
        if config.get("CACHE_TYPE") == "FileSystemCache":
            config = config | {"CACHE_TYPE": f"{__name__}.SafeFileSystemCache"}
        flask_cache = Cache(server, config=config)
        return cls(flask_cache, retry_after)

    @classmethod
    def in_memory(cls) -> ResultCache:
        """A private in-process cache (tests, scripts)."""
        return cls.for_app(Flask(__name__), {"CACHE_TYPE": "SimpleCache"})

    @staticmethod
    def key(namespace: str, parameters: tuple, schema: str) -> str:
        digest = hashlib.sha256(repr(parameters).encode()).hexdigest()[:40]
        return f"lazy-rich:{schema}:{namespace}:{digest}"

    @property
    def available(self) -> bool:
        """False while a failed backend is being bypassed."""
        return time.monotonic() >= self._bypass_until

    def reachable(self) -> bool:
        """Whether the backend answers now: a read of one key (for ``/healthz``, which must
        not report a Redis that went away as available only because this process has not
        used it since). A failure starts the bypass, as any failed read does."""
        if not self.available:
            return False
        try:
            self.cache.get(PROBE_KEY)
        except Exception as error:
            self._failed("probe", PROBE_KEY, error)
            return False
        return True

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

    def _read(self, key: str) -> Any:
        if not self.available:
            return None
        try:
            return self.cache.get(key)
        except Exception as error:  # a broken backend must not break the page
            self._failed("read", key, error)
            return None

    def _write(self, key: str, entry: bytes, timeout: int | None = None) -> None:
        if not self.available:
            return
        try:
            stored = self.cache.set(key, entry, timeout=timeout)
        except Exception as error:
            self._failed("write", key, error)
            return
        if stored is False:  # e.g. a read-only cache folder: the backend logged why
            self._failed("write", key, OSError("the backend did not store the entry"))

    def get(self, namespace: str, parameters: tuple, result_type: Any = object) -> Any:
        """The cached result for these parameters, or None (nothing is computed)."""
        codec = codec_for(result_type)
        key = self.key(namespace, parameters, codec.schema)
        found = self._read(key)
        if found is None:
            return None
        try:
            stored_parameters, result = codec.decode(found)
        except (CodecError, TypeError, ValueError) as error:
            self.refused += 1
            log.warning("ignored an unreadable cache entry %s (%s)", key, error)
            return None
        return result if stored_parameters == parameters else None  # a hash collision: a miss

    def get_or_compute(
        self,
        namespace: str,
        parameters: tuple,
        compute: Callable[[], Result],
        result_type: Any = object,
        *,
        timeout: int | None = None,
        wait_for_others: float = 0.0,
    ) -> Result:
        """The cached result of ``compute()`` for these parameters, computed on a miss.
        ``result_type`` (the type ``compute`` returns) decides what an entry may contain;
        ``timeout`` is the entry's lifetime in seconds (the cache's default if None).

        With ``wait_for_others`` > 0 a miss is computed once for all who ask at the same time,
        across threads, processes and machines sharing the backend: the first claims the
        entry (an atomic ``add`` of a claim key that expires after ``wait_for_others`` s), the
        others wait for its result up to that long and compute it themselves only if it does
        not come (the claimant failed or died)."""
        found = self.get(namespace, parameters, result_type)
        if found is not None:
            self.hits += 1
            return found
        codec = codec_for(result_type)
        key = self.key(namespace, parameters, codec.schema)
        claimed = False
        if wait_for_others > 0:
            claimed, found = self._claim_or_wait(
                key, namespace, parameters, result_type, wait_for_others
            )
            if found is not None:
                self.hits += 1
                return found
        self.misses += 1
        try:
            result = compute()
            self.put(namespace, parameters, result, result_type, timeout)
        finally:
            if claimed:
                self._release(key)
        return result

    def put(
        self,
        namespace: str,
        parameters: tuple,
        result: Any,
        result_type: Any = object,
        timeout: int | None = None,
    ) -> None:
        """Keep ``result`` for these parameters (nothing happens if it cannot be encoded or
        the backend fails: both are logged)."""
        codec = codec_for(result_type)
        try:
            entry = codec.encode((parameters, result))
        except CodecError as error:
            log.warning("result of %s not cached: %s", namespace, error)
            return
        self._write(self.key(namespace, parameters, codec.schema), entry, timeout)

    def _claim(self, key: str, seconds: float) -> bool:
        """Whether this caller now holds the claim on computing ``key`` (True also when the
        backend cannot tell: then everyone computes, as without a claim)."""
        if not self.available:
            return True
        try:
            return bool(self.cache.add(CLAIM + key, 1, timeout=max(1, math.ceil(seconds))))
        except Exception as error:
            self._failed("claim", key, error)
            return True

    def _release(self, key: str) -> None:
        with contextlib.suppress(Exception):
            self.cache.delete(CLAIM + key)

    def _claim_or_wait(
        self, key: str, namespace: str, parameters: tuple, result_type: Any, seconds: float
    ) -> tuple[bool, Any]:
        """(True, None) once this caller holds the claim: it computes. Else (False, the result
        another claimant stored), or (False, None) when none came within ``seconds``. A claim
        released without a result (its computation failed) is taken by one of the waiters."""
        deadline = time.monotonic() + seconds
        while not self._claim(key, seconds):
            if time.monotonic() >= deadline:
                return False, None
            time.sleep(CLAIM_POLL_SECONDS)
            found = self.get(namespace, parameters, result_type)
            if found is not None:
                return False, found
        return True, None
