"""A heavy map shared by Celery workers (app/shared_parts.py), against a real ``redis-server``
and the Procfile's real Celery worker: with two worker processes the job's parts are computed
by both, the map is the one a single process computes, and it is ready in at most 0.6 of the
time one worker process takes. (The same with the web processes' own dispatchers:
tests/integration/test_shared_parts.py; the figures: benchmarks/shared_map.py.)"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
import redis

from app import create_app
from app.config import Settings
from app.core.jobs import Follow
from app.shared_parts import PART
from app.views.networks import MAP
from app.views.networks import map as network_map
from tests import servers
from tests.job_pages import HEAVY, drawn, follow, open_map

pytestmark = pytest.mark.e2e

#: four parts of about four seconds each on this machine
SHARED = {"d": 20, "n": 200, "resolution": 12, "steps": 3000}
GATE = {"seq": 1, "frame": 0, "drawn": None}
PAGE = {"embed": False, "messages": []}


@contextmanager
def deployment(folder: Path, concurrency: int) -> Iterator[dict]:
    """Redis, the Procfile's Celery worker with ``concurrency`` processes, and an app (in this
    process) that submits jobs to it."""
    with servers.redis_server() as (redis_url, _):
        env = {
            "CACHE_REDIS_URL": redis_url,
            "BACKGROUND_BROKER_URL": servers.with_database(redis_url, 1),
        }
        app = create_app(Settings.from_env(env))
        log = folder / f"celery-{concurrency}.log"
        with servers.celery_worker(env, log, concurrency):
            yield {"app": app, "broker": env["BACKGROUND_BROKER_URL"], "log": log}


def run_map(deployed: dict, values: dict) -> tuple[float, Follow]:
    """Ask for the map as a page does and wait for its job: (seconds to done, its ticket)."""
    server = deployed["app"].server
    cache, service = server.config["RESULT_CACHE"], server.config["JOBS"]
    controls = MAP.spec.with_overrides(values)
    begun = time.monotonic()
    with server.test_request_context():
        answer = MAP.update(
            cache, GATE, MAP.spec.to_controls(controls), PAGE, jobs=service, client="a" * 16
        )
    follow = Follow.parse(answer.job)
    assert follow is not None, answer
    while (status := service.status(follow)).state not in ("done", "failed"):
        assert time.monotonic() - begun < 300, "the map did not end"
        time.sleep(0.1)
    assert status.state == "done", status.message
    return time.monotonic() - begun, follow


def holders(broker: str, setting: str) -> set[str]:
    """The processes that computed the setting's parts (their records in the job store)."""
    server = redis.Redis.from_url(broker)
    found = set()
    for key in server.scan_iter(f"*{PART}{setting}:*"):
        found.add(json.loads(server.get(key))["holder"])
    return found


def timed(folder: Path, concurrency: int, seed: int) -> tuple[float, set[str], object]:
    """The map of ``seed`` on a fresh deployment with ``concurrency`` worker processes: (seconds
    from the request to the job's end, the processes that computed its parts, the map)."""
    values = SHARED | {"seed": seed}
    with deployment(folder, concurrency) as deployed:
        seconds, follow = run_map(deployed, values)
        computed = holders(deployed["broker"], follow.setting)
        cache = deployed["app"].server.config["RESULT_CACHE"]
        drawn = MAP.results(cache, MAP.spec.with_overrides(values)).result
    return seconds, computed, drawn


@pytest.mark.alone
def test_two_worker_processes_share_a_map_in_at_most_six_tenths_of_the_time(tmp_path):
    """One worker process, then two, on maps of the same work (seeds of their own, so that
    neither comes from the cache); another pair, up to three, if one missed: another program's
    load on one of the two cores slows the two-process run only (the machine is shared)."""
    ratios = []
    for attempt in range(3):
        alone, by_one, _ = timed(tmp_path, 1, seed=20 + 2 * attempt)
        shared, by_two, drawn = timed(tmp_path, 2, seed=21 + 2 * attempt)
        assert len(by_one) == 1 and len(by_two) == 2, (by_one, by_two)
        ratios.append(f"two workers {shared:.1f} s, one {alone:.1f} s")
        if shared <= 0.6 * alone:
            break
    else:
        raise AssertionError("; ".join(ratios))
    controls = MAP.spec.physics_only(MAP.spec.with_overrides(SHARED | {"seed": 21 + 2 * attempt}))
    in_one_process = network_map.compute_job(controls, lambda *_: None)
    for name in network_map.RECORDS:
        np.testing.assert_array_equal(getattr(drawn.mean, name), getattr(in_one_process.mean, name))


def test_gunicorn_s_web_processes_share_a_map_in_the_browser(page, tmp_path):
    """Without Celery: the Procfile's gunicorn with two workers, each with its job dispatcher
    from its start; the page's bar says that two workers share the map, which is drawn."""
    with servers.gunicorn({"JOBS_DIR": str(tmp_path / "jobs")}, workers=2) as (url, _):
        open_map(page, url, HEAVY | {"steps": 6000})
        seen = follow(page, drawn(page, HEAVY["resolution"]))
    assert any("2 workers sharing it" in state["text"] for state in seen), [
        state["text"] for state in seen
    ]
