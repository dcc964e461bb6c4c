"""A run continued from a recorded state (``train(..., start=, start_step=)``): its records are
those of one uninterrupted run — S(0, t), the pattern and parameter distances measured from the
true start, the steps counted from it — in the compiled loop and in numpy."""

import numpy as np
import pytest

from solvers import networks as nw
from solvers.networks import _compiled

FIELDS = nw.RECORDED  # every diagnostic a run records


def _setting():
    X, y, X_test, y_test = nw.teacher_student(2, 3, 20, n_test=30, seed=1)
    net = nw.kunin_init(
        2, 50, tau=np.array([0.1, 0.5, 1.0]), delta=np.array([0.5, -0.5, 0.0]), seed=1
    )
    # the first cell's rate is far beyond stability: it diverges within a few steps
    options = dict(lr=np.array([1.0, 0.04, 0.01]), X_test=X_test, y_test=y_test)
    return net, X, y, options


def _use(monkeypatch, loop: str) -> None:
    """Train in the compiled loop, or in numpy only (both rules that choose the loop off)."""
    if loop == "numpy":
        monkeypatch.setattr(_compiled, "MAX_STEP_FLOPS", 0.0)
        monkeypatch.setattr(_compiled, "FUSED_MAX_INPUTS", 0)
    elif not _compiled.AVAILABLE:
        pytest.skip("numba is not installed")


@pytest.mark.parametrize("loop", ["compiled", "numpy"])
def test_a_continued_run_records_what_one_run_records(monkeypatch, loop):
    _use(monkeypatch, loop)
    net, X, y, options = _setting()
    whole = nw.train(net, X, y, steps=300, record=[0, 50, 120, 200, 300], **options)
    first = nw.train(net, X, y, steps=120, record=[0, 50, 120], **options)
    rest = nw.train(
        first.final, X, y, steps=180, record=[120, 200, 300], start=net, start_step=120, **options
    )
    np.testing.assert_array_equal(rest.steps, [120, 200, 300])
    np.testing.assert_allclose(rest.t, whole.t[:, 2:])
    # its first record is measured from θ₀ (a fresh run's first S is 0)
    assert rest.kernel_distance[1:, 0].min() > 0 and rest.parameter_distance[1:, 0].min() > 0
    for name in FIELDS:  # the same steps from the same states: equal to rounding
        np.testing.assert_allclose(
            getattr(rest, name), getattr(whole, name)[:, 2:], rtol=1e-12, atol=1e-15, err_msg=name
        )
    for W_rest, W_whole in zip(rest.final.weights, whole.final.weights, strict=True):
        np.testing.assert_array_equal(W_rest, W_whole)
    # a cell that diverged before diverges again at the first step of the continuation
    assert whole.diverged_at[0] == first.diverged_at[0] > 0
    np.testing.assert_array_equal(rest.diverged_at, [121, -1, -1])


def test_a_run_continued_without_its_start_measures_from_where_it_resumed():
    """The check that ``start`` matters: without it the distances restart at 0."""
    net, X, y, options = _setting()
    first = nw.train(net, X, y, steps=120, record=[0, 120], **options)
    resumed = nw.train(first.final, X, y, steps=60, record=[0, 60], **options)
    continued = nw.train(
        first.final, X, y, steps=60, record=[120, 180], start=net, start_step=120, **options
    )
    assert resumed.parameter_distance[1:, 0].max() == 0.0
    assert np.all(continued.parameter_distance[1:, 0] > resumed.parameter_distance[1:, 1])


def test_the_default_record_of_a_continued_run_counts_from_the_true_start():
    net, X, y, options = _setting()
    first = nw.train(net, X, y, steps=100, record=[0, 100], **options)
    rest = nw.train(first.final, X, y, steps=400, start=net, start_step=100, **options)
    assert rest.steps[0] == 100 and rest.steps[-1] == 500


@pytest.mark.parametrize(
    ("start", "options", "message"),
    [
        (None, dict(start_step=10), "pass start"),
        ("text", dict(start_step=10), "start must be a Network"),
        ("wider", dict(start_step=10), "same networks as net"),
        ("other gamma", dict(start_step=10), "same output scale"),
        ("overflowing", dict(start_step=10), "loss of start overflows"),
        ("same", dict(start_step=-1), "start_step"),
        ("same", dict(start_step=10, record=[0, 20]), "start_step..start_step"),
        ("same", dict(start_step=10, record=[10, 71]), "10..70"),
    ],
)
def test_a_continuation_that_does_not_fit_its_start_is_refused(start, options, message):
    net, X, y, _ = _setting()
    taus = np.array([0.1, 0.5, 1.0])
    given = {
        None: None,
        "text": "θ₀",
        "wider": nw.kunin_init(2, 52, tau=taus, delta=0.0, seed=1),
        "other gamma": nw.Network(net.weights, net.activation, 2.0),
        "overflowing": nw.Network(tuple(1e200 * W for W in net.weights), net.activation, 1.0),
        "same": net,
    }[start]
    with pytest.raises(ValueError, match=message):
        nw.train(net, X, y, lr=0.01, steps=60, start=given, **options)


# -- a long run in stages (nw.train_in_stages) -------------------------------------------------


@pytest.mark.parametrize("loop", ["compiled", "numpy"])
def test_a_run_in_stages_records_what_one_run_records(monkeypatch, loop):
    """300 steps in stages of 70 (the last 20), recorded at steps that fall inside stages and
    on their ends: every record, the weights and the divergence of one call of 300 steps."""
    _use(monkeypatch, loop)
    net, X, y, options = _setting()
    record = [0, 10, 70, 100, 250, 300]
    whole = nw.train(net, X, y, steps=300, record=record, **options)
    heard = []
    staged = nw.train_in_stages(
        net, X, y, steps=300, stage_steps=70, record=record, progress=heard.append, **options
    )
    np.testing.assert_array_equal(staged.steps, record)
    np.testing.assert_allclose(staged.t, whole.t, rtol=1e-15)
    for name in (*FIELDS, "zeta"):
        np.testing.assert_allclose(
            getattr(staged, name), getattr(whole, name), rtol=1e-12, atol=1e-15, err_msg=name
        )
    for W_staged, W_whole in zip(staged.final.weights, whole.final.weights, strict=True):
        np.testing.assert_array_equal(W_staged, W_whole)
    np.testing.assert_array_equal(staged.diverged_at, whole.diverged_at)
    assert whole.diverged_at[0] > 0  # (the first cell diverged in the first stage)
    assert heard == sorted(heard) and heard[-1] == 300 and {70, 140, 210, 280} <= set(heard)


def test_a_run_in_one_stage_is_one_call_and_bad_stages_are_refused():
    net, X, y, options = _setting()
    one = nw.train(net, X, y, steps=50, record=[0, 50], **options)
    staged = nw.train_in_stages(net, X, y, steps=50, stage_steps=50, record=[0, 50], **options)
    np.testing.assert_array_equal(staged.loss, one.loss)
    refusals = {
        "stage_steps must be": dict(stage_steps=0),
        "record must lie within": dict(record=[0, 60]),
        "non-empty 1-d sequence": dict(record=[]),
        "keeps no start": dict(start=net),
    }
    for message, changed in refusals.items():
        arguments = dict(steps=50, stage_steps=20, record=[0, 50]) | changed
        with pytest.raises(ValueError, match=message):
            nw.train_in_stages(net, X, y, **arguments, **options)
