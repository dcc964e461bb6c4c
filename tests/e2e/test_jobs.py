"""Background jobs in a real browser: a heavy network map runs beside the web worker (Dash's
``DiskcacheManager``, the default) or on a real Celery worker through a real ``redis-server``
(``CeleryManager``), with its progress on the page, a cancel button that leaves the page usable,
and the finished map in the shared result cache for the next student."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from app.views.networks import MAP
from tests import require, servers
from tests.e2e.test_browser import wait_for_graphs

pytestmark = pytest.mark.e2e
KEY = MAP.key
#: a map of a few seconds on this machine: a background job (MAP.heavy), quick enough to wait for
HEAVY = {"d": 10, "n": 100, "resolution": 10, "steps": 1500}
#: the paper's sizes: minutes of work, to be cancelled
MINUTES = {"d": 100, "n": 1000, "width": 50, "resolution": 16, "steps": 2000}

STATUS = f"""() => {{
    const bar = document.getElementById('{KEY}-job-bar');
    const progress = document.getElementById('{KEY}-progress');
    const timing = document.getElementById('{KEY}-timing');
    return {{shown: bar !== null && !bar.hidden, value: Number(progress && progress.value),
             text: (document.getElementById('{KEY}-progress-text') || {{}}).textContent || '',
             timing: timing ? timing.textContent : ''}};
}}"""
CELLS = f"""() => {{
    const g = document.querySelector('#{KEY}-graph-kernel .js-plotly-plot');
    return g && g._fullData && g._fullData.length ? g._fullData[0].z.length : 0;
}}"""
KERNEL_MAP = f"""() => Array.from(document.querySelector('#{KEY}-graph-kernel .js-plotly-plot')
    ._fullData[0].z, row => Array.from(row))"""


def _query(values: dict) -> str:
    return "?" + "&".join(f"{name}={value}" for name, value in values.items())


def _follow(page, until, seconds: float = 120) -> list[dict]:
    """The job bar's states every 100 ms until ``until(state)`` holds."""
    seen, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = page.evaluate(STATUS)
        if not seen or state != seen[-1]:
            seen.append(state)
        if until(state):
            return seen
        page.wait_for_timeout(100)
    raise AssertionError(f"the job did not get there in {seconds} s: last states {seen[-3:]}")


def _run_heavy_map(page, base: str, values: dict) -> list[dict]:
    """Open a heavy map and follow its job to the drawn plots; the job bar's states."""
    assert MAP.heavy(MAP.spec.with_overrides(values))
    page.goto(f"{base}{MAP.path}{_query(values)}")
    seen = _follow(page, lambda s: not s.get("shown") and page.evaluate(CELLS) == 10)
    progress = [s["value"] for s in seen if s["shown"] and s["value"] > 0]
    assert any("background" in s["timing"] for s in seen), seen[:3]
    assert len(set(progress)) >= 2 and progress == sorted(progress), progress
    assert any("training" in s["text"] for s in seen)
    assert page.locator(".message").count() == 0
    assert page.evaluate(STATUS)["timing"] == ""  # no timings or cache state for students
    return seen


def test_a_heavy_map_runs_in_the_background_with_progress_then_comes_from_the_cache(
    browser, page, live_server
):
    _run_heavy_map(page, live_server, HEAVY)
    # a second student asks for the same map: at once, from the shared cache, no job
    other = browser.new_page(viewport={"width": 1400, "height": 1000})
    start = time.monotonic()
    other.goto(f"{live_server}{MAP.path}{_query(HEAVY)}")
    wait_for_graphs(other, MAP)
    assert time.monotonic() - start < 15
    assert other.evaluate(STATUS) | {"value": 0} == {
        "shown": False,
        "value": 0,
        "text": "",
        "timing": "",
    }
    other.close()


def test_cancel_stops_the_job_and_leaves_the_page_usable(page, live_server):
    page.goto(f"{live_server}{MAP.path}{_query(MINUTES)}")
    _follow(page, lambda s: s["shown"] and s["value"] > 0)
    page.locator(f"#{KEY}-cancel").click()
    seen = _follow(page, lambda s: not s["shown"], seconds=10)
    assert "Cancelled" in seen[-1]["timing"]
    # the page still answers: a light map is drawn within the request
    light = {"resolution": 4, "steps": 100, "n_test": 40}
    for name, value in light.items():
        box = page.locator(f"#{KEY}-{name} input[type=number]")
        box.fill(str(value))
        box.press("Enter")
    deadline = time.monotonic() + 30
    while page.evaluate(CELLS) != 4 and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert page.evaluate(CELLS) == 4
    assert page.locator(".message").count() == 0


@pytest.fixture
def celery_deployment(tmp_path):
    """A class deployment: a real ``redis-server`` (result cache in database 0, Celery's broker
    in database 1), a real Celery worker and gunicorn (the Procfile's two lines), all
    with the same settings; yields (base URL, Redis URL, the worker's log)."""
    if servers.redis_binary() is None:
        require("redis", "redis-server is not installed (Debian package redis-server)")
    with servers.redis_server() as (redis_url, _):
        broker = redis_url.rsplit("/", 1)[0] + "/1"
        env = {"CACHE_REDIS_URL": redis_url, "BACKGROUND_BROKER_URL": broker}
        log = tmp_path / "celery.log"
        worker = subprocess.Popen(
            servers.procfile_command("worker", {"WORKER_CONCURRENCY": "1"}),
            cwd=servers.ROOT,
            env=os.environ | env | {"JOBS_DIR": tempfile.mkdtemp()},
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_for(lambda: "ready" in log.read_text(), 60, f"the worker did not start: {log}")
            with servers.gunicorn(env) as (url, _):
                yield url, redis_url, log
        finally:
            servers.stop(worker)


def _wait_for(condition, seconds: float, message: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(message)
        time.sleep(0.2)


def test_a_celery_worker_runs_the_map_with_progress_into_the_shared_cache(page, celery_deployment):
    import redis

    url, redis_url, log = celery_deployment
    values = HEAVY | {"seed": 7}  # not in any other test's cache
    _run_heavy_map(page, url, values)
    text = log.read_text()
    assert "succeeded" in text and "Task" in text, text[-2000:]
    # the finished map is in Redis, as data: the key names the view
    keys = redis.Redis.from_url(redis_url).keys("*")
    assert any(KEY.encode() in key for key in keys), keys[:10]
    # and the downloaded table is the map the job computed: the same as computing it here
    expected = MAP.compute(MAP.spec.with_overrides(values))
    drawn = np.array(page.evaluate(KERNEL_MAP), dtype=float)
    np.testing.assert_allclose(drawn, expected.kernel_distance, rtol=1e-6, atol=1e-12)


def test_the_worker_refuses_to_start_without_a_broker():
    env = {k: v for k, v in os.environ.items() if k != "BACKGROUND_BROKER_URL"}
    done = subprocess.run(
        [sys.executable, "-c", "import app.worker"],
        cwd=Path(servers.ROOT),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and "BACKGROUND_BROKER_URL" in done.stderr + done.stdout
