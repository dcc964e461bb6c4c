"""The λ-balanced map: its cells against independent solver calls (and against the trajectory a
click opens), the links a click opens, the regimes written on the map, and the caps (the
largest request renders; its time is printed, not asserted)."""

import json
import math
import time
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from plotly.utils import PlotlyJSONEncoder

from app.ui.figures import compact
from app.views.lambda_balanced import MAP as VIEW
from app.views.lambda_balanced import TRAJECTORY
from app.views.lambda_balanced import map as lambda_map
from app.views.lambda_balanced import map_plots as plots
from solvers import lambda_balanced as lb
from tests.dash_client import payload
from tests.integration.lambda_balanced import drawn


def values(**overrides):
    return VIEW.spec.with_overrides(overrides)


def opened(href, target):
    """(path, embed, validated controls) of a link, checking that nothing had to be clamped."""
    parts = urlsplit(href)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    state = target.spec.parse_query("?" + parts.query)
    assert state.messages == ()  # every value fits the target view's ranges
    return parts.path, query.get("embed"), state.controls


def labels_of(figure):
    return [a["text"] for a in figure["layout"]["annotations"]]


def timed(overrides):
    """compute + drawing + packing of the figures, as the callback does (uncached)."""
    chosen = values(**overrides)
    start = time.perf_counter()
    result = VIEW.compute(chosen)
    figures = [compact(panel.draw(chosen, result)) for panel in VIEW.panels]
    elapsed = time.perf_counter() - start
    json.dumps(figures, cls=PlotlyJSONEncoder)
    return elapsed, figures


def trajectory_start(chosen, dims, lam, scale):
    """The task and λ-balanced start of the trajectory view, built here from its seeding
    convention (task from default_rng([seed, 0]), weights from default_rng([seed, 1]))."""
    d_in, hidden, d_out = dims
    if chosen.task == "hierarchy":
        sigma_yx = lb.hierarchical_task()
    else:
        sigma_yx = lb.random_task(d_in, d_out, np.random.default_rng([chosen.seed, 0]))
    W1, W2 = lb.balanced_init(
        d_in, hidden, d_out, lam, scale, np.random.default_rng([chosen.seed, 1])
    )
    return sigma_yx, W1, W2


@pytest.mark.parametrize(
    "overrides",
    [{}, {"t": 3.0, "seed": 11, "scale": 0.5, "threshold": 0.05}, {"task": "hierarchy", "seed": 1}],
)
def test_cells_are_the_exact_flow_from_the_trajectory_views_start(overrides):
    chosen, result, figures = drawn(VIEW, **overrides)
    heatmap = figures["kernel"]["data"][0]
    sweep = result.sweep
    rng = np.random.default_rng(5)
    for _ in range(4):
        row = int(rng.integers(len(sweep.shapes)))
        column = int(rng.integers(sweep.lams.size))
        lam, dims = float(heatmap["x"][column]), sweep.dimensions[row]
        sigma_yx, W1, W2 = trajectory_start(chosen, dims, lam, chosen.scale)
        path = lb.exact(W1, W2, sigma_yx, np.array([0.0, chosen.t]))
        assert heatmap["z"][row, column] == pytest.approx(
            path.kernel_distance[-1], rel=1e-8, abs=1e-12
        )
        assert sweep.loss[row, column] == pytest.approx(path.loss[-1], rel=1e-8, abs=1e-14)
        # the time to learn: the exact loss there is the threshold
        crossing = sweep.time_to_threshold[row, column]
        assert math.isfinite(crossing)
        at = lb.exact(W1, W2, sigma_yx, np.array([0.0, crossing]))
        assert at.loss[-1] == pytest.approx(chosen.threshold * at.loss[0], rel=1e-8)


def test_a_click_opens_the_same_network_in_the_trajectory_view():
    chosen = values(t=42.0, seed=17, scale=0.3, spread=6.0, count=13)
    controls = VIEW.spec.to_controls(chosen)
    result = VIEW.compute(chosen)
    row, column = 2, 9  # inverted funnel, λ = 3
    lam = result.sweep.lams[column]
    assert lam == 3.0
    exact_point = {"x": lam, "y": row, "pointNumber": [row, column]}
    rounded = {"x": float(np.float32(lam + 0.2)), "y": 1.9}  # no indices: the nearest cell
    for point in (exact_point, rounded):
        href = VIEW.open_target("kernel", point, controls, {"embed": "1"}, "/x/")
        path, embed, target = opened(href, TRAJECTORY)
        assert path == "/x" + TRAJECTORY.path and embed == "1"
        expected = {
            "lam": 3.0,
            "scale": 0.3,
            "shape": "inverted funnel",
            "d_in": 2,
            "hidden": 2,
            "d_out": 4,
            "task": "random",
            "init": "random",
            "seed": 17,
            "horizon": 42.0,
        }
        assert {k: getattr(target, k) for k in expected} == expected
    # the trajectory it opens ends exactly where the cell was taken
    trajectory = TRAJECTORY.compute(target)
    architecture = trajectory.scenario.architecture
    assert architecture.dims == (2, 2, 4) and architecture.notes == ()
    assert trajectory.exact.t[-1] == pytest.approx(42.0)
    assert trajectory.exact.kernel_distance[-1] == pytest.approx(
        result.kernel_distance[row, column], rel=1e-9, abs=1e-12
    )
    # a point of the Fig. 5B curves: the curve is the architecture
    point = {"x": lam, "y": 0.1, "curveNumber": 0, "pointNumber": column}
    _, _, target = opened(VIEW.open_target("lines", point, controls, {}), TRAJECTORY)
    assert target.shape == "funnel" and (target.d_in, target.d_out) == (4, 2)


def test_a_click_on_the_hierarchy_map_opens_the_square_tree_network():
    chosen = values(task="hierarchy", seed=2, t=20.0)
    result = VIEW.compute(chosen)
    point = {"x": 0.0, "y": 0, "pointNumber": [0, 4]}
    href = VIEW.open_target("kernel", point, VIEW.spec.to_controls(chosen), {})
    _, _, target = opened(href, TRAJECTORY)
    trajectory = TRAJECTORY.compute(target)
    assert trajectory.scenario.architecture.dims == (8, 8, 8) and target.task == "hierarchy"
    assert trajectory.exact.kernel_distance[-1] == pytest.approx(
        result.kernel_distance[0, 4], rel=1e-9, abs=1e-12
    )


def test_a_click_on_the_scale_map_opens_that_scale():
    chosen = values(scale_map="square", scale_rows=5, t=5.0)
    controls = VIEW.spec.to_controls(chosen)
    scale_map = VIEW.compute(chosen).scale_map
    row, column = 3, 4
    point = {"x": scale_map.lams[column], "y": scale_map.scales[row]}
    for click in (point | {"pointNumber": [row, column]}, point):
        href = VIEW.open_target("scales", click, controls, {})
        _, _, target = opened(href, TRAJECTORY)
        assert target.scale == scale_map.scales[row]
        assert target.lam == scale_map.lams[column] and target.shape == "square"
    # and that cell is the exact flow from the trajectory view's start
    sigma_yx, W1, W2 = trajectory_start(chosen, (3, 3, 3), target.lam, float(scale_map.scales[row]))
    path = lb.exact(W1, W2, sigma_yx, np.array([0.0, 5.0]))
    assert scale_map.kernel_distance[row, column] == pytest.approx(
        path.kernel_distance[-1], rel=1e-8, abs=1e-12
    )
    # with the map switched off there is nothing to open
    off = VIEW.spec.to_controls(values(scale_map="off"))
    assert VIEW.open_target("scales", point, off, {}) is None


@pytest.mark.parametrize(
    "point",
    [
        None,
        {},
        {"x": "a", "y": 1},
        {"x": float("nan"), "y": 1.0},
        [1, 2],
        {"x": 1},
        {"x": 0, "y": 7},
    ],
)
def test_a_malformed_click_opens_nothing(point):
    controls = VIEW.spec.to_controls(values())
    assert VIEW.open_target("kernel", point, controls, None) is None
    assert VIEW.open_target("lines", point, controls, None) is None


def test_the_regimes_are_written_where_the_numbers_put_them():
    _, result, figures = drawn(VIEW, t=100.0)
    by_row = {}
    for note in figures["kernel"]["layout"]["annotations"]:
        by_row.setdefault(round(note["y"]), {})[np.sign(note["x"])] = note["text"]
    funnel, square, inverted = (result.sweep.shapes.index(n) for n in lb.SHAPES)
    assert by_row[funnel] == {-1: "delayed rich", 0: "rich", 1: "lazy"}
    assert by_row[inverted] == {-1: "lazy", 0: "rich", 1: "delayed rich"}
    assert by_row[square] == {-1: "lazy", 0: "rich", 1: "lazy"}
    # what the numbers show: the lazy ends hardly move, the delayed-rich ends have moved
    distance, lams = result.kernel_distance, result.sweep.lams
    far = np.abs(lams) >= 6
    assert distance[funnel][far & (lams > 0)].max() < 0.01
    assert distance[inverted][far & (lams < 0)].max() < 0.01
    assert distance[square][far].max() < 0.01
    assert distance[funnel][far & (lams < 0)].min() > 0.3
    assert distance[inverted][far & (lams > 0)].min() > 0.3
    assert distance[square][lams == 0] > 0.1
    # early on the delayed-rich side is still on its plateau, and the label says so
    _, early, early_figures = drawn(VIEW, t=1.0)
    assert early.kernel_distance[funnel][far & (lams < 0)].max() < 0.05
    assert labels_of(early_figures["kernel"]).count("lazy so far (rich later)") == 2
    # and at the very start nothing has moved yet, not even at λ = 0
    _, start, start_figures = drawn(VIEW, t=0.1)
    assert start.kernel_distance[:, lams == 0].max() < plots.MOVED
    assert labels_of(start_figures["kernel"]).count("rich later") == 3
    # labels can be switched off (a display option: the result is reused)
    hidden = plots.draw_kernel(values(labels=False), result)
    assert hidden["layout"]["annotations"] == []


def test_the_scale_map_is_labelled_with_its_architectures_regimes():
    _, _, figures = drawn(VIEW, scale_map="funnel", scale_rows=4)
    assert labels_of(figures["scales"]) == ["delayed rich", "lazy", "rich"]
    _, result, figures = drawn(VIEW, task="hierarchy", scale_map="funnel", scale_rows=4)
    assert result.scale_map.shape == "square" and labels_of(figures["scales"]) == [
        "lazy",
        "lazy",
        "rich",
    ]
    chosen = values(task="hierarchy", scale_map="funnel", scale_rows=4)
    assert any("no funnel network" in note for note in VIEW.notes(chosen, result))


def test_caps_are_clamped_and_the_largest_map_renders():
    parsed, messages = VIEW.spec.parse(
        {"count": 10**6, "scale_rows": 999, "spread": 1e9, "t": 1e300}
    )
    assert parsed.count == lambda_map.MAX_LAMBDAS
    assert parsed.scale_rows == lambda_map.MAX_SCALE_ROWS
    assert parsed.spread == TRAJECTORY.spec.by_name["lam"].high and parsed.t == 1000.0
    assert len(messages) == 4
    assert lambda_map.MAX_LAMBDAS <= lb.MAX_SWEEP_LAMBDAS
    caps = {
        "count": lambda_map.MAX_LAMBDAS,
        "spread": 20.0,
        "t": 1000.0,
        "threshold": 1e-4,
        "scale_map": "inverted funnel",
        "scale_rows": lambda_map.MAX_SCALE_ROWS,
    }
    default_time, _ = timed({})
    cap_time, figures = timed(caps)
    scales = figures[[panel.graph for panel in VIEW.panels].index("scales")]
    assert scales["data"][0]["z"]["shape"] == (
        f"{lambda_map.MAX_SCALE_ROWS}, {lambda_map.SCALE_COLUMNS}"
    )
    print(
        f"\nλ-balanced map: defaults {1e3 * default_time:.0f} ms, caps {1e3 * cap_time:.0f} ms "
        f"(3 × {lambda_map.MAX_LAMBDAS} + {lambda_map.MAX_SCALE_ROWS} × "
        f"{lambda_map.SCALE_COLUMNS} cells)"
    )


def test_downloads_are_finite_and_say_what_was_not_reached():
    chosen, result, _ = drawn(VIEW, threshold=1e-4, scale_map="funnel", scale_rows=4)
    tables = VIEW.tables(chosen, result)
    assert len(tables) == 4
    for table in tables.values():
        assert all(np.all(np.isfinite(column)) for column in table.values())
    funnel = next(t for name, t in tables.items() if name.startswith("funnel"))
    assert np.array_equal(funnel["lam"], result.sweep.lams)
    assert set(np.unique(funnel["reached"])) <= {0.0, 1.0}


def test_the_facts_name_the_slowest_network_and_the_square_peak():
    chosen, result, _ = drawn(VIEW)
    found = dict(VIEW.facts(chosen, result))
    assert found["the map"].startswith("27 exact trajectories (3 architectures × 9 values of λ)")
    square = result.kernel_distance[result.sweep.shapes.index("square")]
    peak = int(np.nanargmax(square))
    assert found["square"] == f"largest S = {square[peak]:.2g} at λ = {result.sweep.lams[peak]:g}"
    assert "the slowest" in found["time to reach 0.01 × L(0)"]


def test_the_click_callback_over_http(client, dependencies):
    (callback,) = [d for d in dependencies if d["output"] == f"{VIEW.key}-open.href"]
    controls = {
        f"{VIEW.key}-{name}.value": value
        for name, value in zip(VIEW.spec.names, VIEW.spec.to_controls(values()), strict=True)
    }
    changed = f"{VIEW.key}-graph-kernel.clickData"
    point = {"x": 0.0, "y": 1, "pointNumber": [1, 8]}
    body = payload(callback, controls | {changed: {"points": [point]}})
    body["changedPropIds"] = [changed]
    answer = client.post("/_dash-update-component", json=body)
    assert answer.status_code == 200
    href = answer.get_json()["response"][f"{VIEW.key}-open"]["href"]
    assert href.startswith(TRAJECTORY.path + "?")
    opened(href, TRAJECTORY)
    body = payload(callback, controls | {changed: {"points": "x"}})
    body["changedPropIds"] = [changed]
    assert client.post("/_dash-update-component", json=body).status_code in (200, 204)
