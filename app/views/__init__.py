"""The registry: one package per model (``app/views/<model>/``), each defining
``MODEL = Model(order, paper, views, solver)`` (:class:`app.core.model.Model`).

Packages are found by walking this folder, so adding a model touches nothing here; the
navigation, the start page, the footer, the paper-figures page and the tests' tables of models
derive from :data:`MODELS`.
"""

from __future__ import annotations

from ..core.model import Model, discover
from ..core.presets import Paper
from ..core.view import View

__all__ = ["BY_KEY", "MAPS", "MODELS", "PAPERS", "VIEWS"]

MODELS: tuple[Model, ...] = discover(__path__, __name__)
#: every view: the models' trajectory views in navigation order, then their maps
VIEWS: tuple[View, ...] = tuple(
    sorted((v for m in MODELS for v in m.views), key=lambda v: v.is_map)
)
MAPS: tuple[View, ...] = tuple(view for view in VIEWS if view.is_map)
BY_KEY: dict[str, View] = {view.key: view for view in VIEWS}
#: the models' papers, each once, in navigation order
PAPERS: tuple[Paper, ...] = tuple(dict.fromkeys(model.paper for model in MODELS))
