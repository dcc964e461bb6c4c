"""What the browser test (tests/e2e/test_browser.py) expects of this model's downloads: for
each view's default state, independent solver calls set up here from the parameters by name."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solvers import single_neuron as sn


def single_neuron_expected(values, t):
    eta_a = math.sqrt(values["eta_ratio"])
    theta0, theta = math.radians(values["init_angle"]), math.radians(values["target_angle"])
    a0, w0 = sn.init_from_norm_delta(
        values["tau"] ** 2,
        values["delta"],
        [math.cos(theta0), math.sin(theta0)],
        eta_a=eta_a,
        eta_w=1 / eta_a,
        sign=values["sign"],
    )
    target = values["target_norm"] * np.array([math.cos(theta), math.sin(theta)])
    path = sn.exact(a0, w0, target, t, eta_a=eta_a, eta_w=1 / eta_a)
    return {
        "a": path.a,
        "w_1": path.w[:, 0],
        "w_2": path.w[:, 1],
        "loss": path.loss,
        "kernel_distance": path.kernel_distance,
    }


def single_neuron_map_check(values, tables):
    """Cells of the downloaded map against single trajectories set up here by hand."""
    ((name, table),) = tables.items()
    assert name == f"portrait t={values['t']:g}" and len(table["tau"]) == values["resolution"] ** 2
    eta_a = math.sqrt(values["eta_ratio"])
    theta0, theta = math.radians(values["init_angle"]), math.radians(values["target_angle"])
    target = values["target_norm"] * np.array([math.cos(theta), math.sin(theta)])
    for index in np.random.default_rng(0).integers(0, len(table["tau"]), 8):
        a0, w0 = sn.init_from_norm_delta(
            table["tau"][index] ** 2,
            table["delta"][index],
            [math.cos(theta0), math.sin(theta0)],
            eta_a=eta_a,
            eta_w=1 / eta_a,
        )
        path = sn.exact(a0, w0, target, [0.0, values["t"]], eta_a=eta_a, eta_w=1 / eta_a)
        assert table["kernel_distance"][index] == pytest.approx(path.kernel_distance[-1], rel=1e-8)
        assert table["loss"][index] == pytest.approx(path.loss[-1], rel=1e-8)


#: the trajectory view's exact columns for its default state: f(values, t) → {column: array}
EXPECTED = {"single-neuron": single_neuron_expected}
#: checks of the map's download (values, tables) against independent solver calls
MAP_CHECKS = {"single-neuron-map": single_neuron_map_check}
