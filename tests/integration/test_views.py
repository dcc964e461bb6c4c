"""Every view, through the harness: defaults, presets, link round trips, hostile values,
downloads, the router, preset links and the figures' text alternatives."""

import dataclasses
import json
import math
import re
import tempfile
from pathlib import Path

import pytest
from dash import no_update

from app.cache import ResultCache
from app.core.downloads import to_csv, to_json
from app.core.jobs import MALFORMED, JobLimits, Jobs
from app.core.layout import view_page
from app.job_store import FolderJobStore
from app.views import BY_KEY, MAPS, VIEWS
from tests.dash_client import payload, server_callbacks
from tests.hostile import NASTIES

VIEW_IDS = [view.key for view in VIEWS]
#: every preset slug a link could carry: the README's, and every one an earlier release had
PUBLISHED_SLUGS = Path(__file__).with_name("published_slugs.txt")
PAGE = {"embed": False, "messages": []}


def _non_empty(figure):
    return bool(figure.get("data")) and all("type" in trace for trace in figure["data"])


#: a deployment that runs background jobs (the main callback only needs to know that it does)
RUNS_JOBS = Jobs(
    FolderJobStore(tempfile.mkdtemp(prefix="lazy-rich-test-jobs-")),
    runner=None,  # recorded, not run: what starts is the question here
    limits=JobLimits(queue=10**4, per_client=10**4),
)
GATE = {"seq": 1, "frame": 0, "drawn": None}


def _background(view, controls) -> bool:
    """Whether a request for ``controls`` would be a background job where the server runs them."""
    return view.heavy is not None and view.heavy(controls)


def _update(view, cache, controls, page=PAGE):
    """(figures, summary, messages, search, frames, last frame) of the main callback for a
    page's first request."""
    raw = view.spec.to_controls(controls)
    answer = view.update(cache, {"seq": 1, "frame": 0, "drawn": None}, raw, page)
    shown = {"values": raw, "frame": 0, "theme": "light"}
    expected = {"seq": 1, "values": raw, "theme": "light", "drawn": shown, "stale": []}
    assert answer.answered == expected
    assert answer.job is no_update and answer.status == ""
    return (
        list(answer.figures),
        answer.summary,
        answer.messages,
        answer.link,
        answer.frames,
        answer.last_frame,
    )


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_defaults_render_every_panel(view, cache):
    figures, _summary, messages, search, frames, last = _update(view, cache, view.spec.defaults())
    assert len(figures) == len(view.panels)
    assert all(_non_empty(f) for f in figures), [
        p.graph for p, f in zip(view.panels, figures, strict=True) if not _non_empty(f)
    ]
    assert messages == []  # the defaults need no correction
    if view.animated:
        assert frames and len(frames["t"]) == last + 1
        assert frames["order"] == [p.graph for p in view.panels]
        assert set(frames["cursor"]) | set(frames["lines"]) | set(frames["heatmaps"]) <= set(
            frames["order"]
        )
        json.dumps(frames, allow_nan=False)
    else:  # a map has no time to animate: no frames travel to the browser
        assert frames is None
    state = view.parse_link(search)
    assert state.controls == view.spec.defaults() and not state.messages


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_every_preset_renders_without_corrections(view, cache):
    assert len(view.presets) >= 2
    assert len({p.slug for p in view.presets}) == len(view.presets)
    for preset in view.presets:
        assert preset.caption and set(preset.values) <= set(view.spec.names), preset.slug
        assert view.spec.parse(preset.values)[1] == (), preset.slug
        if preset.panel is not None:
            assert preset.panel in {p.graph for p in view.panels}, preset.slug
        controls = view.spec.with_overrides(preset.values)
        if _background(view, controls):
            answer = view.update(cache, GATE, view.spec.to_controls(controls), PAGE, jobs=RUNS_JOBS)
            assert answer.job["values"] == view.spec.to_controls(controls), preset.slug
            continue  # drawn by its job (tests/e2e/test_jobs.py), or on the paper-figures page
        figures, _, messages, *_ = _update(view, cache, controls)
        assert all(_non_empty(f) for f in figures), preset.slug
        assert not any("could not be computed" in str(m) for m in messages), (preset.slug, messages)


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_the_link_round_trip_keeps_every_value_and_embed(view):
    controls = view.spec.with_overrides(view.presets[-1].values)
    state = view.parse_link(view.spec.encode(controls, embed=True))
    assert state.controls == controls and state.embed and state.messages == ()


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
@pytest.mark.parametrize("bad", NASTIES, ids=[repr(b)[:20] for b in NASTIES])
def test_hostile_control_values_give_messages_not_errors(view, bad, cache):
    for index, name in enumerate(view.spec.names):
        raw = view.spec.to_controls(view.spec.defaults())
        raw[index] = bad
        page = {"embed": bad, "messages": bad}
        answer = view.update(cache, {"drawn": bad}, raw, page, jobs=RUNS_JOBS, done=bad)
        json.dumps(answer.answered, allow_nan=False)  # the echo to the gate is strict JSON
        if not all(f is no_update for f in answer.figures):
            assert all(_non_empty(f) for f in answer.figures), name
        else:  # a background job's: a request that is not the page's starts none
            assert answer.job is no_update and MALFORMED in answer.texts, name
        assert not view.parse_link(answer.link).messages  # whatever came in, the link is valid


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_downloads_are_finite_and_parse(view, cache):
    controls = view.spec.defaults()
    tables = view.tables(controls, view.results(cache, controls).result)
    assert tables
    document = json.loads(to_json(controls, tables))
    assert document["parameters"] == dataclasses.asdict(controls)
    for table in document["trajectories"].values():
        assert len({len(column) for column in table.values()}) == 1
    lines = to_csv(controls, tables).splitlines()
    assert lines[0].startswith("# ") and lines[1].startswith("method,")
    assert all(math.isfinite(float(x)) for x in lines[2].split(",")[1:])


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_results_are_cached_and_timed_by_the_harness(view):
    cache = ResultCache.in_memory()  # its own: the first request computes, whatever ran before
    controls = view.spec.with_overrides(view.presets[0].values)
    first = view.results(cache, dataclasses.replace(controls))
    again = view.results(cache, controls)
    assert first.milliseconds > 0  # computed and timed
    assert again.milliseconds is None  # from the cache
    assert again.served == "from the result cache"  # for the log, not for the page
    assert dataclasses.replace(first, milliseconds=1.5).served == "computed in 1.5 ms"
    display = [f for f in view.spec.fields if not f.physics]
    if display:  # a display-only change reads the same entry
        field = display[0]
        other = field.choices[-1] if field.kind == "choice" else not field.default
        changed = dataclasses.replace(controls, **{field.name: other})
        assert view.results(cache, changed).milliseconds is None


def test_pages_and_unknown_paths(client):
    for view in VIEWS:
        assert client.get(view.path).status_code == 200
    assert client.get("/").status_code == 200
    # Dash serves the shell for any path; the router says "not found"
    assert client.get("/no/such/page?x=<b>").status_code == 200


def test_every_server_callback_answers_defaults_over_http(client, dependencies):
    for dependency in server_callbacks(dependencies):
        response = client.post("/_dash-update-component", json=payload(dependency))
        assert response.status_code in (200, 204), (dependency["output"], response.status_code)


def _route(client, dependencies, path, search=""):
    router = next(d for d in dependencies if d["output"] == "page.children")
    body = payload(router, {"url.pathname": path, "url.search": search})
    return json.dumps(client.post("/_dash-update-component", json=body).get_json())


def test_router_renders_each_view_with_and_without_chrome(client, dependencies):
    for view in VIEWS:
        for search, chrome in (("", True), ("?embed=1", False), ("?embed=yes", False)):
            assert ("site-header" in _route(client, dependencies, view.path, search)) == chrome


def test_every_map_is_in_the_menu_and_views_link_to_their_maps(client, dependencies):
    start = _route(client, dependencies, "/")
    assert all(f'"href": "{m.path}"' in start for m in MAPS)
    for view in MAPS:
        trajectory = BY_KEY[view.map_of]
        page = _route(client, dependencies, trajectory.path)
        assert f'"href": "{view.path}"' in page  # in the menu, and linked from the view
        assert page.count(f'"href": "{view.path}"') >= 2
        back = _route(client, dependencies, view.path)
        assert back.count(f'"href": "{trajectory.path}"') >= 2
        assert '"aria-current": "page"' in back
    assert '"href": "/paper-figures"' in start.split("site-header")[-1]  # the start page's text


def _components(node):
    """Every component of a layout tree, depth first."""
    yield node
    children = getattr(node, "children", None)
    for child in children if isinstance(children, (list, tuple)) else [children]:
        if hasattr(child, "to_plotly_json"):
            yield from _components(child)


def _by_id(layout) -> dict:
    return {c.id: c for c in _components(layout) if getattr(c, "id", None)}


def _shown(view, values: dict) -> list:
    """What each control of ``view`` shows for ``values`` over the dataclass's own defaults,
    written out here rather than taken from the spec under test: log sliders work on log10,
    switches are checklists (["on"] or [])."""
    chosen = {f.name: f.default for f in dataclasses.fields(view.controls)} | dict(values)
    shown = []
    for field in view.spec.fields:
        value = chosen[field.name]
        if field.log:
            value = pytest.approx(math.log10(value), rel=1e-9)
        elif field.kind == "bool":
            value = ["on"] if value else []
        shown.append(value)
    return shown


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_a_link_can_name_a_preset(view):
    preset = view.presets[-1]
    found = _by_id(view.layout(f"?preset={preset.slug}&embed=1"))
    expected = _shown(view, preset.values)
    assert [found[f"{view.key}-{name}"].value for name in view.spec.names] == expected
    assert found[f"{view.key}-preset"].value == preset.slug
    assert found[f"{view.key}-preset-caption"].children == preset.caption
    page = found[f"{view.key}-page"].data
    assert page | {"client": "?"} == {"embed": True, "messages": [], "client": "?"}
    assert re.fullmatch(r"[0-9a-f]{16}", page["client"])  # the page's own id (fair use)


def test_every_published_preset_slug_still_opens_its_preset():
    for line in PUBLISHED_SLUGS.read_text().splitlines():
        path, slug = line.split()
        view = next(v for v in VIEWS if v.path == path)
        state = view.parse_link(f"?preset={slug}")
        assert state.preset is not None and not state.messages, (path, slug)


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_settings_in_a_link_override_its_preset(view):
    preset = view.presets[0]
    switch = next((f for f in view.spec.fields if f.kind == "bool"), None)
    if switch is not None:
        field, value = switch, not preset.values.get(switch.name, switch.default)
        text = str(int(value))
    else:  # a view without switches: a number at the end of its range the preset is not at
        field = next(f for f in view.spec.fields if f.kind in ("int", "float"))
        now = preset.values.get(field.name, field.default)
        value = field.low if now == field.high else field.high
        text = f"{value:g}"
    found = _by_id(view.layout(f"?preset={preset.slug}&{field.name}={text}"))
    expected = _shown(view, {**preset.values, field.name: value})
    assert [found[f"{view.key}-{n}"].value for n in view.spec.names] == expected


def test_an_unknown_preset_says_which_exist():
    view = BY_KEY["single-neuron"]
    state = view.parse_link("?preset=fig-99&frame=7&embed=maybe")
    assert "fig-99" in state.messages[0] and view.presets[0].slug in state.messages[0]
    assert state.controls == view.spec.defaults() and state.frame == 7 and not state.embed
    found = _by_id(view_page(view, state))
    assert found[f"{view.key}-page"].data["messages"] == list(state.messages)
