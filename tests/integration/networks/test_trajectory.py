"""The network view: its curves, frames, spectra, fitted γ and downloads against the engine called
here from the papers' set-ups (built by hand with the views' seeding convention), the exact
kernel flow against the matrix exponential, the linear limit against the finite-width solution
mapped here by hand, and the caps, divergence and messages."""

import dataclasses
import json
import math
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
import scipy.linalg
from dash import dcc, no_update

from app.core.downloads import to_csv, to_json
from app.views.kernel_alignment import TRAJECTORY as ALIGNMENT
from app.views.networks import TRAJECTORY as VIEW
from app.views.networks import results
from app.views.networks.trajectory import PRESETS, heavy
from app.views.networks.trajectory_plots import encoded
from solvers import feature_evolution as fe
from solvers import finite_width as fw
from solvers import networks as nw
from tests.budgets import NETWORKS_LARGEST
from tests.integration import calls
from tests.integration.figures import trace, unpacked
from tests.integration.networks import drawn, kunin_teacher_student, streams

#: the largest request the view's ranges allow (every cap bites)
LARGEST = NETWORKS_LARGEST


def preset(slug_start):
    return next(p for p in PRESETS if p.slug.startswith(slug_start))


def at(slug_start, **overrides):
    return VIEW.spec.with_overrides(preset(slug_start).values | overrides)


def curve(figure, name):
    found = trace(figure, name)
    return np.asarray(found["x"], dtype=float), np.asarray(found["y"], dtype=float)


def hand_run(chosen, record_weights=False):
    """The default teacher–student run of ``chosen``, trained here."""
    X, y, X_test, y_test, net = kunin_teacher_student(chosen)
    run = nw.train(
        net,
        X,
        y,
        lr=chosen.lr,
        steps=chosen.steps,
        record=nw.default_record(chosen.steps, results.RECORDS),
        X_test=X_test,
        y_test=y_test,
        record_weights=record_weights,
    )
    return X, y, X_test, y_test, net, run


# -- the curves ---------------------------------------------------------------------------------


def test_the_loss_and_distance_curves_are_a_training_run_built_by_hand():
    chosen, _, figures = drawn(VIEW, log_time=False)
    *_, run = hand_run(chosen)
    t, loss = curve(figures["loss"], "training")
    np.testing.assert_allclose(t, run.t, rtol=1e-13)
    np.testing.assert_allclose(loss, np.maximum(run.loss, 1e-14 * run.test_loss.max()), rtol=1e-10)
    np.testing.assert_allclose(curve(figures["loss"], "test")[1], run.test_loss, rtol=1e-10)
    distances = figures["distances"]
    np.testing.assert_allclose(
        curve(distances, "kernel distance S(0, t)")[1], run.kernel_distance, rtol=1e-8, atol=1e-13
    )
    patterns = curve(distances, "activation patterns changed")[1]
    np.testing.assert_array_equal(patterns, run.activation_distance)
    np.testing.assert_allclose(curve(figures["alignment"], "network A(t)")[1], run.alignment)
    zeta = curve(figures["zeta"], "ζ between layers 1 and 2")[1]
    np.testing.assert_allclose(zeta, run.zeta[:, 0], rtol=1e-10, atol=1e-15)
    # a log time axis leaves t = 0 out
    logged = drawn(VIEW)[2]
    assert curve(logged["loss"], "training")[0].size == run.t.size - 1


def test_the_frozen_ntk_curves_are_the_matrix_exponential_of_the_initial_kernel():
    chosen, _, figures = drawn(VIEW, log_time=False, n=12, n_test=30, delta=0.5, seed=3)
    X, y, X_test, y_test, net = kunin_teacher_student(chosen)
    everything = np.concatenate([X, X_test])
    whole = nw.ntk(net, everything)  # layer rates 1 (ratio 1)
    n = X.shape[0]
    K, cross = whole[:n, :n], whole[n:, :n]
    r0 = (nw.forward(net, X) - y)[:, 0]
    g0 = nw.forward(net, X_test)[:, 0]
    system = np.zeros((n + X_test.shape[0],) * 2)
    system[:n, :n], system[n:, :n] = -K / n, -cross / n
    t, loss = curve(figures["loss"], "frozen NTK")
    test = curve(figures["loss"], "frozen NTK, test")[1]
    for index in (1, 10, t.size // 2, t.size - 1):
        state = scipy.linalg.expm(system * t[index]) @ np.concatenate([r0, g0])
        assert loss[index] == pytest.approx(0.5 * np.mean(state[:n] ** 2), rel=1e-7)
        expected = 0.5 * np.mean((state[n:] - y_test[:, 0]) ** 2)
        assert test[index] == pytest.approx(expected, rel=1e-7)


def test_the_linear_bridge_is_the_finite_width_solution_mapped_by_hand():
    chosen, result, figures = drawn(VIEW, **preset("linear-network").values, log_time=False)
    data_rng, weight_rng = streams(chosen.seed)
    X, y, X_test, y_test = nw.regression_line(chosen.n, n_test=chosen.n_test, seed=data_rng)
    net = nw.gaussian_init(
        [1, chosen.width, 1], activation="linear", seed=weight_rng, scaling="ntk"
    )
    # n points on a line are one point ρ = √(Σx²/n) with ȳ = Σxy/(nρ) (Xu & Ziyin Prop. 1); the
    # engine's (1/2n)Σ(f − y)² is half their (f − ȳ)² plus what no slope fits, so their rates
    # are half the engine's (both 1 here)
    x, target = X[:, 0], y[:, 0]
    rho = math.sqrt(x @ x / x.size)
    bar = (x @ target) / (x.size * rho)
    rest = 0.5 / x.size * (target @ target - (x @ target) ** 2 / (x @ x))
    t, loss = curve(figures["loss"], "exact (finite width)")
    path = fw.exact(
        net.weights[1][0],
        net.weights[0],
        np.array([rho]),
        bar,
        t,
        gamma=net.gamma,
        eta_u=0.5,
        eta_w=0.5,
    )
    np.testing.assert_allclose(loss, path.loss / 2 + rest, rtol=1e-9)
    zeta = curve(figures["zeta"], "exact |ζ| (finite width)")[1]
    np.testing.assert_allclose(zeta, np.abs(path.zeta), rtol=1e-9, atol=1e-12)
    slope = path.output[-1] / rho
    expected_test = 0.5 * np.mean((slope * X_test[:, 0] - y_test[:, 0]) ** 2)
    assert curve(figures["loss"], "exact (finite width), test")[1][-1] == pytest.approx(
        expected_test, rel=1e-9
    )
    # and the network's points follow the exact lines (gradient descent at a small step)
    network = trace(figures["zeta"], "ζ between layers 1 and 2")
    assert network["mode"] == "markers"
    between = np.interp(result.curves.t, t, zeta)
    assert np.max(np.abs(between - result.curves.zeta[:, 0])) < 0.02


# -- the inputs -------------------------------------------------------------------------------


def test_the_function_frames_are_the_network_over_the_plane_with_its_regions():
    chosen = at("fig-5-xor-rich")
    result = VIEW.compute(chosen)
    data_rng, weight_rng = streams(chosen.seed)
    X, y, X_test, y_test = nw.xor(chosen.n, n_test=chosen.n_test, seed=data_rng)
    net = nw.kunin_init(2, chosen.width, tau=chosen.tau, delta=chosen.delta, seed=weight_rng)
    run = nw.train(
        net,
        X,
        y,
        lr=chosen.lr,
        steps=chosen.steps,
        record=[0, chosen.steps],
        X_test=X_test,
        y_test=y_test,
    )
    plane = result.plane
    axis = np.linspace(-plane.extent, plane.extent, results.GRID)
    points = np.stack(np.meshgrid(axis, axis), axis=-1).reshape(-1, 2)
    W1, W2 = run.final.weights
    hidden = points @ W1.T
    f = (np.maximum(hidden, 0) @ W2.T)[:, 0].reshape(results.GRID, results.GRID)
    odd = (np.sum(hidden > 0, axis=1) % 2 == 1).reshape(results.GRID, results.GRID)
    np.testing.assert_allclose(plane.function[-1], f, rtol=1e-5, atol=1e-6)  # float32
    np.testing.assert_array_equal(plane.parity[-1], odd)
    frames = VIEW.frames(chosen, result)
    last = frames.heatmaps["function"][-1]
    scale = np.max(np.abs(plane.function))
    np.testing.assert_allclose(last, np.clip(0.5 + 0.5 * f / scale, 0, 0.999) + odd, atol=1e-5)
    assert frames.count == results.RECORDS and frames.heatmaps["function"].shape[0] == frames.count
    # the figure's matrix starts at the first frame, the same encoding
    figure = VIEW.panels[[p.graph for p in VIEW.panels].index("function")].draw(chosen, result)
    np.testing.assert_array_equal(figure["data"][0]["z"], encoded(plane)[0])


def test_the_neurons_are_each_units_a_times_w_and_the_teacher_is_dotted():
    chosen, result, figures = drawn(VIEW, **preset("fig-1a-upstream").values)
    run = hand_run(chosen, record_weights=True)[-1]
    W1, W2 = run.weights
    expected = np.abs(W2[:, 0, :, None]) * W1  # (R, h, 2)
    np.testing.assert_allclose(result.plane.neurons, expected, rtol=1e-12)
    teacher, _ = nw.teacher_weights(chosen.d, chosen.k, seed=streams(chosen.seed)[0])
    rays = trace(figures["neurons"], "teacher")
    ends = np.asarray(rays["x"], dtype=float)[1::3], np.asarray(rays["y"], dtype=float)[1::3]
    np.testing.assert_allclose(
        np.arctan2(ends[1], ends[0]), np.arctan2(teacher[:, 1], teacher[:, 0])
    )
    frames = VIEW.frames(chosen, result)
    np.testing.assert_allclose(frames.points["neurons"].x, expected[..., 0], rtol=1e-12)


def test_fig_1a_claims_weigh_each_neuron_by_its_final_length():
    """A neuron left near its tiny start (here turned 90° from the teacher) carries almost none
    of the fit and must not decide the medians; the neurons that grew, turned onto the teacher,
    do."""
    from types import SimpleNamespace

    from app.views.networks import kunin_claims

    angles = np.radians([[40.0, 40.0, 40.0, 0.0], [0.0, 0.0, 0.0, 90.0]])  # start, end
    lengths = np.array([[0.01] * 4, [0.5, 0.4, 0.3, 0.011]])
    neurons = lengths[..., None] * np.stack([np.cos(angles), np.sin(angles)], axis=-1)
    run = SimpleNamespace(
        plane=SimpleNamespace(neurons=neurons, teacher=np.array([[1.0, 0.0]])),
        curves=SimpleNamespace(kernel_distance=np.array([0.0, 0.2]), loss=np.array([1.0, 1e-3])),
    )
    found = kunin_claims._neurons(run)
    assert found["turn"] == pytest.approx(40) and found["after"] == pytest.approx(0)
    assert found["before"] == pytest.approx(40) and found["growth"] == pytest.approx(40)
    assert kunin_claims._upstream_aligns(None, run).holds
    assert kunin_claims._rich_small_scale(None, run).holds
    assert not kunin_claims._downstream_stays(None, run).holds


def test_fig_6a_upstream_claim_compares_the_parameters_with_their_initial_norm():
    from app.views.networks.kunin_claims import _initial_size

    chosen = at("fig-6a-upstream")
    scenario, _ = results.build(chosen)
    expected = math.sqrt(sum(float(np.sum(W**2)) for W in scenario.net.weights))
    assert _initial_size(chosen) == pytest.approx(expected)
    # the first layer ÷ 3, the read-out × 3 of a width-50 network: ‖θ₀‖ near 11
    assert 9 < expected < 13


def test_panels_that_do_not_apply_say_so():
    figures = drawn(VIEW, data="digits", n=30, n_test=20, init="gaussian")[2]
    for graph, words in (("function", "only for 1-d and 2-d"), ("neurons", "two-layer")):
        assert words in figures[graph]["layout"]["annotations"][0]["text"]
        assert figures[graph]["data"] and all("type" in t for t in figures[graph]["data"])
    assert "several outputs" in figures["specialization"]["layout"]["annotations"][0]["text"]
    _, result, figures = drawn(VIEW, data="gaussians", loss="bce", n=40)
    assert result.line is not None and result.baseline is None
    assert [t["name"] for t in figures["function"]["data"]][:2] == [
        "at the start",
        "after training",
    ]
    assert "frozen NTK" not in [t["name"] for t in figures["loss"]["data"]]


# -- the kernel ------------------------------------------------------------------------------


def _digits_network(chosen):
    data_rng, weight_rng = streams(chosen.seed)
    classes = nw.DIGIT_CLASSES[chosen.classes]
    X, y, X_test, y_test = nw.digits(classes, chosen.n, n_test=chosen.n_test, seed=data_rng)
    widths = [64, *([chosen.width] * (chosen.depth - 1)), y.shape[1]]
    net = nw.gaussian_init(widths, sigma=chosen.sigma, seed=weight_rng, scaling=chosen.scaling)
    return X, y, X_test, y_test, net


def test_the_spectra_are_the_eigenvalues_of_the_initial_and_final_ntk():
    chosen = at("fig-1d-e")
    result = VIEW.compute(chosen)
    X, y, _, _, net = _digits_network(chosen)
    run = nw.train(net, X, y, lr=chosen.lr, steps=chosen.steps, record=[0, chosen.steps])
    for kernel, eigenvalues in (
        (nw.ntk(net, X), result.spectra.initial_eigenvalues),
        (nw.ntk(run.final, X), result.spectra.final_eigenvalues),
    ):
        expected = np.linalg.eigvalsh(kernel)[::-1]
        np.testing.assert_allclose(eigenvalues, expected, rtol=1e-8, atol=1e-10 * expected[0])
    values, vectors = np.linalg.eigh(nw.ntk(net, X))
    power = (vectors.T @ y.reshape(-1))[::-1] ** 2
    np.testing.assert_allclose(result.spectra.initial_power, power, rtol=1e-6, atol=1e-12)
    figure = VIEW.panels[[p.graph for p in VIEW.panels].index("spectrum")].draw(chosen, result)
    before = next(t for t in figure["data"] if t["name"].startswith("λ_k/λ₁ before"))
    np.testing.assert_allclose(before["y"][:20], (values[::-1] / values[-1])[:20], rtol=1e-8)


def test_the_fitted_gamma_and_its_link_to_the_kernel_alignment_view():
    chosen = at("fig-6-depth-4")
    result = VIEW.compute(chosen)
    X, y, *_ = _digits_network(chosen)
    net = _digits_network(chosen)[4]
    run = nw.train(
        net,
        X,
        y,
        lr=chosen.lr,
        steps=chosen.steps,
        record=nw.default_record(chosen.steps, results.RECORDS),
    )
    fit = nw.fit_feature_learning_rate(nw.ntk(net, X), y, run.t, run.alignment)
    assert result.fit.gamma == pytest.approx(fit.gamma, rel=1e-6)
    np.testing.assert_allclose(result.fit.fitted, fit.fitted, rtol=1e-6, atol=1e-9)
    shallow = VIEW.compute(at("fig-6-depth-2"))
    assert result.fit.gamma > shallow.fit.gamma  # Shan & Bordelon Fig. 6D: deeper, larger γ
    # the summary links to the kernel-alignment view with the same strength γ‖y‖²/‖K₀‖
    (text, link) = dict(VIEW.facts(chosen, result))[
        "feature-learning rate (Shan & Bordelon Fig. 6D)"
    ]
    assert isinstance(link, dcc.Link) and f"{fit.gamma:.3g}" in text
    parts = urlsplit(link.href)
    assert parts.path == ALIGNMENT.path.lstrip("/")  # relative: right under any path prefix
    opened = ALIGNMENT.parse_link("?" + parts.query)
    assert not opened.messages
    K_task, y_task = fe.power_law_task(
        opened.controls.samples, opened.controls.a, opened.controls.b, opened.controls.seed
    )
    strength = fit.gamma * (y[:, 0] @ y[:, 0])
    carried = opened.controls.gamma * (y_task @ y_task) / np.linalg.norm(K_task)
    assert carried == pytest.approx(strength, rel=1e-3)  # 4 significant digits in the link
    assert parse_qs(parts.query)["samples"] == [str(min(chosen.n, 300))]


def test_a_gamma_the_curve_does_not_determine_is_called_so_and_links_by_the_final_estimate():
    # at d = 18 the network's alignment curve is fitted about as well by ever larger γ on ever
    # slower clocks (the fit's standard error of ln γ is ~100): the summary says so and the link
    # carries the final-alignment estimate (their eq. 20) instead
    name = "feature-learning rate (Shan & Bordelon Fig. 6D)"
    undetermined = VIEW.spec.with_overrides({"d": 18})
    result = VIEW.compute(undetermined)
    (text, link) = dict(VIEW.facts(undetermined, result))[name]
    assert not result.fit.determined and "does not determine" in text
    y = _targets(undetermined)
    opened = ALIGNMENT.parse_link("?" + urlsplit(link.href).query).controls
    K_task, y_task = fe.power_law_task(opened.samples, opened.a, opened.b, opened.seed)
    carried = opened.gamma * (y_task @ y_task) / np.linalg.norm(K_task)
    assert carried == pytest.approx(result.fit.gamma_final * (y @ y), rel=1e-3)
    defaults = VIEW.spec.defaults()
    (text, _) = dict(VIEW.facts(defaults, VIEW.compute(defaults)))[name]
    assert "does not determine" not in text


def _targets(controls) -> np.ndarray:
    """The network view's training targets for ``controls``, flattened."""
    scenario, _ = results.build(controls)
    return scenario.data.y.reshape(-1)


def test_the_specialization_matrix_of_the_ten_digits():
    chosen = at("fig-4")
    result = VIEW.compute(chosen)
    X, y, _, _, net = _digits_network(chosen)
    run = nw.train(net, X, y, lr=chosen.lr, steps=chosen.steps, record=[0, chosen.steps])
    final = nw.ntk(run.final, X)
    blocks = final.reshape(chosen.n, 10, chosen.n, 10)
    raw = np.empty((10, 10))
    for c in range(10):
        sub = blocks[:, c, :, c]
        for d in range(10):
            v = y[:, d]
            raw[c, d] = v @ sub @ v / (np.linalg.norm(sub) * (v @ v))
    np.testing.assert_allclose(result.specialization.final, raw / raw.mean(axis=0), rtol=1e-8)
    assert np.mean(np.diag(result.specialization.final)) > 1.1  # specialised (Fig. 4)


# -- presets, caps, divergence, downloads ----------------------------------------------------


@pytest.mark.parametrize("chosen_preset", [p for p in PRESETS if p.figure], ids=lambda p: p.slug)
def test_every_figure_preset_draws_its_panel_with_data(chosen_preset, cache):
    chosen = VIEW.spec.with_overrides(chosen_preset.values)
    reply = calls.answer(VIEW, cache, chosen)
    figure = reply.figure(chosen_preset.panel)
    assert not figure["layout"].get("annotations"), chosen_preset.slug  # not "does not apply"
    assert any(len(t.get("x", [])) or t.get("z") is not None for t in figure["data"])
    assert reply.texts == [], (chosen_preset.slug, reply.texts)


def test_caps_clamp_with_messages():
    """n and the test points are capped where the controls are read (the controls and the link
    then show the values used); the steps where the work is known."""
    chosen, said = VIEW.spec.parse(VIEW.spec.defaults().__dict__ | LARGEST)
    assert chosen.n == results.MAX_TEN_CLASS_SAMPLES
    assert chosen.n_test == results.CROSS_ENTRIES // (10 * 10 * chosen.n)
    setting = results.build(chosen)[1]
    assert (setting.n, setting.n_test) == (chosen.n, chosen.n_test)
    work = nw.training_work(
        setting.widths,
        setting.n,
        steps=setting.steps,
        records=setting.records,
        tests=setting.n_test,
    )
    assert work <= results.WORK and setting.steps < LARGEST["steps"]
    text = " ".join((*said, *setting.notes))
    assert "at most 100 training images" in text and "test points are used" in text
    assert "training stops after" in text
    assert heavy(chosen) and not heavy(VIEW.spec.defaults())


def test_the_papers_step_counts_at_the_defaults_are_answered_in_the_request():
    """10⁵ steps (Kunin et al.'s longest runs) of the default ReLU network take ~0.2 s in the
    compiled loop: not a background job; with tanh (an exp-like evaluation per unit and point,
    ~1.8 s) a job."""
    longest = VIEW.spec.by_name["steps"].high
    assert longest == 100_000
    chosen = VIEW.spec.with_overrides({"steps": longest})
    assert not heavy(chosen)
    assert heavy(dataclasses.replace(chosen, activation="tanh"))
    run = VIEW.compute(chosen)
    assert run.setting.notes == () and run.curves.steps[-1] == longest


def test_adaptations_are_said():
    chosen = VIEW.spec.with_overrides({"data": "line", "loss": "bce", "depth": 3})
    notes = " ".join(results.build(chosen)[1].notes)
    assert "labels ±1" in notes and "two-layer networks" in notes


def test_divergence_is_reported_and_nothing_drawn_is_nan(cache):
    chosen = VIEW.spec.with_overrides({"lr": 50.0, "steps": 200, "tau": 2.0})
    reply = calls.answer(VIEW, cache, chosen)
    assert any("diverged at step" in text and "2n/λ_max" in text for text in reply.texts)
    result = VIEW.compute(chosen)
    assert result.diverged_at > 0
    for field in dataclasses.fields(result.curves):
        values = getattr(result.curves, field.name)
        assert values is None or np.all(np.isfinite(values)), field.name
    json.dumps(reply.frames, allow_nan=False)
    for table in VIEW.tables(chosen, result).values():
        for values in table.values():
            assert np.all(np.isfinite(np.asarray(values, dtype=float)))


def test_downloads_hold_the_exact_baseline_first_and_every_curve():
    chosen = VIEW.spec.defaults()
    result = VIEW.compute(chosen)
    tables = VIEW.tables(chosen, result)
    first = next(iter(tables))
    assert first.startswith("exact kernel gradient descent")
    network = tables["network (gradient descent)"]
    np.testing.assert_array_equal(network["loss"], result.curves.loss)
    assert set(network) >= {"t", "steps", "kernel_distance", "zeta", "activation_distance"}
    document = json.loads(to_json(chosen, tables))
    assert document["trajectories"][first]["loss"] == list(result.baseline.loss)
    assert to_csv(chosen, tables).count("\n") > 3 * results.RECORDS


def test_the_callback_answers_with_frames_and_no_message_at_the_defaults(cache):
    reply = calls.answer(VIEW, cache)
    assert reply.texts == []
    assert len(reply.frames["t"]) == results.RECORDS and reply.last_frame == results.RECORDS - 1
    assert set(reply.frames["heatmaps"]) == {"function"}
    assert set(reply.frames["cursor"]) == {"neurons"}
    assert len(json.dumps(reply.frames)) < 450_000


def test_the_function_plane_is_computed_only_for_a_plot_in_sight(cache):
    """The plane below the fold costs ~20 ms a change: an answer for a page where it is out of
    sight neither draws it nor sends its matrices, and computes none (the cached run holds the
    recorded weights, from which the plane is computed when the plot comes into view)."""
    before = VIEW.spec.to_controls(VIEW.spec.with_overrides({"seed": 1}))
    calls.answer(VIEW, cache, raw=before)  # the page as first drawn (every plot)
    results._SURFACES.clear()
    drawn = {"values": before, "frame": 0, "theme": "light"}
    hidden = ["distances", "zeta", "function", "neurons", "spectrum", "specialization"]
    request = {"seq": 2, "frame": 0, "drawn": drawn, "hidden": hidden, "stale": []}
    reply = calls.answer(VIEW, cache, request=request)  # the seed moved to 0
    assert reply.figure("function") is no_update
    assert "function" not in reply.frames["heatmaps"] and "function" in reply.stale
    assert len(results._SURFACES) == 0
    drawn = dict(drawn, values=VIEW.spec.to_controls(VIEW.spec.defaults()))
    in_sight = {"seq": 3, "frame": 0, "drawn": drawn, "hidden": [], "stale": ["function"]}
    reply = calls.answer(VIEW, cache, request=in_sight)  # scrolled to the plane
    assert len(results._SURFACES) == 1 and len(reply.frames["heatmaps"]["function"]) > 0
    result = VIEW.compute(VIEW.spec.defaults())
    matrix = unpacked(reply.figure("function")["data"][0]["z"])
    np.testing.assert_allclose(matrix, encoded(result.plane)[0], atol=1e-6)


# -- background jobs ---------------------------------------------------------------------------


def test_compute_job_equals_compute_and_reports_rising_fractions():
    chosen = VIEW.spec.with_overrides({"steps": 300, "n": 12})
    heard = []
    job = results.compute_job(chosen, lambda fraction, text: heard.append((fraction, text)))
    plain = VIEW.compute(chosen)
    for field in dataclasses.fields(job.curves):
        a, b = getattr(job.curves, field.name), getattr(plain.curves, field.name)
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(job.plane.function, plain.plane.function)
    fractions = [fraction for fraction, _ in heard]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0
    assert len(heard) > 10 and all(isinstance(text, str) and text for _, text in heard)
