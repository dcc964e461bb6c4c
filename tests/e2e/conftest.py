"""End-to-end fixtures: the real gunicorn server on loopback and a real headless Chromium
(Debian's ``chromium``, driven by Playwright — its own browser download is never used)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests import require, servers

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Headless Chromium still builds its own window's address-bar pop-up (a WebUI page of its
    # own in a second renderer) for every new window: ~1 s of CPU per context, ~30 % of what a
    # page load of ours costs the machine (measured by a trace, 2026-11-28). No page of ours
    # sees it; the tests and the browser benchmarks are CPU-bound on two cores.
    "--disable-features=PreloadTopChromeWebUI,PrewarmWebUIContents,WebUIOmniboxPopup,"
    "WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,WebUIReloadButtonPrewarmWebUI",
]
#: browser console messages that are not errors of ours (GPU-less rendering notes)
BENIGN = ("GPU stall", "willReadFrequently", "WebGL", "GL Driver")


@pytest.fixture(scope="session")
def live_server(tmp_path_factory):
    """The production server, started by the Procfile's command, on a free loopback port."""
    log = tmp_path_factory.mktemp("server") / "gunicorn.log"
    with servers.gunicorn(workers=2, threads=2, log=log) as (url, _):
        yield url


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        require(
            "browser", f"{CHROMIUM} is not installed (Debian packages chromium and chromium-driver)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield instance
        instance.close()


#: tall enough for every plot of every view to be in view: plots out of sight are drawn only
#: when scrolled to (assets/app.js), and most tests read every plot after a change
TALL = {"width": 1400, "height": 3600}
#: a laptop's screen: the plots below the fold wait (tests/e2e/test_live.py)
LAPTOP = {"width": 1400, "height": 1000}


def _open_page(browser, viewport: dict):
    context = browser.new_context(viewport=viewport, accept_downloads=True)
    tab = context.new_page()
    errors: list[str] = []
    tab.on(
        "console",
        lambda message: (
            message.type == "error"
            and not any(b in message.text for b in BENIGN)
            and errors.append(message.text)
        ),
    )
    tab.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    tab.console_errors = errors
    yield tab
    context.close()
    assert not errors, f"browser console errors: {errors[:5]}"


@pytest.fixture
def page(browser):
    """A fresh page, every plot in view, that records console errors; the test fails if any
    appeared."""
    yield from _open_page(browser, TALL)


@pytest.fixture
def laptop_page(browser):
    """:func:`page` on a laptop's screen (1400 × 1000): some plots out of sight."""
    yield from _open_page(browser, LAPTOP)


def screenshot(page, name: str) -> Path:
    folder = ARTIFACTS / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
