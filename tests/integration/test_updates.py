"""A change redraws only the plots it changes, with only the traces it changes; the play bar's
cursor stays where the page has it."""

from dash import Patch, no_update
from plotly.io.json import to_json_plotly

from app.cache import ResultCache
from app.views import lambda_balanced
from app.views.single_neuron import MAP, TRAJECTORY


def _answer(view, cache, controls, drawn=None, frame=0, hidden=(), stale=()):
    request = {
        "seq": 2,
        "frame": frame,
        "drawn": None if drawn is None else {"values": view.spec.to_controls(drawn), "frame": 0},
        "hidden": list(hidden),
        "stale": list(stale),
    }
    raw = view.spec.to_controls(controls)
    return view.update(cache, request, raw, {"embed": False, "messages": []})


def _touched(update) -> set:
    return {tuple(op["location"][:2]) for op in update.to_plotly_json()["operations"]}


def test_a_step_size_change_sends_only_the_descent_traces(cache):
    before = TRAJECTORY.spec.defaults()
    after = TRAJECTORY.spec.with_overrides({"lr": 0.02})
    _answer(TRAJECTORY, cache, before)  # what the page shows (now cached)
    by_graph = _answer(TRAJECTORY, cache, after, drawn=before).by_graph
    surface = by_graph["surface"]
    assert isinstance(surface, Patch)
    names = [t.get("name") for t in _answer(TRAJECTORY, cache, after).figure("surface")["data"]]
    descent = names.index("gradient descent")
    # the δ-surface, the minima and the exact path are not sent again
    assert _touched(surface) == {("data", descent)}
    for graph in ("mu", "phi", "kernel", "loss"):
        assert all(loc[0] == "data" for loc in _touched(by_graph[graph])), graph


def test_a_display_only_change_of_a_map_redraws_one_plot(cache):
    before = MAP.spec.defaults()
    after = MAP.spec.with_overrides({"labels": False})
    _answer(MAP, cache, before)
    figures = _answer(MAP, cache, after, drawn=before).figures
    assert isinstance(figures[0], Patch) and figures[1] is no_update and figures[2] is no_update
    assert _touched(figures[0]) == {("layout", "annotations")}


def test_an_answer_against_the_figures_kept_equals_one_against_a_redraw(cache):
    before = TRAJECTORY.spec.defaults()
    after = TRAJECTORY.spec.with_overrides({"lr": 0.02, "delta": 0.7})
    _answer(TRAJECTORY, cache, before)  # kept by the view, and its result cached
    kept = [_json(f) for f in _answer(TRAJECTORY, cache, after, drawn=before).figures]
    TRAJECTORY.sent.clear()
    redrawn = [_json(f) for f in _answer(TRAJECTORY, cache, after, drawn=before).figures]
    assert kept == redrawn
    assert any(f != "no_update" for f in kept)
    # kept figures stand in for a result the cache no longer has: still only the changes
    _answer(TRAJECTORY, cache, before)
    emptied = ResultCache.in_memory()
    assert kept == [_json(f) for f in _answer(TRAJECTORY, emptied, after, drawn=before).figures]
    TRAJECTORY.sent.clear()
    whole = _answer(TRAJECTORY, ResultCache.in_memory(), after, drawn=before).figures
    assert all(isinstance(f, dict) for f in whole)


def _json(update) -> str:
    """An update as the page receives it (no_update: nothing)."""
    if update is no_update:
        return "no_update"
    return to_json_plotly(update.to_plotly_json() if isinstance(update, Patch) else update)


def test_an_unknown_drawn_state_gets_whole_figures(cache):
    before = TRAJECTORY.spec.with_overrides({"delta": 3.3, "horizon": 7.7})  # never computed
    figures = _answer(TRAJECTORY, cache, TRAJECTORY.spec.defaults(), drawn=before).figures
    assert len(figures) == len(TRAJECTORY.panels)
    assert all(isinstance(f, dict) and f["data"] for f in figures)


def test_the_cursor_is_drawn_at_the_page_s_frame(cache):
    controls = TRAJECTORY.spec.defaults()
    answer = _answer(TRAJECTORY, cache, controls, frame=30)
    frames = answer.frames
    # on the 3-D scene the marker is data, placed at the frame the page shows
    (cursor,) = [t for t in answer.figure("surface")["data"] if t.get("uid") == "cursor"]
    assert cursor["z"] == [frames["cursor"]["surface"]["z"][30]]
    # on 2-D plots the browser draws it over the plot: no cursor in the figure
    mu = answer.figure("mu")
    assert not [s for s in mu["layout"]["shapes"] if s.get("name") == "cursor"]
    function = answer.figure("function")
    assert not [t for t in function["data"] if t.get("uid") == "cursor"]
    assert frames["cursor"]["function"]["x"] and frames["lines"]["mu"]


def test_plots_out_of_sight_are_left_and_brought_up_to_date_in_sight(cache):
    graphs = [p.graph for p in TRAJECTORY.panels]
    before = TRAJECTORY.spec.defaults()
    after = TRAJECTORY.spec.with_overrides({"lr": 0.02})
    whole = _answer(TRAJECTORY, cache, after).by_graph
    _answer(TRAJECTORY, cache, before)
    answer = _answer(TRAJECTORY, cache, after, drawn=before, hidden=["kernel", "loss"])
    figures = answer.by_graph
    assert figures["kernel"] is no_update and figures["loss"] is no_update
    assert isinstance(figures["mu"], Patch)
    assert answer.stale == ["kernel", "loss"]
    # "loss" scrolled into view: asked again for the same values, it alone comes, whole
    again = _answer(
        TRAJECTORY, cache, after, drawn=after, hidden=["kernel"], stale=["kernel", "loss"]
    )
    figures = again.by_graph
    assert figures["loss"] == whole["loss"]
    assert all(figures[g] is no_update for g in graphs if g != "loss")
    assert again.stale == ["kernel"]


def test_the_frames_leave_out_the_matrices_of_stale_plots_until_they_are_in_sight(cache):
    # a matrix plot left out of sight by a change gets no frames (60 matrices for a network's
    # function plane); in sight again, its figure and its frames come whole
    view = lambda_balanced.TRAJECTORY
    before = view.spec.defaults()
    after = view.spec.with_overrides({"lam": 1.0})
    first = _answer(view, cache, before).frames
    assert {"function", "rsm_in", "rsm_out"} <= set(first["heatmaps"])
    changed = _answer(view, cache, after, drawn=before, hidden=["rsm_in", "rsm_out"])
    assert changed.stale == ["rsm_in", "rsm_out"]
    assert set(changed.frames["heatmaps"]) == {"function"}
    again = _answer(
        view, cache, after, drawn=after, hidden=["rsm_out"], stale=["rsm_in", "rsm_out"]
    )
    assert again.stale == ["rsm_out"]
    fresh = _answer(view, cache, after).frames
    assert set(again.frames["heatmaps"]) == {"function", "rsm_in"}
    assert again.frames["heatmaps"]["rsm_in"] == fresh["heatmaps"]["rsm_in"]
