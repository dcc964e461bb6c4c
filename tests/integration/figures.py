"""Reading the figures a view renders."""

import base64

import numpy as np

from app.ui.notation import typeset


def trace(figure: dict, name: str) -> dict:
    """The one trace called ``name`` (as the view names it, or as the page shows it typeset)."""
    matches = [t for t in figure["data"] if t.get("name") in (name, typeset(name))]
    assert len(matches) == 1, [t.get("name") for t in figure["data"]]
    return matches[0]


def unpacked(value) -> np.ndarray:
    """An array as the browser receives it (plotly.js's typed array: dtype, base64 bytes and,
    for a matrix, its shape), or as it is."""
    if not isinstance(value, dict) or "bdata" not in value:
        return np.asarray(value, dtype=float)
    array = np.frombuffer(base64.b64decode(value["bdata"]), np.dtype(value["dtype"]))
    if "shape" in value:
        array = array.reshape([int(n) for n in str(value["shape"]).split(",")])
    return array
