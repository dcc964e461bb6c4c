"""The maps in a real browser: a click on a cell opens that cell's trajectory view."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

from app.views import VIEWS
from tests.e2e.conftest import screenshot
from tests.e2e.test_browser import TIMEOUT, open_view, query, wait_for_graphs

pytestmark = pytest.mark.e2e
MAPS = [view for view in VIEWS if view.clicks]
BY_PATH = {view.path: view for view in VIEWS}

#: pixel position (relative to the graph) and clickData-like point of a trace's k-th cell
_LOCATE = """([selector, row, column]) => {
    const gd = document.querySelector(selector);
    const trace = gd._fullData.find(t => t.type === 'heatmap') || gd._fullData[0];
    const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
    let x, y, pointNumber;
    if (trace.type === 'heatmap') {
        row = Math.min(row, trace.y.length - 1); column = Math.min(column, trace.x.length - 1);
        x = trace.x[column]; y = trace.y[row]; pointNumber = [row, column];
    } else {
        column = Math.min(column, trace.x.length - 1);
        x = trace.x[column]; y = trace.y[column]; pointNumber = column;
    }
    const px = xa._offset + xa.c2p(xa.d2c(x));
    const py = ya._offset + ya.c2p(ya.d2c(y));
    return {px, py, point: {x: Number(x), y: Number(y), pointNumber,
                            curveNumber: gd._fullData.indexOf(trace)}};
}"""


@pytest.mark.parametrize("view", MAPS, ids=[view.key for view in MAPS])
def test_a_click_on_a_cell_opens_its_trajectory(page, live_server, view):
    open_view(page, live_server, view, "?embed=1")
    # a heatmap if the map has a clickable one: a cell is one target, while curves may overlap
    has_heatmap = """s => document.querySelector(s)._fullData.some(t => t.type === 'heatmap')"""
    clickable = list(view.clicks)
    graph = next(
        (
            g
            for g in clickable
            if page.evaluate(has_heatmap, f"#{view.key}-graph-{g} .js-plotly-plot")
        ),
        clickable[0],
    )
    selector = f"#{view.key}-graph-{graph} .js-plotly-plot"
    located = page.evaluate(_LOCATE, [selector, 3, 5])
    box = page.locator(selector).bounding_box()
    controls = view.spec.to_controls(view.spec.defaults())
    expected = view.open_target(graph, located["point"], controls, {"embed": True}, "/")
    assert expected is not None
    screenshot(page, f"{view.key}-before-click")
    page.mouse.click(box["x"] + located["px"], box["y"] + located["py"])
    target = BY_PATH[urlparse(expected).path]
    page.wait_for_function(
        "path => window.location.pathname === path", arg=target.path, timeout=TIMEOUT
    )
    wait_for_graphs(page, target)
    opened = query(page)
    wanted = {k: v[0] for k, v in parse_qs(urlparse(expected).query).items()}
    assert opened == wanted  # the trajectory view shows exactly the clicked cell's settings
    assert page.locator(".site-header").count() == 0  # still embedded
    # and its controls show those values (the page was rendered from the link)
    for spec in target.spec.fields:
        if spec.kind in ("float", "int"):
            thumb = page.locator(f"#{target.key}-{spec.name} [role=slider]")
            assert thumb.count() == 1


def test_the_network_maps_time_redraws_its_recorded_steps_with_the_seeds_spread(page, live_server):
    """'show the map after' 10 steps: the page draws the map the server recorded after 10
    steps (not the last step's), its hover names the step and the seeds' spread, and the
    link keeps the choice."""
    view = BY_PATH["/networks/map"]
    values = {"resolution": 6, "steps": 100, "n_test": 40, "seeds": 2}
    open_view(page, live_server, view, "?" + "&".join(f"{k}={v}" for k, v in values.items()))
    computed = view.compute(view.spec.with_overrides(values))
    selector = f"#{view.key}-graph-kernel .js-plotly-plot"
    read = """s => { const t = document.querySelector(s)._fullData[0];
                     return {z: Array.from(t.z, row => Array.from(row)),
                             hover: t.hovertemplate}; }"""
    drawn = page.evaluate(read, selector)
    np.testing.assert_allclose(drawn["z"], computed.final.kernel_distance, rtol=1e-6, atol=1e-9)
    assert "after 100 steps" in drawn["hover"] and "sd of 2 seeds" in drawn["hover"]
    page.get_by_label("10 steps").check()
    page.wait_for_function(
        "s => document.querySelector(s)._fullData[0].hovertemplate.includes('after 10 steps')",
        arg=selector,
        timeout=TIMEOUT,
    )
    early = computed.at("10").kernel_distance
    np.testing.assert_allclose(page.evaluate(read, selector)["z"], early, rtol=1e-6, atol=1e-9)
    assert not np.allclose(early, computed.final.kernel_distance, rtol=0.01)  # another map
    assert query(page)["shown"] == "10"
