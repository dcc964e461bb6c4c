"""Where background jobs keep their state: JSON records in Redis, or in a private folder.

A job's record (queued, running with its progress and heartbeat, done, failed), the tickets of
the pages that follow it and the heartbeats of the Celery workers are small JSON objects under
string keys. Nothing here is ever unpickled or executed: a value that does not parse as a JSON
object is read as missing, so whoever can write to the store can at worst make a page say that
a computation was lost.

Two backends with the same operations:

* :class:`RedisJobStore` — one Redis shared by every web process and worker (a class
  deployment; the same Redis as Celery's broker);
* :class:`FolderJobStore` — files in a folder that only the server's user may enter (mode
  0700, checked at start-up), shared by the processes of one machine (the default, no service).
  Writes go to a temporary file that is renamed into place, and the temporary file is removed
  when the write fails (a full disk leaves no empty files behind).

Every operation may raise :class:`StoreError` (the store is unreachable, read-only, full); the
callers turn that into a message on the page.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["FolderJobStore", "JobStore", "RedisJobStore", "StoreError"]

#: the longest value a store reads back (a record is a few hundred bytes)
MAX_VALUE_BYTES = 16_384

_KEY = re.compile(r"[A-Za-z0-9:._-]{1,200}")


class StoreError(RuntimeError):
    """The job store could not be read or written."""


def _parse(raw: bytes | str | None) -> dict | None:
    """A stored value as a JSON object, or None for anything else."""
    if raw is None or len(raw) > MAX_VALUE_BYTES:
        return None
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _dump(value: dict) -> str:
    return json.dumps(value, separators=(",", ":"), allow_nan=False, sort_keys=True)


def _check_key(key: str) -> str:
    if not _KEY.fullmatch(key):
        raise ValueError(f"not a job-store key: {key[:80]!r}")
    return key


class JobStore:
    """JSON objects under keys, with expiry; sets of members that expire one by one."""

    def get(self, key: str) -> dict | None:
        raise NotImplementedError

    def put(self, key: str, value: dict, ttl: float) -> None:
        raise NotImplementedError

    def add(self, key: str, value: dict, ttl: float) -> bool:
        """Store ``value`` if ``key`` holds nothing; whether it did (atomic)."""
        raise NotImplementedError

    def swap(self, key: str, expected: dict, value: dict, ttl: float) -> bool:
        """Replace the value if it still is ``expected``; whether it did (atomic)."""
        raise NotImplementedError

    def delete(self, key: str) -> None:
        raise NotImplementedError

    def keys(self, prefix: str) -> list[str]:
        """The keys that start with ``prefix`` (a short scan: the store holds few)."""
        raise NotImplementedError

    def join(self, group: str, member: str, ttl: float) -> None:
        """Add ``member`` to ``group`` (or renew it) for ``ttl`` seconds."""
        raise NotImplementedError

    def leave(self, group: str, member: str) -> None:
        raise NotImplementedError

    def members(self, group: str) -> list[str]:
        """The members of ``group`` that have not expired."""
        raise NotImplementedError

    @contextlib.contextmanager
    def exclusive(self, name: str) -> Iterator[None]:
        """Run the block while no other process of the deployment runs one for ``name``
        (a check and a change that must not interleave: counting a client's jobs and adding
        one)."""
        raise NotImplementedError
        yield

    def available(self) -> bool:
        """Whether the store answers now."""
        try:
            self.get("lazy-rich:probe")
        except StoreError:
            return False
        return True


class RedisJobStore(JobStore):
    """Records in Redis (``SET … NX PX``, a Lua compare-and-set, sorted sets for groups)."""

    _SWAP = (
        "if redis.call('GET', KEYS[1]) == ARGV[1] then "
        "return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) else return nil end"
    )

    def __init__(self, url: str, prefix: str = "", timeout: float = 1.0) -> None:
        import redis

        self._redis = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout
        )
        self._errors = (redis.RedisError, OSError)
        self._prefix = prefix
        self._swap = self._redis.register_script(self._SWAP)

    def _key(self, key: str) -> str:
        return self._prefix + _check_key(key)

    @contextlib.contextmanager
    def _calls(self) -> Iterator[None]:
        try:
            yield
        except self._errors as error:
            # the error's text may name the host and port: it goes to the log, not the page
            raise StoreError(f"the job store (Redis) failed: {type(error).__name__}") from error

    def get(self, key: str) -> dict | None:
        with self._calls():
            return _parse(self._redis.get(self._key(key)))

    def put(self, key: str, value: dict, ttl: float) -> None:
        with self._calls():
            self._redis.set(self._key(key), _dump(value), px=int(ttl * 1000))

    def add(self, key: str, value: dict, ttl: float) -> bool:
        with self._calls():
            return bool(self._redis.set(self._key(key), _dump(value), px=int(ttl * 1000), nx=True))

    def swap(self, key: str, expected: dict, value: dict, ttl: float) -> bool:
        with self._calls():
            args = [_dump(expected), _dump(value), int(ttl * 1000)]
            return self._swap(keys=[self._key(key)], args=args) is not None

    def delete(self, key: str) -> None:
        with self._calls():
            self._redis.delete(self._key(key))

    def keys(self, prefix: str) -> list[str]:
        pattern = self._key(prefix) + "*"
        with self._calls():
            found = self._redis.scan_iter(match=pattern, count=500)
            return [key.decode()[len(self._prefix) :] for key in found]

    def join(self, group: str, member: str, ttl: float) -> None:
        now = time.time()
        with self._calls():
            pipe = self._redis.pipeline()
            pipe.zadd(self._key(group), {_check_key(member): now + ttl})
            pipe.zremrangebyscore(self._key(group), "-inf", now)
            pipe.expire(self._key(group), int(ttl) + 60)
            pipe.execute()

    def leave(self, group: str, member: str) -> None:
        with self._calls():
            self._redis.zrem(self._key(group), member)

    def members(self, group: str) -> list[str]:
        with self._calls():
            found = self._redis.zrangebyscore(self._key(group), time.time(), "+inf")
            return [member.decode() for member in found]

    @contextlib.contextmanager
    def exclusive(self, name: str) -> Iterator[None]:
        lock = self._redis.lock(self._key(f"lock:{name}"), timeout=10, blocking_timeout=5)
        with self._calls():
            if not lock.acquire():
                raise StoreError("the job store is too busy (a lock was not free for 5 s)")
        try:
            yield
        finally:
            with contextlib.suppress(*self._errors):
                lock.release()


class FolderJobStore(JobStore):
    """Records as JSON files in a private folder: ``<key>.json`` holds ``{"v": value,
    "until": expiry}``; a group is a folder of empty files whose modification time is the
    member's expiry. Changes that must be atomic hold an exclusive lock on one lock file."""

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = Path(folder)
        self._private_folder(self.folder)

    @staticmethod
    def _private_folder(folder: Path) -> None:
        """Create the folder for this user only, or refuse one that others could write to
        (another user could plant records, or a link to a folder of theirs)."""
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = folder.lstat()
        except OSError as error:
            raise ValueError(f"JOBS_DIR {str(folder)!r} cannot be created: {error}") from None
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
            raise ValueError(f"JOBS_DIR {str(folder)!r} must be a folder, not a link or a file.")
        if info.st_uid != os.geteuid():
            raise ValueError(
                f"JOBS_DIR {str(folder)!r} belongs to another user: give the server a folder of "
                "its own (it must not be writable by anyone else)."
            )
        if info.st_mode & 0o077:
            folder.chmod(0o700)

    def _file(self, key: str) -> Path:
        return self.folder / (_check_key(key).replace(":", "~") + ".json")

    def _group(self, group: str) -> Path:
        return self.folder / (_check_key(group).replace(":", "~") + ".group")

    def _read(self, path: Path) -> dict | None:
        try:
            with path.open("rb") as handle:
                entry = _parse(handle.read(MAX_VALUE_BYTES + 1))
        except FileNotFoundError:
            return None
        except OSError as error:
            raise StoreError(f"the job folder cannot be read: {error.strerror}") from error
        if entry is None or not isinstance(entry.get("v"), dict):
            return None
        until = entry.get("until")
        if not isinstance(until, int | float) or until < time.time():
            return None
        return entry["v"]

    def _write(self, path: Path, value: dict, ttl: float) -> None:
        """Write atomically: a temporary file renamed into place, removed if anything fails."""
        text = _dump({"v": value, "until": time.time() + ttl}).encode()
        temporary = None
        try:
            handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".tmp-")
            with os.fdopen(handle, "wb") as stream:
                stream.write(text)
            os.replace(temporary, path)
            temporary = None
        except OSError as error:
            raise StoreError(f"the job folder cannot be written: {error.strerror}") from error
        finally:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)

    def get(self, key: str) -> dict | None:
        return self._read(self._file(key))

    def put(self, key: str, value: dict, ttl: float) -> None:
        self._write(self._file(key), value, ttl)

    def add(self, key: str, value: dict, ttl: float) -> bool:
        with self.exclusive("store"):
            if self._read(self._file(key)) is not None:
                return False
            self._write(self._file(key), value, ttl)
            return True

    def swap(self, key: str, expected: dict, value: dict, ttl: float) -> bool:
        with self.exclusive("store"):
            if self._read(self._file(key)) != expected:
                return False
            self._write(self._file(key), value, ttl)
            return True

    def delete(self, key: str) -> None:
        try:
            self._file(key).unlink()
        except FileNotFoundError:
            return
        except OSError as error:
            raise StoreError(f"the job folder cannot be changed: {error.strerror}") from error

    def keys(self, prefix: str) -> list[str]:
        stem = _check_key(prefix).replace(":", "~")
        try:
            names = os.listdir(self.folder)
        except OSError as error:
            raise StoreError(f"the job folder cannot be read: {error.strerror}") from error
        return [
            name[: -len(".json")].replace("~", ":")
            for name in names
            if name.startswith(stem) and name.endswith(".json")
        ]

    def join(self, group: str, member: str, ttl: float) -> None:
        folder = self._group(group)
        until = time.time() + ttl
        path, temporary = folder / _check_key(member), None
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            # a member appears with its expiry: a file created in place has, until its time is
            # set, the (coarse) clock's time of creation, which members() in another process
            # may read as expired and remove — the job it follows then seems unfollowed
            handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-")
            os.close(handle)
            os.utime(temporary, (until, until))
            os.replace(temporary, path)
            temporary = None
        except OSError as error:
            raise StoreError(f"the job folder cannot be written: {error.strerror}") from error
        finally:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)

    def leave(self, group: str, member: str) -> None:
        with contextlib.suppress(OSError):
            (self._group(group) / _check_key(member)).unlink()

    def members(self, group: str) -> list[str]:
        folder, now = self._group(group), time.time()
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            return []
        except OSError as error:
            raise StoreError(f"the job folder cannot be read: {error.strerror}") from error
        found = []
        for entry in entries:
            if entry.name.startswith("."):  # a member being written (join)
                continue
            with contextlib.suppress(OSError):
                if entry.stat().st_mtime >= now:
                    found.append(entry.name)
                else:
                    os.unlink(entry.path)
        return found

    @contextlib.contextmanager
    def exclusive(self, name: str) -> Iterator[None]:
        path = self.folder / f".lock-{_check_key(name).replace(':', '~')}"
        try:
            handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as error:
            raise StoreError(f"the job folder cannot be used: {error.strerror}") from error
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield
        finally:
            os.close(handle)

    def sweep(self, older_than: float = 3600.0) -> None:
        """Remove expired records and empty groups (called now and then by the runner)."""
        now = time.time()
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.folder):
                if entry.name.endswith(".json") and entry.stat().st_mtime < now - older_than:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
                elif entry.name.endswith(".group"):
                    with contextlib.suppress(OSError):
                        os.rmdir(entry.path)  # only if empty


def digest(value: Any) -> str:
    """A short, stable name for a value (a job's setting)."""
    return hashlib.sha256(repr(value).encode()).hexdigest()[:32]
