"""A heavy map's parts shared among the job workers (app/core/parts.py, app/shared_parts.py),
against a real job store (a private folder), a real cache folder and real processes: two web
processes' dispatchers share one map and draw the same map as one process alone; a helper
gives way to a queued job and stops when the job ends; the lead takes over a part whose taker
stopped and recomputes one the cache lost; a job started again reuses the parts already done;
the parts done so far are kept for the page, which draws them while the job runs. (On Celery
workers through Redis: tests/e2e/test_shared_maps.py.)"""

from __future__ import annotations

import dataclasses
import re
import tempfile
import threading
import time

import numpy as np
import pytest
from dash import no_update
from flask import Flask

from app.cache import ResultCache
from app.core.jobs import Follow, JobLimits, JobRecord, Jobs, partial_key, record_key
from app.core.parts import PARTIAL_SECONDS, Parts, partial_entry
from app.job_runner import LocalRunner
from app.job_store import FolderJobStore, RedisJobStore
from app.shared_parts import PART, SharedParts
from app.views import BY_KEY
from app.views.networks import MAP
from app.views.networks import map as network_map
from tests import servers
from tests.integration.figures import unpacked

GATE = {"seq": 1, "frame": 0, "drawn": None}
PAGE = {"embed": False, "messages": []}
#: a map of four parts of about a second each
SHARED = MAP.spec.with_overrides({"d": 10, "n": 100, "resolution": 10, "steps": 4000})


@pytest.fixture
def store(tmp_path):
    return FolderJobStore(tmp_path / "jobs")


@pytest.fixture
def cache(tmp_path):
    config = {"CACHE_TYPE": "FileSystemCache", "CACHE_DIR": str(tmp_path / "cache")}
    return ResultCache.for_app(Flask(__name__), config)


def _ask(service: Jobs, controls, cache: ResultCache, **options):
    raw = MAP.spec.to_controls(controls)
    return MAP.update(cache, GATE, raw, PAGE, jobs=service, client="a" * 16, **options)


def _wait(service: Jobs, follow: Follow, seconds: float = 300):
    deadline = time.monotonic() + seconds
    while (status := service.status(follow)).state not in ("done", "failed"):
        assert time.monotonic() < deadline, "the job did not end"
        time.sleep(0.2)
    return status


def _holders(store, setting: str) -> dict[int, str]:
    prefix = f"{PART}{setting}:"
    return {
        int(key.rsplit(":", 1)[1]): store.get(key)["holder"]
        for key in store.keys(prefix)
        if store.get(key)
    }


def test_two_web_processes_share_a_map_and_draw_the_same_map(store, cache):
    """Two dispatchers (as two gunicorn workers have) on one job store: the job's process
    takes parts, the other dispatcher's helper takes the rest; the map is the one a single
    process computes, to the last digit."""
    first = LocalRunner(store, cache, BY_KEY)
    second = LocalRunner(store, cache, BY_KEY)
    service = Jobs(store, first, JobLimits())
    second.wake()  # its dispatcher runs (a gunicorn worker's starts with its first poll)
    follow = Follow.parse(_ask(service, SHARED, cache).job)
    texts, fractions = [], []
    deadline = time.monotonic() + 300
    while (status := service.status(follow)).state not in ("done", "failed"):
        texts.append(status.text)
        fractions.append(status.fraction)
        second.wake()
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert status.state == "done", status.message
    holders = _holders(store, follow.setting)
    assert len(holders) == network_map.PARTS.count(MAP.spec.physics_only(SHARED)) == 4
    assert len(set(holders.values())) == 2, holders  # the job's process and a helper
    assert any("2 workers sharing it" in text for text in texts), texts
    assert fractions == sorted(fractions), fractions  # the bar sums the parts, never goes back
    shared = MAP.results(cache, SHARED).result
    alone = network_map.compute_job(MAP.spec.physics_only(SHARED), lambda *_: None)
    for name in network_map.RECORDS:
        np.testing.assert_array_equal(getattr(shared.mean, name), getattr(alone.mean, name))
    np.testing.assert_array_equal(shared.diverged, alone.diverged)


# -- the lead and helpers in this process, with a part that counts its computations ----------


@dataclasses.dataclass(frozen=True)
class Numbers:
    value: np.ndarray


def _counting_parts(count: int, seconds: float, computed: list, partial=None) -> Parts:
    def compute_part(controls, index, report):
        computed.append(index)
        for step in range(10):
            time.sleep(seconds / 10)
            report(step / 10, "")
        return Numbers(np.full(3, float(index)))

    return Parts(
        lambda controls: count,
        compute_part,
        lambda controls, parts: [part.value[0] for part in parts],
        Numbers,
        lambda controls, fraction: f"{fraction:.0%}",
        partial,
        Numbers,
    )


def _running(store, attempt: str = "a" * 32) -> JobRecord:
    record = JobRecord(
        view="network-map",
        values=[],
        setting="network-map:" + "0" * 32,
        attempt=attempt,
        client="c",
        state="running",
        created=time.time(),
        seconds=10.0,
        limit=60.0,
        beat=time.time(),
    )
    store.put(record_key(record.setting), record.to_data(), 600)
    return record


def _shared(store, cache, record, parts) -> SharedParts:
    return SharedParts(store, cache, record, parts, controls=None, ttl=600)


def _values(found: list) -> list[float]:
    return [float(part.value[0]) for part in found]


def test_the_lead_takes_over_a_part_whose_taker_stopped(store, cache):
    computed: list[int] = []
    parts = _counting_parts(3, 0.1, computed)
    record = _running(store)
    lead = _shared(store, cache, record, parts)
    stale = {"holder": "elsewhere:1", "beat": time.time() - 60, "progress": 0.5, "done": False}
    store.put(lead.key(1), stale, 600)  # taken by a helper that died a minute ago
    assert _values(lead.lead(lambda *_: None, None)) == [0.0, 1.0, 2.0]
    assert sorted(computed) == [0, 1, 2]


def test_a_part_done_but_lost_by_the_cache_is_computed_again(store, cache):
    computed: list[int] = []
    parts = _counting_parts(2, 0.05, computed)
    record = _running(store)
    lead = _shared(store, cache, record, parts)
    done = {"holder": "elsewhere:1", "beat": time.time(), "progress": 1.0, "done": True}
    store.put(lead.key(0), done, 600)  # marked done, but its result is in no cache
    assert _values(lead.lead(lambda *_: None, None)) == [0.0, 1.0]
    assert sorted(computed) == [0, 1]


def test_a_job_started_again_reuses_the_parts_already_done(store, cache):
    computed: list[int] = []
    parts = _counting_parts(3, 0.05, computed)
    first = _shared(store, cache, _running(store, "a" * 32), parts)
    first.lead(lambda *_: None, None)
    again = _shared(store, cache, _running(store, "b" * 32), parts)
    assert _values(again.lead(lambda *_: None, None)) == [0.0, 1.0, 2.0]
    assert computed == [0, 1, 2]  # nothing computed the second time


def test_a_helper_shares_the_parts_and_stops_when_the_job_ends(store, cache):
    computed: list[int] = []
    parts = _counting_parts(6, 4.0, computed)
    record = _running(store)
    helped = []
    helper = threading.Thread(
        target=lambda: helped.append(_shared(store, cache, record, parts).help())
    )
    helper.start()
    time.sleep(0.2)
    # the job is cancelled while the helper computes its first part: it stops at its next
    # beat, its part not finished, and takes no other
    ended = JobRecord.parse(store.get(record_key(record.setting)))
    cancelled = dataclasses.replace(ended, state="cancelled")
    store.put(record_key(record.setting), cancelled.to_data(), 60)
    begun = time.monotonic()
    helper.join(10)
    assert not helper.is_alive() and helped == [0]
    assert time.monotonic() - begun < 2.5  # within a beat and a tenth of the part
    assert computed == [0]


def test_a_helper_gives_way_to_a_queued_job(store, cache):
    computed: list[int] = []
    parts = _counting_parts(4, 0.05, computed)
    record = _running(store)
    queued = dataclasses.replace(
        record, setting="network-map:" + "1" * 32, attempt="c" * 32, state="queued"
    )
    store.put(record_key(queued.setting), queued.to_data(), 600)
    assert _shared(store, cache, record, parts).help() == 0
    assert computed == []


def test_the_lead_and_a_helper_compute_every_part_once(store, cache):
    computed: list[int] = []
    parts = _counting_parts(8, 0.2, computed)
    record = _running(store)
    helper = threading.Thread(target=lambda: _shared(store, cache, record, parts).help())
    helper.start()
    progress = []
    found = _shared(store, cache, record, parts).lead(lambda f, t: progress.append(f), None)
    helper.join(10)
    assert _values(found) == [float(i) for i in range(8)]
    assert sorted(computed) == list(range(8))
    assert progress == sorted(progress) and progress[-1] == 1.0


def test_a_job_store_gone_away_leaves_the_lead_computing_alone(cache):
    """A Redis restarting under a running job (tests/e2e/test_faults.py): the job goes on,
    its parts computed in its own process without keys."""
    away = RedisJobStore(f"redis://127.0.0.1:{servers.free_port()}/0")
    computed: list[int] = []
    parts = _counting_parts(3, 0.05, computed)
    record = dataclasses.replace(_running(FolderJobStore(tempfile.mkdtemp())), limit=60.0)
    lead = _shared(away, cache, record, parts)
    assert _values(lead.lead(lambda *_: None, None)) == [0.0, 1.0, 2.0]
    assert computed == [0, 1, 2]


def test_the_lead_keeps_the_parts_done_so_far_for_the_page(store, cache):
    """A result drawn as its parts finish: the lead keeps the result of the parts done so far
    (at most every PARTIAL_SECONDS, never the whole one) and says how many parts it holds."""
    computed: list[int] = []
    indices = []

    def so_far(controls, ready):
        indices.append(sorted(ready))
        return Numbers(np.array(sorted(ready), dtype=float))

    parts = _counting_parts(5, 0.6 * PARTIAL_SECONDS, computed, partial=so_far)
    record = _running(store)
    said, running = [], threading.Event()

    def watch() -> None:  # what a page's polls read meanwhile
        while not running.is_set():
            value = store.get(partial_key(record.setting))
            if value is not None and value not in said:
                said.append(value)
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        found = _shared(store, cache, record, parts).lead(lambda *_: None, None)
    finally:
        running.set()
        watcher.join()
    assert _values(found) == [0.0, 1.0, 2.0, 3.0, 4.0]
    counts = [value["parts"] for value in said]
    assert counts[0] == 1 and counts == sorted(set(counts)) and counts[-1] < 5, said
    assert all(value["of"] == 5 and value["attempt"] == record.attempt for value in said)
    assert indices == [list(range(k)) for k in counts]  # (the parts in order, one worker)
    kept = cache.get(*partial_entry(record.view, record.setting), Numbers)
    np.testing.assert_array_equal(kept.value, range(counts[-1]))


def test_a_page_draws_a_map_s_parts_as_they_finish(store, cache):
    """The map of four seeds, one part each, in a job: the page's poll hears of each new
    partial result once, its gate's request then draws it (the whole map from the parts done,
    with what is there in the summary) and follows the same job; the end draws the whole."""
    values = {"d": 10, "n": 100, "resolution": 10, "steps": 2000, "seeds": 4, "seed": 7}
    controls = MAP.spec.with_overrides(values)
    service = Jobs(store, LocalRunner(store, cache, BY_KEY), JobLimits())
    follow = Follow.parse(_ask(service, controls, cache).job)
    heard, answers, texts, deadline = None, [], [], time.monotonic() + 300
    while (status := service.status(follow)).state not in ("done", "failed"):
        assert time.monotonic() < deadline, "the job did not end"
        texts.append(status.text)
        polled = service.follow(follow.to_data(), heard)
        if isinstance(polled["partial"], dict):  # (else no_update: nothing new)
            heard = polled["partial"]
            assert service.follow(follow.to_data(), heard)["partial"] is no_update
            answer = _ask(service, controls, cache, job=follow.to_data())
            answers.append((heard["parts"], answer))
            follow = Follow.parse(answer.job)
        time.sleep(0.2)
    assert status.state == "done", status.message
    assert answers and [parts for parts, _ in answers] == sorted({p for p, _ in answers})
    # the bar says so too (on a phone it is above the plots, the status line below them)
    assert any(text.endswith("; the plots show the part done so far") for text in texts), texts
    for parts, answer in answers:
        assert "the plots show the part done so far" in answer.status
        assert answer.answered["drawn"] is None  # (no state to send differences from)
        heat = answer.figure("kernel")["data"][0]
        assert np.isfinite(unpacked(heat["z"])).all()  # (each part: every row)
        assert f"{100 * parts} of its 400 networks trained" in str(answer.summary)
    whole = _ask(service, controls, cache)
    assert whole.status == "" and "so far" not in str(whole.summary)


def _networks_trained(summary) -> int:
    """How many networks a partial map's summary says it holds ("… 200 of its 400 networks
    trained …")."""
    found = re.search(r"([\d,]+) of its [\d,]+ networks trained", str(summary))
    assert found, summary
    return int(found[1].replace(",", ""))


def test_a_map_cancelled_half_way_and_asked_for_again_draws_its_parts_done_at_once(store, cache):
    """A student cancels a map with some of its parts done, then asks for it again: the first
    answer already draws those parts (the partial result kept under the setting), and the new
    job ends with the whole map."""
    values = {"d": 10, "n": 100, "resolution": 10, "steps": 2000, "seeds": 4, "seed": 8}
    controls = MAP.spec.with_overrides(values)
    service = Jobs(store, LocalRunner(store, cache, BY_KEY), JobLimits())
    follow = Follow.parse(_ask(service, controls, cache).job)
    deadline = time.monotonic() + 300
    while not isinstance(heard := service.follow(follow.to_data())["partial"], dict):
        assert service.status(follow).state in ("waiting", "running"), "no part before the end"
        assert time.monotonic() < deadline, "no part was done"
        time.sleep(0.1)
    service.cancel(follow.to_data())
    assert _wait_until_stopped(service, follow) == "cancelled"
    again = _ask(service, controls, cache)
    assert "the plots show the part done so far" in again.status, again.status
    assert _networks_trained(again.summary) >= 100 * heard["parts"]
    assert np.isfinite(unpacked(again.figure("kernel")["data"][0]["z"])).all()
    status = _wait(service, Follow.parse(again.job))
    assert status.state == "done", status.message
    whole = _ask(service, controls, cache)
    assert whole.status == "" and "so far" not in str(whole.summary)


def _wait_until_stopped(service: Jobs, follow: Follow, seconds: float = 60) -> str:
    deadline = time.monotonic() + seconds
    while (state := service.status(follow).state) in ("waiting", "running"):
        assert time.monotonic() < deadline, "the cancelled job did not stop"
        time.sleep(0.1)
    return state
