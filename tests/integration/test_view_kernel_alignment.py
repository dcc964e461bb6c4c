"""The kernel-alignment view against the solver and independent numerics (scipy's expm and
eigh): what it draws, summarises and exports is the exact optimal-feature-evolution flow."""

import json
import math

import numpy as np
import pytest
import scipy.linalg
from app.views.kernel_alignment import MAX_SAMPLES, VIEW, descent_cap
from plotly.utils import PlotlyJSONEncoder

from solvers import feature_evolution as fe
from tests.integration.figures import trace

#: non-default, quick physics: the tests must not only pass at the defaults
VALUES = VIEW.spec.with_overrides(
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


def rendered(values):
    return VIEW.render(values, VIEW.compute(values))


def descent_traces(figure):
    return [t for t in figure["data"] if str(t.get("name", "")).startswith("gradient descent")]


def task(values):
    return fe.power_law_task(values["samples"], values["a"], values["b"], values["seed"])


def test_loss_and_alignment_curves_are_the_exact_flow():
    out = rendered(VALUES)
    K0, y = task(VALUES)
    loss = trace(out.figures["loss"], "γ = 2.5")
    t = np.asarray(loss["x"])
    assert t[-1] == pytest.approx(VALUES["horizon"]) and np.all(np.diff(np.log(t)) > 0)
    expected = fe.exact(K0, y, t, eta=0.7, gamma=2.5)
    shown = expected.loss > 1e-20
    np.testing.assert_allclose(np.asarray(loss["y"])[shown], expected.loss[shown], rtol=1e-10)
    alignment = trace(out.figures["alignment"], "γ = 2.5")
    np.testing.assert_allclose(alignment["x"], t)
    np.testing.assert_allclose(alignment["y"], expected.alignment, rtol=1e-10)
    # the alignment rises from A₀ (the plot starts early enough to show it) to A∞
    a0 = float(y @ K0 @ y) / (np.linalg.norm(K0, "fro") * float(y @ y))
    a_inf = fe.final_alignment(K0, y, 2.5)
    assert abs(alignment["y"][0] - a0) < 0.05 * (a_inf - a0)
    assert alignment["y"][-1] == pytest.approx(a_inf, rel=1e-6)


def test_alignment_panel_lines_a_infinity_and_constant_kernel_alignment():
    out = rendered(VALUES)
    K0, y = task(VALUES)
    a_inf = trace(out.figures["alignment"], "A∞")
    assert np.allclose(a_inf["y"], fe.final_alignment(K0, y, 2.5), rtol=1e-12)
    assert a_inf["line"]["dash"] == "dash"
    a0 = float(y @ K0 @ y) / (np.linalg.norm(K0, "fro") * float(y @ y))
    frozen = trace(out.figures["alignment"], "γ = 0 (kernel gradient descent)")
    np.testing.assert_allclose(frozen["y"], a0, rtol=1e-10)


def test_frozen_kernel_loss_is_the_matrix_exponential():
    out = rendered(VALUES)
    K0, y = task(VALUES)
    curve = trace(out.figures["loss"], "γ = 0 (kernel gradient descent)")
    t = np.asarray(curve["x"])
    for index in (0, 57, 199, 311, len(t) - 1):
        residual = -scipy.linalg.expm(-0.7 * t[index] * K0) @ y
        assert curve["y"][index] == pytest.approx(float(residual @ residual), rel=1e-8, abs=1e-18)
    # and feature learning is faster at the horizon
    assert trace(out.figures["loss"], "γ = 2.5")["y"][-1] < curve["y"][-1]


def test_spectrum_panels_are_those_of_k0_plus_gamma_yy():
    out = rendered(VALUES)
    K0, y = task(VALUES)
    final = K0 + 2.5 * np.outer(y, y)
    after = trace(out.figures["spectrum"], "K∞ = K₀ + γyyᵀ, γ = 2.5")
    np.testing.assert_allclose(after["y"], np.sort(scipy.linalg.eigvalsh(final))[::-1], rtol=1e-9)
    before = trace(out.figures["spectrum"], "K₀")
    k = np.arange(1, 41)
    np.testing.assert_allclose(before["x"], k)
    np.testing.assert_allclose(before["y"], k**-1.1, rtol=1e-9)  # the power-law task
    power_before = trace(out.figures["task"], "before (K₀)")["y"]
    np.testing.assert_allclose(power_before, k**-1.8, rtol=1e-7)
    power_after = np.asarray(trace(out.figures["task"], "after (K∞)")["y"])
    # the task power sums to ‖y‖², weights K∞'s eigenvalues to yᵀK∞y, and its first entry is
    # the squared top-eigenvector overlap
    assert power_after.sum() == pytest.approx(float(y @ y), rel=1e-10)
    assert float(power_after @ np.asarray(after["y"])) == pytest.approx(
        float(y @ final @ y), rel=1e-9
    )
    overlap = fe.top_eigenvector_overlap(K0, y, 2.5)
    assert power_after[0] == pytest.approx(overlap**2 * float(y @ y), rel=1e-9)
    assert power_after[0] > power_before[0]  # feature learning moves power to the top mode


def test_gamma_sweep_matches_the_solver_and_marks_the_current_gamma():
    out = rendered(VALUES)
    K0, y = task(VALUES)
    figure = out.figures["sweep"]
    overlap = trace(figure, "top-eigenvector overlap |u₁ᵀy|/‖y‖")
    gammas = np.asarray(overlap["x"])
    assert len(gammas) <= 30 and gammas[0] <= 1e-3 and gammas[-1] >= 1e3
    expected = [fe.top_eigenvector_overlap(K0, y, g) for g in gammas]
    np.testing.assert_allclose(overlap["y"], expected, atol=1e-9)
    final = trace(figure, "final alignment A∞")
    np.testing.assert_allclose(
        final["y"], [fe.final_alignment(K0, y, g) for g in gammas], rtol=1e-10
    )
    current = trace(figure, "current γ = 2.5")
    assert current["x"] == [2.5, 2.5]
    assert current["y"][0] == pytest.approx(fe.top_eigenvector_overlap(K0, y, 2.5), abs=1e-9)
    assert current["y"][1] == pytest.approx(fe.final_alignment(K0, y, 2.5), rel=1e-12)
    assert figure["layout"]["shapes"][0]["x0"] == 2.5  # data units on the log axis
    # the overlap locks onto y past a threshold; γ* is where it is half-way from its γ → 0 value
    assert expected[0] < 0.9 and expected[-1] > 0.999
    star_trace = next(t for t in figure["data"] if t["name"].startswith("threshold γ*"))
    star = star_trace["x"][0]
    middle = 0.5 * (expected[0] + 1)
    assert (
        fe.top_eigenvector_overlap(K0, y, star / 1.5)
        < middle
        < fe.top_eigenvector_overlap(K0, y, star * 1.5)
    )


def test_descent_markers_iff_toggle_and_they_are_the_discrete_run():
    on = rendered(VALUES)
    off = rendered(VALUES | {"descent": False})
    for panel in ("loss", "alignment"):
        (markers,) = descent_traces(on.figures[panel])
        assert markers["mode"] == "markers" and markers["marker"]["symbol"] == "circle-open"
        assert descent_traces(off.figures[panel]) == []
        assert all(
            t["mode"] != "markers" or t.get("uid") == "cursor" or "current" in t["name"]
            for t in off.figures[panel]["data"]
        )
    K0, y = task(VALUES)
    steps = math.ceil(200.0 / 0.05)
    assert steps > descent_cap(40)  # the run is capped, and says so
    run = fe.gradient_descent(K0, y, 0.05, descent_cap(40), eta=0.7, gamma=2.5)
    markers = descent_traces(on.figures["loss"])[0]
    assert f"first {descent_cap(40):,} steps" in markers["name"]
    index = np.rint(np.asarray(markers["x"]) / 0.05).astype(int)
    assert index[-1] == descent_cap(40) and len(index) <= 120
    np.testing.assert_allclose(markers["y"], run.loss[index], rtol=1e-10)
    alignment = descent_traces(on.figures["alignment"])[0]
    np.testing.assert_allclose(alignment["y"], run.alignment[index], rtol=1e-10)
    # small steps follow the exact flow
    exact = fe.exact(K0, y, run.t[index], eta=0.7, gamma=2.5)
    np.testing.assert_allclose(alignment["y"], exact.alignment, atol=0.02)
    assert "limited to" in json.dumps(on.summary.to_plotly_json(), cls=PlotlyJSONEncoder)


def test_huge_step_size_gives_a_divergence_message(cache):
    values = VALUES | {"lr": 10.0}
    controls = VIEW.spec.controls(values)
    figures, _, messages, _, _, _ = VIEW.update(cache, controls, {}, [])
    text = " ".join(str(m.children) for m in messages)
    assert "diverged" in text and "step size 10" in text
    assert all(f["data"] for f in figures)
    # the markers stop before the blow-up instead of squashing the loss axis
    out = rendered(values)
    markers = descent_traces(out.figures["loss"])[0]
    _, y = task(values)
    assert 0 < len(markers["y"]) and max(markers["y"]) <= 1e3 * float(y @ y)
    assert rendered(VALUES).messages == []


def test_export_is_the_solver_output():
    values = VALUES | {"samples": 24, "horizon": 3.0, "lr": 0.02}
    tables = VIEW.export(values, VIEW.compute(values))
    K0, y = task(values)
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
    assert "gradient descent" not in VIEW.export(values, VIEW.compute(values | {"descent": False}))


def test_cursor_frames_follow_the_exact_curves_in_data_units():
    out = rendered(VALUES)
    frames = out.frames
    t = np.asarray(trace(out.figures["loss"], "γ = 2.5")["x"])
    # plotly.js places shapes on a log axis by data value: the cursor line moves along t itself
    np.testing.assert_allclose(frames["lines"]["loss"], frames["t"])
    assert out.figures["loss"]["layout"]["shapes"][0]["x0"] == pytest.approx(t[0])
    assert min(frames["t"]) >= t[0] * (1 - 1e-6) and max(frames["t"]) <= t[-1] * (1 + 1e-6)
    K0, y = task(VALUES)
    expected = fe.exact(K0, y, frames["t"], eta=0.7, gamma=2.5)
    np.testing.assert_allclose(frames["cursor"]["alignment"]["y"], expected.alignment, rtol=1e-5)


def test_linear_time_axis_starts_at_zero():
    out = rendered(VALUES | {"log_time": False, "horizon": 20.0})
    loss = trace(out.figures["loss"], "γ = 2.5")
    assert loss["x"][0] == 0 and loss["x"][-1] == pytest.approx(20.0)
    assert out.figures["loss"]["layout"]["xaxis"]["type"] == "linear"
    assert out.figures["loss"]["layout"]["yaxis"]["type"] == "log"
    assert descent_traces(out.figures["loss"])[0]["x"][0] == 0


def test_summary_reports_alignment_overlap_and_speed_up():
    values = VALUES | {"descent": False}
    result = VIEW.compute(values)
    text = json.dumps(
        rendered(values).summary.to_plotly_json(), cls=PlotlyJSONEncoder, ensure_ascii=False
    )
    K0, y = task(values)
    a0 = float(y @ K0 @ y) / (np.linalg.norm(K0, "fro") * float(y @ y))
    assert f"{a0:.3f} → {fe.final_alignment(K0, y, 2.5):.3f}" in text
    assert f"{fe.top_eigenvector_overlap(K0, y, 2.5):.3f}" in text
    assert "feature-learning rate" in text and "× lower" in text
    # the "catch-up" time: kernel gradient descent really reaches the rich loss then
    catch_up = result["catch_up"]
    rich = result["exact"]["loss"][-1]
    assert catch_up > values["horizon"]
    late = fe.kernel_gradient_descent(K0, y, [catch_up], eta=0.7).loss[0]
    assert late == pytest.approx(rich, rel=1e-6)


@pytest.mark.parametrize("samples", [8, MAX_SAMPLES])
def test_requests_stay_small_even_at_the_largest_size(samples, cache):
    values = VIEW.spec.with_overrides({"samples": samples, "lr": 1e-4, "horizon": 1e6})
    figures, _, messages, _, frames, _ = VIEW.update(cache, VIEW.spec.controls(values), {}, [])
    size = len(json.dumps({"figures": figures, "frames": frames}, cls=PlotlyJSONEncoder))
    assert size < 500_000 and messages == []
    result = VIEW.results(cache, values)
    assert result["descent"]["steps"] == descent_cap(samples) <= 2_000
    assert len(result["descent"]["t"]) <= 101  # the stored kernels stay small
    assert "K" not in result["descent"]


def test_out_of_range_samples_are_clamped_with_a_message(cache):
    controls = VIEW.spec.controls(VIEW.spec.defaults())
    controls[VIEW.spec.names.index("samples")] = 100_000
    figures, _, messages, search, _, _ = VIEW.update(cache, controls, {}, [])
    assert any("number of samples P" in str(m.children) for m in messages)
    assert f"samples={MAX_SAMPLES}" in search
    assert len(trace(figures[2], "K₀")["x"]["bdata"]) > 0  # packed, P = 300 ranks
