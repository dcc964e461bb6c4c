"""A model of the explorer as one record: its paper, its views, its place in the navigation and
the engine module it draws on.

Each package ``app/views/<model>/`` defines ``MODEL = Model(...)``; :mod:`app.views` finds the
packages and everything that lists models — the navigation, the start page, the footer, the
paper-figures page, the engine's purity test and the browser tests' tables — reads them from
there. Adding a model touches its solver, its view package, its tests and its documentation,
nothing else (CONTRIBUTING.md).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .presets import Paper

__all__ = ["Model", "discover"]


@dataclass(frozen=True)
class Model:
    #: place among the models (navigation order: 1 first)
    order: int
    #: the paper the model comes from (the footer lists each paper once, in model order)
    paper: Paper
    #: its views: the trajectory view first, then its map(s)
    views: tuple[Any, ...]
    #: the engine module it draws on (``solvers.single_neuron``); no web or plot imports there
    solver: ModuleType
    #: the package's name (``single_neuron``), set by :func:`discover`; its view tests live in
    #: ``tests/integration/<name>/``
    name: str = ""

    def __post_init__(self) -> None:
        if not self.views:
            raise ValueError(f"model {self.name or self.paper.title!r} has no views")
        if not self.solver.__name__.startswith("solvers."):
            raise ValueError(f"{self.solver.__name__}: a model's engine lives in solvers/")


def discover(path: Iterable[str], package: str) -> tuple[Model, ...]:
    """The ``MODEL`` of every sub-package of ``package`` (found on ``path``; names starting with
    ``_`` are skipped), in navigation order."""
    found = []
    for info in pkgutil.iter_modules(list(path)):
        if not info.ispkg or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        record = getattr(module, "MODEL", None)
        if not isinstance(record, Model):
            raise TypeError(f"{module.__name__} defines no MODEL = Model(...)")
        found.append(Model(record.order, record.paper, record.views, record.solver, info.name))
    orders = [model.order for model in found]
    if len(set(orders)) != len(orders):
        raise ValueError(f"two models share a place in the navigation: {sorted(orders)}")
    return tuple(sorted(found, key=lambda model: model.order))
