"""Axes set up on the server so that their labels and titles fit the plot on a phone and a
desktop: margins from the tick labels plotly will draw (predicted without a browser)."""

import numpy as np

from app.ui import figures as fig
from app.ui.axes import fit_margins, linear_labels, text_width


def test_text_widths_grow_with_the_text_and_shrink_in_superscripts():
    assert text_width("0.0035") > text_width("0.5") > text_width("1") > 0
    assert text_width("10<sup>−12</sup>") < text_width("10−12")
    assert text_width("a<br>longer line") == text_width("longer line")


def test_linear_labels_are_plotlys_round_steps_in_its_format():
    # plotly's automatic ticks for [0, 0.0035] on a 200-px y axis: every 0.0005 or 0.001
    labels = linear_labels(0.0, 0.0035, 200)
    assert "0.0035" in labels and "0.001" in labels and "0" in labels
    assert linear_labels(-3, 2, 400, "y", step=0.5)[:3] == ["−3", "−2.5", "−2"]
    assert set(linear_labels(0, 1, 200, "y", step=0.25)) == {"0", "0.25", "0.5", "0.75", "1"}


def test_beyond_a_thousand_and_a_thousandth_labels_are_plotlys_powers_of_ten():
    """Plotly writes 0.5×10¹⁷, not 50000000000000000 (the finite-width view's NTK of a
    diverged run had a 557-px margin, leaving its plot 2 px wide)."""
    labels = linear_labels(0.0, 1.3e17, 200)
    assert "0" in labels and "1×10¹⁷" in labels
    assert all(label == "0" or label.endswith("×10¹⁷") for label in labels)
    assert linear_labels(0.0, 5000.0, 200, "y", step=1000.0)[-1] == "5000"  # 10³: written out
    assert linear_labels(0.0, 2e-5, 200, "y", step=5e-6)[1] == "0.5×10⁻⁵"
    figure = fig.figure([fig.exact_trace([0, 1], [0.0, 1.3e17], "K")], y_title="K(x, x; t)")
    assert figure["layout"]["margin"]["l"] < 120


def test_a_wider_tick_label_gets_a_wider_margin_and_a_right_axis_its_own():
    narrow = fig.figure([fig.exact_trace([0, 1], [0, 1], "a")], y_title="S(0, t)")
    # the finite-width view's NTK: plotly labels it 0.002, 0.0025, …, 0.0045
    wide = fig.figure([fig.exact_trace([0, 1], [0.002, 0.0045], "a")], y_title="K(x, x; t)")
    assert wide["layout"]["margin"]["l"] >= narrow["layout"]["margin"]["l"] + 15
    # room for "0.0045", the tick and the title: about 42 + 5 + 23 px
    assert wide["layout"]["margin"]["l"] >= 74
    both = fig.figure(
        [fig.exact_trace([0, 1], [0, 1], "a"), fig.exact_trace([0, 1], [0, 1234.5], "b")],
        y_title="left",
        yaxis2=fig.axis("right", overlaying="y", side="right"),
    )
    both["data"][1]["yaxis"] = "y2"
    assert fit_margins(both)["layout"]["margin"]["r"] > 50


def test_logarithmic_axes_get_labels_that_name_their_numbers():
    t = np.geomspace(1e-3, 10.0, 50)
    figure = fig.figure([fig.exact_trace(t, 1e-16 + t**4, "loss")], y_title="loss", log_y=True)
    axis = figure["layout"]["yaxis"]
    assert axis["tickmode"] == "array" and len(axis["ticktext"]) <= 6
    assert all(text == "1" or text.startswith("10") for text in axis["ticktext"])
