"""Every paper card's claim, checked on the card's own computed result: a card whose numbers
stop showing what it says fails here instead of teaching the wrong thing
(app/core/claims.py, docs/papers.md)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from app import paper_figures as pf
from app.cache import ResultCache
from app.core.claims import Claim, Evidence, all_of, crossing_time, num, value_at

CLAIMED = [card for card in pf.CARDS if card.preset.claim is not None]


@pytest.fixture(scope="module")
def cache() -> ResultCache:
    return ResultCache.in_memory()


@pytest.mark.parametrize("card", CLAIMED, ids=lambda card: card.key)
def test_the_card_shows_its_claim(card, cache):
    controls = card.view.spec.with_overrides(card.preset.values)
    result = card.view.results(cache, controls).result
    evidence = card.preset.claim.evaluate(controls, result)
    assert evidence.holds, f"{card.preset.claim.text} — {evidence.found}"
    assert evidence.found and len(evidence.found) < 600
    assert not re.search(r"(^|[\s=(≤≥<>])-\d|\de-\d", evidence.found), "a true minus sign"


def test_every_figure_preset_has_a_claim():
    """A card without a claim could show anything: each figure preset must say what its figure
    shows, and the test above checks it on the card's data."""
    unclaimed = [card.key for card in pf.CARDS if card.preset.claim is None]
    assert not unclaimed, f"figure presets without a claim: {unclaimed}"
    assert len(CLAIMED) == len(pf.CARDS) > 0


def test_claims_are_single_sentences_and_differences_plain_words():
    for card in CLAIMED:
        text = card.preset.claim.text
        assert text.endswith(".") and text.count(". ") == 0, card.key
        assert 20 < len(text) < 400, card.key
        if card.preset.differs:
            assert card.preset.differs.endswith("."), card.key


def test_a_check_that_fails_or_breaks_says_so():
    broken = Claim("x.", lambda controls, result: result.missing)
    assert not broken.evaluate(None, object()).holds
    assert "could not be evaluated" in broken.evaluate(None, object()).found
    with pytest.raises(TypeError):
        Claim("x.", lambda controls, result: True).evaluate(None, None)
    both = all_of(Evidence(True, "a"), Evidence(False, "b"))
    assert not both.holds and both.found == "a; b"


def test_curve_readers():
    t = np.array([0.0, 1.0, 2.0, 4.0])
    values = np.array([0.0, 0.2, 0.6, 1.0])
    assert value_at(t, values, 3.0) == pytest.approx(0.8)
    assert crossing_time(t, values, 0.4) == pytest.approx(1.5)
    assert crossing_time(t, values, 0.0) == 0.0
    assert math.isinf(crossing_time(t, values, 2.0))
    assert num(-0.5) == "−0.5" and num(1234.5, ",.0f") == "1,234"
    assert num(-1.83e-15, ".2g") == "−1.8·10⁻¹⁵" and num(1e12) == "10¹²"


def test_docs_papers_is_what_the_presets_say():
    """docs/papers.md is written from the presets (python -m app.papers_table): never stale."""
    from app import papers_table

    written = papers_table.DOCUMENT.read_text(encoding="utf-8")
    assert written == papers_table.markdown(), "run: python -m app.papers_table"
    for card in pf.CARDS:
        assert f'<a id="{card.key}"></a>' in written
