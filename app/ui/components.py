"""Building blocks shared by the views: controls made from state fields, explanations with
formulas, the animation bar, downloads and the page shell."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dash import dcc, html

from ..core.state import Field
from .notation import decade, typeset_children
from .prose import Prose, to_html

__all__ = [
    "animation_bar",
    "control",
    "download_bar",
    "explanation",
    "graph_card",
    "message_box",
    "page_shell",
    "share_bar",
]

#: every plot's toolbar: no upload to a third-party cloud ("Share chart…", plotly.js's default);
#: sharing is the page's link (:func:`share_bar`)
GRAPH_CONFIG = {
    "displaylogo": False,
    "responsive": True,
    "showSendToCloud": False,
    "showEditInChartStudio": False,
    "toImageButtonOptions": {"format": "png", "scale": 2},
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d", "sendChartToCloud"],
}


def control_id(view: str, name: str) -> str:
    return f"{view}-{name}"


#: the most decades a log slider labels (each decade keeps its tick): more labels than this
#: touch one another in the controls' column ("10⁻⁴0.0010.01")
MAX_DECADE_LABELS = 6


def _decade_marks(low: float, high: float) -> dict:
    """A tick at every decade of [10^low, 10^high]; labelled every decade, or where there are
    more than :data:`MAX_DECADE_LABELS`, every k-th (1 among them: 10⁻⁶, 10⁻³, 1, 10³, 10⁶)."""
    exponents = range(math.ceil(low), math.floor(high) + 1)
    every = math.ceil(len(exponents) / MAX_DECADE_LABELS)
    return {e: decade(e) if e % every == 0 else "" for e in exponents}


def _linear_marks(spec: Field) -> dict:
    low, high = spec.low, spec.high
    marks = {low: f"{low:g}", high: f"{high:g}"}
    if low < 0 < high:
        marks[0] = "0"
    return marks


#: a log slider's step: a tenth of a decade (an arrow press multiplies the value by 1.26;
#: Page Up and Page Down move a whole decade)
LOG_STEP = 0.1
#: a log slider's tooltip (assets/app.js): 10 to its position, a whole number's rounded
_POW10 = {False: "lazyRichPow10", True: "lazyRichPow10Whole"}


def _slider(ident: str, spec: Field, value: Any, readonly: bool = False):
    """A slider without Dash's own number box (it left the page unchanged for a typed value
    out of range, and came before the slider in the tab order): :func:`_box` follows it."""
    if spec.log:  # the slider works on log10 of the value
        low, high = math.log10(spec.low), math.log10(spec.high)
        return dcc.Slider(
            id=ident,
            disabled=readonly,
            min=low,
            max=high,
            step=LOG_STEP,
            value=spec.to_control(value),
            marks=_decade_marks(low, high),
            updatemode="drag",
            allow_direct_input=False,
            tooltip={"placement": "bottom", "transform": _POW10[spec.kind == "int"]},
            className="control-slider",
        )
    step = spec.step if spec.step is not None else (1 if spec.kind == "int" else None)
    return dcc.Slider(
        id=ident,
        disabled=readonly,
        min=spec.low,
        max=spec.high,
        step=step,
        value=value,
        marks=_linear_marks(spec),
        updatemode="drag",
        allow_direct_input=False,
        className="control-slider",
    )


def box_id(ident: str) -> str:
    """The number box of the slider ``ident``."""
    return f"{ident}-box"


def _box(ident: str, spec: Field, value: Any, readonly: bool = False) -> dcc.Input:
    """The value of a slider, to read and to type (in the value's own units, also for sliders
    over decades); committed on Enter or when left (app/core/browser.py). Read-only in an
    embed that shows the control without letting it move (it still reads out its value)."""
    return dcc.Input(
        id=box_id(ident),
        readOnly=readonly,
        type="text",
        inputMode="decimal",
        value=box_text(spec, value),
        debounce=True,
        autoComplete="off",
        className="control-box",  # named by its label (htmlFor), and by assets/app.js
    )


def _choices(ident: str, spec: Field, value: Any, readonly: bool = False):
    labels = spec.choice_labels or tuple(map(str, spec.choices))
    options = [
        {"label": html.Span(typeset_children(t)), "value": c, "disabled": readonly}
        for c, t in zip(spec.choices, labels, strict=True)
    ]
    return dcc.RadioItems(
        id=ident, options=options, value=value, inline=True, className="control-radio"
    )


def control(view: str, spec: Field, value: Any, *, readonly: bool = False) -> html.Div:
    """A labelled control for one field, showing ``value``: a slider and its number box, a
    choice or a switch; ``readonly``: shown but not movable by the reader (an embed that
    keeps the control's value in sight; the course page may still set it).

    Dash's sliders cannot take ARIA attributes, so the control's box carries what
    ``assets/app.js`` gives the slider's thumb: the label (``aria-labelledby``) and, for
    sliders over decades, the value itself as ``aria-valuetext`` (``data-scale``); and what
    the number box needs to clamp a typed value (``data-low``, ``data-high``, ``data-kind``,
    ``data-name``). A note under a number (``-note``) says what a typed value became."""
    ident = control_id(view, spec.name)
    label_id = f"{ident}-label"
    numeric = spec.kind in ("float", "int")
    if numeric:
        widget = html.Div(
            [_slider(ident, spec, value, readonly), _box(ident, spec, value, readonly)],
            className="slider-row",
        )
    elif spec.kind == "choice":
        widget = _choices(ident, spec, value, readonly)
    else:
        option = {"label": html.Span(typeset_children(spec.label)), "value": "on"}
        widget = dcc.Checklist(
            id=ident,
            options=[option | {"disabled": readonly}],
            value=spec.to_control(value),
            className="control-check",
        )
    label = []
    if spec.kind != "bool":  # a checkbox is named by its own option
        label = [
            html.Label(
                typeset_children(spec.label),
                id=label_id,
                htmlFor=box_id(ident) if numeric else ident,
                className="control-label",
            )
        ]
    attributes = {"data-label": label_id} if spec.kind != "bool" else {}
    # what a course page's message may set, by name, even before the slider is drawn (app.js)
    attributes |= {"data-field": spec.kind, "data-control": spec.name}
    if spec.kind == "choice":
        attributes |= {"role": "radiogroup", "aria-labelledby": label_id}
        attributes["data-choices"] = json.dumps(list(spec.choices))
    if spec.log:
        attributes["data-scale"] = "log"
    note = []
    if numeric:
        attributes |= {
            "data-low": f"{spec.low:.10g}",
            "data-high": f"{spec.high:.10g}",
            "data-kind": spec.kind,
            "data-name": spec.label,
        }
        note = [html.Div(id=f"{ident}-note", className="control-note", role="status")]
    if readonly:
        attributes["data-readonly"] = "1"
    return html.Div(
        [*label, widget, *note], className="control", title=spec.help or None, **attributes
    )


def box_text(spec: Field, value: Any) -> str:
    """A number box's text (as ``assets/app.js`` writes it): whole numbers as they are, values
    over decades to four digits (as their tooltip), others as the link writes them."""
    if spec.kind == "int":
        return str(int(value))
    if spec.log:
        return format_value(value)
    return f"{value:.10g}"


def format_value(value: float) -> str:
    """The same short format as the browser's tooltips and boxes (assets/app.js)."""
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-3 or magnitude >= 1e4):
        return f"{value:.2e}"
    return f"{float(f'{value:.4g}'):g}"


def explanation(markdown: str) -> Prose:
    """Markdown with TeX formulas, rendered on the server (app/ui/prose.py)."""
    return Prose(to_html(markdown), className="explanation")


#: a plot before its first figure (a map's first background job): an empty card, not plotly's
#: default white axes, which stood out in the dark theme
PLACEHOLDER = {
    "data": [],
    "layout": {
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "xaxis": {"visible": False},
        "yaxis": {"visible": False},
    },
}


def graph_card(
    view: str,
    key: str,
    title: str,
    text: str,
    *,
    height: int,
    wide: bool,
    embed: bool,
    min_width: int | None = None,
    shown: bool = True,
) -> html.Div:
    """One plot with its title and explanation. The card is a figure named by its title and
    described by the view's summary (the plot's text alternative). A plot with a
    ``min_width`` scrolls sideways inside its card when the screen is narrower. A plot an
    embed does not show stays on the page out of sight (``shown``): the page's callbacks
    write every plot, and a plot out of sight is not drawn (assets/app.js)."""
    ident = f"{view}-graph-{key}"
    style = {"height": f"{height}px"} | ({"minWidth": f"{min_width}px"} if min_width else {})
    graph = dcc.Graph(
        id=ident,
        config=GRAPH_CONFIG,
        style=style,
        figure=PLACEHOLDER | {"layout": PLACEHOLDER["layout"] | {"height": height}},
    )
    children = [
        html.H3(typeset_children(title), id=f"{ident}-title", className="graph-title"),
        html.Div(graph, className="table-scroll") if min_width else graph,
        # on a touch screen a swipe over a plot scrolls the page; this hands the plot the touch
        # (zoom, pan, turn, a tap on a point) until pressed again (assets/app.js)
        html.Button(
            "Interact with the plot",
            className="small-button interact-button",
            type="button",
            **{"aria-pressed": "false", "aria-describedby": f"{ident}-title"},
        ),
    ]
    if not embed:
        children.append(explanation(text))
    return html.Div(
        children,
        className="graph-card wide" if wide else "graph-card",
        hidden=not shown,
        role="figure",
        **{"aria-labelledby": f"{ident}-title", "aria-describedby": f"{view}-summary"},
    )


def animation_bar(view: str, frame: int) -> html.Div:
    return html.Div(
        [
            html.Button(
                "▶ Play",
                id=f"{view}-play",
                n_clicks=0,
                className="play-button",
                title="Animate the trajectory along time (space bar when focused)",
            ),
            html.Div(
                dcc.Slider(
                    id=f"{view}-frame",
                    min=0,
                    max=1,
                    step=1,
                    value=frame,
                    updatemode="drag",
                    allow_direct_input=False,
                    marks=None,
                    className="frame-slider",
                ),
                className="frame-slider-wrap",
                # the slider is named by the time it shows (assets/app.js reads data-label)
                **{"data-label": f"{view}-frame-label"},
            ),
            html.Span("t = 0", id=f"{view}-frame-label", className="frame-label"),
        ],
        className="animation-bar",
        role="group",
        **{"aria-label": "animation along time"},
    )


def job_bar(view: str) -> html.Div:
    """A background job's progress and its cancel button (shown while one runs)."""
    return html.Div(
        [
            html.Progress(id=f"{view}-progress", max="1", value="0", className="job-progress"),
            html.Span(id=f"{view}-progress-text", className="job-text", role="status"),
            html.Button("Cancel", id=f"{view}-cancel", n_clicks=0, className="small-button"),
        ],
        id=f"{view}-job-bar",
        className="job-bar",
        hidden=True,
    )


def share_bar(view: str) -> html.Div:
    """How to pass on what the page shows: its link (what the address bar holds — every control,
    the preset, the play bar's frame), and the embed builder (app/ui/embed_builder.py)."""
    return html.Div(
        [
            html.Span("Share:", className="download-label"),
            html.Button(
                "Copy link",
                id=f"{view}-copy-link",
                className="small-button copy-link",
                title="Copy the link of this view as it is now (assets/app.js)",
                type="button",
            ),
            html.Button(
                "Embed…",
                className="small-button open-builder",
                title="Choose what a course page shows of this view, preview it, copy its HTML",
                type="button",
                **{"aria-haspopup": "dialog", "data-builder": f"embed-builder-{view}"},
            ),
            html.Span(className="copy-note", role="status"),
        ],
        className="download-bar share-bar",
    )


def download_bar(view: str) -> html.Div:
    return html.Div(
        [
            html.Span("Download trajectories:", className="download-label"),
            html.Button("CSV", id=f"{view}-download-csv", n_clicks=0, className="small-button"),
            html.Button("JSON", id=f"{view}-download-json", n_clicks=0, className="small-button"),
            dcc.Download(id=f"{view}-download"),
        ],
        className="download-bar",
    )


def message_box(view: str, messages: Sequence[str] = ()) -> html.Div:
    return html.Div(
        message_children(messages),
        id=f"{view}-messages",
        className="messages",
        role="status",
        **{"aria-live": "polite"},
    )


def _prose(value: Any) -> Any:
    """A summary's or a message's text typeset (subscripts, powers, numbers); components kept."""
    if isinstance(value, str):
        return typeset_children(value, prose=True)
    if isinstance(value, list | tuple):
        return [
            part for item in value for part in (_prose(item) if isinstance(item, str) else [item])
        ]
    return value


def facts(items: Sequence[tuple[str, Any]]) -> html.Dl:
    """A view's summary: (name, text) pairs as a definition list, typeset."""
    return html.Dl(
        [
            part
            for name, text in items
            for part in (html.Dt(typeset_children(name)), html.Dd(_prose(text)))
        ],
        className="facts",
    )


def failed_figure() -> dict:
    """An empty plot that says it could not be computed (the message box says why)."""
    note = {
        "text": "could not be computed",
        "showarrow": False,
        "xref": "paper",
        "yref": "paper",
        "x": 0.5,
        "y": 0.5,
    }
    return {"data": [], "layout": {"annotations": [note]}}


def message_children(messages: Sequence[str]) -> list:
    return [html.Div(_prose(text), className="message") for text in messages]


@dataclass(frozen=True)
class NavItem:
    title: str
    #: the href as the browser requests it (with any path prefix)
    href: str


@dataclass(frozen=True)
class Navigation:
    """The site's bar: the model views, a menu of every map, and the other pages."""

    home: str
    views: tuple[NavItem, ...]
    maps: tuple[NavItem, ...]
    pages: tuple[NavItem, ...]
    #: the models' papers for the footer, (authors, title) each, in navigation order
    papers: tuple[tuple[str, str], ...] = ()


def _nav_link(item: NavItem, current: str):
    """A link of the bar; the page shown is marked (``aria-current``, which a dcc.Link cannot
    carry: that one is a plain link)."""
    if item.href == current:
        return html.A(
            item.title, href=item.href, className="nav-link active", **{"aria-current": "page"}
        )
    return dcc.Link(item.title, href=item.href, className="nav-link")


def _maps_menu(maps: Sequence[NavItem], current: str) -> html.Details:
    """A disclosure menu (keyboard and screen-reader friendly without scripts)."""
    inside = any(item.href == current for item in maps)
    return html.Details(
        [
            html.Summary("Maps", className="nav-link active" if inside else "nav-link"),
            html.Div([_nav_link(item, current) for item in maps], className="nav-menu"),
        ],
        className="nav-maps",
    )


def _footer_text(papers: Sequence[tuple[str, str]]) -> list:
    """The footer: what the site is and the registry's papers, "Models: Kunin et al., …"."""
    text: list = ["Exact gradient-flow solutions of small linear networks."]
    for index, (authors, title) in enumerate(papers):
        text += [" Models: " if index == 0 else "; ", f"{authors}, ", html.I(title)]
    return [*text, "."] if papers else text


def page_shell(body, *, navigation: Navigation, current: str, embed: bool) -> html.Div:
    """Header with navigation and a footer; both hidden in embed mode (iframes). ``current``
    is the href of the page shown (it is marked in the bar)."""
    if embed:
        return html.Div(body, className="page embed")
    links = [_nav_link(item, current) for item in navigation.views]
    if navigation.maps:
        links.append(_maps_menu(navigation.maps, current))
    links += [_nav_link(item, current) for item in navigation.pages]
    header = html.Header(
        [
            dcc.Link("Lazy vs rich, exactly", href=navigation.home, className="brand"),
            html.Nav(links, className="nav", **{"aria-label": "views"}),
        ],
        className="site-header",
    )
    footer = html.Footer(_footer_text(navigation.papers), className="site-footer")
    return html.Div([header, html.Main(body, className="main"), footer], className="page")
