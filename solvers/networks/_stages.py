"""A long run trained as consecutive calls of :func:`train`, each continuing the one before.

One call of :func:`train` may take at most :data:`MAX_WORK` operations (a bound on what one
request may cost). A longer run — Kunin et al.'s networks at the paper's sizes run 10⁴ and 10⁵
steps — is trained in *stages* of at most ``stage_steps`` steps: each stage starts from the
state the one before reached, with S(0, t), the activation-pattern and parameter distances and
the divergence bound measured from the run's true start (``train(..., start=θ₀,
start_step=k)``, docs/networks.md *Continuing a run*), so that the stages' records put together
are the records of one run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields, replace
from typing import Any

import numpy as np

from ._model import Network
from ._request import MAX_TRAIN_STEPS, _check_record, positive_count
from ._train import Training, train

__all__ = ["train_in_stages"]

#: how a record's array is laid out: the axis of the recorded steps, from the end
_STEP_AXIS = {"zeta": -2}


def train_in_stages(
    net: Network,
    X: np.ndarray,
    y: np.ndarray,
    *,
    steps: int,
    stage_steps: int,
    record: Sequence[int] | np.ndarray | None = None,
    progress: Callable[[int], None] | None = None,
    **options: Any,
) -> Training:
    """:func:`train` ``steps`` steps from ``net`` in stages of at most ``stage_steps`` steps,
    recording at ``record`` (steps from the start, as for one call, by default ~200 log-spaced
    steps); ``options`` are :func:`train`'s (``lr``, ``layer_lrs``, ``loss``, test set,
    ``track_kernel``; not ``record_weights``, ``start`` or ``start_step``). The result is the
    one call's (to rounding: each stage's arithmetic is the one call's). ``progress`` rises
    from 0 to ``steps`` over the stages. A cell that diverged in one stage is reported at its
    first divergence."""
    for name in ("record_weights", "start", "start_step"):
        if name in options:
            raise ValueError(f"train_in_stages keeps no {name}: it is for a run's records only.")
    steps = positive_count("steps", steps, MAX_TRAIN_STEPS, minimum=0)
    stage_steps = positive_count("stage_steps", stage_steps, MAX_TRAIN_STEPS, minimum=1)
    asked = _check_record(record, steps)
    stages, state, done = [], net, 0
    while True:
        until = min(done + stage_steps, steps)
        # each stage records its own end too (a call records at least one step)
        own = asked[(asked > done) & (asked <= until)] if stages else asked[asked <= until]
        ahead = progress if progress is None else _offset(progress, done)
        stage = train(
            state,
            X,
            y,
            steps=until - done,
            record=np.union1d(own, [until]),
            progress=ahead,
            start=net if stages else None,
            start_step=done,
            **options,
        )
        stages.append(stage)
        state, done = stage.final, until
        if done == steps:
            return _joined(stages, asked)


def _offset(progress: Callable[[int], None], done: int) -> Callable[[int], None]:
    return lambda steps: progress(done + steps)


def _joined(stages: list[Training], asked: np.ndarray) -> Training:
    """The stages' records as one run's, at the steps asked for."""
    steps = np.concatenate([stage.steps for stage in stages])
    keep = np.flatnonzero(np.isin(steps, asked))
    found: dict[str, Any] = {"steps": steps[keep]}
    for field in fields(Training):
        name = field.name
        if name in ("steps", "final", "diverged_at", "lr", "objective", "weights"):
            continue
        values = [getattr(stage, name) for stage in stages]
        if values[0] is None:
            found[name] = None
            continue
        axis = _STEP_AXIS.get(name, -1)
        found[name] = np.take(np.concatenate(values, axis=axis), keep, axis=axis)
    diverged = np.stack([np.asarray(stage.diverged_at) for stage in stages])
    first = np.where(diverged >= 0, diverged, np.iinfo(np.int64).max).min(axis=0)
    either = np.where(diverged.max(axis=0) >= 0, first, -1)
    last = stages[-1]
    return replace(
        last,
        **found,
        diverged_at=either if np.ndim(last.diverged_at) else int(either),
    )
