"""Data sent to the browser: animation values to six significant digits, short in JSON; no
point a screen cannot place."""

import json

import numpy as np

from app.ui.figures import DRAWABLE, compact, rounded


def formatted(values, digits=6):
    """The reference: Python's own decimal formatting, one value at a time."""
    return [float(f"{v:.{digits}g}") for v in np.asarray(values, dtype=float).ravel()]


def test_values_are_the_short_decimals_python_formats():
    rng = np.random.default_rng(3)
    magnitudes = 10.0 ** rng.integers(-40, 40, size=20_000)
    values = np.concatenate(
        [
            rng.normal(size=20_000) * magnitudes,
            [0.0, -0.0, 1.0, -1.0, 0.5, 999_999.4, 123_456_789.0, 1e-300, 5e-324, 1e300],
        ]
    )
    assert rounded(values) == formatted(values)
    assert rounded(values, digits=3) == formatted(values, digits=3)
    # and they print as short decimals: "0.666667", not "0.6666670000000001"
    assert json.dumps(rounded([2 / 3, 1 / 7, 1e-7 / 3])) == "[0.666667, 0.142857, 3.33333e-08]"


def test_non_finite_values_pass_through_and_shapes_flatten():
    out = rounded(np.array([[np.nan, np.inf], [-np.inf, 1 / 3]]))
    assert np.isnan(out[0]) and out[1:] == [np.inf, -np.inf, 0.333333]
    assert rounded([]) == []


def test_a_point_no_screen_can_place_is_a_gap_on_a_linear_axis_only():
    """A diverged run's last markers (1e140) would be SVG coordinates beyond single precision:
    on a linear axis they become gaps; on a log axis, and in a heatmap, values stay."""
    far, near = 1e140, 0.5
    figure = {
        "data": [
            {"type": "scatter", "x": [0.0, 1.0, 2.0], "y": [near, 1e29, far]},
            {"type": "scatter", "x": [0.0, 1.0], "y": [near, far], "yaxis": "y2"},
            {"type": "scatter", "x": ["a", "b"], "y": [None, near]},
            {"type": "heatmap", "z": [[far, near]]},
        ],
        "layout": {"yaxis2": {"type": "log"}},
    }
    compact(figure)
    linear, logarithmic, named, heatmap = figure["data"]
    assert list(linear["y"][:2]) == [near, 1e29] and np.isnan(linear["y"][2])
    assert logarithmic["y"] == [near, far]
    assert named["x"] == ["a", "b"]
    assert heatmap["z"] == [[far, near]]
    assert DRAWABLE < 3.4e38 / 1e6  # a millionth of the axis's span still in range


def test_a_gap_leaves_the_array_the_trace_was_given_as_it_was():
    """A figure's arrays may be the cached result's own: the gap goes into a copy."""
    result = np.array([0.5, 1e140, 2.0])
    figure = {"data": [{"type": "scatter", "x": np.arange(3.0), "y": result}], "layout": {}}
    compact(figure)
    assert np.isnan(figure["data"][0]["y"][1]) and result[1] == 1e140
    kept = np.array([0.5, 1.0])  # nothing to hide: the same array goes on
    figure = {"data": [{"type": "scatter", "y": kept}], "layout": {}}
    assert compact(figure)["data"][0]["y"] is kept
