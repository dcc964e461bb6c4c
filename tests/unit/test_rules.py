"""Each rule once: the saddle margin, the gradient-descent step cap and its message, the network
engine's size guard and the records of a training run are defined in the engine, and the
dashboard imports them instead of writing its own copy."""

from __future__ import annotations

import ast
import dataclasses
import pathlib

import numpy as np
import pytest

from solvers import networks as nw
from solvers import step_budget
from solvers.metrics import SADDLE_MARGIN, on_saddle

ROOT = pathlib.Path(__file__).resolve().parents[2]
APP = sorted((ROOT / "app").rglob("*.py"))


def test_on_saddle_is_one_threshold_for_numbers_and_arrays():
    assert on_saddle(0.0) and on_saddle(SADDLE_MARGIN / 2) and not on_saddle(SADDLE_MARGIN * 2)
    grid = on_saddle(np.array([[0.0, 1e-9], [1e-7, 1.0]]))
    assert grid.tolist() == [[True, True], [False, False]]


def test_no_view_compares_a_saddle_margin_with_a_number_of_its_own():
    found = []
    for path in APP:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and "saddle_margin" in ast.unparse(node):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"use solvers.metrics.on_saddle: {found}"


def test_the_step_budget_reaches_the_horizon_or_says_why_not():
    enough = step_budget(20.0, 0.05, 20_000)
    assert (enough.wanted, enough.steps, enough.capped) == (400, 400, False)
    assert enough.note(0.05) is None
    # 0.3 / 0.1 is 2.9999999999999996 in floating point: three steps, not four
    assert step_budget(0.3, 0.1, 10).wanted == 3
    capped = step_budget(1000.0, 0.01, 2_000)
    assert (capped.steps, capped.capped) == (2_000, True)
    assert capped.note(0.01, unit=" t_c", why=" here") == (
        "Gradient descent is limited to 2,000 steps here: with step size 0.01 t_c it reaches "
        "t = 20 t_c, not the horizon."
    )
    with pytest.raises(ValueError, match="lr"):
        step_budget(1.0, 0.0, 10)


def test_no_view_writes_the_step_cap_message_itself():
    found = [
        str(path.relative_to(ROOT))
        for path in APP
        if "Gradient descent is limited to" in path.read_text()
    ]
    assert not found, f"use solvers.step_budget(...).note: {found}"


def test_the_size_guard_is_one_message_for_every_forward_pass():
    rng = np.random.default_rng(0)
    net = nw.Network((rng.normal(size=(2048, 2)), rng.normal(size=(1, 2048))), "relu", 1.0)
    X = rng.normal(size=(2000, 2))
    batch = nw.stack([net] * 8)
    messages = []
    for call in (nw.forward, nw.active_units):
        with pytest.raises(ValueError) as raised:
            call(batch, X)
        messages.append(str(raised.value))
    assert messages[0] == messages[1] and "at most 16,777,216" in messages[0]


def test_the_networks_view_keeps_the_engines_records():
    from app.views.networks.map import RECORDS
    from app.views.networks.results import Curves

    assert {f.name for f in dataclasses.fields(Curves)} == {"t", "steps", *nw.RECORDED}
    assert set(RECORDS) <= set(nw.RECORDED)
    assert set(nw.RECORDED) < {f.name for f in dataclasses.fields(nw.Training)}
