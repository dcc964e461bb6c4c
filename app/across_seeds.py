"""Which paper cards' claims hold only in some seeds.

A card computes one draw (its preset's seed) of a random start, data set or task. Its claim is
the paper's finding only if other draws show it too:
``tests/integration/test_paper_claims_across_seeds.py`` evaluates every seeded card's claim for
seeds 0–7. A card found to hold in only some of them is listed below with how many; it says so
in plain words beside its claim (:func:`note`), and the test expects exactly the listed ones to
fail, so a card made robust must leave the list. None is listed since 2026-11-29: every seeded
card's claim holds in seeds 0–7.
"""

from __future__ import annotations

#: the seeds tried for every seeded card
SEEDS = range(8)

#: card key → in how many of :data:`SEEDS` its claim holds
SEED_DEPENDENT: dict[str, int] = {}


def note(card_key: str, seed: int) -> str | None:
    """What a card says of its claim across seeds, or None for a card whose claim held in all
    of them."""
    held = SEED_DEPENDENT.get(card_key)
    if held is None:
        return None
    return (
        f"this claim holds in {held} of the seeds 0–{SEEDS[-1]} tried (this card's seed {seed} "
        "among them): the card shows one draw, not what every draw does. Its check is yet to "
        "be made robust or its claim narrowed."
    )
