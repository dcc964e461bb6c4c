"""Background jobs: a request too heavy to answer within a web request (a whole grid of trained
networks) runs as a Dash background callback, with a progress bar and a cancel button.

The job only fills the result cache; drawing stays where it always is. When a view's
``heavy(controls)`` says so and the result is not cached yet, the main callback leaves the plots
as they are and starts a job (the ``{key}-job`` store); the job computes with
``compute_job(controls, report)``, reporting its progress, and stores the result under the same
key the main callback reads; its end (``{key}-job-done``) wakes the page's gate, which asks
again — and now the answer comes from the cache. A second student asking for the same grid gets
it at once.

Where jobs run is the deployment's choice (:func:`manager`): in processes beside the web worker
(``DiskcacheManager``, the default, no service needed) or on Celery workers through a Redis
broker (``CeleryManager``, when a broker URL is set), which lets a class deployment spread maps
over machines. Either way the result cache must be shared with the web workers (the file-system
cache on one machine, Redis across machines); with a private in-memory cache, heavy requests
are computed inside the request instead.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dash import ClientsideFunction, Dash, Input, Output, State

from ..cache import ResultCache
from .updates import echo, failure_text

if TYPE_CHECKING:
    from .view import View

__all__ = ["JOB_STATUS", "JobOutcome", "Jobs", "manager"]

log = logging.getLogger(__name__)

#: how often the page asks for a running job's progress (ms)
POLL_MS = 500

#: the page's status line while a job computes its plots
JOB_STATUS = "Computing in the background (progress below); the plots show the last result."


@dataclass(frozen=True)
class JobOutcome:
    """How a background job ended, as the page keeps it (its ``{key}-job-done`` store): for
    which control values, whether it succeeded, and if not, what the page says."""

    #: the control values the job computed (as the gate echoes them)
    values: list
    ok: bool
    #: why it did not succeed, for the page (empty when it did)
    message: str = ""

    def to_data(self) -> dict:
        return {"values": self.values, "ok": self.ok, "message": self.message}

    @classmethod
    def parse(cls, raw: Any) -> JobOutcome | None:
        """The outcome a page sent back, or None for anything that is not one."""
        if not isinstance(raw, dict) or not isinstance(raw.get("ok"), bool):
            return None
        values = raw.get("values")
        if not isinstance(values, list):
            return None
        message = raw.get("message")
        message = message[:300] if isinstance(message, str) else ""
        return cls(echo(values), raw["ok"], message)

    def concerns(self, asked: list) -> bool:
        """Whether it was a job for these control values (as the gate echoes them)."""
        return self.values == asked


@dataclass(frozen=True)
class Jobs:
    """How heavy requests run: a Dash background-callback manager."""

    manager: Any

    def register(self, view: View, app: Dash, cache: ResultCache) -> None:
        key = view.key

        @app.callback(
            Output(f"{key}-job-done", "data"),
            Input(f"{key}-job", "data"),
            background=True,
            manager=self.manager,
            interval=POLL_MS,
            progress=[
                Output(f"{key}-progress", "value"),
                Output(f"{key}-progress-text", "children"),
            ],
            progress_default=[0, ""],
            running=[
                (Output(f"{key}-job-bar", "hidden"), False, True),
                (Output(f"{key}-cancel", "disabled"), False, True),
            ],
            cancel=[Input(f"{key}-cancel", "n_clicks")],
            prevent_initial_call=True,
        )
        def job(set_progress, order):
            return run(view, cache, order, set_progress)

        # Dash stops following a cancelled job but leaves its ``running`` outputs as they were
        app.clientside_callback(
            ClientsideFunction("lazyRich", "cancelled"),
            Output(f"{key}-timing", "children", allow_duplicate=True),
            Output(f"{key}-job-bar", "hidden", allow_duplicate=True),
            Input(f"{key}-cancel", "n_clicks"),
            State(f"{key}-timing", "children"),
            prevent_initial_call=True,
        )


def run(view: View, cache: ResultCache, order: Any, set_progress) -> dict:
    """One job: compute and cache the result for the ordered control values; its
    :class:`JobOutcome` as data."""
    raw = order.get("values") if isinstance(order, dict) else None
    raw = echo(raw) if isinstance(raw, list) else []
    controls, _ = view.spec.parse_controls(raw)

    def report(fraction: float, text: str) -> None:
        set_progress([min(max(float(fraction), 0.0), 1.0), str(text)[:200]])

    try:
        computed = view.results(cache, controls, report=report)
    except Exception as error:  # the page says so; the worker carries on
        log.exception("background job of %s failed for %s", view.key, controls)
        return JobOutcome(raw, False, failure_text(error)).to_data()
    log.info("background job of %s: %s", view.key, computed.served)
    return JobOutcome(raw, True).to_data()


def manager(settings: Any) -> tuple[Jobs | None, Any]:
    """(jobs, celery app or None) for the deployment's settings: Celery on a Redis broker when
    ``BACKGROUND_BROKER_URL`` is set, else processes beside the web worker (diskcache) when the
    result cache is shared, else None (heavy requests computed inside the request)."""
    if settings.background_broker_url:
        from celery import Celery
        from dash import CeleryManager

        celery = Celery(
            "lazy_rich",
            broker=settings.background_broker_url,
            backend=settings.background_broker_url,
        )
        celery.conf.update(task_acks_late=False, worker_prefetch_multiplier=1)
        return Jobs(CeleryManager(celery)), celery
    if settings.cache_type not in ("FileSystemCache", "RedisCache"):
        return None, None
    import diskcache
    from dash import DiskcacheManager

    return Jobs(DiskcacheManager(diskcache.Cache(settings.jobs_dir))), None
