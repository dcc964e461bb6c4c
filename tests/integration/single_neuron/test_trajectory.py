"""The single-neuron view: what it draws against independent solver calls, the comparison of
δ, and the messages for gradient descent and saddle starts."""

import itertools
import math

import numpy as np
import pytest

from app.views.single_neuron import TRAJECTORY as VIEW
from app.views.single_neuron import trajectory_plots as plots
from app.views.single_neuron.trajectory import compared_deltas
from solvers import single_neuron as sn


def controls(**overrides):
    return VIEW.spec.with_overrides(overrides)


def unit(degrees):
    return np.array([math.cos(math.radians(degrees)), math.sin(math.radians(degrees))])


def by_hand(chosen, delta):
    """The exact trajectory as a student would set it up from the controls."""
    eta_a = math.sqrt(chosen.eta_ratio)
    a0, w0 = sn.init_from_norm_delta(
        chosen.tau**2,
        delta,
        unit(chosen.init_angle),
        eta_a=eta_a,
        eta_w=1 / eta_a,
        sign=chosen.sign,
    )
    t = np.linspace(0.0, chosen.horizon, 400)
    beta_star = chosen.target_norm * unit(chosen.target_angle)
    return sn.exact(a0, w0, beta_star, t, eta_a=eta_a, eta_w=1 / eta_a)


def test_the_curves_are_the_exact_solution_of_the_controls():
    chosen = controls(delta=-1.5, tau=0.7, init_angle=160.0, eta_ratio=3.0, target_norm=2.0)
    run = VIEW.compute(chosen)
    path = by_hand(chosen, -1.5)
    mu = plots.draw_mu(chosen, run)["data"][0]
    assert mu["x"] == pytest.approx(path.t) and mu["y"] == pytest.approx(path.mu, abs=1e-12)
    kernel = plots.draw_kernel(chosen, run)["data"][0]
    assert kernel["y"] == pytest.approx(path.kernel_distance, abs=1e-12)
    # the play bar follows the same path in the 3-D scene
    frames = VIEW.frames(chosen, run)
    assert frames.points["surface"].z == pytest.approx(path.a[frames.rows])
    # and gradient descent is drawn on the same axes, starting at the same point
    descent = plots.draw_mu(chosen, run)["data"][1]
    assert descent["y"][0] == pytest.approx(path.mu[0])


def test_compare_draws_one_exact_curve_per_delta():
    chosen = controls(mode="compare", spread=3.0, horizon=10.0)
    run = VIEW.compute(chosen)
    assert [c.delta for c in run.compare] == [-3.0, -0.3, 0.0, 0.3, 3.0]
    assert compared_deltas(chosen) == (-3.0, -0.3, 0.0, 0.3, 3.0)
    curves = plots.draw_phi(chosen, run)["data"]
    assert [c["name"] for c in curves] == [f"δ = {d:g}" for d in compared_deltas(chosen)]
    for curve, delta in zip(curves, compared_deltas(chosen), strict=True):
        assert curve["y"] == pytest.approx(by_hand(chosen, delta).phi, abs=1e-12)
    assert len(VIEW.tables(chosen, run)) == 5


def test_the_regime_follows_delta_relative_to_the_target():
    for delta, words in ((20.0, "upstream — lazy"), (0.0, "balanced"), (-5.0, "delayed rich")):
        chosen = controls(delta=delta, descent=False)
        facts = dict(VIEW.facts(chosen, VIEW.compute(chosen)))
        assert words in facts["regime"]


def test_messages_for_capped_and_diverging_descent_and_for_a_saddle_start():
    capped = controls(horizon=1000.0, lr=0.001)
    (note,) = VIEW.notes(capped, VIEW.compute(capped))
    assert "20,000 steps" in note and "t = 20" in note
    wild = controls(tau=3.0, lr=2.0, delta=0.0)
    assert any("diverged" in n for n in VIEW.notes(wild, VIEW.compute(wild)))
    # balanced, β₀ pointing away from β*: the exact flow ends at the saddle
    saddle = controls(delta=0.0, init_angle=-90.0, target_angle=90.0, descent=False)
    run = VIEW.compute(saddle)
    assert any("stable manifold" in n for n in VIEW.notes(saddle, run))
    assert dict(VIEW.facts(saddle, run))["converges to"] == "the saddle at the origin"


def test_the_scene_box_holds_the_path_and_a_step_of_delta_seldom_moves_its_axes():
    """The box has a quarter's margin around the path (a quarter more at most), and most
    steps of δ keep its ranges (plotly rebuilds a 3-D axis's labels when they change)."""
    ranges = []
    for step in range(-10, 11):
        chosen = controls(delta=0.1 * step)
        run = VIEW.compute(chosen)
        scene = plots.draw_surface(chosen, run)["layout"]["scene"]
        half_w, half_a = scene["xaxis"]["range"][1], scene["zaxis"]["range"][1]
        assert scene["yaxis"]["range"] == [-half_w, half_w]
        assert scene["xaxis"]["range"][0] == -half_w and scene["zaxis"]["range"][0] == -half_a
        path_w = max(float(np.max(np.hypot(run.exact.w[:, 0], run.exact.w[:, 1]))), 0.5)
        path_a = max(float(np.max(np.abs(run.exact.a))), 0.5)
        assert 1.25 * path_w <= half_w <= 1.25 * 1.26 * path_w
        assert 1.25 * path_a <= half_a <= 1.25 * 1.26 * path_a
        ranges.append((half_w, half_a))
    moves = sum(a != b for a, b in itertools.pairwise(ranges))
    assert moves <= 5, ranges
