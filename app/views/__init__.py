"""Every model's views: one package per model (``app/views/<model>/``), each exporting
``VIEWS`` (its trajectory view first, then its map) and ``ORDER`` (its place in navigation).

Packages are found by walking this folder, so adding a model touches nothing here.
"""

from __future__ import annotations

import importlib
import pkgutil

from ..core.view import View

__all__ = ["BY_KEY", "MAPS", "MODELS", "VIEWS"]


def _models() -> list:
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.ispkg and not info.name.startswith("_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            found.append(module)
    return sorted(found, key=lambda module: (module.ORDER, module.__name__))


MODELS = tuple(_models())
#: every view: the models' trajectory views in navigation order, then their maps
VIEWS: tuple[View, ...] = tuple(
    sorted((v for m in MODELS for v in m.VIEWS), key=lambda v: v.is_map)
)
MAPS: tuple[View, ...] = tuple(view for view in VIEWS if view.is_map)
BY_KEY = {view.key: view for view in VIEWS}
