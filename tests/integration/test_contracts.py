"""The harness's named contracts: a control may not take a name the page uses for its own
parts, every id of a view's page is a control's or a reserved one, and tests read the main
callback's answer by name (never by position)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.core.state import number
from app.core.view import RESERVED_NAMES, View
from app.views import VIEWS

TESTS = Path(__file__).resolve().parents[1]


def _view_with(name: str) -> View:
    fields = {name: number("a slider", 1.0, 0.0, 2.0)}
    controls = dataclass(frozen=True)(
        type("Controls", (), {"__annotations__": {name: float}, **fields})
    )
    return View(
        key="probe",
        path="/probe",
        title="Probe",
        nav_title="Probe",
        summary="",
        intro="",
        controls=controls,
        compute=lambda c: None,
        result_type=object,
        panels=(),
        facts=lambda c, r: [],
        tables=lambda c, r: {},
    )


@pytest.mark.parametrize("name", ["frame", "messages", "job", "preset", "embed"])
def test_a_control_named_like_a_part_of_the_page_is_refused_at_registration(name):
    with pytest.raises(ValueError, match=name):
        _view_with(name)
    assert list(_view_with("steepness").spec.names) == ["steepness"]


def _ids(component) -> list[str]:
    found = []
    ident = getattr(component, "id", None)
    if isinstance(ident, str):
        found.append(ident)
    children = getattr(component, "children", None)
    for child in children if isinstance(children, list | tuple) else [children]:
        if child is not None and hasattr(child, "to_plotly_json"):
            found.extend(_ids(child))
    return found


@pytest.mark.parametrize("view", VIEWS, ids=[view.key for view in VIEWS])
def test_every_id_of_a_view_s_page_is_a_control_s_or_a_reserved_one(view):
    """The reserved names are the page's own: a harness id not among them would let a future
    control collide with it unnoticed."""
    names = set(view.spec.names)
    assert not names & RESERVED_NAMES
    for ident in _ids(view.layout("")):
        if not ident.startswith(f"{view.key}-"):
            continue
        rest = ident.removeprefix(f"{view.key}-")
        control = next((n for n in names if rest == n or rest.startswith(f"{n}-")), None)
        assert control is not None or rest.split("-")[0] in RESERVED_NAMES, ident


#: reading the main callback's answer by position: answer[len(view.panels) + 3], reply[-2]
POSITIONAL = re.compile(
    r"\[\s*:?\s*len\(\s*[\w.]*panels\s*\)"  # answer[len(view.panels) + 3], answer[: len(…)]
    r"|\b(?:answer|reply)\[-?\d"  # answer[-2], reply[0]
    r"|\[-\d\]\[\"stale"  # changed[-2]["stale"]
)


def test_no_test_reads_an_answer_by_position():
    offenders = [
        f"{path.relative_to(TESTS)}:{number}"
        for path in TESTS.rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if POSITIONAL.search(line) and path.name != "test_contracts.py"
    ]
    assert not offenders, offenders
