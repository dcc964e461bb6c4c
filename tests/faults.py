"""Faults injected into a live deployment while simulated students load it: a worker killed with
SIGKILL, Redis stopped and restarted, the cache folder made read-only. Each scenario runs the
Procfile's gunicorn with the load generator of :mod:`tests.load` and returns what happened; the
fault tests assert on it and ``benchmarks/load_test.py --faults`` prints it as table rows."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import tempfile
import threading
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


#: requests served after a fault (or its repair) that a scenario waits for, however slow the
#: machine: the fault tests check that the service carried on
SERVED_AFTER = 25


def served_since(tally, moment: float, count: int = SERVED_AFTER, seconds: float = 180) -> None:
    """Let the students load the server until ``count`` requests sent after ``moment`` have
    been answered (a busy machine answers fewer a second)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done = sum(1 for o in tally.snapshot() if o.started > moment and not o.error)
        if done >= count:
            return
        time.sleep(0.1)


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
            time.sleep(FAULT)
            served_since(tally, struck + 2)
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
                    served_since(tally, repaired)
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


@contextlib.contextmanager
def small_disk(size_kb: int = 512) -> Iterator[Path]:
    """A folder on a file system of its own, ``size_kb`` large (a tmpfs; root only), removed
    afterwards: a disk that :func:`filled` can fill."""
    if os.geteuid() != 0:
        raise PermissionError("a small disk of its own needs root (mount -t tmpfs)")
    folder = Path(tempfile.mkdtemp(prefix="lazy-rich-disk-"))
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0700", "tmpfs", str(folder)],
        check=True,
    )
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)
        with contextlib.suppress(OSError):
            folder.rmdir()


@contextlib.contextmanager
def filled(disk: Path) -> Iterator[None]:
    """Fill a :func:`small_disk` to its last byte while the block runs (no space left on
    the device), then free it."""
    filler = disk / ".filler"
    handle = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        with contextlib.suppress(OSError):  # ENOSPC: full
            while os.write(handle, b"\0" * 4096):
                pass
    finally:
        os.close(handle)
    try:
        yield
    finally:
        filler.unlink()


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
            served_since(tally, repaired)
            entries_after = len(list(folder.iterdir()))
    facts = {
        "entries at fault": entries_at_fault,
        "entries during": entries_during,
        "entries after": entries_after,
    }
    return FaultRun("cache folder read-only", tally.snapshot(), struck, repaired, facts)


SCENARIOS = (kill_a_worker, restart_redis, read_only_cache)


# -- background jobs: faults with a page following its job (Chromium) ------------------------


@contextlib.contextmanager
def celery_deployment(folder: Path, concurrency: int = 1) -> Iterator[dict]:
    """A class deployment on loopback: ``redis-server`` with docs/deploy/redis.conf, the Procfile's
    Celery worker and gunicorn, all with the same settings. Yields what a scenario needs:
    ``url``, ``redis_url``, ``redis`` (its process), ``env``, ``worker`` (its process) and
    ``log`` (the worker's log)."""
    with servers.redis_server() as (redis_url, redis_process):
        broker = servers.with_database(redis_url, 1)
        env = {"CACHE_REDIS_URL": redis_url, "BACKGROUND_BROKER_URL": broker}
        log = folder / "celery.log"
        with servers.celery_worker(env, log, concurrency) as worker:
            with servers.gunicorn(env, log=folder / "gunicorn.log") as (url, _):
                yield {
                    "url": url,
                    "redis_url": redis_url,
                    "broker": broker,
                    "redis": redis_process,
                    "env": env,
                    "worker": worker,
                    "log": log,
                }


def _wait(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} within {seconds} s")
        time.sleep(0.1)


def _new_page(browser):
    return browser.new_page(viewport={"width": 1400, "height": 1000})


def redis_restarted_with_reserved_jobs(browser, folder: Path) -> dict:
    """Three pages open three maps on a one-process Celery worker (one runs, two wait on the
    broker); Redis stops and starts again (empty: docs/deploy/redis.conf keeps no snapshot). The
    worker must live on, and every page end with its map or a message and a Retry, which
    then brings the map."""
    from tests import job_pages as jp

    settings = [jp.LONGER | {"seed": seed} for seed in (21, 22, 23)]
    with celery_deployment(folder) as deployment:
        pages = [_new_page(browser) for _ in settings]
        for page, values in zip(pages, settings, strict=True):
            jp.open_map(page, deployment["url"], values)
        jp.follow(pages[0], jp.running)
        # every page follows its job before Redis stops (a page whose first request came
        # after the stop would be told, truly, that the job store is unavailable)
        for page in pages[1:]:
            jp.follow(page, lambda state: state["shown"])
        port = servers.port_of(deployment["redis_url"])
        servers.stop(deployment["redis"])
        struck = time.monotonic()
        # the worker notices when it next uses its connection (a worker whose one pool process
        # is busy may not read from it until the job ends); its running job notices at once
        _wait(
            lambda: any(
                sign in deployment["log"].read_text()
                for sign in ("Connection to broker lost", "heartbeat not written")
            ),
            60,
            "neither the worker nor its job noticed",
        )
        with servers.redis_server(port=port):
            back = time.monotonic()
            cells = [values["resolution"] for values in settings]
            endings = jp.endings(pages, cells, 600)
            retried = [
                jp.retry(page, values["resolution"], 300) if text != "map" else "map"
                for page, values, (text, *_) in zip(pages, settings, endings, strict=True)
            ]
            alive = deployment["worker"].poll() is None
            health = _health(deployment["url"])
        for page in pages:
            page.close()
    return {
        "worker alive": alive,
        "endings": [text for text, *_ in endings],
        "seconds to each ending after Redis was back": [round(s, 1) for _, s, _ in endings],
        "states": [history for *_, history in endings],
        "Redis away (s)": round(back - struck, 1),
        "after Retry": retried,
        "health": health,
    }


def _health(url: str) -> dict:
    try:
        return health(url)
    except OSError as error:
        return {"error": str(error)}


def _holder_pid(records, values) -> int | None:
    from tests import job_pages as jp

    record = jp.record_of(records, values)
    if record is None or record.state != "running" or ":" not in record.holder:
        return None
    return int(record.holder.rsplit(":", 1)[1])


def celery_child_killed(browser, folder: Path) -> dict:
    """The Celery pool process running a map is killed (SIGKILL) mid-job: Celery gives the
    job back to the queue (it was not acknowledged), a new pool process takes it up again,
    and the page gets its map with no message."""
    from tests import job_pages as jp

    values = jp.LONGER | {"seed": 31}
    with celery_deployment(folder) as deployment:
        page = _new_page(browser)
        jp.open_map(page, deployment["url"], values)
        jp.follow(page, jp.running)
        records = lambda: jp.redis_records(deployment["broker"])  # noqa: E731
        pid = _holder_pid(records(), values)
        os.kill(pid, signal.SIGKILL)
        struck = time.monotonic()
        text, seconds = jp.ending(page, values["resolution"], 300)
        record = jp.record_of(records(), values)
        alive = deployment["worker"].poll() is None
        page.close()
    return {
        "killed": pid,
        "ending": text,
        "seconds from the kill to the map": round(time.monotonic() - struck, 1),
        "tries": record.tries if record else None,
        "worker alive": alive,
        "waited": round(seconds, 1),
    }


def celery_worker_killed(browser, folder: Path) -> dict:
    """The whole Celery worker (its main process and the pool process computing) is killed
    mid-job: the job's heartbeat stops, the page says so with a Retry within LOST_AFTER
    seconds, ``/healthz`` says no worker answers; a new worker is started and Retry brings
    the map."""
    from app.core.jobs import LOST, LOST_AFTER
    from tests import job_pages as jp

    values = jp.LONGER | {"seed": 41}
    with celery_deployment(folder) as deployment:
        page = _new_page(browser)
        jp.open_map(page, deployment["url"], values)
        jp.follow(page, jp.running)
        child = _holder_pid(jp.redis_records(deployment["broker"]), values)
        os.kill(deployment["worker"].pid, signal.SIGKILL)
        os.kill(child, signal.SIGKILL)
        text, seconds = jp.ending(page, values["resolution"], LOST_AFTER + 60)
        _wait(
            lambda: "problem" in _health(deployment["url"]).get("jobs", {}),
            60,
            "/healthz did not report the missing worker",
        )
        degraded = _health(deployment["url"])
        with servers.celery_worker(deployment["env"], folder / "second.log"):
            again = jp.retry(page, values["resolution"], 300)
            healthy = _health(deployment["url"])
        page.close()
    return {
        "ending": text,
        "is the lost message": text == LOST,
        "seconds from the kill to the message": round(seconds, 1),
        "health without a worker": degraded,
        "after a new worker and Retry": again,
        "health after": healthy,
    }


def _local_server(folder: Path, jobs_dir: Path):
    env = {"JOBS_DIR": str(jobs_dir), "CACHE_DIR": str(folder / "cache"), "LOG_LEVEL": "warning"}
    return servers.gunicorn(env, workers=2, threads=2, log=folder / "gunicorn.log")


def _store_fault(browser, folder: Path, jobs_dir: Path, fault) -> dict:
    """A map asked for while the job folder fails (``fault``, a context manager): the page
    says so with a Retry at once; once the folder is back, Retry brings the map."""
    from app.core.jobs import STORE_DOWN
    from tests import job_pages as jp

    values = jp.HEAVY | {"seed": 51}
    with _local_server(folder, jobs_dir) as (url, _):
        page = _new_page(browser)
        page.goto(f"{url}/")  # the server has started its job folder
        with fault:
            jp.open_map(page, url, values)
            text, seconds = jp.ending(page, values["resolution"], 120)
            empty = [  # (lock files are empty by design)
                p.name
                for p in jobs_dir.rglob("*")
                if p.is_file() and p.stat().st_size == 0 and not p.name.startswith(".lock-")
            ]
        again = jp.retry(page, values["resolution"], 300)
        page.close()
    return {
        "ending": text,
        "is the store message": text == STORE_DOWN,
        "seconds to the message": round(seconds, 1),
        "empty files left": empty,
        "after Retry": again,
    }


def jobs_folder_read_only(browser, folder: Path) -> dict:
    jobs_dir = folder / "jobs"
    jobs_dir.mkdir(mode=0o700)
    return _store_fault(browser, folder, jobs_dir, read_only(jobs_dir))


def jobs_folder_full(browser, folder: Path) -> dict:
    with small_disk(2048) as disk:
        return _store_fault(browser, folder, disk / "jobs", filled(disk))


# -- slow clients and a greedy one ---------------------------------------------------------


class SlowClients:
    """``count`` clients that open a TLS connection and send a request's headers one line at a
    time, a line every ``every`` seconds, for ever (a slowloris attack); a connection the
    server drops is opened again at once. ``open_now()``: how many hold a connection."""

    def __init__(self, url: str, count: int = 50, every: float = 2.0) -> None:
        self.host, self.port = "127.0.0.1", servers.port_of(url)
        self.tls = url.startswith("https:")
        self.count, self.every = count, every
        self.stop = threading.Event()
        self._open = 0
        self.started = 0
        self.reopened = 0
        self._lock = threading.Lock()
        self.threads = [threading.Thread(target=self._client, daemon=True) for _ in range(count)]

    def __enter__(self) -> SlowClients:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(self.every + 5)

    def open_now(self) -> int:
        with self._lock:
            return self._open

    def _connect(self):
        import ssl

        sock = socket.create_connection((self.host, self.port), timeout=10)
        if self.tls:
            context = ssl.create_default_context()
            context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
            sock = context.wrap_socket(sock, server_hostname="localhost")
        sock.sendall(b"POST /_dash-update-component HTTP/1.1\r\nHost: localhost\r\n")
        return sock

    def _client(self) -> None:
        # the clients start spread over one header timeout of the proxy (10 s), so that its
        # drops, and their reconnections, are spread too
        if self.stop.wait(random.uniform(0, 10.0)):
            return
        with self._lock:
            self.started += 1
        while not self.stop.is_set():
            try:
                sock = self._connect()
            except OSError:
                self.stop.wait(0.2)
                continue
            with self._lock:
                self._open += 1
            try:
                while not self.stop.wait(self.every):
                    sock.sendall(b"X-Trickle: 1\r\n")
            except OSError:
                with self._lock:
                    self.reopened += 1
            finally:
                with self._lock:
                    self._open -= 1
                sock.close()


def _latencies(outcomes: list[Outcome]) -> dict:
    from tests.load import percentile

    times = sorted(1000 * o.seconds for o in outcomes if not o.error)
    if not times:
        return {"requests": 0}
    return {
        "requests": len(outcomes),
        "failed": sum(1 for o in outcomes if o.error),
        "p50 ms": round(percentile(times, 0.5)),
        "p95 ms": round(percentile(times, 0.95)),
    }


def slow_clients(count: int = 50, students_count: int = 4, seconds: float = 8.0) -> dict:
    """``count`` slowloris clients against the shipped nginx in front of gunicorn (2 workers ×
    2 threads: four threads in all), while students drag sliders through nginx: the students'
    latency quiet, then with the slow clients holding their connections."""
    with servers.gunicorn(workers=2, threads=2, env={"LOG_LEVEL": "warning"}) as (upstream, _):
        with servers.nginx(upstream.removeprefix("http://")) as url:
            with students(url, students_count, views=QUICK_VIEWS) as tally:
                time.sleep(seconds)
            quiet = tally.snapshot()
            with SlowClients(url, count) as slow:
                _wait(lambda: slow.started == count, 60, f"{count} slow clients started")
                _wait(lambda: slow.open_now() >= count - 2, 60, f"{count} slow connections open")
                lows = []
                with students(url, students_count, seed=100, views=QUICK_VIEWS) as tally:
                    deadline = time.monotonic() + seconds
                    while time.monotonic() < deadline:
                        lows.append(slow.open_now())
                        time.sleep(0.1)
                attacked = tally.snapshot()
                reopened = slow.reopened
    return {
        "quiet": _latencies(quiet),
        "with slow clients": _latencies(attacked),
        "slow connections open (least, most)": (min(lows), max(lows)),
        "slow connections dropped by nginx and opened again": reopened,
        "outcomes": attacked,
    }


def _flood(url: str, stop: threading.Event, sent: list, client: str) -> None:
    """One connection of the greedy client, asking for ever for another large map (a new seed
    each time) and for costly trajectories, as the client's one page. ``sent`` gets (view,
    status, what the answer said: "429", "one at a time", "busy" or "")."""
    import requests

    from app.core.jobs import CLIENT_FULL
    from app.views import BY_KEY
    from tests.dash_client import view_request
    from tests.job_pages import LONGER

    dependencies = requests.get(url + "/_dash-dependencies", timeout=10).json()
    network_map, network = BY_KEY["networks-map"], BY_KEY["networks"]
    page = {"embed": False, "messages": [], "client": client}
    session = requests.Session()
    seed = threading.get_ident() % 997
    while not stop.is_set():
        seed = (seed + 1) % 1000
        chosen = network_map.spec.with_overrides(LONGER | {"seed": seed})
        costly = network.spec.with_overrides({"seed": seed, "width": 200, "n": 1000})
        for view, controls in ((network_map, chosen), (network, costly)):
            body = view_request(dependencies, view, controls, page=page)
            try:
                answer = session.post(url + "/_dash-update-component", json=body, timeout=60)
            except requests.RequestException as error:
                sent.append((view.key, None, type(error).__name__))
                continue
            said = (
                "429"
                if answer.status_code == 429
                else "one at a time"
                if CLIENT_FULL[:40] in answer.text
                else "busy"
                if "still computing" in answer.text
                else ""
            )
            sent.append((view.key, answer.status_code, said))


def _greedy_client(url: str, stop, answers, connections: int = 8) -> None:
    """The greedy client, in a process of its own, as if on a machine of its own:
    ``connections`` connections until ``stop`` is set, then what they sent, onto ``answers``.
    Its threads in the student's process would slow the student's requests through Python's
    one interpreter lock, and at the CPU priority of the server it would take a core of the
    server's two for building its requests: either would measure the load generator sharing
    the machine, not what the server does with a flood. (It still sends as fast as the server
    answers.)"""
    os.nice(10)
    sent: list = []
    halt = threading.Event()
    threads = [
        threading.Thread(target=_flood, args=(url, halt, sent, "f" * 16))
        for _ in range(connections)
    ]
    for thread in threads:
        thread.start()
    stop.wait()
    halt.set()
    for thread in threads:
        thread.join(70)
    answers.put(sent)


def _flood_phase(
    url: str, jobs_dir: Path, seconds: float, seed: int, views: tuple
) -> tuple[list, list, int]:
    """One student drags sliders of ``views`` for ``seconds`` while the greedy client floods; (the
    student's outcomes, the greedy client's answers, most jobs active at once)."""
    import multiprocessing

    from tests.job_pages import folder_records

    spawn = multiprocessing.get_context("spawn")
    stop, answers, most = spawn.Event(), spawn.Queue(), 0
    greedy = spawn.Process(target=_greedy_client, args=(url, stop, answers), daemon=True)
    greedy.start()
    with students(url, 1, seed=seed, views=views) as tally:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            active = [r for r in folder_records(jobs_dir) if r and not r.ended]
            most = max(most, len(active))
            time.sleep(0.2)
    stop.set()
    sent = answers.get(timeout=90)
    greedy.join(10)
    return tally.snapshot(), sent, most


def flood(rounds: int = 2, seconds: float = 8.0, jobs_dir: Path | None = None) -> dict:
    """One client floods the server (eight connections: large maps, costly trajectories) while
    another student drags sliders. Quiet and flooded phases alternate (``rounds`` of each, the
    machine's own load drifts): the student's p95 in each, their ratio, and what the greedy
    client got."""
    folder = Path(tempfile.mkdtemp(prefix="lazy-rich-flood-"))
    jobs_dir = jobs_dir or folder / "jobs"
    env = {"JOBS_DIR": str(jobs_dir), "LOG_LEVEL": "warning"}
    quiet, flooded, sent, most, ratios = [], [], [], 0, []
    with servers.gunicorn(env, workers=2, threads=4, log=folder / "gunicorn.log") as (url, _):
        for number in range(rounds):
            # one view in both phases of a round: the views differ several-fold in cost, so
            # students free to pick theirs would compare views, not phases (and other values
            # in each phase: a value the quiet phase computed is a cache hit when flooded)
            view = (QUICK_VIEWS[number % len(QUICK_VIEWS)],)
            with students(url, 1, seed=10 + number, views=view) as tally:
                time.sleep(seconds)
            calm = tally.snapshot()
            busy, answers, top = _flood_phase(url, jobs_dir, seconds, 20 + number, view)
            quiet, flooded, sent, most = (
                quiet + calm,
                flooded + busy,
                sent + answers,
                max(most, top),
            )
            ratios.append(_latencies(busy)["p95 ms"] / max(_latencies(calm)["p95 ms"], 1))
    maps = [s for s in sent if s[0] == "networks-map"]
    return {
        "quiet": _latencies(quiet),
        "during the flood": _latencies(flooded),
        "p95 flooded / quiet, per round": [round(r, 2) for r in ratios],
        "student's requests refused": sum(1 for o in flooded if o.refused),
        "greedy requests": len(sent),
        "greedy refused at once (429)": sum(1 for s in sent if s[2] == "429"),
        "greedy 5xx or no answer": sum(1 for s in sent if s[1] is None or s[1] >= 500),
        "greedy maps refused (one at a time)": sum(1 for s in maps if s[2] == "one at a time"),
        "greedy maps": len(maps),
        "greedy updates refused (busy)": sum(1 for s in sent if s[2] == "busy"),
        "most jobs queued or running at once": most,
        "outcomes": flooded,
    }
