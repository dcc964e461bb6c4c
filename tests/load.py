"""Simulated students dragging sliders against a live server — the load generator shared by
``benchmarks/load_test.py`` and the fault tests (``tests/e2e/test_faults.py``).

Each student is a thread with its own HTTP connection (kept alive, as a browser does) that opens
a view and then, until stopped, *drags a slider*: a burst of 5–15 requests, each the previous
value moved a little (the updates a drag sends, one after the other as the answers arrive), then
lets go and looks at the plots for 0.5–3 s. The values wander continuously, so almost every
request is a cache miss — the hard case. Between drags a student sometimes switches view or picks
a preset.

Like a browser, a student resends a request once on a fresh connection when the connection
broke before any answer came (a worker that died, a kept-alive socket the server closed): every
request's outcome records whether it needed that retry.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import random
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import requests
import urllib3

from app.core.view import BUSY
from app.views import VIEWS
from tests.dash_client import payload, view_request

TIMEOUT_SECONDS = 30
urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)


@dataclass(frozen=True)
class Outcome:
    started: float  #: time.monotonic() when sent
    seconds: float  #: until the final answer (or failure)
    status: int | None  #: HTTP status of the final answer; None if none came
    retried: bool  #: the first attempt broke without an answer and was sent again
    error: str | None  #: why the request failed (None if it succeeded)
    #: answered without being computed: the page had too many requests in progress
    refused: bool = False


@dataclass
class Tally:
    outcomes: list[Outcome] = field(default_factory=list)
    #: requests sent and not yet answered: id → time.monotonic() when sent
    pending: dict[int, float] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> tuple[int, float]:
        with self.lock:
            ident, now = (
                len(self.outcomes) + len(self.pending) + id(threading.current_thread()),
                time.monotonic(),
            )
            self.pending[ident] = now
            return ident, now

    def add(self, ident: int, outcome: Outcome) -> None:
        with self.lock:
            self.pending.pop(ident, None)
            self.outcomes.append(outcome)

    def oldest_pending(self) -> float:
        """Seconds the longest-waiting request has waited so far (0 if none waits)."""
        with self.lock:
            return time.monotonic() - min(self.pending.values(), default=time.monotonic())

    def snapshot(self) -> list[Outcome]:
        with self.lock:
            return list(self.outcomes)

    @property
    def sent(self) -> int:
        return len(self.snapshot())

    def failed(self) -> list[Outcome]:
        return [o for o in self.snapshot() if o.error]


def _session() -> requests.Session:
    """A client's connection; the test proxy's certificate is self-signed (tests.servers), and
    no certificate bundle of the environment applies to it."""
    session = requests.Session()
    session.verify = False
    session.trust_env = False
    return session


class Student:
    """One simulated user: a view, its current control values and a slider being dragged."""

    def __init__(
        self, url: str, dependencies: list[dict], seed: int, views: Sequence = VIEWS
    ) -> None:
        self.url = url
        self.dependencies = dependencies
        self.rng = random.Random(seed)
        self.views = tuple(views)
        self.session = _session()
        #: the page's own id, as its layout gives it (fair use counts per page)
        self.page = {"embed": False, "messages": [], "client": f"{self.rng.getrandbits(64):016x}"}
        self.open_view(self.rng.choice(self.views))

    def open_view(self, view) -> None:
        self.view = view
        self.values = view.spec.defaults()
        self.preset_callback = next(
            d for d in self.dependencies if d["inputs"][0]["id"] == f"{view.key}-preset"
        )
        self.sliders = [f for f in view.spec.fields if f.kind in ("float", "int") and f.physics]

    def _attempt(self, body: dict) -> tuple[int | None, str | None, bool]:
        try:
            response = self.session.post(
                self.url + "/_dash-update-component", json=body, timeout=TIMEOUT_SECONDS
            )
        except requests.ConnectionError as error:
            return None, type(error).__name__, False
        except requests.RequestException as error:
            return None, type(error).__name__ + " (no retry)", False
        ok = response.status_code in (200, 204)
        refused = BUSY[:60] in response.text
        return response.status_code, None if ok else f"HTTP {response.status_code}", refused

    def post(self, body: dict, tally: Tally) -> None:
        ident, start = tally.start()
        status, error, refused = self._attempt(body)
        retried = status is None and not (error or "").endswith("(no retry)")
        if retried:  # the connection broke before an answer: resend once, as browsers do
            self.session.close()
            self.session = _session()
            status, error, refused = self._attempt(body)
        seconds = time.monotonic() - start
        tally.add(ident, Outcome(start, seconds, status, retried, error, refused))

    def nudge(self, spec, position: float) -> None:
        """Move a slider to a relative position in [0, 1] of its (log) range."""
        if spec.log:
            low, high = math.log10(spec.low), math.log10(spec.high)
            value = 10 ** (low + position * (high - low))
        else:
            value = spec.low + position * (spec.high - spec.low)
        value = round(value) if spec.kind == "int" else value
        self.values = dataclasses.replace(self.values, **{spec.name: value})

    def drag(self, tally: Tally, stop: threading.Event) -> None:
        spec = self.rng.choice(self.sliders)
        position = self.rng.random()
        step = self.rng.choice((-1, 1)) * self.rng.uniform(0.005, 0.03)
        for _ in range(self.rng.randint(5, 15)):
            if stop.is_set():
                return
            position = min(1.0, max(0.0, position + step))
            self.nudge(spec, position)
            body = view_request(self.dependencies, self.view, self.values, page=self.page)
            self.post(body, tally)

    def run(self, tally: Tally, stop: threading.Event) -> None:
        while not stop.is_set():
            choice = self.rng.random()
            if choice < 0.05:
                self.open_view(self.rng.choice(self.views))
            elif choice < 0.10:
                preset = self.rng.choice(self.view.presets)
                key = f"{self.view.key}-preset.value"
                self.post(payload(self.preset_callback, {key: preset.slug}), tally)
            self.drag(tally, stop)
            stop.wait(self.rng.uniform(0.5, 3.0))


@contextlib.contextmanager
def students(url: str, clients: int, seed: int = 0, views: Sequence = VIEWS) -> Iterator[Tally]:
    """``clients`` students load ``url`` while the block runs, on ``views`` (every view by
    default); yields their running tally."""
    dependencies = _session().get(url + "/_dash-dependencies", timeout=10).json()
    tally, stop = Tally(), threading.Event()
    crowd = [Student(url, dependencies, seed + k, views) for k in range(clients)]
    threads = [threading.Thread(target=s.run, args=(tally, stop), daemon=True) for s in crowd]
    for thread in threads:
        thread.start()
        time.sleep(0.5 / clients)  # students arrive over half a second, not in one instant
    try:
        yield tally
    finally:
        stop.set()
        for thread in threads:
            thread.join(TIMEOUT_SECONDS * 2 + 5)


def percentile(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, math.ceil(fraction * len(sorted_values)) - 1)]
