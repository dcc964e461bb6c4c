"""The kernel-alignment map: its cells against the closed forms on tasks built here and against
the trajectory a click opens, the links a click opens, the regimes written on the maps, and the
caps (the largest request renders; its time is printed, not asserted)."""

import math
import time
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from app.ui.figures import compact
from app.views.kernel_alignment import MAP as VIEW
from app.views.kernel_alignment import TRAJECTORY
from app.views.kernel_alignment import map as gamma_map
from app.views.kernel_alignment import map_plots as plots
from solvers import feature_evolution as fe
from tests.dash_client import payload


def values(**overrides):
    return VIEW.spec.with_overrides(overrides)


def computed(**overrides):
    chosen = values(**overrides)
    return chosen, VIEW.compute(chosen)


def task(chosen, **exponent):
    """(K₀, y) of the map's settings with an exponent overridden, from the solver's task."""
    exponents = {"a": chosen.a, "b": chosen.b} | exponent
    return fe.power_law_task(chosen.samples, exponents["a"], exponents["b"], chosen.seed)


def alignment_of(K, y):
    """A(K, y) = yᵀKy/(‖K‖_F‖y‖²), written out."""
    return float(y @ K @ y) / (np.linalg.norm(K, "fro") * float(y @ y))


def overlap_of(K, y):
    """|u₁ᵀy|/‖y‖ for the top eigenvector of K, by a full eigendecomposition."""
    top = np.linalg.eigh(K)[1][:, -1]
    return abs(float(top @ y)) / np.linalg.norm(y)


def opened(href, target):
    """(path, embed, validated controls) of a link, checking that nothing had to be clamped."""
    parts = urlsplit(href)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    state = target.spec.parse_query("?" + parts.query)
    assert state.messages == ()  # every value fits the target view's ranges
    return parts.path, query.get("embed"), state.controls


def labels_of(figure):
    return [a["text"].replace("<br>", " ") for a in figure["layout"]["annotations"]]


@pytest.mark.parametrize(
    "overrides",
    [{}, {"axis": "b", "a": 2.5, "samples": 40, "seed": 7, "gamma_low": 0.01, "columns": 17}],
)
def test_cells_are_the_closed_forms_of_the_papers_eq_11(overrides):
    chosen, result = computed(**overrides)
    alignment = plots.draw_alignment(chosen, result)["data"][0]
    overlap = plots.draw_overlap(chosen, result)["data"][0]
    rng = np.random.default_rng(1)
    for _ in range(4):
        row = int(rng.integers(alignment["y"].size))
        column = int(rng.integers(alignment["x"].size))
        exponent, gamma = float(alignment["y"][row]), float(alignment["x"][column])
        K0, y = task(chosen, **{chosen.axis: exponent})
        final = K0 + gamma * np.outer(y, y)
        assert alignment["z"][row, column] == pytest.approx(alignment_of(final, y), rel=1e-12)
        assert overlap["z"][row, column] == pytest.approx(overlap_of(final, y), rel=1e-8, abs=1e-10)
        # A∞ is the t → ∞ limit of the exact trajectory's alignment
        late = fe.exact(K0, y, np.array([1e9]), gamma=gamma).alignment[-1]
        assert alignment["z"][row, column] == pytest.approx(late, rel=1e-6)


def test_the_alignment_over_time_is_the_exact_solution():
    chosen, result = computed(a=2.0, b=1.0, samples=48, horizon=1e4)
    heatmap = plots.draw_time(chosen, result)["data"][0]
    K0, y = task(chosen)
    for column in (0, 7, heatmap["x"].size - 1):
        path = fe.exact(K0, y, heatmap["y"], gamma=float(heatmap["x"][column]))
        np.testing.assert_allclose(heatmap["z"][:, column], path.alignment, rtol=1e-10)
    assert heatmap["y"][-1] == pytest.approx(1e4)
    # A(t) climbs from (about) A₀ at the first time drawn to A∞
    first, last = heatmap["z"][0], heatmap["z"][-1]
    assert np.allclose(first, alignment_of(K0, y), atol=5e-3)
    assert np.all(last >= first - 1e-12)
    # the dotted line is t = 1/c₁, c₁ the top eigenvalue of K∞
    rise = plots.draw_time(chosen, result)["data"][1]
    for gamma, t in zip(rise["x"], rise["y"], strict=True):
        top = np.linalg.eigvalsh(K0 + gamma * np.outer(y, y))[-1]
        assert t == pytest.approx(1 / top, rel=1e-10)


def test_the_threshold_is_where_the_overlap_passes_half_way():
    chosen, result = computed()
    stars = result.threshold
    assert np.all(np.isfinite(stars))  # every row of the default map has one
    grid = result.gammas
    for row in range(0, stars.size, 5):
        overlap = result.top_overlap[row]
        column = int(np.searchsorted(grid, stars[row]))
        level = 0.5 * (overlap[0] + 1)  # ≈ half-way from the γ → 0 value (grid starts at 1e-3)
        assert overlap[column - 1] < level + 0.02 and overlap[column] > level - 0.02
    dots = plots.draw_alignment(chosen, result)["data"][1]
    assert dots["name"] == "threshold γ*" and np.allclose(dots["x"], stars)
    sweep = plots.draw_sweep(chosen, result)
    assert any(t["name"].startswith("threshold γ*") for t in sweep["data"])


def test_the_regimes_are_written_on_both_maps():
    chosen, result = computed()
    for draw in (plots.draw_alignment, plots.draw_overlap):
        figure = draw(chosen, result)
        lazy, rich = figure["layout"]["annotations"]
        assert labels_of(figure) == ["lazy (kernel regime)", "rich (aligned)"]
        assert lazy["x"] < math.log10(result.threshold.min()) < rich["x"]
    # what the numbers show: A∞ ≈ A₀ at the smallest γ, ≈ 1 at the largest
    assert np.all(np.abs(result.final_alignment[:, -1] - 1) < 1e-3)
    gap = result.final_alignment[:, 0] - result.initial_alignment
    assert np.all(gap >= 0) and np.median(gap) < 0.02
    hidden = plots.draw_alignment(values(labels=False), result)
    assert hidden["layout"]["annotations"] == []


def test_a_click_opens_that_task_in_the_trajectory_view():
    chosen = values(axis="b", a=2.0, samples=50, seed=3, horizon=500.0)
    controls = VIEW.spec.to_controls(chosen)
    result = VIEW.compute(chosen)
    row, column = 11, 30
    gamma, b = result.gammas[column], result.exponents[row]
    exact_point = {"x": gamma, "y": b, "pointNumber": [row, column]}
    nearby = {"x": float(np.float32(gamma * 1.01)), "y": float(np.float32(b + 0.01))}
    for graph in ("alignment", "overlap"):
        for point in (exact_point, nearby):
            href = VIEW.open_target(graph, point, controls, {"embed": "1"}, "/p")
            path, embed, target = opened(href, TRAJECTORY)
            assert path == "/p" + TRAJECTORY.path and embed == "1"
            expected = {"gamma": gamma, "a": 2.0, "b": b, "samples": 50, "seed": 3}
            assert {k: getattr(target, k) for k in expected} == expected
            assert target.horizon == 500.0 and target.log_time and not target.descent
    # the trajectory it opens is the cell's task: same A₀, A∞ and overlap
    trajectory = TRAJECTORY.compute(target)
    assert trajectory.final_alignment == pytest.approx(
        result.final_alignment[row, column], rel=1e-12
    )
    assert trajectory.sweep.initial_alignment == result.initial_alignment[row]
    assert trajectory.final.top_overlap == pytest.approx(result.top_overlap[row, column], abs=1e-9)
    # the line plots and the A(t) panel open their γ with the current exponents
    for graph in ("sweep", "time"):
        href = VIEW.open_target(graph, {"x": gamma, "y": 0.5}, controls, {})
        _, _, target = opened(href, TRAJECTORY)
        assert target.gamma == gamma and (target.a, target.b) == (2.0, chosen.b)


@pytest.mark.parametrize(
    "point", [None, {}, {"x": "a", "y": 1}, {"x": -1.0, "y": 1.0}, {"x": float("inf"), "y": 1}]
)
def test_a_malformed_click_opens_nothing(point):
    controls = VIEW.spec.to_controls(values())
    for graph in ("alignment", "sweep"):
        assert VIEW.open_target(graph, point, controls, None) is None


def timed(chosen):
    """compute + drawing and packing of the figures, as the callback does (uncached)."""
    start = time.perf_counter()
    result = VIEW.compute(chosen)
    figures = [compact(panel.draw(chosen, result)) for panel in VIEW.panels]
    return time.perf_counter() - start, figures


def test_caps_are_clamped_and_the_largest_map_renders():
    parsed, messages = VIEW.spec.parse(
        {"rows": 10**9, "columns": -5, "samples": 1e6, "gamma_high": 1e30}
    )
    assert parsed.rows == gamma_map.MAX_ROWS and parsed.columns == 10
    assert parsed.samples == gamma_map.SAMPLE_RANGE[1] <= TRAJECTORY.spec.by_name["samples"].high
    assert parsed.gamma_high == TRAJECTORY.spec.by_name["gamma"].high
    assert len(messages) == 4
    assert gamma_map.MAX_COLUMNS <= fe.MAX_SWEEP_GAMMAS
    caps = values(
        samples=gamma_map.SAMPLE_RANGE[1],
        rows=gamma_map.MAX_ROWS,
        columns=gamma_map.MAX_COLUMNS,
        horizon=1e6,
        axis="b",
        b=3.0,
    )
    default_time, _ = timed(values())
    cap_time, figures = timed(caps)
    alignment = figures[[p.graph for p in VIEW.panels].index("alignment")]
    assert alignment["data"][0]["z"]["shape"] == f"{gamma_map.MAX_ROWS}, {gamma_map.MAX_COLUMNS}"
    print(
        f"\nkernel-alignment map: defaults {1e3 * default_time:.0f} ms, caps "
        f"{1e3 * cap_time:.0f} ms ({gamma_map.MAX_ROWS} × {gamma_map.MAX_COLUMNS} cells, "
        f"P = {gamma_map.SAMPLE_RANGE[1]})"
    )


def test_downloads_are_finite_and_name_their_cells():
    chosen, result = computed(columns=12, rows=5)
    tables = VIEW.tables(chosen, result)
    assert set(tables) == {
        "map over gamma and a",
        "current a=1.5 b=1.2",
        "threshold gamma* over a",
        "alignment over time",
    }
    for table in tables.values():
        assert len({len(column) for column in table.values()}) == 1
        assert all(np.all(np.isfinite(column)) for column in table.values())
    cells = tables["map over gamma and a"]
    assert cells["gamma"].size == 60
    # each line names its cell: row 3, column 7 is the 3 × 12 + 7-th line
    assert (cells["a"][43], cells["gamma"][43]) == (result.exponents[3], result.gammas[7])
    assert cells["final_alignment"][43] == result.final_alignment[3, 7]
    over_time = tables["alignment over time"]
    assert list(over_time) == ["gamma", "t", "alignment"]
    columns = result.over_time.gammas.size
    assert (over_time["t"][columns + 2], over_time["gamma"][columns + 2]) == (
        result.over_time.t[1],
        result.over_time.gammas[2],
    )


def test_no_threshold_in_range_says_so():
    # b = 0: K₀ = I, so the top eigenvector of I + γyyᵀ is y itself for any γ > 0 — every row
    # is past half-way at the smallest γ, and no row has a threshold inside the range
    chosen, result = computed(axis="a", b=0.0, rows=4, samples=16)
    K0, y = task(chosen)
    assert np.allclose(K0, np.eye(16)) and overlap_of(K0 + 1e-3 * np.outer(y, y), y) > 1 - 1e-9
    assert not np.any(result.found) and result.current.threshold is None
    (note,) = VIEW.notes(chosen, result)
    assert "No row has a threshold" in note
    assert "threshold gamma* over a" not in VIEW.tables(chosen, result)
    assert "no threshold in range" in dict(VIEW.facts(chosen, result))["at a = 1.5, b = 0"]
    assert VIEW.notes(*computed()) == []


def test_the_click_callback_over_http(client, dependencies):
    (callback,) = [d for d in dependencies if d["output"] == f"{VIEW.key}-open.href"]
    controls = {
        f"{VIEW.key}-{name}.value": value
        for name, value in zip(VIEW.spec.names, VIEW.spec.to_controls(values()), strict=True)
    }
    changed = f"{VIEW.key}-graph-overlap.clickData"
    point = {"x": 1.0, "y": 1.5, "pointNumber": [6, 24]}
    body = payload(callback, controls | {changed: {"points": [point]}})
    body["changedPropIds"] = [changed]
    answer = client.post("/_dash-update-component", json=body)
    assert answer.status_code == 200
    href = answer.get_json()["response"][f"{VIEW.key}-open"]["href"]
    assert href.startswith(TRAJECTORY.path + "?")
    _, _, target = opened(href, TRAJECTORY)
    result = VIEW.compute(values())
    assert (target.a, target.gamma) == (result.exponents[6], result.gammas[24])
    # garbage instead of clickData: nothing opens, and no error
    body = payload(callback, controls | {changed: {"points": "x"}})
    body["changedPropIds"] = [changed]
    assert client.post("/_dash-update-component", json=body).status_code in (200, 204)
