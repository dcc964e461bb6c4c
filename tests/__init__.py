import os


def examples(count: int) -> int:
    """Hypothesis example count for a test: ×10 under ``HYPOTHESIS_PROFILE=stress``."""
    return count * (10 if os.environ.get("HYPOTHESIS_PROFILE") == "stress" else 1)
