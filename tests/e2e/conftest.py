"""End-to-end fixtures: the real gunicorn server on loopback and a real headless Chromium
(Debian's ``chromium``, driven by Playwright — its own browser download is never used)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

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
]
#: browser console messages that are not errors of ours (GPU-less rendering notes)
BENIGN = ("GPU stall", "willReadFrequently", "WebGL", "GL Driver")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_up(url: str, process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited early with code {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"the server did not answer at {url} within {seconds} s")


@pytest.fixture(scope="session")
def live_server(tmp_path_factory):
    """The production server, as the Procfile starts it, on a free loopback port."""
    port = _free_port()
    workdir = tmp_path_factory.mktemp("server")
    env = os.environ | {"CACHE_TYPE": "FileSystemCache", "CACHE_DIR": str(workdir / "cache")}
    log = open(workdir / "gunicorn.log", "w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "app:server",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--threads",
            "2",
            "--timeout",
            "60",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url + "/", process)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        reason = f"{CHROMIUM} is not installed (Debian packages chromium and chromium-driver)"
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    if shutil.which("xvfb-run") is None:
        pass  # headless needs no display
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield instance
        instance.close()


@pytest.fixture
def page(browser, request):
    """A fresh page that records console errors; the test fails if any appeared."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
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


def screenshot(page, name: str) -> Path:
    folder = ARTIFACTS / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
