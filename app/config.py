"""Settings from the environment, with defaults that need nothing set up.

Every variable is optional; a malformed one stops the app at start-up with a ``ValueError``
that names the variable and what it accepts (a deployment fails loudly, not half-configured).

* ``CACHE_TYPE`` — flask-caching backend: ``FileSystemCache`` (default; shared by the workers
  of one machine), ``RedisCache`` (the default when ``CACHE_REDIS_URL`` is set), ``SimpleCache``
  (one process) or ``NullCache``.
* ``CACHE_DIR`` — the file-system cache folder (default ``<tmp>/lazy-rich-cache``).
* ``CACHE_REDIS_URL`` — ``redis://host:6379/0`` (or ``rediss://``, ``unix://``): one cache
  shared by several machines.
* ``CACHE_KEY_PREFIX`` — prefix for every key, to share one Redis between deployments.
* ``CACHE_DEFAULT_TIMEOUT`` (3600 s), ``CACHE_THRESHOLD`` (2000 entries, file-system and
  in-memory caches only).
* ``CACHE_RETRY_AFTER`` — seconds a failing cache is bypassed before it is tried again (30).
* ``BACKGROUND_BROKER_URL`` — ``redis://host:6379/1``: heavy requests (a whole grid of trained
  networks) run on Celery workers (``celery --app app.worker worker``) instead of processes
  beside the web worker; the result cache must then be shared too (``CACHE_REDIS_URL``).
* ``COMPRESS`` — ``1`` (default) or ``0``: send answers brotli- or gzip-compressed.
* ``JOBS_DIR`` — where jobs keep their state when no Redis is set (default
  ``<CACHE_DIR>-jobs``, a folder only the server's user may enter).
* ``JOB_SLOTS`` (1) — jobs each web process runs at once beside it (without Celery);
  ``JOB_QUEUE`` (8) — computations queued or running at once in all; ``JOBS_PER_CLIENT`` (1)
  — of those, per page; ``UPDATES_PER_CLIENT`` (1) — a page's updates computed at once;
  ``REQUESTS_PER_SECOND`` (40) — a page's callback requests a second (twice that in a burst);
  ``JOB_TIME_LIMIT`` (3600) — the longest any job may run, in seconds.
* ``MAP_SECONDS`` (600, or half of ``JOB_TIME_LIMIT`` if less) — the longest a networks map may
  train, as this machine's estimate in seconds of one core: a larger map is coarsened and its
  steps cut (app/views/networks/map.py). At most half of ``JOB_TIME_LIMIT`` (a job may use
  twice its estimate). The web processes and the workers read it from the same environment.
* ``FRAME_ANCESTORS`` — pages allowed to embed the app in an iframe
  (``https://canvas.example.edu``); unset, any page may.
* ``DASH_URL_BASE_PATHNAME`` — serve under a path prefix (``/lazy-rich/``); or
  ``DASH_REQUESTS_PATHNAME_PREFIX`` with ``DASH_ROUTES_PATHNAME_PREFIX`` when a proxy rewrites
  the prefix.

docs/deploying.md has the full table, with the server's own variables (``gunicorn.conf.py``).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["CACHE_TYPES", "MAP_SECONDS", "Settings", "map_seconds"]

CACHE_TYPES = ("FileSystemCache", "SimpleCache", "RedisCache", "NullCache")

#: a request body larger than this is refused (413): the largest real callback request is a
#: few kilobytes
MAX_REQUEST_BYTES = 1 << 20

#: the networks map's time budget unless ``MAP_SECONDS`` says otherwise (s of one core)
MAP_SECONDS = 600

#: Redis must answer quickly or be skipped: a slow cache must not make a page slow
REDIS_TIMEOUT_SECONDS = 0.5

#: one source of a ``frame-ancestors`` list: a keyword, a scheme, or an origin with optional
#: wildcard subdomain and port (CSP level 2 host-source)
_FRAME_SOURCE = re.compile(
    r"""^(?:
        '(?:self|none)'
      | \*
      | [a-z][a-z0-9+.-]*:
      | (?:[a-z][a-z0-9+.-]*://)?(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::(?:\d{1,5}|\*))?/?
    )$""",
    re.IGNORECASE | re.VERBOSE,
)


def _integer(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name, "")
    try:
        value = int(raw) if raw.strip() else default
    except ValueError:
        raise ValueError(f"{name} must be a whole number; got {raw!r}.") from None
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}; got {value}.")
    return value


def map_seconds(env: Mapping[str, str] | None = None) -> int:
    """The networks map's time budget, ``MAP_SECONDS`` (read where a map is computed: the web
    processes and the job workers share the environment); unset, 600 s or half of
    ``JOB_TIME_LIMIT`` if that is less."""
    env = os.environ if env is None else env
    longest = _integer(env, "JOB_TIME_LIMIT", Settings.job_time_limit, 60, 86_400)
    # (at least 30 s: the paper-figures page's maps take ~8 s and must not be cut)
    return _integer(env, "MAP_SECONDS", min(MAP_SECONDS, longest // 2), 30, 43_200)


def _job_limits(env: Mapping[str, str]) -> tuple[int, int]:
    """(``JOB_TIME_LIMIT``, ``MAP_SECONDS``), the second at most half the first."""
    longest = _integer(env, "JOB_TIME_LIMIT", Settings.job_time_limit, 60, 86_400)
    budget = map_seconds(env)
    if 2 * budget > longest:
        raise ValueError(
            f"MAP_SECONDS = {budget} needs JOB_TIME_LIMIT of at least {2 * budget} (a job may "
            f"use twice its estimate before it is stopped); it is {longest}. Raise "
            "JOB_TIME_LIMIT or lower MAP_SECONDS."
        )
    return longest, budget


def _switch(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    if raw not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
        raise ValueError(f"{name} must be 1 or 0; got {raw[:20]!r}.")
    return raw in ("1", "true", "yes", "on")


def frame_ancestors(raw: str) -> str:
    """Validate and normalise a ``FRAME_ANCESTORS`` value into a CSP source list.

    Accepts origins separated by spaces or commas (``https://a.edu, https://*.b.edu``) and the
    keywords ``self``/``none`` with or without CSP's quotes. Anything that could smuggle another
    header or directive (``;``, quotes, control characters) is refused.
    """
    sources = []
    for token in raw.replace(",", " ").split():
        if token.lower() in ("self", "none"):
            token = f"'{token.lower()}'"
        if not _FRAME_SOURCE.match(token):
            raise ValueError(
                f"FRAME_ANCESTORS: {token[:80]!r} is not an origin. Give origins separated by "
                "spaces, e.g. 'https://canvas.example.edu https://*.example.org', or 'self' "
                "or 'none'."
            )
        sources.append(token)
    if "'none'" in sources and len(sources) > 1:
        raise ValueError("FRAME_ANCESTORS: 'none' cannot be combined with other origins.")
    return " ".join(sources)


def _redis_url(raw: str, name: str = "CACHE_REDIS_URL") -> str:
    parts = urlsplit(raw)
    if parts.scheme not in ("redis", "rediss", "unix") or not (parts.netloc or parts.path):
        shown = re.sub(r"//[^@/]*@", "//…@", raw[:80])  # never a password in a message
        raise ValueError(
            f"{name} must look like redis://host:6379/0 (or rediss://, unix://); got {shown!r}."
        )
    return raw


def _pathname_prefix(env: Mapping[str, str], name: str) -> str | None:
    raw = env.get(name, "").strip()
    if not raw:
        return None
    if not re.fullmatch(r"/(?:[A-Za-z0-9._~-]+/)*", raw.rstrip("/") + "/"):
        raise ValueError(
            f"{name} must be a path such as /lazy-rich/ (letters, digits, '.', '_', '~', '-' "
            f"between slashes); got {raw[:80]!r}."
        )
    return raw.rstrip("/") + "/"


@dataclass(frozen=True)
class Settings:
    cache_type: str = "FileSystemCache"
    cache_dir: str = os.path.join(tempfile.gettempdir(), "lazy-rich-cache")
    cache_timeout: int = 3600
    cache_threshold: int = 2000
    #: seconds a failing cache backend is bypassed before it is tried again
    cache_retry_after: int = 30
    #: Celery's broker for background jobs (and their records' Redis); None: jobs run beside
    #: the web worker
    background_broker_url: str | None = None
    #: the folder of those jobs' state when they run beside the web worker
    jobs_dir: str = os.path.join(tempfile.gettempdir(), "lazy-rich-cache-jobs")
    #: jobs each web process runs at once beside it (without Celery)
    job_slots: int = 1
    #: computations queued or running at once, in all and per client (a page)
    job_queue: int = 8
    jobs_per_client: int = 1
    #: a client's updates computed at once (more are answered "busy" at once): a page has one
    #: in flight, and a client with two would take both cores of a small server from the class
    updates_per_client: int = 1
    #: callback requests a second a page may send, after a burst of four times that; more get
    #: 429. A page sends one update at a time, each after the last one's answer: up to one a
    #: frame (~60 a second, browser_latency.py's "requests per drag") while a slider is dragged
    #: over a quick view, besides a poll twice a second — the burst covers a drag of ~8 s; a
    #: higher rate lets more of a flood through to Dash (at 80 a second the flood test's p95
    #: ratio was 1.7 over four rounds, against 1.3 at 40)
    requests_per_second: int = 40
    #: the longest any background job may run (s); each job's own limit is from its estimate
    job_time_limit: int = 3600
    #: the longest a networks map may train (s of one core, estimated): :func:`map_seconds`
    map_seconds: int = MAP_SECONDS
    #: compress answers (scripts once per worker, callback answers as they go)
    compress: bool = True
    cache_redis_url: str | None = None
    cache_key_prefix: str | None = None
    #: CSP source list for ``frame-ancestors``; ``None`` lets any page embed the app
    frame_ancestors: str | None = None
    url_base_pathname: str | None = None
    requests_pathname_prefix: str | None = None
    routes_pathname_prefix: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        redis_url = env.get("CACHE_REDIS_URL", "").strip() or None
        if redis_url is not None:
            redis_url = _redis_url(redis_url)
        default_type = "RedisCache" if redis_url else cls.cache_type
        cache_type = env.get("CACHE_TYPE", "").strip() or default_type
        if cache_type not in CACHE_TYPES:
            raise ValueError(
                f"CACHE_TYPE must be one of {', '.join(CACHE_TYPES)}; got {cache_type!r}."
            )
        if cache_type == "RedisCache" and redis_url is None:
            raise ValueError("CACHE_TYPE=RedisCache needs CACHE_REDIS_URL (redis://host:6379/0).")
        prefix = env.get("CACHE_KEY_PREFIX", "").strip() or None
        if prefix is not None and not re.fullmatch(r"[A-Za-z0-9._:-]{1,64}", prefix):
            raise ValueError(
                "CACHE_KEY_PREFIX may hold up to 64 letters, digits and '.', '_', ':', '-'; "
                f"got {prefix[:80]!r}."
            )
        ancestors = env.get("FRAME_ANCESTORS", "").strip()
        broker = env.get("BACKGROUND_BROKER_URL", "").strip() or None
        cache_dir = env.get("CACHE_DIR", "").strip() or cls.cache_dir
        paths = {
            name: _pathname_prefix(env, f"DASH_{name.upper()}")
            for name in ("url_base_pathname", "requests_pathname_prefix", "routes_pathname_prefix")
        }
        if paths["url_base_pathname"] and (
            paths["requests_pathname_prefix"] or paths["routes_pathname_prefix"]
        ):
            raise ValueError(
                "Set either DASH_URL_BASE_PATHNAME (the app and the browser use the same prefix) "
                "or DASH_REQUESTS_PATHNAME_PREFIX/DASH_ROUTES_PATHNAME_PREFIX (a proxy rewrites "
                "the prefix), not both."
            )
        job_time_limit, budget = _job_limits(env)
        return cls(
            cache_type=cache_type,
            cache_dir=cache_dir,
            cache_timeout=_integer(env, "CACHE_DEFAULT_TIMEOUT", cls.cache_timeout, 1, 30 * 86400),
            cache_threshold=_integer(env, "CACHE_THRESHOLD", cls.cache_threshold, 10, 10**7),
            cache_retry_after=_integer(env, "CACHE_RETRY_AFTER", cls.cache_retry_after, 0, 3600),
            background_broker_url=_redis_url(broker, "BACKGROUND_BROKER_URL") if broker else None,
            jobs_dir=env.get("JOBS_DIR", "").strip() or cache_dir.rstrip("/") + "-jobs",
            job_slots=_integer(env, "JOB_SLOTS", cls.job_slots, 1, 64),
            job_queue=_integer(env, "JOB_QUEUE", cls.job_queue, 1, 10_000),
            jobs_per_client=_integer(env, "JOBS_PER_CLIENT", cls.jobs_per_client, 1, 100),
            updates_per_client=_integer(env, "UPDATES_PER_CLIENT", cls.updates_per_client, 1, 64),
            job_time_limit=job_time_limit,
            map_seconds=budget,
            requests_per_second=_integer(
                env, "REQUESTS_PER_SECOND", cls.requests_per_second, 1, 100_000
            ),
            compress=_switch(env, "COMPRESS", cls.compress),
            cache_redis_url=redis_url,
            cache_key_prefix=prefix,
            frame_ancestors=frame_ancestors(ancestors) if ancestors else None,
            **paths,
        )

    def flask_caching_config(self) -> dict:
        config = {
            "CACHE_TYPE": self.cache_type,
            "CACHE_DEFAULT_TIMEOUT": self.cache_timeout,
            "CACHE_THRESHOLD": self.cache_threshold,
        }
        if self.cache_key_prefix:
            config["CACHE_KEY_PREFIX"] = self.cache_key_prefix
        if self.cache_type == "FileSystemCache":
            config["CACHE_DIR"] = self.cache_dir
        if self.cache_type == "RedisCache":
            config["CACHE_REDIS_URL"] = self.cache_redis_url
            config["CACHE_OPTIONS"] = {
                "socket_timeout": REDIS_TIMEOUT_SECONDS,
                "socket_connect_timeout": REDIS_TIMEOUT_SECONDS,
            }
        return config

    def dash_paths(self) -> dict[str, str]:
        """The path-prefix arguments for :class:`dash.Dash` (only those that are set)."""
        names = ("url_base_pathname", "requests_pathname_prefix", "routes_pathname_prefix")
        return {name: getattr(self, name) for name in names if getattr(self, name)}
