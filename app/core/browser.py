"""The callbacks that run in the browser (``assets/app.js``), registered for one view: each
number box beside a slider. A typed value is committed on Enter or when the box is left,
clamped to the control's range (the box, the slider and a note under the control say what was
used), and the box follows the slider.
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
