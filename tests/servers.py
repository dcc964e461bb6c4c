"""Real servers on loopback for tests and benchmarks: the app exactly as the Procfile starts it
(gunicorn with ``gunicorn.conf.py``), and a throw-away ``redis-server``."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
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


#: the password of every test Redis (docs/deploy/redis.conf requires one): one per test session, so
#: that a Redis restarted on the same port answers the same URL
REDIS_PASSWORD = secrets.token_hex(16)


def _redis_ready(port: int, password: str) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(f"AUTH {password}\r\nPING\r\n".encode())
            answer = b""
            while b"PONG" not in answer and len(answer) < 200:
                chunk = sock.recv(64)
                if not chunk:
                    break
                answer += chunk
            return b"+PONG" in answer
    except OSError:
        return False


@contextlib.contextmanager
def redis_server(
    port: int | None = None, options: Sequence[str] = ()
) -> Iterator[tuple[str, subprocess.Popen]]:
    """A private ``redis-server`` with the shipped configuration (``docs/deploy/redis.conf``:
    password, bounded memory, eviction of what expires, no persistence) on a loopback port (a
    free one unless given); ``options`` override more of it (``--maxmemory``, ``1mb``). Yields
    (``redis://`` URL with the password, process)."""
    binary = redis_binary()
    if binary is None:
        raise RuntimeError("redis-server is not installed (Debian package redis-server)")
    port = port or free_port()
    scratch = tempfile.mkdtemp(prefix="lazy-rich-redis-")
    process = subprocess.Popen(
        [
            binary,
            str(ROOT / "docs" / "deploy" / "redis.conf"),
            *("--bind", "127.0.0.1", "--port", str(port), "--dir", scratch),
            *("--requirepass", REDIS_PASSWORD),
            *options,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while not _redis_ready(port, REDIS_PASSWORD):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.1)
        yield f"redis://:{REDIS_PASSWORD}@127.0.0.1:{port}/0", process
    finally:
        stop(process)
        shutil.rmtree(scratch, ignore_errors=True)


def port_of(url: str) -> int:
    """The port of a ``redis://`` or ``http(s)://`` URL."""
    return int(urllib.parse.urlsplit(url).port)


def with_database(redis_url: str, database: int) -> str:
    return redis_url.rsplit("/", 1)[0] + f"/{database}"


@contextlib.contextmanager
def celery_worker(
    env: Mapping[str, str], log: Path, concurrency: int = 1
) -> Iterator[subprocess.Popen]:
    """The Procfile's Celery worker with ``env`` added to this process's environment; waits
    until it is ready."""
    worker = subprocess.Popen(
        procfile_command("worker", {"WORKER_CONCURRENCY": str(concurrency)}),
        cwd=ROOT,
        env=os.environ | dict(env),
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 120
        while " ready." not in log.read_text():
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Celery worker did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield worker
    finally:
        stop(worker)


def _certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for localhost (openssl)."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"),
            *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost"),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def nginx_config(upstream: str, folder: Path, https_port: int, http_port: int) -> Path:
    """``docs/deploy/nginx.conf`` as shipped, with only what a test must change: the ports, the
    certificate, the upstream, and where nginx writes (pid, logs, temporary files)."""
    cert, key = _certificate(folder)
    text = (ROOT / "docs" / "deploy" / "nginx.conf").read_text()
    changes = [
        (r"server 127\.0\.0\.1:8050;", f"server {upstream};"),
        (r"listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;"),
        (r"listen \[::\]:443 ssl http2;\n", ""),
        (r"listen 80;", f"listen 127.0.0.1:{http_port};"),
        (r"listen \[::\]:80;\n", ""),
        (r"ssl_certificate /\S+;", f"ssl_certificate {cert};"),
        (r"ssl_certificate_key /\S+;", f"ssl_certificate_key {key};"),
        (r"pid /\S+;", f"pid {folder / 'nginx.pid'};"),
        (r"error_log /\S+ warn;", f"error_log {folder / 'error.log'} warn;"),
        (r"access_log /\S+;", f"access_log {folder / 'access.log'};"),
        (
            r"include /etc/nginx/mime.types;",
            "include /etc/nginx/mime.types;\n"
            + "\n".join(
                f"    {kind}_temp_path {folder / kind};"
                for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
            ),
        ),
    ]
    for pattern, replacement in changes:
        text, count = re.subn(pattern, lambda _, new=replacement: new, text)
        if count != 1:
            raise RuntimeError(f"docs/deploy/nginx.conf changed: {pattern!r} matched {count} times")
    config = folder / "nginx.conf"
    config.write_text(text)
    return config


@contextlib.contextmanager
def nginx(upstream: str) -> Iterator[str]:
    """The shipped nginx configuration in front of ``upstream`` (host:port); yields its
    ``https://`` URL (a self-signed certificate: clients must not verify it)."""
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(binary).exists():
        raise RuntimeError("nginx is not installed (Debian package nginx)")
    folder = Path(tempfile.mkdtemp(prefix="lazy-rich-nginx-"))
    https_port, http_port = free_port(), free_port()
    config = nginx_config(upstream, folder, https_port, http_port)
    process = subprocess.Popen(
        [binary, "-c", str(config), "-p", str(folder), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=(folder / "stderr.log").open("w"),
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", https_port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    errors = (folder / "stderr.log").read_text()
                    raise RuntimeError(f"nginx did not start: {errors[-2000:]}") from None
                time.sleep(0.1)
        yield f"https://127.0.0.1:{https_port}"
    finally:
        stop(process)
        shutil.rmtree(folder, ignore_errors=True)
