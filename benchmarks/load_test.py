"""Load test: many simulated students dragging sliders against the real gunicorn server.

    python benchmarks/load_test.py                      # 16 and then 50 clients, 20 s each
    python benchmarks/load_test.py --clients 200 --duration 60 --workers 4
    python benchmarks/load_test.py --faults             # the three fault scenarios
    python benchmarks/load_test.py --flood --rounds 4 --duration 20   # one greedy client

Starts the Procfile's server (``gunicorn app:server`` with ``gunicorn.conf.py``; workers and
threads as in production unless ``--workers``/``--threads`` say otherwise, a fresh file-system
cache) on a free loopback port. Each simulated student is a thread with its own HTTP
connection that opens a view and then, until the time is up, *drags a slider*: a burst of
5–15 requests, each the previous value moved a little (the updates a drag sends, one after
the other as the answers arrive), then lets go and looks at the plots for 0.5–3 s. The values
wander continuously, so almost every request is a cache miss — the hard case. Between drags a
student sometimes switches view or picks a preset.

Prints, per client count: requests per second, latency percentiles (p50/p95/p99/max, ms) and
the number of errors (any answer other than HTTP 200/204, or no answer within 30 s, after the
one resend a browser makes when a connection breaks). ``--faults`` instead runs 8 students
through each fault of :mod:`tests.faults` (a worker killed, Redis restarted, the cache folder
made read-only) and prints requests sent, failed and resent. ``--flood`` alternates quiet
phases and phases where one client floods maps and costly states on eight connections
(:func:`tests.faults.flood`), ``--duration`` s each, and prints the student's latency in each
and what the greedy client got. The load generator itself is :mod:`tests.load`.
"""

from __future__ import annotations

import argparse
import runpy
import statistics
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests import faults, servers  # noqa: E402
from tests.load import percentile, students  # noqa: E402


def run_load(url: str, clients: int, duration: float, seed: int) -> str:
    start = time.monotonic()
    with students(url, clients, seed) as tally:
        time.sleep(duration)
    elapsed = time.monotonic() - start
    outcomes = tally.snapshot()
    times = sorted(1e3 * o.seconds for o in outcomes)
    failed = [o.error for o in outcomes if o.error]
    errors = f"{len(failed)}" + (f" ({', '.join(sorted(set(failed))[:3])})" if failed else "")
    return (
        f"{clients:7d} {len(times):9d} {len(times) / elapsed:8.1f} "
        f"{statistics.median(times):7.0f} {percentile(times, 0.95):7.0f} "
        f"{percentile(times, 0.99):7.0f} {times[-1]:7.0f}   {errors}"
    )


def run_faults() -> None:
    print(
        f"8 students; {faults.WARM:.0f} s of load, the fault for {faults.FAULT:.0f} s, then "
        f"{faults.AFTER:.0f} s more (gunicorn 2 workers × 2 threads)"
    )
    print("| fault | requests sent | failed | resent once | 5xx answers |")
    print("| --- | ---: | ---: | ---: | --- |")
    for scenario in faults.SCENARIOS:
        print(scenario().row(), flush=True)


def run_flood(rounds: int, seconds: float) -> None:
    facts = faults.flood(rounds=rounds, seconds=seconds)
    facts.pop("outcomes", None)
    print(f"one greedy client, {rounds} rounds of {seconds:.0f} s quiet / {seconds:.0f} s flooded")
    for name, value in facts.items():
        print(f"  {name}: {value}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[16, 50])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per client count")
    parser.add_argument("--workers", type=int, help="gunicorn workers (default: production's)")
    parser.add_argument("--threads", type=int, help="threads per worker (default: production's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--faults", action="store_true", help="run the fault scenarios instead")
    parser.add_argument("--flood", action="store_true", help="one greedy client instead")
    parser.add_argument("--rounds", type=int, default=4, help="quiet/flooded rounds (--flood)")
    options = parser.parse_args()
    if options.faults:
        run_faults()
        return
    if options.flood:
        run_flood(options.rounds, options.duration)
        return

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
