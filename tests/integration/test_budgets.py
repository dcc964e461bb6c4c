"""No request can make a worker allocate more than ~100 MB: the demanding corners of every
view's ranges, measured with tracemalloc (numpy reports its arrays to it). Times are printed,
not asserted (``benchmarks/worst_case.py`` measures them on a quiet machine)."""

import pytest

from app.views import VIEWS
from tests.budgets import MEMORY_BUDGET_BYTES, cost, demanding_states


@pytest.mark.slow
@pytest.mark.parametrize("view", VIEWS, ids=[view.key for view in VIEWS])
def test_the_most_demanding_states_stay_within_the_memory_budget(view):
    worst_peak, slowest = 0, 0.0
    for values in demanding_states(view, 6):
        seconds, peak = cost(view, values)
        worst_peak, slowest = max(worst_peak, peak), max(slowest, seconds)
        assert peak < MEMORY_BUDGET_BYTES, (view.key, values, peak / 2**20)
    print(f"{view.key}: peak {worst_peak / 2**20:.1f} MB, slowest {slowest:.2f} s (traced)")
