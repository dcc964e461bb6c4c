"""Serving concerns in-process: security headers, the health check, path prefixes, request
size limits and debug mode. (The same against the real gunicorn server: tests/e2e.)"""

import io
import json

import pytest

from app import create_app
from app.config import Settings
from app.embed.lessons import LESSONS
from app.factory import PAGES
from app.views import VIEWS
from tests.dash_client import payload


def _route(client, dependencies, pathname: str, search: str = "", prefix: str = "/"):
    router = next(d for d in dependencies if d["output"] == "page.children")
    body = payload(router, {"url.pathname": pathname, "url.search": search})
    response = client.post(f"{prefix}_dash-update-component", json=body)
    assert response.status_code == 200
    return json.dumps(response.get_json())


def _hrefs(rendered: str) -> set[str]:
    found, start = set(), 0
    while (start := rendered.find('"href": "', start)) >= 0:
        start += len('"href": "')
        found.add(rendered[start : rendered.index('"', start)])
    return found


SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
}


def test_every_kind_of_answer_carries_the_security_headers(client, dependencies):
    answers = {
        "page": client.get("/single-neuron"),
        "layout": client.get("/_dash-layout"),
        "callback": client.post(
            "/_dash-update-component", json=payload(dependencies[0], fill=None)
        ),
        "asset": client.get("/assets/style.css"),
        "health": client.get("/healthz"),
        "refused": client.post("/_dash-update-component", data="{", content_type="text/plain"),
        "missing": client.get("/_dash-component-suites/nothing/here.js"),
    }
    for name, response in answers.items():
        for header, value in SECURITY_HEADERS.items():
            assert response.headers.get(header) == value, (name, header)
        policy = response.headers.get("Content-Security-Policy", "")
        assert "object-src 'none'" in policy, name
        assert "frame-ancestors" not in policy, name  # embedding allowed by default
        assert "X-Frame-Options" not in response.headers, name


def test_frame_ancestors_restrict_embedding():
    app = create_app(
        Settings(cache_type="NullCache", frame_ancestors="'self' https://canvas.example.edu")
    )
    response = app.server.test_client().get("/")
    policy = response.headers["Content-Security-Policy"]
    assert "frame-ancestors 'self' https://canvas.example.edu" in policy


def test_health_check_is_cheap_json(client):
    response = client.get("/healthz")
    assert response.status_code == 200 and response.is_json
    assert response.get_json() == {
        "status": "ok",
        "cache": "SimpleCache",
        "cache_available": True,
    }
    assert client.head("/healthz").status_code == 200


def test_oversized_request_bodies_are_refused_before_parsing(client):
    body = b'{"output": "' + b"x" * (2 << 20) + b'"}'
    response = client.post("/_dash-update-component", data=body, content_type="application/json")
    assert response.status_code == 413


def test_an_oversized_body_of_unstated_length_is_refused(client):
    """A body sent in chunks states no length: it is read up to the bound, then refused."""
    body = b'{"output": "' + b"x" * (2 << 20) + b'"}'
    response = client.post(
        "/_dash-update-component",
        input_stream=io.BytesIO(body),
        headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
    )
    assert response.status_code == 413


def test_deeply_nested_json_is_refused_not_crashed(client):
    body = "[" * 200_000 + "]" * 200_000
    response = client.post("/_dash-update-component", data=body, content_type="application/json")
    assert 400 <= response.status_code < 500


def _dash_config(page: str) -> dict:
    return json.loads(page.split('id="_dash-config" type="application/json">')[1].split("<")[0])


def test_debug_tools_are_off(client):
    config = _dash_config(client.get("/").get_data(as_text=True))
    assert config["ui"] is False and config["props_check"] is False
    assert "hot_reload" not in config
    assert client.get("/_reload-hash").get_json()["reloadHash"] is None  # hot reload off


@pytest.fixture(scope="module")
def prefixed():
    app = create_app(Settings(cache_type="SimpleCache", url_base_pathname="/course/lazy-rich/"))
    client = app.server.test_client()
    return client, client.get("/course/lazy-rich/_dash-dependencies").get_json()


def test_a_path_prefix_serves_every_page_under_it(prefixed):
    client, dependencies = prefixed
    assert client.get("/course/lazy-rich/").status_code == 200
    assert client.get("/course/lazy-rich/single-neuron?delta=2").status_code == 200
    assert client.get("/course/lazy-rich/healthz").status_code == 200
    page = client.get("/course/lazy-rich/").get_data(as_text=True)
    assert _dash_config(page)["requests_pathname_prefix"] == "/course/lazy-rich/"
    assert "/course/lazy-rich/_dash-component-suites/" in page
    assert client.get("/single-neuron").status_code == 404

    home = _route(client, dependencies, "/course/lazy-rich/", prefix="/course/lazy-rich/")
    links = _hrefs(home)
    paths = [v.path for v in VIEWS] + [p.path for p in PAGES] + [s.path() for s in LESSONS]
    assert links == {"/course/lazy-rich/"} | {f"/course/lazy-rich{path}" for path in paths}
    for view in VIEWS:
        rendered = _route(
            client, dependencies, f"/course/lazy-rich{view.path}", prefix="/course/lazy-rich/"
        )
        assert f'"id": "{view.key}-link"' in rendered, view.key
        assert "Page not found" not in rendered


def test_paths_outside_the_prefix_are_not_found(prefixed):
    client, dependencies = prefixed
    for outside in ("/single-neuron", "/course/single-neuron", "/course/lazy-richer/x"):
        rendered = _route(client, dependencies, outside, prefix="/course/lazy-rich/")
        assert "Page not found" in rendered, outside


def test_a_prefix_stripped_by_a_proxy_keeps_routes_at_the_root():
    app = create_app(Settings(cache_type="NullCache", requests_pathname_prefix="/demo/"))
    client = app.server.test_client()
    page = client.get("/")
    assert page.status_code == 200  # the proxy forwards /demo/x as /x
    assert "/demo/_dash-component-suites/" in page.get_data(as_text=True)
    dependencies = client.get("/_dash-dependencies").get_json()
    rendered = _route(client, dependencies, "/demo/finite-width")  # the browser sees /demo/…
    assert '"id": "finite-width-link"' in rendered
