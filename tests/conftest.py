"""Test configuration shared by all suites.

Hypothesis runs with a fixed example sequence by default so that CI is reproducible. For a
deeper local search set ``HYPOTHESIS_PROFILE=stress``: freshly random examples, ten times as
many (the per-test counts go through :func:`tests.examples`).
"""

import os

from hypothesis import settings

settings.register_profile("default", derandomize=True, print_blob=True)
settings.register_profile("stress", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
