"""The sweeps view (Xu & Ziyin Figs. 2b, 4, 5): what its plots draw against the engine's sweeps
called here, a click on a σ-sweep point opening exactly that network in the network view, the
budget that cuts large sweeps and says so, the background job's progress, and the downloads."""

import dataclasses
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from app.views.networks import SWEEPS as VIEW
from app.views.networks import TRAJECTORY, sweeps
from solvers import finite_width as fw
from solvers import networks as nw

SPEC = VIEW.spec
SMALL = {"n": 20, "n_test": 40, "steps": 60, "points": 4, "seed": 3}


def controls(**overrides):
    return SPEC.with_overrides(SMALL | overrides)


def digits(chosen):
    """The ten digits of the views' seeding convention (data from the generator [seed, 0])."""
    rng = np.random.default_rng([chosen.seed, 0])
    return nw.digits(tuple(range(10)), chosen.n, n_test=chosen.n_test, seed=rng)


def figures(chosen, result):
    return {panel.graph: panel.draw(chosen, result) for panel in VIEW.panels}


def test_a_sigma_sweep_draws_the_engines_sweep():
    chosen = controls(sweep="sigma", depth=3, width=12, sigma_min=0.3, sigma_max=3.0)
    result = VIEW.compute(chosen)
    X, y, X_test, y_test = digits(chosen)
    sigmas = np.array(
        [float(f"{s:.10g}") for s in np.geomspace(0.3, 3.0, 4)]
    )  # as links carry them
    expected = nw.sweep_sigma(
        X, y, sigmas, depth=3, width=12, lr=chosen.lr, steps=60, X_test=X_test, y_test=y_test,
        seed=3,
    )  # fmt: skip
    drawn = figures(chosen, result)
    pairs = [t for t in drawn["zeta"]["data"] if t["name"].startswith("ζ between")]
    assert len(pairs) == 2
    np.testing.assert_allclose(pairs[1]["y"], expected.final_alignment[0, :, 1], rtol=1e-9)
    np.testing.assert_allclose(pairs[0]["x"], sigmas, rtol=1e-9)
    (weights,) = drawn["weights"]["data"]
    np.testing.assert_allclose(weights["y"], expected.weight_change[0], rtol=1e-9)
    tests = next(t for t in drawn["accuracy"]["data"] if t["name"] == "test")
    np.testing.assert_allclose(tests["y"], expected.test_accuracy[0])


def test_a_width_sweep_fits_each_scalings_power_law_and_names_it():
    chosen = controls(sweep="widths", d_min=20, d_max=120, lr=0.1)
    result = VIEW.compute(chosen)
    widths = result.sweep.values
    assert list(widths) == sorted({2 * round(w / 2) for w in np.geomspace(20, 120, 4)})
    assert result.sweep.rows == ("NTK⁻", "NTK⁺", "Kaiming⁻", "Kaiming⁺", "Xavier⁻", "Xavier⁺")
    drawn = figures(chosen, result)["weights"]["data"]
    for row, trace in enumerate(drawn):
        slope = fw.power_fit(widths, result.sweep.weight_change[row])
        assert trace["name"] == f"{result.sweep.rows[row]}: δ = {-slope:.2f}".replace("-", "−")
        assert trace["line"].get("dash") == ("dash" if row % 2 else None)
    facts = dict(VIEW.facts(chosen, result))
    assert "App. B.4" in " ".join(facts) and "Kaiming⁻" in " ".join(facts.values())


def test_a_zero_output_width_sweep_starts_every_network_at_zero():
    chosen = controls(sweep="widths", d_min=21, d_max=81, zero_output=True, lr=0.1)
    result = VIEW.compute(chosen)
    assert np.all(result.sweep.values % 2 == 0)
    _, y, _, _ = digits(chosen)
    np.testing.assert_allclose(result.sweep.initial_loss, 0.5 * np.mean(np.sum(y**2, 1)))


def test_a_scale_sweep_marks_the_phase_boundary_and_matches_the_engine():
    chosen = controls(sweep="scale", scale_width=30, c_min=-1.0, c_max=2.0, lr=0.1)
    result = VIEW.compute(chosen)
    X, y, X_test, y_test = digits(chosen)
    expected = nw.sweep_scale(
        X, y, [-1.0, 0.0, 1.0, 2.0], width=30, lr=0.1, steps=60, X_test=X_test, y_test=y_test,
        seed=3,
    )  # fmt: skip
    np.testing.assert_allclose(result.sweep.weight_change, expected.weight_change, rtol=1e-9)
    drawn = figures(chosen, result)["weights"]
    assert drawn["layout"]["shapes"][0]["x0"] == 0  # c = 0, Theorem 2's boundary
    assert sweeps.open_point(chosen, _point(1)) is None  # no network view for these networks


def _point(index, curve=0):
    from app.core.clicks import ClickPoint

    return ClickPoint.parse({"x": 1.0, "y": 0.5, "curveNumber": curve, "pointNumber": index})


def test_a_click_on_a_sigma_point_opens_exactly_that_network():
    chosen = controls(sweep="sigma", depth=3, width=12, sigma_min=0.5, sigma_max=2.0)
    result = VIEW.compute(chosen)
    href = VIEW.open_target(
        "zeta", {"x": 1.0, "y": 0.7, "curveNumber": 0, "pointNumber": 3}, SPEC.to_controls(chosen)
    )
    parts = urlsplit(href)
    assert parts.path == TRAJECTORY.path
    opened = TRAJECTORY.parse_link("?" + parts.query).controls
    assert opened.sigma == pytest.approx(2.0) and opened.depth == 3 and opened.width == 12
    assert opened.lr == pytest.approx(chosen.lr * 2.0**-4, rel=1e-9)
    assert parse_qs(parts.query)["data"] == ["digits"]
    run = TRAJECTORY.compute(opened)
    np.testing.assert_allclose(run.curves.zeta[-1], result.sweep.final_alignment[0, 3], rtol=1e-8)
    np.testing.assert_allclose(run.curves.zeta[0], result.sweep.initial_alignment[0, 3], rtol=1e-8)


def test_a_large_sweep_is_a_job_cut_to_its_budget_and_says_so():
    large = SPEC.with_overrides(
        {"sweep": "widths", "n": 100, "n_test": 1000, "steps": 5000, "points": 32, "d_min": 10}
    )
    assert sweeps.heavy(large) and not sweeps.heavy(SPEC.defaults())
    fitted = sweeps.within_budget(large)
    assert fitted.steps < 5000
    assert sweeps.seconds(large) <= sweeps.SWEEP_SECONDS * 1.01
    with pytest.raises(ValueError, match="background jobs"):
        VIEW.compute(large)
    small = controls(sweep="sigma", depth=2, width=6, steps=5000)
    result = dataclasses.replace(
        VIEW.compute(dataclasses.replace(small, steps=60)), steps_asked=5000
    )
    assert any("trains 60 of the 5,000 steps" in m for m in VIEW.notes(small, result))


def test_the_job_reports_rising_fractions_and_equals_compute():
    chosen = controls(sweep="widths", d_min=10, d_max=40, lr=0.1)
    heard = []
    job = sweeps.compute_job(chosen, lambda fraction, text: heard.append((fraction, text)))
    plain = VIEW.compute(chosen)
    np.testing.assert_array_equal(job.sweep.weight_change, plain.sweep.weight_change)
    fractions = [fraction for fraction, _ in heard]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0
    assert len(heard) > 5 and all(text for _, text in heard)


def test_the_downloads_hold_every_row_and_pair():
    chosen = controls(sweep="widths", d_min=10, d_max=40, lr=0.1)
    result = VIEW.compute(chosen)
    tables = VIEW.tables(chosen, result)
    assert len(tables) == 6 and "sweep over widths Kaiming⁻" in tables
    kaiming = tables["sweep over widths Kaiming⁻"]
    np.testing.assert_array_equal(kaiming["weight_change"], result.sweep.weight_change[2])
    np.testing.assert_array_equal(kaiming["zeta_1_final"], result.sweep.final_alignment[2, :, 0])
    assert {"widths", "lr", "gamma", "test_accuracy"} <= set(kaiming)
