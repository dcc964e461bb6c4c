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


def main_callback(dependencies: list[dict], view) -> dict:
    """The dependency of a view's main callback (controls → figures, summary, …)."""
    return next(d for d in dependencies if f"{view.key}-summary.children" in d["output"])


def control_values(view, controls) -> dict[str, Any]:
    """ "id.value" → what the page's controls hold for a controls object."""
    raw = view.spec.to_controls(controls)
    return {
        f"{view.key}-{name}.value": value for name, value in zip(view.spec.names, raw, strict=True)
    }


def view_request(
    dependencies: list[dict], view, controls=None, page: Any = None, drawn=None, seq: int = 1
) -> dict:
    """A request body for a view's main callback, as the page's gate sends it with ``controls``
    (the defaults if None) on a page opened without embed; ``drawn``: the controls the page
    shows now (None on a first load)."""
    controls = view.spec.defaults() if controls is None else controls
    page = {"embed": False, "messages": []} if page is None else page
    shown = None if drawn is None else {"values": view.spec.to_controls(drawn), "frame": 0}
    request = {"seq": seq, "frame": 0, "drawn": shown}
    values = control_values(view, controls)
    values |= {f"{view.key}-request.data": request, f"{view.key}-page.data": page}
    return payload(main_callback(dependencies, view), values)
