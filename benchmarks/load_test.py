"""Load test: many simulated students dragging sliders against the real gunicorn server.

    python benchmarks/load_test.py                      # 16 and then 50 clients, 20 s each
    python benchmarks/load_test.py --clients 200 --duration 60 --workers 4

Starts the Procfile's server (``gunicorn app:server`` with ``gunicorn.conf.py``; workers and
threads as in production unless ``--workers``/``--threads`` say otherwise, a fresh file-system
cache) on a free loopback port. Each simulated student is a thread with its own HTTP
connection that opens a view and then, until the time is up, *drags a slider*: a burst of
5–15 requests, each the previous value moved a little (the updates a drag sends, one after
the other as the answers arrive), then lets go and looks at the plots for 0.5–3 s. The values
wander continuously, so almost every request is a cache miss — the hard case. Between drags a
student sometimes switches view or picks a preset.

Prints, per client count: requests per second, latency percentiles (p50/p95/p99/max, ms) and
the number of errors (any answer other than HTTP 200/204, or no answer within 30 s).
"""

from __future__ import annotations

import argparse
import math
import random
import runpy
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.views import VIEWS  # noqa: E402
from tests import servers  # noqa: E402
from tests.dash_client import payload  # noqa: E402


@dataclass
class Tally:
    latencies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, ms: float, error: str | None) -> None:
        with self.lock:
            self.latencies_ms.append(ms)
            if error:
                self.errors.append(error)


class Student:
    """One simulated user: a view, its current control values and a slider being dragged."""

    def __init__(self, url: str, dependencies: list[dict], seed: int) -> None:
        self.url = url
        self.dependencies = dependencies
        self.rng = random.Random(seed)
        self.session = requests.Session()
        self.open_view(self.rng.choice(VIEWS))

    def open_view(self, view) -> None:
        self.view = view
        self.values = view.spec.defaults()
        self.main = next(
            d for d in self.dependencies if f"{view.key}-summary.children" in d["output"]
        )
        self.preset_callback = next(
            d for d in self.dependencies if d["inputs"][0]["id"] == f"{view.key}-preset"
        )
        self.sliders = [f for f in view.spec.fields if f.kind in ("float", "int") and f.physics]

    def post(self, body: dict, tally: Tally) -> None:
        start = time.perf_counter()
        error = None
        try:
            response = self.session.post(
                self.url + "/_dash-update-component", json=body, timeout=30
            )
            if response.status_code not in (200, 204):
                error = f"HTTP {response.status_code}"
        except requests.RequestException as exc:
            error = type(exc).__name__
        tally.add(1e3 * (time.perf_counter() - start), error)

    def nudge(self, spec, position: float) -> None:
        """Move a slider to a relative position in [0, 1] of its (log) range."""
        if spec.log:
            low, high = math.log10(spec.low), math.log10(spec.high)
            value = 10 ** (low + position * (high - low))
        else:
            value = spec.low + position * (spec.high - spec.low)
        self.values[spec.name] = round(value) if spec.kind == "int" else value
        self.values = self.view.spec.parse(self.values).values

    def drag(self, tally: Tally, stop_at: float) -> None:
        spec = self.rng.choice(self.sliders)
        position = self.rng.random()
        step = self.rng.choice((-1, 1)) * self.rng.uniform(0.005, 0.03)
        extras = {
            f"{self.view.key}-extras.data": {},
            f"{self.view.key}-initial-messages.data": [],
        }
        for _ in range(self.rng.randint(5, 15)):
            if time.monotonic() >= stop_at:
                return
            position = min(1.0, max(0.0, position + step))
            self.nudge(spec, position)
            controls = {
                f"{self.view.key}-{name}.value": control
                for name, control in zip(
                    self.view.spec.names, self.view.spec.controls(self.values), strict=True
                )
            }
            self.post(payload(self.main, controls | extras), tally)

    def run(self, tally: Tally, stop_at: float) -> None:
        while time.monotonic() < stop_at:
            choice = self.rng.random()
            if choice < 0.05:
                self.open_view(self.rng.choice(VIEWS))
            elif choice < 0.10:
                preset = self.rng.choice(self.view.presets)
                key = f"{self.view.key}-preset.value"
                self.post(payload(self.preset_callback, {key: preset.name}), tally)
            self.drag(tally, stop_at)
            time.sleep(min(self.rng.uniform(0.5, 3.0), max(0.0, stop_at - time.monotonic())))


def percentile(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, math.ceil(fraction * len(sorted_values)) - 1)]


def run_load(url: str, clients: int, duration: float, seed: int) -> str:
    dependencies = requests.get(url + "/_dash-dependencies", timeout=10).json()
    tally = Tally()
    students = [Student(url, dependencies, seed + k) for k in range(clients)]
    start = time.monotonic()
    stop_at = start + duration
    threads = [
        threading.Thread(target=student.run, args=(tally, stop_at), daemon=True)
        for student in students
    ]
    for thread in threads:
        thread.start()
        time.sleep(0.5 / clients)  # students arrive over half a second, not in one instant
    for thread in threads:
        thread.join(duration + 60)
    elapsed = time.monotonic() - start
    times = sorted(tally.latencies_ms)
    errors = f"{len(tally.errors)}" + (
        f" ({', '.join(sorted(set(tally.errors))[:3])})" if tally.errors else ""
    )
    return (
        f"{clients:7d} {len(times):9d} {len(times) / elapsed:8.1f} "
        f"{statistics.median(times):7.0f} {percentile(times, 0.95):7.0f} "
        f"{percentile(times, 0.99):7.0f} {times[-1]:7.0f}   {errors}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[16, 50])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per client count")
    parser.add_argument("--workers", type=int, help="gunicorn workers (default: production's)")
    parser.add_argument("--threads", type=int, help="threads per worker (default: production's)")
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()

    production = runpy.run_path(str(ROOT / "gunicorn.conf.py"))  # what the Procfile would use
    workers = options.workers or production["workers"]
    threads = options.threads or production["threads"]
    env = {"LOG_LEVEL": "warning"}
    with servers.gunicorn(env, workers=workers, threads=threads) as (url, _):
        requests.get(url + "/_dash-dependencies", timeout=10)
        print(
            f"gunicorn ({workers} workers × {threads} threads, file-system cache) on "
            f"{url}; {options.duration:.0f} s per row; latency in ms"
        )
        print(
            f"{'clients':>7s} {'requests':>9s} {'req/s':>8s} {'p50':>7s} {'p95':>7s} "
            f"{'p99':>7s} {'max':>7s}   errors"
        )
        for clients in options.clients:
            print(run_load(url, clients, options.duration, options.seed), flush=True)


if __name__ == "__main__":
    main()
