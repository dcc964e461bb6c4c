"""Production settings for ``gunicorn app:server`` (read automatically from the working folder).

Every value comes from the environment, with defaults for a small instance:

* ``PORT`` (8050) and ``HOST`` (0.0.0.0): where to listen;
* ``WEB_CONCURRENCY`` (number of CPU cores): worker processes — the solvers are CPU-bound;
* ``THREADS`` (4): threads per worker, overlapping network and cache I/O with computing;
* ``WORKER_TIMEOUT`` (30 s): a silent worker is killed and replaced after this long;
* ``LOG_LEVEL`` (info), ``FORWARDED_ALLOW_IPS`` (127.0.0.1): logging, trusted proxies.

The app is loaded once in the master and forked (``preload_app``): workers start in milliseconds
and share the loaded code; each starts its job dispatcher (``post_worker_init``). Debug mode is
never on here; the app's callbacks cap every request at well under a second of work, and
``WORKER_TIMEOUT`` backs that up.
"""

import os


def _whole(name: str, default: int, low: int, high: int) -> int:
    raw = os.environ.get(name, "").strip()
    try:
        value = int(raw) if raw else default
    except ValueError:
        raise SystemExit(f"{name} must be a whole number; got {raw!r}.") from None
    if not low <= value <= high:
        raise SystemExit(f"{name} must be between {low} and {high}; got {value}.")
    return value


bind = f"{os.environ.get('HOST', '0.0.0.0')}:{_whole('PORT', 8050, 1, 65535)}"
workers = _whole("WEB_CONCURRENCY", os.cpu_count() or 1, 1, 64)
threads = _whole("THREADS", 4, 1, 64)
worker_class = "gthread"
timeout = _whole("WORKER_TIMEOUT", 30, 5, 600)
graceful_timeout = 10
keepalive = 5
# a worker is replaced after this many requests (jittered so that they do not all restart at
# once): bounds any slow growth of memory over a long teaching day
max_requests = 5000
max_requests_jitter = 500
preload_app = True
# heartbeat files on tmpfs: a slow disk must not make the master kill healthy workers
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
loglevel = os.environ.get("LOG_LEVEL", "info")
accesslog = "-"
errorlog = "-"
# requests larger than this never reach the app (the app also refuses bodies over 1 MB)
limit_request_line = 8190
limit_request_fields = 100
# behind a platform's proxy, trust its X-Forwarded-* headers
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")


def post_worker_init(worker):
    """Each worker's job dispatcher starts with the worker (app/job_runner.py, LocalRunner),
    not with the first job request it happens to serve: an idle worker then takes queued jobs
    and helps with the parts of a running map (app/shared_parts.py) from the start."""
    config = getattr(worker.wsgi, "config", None) or {}
    runner = getattr(config.get("JOBS"), "runner", None)
    if runner is not None:
        runner.wake()
