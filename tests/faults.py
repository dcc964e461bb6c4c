"""Faults injected into a live deployment while simulated students load it: a worker killed with
SIGKILL, Redis stopped and restarted, the cache folder made read-only. Each scenario runs the
Procfile's gunicorn with the load generator of :mod:`tests.load` and returns what happened; the
fault tests assert on it and ``benchmarks/load_test.py --faults`` prints it as table rows."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from app.views import VIEWS
from tests import servers
from tests.load import Outcome, students

#: seconds of load before the fault, with the fault, and after it is repaired
WARM, FAULT, AFTER = 3.0, 5.0, 4.0


@dataclass(frozen=True)
class FaultRun:
    name: str
    outcomes: list[Outcome]
    #: time.monotonic() of the fault and of its repair (None if it needs none)
    struck: float
    repaired: float | None
    #: scenario-specific observations (worker PIDs, cache entries, health answers)
    facts: dict

    @property
    def sent(self) -> int:
        return len(self.outcomes)

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.error]

    @property
    def retried(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.retried]

    def served_after(self, moment: float) -> int:
        return sum(1 for o in self.outcomes if o.started > moment and not o.error)

    def row(self) -> str:
        statuses = sorted({o.status for o in self.outcomes if o.status and o.status >= 500})
        return (
            f"| {self.name} | {self.sent} | {len(self.failed)} | {len(self.retried)} | "
            f"{', '.join(map(str, statuses)) or 'none'} |"
        )


def health(url: str) -> dict:
    import json

    with urllib.request.urlopen(url + "/healthz", timeout=5) as response:
        return json.loads(response.read())


def _established_inodes() -> set[str]:
    """The socket inodes of this machine's established TCP connections (IPv4 and IPv6)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "01":  # ESTABLISHED
                    inodes.add(fields[9])
    return inodes


def holds_connection(pid: int) -> bool:
    """Whether a process has accepted (holds) an established TCP connection."""
    sockets = set()
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    sockets.add(target[len("socket:[") : -1])
    return bool(sockets & _established_inodes())


def replacement_worker(master: int, dead: int, seconds: float = 30) -> int:
    """The worker a gunicorn master started in place of ``dead`` (waits for it)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        fresh = servers.worker_pids(master) - {dead}
        if fresh:
            return min(fresh)
        time.sleep(0.01)
    raise TimeoutError(f"no worker replaced {dead} within {seconds} s")


def kill_on_first_connection(pid: int, seconds: float = 30) -> None:
    """SIGKILL a worker as soon as it accepts a connection, so that the request on it breaks
    (polled every millisecond; a fresh worker's first answer takes far longer)."""
    deadline = time.monotonic() + seconds
    while not holds_connection(pid):
        if time.monotonic() > deadline:
            raise TimeoutError(f"worker {pid} accepted no connection within {seconds} s")
        time.sleep(0.001)
    os.kill(pid, signal.SIGKILL)


#: the views whose every request is answered within ~0.1 s (no trained networks, no background
#: jobs): among their requests, one pending for half a second waits on the frozen worker
QUICK_VIEWS = tuple(view for view in VIEWS if view.heavy is None)


def kill_a_worker(clients: int = 8) -> FaultRun:
    """SIGKILL one of two workers mid-load while it holds a request; the master must start a
    replacement. The victim is first frozen (SIGSTOP) until a request is seen waiting on it,
    so that the kill certainly breaks a request in flight."""
    with servers.gunicorn(workers=2, threads=2, env={"LOG_LEVEL": "warning"}) as (url, master):
        before = servers.worker_pids(master.pid, expected=2)
        with students(url, clients, views=QUICK_VIEWS) as tally:
            time.sleep(WARM)
            victim = min(before)
            os.kill(victim, signal.SIGSTOP)
            deadline = time.monotonic() + FAULT
            while tally.oldest_pending() < 0.5 and time.monotonic() < deadline:
                time.sleep(0.01)
            in_flight = sum(1 for t in tally.pending.copy().values() if t < time.monotonic() - 0.5)
            struck = time.monotonic()
            os.kill(victim, signal.SIGKILL)
            time.sleep(FAULT + AFTER)
        after = servers.worker_pids(master.pid, expected=2)
        facts = {"victim": victim, "before": before, "after": after, "waiting on it": in_flight}
        return FaultRun("a worker killed (SIGKILL)", tally.snapshot(), struck, None, facts)


def restart_redis(clients: int = 8) -> FaultRun:
    """Stop the shared Redis mid-load and start it again on the same port."""
    import redis

    with servers.redis_server() as (redis_url, process):
        port = int(redis_url.rsplit(":", 1)[1].split("/")[0])
        env = {"CACHE_REDIS_URL": redis_url, "CACHE_RETRY_AFTER": "1", "LOG_LEVEL": "error"}
        with servers.gunicorn(env, workers=2, threads=2) as (url, _):
            with students(url, clients) as tally:
                time.sleep(WARM)
                stored_before = len(redis.Redis.from_url(redis_url).keys("*"))
                struck = time.monotonic()
                servers.stop(process)
                time.sleep(FAULT)
                health_down = health(url)
                with servers.redis_server(port=port):
                    repaired = time.monotonic()
                    time.sleep(AFTER)
                    stored_after = len(redis.Redis.from_url(redis_url).keys("*"))
                    health_up = health(url)
            facts = {
                "stored before": stored_before,
                "stored after restart": stored_after,
                "health while down": health_down,
                "health after": health_up,
            }
            return FaultRun("Redis stopped, restarted", tally.snapshot(), struck, repaired, facts)


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """Make ``folder`` read-only for the server's workers: its mode bits, or — as root, whom
    mode bits do not stop — the immutable attribute, or a read-only bind mount."""
    if os.geteuid() != 0:
        mode = folder.stat().st_mode
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(mode)
        return
    commands = [
        (["chattr", "+i", str(folder)], ["chattr", "-i", str(folder)]),
        (
            [
                "sh",
                "-c",
                f"mount --bind '{folder}' '{folder}' && mount -o remount,ro,bind '{folder}'",
            ],
            ["umount", str(folder)],
        ),
    ]
    for protect, release in commands:
        if subprocess.run(protect, capture_output=True).returncode == 0:
            try:
                yield
            finally:
                subprocess.run(release, capture_output=True)
            return
    raise RuntimeError(f"could not make {folder} read-only (chattr and mount both failed)")


def read_only_cache(clients: int = 8) -> FaultRun:
    """Make the file-system cache folder read-only mid-load (a full disk behaves alike)."""
    folder = Path(tempfile.mkdtemp(prefix="lazy-rich-ro-")) / "cache"
    folder.mkdir()
    env = {"CACHE_DIR": str(folder), "CACHE_RETRY_AFTER": "1", "LOG_LEVEL": "error"}
    with servers.gunicorn(env, workers=2, threads=2) as (url, _):
        with students(url, clients) as tally:
            time.sleep(WARM)
            with read_only(folder):
                struck = time.monotonic()
                entries_at_fault = len(list(folder.iterdir()))
                time.sleep(FAULT)
                entries_during = len(list(folder.iterdir()))
            repaired = time.monotonic()
            time.sleep(AFTER)
            entries_after = len(list(folder.iterdir()))
    facts = {
        "entries at fault": entries_at_fault,
        "entries during": entries_during,
        "entries after": entries_after,
    }
    return FaultRun("cache folder read-only", tally.snapshot(), struck, repaired, facts)


SCENARIOS = (kill_a_worker, restart_redis, read_only_cache)
