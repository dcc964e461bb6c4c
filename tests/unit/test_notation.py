"""The text's notation: labels, summaries and numbers typeset as the explanations' formulas
are, never as code ("c_η", "d^−1.11", "1e+03", "8.5e-18")."""

import math

import pytest

from app.ui.notation import Typeset, decade, number, plain, typeset, typeset_children


@pytest.mark.parametrize(
    ("value", "digits", "written"),
    [
        (8.5e-18, 3, "8.5 × 10⁻¹⁸"),
        (1e3, 3, "1000"),
        (1234.0, 3, "1230"),
        (0.0123, 3, "0.0123"),
        (5.64e-10, 3, "5.64 × 10⁻¹⁰"),
        (1e4, 3, "10⁴"),
        (12345.0, 3, "1.23 × 10⁴"),
        (-2.5e-6, 3, "−2.5 × 10⁻⁶"),
        (-0.5, 3, "−0.5"),
        (0.778, 3, "0.778"),
        (9.9996, 3, "10"),
        (0.00099996, 3, "0.001"),
        (0.0, 3, "0"),
        (math.inf, 3, "∞"),
    ],
)
def test_numbers_are_written_as_a_reader_writes_them(value, digits, written):
    assert number(value, digits) == written


def test_written_numbers_keep_their_value_to_the_digits_asked_for():
    superscripts = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
    for value in (3.14159e-7, 2.71828e5, 6.02e23, 1.6e-19, 42.0, 0.5):
        text = number(value, 3).replace("−", "-")
        mantissa, _, power = text.partition(" × 10")
        if text.startswith("10") and not text.isascii():
            mantissa, power = "1", text[2:]
        read = float(mantissa) * 10.0 ** int(power.translate(superscripts) or 0)
        assert read == pytest.approx(value, rel=5e-3)


def test_slider_marks_are_numbers_near_one_and_powers_beyond():
    assert [decade(e) for e in (-4, -3, 0, 3, 4)] == ["10⁻⁴", "0.001", "1", "1000", "10⁴"]


@pytest.mark.parametrize(
    ("plain", "typeset_as"),
    [
        ("S(0, t)", "<i>S</i>(0, <i>t</i>)"),
        ("NTK⁻: d^−1.11", "NTK⁻: <i>d</i><sup>−1.11</sup>"),
        ("(η ∝ κ^c_η)", "(<i>η</i> ∝ <i>κ</i><sup><i>c</i><sub><i>η</i></sub></sup>)"),
        ("v_k² ∝ k^−a", "<i>v</i><sub><i>k</i></sub>² ∝ <i>k</i><sup>−<i>a</i></sup>"),
        ("x^{2}", "<i>x</i><sup>2</sup>"),
        ("a measure of it", "a measure of it"),
        ("γ = 1e+03", "<i>γ</i> = 1000"),
    ],
)
def test_labels_set_symbols_in_italics_and_raise_powers(plain, typeset_as):
    assert typeset(plain) == typeset_as


def test_prose_keeps_words_upright_and_sets_only_what_is_maths():
    written = typeset("a measure of t_c, I think, at a = 1.5 with S(0, t) = 8.5e-18", prose=True)
    assert written.startswith("a measure of <i>t</i><sub>")
    assert ", I think, at <i>a</i> = 1.5" in written
    assert "<i>S</i>(0, <i>t</i>) = 8.5 × 10⁻¹⁸" in written


def test_page_text_is_one_component_with_powers_and_subscripts_nested_and_the_rest_escaped():
    (label,) = typeset_children("c_ηu  (η_u ∝ κ^c_ηu)")
    assert isinstance(label, Typeset)
    assert label.markup == (
        "<i>c</i><sub>ηu</sub>  (<i>η</i><sub><i>u</i></sub> ∝ "
        "<i>κ</i><sup><i>c</i><sub>ηu</sub></sup>)"
    )
    assert plain(label) == "c_ηu  (η_u ∝ κ^c_ηu)"
    # what only looks like markup is shown as written, not interpreted by the browser
    (compared,) = typeset_children("a <b> & x_i < y", prose=True)
    assert compared.markup == "a &lt;b&gt; &amp; <i>x</i><sub><i>i</i></sub> &lt; y"
    assert plain(compared) == "a <b> & x_i < y"
    # nothing typeset: the text itself, no component
    assert typeset_children("seed") == ["seed"]
    (prose,) = typeset_children("t_c = 5", prose=True)
    assert "_" not in prose.markup.replace("<sub>", "") and "^" not in prose.markup
