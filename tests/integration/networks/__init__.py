"""The network views' tests (trajectory view and map), with the papers' set-ups built here from
the engine's documented pieces and seeding convention, not by the views' helpers."""

import numpy as np

from solvers import networks as nw


def drawn(view, **overrides):
    """(controls, result, figures by graph) of a view for its defaults changed by ``overrides``,
    as the view computes and draws them (before the harness packs their arrays)."""
    chosen = view.spec.with_overrides(overrides)
    result = view.compute(chosen)
    return chosen, result, {panel.graph: panel.draw(chosen, result) for panel in view.panels}


def streams(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """The views' seeding convention (docs/networks.md, "Scenarios"): data from the generator
    seeded [seed, 0], weights from [seed, 1]."""
    return np.random.default_rng([seed, 0]), np.random.default_rng([seed, 1])


def kunin_teacher_student(chosen, tau=None, delta=None, lr=None):
    """Kunin et al.'s teacher–student network of a teacher–student setting (``chosen`` has d, k,
    n, n_test, width, activation, seed and τ, δ unless given): (X, y, X_test, y_test, net)."""
    data_rng, weight_rng = streams(chosen.seed)
    X, y, X_test, y_test = nw.teacher_student(
        chosen.d, chosen.k, chosen.n, n_test=chosen.n_test, seed=data_rng
    )
    net = nw.kunin_init(
        chosen.d,
        chosen.width,
        tau=chosen.tau if tau is None else tau,
        delta=chosen.delta if delta is None else delta,
        seed=weight_rng,
        activation=chosen.activation,
    )
    return X, y, X_test, y_test, net
