"""The λ-balanced view: its curves, heatmap frames and exports against the solver recomputed here,
and the adjustments it makes instead of failing."""

import base64
import json
import math

import numpy as np
import pytest
from app.views.lambda_balanced import MAX_DESCENT_STEPS, VIEW
from plotly.utils import PlotlyJSONEncoder

from solvers import lambda_balanced as lb


def values(**overrides):
    return VIEW.spec.with_overrides(overrides)


def rendered(**overrides):
    chosen = values(**overrides)
    return chosen, VIEW.render(chosen, VIEW.compute(chosen))


def traces(figure, mode):
    return [trace for trace in figure["data"] if trace.get("mode") == mode]


def curve(figure, name):
    (trace,) = [trace for trace in figure["data"] if trace.get("name") == name]
    return np.asarray(trace["x"], dtype=float), np.asarray(trace["y"], dtype=float)


def unpack(frames):
    """The matrices of a heatmap's frames (plotly.js typed arrays: float32, base64, shape)."""
    return np.stack(
        [
            np.frombuffer(base64.b64decode(frame["bdata"]), np.dtype(frame["dtype"])).reshape(
                [int(n) for n in frame["shape"].split(",")]
            )
            for frame in frames
        ]
    )


def random_setup(chosen):
    """The random task and λ-balanced start of the view, built here from its seeding convention:
    the task from the generator seeded [seed, 0], the weights from [seed, 1]."""
    d_in, hidden, d_out = chosen["d_in"], chosen["hidden"], chosen["d_out"]
    sigma_yx = lb.random_task(d_in, d_out, np.random.default_rng([chosen["seed"], 0]))
    W1, W2 = lb.balanced_init(
        d_in,
        hidden,
        d_out,
        chosen["lam"],
        chosen["scale"],
        np.random.default_rng([chosen["seed"], 1]),
    )
    return sigma_yx, W1, W2


def test_singular_value_loss_and_kernel_curves_are_the_solvers():
    chosen, out = rendered(lam=1.5, shape="funnel", d_in=5, hidden=3, d_out=2, seed=7, horizon=12.0)
    # λ > 0 needs h ≤ d_out: the view uses 5 → 2 → 2
    assert any("λ > 0 needs h ≤ d_out" in m for m in out.messages)
    sigma_yx, W1, W2 = random_setup(chosen | {"hidden": 2})
    t, _ = curve(out.figures["singular"], "s1")
    assert t[0] == 0 and math.isclose(t[-1], 12.0)
    reference = lb.exact(W1, W2, sigma_yx, t)
    for i in range(2):
        assert np.allclose(
            curve(out.figures["singular"], f"s{i + 1}")[1],
            reference.singular_values[:, i],
            atol=1e-9,
        )
    assert "s3" not in {trace["name"] for trace in out.figures["singular"]["data"]}
    targets = np.linalg.svd(sigma_yx, compute_uv=False)
    assert np.allclose(curve(out.figures["singular"], "task σ2")[1], targets[1])
    assert np.allclose(
        curve(out.figures["kernel"], "exact")[1], reference.kernel_distance, atol=1e-9
    )
    loss = curve(out.figures["loss"], "exact")[1]
    assert np.allclose(
        loss, 0.5 * np.sum((reference.function - sigma_yx) ** 2, axis=(1, 2)), rtol=1e-8
    )


def test_task_aligned_singular_values_follow_the_scalar_flow():
    """Independent of the matrix Riccati: each aligned mode obeys s' = √(λ² + 4s²)(σ − s)."""
    _, out = rendered(
        task="hierarchy", init="aligned", lam=2.0, scale=0.02, horizon=8.0, descent=False
    )
    sigma = np.linalg.svd(lb.hierarchical_task(), compute_uv=False)
    for i in range(8):
        t, s = curve(out.figures["singular"], f"s{i + 1}")
        expected = lb.aligned_singular_values(sigma[i], 0.02 / math.sqrt(8), 2.0, t)
        assert np.allclose(s, expected, atol=1e-7), i
    # rich (λ = 0) steps are sigmoidal: steepest well after the start; lazy ones are not
    for lam, sigmoidal in ((0.0, True), (10.0, False)):
        _, out = rendered(init="aligned", lam=lam, scale=0.001, seed=0, horizon=25.0, descent=False)
        t, s = curve(out.figures["singular"], "s1")
        steepest = t[np.argmax(np.gradient(s, t))]
        assert (steepest > 1.0) == sigmoidal, lam


def test_heatmap_frames_are_the_solvers_matrices_at_the_frame_times():
    chosen, out = rendered(task="hierarchy", lam=-3.0, scale=0.3, seed=5, horizon=6.0)
    frames = out.frames
    times = np.array(frames["t"])
    _, W1, W2 = random_setup(chosen | {"d_in": 8, "hidden": 8, "d_out": 8})
    reference = lb.exact(W1, W2, lb.hierarchical_task(), times)
    for name, matrices in (
        ("function", reference.function),
        ("rsm_in", reference.rsm_in),
        ("rsm_out", reference.rsm_out),
    ):
        frame_z = unpack(frames["heatmaps"][name])
        assert frame_z.shape == (len(times), 8, 8)
        limit = np.max(np.abs(matrices))
        assert np.allclose(frame_z, matrices, atol=2e-5 * limit), name
        heat = out.figures[name]["data"][0]
        assert heat["uid"] == "cursor" and heat["zmax"] == pytest.approx(limit, rel=1e-5)
        assert np.allclose(heat["z"], matrices[0], atol=1e-6 * limit)
    # the time-axis cursors move over the same frames
    assert frames["order"] == [panel.graph for panel in VIEW.panels]
    for name in ("singular", "loss", "kernel"):
        assert frames["lines"][name] == frames["t"]
    assert len(frames["t"]) <= 100


def test_log_time_measures_the_kernel_from_t_zero_and_keeps_cursors_in_data_units():
    chosen, out = rendered(log_time=True, horizon=50.0)
    t, _ = curve(out.figures["kernel"], "exact")
    assert t[0] > 0 and out.figures["kernel"]["layout"]["xaxis"]["type"] == "log"
    sigma_yx, W1, W2 = random_setup(chosen)
    reference = lb.exact(W1, W2, sigma_yx, np.concatenate([[0.0], t]))
    assert np.allclose(
        curve(out.figures["kernel"], "exact")[1], reference.kernel_distance[1:], atol=1e-9
    )
    # plotly places shapes in data units even on a log axis (annotations would need log10)
    assert out.frames["lines"]["kernel"] == out.frames["t"] and out.frames["t"][0] > 0
    assert out.figures["kernel"]["layout"]["shapes"][0]["x0"] == pytest.approx(t[0])


def test_hierarchy_converges_to_the_papers_representations():
    """Dominé et al. Thm C.4: W₁ᵀW₁ → ½(−λI + √(λ²I + 4ΣᵀΣ)), W₂W₂ᵀ → ½(λI + √(λ²I + 4ΣΣᵀ))."""
    sigma_yx = lb.hierarchical_task()

    def root(matrix):
        w, v = np.linalg.eigh(matrix)
        return (v * np.sqrt(np.maximum(w, 0))) @ v.T

    for lam in (10.0, -10.0, 0.0):
        horizon = 40.0 if lam == 0 else 5.0
        seed = 3
        _, out = rendered(
            task="hierarchy",
            d_in=8,
            hidden=8,
            d_out=8,
            lam=lam,
            scale=0.1,
            seed=seed,
            horizon=horizon,
            descent=False,
        )
        assert not out.messages
        final_in = unpack(out.frames["heatmaps"]["rsm_in"])[-1]
        final_out = unpack(out.frames["heatmaps"]["rsm_out"])[-1]
        eye = np.eye(8)
        expected_in = 0.5 * (-lam * eye + root(lam**2 * eye + 4 * sigma_yx.T @ sigma_yx))
        expected_out = 0.5 * (lam * eye + root(lam**2 * eye + 4 * sigma_yx @ sigma_yx.T))
        assert np.allclose(final_in, expected_in, atol=1e-4 * max(1, abs(lam))), lam
        assert np.allclose(final_out, expected_out, atol=1e-4 * max(1, abs(lam))), lam


def test_hierarchy_labels_rows_and_columns():
    _, out = rendered(task="hierarchy", d_in=8, hidden=8, d_out=8)
    function = out.figures["function"]["data"][0]
    assert function["x"] == list(lb.HIERARCHY_ITEMS) and function["y"] == list(
        lb.HIERARCHY_FEATURES
    )
    assert out.figures["rsm_in"]["data"][0]["y"] == list(lb.HIERARCHY_ITEMS)
    assert out.figures["rsm_out"]["data"][0]["x"] == list(lb.HIERARCHY_FEATURES)
    _, plain = rendered()
    assert plain.figures["function"]["data"][0]["x"] == ["x1", "x2", "x3"]


@pytest.mark.parametrize(
    "overrides, message, dims",
    [
        (
            {"shape": "any", "d_in": 2, "hidden": 5, "d_out": 3, "lam": 1.0},
            "λ > 0 needs h ≤ d_out",
            "2 → 3 → 3",
        ),
        (
            {"shape": "any", "d_in": 2, "hidden": 5, "d_out": 3, "lam": -1.0},
            "λ < 0 needs h ≤ d_in",
            "2 → 2 → 3",
        ),
        (
            {"shape": "any", "d_in": 4, "hidden": 4, "d_out": 2, "init": "aligned", "lam": -1.0},
            "task-aligned start needs h ≤ min(d_in, d_out)",
            "4 → 2 → 2",
        ),
        (
            {"task": "hierarchy", "shape": "funnel", "d_in": 4, "hidden": 2, "d_out": 2},
            "a funnel is impossible with equal input and output sizes",
            "8 → 8 → 8",
        ),
        (
            {"shape": "funnel", "d_in": 3, "hidden": 3, "d_out": 3},
            "needs d_in > h ≥ d_out",
            "4 → 3 → 3",
        ),
        (
            {"shape": "inverted funnel", "d_in": 10, "hidden": 10, "d_out": 10, "lam": 5.0},
            "needs d_in ≤ h < d_out",
            "9 → 9 → 10",
        ),
        (
            {"shape": "square", "d_in": 2, "hidden": 5, "d_out": 7},
            "needs d_in = h = d_out",
            "5 → 5 → 5",
        ),
    ],
)
def test_impossible_combinations_are_adjusted_with_a_message(cache, overrides, message, dims):
    chosen = values(**overrides)
    figures, summary, messages, _, frames, _ = VIEW.update(
        cache, VIEW.spec.controls(chosen), {}, []
    )
    assert message in str(messages) and "could not be computed" not in str(messages)
    assert dims in str(summary)
    d_in, hidden, d_out = (int(n) for n in dims.split(" → "))
    assert unpack(frames["heatmaps"]["function"]).shape[1:] == (d_out, d_in)
    result = VIEW.compute(chosen)
    assert result["exact"]["rsm_in"].shape[1:] == (d_in, d_in)
    assert result["exact"]["rsm_out"].shape[1:] == (d_out, d_out)
    rank = min(d_in, hidden, d_out)
    assert len(traces(figures[0], "lines")) == 2 * rank  # a curve and a target per mode


def test_descent_markers_present_only_with_the_toggle():
    chosen, on = rendered(descent=True)
    for name in ("singular", "loss", "kernel"):
        assert traces(on.figures[name], "markers"), name
    _, off = rendered(descent=False)
    for name in ("singular", "loss", "kernel"):
        assert not traces(off.figures[name], "markers"), name
    # the markers are the run of gradient descent recomputed here
    sigma_yx, W1, W2 = random_setup(chosen)
    steps = math.ceil(chosen["horizon"] / chosen["lr"])
    run = lb.gradient_descent(W1, W2, sigma_yx, chosen["lr"], steps)
    (loss_markers,) = traces(on.figures["loss"], "markers")
    indices = np.rint(np.asarray(loss_markers["x"]) / chosen["lr"]).astype(int)
    assert np.allclose(loss_markers["y"], run.loss[indices], rtol=1e-9)


def test_a_huge_step_size_reports_divergence_and_stays_finite(cache):
    chosen = values(lam=20.0, lr=2.0, horizon=50.0)
    figures, _, messages, _, _, _ = VIEW.update(cache, VIEW.spec.controls(chosen), {}, [])
    assert "diverged" in str(messages)
    document = json.dumps(figures, cls=PlotlyJSONEncoder)
    assert "NaN" not in document and "Infinity" not in document
    for figure in figures:  # packed float32 arrays must not overflow to inf
        for trace in figure["data"]:
            for key in ("x", "y", "z"):
                if isinstance(trace.get(key), dict):
                    data = np.frombuffer(base64.b64decode(trace[key]["bdata"]), np.float32)
                    assert np.all(np.isfinite(data))
    _, calm = rendered(lam=20.0, lr=0.01, horizon=5.0)
    assert not any("Gradient descent" in m for m in calm.messages)
    # too few steps to overflow, but the run leaves the plot: said too, markers stop there
    _, runaway = rendered(lam=10.0, lr=1.0, horizon=3.0)
    assert any("Gradient descent ran away" in m for m in runaway.messages)
    (markers,) = traces(runaway.figures["loss"], "markers")
    assert 0 < len(markers["x"]) < 4


def test_descent_steps_are_capped_with_a_message():
    chosen, out = rendered(horizon=1000.0, lr=0.001)
    assert any(f"{MAX_DESCENT_STEPS:,} steps" in m for m in out.messages)
    result = VIEW.compute(chosen)
    assert result["descent"]["t"][-1] == pytest.approx(MAX_DESCENT_STEPS * 0.001)


def test_saddle_start_is_warned_about():
    # square, λ = 0: with seed 1 the start lies on a saddle's stable manifold
    chosen, out = rendered(seed=1)
    sigma_yx, W1, W2 = random_setup(chosen)
    assert lb.exact(W1, W2, sigma_yx, np.array([0.0])).saddle_margin < 1e-8
    assert any("stable manifold of a saddle" in m for m in out.messages)
    assert "saddle margin" in str(out.summary)
    _, fine = rendered(seed=4)
    assert not fine.messages


def test_summary_names_the_expected_regime():
    _, lazy = rendered(shape="funnel", d_in=4, hidden=2, d_out=2, lam=10.0)
    _, delayed = rendered(shape="funnel", d_in=4, hidden=2, d_out=2, lam=-10.0)
    _, mirrored = rendered(shape="inverted funnel", d_in=2, hidden=2, d_out=4, lam=10.0)
    text = [str(r.summary) for r in (lazy, delayed, mirrored)]
    assert (
        "lazy: exponential" in text[0] and "delayed rich" in text[1] and "delayed rich" in text[2]
    )


def test_export_is_the_solvers_numbers():
    chosen = values(lam=-2.0, shape="any", d_in=3, hidden=2, d_out=4, seed=11, horizon=7.0)
    tables = VIEW.export(chosen, VIEW.compute(chosen))
    sigma_yx, W1, W2 = random_setup(chosen)
    exact = tables["exact"]
    reference = lb.exact(W1, W2, sigma_yx, np.linspace(0, 7.0, len(exact["t"])))
    assert np.allclose(exact["t"], reference.t)
    for name in ("singular_values", "loss", "kernel_distance", "function", "rsm_in", "rsm_out"):
        assert np.allclose(exact[name], getattr(reference, name), atol=1e-9), name
    descent = tables["gradient descent"]
    run = lb.gradient_descent(W1, W2, sigma_yx, chosen["lr"], math.ceil(7.0 / chosen["lr"]))
    indices = np.rint(descent["t"] / chosen["lr"]).astype(int)
    assert np.allclose(descent["function"], run.function[indices])
    assert np.allclose(descent["loss"], run.loss[indices])
    assert "gradient descent" not in VIEW.export(
        values(descent=False), VIEW.compute(values(descent=False))
    )


def test_the_largest_request_stays_small(cache):
    chosen = values(
        shape="any",
        d_in=10,
        hidden=10,
        d_out=10,
        lam=20.0,
        scale=10.0,
        horizon=1000.0,
        lr=0.001,
        log_time=True,
    )
    figures, _, _, _, frames, _ = VIEW.update(cache, VIEW.spec.controls(chosen), {}, [])
    size = len(json.dumps(figures, cls=PlotlyJSONEncoder)) + len(json.dumps(frames))
    assert size < 500_000
