"""The deployed demo, end to end: the Procfile's gunicorn server with its production settings,
thousands of hostile requests, a Redis cache shared by the workers, a path prefix and iframe
embedding in a real browser."""

from __future__ import annotations

import json
import random
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from app.views import BY_KEY, VIEWS
from tests import servers
from tests.dash_client import payload, server_callbacks, view_request
from tests.e2e.test_browser import TIMEOUT, light_controls, wait_for_graphs
from tests.hostile import NASTIES

pytestmark = pytest.mark.e2e


def _request(url: str, body: bytes | None = None, timeout: float = 30) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(
        url, data=body, headers={"Content-Type": "application/json"} if body else {}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_production_server_settings(tmp_path):
    """Workers and threads from the environment, the health check, the security headers, and
    no debug tooling even when DASH_DEBUG asks for it."""
    log = tmp_path / "gunicorn.log"
    env = {"DASH_DEBUG": "true", "FRAME_ANCESTORS": "https://canvas.example.edu"}
    with servers.gunicorn(env, workers=3, threads=2, log=log) as (url, process):
        status, headers, body = _request(url + "/healthz")
        assert status == 200 and json.loads(body)["status"] == "ok"
        assert len(servers.worker_pids(process.pid, expected=3)) == 3
        status, headers, page = _request(url + "/single-neuron")
        assert status == 200
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "strict-origin-when-cross-origin"
        policy = headers["Content-Security-Policy"]
        assert "frame-ancestors 'self' https://canvas.example.edu" in policy  # (its lessons)
        config = page.decode().split('id="_dash-config" type="application/json">')[1]
        config = json.loads(config.split("<")[0])
        assert config["ui"] is False and "hot_reload" not in config
    assert "Traceback" not in log.read_text()


@pytest.mark.slow
def test_a_worker_s_first_requests_at_once_each_get_the_page_with_its_scripts(tmp_path):
    """Dash sets its server up on a worker's first request, and marks it done before doing it:
    a second request arriving meanwhile (a course page loading a frame and the embed script,
    students opening the demo at once) got a page without its scripts and styles — a blank page
    ("lazy_rich was not found"). Every page of each burst lists them. (Before, about every
    other fresh server answered one to three pages of its burst without them: three servers.)"""
    for attempt in range(3):
        log = tmp_path / f"gunicorn-{attempt}.log"
        with servers.gunicorn(workers=2, threads=4, log=log) as (url, process):
            servers.worker_pids(process.pid, expected=2)
            with ThreadPoolExecutor(32) as pool:
                pages = list(pool.map(lambda _: _request(url + "/single-neuron")[2], range(64)))
        missing = [page for page in pages if b"/assets/app.js" not in page]
        assert not missing, f"{len(missing)} of {len(pages)} pages came without their scripts"


def test_thousands_of_hostile_requests_leave_the_server_serving(tmp_path):
    log = tmp_path / "gunicorn.log"
    with servers.gunicorn(workers=2, threads=4, log=log) as (url, process):
        workers_before = servers.worker_pids(process.pid, expected=2)
        assert len(workers_before) == 2
        dependencies = json.loads(_request(url + "/_dash-dependencies")[2])
        callbacks = server_callbacks(dependencies)
        rng = random.Random(1)
        bodies: list[bytes] = []
        for nasty in NASTIES:  # every nasty in every input of every callback, one at a time
            for dependency in callbacks:
                for entry in dependency["inputs"] + dependency.get("state", []):
                    key = f"{entry['id']}.{entry['property']}"
                    bodies.append(json.dumps(payload(dependency, {key: nasty})).encode())
        rng.shuffle(bodies)
        bodies = bodies[:2500]
        junk = [b"", b"{", b"null", b"[]", b'"x"', b"\xff\xfe", b"[" * 50_000, b"{}" * 1000]
        bodies += junk * 20
        with ThreadPoolExecutor(16) as pool:
            statuses = list(
                pool.map(lambda body: _request(url + "/_dash-update-component", body)[0], bodies)
            )
        assert len(statuses) > 2500
        assert max(statuses) < 500, sorted(set(statuses))
        # still serving, correctly, with the same workers (none hung, none killed)
        assert _request(url + "/healthz")[0] == 200
        view = BY_KEY["single-neuron"]
        controls = view.spec.with_overrides({"delta": 1.0})
        body = json.dumps(view_request(dependencies, view, controls)).encode()
        status, _, answer = _request(url + "/_dash-update-component", body)
        assert status == 200 and json.loads(answer)["response"][f"{view.key}-link"]["data"]
        assert servers.worker_pids(process.pid) == workers_before
        text = log.read_text()  # before shutting down, when every worker says it exits
        assert "WORKER TIMEOUT" not in text and "Worker exiting" not in text


def test_workers_share_results_through_redis(redis_url, tmp_path):
    import redis

    env = {"CACHE_REDIS_URL": redis_url, "CACHE_KEY_PREFIX": "e2e-shared:"}
    with servers.gunicorn(env, workers=2, threads=2, log=tmp_path / "log") as (url, _):
        health = json.loads(_request(url + "/healthz")[2])
        assert health["cache"] == "RedisCache" and health["cache_available"]
        dependencies = json.loads(_request(url + "/_dash-dependencies")[2])
        answers = set()
        hits_before = redis.Redis.from_url(redis_url).info("stats")["keyspace_hits"]
        for view in VIEWS:
            # (a map that would be a background job is asked for at a size answered at once)
            body = json.dumps(view_request(dependencies, view, light_controls(view)))
            for _ in range(6):  # spread over both workers; all after the first are hits
                status, _, raw = _request(url + "/_dash-update-component", body.encode())
                assert status == 200
                answer = json.loads(raw)["response"]
                answers.add((view.key, json.dumps(answer, sort_keys=True)))
        assert len(answers) == len(VIEWS)  # every worker answered each view identically
        hits = redis.Redis.from_url(redis_url).info("stats")["keyspace_hits"] - hits_before
        assert hits >= 5 * len(VIEWS)
        keys = redis.Redis.from_url(redis_url).keys("e2e-shared:*")
        # (beside the results: the job store's keys, where each worker's job dispatcher says
        # it is alive from its start, gunicorn.conf.py)
        results = [key for key in keys if not key.startswith(b"e2e-shared:lazy-rich:jobs:")]
        assert len(results) == len(VIEWS), keys


@pytest.fixture(scope="module")
def prefixed_server(tmp_path_factory):
    env = {"DASH_URL_BASE_PATHNAME": "/course/lazy-rich/"}
    log = tmp_path_factory.mktemp("prefixed") / "gunicorn.log"
    with servers.gunicorn(env, log=log, ready_path="/course/lazy-rich/healthz") as (url, _):
        yield url + "/course/lazy-rich"


def test_the_app_works_under_a_path_prefix(page, prefixed_server):
    view = BY_KEY["finite-width"]
    page.goto(f"{prefixed_server}{view.path}?embed=0")
    wait_for_graphs(page, view)
    other = BY_KEY["lambda-balanced"]
    page.locator(f".nav-link[href='/course/lazy-rich{other.path}']").click()
    wait_for_graphs(page, other)
    assert page.url.startswith(f"{prefixed_server}{other.path}")
    page.locator(".brand").click()
    page.wait_for_selector(".view-card", timeout=TIMEOUT)
    assert page.url.rstrip("/") == prefixed_server


class _CoursePage(BaseHTTPRequestHandler):
    """A course page on another origin that embeds the app."""

    html = b""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(self.html)

    def log_message(self, *args):
        pass


@pytest.fixture
def course_page():
    """Serve a page at http://127.0.0.1:<port>/ whose iframe shows a given app URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _CoursePage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def show(app_url: str) -> str:
        _CoursePage.html = (
            "<!doctype html><title>Course</title><h1>Week 3</h1>"
            f'<iframe src="{app_url}" width="1100" height="900" '
            'title="Lazy vs rich learning" style="border:0"></iframe>'
        ).encode()
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield show
    server.shutdown()


def _embedded_plots(browser, parent_url: str, wait_ms: int) -> tuple[int, str]:
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    try:
        tab = context.new_page()
        tab.goto(parent_url)
        frame_element = tab.wait_for_selector("iframe")
        frame = frame_element.content_frame()
        try:
            frame.wait_for_selector(".js-plotly-plot", timeout=wait_ms)
        except Exception:
            pass
        frame = frame_element.content_frame()
        return frame.locator(".js-plotly-plot").count(), frame.url
    finally:
        context.close()


def test_embedding_is_allowed_by_default_and_restricted_by_frame_ancestors(
    browser, course_page, tmp_path
):
    view = BY_KEY["single-neuron"]
    preset = view.presets[0].name
    with servers.gunicorn(log=tmp_path / "open.log") as (url, _):
        app_url = f"{url}{view.path}?embed=1&preset={preset}"
        plots, _ = _embedded_plots(browser, course_page(app_url), TIMEOUT)
        assert plots == len(view.panels)

    parent = course_page("about:blank")
    parent_origin = parent.rstrip("/")
    allowed = {"FRAME_ANCESTORS": parent_origin}
    with servers.gunicorn(allowed, log=tmp_path / "allowed.log") as (url, _):
        plots, _ = _embedded_plots(browser, course_page(f"{url}{view.path}?embed=1"), TIMEOUT)
        assert plots == len(view.panels)

    elsewhere = {"FRAME_ANCESTORS": "https://canvas.example.edu"}
    with servers.gunicorn(elsewhere, log=tmp_path / "blocked.log") as (url, _):
        plots, frame_url = _embedded_plots(browser, course_page(f"{url}{view.path}?embed=1"), 4000)
        assert plots == 0  # the browser refused to show the app inside this page
        assert not frame_url.startswith(url)


def test_the_pages_work_under_a_policy_that_runs_only_the_app_s_scripts(browser, tmp_path):
    """The Content-Security-Policy names the scripts that may run ('self' and the hashes of
    Dash's inline ones, no 'unsafe-inline' or 'unsafe-eval'); a view with a background job's
    parts and the paper-figures page draw under it with no violation, and a script written
    into the page does not run."""
    view = BY_KEY["single-neuron"]
    with servers.gunicorn(log=tmp_path / "gunicorn.log") as (url, _):
        _, headers, _ = _request(url + view.path)
        policy = dict(
            part.strip().split(" ", 1) for part in headers["Content-Security-Policy"].split(";")
        )
        sources = policy["script-src"].split()
        assert sources[0] == "'self'" and all(s.startswith("'sha256-") for s in sources[1:])
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        errors = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        try:
            page.goto(f"{url}{view.path}")
            wait_for_graphs(page, view)
            page.goto(f"{url}{BY_KEY['networks-map'].path}")
            page.wait_for_selector("#networks-map-retry", state="attached", timeout=TIMEOUT)
            page.goto(f"{url}/paper-figures")
            page.wait_for_selector(".paper-figures .js-plotly-plot", timeout=TIMEOUT)
            page.evaluate(
                "() => { const s = document.createElement('script');"
                " s.textContent = 'window.injected = 1'; document.body.appendChild(s); }"
            )
            assert page.evaluate("() => window.injected") is None
        finally:
            context.close()
    violations = [e for e in errors if "Content Security Policy" in e]
    assert len(violations) == 1 and "inline script" in violations[0], errors
