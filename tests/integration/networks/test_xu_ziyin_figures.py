"""Xu & Ziyin's figures on the network view: Fig. 1 for all five activations, the six-layer
network of Fig. 6 within the view's depth cap, and the two Fig. 7 runs — against networks built
and trained here from the engine's documented pieces (the views' seeding convention)."""

import numpy as np
import pytest

from app.views.networks import TRAJECTORY as VIEW
from app.views.networks import results, trajectory_plots
from app.views.networks.xu_ziyin_figures import PRESETS
from solvers import finite_width as fw
from solvers import networks as nw
from tests.integration.networks import streams

BY_SLUG = {preset.slug: preset for preset in PRESETS}


def at(slug: str):
    return VIEW.spec.with_overrides(BY_SLUG[slug].values)


def test_fig_1_has_both_rows_for_all_five_activations():
    rows = {}
    for preset in PRESETS:
        if preset.figure == "Fig. 1":
            chosen = VIEW.spec.with_overrides(preset.values)
            rows.setdefault(chosen.activation, set()).add(chosen.init)
            assert preset.claim is not None and preset.paper_setting and preset.differs
    assert set(rows) == {"linear", "relu", "leaky_relu", "sigmoid", "swish"}
    for activation in ("relu", "leaky_relu", "sigmoid", "swish"):
        assert rows[activation] == {"gaussian", "parallel"}, activation


@pytest.mark.parametrize("slug", ["fig-1-swish-disalignment-nearly-parallel"])
def test_a_new_activations_zeta_is_the_network_trained_by_hand(slug):
    """ζ = |cos(u, w)| of the nearly parallel swish network, trained here (Fig. 1, lower row)."""
    chosen = at(slug)
    data_rng, weight_rng = streams(chosen.seed)
    X, y, _, _ = nw.regression_line(chosen.n, n_test=chosen.n_test, seed=data_rng)
    u0, W0 = fw.near_parallel_init(
        chosen.width, np.ones(1), chosen.sigma, chosen.sigma, weight_rng, noise=0.1
    )
    net = nw.Network((W0, u0[None, :]), "swish", chosen.width**-0.5)
    run = nw.train(net, X, y, lr=chosen.lr, steps=chosen.steps, record=[0, chosen.steps])
    w, u = run.final.weights[0][:, 0], run.final.weights[1][0]
    by_hand = abs(u @ w) / (np.linalg.norm(u) * np.linalg.norm(w))
    result = VIEW.compute(chosen)
    assert result.curves.zeta[-1, 0] == pytest.approx(by_hand, rel=1e-9)
    assert result.curves.zeta[0, 0] > 0.95 and by_hand < 0.5  # disalignment


def test_the_six_layer_network_of_fig_6_fits_the_depth_cap_and_draws_five_pairs():
    assert VIEW.spec.by_name["depth"].high == 6
    chosen = at("fig-6-six-layer-relu-on-the-digits")
    scenario, setting = results.build(chosen)
    assert setting.widths == (64, 50, 50, 50, 50, 50, 10) and setting.steps == chosen.steps
    assert not setting.notes  # nothing was cut to fit the budget
    result = VIEW.compute(chosen)
    figure = trajectory_plots.draw_zeta(chosen, result)
    curves = [t for t in figure["data"] if str(t.get("name", "")).startswith("ζ between")]
    assert len(curves) == 5
    colours = {t.get("line", t.get("marker", {})).get("color") for t in curves}
    assert len(colours) == 5  # every pair its own colour
    # the first pair's ζ is ‖W₂W₁‖₂/(‖W₂‖₂‖W₁‖₂) of the trained network
    first, second = scenario.train(record=np.array([0, chosen.steps])).final.weights[:2]
    norm = np.linalg.norm
    expected = norm(second @ first, 2) / (norm(second, 2) * norm(first, 2))
    assert result.curves.zeta[-1, 0] == pytest.approx(expected, rel=1e-8)


def test_fig_7s_logistic_runs_settle_and_say_how_they_differ():
    aligning = VIEW.compute(at("fig-7-two-gaussians-logistic-loss"))
    disaligning = VIEW.compute(at("fig-7-two-gaussians-disalignment"))
    assert aligning.setting.loss == disaligning.setting.loss == "bce"
    # both reach the same floor of a bias-free ReLU network on these points: not zero
    floor = disaligning.curves.loss[-1]
    assert 0.2 < floor < 0.4 and aligning.curves.loss[-1] == pytest.approx(floor, rel=0.01)
    assert "finite minimum" in BY_SLUG["fig-7-two-gaussians-disalignment"].differs
