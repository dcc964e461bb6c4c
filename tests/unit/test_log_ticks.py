"""The maps' logarithmic axes are labelled with the numbers they show (not plotly's "2, 5" for
0.2 and 0.5)."""

import numpy as np

from app.ui.figures import log_ticks, portrait


def test_a_short_range_labels_one_two_and_five_of_each_decade():
    ticks = log_ticks(np.geomspace(0.1, 2.0, 16))  # the network map's τ
    assert ticks["tickvals"] == [0.1, 0.2, 0.5, 1.0, 2.0]
    assert ticks["ticktext"] == ["0.1", "0.2", "0.5", "1", "2"]


def test_a_long_range_labels_the_powers_of_ten():
    ticks = log_ticks(np.geomspace(1e-4, 1e3, 30))
    assert ticks["tickvals"] == [10.0**k for k in range(-4, 4)]
    assert ticks["ticktext"][0] == "10⁻⁴" and ticks["ticktext"][-1] == "10³"


def test_too_few_values_fall_back_to_plotlys_labels():
    assert log_ticks([0.3]) == {"dtick": "D2"}
    assert log_ticks([0.3, 0.4]) == {"dtick": "D2"}  # no tick of 1, 2 or 5 inside
    assert log_ticks([np.nan, -1.0, 0.0]) == {"dtick": "D2"}


def test_a_portrait_uses_them_on_its_logarithmic_axis_only():
    layout = portrait(
        np.zeros((3, 4)),
        np.linspace(-1, 1, 4),
        np.geomspace(0.1, 2.0, 3),
        x_title="δ",
        y_title="τ",
        colorbar="S",
        log_y=True,
    )["layout"]
    assert layout["yaxis"]["ticktext"] == ["0.1", "0.2", "0.5", "1", "2"]
    assert "tickvals" not in layout["xaxis"]
