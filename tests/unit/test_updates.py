"""Only what changed travels: a figure's difference as a Patch, or nothing."""

import numpy as np
from dash import Patch, no_update

from app.core.updates import Request, echo, figure_update, figure_updates, same


def _figure(y, title="S", shapes=None):
    return {
        "data": [
            {"type": "surface", "z": np.ones((3, 3)), "uid": "layer"},
            {"type": "scatter", "x": [0, 1], "y": y, "name": "exact"},
        ],
        "layout": {"yaxis": {"title": {"text": title}}, **({"shapes": shapes} if shapes else {})},
    }


def _operations(update):
    return [(op["operation"], op["location"]) for op in update.to_plotly_json()["operations"]]


def test_an_unchanged_figure_is_not_sent():
    assert figure_update(_figure([1, 2]), _figure([1, 2])) is no_update


def test_only_the_changed_key_of_the_changed_trace_travels():
    update = figure_update(_figure([1, 2]), _figure([1, 3]))
    assert isinstance(update, Patch)
    assert _operations(update) == [("Assign", ["data", 1, "y"])]


def test_layout_keys_are_set_and_removed():
    update = figure_update(_figure([1, 2], shapes=[{"x0": 1}]), _figure([1, 2], title="K"))
    assert sorted(_operations(update)) == [
        ("Assign", ["layout", "yaxis"]),
        ("Delete", ["layout", "shapes"]),
    ]


def test_a_new_set_of_traces_replaces_the_figure():
    after = _figure([1, 2])
    after["data"].append({"type": "scatter", "y": [0]})
    assert figure_update(_figure([1, 2]), after) is after
    assert figure_update(None, after) is after


def test_same_compares_arrays_and_nan():
    assert same({"a": [np.array([1.0, np.nan])]}, {"a": [np.array([1.0, np.nan])]})
    assert (
        not same(np.array([1, 2]), [1, 2]) and not same(1, 1.0) and same(float("nan"), float("nan"))
    )


def test_requests_are_parsed_defensively():
    raw = {"seq": 3, "frame": 7.9, "theme": "dark", "drawn": {"values": [1], "theme": "x"}}
    assert Request.parse(raw) == Request(3, 7, "dark", ([1], 0, "light"))
    assert Request.parse("junk") == Request()
    assert Request.parse({"seq": True, "frame": float("inf"), "drawn": {"values": "x"}}) == (
        Request(None, 0, "light", None)
    )


def test_the_echo_is_strict_json():
    assert echo([1.5, float("nan"), "x" * 500, [[[[1]]]], {"a": 1}]) == [
        1.5,
        None,
        "x" * 200,
        [[None]],  # nested three deep at most
        None,
    ]


def test_plots_out_of_sight_wait_and_stale_ones_in_sight_are_sent_whole():
    graphs = ["a", "b", "c", "d"]
    drawn = ([1], 0, "light")
    ask = Request.parse(
        {"drawn": {"values": [1]}, "hidden": ["c", "d", "zz", 5], "stale": ["b", "d"]}
    )
    assert (ask.hidden, ask.stale) == ({"c", "d", "zz"}, {"b", "d"})
    assert ask.drawn == drawn
    skipped, whole = ask.plan(graphs)
    assert (skipped, whole) == ({"c", "d"}, {"b"})  # unknown names are ignored
    # a new state leaves every skipped plot behind; the same state only those already behind
    assert ask.stale_after(graphs, skipped, [2]) == ["c", "d"]
    assert ask.stale_after(graphs, skipped, [1]) == ["d"]


def test_a_first_load_draws_every_plot():
    ask = Request.parse({"hidden": ["a", "b"], "stale": ["a"]})
    assert ask.plan(["a", "b"]) == (frozenset(), frozenset())
    assert ask.stale_after(["a", "b"], frozenset(), [1]) == []


def test_a_first_load_leaves_out_the_plots_an_embed_does_not_show():
    ask = Request.parse({"hidden": ["a", "b"], "left_out": ["b", "zz", 3]})
    assert ask.plan(["a", "b"]) == (frozenset({"b"}), frozenset())


def test_a_plot_not_drawn_gets_no_update():
    whole = _figure([2])
    updates = figure_updates([_figure([1]), None], [None, whole])
    assert updates[0] is no_update and updates[1] is whole
