import os


def examples(count: int) -> int:
    """Hypothesis example count for a test: ×10 under ``HYPOTHESIS_PROFILE=stress``."""
    return count * (10 if os.environ.get("HYPOTHESIS_PROFILE") == "stress" else 1)


def require(what: str, reason: str) -> None:
    """Skip for a missing system component — or fail where CI promised it (``REQUIRE_<WHAT>=1``
    or ``REQUIRE_ALL=1``)."""
    import pytest

    if os.environ.get(f"REQUIRE_{what.upper()}") == "1" or os.environ.get("REQUIRE_ALL") == "1":
        pytest.fail(reason)
    pytest.skip(reason)
