"""The Celery worker of a class deployment: ``celery --app app.worker worker`` (the Procfile's
``worker`` process). It builds the app from the same environment as the web process, so that
its job task computes with the same views, result cache and job store, and needs
``BACKGROUND_BROKER_URL`` (and a shared result cache, ``CACHE_REDIS_URL``).

Besides running jobs (app/job_runner.py) the worker says it is alive every few seconds in the
job store (``/healthz`` reports when none has), and runs its jobs at a lower CPU priority than
the web processes, so that sliders stay quick on a machine that runs both."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import socket
import threading
import time

from celery import signals

from . import create_app
from .core.jobs import LOST_AFTER, WORKERS
from .job_runner import JOB_NICE
from .job_store import StoreError

log = logging.getLogger(__name__)

dash_app = create_app()
celery_app = dash_app.server.config["CELERY_APP"]
if celery_app is None:
    raise SystemExit(
        "The worker needs BACKGROUND_BROKER_URL (redis://host:6379/1), the broker the web "
        "processes send their background jobs to."
    )
app = celery_app  # ``celery --app app.worker`` looks for ``app`` or ``celery``

#: how often the worker says it is alive (s)
ALIVE_EVERY = 5.0


def _say_alive(name: str) -> None:
    store = dash_app.server.config["JOBS"].store
    while True:
        try:
            store.put(WORKERS + name, {"beat": time.time()}, LOST_AFTER * 2)
        except StoreError as error:  # Redis away: say it again when it is back
            log.warning("worker heartbeat not written: %s", error)
        except Exception:  # the heartbeat must outlive anything
            log.exception("worker heartbeat")
        time.sleep(ALIVE_EVERY)


@signals.worker_ready.connect
def _alive(sender=None, **_) -> None:
    host = getattr(sender, "hostname", None) or socket.gethostname()
    name = re.sub(r"[^A-Za-z0-9._-]", "-", f"celery-{host}-{os.getpid()}")[:120]
    threading.Thread(target=_say_alive, args=(name,), daemon=True, name="alive").start()


@signals.worker_process_init.connect
def _lower_priority(**_) -> None:
    with contextlib.suppress(OSError):
        os.nice(JOB_NICE)
