"""Every view, through its callbacks: defaults, presets, URL round trip, hostile values."""

import json
import math
import re

import pytest

from app.view import to_csv, to_json
from app.views import VIEWS
from tests.dash_client import payload, server_callbacks
from tests.hostile import NASTIES

VIEW_IDS = [view.key for view in VIEWS]


def _non_empty(figure):
    return bool(figure.get("data")) and all("type" in trace for trace in figure["data"])


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_defaults_render_every_panel(view, cache):
    controls = view.spec.controls(view.spec.defaults())
    figures, _summary, messages, search, frames, last = view.update(cache, controls, {}, [])
    assert len(figures) == len(view.panels)
    assert all(_non_empty(f) for f in figures), [
        p.graph for p, f in zip(view.panels, figures, strict=False) if not _non_empty(f)
    ]
    assert messages == []  # the defaults need no correction
    if view.animated:
        assert (
            frames
            and len(frames["t"]) == last + 1
            and frames["order"] == [p.graph for p in view.panels]
        )
        json.dumps(frames, allow_nan=False)
    else:  # a map has no time to animate: no frames travel to the browser
        assert frames is None
    parsed, _extras = view.spec.parse_query(search)
    assert parsed.values == view.spec.defaults() and not parsed.messages


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_every_preset_renders(view, cache):
    assert len(view.presets) >= 2
    for preset in view.presets:
        assert preset.caption and set(preset.values) <= set(view.spec.names), preset.name
        values = view.spec.with_overrides(preset.values)
        assert view.spec.parse(preset.values | {}).messages == (), preset.name
        figures, _, messages, _, _frames, _ = view.update(cache, view.spec.controls(values), {}, [])
        assert all(_non_empty(f) for f in figures), preset.name
        assert not any("could not be computed" in str(m) for m in messages), (preset.name, messages)


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_url_round_trip_keeps_every_value_and_embed(view):
    values = view.spec.with_overrides(view.presets[-1].values)
    search = view.spec.encode(values, {"embed": "1"})
    parsed, extras = view.spec.parse_query(search)
    assert parsed.values == values and extras == {"embed": "1"}


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
@pytest.mark.parametrize("bad", NASTIES, ids=[repr(b)[:20] for b in NASTIES])
def test_hostile_control_values_give_messages_not_errors(view, bad, cache):
    for index, name in enumerate(view.spec.names):
        controls = view.spec.controls(view.spec.defaults())
        controls[index] = bad
        figures, _, _messages, search, _, _ = view.update(cache, controls, {"embed": bad}, bad)
        assert all(_non_empty(f) for f in figures), name
        parsed, _ = view.spec.parse_query(search)  # whatever came in, the link is valid
        assert not parsed.messages


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_exports_are_finite_and_parse(view, cache):
    values = view.spec.defaults()
    parsed = view.spec.parse(values)
    tables = view.export(values, view.results(cache, values))
    assert tables
    document = json.loads(to_json(parsed, tables))
    for table in document["trajectories"].values():
        lengths = {len(column) for column in table.values()}
        assert len(lengths) == 1
    lines = to_csv(parsed, tables).splitlines()
    assert lines[0].startswith("# ") and lines[1].startswith("method,")
    assert all(math.isfinite(float(x)) for x in lines[2].split(",")[1:])


def test_pages_and_unknown_paths(client):
    for view in VIEWS:
        assert client.get(view.path).status_code == 200
    assert client.get("/").status_code == 200
    assert (
        client.get("/no/such/page?x=<b>").status_code == 200
    )  # Dash serves the shell; the router says so


def test_every_server_callback_answers_defaults_over_http(client, dependencies):
    for dependency in server_callbacks(dependencies):
        response = client.post("/_dash-update-component", json=payload(dependency))
        assert response.status_code in (200, 204), (dependency["output"], response.status_code)


def test_router_renders_each_view_with_embed(client, dependencies):
    router = next(d for d in dependencies if d["output"] == "page.children")
    for view in VIEWS:
        for search, chrome in (("", True), ("?embed=1", False)):
            body = payload(router, {"url.pathname": view.path, "url.search": search})
            page = json.dumps(client.post("/_dash-update-component", json=body).get_json())
            assert ("site-header" in page) == chrome


def _components(node):
    """Every component of a layout tree, depth first."""
    yield node
    children = getattr(node, "children", None)
    for child in children if isinstance(children, (list, tuple)) else [children]:
        if hasattr(child, "to_plotly_json"):
            yield from _components(child)


def _by_id(layout) -> dict:
    return {c.id: c for c in _components(layout) if getattr(c, "id", None)}


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_a_link_can_name_a_preset(view):
    preset = view.presets[-1]
    assert len({p.slug for p in view.presets}) == len(view.presets)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", preset.slug)
    components = _by_id(view.layout(f"?preset={preset.slug}&embed=1", embed=True))
    expected = view.spec.controls(view.spec.with_overrides(preset.values))
    shown = [components[f"{view.key}-{name}"].value for name in view.spec.names]
    assert shown == expected
    assert components[f"{view.key}-preset"].value == preset.name
    assert components[f"{view.key}-preset-caption"].children == preset.caption
    assert components[f"{view.key}-initial-messages"].data == []
    assert components[f"{view.key}-extras"].data == {"embed": "1"}


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_settings_in_a_link_override_its_preset(view):
    preset = view.presets[0]
    spec = next(f for f in view.spec.fields if f.kind == "bool")
    base = view.spec.with_overrides(preset.values)
    flipped = not base[spec.name]
    search = f"?preset={preset.slug}&{spec.name}={int(flipped)}"
    components = _by_id(view.layout(search, embed=False))
    values = base | {spec.name: flipped}
    assert [components[f"{view.key}-{n}"].value for n in view.spec.names] == (
        view.spec.controls(values)
    )


def test_an_unknown_preset_says_which_exist():
    view = VIEWS[0]
    components = _by_id(view.layout("?preset=fig-99", embed=False))
    (message,) = components[f"{view.key}-initial-messages"].data
    assert "fig-99" in message and view.presets[0].slug in message
    shown = [components[f"{view.key}-{name}"].value for name in view.spec.names]
    assert shown == view.spec.controls(view.spec.defaults())
