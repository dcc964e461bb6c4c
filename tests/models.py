"""The tests' tables of models, derived from the registry (:data:`app.views.MODELS`): a new model
appears in them by its own files alone — its solver, its view package and its tests.

* :data:`SOLVER_MODULES`: the engine modules the purity test imports;
* :data:`EXPECTED` and :data:`MAP_CHECKS`: what the browser test expects of each view's
  download, from ``tests/integration/<model>/downloads.py`` (the model's own tests).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from app.views import MODELS

__all__ = ["EXPECTED", "MAP_CHECKS", "SOLVER_MODULES", "checks_of"]

#: every engine module a model draws on, and the measures they share
SOLVER_MODULES: tuple[str, ...] = tuple(
    sorted({model.solver.__name__ for model in MODELS} | {"solvers.metrics"})
)


def checks_of(name: str) -> tuple[dict[str, Callable], dict[str, Callable]]:
    """``(EXPECTED, MAP_CHECKS)`` of the model package ``name``: its download checks."""
    module = importlib.import_module(f"tests.integration.{name}.downloads")
    return dict(module.EXPECTED), dict(module.MAP_CHECKS)


def _merged() -> tuple[dict[str, Callable], dict[str, Callable]]:
    expected: dict[str, Callable] = {}
    maps: dict[str, Callable] = {}
    for model in MODELS:
        own_expected, own_maps = checks_of(model.name)
        expected.update(own_expected)
        maps.update(own_maps)
    return expected, maps


#: view key → f(default values, t) → {column: exact values}, for each trajectory view
#: view key → f(default values, tables), asserting a map's download against the solver
EXPECTED, MAP_CHECKS = _merged()
