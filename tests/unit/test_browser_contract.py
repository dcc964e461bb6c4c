"""What ``assets/app.js`` relies on in the installed Dash, checked against that Dash.

The browser side uses Dash's documented extension points (clientside callbacks,
``dash_clientside.set_props``, ``callback_context``, ``dccFunctions``); the details it reads
that Dash does not document — the callback route, the format of its answers, the slider's
thumbs, the graph's use of the page's plotly.js, where the renderer finds a component for
``assets/typeset.js`` — are checked here, so that an upgrade that changes one fails this test
instead of the page going quietly wrong."""

from __future__ import annotations

import json
import re
from pathlib import Path

import dash
import pytest

from app.factory import create_app
from app.ui.notation import Typeset
from app.ui.prose import Prose
from app.views import VIEWS

ROOT = Path(__file__).resolve().parents[2]
APP_JS = (ROOT / "assets" / "app.js").read_text(encoding="utf-8")
DASH = Path(dash.__file__).parent
RENDERER = (DASH / "dash-renderer" / "build" / "dash_renderer.min.js").read_text(encoding="utf-8")
SLIDER = (DASH / "dcc" / "async-slider.js").read_text(encoding="utf-8")
GRAPH = (DASH / "dcc" / "dash_core_components.js").read_text(encoding="utf-8")
GRAPH_DRAWING = (DASH / "dcc" / "async-graph.js").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def app():
    return create_app()


def test_the_resent_route_is_the_one_dash_posts_callbacks_to(app):
    """The resending fetch wraps requests whose address holds the callback route's name."""
    (route,) = re.findall(r'indexOf\("(_dash-[a-z-]+)"\)', APP_JS)
    rules = [rule.rule for rule in app.server.url_map.iter_rules()]
    assert any(rule.endswith(route) for rule in rules), rules
    assert route in RENDERER  # and the renderer posts to it


def test_the_documented_extension_points_exist_in_this_dash():
    for name in ("set_props", "callback_context", "inputs_list", "outputs_list", "triggered"):
        assert name in RENDERER, name
    assert "dccFunctions" in SLIDER  # the log sliders' tooltip transform
    assert 'role:"slider"' in SLIDER  # the thumbs app.js names (aria-labelledby, valuetext)
    # a plot is drawn with the page's plotly.js when there is one (window.Plotly)
    assert "window.Plotly||" in GRAPH


def test_graphs_draw_through_the_page_s_plotly_react_and_await_it():
    """app.js lets a 3-D scene draw after the flat plots of the same answer by replacing the
    page's ``Plotly.react`` with one that returns a promise settled later: the graph must call
    that function on the global object each time (not a reference kept from before) and wait
    for its promise before it marks the plot drawn."""
    assert "Plotly.react = function (gd)" in APP_JS
    # (the graph's update: e.g. `...then(function(){var e=a.gd.current;return e&&Plotly.react(e,d)})
    # .then(function(){...e.classList.remove("dash-graph--pending")...`)
    drawn = re.search(r"return \w+&&Plotly\.react\(\w+,\w+\)\}\)\.then\(", GRAPH_DRAWING)
    assert drawn is not None
    after = GRAPH_DRAWING[drawn.end() : drawn.end() + 300]
    assert 'classList.remove("dash-graph--pending")' in after


def _update_request(app, view) -> dict:
    """The request the page's gate sends for ``view``'s main callback, as Dash posts it."""
    output = next(key for key in app.callback_map if f"{view.key}-answered.data" in key)
    callback = app.callback_map[output]
    ids, values = view.control_ids(), view.spec.to_controls(view.spec.defaults())
    controls = dict(zip(ids, values, strict=True))
    state = [
        {"id": s["id"], "property": s["property"], "value": controls.get(s["id"])}
        for s in callback["state"]
    ]
    outputs = [
        dict(zip(("id", "property"), part.rsplit(".", 1), strict=True))
        for part in output.strip(".").split("...")
    ]
    request = {"id": f"{view.key}-request", "property": "data", "value": {"seq": 7}}
    return {
        "output": output,
        "outputs": outputs,
        "inputs": [request],
        "state": state,
        "changedPropIds": [f"{view.key}-request.data"],
    }


def test_the_answers_app_js_reads_are_where_it_reads_them(app):
    """readAnswers takes the answer, the link and a finished job from Dash's response body:
    {"response": {"<view>-answered": {"data": …}, "<view>-link": {"data": "?…"}}}."""
    view = next(v for v in VIEWS if v.key == "single-neuron")
    body = _update_request(app, view)
    route = re.findall(r'indexOf\("(_dash-[a-z-]+)"\)', APP_JS)[0]
    answer = app.server.test_client().post("/" + route, json=body)
    assert answer.status_code == 200
    response = json.loads(answer.get_data(as_text=True))["response"]
    assert response[f"{view.key}-answered"]["data"]["seq"] == 7
    assert response[f"{view.key}-link"]["data"] == view.spec.encode(view.spec.defaults())
    for suffix in ("-link", "-answered", "-job-done"):  # the ids app.js looks for
        assert f'"{suffix}"' in APP_JS


def test_the_paper_cards_links_navigate_as_dash_links_do():
    """assets/paper_figures.js builds the cards' links itself and follows one as dcc.Link does:
    pushState, then the event dcc.Location listens to. An upgrade renaming the event fails here
    (and the links would reload the page instead of moving within it)."""
    cards_js = (ROOT / "assets" / "paper_figures.js").read_text(encoding="utf-8")
    (event,) = set(re.findall(r'new CustomEvent\("(_dash[a-z_]+)"\)', cards_js))
    assert f'addEventListener("{event}",' in GRAPH  # dcc.Location follows it
    # dcc.Link: pushState({}, "", href), then the event
    link = rf'pushState\(\{{\}},"",\w+\),window\.dispatchEvent\(new \w+\("{event}"\)\)'
    assert re.search(link, GRAPH)


def test_typeset_text_and_explanations_are_found_where_assets_typeset_js_puts_them():
    """The renderer draws a component it finds at ``window[namespace][type]`` (how every
    component library is found); ``assets/typeset.js`` puts ``Typeset`` and ``Prose`` there,
    under the names their Python classes send."""
    assert re.search(r"=window\[(\w+)\];if\(\w+\)\{if\(\w+\[\w+\]\)return", RENDERER)
    script = (ROOT / "assets" / "typeset.js").read_text(encoding="utf-8")
    assert Typeset._namespace == Prose._namespace
    assert f"window.{Typeset._namespace} = " in script
    assert f"{{ {Typeset._type}: {Typeset._type}, {Prose._type}: {Prose._type} }}" in script
    assert script.count("__html: props.markup") == 2 and "props.className" in script
    sent = Typeset("<i>x</i>").to_plotly_json()
    assert (sent["namespace"], sent["type"]) == (Typeset._namespace, Typeset._type)
    assert sent["props"] == {"markup": "<i>x</i>"}
