"""The low-rank single-neuron view (Kunin et al. Fig. 4b): what it draws against flows set up
here by hand and the raw ODE, Theorem 3.1's points and limits written from the data, the
messages, the downloads and the paper card."""

import dataclasses
import math

import numpy as np
import pytest

from app import paper_figures
from app.core.downloads import to_csv
from app.views.single_neuron import LOW_RANK as VIEW
from app.views.single_neuron import low_rank_plots as plots
from app.views.single_neuron.low_rank import compared_deltas
from solvers import single_neuron as sn
from tests import flows
from tests.integration.calls import answer
from tests.integration.single_neuron.downloads import low_rank_expected

FIG_4B = "fig-4b-low-rank-data-implicit-bias"


def controls(**overrides):
    return VIEW.spec.with_overrides({**VIEW.preset_named(FIG_4B).values, **overrides})


def traces(figure, name):
    return [t for t in figure["data"] if t.get("name") == name]


def raw_path(chosen, delta, t):
    """β(t) of the raw ODE on (a, w) with XᵀX = xxᵀ, Xᵀy = x y (tests/flows.py)."""
    x = np.array([chosen.x_1, chosen.x_2])
    beta0 = chosen.beta0_scale * np.array([chosen.beta0_1, chosen.beta0_2])
    a0, w0 = sn.init_from_beta(beta0, delta)

    def rhs(state):
        a, w = state[0], state[1:]
        gradient = x * (x @ (a * w) - chosen.y)
        return np.concatenate([[-(w @ gradient)], -a * gradient])

    states = flows.integrate(rhs, np.concatenate([[a0], w0]), t)
    return states[:, :1] * states[:, 1:]


def test_the_papers_setting_is_the_default_and_the_preset():
    chosen = VIEW.spec.defaults()
    x = np.array([chosen.x_1, chosen.x_2])
    assert np.outer(x, x) == pytest.approx(np.array([[0.25, 0.5], [0.5, 1.0]]))
    assert x * chosen.y / (x @ x) == pytest.approx([0.44, 0.88])  # β*, the least-norm solution
    assert (chosen.beta0_1, chosen.beta0_2, chosen.beta0_scale) == (0.4, 0.05, 1.0)
    assert chosen == controls() and chosen.horizon == 20.0


@pytest.mark.parametrize("delta", [-5.0, 0.0, 2.0])
def test_the_paths_are_the_flow_of_the_controls(delta):
    chosen = controls()
    run = VIEW.compute(chosen)
    (drawn,) = traces(plots.draw_plane(chosen, run), f"δ = {delta:g}")
    reference = raw_path(chosen, delta, run.paths[0].t)
    assert drawn["x"] == pytest.approx(reference[:, 0], abs=1e-9)
    assert drawn["y"] == pytest.approx(reference[:, 1], abs=1e-9)
    expected = low_rank_expected(dataclasses.asdict(chosen), run.paths[0].t)  # δ = −5, first
    assert run.paths[0].beta[:, 0] == pytest.approx(expected["beta_1"], rel=1e-12, abs=1e-14)


def test_every_delta_ends_on_theorem_3_1s_dot_on_the_line():
    chosen = controls()
    run = VIEW.compute(chosen)
    figure = plots.draw_plane(chosen, run)
    assert [p.delta for p in run.paths] == [-5.0, -2.0, -1.0, 0.0, 1.0, 2.0, 5.0]
    (dots,) = traces(figure, "Theorem 3.1")
    ends = np.array([p.beta[-1] for p in run.paths])
    assert np.column_stack([dots["x"], dots["y"]]) == pytest.approx(ends, abs=1e-10)
    assert 0.5 * np.asarray(dots["x"]) + np.asarray(dots["y"]) == pytest.approx(1.1, abs=1e-12)
    # the green line is xᵀβ = y
    (line,) = traces(figure, "interpolants xᵀβ = y")
    assert 0.5 * np.asarray(line["x"]) + np.asarray(line["y"]) == pytest.approx(1.1, abs=1e-12)
    assert not traces(figure, "Theorem 3.1 for −β₀") and VIEW.notes(chosen, run) == []


def test_the_limits_are_drawn_where_the_data_put_them():
    """δ = +∞: the interpolant nearest β₀, straight along x; δ = −∞: β₀ stretched to the line."""
    chosen = controls()
    run = VIEW.compute(chosen)
    figure = plots.draw_plane(chosen, run)
    x, beta0 = np.array([0.5, 1.0]), np.array([0.4, 0.05])
    nearest = beta0 + x * (1.1 - x @ beta0) / (x @ x)
    stretched = beta0 * 1.1 / (x @ beta0)
    (up,) = traces(figure, "δ = +∞")
    (down,) = traces(figure, "δ = −∞")
    assert np.column_stack([up["x"], up["y"]]) == pytest.approx(np.array([beta0, nearest]))
    assert np.column_stack([down["x"], down["y"]]) == pytest.approx(np.array([beta0, stretched]))
    # the angle panel: the flows' circles on the theorem's curve, between the two limits
    ends = plots.draw_ends(chosen, run)
    (curve,) = traces(ends, "Theorem 3.1")
    circles = traces(ends, "flow at t = 20")
    assert [c["x"][0] for c in circles] == [p.delta for p in run.paths]
    on_curve = np.interp([c["x"][0] for c in circles], curve["x"], curve["y"])
    angles = [c["y"][0] for c in circles]
    assert on_curve == pytest.approx(angles, abs=0.05)  # the curve is drawn at 161 δ
    levels = [traces(ends, name)[0]["y"][0] for name in ("δ = −∞", "δ = +∞")]
    cosine = nearest @ beta0 / (np.linalg.norm(nearest) * np.linalg.norm(beta0))
    assert levels == pytest.approx([0.0, math.degrees(math.acos(cosine))], abs=1e-9)
    assert levels[0] < min(angles) and max(angles) < levels[1]


def test_the_limits_switch_only_changes_the_display():
    off = controls(limits=False)
    run = VIEW.compute(off)
    assert not traces(plots.draw_plane(off, run), "δ = +∞")
    assert not traces(plots.draw_ends(off, run), "δ = −∞")
    assert VIEW.spec.physics_key(off) == VIEW.spec.physics_key(controls())


def test_a_start_beyond_the_origin_crosses_zero_and_ends_at_minus_beta0s_point():
    preset = VIEW.preset_named("low-rank-start-beyond-the-origin")
    chosen = VIEW.spec.with_overrides(preset.values)
    run = VIEW.compute(chosen)
    crossed = [p.delta for p in run.paths if p.through_zero]
    assert crossed == [-5.0, -2.0, -1.0]
    (note,) = VIEW.notes(chosen, run)
    assert "δ = −5, −2, −1" in note and "−β₀" in note
    plane = plots.draw_plane(chosen, run)
    (marks,) = traces(plane, "Theorem 3.1 for −β₀")
    for delta, x, y in zip(crossed, marks["x"], marks["y"], strict=True):
        end = raw_path(chosen, delta, np.array([0.0, 40.0]))[-1]
        assert (x, y) == pytest.approx(tuple(end), abs=1e-8)
    # δ → −∞ runs along β₀'s line through 0 to the multiple of −β₀ that interpolates
    (down,) = traces(plane, "δ = −∞")
    assert np.array(down["x"]) * -0.05 == pytest.approx(np.array(down["y"]) * -0.4)
    assert down["x"][1] > 0 and run.downstream_through_zero
    # the angle curve jumps where flows start crossing: broken there, not joined
    (curve,) = traces(plots.draw_ends(chosen, run), "Theorem 3.1")
    gaps = np.flatnonzero(np.isnan(np.asarray(curve["x"], dtype=float)))
    assert len(gaps) == 1 and -2 * 5.0 < curve["x"][gaps[0] + 1] < 0


def test_a_small_start_ends_near_the_least_norm_interpolant_unless_downstream():
    chosen = VIEW.spec.with_overrides(
        VIEW.preset_named("low-rank-small-start-upstream-like-balanced").values
    )
    run = VIEW.compute(chosen)
    gap = {p.delta: float(np.hypot(*(p.beta[-1] - [0.44, 0.88]))) for p in run.paths}
    assert max(gap[d] for d in gap if d >= 0) < 0.06 and gap[min(gap)] > 1.0


def test_messages_for_a_short_horizon_a_start_across_x_and_no_data(cache):
    short = controls(horizon=0.5)
    assert any("has not reached" in n for n in VIEW.notes(short, VIEW.compute(short)))
    across = controls(beta0_1=1.0, beta0_2=-0.5)  # xᵀβ₀ = 0
    run = VIEW.compute(across)
    assert run.downstream is None
    assert any("infinity" in n for n in VIEW.notes(across, run))
    assert not traces(plots.draw_plane(across, run), "δ = −∞")
    for bad in (controls(x_1=0.0, x_2=0.0), controls(beta0_1=0.0, beta0_2=0.0)):
        messages = " ".join(answer(VIEW, cache, bad).texts)
        assert "could not be computed" in messages
        assert "move x" in messages or "move β₀" in messages


def test_compared_deltas_follow_the_spread_and_the_downloads_hold_every_path():
    chosen = controls(spread=2.5)
    assert compared_deltas(chosen) == (-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5)
    run = VIEW.compute(chosen)
    tables = VIEW.tables(chosen, run)
    assert list(tables)[:7] == [f"exact delta={d:g}" for d in compared_deltas(chosen)]
    assert tables["theorem 3.1"]["beta"].shape == (len(run.sweep_deltas), 2)
    text = to_csv(chosen, tables)
    assert text.count("\nexact delta=-2.5,") == len(run.paths[0].t)
    expected = low_rank_expected(dataclasses.asdict(chosen), run.paths[0].t)
    assert tables["exact delta=-2.5"]["a"] == pytest.approx(expected["a"], rel=1e-12)


def test_the_paper_card_shows_the_plane_and_its_claim_holds(cache):
    (card,) = [c for c in paper_figures.CARDS if c.view is VIEW]
    assert card.preset.slug == FIG_4B and card.panel.graph == "plane"
    content = paper_figures.card_content(card, cache)
    assert content.holds and "of Theorem 3.1's point" in content.found
    kunin = [c.preset.figure for c in paper_figures.CARDS if c.key.startswith("single-neuron")]
    assert kunin.index("Fig. 4b") == kunin.index("Fig. 4a") + 1
