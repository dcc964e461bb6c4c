"""Real servers on loopback for tests and benchmarks: the app exactly as the Procfile starts it
(gunicorn with ``gunicorn.conf.py``), and a throw-away ``redis-server``."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def procfile_command(process: str = "web", env: Mapping[str, str] | None = None) -> list[str]:
    """The Procfile's command of ``process`` (``web`` or ``worker``), run with this
    interpreter's gunicorn or celery; ``${NAME:-default}`` is filled from ``env``."""
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith(f"{process}:"):
            line = re.sub(
                r"\$\{(\w+):-([^}]*)\}",
                lambda found: (env or {}).get(found[1], found[2]),
                line.removeprefix(f"{process}:"),
            )
            words = shlex.split(line)
            if words[0] in ("gunicorn", "celery"):
                return [sys.executable, "-m", *words]
            return words
    raise RuntimeError(f"the Procfile has no {process} process")


def wait_until_up(url: str, process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited early with code {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the server did not answer at {url} within {seconds} s")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


@contextlib.contextmanager
def gunicorn(
    env: Mapping[str, str] | None = None,
    *,
    workers: int = 2,
    threads: int = 2,
    log: Path | None = None,
    ready_path: str = "/healthz",
) -> Iterator[tuple[str, subprocess.Popen]]:
    """Start the Procfile's server on a free loopback port; yields (base URL, process).

    The cache is a fresh file-system cache unless ``env`` says otherwise; ``env`` is added to
    this process's environment (so ``PATH`` and the interpreter's settings carry over)."""
    port = free_port()
    scratch = Path(tempfile.mkdtemp(prefix="lazy-rich-server-"))
    full_env = os.environ | {
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": str(workers),
        "THREADS": str(threads),
        "CACHE_DIR": str(scratch / "cache"),
        # the paper-figures cards are computed beside the server only where a test asks for it
        "PAPER_FIGURES_WARM_UP": "0",
    }
    if "CACHE_REDIS_URL" not in (env or {}):  # else the app's default for a Redis URL applies
        full_env["CACHE_TYPE"] = "FileSystemCache"
    full_env |= dict(env or {})
    log_file = open(log or scratch / "gunicorn.log", "w")
    process = subprocess.Popen(
        procfile_command(), cwd=ROOT, env=full_env, stdout=log_file, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url + ready_path, process)
        yield url, process
    finally:
        stop(process)
        log_file.close()
        shutil.rmtree(scratch / "cache", ignore_errors=True)


def worker_pids(master: int, expected: int | None = None, seconds: float = 30) -> set[int]:
    """The worker PIDs of a gunicorn master; with ``expected``, wait (up to ``seconds``) for
    that many to be running (the health check answers as soon as the first one is up)."""
    deadline = time.monotonic() + seconds
    while True:
        found = subprocess.run(
            ["ps", "-o", "pid=", "--ppid", str(master)], capture_output=True, text=True
        ).stdout
        pids = {int(pid) for pid in found.split()}
        if expected is None or len(pids) == expected or time.monotonic() > deadline:
            return pids
        time.sleep(0.1)


def redis_binary() -> str | None:
    return shutil.which("redis-server")


@contextlib.contextmanager
def redis_server(port: int | None = None) -> Iterator[tuple[str, subprocess.Popen]]:
    """A private ``redis-server`` on loopback (a free port unless given), nothing written to
    disk; yields (``redis://`` URL, process)."""
    binary = redis_binary()
    if binary is None:
        raise RuntimeError("redis-server is not installed (Debian package redis-server)")
    port = port or free_port()
    scratch = tempfile.mkdtemp(prefix="lazy-rich-redis-")
    process = subprocess.Popen(
        [
            binary,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            scratch,
            "--maxmemory",
            "256mb",
            "--maxmemory-policy",
            "allkeys-lru",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}/0", process
    finally:
        stop(process)
        shutil.rmtree(scratch, ignore_errors=True)
