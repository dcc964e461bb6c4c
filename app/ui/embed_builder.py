"""The embed builder: a dialog of every view that writes the HTML a course page needs.

An instructor picks the controls and plots an embed shows, how the other controls appear, the
layout and the theme; a preview shows the embed at a chosen width and measures the height it
needs; the dialog writes the embed's link and an ``<iframe>`` snippet with a ``title``, that
height and the script that resizes the frame (docs/embedding.md). The choices are plain form
inputs read by ``assets/app.js`` (nothing goes to the server until the preview loads): the
flags are those of :mod:`app.core.embedding`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dash import dcc, html

from ..core.embedding import LAYOUTS, PRESET, THEMES

__all__ = ["PREVIEW_WIDTHS", "builder"]

#: widths the preview can take (px): a phone, a course page's text column, a wide page
PREVIEW_WIDTHS = (390, 720, 1100)

_LAYOUT_LABELS = {
    "full": "Full: controls in a sidebar",
    "compact": "Compact: controls in a row above the plots",
    "beside": "Compact: controls in a column beside the plots",
}
_OTHERS_LABELS = {"0": "hidden", "1": "shown, read-only"}
_THEME_LABELS = {"auto": "the reader's system", "light": "light", "dark": "dark"}


def _choices(
    flag: str, legend: str, options: Sequence[tuple[str, Any]], *, multiple: bool, value: Any
) -> html.Fieldset:
    """One question of the form: checkboxes (``multiple``) or radio buttons, marked with the
    flag they set (``data-flag``)."""
    widget = dcc.Checklist if multiple else dcc.RadioItems
    items = [{"label": label, "value": name} for name, label in options]
    extra = []
    if multiple:  # a long list is quicker to set from one end
        extra = [
            html.Button("all", type="button", className="small-button", **{"data-all": "1"}),
            html.Button("none", type="button", className="small-button", **{"data-all": "0"}),
        ]
    return html.Fieldset(
        [html.Legend(legend), *extra, widget(options=items, value=value, className="builder-list")],
        className="builder-question",
        **{"data-flag": flag},
    )


def _form(view: Any) -> html.Div:
    """The questions: what to show (ticked: all of it, as ``embed=1`` alone), then one
    choice each of how (the first option: the flag's default)."""
    controls = [(PRESET, "the presets menu")]
    controls += [(spec.name, spec.label) for spec in view.spec.fields]
    plots = [(panel.graph, panel.title) for panel in view.panels]
    widths = {str(w): f"{w} px" for w in PREVIEW_WIDTHS}
    ones = [
        ("readonly", "The other controls", _OTHERS_LABELS, "0"),
        ("layout", "Layout", {o: _LAYOUT_LABELS[o] for o in LAYOUTS}, "full"),
        ("theme", "Theme", {o: _THEME_LABELS[o] for o in THEMES}, "auto"),
        ("width", "Preview width", widths, str(PREVIEW_WIDTHS[1])),
    ]
    questions = [
        _choices("controls", "Controls to show", controls, multiple=True, value=[*dict(controls)]),
        _choices("plots", "Plots to show", plots, multiple=True, value=[*dict(plots)]),
        *(
            _choices(flag, legend, list(options.items()), multiple=False, value=first)
            for flag, legend, options, first in ones
        ),
    ]
    return html.Div(questions, className="builder-form")


def _output(key: str) -> html.Div:
    """The embed's link and its HTML, each with a copy button (assets/app.js fills them)."""
    return html.Div(
        [
            html.Label("The embed's link", htmlFor=f"embed-link-{key}"),
            html.Div(
                [
                    html.Textarea(
                        id=f"embed-link-{key}", readOnly=True, rows=2, className="builder-link"
                    ),
                    html.Button(
                        "Copy link",
                        type="button",
                        className="small-button",
                        **{"data-copy": "link"},
                    ),
                ],
                className="builder-row",
            ),
            html.Label("HTML for the course page", htmlFor=f"embed-html-{key}"),
            html.Div(
                [
                    html.Textarea(
                        id=f"embed-html-{key}", readOnly=True, rows=4, className="builder-html"
                    ),
                    html.Button(
                        "Copy HTML",
                        type="button",
                        className="small-button",
                        **{"data-copy": "html"},
                    ),
                ],
                className="builder-row",
            ),
            html.P("Measuring the height in the preview…", className="builder-note", role="status"),
        ],
        className="builder-output",
    )


def builder(view: Any) -> html.Dialog:
    """The embed builder of ``view`` (opened by the share bar's "Embed…" button)."""
    key = view.key
    title = f"embed-builder-title-{key}"
    return html.Dialog(
        [
            html.Div(
                [
                    html.H2(f"Embed “{view.nav_title}” in a course page", id=title),
                    html.Button(
                        "Close", type="button", className="small-button", **{"data-close": "1"}
                    ),
                ],
                className="builder-head",
            ),
            html.Div(
                [
                    _form(view),
                    html.Div(
                        [
                            _output(key),
                            html.H3("Preview", className="builder-preview-title"),
                            html.Div(
                                html.Iframe(
                                    title="Preview of the embed", className="builder-frame"
                                ),
                                className="builder-preview",
                            ),
                        ],
                        className="builder-result",
                    ),
                ],
                className="builder-body",
            ),
        ],
        id=f"embed-builder-{key}",
        className="embed-builder",
        **{"aria-labelledby": title, "data-title": f"Lazy vs rich: {view.title}"},
    )
