"""A page's state: controls declared as a dataclass, parsed from links and callbacks by one
validator per field, with the page's own settings (preset, frame, embed) read the same way."""

from dataclasses import dataclass

import pytest

from app.core.presets import Preset
from app.core.state import PageState, StateSpec, choice, integer, number, switch, truth


@dataclass(frozen=True)
class Controls:
    scale: float = number("scale", 1.0, 0.01, 100.0, log=True)
    count: int = integer("count", 4, 1, 10)
    mode: str = choice("mode", "a", ("a", "b"), ("first", "second"))
    labels: bool = switch("labels", True, physics=False)


SPEC = StateSpec(Controls)
PRESETS = (
    Preset("big", "Big", "a large scale", {"scale": 50.0}, aliases=("large",)),
    Preset("two", "Two", "mode b", {"mode": "b", "count": 2}),
)


def test_fields_come_from_the_dataclass_in_order():
    assert SPEC.names == ["scale", "count", "mode", "labels"]
    assert SPEC.by_name["scale"].log and SPEC.by_name["count"].kind == "int"
    assert SPEC.defaults() == Controls()


@pytest.mark.parametrize(
    ("raw", "expected", "corrected"),
    [
        ({"scale": "2.5"}, Controls(scale=2.5), False),
        ({"scale": 1e9}, Controls(scale=100.0), True),
        ({"scale": "nan"}, Controls(), True),
        ({"count": 3.6}, Controls(count=4), False),
        ({"mode": "z"}, Controls(), True),
        ({"labels": "off"}, Controls(labels=False), False),
        ({"labels": "maybe"}, Controls(), True),
    ],
)
def test_values_are_cleaned_never_refused(raw, expected, corrected):
    controls, messages = SPEC.parse(raw)
    assert controls == expected and bool(messages) == corrected


def test_overrides_are_taken_as_given_or_refused_unless_clamping_is_asked():
    assert SPEC.with_overrides({"scale": 50.0, "mode": "b"}) == Controls(scale=50.0, mode="b")
    with pytest.raises(ValueError, match="scale"):
        SPEC.with_overrides({"scale": 1e9})  # a state that would not be the one it names
    with pytest.raises(ValueError, match="no control named colour"):
        SPEC.with_overrides({"colour": "red"})
    # a link to a view whose slider does not reach the value: the page's own correction
    assert SPEC.with_overrides({"scale": 1e9}, clamp=True) == Controls(scale=100.0)


def test_log_sliders_travel_as_exponents():
    raw = SPEC.to_controls(Controls(scale=10.0))
    assert raw[0] == pytest.approx(1.0) and raw[3] == ["on"]
    assert SPEC.parse_controls(raw)[0] == Controls(scale=10.0)
    assert SPEC.parse_controls([5000, None])[0].scale == 100.0  # 10^5000 is clamped, not inf


def test_whole_numbers_over_decades_travel_as_exponents_and_come_back_whole():
    @dataclass(frozen=True)
    class Steps:
        steps: int = integer("steps", 2000, 10, 100_000, log=True)

    spec = StateSpec(Steps)
    (raw,) = spec.to_controls(Steps(2000))
    assert raw == pytest.approx(3.30103, abs=1e-5)
    assert spec.parse_controls([raw])[0] == Steps(2000)  # (10^3.30103 is 1999.99…: rounded)
    assert spec.parse_controls([3.3])[0] == Steps(1995)  # a slider position between
    assert spec.parse_controls([7.0])[0] == Steps(100_000)  # clamped, with a message
    assert spec.parse_query("?steps=31623").controls == Steps(31_623)  # links carry the number


def test_a_link_names_a_preset_and_its_own_values_win():
    state = SPEC.parse_query("?preset=large&count=7&frame=12&embed=true", PRESETS)
    assert state == PageState(Controls(scale=50.0, count=7), PRESETS[0], 12, True, ())
    by_name = SPEC.parse_query("?preset=Two", PRESETS)  # the first links carried names
    assert by_name.preset is PRESETS[1] and by_name.controls.mode == "b"


def test_a_link_with_mistakes_says_what_it_changed():
    state = SPEC.parse_query("?preset=nope&scale=0&frame=-3&embed=2&colour=red", PRESETS)
    assert state.preset is None and state.frame == 0 and state.embed is False
    text = " ".join(state.messages)
    assert "nope" in text and "big, two" in text and "colour" in text and "scale" in text


def test_embed_has_one_truth_convention():
    for yes in (True, 1, "1", "true", "YES", " on ", ["on"]):
        assert truth(yes) is True
    for no in (False, 0, "0", "false", "no", "off", []):
        assert truth(no) is False
    for neither in ("2", "maybe", 0.5, None, {"a": 1}):
        assert truth(neither) is None
    assert SPEC.parse_query("?embed=on").embed and not SPEC.parse_query("?embed=2").embed


def test_the_cache_sees_only_what_changes_results():
    shown = Controls(scale=3.0, labels=False)
    assert SPEC.physics_key(shown) == (("scale", 3.0), ("count", 4), ("mode", "a"))
    assert SPEC.physics_only(shown) == Controls(scale=3.0, labels=True)


def test_encode_round_trips_every_value():
    controls = Controls(scale=0.123456789012, count=9, mode="b", labels=False)
    state = SPEC.parse_query(SPEC.encode(controls, embed=True))
    assert state.controls == Controls(scale=0.123456789, count=9, mode="b", labels=False)
    assert state.embed and "embed" not in SPEC.encode(controls)


def test_preset_slugs_are_checked():
    with pytest.raises(ValueError, match="slug"):
        Preset("Not A Slug", "x", "y", {})
