"""The play bar's frames: thinned in time, every series cut at the same rows."""

import json

import numpy as np

from app.core.frames import Frames


def test_frames_take_the_same_rows_of_every_series():
    t = np.linspace(0.0, 10.0, 401)
    path = np.stack([np.cos(t), np.sin(t)], axis=1)
    stack = np.arange(401 * 4, dtype=float).reshape(401, 2, 2)
    frames = (
        Frames.along(t, 120)
        .point("path", x=path[:, 0], y=path[:, 1], z=t)
        .lines_on("a", "b")
        .line("c", x=2 * t)
        .heatmap("m", stack)
    )
    assert frames.count <= 120 and frames.t[0] == 0.0 and frames.t[-1] == 10.0
    np.testing.assert_array_equal(frames.points["path"].y, np.sin(frames.t))
    np.testing.assert_array_equal(frames.lines["c"], 2 * frames.t)
    np.testing.assert_array_equal(frames.heatmaps["m"][:, 0, 0], 4 * frames.rows)
    payload = frames.payload(["path", "a", "b", "c", "m"])
    json.dumps(payload, allow_nan=False)
    assert len(payload["cursor"]["path"]["z"]) == frames.count
    assert len(payload["heatmaps"]["m"]) == frames.count


def test_several_markers_per_frame_travel_as_lists():
    t = np.linspace(0, 1, 5)
    frames = Frames.along(t).point("neurons", x=np.ones((5, 3)), y=np.zeros((5, 3)))
    cursor = frames.payload(["neurons"])["cursor"]["neurons"]
    assert cursor["x"] == [[1.0, 1.0, 1.0]] * 5 and "z" not in cursor


def test_matrices_given_as_a_function_are_computed_only_when_sent():
    calls = []

    def stack():
        calls.append(1)
        return np.arange(5 * 2 * 3, dtype=float).reshape(5, 2, 3)

    frames = Frames.along(np.linspace(0, 1, 5), limit=3).heatmap("plane", stack)
    left_out = frames.payload(["plane"], omit=frozenset({"plane"}))
    assert left_out["heatmaps"] == {} and calls == []
    sent = frames.payload(["plane"])
    assert calls == [1] and len(sent["heatmaps"]["plane"]) == 3
    # the frames' rows of the stack, computed once however often they are read
    np.testing.assert_array_equal(frames.heatmaps["plane"], stack()[frames.rows])
    frames.payload(["plane"])
    assert calls == [1, 1]  # (the second call is the check's own)
