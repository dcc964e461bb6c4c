"""What the browser test (tests/e2e/test_browser.py) expects of this model's downloads: for
each view's default state, independent solver calls set up here from the parameters by name."""

from __future__ import annotations

import numpy as np
import pytest

from solvers import feature_evolution as fe


def kernel_alignment_expected(values, t):
    K0, y = fe.power_law_task(values["samples"], values["a"], values["b"], values["seed"])
    path = fe.exact(K0, y, t, eta=values["eta"], gamma=values["gamma"])
    return {"loss": path.loss, "alignment": path.alignment, "residual_1": path.residual[:, 0]}


def kernel_alignment_map_check(values, tables):
    """A∞ of map cells against eq. 11 on the task built here."""
    axis = values["axis"]
    table = tables[f"map over gamma and {axis}"]
    for index in np.random.default_rng(1).integers(0, len(table["gamma"]), 6):
        exponents = {"a": values["a"], "b": values["b"], axis: table[axis][index]}
        K0, y = fe.power_law_task(values["samples"], exponents["a"], exponents["b"], values["seed"])
        expected = fe.final_alignment(K0, y, table["gamma"][index])
        assert table["final_alignment"][index] == pytest.approx(expected, rel=1e-10)


#: the trajectory view's exact columns for its default state: f(values, t) → {column: array}
EXPECTED = {"kernel-alignment": kernel_alignment_expected}
#: checks of the map's download (values, tables) against independent solver calls
MAP_CHECKS = {"kernel-alignment-map": kernel_alignment_map_check}
