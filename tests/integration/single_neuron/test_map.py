"""The single-neuron map: its cells against single trajectories of the solver, the link a click
opens, and the request the browser sends for a click (through the Flask test client)."""

import math
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from app.views.single_neuron import MAP as VIEW
from app.views.single_neuron import TRAJECTORY
from app.views.single_neuron import map_plots as plots
from app.views.single_neuron.map import grid
from app.views.single_neuron.map_plots import delta_at, delta_position
from solvers import single_neuron as sn
from tests.dash_client import payload


def values(**overrides):
    return VIEW.spec.with_overrides(overrides)


def unit(degrees):
    return np.array([math.cos(math.radians(degrees)), math.sin(math.radians(degrees))])


@pytest.mark.parametrize(
    "overrides",
    [{}, {"t": 0.05, "eta_ratio": 4.0, "init_angle": 30.0}, {"t": 500.0, "spread": 20.0}],
)
def test_cells_are_the_exact_trajectory_at_time_t(overrides):
    chosen = values(**overrides)
    result = VIEW.compute(chosen)
    (heatmap,) = plots.draw_kernel(chosen, result)["data"]
    rng = np.random.default_rng(3)
    eta_a = math.sqrt(chosen.eta_ratio)
    for _ in range(6):
        row, column = rng.integers(0, chosen.resolution, size=2)
        tau, delta = heatmap["y"][row], delta_at(heatmap["x"][column])
        assert heatmap["customdata"][row, column] == pytest.approx(delta, rel=1e-12)
        # the cell as a student would set it up by hand: ‖β₀‖ = τ², a₀ > 0, this δ
        a0, w0 = sn.init_from_norm_delta(
            tau**2, delta, unit(chosen.init_angle), eta_a=eta_a, eta_w=1 / eta_a, sign=1
        )
        path = sn.exact(
            a0,
            w0,
            chosen.target_norm * unit(chosen.target_angle),
            np.array([0.0, chosen.t]),
            eta_a=eta_a,
            eta_w=1 / eta_a,
        )
        assert heatmap["z"][row, column] == pytest.approx(
            path.kernel_distance[-1], rel=1e-8, abs=1e-12
        )
        assert result.portrait.loss[row, column] == pytest.approx(
            path.loss[-1], rel=1e-8, abs=1e-14
        )


def test_the_regimes_are_written_where_the_map_shows_them():
    chosen = values()
    result = VIEW.compute(chosen)
    figure = plots.draw_kernel(chosen, result)
    labels = {a["text"].strip("</b>"): a for a in figure["layout"]["annotations"]}
    assert set(labels) == {"lazy", "rich", "delayed rich"}
    distance, deltas, scales = result.portrait.kernel_distance, result.deltas, result.scales
    small = scales < 0.1
    # upstream (δ ≫ ‖β₀‖ = τ²) the kernel hardly moves; balanced (|δ| ≪ τ²) from a small start
    # it moves a lot; downstream it has moved by this time too (delayed, then rich)
    assert distance[small][:, deltas > 1.0].max() < 0.1
    assert distance[small][:, np.abs(deltas) < 1e-4].min() > 0.15
    # downstream the kernel is still on its plateau early and has moved far by late times
    early, late = (VIEW.compute(values(t=t)).portrait.kernel_distance for t in (0.1, 200.0))
    assert early[small][:, deltas < -5.0].max() < 1e-3
    assert late[small][:, deltas < -5.0].min() > 0.5
    # and the labels sit in those regions of the drawn axis
    assert labels["lazy"]["x"] > delta_position(1.0)
    assert labels["delayed rich"]["x"] < delta_position(-1.0)
    assert labels["rich"]["x"] == 0.0
    hidden = plots.draw_kernel(values(labels=False), result)
    assert hidden["layout"]["annotations"] == []


def test_a_click_opens_that_cell_in_the_trajectory_view():
    chosen = values(t=42.0, init_angle=150.0, eta_ratio=2.0)
    controls = VIEW.spec.to_controls(chosen)
    scales, deltas = grid(chosen)
    # a click anywhere inside cell (20, 10) — here near its corner — opens that cell
    step = delta_position(deltas[11]) - delta_position(deltas[10])
    point = {"x": float(delta_position(deltas[10]) + 0.4 * step), "y": scales[20] * 1.01}
    href = VIEW.open_target("kernel", point, controls, {"embed": True}, "/x/")
    parts = urlsplit(href)
    assert parts.path == "/x" + TRAJECTORY.path
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    assert query["embed"] == "1"
    opened = TRAJECTORY.spec.parse_query("?" + parts.query)
    assert (
        opened.messages == () and opened.embed
    )  # every value fits the trajectory view: nothing clamped
    expected = {"delta": deltas[10], "tau": scales[20], "init_angle": 150.0, "eta_ratio": 2.0}
    assert {k: getattr(opened.controls, k) for k in expected} == pytest.approx(expected, rel=1e-9)
    assert opened.controls.horizon == 42.0 and opened.controls.mode == "single"
    # the trajectory it opens ends where the cell was taken
    result = TRAJECTORY.compute(opened.controls)
    cell = VIEW.compute(chosen).portrait.kernel_distance[20, 10]
    assert result.exact.t[-1] == pytest.approx(42.0)
    assert result.exact.kernel_distance[-1] == pytest.approx(cell, rel=1e-7)


def test_a_click_opens_the_exact_cell_from_float32_coordinates():
    chosen = values(resolution=24, spread=3.0)
    result = VIEW.compute(chosen)
    # what the browser sends: the cell's centre as plotted (float32)
    x = float(np.float32(delta_position(result.deltas[17])))
    point = {"x": x, "y": float(np.float32(result.scales[5]))}
    href = VIEW.open_target("loss", point, VIEW.spec.to_controls(chosen), {}, "/")
    opened = TRAJECTORY.spec.parse_query(urlsplit(href).query).controls
    # exact up to the 10 significant digits a link carries
    assert opened.delta == pytest.approx(result.deltas[17], rel=1e-9)
    assert opened.tau == pytest.approx(result.scales[5], rel=1e-9)


@pytest.mark.parametrize(
    "point",
    [
        None,
        {},
        {"x": "a", "y": 1},
        {"x": float("nan"), "y": 1.0},
        [1, 2],
        {"x": 1},
        {"x": 1.0, "y": -1.0},
        {"x": 1e308, "y": float("inf")},
    ],
)
def test_a_malformed_click_opens_nothing(point):
    controls = VIEW.spec.to_controls(values())
    assert VIEW.open_target("kernel", point, controls, None) is None


def test_the_click_callback_over_http(client, dependencies):
    (callback,) = [d for d in dependencies if d["output"] == f"{VIEW.key}-open.href"]
    controls = {
        f"{VIEW.key}-{name}.value": value
        for name, value in zip(VIEW.spec.names, VIEW.spec.to_controls(values()), strict=True)
    }
    scales, deltas = grid(values())
    click = {"points": [{"x": float(delta_position(deltas[50])), "y": scales[7], "z": 0.01}]}
    body = payload(callback, controls | {f"{VIEW.key}-graph-loss.clickData": click})
    body["changedPropIds"] = [f"{VIEW.key}-graph-loss.clickData"]
    answer = client.post("/_dash-update-component", json=body)
    assert answer.status_code == 200
    href = answer.get_json()["response"][f"{VIEW.key}-open"]["href"]
    opened = TRAJECTORY.spec.parse_query(urlsplit(href).query).controls
    assert href.startswith(TRAJECTORY.path + "?")
    assert opened.tau == pytest.approx(scales[7], rel=1e-9)
    assert opened.delta == pytest.approx(deltas[50], rel=1e-9)
    # garbage instead of clickData: nothing opens, and no error
    body = payload(callback, controls | {f"{VIEW.key}-graph-loss.clickData": {"points": "x"}})
    body["changedPropIds"] = [f"{VIEW.key}-graph-loss.clickData"]
    assert client.post("/_dash-update-component", json=body).status_code in (200, 204)
