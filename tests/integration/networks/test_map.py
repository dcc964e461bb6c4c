"""The network map (Kunin et al. Fig. 1b): its cells against single networks trained here, a
click opening exactly that network in the network view, the budget that cuts large maps with
their expected time said first, the background job's progress, and the downloads."""

import dataclasses
import math
import time
from urllib.parse import urlsplit

import numpy as np
import pytest

from app.views.networks import MAP as VIEW
from app.views.networks import TRAJECTORY
from app.views.networks import map as network_map
from solvers import networks as nw
from solvers.networks import _request as nw_request
from tests.dash_client import payload
from tests.integration.networks import drawn, kunin_teacher_student

SPEC = VIEW.spec
BALANCE = network_map.BALANCE_BY
SMALL = {"resolution": 5, "steps": 300, "n": 12, "n_test": 40, "width": 10, "seed": 4}


def controls(**overrides):
    return SPEC.with_overrides(SMALL | overrides)


def single(chosen, row, column, record=None):
    """The cell (row τ, column δ) of ``chosen``'s seed trained here as one network, lr = c/τ²
    (Kunin et al. D.1), recorded at the start and the end unless ``record`` says otherwise."""
    taus = np.geomspace(0.1, 2.0, chosen.resolution)
    deltas = np.linspace(-chosen.spread, chosen.spread, chosen.resolution)
    tau, delta = float(f"{taus[row]:.10g}"), float(f"{deltas[column]:.10g}") + 0.0
    X, y, X_test, y_test, net = kunin_teacher_student(chosen, tau=tau, delta=delta)
    lr = float(f"{chosen.rate / tau**2:.10g}")
    return nw.train(
        net,
        X,
        y,
        lr=lr,
        steps=chosen.steps,
        record=[0, chosen.steps] if record is None else record,
        X_test=X_test,
        y_test=y_test,
    )


def test_the_patterns_map_hovers_kunin_et_al_s_hamming_distance_of_each_cell():
    """The colour is the share of (input, unit) pairs changed; the hover, Kunin et al.'s
    Hamming distance (their code's compute_hamming_distance: units whose np.sign changed, per
    input, averaged), taken here from the cell's first layer at the start and the end."""
    chosen, _, figures = drawn(VIEW, **SMALL)
    heat = figures["activation"]["data"][0]
    assert "Hamming distance" in heat["hovertemplate"] and "customdata" in heat["hovertemplate"]
    taus = np.geomspace(0.1, 2.0, chosen.resolution)
    deltas = np.linspace(-chosen.spread, chosen.spread, chosen.resolution)
    for row, column in ((0, 0), (1, 3), (4, 4)):
        tau, delta = float(f"{taus[row]:.10g}"), float(f"{deltas[column]:.10g}") + 0.0
        X, *_, net = kunin_teacher_student(chosen, tau=tau, delta=delta)
        end = single(chosen, row, column).final.weights[0]
        signs = np.sign(X @ net.weights[0].T), np.sign(X @ end.T)  # (n, h) each
        theirs = float((signs[0] != signs[1]).mean(axis=0).sum())
        assert heat["customdata"][row][column][0] == pytest.approx(theirs, rel=1e-12, abs=1e-12)
    assert np.max(heat["customdata"]) > 0


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_cells_are_single_networks_trained_by_hand(activation):
    chosen, computed, figures = drawn(VIEW, **SMALL, activation=activation, spread=0.5)
    result = computed.final
    assert result.kernel_distance.shape == (5, 5) and result.step == chosen.steps
    for row, column in ((0, 0), (2, 4), (4, 1)):
        run = single(chosen, row, column)
        assert result.test_loss[row, column] == pytest.approx(run.test_loss[-1], rel=1e-9)
        assert result.kernel_distance[row, column] == pytest.approx(
            run.kernel_distance[-1], rel=1e-7, abs=1e-12
        )
        assert result.activation_distance[row, column] == run.activation_distance[-1]
    heat = figures["kernel"]["data"][0]
    np.testing.assert_array_equal(heat["z"], result.kernel_distance)
    np.testing.assert_allclose(heat["y"], np.geomspace(0.1, 2.0, 5), rtol=1e-9)
    logs = figures["test_loss"]["data"][0]["z"]
    np.testing.assert_allclose(logs, np.log10(result.test_loss), rtol=1e-12)


def test_the_map_after_each_recorded_step_is_its_networks_at_that_step():
    """Recorded at every decade (Kunin et al. save 10, 100, … steps): the map shown after a
    decade is each cell's network, trained here, at that step — drawn and in its facts."""
    chosen, computed, _ = drawn(VIEW, **SMALL)
    assert list(computed.recorded) == [0, 10, 100, 300]
    runs = {cell: single(chosen, *cell, record=[0, 10, 100, 300]) for cell in ((0, 4), (3, 1))}
    for shown, index in (("10", 1), ("100", 2), ("end", 3), ("1000", 3)):
        result = computed.at(shown)
        assert result.step == computed.recorded[index]
        for (row, column), run in runs.items():
            assert result.kernel_distance[row, column] == pytest.approx(
                run.kernel_distance[index], rel=1e-7, abs=1e-12
            )
            assert result.loss[row, column] == pytest.approx(run.loss[index], rel=1e-9)
        later = SPEC.with_overrides(SMALL | {"shown": shown})
        heat = VIEW.panels[0].draw(later, computed)["data"][0]
        np.testing.assert_array_equal(heat["z"], result.kernel_distance)
        assert f"after {result.step:,} steps" in heat["hovertemplate"]
        assert ("shown", f"after {result.step:,} steps") in [
            (name, text.split(" (")[0]) for name, text in VIEW.facts(later, computed)
        ]
    # each recorded step is a map of its own; a decade the map never reached shows its last
    assert not np.allclose(computed.at("10").kernel_distance, result.kernel_distance, rtol=0.01)
    (note,) = VIEW.notes(SPEC.with_overrides(SMALL | {"shown": "1000"}), computed)
    assert note == "The map trained 300 steps, fewer than 1,000: it shows the last one."


def test_a_map_of_several_seeds_is_the_mean_of_their_networks_with_their_spread():
    """Each seed draws its own teacher, data and base weights (Kunin et al. D.1); each cell is
    the mean of its networks over the seeds, the hover and the downloads their spread."""
    chosen, computed, figures = drawn(VIEW, **SMALL, seeds=3)
    result = computed.final
    for row, column in ((0, 0), (2, 3)):
        runs = [single(dataclasses.replace(chosen, seed=seed), row, column) for seed in (4, 5, 6)]
        losses = np.array([run.test_loss[-1] for run in runs])
        distances = np.array([run.kernel_distance[-1] for run in runs])
        assert result.test_loss[row, column] == pytest.approx(losses.mean(), rel=1e-9)
        assert result.spread.test_loss[row, column] == pytest.approx(losses.std(), rel=1e-7)
        assert result.kernel_distance[row, column] == pytest.approx(
            distances.mean(), rel=1e-7, abs=1e-12
        )
        assert np.ptp(losses) > 0  # the seeds differ
    heat = figures["test_loss"]["data"][0]
    assert "sd of 3 seeds" in heat["hovertemplate"]
    np.testing.assert_allclose(
        np.asarray(heat["customdata"])[..., 1], result.spread.test_loss, rtol=1e-12
    )
    facts = dict(VIEW.facts(chosen, computed))
    assert facts["the map"].endswith("the mean of 3 seeds (4–6)")
    table = VIEW.tables(chosen, computed)[f"map after {chosen.steps} steps"]
    np.testing.assert_allclose(table["test_loss_sd"], result.spread.test_loss.ravel())
    # one seed: no spread anywhere, not even as zeros the page would receive
    one = drawn(VIEW, **SMALL)[2]
    single_seed = one["test_loss"]["data"][0]
    assert "seeds" not in single_seed["hovertemplate"]
    assert np.asarray(single_seed["customdata"]).shape[-1] == 1  # the value, no spread
    assert "customdata" not in one["kernel"]["data"][0]
    assert np.asarray(one["activation"]["data"][0]["customdata"]).shape[-1] == 1


def test_a_map_still_being_computed_is_the_mean_of_the_seeds_done_so_far(monkeypatch):
    """A heavy map's parts (seed × block of rows) drawn before they are all done
    (app/core/parts.py ``partial``): each cell is the mean and spread of the seeds trained in
    its row so far, a row none has reached is blank (NaN), and the page says how much is
    there; every part done, the map is the whole one."""
    monkeypatch.setattr(network_map, "heavy", lambda controls: True)  # (rows cut in blocks)
    chosen = SPEC.physics_only(controls(seeds=2, resolution=6))
    layout = network_map.blocks(chosen)
    assert [(seed, rows.start) for seed, rows in layout] == [(4, 0), (4, 3), (5, 0), (5, 3)]
    parts = [network_map._train_block(chosen, i, lambda *_: None) for i in range(4)]
    by_seed = {  # (R, S, D) of each seed, its two blocks of rows put together by hand
        seed: np.concatenate([parts[i].test_loss for i in pair], axis=1)
        for seed, pair in ((4, (0, 1)), (5, (2, 3)))
    }
    three = network_map.PARTS.partial(chosen, {0: parts[0], 1: parts[1], 2: parts[2]})
    np.testing.assert_array_equal(three.seeds_done, [2, 2, 2, 1, 1, 1])
    both = np.stack([by_seed[4][:, :3], by_seed[5][:, :3]])
    np.testing.assert_allclose(three.mean.test_loss[:, :3], both.mean(axis=0), rtol=1e-14)
    np.testing.assert_allclose(three.spread.test_loss[:, :3], both.std(axis=0), rtol=1e-12)
    np.testing.assert_array_equal(three.mean.test_loss[:, 3:], by_seed[4][:, 3:])
    np.testing.assert_array_equal(three.spread.test_loss[:, 3:], 0.0)
    one = network_map.PARTS.partial(chosen, {2: parts[2]})
    np.testing.assert_array_equal(one.seeds_done, [1, 1, 1, 0, 0, 0])
    assert np.isnan(one.mean.kernel_distance[:, 3:]).all()
    assert np.isfinite(one.mean.kernel_distance[:, :3]).all()
    # drawn: blank rows, the spread of the seeds so far, how much is there in the summary
    shown = SPEC.with_overrides(SMALL | {"seeds": 2, "resolution": 6})
    for partial, trained in ((three, 54), (one, 18)):
        heats = [panel.draw(shown, partial)["data"][0] for panel in VIEW.panels]  # (each one)
        assert np.isfinite(heats[0]["zmax"])
        assert all(np.isnan(heat["z"][3:]).all() == (partial is one) for heat in heats)
        facts = dict(VIEW.facts(shown, partial))
        assert facts["so far"].startswith(f"{trained} of its 72 networks trained")
        assert "nan" not in " ".join(facts.values())
    assert "blank rows" in dict(VIEW.facts(shown, one))["so far"]
    loss = VIEW.panels[1].draw(shown, three)["data"][0]
    assert "sd of the seeds trained so far" in loss["hovertemplate"]
    # every part: the whole map, no longer partial
    whole = network_map.PARTS.partial(chosen, dict(enumerate(parts)))
    assert whole.seeds_done is None and "so far" not in dict(VIEW.facts(shown, whole))
    np.testing.assert_array_equal(
        whole.mean.test_loss, np.stack(list(by_seed.values())).mean(axis=0)
    )


def test_rows_beyond_one_engine_call_train_in_stages_as_one_run(monkeypatch):
    """A row of cells whose steps alone exceed the engine's MAX_WORK (the paper's sizes for
    10⁴ steps) is trained in stages, each continuing the one before from the true start: the
    map is the one of single calls, to rounding, recorded steps and all."""
    chosen = controls(rate=0.05)  # (a cell diverges: its step survives the stages too)
    whole = VIEW.compute(chosen)
    physics = network_map.within_budget(SPEC.physics_only(chosen))
    row = network_map._work(physics, physics.steps) / physics.resolution
    for module in (nw, nw_request):  # (what the map reads, and what the engine checks)
        monkeypatch.setattr(module, "MAX_WORK", 0.3 * row)
    stage = network_map._stage_steps(physics, 1)
    assert 0 < stage < physics.steps / 3
    with pytest.raises(ValueError, match="at most"):  # one call of a row is refused now
        network_map.scenario(physics, slice(0, 1)).train(record=[0, physics.steps])
    staged = VIEW.compute(chosen)
    np.testing.assert_array_equal(staged.recorded, whole.recorded)
    for name in network_map.RECORDS:
        np.testing.assert_allclose(
            getattr(staged.mean, name), getattr(whole.mean, name), rtol=1e-11, err_msg=name
        )
    np.testing.assert_array_equal(staged.diverged, whole.diverged)
    assert (whole.diverged >= 0).any()


def test_a_cell_that_diverges_in_one_seed_is_reported():
    chosen = controls(rate=0.05, seeds=3)
    computed = VIEW.compute(chosen)
    alone = [VIEW.compute(controls(rate=0.05, seed=seed)).diverged for seed in (4, 5, 6)]
    either = np.any([diverged >= 0 for diverged in alone], axis=0)
    np.testing.assert_array_equal(computed.diverged >= 0, either)
    assert 0 < either.sum() < either.size and not np.all([d >= 0 for d in alone], axis=0).all()
    first = np.min([np.where(d >= 0, d, 10**9) for d in alone], axis=0)
    np.testing.assert_array_equal(computed.diverged[either], first[either])
    assert any("in at least one seed" in note for note in VIEW.notes(chosen, computed))


def test_delta_set_by_learning_rates_is_the_weight_scaled_map_in_other_coordinates():
    """Kunin et al.: layer variances and learning rates set δ = η_w a² − η_a ‖w‖² together. A
    balanced start trained with (η_w, η_a) = (α², α⁻²) is, for ReLU, the weight-scaled start
    (w ÷ α, a × α) in other coordinates: every measure of the function, its kernel and its
    patterns agrees; the weights themselves travel differently."""
    weights = VIEW.compute(controls()).final
    rates = VIEW.compute(controls(balance_by="rates")).final
    for name in ("test_loss", "loss", "kernel_distance", "activation_distance"):
        np.testing.assert_allclose(
            getattr(rates, name), getattr(weights, name), rtol=1e-9, atol=1e-12, err_msg=name
        )
    assert not np.allclose(rates.parameter_distance, weights.parameter_distance, rtol=0.1)
    # a cell against its network trained here: balanced start, the layers' own rates
    chosen = controls(balance_by="rates")
    taus, deltas, lrs = network_map.grid(chosen)
    row, column = 1, 4
    X, y, X_test, y_test, net = kunin_teacher_student(chosen, tau=taus[row], delta=0.0)
    ratio = deltas[column] / taus[row] ** 2
    alpha_sq = (ratio + np.sqrt(ratio**2 + 4)) / 2  # δ = τ²(α² − α⁻²)
    run = nw.train(
        net,
        X,
        y,
        lr=lrs[row],
        steps=chosen.steps,
        layer_lrs=(alpha_sq, 1 / alpha_sq),
        record=[0, chosen.steps],
        X_test=X_test,
        y_test=y_test,
    )
    assert rates.test_loss[row, column] == pytest.approx(run.test_loss[-1], rel=1e-9)
    assert rates.parameter_distance[row, column] == pytest.approx(
        run.parameter_distance[-1], rel=1e-9
    )
    # the balance the rates give: η_w a² − η_a ‖w‖² = δ at the start, and within a few per
    # cent after 300 steps of gradient descent (the flow conserves it; a step moves it by O(lr²))
    for weights_now, tolerance in ((net.weights, 1e-12), (run.final.weights, 0.05)):
        w, a = weights_now[0], weights_now[1][0]
        balance = alpha_sq * a**2 - np.sum(w**2, axis=1) / alpha_sq
        np.testing.assert_allclose(balance, deltas[column], rtol=tolerance)
    # tanh is not homogeneous: there the two ways of setting δ are different networks
    tanh = [VIEW.compute(controls(activation="tanh", balance_by=b)).final for b in BALANCE]
    assert not np.allclose(tanh[0].test_loss, tanh[1].test_loss, rtol=1e-3)


def test_a_click_on_a_learning_rate_map_opens_its_network():
    chosen = controls(balance_by="rates", spread=1.0)
    result = VIEW.compute(chosen).final
    taus, deltas, _ = network_map.grid(chosen)
    href = VIEW.open_target("kernel", {"pointNumber": [0, 4]}, SPEC.to_controls(chosen))
    got = opened(href)[1]
    alpha_sq = network_map.layer_rates(taus[0], deltas[4])[0]
    assert got.delta == 0.0 and got.rate_ratio == pytest.approx(alpha_sq**-2, rel=1e-9)
    run = TRAJECTORY.compute(got)
    assert run.curves.test_loss[-1] == pytest.approx(result.test_loss[0, 4], rel=1e-6)


def test_rich_and_lazy_corners_as_in_the_paper():
    # Kunin et al. Fig. 1b: the kernel moves at small τ, hardly at large τ
    result = VIEW.compute(SPEC.with_overrides({"resolution": 6})).final
    small, large = result.kernel_distance[0], result.kernel_distance[-1]
    assert small.min() > 10 * large.max()
    assert result.test_loss[0].mean() < result.test_loss[-1].mean()


def opened(href):
    parts = urlsplit(href)
    state = TRAJECTORY.parse_link("?" + parts.query)
    assert state.messages == ()  # nothing clamped: the view shows exactly that network
    return parts, state.controls, state.embed


def test_a_click_opens_exactly_that_network():
    chosen = controls(spread=0.75)
    result = VIEW.compute(chosen).final
    taus, deltas, _ = network_map.grid(chosen)
    row, column = 3, 1
    point = {"x": float(np.float32(deltas[column] + 0.01)), "y": float(np.float32(taus[row]))}
    href = VIEW.open_target("kernel", point, SPEC.to_controls(chosen), {"embed": "1"}, "/p/")
    parts, got, embed = opened(href)
    assert parts.path == "/p" + TRAJECTORY.path and embed
    assert (got.data, got.init, got.depth, got.loss) == ("teacher", "kunin", 2, "mse")
    assert (got.tau, got.delta, got.lr, got.steps) == (
        taus[row],
        deltas[column],
        network_map.grid(chosen)[2][row],
        chosen.steps,
    )
    assert (got.d, got.k, got.n, got.n_test, got.width, got.seed) == (2, 3, 12, 40, 10, 4)
    run = TRAJECTORY.compute(got)
    assert run.setting.notes == ()
    assert run.curves.test_loss[-1] == pytest.approx(result.test_loss[row, column], rel=1e-9)
    assert run.curves.kernel_distance[-1] == pytest.approx(
        result.kernel_distance[row, column], rel=1e-7, abs=1e-12
    )
    # the grid indices, when the browser sends them, win over the coordinates
    indexed = {"x": 5.0, "y": 5.0, "pointNumber": [1, 2]}
    got = opened(VIEW.open_target("test_loss", indexed, SPEC.to_controls(chosen)))[1]
    assert (got.tau, got.delta) == (taus[1], deltas[2])


def test_a_click_on_a_map_of_the_papers_step_counts_opens_that_network_for_as_long():
    """The map's steps reach Kunin et al.'s 10⁵ and so do the network view's: a click on a
    long map opens the cell's network for the map's own steps, the same network to the end."""
    assert TRAJECTORY.spec.by_name["steps"].high >= SPEC.by_name["steps"].high
    chosen = controls(steps=SPEC.by_name["steps"].high, resolution=4, n=8, width=6)
    result = VIEW.compute(chosen).final
    href = VIEW.open_target("kernel", {"pointNumber": [1, 0]}, SPEC.to_controls(chosen))
    got = opened(href)[1]
    assert got.steps == chosen.steps
    run = TRAJECTORY.compute(got)
    assert run.setting.notes == () and run.curves.steps[-1] == chosen.steps
    assert run.curves.test_loss[-1] == pytest.approx(result.test_loss[1, 0], rel=1e-9)
    said = VIEW.notes(chosen, VIEW.compute(chosen))
    assert not any("network view" in note for note in said), said


def test_the_default_map_opens_its_cells_in_the_network_view():
    chosen = SPEC.defaults()
    href = VIEW.open_target("kernel", {"pointNumber": [0, 15]}, SPEC.to_controls(chosen))
    got = opened(href)[1]
    assert got.tau == 0.1 and got.delta == 1.0 and got.lr == pytest.approx(0.5)
    assert got.steps == 2000 and got.n == 20 and got.width == 50


def test_malformed_clicks_open_nothing():
    chosen = controls()
    for point in (None, {}, {"x": "a", "y": 1}, {"x": 0.0, "y": -1.0}, [1, 2], {"x": math.nan}):
        assert VIEW.open_target("kernel", point, SPEC.to_controls(chosen)) is None


def test_the_click_callback_over_http(client, dependencies):
    (callback,) = [d for d in dependencies if d["output"] == f"{VIEW.key}-open.href"]
    values = {
        f"{VIEW.key}-{name}.value": value
        for name, value in zip(SPEC.names, SPEC.to_controls(SPEC.defaults()), strict=True)
    }
    click = {"points": [{"x": 0.0, "y": 0.1, "curveNumber": 0}]}
    body = payload(callback, values | {f"{VIEW.key}-graph-kernel.clickData": click})
    body["changedPropIds"] = [f"{VIEW.key}-graph-kernel.clickData"]
    answer = client.post("/_dash-update-component", json=body)
    assert answer.status_code == 200
    href = answer.get_json()["response"][f"{VIEW.key}-open"]["href"]
    assert href.startswith(TRAJECTORY.path + "?") and "tau=0.1" in href


# -- the budget ------------------------------------------------------------------------------


def blank(chosen):
    """A map of ``chosen``'s cells, recorded steps and seeds, all zeros: for what its messages
    say without training it."""
    record = network_map.recorded_steps(chosen.steps)
    shape = (record.size, chosen.resolution, chosen.resolution)
    zeros = network_map.Measures(*[np.zeros(shape)] * 5)
    grid = network_map.grid(chosen)
    return network_map.Map(*grid, record, chosen.seeds, zeros, zeros, np.full(shape[1:], -1))


def test_the_papers_sizes_run_in_the_background_with_the_time_said_first():
    paper = SPEC.with_overrides(network_map.PAPER_SCALE)
    assert (paper.d, paper.n, paper.width) == (100, 1000, 50)  # Kunin et al. App. D.1
    # the preset at the paper's sizes takes minutes: a background job, uncut
    preset = next(p for p in VIEW.presets if p.slug.startswith("the-papers-sizes"))
    chosen = SPEC.with_overrides(preset.values)
    assert (chosen.d, chosen.n, chosen.width) == (100, 1000, 50)
    assert 60 < network_map.seconds(chosen) < network_map.budget()
    assert network_map.within_budget(chosen) == chosen
    assert network_map.heavy(chosen) and not network_map.heavy(SPEC.with_overrides(SMALL))
    # its first message says how long it takes (for a result of its shape, not computed here)
    (message,) = VIEW.notes(chosen, blank(chosen))
    assert message.startswith("Expected time: about") and "minutes" in message
    # inside a web request (a server without background jobs) it is refused with what to do
    with pytest.raises(ValueError, match=r"runs no background jobs.*fewer cells"):
        VIEW.compute(chosen)


def test_a_map_beyond_the_budget_is_cut_and_says_how():
    widest = SPEC.with_overrides(
        {"resolution": 32, "n": 1000, "d": 100, "width": 200, "steps": 20_000}
    )
    fitted = network_map.within_budget(widest)
    assert fitted.resolution <= 32 and fitted.steps < widest.steps / 10
    assert network_map.seconds(widest) <= network_map.budget() * 1.01
    side = fitted.resolution
    messages = VIEW.notes(widest, blank(fitted))
    assert messages[0].startswith("Expected time: about")
    assert f"{side} × {side} cells and trains {fitted.steps:,} of the 20,000 steps" in messages[1]
    # the way to more is said in words (a variable's underscore would be set as a subscript)
    assert messages[1].endswith("a larger map budget in the server's settings.")
    assert "_" not in messages[1]


def test_the_default_map_is_within_thirty_seconds_and_needs_no_message():
    chosen = SPEC.defaults()
    assert network_map.within_budget(chosen) == chosen
    assert network_map._seconds(chosen, chosen.steps) < 30
    result = VIEW.compute(chosen)
    assert VIEW.notes(chosen, result) == []


def test_diverging_cells_are_reported():
    chosen = controls(rate=0.1)
    computed = VIEW.compute(chosen)
    result = computed.final
    assert np.any(result.diverged >= 0)
    assert all(np.all(np.isfinite(v)) for v in (result.test_loss, result.kernel_distance))
    assert any("diverged" in note for note in VIEW.notes(chosen, computed))


def test_compute_job_equals_compute_and_reports_rising_fractions(monkeypatch):
    chosen = controls()
    monkeypatch.setattr(nw, "MAX_WORK", network_map._work(chosen, chosen.steps) / 2.5)
    heard = []
    job = network_map.compute_job(chosen, lambda fraction, text: heard.append((fraction, text)))
    plain = VIEW.compute(chosen)
    for name in ("taus", "deltas", "rates", "recorded", "diverged"):
        np.testing.assert_array_equal(getattr(job, name), getattr(plain, name))
    for field in dataclasses.fields(network_map.Measures):
        np.testing.assert_array_equal(
            getattr(job.mean, field.name), getattr(plain.mean, field.name)
        )
    fractions = [fraction for fraction, _ in heard]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(heard) > 20
    assert network_map._rows_per_call(chosen, chosen.steps) < chosen.resolution  # several calls


def test_downloads_hold_every_cell():
    chosen = controls()
    result = VIEW.compute(chosen)
    tables = VIEW.tables(chosen, result)
    assert list(tables) == [f"map after {step} steps" for step in (10, 100, chosen.steps)]
    run = single(chosen, 1, 3, record=[0, 10, 100, chosen.steps])
    for index, table in enumerate(tables.values(), start=1):
        assert len(table["tau"]) == 25 and np.all(np.isfinite(table["test_loss"]))
        assert "test_loss_sd" not in table  # one seed: no spread
        assert table["test_loss"][1 * 5 + 3] == pytest.approx(run.test_loss[index], rel=1e-9)


def test_a_download_before_the_maps_job_has_finished_asks_to_wait(tmp_path):
    """A map that is a background job is not computed again by its download (it may take
    minutes, past the worker's timeout): the page is told to ask once the job is done."""
    from app import create_app
    from app.config import Settings
    from app.core.view import DOWNLOAD_AWAITS_JOB
    from tests.dash_client import control_values, split_outputs

    # its own, empty cache, shared by workers as the default is: heavy maps are background jobs
    settings = Settings(cache_dir=str(tmp_path / "cache"), jobs_dir=str(tmp_path / "jobs"))
    dash_app = create_app(settings)
    client = dash_app.server.test_client()
    dependencies = client.get("/_dash-dependencies").get_json()
    chosen = SPEC.with_overrides({"seed": 777, "steps": 5000})  # (about a second: a job)
    cache = dash_app.server.config["RESULT_CACHE"]
    jobs = dash_app.server.config["JOBS"]  # the app's own: processes beside it
    assert jobs is not None
    assert network_map.heavy(chosen) and VIEW.awaits_job(cache, chosen, jobs)
    download = next(
        d
        for d in dependencies
        if {"id": f"{VIEW.key}-download", "property": "data"} in split_outputs(d["output"])
    )
    values = control_values(VIEW, chosen) | {f"{VIEW.key}-download-csv.n_clicks": 1}
    started = time.perf_counter()
    answer = client.post("/_dash-update-component", json=payload(download, values))
    assert time.perf_counter() - started < 0.5  # nothing computed
    assert answer.status_code == 200
    response = answer.get_json()["response"]
    assert f"{VIEW.key}-download" not in response
    assert DOWNLOAD_AWAITS_JOB in str(response[f"{VIEW.key}-messages"])
    # once the job has put the map in the cache, the download is the map
    physics, result_type = VIEW._cache_key(chosen)
    cache.get_or_compute(VIEW.key, physics, lambda: VIEW.compute(chosen), result_type)
    assert not VIEW.awaits_job(cache, chosen, jobs)
    assert not VIEW.awaits_job(cache, SPEC.with_overrides({"seed": 778, "steps": 5000}), None)
    answer = client.post("/_dash-update-component", json=payload(download, values))
    content = answer.get_json()["response"][f"{VIEW.key}-download"]["data"]["content"]
    assert "seed=777" in content.splitlines()[0]


def test_regime_labels_where_the_paper_names_them():
    """Kunin et al. Fig. 1b: lazy at large τ, rich at small τ, rapid rich at small τ upstream;
    not "rich" over the downstream cells, whose kernel has hardly moved."""
    _, _, figures = drawn(VIEW, **SMALL, spread=0.5)
    labels = {a["text"].strip("</b>"): a for a in figures["kernel"]["layout"]["annotations"]}
    assert set(labels) == {"lazy", "rich", "rapid rich"}
    assert labels["rich"]["x"] == 0.0 and labels["rapid rich"]["x"] > 0.0
    assert labels["rich"]["y"] == labels["rapid rich"]["y"] < labels["lazy"]["y"]


def test_a_deployment_s_budget_admits_the_paper_s_early_panels(monkeypatch):
    # Kunin et al.'s Fig. 1b at their sizes: 17 × 17 cells, 16 seeds, their rate; the first
    # 1,000 steps (their early-time panels) take over an hour of one core
    early = SPEC.with_overrides(network_map.FIG_1B_PAPER)
    assert (early.resolution, early.seeds, early.steps, early.rate) == (17, 16, 1000, 1e-2)
    preset = next(p for p in VIEW.presets if p.slug == "fig-1b-at-the-papers-sizes-16-seeds")
    assert SPEC.with_overrides(preset.values) == early
    default_key = VIEW.result_key(early)
    cut = network_map.within_budget(early)
    assert (cut.resolution, cut.steps) == (16, 99)  # as the preset's caption says
    assert network_map.seconds(early) <= 600 * 1.01
    monkeypatch.setenv("MAP_SECONDS", "4100")  # the preset's caption: 4,100 s runs it whole
    assert network_map.within_budget(early) == early
    monkeypatch.setenv("MAP_SECONDS", "4200")
    assert network_map.budget() == 4200
    assert network_map.within_budget(early) == early
    assert 3600 < network_map.seconds(early) <= 4100
    assert network_map.heavy(early)
    # a map cut under one budget is not what another budget's deployment reads from a cache
    assert VIEW.result_key(early) != default_key
    (expected,) = VIEW.notes(early, blank(early))
    minutes = network_map.seconds(early) / 60
    assert expected.startswith(f"Expected time: about {minutes:.2g} minutes")
