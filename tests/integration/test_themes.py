"""The dark theme is the page's: a dark request changes nothing that a later light one sees
(figures share pieces — the module's font, cached layers — and recolouring them in place once
turned every later visitor's plot text near-white)."""

import pytest

from app.cache import ResultCache
from app.ui import figures as fig
from app.ui.theme import INK, themed
from app.views import VIEWS
from tests.e2e.test_browser import light_controls  # a light state of every view
from tests.integration.calls import answer

LIGHT_INK = fig.FONT["color"]


def test_a_dark_figure_is_new_and_leaves_the_light_one_as_it_was():
    light = fig.figure([fig.exact_trace([0.0, 1.0], [1.0, 2.0], "exact")], y_title="loss")
    before = repr(light)
    dark = themed(light, "dark")
    assert dark["layout"]["font"]["color"] == INK and dark["layout"]["paper_bgcolor"] != "white"
    assert repr(light) == before and fig.FONT["color"] == LIGHT_INK


def _first_request(theme: str) -> dict:
    return {"seq": 1, "frame": 0, "theme": theme, "drawn": None}


@pytest.mark.parametrize("view", VIEWS, ids=[view.key for view in VIEWS])
def test_a_light_page_after_a_dark_one_gets_light_plots(view):
    controls = light_controls(view)
    cache = ResultCache.in_memory()
    first = answer(view, cache, controls, request=_first_request("light")).figures
    dark = answer(view, cache, controls, request=_first_request("dark")).figures
    again = answer(view, cache, controls, request=_first_request("light")).figures
    for before, darkened, after in zip(first, dark, again, strict=True):
        assert darkened["layout"]["font"]["color"] == INK
        assert after["layout"]["font"]["color"] == before["layout"]["font"]["color"] == LIGHT_INK
        assert repr(after["layout"]) == repr(before["layout"])


def _is_pale(colour: str) -> bool:
    """A colour all of whose channels are bright (#rrggbb, "white")."""
    if colour in ("white", "#fff"):
        return True
    if not (isinstance(colour, str) and colour.startswith("#") and len(colour) == 7):
        return False
    return min(int(colour[i : i + 2], 16) for i in (1, 3, 5)) > 200


def test_dark_tables_get_dark_cells_with_light_text_and_map_labels_dark_boxes():
    finite_width = next(view for view in VIEWS if view.key == "finite-width")
    figures = answer(finite_width, ResultCache.in_memory(), request=_first_request("dark")).figures
    tables = [t for f in figures for t in f["data"] if t.get("type") == "table"]
    assert tables
    for table in tables:
        assert table["cells"]["font"]["color"] == INK and table["header"]["font"]["color"] == INK
        fills = [c for column in table["cells"]["fill"]["color"] for c in column]
        assert fills and not any(_is_pale(c) for c in fills), fills
        assert not _is_pale(table["header"]["fill"]["color"])
    fw_map = next(view for view in VIEWS if view.key == "finite-width-map")
    figures = answer(fw_map, ResultCache.in_memory(), request=_first_request("dark")).figures
    boxes = [a.get("bgcolor", "") for f in figures for a in f["layout"].get("annotations", [])]
    assert boxes and not any(box.startswith("rgba(255,255,255") for box in boxes)


@pytest.mark.parametrize("view", VIEWS, ids=[view.key for view in VIEWS])
def test_no_dark_plot_has_a_pale_background_or_a_pale_colour_scale_end_to_end(view):
    """Backgrounds dark; a colour scale whose both ends or middle are pale glares on a dark
    page (a matrix of zeros was a white square, the function plane a near-white one)."""
    figures = answer(
        view, ResultCache.in_memory(), light_controls(view), request=_first_request("dark")
    ).figures
    for figure in figures:
        layout = figure["layout"]
        assert not _is_pale(layout.get("paper_bgcolor", "")), layout.get("paper_bgcolor")
        assert not _is_pale(layout.get("plot_bgcolor", "")), layout.get("plot_bgcolor")
        for trace in figure["data"]:
            scale = trace.get("colorscale")
            if isinstance(scale, list) and trace.get("type") in ("heatmap", "contour"):
                middle = scale[len(scale) // 2][1]
                assert not _is_pale(middle), (trace.get("name"), scale)
