import pytest

from app import create_app
from app.cache import ResultCache
from app.config import Settings


@pytest.fixture(scope="module")
def cache():
    """A fresh in-memory result cache for calling views' callbacks directly."""
    return ResultCache.in_memory()


@pytest.fixture(scope="session")
def dash_app():
    return create_app(Settings(cache_type="SimpleCache"))


@pytest.fixture(scope="session")
def client(dash_app):
    return dash_app.server.test_client()


@pytest.fixture(scope="session")
def dependencies(client):
    return client.get("/_dash-dependencies").get_json()
