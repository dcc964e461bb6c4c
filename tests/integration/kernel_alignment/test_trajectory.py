"""The kernel-alignment view against the solver and independent numerics (scipy's expm and
eigh): what it draws, summarises and exports is the exact optimal-feature-evolution flow."""

import dataclasses
import json
import math

import numpy as np
import pytest
import scipy.linalg
from plotly.utils import PlotlyJSONEncoder

from app.views.kernel_alignment import TRAJECTORY as VIEW
from app.views.kernel_alignment import trajectory_plots as plots
from app.views.kernel_alignment.trajectory import MAX_SAMPLES, descent_cap
from solvers import feature_evolution as fe
from tests.integration.calls import answer
from tests.integration.figures import trace

#: non-default, quick physics: the tests must not only pass at the defaults
CHOSEN = VIEW.spec.with_overrides(
    {
        "gamma": 2.5,
        "eta": 0.7,
        "a": 1.8,
        "b": 1.1,
        "samples": 40,
        "seed": 7,
        "horizon": 200.0,
        "lr": 0.05,
    }
)


def controls(**overrides):
    return dataclasses.replace(CHOSEN, **overrides)


def computed(chosen=CHOSEN):
    return chosen, VIEW.compute(chosen)


def task(chosen):
    """(K₀, y) of the controls, from the solver's power-law task (not the view's builder)."""
    return fe.power_law_task(chosen.samples, chosen.a, chosen.b, chosen.seed)


def alignment_of(K, y):
    """A(K, y) = yᵀKy/(‖K‖_F‖y‖²), written out."""
    return float(y @ K @ y) / (np.linalg.norm(K, "fro") * float(y @ y))


def descent_traces(figure):
    return [t for t in figure["data"] if str(t.get("name", "")).startswith("gradient descent")]


def update(cache, chosen):
    """(figures, summary, messages, search, frames) of the main callback."""
    reply = answer(VIEW, cache, chosen)
    return reply.figures, reply.summary, reply.texts, reply.link, reply.frames


def test_loss_and_alignment_curves_are_the_exact_flow():
    chosen, run = computed()
    K0, y = task(chosen)
    loss = trace(plots.draw_loss(chosen, run), "γ = 2.5")
    t = np.asarray(loss["x"])
    assert t[-1] == pytest.approx(chosen.horizon) and np.all(np.diff(np.log(t)) > 0)
    expected = fe.exact(K0, y, t, eta=0.7, gamma=2.5)
    shown = expected.loss > 1e-20
    np.testing.assert_allclose(np.asarray(loss["y"])[shown], expected.loss[shown], rtol=1e-10)
    alignment = trace(plots.draw_alignment(chosen, run), "γ = 2.5")
    np.testing.assert_allclose(alignment["x"], t)
    np.testing.assert_allclose(alignment["y"], expected.alignment, rtol=1e-10)
    # the alignment rises from A₀ (the plot starts early enough to show it) to A∞
    a0, a_inf = alignment_of(K0, y), alignment_of(K0 + 2.5 * np.outer(y, y), y)
    assert abs(alignment["y"][0] - a0) < 0.05 * (a_inf - a0)
    assert alignment["y"][-1] == pytest.approx(a_inf, rel=1e-6)


def test_alignment_panel_lines_a_infinity_and_constant_kernel_alignment():
    chosen, run = computed()
    K0, y = task(chosen)
    figure = plots.draw_alignment(chosen, run)
    a_inf = trace(figure, "A∞")
    assert np.allclose(a_inf["y"], alignment_of(K0 + 2.5 * np.outer(y, y), y), rtol=1e-12)
    assert a_inf["line"]["dash"] == "dash"
    frozen = trace(figure, "γ = 0 (kernel gradient descent)")
    np.testing.assert_allclose(frozen["y"], alignment_of(K0, y), rtol=1e-10)


def test_frozen_kernel_loss_is_the_matrix_exponential():
    chosen, run = computed()
    K0, y = task(chosen)
    figure = plots.draw_loss(chosen, run)
    curve = trace(figure, "γ = 0 (kernel gradient descent)")
    t = np.asarray(curve["x"])
    for index in (0, 57, 199, 311, len(t) - 1):
        residual = -scipy.linalg.expm(-0.7 * t[index] * K0) @ y
        assert curve["y"][index] == pytest.approx(float(residual @ residual), rel=1e-8, abs=1e-18)
    # and feature learning is faster at the horizon
    assert trace(figure, "γ = 2.5")["y"][-1] < curve["y"][-1]


def test_spectrum_panels_are_those_of_k0_plus_gamma_yy():
    chosen, run = computed()
    K0, y = task(chosen)
    final = K0 + 2.5 * np.outer(y, y)
    spectrum = plots.draw_spectrum(chosen, run)
    after = trace(spectrum, "K∞ = K₀ + γyyᵀ, γ = 2.5")
    np.testing.assert_allclose(after["y"], np.sort(scipy.linalg.eigvalsh(final))[::-1], rtol=1e-9)
    before = trace(spectrum, "K₀")
    k = np.arange(1, 41)
    np.testing.assert_allclose(before["x"], k)
    np.testing.assert_allclose(before["y"], k**-1.1, rtol=1e-9)  # the power-law task
    power = plots.draw_task(chosen, run)
    np.testing.assert_allclose(trace(power, "before (K₀)")["y"], k**-1.8, rtol=1e-7)
    power_after = np.asarray(trace(power, "after (K∞)")["y"])
    # the task power sums to ‖y‖², weights K∞'s eigenvalues to yᵀK∞y, and its first entry is
    # the squared top-eigenvector overlap
    assert power_after.sum() == pytest.approx(float(y @ y), rel=1e-10)
    assert float(power_after @ np.asarray(after["y"])) == pytest.approx(
        float(y @ final @ y), rel=1e-9
    )
    top = np.linalg.eigh(final)[1][:, -1]
    assert power_after[0] == pytest.approx(float(top @ y) ** 2, rel=1e-9)
    assert power_after[0] > k[0] ** -1.8  # feature learning moves power to the top mode


def overlap_of(K0, y, gamma):
    """|u₁ᵀy|/‖y‖ for the top eigenvector of K₀ + γyyᵀ, by a full eigendecomposition."""
    top = np.linalg.eigh(K0 + gamma * np.outer(y, y))[1][:, -1]
    return abs(float(top @ y)) / np.linalg.norm(y)


def test_gamma_sweep_is_the_eigenvector_overlap_and_marks_the_current_gamma():
    chosen, run = computed()
    K0, y = task(chosen)
    figure = plots.draw_sweep(chosen, run)
    overlap = trace(figure, "top-eigenvector overlap |u₁ᵀy|/‖y‖")
    gammas = np.asarray(overlap["x"])
    assert len(gammas) <= 30 and gammas[0] <= 1e-3 and gammas[-1] >= 1e3
    expected = [overlap_of(K0, y, g) for g in gammas]
    np.testing.assert_allclose(overlap["y"], expected, atol=1e-9)
    final = trace(figure, "final alignment A∞")
    kernels = [K0 + g * np.outer(y, y) for g in gammas]
    np.testing.assert_allclose(final["y"], [alignment_of(K, y) for K in kernels], rtol=1e-10)
    current = trace(figure, "current γ = 2.5")
    assert current["x"] == [2.5, 2.5]
    assert current["y"][0] == pytest.approx(overlap_of(K0, y, 2.5), abs=1e-9)
    assert current["y"][1] == pytest.approx(alignment_of(K0 + 2.5 * np.outer(y, y), y), rel=1e-12)
    assert figure["layout"]["shapes"][0]["x0"] == 2.5  # data units on the log axis
    # the overlap locks onto y past a threshold; γ* is where it is half-way from its γ → 0 value
    assert expected[0] < 0.9 and expected[-1] > 0.999
    star_trace = next(t for t in figure["data"] if t["name"].startswith("threshold γ*"))
    star = star_trace["x"][0]
    middle = 0.5 * (overlap_of(K0, y, 0.0) + 1)
    assert overlap_of(K0, y, star / 1.5) < middle < overlap_of(K0, y, star * 1.5)


def test_descent_markers_iff_toggle_and_they_are_the_discrete_run():
    chosen, on = computed()
    off_controls, off = computed(controls(descent=False))
    for draw in (plots.draw_loss, plots.draw_alignment):
        (markers,) = descent_traces(draw(chosen, on))
        assert markers["mode"] == "markers" and markers["marker"]["symbol"] == "circle-open"
        without = draw(off_controls, off)
        assert descent_traces(without) == []
        assert all(t["mode"] != "markers" or t.get("uid") == "cursor" for t in without["data"])
    K0, y = task(chosen)
    steps = math.ceil(200.0 / 0.05)
    assert steps > descent_cap(40)  # the run is capped, and says so
    run = fe.gradient_descent(K0, y, 0.05, descent_cap(40), eta=0.7, gamma=2.5)
    markers = descent_traces(plots.draw_loss(chosen, on))[0]
    assert f"first {descent_cap(40):,} steps" in markers["name"]
    index = np.rint(np.asarray(markers["x"]) / 0.05).astype(int)
    assert index[-1] == descent_cap(40) and len(index) <= 120
    np.testing.assert_allclose(markers["y"], run.loss[index], rtol=1e-10)
    alignment = descent_traces(plots.draw_alignment(chosen, on))[0]
    np.testing.assert_allclose(alignment["y"], run.alignment[index], rtol=1e-10)
    # small steps follow the exact flow
    exact = fe.exact(K0, y, run.t[index], eta=0.7, gamma=2.5)
    np.testing.assert_allclose(alignment["y"], exact.alignment, atol=0.02)
    assert "limited to" in dict(VIEW.facts(chosen, on))["gradient descent"]


def test_huge_step_size_gives_a_divergence_message(cache):
    chosen = controls(lr=10.0)
    figures, _, messages, _, _ = update(cache, chosen)
    text = " ".join(messages)
    assert "diverged" in text and "step size 10" in text
    assert all(f["data"] for f in figures)
    # the stable step size it suggests is stable: a run there does not diverge
    run = VIEW.compute(chosen)
    K0, y = task(chosen)
    safe = fe.gradient_descent(K0, y, run.stable_lr, 400, eta=0.7, gamma=2.5)
    assert safe.diverged_at is None and safe.loss[-1] < safe.loss[0]
    # the markers stop before the blow-up instead of squashing the loss axis
    markers = descent_traces(plots.draw_loss(chosen, run))[0]
    assert 0 < len(markers["y"]) and max(markers["y"]) <= 1e3 * float(y @ y)
    assert VIEW.notes(*computed()) == []


def test_downloads_are_the_solver_output():
    chosen = controls(samples=24, horizon=3.0, lr=0.02)
    tables = VIEW.tables(*computed(chosen))
    K0, y = task(chosen)
    assert set(tables) == {"exact gamma=2.5", "kernel gradient descent gamma=0", "gradient descent"}
    exact = tables["exact gamma=2.5"]
    reference = fe.exact(K0, y, exact["t"], eta=0.7, gamma=2.5)
    for name in ("loss", "alignment", "residual"):
        np.testing.assert_allclose(exact[name], getattr(reference, name), rtol=1e-10, atol=1e-300)
    frozen = tables["kernel gradient descent gamma=0"]
    np.testing.assert_allclose(frozen["t"], exact["t"])
    residual = np.array([-scipy.linalg.expm(-0.7 * s * K0) @ y for s in frozen["t"][::50]])
    np.testing.assert_allclose(frozen["residual"][::50], residual, rtol=1e-7, atol=1e-12)
    descent = tables["gradient descent"]
    assert descent["t"][-1] == pytest.approx(3.0)  # 150 steps: below the cap, the whole horizon
    run = fe.gradient_descent(K0, y, 0.02, 150, eta=0.7, gamma=2.5)
    index = np.rint(descent["t"] / 0.02).astype(int)
    np.testing.assert_allclose(descent["residual"], run.residual[index], rtol=1e-10)
    np.testing.assert_allclose(descent["alignment"], run.alignment[index], rtol=1e-10)
    without = dataclasses.replace(chosen, descent=False)
    assert "gradient descent" not in VIEW.tables(*computed(without))


def test_cursor_frames_follow_the_exact_curves_in_data_units():
    chosen, run = computed()
    frames = VIEW.frames(chosen, run)
    figure = plots.draw_loss(chosen, run)
    t = np.asarray(trace(figure, "γ = 2.5")["x"])
    # plotly.js places shapes on a log axis by data value: the cursor line moves along t itself
    np.testing.assert_allclose(frames.lines["loss"], frames.t)
    assert figure["layout"]["shapes"][0]["x0"] == pytest.approx(t[0])
    assert min(frames.t) >= t[0] * (1 - 1e-6) and max(frames.t) <= t[-1] * (1 + 1e-6)
    K0, y = task(chosen)
    expected = fe.exact(K0, y, frames.t, eta=0.7, gamma=2.5)
    np.testing.assert_allclose(frames.points["alignment"].y, expected.alignment, rtol=1e-5)
    np.testing.assert_allclose(frames.points["loss"].x, frames.t)


def test_linear_time_axis_starts_at_zero():
    chosen, run = computed(controls(log_time=False, horizon=20.0))
    figure = plots.draw_loss(chosen, run)
    loss = trace(figure, "γ = 2.5")
    assert loss["x"][0] == 0 and loss["x"][-1] == pytest.approx(20.0)
    assert figure["layout"]["xaxis"]["type"] == "linear"
    assert figure["layout"]["yaxis"]["type"] == "log"
    assert descent_traces(figure)[0]["x"][0] == 0


def test_summary_reports_alignment_overlap_and_speed_up():
    chosen, run = computed(controls(descent=False))
    text = json.dumps(VIEW.facts(chosen, run), ensure_ascii=False)
    K0, y = task(chosen)
    a_inf = alignment_of(K0 + 2.5 * np.outer(y, y), y)
    assert f"{alignment_of(K0, y):.3f} → {a_inf:.3f}" in text
    assert f"{overlap_of(K0, y, 2.5):.3f}" in text
    assert "feature-learning rate" in text and "× lower" in text
    # the "catch-up" time: kernel gradient descent really reaches the rich loss then
    rich = run.exact.loss[-1]
    assert run.catch_up > chosen.horizon
    late = -scipy.linalg.expm(-0.7 * run.catch_up * K0) @ y
    assert float(late @ late) == pytest.approx(rich, rel=1e-6)


@pytest.mark.parametrize("samples", [8, MAX_SAMPLES])
def test_requests_stay_small_even_at_the_largest_size(samples, cache):
    chosen = VIEW.spec.with_overrides({"samples": samples, "lr": 1e-4, "horizon": 1e6})
    figures, _, messages, _, frames = update(cache, chosen)
    size = len(json.dumps({"figures": figures, "frames": frames}, cls=PlotlyJSONEncoder))
    assert size < 500_000 and messages == []
    run = VIEW.results(cache, chosen).result
    assert run.descent.steps == descent_cap(samples) <= 2_000
    assert len(run.descent.path.t) <= 101  # the stored kernels stay small
    assert not hasattr(run.descent.path, "K")  # no kernel stack in the cached result


def test_out_of_range_samples_are_clamped_with_a_message(cache):
    raw = VIEW.spec.to_controls(VIEW.spec.defaults())
    raw[VIEW.spec.names.index("samples")] = 100_000
    reply = answer(VIEW, cache, raw=raw)
    assert any("number of samples P" in text for text in reply.texts)
    assert f"samples={MAX_SAMPLES}" in reply.link
    spectrum = reply.figure("spectrum")
    assert len(trace(spectrum, "K₀")["x"]["bdata"]) > 0  # packed, P = 300 ranks
