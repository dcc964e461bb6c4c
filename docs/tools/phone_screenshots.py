"""The phone screenshots of docs/using.md: every view's first screen at 390 × 844 (touch), light
and dark, taken in headless Chromium against the Procfile's gunicorn; and the README's gallery,
every view's light screenshot side by side in one picture.

    python docs/tools/phone_screenshots.py                 # into assets/screenshots/phone/
    python docs/tools/phone_screenshots.py --views networks --open   # the controls' sheet open
    python docs/tools/phone_screenshots.py --gallery-only  # the gallery from the pictures there

Each picture is the first screen a student sees (the controls' sheet folded along the bottom),
reduced to 256 colours by ``pngquant`` when it is installed (Debian package ``pngquant``), so
that the pictures stay small.
"""

from __future__ import annotations

import argparse
import base64
import html
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app.views import VIEWS  # noqa: E402
from tests import servers  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.e2e.test_browser import light, wait_for_graphs  # noqa: E402

FOLDER = ROOT / "assets" / "screenshots" / "phone"
GALLERY = ROOT / "assets" / "screenshots" / "phone-gallery.png"
PHONE = {"width": 390, "height": 844}
#: the gallery's columns, and each screenshot's width in it (CSS pixels)
COLUMNS, THUMB = 5, 190


def shrink(path: Path) -> None:
    """256 colours (pngquant), where it is installed: a third of the bytes, the same look."""
    if shutil.which("pngquant"):
        subprocess.run(
            ["pngquant", "--force", "--skip-if-larger", "--output", str(path), "256", str(path)],
            check=False,
        )


def take(browser, url: str, view, scheme: str, opened: bool) -> Path:
    context = browser.new_context(
        viewport=PHONE, is_mobile=True, has_touch=True, color_scheme=scheme
    )
    page = context.new_page()
    try:
        page.goto(url + view.path + light(view))
        wait_for_graphs(page, view)
        page.wait_for_timeout(3000)  # the plots resize once, the formulas' font arrives
        suffix = ""
        if opened:
            page.locator(".sidebar-summary").tap()
            page.wait_for_timeout(800)
            suffix = "-controls"
        path = FOLDER / f"{view.key}{suffix}-{scheme}.png"
        page.screenshot(path=str(path))
    finally:
        context.close()
    shrink(path)
    return path


def gallery(browser) -> Path:
    """Every view's light phone screenshot, scaled down, five to a row under its name: one
    picture for the README (which stays short) instead of fifteen."""
    cells = []
    for view in VIEWS:
        picture = FOLDER / f"{view.key}-light.png"
        if not picture.exists():
            raise FileNotFoundError(f"{picture} is missing: take the screenshots first")
        data = base64.b64encode(picture.read_bytes()).decode()
        name = f"{html.escape(view.nav_title)}<br><code>{view.path}</code>"
        cells.append(f'<figure><img src="data:image/png;base64,{data}"><p>{name}</p></figure>')
    page_html = (
        "<style>body{margin:0;background:#fff;font:12px system-ui,sans-serif;color:#22313f}"
        f"main{{display:grid;grid-template-columns:repeat({COLUMNS},{THUMB}px);gap:14px;"
        "padding:14px;width:max-content}"
        f"figure{{margin:0}}img{{width:{THUMB}px;border:1px solid #cfd6dd;border-radius:6px}}"
        "p{margin:4px 0 0;text-align:center;line-height:1.3}code{color:#5c6670}</style>"
        f"<main>{''.join(cells)}</main>"
    )
    page = browser.new_page(viewport={"width": 1100, "height": 800}, device_scale_factor=1)
    try:
        page.set_content(page_html)
        page.locator("main").screenshot(path=str(GALLERY))
    finally:
        page.close()
    shrink(GALLERY)
    return GALLERY


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--views", nargs="*", default=[v.key for v in VIEWS])
    parser.add_argument("--open", action="store_true", help="with the controls' sheet open")
    parser.add_argument("--gallery-only", action="store_true", help="only the README's gallery")
    options = parser.parse_args()
    from playwright.sync_api import sync_playwright

    FOLDER.mkdir(parents=True, exist_ok=True)
    with servers.gunicorn({"LOG_LEVEL": "warning"}) as (url, _), sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("CHROMIUM", CHROMIUM), args=CHROMIUM_ARGS
        )
        for view in [v for v in VIEWS if v.key in options.views and not options.gallery_only]:
            for scheme in ("light", "dark"):
                path = take(browser, url, view, scheme, options.open)
                print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KB", flush=True)
        if not options.open:
            path = gallery(browser)
            print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KB", flush=True)
        browser.close()


if __name__ == "__main__":
    main()
