"""Frozen-kernel flow against the matrix exponential and against gradient descent of a network
whose NTK cannot move; the feature-learning-rate fit against curves of known γ."""

import numpy as np
import pytest
import scipy.linalg

from solvers import feature_evolution as fe
from solvers import networks as nw

RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def one_blas_thread():
    """The fits run ~100 eigendecompositions of matrices a few dozen wide: BLAS threads only
    add contention there (the dashboard runs single-threaded for the same reason,
    app/__init__.py), and on a busy two-core machine they make each one ~50× slower.
    threadpoolctl comes with scikit-learn, which the digits need anyway."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - without it the tests are only slower
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def _psd(size: int, batch=()) -> np.ndarray:
    factor = RNG.standard_normal((*batch, size, size + 2))
    return factor @ np.swapaxes(factor, -1, -2) / size


def test_kernel_flow_matches_the_matrix_exponential():
    samples, d_out = 5, 2
    K0 = _psd(samples * d_out, batch=(3,))
    f0 = RNG.standard_normal((3, samples, d_out))
    y = RNG.standard_normal((samples, d_out))
    t = np.array([0.0, 0.3, 2.0, 40.0])
    flow = nw.kernel_flow(K0, f0, y, t)
    assert flow.shape == (3, 4, samples, d_out)
    for cell in range(3):
        for index, time in enumerate(t):
            # f' = −(1/n) K₀ (f − y) on the sample-major vector of outputs
            start = (f0[cell] - y).reshape(-1)
            expected = y.reshape(-1) + scipy.linalg.expm(-K0[cell] * time / samples) @ start
            assert np.allclose(flow[cell, index].reshape(-1), expected, atol=1e-12)


def test_kernel_flow_is_gradient_descent_of_a_network_with_a_frozen_first_layer():
    # With layer 1 frozen (η₁ = 0) the network is linear in its read-out, so its NTK stays K₀
    # and gradient descent tends to the frozen-kernel flow, with an error ∝ lr.
    X, y = nw.teacher_student(3, 2, 12, seed=4)
    net = nw.gaussian_init([3, 20, 1], sigma=1.0, gamma=1.5, seed=4)
    rates = [0.0, 1.0]
    K0 = nw.ntk(net, X, layer_lrs=rates)
    horizon = 4.0
    flow = nw.kernel_flow(K0, nw.forward(net, X), y, [horizon])[0]
    errors = []
    for lr in (0.02, 0.01):
        run = nw.train(net, X, y, lr=lr, steps=round(horizon / lr), layer_lrs=rates)
        assert np.allclose(run.kernel_distance, 0.0, atol=1e-14)
        assert np.array_equal(run.final.weights[0], net.weights[0])
        errors.append(np.max(np.abs(nw.forward(run.final, X) - flow)))
    assert errors[1] < 1e-2 * np.max(np.abs(flow))
    assert 1.8 < errors[0] / errors[1] < 2.2, errors


def test_kernel_flow_rejects_bad_input():
    K0 = _psd(4)
    with pytest.raises(ValueError, match="K0"):
        nw.kernel_flow(K0 + np.triu(np.ones((4, 4)), 1), np.zeros(4), np.ones(4), [1.0])
    with pytest.raises(ValueError, match="f0"):
        nw.kernel_flow(K0, np.zeros(3), np.ones(3), [1.0])
    with pytest.raises(ValueError, match="t"):
        nw.kernel_flow(K0, np.zeros(4), np.ones(4), [-1.0])
    with pytest.raises(ValueError, match="y"):
        nw.kernel_flow(K0, np.zeros(4), np.ones(3), [1.0])


@pytest.mark.parametrize(("gamma", "fit_time_scale"), [(0.05, True), (0.8, False), (6.0, True)])
def test_the_fit_recovers_the_feature_learning_rate_of_a_model_curve(gamma, fit_time_scale):
    K0, target = fe.power_law_task(30, a=1.2, b=1.0, seed=3)
    K0 = 7.0 * K0  # any scale: the fit normalises K₀ as Shan & Bordelon do
    samples = target.size
    scale = np.linalg.norm(K0)
    t = np.geomspace(1e-2, 1e3, 60)
    # the engine's MSE flow has η = 1/n; for K₀/‖K₀‖ that is η = ‖K₀‖/n
    curve = fe.exact(K0 / scale, target, t, eta=scale / samples, gamma=gamma).alignment
    fit = nw.fit_feature_learning_rate(K0, target[:, None], t, curve, fit_time_scale=fit_time_scale)
    assert np.isclose(fit.gamma, gamma, rtol=1e-5)
    assert np.isclose(fit.time_scale, 1.0, rtol=1e-5)
    assert fit.residual < 1e-6 and np.allclose(fit.fitted, curve, atol=1e-6)
    assert np.isclose(fit.kernel_scale, scale) and np.isclose(fit.eta, scale / samples)
    # their eq. 20 from the last value alone: the γ whose A∞ is that value
    assert np.isclose(fe.final_alignment(K0 / scale, target, fit.gamma_final), curve[-1])


def test_the_fit_finds_a_slower_clock():
    K0, target = fe.power_law_task(25, a=1.5, b=1.2, seed=5)
    t = np.geomspace(1e-1, 1e4, 50)
    scale = np.linalg.norm(K0)
    curve = fe.exact(K0 / scale, target, 0.03 * t, eta=scale / 25, gamma=2.0).alignment
    fit = nw.fit_feature_learning_rate(K0, target, t, curve)
    assert np.isclose(fit.gamma, 2.0, rtol=1e-5) and np.isclose(fit.time_scale, 0.03, rtol=1e-5)
    assert fit.log_gamma_error < 1e-4  # an exact model curve determines γ


def test_the_fit_of_a_frozen_kernel_is_zero():
    K0, target = fe.power_law_task(20, a=1.0, b=1.0, seed=1)
    t = np.geomspace(1e-2, 1e2, 30)
    curve = np.full(t.shape, target @ K0 @ target / (np.linalg.norm(K0) * target @ target))
    fit = nw.fit_feature_learning_rate(K0, target, t, curve)
    assert fit.gamma == 0.0 and fit.gamma_final < 1e-12 and fit.residual < 1e-12


@pytest.mark.slow
def test_deeper_networks_fit_a_larger_feature_learning_rate():
    # Shan & Bordelon Fig. 6: depth raises the alignment and the fitted γ (two digits here).
    X, y = nw.digits([3, 8], n=60, seed=0)
    gammas = []
    for widths in ([64, 50, 1], [64, 50, 50, 50, 1]):
        net = nw.gaussian_init(widths, sigma=1.4, seed=1)
        run = nw.train(net, X, y, lr=0.05, steps=3000)
        fit = nw.fit_feature_learning_rate(nw.ntk(net, X), y, run.t, run.alignment)
        assert fit.residual < 0.5 * np.std(run.alignment)  # far better than a constant
        # the curve fit and the paper's final-alignment estimate agree to within ~10 %
        assert np.isclose(fit.gamma, fit.gamma_final, rtol=0.15)
        gammas.append(fit.gamma)
    assert gammas[1] > 2 * gammas[0]


def test_the_fit_of_a_trained_network_follows_its_alignment_curve():
    X, y = nw.digits([3, 8], n=40, seed=2)
    net = nw.gaussian_init([64, 30, 30, 1], sigma=1.4, seed=2)
    run = nw.train(net, X, y, lr=0.05, steps=1500, record=nw.default_record(1500, 60))
    fit = nw.fit_feature_learning_rate(nw.ntk(net, X), y, run.t, run.alignment)
    assert fit.gamma > 0 and fit.residual < 0.5 * np.std(run.alignment)
    assert fit.log_gamma_error < 1  # this curve determines γ to within a factor e


def test_a_fit_along_a_degenerate_valley_stays_within_its_bounds():
    # A curve fitted about as well by ever larger γ on ever slower clocks (a ReLU network on 18
    # inputs): the search stops at its bounds, two decades beyond the scan's grids, instead of
    # running off to a γ whose square overflows (an unbounded search raised OverflowError here).
    s = nw.scenario("teacher", d=18, tau=0.1, lr=0.02, steps=2000)
    run = s.train(records=60)
    fit = nw.fit_feature_learning_rate(nw.ntk(s.net, s.data.X), s.data.y, run.t, run.alignment)
    size = float(np.sum(s.data.y**2))
    assert 0 < fit.gamma * size <= 1e6 * (1 + 1e-9) and fit.time_scale >= 1e-5 * (1 - 1e-9)
    assert fit.log_gamma_error > 10  # and says that γ is not determined
    assert fit.residual < 0.5 * np.std(run.alignment)


@pytest.mark.parametrize(("d", "determined"), [(18, False), (2, True)])
def test_the_error_of_ln_gamma_says_whether_the_curve_pins_gamma_down(d, determined):
    # independently of the search: move γ by a factor e² either way along the valley (γ·s
    # fixed) and evaluate the exact model — the misfit barely changes where the error of ln γ
    # is large, and grows several-fold where it is small
    s = nw.scenario("teacher", d=d, tau=0.1, lr=0.02, steps=2000)
    run = s.train(records=60)
    K0 = nw.ntk(s.net, s.data.X)
    fit = nw.fit_feature_learning_rate(K0, s.data.y, run.t, run.alignment)
    kernel, y = K0 / np.linalg.norm(K0), s.data.y.reshape(-1)
    for factor in (np.e**2, np.e**-2):
        moved = fe.exact(
            kernel, y, fit.time_scale / factor * run.t, eta=fit.eta, gamma=fit.gamma * factor
        ).alignment
        ratio = np.sqrt(np.mean((moved - run.alignment) ** 2)) / fit.residual
        if determined:
            assert fit.log_gamma_error < 0.5 and ratio > 3
        else:
            assert fit.log_gamma_error > 10 and ratio < 1.01


def test_the_fit_rejects_bad_input():
    K0, target = fe.power_law_task(10, a=1.0, b=1.0, seed=0)
    t = np.linspace(0, 1, 5)
    with pytest.raises(ValueError, match="alignment"):
        nw.fit_feature_learning_rate(K0, target, t, np.ones(4))
    with pytest.raises(ValueError, match="y"):
        nw.fit_feature_learning_rate(K0, target[:5], t, np.ones(5))
    with pytest.raises(ValueError, match="eta"):
        nw.fit_feature_learning_rate(K0, target, t, np.ones(5), eta=0.0)
    with pytest.raises(ValueError, match="K0"):
        nw.fit_feature_learning_rate(K0[None], target, t, np.ones(5))


# -- kernels between two input sets, and the frozen flow at other inputs -------------------------


@pytest.mark.parametrize("activation", nw.ACTIVATIONS)
@pytest.mark.parametrize("widths", [[3, 6, 1], [3, 5, 4, 2], [2, 4, 3, 5, 3]])
def test_the_kernel_between_two_sets_is_a_block_of_the_kernel_on_both(activation, widths):
    net = nw.gaussian_init(widths, sigma=1.3, gamma=0.8, activation=activation, seed=len(widths))
    X, Z = RNG.standard_normal((4, widths[0])), RNG.standard_normal((3, widths[0]))
    rates = list(RNG.uniform(0.3, 2.0, len(widths) - 1))
    whole = nw.ntk(net, np.concatenate([X, Z]), layer_lrs=rates)
    d_out = widths[-1]
    cross = nw.ntk_between(net, X, Z, layer_lrs=rates)
    assert cross.shape == (4 * d_out, 3 * d_out)
    np.testing.assert_allclose(cross, whole[: 4 * d_out, 4 * d_out :], rtol=1e-12, atol=1e-14)
    same = nw.ntk_between(net, X, X, layer_lrs=rates)
    np.testing.assert_allclose(same, nw.ntk(net, X, layer_lrs=rates), rtol=1e-12, atol=1e-14)


def test_the_kernel_between_two_sets_broadcasts_over_a_batch():
    tau = np.array([0.5, 1.0, 2.0])
    net = nw.kunin_init(2, 6, tau=tau, delta=np.array([[-0.3], [0.3]]), seed=5)
    X, Z = RNG.standard_normal((5, 2)), RNG.standard_normal((2, 3, 2))  # Z per δ row
    cross = nw.ntk_between(net, X, Z[:, None], layer_lrs=[1.0, np.array([0.5, 1.0, 2.0])])
    assert cross.shape == (2, 3, 5, 3)
    for i, j in np.ndindex(2, 3):
        single = nw.ntk_between(net.cell((i, j)), X, Z[i], layer_lrs=[1.0, [0.5, 1.0, 2.0][j]])
        np.testing.assert_allclose(cross[i, j], single, rtol=1e-13, atol=1e-15)


def test_kernel_flow_at_other_inputs_matches_the_matrix_exponential():
    # the training residual r and the other outputs g obey one linear system:
    # r' = −(1/n) K r, g' = −(1/n) K_× r — its exponential gives g(t) exactly
    samples, others, d_out = 4, 3, 2
    whole = _psd((samples + others) * d_out)
    P = samples * d_out
    K0, cross = whole[:P, :P], whole[P:, :P]
    f0, g0 = RNG.standard_normal((samples, d_out)), RNG.standard_normal((others, d_out))
    y = RNG.standard_normal((samples, d_out))
    t = np.array([0.0, 0.5, 3.0, 50.0])
    got = nw.kernel_flow_at(K0, cross, f0, g0, y, t)
    assert got.shape == (4, others, d_out)
    system = np.zeros((P + others * d_out,) * 2)
    system[:P, :P], system[P:, :P] = -K0 / samples, -cross / samples
    start = np.concatenate([(f0 - y).reshape(-1), g0.reshape(-1)])
    for index, time in enumerate(t):
        expected = (scipy.linalg.expm(system * time) @ start)[P:]
        np.testing.assert_allclose(got[index].reshape(-1), expected, rtol=1e-9, atol=1e-11)
    # with the training inputs as the other inputs it is the training flow itself
    np.testing.assert_allclose(
        nw.kernel_flow_at(K0, K0, f0, f0, y, t), nw.kernel_flow(K0, f0, y, t), atol=1e-12
    )


def test_kernel_flow_at_other_inputs_keeps_the_null_space_exact():
    # a kernel with a zero eigenvalue: that mode's integral is t/n, not 0/0
    K0 = np.diag([2.0, 0.0])
    cross = np.array([[1.0, 3.0]])
    got = nw.kernel_flow_at(K0, cross, np.zeros(2), np.zeros(1), np.ones(2), [4.0])[0, 0, 0]
    # n = 2, r₀ = f₀ − y = (−1, −1): mode 1 (λ = 2) decays as −e^{−t}, mode 2 (λ = 0) stays −1,
    # so g(4) = −(1/n) K_× ∫₀⁴ r = −½(1·(−(1 − e^{−4})) + 3·(−4))
    assert got == pytest.approx((1 - np.exp(-4.0)) / 2 + 6.0, rel=1e-12)


def test_specialization_matrix_by_hand():
    # two outputs, three samples: subkernel 0 is yy of target 0, subkernel 1 the identity
    y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    K = np.zeros((3, 2, 3, 2))
    K[:, 0, :, 0] = np.outer(y[:, 0], y[:, 0])
    K[:, 1, :, 1] = np.eye(3)
    K[:, 0, :, 1] = 0.1  # cross-output blocks do not enter
    K[:, 1, :, 0] = 0.1
    got = nw.specialization(K.reshape(6, 6), y)

    def align(kernel, v):
        return v @ kernel @ v / (np.linalg.norm(kernel) * (v @ v))

    subs = [np.outer(y[:, 0], y[:, 0]), np.eye(3)]
    raw = np.array([[align(s, y[:, c]) for c in range(2)] for s in subs])
    np.testing.assert_allclose(got, raw / raw.mean(axis=0), rtol=1e-12)
    assert got[0, 0] > 1 > got[1, 0]  # kernel 0 has specialised to target 0


def test_power_law_exponent_reads_the_slope_and_skips_the_rounding_tail():
    k = np.arange(1, 41, dtype=float)
    values = 3.0 * k**-1.7
    values[30:] = 1e-17  # a spectrum's rounding tail
    assert nw.power_law_exponent(values) == pytest.approx(1.7, rel=1e-10)
    assert nw.power_law_exponent(np.array([1.0, 1e-20, 1e-20])) is None


def test_equivalent_gamma_keeps_the_final_alignment():
    # A∞ of optimal feature evolution (eq. 20) depends on γ‖y‖²/‖K₀‖ only
    K_net, y_net = _psd(6), RNG.standard_normal(6)
    unit = K_net / np.linalg.norm(K_net)
    K_other, y_other = _psd(9) * 7.0, RNG.standard_normal(9) * 0.2
    gamma = 0.37
    carried = nw.equivalent_gamma(gamma, y_net, K_other, y_other)

    def final(kernel, y, rate):
        end = kernel + rate * np.outer(y, y)
        return y @ end @ y / (np.linalg.norm(end) * (y @ y))

    assert final(K_other, y_other, carried) == pytest.approx(
        fe.final_alignment(K_other, y_other, carried), rel=1e-12
    )
    # same γ‖y‖²/‖K‖: the same A∞ when both tasks have the same shape
    scaled = nw.equivalent_gamma(gamma, y_net, 5.0 * unit, 2.0 * y_net)
    assert final(5.0 * unit, 2.0 * y_net, scaled) == pytest.approx(
        final(unit, y_net, gamma), rel=1e-12
    )


def test_active_units_count_the_hidden_signs():
    net = nw.gaussian_init([2, 5, 4, 1], sigma=1.5, seed=3)
    X = RNG.standard_normal((7, 2))
    W1, W2, _ = net.weights
    z1 = X @ W1.T
    z2 = np.maximum(z1, 0) @ W2.T
    expected = np.sum(z1 > 0, axis=1) + np.sum(z2 > 0, axis=1)
    assert np.array_equal(nw.active_units(net, X), expected)
    batch = nw.kunin_init(2, 4, tau=np.array([0.5, 2.0]), delta=0.0, seed=1)
    counts = nw.active_units(batch, X)
    assert counts.shape == (2, 7)
    assert np.array_equal(counts[1], nw.active_units(batch.cell(1), X))


def test_neuron_vectors_are_each_neurons_read_out_size_times_its_weights():
    net = nw.kunin_init(2, 6, tau=np.array([0.5, 2.0]), delta=0.3, seed=4)
    got = nw.neuron_vectors(net)
    assert got.shape == (2, 6, 2)
    for cell in range(2):
        first, second = net.cell(cell).weights
        for i in range(6):
            np.testing.assert_allclose(got[cell, i], abs(second[0, i]) * first[i], rtol=1e-15)
    with pytest.raises(ValueError, match="two-layer"):
        nw.neuron_vectors(nw.gaussian_init([2, 3, 3, 1]))


def test_outputs_and_active_units_come_from_one_pass():
    net = nw.gaussian_init([2, 6, 5, 2], sigma=1.3, activation="leaky_relu", seed=8)
    X = RNG.standard_normal((9, 2))
    outputs, active = nw.outputs_and_active_units(net, X)
    np.testing.assert_array_equal(outputs, nw.forward(net, X))
    np.testing.assert_array_equal(active, nw.active_units(net, X))
    with pytest.raises(ValueError, match="at most"):
        big = nw.kunin_init(2, 2000, tau=np.ones(10), delta=0.0)
        nw.outputs_and_active_units(big, np.ones((1900, 2)))


def _degenerate_kernel(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(K, U): a power-law spectrum λ_k = k^−1.5 (k = 1…30) whose ranks 4–9 are one
    six-fold eigenvalue and ranks 15–18 another, in a random orthonormal basis U."""
    values = np.arange(1, 31, dtype=float) ** -1.5
    values[3:9] = values[3]
    values[14:18] = values[14]
    basis, _ = np.linalg.qr(rng.standard_normal((30, 30)))
    return (basis * values) @ basis.T, basis


def test_pooled_power_is_each_eigenspace_s_share_of_the_target():
    rng = np.random.default_rng(11)
    K, basis = _degenerate_kernel(rng)
    y = rng.standard_normal(30)
    spectrum = fe.spectrum(K, y)
    pooled = nw.pooled_power(spectrum.eigenvalues, spectrum.power)
    # the reference: y projected on each eigenspace of the construction, shared equally
    expected = (basis.T @ y) ** 2
    for block in (slice(3, 9), slice(14, 18)):
        expected[block] = np.sum(expected[block]) / (block.stop - block.start)
    np.testing.assert_allclose(pooled, expected, rtol=1e-8)
    np.testing.assert_allclose(np.sum(pooled), y @ y, rtol=1e-12)
    # a spectrum without ties is left as it is
    distinct = fe.spectrum((basis * np.arange(1, 31.0) ** -1.5) @ basis.T, y)
    np.testing.assert_array_equal(
        nw.pooled_power(distinct.eigenvalues, distinct.power), distinct.power
    )


def test_task_power_exponent_does_not_depend_on_the_order_of_the_samples():
    rng = np.random.default_rng(12)
    K, _ = _degenerate_kernel(rng)
    y = rng.standard_normal(30)
    pooled, raw = [], []
    for _ in range(6):
        order = rng.permutation(30)
        spectrum = fe.spectrum(K[np.ix_(order, order)], y[order])
        pooled.append(nw.task_power_exponent(spectrum.eigenvalues, spectrum.power))
        raw.append(nw.power_law_exponent(spectrum.power))
    assert np.ptp(pooled) < 1e-9 * abs(pooled[0])
    assert np.ptp(raw) > 0.01  # without pooling the basis inside each eigenspace shows through


def test_a_rank_one_ntk_has_no_task_power_law_whatever_the_order():
    # Issue #19's case: a two-layer linear network on 1-d data has the NTK c·xxᵀ (rank one);
    # its other eigenvalues are rounding, and the power along them was split at random
    setting = nw.scenario(
        "line",
        n=20,
        activation="linear",
        width=30,
        init="parallel",
        scaling="mean_field",
        lr=0.02,
        steps=200,
        seed=4,
    )
    final = setting.train(records=2).final
    X, y = setting.data.X, setting.data.y[:, 0]
    rng = np.random.default_rng(4)
    found, raw = set(), set()
    for _ in range(4):
        order = rng.permutation(y.size)
        K = nw.ntk(final, X[order], layer_lrs=setting.layer_lrs)
        spectrum = fe.spectrum(K, y[order])
        found.add(nw.task_power_exponent(spectrum.eigenvalues, spectrum.power))
        raw.add(nw.power_law_exponent(spectrum.power))
        assert nw.power_law_exponent(spectrum.eigenvalues) is None
    assert found == {None}
    assert len(raw) > 1  # the unpooled fit read the rounding's basis: 1.49 to 1.97 here


def test_pooling_refuses_what_it_cannot_read():
    with pytest.raises(ValueError, match="largest first"):
        nw.pooled_power(np.array([1.0, 2.0]), np.array([1.0, 1.0]))
    with pytest.raises(ValueError, match="one length"):
        nw.pooled_power(np.array([2.0, 1.0]), np.array([1.0]))


def test_akgd_is_the_frozen_flow_of_the_rescaled_kernel():
    # aKGD (Shan & Bordelon Fig. 1A): the frozen flow with K₀ scaled by ‖K_T‖/‖K₀‖; the network
    # view computes it as the frozen flow at rescaled times — the same thing, checked here
    # against the flow of the scaled kernel itself, on training and test points
    samples, tests = 6, 4
    whole = _psd(samples + tests)
    K0, cross = whole[:samples, :samples], whole[samples:, :samples]
    K_final = _psd(samples) * 3.0
    rate = nw.akgd_rate(K0, K_final)
    assert rate == pytest.approx(np.sqrt(np.sum(K_final**2) / np.sum(K0**2)), rel=1e-13)
    f0, y = RNG.standard_normal(samples), RNG.standard_normal(samples)
    g0 = RNG.standard_normal(tests)
    t = np.array([0.0, 0.5, 3.0, 20.0])
    np.testing.assert_allclose(
        nw.kernel_flow(K0, f0, y, rate * t), nw.kernel_flow(rate * K0, f0, y, t), rtol=1e-12
    )
    moved = nw.kernel_flow_at(K0, cross, f0, g0, y, rate * t)
    scaled = nw.kernel_flow_at(rate * K0, rate * cross, f0, g0, y, t)
    np.testing.assert_allclose(moved, scaled, rtol=1e-10)
    with pytest.raises(ValueError, match="same points"):
        nw.akgd_rate(K0, _psd(samples + 1))
    with pytest.raises(ValueError, match="zero"):
        nw.akgd_rate(np.zeros((3, 3)), _psd(3))
