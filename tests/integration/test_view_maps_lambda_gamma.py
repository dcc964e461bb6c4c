"""The kernel-alignment map: its cells against independent solver calls (and against the
trajectory a click opens), the links a click opens, the regimes written on the map, and the caps
(the largest request renders; its time is printed, not asserted). The λ-balanced map's tests are
in tests/integration/lambda_balanced/test_map.py."""

import json
import math
import time
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from app.figures import compact
from app.views.kernel_alignment import VIEW as ALIGNMENT
from plotly.utils import PlotlyJSONEncoder

from app.views import kernel_alignment_map as gamma_map
from solvers import feature_evolution as fe
from tests.dash_client import payload


def values(view, **overrides):
    return view.VIEW.spec.with_overrides(overrides)


def rendered(view, **overrides):
    chosen = values(view, **overrides)
    result = view.VIEW.compute(chosen)
    return chosen, result, view.VIEW.render(chosen, result)


def opened(href, target):
    """(path, embed, validated values) of a link, checking that nothing had to be clamped."""
    parts = urlsplit(href)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    parsed, _ = target.spec.parse_query("?" + parts.query)
    assert parsed.messages == ()  # every value fits the target view's ranges
    return parts.path, query.get("embed"), parsed.values


def labels_of(figure):
    return [
        a["text"].removeprefix("<b>").removesuffix("</b>") for a in figure["layout"]["annotations"]
    ]


def timed(view, overrides):
    """compute + render + packing of the figures, as the callback does (uncached)."""
    chosen = values(view, **overrides)
    start = time.perf_counter()
    result = view.VIEW.compute(chosen)
    out = view.VIEW.render(chosen, result)
    figures = [compact(out.figures[p.graph]) for p in view.VIEW.panels]
    elapsed = time.perf_counter() - start
    json.dumps(figures, cls=PlotlyJSONEncoder)
    return elapsed, out


# -- the kernel-alignment map ----------------------------------------------------------------


@pytest.mark.parametrize(
    "overrides",
    [{}, {"axis": "b", "a": 2.5, "samples": 40, "seed": 7, "gamma_low": 0.01, "columns": 17}],
)
def test_gamma_cells_are_the_closed_forms_of_the_papers_eq_11(overrides):
    chosen, _, out = rendered(gamma_map, **overrides)
    alignment = out.figures["alignment"]["data"][0]
    overlap = out.figures["overlap"]["data"][0]
    axis = chosen["axis"]
    rng = np.random.default_rng(1)
    for _ in range(4):
        row = int(rng.integers(alignment["y"].size))
        column = int(rng.integers(alignment["x"].size))
        exponent, gamma = float(alignment["y"][row]), float(alignment["x"][column])
        task = {"a": chosen["a"], "b": chosen["b"]} | {axis: exponent}
        K0, y = fe.power_law_task(chosen["samples"], task["a"], task["b"], chosen["seed"])
        assert alignment["z"][row, column] == pytest.approx(
            fe.final_alignment(K0, y, gamma), rel=1e-12
        )
        assert overlap["z"][row, column] == pytest.approx(
            fe.top_eigenvector_overlap(K0, y, gamma), rel=1e-8, abs=1e-10
        )
        # A∞ is the t → ∞ limit of the exact trajectory's alignment
        late = fe.exact(K0, y, np.array([1e9]), gamma=gamma).alignment[-1]
        assert alignment["z"][row, column] == pytest.approx(late, rel=1e-6)


def test_the_alignment_over_time_is_the_exact_solution():
    chosen, _, out = rendered(gamma_map, a=2.0, b=1.0, samples=48, horizon=1e4)
    heatmap = out.figures["time"]["data"][0]
    K0, y = fe.power_law_task(48, 2.0, 1.0, chosen["seed"])
    for column in (0, 7, heatmap["x"].size - 1):
        path = fe.exact(K0, y, heatmap["y"], gamma=float(heatmap["x"][column]))
        np.testing.assert_allclose(heatmap["z"][:, column], path.alignment, rtol=1e-10)
    assert heatmap["y"][-1] == pytest.approx(1e4)
    # A(t) climbs from (about) A₀ at the first time drawn to A∞
    first, last = heatmap["z"][0], heatmap["z"][-1]
    assert np.allclose(first, fe.final_alignment(K0, y, 0.0), atol=5e-3)
    assert np.all(last >= first - 1e-12)


def test_the_threshold_is_where_the_overlap_passes_half_way():
    _, result, out = rendered(gamma_map)
    stars = result["threshold"]
    assert np.all(np.isfinite(stars))  # every row of the default map has one
    grid = result["gammas"]
    for row in range(0, stars.size, 5):
        overlap = result["top_overlap"][row]
        column = int(np.searchsorted(grid, stars[row]))
        level = 0.5 * (overlap[0] + 1)  # ≈ half-way from the γ → 0 value (grid starts at 1e-3)
        assert overlap[column - 1] < level + 0.02 and overlap[column] > level - 0.02
    dots = out.figures["alignment"]["data"][1]
    assert dots["name"] == "threshold γ*" and np.allclose(dots["x"], stars)
    sweep = out.figures["sweep"]
    assert any(t["name"].startswith("threshold γ*") for t in sweep["data"])


def test_the_gamma_regimes_are_written_on_both_maps():
    _, result, out = rendered(gamma_map)
    for graph in ("alignment", "overlap"):
        notes = out.figures[graph]["layout"]["annotations"]
        lazy, rich = notes
        assert labels_of(out.figures[graph]) == ["lazy (kernel regime)", "rich (aligned)"]
        assert lazy["x"] < math.log10(result["threshold"].min()) < rich["x"]
    # what the numbers show: A∞ ≈ A₀ at the smallest γ, ≈ 1 at the largest
    assert np.all(np.abs(result["final_alignment"][:, -1] - 1) < 1e-3)
    gap = result["final_alignment"][:, 0] - result["initial_alignment"]
    assert np.all(gap >= 0) and np.median(gap) < 0.02
    hidden = gamma_map.VIEW.render(values(gamma_map, labels=False), result)
    assert hidden.figures["alignment"]["layout"]["annotations"] == []


def test_a_gamma_click_opens_that_task_in_the_trajectory_view():
    chosen = values(gamma_map, axis="b", a=2.0, samples=50, seed=3, horizon=500.0)
    controls = gamma_map.VIEW.spec.controls(chosen)
    result = gamma_map.VIEW.compute(chosen)
    row, column = 11, 30
    gamma, b = result["gammas"][column], result["exponents"][row]
    exact_point = {"x": gamma, "y": b, "pointNumber": [row, column]}
    nearby = {"x": float(np.float32(gamma * 1.01)), "y": float(np.float32(b + 0.01))}
    for graph in ("alignment", "overlap"):
        for point in (exact_point, nearby):
            href = gamma_map.VIEW.open_target(graph, point, controls, {"embed": "1"}, "/p")
            path, embed, target = opened(href, ALIGNMENT)
            assert path == "/p" + ALIGNMENT.path and embed == "1"
            expected = {"gamma": gamma, "a": 2.0, "b": b, "samples": 50, "seed": 3}
            assert {k: target[k] for k in expected} == expected
            assert target["horizon"] == 500.0
    # the trajectory view's A∞ is the cell's
    trajectory = ALIGNMENT.compute(target)
    assert trajectory["A_inf"] == pytest.approx(result["final_alignment"][row, column], rel=1e-12)
    # the line plots and the A(t) panel open their γ with the current exponents
    for graph in ("sweep", "time"):
        href = gamma_map.VIEW.open_target(graph, {"x": gamma, "y": 0.5}, controls, {})
        _, _, target = opened(href, ALIGNMENT)
        assert target["gamma"] == gamma and (target["a"], target["b"]) == (2.0, chosen["b"])


@pytest.mark.parametrize(
    "point", [None, {}, {"x": "a", "y": 1}, {"x": -1.0, "y": 1.0}, {"x": float("inf"), "y": 1}]
)
def test_a_malformed_gamma_click_opens_nothing(point):
    controls = gamma_map.VIEW.spec.controls(values(gamma_map))
    for graph in ("alignment", "sweep"):
        assert gamma_map.VIEW.open_target(graph, point, controls, None) is None


def test_gamma_caps_are_clamped_and_the_largest_map_renders():
    spec = gamma_map.VIEW.spec
    parsed = spec.parse({"rows": 10**9, "columns": -5, "samples": 1e6, "gamma_high": 1e30})
    assert parsed["rows"] == gamma_map.MAX_ROWS and parsed["columns"] == 10
    assert parsed["samples"] == gamma_map.SAMPLE_RANGE[1] <= ALIGNMENT.spec.by_name["samples"].high
    assert parsed["gamma_high"] == ALIGNMENT.spec.by_name["gamma"].high
    assert len(parsed.messages) == 4
    assert gamma_map.MAX_COLUMNS <= fe.MAX_SWEEP_GAMMAS
    caps = {
        "samples": gamma_map.SAMPLE_RANGE[1],
        "rows": gamma_map.MAX_ROWS,
        "columns": gamma_map.MAX_COLUMNS,
        "horizon": 1e6,
        "axis": "b",
        "b": 3.0,
    }
    default_time, _ = timed(gamma_map, {})
    cap_time, out = timed(gamma_map, caps)
    assert out.figures["alignment"]["data"][0]["z"]["shape"] == (
        f"{gamma_map.MAX_ROWS}, {gamma_map.MAX_COLUMNS}"
    )
    print(
        f"\nkernel-alignment map: defaults {1e3 * default_time:.0f} ms, caps "
        f"{1e3 * cap_time:.0f} ms ({gamma_map.MAX_ROWS} × {gamma_map.MAX_COLUMNS} cells, "
        f"P = {gamma_map.SAMPLE_RANGE[1]})"
    )


def test_gamma_export_is_finite():
    chosen, result, _ = rendered(gamma_map, columns=12, rows=5)
    tables = gamma_map.VIEW.export(chosen, result)
    assert set(tables) == {
        "map over gamma and a",
        "current a=1.5 b=1.2",
        "threshold gamma* over a",
        "alignment over time",
    }
    for table in tables.values():
        assert len({len(column) for column in table.values()}) == 1
        assert all(np.all(np.isfinite(column)) for column in table.values())
    assert tables["map over gamma and a"]["gamma"].size == 60


# -- over HTTP -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("view", "graph", "point", "target"),
    [
        (gamma_map.VIEW, "overlap", {"x": 1.0, "y": 1.5, "pointNumber": [6, 24]}, ALIGNMENT),
    ],
)
def test_the_click_callbacks_over_http(client, dependencies, view, graph, point, target):
    (callback,) = [d for d in dependencies if d["output"] == f"{view.key}-open.href"]
    controls = {
        f"{view.key}-{name}.value": value
        for name, value in zip(
            view.spec.names, view.spec.controls(view.spec.defaults()), strict=True
        )
    }
    changed = f"{view.key}-graph-{graph}.clickData"
    body = payload(callback, controls | {changed: {"points": [point]}})
    body["changedPropIds"] = [changed]
    answer = client.post("/_dash-update-component", json=body)
    assert answer.status_code == 200
    href = answer.get_json()["response"][f"{view.key}-open"]["href"]
    assert href.startswith(target.path + "?")
    opened(href, target)
    body = payload(callback, controls | {changed: {"points": "x"}})
    body["changedPropIds"] = [changed]
    assert client.post("/_dash-update-component", json=body).status_code in (200, 204)
