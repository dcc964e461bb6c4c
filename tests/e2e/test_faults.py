"""Faults under load, against the Procfile's gunicorn with simulated students dragging sliders
(:mod:`tests.faults`). Each test prints its requests sent / failed (``pytest -s`` shows them;
``benchmarks/load_test.py --faults`` prints the README's rows)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
import time

import pytest

from app.views import BY_KEY
from tests import faults, require, servers
from tests.e2e.test_browser import move, query, signature, wait_for_change, wait_for_graphs

pytestmark = pytest.mark.e2e
CLIENTS = 8


def _report(run: faults.FaultRun) -> None:
    print(
        f"\n{run.name}: {run.sent} requests sent, {len(run.failed)} failed, "
        f"{len(run.retried)} resent after a broken connection; {run.facts}"
    )


def test_a_killed_worker_is_replaced_and_only_requests_in_flight_fail():
    run = faults.kill_a_worker(CLIENTS)
    _report(run)
    assert run.facts["victim"] not in run.facts["after"] and len(run.facts["after"]) == 2
    # a request waited on the frozen worker when it was killed: it broke, and was resent
    # (no answer yet) or failed (half an answer, which a browser does not resend)
    assert run.facts["waiting on it"] >= 1 and len(run.retried) + len(run.failed) >= 1
    in_flight = [o for o in run.outcomes if o.started <= run.struck <= o.started + o.seconds]
    assert all(o in in_flight for o in run.failed), "a request sent after the kill failed"
    assert len(run.retried) <= CLIENTS  # only connections the dead worker held broke
    assert run.served_after(run.struck + 2) > 20  # the service carried on


def test_redis_stopped_and_restarted_costs_nothing_but_the_cache():
    if servers.redis_binary() is None:
        require("redis", "redis-server is not installed (Debian package redis-server)")
    run = faults.restart_redis(CLIENTS)
    _report(run)
    assert not run.failed and all(o.status == 200 or o.status == 204 for o in run.outcomes)
    assert run.facts["stored before"] > 0
    # still serving; maps wait (their job records live in the same Redis), and it says so
    down = run.facts["health while down"]
    assert down["cache_available"] is False and down["jobs"]["store_available"] is False
    assert down["status"] == "degraded" and run.facts["health after"]["status"] == "ok"
    assert run.facts["stored after restart"] > 0  # the cache came back with Redis
    assert run.served_after(run.struck) > 20


def test_a_read_only_cache_folder_still_serves_every_page():
    run = faults.read_only_cache(CLIENTS)
    _report(run)
    assert not run.failed
    assert run.facts["entries during"] == run.facts["entries at fault"]  # the fault was real
    assert run.facts["entries after"] > run.facts["entries during"]  # and writing resumed
    assert run.served_after(run.struck) > 20


def test_the_page_recovers_when_the_worker_answering_it_dies_twice(browser, tmp_path):
    """The only worker is killed while a slider's update waits on it, and its replacement as
    soon as it accepts the resent request: the second break is on a fresh connection, which
    the browser does not resend itself, so the page's resend (assets/app.js) must; the plots
    follow. The first worker is frozen (SIGSTOP) before the slider moves and the second is
    killed on its first accepted connection, so neither can answer before it dies."""
    view = BY_KEY["single-neuron"]
    with servers.gunicorn(workers=1, threads=2, log=tmp_path / "log") as (url, master):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        try:
            page.goto(f"{url}{view.path}")
            wait_for_graphs(page, view)
            before = signature(page, view)
            (first,) = servers.worker_pids(master.pid, expected=1)
            os.kill(first, signal.SIGSTOP)  # the slider's request waits on it
            move(page, view, view.spec.by_name["delta"])
            page.wait_for_timeout(500)
            os.kill(first, signal.SIGKILL)
            second = faults.replacement_worker(master.pid, first)
            faults.kill_on_first_connection(second)
            wait_for_change(page, view, before, "the worker died twice")
            third = servers.worker_pids(master.pid, expected=1)
            assert len(third) == 1 and not third & {first, second}
            assert query(page)["delta"] != "0"
        finally:
            context.close()


def _spend_tokens(url: str, client: str, stop: threading.Event) -> None:
    """Requests in the name of the page ``client`` (its id, nothing else a callback needs)
    until ``stop``: its rate spent, whatever the machine's load, its own requests are refused."""
    import requests

    body = {"state": [{"id": "x-page", "property": "data", "value": {"client": client}}]}
    with requests.Session() as session:
        while not stop.is_set():
            session.post(url + "/_dash-update-component", json=body, timeout=10)
            stop.wait(0.05)


def test_a_page_that_outruns_its_rate_resends_after_the_wait_it_is_told(browser, tmp_path):
    """A server that admits one callback request a second per page: while the page's rate is
    spent (by requests in its name), its slider steps are refused with 429; the page resends
    them after the Retry-After it names (assets/app.js): the plots change and the last move's
    answer comes (the link, written from the answers, shows the slider's value)."""
    view = BY_KEY["single-neuron"]
    env = {"REQUESTS_PER_SECOND": "1", "LOG_LEVEL": "warning"}
    with servers.gunicorn(env, workers=1, threads=4, log=tmp_path / "log") as (url, _):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        refused, clients, pending = [], [], []
        page.on("response", lambda r: refused.append(r.url) if r.status == 429 else None)
        ours = "_dash-update-component"
        page.on("request", lambda r: pending.append(r) if ours in r.url else None)
        for finished in ("requestfinished", "requestfailed"):
            page.on(finished, lambda r: pending.remove(r) if r in pending else None)
        page.on(
            "request",
            lambda r: clients.append(page_client(r.post_data)) if r.method == "POST" else None,
        )
        stop = threading.Event()
        try:
            page.goto(f"{url}{view.path}")
            wait_for_graphs(page, view)
            (client,) = {c for c in clients if c}
            spender = threading.Thread(target=_spend_tokens, args=(url, client, stop))
            spender.start()
            page.wait_for_timeout(1000)
            before = signature(page, view)
            # a step that reaches the server just as the rate grants a token, before the
            # spender takes it, is admitted (a window of ~60 ms a second): step again until one
            # is refused; an odd number of steps (each goes back towards the middle), so that
            # the last one leaves the plots changed
            moves, deadline = 0, time.monotonic() + 30
            while not refused and time.monotonic() < deadline:
                move(page, view, view.spec.by_name["delta"])
                moves += 1
                waited = time.monotonic() + 2
                while not refused and time.monotonic() < min(waited, deadline):
                    page.wait_for_timeout(50)
            if moves % 2 == 0:
                move(page, view, view.spec.by_name["delta"])
            stop.set()
            spender.join(15)
            assert refused, "no request of the page was refused"
            wait_for_change(page, view, before, "the resent request")
            quiet_since = time.monotonic()  # every resend answered: nothing in flight for 2 s
            while time.monotonic() - quiet_since < 2 and time.monotonic() < deadline + 30:
                page.wait_for_timeout(100)
                if pending:
                    quiet_since = time.monotonic()
            # the last answer came: the link (written from the answers) shows the slider's value
            slider = page.locator(f"#{view.key}-delta [role=slider]")
            assert float(query(page)["delta"]) == float(slider.get_attribute("aria-valuenow"))
        finally:
            stop.set()
            context.close()


def page_client(post_data: str | None) -> str | None:
    """The page id a callback request carries (app/fair.py), if any."""
    from app.fair import page_of

    try:
        page = page_of(json.loads(post_data or ""))
    except ValueError:
        return None
    return page.get("client") if isinstance(page, dict) else None


# -- background jobs, slow clients, a greedy client (the Procfile's processes, Redis, nginx) ---


def _need_redis() -> None:
    if servers.redis_binary() is None:
        require("redis", "redis-server is not installed (Debian package redis-server)")


@pytest.mark.slow
def test_the_worker_survives_a_redis_restart_while_it_holds_jobs(browser, tmp_path):
    """Redis stops and starts again, empty, while the one-process worker runs a map and two
    more wait: the worker lives on; every page ends with its map or says what happened with a
    Retry, and Retry brings the map."""
    from app.core.jobs import STORE_DOWN, UNKNOWN, UNREACHABLE_GRACE

    _need_redis()
    facts = faults.redis_restarted_with_reserved_jobs(browser, tmp_path)
    states = facts.pop("states")
    print(f"\nRedis restarted with jobs: {facts}")
    assert facts["worker alive"]
    expected = ["map", UNKNOWN]
    if facts["Redis away (s)"] >= UNREACHABLE_GRACE:
        # (Redis stays away until the worker has noticed: on a busy machine that is longer
        # than a page waits before it says the job store is unavailable — which is then true)
        expected.append(STORE_DOWN)
    assert all(ending in expected for ending in facts["endings"]), facts
    assert facts["after Retry"] == ["map"] * 3, states
    assert facts["health"]["status"] == "ok" and facts["health"]["jobs"]["workers"] >= 1


@pytest.mark.slow
@pytest.mark.alone
def test_a_killed_pool_process_s_job_is_taken_up_again(browser, tmp_path):
    """The new pool process must take the job up before the page calls it lost (LOST_AFTER,
    20 s without a heartbeat): run alone, as a deadline measured on a quiet machine (in CI, with
    the other test process holding a core for a 13-minute budget test, the job was declared lost
    at 20 s, not taken up again)."""
    _need_redis()
    facts = faults.celery_child_killed(browser, tmp_path)
    print(f"\npool process killed: {facts}")
    assert facts["ending"] == "map" and facts["tries"] == 2 and facts["worker alive"]


@pytest.mark.slow
def test_a_killed_worker_s_job_ends_on_the_page_with_a_retry(browser, tmp_path):
    _need_redis()
    facts = faults.celery_worker_killed(browser, tmp_path)
    print(f"\nworker killed: {facts}")
    assert facts["is the lost message"], facts["ending"]
    assert facts["health without a worker"]["status"] == "degraded"
    assert facts["after a new worker and Retry"] == "map"
    assert facts["health after"]["status"] == "ok"


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["read-only", "full"])
def test_a_failing_job_folder_is_a_message_and_a_retry_and_leaves_no_empty_files(
    browser, tmp_path, fault
):
    if fault == "full" and os.geteuid() != 0:
        pytest.skip("a small disk of its own needs root (tmpfs)")
    scenario = faults.jobs_folder_read_only if fault == "read-only" else faults.jobs_folder_full
    facts = scenario(browser, tmp_path)
    print(f"\njob folder {fault}: {facts}")
    assert facts["is the store message"] and facts["after Retry"] == "map"
    assert not facts["empty files left"]


@pytest.mark.slow
def test_fifty_slow_clients_in_front_of_the_proxy_leave_other_students_served():
    """50 clients trickle their requests' headers into the shipped nginx (gunicorn behind it
    has four threads): the students' requests are all answered, each while the slow clients
    hold their connections."""
    if not (shutil.which("nginx") or os.path.exists("/usr/sbin/nginx")):
        require("nginx", "nginx is not installed (Debian package nginx)")
    facts = faults.slow_clients(50)
    outcomes = facts.pop("outcomes")
    print(f"\n50 slow clients: {facts}")
    assert facts["with slow clients"]["requests"] > 20 and not any(o.error for o in outcomes)
    assert facts["slow connections open (least, most)"][0] >= 40  # (a few reconnect)


@pytest.mark.slow
@pytest.mark.alone
def test_a_greedy_client_gets_one_map_at_a_time_and_another_student_keeps_pace(tmp_path):
    """One client floods the server with maps and costly states on eight connections while
    another student drags sliders: the greedy client has one job at a time and its extra
    requests are refused at once; the student's requests are all answered, none refused, the
    student's p95 stays within twice its quiet value (quiet and flooded phases alternate, so
    that the machine's own drift falls on both), and the queue stays within its bound."""
    facts = faults.flood(rounds=4, seconds=8.0, jobs_dir=tmp_path / "jobs")
    outcomes = facts.pop("outcomes")
    print(f"\nflood: {facts}")
    assert not any(o.error or o.refused for o in outcomes)
    quiet, flooded = facts["quiet"]["p95 ms"], facts["during the flood"]["p95 ms"]
    assert flooded <= 2 * quiet, f"the student's p95: {flooded} ms flooded, {quiet} ms quiet"
    assert facts["greedy refused at once (429)"] > facts["greedy requests"] / 2
    assert facts["greedy 5xx or no answer"] == 0
    assert facts["greedy maps refused (one at a time)"] >= 1
    assert facts["most jobs queued or running at once"] <= 1
