"""The start page: what the explorer is about, a card per model view, per map, and the paper
figures."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from dash import dcc, html

from .core.page import Page
from .embed.lessons import LESSONS
from .ui import components
from .views import MAPS, VIEWS

__all__ = ["PAGE"]

INTRO = (
    "How does a neural network learn? In the **lazy** regime its features — the neural "
    "tangent kernel (NTK) — hardly move: training is kernel regression with the kernel it "
    "started with. In the **rich** regime the features themselves change to fit the task. "
    "Which one you get depends on the initialisation: its overall scale, the balance between "
    "layers, the width, the learning rates. For small linear networks the learning dynamics "
    "can be solved *exactly*; every curve in this explorer is such an exact solution, with a "
    "real gradient-descent run drawn on top."
)
MAPS_INTRO = (
    "Each map is a whole grid of exact solutions, recomputed whenever a control moves (the time "
    "slider included, where the map has one). Click a cell to open that trajectory."
)
LESSONS_INTRO = (
    "A page per paper whose live figures follow the text: press the buttons, predict, then "
    "look. Each is a template for a course page too."
)
FIGURES_INTRO = (
    "Every figure of the papers that the explorer reproduces, on one page, each linked to the "
    "view that opens its set-up."
)


def _cards(views: Iterable, link: Callable[[str], str]) -> html.Div:
    return html.Div(
        [
            html.Div(
                [
                    html.H2(dcc.Link(view.nav_title, href=link(view.path))),
                    html.P(view.summary),
                    dcc.Link("Open →", href=link(view.path), className="card-link"),
                ],
                className="view-card",
            )
            for view in views
        ],
        className="cards",
    )


def _lessons(link: Callable[[str], str]) -> html.Ul:
    """A link per lesson: plain links, as a lesson is a page of its own, not one of Dash's."""
    return html.Ul(
        [
            html.Li([html.A(lesson.title, href=link(lesson.path())), f" — {lesson.paper}."])
            for lesson in LESSONS
        ],
        className="lesson-links",
    )


def layout(link: Callable[[str], str], search: str, embed: bool) -> html.Div:
    return html.Div(
        [
            html.H1("Lazy vs rich learning, exactly"),
            components.explanation(INTRO),
            _cards((view for view in VIEWS if not view.is_map), link),
            html.H2("Phase portraits: where the boundary lies", id="maps"),
            components.explanation(MAPS_INTRO),
            _cards(MAPS, link),
            html.H2("Lessons", id="lessons"),
            html.P(LESSONS_INTRO),
            _lessons(link),
            html.H2("The papers' figures", id="paper-figures"),
            html.P(
                [
                    FIGURES_INTRO + " ",
                    dcc.Link("Open the paper figures →", href=link("/paper-figures")),
                ]
            ),
        ],
        className="home",
    )


PAGE = Page(path="/", nav_title="Start", layout=layout)
