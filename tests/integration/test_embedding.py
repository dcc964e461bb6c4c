"""Embeds in-process (docs/embedding.md): the embed flags of a link and the page they make, the
flags carried by every later link, the course page's script, the message origins, the
frame-ancestors the app's own pages need, and the lessons' links and buttons. (The same in a
browser, across origins: tests/e2e/test_embedding.py.)"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urlsplit

import pytest

from app import create_app
from app.config import Settings
from app.core.embedding import FLAGS, Embedding, carried
from app.embed import frame_ancestors, lessons, message_origins
from app.views import BY_KEY, VIEWS
from tests.integration.calls import answer

SINGLE = BY_KEY["single-neuron"]


def _ids(component, hidden: bool = False) -> dict[str, bool]:
    """Every id in a layout → whether it sits inside a hidden element."""
    found = {}
    hidden = hidden or bool(getattr(component, "hidden", False))
    ident = getattr(component, "id", None)
    if isinstance(ident, str):
        found[ident] = hidden
    children = getattr(component, "children", None)
    for child in children if isinstance(children, list | tuple) else [children]:
        if hasattr(child, "to_plotly_json"):
            found |= _ids(child, hidden)
    return found


def _find(component, predicate) -> list:
    found = [component] if predicate(component) else []
    children = getattr(component, "children", None)
    for child in children if isinstance(children, list | tuple) else [children]:
        if hasattr(child, "to_plotly_json"):
            found += _find(child, predicate)
    return found


def test_no_control_of_any_view_takes_the_name_of_an_embed_flag():
    for view in VIEWS:
        assert not set(view.spec.names) & {*FLAGS, "embed", "frame", "preset"}, view.key


def test_the_flags_choose_controls_and_plots_and_travel_in_every_later_link(cache):
    search = "?embed=1&controls=delta,tau&plots=kernel&readonly=1&layout=compact&theme=dark"
    state = SINGLE.parse_link(search)
    assert not state.messages
    assert state.embedding == Embedding(("delta", "tau"), ("kernel",), True, "compact", "dark")
    # the link the page writes after an answer carries them again, in a fixed order
    page = {"embed": True, "messages": [], "embedding": state.embedding.to_page()}
    link = answer(SINGLE, cache, state.controls, page=page).link
    pairs = parse_qsl(link.lstrip("?"))
    assert pairs[-6:] == [
        ("embed", "1"),
        ("controls", "delta,tau"),
        ("plots", "kernel"),
        ("readonly", "1"),
        ("layout", "compact"),
        ("theme", "dark"),
    ]
    assert "controls=delta,tau" in link  # written as typed, not %2C
    again = SINGLE.parse_link(link)
    assert again.embedding == state.embedding and again.controls == state.controls


def test_a_click_to_another_view_keeps_the_flags_that_fit_it():
    the_map = BY_KEY["single-neuron-map"]
    flags = {"controls": "t,spread", "plots": "kernel", "theme": "dark"}
    page = {"embed": True, "embedding": flags}
    point = {"x": 0.0, "y": 1.0}
    raw = the_map.spec.to_controls(the_map.spec.defaults())
    href = the_map.open_target("kernel", point, raw, page)
    query = dict(parse_qsl(urlsplit(href).query))
    assert urlsplit(href).path == SINGLE.path
    # spread is a control of both views, t only of the map's; the plot "kernel" is in both
    assert query["embed"] == "1" and query["controls"] == "spread"
    assert query["plots"] == "kernel" and query["theme"] == "dark"


@pytest.mark.parametrize(
    "page",
    [
        None,
        "x",
        {"embedding": "controls=delta"},
        {"embed": True, "embedding": {"controls": ["delta"], "theme": 5}},
        {"embed": True, "embedding": {"controls": "x" * 100_000, "plots": "%00,<script>"}},
        {"embed": True, "embedding": {"layout": "sideways", "nonsense": "1"}},
    ],
)
def test_a_hand_made_page_store_never_breaks_the_link(cache, page):
    link = answer(SINGLE, cache, page=page).link
    assert link.startswith("?mode=") and "script" not in link and "nonsense" not in link
    for name, value in carried(page, SINGLE.spec.names, ["kernel"]):
        assert name in FLAGS and len(value) < 1000
    assert not SINGLE.parse_link(link).messages


@pytest.mark.parametrize(
    ("search", "said"),
    [
        ("embed=1&controls=delta,nope", "no control named 'nope'"),
        ("embed=1&controls=nope", "chose none of this view's controls"),
        ("embed=1&plots=kernel,surfaces", "no plot named 'surfaces'"),
        ("embed=1&theme=purple", "theme='purple' is not one of auto, light, dark"),
        ("embed=1&layout=sideways", "layout='sideways'"),
        ("embed=1&readonly=maybe", "readonly='maybe' is neither 1 nor 0"),
        ("controls=delta&theme=dark", "only an embedded view (embed=1)"),
    ],
)
def test_a_bad_flag_is_left_out_and_said_so(search, said):
    state = SINGLE.parse_link("?" + search)
    assert any(said in message for message in state.messages), state.messages
    page = SINGLE.layout("?" + search)  # and the page is made
    assert said in json.dumps(page.to_plotly_json(), default=str, ensure_ascii=False)


@pytest.mark.parametrize("view", VIEWS, ids=[view.key for view in VIEWS])
def test_every_control_and_plot_stays_on_the_page_of_any_embed(view):
    """The callbacks read every control and write every plot: an embed that shows one of each
    keeps the others on the page, out of sight (or, ``readonly=1``, shown and disabled)."""
    first, graph = view.spec.names[0], view.panels[-1].graph
    for layout in ("full", "compact", "beside"):
        search = f"?embed=1&controls={first}&plots={graph}&layout={layout}"
        ids = _ids(view.layout(search))
        assert not ids[f"{view.key}-{first}"]
        assert all(ids[f"{view.key}-{name}"] for name in view.spec.names[1:])
        assert not ids[f"{view.key}-graph-{graph}"]
        assert all(ids[f"{view.key}-graph-{p.graph}"] for p in view.panels[:-1])
        assert ids[f"{view.key}-preset"]  # on the page, hidden
    readonly = _ids(view.layout(f"?embed=1&controls={first}&readonly=1"))
    assert not any(readonly[f"{view.key}-{name}"] for name in view.spec.names)


def test_read_only_controls_cannot_be_moved_by_the_reader():
    page = SINGLE.layout("?embed=1&controls=delta&readonly=1&layout=compact")
    tau = _find(page, lambda c: getattr(c, "id", None) == "single-neuron-tau")[0]
    box = _find(page, lambda c: getattr(c, "id", None) == "single-neuron-tau-box")[0]
    sign = _find(page, lambda c: getattr(c, "id", None) == "single-neuron-sign")[0]
    delta = _find(page, lambda c: getattr(c, "id", None) == "single-neuron-delta")[0]
    assert tau.disabled and box.readOnly and all(o["disabled"] for o in sign.options)
    assert not delta.disabled


def test_a_compact_embed_has_no_sidebar_and_names_its_theme():
    page = SINGLE.layout("?embed=1&controls=delta&layout=compact&theme=dark")
    classes = [getattr(c, "className", "") or "" for c in _find(page, lambda c: True)]
    assert "sidebar" not in classes and "embed-controls" in classes
    assert page.to_plotly_json()["props"]["data-theme"] == "dark"
    assert "embedded layout-compact" in page.className
    full = SINGLE.layout("?embed=1")
    assert "sidebar" in [getattr(c, "className", "") for c in _find(full, lambda c: True)]
    assert "data-theme" not in full.to_plotly_json()["props"]


def test_the_builder_is_on_every_view_and_not_in_embeds():
    for view in VIEWS:
        ids = _ids(view.layout(""))
        assert f"embed-builder-{view.key}" in ids, view.key
        assert f"embed-builder-{view.key}" not in _ids(view.layout("?embed=1"))


# -- serving ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def course_app():
    return create_app(
        Settings(cache_type="NullCache", frame_ancestors="https://canvas.example.edu")
    ).server.test_client()


def test_the_course_page_script_is_a_route_of_its_own_not_an_asset(client):
    script = client.get("/embed.js")
    assert script.status_code == 200 and script.mimetype == "text/javascript"
    assert script.headers["Access-Control-Allow-Origin"] == "*"
    assert b"lazy-rich:height" in script.data
    # Dash loads every script of assets/ into every page: this one is not there
    index = client.get("/single-neuron").data.decode()
    assert "embed.js" not in index


@pytest.mark.parametrize(
    ("configured", "ancestors", "origins"),
    [
        (None, None, "'self'"),
        ("https://canvas.example.edu", "'self' https://canvas.example.edu", None),
        ("'self' https://a.edu https://*.b.edu", "'self' https://a.edu https://*.b.edu", None),
        ("'none'", "'none'", "'self'"),
    ],
)
def test_frame_ancestors_name_the_app_itself_and_messages_follow_them(
    configured, ancestors, origins
):
    """The lessons and the builder's preview frame the app's own views; the origins whose
    messages an embed reads are those that may embed it (only the app's own when unset)."""
    assert frame_ancestors(configured) == ancestors
    assert message_origins(configured) == (origins or ancestors)


def test_pages_name_the_origins_whose_messages_they_read(client, course_app):
    meta = re.compile(r'<meta name="lazy-rich-message-origins" content="([^"]*)">')
    assert meta.findall(client.get("/single-neuron").data.decode()) == ["'self'"]
    page = course_app.get("/single-neuron?embed=1")
    assert meta.findall(page.data.decode()) == ["'self' https://canvas.example.edu"]
    policy = page.headers["Content-Security-Policy"]
    assert "frame-ancestors 'self' https://canvas.example.edu" in policy


# -- lessons ----------------------------------------------------------------------------------


class _Lesson(HTMLParser):
    """The figures (iframe id → src) and the elements that drive them."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: dict[str, str] = {}
        self.drivers: list[dict[str, str]] = []
        self.links: list[str] = []
        self.scripts: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = {k: v or "" for k, v in attrs}
        if tag == "iframe":
            assert attributes.get("title"), "every figure has a title for screen readers"
            self.frames[attributes["id"]] = attributes["src"]
        if "data-lazy-rich-frame" in attributes:
            self.drivers.append(attributes)
        if tag == "a":
            self.links.append(attributes["href"])
        if tag == "script":
            self.scripts.append(attributes.get("src", ""))


def parsed(lesson: lessons.Lesson, base: str = "") -> _Lesson:
    reader = _Lesson()
    reader.feed(lessons.page(lesson.slug, base))
    return reader


def view_of(src: str):
    parts = urlsplit(src)
    return next(v for v in VIEWS if v.path == parts.path), "?" + parts.query


@pytest.mark.parametrize("lesson", lessons.LESSONS, ids=lambda lesson: lesson.slug)
def test_every_figure_and_button_of_a_lesson_is_one_the_views_take(lesson):
    page = parsed(lesson)
    assert page.scripts == ["/embed.js"] and page.frames
    for ident, src in page.frames.items():
        view, search = view_of(src)
        state = view.parse_link(search)
        assert state.embed and not state.messages, (ident, state.messages)
    for driver in page.drivers:
        assert driver["data-lazy-rich-frame"] in page.frames, driver
        view, _ = view_of(page.frames[driver["data-lazy-rich-frame"]])
        if "data-lazy-rich-set" in driver:
            values = json.loads(driver["data-lazy-rich-set"])
            assert set(values) <= set(view.spec.names), values
            view.spec.with_overrides(values)  # raises for a value the control would change
        if "data-lazy-rich-show" in driver:
            assert driver["data-lazy-rich-show"] in view.spec.names
    for link in page.links:
        if link.startswith("/") and "?" in link:
            view, search = view_of(link)
            assert not view.parse_link(search).messages, link


@pytest.mark.parametrize("lesson", lessons.LESSONS, ids=lambda lesson: lesson.slug)
def test_a_lesson_is_served_and_downloaded_as_a_template(client, lesson):
    served = client.get(lesson.path())
    assert served.status_code == 200 and served.mimetype == "text/html"
    assert lessons.PLACEHOLDER.encode() not in served.data
    download = client.get(lesson.path() + "?download=1")
    assert download.headers["Content-Disposition"].startswith("attachment")
    assert b'src="http://localhost/embed.js"' in download.data


def test_an_unknown_lesson_is_a_page_that_says_so(client):
    missing = client.get("/lessons/<b>nope")
    assert missing.status_code == 404 and b"<b>nope" not in missing.data
    assert b"No such lesson" in missing.data


def test_the_start_page_links_every_lesson(client, dependencies):
    from tests.integration.test_deployment import _hrefs, _route

    hrefs = _hrefs(_route(client, dependencies, "/"))
    for lesson in lessons.LESSONS:
        assert lesson.path() in hrefs, lesson.slug
    listed = client.get("/lessons").data.decode()
    assert all(lesson.path() in listed for lesson in lessons.LESSONS)
