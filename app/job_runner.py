"""Where background jobs run (:mod:`app.core.jobs` decides which and follows them).

* :class:`LocalRunner` — the default, no service needed: each web process has a dispatcher
  thread that takes queued jobs from the job store (a private folder, or Redis) and runs each
  in a process forked from the web process, at a lower CPU priority, at most ``JOB_SLOTS`` at
  a time. The dispatcher reaps its processes, kills one past its hard limit, and puts back a
  job whose process died (once).
* :class:`CeleryRunner` — a class deployment (``BACKGROUND_BROKER_URL``): the job, described
  as JSON, goes to Celery workers through Redis. Celery acknowledges it only once it has ended
  (``task_acks_late``) and puts it back when the process running it dies
  (``task_reject_on_worker_lost``); a worker reserves no job beyond the one it runs
  (``worker_prefetch_multiplier = 1``), and no result is stored in Celery's result backend
  (the job's outcome is its record, its result is in the result cache).

Both run :func:`execute`: claim the record, compute through the view's one ``results()`` path
(which fills the result cache) while a heartbeat thread writes progress and checks that a page
still follows, and end the record as done, failed or cancelled. A job claims its record with
a compare-and-set, so a job delivered twice runs once.

A job whose view's result is made of parts (the network map) shares them with *helpers*
(app/shared_parts.py): Celery help tasks, or processes the other web processes' dispatchers
fork into their free slots when a job calls for help in the store (``help:{setting}``).
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import resource
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from .cache import ResultCache
from .core.jobs import (
    BEAT_SECONDS,
    ENDED_SECONDS,
    LOST_AFTER,
    MAX_TRIES,
    NOT_KEPT,
    STOPPED_TWICE,
    TOO_LONG,
    TOO_LONG_WALL,
    UNWATCHED,
    WORKERS,
    JobLimits,
    JobRecord,
    Jobs,
    cancelled_key,
    holder,
    limit_text,
    record_key,
    watchers_key,
)
from .core.parts import SHARING
from .core.updates import failure_text
from .fair import RateLimitedLog, process_alive
from .job_store import FolderJobStore, JobStore, RedisJobStore, StoreError
from .shared_parts import HELP, HELPERS_AT_MOST, AskForHelp, help_key, help_with, sharing

__all__ = ["CeleryRunner", "LocalRunner", "celery_app", "execute", "jobs_for"]

log = logging.getLogger(__name__)
#: a store that is away fails every second: a few lines a minute say so
store_trouble = RateLimitedLog(log, per_minute=6)

#: seconds of computing a job may use past its limit before its process is killed
HARD_GRACE = 30.0
#: a job's limit is on its computing (CPU) time, which a busy machine does not stretch; its
#: wall-clock time is bounded too, for a job that hangs without computing, at this multiple
WALL_FACTOR = 4.0
#: the CPU priority of jobs (``nice``): the sliders of the page come first
JOB_NICE = 10
#: how often a job checks that a page still follows it (s), and how long it goes on without
#: one (a store that restarted lost every page's ticket: the pages' next polls renew them) —
#: unless the last page to follow it cancelled it: then it stops at the next check
WATCH_SECONDS = 2.0
UNWATCHED_GRACE = 10.0
TASK_NAME = "lazy_rich.job"
#: a call to share a running job's parts (app/shared_parts.py)
HELP_TASK_NAME = "lazy_rich.help"


class Stopped(Exception):
    """No page follows the job any more, or another attempt replaced it."""


class TimeLimit(Exception):
    """The job ran past its hard limit."""


def _holder_gone(record: JobRecord) -> bool:
    """Whether the process that held a running record is known to be dead (on this machine)."""
    host, _, pid = record.holder.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class Heartbeat(threading.Thread):
    """Writes a running job's progress and heartbeat every :data:`BEAT_SECONDS` (one writer:
    the record changes only here until the job ends) and notices when no page follows it."""

    def __init__(
        self,
        store: JobStore,
        record: JobRecord,
        on_stop: Callable[[], None],
        server_alive: Callable[[], bool] = lambda: True,
    ) -> None:
        super().__init__(daemon=True, name="job-heartbeat")
        self.store = store
        self.record = record
        self.written = record
        self.on_stop = on_stop
        self.server_alive = server_alive
        self.stopped = False
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._checked = 0.0
        #: since when no page has followed the job (None: one does)
        self._unwatched_since: float | None = None

    def report(self, fraction: float, text: str) -> None:
        """The job's progress (``compute_job``'s report); raises :class:`Stopped` once the
        job should stop."""
        with self._lock:
            fraction = min(max(float(fraction), 0.0), 1.0)
            self.record = replace(self.record, progress=fraction, text=str(text)[:200])
        if self.stopped:
            raise Stopped

    def run(self) -> None:
        while not self._done.wait(BEAT_SECONDS):
            try:
                self._beat()
            except StoreError as error:  # the store is away: compute on, write again later
                store_trouble.warning(
                    "job %s: heartbeat not written (%s)", self.record.attempt, error
                )

    def _beat(self) -> None:
        with self._lock:
            record = replace(self.record, beat=time.time(), holder=holder())
        key = record_key(record.setting)
        if not self.store.swap(key, self.written.to_data(), record.to_data(), ENDED_SECONDS):
            current = JobRecord.parse(self.store.get(key))
            if current is not None and current.attempt != record.attempt:
                self._halt("replaced by another attempt")
                return
            # the store lost it (restarted): write it again
            self.store.put(key, record.to_data(), ENDED_SECONDS)
        self.written = record
        if time.time() - self._checked >= WATCH_SECONDS:
            self._checked = time.time()
            if not self.server_alive():
                self._halt("the server stopped", "cancelled")
            elif self.store.members(watchers_key(record.setting)):
                self._unwatched_since = None
            elif self.store.get(cancelled_key(record.setting)) is not None:
                self._halt("its last page cancelled it", "cancelled")
            elif self._unwatched_since is None:
                self._unwatched_since = time.time()
            elif time.time() - self._unwatched_since >= UNWATCHED_GRACE:
                self._halt("no page follows it", "cancelled")

    def _halt(self, why: str, state: str | None = None) -> None:
        """Stop the job: record how it ended (``state``; None when the record is another
        attempt's now), then let the process go (a local job's process ends here)."""
        if self.stopped:
            return
        log.info("job %s stops: %s", self.record.attempt, why)
        self.stopped = True
        if state is not None:
            self._end(state, UNWATCHED)
        self.on_stop()

    def finish(self, state: str, message: str = "") -> None:
        """End the record (the heartbeat stops first: it is the record's only writer)."""
        self._done.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(5)
        self._end(state, message)

    def _end(self, state: str, message: str) -> None:
        with self._lock:
            final = replace(self.record, state=state, message=message, beat=time.time())
        if state == "done":
            final = replace(final, progress=1.0)
        key = record_key(final.setting)
        try:
            if not self.store.swap(key, self.written.to_data(), final.to_data(), ENDED_SECONDS):
                current = JobRecord.parse(self.store.get(key))
                if current is not None and current.attempt != final.attempt:
                    return  # another attempt's record now
                if current is not None and current.ended:
                    return  # already ended (stopped while it finished)
                self.store.put(key, final.to_data(), ENDED_SECONDS)
            self.written = final
        except StoreError as error:
            log.warning("job %s ended %s, not recorded: %s", final.attempt, state, error)


def claim(store: JobStore, job: Any, wait: float = LOST_AFTER + BEAT_SECONDS) -> JobRecord | None:
    """Take the job's record for this process (queued → running), or None when it is not
    this job's to run: ended, replaced by another attempt, or running on a live worker. A
    record whose worker died is taken again, once (``MAX_TRIES``); a record still beating
    is waited for (a redelivered job whose first worker died moments ago) up to ``wait``."""
    parsed = JobRecord.parse(job)
    if parsed is None:
        log.warning("refused a malformed job: %r", str(job)[:200])
        return None
    key, deadline = record_key(parsed.setting), time.monotonic() + wait
    while True:
        current = JobRecord.parse(store.get(key))
        if current is None or current.attempt != parsed.attempt or current.ended:
            return None
        if current.state == "running" and not (current.lost(time.time()) or _holder_gone(current)):
            if time.monotonic() > deadline:
                return None
            time.sleep(BEAT_SECONDS)
            continue
        if current.tries >= MAX_TRIES:
            store.swap(key, current.to_data(), _ended(current, "failed", STOPPED_TWICE), 600)
            return None
        taken = replace(current, state="running", beat=time.time(), holder=holder())
        taken = replace(taken, tries=current.tries + 1)
        if store.swap(key, current.to_data(), taken.to_data(), ENDED_SECONDS):
            return taken


def _ended(record: JobRecord, state: str, message: str) -> dict:
    return replace(record, state=state, message=message).to_data()


def run_claimed(
    record: JobRecord,
    store: JobStore,
    cache: ResultCache,
    views: dict,
    on_stop: Callable[[], None] = lambda: None,
    server_alive: Callable[[], bool] = lambda: True,
    ask_for_help: AskForHelp | None = None,
) -> str:
    """Compute a claimed job's result into the cache; the state it ended in. ``on_stop``: what
    to do once the job should stop (a local job's process ends at once); ``server_alive``:
    whether the server that started it still runs; ``ask_for_help``: how a job made of parts
    calls the other workers to share them (app/shared_parts.py)."""
    heart = Heartbeat(store, record, on_stop, server_alive)
    view = views.get(record.view)
    if view is None:
        heart.finish("failed", "This computation belongs to no view of this server.")
        return "failed"
    if not store.members(watchers_key(record.setting)):
        heart.finish("cancelled", UNWATCHED)
        return "cancelled"
    controls, _ = view.spec.parse_controls(record.values)
    heart.start()
    shared = SHARING.set(sharing(store, cache, record, ask_for_help))
    try:
        computed = view.results(cache, controls, report=heart.report)
    except Stopped:
        heart.finish("cancelled", UNWATCHED)
        return "cancelled"
    except TimeLimit:
        heart.finish("failed", TOO_LONG.format(limit=limit_text(record.limit)))
        return "failed"
    except Exception as error:
        if type(error).__name__ == "SoftTimeLimitExceeded":  # Celery's wall-clock bound
            wall = limit_text(wall_limit(record.limit))
            heart.finish("failed", TOO_LONG_WALL.format(limit=wall))
            return "failed"
        log.exception("job %s of %s failed", record.attempt, record.view)
        heart.finish("failed", failure_text(error))
        return "failed"
    finally:
        SHARING.reset(shared)
    if cache.get(view.key, *view._cache_key(controls)) is None:
        heart.finish("failed", NOT_KEPT)
        return "failed"
    log.info("job %s of %s done: %s", record.attempt, record.view, computed.served)
    heart.finish("done")
    return "done"


def execute(
    job: Any,
    store: JobStore,
    cache: ResultCache,
    views: dict,
    ask_for_help: AskForHelp | None = None,
) -> str:
    """One job as a Celery worker receives it (JSON): claim it, run it within its limit of
    computing time; the state it ended in."""
    try:
        record = claim(store, job)
    except StoreError as error:
        log.warning("job not claimed: %s", error)
        raise
    if record is None:
        return "skipped"
    with cpu_limit(record.limit, kill=False):  # (the pool's process runs other jobs after)
        return run_claimed(record, store, cache, views, ask_for_help=ask_for_help)


def help_execute(job: Any, store: JobStore, cache: ResultCache, views: dict) -> str:
    """A call for help as a Celery worker receives it: parts of a running job computed here
    (app/shared_parts.py), within the job's limit of computing time."""
    record = JobRecord.parse(job)
    if record is None:
        log.warning("refused a malformed call for help: %r", str(job)[:200])
        return "skipped"
    try:
        with cpu_limit(record.limit, kill=False):
            computed = help_with(job, store, cache, views)
    except TimeLimit:
        return "stopped"
    return f"{computed} parts"


def wall_limit(limit: float) -> float:
    """The wall-clock bound of a job whose limit of computing time is ``limit``."""
    return WALL_FACTOR * limit + HARD_GRACE


@contextlib.contextmanager
def cpu_limit(seconds: float, kill: bool) -> Iterator[None]:
    """Raise :class:`TimeLimit` in this (main) thread once the process has computed for
    ``seconds`` more (the kernel's SIGXCPU at the soft limit of RLIMIT_CPU). ``kill``: the
    kernel also kills the process :data:`HARD_GRACE` seconds of computing later (a process
    of its own; a lowered hard limit cannot be raised again)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds)
    before = resource.getrlimit(resource.RLIMIT_CPU)
    hard = soft + int(HARD_GRACE) if kill else before[1]
    if before[1] != resource.RLIM_INFINITY:
        hard = min(hard, before[1])

    def too_long(signum, frame):
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)  # it repeats every second after
        raise TimeLimit

    previous = signal.signal(signal.SIGXCPU, too_long)
    resource.setrlimit(resource.RLIMIT_CPU, (min(soft, hard), hard))
    try:
        yield
    finally:
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_CPU, (before[0], hard))
        signal.signal(signal.SIGXCPU, previous)


# -- processes beside the web worker -------------------------------------------------------


class LocalRunner:
    """Jobs in processes forked from the web process (see the module docstring)."""

    name = "local"

    def __init__(self, store: JobStore, cache: ResultCache, views: dict, slots: int = 1) -> None:
        self.store = store
        self.cache = cache
        self.views = views
        self.slots = slots
        self._pid: int | None = None
        self._server = os.getpid()
        self._wake = threading.Event()
        self._lock = threading.Lock()
        #: child pid → (record, hard deadline time.monotonic())
        self._children: dict[int, tuple[JobRecord, float]] = {}
        #: helper pid → (the attempt it helps with, hard deadline): app/shared_parts.py
        self._helpers: dict[int, tuple[str, float]] = {}

    def enqueue(self, record: JobRecord) -> None:
        self.wake()

    def wake(self) -> None:
        """Start this process's dispatcher if it is not running (a forked web worker has
        none yet) and have it look at the queue now."""
        with self._lock:
            if self._pid != os.getpid():
                self._pid = os.getpid()
                self._children, self._helpers = {}, {}
                # the server's life is the gunicorn master's (a worker is replaced now and
                # then; its jobs carry on), else this process's
                self._server = os.getppid() if "gunicorn" in sys.modules else os.getpid()
                threading.Thread(target=self._loop, daemon=True, name="job-dispatcher").start()
        self._wake.set()

    def _loop(self) -> None:
        name = f"{WORKERS}local-{socket.gethostname()}-{os.getpid()}"
        while True:
            self._wake.wait(0.5)
            self._wake.clear()
            try:
                self.store.put(name, {"beat": time.time()}, LOST_AFTER * 2)
                self._reap()
                self._start_queued()
            except StoreError as error:
                store_trouble.warning("job dispatcher: %s", error)
            except Exception:  # the dispatcher must outlive any one job
                log.exception("job dispatcher")

    def _busy(self) -> int:
        return len(self._children) + len(self._helpers)

    def _start_queued(self) -> None:
        """Start queued jobs while slots are free; then, with slots still free, help with
        the parts of jobs that ask for it."""
        while self._busy() < self.slots:
            queued = []
            for key in self.store.keys("job:"):
                record = JobRecord.parse(self.store.get(key))
                if record is not None and record.state == "queued":
                    queued.append(record)
            if not queued:
                break
            busy = {r.client for r, _ in self._children.values()}
            # first come, first served, but a client with a job running waits for the others
            queued.sort(key=lambda r: (r.client in busy, r.created))
            record = claim(self.store, queued[0].to_data(), wait=0)
            if record is not None:
                self._fork(record)
        while self._busy() < self.slots and self._start_a_helper():
            pass

    def _start_a_helper(self) -> bool:
        """Fork a helper for a running job that asks for one (and that this process does
        not help yet): whether one started."""
        helped = {attempt for attempt, _ in self._helpers.values()}
        for key in self.store.keys(HELP):
            call = self.store.get(key) or {}
            record = JobRecord.parse(call.get("job"))
            if record is None or record.attempt in helped:
                continue
            current = JobRecord.parse(self.store.get(record_key(record.setting)))
            if current is None or current.attempt != record.attempt or current.state != "running":
                continue
            self._fork(record, helper=True)
            return True
        return False

    def _ask_for_help(self, record: JobRecord, parts_left: int) -> None:
        """A job's process calls the dispatchers of every web process to share its parts."""
        self.store.put(
            help_key(record.setting), {"job": record.to_data()}, wall_limit(record.limit)
        )

    def _fork(self, record: JobRecord, helper: bool = False) -> None:
        pid = os.fork()
        if pid == 0:  # the job's process: it never returns into the web server
            code = 1
            try:
                code = self._child(record, helper)
            except BaseException:
                log.exception("job %s: its process failed", record.attempt)
            finally:
                os._exit(code)
        deadline = time.monotonic() + wall_limit(record.limit)
        if helper:
            self._helpers[pid] = (record.attempt, deadline)
        else:
            self._children[pid] = (record, deadline)

    def _child(self, record: JobRecord, helper: bool = False) -> int:
        for number in (
            signal.SIGTERM,
            signal.SIGINT,
            signal.SIGQUIT,
            signal.SIGHUP,
            signal.SIGUSR1,
            signal.SIGUSR2,
            signal.SIGWINCH,
            signal.SIGCHLD,
        ):
            signal.signal(number, signal.SIG_DFL)
        os.closerange(3, 65536)  # the web server's sockets and files are not the job's
        with contextlib.suppress(OSError):
            os.nice(JOB_NICE)
        server = self._server
        with cpu_limit(record.limit, kill=True):
            if helper:
                help_with(record.to_data(), self.store, self.cache, self.views)
                return 0
            run_claimed(
                record,
                self.store,
                self.cache,
                self.views,
                on_stop=_leave_now,
                server_alive=lambda: process_alive(server),
                ask_for_help=self._ask_for_help,
            )
        return 0

    def _reap(self) -> None:
        for pid, (attempt, deadline) in list(self._helpers.items()):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                del self._helpers[pid]
            elif time.monotonic() > deadline:
                log.warning("helper of job %s past its wall-clock bound: killed", attempt)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        for pid, (record, deadline) in list(self._children.items()):
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done, status = pid, 0
            if done == 0:
                if time.monotonic() > deadline:
                    self._kill(pid, record)
                continue
            del self._children[pid]
            self._after(record, status)

    def _kill(self, pid: int, record: JobRecord) -> None:
        """A job past its wall-clock bound (hung, or starved on a saturated machine): ended
        as failed, then killed (not put back: it would only take as long again)."""
        log.warning("job %s past its wall-clock bound: killed", record.attempt)
        key = record_key(record.setting)
        current = JobRecord.parse(self.store.get(key))
        if current is not None and current.attempt == record.attempt and not current.ended:
            wall = limit_text(wall_limit(record.limit))
            failed = _ended(current, "failed", TOO_LONG_WALL.format(limit=wall))
            self.store.put(key, failed, ENDED_SECONDS)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)

    def _after(self, record: JobRecord, status: int) -> None:
        """A job's process ended: if it left its record running, it died holding it."""
        key = record_key(record.setting)
        current = JobRecord.parse(self.store.get(key))
        if current is None or current.attempt != record.attempt or current.ended:
            return
        log.warning("job %s: its process died (status %s)", record.attempt, status)
        if current.tries < MAX_TRIES:
            back = replace(current, state="queued", beat=time.time(), holder="")
            self.store.swap(key, current.to_data(), back.to_data(), ENDED_SECONDS)
        else:
            self.store.swap(key, current.to_data(), _ended(current, "failed", STOPPED_TWICE), 600)


def _leave_now() -> None:
    """A local job that no page follows any more: its process ends at once (its heartbeat
    has recorded why)."""
    os._exit(0)


# -- Celery workers -----------------------------------------------------------------------


class CeleryRunner:
    """Jobs sent to Celery workers as JSON (see the module docstring)."""

    name = "celery"

    def __init__(self, celery: Any) -> None:
        self.celery = celery

    def enqueue(self, record: JobRecord) -> None:
        wall = wall_limit(record.limit)
        self.celery.send_task(
            TASK_NAME, args=[record.to_data()], soft_time_limit=wall, time_limit=wall + HARD_GRACE
        )

    def wake(self) -> None:
        """Celery workers take jobs by themselves."""


def celery_app(
    broker_url: str, store: JobStore, cache: ResultCache, views: dict, longest: float
) -> Any:
    """The Celery app of the web processes and the workers, with the job task."""
    from celery import Celery

    celery = Celery("lazy_rich", broker=broker_url, set_as_current=False)
    celery.conf.update(
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        result_backend=None,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        worker_cancel_long_running_tasks_on_connection_loss=False,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,
        broker_connection_timeout=2,
        task_publish_retry_policy={"max_retries": 2, "interval_start": 0, "interval_step": 0.5},
        # a job running longer than this is given to another worker: longer than any limit
        broker_transport_options={"visibility_timeout": int(wall_limit(longest) + 120)},
        worker_hijack_root_logger=False,
    )

    def ask_for_help(record: JobRecord, parts_left: int) -> None:
        wall = wall_limit(record.limit)
        for _ in range(min(parts_left - 1, HELPERS_AT_MOST)):
            celery.send_task(
                HELP_TASK_NAME,
                args=[record.to_data()],
                soft_time_limit=wall,
                time_limit=wall + HARD_GRACE,
            )

    @celery.task(name=TASK_NAME)
    def run_job(job: Any) -> str:
        return execute(job, store, cache, views, ask_for_help)

    @celery.task(name=HELP_TASK_NAME)
    def help_job(job: Any) -> str:
        return help_execute(job, store, cache, views)

    return celery


def jobs_for(settings: Any, cache: ResultCache, views: dict) -> tuple[Jobs | None, Any]:
    """(the app's job service, its Celery app or None) for the deployment's settings:

    * ``BACKGROUND_BROKER_URL`` set: Celery workers, records in that Redis;
    * else a shared result cache: processes beside each web process, records in the cache's
      Redis or in ``JOBS_DIR`` (a private folder);
    * else (a cache private to one process, or none) no jobs: heavy requests are computed
      in the request, up to what fits in one (the views say so)."""
    limits = JobLimits(
        queue=settings.job_queue,
        per_client=settings.jobs_per_client,
        default_seconds=min(900.0, settings.job_time_limit),
        longest_seconds=float(settings.job_time_limit),
    )
    prefix = (settings.cache_key_prefix or "") + "lazy-rich:jobs:"
    if settings.background_broker_url:
        store = RedisJobStore(settings.background_broker_url, prefix)
        celery = celery_app(
            settings.background_broker_url, store, cache, views, limits.longest_seconds
        )
        return Jobs(store, CeleryRunner(celery), limits), celery
    if settings.cache_type == "RedisCache":
        store = RedisJobStore(settings.cache_redis_url, prefix)
    elif settings.cache_type == "FileSystemCache":
        store = FolderJobStore(settings.jobs_dir)
    else:
        return None, None
    return Jobs(store, LocalRunner(store, cache, views, settings.job_slots), limits), None
