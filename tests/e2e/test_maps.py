"""The maps in a real browser: a click on a cell opens that cell's trajectory view."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

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
