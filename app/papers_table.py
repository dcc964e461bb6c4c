"""``python -m app.papers_table``: writes docs/papers.md, the table of every paper card — the
paper's figure and setting, the preset's, what the card shows (its claim, checked on its data by
tests/integration/test_paper_claims.py) and where it differs from the paper — from the presets
themselves, so that the document cannot drift from what the page shows (a test compares them).
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import across_seeds
from .paper_figures import GROUPS, Card

__all__ = ["DOCUMENT", "markdown"]

DOCUMENT = Path(__file__).resolve().parent.parent / "docs" / "papers.md"

HEADER = """# The paper figures, card by card

Every card of the paper-figures page (`/paper-figures`) reproduces one figure of a paper with a
preset of a view. For each: the paper's own setting, the preset's, what the card shows — one
sentence, checked on the card's own computed numbers whenever the page draws it and in CI
(`tests/integration/test_paper_claims.py`; the page prints the numbers under the claim) — and
where the model or the setting differs from the paper's, and why.

Every claim of a card with a seed is also checked on seeds 0–7 in CI
(`tests/integration/test_paper_claims_across_seeds.py`): a claim that holds for its card's seed
only would teach one draw's accident as the paper's finding. Every card's claim holds in all
eight; one found to hold in only some would say so (*Across seeds*, here and on the page;
`app/across_seeds.py`) until its check was made robust or its claim narrowed.

This file is written by `python -m app.papers_table` from the presets (`app/views/*/`); a test
fails when it differs from what that command writes.
"""


def _cell(text: str | None) -> str:
    return (text or "—").replace("|", "\\|").replace("\n", " ")


def _setting(card: Card) -> str:
    """The preset's values as the view's controls name them."""
    fields = card.view.spec.by_name
    return "; ".join(
        f"{fields[name].label} = {_value(fields[name], value)}"
        for name, value in card.preset.values.items()
    )


def _value(field, value) -> str:
    """A control's value as its control shows it (a choice by its label)."""
    if field.kind == "choice" and value in field.choices and field.choice_labels:
        return field.choice_labels[field.choices.index(value)]
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:g}".replace("-", "−") if isinstance(value, float) else str(value)


def _summary(cards: list[Card]) -> list[str]:
    lines = ["| figure | card | what it shows |", "| --- | --- | --- |"]
    for card in cards:
        claim = card.preset.claim.text if card.preset.claim else None
        anchor = card.key
        lines.append(
            f"| {_cell(card.preset.figure)} | [{_cell(card.preset.name)}](#{anchor}) | "
            f"{_cell(claim)} |"
        )
    return lines


def _details(card: Card) -> list[str]:
    preset = card.preset
    lines = [
        f'<a id="{card.key}"></a>',
        f"### {preset.name}",
        "",
        f"- **View**: `{card.view.path}?preset={preset.slug}` — panel: {card.panel.title}",
        f"- **The paper's setting**: {_cell(preset.paper_setting)}",
        f"- **This preset**: {_setting(card)}",
        f"- **What it shows**: {_cell(preset.claim.text if preset.claim else None)}",
        f"- **Differs from the paper**: {_cell(preset.differs)}",
    ]
    seed = getattr(card.view.spec.with_overrides(preset.values), "seed", None)
    found = None if seed is None else across_seeds.note(card.key, seed)
    if found is not None:
        lines.append(f"- **Across seeds**: {_cell(found[0].upper() + found[1:])}")
    lines.append("")
    return lines


def markdown() -> str:
    """The whole of docs/papers.md."""
    lines = [HEADER]
    for paper, _, cards in GROUPS:
        lines += [f"## {paper.authors}, *{paper.title}*", ""]
        lines += [*_summary(cards), ""]
        for card in cards:
            lines += _details(card)
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    DOCUMENT.write_text(markdown(), encoding="utf-8")
    print(f"wrote {DOCUMENT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
