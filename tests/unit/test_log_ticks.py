"""Logarithmic axes are labelled with the numbers they show (not plotly's "2, 5" for 0.2 and
0.5, or "2" for 20), few enough to stand upright side by side on a phone."""

import numpy as np

from app.ui.figures import log_ticks, portrait


def test_a_short_range_labels_one_two_and_five_of_each_decade():
    ticks = log_ticks(np.geomspace(0.1, 2.0, 16))  # the network map's τ
    assert ticks["tickvals"] == [0.1, 0.2, 0.5, 1.0, 2.0]
    assert ticks["ticktext"] == ["0.1", "0.2", "0.5", "1", "2"]


def test_a_long_range_labels_every_other_power_of_ten_and_marks_the_rest():
    ticks = log_ticks(np.geomspace(1e-4, 1e3, 30))
    assert ticks["tickvals"] == [1e-4, 1e-2, 1.0, 100.0]
    assert ticks["ticktext"] == ["10⁻⁴", "10⁻²", "1", "10²"]
    assert set(ticks["minor"]["tickvals"]) == {1e-3, 0.1, 10.0, 1000.0}


def _read(label: str) -> float:
    """A label as a reader reads it: "0.5", "100", "10⁻⁴"."""
    if label.startswith("10") and not label.isascii():
        digits = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
        return 10.0 ** int(label[2:].translate(digits))
    return float(label)


def test_labels_are_few_and_each_names_its_own_tick():
    for low, high in [(1e-16, 1.0), (1.0, 1e5), (1e-3, 20.0), (2e-3, 0.6), (1.0, 300.0)]:
        ticks = log_ticks(np.geomspace(low, high, 50), most=5)
        assert 2 <= len(ticks["tickvals"]) <= 5
        for value, text in zip(ticks["tickvals"], ticks["ticktext"], strict=True):
            assert np.isclose(_read(text), value), (text, value)


def test_less_than_a_decade_is_labelled_with_round_numbers():
    ticks = log_ticks([0.3, 0.4])
    assert ticks["ticktext"] == ["0.3", "0.35", "0.4"]
    assert log_ticks([np.nan, -1.0, 0.0]) == {}


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
