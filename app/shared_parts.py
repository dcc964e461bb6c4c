"""A job's parts shared among the job workers (app/core/parts.py says what parts are).

The job's own process (the *lead*) and *helpers* — Celery tasks on the other workers, or
processes that the other web processes' job dispatchers fork — take the parts one at a time:

* a part is taken with an atomic add of ``part:{setting}:{attempt}:{index}`` in the job store;
  its taker writes a heartbeat and its progress into it every second and marks it done once the
  part is in the result cache (namespace ``{view}-part``, keyed by the setting, the number of
  parts, the index and the code's version);
* helpers take only parts nobody has taken. They stop when none is left, when the job has
  ended or another attempt replaced it (its record), or when another job waits in the queue:
  the workers are shared among the jobs a part at a time;
* the lead computes parts too, reads the helpers' from the cache, and takes over a part whose
  taker's heartbeat stopped or whose result the cache does not have: the job ends with or
  without helpers, and no helper can hold it up.

The job's progress is the sum of every part's. Where the parts' result can be drawn before it
is whole (``Parts.partial``), the lead keeps the result of the parts done so far in the cache
at most every ``PARTIAL_SECONDS`` and says in the job store how many parts it holds
(``partial:{setting}``, app/core/jobs.py): the pages following the job draw it.

A cancelled job stops its lead at once (its own heartbeat, app/job_runner.py) and its helpers at
their next beat. Parts already in the cache are not computed again: a job cancelled half-way and
started again begins where it stopped (and its page draws those parts at once).
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any

from .cache import ResultCache
from .core.jobs import (
    BEAT_SECONDS,
    ENDED_SECONDS,
    LOST_AFTER,
    JobRecord,
    holder,
    partial_key,
    record_key,
)
from .core.parts import PARTIAL_SECONDS, Parts, Report, partial_entry
from .fingerprint import code_version
from .job_store import JobStore, StoreError

__all__ = ["HELP", "PART", "Abandoned", "SharedParts", "help_key", "sharing"]

log = logging.getLogger(__name__)

#: the prefix of a part's key in the job store
PART = "part:"
#: the prefix of a job's call for help (read by the local runners' dispatchers)
HELP = "help:"
#: at most this many helper tasks a job sends (Celery)
HELPERS_AT_MOST = 16
#: the longest a part stays in the result cache (s): beyond any job's end, for a retry
PART_SECONDS = 2 * 86400

AskForHelp = Callable[[JobRecord, int], None]


class Abandoned(Exception):
    """A helper stops: the job ended, another attempt replaced it, or a lead took its part."""


def help_key(setting: str) -> str:
    return f"{HELP}{setting}"


def _fresh(progress: float = 0.0, done: bool = False) -> dict:
    return {"holder": holder(), "beat": time.time(), "progress": progress, "done": done}


class PartBeat(threading.Thread):
    """Writes the heartbeat and progress of the part this process holds, every
    :data:`BEAT_SECONDS`, and (for a helper) notices when the job it helps is over."""

    def __init__(self, store: JobStore, record: JobRecord, ttl: float, helper: bool) -> None:
        super().__init__(daemon=True, name="part-heartbeat")
        self.store, self.record, self.ttl, self.helper = store, record, ttl, helper
        self.key: str | None = None
        self.written: dict | None = None
        self.progress = 0.0
        self.abandoned = False
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def hold(self, key: str | None, written: dict | None) -> None:
        with self._lock:
            self.key, self.written, self.progress = key, written, 0.0

    def finish(self) -> bool:
        """The held part is in the cache: marked done. False if the mark could not be made
        (a lead took the part over meanwhile, or the store lost it)."""
        with self._lock:
            key, written = self.key, self.written
            self.key = self.written = None
        if key is None or written is None:
            return False
        return self.store.swap(key, written, _fresh(1.0, True), self.ttl)

    def stop(self) -> None:
        self._stop.set()

    def run(self) -> None:
        while not self._stop.wait(BEAT_SECONDS):
            try:
                self._beat()
            except StoreError as error:
                log.warning("part heartbeat not written: %s", error)

    def _beat(self) -> None:
        with self._lock:
            if self.key is not None:
                renewed = _fresh(self.progress)
                if self.store.swap(self.key, self.written, renewed, self.ttl):
                    self.written = renewed
                else:
                    self.abandoned = True  # taken over: this process was stalled too long
        if self.helper and not _job_running(self.store, self.record):
            self.abandoned = True


def _job_running(store: JobStore, record: JobRecord) -> bool:
    current = JobRecord.parse(store.get(record_key(record.setting)))
    return (
        current is not None
        and current.attempt == record.attempt
        and current.state == "running"
        and not current.lost(time.time())
    )


class SharedParts:
    """The parts of one job's result, as the lead or a helper takes them."""

    def __init__(
        self,
        store: JobStore,
        cache: ResultCache,
        record: JobRecord,
        parts: Parts,
        controls: Any,
        ttl: float,
    ) -> None:
        self.store, self.cache, self.record = store, cache, record
        self.parts, self.controls, self.ttl = parts, controls, ttl
        self.count = parts.count(controls)
        self.prefix = f"{PART}{record.setting}:{record.attempt}:"
        self._progress_read = 0.0
        #: the helpers' parts running: their progress summed, and how many processes hold them
        self._others = 0.0
        self._helping = 0
        #: the fraction of the whole last reported
        self._shown = 0.0
        #: how many parts the partial result last kept holds, when it was kept, and when the
        #: helpers' parts were last gathered for it
        self._partial_parts = 0
        self._partial_at = self._gathered_at = -math.inf

    def key(self, index: int) -> str:
        return f"{self.prefix}{index}"

    def _parameters(self, index: int) -> tuple:
        # (the code's version too: parts outlive results, and a new version must not combine
        # an older version's parts)
        return (self.record.setting, self.count, index, code_version())

    def _cached(self, index: int) -> Any:
        namespace = f"{self.record.view}-part"
        return self.cache.get(namespace, self._parameters(index), self.parts.part_type)

    def _keep(self, index: int, part: Any) -> None:
        namespace = f"{self.record.view}-part"
        parameters = self._parameters(index)
        self.cache.put(namespace, parameters, part, self.parts.part_type, PART_SECONDS)

    def states(self) -> dict[int, dict]:
        """The parts taken so far: index → their record (holder, beat, progress, done)."""
        found = {}
        for key in self.store.keys(self.prefix):
            index = key.removeprefix(self.prefix)
            value = self.store.get(key)
            if index.isdigit() and int(index) < self.count and isinstance(value, dict):
                found[int(index)] = value
        return found

    def _compute(self, index: int, beat: PartBeat, heard: Callable[[float], None]) -> Any:
        """Compute a part this process holds, keep it in the cache and mark it done (a helper
        whose part a lead took over meanwhile stops)."""

        def report(fraction: float, text: str = "") -> None:
            beat.progress = min(max(float(fraction), 0.0), 1.0)
            if beat.abandoned and beat.helper:
                raise Abandoned
            heard(beat.progress)

        part = self.parts.compute_part(self.controls, index, report)
        self._keep(index, part)
        if not beat.finish() and beat.helper:
            raise Abandoned
        return part

    # -- the job's own process ----------------------------------------------------------------

    def lead(self, report: Report, ask_for_help: AskForHelp | None) -> list:
        """Every part, computed here or by helpers; ``report`` is the job's (it raises when
        the job should stop)."""
        ready = {i: part for i in range(self.count) if (part := self._cached(i)) is not None}
        if len(ready) < self.count - 1 and ask_for_help is not None:
            try:
                ask_for_help(self.record, self.count - len(ready))
            except Exception as error:  # (no help: the job computes its parts alone)
                log.warning("no help asked for %s: %s", self.prefix, error)
        beat = PartBeat(self.store, self.record, self.ttl, helper=False)
        beat.start()
        try:
            while len(ready) < self.count:
                taken = self._next(ready)
                if taken is None:
                    self._tell(report, ready, 0.0)
                    time.sleep(BEAT_SECONDS / 2)
                    continue
                index, written = taken
                beat.hold(self.key(index) if written else None, written)
                ready[index] = self._compute(index, beat, lambda f: self._tell(report, ready, f))
        finally:
            beat.stop()
            with contextlib.suppress(StoreError):
                self.store.delete(help_key(self.record.setting))
        report(1.0, "done")
        return [ready[i] for i in range(self.count)]

    def _next(self, ready: dict[int, Any]) -> tuple[int, dict | None] | None:
        """The part the lead computes next and what its key holds (None: computed without
        a key, the store being away), after gathering the helpers' parts done; None while
        helpers hold every part left."""
        try:
            self._gather(ready)
            return self._take_one(ready)
        except StoreError as error:
            # (a Redis restarting: the job goes on alone, as it did before parts were shared)
            log.warning(
                "parts of %s: the job store is away (%s), computing alone", self.prefix, error
            )
            return next(i for i in range(self.count) if i not in ready), None

    def _gather(self, ready: dict[int, Any]) -> None:
        """The helpers' parts done since: from the cache (a part done but not there — the
        cache lost it — is freed, to be computed again)."""
        for index, state in self.states().items():
            if index in ready or not state.get("done"):
                continue
            part = self._cached(index)
            if part is None:
                log.warning("part %d of %s not in the cache: computed again", index, self.prefix)
                self.store.delete(self.key(index))
            else:
                ready[index] = part

    def _take_one(self, ready: dict[int, Any]) -> tuple[int, dict] | None:
        """A part for the lead to compute, and what its key holds now: one nobody took, else
        one whose taker stopped beating; None while helpers hold every part left."""
        states = self.states()
        for index in range(self.count):
            if index not in ready and index not in states:
                written = self._take(index)
                if written is not None:
                    return index, written
        now = time.time()
        for index, state in states.items():
            stale = now - float(state.get("beat", 0.0)) > LOST_AFTER
            if index not in ready and not state.get("done") and stale:
                written = _fresh()
                if self.store.swap(self.key(index), state, written, self.ttl):
                    log.warning("part %d of %s taken over: its taker stopped", index, self.prefix)
                    return index, written
        return None

    def _take(self, index: int) -> dict | None:
        """Take a part nobody has taken: what its key now holds, or None if someone had."""
        written = _fresh()
        return written if self.store.add(self.key(index), written, self.ttl) else None

    def _tell(self, report: Report, ready: dict[int, Any], own: float) -> None:
        """The job's progress: parts done, the lead's own part, the helpers' parts running."""
        if time.monotonic() - self._progress_read >= BEAT_SECONDS:
            self._progress_read = time.monotonic()
            mine = _fresh()["holder"]
            try:
                states = self.states()
            except StoreError:
                states = {}
            others = [
                state
                for index, state in states.items()
                if index not in ready and state.get("holder") != mine
            ]
            # (a helper's part done counts whole before the lead has gathered it)
            self._others = sum(
                1.0 if state.get("done") else float(state.get("progress", 0.0)) for state in others
            )
            self._helping = len({s.get("holder") for s in others if not s.get("done")})
        self._keep_partial(ready)
        # the bar never goes back (a part taken over from a helper that stopped starts again)
        whole = min(max((len(ready) + own + self._others) / self.count, self._shown), 1.0)
        self._shown = whole
        text = self.parts.progress_text(self.controls, whole)
        if self._helping:
            text += f" ({self._helping + 1} workers sharing it)"
        if self._partial_parts:  # (on a phone this bar is above the plots, the status below)
            text += "; the plots show the part done so far"
        report(0.99 * whole, text)

    def _keep_partial(self, ready: dict[int, Any]) -> None:
        """Keep the result of the parts done so far (the helpers' gathered first, once a
        beat), if the parts can be combined before they are all done, there are new ones, and
        the last was kept :data:`PARTIAL_SECONDS` ago: the pages following the job draw it."""
        now = time.monotonic()
        if self.parts.partial is None or now - self._partial_at < PARTIAL_SECONDS:
            return
        if now - self._gathered_at >= BEAT_SECONDS:
            self._gathered_at = now
            with contextlib.suppress(StoreError):
                self._gather(ready)
        if len(ready) <= self._partial_parts or len(ready) == self.count:
            return
        self._partial_at = now
        try:
            result = self.parts.partial(self.controls, dict(ready))
            namespace, parameters = partial_entry(self.record.view, self.record.setting)
            self.cache.put(namespace, parameters, result, self.parts.result_type, int(self.ttl))
            said = {"attempt": self.record.attempt, "parts": len(ready), "of": self.count}
            self.store.put(partial_key(self.record.setting), said, self.ttl)
        except Exception as error:  # (only a view of the job on its way: the job goes on)
            log.warning("no partial result of %s: %s", self.prefix, error)
            return
        self._partial_parts = len(ready)

    # -- a helper -------------------------------------------------------------------------------

    def help(self) -> int:
        """Take parts nobody has taken until none is left (or the job is over, or another job
        waits): how many this process computed."""
        beat = PartBeat(self.store, self.record, self.ttl, helper=True)
        beat.start()
        computed = 0
        try:
            while _job_running(self.store, self.record) and not self._others_wait():
                states = self.states()
                free = (i for i in range(self.count) if i not in states)
                taken = next(((i, w) for i in free if (w := self._take(i)) is not None), None)
                if taken is None:
                    self.store.delete(help_key(self.record.setting))  # nothing left to take
                    break
                index, written = taken
                beat.hold(self.key(index), written)
                try:
                    self._compute(index, beat, lambda fraction: None)
                except BaseException:
                    # the part is free again at once (else the lead would take it over only
                    # once its heartbeat is old)
                    beat.hold(None, None)
                    self.store.delete(self.key(index))
                    raise
                computed += 1
        except Abandoned:
            log.info("stopped helping with %s", self.prefix)
        except StoreError as error:
            log.warning("stopped helping with %s: %s", self.prefix, error)
        finally:
            beat.stop()
        return computed

    def _others_wait(self) -> bool:
        """Whether another job is queued (helpers give way to it, a part at a time)."""
        for key in self.store.keys("job:"):
            record = JobRecord.parse(self.store.get(key))
            if record is not None and record.state == "queued":
                return True
        return False


def sharing(
    store: JobStore, cache: ResultCache, record: JobRecord, ask_for_help: AskForHelp | None
) -> Callable[[Parts, Any, Report], list]:
    """How a job shares its parts (what :data:`app.core.parts.SHARING` holds during it)."""
    ttl = ENDED_SECONDS + 4 * record.limit

    def share(parts: Parts, controls: Any, report: Report) -> list:
        shared = SharedParts(store, cache, record, parts, controls, ttl)
        return shared.lead(report, ask_for_help)

    return share


def help_with(job: Any, store: JobStore, cache: ResultCache, views: dict) -> int:
    """A helper's work for the job whose record ``job`` is: parts computed (0 when there was
    nothing to help with)."""
    record = JobRecord.parse(job)
    if record is None or not _job_running(store, record):
        return 0
    view = views.get(record.view)
    parts = getattr(view, "parts", None)
    if parts is None:
        return 0
    controls, _ = view.spec.parse_controls(record.values)
    controls = view.spec.physics_only(controls)
    ttl = ENDED_SECONDS + 4 * record.limit
    return SharedParts(store, cache, record, parts, controls, ttl).help()
