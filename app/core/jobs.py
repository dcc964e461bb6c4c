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
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dash import ClientsideFunction, Dash, Input, Output, State

from ..cache import ResultCache
from .updates import echo

if TYPE_CHECKING:
    from .view import View

__all__ = ["Jobs", "failed_job", "finished_job_text", "manager", "succeeded_job"]

log = logging.getLogger(__name__)

#: how often the page asks for a running job's progress (ms)
POLL_MS = 500


def _same_job(done: Any, raw: Sequence[Any]) -> bool:
    return isinstance(done, dict) and done.get("values") == echo(list(raw))


def failed_job(done: Any, raw: Sequence[Any]) -> str | None:
    """The message of the page's last job if it was for these values and failed."""
    if _same_job(done, raw) and done.get("ok") is False:
        return f"This combination could not be computed: {str(done.get('error'))[:300]}"
    return None


def finished_job_text(done: Any, raw: Sequence[Any]) -> str | None:
    """How the page's last job computed these values, if it did (its result now comes from
    the cache, which is where the job put it)."""
    if not succeeded_job(done, raw):
        return None
    seconds = done.get("seconds")
    if isinstance(seconds, int | float) and not isinstance(seconds, bool) and seconds >= 0:
        return f"Computed in the background in {seconds:.1f} s."
    return "Computed in the background."


def succeeded_job(done: Any, raw: Sequence[Any]) -> bool:
    """Whether the page's last job was for these values and finished (if its result is not in
    the cache after all, the main callback computes it rather than start it again)."""
    return _same_job(done, raw) and done.get("ok") is True


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
    """One job: compute and cache the result for the ordered control values."""
    raw = order.get("values") if isinstance(order, dict) else None
    raw = raw if isinstance(raw, list) else []
    controls, _ = view.spec.parse_controls(raw)
    physics = view.spec.physics_only(controls)

    def report(fraction: float, text: str) -> None:
        set_progress([min(max(float(fraction), 0.0), 1.0), str(text)[:200]])

    def compute():
        if view.compute_job is None:
            return view.compute(physics)
        return view.compute_job(physics, report)

    answer = {"id": order.get("id") if isinstance(order, dict) else None, "values": echo(raw)}
    started = time.perf_counter()
    try:
        key = view.spec.physics_key(controls)
        cache.get_or_compute(view.key, key, compute, view.result_type)
    except Exception as error:  # the page says so; the worker carries on
        log.exception("background job of %s failed for %s", view.key, controls)
        return answer | {"ok": False, "error": str(error)[:300]}
    return answer | {"ok": True, "seconds": round(time.perf_counter() - started, 3)}


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
