"""Test configuration shared by all suites.

Hypothesis runs with a fixed example sequence by default so that CI is reproducible. For a
deeper local search set ``HYPOTHESIS_PROFILE=stress``: freshly random examples, ten times as
many (the per-test counts go through :func:`tests.examples`).
"""

import os

import pytest
from hypothesis import settings

from tests import require, servers

settings.register_profile("default", derandomize=True, print_blob=True)
settings.register_profile("stress", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session")
def redis_url():
    """A real, private ``redis-server`` on loopback for the whole session."""
    if servers.redis_binary() is None:
        require("redis", "redis-server is not installed (Debian package redis-server)")
    with servers.redis_server() as (url, _):
        yield url
