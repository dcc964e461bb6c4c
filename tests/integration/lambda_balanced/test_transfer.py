"""The transfer map (Dominé et al. Fig. 13): every column against the converged representation
of Thm C.3 computed here by hand, its generalisation loss, its click and its messages."""

import dataclasses

import numpy as np
import pytest

from app.core.clicks import ClickPoint
from app.views.lambda_balanced.transfer import VIEW
from solvers import lambda_balanced as lb
from tests.integration.lambda_balanced import drawn


def converged_similarity(lam: float) -> np.ndarray:
    """W₁ᵀW₁ of a full-rank network converged on the hierarchy: ½(−λI + (λ²I + 4ΣᵀΣ)^½)."""
    sigma_yx = lb.hierarchical_task()
    values, vectors = np.linalg.eigh(sigma_yx.T @ sigma_yx)
    return (vectors * 0.5 * (-lam + np.sqrt(lam**2 + 4 * values))) @ vectors.T


def test_each_column_is_the_read_out_of_the_converged_first_layer():
    chosen, result, figures = drawn(VIEW, spread=6.0, count=5, item="canary")
    assert list(result.lams) == [-6.0, -3.0, 0.0, 3.0, 6.0] and result.item == 2
    for lam, feature in zip(result.lams, result.feature, strict=True):
        similarity = converged_similarity(lam)
        np.testing.assert_allclose(feature, similarity[2] / similarity[2, 2], atol=1e-6)
    animals = np.array([1, 1, 0, 1, 0, 0, 0, 0], dtype=float)  # the canary's kingdom, untrained
    expected = 0.5 * np.sum((np.delete(result.feature, 2, axis=1) - np.delete(animals, 2)) ** 2, 1)
    np.testing.assert_allclose(result.generalisation, expected)
    heatmap, frame = figures["feature"]["data"]
    np.testing.assert_allclose(np.asarray(heatmap["z"]), result.feature.T)
    yaxis = figures["feature"]["layout"]["yaxis"]
    assert yaxis["ticktext"] == list(lb.HIERARCHY_ITEMS) and list(heatmap["y"]) == yaxis["tickvals"]
    # the frame encloses the rows of the canary's kingdom, the animals (rows 0 to 3)
    assert (min(frame["y"]), max(frame["y"])) == (-0.5, 3.5)
    unmarked = VIEW.panels[0].draw(dataclasses.replace(chosen, mark=False), result)
    assert len(unmarked["data"]) == 1


def test_a_column_opens_its_pre_training_in_the_trajectory_view():
    chosen, result, _ = drawn(VIEW)
    link = VIEW.clicks["feature"](chosen, ClickPoint(x=3.9, y=None, curve=0, index=None))
    assert link.view.key == "lambda-balanced"
    values = link.view.spec.with_overrides(link.values)
    assert (values.lam, values.task, values.seed, values.scale) == (4.0, "hierarchy", 3, 0.05)
    column = list(result.lams).index(4.0)
    run = link.view.compute(values)
    similarity = run.exact.rsm_in[-1]
    item = result.item
    np.testing.assert_allclose(result.feature[column], similarity[item] / similarity[item, item])
    assert VIEW.clicks["feature"](chosen, ClickPoint(x=None, y=None, curve=0, index=None)) is None


def test_a_start_that_stalls_at_lambda_zero_is_reported():
    chosen, result, _ = drawn(VIEW, seed=4)
    middle = list(result.lams).index(0.0)
    assert result.saddle_margin[middle] < 1e-12 and result.learnt[middle] > 1e-3
    messages = VIEW.notes(chosen, result)
    assert any("At λ = 0 the start lies on the stable manifold" in m for m in messages)
    assert any("have not learnt the hierarchy" in m for m in messages)


@pytest.mark.parametrize("item", ["goldfish", "daisy"])
def test_the_taught_item_keeps_the_feature_and_the_target_is_its_kingdom(item):
    _chosen, result, _ = drawn(VIEW, item=item, count=3)
    np.testing.assert_allclose(result.feature[:, result.item], 1.0)
    kingdom = slice(0, 4) if item == "goldfish" else slice(4, 8)
    assert result.truth.sum() == 4 and np.all(result.truth[kingdom] == 1)
