"""The harness every model view plugs into.

A view supplies its state spec, presets, panels and three functions — ``compute`` (validated
values → solver results, cached), ``render`` (values, results → figures, a summary, messages and
animation frames) and ``export`` (values, results → tables for download). The harness builds
the layout from them and registers the callbacks on the app instance:

* controls → figures, summary, messages, URL query string and animation frames (server);
* preset → controls (server); download buttons → a CSV or JSON file (server);
* play / scrubber → the "current time" cursor in every figure (browser only, no round trip).

Every server callback validates its inputs with the same spec as the URL parser and turns any
failure into a message on the page: a request never ends in an HTTP 500.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from dash import ClientsideFunction, Dash, Input, Output, State, dcc, html, no_update

from . import components
from .cache import ResultCache
from .figures import compact
from .state import Parsed, StateSpec, query_pairs

__all__ = [
    "Panel",
    "Preset",
    "Rendered",
    "View",
    "clicked_cell",
    "nearest_index",
    "trajectory_tables",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Preset:
    name: str
    caption: str
    values: Mapping[str, Any]

    @property
    def slug(self) -> str:
        """The preset's name as it appears in links (``?preset=fig-3-mu-phi-and-s-…``)."""
        text = self.name.lower()
        for symbol, word in _SPELLED.items():
            text = text.replace(symbol, f" {word} ")
        return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


#: symbols of preset names spelled out for links
_SPELLED = {
    "λ": "lambda",
    "γ": "gamma",
    "δ": "delta",
    "μ": "mu",
    "φ": "phi",
    "β": "beta",
    "+": "plus",
    "−": "minus",
    "√": "sqrt",
    "₁": "1",
    "₂": "2",
    "*": "star",
}


@dataclass(frozen=True)
class Panel:
    graph: str
    title: str
    explanation: str
    height: int = 300
    wide: bool = False


@dataclass
class Rendered:
    figures: dict[str, dict]
    summary: Any = None
    messages: list[str] = field(default_factory=list)
    #: browser-side animation data: {"t": [...], "cursor": {graph: {"x","y"[,"z"]}},
    #: "lines": {graph: [x per frame]}, "heatmaps": {graph: [z per frame]}}
    frames: dict | None = None


@dataclass
class View:
    key: str
    path: str
    title: str
    nav_title: str
    summary: str
    intro: str
    spec: StateSpec
    panels: Sequence[Panel]
    presets: Sequence[Preset]
    compute: Callable[[Mapping[str, Any]], Any]
    render: Callable[[Mapping[str, Any], Any], Rendered]
    export: Callable[[Mapping[str, Any], Any], Mapping[str, Mapping[str, np.ndarray]]]
    #: names of the fields shown in each control group, in order: [(heading, [names])]
    groups: Sequence[tuple[str, Sequence[str]]] = ()
    #: False for views with nothing to animate along time (maps): the play bar is hidden
    animated: bool = True
    #: graph name → ``opener(values, point)`` giving ``(view, overrides)`` to open when a point
    #: of that graph is clicked (``point`` is plotly's clickData point), or None to stay
    click_targets: Mapping[str, Callable[[Mapping[str, Any], Mapping[str, Any]], Any]] = field(
        default_factory=dict
    )
    #: whether the navigation bar lists the view (maps are reached from their own page)
    in_nav: bool = True
    #: what ``compute`` returns: the dataclasses it reaches may be stored in the cache
    result_type: Any = object

    # -- computing ------------------------------------------------------------------------

    def results(self, cache: ResultCache, values: Mapping[str, Any]):
        return cache.get_or_compute(
            self.key,
            self.spec.physics_key(values),
            lambda: self.compute(values),
            self.result_type,
        )

    # -- layout ---------------------------------------------------------------------------

    def preset_from_query(self, search: str | None) -> tuple[Preset | None, list[str]]:
        """The preset a link names (``?preset=fig-3``), and a message if it names none."""
        wanted = next((value for key, value in query_pairs(search) if key == "preset"), None)
        if wanted is None:
            return None, []
        preset = next((p for p in self.presets if wanted in (p.slug, p.name)), None)
        if preset is None:
            names = ", ".join(p.slug for p in self.presets)
            return None, [f"Unknown preset {wanted[:40]!r} in the link; known: {names}."]
        return preset, []

    def layout(self, search: str | None, embed: bool) -> html.Div:
        preset, preset_messages = self.preset_from_query(search)
        parsed, extras = self.spec.parse_query(search, preset.values if preset else None)
        parsed = Parsed(parsed.values, (*preset_messages, *parsed.messages))
        values = parsed.values
        frame = _frame_from_query(search)
        control_groups = []
        for heading, names in self.groups or [("Settings", self.spec.names)]:
            controls = [
                components.control(self.key, self.spec.by_name[name], values[name])
                for name in names
            ]
            control_groups.append(
                html.Fieldset([html.Legend(heading), *controls], className="control-group")
            )
        preset_box = html.Div(
            [
                html.Label(
                    "Paper presets", htmlFor=f"{self.key}-preset", className="control-label"
                ),
                dcc.Dropdown(
                    id=f"{self.key}-preset",
                    options=[{"label": p.name, "value": p.name} for p in self.presets],
                    placeholder="Reproduce a figure…",
                    value=preset.name if preset else None,
                    clearable=True,
                    searchable=False,
                ),
                html.Div(
                    preset.caption if preset else None,
                    id=f"{self.key}-preset-caption",
                    className="preset-caption",
                ),
            ],
            className="control-group presets",
        )
        sidebar = html.Aside(
            [preset_box, *control_groups, components.download_bar(self.key)], className="sidebar"
        )
        panels = [
            components.graph_card(
                self.key, p.graph, p.title, p.explanation, height=p.height, wide=p.wide, embed=embed
            )
            for p in self.panels
        ]
        content = html.Section(
            [
                *([] if embed else [html.H1(self.title), components.explanation(self.intro)]),
                components.message_box(self.key, parsed.messages),
                html.Div(id=f"{self.key}-summary", className="summary"),
                html.Div(
                    components.animation_bar(self.key, frame),
                    hidden=not self.animated,
                ),
                *(
                    [
                        html.P(
                            "Click a cell or a point to open its trajectory.",
                            className="click-hint",
                        )
                    ]
                    if self.click_targets and not embed
                    else []
                ),
                html.Div(panels, className="graph-grid"),
            ],
            className="content",
        )
        return html.Div(
            [
                dcc.Location(id=f"{self.key}-url", refresh=False),
                dcc.Store(id=f"{self.key}-extras", data=extras),
                dcc.Store(id=f"{self.key}-initial-messages", data=list(parsed.messages)),
                dcc.Store(id=f"{self.key}-frames"),
                *(
                    [dcc.Location(id=f"{self.key}-open", refresh="callback-nav")]
                    if self.click_targets
                    else []
                ),
                html.Div([sidebar, content], className="view-body"),
            ],
            className=f"view view-{self.key}",
        )

    # -- callbacks --------------------------------------------------------------------------

    def control_inputs(self) -> list[Input]:
        return [Input(components.control_id(self.key, name), "value") for name in self.spec.names]

    def control_states(self) -> list[State]:
        return [State(components.control_id(self.key, name), "value") for name in self.spec.names]

    def graph_ids(self) -> list[str]:
        return [f"{self.key}-graph-{p.graph}" for p in self.panels]

    def update(
        self, cache: ResultCache, raw_controls: Sequence[Any], extras: Any, initial_messages: Any
    ):
        """The main callback's body (also called directly by the tests)."""
        parsed = self.spec.parse_controls(raw_controls)
        extras = (
            {k: str(v)[:20] for k, v in extras.items() if k in self.spec.passthrough}
            if isinstance(extras, dict)
            else {}
        )
        search = self.spec.encode(parsed.values, extras)
        try:
            result = self.results(cache, parsed.values)
            rendered = self.render(parsed.values, result)
        except Exception as error:  # shown on the page; the request still succeeds
            log.exception("rendering %s failed for %s", self.key, parsed.values)
            empty = {"data": [], "layout": {"annotations": [_failure_note()]}}
            messages = [*parsed.messages, f"This combination could not be computed: {error}"]
            return (
                [empty] * len(self.panels),
                None,
                components.message_children(messages),
                search,
                None,
                1,
            )
        messages = list(parsed.messages) + list(rendered.messages)
        if isinstance(initial_messages, list):  # from the link the page was opened with
            messages = [str(m)[:300] for m in initial_messages[:10]] + [
                m for m in messages if m not in initial_messages
            ]
        figures = [
            compact(rendered.figures.get(p.graph, {"data": [], "layout": {}})) for p in self.panels
        ]
        frames = rendered.frames
        last = max(len(frames["t"]) - 1, 1) if frames else 1
        return (
            figures,
            rendered.summary,
            components.message_children(messages),
            search,
            frames,
            last,
        )

    def open_target(
        self,
        graph: str,
        point: Any,
        raw_controls: Sequence[Any],
        extras: Any,
        prefix: str = "/",
    ) -> str | None:
        """The href (with the deployment's path prefix) that a click on ``point`` of ``graph``
        opens, carrying the link settings (``embed``) over; None when there is nothing to open.
        ``point`` comes from the browser and is validated like everything else."""
        opener = self.click_targets.get(graph)
        if opener is None or not isinstance(point, dict):
            return None
        values = self.spec.parse_controls(raw_controls).values
        try:
            target = opener(values, point)
        except (TypeError, ValueError, KeyError, IndexError, OverflowError):
            return None
        if target is None:
            return None
        view, overrides = target
        extras = extras if isinstance(extras, dict) else {}
        passthrough = {k: str(v)[:20] for k, v in extras.items() if k in view.spec.passthrough}
        search = view.spec.encode(view.spec.with_overrides(overrides), passthrough)
        return prefix.rstrip("/") + view.path + search

    def register(self, app: Dash, cache: ResultCache) -> None:
        key = self.key
        if self.click_targets:
            clickable = list(self.click_targets)
            prefix = app.config.requests_pathname_prefix

            @app.callback(
                Output(f"{key}-open", "href"),
                inputs=[Input(f"{key}-graph-{graph}", "clickData") for graph in clickable],
                state=[*self.control_states(), State(f"{key}-extras", "data")],
                prevent_initial_call=True,
            )
            def open_clicked(*args):
                from dash import ctx

                clicks, controls, extras = (
                    args[: len(clickable)],
                    args[len(clickable) : -1],
                    args[-1],
                )
                trigger = ctx.triggered_id if isinstance(ctx.triggered_id, str) else ""
                graph = trigger.removeprefix(f"{key}-graph-")
                if graph not in clickable:
                    return no_update
                click = clicks[clickable.index(graph)]
                points = click.get("points") if isinstance(click, dict) else None
                point = points[0] if isinstance(points, list) and points else None
                href = self.open_target(graph, point, controls, extras, prefix)
                return href if href is not None else no_update

        @app.callback(
            [Output(graph, "figure") for graph in self.graph_ids()]
            + [
                Output(f"{key}-summary", "children"),
                Output(f"{key}-messages", "children"),
                Output(f"{key}-url", "search"),
                Output(f"{key}-frames", "data"),
                Output(f"{key}-frame", "max"),
            ],
            self.control_inputs(),
            State(f"{key}-extras", "data"),
            State(f"{key}-initial-messages", "data"),
        )
        def update(*args):
            *controls, extras, initial_messages = args
            figures, summary, messages, search, frames, last = self.update(
                cache, controls, extras, initial_messages
            )
            return (*figures, summary, messages, search, frames, last)

        @app.callback(
            [Output(components.control_id(key, name), "value") for name in self.spec.names]
            + [Output(f"{key}-preset-caption", "children")],
            Input(f"{key}-preset", "value"),
            prevent_initial_call=True,
        )
        def apply_preset(name):
            preset = (
                next((p for p in self.presets if p.name == name), None)
                if isinstance(name, str)
                else None
            )
            if preset is None:
                return [no_update] * len(self.spec.names) + [""]
            values = self.spec.with_overrides(preset.values)
            return [*self.spec.controls(values), preset.caption]

        @app.callback(
            Output(f"{key}-download", "data"),
            Input(f"{key}-download-csv", "n_clicks"),
            Input(f"{key}-download-json", "n_clicks"),
            self.control_states(),
            prevent_initial_call=True,
        )
        def download(csv_clicks, json_clicks, *controls):
            from dash import ctx

            kind = "json" if ctx.triggered_id == f"{key}-download-json" else "csv"
            parsed = self.spec.parse_controls(controls)
            try:
                tables = self.export(parsed.values, self.results(cache, parsed.values))
                if kind == "json":
                    return {
                        "content": to_json(parsed, tables),
                        "filename": f"{key}.json",
                        "type": "application/json",
                    }
                return {
                    "content": to_csv(parsed, tables),
                    "filename": f"{key}.csv",
                    "type": "text/csv",
                }
            except Exception:
                log.exception("export of %s failed", key)
                return no_update

        for spec in self.spec.fields:
            if spec.log:
                ident = components.control_id(key, spec.name)
                app.clientside_callback(
                    ClientsideFunction("lazyRich", "readout"),
                    Output(f"{ident}-readout", "children"),
                    Input(ident, "value"),
                    prevent_initial_call=True,
                )

        graphs = [Output(graph, "figure", allow_duplicate=True) for graph in self.graph_ids()]
        app.clientside_callback(
            ClientsideFunction("lazyRich", "scrub"),
            [*graphs, Output(f"{key}-frame-label", "children")],
            Input(f"{key}-frame", "value"),
            Input(f"{key}-frames", "data"),
            [State(graph, "figure") for graph in self.graph_ids()],
            prevent_initial_call=True,
        )
        app.clientside_callback(
            ClientsideFunction("lazyRich", "togglePlay"),
            Output(f"{key}-ticker", "disabled"),
            Output(f"{key}-play", "children"),
            Output(f"{key}-frame", "value", allow_duplicate=True),
            Input(f"{key}-play", "n_clicks"),
            State(f"{key}-ticker", "disabled"),
            State(f"{key}-frame", "value"),
            State(f"{key}-frame", "max"),
            prevent_initial_call=True,
        )
        app.clientside_callback(
            ClientsideFunction("lazyRich", "tick"),
            Output(f"{key}-frame", "value"),
            Output(f"{key}-ticker", "disabled", allow_duplicate=True),
            Output(f"{key}-play", "children", allow_duplicate=True),
            Input(f"{key}-ticker", "n_intervals"),
            State(f"{key}-frame", "value"),
            State(f"{key}-frame", "max"),
            prevent_initial_call=True,
        )


# -- clicks ----------------------------------------------------------------------------------


def clicked_cell(point: Mapping[str, Any], rows: int, columns: int) -> tuple[int, int] | None:
    """(row, column) of a heatmap click from the grid indices in ``pointNumber``, if well
    formed. (Dash's clickData drops array-valued fields, so from a browser this is usually None
    and :func:`nearest_index` of the coordinates decides.)"""
    index = point.get("pointNumber")
    if (
        isinstance(index, list)
        and len(index) == 2
        and all(isinstance(k, int) and not isinstance(k, bool) for k in index)
        and 0 <= index[0] < rows
        and 0 <= index[1] < columns
    ):
        return index[0], index[1]
    return None


def nearest_index(grid: np.ndarray, value: Any, log: bool = False) -> int | None:
    """The grid point nearest a clicked coordinate (which reaches the server rounded to
    float32), on a logarithmic scale if ``log``; None if the value is not a usable number."""
    number = float(value)
    if not math.isfinite(number) or (log and number <= 0):
        return None
    if log:
        return int(np.argmin(np.abs(np.log(grid) - math.log(number))))
    return int(np.argmin(np.abs(grid - number)))


def _failure_note() -> dict:
    return {
        "text": "could not be computed",
        "showarrow": False,
        "xref": "paper",
        "yref": "paper",
        "x": 0.5,
        "y": 0.5,
    }


def _frame_from_query(search: str | None) -> int:
    from urllib.parse import parse_qs

    raw = parse_qs((search or "").lstrip("?")).get("frame", ["0"])[0]
    try:
        return min(max(int(raw), 0), 10_000)
    except ValueError:
        return 0


# -- downloads -------------------------------------------------------------------------------


def trajectory_tables(
    columns: Sequence[str], sources: Mapping[str, Mapping[str, np.ndarray] | None]
) -> dict[str, dict[str, np.ndarray]]:
    """Download tables: for each named trajectory that exists, the listed columns."""
    return {
        method: {name: arrays[name] for name in columns}
        for method, arrays in sources.items()
        if arrays is not None
    }


def _columns(table: Mapping[str, np.ndarray]) -> tuple[list[str], list[np.ndarray]]:
    names, columns = [], []
    for name, values in table.items():
        values = np.asarray(values, dtype=float)
        if values.ndim == 1:
            names.append(name)
            columns.append(values)
        else:
            flat = values.reshape(values.shape[0], -1)
            for index in range(flat.shape[1]):
                names.append(f"{name}_{index + 1}")
                columns.append(flat[:, index])
    return names, columns


def to_csv(parsed: Parsed, tables: Mapping[str, Mapping[str, np.ndarray]]) -> str:
    """One CSV: a comment line of parameters, then one block per table with a `method` column."""
    buffer = io.StringIO()
    buffer.write("# " + " ".join(f"{k}={v}" for k, v in parsed.values.items()) + "\n")
    writer = csv.writer(buffer, lineterminator="\n")
    for method, table in tables.items():
        names, columns = _columns(table)
        writer.writerow(["method", *names])
        for row in zip(*columns, strict=True):
            writer.writerow([method, *(repr(float(v)) for v in row)])
    return buffer.getvalue()


def to_json(parsed: Parsed, tables: Mapping[str, Mapping[str, np.ndarray]]) -> str:
    payload = {
        "parameters": parsed.values,
        "trajectories": {
            method: {
                name: np.asarray(values, dtype=float).tolist() for name, values in table.items()
            }
            for method, table in tables.items()
        },
    }
    return json.dumps(payload, allow_nan=False)
