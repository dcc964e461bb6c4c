"""The callbacks that run in the browser (``assets/app.js``), registered for one view.

They use Dash's documented extension points only — clientside callbacks, callbacks without
outputs, ``dash_clientside.set_props`` — never the format of Dash's responses:

* each number box beside a slider: a typed value is committed on Enter or when the box is
  left, clamped to the control's range (the box, the slider and a note under the control say
  what was used), and the box follows the slider;
* the answers of the view's main callback (its ``answered``, ``link`` and ``job-done`` stores)
  reach the page's gate, the address bar and — where the server used other values than the
  controls asked for — the controls themselves.
"""

from __future__ import annotations

from typing import Any

from dash import ClientsideFunction, Dash, Input, Output

from ..ui import components

__all__ = ["register"]


def register(view: Any, app: Dash) -> None:
    """The browser-side callbacks of ``view`` on ``app``."""
    for spec in view.spec.fields:
        if spec.kind in ("float", "int"):
            _register_box(app, components.control_id(view.key, spec.name))
    key = view.key
    app.clientside_callback(
        ClientsideFunction("lazyRich", "answered"),
        Input(f"{key}-answered", "data"),
        Input(f"{key}-link", "data"),
        prevent_initial_call=True,
    )
    # apart: Dash holds a callback back while one of its inputs is a running job's output
    app.clientside_callback(
        ClientsideFunction("lazyRich", "jobDone"),
        Input(f"{key}-job-done", "data"),
        prevent_initial_call=True,
    )


def _register_box(app: Dash, ident: str) -> None:
    """Slider ⇄ box: the slider's moves write the box; Enter or leaving the box writes the
    slider (the preset callback writes the slider too, hence the duplicate output)."""
    box = components.box_id(ident)
    app.clientside_callback(
        ClientsideFunction("lazyRich", "box"),
        Output(ident, "value", allow_duplicate=True),
        Output(box, "value"),
        Output(f"{ident}-note", "children"),
        Input(ident, "value"),
        Input(box, "value"),  # debounced: on Enter or when the box is left
        prevent_initial_call=True,
    )
