"""The figures a view keeps of its last answers (app/core/sent.py)."""

from app.core.sent import SentFigures

GRAPHS = ["surface", "loss"]


def _figure(name: str) -> dict:
    return {"data": [{"name": name}], "layout": {}}


def test_a_kept_state_is_recalled_with_the_graphs_skipped_left_out():
    sent = SentFigures()
    sent.keep(("a", 0, "light"), GRAPHS, [_figure("s"), _figure("l")])
    assert sent.recall(("a", 0, "light"), GRAPHS, frozenset()) == [_figure("s"), _figure("l")]
    assert sent.recall(("a", 0, "light"), GRAPHS, frozenset({"loss"})) == [_figure("s"), None]
    # another frame or theme is another state
    assert sent.recall(("a", 1, "light"), GRAPHS, frozenset()) is None
    assert sent.recall(("a", 0, "dark"), GRAPHS, frozenset()) is None


def test_a_state_sent_without_a_graph_cannot_stand_for_it():
    sent = SentFigures()
    sent.keep("a", GRAPHS, [_figure("s"), None])  # the loss plot was out of sight
    assert sent.recall("a", GRAPHS, frozenset()) is None
    assert sent.recall("a", GRAPHS, frozenset({"loss"})) == [_figure("s"), None]


def test_the_oldest_state_goes_first_and_a_recalled_one_is_young_again():
    sent = SentFigures(size=2)
    sent.keep("a", GRAPHS, [_figure("a"), _figure("a")])
    sent.keep("b", GRAPHS, [_figure("b"), _figure("b")])
    assert sent.recall("a", GRAPHS, frozenset()) is not None  # a is now the youngest
    sent.keep("c", GRAPHS, [_figure("c"), _figure("c")])
    assert sent.recall("b", GRAPHS, frozenset()) is None
    assert sent.recall("a", GRAPHS, frozenset()) is not None
    assert sent.recall("c", GRAPHS, frozenset()) is not None


def test_a_state_that_cannot_be_a_key_is_neither_kept_nor_recalled():
    sent = SentFigures()
    sent.keep((["a"], 0), GRAPHS, [_figure("s"), _figure("l")])
    assert sent.recall((["a"], 0), GRAPHS, frozenset()) is None
    sent.clear()
