"""Background jobs: a request too heavy to answer within a web request (a whole grid of trained
networks) is computed by a job, with a progress bar, a Cancel and, when it fails, a Retry.

The job only fills the result cache; drawing stays where it always is. When a view's
``heavy(controls)`` says so and the result is not cached yet, the main callback keeps the plots
and asks :meth:`Jobs.submit` for the result; the page then follows its *ticket* (a small
callback polled every :data:`POLL_MS`, one poll in flight) until the job has put the result in
the cache, and its end (``{key}-job-done``) wakes the page's gate, which asks again and is
answered from the cache. A job whose parts can be drawn before they are all done
(app/core/parts.py) says how many parts its partial result holds (:func:`partial_key`); each new
count wakes the gate too (``{key}-job-partial``), and the page draws that result meanwhile.

This is the project's own small job system rather than Dash's background callbacks, because a
class needs what those lack (see docs/deploying.md):

* **identity per request, results per setting** — every request gets its own ticket; the
  computation belongs to the *setting* (the view and its physics values), so two pages that
  open the same map at once follow one computation, and a page's poll or Cancel only ever
  touches its own ticket (Dash keyed both on the inputs: one page took the other's result
  and cancelled its job);
* **never silent** — a job's record carries a heartbeat; a job whose worker died, that failed,
  that took longer than its limit or that nobody knows any more ends on the page with a
  message and a Retry within :data:`LOST_AFTER` seconds;
* **data only** — records, tickets and progress are JSON (:mod:`app.job_store`), results go
  through the data-only result cache; nothing a request can reach is unpickled;
* **fair use** — a bounded queue and a per-client bound (:class:`JobLimits`), and a job that
  no page follows any more (the page went away or moved on) stops.

Where jobs run is :mod:`app.job_runner`'s business: processes forked beside the web worker
(the default, no service needed) or Celery workers through Redis.
"""

from __future__ import annotations

import logging
import math
import os
import re
import secrets
import socket
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import TYPE_CHECKING, Any, Protocol

from dash import ClientsideFunction, Dash, Input, Output, State, dcc, html, no_update

from ..job_store import JobStore, StoreError, digest
from ..ui import components
from .updates import echo

if TYPE_CHECKING:
    from .view import View

__all__ = [
    "JobLimits",
    "JobOutcome",
    "JobRecord",
    "JobStatus",
    "Jobs",
    "job_status",
    "page_parts",
]

log = logging.getLogger(__name__)

#: how often the page asks for its job's progress (ms)
POLL_MS = 500
#: how often a running job writes its progress and heartbeat (s)
BEAT_SECONDS = 1.0
#: a running job whose heartbeat is older than this is lost (its worker died); so is a queued
#: one when no worker has answered for this long
LOST_AFTER = 20.0
#: a page's ticket lapses when the page has not asked for this long (it went away): a job no
#: ticket follows stops. Long enough for a background tab, whose timers a browser slows to
#: one a minute.
TICKET_SECONDS = 90.0
#: why a page released its ticket (what a poll that arrives after that is told)
RELEASED = ("cancelled", "moved on")
#: how long an ended job's record is kept (for the pages still following it)
ENDED_SECONDS = 600.0
#: how long a page's ticket and its job's record may both be missing (a store that restarted)
#: before the page is told that the computation is lost
MISSING_GRACE = 5.0
#: how long a page goes on waiting while the job store is unreachable (a Redis restarting)
#: before it is told that background computations cannot run now
UNREACHABLE_GRACE = 10.0
#: a job that stopped this many times without an answer (its worker died) is not run again
MAX_TRIES = 2
#: how often a page's request reads a job's record again that changed while it was replaced
SUBMIT_ATTEMPTS = 3

#: the page's status line while a job computes its plots (:func:`job_status`)
_JOB_STATUS = (
    "Computing in the background ({expected}progress below); the plots keep what they showed "
    "until it ends."
)
#: … while the plots show the job's partial result
_PARTIAL_STATUS = (
    "Computing in the background ({expected}progress below); the plots show the part done so "
    "far and fill in as it goes."
)
CANCELLED = "Cancelled: the plots keep what they showed before."
LOST = (
    "The computation stopped without an answer (its worker stopped or restarted). "
    "Retry to compute it again."
)
UNKNOWN = (
    "The server no longer knows this computation (it may have restarted). "
    "Retry to compute it again."
)
NO_WORKER = (
    "No worker is running to compute this (the server's job workers are down). "
    "Retry later, or tell whoever runs the server."
)
STORE_DOWN = (
    "The server cannot run background computations right now (its job store is unavailable). "
    "Retry in a minute."
)
NOT_KEPT = (
    "The result was computed but could not be kept (the server's result cache is unavailable). "
    "Retry in a minute."
)
UNWATCHED = "The computation was stopped because no page was following it. Retry to start it."
MALFORMED = "This request was not understood, so no computation was started."
TOO_LONG = (
    "The computation needed more than its limit of {limit} of computing time and was stopped: "
    "choose a smaller setting."
)
TOO_LONG_WALL = (
    "The computation took longer than its limit of {limit} by the clock (the server is very "
    "busy, or it hung) and was stopped. Retry later."
)
STOPPED_TWICE = (
    "The computation stopped twice without an answer (it may need more memory than the "
    "server has). Choose a smaller setting."
)
QUEUE_FULL = "The server is busy with other computations: try again in about {wait}."
CLIENT_FULL = (
    "This page already has a computation running: wait for it to finish, or cancel it, "
    "before starting another."
)

_TICKET = re.compile(r"[0-9a-f]{32}")
_SETTING = re.compile(r"[a-z0-9-]{1,40}:[0-9a-f]{32}")


def _wait_text(seconds: float) -> str:
    if seconds < 90:
        return f"{5 * math.ceil(max(seconds, 5) / 5):.0f} s"
    return f"{math.ceil(seconds / 60):.0f} minutes"


def limit_text(seconds: float) -> str:
    return _wait_text(seconds)


def job_status(expected: float | None, partial: bool = False) -> str:
    """The status line while a job computes the page's plots, with the view's estimate of its
    time on one worker where the view gives one (a map of the papers' sizes takes minutes);
    ``partial``: the plots show the job's partial result."""
    said = "" if expected is None else f"about {_wait_text(expected)}; "
    return (_PARTIAL_STATUS if partial else _JOB_STATUS).format(expected=said)


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
class JobRecord:
    """A computation of one setting, as the job store keeps it (JSON)."""

    view: str
    #: the control values it computes (as the gate echoes them)
    values: list
    #: ``{view}:{digest of the physics values}``: one computation per setting
    setting: str
    #: this computation's id (a retry is a new attempt of the same setting)
    attempt: str
    #: the client that started it (fair use counts it)
    client: str
    #: queued, running, done, failed or cancelled
    state: str
    created: float
    #: the view's estimate of its run time, and its hard limit (s)
    seconds: float
    limit: float
    progress: float = 0.0
    text: str = ""
    #: the last heartbeat (time.time()) of the process running it, and that process
    beat: float = 0.0
    holder: str = ""
    #: how many times a worker took it (more than once: one died holding it)
    tries: int = 0
    #: why it ended without a result, for the page
    message: str = ""

    STATES = ("queued", "running", "done", "failed", "cancelled")

    def to_data(self) -> dict:
        return asdict(self)

    @classmethod
    def parse(cls, raw: Any) -> JobRecord | None:
        """A stored record, checked field by field (a planted value is read as no record)."""
        if not isinstance(raw, dict) or set(raw) != {f.name for f in fields(cls)}:
            return None
        kinds = {"values": list, "progress": float, "beat": float, "created": float}
        kinds |= {"seconds": float, "limit": float, "tries": int}
        for name, value in raw.items():
            kind = kinds.get(name, str)
            if kind is float and isinstance(value, int) and not isinstance(value, bool):
                continue
            if not isinstance(value, kind) or isinstance(value, bool):
                return None
        if raw["state"] not in cls.STATES or not _SETTING.fullmatch(raw["setting"]):
            return None
        return cls(**raw)

    @property
    def ended(self) -> bool:
        return self.state in ("done", "failed", "cancelled")

    def lost(self, now: float) -> bool:
        """A running job whose heartbeat stopped."""
        return self.state == "running" and now - self.beat > LOST_AFTER


@dataclass(frozen=True)
class JobStatus:
    """What the page shows of its job: waiting or running (with progress), done, failed
    (with the message a Retry follows); or a ticket the page gave up, "cancelled" (its Cancel:
    the bar goes) or "moved on" (it follows another ticket now: nothing changes)."""

    state: str
    #: None: unknown for now (the bar keeps what it showed)
    fraction: float | None = 0.0
    text: str = ""
    message: str = ""
    #: how many parts the partial result kept of a job waiting or running holds (0: none)
    partial: int = 0


@dataclass(frozen=True)
class Follow:
    """A page following a computation: its own ticket, the setting, the values asked."""

    ticket: str
    setting: str
    values: list

    def to_data(self) -> dict:
        return {"ticket": self.ticket, "setting": self.setting, "values": self.values}

    @classmethod
    def parse(cls, raw: Any) -> Follow | None:
        if not isinstance(raw, dict):
            return None
        ticket, setting, values = raw.get("ticket"), raw.get("setting"), raw.get("values")
        if not (isinstance(ticket, str) and _TICKET.fullmatch(ticket)):
            return None
        if not (isinstance(setting, str) and _SETTING.fullmatch(setting)):
            return None
        return cls(ticket, setting, echo(values) if isinstance(values, list) else [])


@dataclass(frozen=True)
class Refusal:
    """No computation started: why (for the page)."""

    message: str

    def to_data(self, values: list) -> dict:
        return {"refused": self.message, "values": values}


@dataclass(frozen=True)
class JobLimits:
    """Fair use: how many computations may be queued or running at once in all, and for one
    client (a page); a job's hard limit from its estimate."""

    queue: int = 8
    per_client: int = 1
    #: the limit of a job whose view gives no estimate, and the longest limit of any job (s)
    default_seconds: float = 900.0
    longest_seconds: float = 3600.0

    def limit(self, estimate: float | None) -> float:
        """A job's limit of computing (CPU) time: twice its estimate and a minute (the
        estimate is this machine's; computing time does not stretch on a busy machine,
        where the job runs at a lower priority and takes longer by the clock)."""
        if estimate is None or not math.isfinite(estimate):
            return self.default_seconds
        return float(min(max(60.0, 2.0 * estimate + 60.0), self.longest_seconds))


class Runner(Protocol):
    """Where jobs run (:mod:`app.job_runner`)."""

    name: str

    def enqueue(self, record: JobRecord) -> None: ...

    def wake(self) -> None: ...


def holder() -> str:
    """This process, as a record names the process that holds it: ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


def record_key(setting: str) -> str:
    return f"job:{setting}"


def partial_key(setting: str) -> str:
    """How many parts the partial result of a setting's job holds: ``{"parts": k, "of": n}``
    (app/shared_parts.py writes it with the result, app/core/parts.py ``partial_entry``)."""
    return f"partial:{setting}"


def watchers_key(setting: str) -> str:
    return f"watch:{setting}"


def ticket_key(ticket: str) -> str:
    return f"ticket:{ticket}"


def cancelled_key(setting: str) -> str:
    """Set when a page's Cancel released the setting, cleared when a page follows it again:
    a computation nobody follows stops at once after a Cancel, and only after
    ``UNWATCHED_GRACE`` otherwise (a store that restarted lost the pages' tickets, not their
    interest)."""
    return f"cancelled:{setting}"


WORKERS = "worker:"


def well_formed(view: View, request: Any, raw: Sequence[Any]) -> bool:
    """Whether a request is one a page sends: from the gate (a sequence number), one value per
    control, each of its control's type. Only such a request starts a computation."""
    if not isinstance(request, dict) or not isinstance(request.get("seq"), int):
        return False
    if len(raw) != len(view.spec.fields):
        return False
    for spec, value in zip(view.spec.fields, raw, strict=True):
        if spec.kind in ("float", "int"):
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            ok = ok and math.isfinite(value)
        elif spec.kind == "choice":
            ok = isinstance(value, str)
        else:
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        if not ok:
            return False
    return True


class Jobs:
    """The job service of one app: submits computations, reports on tickets, cancels them."""

    def __init__(
        self,
        store: JobStore,
        runner: Runner | None,
        limits: JobLimits | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        #: None: computations are recorded but nothing runs them here (tests)
        self.runner = runner
        self.limits = limits or JobLimits()
        self.clock = clock
        #: ticket → when this process first found the store unreachable while following it
        self._unreachable: dict[str, float] = {}

    # -- starting ---------------------------------------------------------------------------

    def setting(self, view: View, controls: Any) -> str:
        return f"{view.key}:{digest(view.result_key(controls))}"

    def submit(
        self, view: View, controls: Any, asked: list, client: str, previous: Any = None
    ) -> Follow | Refusal:
        """Follow the computation of these controls' result, starting it unless one is on
        its way (another page's, which this page then shares). ``previous``: the page's
        earlier ticket, released (the page moved on) — before, if it followed another setting
        (its job must not count against this page's fair share), else after the new ticket
        follows (a job nobody follows for a moment may be stopped)."""
        earlier = Follow.parse(previous)
        try:
            setting = self.setting(view, controls)
            if earlier is not None and earlier.setting != setting:
                self.release(earlier.ticket, earlier.setting, "moved on")
            try:
                # (counting the jobs and adding one must not interleave with another page's)
                with self.store.exclusive("submit"):
                    # the record may change between reading and replacing it (a job ending
                    # writes it last): then read it again
                    for _ in range(SUBMIT_ATTEMPTS):
                        started = self._start_or_follow(view, controls, asked, client, setting)
                        if started is not None:
                            return started
            finally:
                if earlier is not None and earlier.setting == setting:
                    self.release(earlier.ticket, earlier.setting, "moved on")
        except StoreError as error:
            log.warning("no background job for %s: %s", view.key, error)
            return Refusal(STORE_DOWN)
        except Exception:  # the broker refused the job: the page says so, nothing hangs
            log.exception("no background job for %s", view.key)
            return Refusal(STORE_DOWN)
        log.warning("no background job for %s: its record kept changing", view.key)
        return Refusal(STORE_DOWN)

    def _start_or_follow(
        self, view: View, controls: Any, asked: list, client: str, setting: str
    ) -> Follow | Refusal | None:
        """Follow the setting's computation, or queue a new one; None if its record changed
        while this ran (the caller reads it again)."""
        current = JobRecord.parse(self.store.get(record_key(setting)))
        if current is not None and not current.ended and not current.lost(self.clock()):
            return self._follow(setting, asked, client)
        refusal = self._refusal(client)
        if refusal is not None:
            return refusal
        record = self._new_record(view, controls, asked, client, setting)
        if not self._replace(current, record):
            return None
        # the page follows before the job is queued: a worker that takes it up at once must
        # find a page following it (else it stops it as nobody's)
        follow = self._follow(setting, asked, client)
        if self.runner is not None:
            try:
                self.runner.enqueue(record)
            except Exception:
                self.release(follow.ticket, setting)
                raise
        log.info("job %s queued for %s (%s)", record.attempt, setting, client)
        return follow

    def _new_record(
        self, view: View, controls: Any, asked: list, client: str, setting: str
    ) -> JobRecord:
        estimate = view.job_seconds(controls) if view.job_seconds is not None else None
        now = self.clock()
        return JobRecord(
            view=view.key,
            values=asked,
            setting=setting,
            attempt=uuid.uuid4().hex,
            client=client,
            state="queued",
            created=now,
            seconds=float(estimate if estimate is not None else self.limits.default_seconds),
            limit=self.limits.limit(estimate),
            beat=now,
        )

    def _replace(self, current: JobRecord | None, record: JobRecord) -> bool:
        key, ttl = record_key(record.setting), self.queued_ttl(record)
        if current is None:
            return self.store.add(key, record.to_data(), ttl)
        return self.store.swap(key, current.to_data(), record.to_data(), ttl)

    def queued_ttl(self, record: JobRecord) -> float:
        """How long a record may wait in the queue: behind a full queue of the longest jobs."""
        return (self.limits.queue + 1) * self.limits.longest_seconds

    def _follow(self, setting: str, asked: list, client: str) -> Follow:
        ticket = secrets.token_hex(16)
        self.store.put(ticket_key(ticket), {"setting": setting, "client": client}, TICKET_SECONDS)
        self.store.join(watchers_key(setting), ticket, TICKET_SECONDS)
        self.store.delete(cancelled_key(setting))
        return Follow(ticket, setting, asked)

    # -- fair use ---------------------------------------------------------------------------

    def active(self) -> list[JobRecord]:
        """The computations queued or running now (with a live heartbeat and a page that
        follows them)."""
        now, found = self.clock(), []
        for key in self.store.keys("job:"):
            record = JobRecord.parse(self.store.get(key))
            if record is None or record.ended or record.lost(now):
                continue
            if self._followed(record.setting):
                found.append(record)
        return found

    def _followed(self, setting: str) -> bool:
        """Whether a page follows the setting: a ticket among its followers that its page has
        not released. (A poll that crossed the page's next request joins the followers again
        for a moment after the release, until it reads it: :meth:`_renew`.)"""
        return any(
            _released(self.store.get(ticket_key(ticket))) is None
            for ticket in self.store.members(watchers_key(setting))
        )

    def _refusal(self, client: str) -> Refusal | None:
        active = self.active()
        if sum(1 for record in active if record.client == client) >= self.limits.per_client:
            return Refusal(CLIENT_FULL)
        if len(active) >= self.limits.queue:
            return Refusal(QUEUE_FULL.format(wait=_wait_text(self._soonest_end(active))))
        return None

    def _soonest_end(self, active: list[JobRecord]) -> float:
        now = self.clock()
        ends = [r.created + r.seconds - now for r in active if r.state == "running"]
        return min(ends, default=min((r.seconds for r in active), default=60.0))

    # -- following --------------------------------------------------------------------------

    def status(self, follow: Follow) -> JobStatus:
        """The state of the computation a page follows; renews the page's ticket."""
        try:
            held = self.store.get(ticket_key(follow.ticket))
            if (why := _released(held)) is not None:
                # a poll that left before the page's Cancel (or before it moved on): it must
                # not take the ticket up again and keep the computation going
                return JobStatus(why, None)
            record = JobRecord.parse(self.store.get(record_key(follow.setting)))
            if held is None and record is None:
                return self._missing(follow)
            released = self._renew(follow, held)
            if released is not None:
                return JobStatus(released, None)
            if self.runner is not None:
                self.runner.wake()
            self._unreachable.pop(follow.ticket, None)
            status = self._describe(record)
            if status.state in ("waiting", "running"):
                status = replace(status, partial=self._partial_parts(follow.setting))
            return status
        except StoreError as error:
            log.warning("job status unavailable: %s", error)
            return self._unreachable_status(follow)

    def _renew(self, follow: Follow, held: dict | None) -> str | None:
        """Renew the page's ticket and its place among the setting's followers, unless the
        page released the ticket meanwhile (its next request, or its Cancel, crossed this
        poll): then why it did, and the ticket follows nothing. The ticket is replaced only if
        it is still what this poll read, and read again after joining, because
        :meth:`release` marks the ticket before it leaves."""
        key = ticket_key(follow.ticket)
        # (a store that restarted lost the ticket but the job rewrote its record)
        renewed = {"setting": follow.setting, "client": str((held or {}).get("client", ""))}
        if held is None:
            kept = self.store.add(key, renewed, TICKET_SECONDS)
        else:
            kept = self.store.swap(key, held, renewed, TICKET_SECONDS)
        if not kept and (why := _released(self.store.get(key))) is not None:
            return why
        self.store.join(watchers_key(follow.setting), follow.ticket, TICKET_SECONDS)
        if (why := _released(self.store.get(key))) is not None:
            self.store.leave(watchers_key(follow.setting), follow.ticket)
            return why
        return None

    def _partial_parts(self, setting: str) -> int:
        """How many parts the setting's partial result holds (0: none kept)."""
        said = self.store.get(partial_key(setting))
        parts = said.get("parts") if isinstance(said, dict) else None
        return parts if isinstance(parts, int) and not isinstance(parts, bool) else 0

    def _unreachable_status(self, follow: Follow) -> JobStatus:
        """The store did not answer: a Redis restarting is back within a second or two, and
        the job runs on meanwhile, so the page waits :data:`UNREACHABLE_GRACE` seconds (as
        this process counts them) before it says that computations cannot run now."""
        now = self.clock()
        if len(self._unreachable) > 10_000:  # (pages that went away while it was down)
            self._unreachable.clear()
        since = self._unreachable.setdefault(follow.ticket, now)
        if now - since < UNREACHABLE_GRACE:
            return JobStatus("waiting", None, "reconnecting to the job store")
        self._unreachable.pop(follow.ticket, None)
        return JobStatus("failed", message=STORE_DOWN)

    def _missing(self, follow: Follow) -> JobStatus:
        """Neither the page's ticket nor the job's record is known: a store that has just
        restarted (a running job writes its record again within a second), or gone for good
        once that has lasted :data:`MISSING_GRACE` seconds."""
        key, now = f"missing:{follow.ticket}", self.clock()
        self.store.add(key, {"since": now}, 10 * MISSING_GRACE)
        since = (self.store.get(key) or {}).get("since", now)
        if isinstance(since, int | float) and now - since < MISSING_GRACE:
            return JobStatus("waiting", 0.0, "checking on the computation")
        return JobStatus("failed", message=UNKNOWN)

    def _describe(self, record: JobRecord | None) -> JobStatus:
        now = self.clock()
        if record is None:
            return JobStatus("failed", message=UNKNOWN)
        if record.state == "done":
            return JobStatus("done", 1.0)
        if record.state in ("failed", "cancelled"):
            return JobStatus("failed", message=record.message or UNWATCHED)
        if record.lost(now):
            return JobStatus("failed", message=LOST)
        if record.state == "running":
            return JobStatus("running", record.progress, record.text or "computing")
        if now - record.created > LOST_AFTER and not self.workers():
            return JobStatus("failed", message=NO_WORKER)
        ahead = sum(1 for r in self.active() if r.state == "queued" and r.created < record.created)
        waiting = "waiting for a free worker" + (f" ({ahead} computations ahead)" if ahead else "")
        return JobStatus("waiting", 0.0, waiting)

    def workers(self) -> list[str]:
        """The workers (Celery workers, or the job dispatchers of web processes) that have
        said they are alive within :data:`LOST_AFTER`."""
        now = self.clock()
        alive = []
        for key in self.store.keys(WORKERS):
            beat = (self.store.get(key) or {}).get("beat")
            if isinstance(beat, int | float) and now - beat <= LOST_AFTER:
                alive.append(key.removeprefix(WORKERS))
        return alive

    def release(self, ticket: str, setting: str, why: str = "cancelled") -> None:
        """A page stops following (``why``: "cancelled", or "moved on" to other values): only
        its own ticket goes. The computation stops when no page follows it any more."""
        # kept as released (not deleted) so that a poll already on its way when Cancel was
        # clicked does not take the ticket up again and keep the computation going; marked
        # before it leaves, which a poll crossing this reads after it joins (:meth:`_renew`)
        released = {"setting": setting, "released": why}
        self.store.put(ticket_key(ticket), released, TICKET_SECONDS)
        self.store.leave(watchers_key(setting), ticket)
        if why == "cancelled":
            self.store.put(cancelled_key(setting), {"ticket": ticket}, TICKET_SECONDS)

    def health(self) -> dict:
        """What ``/healthz`` says about jobs."""
        runner = self.runner.name if self.runner is not None else "none"
        try:
            workers = self.workers()
            active = len(self.active())
        except StoreError:
            return {"runner": runner, "store_available": False}
        found = {"runner": runner, "store_available": True, "workers": len(workers)}
        found["active"] = active
        if not workers and runner == "celery":
            found["problem"] = f"no job worker has answered for {LOST_AFTER:.0f} s"
        return found

    # -- the page ---------------------------------------------------------------------------

    def register(self, view: View, app: Dash) -> None:
        """The page's side: following its ticket, Cancel and Retry."""
        key = view.key

        @app.callback(
            output={
                "progress": Output(f"{key}-progress", "value"),
                "text": Output(f"{key}-progress-text", "children"),
                "bar_hidden": Output(f"{key}-job-bar", "hidden"),
                "retry_hidden": Output(f"{key}-retry", "hidden"),
                "poll_off": Output(f"{key}-job-poll", "disabled"),
                "done": Output(f"{key}-job-done", "data"),
                "partial": Output(f"{key}-job-partial", "data"),
                "polled": Output(f"{key}-job-polled", "data"),
            },
            inputs={
                "job": Input(f"{key}-job", "data"),
                "tick": Input(f"{key}-job-tick", "data"),
                "partial": State(f"{key}-job-partial", "data"),
            },
            prevent_initial_call=True,
        )
        def follow(job, tick, partial):
            # (any new value of the store frees the page's next poll: assets/jobs.js)
            return self.follow(job, partial) | {"polled": time.time()}

        _register_one_poll_in_flight(key, app)

        @app.callback(
            output={
                "status": Output(f"{key}-timing", "children", allow_duplicate=True),
                "bar_hidden": Output(f"{key}-job-bar", "hidden", allow_duplicate=True),
                "retry_hidden": Output(f"{key}-retry", "hidden", allow_duplicate=True),
                "poll_off": Output(f"{key}-job-poll", "disabled", allow_duplicate=True),
            },
            inputs={
                "clicks": Input(f"{key}-cancel", "n_clicks"),
                "job": State(f"{key}-job", "data"),
            },
            prevent_initial_call=True,
        )
        def cancel(clicks, job):
            return self.cancel(job)

        @app.callback(
            Output(f"{key}-job-done", "data", allow_duplicate=True),
            Output(f"{key}-retry", "hidden", allow_duplicate=True),
            Input(f"{key}-retry", "n_clicks"),
            prevent_initial_call=True,
        )
        def retry(clicks):
            # not an outcome: the page's gate asks again, and a new computation starts
            return {"retry": clicks if isinstance(clicks, int) else 0}, True

        _register_wakes(key, app)

    def follow(self, job: Any, partial: Any = None) -> dict:
        """The poll's answer for the page's job data (its ticket, or why none started);
        ``partial``: what the page last heard of the job's partial result (its
        ``{key}-job-partial`` store), which a count of parts it has not heard replaces."""
        quiet = dict.fromkeys(("progress", "text", "done", "partial"), no_update)
        if isinstance(job, dict) and isinstance(job.get("refused"), str):
            return quiet | {"bar_hidden": True, "retry_hidden": False, "poll_off": True}
        follow = Follow.parse(job)
        if follow is None:
            return quiet | {"bar_hidden": True, "retry_hidden": True, "poll_off": True}
        status = self.status(follow)
        if status.state == "cancelled":
            return quiet | {"bar_hidden": True, "retry_hidden": no_update, "poll_off": True}
        if status.state == "moved on":  # (an old poll answered late: the new ticket rules)
            return dict.fromkeys(("bar_hidden", "retry_hidden", "poll_off"), no_update) | quiet
        if status.state in ("waiting", "running"):
            return {
                "progress": (
                    no_update if status.fraction is None else min(max(status.fraction, 0.0), 1.0)
                ),
                "text": status.text[:200],
                "bar_hidden": False,
                "retry_hidden": True,
                "poll_off": False,
                "done": no_update,
                "partial": _new_partial(follow, status, partial),
            }
        ok = status.state == "done"
        outcome = JobOutcome(follow.values, ok, status.message)
        return {
            "progress": 1.0 if ok else no_update,
            "text": "",
            "bar_hidden": True,
            "retry_hidden": ok,
            "poll_off": True,
            "done": outcome.to_data(),
            "partial": no_update,
        }

    def cancel(self, job: Any) -> dict:
        follow = Follow.parse(job)
        if follow is None:
            return {k: no_update for k in ("status", "bar_hidden", "retry_hidden", "poll_off")}
        try:
            self.release(follow.ticket, follow.setting)
        except StoreError as error:
            log.warning("cancel: %s", error)
        return {"status": CANCELLED, "bar_hidden": True, "retry_hidden": False, "poll_off": True}


def _register_wakes(key: str, app: Dash) -> None:
    """How the job ended wakes the gate through Dash's chain (assets/jobs.js), so that the
    main callback reads the new value of ``{key}-job-done``; so does a partial result with
    another number of parts than the page drew (``{key}-job-partial``: the main callback draws
    it)."""
    for store in ("done", "partial"):
        app.clientside_callback(
            ClientsideFunction("lazyRichJobs", "ended"),
            Output(f"{key}-wake", "data", allow_duplicate=True),
            Input(f"{key}-job-{store}", "data"),
            prevent_initial_call=True,
        )


def _register_one_poll_in_flight(key: str, app: Dash) -> None:
    """The poll's interval ticks every :data:`POLL_MS`, but a tick reaches the server only
    once the poll before is answered (assets/jobs.js): Dash drops the answer of a callback
    still on its way when the same callback is asked again."""
    app.clientside_callback(
        ClientsideFunction("lazyRichJobs", "tick"),
        Output(f"{key}-job-tick", "data"),
        Input(f"{key}-job-poll", "n_intervals"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction("lazyRichJobs", "polled"),
        Input(f"{key}-job-polled", "data"),
        prevent_initial_call=True,
    )


def _new_partial(follow: Follow, status: JobStatus, heard: Any) -> Any:
    """The page's ``{key}-job-partial`` store when the job's partial result holds another
    number of parts than the page last heard of for this setting (which wakes its gate: the
    count grows as parts finish, and starts again with a new version of the code), else
    no_update."""
    said = {"setting": follow.setting, "parts": status.partial}
    return said if status.partial > 0 and said != heard else no_update


def _released(held: Any) -> str | None:
    """Why the page released a ticket (its stored value), or None if it did not."""
    if isinstance(held, dict) and held.get("released") in RELEASED:
        return held["released"]
    return None


def page_parts(key: str) -> list:
    """What a view with background jobs adds to its page: the job's bar (progress, Cancel),
    a Retry for a job that ended without a result, and the poll that follows the job."""
    return [
        components.job_bar(key),
        html.Button("Retry", id=f"{key}-retry", n_clicks=0, className="small-button", hidden=True),
        dcc.Interval(id=f"{key}-job-poll", interval=POLL_MS, disabled=True),
        dcc.Store(id=f"{key}-job-tick"),
        dcc.Store(id=f"{key}-job-polled"),
        dcc.Store(id=f"{key}-job-partial"),
    ]


def ended(record: JobRecord, state: str, message: str = "") -> JobRecord:
    return replace(record, state=state, message=message, progress=1.0 if state == "done" else 0.0)
