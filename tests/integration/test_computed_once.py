"""A result many ask for at once is computed once (``ResultCache.get_or_compute`` with
``wait_for_others``), across processes sharing a real cache folder or a real Redis — as the
web workers of a class's deployment do when everyone opens the paper figures at the start of a
lesson — and a claimant that fails or dies does not leave the others waiting for ever."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest
import redis
from flask import Flask

from app import paper_figures as pf
from app.cache import ResultCache, SafeFileSystemCache
from app.codec import codec_for

ASKERS = 4


def _cache(backend: str) -> ResultCache:
    if backend.startswith("redis://"):
        config = {"CACHE_TYPE": "RedisCache", "CACHE_REDIS_URL": backend}
    else:
        config = {"CACHE_TYPE": "FileSystemCache", "CACHE_DIR": backend, "CACHE_THRESHOLD": 100}
    return ResultCache.for_app(Flask(__name__), config | {"CACHE_KEY_PREFIX": "once:"})


def _ask(backend: str, log: str, parameters: tuple, seconds: float, start: float) -> None:
    """One process asking for a slow result (at ``start``, so that all ask together);
    ``log`` gets a line per computation and one per answer."""
    cache = _cache(backend)
    time.sleep(max(0.0, start - time.time()))

    def compute() -> int:
        with open(log, "a") as stream:
            stream.write(f"computed {os.getpid()}\n")
        time.sleep(seconds)
        return 42

    answer = cache.get_or_compute("once", parameters, compute, int, wait_for_others=20.0)
    with open(log, "a") as stream:
        stream.write(f"answer {answer}\n")


def _ask_together(backend: str, log: Path, parameters: tuple, seconds: float) -> list[str]:
    start = time.time() + 1.0
    context = multiprocessing.get_context("spawn")
    askers = [
        context.Process(target=_ask, args=(backend, str(log), parameters, seconds, start))
        for _ in range(ASKERS)
    ]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join(60)
        assert asker.exitcode == 0
    return log.read_text().splitlines()


@pytest.fixture(params=["folder", "redis"])
def backend(request, tmp_path) -> str:
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        redis.Redis.from_url(url).flushall()
        return url
    return str(tmp_path / "cache")


def test_processes_asking_at_once_compute_once(backend, tmp_path):
    lines = _ask_together(backend, tmp_path / "log", ("slow", 1), seconds=1.5)
    assert sum(line.startswith("computed") for line in lines) == 1, lines
    assert lines.count("answer 42") == ASKERS


def test_a_claimant_that_fails_leaves_the_result_to_the_next(backend):
    cache, other = _cache(backend), _cache(backend)

    def fail() -> int:
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        cache.get_or_compute("once", ("fails",), fail, int, wait_for_others=5.0)
    begun = time.monotonic()
    assert other.get_or_compute("once", ("fails",), lambda: 7, int, wait_for_others=5.0) == 7
    assert time.monotonic() - begun < 1.0  # the failed claim was released, not waited out


def test_a_claim_left_by_a_dead_process_is_waited_out_then_computed(backend):
    cache = _cache(backend)
    key = cache.key("once", ("orphan",), codec_for(int).schema)
    # a claim as a process that died while computing leaves it: it expires in 3 s (2–3 s: the
    # cache folder keeps expiry times in whole seconds)
    assert cache.cache.add("claim:" + key, 1, timeout=3)
    begun = time.monotonic()
    assert cache.get_or_compute("once", ("orphan",), lambda: 5, int, wait_for_others=3.0) == 5
    assert 1.8 < time.monotonic() - begun < 10.0


def test_the_folder_cache_adds_atomically_and_reclaims_expired_names(tmp_path):
    folder = SafeFileSystemCache(str(tmp_path), threshold=10)
    assert folder.add("k", 1, timeout=1)
    assert not folder.add("k", 2, timeout=1)
    assert folder.get("k") == 1
    time.sleep(2.1)
    assert folder.add("k", 3, timeout=5)  # the expired entry no longer holds the name
    assert folder.get("k") == 3
    assert not list(tmp_path.glob("*.__wz_cache"))  # no temporary file left behind


def test_a_drawn_card_is_kept_as_long_as_the_cache_allows(redis_url):
    server = redis.Redis.from_url(redis_url)
    server.flushall()
    cache = _cache(redis_url)
    card = next(card for card in pf.CARDS if card.view.key == "single-neuron")
    pf.card_content(card, cache)
    (stored,) = [key for key in server.keys("once:*") if f":{pf.NAMESPACE}:".encode() in key]
    assert server.ttl(stored) > 29 * 86400
    assert not server.keys("once:claim:*")  # the claim went with the computation
