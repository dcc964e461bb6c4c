"""Clicks arrive as plotly points from the browser: parsed once, malformed ones refused."""

import numpy as np
import pytest

from app.core.clicks import ClickPoint, nearest_index


def test_a_point_is_parsed_into_numbers():
    point = ClickPoint.parse({"x": "1.5", "y": 2, "curveNumber": 3, "pointNumber": [4, 5]})
    assert point == ClickPoint(1.5, 2.0, 3, (4, 5))
    assert point.cell(10, 10) == (4, 5) and point.cell(4, 10) is None
    assert ClickPoint.parse({"x": 1, "pointNumber": 7}).index == 7


@pytest.mark.parametrize(
    "raw",
    [
        {"x": float("nan"), "y": True, "curveNumber": "1", "pointNumber": [1, "2"]},
        {"x": [1], "y": {"a": 1}, "curveNumber": 1.5, "pointNumber": True},
    ],
)
def test_malformed_fields_become_none(raw):
    point = ClickPoint.parse(raw)
    assert (point.x, point.y, point.curve, point.index) == (None, None, None, None)


def test_not_a_point_at_all():
    assert ClickPoint.parse([1, 2]) is None and ClickPoint.parse(None) is None


def test_nearest_index_snaps_float32_coordinates():
    grid = np.geomspace(0.03, 3.0, 64)
    for index in (0, 17, 63):
        assert nearest_index(grid, float(np.float32(grid[index])), log=True) == index
    assert nearest_index(grid, None) is None and nearest_index(grid, -1.0, log=True) is None
