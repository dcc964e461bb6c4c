"""The network map's page as a student sees its background job, read in Chromium: the job's
bar, its progress, the status line, the messages and the Retry button; and the job records a
server keeps (its job folder, or Redis). Shared by the job and fault tests and the fault
benchmark."""

from __future__ import annotations

import json
import time
from pathlib import Path

from app.core.jobs import JobRecord
from app.views.networks import MAP

KEY = MAP.key
#: a map of a few seconds on this machine: a background job (MAP.heavy), quick enough to wait for
HEAVY = {"d": 10, "n": 100, "resolution": 10, "steps": 1500}
#: a job whose progress bar moves: the job writes its progress once a second, and a job of
#: HEAVY's size ends in about two on a quiet machine (one value seen)
PROGRESSING = HEAVY | {"steps": 4000}
#: about four times that: long enough to break something while it runs
LONGER = {"d": 10, "n": 100, "resolution": 14, "steps": 3000}
#: the paper's sizes: minutes of work, to be cancelled
MINUTES = {"d": 100, "n": 1000, "width": 50, "resolution": 16, "steps": 2000}

STATUS = f"""() => {{
    const shown = id => {{ const n = document.getElementById(id);
                           return n !== null && !n.hidden; }};
    const text = id => (document.getElementById(id) || {{}}).textContent || '';
    const progress = document.getElementById('{KEY}-progress');
    return {{shown: shown('{KEY}-job-bar'), value: Number(progress && progress.value),
             text: text('{KEY}-progress-text'), timing: text('{KEY}-timing'),
             retry: shown('{KEY}-retry'), messages: text('{KEY}-messages')}};
}}"""
CELLS = f"""() => {{
    const g = document.querySelector('#{KEY}-graph-kernel .js-plotly-plot');
    return g && g._fullData && g._fullData.length ? g._fullData[0].z.length : 0;
}}"""
KERNEL_MAP = f"""() => Array.from(document.querySelector('#{KEY}-graph-kernel .js-plotly-plot')
    ._fullData[0].z, row => Array.from(row))"""


def query_of(values: dict) -> str:
    return "?" + "&".join(f"{name}={value}" for name, value in values.items())


def open_map(page, base: str, values: dict, **options) -> None:
    assert MAP.heavy(MAP.spec.with_overrides(values))
    page.goto(f"{base}{MAP.path}{query_of(values)}", **options)


def follow(page, until, seconds: float = 180) -> list[dict]:
    """The job's states on the page every 100 ms until ``until(state)`` holds (each new state
    with the moment it was first seen, ``at``)."""
    seen, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = page.evaluate(STATUS)
        if not seen or state != {k: v for k, v in seen[-1].items() if k != "at"}:
            seen.append(state | {"at": round(time.monotonic() % 10_000, 1)})
        if until(state):
            return seen
        if ended_with_retry(state) and not ended_with_retry(seen[0]):
            # the page has just given up (it did not start so): no use waiting on
            raise AssertionError(f"the job ended with a message: states {seen[-8:]}")
        page.wait_for_timeout(100)
    raise AssertionError(f"the job did not get there in {seconds} s: states {seen[-8:]}")


#: whether the page shows a map still being computed (its parts done so far: app/core/parts.py)
SO_FAR = f"""() => ((document.getElementById('{KEY}-summary') || {{}}).textContent || '')
    .includes('so far')"""


def drawn(page, cells: int):
    """A test of a state: the whole map of ``cells`` per side is drawn and no job runs (not
    the parts done so far, which a page shows while the job runs and for the moment between
    the job's end and the whole map's answer)."""
    return lambda state: (
        not state["shown"] and page.evaluate(CELLS) == cells and not page.evaluate(SO_FAR)
    )


def running(state: dict) -> bool:
    return state["shown"] and state["value"] > 0


def ended_with_retry(state: dict) -> bool:
    """The job ended without a result: no bar, a message, and the Retry button."""
    return not state["shown"] and state["retry"] and bool(state["messages"])


def ending(page, cells: int, seconds: float = 180) -> tuple[str, float]:
    """Wait until the page shows the map or a message with Retry: ("map" or the message,
    seconds it took)."""
    start = time.monotonic()
    map_drawn = drawn(page, cells)
    last = follow(page, lambda s: map_drawn(s) or ended_with_retry(s), seconds)[-1]
    return ("map" if map_drawn(last) else last["messages"]), time.monotonic() - start


def endings(pages, cells: list[int], seconds: float = 300) -> list[tuple[str, float, list]]:
    """:func:`ending` of several pages watched together: per page ("map" or its message,
    seconds it took, the states it went through)."""
    start, found = time.monotonic(), [None] * len(pages)
    histories: list[list[dict]] = [[] for _ in pages]
    while None in found:
        if time.monotonic() - start > seconds:
            raise AssertionError(f"not every page ended in {seconds} s: {histories}")
        for number, page in enumerate(pages):
            if found[number] is not None:
                continue
            state = page.evaluate(STATUS)
            if not histories[number] or histories[number][-1] != state:
                histories[number].append(state)
            if drawn(page, cells[number])(state):
                found[number] = ("map", time.monotonic() - start, histories[number])
            elif ended_with_retry(state):
                found[number] = (state["messages"], time.monotonic() - start, histories[number])
        pages[0].wait_for_timeout(100)
    return found


def retry(page, cells: int, seconds: float = 180) -> str:
    """Click Retry and wait for the map (or another ending)."""
    page.locator(f"#{KEY}-retry").click()
    follow(page, lambda s: not s["retry"], seconds=30)
    return ending(page, cells, seconds)[0]


def folder_records(jobs_dir: Path) -> list[JobRecord]:
    """The job records in a job folder (JSON files)."""
    found = []
    for path in jobs_dir.glob("job~*.json"):
        found.append(JobRecord.parse(json.loads(path.read_text())["v"]))
    return found


def redis_records(redis_url: str) -> list[JobRecord]:
    """The job records in a deployment's Redis (the broker's database)."""
    import redis

    server = redis.Redis.from_url(redis_url)
    found = []
    for key in server.keys("*lazy-rich:jobs:job:*"):
        raw = server.get(key)
        if raw is not None:
            found.append(JobRecord.parse(json.loads(raw)))
    return found


def record_of(records: list[JobRecord], values: dict) -> JobRecord | None:
    controls = MAP.spec.to_controls(MAP.spec.with_overrides(values))
    return next((r for r in records if r is not None and r.values == controls), None)
