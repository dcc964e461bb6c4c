"""Guided lessons: a page of short text per paper whose live figures follow the text.

Each lesson's text is a plain HTML file beside this module (``lessons/<slug>.html``, the
page's ``<main>``): its figures are embedded views (``<iframe>`` with the embed flags of
docs/embedding.md), its buttons and its "predict, then look" prompts set the figures' state
through ``/embed.js``'s attributes (``data-lazy-rich-set``, ``data-lazy-rich-play``, …).
:func:`page` puts it in the page every lesson shares (the stylesheet, a note for instructors,
the script). The pages are templates for instructors: ``{{app}}`` stands for the app's address,
filled in when the page is served (a path) or downloaded (``?download=1``: the full address,
ready to adapt and put on a course page).

What a lesson says of its figures is checked on the views' own computed results
(tests/integration/test_lessons.py), as the paper cards' claims are.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "BY_SLUG",
    "LESSONS",
    "PLACEHOLDER",
    "STYLESHEET",
    "TEMPLATE_NOTE",
    "Lesson",
    "not_found",
    "page",
]

FOLDER = Path(__file__).with_name("lessons")
STYLESHEET = FOLDER / "lesson.css"
#: what stands for the app's address in a lesson's file
PLACEHOLDER = "{{app}}"


@dataclass(frozen=True)
class Lesson:
    slug: str
    title: str
    #: the paper it follows, as the start page names it
    paper: str
    #: one sentence for the list of lessons
    summary: str

    @property
    def file(self) -> Path:
        return FOLDER / f"{self.slug}.html"

    def path(self) -> str:
        """The lesson's address below the app's."""
        return f"/lessons/{self.slug}"

    def page_title(self) -> str:
        """The browser's title: the lesson's, and whose paper it follows."""
        return f"{self.title} — a lesson after {self.paper.split(',')[0]}"


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "balance-decides-lazy-or-rich",
        "Balance decides: lazy, rich or delayed rich",
        "Kunin et al., Get rich quick",
        "One neuron, one conserved quantity δ: set it, predict the kernel's motion, and watch "
        "the path in function space.",
    ),
    Lesson(
        "the-architecture-decides-which-lambda-is-lazy",
        "The architecture decides which λ is lazy",
        "Dominé et al., From lazy to rich",
        "A funnel and its mirror image, one conserved λ: which sign learns lazily, and which "
        "waits and then learns its features.",
    ),
    Lesson(
        "align-disalign-or-stay-a-kernel",
        "Align, disalign, or stay a kernel",
        "Xu & Ziyin, Three mechanisms of feature learning in a linear network",
        "A two-layer linear network, solved exactly: its layers align, disalign or keep their "
        "kernel, and the kernel phase's features move less and less as the width grows.",
    ),
    Lesson(
        "past-a-threshold-the-kernel-locks-onto-the-task",
        "Past a threshold, the kernel locks onto the task",
        "Shan & Bordelon, Rapid feature evolution accelerates learning",
        "Features that move at a rate γ: past a threshold γ* the kernel's top eigenvector locks "
        "onto the target, and the loss falls exponentially, then as a power law.",
    ),
)
BY_SLUG = {lesson.slug: lesson for lesson in LESSONS}


def page(slug: str, base: str) -> str | None:
    """The lesson ``slug`` (its list when empty) with the app's address ``base`` filled in;
    None for an unknown slug."""
    if not slug:
        return _index(base)
    lesson = BY_SLUG.get(slug)
    if lesson is None:
        return None
    text = lesson.file.read_text().replace(PLACEHOLDER, base)
    bar = f' · <a href="{base}/lessons">Lessons</a>'
    return _shell(lesson.page_title(), base, text, bar=bar, note=TEMPLATE_NOTE, script=True)


#: what an instructor who downloads a lesson reads first
TEMPLATE_NOTE = """<!--
  A lesson of the lazy-vs-rich explorer, and a template for your own course page.
  Keep the <iframe>s (their links choose what each figure shows: docs/embedding.md), the
  buttons and <details> with data-lazy-rich-* attributes (they set the figure's state), and the
  <script> at the end (it sizes the frames and runs the buttons). Change the text.
  What this page says of its figures is checked on their data (tests/integration/test_lessons.py).
-->
"""


def _shell(
    title: str, base: str, body: str, *, bar: str = "", note: str = "", script: bool = False
) -> str:
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f"<title>{html.escape(title)}</title>\n"
        f'<link rel="stylesheet" href="{base}/lessons/lesson.css">\n</head>\n<body>\n{note}'
        f'<header class="lesson-bar"><a href="{base}/">Lazy vs rich, exactly</a>{bar}</header>\n'
        f"<main>\n{body}\n</main>\n"
        + (f'<script src="{base}/embed.js" async></script>\n' if script else "")
        + "</body>\n</html>\n"
    )


def _index(base: str) -> str:
    items = "\n".join(
        f'<li><a href="{base}{lesson.path()}">{html.escape(lesson.title)}</a> — '
        f"<i>{html.escape(lesson.paper)}</i>. {html.escape(lesson.summary)}</li>"
        for lesson in LESSONS
    )
    body = (
        "<h1>Lessons</h1>\n<p>A page per paper, whose live figures follow the text: press the "
        "buttons, predict, then look. Each lesson is also a template for a course page "
        "(docs/embedding.md): download it, change the text, keep the figures.</p>\n"
        f'<ul class="lesson-list">\n{items}\n</ul>'
    )
    return _shell("Lessons — lazy vs rich learning", base, body)


def not_found(slug: str, base: str) -> str:
    body = (
        f"<h1>No such lesson</h1>\n<p>There is no lesson {html.escape(slug[:80])!r}. "
        f'<a href="{base}/lessons">The lessons</a>.</p>'
    )
    return _shell("No such lesson", base, body)
