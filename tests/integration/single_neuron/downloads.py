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


def low_rank_expected(values, t):
    """The low-rank view's first path (δ = −largest |δ|): one data point x reduces the neuron
    to a whitened one along x̂ = x/‖x‖ with target y/‖x‖, run at time ‖x‖²t (docs/
    theory_low_rank.md (1.5)), set up here by hand."""
    x = np.array([values["x_1"], values["x_2"]])
    size = float(np.hypot(*x))
    along = x / size
    beta0 = values["beta0_scale"] * np.array([values["beta0_1"], values["beta0_2"]])
    a0, w0 = sn.init_from_beta(beta0, -values["spread"])
    reduced = sn.exact(a0, [along @ w0], [values["y"] / size], size**2 * np.asarray(t))
    w = w0 + np.outer(reduced.w[:, 0] - along @ w0, along)
    beta = reduced.a[:, None] * w
    return {
        "a": reduced.a,
        "beta_1": beta[:, 0],
        "beta_2": beta[:, 1],
        "loss": 0.5 * (beta @ x - values["y"]) ** 2,
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
EXPECTED = {"single-neuron": single_neuron_expected, "single-neuron-low-rank": low_rank_expected}
#: checks of the map's download (values, tables) against independent solver calls
MAP_CHECKS = {"single-neuron-map": single_neuron_map_check}
