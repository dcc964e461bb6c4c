"""Building blocks shared by the views: controls made from state fields, explanations with
MathJax, the animation bar, downloads and the page shell."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dash import dcc, html

from ..core.state import Field
from .notation import typeset_children

__all__ = [
    "animation_bar",
    "control",
    "download_bar",
    "explanation",
    "graph_card",
    "message_box",
    "page_shell",
]

GRAPH_CONFIG = {
    "displaylogo": False,
    "responsive": True,
    "toImageButtonOptions": {"format": "png", "scale": 2},
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d"],
}


def control_id(view: str, name: str) -> str:
    return f"{view}-{name}"


def _decade_marks(low: float, high: float) -> dict:
    marks = {}
    for exponent in range(math.ceil(low), math.floor(high) + 1):
        value = 10.0**exponent
        marks[exponent] = f"{value:g}" if 1e-3 <= value < 1e3 else f"1e{exponent}"
    return marks


def _linear_marks(spec: Field) -> dict:
    low, high = spec.low, spec.high
    marks = {low: f"{low:g}", high: f"{high:g}"}
    if low < 0 < high:
        marks[0] = "0"
    return marks


def _slider(ident: str, spec: Field, value: Any):
    if spec.log:  # the slider works on log10 of the value
        low, high = math.log10(spec.low), math.log10(spec.high)
        return dcc.Slider(
            id=ident,
            min=low,
            max=high,
            step=0.01,
            value=spec.to_control(value),
            marks=_decade_marks(low, high),
            updatemode="drag",
            allow_direct_input=False,
            tooltip={"placement": "bottom", "transform": "lazyRichPow10"},
            className="control-slider",
        )
    step = spec.step if spec.step is not None else (1 if spec.kind == "int" else None)
    return dcc.Slider(
        id=ident,
        min=spec.low,
        max=spec.high,
        step=step,
        value=value,
        marks=_linear_marks(spec),
        updatemode="drag",
        className="control-slider",
    )


def _choices(ident: str, spec: Field, value: Any):
    labels = spec.choice_labels or tuple(map(str, spec.choices))
    options = [{"label": t, "value": c} for c, t in zip(spec.choices, labels, strict=True)]
    return dcc.RadioItems(
        id=ident, options=options, value=value, inline=True, className="control-radio"
    )


def control(view: str, spec: Field, value: Any) -> html.Div:
    """A labelled control for one field, showing ``value``.

    Dash's sliders cannot take ARIA attributes, so the control's box carries what
    ``assets/app.js`` gives the slider's thumb and number box: the label (``aria-labelledby``)
    and, for sliders over decades, the value itself as ``aria-valuetext`` (``data-scale``)."""
    ident = control_id(view, spec.name)
    label_id = f"{ident}-label"
    if spec.kind in ("float", "int"):
        widget = _slider(ident, spec, value)
    elif spec.kind == "choice":
        widget = _choices(ident, spec, value)
    else:
        widget = dcc.Checklist(
            id=ident,
            options=[{"label": html.Span(typeset_children(spec.label)), "value": "on"}],
            value=spec.to_control(value),
            className="control-check",
        )
    label = []
    if spec.kind != "bool":  # a checkbox is named by its own option
        readout = (
            [html.Span(format_value(value), id=f"{ident}-readout", className="readout")]
            if spec.log
            else []
        )
        label = [
            html.Label(
                [*typeset_children(spec.label), *readout],
                id=label_id,
                htmlFor=ident,
                className="control-label",
            )
        ]
    attributes = {"data-label": label_id} if spec.kind != "bool" else {}
    if spec.kind == "choice":
        attributes |= {"role": "radiogroup", "aria-labelledby": label_id}
    if spec.log:
        attributes["data-scale"] = "log"
    return html.Div([*label, widget], className="control", title=spec.help or None, **attributes)


def format_value(value: float) -> str:
    """The same short format as the browser's readouts (assets/app.js)."""
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-3 or magnitude >= 1e4):
        return f"{value:.2e}"
    return f"{float(f'{value:.4g}'):g}"


def explanation(markdown: str) -> dcc.Markdown:
    return dcc.Markdown(markdown, mathjax=True, className="explanation")


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
) -> html.Div:
    """One plot with its title and explanation. The card is a figure named by its title and
    described by the view's summary (the plot's text alternative). A plot with a
    ``min_width`` scrolls sideways inside its card when the screen is narrower."""
    ident = f"{view}-graph-{key}"
    style = {"height": f"{height}px"} | ({"minWidth": f"{min_width}px"} if min_width else {})
    graph = dcc.Graph(
        id=ident,
        config=GRAPH_CONFIG,
        style=style,
        figure={"data": [], "layout": {"height": height}},
    )
    children = [
        html.H3(title, id=f"{ident}-title", className="graph-title"),
        html.Div(graph, className="table-scroll") if min_width else graph,
    ]
    if not embed:
        children.append(explanation(text))
    return html.Div(
        children,
        className="graph-card wide" if wide else "graph-card",
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


def facts(items: Sequence[tuple[str, Any]]) -> html.Dl:
    """A view's summary: (name, text) pairs as a definition list."""
    return html.Dl(
        [part for name, text in items for part in (html.Dt(name), html.Dd(text))], className="facts"
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
    return [html.Div(text, className="message") for text in messages]


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
