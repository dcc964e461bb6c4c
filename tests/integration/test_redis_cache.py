"""The Redis cache path against a real ``redis-server`` (started by the test suite on loopback):
results shared between app instances — as between machines behind a load balancer — and a
Redis that goes away costs nothing but the cache."""

import pickle

import pytest
import redis

from app import create_app
from app.cache import DataOnlySerializer
from app.codec import MAGIC
from app.config import Settings
from app.views import BY_KEY
from tests import servers
from tests.dash_client import view_request

VIEW = BY_KEY["single-neuron"]


def _move(client, dependencies, **changes):
    body = view_request(dependencies, VIEW, VIEW.spec.with_overrides(changes))
    response = client.post("/_dash-update-component", json=body)
    assert response.status_code == 200
    answer = response.get_json()["response"]
    answer.pop(f"{VIEW.key}-timing")  # computed, or taken from the cache: that differs
    return answer


def _machine(redis_url: str, prefix: str):
    """One 'machine': its own app instance, sharing only the Redis server."""
    settings = Settings.from_env({"CACHE_REDIS_URL": redis_url, "CACHE_KEY_PREFIX": prefix})
    app = create_app(settings)
    client = app.server.test_client()
    return app, client, client.get("/_dash-dependencies").get_json()


def test_two_machines_share_results_through_redis(redis_url):
    first, first_client, dependencies = _machine(redis_url, "shared-test:")
    second, second_client, _ = _machine(redis_url, "shared-test:")
    first_cache = first.server.config["RESULT_CACHE"]
    second_cache = second.server.config["RESULT_CACHE"]

    answer = _move(first_client, dependencies, delta=2.5, horizon=31.0)
    assert (first_cache.misses, first_cache.hits) == (1, 0)
    stored = redis.Redis.from_url(redis_url).keys("shared-test:*")
    assert len(stored) == 1 and stored[0].decode().startswith("shared-test:lazy-rich:")
    assert f":{VIEW.key}:" in stored[0].decode()

    again = _move(second_client, dependencies, delta=2.5, horizon=31.0)
    assert (second_cache.misses, second_cache.hits) == (0, 1)  # computed by the other machine
    assert again == answer


def test_key_prefixes_keep_deployments_apart(redis_url):
    _, client_a, dependencies = _machine(redis_url, "course-a:")
    other, client_b, _ = _machine(redis_url, "course-b:")
    _move(client_a, dependencies, delta=-1.25)
    _move(client_b, dependencies, delta=-1.25)
    assert other.server.config["RESULT_CACHE"].hits == 0
    server = redis.Redis.from_url(redis_url)
    assert server.keys("course-a:*") and server.keys("course-b:*")


def test_entries_expire_after_the_configured_time(redis_url):
    settings = Settings.from_env(
        {"CACHE_REDIS_URL": redis_url, "CACHE_KEY_PREFIX": "expiry:", "CACHE_DEFAULT_TIMEOUT": "7"}
    )
    client = create_app(settings).server.test_client()
    _move(client, client.get("/_dash-dependencies").get_json(), delta=0.75)
    server = redis.Redis.from_url(redis_url)
    (key,) = server.keys("expiry:*")
    assert 0 < server.ttl(key) <= 7


def test_a_vanished_redis_costs_only_the_cache_and_is_used_again_when_back():
    """Redis stops mid-lecture: pages still compute (the same answers) and the broken backend
    is bypassed after the first failure instead of delaying every request; once Redis is back
    (and the bypass time is over) results are stored again."""
    if servers.redis_binary() is None:
        pytest.skip("redis-server is not installed")
    with servers.redis_server() as (url, process):
        app, client, dependencies = _machine(url, "vanishing:")
        cache = app.server.config["RESULT_CACHE"]
        before = _move(client, dependencies, delta=4.0)
        process.terminate()
        process.wait(10)

        fresh = _move(client, dependencies, delta=4.0)  # the cached copy went with Redis
        assert fresh == before
        assert cache.failures == 1 and not cache.available
        for delta in (1.0, 2.0, 3.0):  # bypassed: no further attempts, so no further timeouts
            _move(client, dependencies, delta=delta)
        assert cache.failures == 1
        assert client.get("/healthz").get_json()["cache_available"] is False

    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with servers.redis_server(port=port):
        cache.retry_after = 0.0
        cache._bypass_until = 0.0  # the bypass time is over
        _move(client, dependencies, delta=5.0)
        assert cache.failures == 1 and cache.available
        assert len(redis.Redis.from_url(url).keys("vanishing:*")) == 1


def test_the_health_check_asks_redis_rather_than_remembering_it():
    """A worker that has not used the cache since Redis went away still reports it away (the
    health check reads a key), and available again once Redis is back."""
    if servers.redis_binary() is None:
        pytest.skip("redis-server is not installed")
    with servers.redis_server() as (url, process):
        app, client, _ = _machine(url, "probed:")
        cache = app.server.config["RESULT_CACHE"]
        assert client.get("/healthz").get_json()["cache_available"] is True
        process.terminate()
        process.wait(10)
        assert cache.available  # nothing in this process has noticed …
        assert client.get("/healthz").get_json()["cache_available"] is False  # … the probe has
        assert cache.failures == 1
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with servers.redis_server(port=port):
        cache._bypass_until = 0.0  # the bypass time is over
        assert client.get("/healthz").get_json()["cache_available"] is True


class _Planted:
    """A pickle that, if loaded, writes ``path``: what an attacker with access to the cache
    would plant."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (exec, (f"open({self.path!r}, 'w').write('ran')",))


def test_a_planted_pickle_in_redis_is_a_miss_not_code(redis_url, tmp_path):
    """Someone who can write to the Redis replaces a real entry with a pickle: the worker does
    not run it — it is treated as a miss, the page is computed and the entry is written anew."""
    app, client, dependencies = _machine(redis_url, "planted:")
    cache = app.server.config["RESULT_CACHE"]
    answer = _move(client, dependencies, delta=1.5)
    server = redis.Redis.from_url(redis_url)
    (key,) = server.keys("planted:*")
    marker = tmp_path / "ran"
    for payload_bytes in (
        b"!" + pickle.dumps(_Planted(str(marker))),  # what cachelib's serializer would unpickle
        DataOnlySerializer.TAG + pickle.dumps(_Planted(str(marker))),  # tagged, still not data
    ):
        server.set(key, payload_bytes)
        misses = cache.misses
        assert _move(client, dependencies, delta=1.5) == answer
        assert cache.misses == misses + 1 and not marker.exists()
        assert server.get(key).startswith(DataOnlySerializer.TAG + MAGIC)  # rewritten as data
    assert cache.refused == 1  # the tagged one was read and refused; the bare pickle never read


def test_a_planted_pickle_in_the_cache_folder_is_a_miss_not_code(tmp_path):
    folder = tmp_path / "cache"
    settings = Settings.from_env({"CACHE_TYPE": "FileSystemCache", "CACHE_DIR": str(folder)})
    app = create_app(settings)
    client = app.server.test_client()
    dependencies = client.get("/_dash-dependencies").get_json()
    answer = _move(client, dependencies, delta=-0.5)
    # cachelib's file layout: 4 bytes of expiry, then the value (beside it: an entry count)
    entries = [p for p in folder.iterdir() if p.read_bytes()[4:].startswith(DataOnlySerializer.TAG)]
    assert len(entries) == 1
    marker = tmp_path / "ran"
    entries[0].write_bytes(b"\0\0\0\0" + pickle.dumps(_Planted(str(marker))))
    assert _move(client, dependencies, delta=-0.5) == answer
    assert not marker.exists()
    assert app.server.config["RESULT_CACHE"].misses == 2
