"""The scenario builder against references drawn here by hand: each data set from its seed's data
stream, each initialisation from its weight stream (Kunin et al.'s δ per neuron, the scalings'
variances, the balance α, nearly parallel layers), the learning rates, the adaptations and their
notes, and the baselines a scenario computes."""

import numpy as np
import pytest
import scipy.linalg

from solvers import finite_width as fw
from solvers import networks as nw


def _data_rng(seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, 0])


def _weight_rng(seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, 1])


def _unit_rows(points: np.ndarray) -> np.ndarray:
    return points / np.sqrt(np.sum(points**2, axis=1, keepdims=True))


# -- data ---------------------------------------------------------------------------------------


def test_teacher_student_data_and_teacher_are_drawn_from_the_data_stream():
    seed, d, k, n, n_test = 7, 3, 2, 9, 4
    built = nw.scenario("teacher", d=d, k=k, n=n, n_test=n_test, seed=seed).data
    rng = _data_rng(seed)
    teacher = _unit_rows(rng.standard_normal((k, d)))
    signs = rng.choice([-1.0, 1.0], size=k)
    X = _unit_rows(rng.standard_normal((n + n_test, d)))
    y = np.maximum(X @ teacher.T, 0.0) @ signs
    np.testing.assert_array_equal(built.teacher, teacher)
    np.testing.assert_allclose(built.X, X[:n], rtol=1e-15)
    np.testing.assert_allclose(built.X_test, X[n:], rtol=1e-15)
    np.testing.assert_allclose(built.y[:, 0], y[:n], rtol=1e-14)
    np.testing.assert_allclose(built.y_test[:, 0], y[n:], rtol=1e-14)
    assert not built.labels


def test_xor_line_and_gaussians_from_the_data_stream():
    xor = nw.scenario("xor", n=6, n_test=2, seed=3).data
    points = _data_rng(3).uniform(-1.0, 1.0, size=(8, 2))
    np.testing.assert_array_equal(xor.X, points[:6])
    np.testing.assert_array_equal(xor.y[:, 0], np.where(points[:6, 0] * points[:6, 1] >= 0, 1, -1))
    assert xor.labels and xor.teacher is None

    line = nw.scenario("line", n=5, n_test=3, seed=4).data
    rng = _data_rng(4)
    x = rng.standard_normal((8, 1))
    y = 2.0 * x + 0.1 * rng.standard_normal((8, 1))  # Xu & Ziyin: y = 2x + N(0, 1)/10
    np.testing.assert_array_equal(line.X, x[:5])
    np.testing.assert_allclose(line.y_test, y[5:], rtol=1e-15)

    gaussians = nw.scenario("gaussians", n=10, seed=5).data
    rng = _data_rng(5)
    expected = np.concatenate([rng.normal(0.0, 1.0, 5), rng.normal(4.0, 1.0, 5)])
    np.testing.assert_array_equal(gaussians.X[:, 0], expected)
    np.testing.assert_array_equal(gaussians.y[:, 0], [-1.0] * 5 + [1.0] * 5)
    assert gaussians.X_test is None


def test_digits_pair_and_ten_classes():
    from sklearn.datasets import load_digits

    bundle = load_digits()
    pair = nw.scenario("digits", n=30, n_test=10, classes="pair", seed=2).data
    chosen = np.isin(bundle.target, (4, 9))
    order = _data_rng(2).permutation(int(chosen.sum()))[:40]
    images, labels = bundle.data[chosen][order] / 16.0, bundle.target[chosen][order]
    np.testing.assert_array_equal(pair.X, images[:30])
    np.testing.assert_array_equal(pair.y[:, 0], np.where(labels[:30] == 4, -1.0, 1.0))
    ten = nw.scenario("digits", n=20, classes="ten", seed=2).data
    assert ten.y.shape == (20, 10) and np.all(ten.y.sum(axis=1) == 1)


def test_too_many_digits_cut_the_test_set_first_with_a_note():
    built = nw.scenario("digits", n=300, n_test=200, classes="pair")
    available = int(np.isin(nw.digit_bundle()[1], (4, 9)).sum())
    assert built.data.X.shape[0] == 300 and built.data.X_test.shape[0] == available - 300
    assert any("test set is cut" in note for note in built.notes)
    small = nw.scenario("digits", n=1000, n_test=5, classes="pair")
    assert small.data.X.shape[0] == available and small.data.X_test is None
    assert any("training set is cut" in note for note in small.notes)


# -- initialisations -------------------------------------------------------------------------


def test_kunin_initialisation_by_hand_with_delta_per_neuron():
    seed, width, tau, delta = 11, 6, 0.4, -0.3
    net = nw.scenario("teacher", d=3, width=width, tau=tau, delta=delta, seed=seed).net
    rng = _weight_rng(seed)
    w = _unit_rows(rng.standard_normal((width // 2, 3)))
    a = rng.choice([-1.0, 1.0], size=width // 2)
    # α from δ = τ²(α² − α⁻²): the positive root of α⁴ − (δ/τ²)α² − 1 = 0
    alpha = np.sqrt((delta / tau**2 + np.sqrt((delta / tau**2) ** 2 + 4)) / 2)
    np.testing.assert_allclose(net.weights[0], tau / alpha * np.vstack([w, w]), rtol=1e-13)
    np.testing.assert_allclose(net.weights[1][0], alpha * tau * np.concatenate([a, -a]))
    first, second = net.weights
    np.testing.assert_allclose(second[0] ** 2 - np.sum(first**2, axis=1), delta, atol=1e-14)
    np.testing.assert_allclose(np.abs(second[0]) * np.linalg.norm(first, axis=1), tau**2)


def test_a_tau_delta_grid_is_its_cells_with_their_own_learning_rates():
    taus, deltas = np.array([0.2, 1.0]), np.array([-0.5, 0.0, 0.5])
    lr = 5e-3 / taus[:, None] ** 2 * np.ones((1, 3))
    grid = nw.scenario(
        "teacher", n=8, n_test=4, tau=taus[:, None], delta=deltas[None, :], lr=lr, steps=30
    )
    assert grid.net.batch_shape == (2, 3)
    run = grid.train(record=np.array([0, 30]))
    for i, j in np.ndindex(2, 3):
        one = nw.scenario(
            "teacher", n=8, n_test=4, tau=taus[i], delta=deltas[j], lr=lr[i, j], steps=30
        )
        single = one.train(record=np.array([0, 30]))
        np.testing.assert_allclose(run.test_loss[i, j], single.test_loss, rtol=1e-10)
        np.testing.assert_allclose(run.kernel_distance[i, j], single.kernel_distance, atol=1e-12)


@pytest.mark.parametrize(
    ("scaling", "readout_std", "gamma"),
    [
        ("standard", lambda h: 1.0 / np.sqrt(h), lambda h: 1.0),
        ("ntk", lambda h: 1.0, lambda h: h**-0.5),
        ("mean_field", lambda h: 1.0, lambda h: 1.0 / h),
    ],
)
def test_gaussian_scalings_have_their_variances(scaling, readout_std, gamma):
    sigma, width, d = 1.7, 400, 64
    net = nw.scenario(
        "digits", n=10, depth=3, width=width, init="gaussian", sigma=sigma, scaling=scaling
    ).net
    first, middle, last = net.weights
    assert first.shape == (width, d) and middle.shape == (width, width) and last.shape == (1, width)
    # hidden layers N(0, σ²/n_in) in every scaling; the read-out and γ as Xu & Ziyin's Table 1
    assert np.std(first) == pytest.approx(sigma / np.sqrt(d), rel=0.02)
    assert np.std(middle) == pytest.approx(sigma / np.sqrt(width), rel=0.02)
    assert np.sqrt(np.mean(last**2)) == pytest.approx(sigma * readout_std(width), rel=0.2)
    assert net.gamma == pytest.approx(gamma(width), rel=1e-12)


def test_gaussian_layers_are_the_weight_streams_draws_and_balance_moves_the_end_layers():
    seed, alpha = 5, 3.0
    plain = nw.scenario("xor", depth=3, width=7, init="gaussian", sigma=1.2, seed=seed).net
    rng = _weight_rng(seed)
    expected = [1.2 * rng.standard_normal(shape) / np.sqrt(shape[1]) for shape in ((7, 2), (7, 7))]
    expected.append(1.2 * rng.standard_normal((1, 7)) / np.sqrt(7))
    for got, wanted in zip(plain.weights, expected, strict=True):
        np.testing.assert_allclose(got, wanted, rtol=1e-14)
    tilted = nw.scenario(
        "xor", depth=3, width=7, init="gaussian", sigma=1.2, balance=alpha, seed=seed
    ).net
    np.testing.assert_allclose(tilted.weights[0], expected[0] / alpha, rtol=1e-14)
    np.testing.assert_allclose(tilted.weights[1], expected[1], rtol=1e-14)
    np.testing.assert_allclose(tilted.weights[2], expected[2] * alpha, rtol=1e-14)
    # ReLU is positively homogeneous: the function does not change (Kunin et al. Fig. 6a)
    X = np.random.default_rng(0).standard_normal((5, 2))
    np.testing.assert_allclose(nw.forward(tilted, X), nw.forward(plain, X), rtol=1e-12)


def test_nearly_parallel_layers_are_xu_and_ziyins():
    built = nw.scenario(
        "line", width=9, init="parallel", sigma=2.0, noise=0.3, scaling="ntk", seed=6
    )
    u0, W0 = fw.near_parallel_init(9, np.ones(1), 2.0, 2.0, _weight_rng(6), noise=0.3)
    np.testing.assert_array_equal(built.net.weights[0], W0)
    np.testing.assert_array_equal(built.net.weights[1][0], u0)
    assert built.net.gamma == pytest.approx(9**-0.5)
    assert built.notes == ()


def test_layer_rates_keep_their_product_and_ratio():
    assert nw.layer_rates(2, 4.0) == pytest.approx((0.5, 2.0))
    rates = nw.scenario("xor", depth=4, init="gaussian", rate_ratio=9.0).layer_lrs
    assert rates == pytest.approx((1 / 3, 1.0, 1.0, 3.0))
    with pytest.raises(ValueError, match="ratio"):
        nw.layer_rates(2, 0.0)


# -- adaptations -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "field", "value", "words"),
    [
        ({"data": "teacher", "loss": "bce"}, "loss", "mse", "labels ±1"),
        ({"data": "xor", "depth": 3}, "depth", 2, "two-layer"),
        ({"data": "xor", "width": 7}, "width", 8, "negated copy"),
        ({"data": "xor", "init": "parallel"}, "init", "gaussian", "one-dimensional"),
        ({"data": "digits", "classes": "ten", "n": 10}, "init", "gaussian", "one output"),
    ],
)
def test_what_does_not_fit_is_adapted_and_said(settings, field, value, words):
    built = nw.scenario(**settings)
    assert any(words in note for note in built.notes), built.notes
    got = {
        "loss": built.loss,
        "depth": built.net.depth,
        "width": built.net.widths[1],
        "init": "kunin" if np.allclose(nw.forward(built.net, built.data.X), 0) else "gaussian",
    }[field]
    assert got == value


def test_nothing_is_said_when_everything_fits():
    assert nw.scenario("xor", loss="bce").notes == ()
    assert nw.scenario("digits", n=50, init="gaussian", depth=4).notes == ()


def test_bad_settings_raise_value_errors():
    for settings in ({"data": "mnist"}, {"init": "orthogonal"}, {"balance": 0.0}, {"seed": -1}):
        with pytest.raises(ValueError):
            nw.scenario(**settings)


# -- baselines ------------------------------------------------------------------------------------


def test_the_frozen_kernel_baseline_is_the_exponential_of_the_initial_ntk():
    built = nw.scenario("xor", n=6, n_test=4, width=8, tau=0.7, delta=0.2, rate_ratio=2.0, seed=1)
    t = np.array([0.0, 0.7, 5.0])
    baseline = built.frozen_kernel(t)
    data, net, rates = built.data, built.net, list(built.layer_lrs)
    whole = nw.ntk(net, np.concatenate([data.X, data.X_test]), layer_lrs=rates)
    K, cross = whole[:6, :6], whole[6:, :6]
    np.testing.assert_allclose(baseline.K0, K, rtol=1e-12, atol=1e-15)
    r0 = (nw.forward(net, data.X) - data.y)[:, 0]
    g0 = nw.forward(net, data.X_test)[:, 0]
    system = np.zeros((10, 10))
    system[:6, :6], system[6:, :6] = -K / 6, -cross / 6
    for index, time in enumerate(t):
        state = scipy.linalg.expm(system * time) @ np.concatenate([r0, g0])
        assert baseline.loss[index] == pytest.approx(0.5 * np.mean(state[:6] ** 2), rel=1e-9)
        test = 0.5 * np.mean((state[6:] - data.y_test[:, 0]) ** 2)
        assert baseline.test_loss[index] == pytest.approx(test, rel=1e-9)


def test_the_linear_limit_is_offered_only_where_it_exists():
    line = nw.scenario("line", n=12, activation="linear", init="gaussian", scaling="mean_field")
    limit = line.linear_limit(np.array([0.0, 1.0]))
    assert limit is not None and limit.loss[0] == pytest.approx(
        float(nw.loss_value(line.net, line.data.X, line.data.y)), rel=1e-12
    )
    assert nw.scenario("line", n=12).linear_limit(np.array([0.0])) is None  # ReLU
    assert nw.scenario("xor", activation="linear").linear_limit(np.array([0.0])) is None
