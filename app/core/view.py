"""The harness every model view plugs into.

A view supplies its controls (a dataclass, :mod:`app.core.state`), presets, panels (one draw
function per plot, :mod:`app.core.panel`) and a few functions of its typed result: ``compute``
(controls → result, cached), ``facts`` (the summary), ``notes`` (messages), ``frames`` (the play
bar, :mod:`app.core.frames`) and ``tables`` (downloads). The harness builds the layout from them
and registers the callbacks on the app instance, one method per callback:

* controls → figures, summary, messages, link and animation frames (server);
* preset → controls (server); download buttons → a CSV or JSON file (server);
* a click on a plot → another view (server), where the view has click targets;
* play / scrubber → the "current time" cursor in every figure (browser only, no round trip).

Every server callback validates its inputs with the same spec as the link parser and turns any
failure into a message on the page: a request never ends in an HTTP 500.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from dash import ClientsideFunction, Dash, Input, Output, State, ctx, html, no_update
from flask import request as http_request

from ..cache import ResultCache
from ..fair import ClientSlots, client_of
from ..ui import components
from ..ui.figures import compact
from ..ui.notation import typeset_figure
from ..ui.theme import themed
from . import browser
from .clicks import ClickPoint, Link
from .downloads import Tables, to_csv, to_json
from .embedding import carried
from .frames import Frames, place
from .jobs import MALFORMED, NOT_KEPT, JobOutcome, Jobs, Refusal, job_status, well_formed
from .layout import view_page
from .panel import Figure, Panel
from .parts import Parts, partial_entry
from .presets import Preset
from .sent import SentFigures
from .state import PageState, StateSpec, truth
from .updates import Answer, Reply, Request, failure_text, figure_updates

__all__ = ["RESERVED_NAMES", "Computed", "View"]

log = logging.getLogger(__name__)

#: what an update says when the page already has as many being computed as it may
BUSY = (
    "The server is still computing this page's other requests, so this one was skipped: "
    "move the control again in a moment."
)

#: what a download asked for before its background job has finished says
DOWNLOAD_AWAITS_JOB = (
    "The download is made from the finished result: ask again once the computation (its "
    "progress bar above) has finished."
)

#: what a view's page holds besides its controls: the ids ``{key}-{name}`` (and the names a link
#: carries besides the controls). A control may not take one of these names: ``{key}-frame``
#: would be both a control and the play bar (tests/integration/test_contracts.py checks the list
#: against every id of every view's page).
RESERVED_NAMES = frozenset(
    {
        "answered",
        "cancel",
        "copy",
        "download",
        "embed",
        "frame",
        "frames",
        "graph",
        "job",
        "link",
        "messages",
        "open",
        "page",
        "play",
        "plots",
        "preset",
        "progress",
        "request",
        "retry",
        "summary",
        "timing",
        "view",
        "wake",
    }
)

Controls = TypeVar("Controls")
Result = TypeVar("Result")

#: the text of a view's summary: (what, value) pairs
Facts = Sequence[tuple[str, str]]


def _no_notes(controls: Any, result: Any) -> list[str]:
    return []


@contextlib.contextmanager
def _admitted(slots: ClientSlots | None, client: str) -> Iterator[bool]:
    """Whether a client's request may be computed now (always, without a bound)."""
    if slots is None:
        yield True
        return
    with slots.hold(client) as admitted:
        yield admitted


def _carried(page: Any) -> list[str]:
    """Messages of the link the page was opened with (they stay on the page)."""
    carried = page.get("messages") if isinstance(page, dict) else None
    return [str(m)[:300] for m in carried[:10]] if isinstance(carried, list) else []


@dataclass(frozen=True)
class Computed(Generic[Result]):
    """A view's result and how it was obtained (timed by the harness, not by the view)."""

    result: Result
    #: milliseconds spent computing, or None when the result came from the cache
    milliseconds: float | None

    @property
    def served(self) -> str:
        """How the server obtained it, for the log (never shown to students)."""
        if self.milliseconds is None:
            return "from the result cache"
        return f"computed in {self.milliseconds:.1f} ms"


@dataclass(frozen=True)
class View(Generic[Controls, Result]):
    key: str
    path: str
    title: str
    nav_title: str
    #: one paragraph for the start page's card
    summary: str
    #: Markdown with TeX formulas (app/ui/prose.py) above the plots
    intro: str
    controls: type[Controls]
    compute: Callable[[Controls], Result]
    result_type: Any
    panels: tuple[Panel[Controls, Result], ...]
    facts: Callable[[Controls, Result], Facts]
    tables: Callable[[Controls, Result], Tables]
    presets: tuple[Preset, ...] = ()
    #: names of the fields shown in each control group, in order: [(heading, [names])]
    groups: tuple[tuple[str, tuple[str, ...]], ...] = ()
    notes: Callable[[Controls, Result], Sequence[str]] = _no_notes
    #: the play bar's frames; None for views with nothing to animate along time (maps)
    frames: Callable[[Controls, Result], Frames] | None = None
    #: graph name → what a click on one of its points opens (or None to stay)
    clicks: Mapping[str, Callable[[Controls, ClickPoint], Link | None]] = field(
        default_factory=dict
    )
    #: for a map: the key of the trajectory view its cells open (the two link to each other)
    map_of: str | None = None
    #: whether a request is too heavy to answer within a web request (about a second or more):
    #: then it runs as a background job with progress and a cancel button (app/core/jobs.py)
    heavy: Callable[[Controls], bool] | None = None
    #: ``compute`` reporting its progress, ``report(fraction done, text)``, for those jobs
    compute_job: Callable[[Controls, Callable[[float, str], None]], Result] | None = None
    #: about how many seconds such a job takes on this machine: its hard time limit is set
    #: from it (app/core/jobs.py, JobLimits.limit)
    job_seconds: Callable[[Controls], float] | None = None
    #: a job's result made of independent parts, which the job workers share
    #: (app/core/parts.py; ``compute_job`` is then ``parts.compute``)
    parts: Parts | None = None
    #: what its results depend on besides the controls: a deployment's setting (the network
    #: map's time budget, app/config.py ``MAP_SECONDS``), part of their cache keys and jobs
    context: Callable[[], tuple] | None = None
    spec: StateSpec[Controls] = field(init=False, repr=False, compare=False)
    #: the figures of its last answers in this worker, by state (app/core/sent.py)
    sent: SentFigures = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "spec", StateSpec(self.controls))
        object.__setattr__(self, "sent", SentFigures())
        clashes = sorted(set(self.spec.names) & RESERVED_NAMES)
        if clashes:
            raise ValueError(
                f"{self.key}: the controls {clashes} take names the harness uses for its own "
                f"parts of the page ({', '.join(sorted(RESERVED_NAMES))}); rename them."
            )
        unknown = [n for _, names in self.groups for n in names if n not in self.spec.by_name]
        if unknown:
            raise ValueError(f"{self.key}: groups name unknown controls {unknown}")

    @property
    def animated(self) -> bool:
        return self.frames is not None

    @property
    def is_map(self) -> bool:
        return self.map_of is not None

    # -- computing ------------------------------------------------------------------------

    def results(
        self,
        cache: ResultCache,
        controls: Controls,
        report: Callable[[float, str], None] | None = None,
    ) -> Computed[Result]:
        """The result for ``controls`` (cached under its physics fields), timed: the one path
        by which the update, the download and a background job obtain it. ``report(fraction,
        text)``: a background job's progress (it then computes with ``compute_job``)."""
        physics = self.spec.physics_only(controls)
        timing: list[float] = []

        def compute() -> Result:
            start = time.perf_counter()
            if report is not None and self.compute_job is not None:
                result = self.compute_job(physics, report)
            else:
                result = self.compute(physics)
            timing.append(1e3 * (time.perf_counter() - start))
            return result

        key, result_type = self._cache_key(controls)
        result = cache.get_or_compute(self.key, key, compute, result_type)
        return Computed(result, timing[0] if timing else None)

    def preset_named(self, name: Any) -> Preset | None:
        if not isinstance(name, str):
            return None
        return next((p for p in self.presets if p.answers_to(name)), None)

    # -- layout ---------------------------------------------------------------------------

    def parse_link(self, search: str | None) -> PageState[Controls]:
        return self.spec.parse_query(search, self.presets, [p.graph for p in self.panels])

    def layout(self, search: str | None, related: Sequence[tuple[str, str]] = ()) -> html.Div:
        """The view's page for a link (its query string): controls set from the link.
        ``related``: (text, href) links to the views that belong with it (its map, its
        trajectory view)."""
        return view_page(self, self.parse_link(search), related)

    # -- callbacks --------------------------------------------------------------------------

    def register(
        self,
        app: Dash,
        cache: ResultCache,
        jobs: Jobs | None = None,
        slots: ClientSlots | None = None,
    ) -> None:
        """Every callback of the view on ``app``; ``jobs``: how heavy requests run in the
        background (None: computed in the request); ``slots``: each client's updates
        computed at once (None: no bound)."""
        self._register_update(app, cache, jobs, slots)
        if self.heavy is not None and jobs is not None:
            jobs.register(self, app)
        self._register_preset(app)
        self._register_download(app, cache, jobs, slots)
        browser.register(self, app)  # the number boxes (assets/app.js)
        self._register_animation(app)
        if self.clicks:
            self._register_clicks(app)

    def control_ids(self) -> list[str]:
        return [components.control_id(self.key, name) for name in self.spec.names]

    def graph_ids(self) -> list[str]:
        return [f"{self.key}-graph-{p.graph}" for p in self.panels]

    def _register_update(
        self, app: Dash, cache: ResultCache, jobs: Jobs | None, slots: ClientSlots | None
    ) -> None:
        key = self.key
        # the browser's gate turns control moves into at most one request in flight
        app.clientside_callback(
            ClientsideFunction("lazyRich", "gate"),
            Output(f"{key}-request", "data"),
            [Input(ident, "value") for ident in self.control_ids()]
            + [Input(f"{key}-wake", "data")],
            State(f"{key}-frame", "value"),
        )
        # the gate is free once Dash has stored an answer (assets/app.js: applied)
        app.clientside_callback(
            ClientsideFunction("lazyRich", "applied"),
            Input(f"{key}-answered", "data"),
            prevent_initial_call=True,
        )
        outputs = {
            "figures": [Output(graph, "figure") for graph in self.graph_ids()],
            "summary": Output(f"{key}-summary", "children"),
            "status": Output(f"{key}-timing", "children"),
            "messages": Output(f"{key}-messages", "children"),
            "link": Output(f"{key}-link", "data"),
            "frames": Output(f"{key}-frames", "data"),
            "last_frame": Output(f"{key}-frame", "max"),
            "answered": Output(f"{key}-answered", "data"),
            "job": Output(f"{key}-job", "data"),
        }
        inputs = {
            "request": Input(f"{key}-request", "data"),
            "controls": [State(ident, "value") for ident in self.control_ids()],
            "page": State(f"{key}-page", "data"),
            "done": State(f"{key}-job-done", "data"),
            "job": State(f"{key}-job", "data"),
        }

        # the gate's first request (with the page's theme) opens the page
        @app.callback(output=outputs, inputs=inputs, prevent_initial_call=True)
        def update(request, controls, page, done, job):
            client = client_of(page, http_request.remote_addr)
            with _admitted(slots, client) as admitted:
                if not admitted:
                    return self.refuse(request, controls, page, BUSY).outputs()
                answer = self.update(
                    cache, request, controls, page, jobs=jobs, done=done, job=job, client=client
                )
                return answer.outputs()

    def refuse(self, request: Any, raw_controls: Sequence[Any], page: Any, why: str) -> Answer:
        """The answer to a request that is not computed: the plots stay, the message says
        why, and the gate is told that these values were not answered."""
        controls, _ = self.spec.parse_controls(raw_controls)
        graphs = [panel.graph for panel in self.panels]
        reply = Reply.to(graphs, Request.parse(request), raw_controls, "", _carried(page))
        return reply.refused([why], self._search(controls, page))

    def update(
        self,
        cache: ResultCache,
        request: Any,
        raw_controls: Sequence[Any],
        page: Any,
        *,
        jobs: Jobs | None = None,
        done: Any = None,
        job: Any = None,
        client: str = "",
    ) -> Answer:
        """The main callback's body (also called directly by the tests): the answer to a
        request of the page's gate (None on the page's first load) for the controls' values.
        ``jobs``: how heavy requests run in the background (None: they are computed here);
        ``done``: how the page's last background job ended (its ``{key}-job-done`` store);
        ``job``: the job the page follows now (its ``{key}-job`` store); ``client``: who
        asks (fair use, app/fair.py)."""
        ask = Request.parse(request)
        controls, corrections = self.spec.parse_controls(raw_controls)
        graphs = [panel.graph for panel in self.panels]
        search = self._search(controls, page)
        reply = Reply.to(graphs, ask, raw_controls, search, _carried(page))
        if jobs is not None and self.awaits_job(cache, controls, jobs):
            return self._background(
                cache, jobs, controls, request, raw_controls, reply, corrections, done, job, client
            )
        skipped, whole = ask.plan(graphs)
        stale = ask.stale_after(graphs, skipped, reply.asked)
        try:
            computed = self.results(cache, controls)
            drawn = self.draw(
                controls, computed, ask.frame, ask.theme, skip=skipped, stale=frozenset(stale)
            )
            figures, summary, notes, frames = drawn
            before = self._drawn(cache, ask.drawn, skip=skipped | whole)
        except Exception as error:  # shown on the page; the request still succeeds
            log.exception("drawing %s failed for %s", self.key, controls)
            return reply.failed([*corrections, failure_text(error)])
        log.debug("%s: %s for %s", self.key, computed.served, reply.asked)
        self.sent.keep(self._shown(controls, ask.frame, ask.theme), graphs, figures)
        figures = figure_updates(before, figures)
        return reply.drawn(figures, summary, [*corrections, *notes], frames, stale)

    def _background(
        self,
        cache: ResultCache,
        jobs: Jobs,
        controls: Controls,
        request: Any,
        raw_controls: Sequence[Any],
        reply: Reply,
        corrections: Sequence[str],
        done: Any,
        job: Any,
        client: str,
    ) -> Answer:
        """The answer while these controls' result is a background job's: the plots stay (or
        show the job's partial result, :meth:`_partial`); the page follows the job (started
        now, or shared with another page), or says why none runs (it ended without a result,
        the request was malformed, the server is busy)."""
        outcome = JobOutcome.parse(done)
        if outcome is not None and outcome.concerns(reply.asked):
            # ended for these very values, yet not in the cache: it failed or was not kept
            message = outcome.message if not outcome.ok else NOT_KEPT
            return reply.waiting("", [*corrections, message], no_update)
        if not well_formed(self, request, raw_controls):
            return reply.waiting("", [*corrections, MALFORMED], no_update)
        started = jobs.submit(self, controls, reply.asked, client, previous=job)
        if isinstance(started, Refusal):
            return reply.waiting("", [*corrections, started.message], started.to_data(reply.asked))
        expected = self.job_seconds(controls) if self.job_seconds is not None else None
        partial = self._partial(cache, jobs, controls)
        if partial is None:
            return reply.waiting(job_status(expected), corrections, started.to_data())
        try:
            drawn = self.draw(controls, Computed(partial, None), reply.frame, reply.theme)
        except Exception:  # (only a view of the job on its way: the plots stay)
            log.exception("drawing the partial result of %s failed for %s", self.key, controls)
            return reply.waiting(job_status(expected), corrections, started.to_data())
        figures, summary, notes, frames = drawn
        status = job_status(expected, partial=True)
        messages = [*corrections, *notes]
        return reply.partial(figures, summary, messages, frames, status, started.to_data())

    def _partial(self, cache: ResultCache, jobs: Jobs, controls: Controls) -> Result | None:
        """The result of the parts of these controls' job done so far, where its parts can be
        drawn before they are all done and the job's lead has kept one (app/core/parts.py)."""
        if self.parts is None or self.parts.partial is None:
            return None
        namespace, parameters = partial_entry(self.key, jobs.setting(self, controls))
        return cache.get(namespace, parameters, self.result_type)

    def _search(self, controls: Controls, page: Any) -> str:
        embed = isinstance(page, dict) and truth(page.get("embed")) is True
        return self.spec.encode(controls, embed=embed, flags=self.carried(page))

    def carried(self, page: Any) -> list[tuple[str, str]]:
        """The embed flags of ``page`` that fit this view (app/core/embedding.py)."""
        return carried(page, self.spec.names, [panel.graph for panel in self.panels])

    def result_key(self, controls: Controls) -> tuple:
        """What determines the result of ``controls``: their physics fields, and the view's
        :attr:`context` (the cache key; a job's setting)."""
        physics = self.spec.physics_key(controls)
        return physics if self.context is None else (*physics, *self.context())

    def _shown(self, controls: Controls, frame: int, theme: str) -> tuple:
        """A state of the page, as its figures are kept (app/core/sent.py)."""
        return (controls, frame, theme, () if self.context is None else self.context())

    def _cache_key(self, controls: Controls) -> tuple[tuple, Any]:
        return self.result_key(controls), self.result_type

    def _drawn(
        self,
        cache: ResultCache,
        drawn: tuple[list, int, str] | None,
        skip: frozenset[str] = frozenset(),
    ) -> list[Figure | None] | None:
        """The figures the page shows now: as this worker sent them, or redrawn from the cached
        result (None if unknown or no longer cached: then whole figures are sent; None for the
        graphs in ``skip``)."""
        if drawn is None:
            return None
        controls, _ = self.spec.parse_controls(drawn[0])
        graphs = [panel.graph for panel in self.panels]
        kept = self.sent.recall(self._shown(controls, drawn[1], drawn[2]), graphs, skip)
        if kept is not None:
            return kept
        result = cache.get(self.key, *self._cache_key(controls))
        if result is None:
            return None
        # (the matrices of graphs not drawn are not needed either: they may cost a computation)
        computed = Computed(result, None)
        return self.draw(controls, computed, drawn[1], drawn[2], skip=skip, stale=skip)[0]

    def draw(
        self,
        controls: Controls,
        computed: Computed[Result],
        frame: int = 0,
        theme: str = "light",
        skip: frozenset[str] = frozenset(),
        stale: frozenset[str] = frozenset(),
    ) -> tuple[list[Figure | None], Any, list[str], dict | None]:
        """(figures, summary, notes, frames payload) for a computed result, every cursor at
        ``frame`` of the play bar, the plots in the page's colour ``theme``; the graphs named
        in ``skip`` are not drawn (None), those in ``stale`` get no matrices in the frames."""
        result = computed.result
        order = [panel.graph for panel in self.panels]
        frames = None
        if self.frames:
            frames = self.frames(controls, result).payload(order, omit=stale)
        figures: list[Figure | None] = []
        for panel in self.panels:
            if panel.graph in skip:
                figures.append(None)
                continue
            figure = panel.draw(controls, result)
            place(figure, panel.graph, frames, frame)
            figures.append(compact(themed(typeset_figure(figure), theme)))
        summary = components.facts(self.facts(controls, result))
        return figures, summary, list(self.notes(controls, result)), frames

    def _register_preset(self, app: Dash) -> None:
        @app.callback(
            [Output(ident, "value") for ident in self.control_ids()]
            + [Output(f"{self.key}-preset-caption", "children")],
            Input(f"{self.key}-preset", "value"),
            prevent_initial_call=True,
        )
        def apply_preset(slug):
            return self.apply_preset(slug)

    def apply_preset(self, slug: Any) -> list:
        preset = self.preset_named(slug)
        if preset is None:
            return [no_update] * len(self.spec.fields) + [""]
        controls = self.spec.with_overrides(preset.values)
        return [*self.spec.to_controls(controls), preset.caption]

    def _register_download(
        self, app: Dash, cache: ResultCache, jobs: Jobs | None, slots: ClientSlots | None
    ) -> None:
        @app.callback(
            output={
                "file": Output(f"{self.key}-download", "data"),
                "messages": Output(f"{self.key}-messages", "children", allow_duplicate=True),
            },
            inputs={
                "csv": Input(f"{self.key}-download-csv", "n_clicks"),
                "json": Input(f"{self.key}-download-json", "n_clicks"),
                "controls": [State(ident, "value") for ident in self.control_ids()],
                "page": State(f"{self.key}-page", "data"),
            },
            prevent_initial_call=True,
        )
        def download(csv, json, controls, page):
            kind = "json" if ctx.triggered_id == f"{self.key}-download-json" else "csv"
            parsed, _ = self.spec.parse_controls(controls)
            if self.awaits_job(cache, parsed, jobs):
                return {
                    "file": no_update,
                    "messages": components.message_children([DOWNLOAD_AWAITS_JOB]),
                }
            with _admitted(slots, client_of(page, http_request.remote_addr)) as admitted:
                if not admitted:
                    return {"file": no_update, "messages": components.message_children([BUSY])}
                return {"file": self.download(cache, controls, kind), "messages": no_update}

    def awaits_job(self, cache: ResultCache, controls: Controls, jobs: Jobs | None) -> bool:
        """Whether these controls' result is a background job's (``jobs``: None on a server
        without them, which computes everything in the request) and not computed yet. Neither
        an update nor a download computes it then: it may take minutes, past the worker's
        timeout (and the page's resend would kill the next worker)."""
        if jobs is None or self.heavy is None or not self.heavy(controls):
            return False
        return cache.get(self.key, *self._cache_key(controls)) is None

    def download(self, cache: ResultCache, raw_controls: Sequence[Any], kind: str) -> Any:
        controls, _ = self.spec.parse_controls(raw_controls)
        try:
            tables = self.tables(controls, self.results(cache, controls).result)
        except Exception:  # the button does nothing; the page's plots already say why
            log.exception("export of %s failed", self.key)
            return no_update
        if kind == "json":
            content, mime = to_json(controls, tables), "application/json"
        else:
            content, mime = to_csv(controls, tables), "text/csv"
        return {"content": content, "filename": f"{self.key}.{kind}", "type": mime}

    def _register_animation(self, app: Dash) -> None:
        """Scrubbing and Play run in the browser (assets/app.js): they move the cursors on the
        plots themselves and only write the frame's time and the button's label here."""
        key = self.key
        app.clientside_callback(
            ClientsideFunction("lazyRich", "scrub"),
            Output(f"{key}-frame-label", "children"),
            Input(f"{key}-frame", "value"),
            Input(f"{key}-frames", "data"),
            prevent_initial_call=True,
        )
        app.clientside_callback(
            ClientsideFunction("lazyRich", "togglePlay"),
            Output(f"{key}-play", "children"),
            Input(f"{key}-play", "n_clicks"),
            State(f"{key}-frame", "value"),
            State(f"{key}-frame", "max"),
            State(f"{key}-frames", "data"),
            prevent_initial_call=True,
        )

    def _register_clicks(self, app: Dash) -> None:
        clickable = list(self.clicks)
        prefix = app.config.requests_pathname_prefix

        @app.callback(
            Output(f"{self.key}-open", "href"),
            inputs=[Input(f"{self.key}-graph-{graph}", "clickData") for graph in clickable],
            state=[
                *[State(ident, "value") for ident in self.control_ids()],
                State(f"{self.key}-page", "data"),
            ],
            prevent_initial_call=True,
        )
        def open_clicked(*args):
            clicks, raw_controls, page = args[: len(clickable)], args[len(clickable) : -1], args[-1]
            trigger = ctx.triggered_id if isinstance(ctx.triggered_id, str) else ""
            graph = trigger.removeprefix(f"{self.key}-graph-")
            if graph not in clickable:
                return no_update
            click = clicks[clickable.index(graph)]
            points = click.get("points") if isinstance(click, dict) else None
            point = points[0] if isinstance(points, list) and points else None
            href = self.open_target(graph, point, raw_controls, page, prefix)
            return href if href is not None else no_update

    def open_target(
        self,
        graph: str,
        point: Any,
        raw_controls: Sequence[Any],
        page: Any = None,
        prefix: str = "/",
    ) -> str | None:
        """The href (with the deployment's path prefix) that a click on ``point`` of ``graph``
        opens, keeping the page embedded if it is; None when there is nothing to open."""
        opener = self.clicks.get(graph)
        parsed = ClickPoint.parse(point)
        if opener is None or parsed is None:
            return None
        controls, _ = self.spec.parse_controls(raw_controls)
        try:
            link = opener(controls, parsed)
        except (TypeError, ValueError, KeyError, IndexError, OverflowError):
            return None
        if link is None:
            return None
        embed = isinstance(page, dict) and truth(page.get("embed")) is True
        target = link.view
        search = target.spec.encode(
            target.spec.with_overrides(link.values, clamp=True),
            embed=embed,
            flags=target.carried(page),
        )
        return prefix.rstrip("/") + target.path + search
