"""The sweeps of ReLU networks (Xu & Ziyin Figs. 2b, 4, 5): their hyperparameters against the
paper's printed values, and each swept network against one built and trained here by hand (or
by the network view's scenario), measured here."""

import numpy as np
import pytest

from solvers import finite_width as fw
from solvers import networks as nw


@pytest.fixture(scope="module")
def digits():
    return nw.digits(tuple(range(10)), 20, n_test=30, seed=np.random.default_rng([3, 0]))


def _first_layer_change(before: np.ndarray, after: np.ndarray) -> float:
    return float(np.linalg.norm(after - before) / np.linalg.norm(before))


def _zeta(upper: np.ndarray, lower: np.ndarray) -> float:
    norm = np.linalg.norm
    return float(norm(upper @ lower, 2) / (norm(upper, 2) * norm(lower, 2)))


@pytest.mark.parametrize("d", [40, 100, 700])
def test_the_six_scalings_are_the_papers_app_c4(d):
    """App. C.4, written out: NTK γ = 1/√d, η = η₀; MF γ = 10/d, η = η₀d/100; Kaiming (σ_u² =
    1/d, σ_w² = 1) ⁻ γ = 1, η = η₀·100/d, ⁺ γ = 100/d, η = η₀d/100; Xavier (σ² = 1/d) ⁺ γ = 1,
    η = η₀, ⁻ γ = d/100, η = η₀(100/d)² (C.4 prints Kaiming⁻'s η as η₀d/100, against its
    Table 1 c_η = −1: a misprint, since ± must agree at d = 100 and c_η⁻ = −1)."""
    lr = 0.05
    printed = {
        ("NTK", "kernel"): (1.0, 1.0, d**-0.5, lr),
        ("NTK", "feature learning"): (1.0, 1.0, 10 / d, lr * d / 100),
        ("Kaiming", "kernel"): (1.0, d**-0.5, 1.0, lr * 100 / d),
        ("Kaiming", "feature learning"): (1.0, d**-0.5, 100 / d, lr * d / 100),
        ("Xavier", "kernel"): (d**-0.5, d**-0.5, d / 100, lr * (100 / d) ** 2),
        ("Xavier", "feature learning"): (d**-0.5, d**-0.5, 1.0, lr),
    }
    for (scheme, regime), (sigma_w, sigma_u, gamma, rate) in printed.items():
        got = nw.width_setting(scheme, regime, d, lr)
        assert (got.sigma_w, got.sigma_u, got.gamma, got.lr) == pytest.approx(
            (sigma_w, sigma_u, gamma, rate), rel=1e-12
        ), (scheme, regime)
    assert [f"{s}{r[0]}" for s, r in nw.SWEEP_ROWS] == [
        "NTKk", "NTKf", "Kaimingk", "Kaimingf", "Xavierk", "Xavierf"
    ]  # fmt: skip


@pytest.mark.parametrize("c", [-2.0, -0.5, 0.0, 1.0, 2.0])
def test_the_scale_exponents_are_section_4_2s_and_learn_on_the_line_m_0(c):
    width, kappa = 200, 10.0
    got = nw.scale_setting(c, width, 0.1, kappa)
    assert got.sigma_w**2 == pytest.approx(kappa**c)
    assert (got.sigma_u * np.sqrt(width)) ** 2 == pytest.approx(kappa ** max(c, 0.0))
    assert got.gamma == pytest.approx(kappa ** min(-c / 2, 0.0)) and got.lr == 0.1
    # their eq. 18 with c_d = 0, c_η = 0: m = 0 for every c, kernel phase iff c > 0 (Theorem 2,
    # with P/Q → 1 as a wide network's random start gives it, here as case 2)
    exponents = (0.0, min(-c / 2, 0.0), max(c, 0.0), c, 0.0, 0.0)
    assert fw.phase_terms(*exponents).m == pytest.approx(0.0, abs=1e-12)
    expected = "kernel" if c > 0 else "feature learning"
    assert fw.phase(*exponents, zero_output_init=True) == expected


def test_a_width_sweep_network_is_the_one_built_and_trained_here(digits):
    X, y, X_test, y_test = digits
    widths, steps, lr = [30, 60], 40, 0.05
    sweep = nw.sweep_widths(X, y, widths, lr=lr, steps=steps, X_test=X_test, y_test=y_test, seed=5)
    assert sweep.weight_change.shape == (6, 2) and sweep.rows[2] == "Kaiming⁻"
    row, column = 3, 1  # Kaiming⁺ at d = 60
    d = widths[column]
    rng = np.random.default_rng([5, 1])
    G1, G2 = rng.standard_normal((d, 64)), rng.standard_normal((10, d))
    W1 = G1 / 8.0  # σ_w = 1, first layer N(0, σ_w²/64)
    W2 = G2 / np.sqrt(d)  # σ_u² = 1/d
    gamma, rate = 100 / d, lr * d / 100
    net = nw.Network((W1, W2), "relu", gamma)
    run = nw.train(net, X, y, lr=rate, steps=steps, record=[0, steps], X_test=X_test, y_test=y_test)
    assert sweep.lr[row, column] == pytest.approx(rate) and sweep.gamma[row, column] == gamma
    assert sweep.loss[row, column] == pytest.approx(run.loss[-1], rel=1e-9)
    assert sweep.test_loss[row, column] == pytest.approx(run.test_loss[-1], rel=1e-9)
    moved = _first_layer_change(W1, run.final.weights[0])
    assert sweep.weight_change[row, column] == pytest.approx(moved, rel=1e-9)
    zeta = _zeta(run.final.weights[1], run.final.weights[0])
    assert sweep.final_alignment[row, column, 0] == pytest.approx(zeta, rel=1e-9)
    right = np.mean(np.argmax(nw.forward(run.final, X_test), 1) == np.argmax(y_test, 1))
    assert sweep.test_accuracy[row, column] == pytest.approx(right)


def test_every_pair_is_its_base_scheme_at_the_base_width_and_a_zero_start_is_zero(digits):
    X, y, _, _ = digits
    sweep = nw.sweep_widths(X, y, [100], lr=0.05, steps=20, seed=1)
    for kernel, features in ((0, 1), (2, 3), (4, 5)):
        assert sweep.loss[kernel, 0] == sweep.loss[features, 0]
        assert sweep.weight_change[kernel, 0] == sweep.weight_change[features, 0]
    zero = nw.sweep_widths(X, y, [40, 100], lr=0.05, steps=5, seed=1, zero_output=True)
    assert zero.initial_loss == pytest.approx(np.full((6, 2), 0.5 * np.mean(np.sum(y**2, 1))))
    with pytest.raises(ValueError, match="even"):
        nw.sweep_widths(X, y, [41], lr=0.05, steps=5, zero_output=True)
    scaled = nw.sweep_scale(X, y, [-1.0, 2.0], width=10, lr=0.1, steps=3, zero_output=True)
    assert scaled.initial_loss == pytest.approx(np.full((1, 2), 0.5 * np.mean(np.sum(y**2, 1))))


def test_a_sigma_sweep_network_is_the_network_views_scenario(digits):
    sigmas, depth, width, steps = np.array([0.5, 1.0, 2.0]), 3, 20, 30
    X, y, X_test, y_test = nw.digits(
        tuple(range(10)), 20, n_test=30, seed=np.random.default_rng([4, 0])
    )
    sweep = nw.sweep_sigma(
        X, y, sigmas, depth=depth, width=width, lr=0.5, steps=steps, X_test=X_test, y_test=y_test,
        seed=4,
    )  # fmt: skip
    assert sweep.final_alignment.shape == (1, 3, depth - 1)
    for index, sigma in enumerate(sigmas):
        rate = 0.5 * min(1.0, sigma ** (-2 * (depth - 1)))  # written out: lr·min(1, σ^−2(L−1))
        scenario = nw.scenario(
            "digits", classes="ten", n=20, n_test=30, depth=depth, width=width, init="gaussian",
            sigma=float(sigma), scaling="standard", lr=rate, steps=steps, seed=4,
        )  # fmt: skip
        run = scenario.train(record=np.array([0, steps]))
        assert sweep.lr[0, index] == pytest.approx(rate)
        assert sweep.loss[0, index] == pytest.approx(run.loss[-1], rel=1e-9)
        np.testing.assert_allclose(sweep.initial_alignment[0, index], run.zeta[0], rtol=1e-9)
        np.testing.assert_allclose(sweep.final_alignment[0, index], run.zeta[-1], rtol=1e-9)


def test_a_scale_sweep_at_c_0_is_the_standard_network(digits):
    X, y, _, _ = digits
    sweep = nw.sweep_scale(X, y, [-1.0, 0.0, 1.5], width=30, lr=0.1, steps=25, seed=2)
    rng = np.random.default_rng([2, 1])
    W1, W2 = rng.standard_normal((30, 64)) / 8.0, rng.standard_normal((10, 30)) / np.sqrt(30)
    run = nw.train(nw.Network((W1, W2), "relu", 1.0), X, y, lr=0.1, steps=25, record=[0, 25])
    assert sweep.loss[0, 1] == pytest.approx(run.loss[-1], rel=1e-9)
    assert sweep.weight_change[0, 1] == pytest.approx(
        _first_layer_change(W1, run.final.weights[0]), rel=1e-9
    )
    assert sweep.gamma[0].tolist() == pytest.approx([1.0, 1.0, 10**-0.75])
    assert sweep.test_accuracy is None and sweep.test_loss is None


def test_two_classes_count_signs_and_progress_rises(digits):
    X, y = nw.digits((4, 9), 24, seed=np.random.default_rng([1, 0]))
    heard = []
    sweep = nw.sweep_scale(X, y, [0.0, 1.0], width=10, lr=0.1, steps=30, progress=heard.append)
    assert heard == sorted(heard) and 0 < heard[-1] <= 1.0
    rng = np.random.default_rng([0, 1])
    W1, W2 = rng.standard_normal((10, 64)) / 8.0, rng.standard_normal((1, 10)) / np.sqrt(10)
    run = nw.train(nw.Network((W1, W2), "relu", 1.0), X, y, lr=0.1, steps=30, record=[0, 30])
    signs = np.sign(nw.forward(run.final, X)[:, 0]) == y[:, 0]
    assert sweep.train_accuracy[0, 0] == pytest.approx(np.mean(signs))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda X, y: nw.sweep_widths(X, y, [], lr=0.1, steps=5), "empty"),
        (lambda X, y: nw.sweep_scale(X, y, np.zeros(33), width=5, lr=0.1, steps=5), "1 to 32"),
        (lambda X, y: nw.sweep_widths(X, y, [10, 0], lr=0.1, steps=5), "widths"),
        (lambda X, y: nw.sweep_widths(X, y, [10], lr=-1.0, steps=5), "lr"),
        (lambda X, y: nw.sweep_scale(X, y, [np.nan], width=10, lr=0.1, steps=5), "exponents"),
        (lambda X, y: nw.sweep_sigma(X, y, [0.0], depth=3, width=5, lr=0.1, steps=5), "> 0"),
        (lambda X, y: nw.sweep_sigma(X, y, [1.0], depth=1, width=5, lr=0.1, steps=5), "depth"),
        (lambda X, y: nw.sweep_scale(X, y, [0.0], width=5, lr=0.1, steps=5, seed=-1), "seed"),
        (lambda X, y: nw.sweep_scale(X, y, [0.0], width=5, lr=0.1, steps=5, X_test=X), "both"),
        (lambda X, y: nw.width_setting("MF", "kernel", 10, 0.1), "unknown scaling"),
    ],
)
def test_bad_requests_say_what_to_change(digits, call, message):
    X, y, _, _ = digits
    with pytest.raises(ValueError, match=message):
        call(X, y)


def test_results_are_the_same_a_network_at_a_time(digits, monkeypatch):
    from solvers.networks import _sweeps

    X, y, X_test, y_test = digits
    together = nw.sweep_scale(X, y, [-1.0, 0.0, 1.0], width=12, lr=0.1, steps=15, X_test=X_test,
                              y_test=y_test)  # fmt: skip
    deep = nw.sweep_sigma(X, y, [0.5, 1.0, 2.0], depth=3, width=8, lr=0.3, steps=15, seed=6)
    monkeypatch.setattr(_sweeps, "FORWARD_BLOCK", 1)
    monkeypatch.setattr(_sweeps, "CALL_WEIGHTS", 1)  # one network per training call
    apart = nw.sweep_scale(X, y, [-1.0, 0.0, 1.0], width=12, lr=0.1, steps=15, X_test=X_test,
                           y_test=y_test)  # fmt: skip
    np.testing.assert_array_equal(together.test_accuracy, apart.test_accuracy)
    np.testing.assert_array_equal(together.train_accuracy, apart.train_accuracy)
    np.testing.assert_allclose(together.weight_change, apart.weight_change, rtol=1e-12)
    split = nw.sweep_sigma(X, y, [0.5, 1.0, 2.0], depth=3, width=8, lr=0.3, steps=15, seed=6)
    np.testing.assert_allclose(deep.final_alignment, split.final_alignment, rtol=1e-12)
    np.testing.assert_allclose(deep.loss, split.loss, rtol=1e-12)
    assert split.lr.shape == split.gamma.shape == (1, 3)
