"""The paper-figures page in a real browser: every card's figure arrives from the server, and a
card's link opens its figure's setup in the interactive view (by mouse and by keyboard)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import requests

from app import paper_figures as pf
from tests import servers
from tests.e2e.conftest import screenshot
from tests.e2e.test_browser import TIMEOUT, wait_for_graphs

pytestmark = pytest.mark.e2e


def _card_selector(card: pf.Card) -> str:
    return f"#{pf.PREFIX}-{card.key}"


#: every card computed: about sixty figures, twenty of them trained networks (~1 s each), on a
#: server of two workers sharing two cores with the test run
CARDS_TIMEOUT = 120_000


def wait_for_cards(page, cards: Sequence[pf.Card] = pf.CARDS) -> None:
    """Scrolls through the page, card by card (a card is drawn when it comes into view), until
    every card's plot has drawn data (plotly's own ``_fullData``, not the props)."""
    for card in cards:
        page.locator(_card_selector(card)).scroll_into_view_if_needed()
        page.wait_for_function(
            """s => { const g = document.querySelector(s + ' .js-plotly-plot');
                   return g !== null && g._fullData && g._fullData.length > 0; }""",
            arg=_card_selector(card),
            timeout=CARDS_TIMEOUT,
        )


def test_cards_out_of_sight_are_not_drawn(page, live_server):
    page.goto(f"{live_server}{pf.PATH}")
    first = pf.CARDS[0]
    page.wait_for_selector(f"{_card_selector(first)} .js-plotly-plot", timeout=CARDS_TIMEOUT)
    page.wait_for_timeout(1000)
    drawn = page.locator(".paper-card .js-plotly-plot").count()
    assert 1 <= drawn < len(pf.CARDS) // 2  # the first screens only
    last = pf.CARDS[-1]
    assert page.locator(f"{_card_selector(last)} .js-plotly-plot").count() == 0
    evidence = page.locator(f"#{first.evidence_id}")
    assert evidence.inner_text().startswith("✓ Seen in this card's data: ")


def wait_for_caption(page, card: pf.Card) -> None:
    page.wait_for_function(
        "([id, text]) => { const node = document.getElementById(id);"
        " return node !== null && node.textContent === text; }",
        arg=[f"{card.view.key}-preset-caption", card.preset.caption],
        timeout=TIMEOUT,
    )


def test_every_card_draws_and_a_link_opens_the_preset(page, live_server):
    page.goto(f"{live_server}{pf.PATH}")
    wait_for_cards(page)
    assert page.locator(".paper-card").count() == len(pf.CARDS)
    assert page.locator(".paper-card-note:not(:empty)").count() == 0
    assert page.locator(".nav-link.active").inner_text() == "Paper figures"
    for card in pf.CARDS:  # each card's plot shows its own panel, not an empty frame
        traces = page.evaluate(
            "s => document.querySelector(s)._fullData.length",
            f"{_card_selector(card)} .js-plotly-plot",
        )
        assert traces > 0, card.key
    page.wait_for_timeout(500)  # let the 3-D scenes settle
    screenshot(page, "paper-figures")

    card = next(c for c in pf.CARDS if c.preset.name.startswith("Fig. 3 — μ, φ and S"))
    page.evaluate("window.paperFiguresVisit = true")
    page.locator(f"{_card_selector(card)} a.card-link").click()
    wait_for_caption(page, card)
    assert urlparse(page.url).path == card.view.path
    assert page.evaluate("window.paperFiguresVisit === true"), "the link reloaded the page"
    assert card.preset.name in page.locator(f"#{card.view.key}-preset").inner_text()
    wait_for_graphs(page, card.view)
    expected = card.view.spec.with_overrides(card.preset.values)
    for _ in range(40):  # the view rewrites the link with every value of the preset
        shown = card.view.parse_link(urlparse(page.url).query).controls
        if shown == expected:
            break
        page.wait_for_timeout(250)
    assert shown == expected


def test_embedded_page_has_no_chrome_and_links_work_from_the_keyboard(page, live_server):
    page.goto(f"{live_server}{pf.PATH}?embed=1")
    card = next(c for c in pf.CARDS if c.view.key == "lambda-balanced")
    wait_for_cards(page, [card])  # (every card drawing is the test above)
    assert page.locator(".site-header").count() == 0
    assert page.locator(".paper-figures h1, .paper-figures > .explanation").count() == 0
    link = page.locator(f"{_card_selector(card)} a.card-link")
    link.focus()
    page.keyboard.press("Enter")
    wait_for_caption(page, card)
    assert urlparse(page.url).path == card.view.path
    assert parse_qs(urlparse(page.url).query).get("embed") == ["1"]
    assert page.locator(".site-header").count() == 0


def _precompute(server_pid: int) -> list[int]:
    found = subprocess.run(
        ["pgrep", "-f", f"app.precompute {server_pid}"], capture_output=True, text=True
    ).stdout
    return [int(pid) for pid in found.split()]


def _wait(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


@pytest.mark.slow
def test_the_server_computes_every_card_beside_itself_and_takes_it_along_when_it_stops():
    with servers.gunicorn({"PAPER_FIGURES_WARM_UP": "1"}) as (url, server):
        assert _wait(lambda: _precompute(server.pid), 30), "no card computation started"
        assert _wait(lambda: not _precompute(server.pid), 900), "the cards took too long"
        for card in pf.CARDS:
            answer = requests.get(f"{url}/{pf.CARD_ROUTE}{card.key}", timeout=30).json()
            assert answer["message"] is None and answer["claim"]["holds"], card.key
    with servers.gunicorn({"PAPER_FIGURES_WARM_UP": "1"}) as (url, server):
        assert _wait(lambda: _precompute(server.pid), 30)
        pids = _precompute(server.pid)
    # the server has stopped: its card computation must not carry on without it
    assert _wait(lambda: not any(Path(f"/proc/{pid}").exists() for pid in pids), 10)
