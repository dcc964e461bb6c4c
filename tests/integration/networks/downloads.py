"""What the browser test (tests/e2e/test_browser.py) expects of this model's downloads: for
each view's default state, independent solver calls set up here from the parameters by name."""

from __future__ import annotations

import numpy as np
import pytest

from solvers import networks as nw


def teacher_student_network(values, tau, delta):
    """Kunin et al.'s teacher–student set-up from the views' seeding convention: data from the
    generator seeded [seed, 0], the symmetrised student's base draw from [seed, 1]."""
    X, y, X_test, y_test = nw.teacher_student(
        values["d"],
        values["k"],
        values["n"],
        n_test=values["n_test"],
        seed=np.random.default_rng([values["seed"], 0]),
    )
    net = nw.kunin_init(
        values["d"],
        values["width"],
        tau=tau,
        delta=delta,
        seed=np.random.default_rng([values["seed"], 1]),
        activation=values["activation"],
    )
    return X, y, X_test, y_test, net


def networks_expected(values, t):
    """The frozen-NTK flow (N15) of the default network: f(t) = y + e^{−K₀t/n}(f₀ − y)."""
    assert values["data"] == "teacher" and values["init"] == "kunin" and values["loss"] == "mse"
    assert values["rate_ratio"] == 1.0  # layer rates 1
    X, y, _, _, net = teacher_student_network(values, values["tau"], values["delta"])
    K0 = nw.ntk(net, X)
    r0 = (nw.forward(net, X) - y)[:, 0]
    values_k, vectors = np.linalg.eigh(K0)
    residual = [
        vectors @ (np.exp(-np.maximum(values_k, 0) * s / len(y)) * (vectors.T @ r0)) for s in t
    ]
    return {"loss": np.array([0.5 * np.mean(r**2) for r in residual])}


def networks_map_check(values, tables):
    """Cells of the map against single networks trained with lr = c/τ² (Kunin et al. D.1)."""
    steps = values["steps"]
    assert list(tables) == [f"map after {step} steps" for step in (10, 100, 1000, steps)]
    table = tables[f"map after {steps} steps"]
    assert len(table["tau"]) == values["resolution"] ** 2
    for index in np.random.default_rng(2).integers(0, len(table["tau"]), 3):
        tau, delta, lr = table["tau"][index], table["delta"][index], table["lr"][index]
        assert lr == pytest.approx(values["rate"] / tau**2, rel=1e-9)
        X, y, X_test, y_test, net = teacher_student_network(values, tau, delta)
        run = nw.train(
            net,
            X,
            y,
            lr=lr,
            steps=values["steps"],
            record=[0, values["steps"]],
            X_test=X_test,
            y_test=y_test,
        )
        assert table["test_loss"][index] == pytest.approx(run.test_loss[-1], rel=1e-8)
        assert table["kernel_distance"][index] == pytest.approx(
            run.kernel_distance[-1], rel=1e-6, abs=1e-12
        )


def networks_sweeps_check(values, tables):
    """The default σ sweep's networks against the network view's scenario for each σ, trained
    here with the step size lr·min(1, σ^−2(L−1)) written out (Xu & Ziyin Fig. 2b)."""
    ((name, table),) = tables.items()
    assert name == "sweep over sigma" and values["sweep"] == "sigma"
    depth = values["depth"]
    for index in (0, len(table["sigma"]) - 1):
        sigma = table["sigma"][index]
        rate = values["lr"] * min(1.0, sigma ** (-2 * (depth - 1)))
        assert table["lr"][index] == pytest.approx(rate, rel=1e-12)
        run = nw.scenario(
            "digits",
            classes="ten",
            n=values["n"],
            n_test=values["n_test"],
            depth=depth,
            width=values["width"],
            init="gaussian",
            sigma=float(sigma),
            scaling="standard",
            lr=rate,
            steps=values["steps"],
            seed=values["seed"],
        ).train(record=np.array([0, values["steps"]]))
        assert table["loss"][index] == pytest.approx(run.loss[-1], rel=1e-8)
        for pair in range(depth - 1):
            final = table[f"zeta_{pair + 1}_final"][index]
            assert final == pytest.approx(run.zeta[-1, pair], rel=1e-8)


#: the trajectory view's exact columns for its default state: f(values, t) → {column: array}
EXPECTED = {"networks": networks_expected}
#: checks of the maps' downloads (values, tables) against independent solver calls
MAP_CHECKS = {"networks-map": networks_map_check, "networks-sweeps": networks_sweeps_check}
