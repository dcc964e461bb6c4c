"""Hand-written nasties against every server callback: the answer is never a 5xx."""

import json

import pytest

from tests.dash_client import payload, server_callbacks
from tests.hostile import NASTIES, REPRESENTATIVES


def _status(client, body) -> int:
    data = (
        body if isinstance(body, (str, bytes)) else json.dumps(body)
    )  # NaN/Infinity literals kept
    return client.post(
        "/_dash-update-component", data=data, content_type="application/json"
    ).status_code


@pytest.mark.slow
@pytest.mark.parametrize("nasty", REPRESENTATIVES, ids=[repr(n)[:24] for n in REPRESENTATIVES])
def test_every_callback_input_survives(client, dependencies, nasty):
    for dependency in server_callbacks(dependencies):
        for entry in dependency["inputs"] + dependency.get("state", []):
            key = f"{entry['id']}.{entry['property']}"
            status = _status(client, payload(dependency, {key: nasty}))
            assert status < 500, (dependency["output"][:60], key, status)


@pytest.mark.parametrize("nasty", NASTIES, ids=[repr(n)[:24] for n in NASTIES])
def test_every_callback_survives_all_inputs_at_once(client, dependencies, nasty):
    for dependency in server_callbacks(dependencies):
        status = _status(client, payload(dependency, fill=nasty))
        assert status < 500, (dependency["output"][:60], "all inputs", status)


MALFORMED = [
    "",
    "{",
    "null",
    "[]",
    '"text"',
    "{}",
    '{"output": 1}',
    '{"output": "x.y", "inputs": "nope"}',
    '{"output": "page.children", "inputs": [{"id": "url"}]}',
    '{"output": "..a.b..", "outputs": [], "inputs": [], "changedPropIds": []}',
    '{"output": "page.children", "outputs": {"id": "page", "property": "children"}, '
    '"inputs": [{"id": "url", "property": "pathname", "value": "/single-neuron"}], "state": 7}',
    b"\xff\xfe\x00garbage",
    json.dumps({"output": "x" * 100_000, "inputs": []}),
]


@pytest.mark.parametrize("body", MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_requests_are_refused_not_crashed(client, body):
    assert _status(client, body) < 500


def test_server_still_serves_after_the_barrage(client):
    assert client.get("/").status_code == 200
    assert client.get("/_dash-layout").status_code == 200
