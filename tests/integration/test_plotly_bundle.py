"""The page's plotly.js (assets/plotly/, built by docs/tools/plotly-bundle/) holds every trace type
the views draw, and is the version the installed plotly package writes figures for."""

from __future__ import annotations

import re
from pathlib import Path

from plotly.offline import get_plotlyjs_version

from app.cache import ResultCache
from app.views import VIEWS
from tests.e2e.test_browser import light_controls

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "docs" / "tools" / "plotly-bundle"
SCRIPT = ROOT / "assets" / "plotly" / "plotly-lazy-rich.min.js"


def _bundled() -> set[str]:
    entry = (BUNDLE / "entry.js").read_text(encoding="utf-8")
    return {"scatter", *re.findall(r"require\('plotly\.js/lib/(\w+)'\)", entry)} - {"core"}


def test_the_bundle_is_the_plotly_js_of_the_installed_plotly():
    assert f'.version="{get_plotlyjs_version()}"' in SCRIPT.read_text(encoding="utf-8")
    assert f'"plotly.js": "{get_plotlyjs_version()}"' in (BUNDLE / "package.json").read_text()


def test_every_trace_type_the_views_draw_is_in_the_bundle():
    cache = ResultCache.in_memory()
    drawn = set()
    for view in VIEWS:
        controls = light_controls(view)  # the defaults (a network map's, small)
        figures = view.draw(controls, view.results(cache, controls))[0]
        drawn |= {trace.get("type", "scatter") for f in figures for trace in f["data"]}
    assert drawn <= _bundled(), drawn - _bundled()
    assert {"scatter", "heatmap", "surface", "scatter3d"} <= drawn  # the test sees them all
