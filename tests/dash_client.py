"""Drive a Dash app's callbacks over HTTP (Flask test client or a live server) by building
``/_dash-update-component`` requests from the app's own ``/_dash-dependencies`` listing."""

from __future__ import annotations

from typing import Any


def split_outputs(output: str) -> list[dict]:
    """'..a.x...b.y..' (multi-output) or 'a.x' → [{"id": "a", "property": "x"}, …]."""
    parts = output.strip(".").split("...") if output.startswith("..") else [output]
    out = []
    for part in parts:
        ident, _, prop = part.rpartition(".")
        out.append({"id": ident, "property": prop.split("@")[0]})
    return out


def payload(dependency: dict, values: dict[str, Any] | None = None, fill: Any = None) -> dict:
    """A request body for one callback: inputs/states from ``values`` ("id.property" → value),
    everything else ``fill``."""
    values = values or {}

    def item(entry):
        key = f"{entry['id']}.{entry['property']}"
        return {"id": entry["id"], "property": entry["property"], "value": values.get(key, fill)}

    outputs = split_outputs(dependency["output"])
    return {
        "output": dependency["output"],
        "outputs": outputs
        if len(outputs) > 1 or dependency["output"].startswith("..")
        else outputs[0],
        "inputs": [item(entry) for entry in dependency["inputs"]],
        "state": [item(entry) for entry in dependency.get("state", [])],
        "changedPropIds": [
            f"{entry['id']}.{entry['property']}" for entry in dependency["inputs"][:1]
        ],
    }


def server_callbacks(dependencies: list[dict]) -> list[dict]:
    """The callbacks that run on the server (clientside ones never reach it)."""
    return [d for d in dependencies if not d.get("clientside_function")]
