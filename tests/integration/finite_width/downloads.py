"""What the browser test (tests/e2e/test_browser.py) expects of this model's downloads: for
each view's default state, independent solver calls set up here from the parameters by name."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solvers import finite_width as fw


def finite_width_expected(values, t):
    assert values["init"] == "gaussian" and values["gamma_rule"] == "mf"  # the defaults
    u0, W0 = fw.gaussian_init(
        values["d"], values["d0"], values["sigma_u"], values["sigma_w"], values["seed"]
    )
    x = np.full(values["d0"], values["x_norm"] / math.sqrt(values["d0"]))
    eta_u = math.sqrt(values["eta_ratio"])
    path = fw.exact(
        u0, W0, x, values["y"], t, gamma=1.0 / values["d"], eta_u=eta_u, eta_w=1 / eta_u
    )
    return {
        "output": path.output,
        "loss": path.loss,
        "zeta": path.zeta,
        "ntk": path.ntk,
        "u_1": path.u[:, 0],
        "hidden_1": path.hidden[:, 0],
    }


def finite_width_map_check(values, tables):
    """Each width-sweep row's ζ(∞) and NTK change against a long exact run of that network."""
    rows = {name: table for name, table in tables.items() if name.startswith("width sweep")}
    assert rows and any(name.startswith("phase map") for name in tables)
    for table in rows.values():
        column = len(table["d"]) // 2
        d = int(table["d"][column])
        u0, W0 = fw.gaussian_init(
            d, 1, table["sigma_u"][column], table["sigma_w"][column], values["seed"]
        )
        rates = {"gamma": table["gamma"][column]} | dict.fromkeys(
            ("eta_u", "eta_w"), table["eta"][column]
        )
        t_c = fw.exact(u0, W0, np.ones(1), values["y"], [0.0], **rates).t_c
        path = fw.exact(u0, W0, np.ones(1), values["y"], [0.0, 60 * t_c], **rates)
        assert table["zeta_final"][column] == pytest.approx(path.zeta[-1], rel=1e-8)
        assert table["ntk_change"][column] == pytest.approx(path.ntk_change[-1], rel=1e-8)


#: the trajectory view's exact columns for its default state: f(values, t) → {column: array}
EXPECTED = {"finite-width": finite_width_expected}
#: checks of the map's download (values, tables) against independent solver calls
MAP_CHECKS = {"finite-width-map": finite_width_map_check}
