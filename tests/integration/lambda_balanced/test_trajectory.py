"""The λ-balanced view: its curves, heatmap frames and downloads against the solver recomputed
here from the view's seeding convention, and the adjustments it makes instead of failing."""

import json
import math

import numpy as np
import pytest
from plotly.utils import PlotlyJSONEncoder

from app.ui.notation import plain
from app.views.lambda_balanced import TRAJECTORY as VIEW
from app.views.lambda_balanced.trajectory import MAX_DESCENT_STEPS
from solvers import lambda_balanced as lb
from tests.integration import calls
from tests.integration.figures import trace, unpacked
from tests.integration.lambda_balanced import drawn


def controls(**overrides):
    return VIEW.spec.with_overrides(overrides)


def traces(figure, mode):
    return [t for t in figure["data"] if t.get("mode") == mode]


def curve(figure, name):
    found = trace(figure, name)
    return np.asarray(found["x"], dtype=float), np.asarray(found["y"], dtype=float)


def answer(cache, chosen):
    """(figures, summary, messages, frames) of the main callback for these controls."""
    reply = calls.answer(VIEW, cache, chosen)
    return reply.figures, reply.summary, reply.messages, reply.frames


def unpack(frames):
    """The matrices of a heatmap's frames (plotly.js typed arrays: float32, base64, shape)."""
    return np.stack([unpacked(frame) for frame in frames])


def random_setup(chosen, **sizes):
    """The random task and λ-balanced start of the view, built here from its seeding convention:
    the task from the generator seeded [seed, 0], the weights from [seed, 1]."""
    d_in, hidden, d_out = (sizes.get(n, getattr(chosen, n)) for n in ("d_in", "hidden", "d_out"))
    sigma_yx = lb.random_task(d_in, d_out, np.random.default_rng([chosen.seed, 0]))
    W1, W2 = lb.balanced_init(
        d_in, hidden, d_out, chosen.lam, chosen.scale, np.random.default_rng([chosen.seed, 1])
    )
    return sigma_yx, W1, W2


def test_singular_value_loss_and_kernel_curves_are_the_solvers():
    chosen, run, figures = drawn(
        VIEW, lam=1.5, shape="funnel", d_in=5, hidden=3, d_out=2, seed=7, horizon=12.0
    )
    # λ > 0 needs h ≤ d_out: the view uses 5 → 2 → 2
    assert any("λ > 0 needs h ≤ d_out" in m for m in VIEW.notes(chosen, run))
    sigma_yx, W1, W2 = random_setup(chosen, hidden=2)
    t, _ = curve(figures["singular"], "s_1")
    assert t[0] == 0 and math.isclose(t[-1], 12.0)
    reference = lb.exact(W1, W2, sigma_yx, t)
    for i in range(2):
        assert np.allclose(
            curve(figures["singular"], f"s_{i + 1}")[1],
            reference.singular_values[:, i],
            atol=1e-9,
        )
    assert "s_3" not in {t["name"] for t in figures["singular"]["data"]}
    targets = np.linalg.svd(sigma_yx, compute_uv=False)
    assert np.allclose(curve(figures["singular"], "task σ_2")[1], targets[1])
    assert np.allclose(curve(figures["kernel"], "exact")[1], reference.kernel_distance, atol=1e-9)
    loss = curve(figures["loss"], "exact")[1]
    assert np.allclose(
        loss, 0.5 * np.sum((reference.function - sigma_yx) ** 2, axis=(1, 2)), rtol=1e-8
    )


def test_task_aligned_singular_values_follow_the_scalar_flow():
    """Independent of the matrix Riccati: each aligned mode obeys s' = √(λ² + 4s²)(σ − s)."""
    _, _, figures = drawn(
        VIEW, task="hierarchy", init="aligned", lam=2.0, scale=0.02, horizon=8.0, descent=False
    )
    sigma = np.linalg.svd(lb.hierarchical_task(), compute_uv=False)
    for i in range(8):
        t, s = curve(figures["singular"], f"s_{i + 1}")
        expected = lb.aligned_singular_values(sigma[i], 0.02 / math.sqrt(8), 2.0, t)
        assert np.allclose(s, expected, atol=1e-7), i
    # rich (λ = 0) steps are sigmoidal: steepest well after the start; lazy ones are not
    for lam, sigmoidal in ((0.0, True), (10.0, False)):
        _, _, figures = drawn(
            VIEW, init="aligned", lam=lam, scale=0.001, seed=0, horizon=25.0, descent=False
        )
        t, s = curve(figures["singular"], "s_1")
        steepest = t[np.argmax(np.gradient(s, t))]
        assert (steepest > 1.0) == sigmoidal, lam


def test_heatmap_frames_are_the_solvers_matrices_at_the_frame_times(cache):
    chosen, run, figures = drawn(VIEW, task="hierarchy", lam=-3.0, scale=0.3, seed=5, horizon=6.0)
    frames = VIEW.frames(chosen, run).payload([panel.graph for panel in VIEW.panels])
    times = np.array(frames["t"])
    _, W1, W2 = random_setup(chosen, d_in=8, hidden=8, d_out=8)
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
        heat = figures[name]["data"][0]
        assert heat["uid"] == "cursor" and heat["zmax"] == pytest.approx(limit, rel=1e-5)
        assert np.allclose(heat["z"], matrices[0], atol=1e-6 * limit)
    # the time-axis cursors move over the same frames
    assert frames["order"] == [panel.graph for panel in VIEW.panels]
    for name in ("singular", "loss", "kernel"):
        assert frames["lines"][name] == frames["t"]
    assert len(frames["t"]) <= 100
    # and the callback sends the same payload
    assert answer(cache, chosen)[3] == frames


def test_log_time_measures_the_kernel_from_t_zero_and_keeps_cursors_in_data_units():
    chosen, run, figures = drawn(VIEW, log_time=True, horizon=50.0)
    t, _ = curve(figures["kernel"], "exact")
    assert t[0] > 0 and figures["kernel"]["layout"]["xaxis"]["type"] == "log"
    sigma_yx, W1, W2 = random_setup(chosen)
    reference = lb.exact(W1, W2, sigma_yx, np.concatenate([[0.0], t]))
    assert np.allclose(
        curve(figures["kernel"], "exact")[1], reference.kernel_distance[1:], atol=1e-9
    )
    # plotly places shapes in data units even on a log axis (annotations would need log10)
    frames = VIEW.frames(chosen, run)
    assert np.array_equal(frames.lines["kernel"], frames.t) and frames.t[0] > 0
    assert figures["kernel"]["layout"]["shapes"][0]["x0"] == pytest.approx(t[0])


def test_hierarchy_converges_to_the_papers_representations():
    """Dominé et al. Thm C.4: W₁ᵀW₁ → ½(−λI + √(λ²I + 4ΣᵀΣ)), W₂W₂ᵀ → ½(λI + √(λ²I + 4ΣΣᵀ))."""
    sigma_yx = lb.hierarchical_task()

    def root(matrix):
        w, v = np.linalg.eigh(matrix)
        return (v * np.sqrt(np.maximum(w, 0))) @ v.T

    for lam in (10.0, -10.0, 0.0):
        horizon = 40.0 if lam == 0 else 5.0
        chosen = controls(
            task="hierarchy",
            d_in=8,
            hidden=8,
            d_out=8,
            lam=lam,
            scale=0.1,
            seed=3,
            horizon=horizon,
            descent=False,
        )
        run = VIEW.compute(chosen)
        assert not VIEW.notes(chosen, run)
        frames = VIEW.frames(chosen, run)
        final_in, final_out = frames.heatmaps["rsm_in"][-1], frames.heatmaps["rsm_out"][-1]
        eye = np.eye(8)
        expected_in = 0.5 * (-lam * eye + root(lam**2 * eye + 4 * sigma_yx.T @ sigma_yx))
        expected_out = 0.5 * (lam * eye + root(lam**2 * eye + 4 * sigma_yx @ sigma_yx.T))
        assert np.allclose(final_in, expected_in, atol=1e-4 * max(1, abs(lam))), lam
        assert np.allclose(final_out, expected_out, atol=1e-4 * max(1, abs(lam))), lam


def test_a_tiny_lambda_lets_a_wrong_sign_start_through_the_balanced_saddle():
    """What the Fig. 4 card's λ = 0.001 rests on: at exactly λ = 0 a square start whose det W₂W₁
    has the other sign than the task's (seed 0 here) stops at a saddle one of the tree's finest
    distinctions short; λ = 0.001 lets the same draw reach the hierarchy."""
    settings = {
        "task": "hierarchy",
        "d_in": 8,
        "hidden": 8,
        "d_out": 8,
        "scale": 0.01,
        "seed": 0,
        "horizon": 30.0,
        "descent": False,
    }
    stuck = VIEW.compute(controls(lam=0.0, **settings))
    start = stuck.scenario
    assert np.linalg.det(start.W2 @ start.W1) * np.linalg.det(start.sigma_yx) < 0
    assert stuck.exact.saddle_margin < 1e-8
    assert stuck.exact.loss[-1] / stuck.exact.loss[0] > 0.05  # one σ = 0.5 mode of 8 unlearnt
    through = VIEW.compute(controls(lam=0.001, **settings))
    assert through.exact.loss[-1] / through.exact.loss[0] < 1e-12


def test_hierarchy_labels_rows_and_columns():
    _, _, figures = drawn(VIEW, task="hierarchy", d_in=8, hidden=8, d_out=8)
    function = figures["function"]["data"][0]
    assert function["x"] == list(lb.HIERARCHY_ITEMS)
    assert function["y"] == list(lb.HIERARCHY_FEATURES)
    assert figures["rsm_in"]["data"][0]["y"] == list(lb.HIERARCHY_ITEMS)
    assert figures["rsm_out"]["data"][0]["x"] == list(lb.HIERARCHY_FEATURES)
    _, _, plain = drawn(VIEW)
    # the random task's inputs as symbols with their index lowered: x₁, x₂, x₃
    assert plain["function"]["data"][0]["x"] == [f"<i>x</i><sub>{i}</sub>" for i in (1, 2, 3)]


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
    chosen = controls(**overrides)
    figures, summary, messages, frames = answer(cache, chosen)
    said = " ".join(plain(m.children) for m in messages)
    assert message in said and "could not be computed" not in said
    assert dims in str(summary)
    d_in, hidden, d_out = (int(n) for n in dims.split(" → "))
    assert unpack(frames["heatmaps"]["function"]).shape[1:] == (d_out, d_in)
    run = VIEW.compute(chosen)
    assert run.exact.rsm_in.shape[1:] == (d_in, d_in)
    assert run.exact.rsm_out.shape[1:] == (d_out, d_out)
    rank = min(d_in, hidden, d_out)
    assert len(traces(figures[0], "lines")) == 2 * rank  # a curve and a target per mode


def test_descent_markers_present_only_with_the_toggle():
    chosen, _, on = drawn(VIEW, descent=True)
    for name in ("singular", "loss", "kernel"):
        assert traces(on[name], "markers"), name
    _, _, off = drawn(VIEW, descent=False)
    for name in ("singular", "loss", "kernel"):
        assert not traces(off[name], "markers"), name
    # the markers are the run of gradient descent recomputed here
    sigma_yx, W1, W2 = random_setup(chosen)
    steps = math.ceil(chosen.horizon / chosen.lr)
    run = lb.gradient_descent(W1, W2, sigma_yx, chosen.lr, steps)
    (loss_markers,) = traces(on["loss"], "markers")
    indices = np.rint(np.asarray(loss_markers["x"]) / chosen.lr).astype(int)
    assert np.allclose(loss_markers["y"], run.loss[indices], rtol=1e-9)


def _packed_values_are_finite(figure):
    for item in figure["data"]:
        for key in ("x", "y", "z"):
            if isinstance(item.get(key), dict):
                assert np.all(np.isfinite(unpacked(item[key])))


def test_a_huge_step_size_reports_divergence_and_stays_finite(cache):
    figures, _, messages, _ = answer(cache, controls(lam=20.0, lr=2.0, horizon=50.0))
    assert "diverged" in str(messages)
    document = json.dumps(figures, cls=PlotlyJSONEncoder)
    assert "NaN" not in document and "Infinity" not in document
    for figure in figures:  # packed float32 arrays must not overflow to inf
        _packed_values_are_finite(figure)
    calm = controls(lam=20.0, lr=0.01, horizon=5.0)
    assert not any("Gradient descent" in m for m in VIEW.notes(calm, VIEW.compute(calm)))
    # too few steps to overflow, but the run leaves the plot: said too, markers stop there
    runaway, run, figures = drawn(VIEW, lam=10.0, lr=1.0, horizon=3.0)
    assert any("Gradient descent ran away" in m for m in VIEW.notes(runaway, run))
    (markers,) = traces(figures["loss"], "markers")
    assert 0 < len(markers["x"]) < 4


def test_descent_steps_are_capped_with_a_message():
    chosen = controls(horizon=1000.0, lr=0.001)
    run = VIEW.compute(chosen)
    assert any(f"{MAX_DESCENT_STEPS:,} steps" in m for m in VIEW.notes(chosen, run))
    assert run.descent.t[-1] == pytest.approx(MAX_DESCENT_STEPS * 0.001)


def test_saddle_start_is_warned_about():
    # square, λ = 0: with seed 1 the start lies on a saddle's stable manifold
    chosen = controls(seed=1)
    run = VIEW.compute(chosen)
    sigma_yx, W1, W2 = random_setup(chosen)
    assert lb.exact(W1, W2, sigma_yx, np.array([0.0])).saddle_margin < 1e-8
    assert any("stable manifold of a saddle" in m for m in VIEW.notes(chosen, run))
    assert "saddle margin" in dict(VIEW.facts(chosen, run))["warning"]
    fine = controls(seed=4)
    assert not VIEW.notes(fine, VIEW.compute(fine))


def test_summary_names_the_expected_regime():
    def regime(**overrides):
        chosen = controls(**overrides)
        return dict(VIEW.facts(chosen, VIEW.compute(chosen)))["expected regime"]

    funnel = {"shape": "funnel", "d_in": 4, "hidden": 2, "d_out": 2}
    assert regime(**funnel, lam=10.0).startswith("lazy: exponential")
    assert "delayed rich" in regime(**funnel, lam=-10.0)
    assert "delayed rich" in regime(shape="inverted funnel", d_in=2, hidden=2, d_out=4, lam=10.0)
    assert regime(lam=10.0) == "lazy, the task's structure learnt in W₁ (W₂W₂ᵀ ≈ λI) only"
    assert regime(lam=0.0).startswith("near balance — rich")
    assert regime(lam=2.0).startswith("between rich and lazy")


def test_the_best_possible_loss_is_said_when_the_width_falls_short():
    chosen = controls(shape="any", d_in=4, hidden=1, d_out=3, lam=0.5, seed=2)
    run = VIEW.compute(chosen)
    sigma = np.linalg.svd(random_setup(chosen)[0], compute_uv=False)
    expected = 0.5 * np.sum(sigma[1:] ** 2)  # Eckart–Young, by hand
    assert (
        f"best possible with h = 1: {expected:.3g}" in dict(VIEW.facts(chosen, run))["final loss"]
    )


def test_downloads_are_the_solvers_numbers():
    chosen = controls(lam=-2.0, shape="any", d_in=3, hidden=2, d_out=4, seed=11, horizon=7.0)
    tables = VIEW.tables(chosen, VIEW.compute(chosen))
    sigma_yx, W1, W2 = random_setup(chosen)
    exact = tables["exact"]
    reference = lb.exact(W1, W2, sigma_yx, np.linspace(0, 7.0, len(exact["t"])))
    assert np.allclose(exact["t"], reference.t)
    for name in ("singular_values", "loss", "kernel_distance", "function", "rsm_in", "rsm_out"):
        assert np.allclose(exact[name], getattr(reference, name), atol=1e-9), name
    descent = tables["gradient descent"]
    run = lb.gradient_descent(W1, W2, sigma_yx, chosen.lr, math.ceil(7.0 / chosen.lr))
    indices = np.rint(descent["t"] / chosen.lr).astype(int)
    assert np.allclose(descent["function"], run.function[indices])
    assert np.allclose(descent["loss"], run.loss[indices])
    off = controls(descent=False)
    assert "gradient descent" not in VIEW.tables(off, VIEW.compute(off))


def test_the_largest_request_stays_small(cache):
    chosen = controls(
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
    figures, _, _, frames = answer(cache, chosen)
    size = len(json.dumps(figures, cls=PlotlyJSONEncoder)) + len(json.dumps(frames))
    assert size < 500_000
