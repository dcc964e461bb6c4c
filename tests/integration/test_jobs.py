"""Background jobs on the server's side (app/core/jobs.py): which requests become jobs, what a
job does with hostile orders, and how a finished, failed or cancelled job reaches the page. The
browser's side, with real job managers, is tests/e2e/test_jobs.py."""

from __future__ import annotations

import pytest
from dash import no_update

from app.cache import ResultCache
from app.core import jobs
from app.views.networks import MAP
from tests.hostile import NASTIES
from tests.integration.calls import answer

LIGHT = MAP.spec.with_overrides({"resolution": 4, "steps": 50, "n_test": 20})
HEAVY = MAP.spec.with_overrides({"d": 10, "n": 100, "resolution": 10, "steps": 1500})
#: a deployment that runs jobs (the main callback only needs to know that it does)
RUNS_JOBS = jobs.Jobs(manager=None)


def test_a_heavy_request_starts_a_job_and_keeps_the_plots():
    assert MAP.heavy(HEAVY) and not MAP.heavy(LIGHT)
    found = answer(MAP, ResultCache.in_memory(), HEAVY, jobs=RUNS_JOBS)
    assert all(figure is no_update for figure in found.figures)
    assert found.status == jobs.JOB_STATUS
    assert found.job["values"] == MAP.spec.to_controls(HEAVY)
    # without jobs (a private cache) a light map is drawn in the request
    drawn = answer(MAP, ResultCache.in_memory(), LIGHT, jobs=RUNS_JOBS)
    assert drawn.job is no_update and drawn.figures[0]["data"]


def test_a_job_fills_the_cache_and_the_next_request_draws_from_it():
    cache, heard = ResultCache.in_memory(), []
    raw = MAP.spec.to_controls(LIGHT)
    done = jobs.run(MAP, cache, {"id": 3, "values": raw}, heard.append)
    assert jobs.JobOutcome.parse(done) == jobs.JobOutcome(raw, ok=True)
    fractions = [fraction for fraction, _ in heard]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert cache.misses == 1
    found = answer(MAP, cache, LIGHT, jobs=RUNS_JOBS, done=done)
    assert found.job is no_update and found.figures[0]["data"]
    assert cache.misses == 1  # drawn from what the job cached
    # the status line speaks to students: no timings, no cache state
    assert found.status == "" and answer(MAP, cache, LIGHT, jobs=RUNS_JOBS).status == ""


def test_a_failed_job_is_a_message_for_its_own_values_only():
    raw = MAP.spec.to_controls(HEAVY)
    done = jobs.JobOutcome(raw, ok=False, message="out of memory").to_data()
    found = answer(MAP, ResultCache.in_memory(), HEAVY, jobs=RUNS_JOBS, done=done)
    assert found.job is no_update
    assert any("out of memory" in str(text) for text in found.texts)
    # a later request for other values starts its own job
    other = MAP.spec.with_overrides({"d": 10, "n": 100, "resolution": 11, "steps": 1500})
    again = answer(MAP, ResultCache.in_memory(), other, jobs=RUNS_JOBS, done=done)
    assert again.job["values"] == MAP.spec.to_controls(other)


#: one cache for the hostile orders: each is read as the defaults' map, computed once
HOSTILE_CACHE = ResultCache.in_memory()


@pytest.mark.parametrize("nasty", NASTIES[:12], ids=[repr(n)[:24] for n in NASTIES[:12]])
def test_hostile_orders_and_job_ends_never_break_the_worker_or_the_page(nasty):
    for order in (nasty, {"values": nasty}, {"id": nasty, "values": [nasty]}):
        done = jobs.run(MAP, HOSTILE_CACHE, order, lambda progress: None)
        assert jobs.JobOutcome.parse(done) is not None
    # the page's callback reads any ``done`` it is sent
    found = answer(MAP, HOSTILE_CACHE, LIGHT, jobs=RUNS_JOBS, done=nasty)
    assert found.figures[0] is not no_update
