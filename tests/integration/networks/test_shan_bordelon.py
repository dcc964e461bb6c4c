"""Shan & Bordelon's additions to the network view — the aKGD baseline of their Fig. 1A and the
task-power exponent of Fig. 1E — against the engine's pieces called here by hand."""

import numpy as np
import pytest
import scipy.linalg

from app.views.networks import TRAJECTORY as VIEW
from app.views.networks import shan_bordelon_figures as sb
from solvers import networks as nw
from tests.integration.networks import drawn, streams

SMALL_DIGITS = {
    "data": "digits",
    "n": 16,
    "n_test": 24,
    "init": "gaussian",
    "scaling": "ntk",
    "width": 20,
    "lr": 0.4,
    "steps": 300,
    "seed": 2,
    "log_time": False,
}


def _network(chosen):
    data_rng, weight_rng = streams(chosen.seed)
    X, y, X_test, y_test = nw.digits((4, 9), chosen.n, n_test=chosen.n_test, seed=data_rng)
    widths = [64, chosen.width, 1]
    net = nw.gaussian_init(widths, sigma=chosen.sigma, seed=weight_rng, scaling="ntk")
    return X, y, X_test, y_test, net


def test_akgd_is_the_frozen_ntk_scaled_to_the_final_ntk_norm():
    chosen, result, figures = drawn(VIEW, **SMALL_DIGITS)
    X, y, X_test, y_test, net = _network(chosen)
    final = nw.train(net, X, y, lr=chosen.lr, steps=chosen.steps, record=[0, chosen.steps]).final
    rate = np.linalg.norm(nw.ntk(final, X)) / np.linalg.norm(nw.ntk(net, X))
    assert result.baseline.rescale == pytest.approx(rate, rel=1e-10)
    # the flow of rate·K₀ for the training and the test outputs, by the matrix exponential
    whole = nw.ntk(net, np.concatenate([X, X_test]))
    n = X.shape[0]
    system = np.zeros((whole.shape[0],) * 2)
    system[:, :n] = -rate * whole[:, :n] / n
    start = np.concatenate([nw.forward(net, X)[:, 0] - y[:, 0], nw.forward(net, X_test)[:, 0]])
    name = next(t["name"] for t in figures["loss"]["data"] if t["name"].startswith("aKGD"))
    drawn_loss = next(t for t in figures["loss"]["data"] if t["name"] == name)["y"]
    t = result.curves.t
    for index in (1, t.size // 3, t.size - 1):
        state = scipy.linalg.expm(system * t[index]) @ start
        assert result.baseline.rescaled_loss[index] == pytest.approx(
            0.5 * np.mean(state[:n] ** 2), rel=1e-7
        )
        expected_test = 0.5 * np.mean((state[n:] - y_test[:, 0]) ** 2)
        assert result.baseline.rescaled_test_loss[index] == pytest.approx(expected_test, rel=1e-7)
        assert drawn_loss[index] == pytest.approx(result.baseline.rescaled_loss[index])
    assert f"{rate:.2g}" in name
    tables = VIEW.tables(chosen, result)
    assert any(key.startswith("aKGD") for key in tables)


def test_the_spectrum_s_task_exponent_does_not_depend_on_the_order_of_the_samples():
    # issue #19's case: a two-layer linear network on 1-d data (rank-one NTK) read a = 1.07 or
    # 0.86 for the same data relabelled; the pooled fit has no power law to read there
    linear = {
        "data": "line",
        "activation": "linear",
        "width": 30,
        "init": "parallel",
        "scaling": "mean_field",
        "seed": 4,
    }
    _, result, figures = drawn(VIEW, **linear)
    b0, a0, b1, a1 = result.spectra.exponents
    assert all(np.isnan(value) for value in (b0, a0, b1, a1))
    names = [t["name"] for t in figures["spectrum"]["data"]]
    assert not any("a =" in name for name in names)  # no exponent is printed for it


# -- Fig. 1D–E: the spectra of the ten-output NTK ----------------------------------------------

FIG_1DE = next(p for p in sb.PRESETS if p.slug == "fig-1d-e-spectra-before-and-after")


def test_the_fig_1de_spectra_are_those_of_the_ten_output_ntk():
    chosen = VIEW.spec.with_overrides(FIG_1DE.values)
    result = VIEW.compute(chosen)
    data_rng, weight_rng = streams(chosen.seed)
    X, y, _, _ = nw.digits(nw.DIGIT_CLASSES["ten"], chosen.n, n_test=chosen.n_test, seed=data_rng)
    net = nw.gaussian_init(
        [64, chosen.width, 10], sigma=chosen.sigma, seed=weight_rng, scaling="ntk"
    )
    final = nw.train(net, X, y, lr=chosen.lr, steps=chosen.steps, record=[0, chosen.steps]).final
    spectra, halves = result.spectra, []
    for weights, eigenvalues, power in (
        (net, spectra.initial_eigenvalues, spectra.initial_power),
        (final, spectra.final_eigenvalues, spectra.final_power),
    ):
        kernel = nw.ntk(weights, X)
        assert kernel.shape == (10 * chosen.n,) * 2  # one row per image and output
        values, vectors = np.linalg.eigh(kernel)
        np.testing.assert_allclose(eigenvalues, values[::-1], rtol=1e-8, atol=1e-10 * values[-1])
        expected = (vectors.T @ y.reshape(-1))[::-1] ** 2  # the flattened one-hot target
        np.testing.assert_allclose(power, expected, rtol=1e-6, atol=1e-9 * np.sum(expected))
        # the claim's count: how many top eigenvectors hold half of ‖y‖²
        halves.append(int(np.searchsorted(np.cumsum(expected) / np.sum(expected), 0.5) + 1))
    found = FIG_1DE.claim.evaluate(chosen, result).found
    assert f"top {halves[0]} of the {10 * chosen.n} eigenvectors" in found
    assert f"top {halves[1]} after" in found


@pytest.mark.parametrize(
    "lazier",
    [
        {"width": 200},  # the kernel moves about a third as far: the exponents hardly change
        {"sigma": 2.0, "lr": 0.025},  # large initial outputs: the kernel moves off the task
    ],
)
def test_the_fig_1de_claim_fails_where_the_kernel_does_not_learn_the_task(lazier):
    chosen = VIEW.spec.with_overrides(FIG_1DE.values)
    assert FIG_1DE.claim.evaluate(chosen, VIEW.compute(chosen)).holds
    other = VIEW.spec.with_overrides(dict(FIG_1DE.values) | lazier)
    assert not FIG_1DE.claim.evaluate(other, VIEW.compute(other)).holds
