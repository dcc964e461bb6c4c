"""Background jobs in a real browser, against the Procfile's processes: a heavy network map runs
in a process beside the web worker (the default) or on a real Celery worker through a real
``redis-server`` with the shipped configuration, with its progress on the page, a Cancel that
leaves the page usable, a Retry, the finished map in the shared cache for the next student,
and two pages that open the same map at once both served by one computation. (Faults — a
worker killed, Redis restarted, the job folder read-only or full — are tests/e2e/test_faults.py.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from app.core.jobs import POLL_MS
from app.views.networks import MAP
from tests import require, servers
from tests.e2e.test_browser import slow_dash
from tests.job_pages import (
    HEAVY,
    KERNEL_MAP,
    KEY,
    MINUTES,
    PROGRESSING,
    STATUS,
    drawn,
    follow,
    open_map,
    query_of,
)
from tests.job_pages import folder_records as records

pytestmark = pytest.mark.e2e


def run_heavy_map(page, base: str, values: dict) -> list[dict]:
    """Open a heavy map and follow its job to the drawn plots; the job bar's states."""
    open_map(page, base, values)
    seen = follow(page, drawn(page, values["resolution"]))
    progress = [s["value"] for s in seen if s["shown"] and s["value"] > 0]
    assert any("background" in s["timing"] for s in seen), seen[:3]
    assert len(set(progress)) >= 2 and progress == sorted(progress), [
        (s["value"], s["at"], s["text"]) for s in seen
    ]
    assert any("training" in s["text"] for s in seen)
    assert page.locator(".message").count() == 0
    assert page.evaluate(STATUS)["timing"] == ""  # no timings or cache state for students
    return seen


@pytest.fixture(scope="module")
def local_jobs(tmp_path_factory):
    """The Procfile's gunicorn with jobs beside it, its job folder known; yields (URL, folder)."""
    scratch = tmp_path_factory.mktemp("jobs-server")
    env = {"JOBS_DIR": str(scratch / "jobs")}
    with servers.gunicorn(env, workers=2, threads=2, log=scratch / "log") as (url, _):
        yield url, scratch / "jobs"


def test_a_heavy_map_runs_in_the_background_with_progress_then_comes_from_the_cache(
    browser, page, local_jobs
):
    url, jobs_dir = local_jobs
    run_heavy_map(page, url, PROGRESSING)
    before = records(jobs_dir)
    # a second student asks for the same map: from the shared cache, no job, no bar
    other = browser.new_page(viewport={"width": 1400, "height": 1000})
    other.goto(f"{url}{MAP.path}{query_of(PROGRESSING)}")
    seen = follow(other, drawn(other, PROGRESSING["resolution"]))
    assert not any(state["shown"] or state["retry"] or state["messages"] for state in seen)
    assert all(state["timing"] == "" for state in seen)
    assert records(jobs_dir) == before
    other.close()


def test_two_pages_opening_the_same_map_at_once_both_get_it_from_one_computation(
    browser, local_jobs
):
    """A lecture's "everybody open the map now": both pages are served, by one computation,
    and neither page's poll takes or cancels the other's."""
    url, jobs_dir = local_jobs
    values = HEAVY | {"seed": 11}
    pages = [browser.new_page(viewport={"width": 1400, "height": 1000}) for _ in range(2)]
    try:
        for tab in pages:  # both requests go out before either job could end
            tab.goto(f"{url}{MAP.path}{query_of(values)}", wait_until="commit")
        for tab in pages:
            follow(tab, drawn(tab, values["resolution"]))
            assert tab.locator(".message").count() == 0
        first, second = (np.array(tab.evaluate(KERNEL_MAP)) for tab in pages)
        np.testing.assert_array_equal(first, second)
    finally:
        for tab in pages:
            tab.close()
    controls = MAP.spec.with_overrides(values)
    mine = [r for r in records(jobs_dir) if r.values == MAP.spec.to_controls(controls)]
    assert [(r.state, r.tries) for r in mine] == [("done", 1)]  # one computation, run once


#: how much of the map the page draws — its kernel map's finite cells, what the summary and
#: the status line say, whether the job's bar shows — read at one moment (one evaluation: the
#: page changes between two)
DRAWN_SO_FAR = f"""() => {{
    const g = document.querySelector('#{KEY}-graph-kernel .js-plotly-plot');
    const z = g && g._fullData && g._fullData.length ? g._fullData[0].z : [];
    const cells = Array.from(z, row => Array.from(row)).flat();
    const text = id => (document.getElementById(id) || {{}}).textContent || '';
    const bar = document.getElementById('{KEY}-job-bar');
    return {{finite: cells.filter(Number.isFinite).length, summary: text('{KEY}-summary'),
             timing: text('{KEY}-timing'), shown: bar !== null && !bar.hidden}};
}}"""


def test_a_map_of_several_parts_is_drawn_as_they_finish(page, local_jobs):
    """A map of four seeds (four parts, shared by the two web processes): while its job runs
    the page draws the parts done so far — every cell, each the mean of the seeds trained so
    far, the summary saying how many networks that is and the status line that the plots show
    the part done so far — and then the whole map."""
    url, _ = local_jobs
    values = HEAVY | {"seeds": 4, "seed": 14, "steps": 3000}
    open_map(page, url, values)
    partial = []

    def looked(state: dict) -> bool:
        now = page.evaluate(DRAWN_SO_FAR)
        # (the whole map may be drawn a poll before the bar goes: the gate, woken by the last
        # part's count, finds the whole result; the page's summary says which it shows)
        if now["shown"] and now["finite"] and "so far" in now["summary"] and now not in partial:
            partial.append(now)
        return drawn(page, values["resolution"])(state)

    seen = follow(page, looked)
    assert partial, "nothing was drawn before the job ended"
    assert all(state["finite"] == 100 for state in partial)  # (a part holds every row)
    assert all("networks trained" in state["summary"] for state in partial), partial
    assert all("done so far" in state["timing"] for state in partial), partial
    assert any("the plots show the part done so far" in s["text"] for s in seen), seen
    final = page.evaluate(DRAWN_SO_FAR)
    assert final["finite"] == 100 and "so far" not in final["summary"]
    ended = page.evaluate(STATUS)
    assert ended["timing"] == "" and ended["messages"].startswith("Expected time"), ended


def server_log(jobs_dir: Path, lines: int = 40) -> str:
    """The last lines of the :func:`local_jobs` server's log (for a failure's report)."""
    try:
        text = (jobs_dir.parent / "log").read_text(errors="replace")
    except OSError as error:
        return f"(no server log: {error})"
    return "\n".join(text.splitlines()[-lines:])


def test_cancel_stops_the_job_and_leaves_the_page_usable(page, local_jobs):
    url, jobs_dir = local_jobs
    page.goto(f"{url}{MAP.path}{query_of(MINUTES)}")
    try:
        follow(page, lambda s: s["shown"] and s["value"] > 0)
    except AssertionError as error:
        raise AssertionError(f"{error}\nthe server's log:\n{server_log(jobs_dir)}") from None
    page.locator(f"#{KEY}-cancel").click()
    seen = follow(page, lambda s: not s["shown"], seconds=10)
    assert "Cancelled" in seen[-1]["timing"] and seen[-1]["retry"]
    # nobody else follows it: the computation stops
    controls = MAP.spec.to_controls(MAP.spec.with_overrides(MINUTES))
    deadline = time.monotonic() + 30
    while not any(r.values == controls and r.state == "cancelled" for r in records(jobs_dir)):
        assert time.monotonic() < deadline, "the cancelled job went on"
        time.sleep(0.2)
    # the page still answers: each value typed is a new (short) job, which releases the one
    # before, and the last one's map is drawn
    light = {"resolution": 4, "steps": 100, "n_test": 40}
    for name, value in light.items():
        box = page.locator(f"#{KEY}-{name}-box")
        box.fill(str(value))
        box.press("Enter")
    follow(page, drawn(page, 4), seconds=30)
    assert page.locator(".message").count() == 0


def test_values_typed_while_dash_still_reads_an_answer_follow_the_job_it_started(page, local_jobs):
    """A value typed while the answer to the one before is on its way: that answer brings the
    ticket of the job it started, and Dash drops it if the next request goes out before Dash
    has stored it — the page then asked with the ticket before, kept the job it did not know
    of, and was refused as running two computations (a slow phone's main thread, or a busy
    laptop's). Each new job releases the one before, and the last map is drawn."""
    url, jobs_dir = local_jobs
    page.add_init_script(slow_dash())
    page.goto(f"{url}{MAP.path}{query_of(MINUTES)}")
    follow(page, lambda s: s["shown"] and s["value"] > 0)
    for name, value in {"resolution": 4, "steps": 100, "n_test": 40}.items():
        box = page.locator(f"#{KEY}-{name}-box")
        box.fill(str(value))
        box.press("Enter")
        page.wait_for_timeout(300)  # each one's request while the one before is answered
    follow(page, drawn(page, 4), seconds=60)
    assert page.locator(".message").count() == 0
    deadline = time.monotonic() + 30  # and no job goes on that the page no longer follows
    while any(r.state in ("queued", "running") for r in records(jobs_dir)):
        assert time.monotonic() < deadline, [(r.values, r.state) for r in records(jobs_dir)]
        time.sleep(0.2)


def test_a_page_whose_polls_are_answered_slower_than_it_polls_follows_its_job_to_the_end(
    page, local_jobs
):
    """A busy server, or a phone, whose polls take longer than the poll's interval: Dash drops
    the answer of a poll still on its way when the next tick asks again, so every answer was
    dropped and the page never showed the job's progress or its end. One poll goes out at a
    time: the bar moves and the map is drawn."""
    url, _ = local_jobs
    assert POLL_MS < 700
    page.add_init_script(slow_dash(700))
    values = PROGRESSING | {"seed": 12}  # (a ~5-s job: the bar is seen)
    open_map(page, url, values)
    seen = follow(page, drawn(page, values["resolution"]), seconds=60)
    assert any(s["shown"] for s in seen), seen
    assert page.locator(".message").count() == 0


@pytest.fixture
def celery_deployment(tmp_path):
    """A class deployment: a real ``redis-server`` with docs/deploy/redis.conf (result cache in
    database 0, Celery's broker and the jobs' records in database 1), a real Celery worker
    and gunicorn (the Procfile's two lines), all with the same settings; yields (base URL,
    Redis URL, the worker's log)."""
    if servers.redis_binary() is None:
        require("redis", "redis-server is not installed (Debian package redis-server)")
    with servers.redis_server() as (redis_url, _):
        env = {
            "CACHE_REDIS_URL": redis_url,
            "BACKGROUND_BROKER_URL": servers.with_database(redis_url, 1),
        }
        log = tmp_path / "celery.log"
        with servers.celery_worker(env, log):
            with servers.gunicorn(env) as (url, _):
                yield url, redis_url, log


def test_a_celery_worker_runs_the_map_with_progress_into_the_shared_cache(page, celery_deployment):
    import redis

    url, redis_url, log = celery_deployment
    values = PROGRESSING | {"seed": 7}  # not in any other test's cache
    run_heavy_map(page, url, values)
    text = log.read_text()
    assert "lazy_rich.job" in text and "succeeded" in text, text[-2000:]
    # the finished map is in Redis, as data: the key names the view
    keys = redis.Redis.from_url(redis_url).keys("*")
    assert any(KEY.encode() in key for key in keys), keys[:10]
    # no result in Celery's result backend: the job's outcome is its record
    assert not redis.Redis.from_url(servers.with_database(redis_url, 1)).keys("celery-task-meta*")
    # and the map drawn is the map the job computed: the same as computing it here
    expected = MAP.compute(MAP.spec.with_overrides(values))
    drawn_map = np.array(page.evaluate(KERNEL_MAP), dtype=float)
    np.testing.assert_allclose(drawn_map, expected.final.kernel_distance, rtol=1e-6, atol=1e-12)
    health = json.loads(servers.urllib.request.urlopen(url + "/healthz", timeout=5).read())
    assert health["status"] == "ok" and health["jobs"]["workers"] == 1


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
