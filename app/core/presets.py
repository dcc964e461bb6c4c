"""Presets: named settings of a view, most of them a figure of a paper.

A preset's ``slug`` is its identifier in links (``?preset=fig-3-mu-phi-and-s-for-several-delta``)
and on the paper-figures page; it is written out, never derived from the name, so that a caption
or a name can be edited without breaking a link anybody shared. Slugs a preset had before live on
in ``aliases``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .claims import Claim

__all__ = ["Paper", "Preset"]

_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class Paper:
    """The paper a model comes from, as the paper-figures page introduces it."""

    authors: str
    title: str
    #: what the paper's figures are about, e.g. "a single hidden neuron"
    subject: str


@dataclass(frozen=True)
class Preset:
    slug: str
    name: str
    caption: str
    values: Mapping[str, Any]
    #: the paper figure this preset reproduces (e.g. "Fig. 3"); None for other presets. Presets
    #: with a figure get a card on the paper-figures page.
    figure: str | None = None
    #: the panel (graph name) that card shows; None for the view's first panel
    panel: str | None = None
    #: earlier slugs of this preset: links that carry them still open it
    aliases: tuple[str, ...] = field(default=())
    #: the paper of ``figure`` when it is not the model's own (the network views reproduce
    #: figures of every paper)
    paper: Paper | None = None
    #: what the figure shows, checked over this preset's computed result (every preset with a
    #: ``figure`` has one: its card prints the claim and the numbers that prove it)
    claim: Claim | None = None
    #: how the model or the setting drawn here differs from the paper's figure, in plain words
    differs: str | None = None
    #: the paper's own setting for the figure (sizes, steps, parameters), in plain words, for
    #: docs/papers.md beside this preset's
    paper_setting: str | None = None

    def __post_init__(self) -> None:
        for slug in (self.slug, *self.aliases):
            if not _SLUG.fullmatch(slug):
                raise ValueError(f"preset slug {slug!r}: lower-case letters, digits and hyphens")

    def answers_to(self, wanted: str) -> bool:
        """Whether a link's ``preset=`` value names this preset: its slug, an earlier slug, or
        its name (which the first links carried)."""
        return wanted in (self.slug, self.name) or wanted in self.aliases
