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


def lambda_balanced_sequences_expected(values, t):
    """The first network of the side-by-side view's default (one random task, smallest λ)."""
    assert values["experiment"] == "one task" and values["init"] == "random"
    d = values["d_in"]
    sigma_yx = lb.random_task(d, d, np.random.default_rng([values["seed"], 0]))
    lam = min(values["lam_low"], values["lam_high"])
    rng = np.random.default_rng([values["seed"], 1])
    W1, W2 = lb.balanced_init(d, d, d, lam, values["scale"], rng)
    path = lb.exact(W1, W2, sigma_yx, t)
    U, _, Vt = np.linalg.svd(sigma_yx)
    strengths = np.einsum("ir,tij,rj->tr", U, path.function, Vt)
    return {
        "loss": path.loss,
        "first_task_loss": path.loss,
        "kernel_distance": path.kernel_distance,
        **{f"mode_strength_{k + 1}": strengths[:, k] for k in range(d)},
    }


def lambda_balanced_transfer_check(values, tables):
    """Columns of the transfer map against the trajectory view's seeding convention: the
    pre-training's W₁ᵀW₁ read out for the taught item (Dominé et al. eqs. 186–187)."""
    ((name, table),) = tables.items()
    assert name == f"new feature of the {values['item']}"
    item = lb.HIERARCHY_ITEMS.index(values["item"])
    for column in (0, len(table["lam"]) // 2, len(table["lam"]) - 1):
        rng = np.random.default_rng([values["seed"], 1])
        W1, W2 = lb.balanced_init(8, 8, 8, table["lam"][column], values["scale"], rng)
        similarity = lb.exact(W1, W2, lb.hierarchical_task(), [0.0, values["horizon"]]).rsm_in[-1]
        for k, other in enumerate(lb.HIERARCHY_ITEMS):
            expected = similarity[item, k] / similarity[item, item]
            assert table[other.replace(" ", "_")][column] == pytest.approx(expected, abs=1e-9)


def lambda_balanced_initialisation_check(values, tables):
    """Draws of the LeCun sweep recomputed from the seeding convention ([seed, width index,
    draw]): B drawn by the engine's :func:`lecun_balance_matrix` for that stream (its
    distribution is checked against the weights' in tests/unit), then λ = tr B / h and
    ‖B − λI‖₂ / ‖B‖₂ from numpy's matrix 2-norm (Dominé et al. App. A.3)."""
    table = tables["deviation by width"]
    hidden = values["hidden"]
    last = len(table["d_in"]) - 1
    for index in (0, last):
        d_in, d_out = int(table["d_in"][index]), int(table["d_out"][index])
        factor = values["widening"] ** (index / last)  # the factors are even on a log scale
        assert (d_in, d_out) == (round(factor * values["d_in"]), round(factor * values["d_out"]))
        for draw in range(values["draws"]):
            rng = np.random.default_rng([values["seed"], index, draw])
            B = lb.lecun_balance_matrix(d_in, hidden, d_out, rng)
            lam = np.trace(B) / hidden
            deviation = np.linalg.norm(B - lam * np.eye(hidden), 2) / np.linalg.norm(B, 2)
            assert table[f"lam_draw_{draw + 1}"][index] == pytest.approx(lam, rel=1e-9)
            assert table[f"deviation_draw_{draw + 1}"][index] == pytest.approx(deviation, rel=1e-9)
    eigenvalues = tables["eigenvalues at the first width"]["eigenvalue"]
    assert len(eigenvalues) == hidden and np.all(np.diff(eigenvalues) >= 0)


#: the exact columns of each view's default state: f(values, t) → {column: array}
EXPECTED = {
    "lambda-balanced": lambda_balanced_expected,
    "lambda-balanced-sequences": lambda_balanced_sequences_expected,
}
#: checks of the maps' downloads (values, tables) against independent solver calls
MAP_CHECKS = {
    "lambda-balanced-map": lambda_balanced_map_check,
    "lambda-balanced-transfer": lambda_balanced_transfer_check,
    "lambda-balanced-initialisation": lambda_balanced_initialisation_check,
}
