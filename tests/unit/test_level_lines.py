"""The network view's level lines (marching squares), against level sets known in closed form."""

from __future__ import annotations

import numpy as np

from app.views.networks.trajectory_plots import level_segments

AXIS = np.linspace(-1.0, 1.0, 41)
X, Y = np.meshgrid(AXIS, AXIS)


def test_a_plane_s_level_line_is_straight_and_where_it_should_be():
    segments = level_segments(2.0 * X - 0.5, AXIS, 0.3)  # 2x − 0.5 = 0.3 ⇔ x = 0.4
    assert len(segments) == len(AXIS) - 1  # one crossing segment per row of cells
    assert np.allclose(segments[..., 0], 0.4)
    assert np.isclose(segments[..., 1].min(), -1.0) and np.isclose(segments[..., 1].max(), 1.0)


def test_a_circle_s_points_lie_on_it_and_go_all_round():
    segments = level_segments(X**2 + Y**2, AXIS, 0.5**2)
    radius = np.hypot(segments[..., 0], segments[..., 1])
    assert np.max(np.abs(radius - 0.5)) < 2.5e-3  # linear interpolation on a 0.05 grid
    angles = np.arctan2(segments[..., 1], segments[..., 0]).ravel()
    assert np.max(np.diff(np.sort(angles))) < 0.2  # no gap in the circle
    # each segment joins two points of one cell: no segment is longer than a cell's diagonal
    lengths = np.hypot(*(segments[:, 1] - segments[:, 0]).T)
    assert np.all(lengths <= 0.05 * np.sqrt(2) + 1e-12)


def test_a_level_outside_the_values_has_no_line():
    assert level_segments(X + Y, AXIS, 5.0).shape == (0, 2, 2)
