"""What ``assets/app.js`` relies on in the installed Dash, checked against that Dash.

The browser side uses Dash's documented extension points (clientside callbacks, callbacks
without outputs, ``dash_clientside.set_props``, ``callback_context``, ``dccFunctions``); the
few details it reads that Dash does not document are checked here, so that an upgrade that
changes one fails this test instead of the page going quietly wrong."""

from __future__ import annotations

import re
from pathlib import Path

import dash
import pytest

from app.factory import create_app
from app.views import VIEWS

ROOT = Path(__file__).resolve().parents[2]
APP_JS = (ROOT / "assets" / "app.js").read_text(encoding="utf-8")
DASH = Path(dash.__file__).parent
RENDERER = (DASH / "dash-renderer" / "build" / "dash_renderer.min.js").read_text(encoding="utf-8")
SLIDER = (DASH / "dcc" / "async-slider.js").read_text(encoding="utf-8")
GRAPH = (DASH / "dcc" / "dash_core_components.js").read_text(encoding="utf-8")


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


def test_callbacks_without_outputs_are_registered_for_every_view(app):
    """The answers reach the gate through callbacks with no output (Dash ≥ 2.17)."""
    deps = app.callback_map
    for view in VIEWS:
        answered = [
            key
            for key, spec in deps.items()
            if any(i["id"] == f"{view.key}-answered" for i in spec["inputs"])
        ]
        assert answered, view.key


def test_app_js_no_longer_parses_dash_responses():
    """Answers are read from the stores Dash has applied, not from its response's format."""
    assert "JSON.parse" not in APP_JS
    assert ".response" not in APP_JS
