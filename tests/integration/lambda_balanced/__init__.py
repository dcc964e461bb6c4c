"""The λ-balanced views' tests (trajectory view and map)."""


def drawn(view, **overrides):
    """(controls, result, figures by graph) of a view for its defaults changed by ``overrides``,
    as the view computes and draws them (before the harness packs their arrays)."""
    chosen = view.spec.with_overrides(overrides)
    result = view.compute(chosen)
    return chosen, result, {panel.graph: panel.draw(chosen, result) for panel in view.panels}
