"""Settings from the environment: defaults that need nothing, loud refusals of bad values."""

import pytest

from app.config import Settings, frame_ancestors, map_seconds


def test_defaults_need_nothing_set_up():
    settings = Settings.from_env({})
    assert settings.cache_type == "FileSystemCache"
    assert settings.frame_ancestors is None
    assert settings.dash_paths() == {}
    config = settings.flask_caching_config()
    assert config["CACHE_TYPE"] == "FileSystemCache" and config["CACHE_DIR"]
    assert Settings.from_env({"CACHE_RETRY_AFTER": "5"}).cache_retry_after == 5
    assert settings.map_seconds == 600 and settings.job_time_limit == 3600


def test_a_longer_map_budget_comes_with_a_longer_job_limit():
    env = {"MAP_SECONDS": "4200", "JOB_TIME_LIMIT": "8400"}
    settings = Settings.from_env(env)
    assert (settings.map_seconds, settings.job_time_limit) == (4200, 8400)
    assert map_seconds(env) == 4200 and map_seconds({}) == 600
    # a shorter job limit shortens the default budget with it
    assert map_seconds({"JOB_TIME_LIMIT": "600"}) == 300
    assert Settings.from_env({"JOB_TIME_LIMIT": "600"}).map_seconds == 300


def test_a_redis_url_selects_the_redis_cache_with_short_timeouts():
    settings = Settings.from_env({"CACHE_REDIS_URL": "redis://cache.internal:6380/2"})
    assert settings.cache_type == "RedisCache"
    config = settings.flask_caching_config()
    assert config["CACHE_REDIS_URL"] == "redis://cache.internal:6380/2"
    assert 0 < config["CACHE_OPTIONS"]["socket_timeout"] <= 1
    assert 0 < config["CACHE_OPTIONS"]["socket_connect_timeout"] <= 1
    # an explicit type still wins (e.g. to switch the cache off while keeping the URL)
    assert Settings.from_env({"CACHE_REDIS_URL": "redis://h/0", "CACHE_TYPE": "NullCache"}) == (
        Settings(cache_type="NullCache", cache_redis_url="redis://h/0")
    )


@pytest.mark.parametrize(
    ("env", "fragment"),
    [
        ({"CACHE_TYPE": "Memcached"}, "CACHE_TYPE must be one of"),
        ({"CACHE_TYPE": "RedisCache"}, "needs CACHE_REDIS_URL"),
        ({"CACHE_REDIS_URL": "http://example.org"}, "redis://host:6379/0"),
        ({"CACHE_REDIS_URL": "redis://"}, "redis://host:6379/0"),
        ({"CACHE_DEFAULT_TIMEOUT": "soon"}, "whole number"),
        ({"CACHE_THRESHOLD": "1"}, "between 10 and"),
        ({"CACHE_RETRY_AFTER": "-1"}, "CACHE_RETRY_AFTER must be between 0 and 3600"),
        ({"CACHE_KEY_PREFIX": "a b"}, "CACHE_KEY_PREFIX"),
        ({"FRAME_ANCESTORS": "https://a.edu; script-src *"}, "is not an origin"),
        ({"FRAME_ANCESTORS": "'none' https://a.edu"}, "cannot be combined"),
        ({"DASH_URL_BASE_PATHNAME": "demo/x y"}, "must be a path"),
        ({"DASH_URL_BASE_PATHNAME": "/a/", "DASH_ROUTES_PATHNAME_PREFIX": "/b/"}, "not both"),
        ({"MAP_SECONDS": "ten"}, "MAP_SECONDS must be a whole number"),
        ({"MAP_SECONDS": "20"}, "MAP_SECONDS must be between 30 and"),
        ({"MAP_SECONDS": "2000"}, r"MAP_SECONDS = 2000 needs JOB_TIME_LIMIT of at least 4000"),
    ],
)
def test_bad_values_are_refused_with_the_variable_named(env, fragment):
    with pytest.raises(ValueError, match=fragment):
        Settings.from_env(env)


@pytest.mark.parametrize(
    ("raw", "policy"),
    [
        ("https://canvas.example.edu", "https://canvas.example.edu"),
        ("https://a.edu, https://*.b.org:8443", "https://a.edu https://*.b.org:8443"),
        ("self https://lms.example.edu", "'self' https://lms.example.edu"),
        ("none", "'none'"),
        ("'self'", "'self'"),
        ("https:", "https:"),
        ("*", "*"),
        ("localhost:8000", "localhost:8000"),
    ],
)
def test_frame_ancestors_become_a_csp_source_list(raw, policy):
    assert frame_ancestors(raw) == policy


@pytest.mark.parametrize(
    "raw",
    [
        "https://a.edu\r\nSet-Cookie: x=1",
        "https://a.edu;",
        "'unsafe-inline'",
        '"https://a.edu"',
        "https://a.edu/<script>",
        "javascript:alert(1)//x.edu",
    ],
)
def test_frame_ancestors_refuse_anything_that_could_inject(raw):
    with pytest.raises(ValueError, match="FRAME_ANCESTORS"):
        frame_ancestors(raw)


def test_path_prefixes_are_normalised_to_a_trailing_slash():
    settings = Settings.from_env({"DASH_URL_BASE_PATHNAME": "/course/lazy-rich"})
    assert settings.dash_paths() == {"url_base_pathname": "/course/lazy-rich/"}
    proxied = Settings.from_env({"DASH_REQUESTS_PATHNAME_PREFIX": "/demo/"})
    assert proxied.dash_paths() == {"requests_pathname_prefix": "/demo/"}
