"""What the browser test (tests/e2e/test_browser.py) expects of this model's downloads: for
each view's default state, independent solver calls set up here from the parameters by name."""

from __future__ import annotations

import numpy as np
import pytest

from solvers import lambda_balanced as lb


def lambda_balanced_expected(values, t):
    assert values["task"] == "random" and values["init"] == "random" and values["shape"] == "square"
    d = values["d_in"]
    sigma_yx = lb.random_task(d, d, np.random.default_rng([values["seed"], 0]))
    W1, W2 = lb.balanced_init(
        d, d, d, values["lam"], values["scale"], np.random.default_rng([values["seed"], 1])
    )
    path = lb.exact(W1, W2, sigma_yx, t)
    singular = path.singular_values
    return {
        "loss": path.loss,
        "kernel_distance": path.kernel_distance,
        **{f"singular_values_{k + 1}": singular[:, k] for k in range(singular.shape[1])},
        **{f"function_{k + 1}": path.function.reshape(len(t), -1)[:, k] for k in range(d * d)},
    }


def lambda_balanced_map_check(values, tables):
    """Cells of each architecture's row against the exact flow from the trajectory view's
    seeding convention (task from [seed, 0], weights from [seed, 1])."""
    assert values["task"] == "random"  # the default
    for name, (d_in, hidden, d_out) in lb.SHAPES.items():
        (table,) = [t for n, t in tables.items() if n.startswith(f"{name} {d_in}→")]
        sigma_yx = lb.random_task(d_in, d_out, np.random.default_rng([values["seed"], 0]))
        for index in (0, len(table["lam"]) // 2, len(table["lam"]) - 1):
            W1, W2 = lb.balanced_init(
                d_in,
                hidden,
                d_out,
                table["lam"][index],
                values["scale"],
                np.random.default_rng([values["seed"], 1]),
            )
            path = lb.exact(W1, W2, sigma_yx, [0.0, values["t"]])
            assert table["kernel_distance"][index] == pytest.approx(
                path.kernel_distance[-1], rel=1e-8, abs=1e-14
            )
            assert table["loss"][index] == pytest.approx(path.loss[-1], rel=1e-8)


#: the trajectory view's exact columns for its default state: f(values, t) → {column: array}
EXPECTED = {"lambda-balanced": lambda_balanced_expected}
#: checks of the map's download (values, tables) against independent solver calls
MAP_CHECKS = {"lambda-balanced-map": lambda_balanced_map_check}
