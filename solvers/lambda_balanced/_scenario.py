"""The networks the views pose (docs/theory.md §3): sizes, task and initial weights from the
values a person chooses, the architecture closest to those asked for, and the regimes Dominé et
al. predict."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._validation import (
    as_finite_scalar,
    as_positive_int,
)
from ._exact import (
    HIERARCHY_FEATURES,
    HIERARCHY_ITEMS,
    SHAPES,
    LambdaBalancedTrajectory,
    balanced_init,
    exact,
    gradient_descent,
    hierarchical_task,
    random_generator,
    random_task,
    shape_kind,
    task_aligned_init,
)
from ._sweep import LambdaSweep, admits, lambda_sweep

__all__ = [
    "INITS",
    "SHAPE_NAMES",
    "TASKS",
    "TASK_STREAM",
    "WEIGHT_STREAM",
    "Architecture",
    "Scenario",
    "admits",
    "architecture",
    "limit_regime",
    "regime",
    "scenario",
    "scenario_sweep",
    "sweep_shapes",
]

#: the architectures a scenario may ask for (Dominé et al. Fig. 5A), or "any" for the sizes given
SHAPE_NAMES = ("funnel", "square", "inverted funnel", "any")
#: the tasks: a random regression (:func:`random_task`) or the semantic hierarchy
#: (:func:`hierarchical_task`)
TASKS = ("random", "hierarchy")
#: the starts: random λ-balanced (:func:`balanced_init`) or task-aligned (:func:`task_aligned_init`)
INITS = ("random", "aligned")
#: the streams of a scenario's seed s: its random task draws from ``(s, TASK_STREAM)``, its
#: random weights from ``(s, WEIGHT_STREAM)`` (see :func:`random_generator`)
TASK_STREAM = 0
WEIGHT_STREAM = 1


@dataclass(frozen=True)
class Architecture:
    """The sizes of a scenario's network and why they differ from those asked for."""

    d_in: int
    hidden: int
    d_out: int
    #: every change to the sizes asked for, in plain words (empty if none was needed)
    notes: tuple[str, ...] = ()

    @property
    def dims(self) -> tuple[int, int, int]:
        return self.d_in, self.hidden, self.d_out

    @property
    def kind(self) -> str:
        """The name of the shape: funnel, square, inverted funnel or other (:func:`shape_kind`)."""
        return shape_kind(*self.dims)

    @property
    def rank(self) -> int:
        """Largest rank of the network function W₂W₁."""
        return min(self.dims)


def _choice(name: str, value: str, options: tuple[str, ...]) -> str:
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(options)}; got {value!r}.")
    return value


def _shaped(d_in: int, hidden: int, d_out: int, shape: str, largest: int | None):
    """Sizes that have the named shape (changing as few as possible), and the rule broken."""
    cap = largest if largest is not None else max(d_in, hidden, d_out) + 1
    if shape == "square" and not d_in == hidden == d_out:
        return (hidden, hidden, hidden), "d_in = h = d_out"
    if shape == "funnel" and not d_in > hidden >= d_out:
        hidden = min(hidden, cap - 1)
        return (max(d_in, hidden + 1), hidden, min(d_out, hidden)), "d_in > h ≥ d_out"
    if shape == "inverted funnel" and not d_in <= hidden < d_out:
        hidden = min(hidden, cap - 1)
        return (min(d_in, hidden), hidden, max(d_out, hidden + 1)), "d_in ≤ h < d_out"
    return (d_in, hidden, d_out), None


def _hierarchy_sizes(requested, shape: str) -> tuple[tuple[int, int, int], list[str]]:
    size = len(HIERARCHY_ITEMS)
    hidden, reason = requested[1], ""
    if shape in ("funnel", "inverted funnel"):
        reason = f" (a {shape} is impossible with equal input and output sizes)"
        shape = "square"
    if shape == "square":
        hidden = size
    dims = (size, hidden, size)
    if dims == tuple(requested):
        return dims, []
    arrow = " → ".join(map(str, dims))
    return dims, [
        f"The semantic hierarchy has {size} items and {size} features{reason}: using {arrow}."
    ]


def _ranked(dims, lam: float, init: str) -> tuple[int, list[str]]:
    """The hidden width that λ and the start allow (:func:`admits`), and why it changed."""
    d_in, hidden, d_out = dims
    notes = []
    if lam > 0 and hidden > d_out:
        notes.append(f"λ > 0 needs h ≤ d_out (W₂ᵀW₂ = W₁W₁ᵀ + λI has rank h): using h = {d_out}.")
        hidden = d_out
    elif lam < 0 and hidden > d_in:
        notes.append(f"λ < 0 needs h ≤ d_in (W₁W₁ᵀ = W₂ᵀW₂ − λI has rank h): using h = {d_in}.")
        hidden = d_in
    elif lam == 0 and hidden > max(d_in, d_out):
        notes.append(
            f"A balanced network needs h ≤ max(d_in, d_out): using h = {max(d_in, d_out)}."
        )
        hidden = max(d_in, d_out)
    if init == "aligned" and hidden > min(d_in, d_out):
        notes.append(
            f"A task-aligned start needs h ≤ min(d_in, d_out): using h = {min(d_in, d_out)}."
        )
        hidden = min(d_in, d_out)
    return hidden, notes


def architecture(
    d_in: int,
    hidden: int,
    d_out: int,
    *,
    shape: str = "any",
    lam: float = 0.0,
    task: str = "random",
    init: str = "random",
    largest: int | None = None,
) -> Architecture:
    """The sizes (dᵢ, h, dₒ) a scenario can use, closest to those asked for.

    Instead of failing, each constraint changes the offending size and says so in ``notes``:
    the semantic hierarchy fixes dᵢ = dₒ = 8 (no funnel of either kind then exists); a named
    ``shape`` needs funnel dᵢ > h ≥ dₒ, square dᵢ = h = dₒ or inverted funnel dᵢ ≤ h < dₒ
    (Dominé et al. Fig. 5A), with no size above ``largest``; λ needs :func:`admits`; a
    task-aligned start needs h ≤ min(dᵢ, dₒ) (:func:`task_aligned_init`).
    """
    requested = tuple(
        as_positive_int(n, v)
        for n, v in zip(("d_in", "hidden", "d_out"), (d_in, hidden, d_out), strict=True)
    )
    shape = _choice("shape", shape, SHAPE_NAMES)
    task = _choice("task", task, TASKS)
    init = _choice("init", init, INITS)
    lam = as_finite_scalar("lam", lam)
    if largest is not None and as_positive_int("largest", largest) < 2:
        raise ValueError(f"largest must be at least 2 (a funnel has two sizes); got {largest}.")
    if task == "hierarchy":
        dims, notes = _hierarchy_sizes(requested, shape)
    else:
        dims, rule = _shaped(*requested, shape, largest)
        notes = []
        if rule is not None:
            arrow = " → ".join(map(str, dims))
            notes.append(f"A {shape} network needs {rule}: using {arrow}.")
    hidden, ranked = _ranked(dims, lam, init)
    return Architecture(dims[0], hidden, dims[2], tuple(notes + ranked))


def _seed_number(seed: int) -> int:
    """A scenario's seed: a whole number ≥ 0 (checked as a stream of :func:`random_generator`)."""
    random_generator((seed, 0))
    return int(seed)


def _task_matrix(task: str, d_in: int, d_out: int, seed: int) -> np.ndarray:
    if task == "hierarchy":
        return hierarchical_task()
    return random_task(d_in, d_out, (seed, TASK_STREAM))


def _labels(task: str, d_in: int, d_out: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if task == "hierarchy":
        return HIERARCHY_ITEMS, HIERARCHY_FEATURES
    return tuple(f"x{i + 1}" for i in range(d_in)), tuple(f"y{i + 1}" for i in range(d_out))


@dataclass(frozen=True)
class Scenario:
    """One network as the views pose it: sizes, task and initial weights (built by
    :func:`scenario`, which owns the seeding)."""

    architecture: Architecture
    lam: float  #: relative scale λ: ``W₂ᵀW₂ − W₁W₁ᵀ = λI``
    scale: float  #: absolute scale ‖W₂W₁‖_F at t = 0
    task: str  #: one of :data:`TASKS`
    init: str  #: one of :data:`INITS`
    seed: int
    sigma_yx: np.ndarray  #: (dₒ, dᵢ) the task
    W1: np.ndarray  #: (h, dᵢ) initial first layer
    W2: np.ndarray  #: (dₒ, h) initial read-out
    inputs: tuple[str, ...]  #: names of the inputs (the tree's items for the hierarchy)
    outputs: tuple[str, ...]  #: names of the outputs (the tree's features)

    @cached_property
    def task_singular_values(self) -> np.ndarray:
        """(min(dₒ, dᵢ),) singular values σᵢ of Σyx, largest first."""
        return np.linalg.svd(self.sigma_yx, compute_uv=False)

    @property
    def best_loss(self) -> float:
        """The least loss of a network of hidden width h: ``½ Σ_{i>h} σᵢ²`` (Eckart–Young),
        where the flow from a generic start ends."""
        return 0.5 * float(np.sum(self.task_singular_values[self.architecture.hidden :] ** 2))

    def exact(self, t: np.ndarray) -> LambdaBalancedTrajectory:
        """The exact gradient flow from this start (:func:`exact`)."""
        return exact(self.W1, self.W2, self.sigma_yx, t)

    def gradient_descent(self, lr: float, steps: int, every: int = 1) -> LambdaBalancedTrajectory:
        """Gradient descent from this start (:func:`gradient_descent`)."""
        return gradient_descent(self.W1, self.W2, self.sigma_yx, lr, steps, every=every)


def scenario(
    *,
    lam: float,
    scale: float,
    d_in: int = 3,
    hidden: int = 3,
    d_out: int = 3,
    shape: str = "any",
    task: str = "random",
    init: str = "random",
    seed: int = 0,
    largest: int | None = None,
) -> Scenario:
    """The network, task and start of Dominé et al.'s experiments for these settings.

    The sizes are :func:`architecture`'s. The task is the semantic hierarchy or a random one
    drawn from the stream ``(seed, TASK_STREAM)``; the start is task-aligned, each of its h
    modes at ``scale/√h`` (so ``‖W₂W₁‖_F = scale``), or random λ-balanced from the stream
    ``(seed, WEIGHT_STREAM)`` (:func:`balanced_init`). A map's cells are scenarios too
    (:func:`scenario_sweep`), so a cell and the trajectory it opens start from the same weights.
    """
    found = architecture(
        d_in, hidden, d_out, shape=shape, lam=lam, task=task, init=init, largest=largest
    )
    seed = _seed_number(seed)
    scale = as_finite_scalar("scale", scale)
    sigma_yx = _task_matrix(task, found.d_in, found.d_out, seed)
    if init == "aligned":
        W1, W2 = task_aligned_init(sigma_yx, found.hidden, lam, scale / np.sqrt(found.hidden))
    else:
        W1, W2 = balanced_init(*found.dims, lam, scale, (seed, WEIGHT_STREAM))
    inputs, outputs = _labels(task, found.d_in, found.d_out)
    return Scenario(
        found, float(lam), float(scale), task, init, seed, sigma_yx, W1, W2, inputs, outputs
    )


def sweep_shapes(task: str) -> dict[str, tuple[int, int, int]]:
    """The architectures a map compares: :data:`SHAPES` for a random task; the square 8 → 8 → 8
    alone for the hierarchy (equal input and output sizes leave no funnel)."""
    if _choice("task", task, TASKS) == "hierarchy":
        size = len(HIERARCHY_ITEMS)
        return {"square": (size, size, size)}
    return dict(SHAPES)


def scenario_sweep(
    lams: np.ndarray,
    t: float,
    *,
    scale: float,
    task: str = "random",
    seed: int = 0,
    shapes: Mapping[str, tuple[int, int, int]] | None = None,
    horizon: float = 100.0,
    threshold: float = 1e-2,
) -> LambdaSweep:
    """:func:`lambda_sweep` over random-start scenarios: the cell of architecture ``name``
    (dᵢ, h, dₒ) and relative scale λ starts from exactly the weights and task of
    ``scenario(lam=λ, scale=scale, d_in=dᵢ, hidden=h, d_out=dₒ, shape=name, task=task,
    seed=seed)`` (Dominé et al. Fig. 5B, App. A.4). ``shapes`` defaults to
    :func:`sweep_shapes` of the task; the sweep's ``seed`` is the weights' stream.
    """
    shapes = sweep_shapes(task) if shapes is None else shapes
    seed = _seed_number(seed)
    tasks = {name: _task_matrix(task, dims[0], dims[2], seed) for name, dims in shapes.items()}
    return lambda_sweep(
        lams,
        t,
        horizon=horizon,
        threshold=threshold,
        scale=scale,
        seed=(seed, WEIGHT_STREAM),
        shapes=shapes,
        sigma_yx=tasks,
    )


def limit_regime(kind: str, sign: int) -> str:
    """The regime Dominé et al. (§6, Fig. 5B) predict as λ → sign·∞ for an architecture
    (:func:`shape_kind`): "lazy" or "delayed rich" for the funnels (a funnel is lazy as λ → +∞
    and delayed rich as λ → −∞, an inverted funnel the reverse); for a square net
    "lazy in W1" (λ → +∞: W₂W₂ᵀ ≈ λI, the task's structure in W₁ only) or "lazy in W2";
    "bottleneck" (lazy first, possibly delayed rich) for the other shapes."""
    if kind == "funnel":
        return "lazy" if sign > 0 else "delayed rich"
    if kind == "inverted funnel":
        return "delayed rich" if sign > 0 else "lazy"
    if kind == "square":
        return "lazy in W1" if sign > 0 else "lazy in W2"
    return "bottleneck"


def regime(kind: str, lam: float, sigma_max: float) -> tuple[str, bool]:
    """(regime, settled) of an architecture at relative scale λ, for a task whose largest
    singular value is ``sigma_max``: "rich" while |λ| ≤ σ_max/2, else :func:`limit_regime`;
    ``settled`` once |λ| > 2σ_max, where λ dominates the scale of the task (between the two the
    net is between rich and that regime)."""
    lam = as_finite_scalar("lam", lam)
    sigma_max = as_finite_scalar("sigma_max", sigma_max)
    if abs(lam) <= 0.5 * sigma_max:
        return "rich", True
    return limit_regime(kind, 1 if lam > 0 else -1), abs(lam) > 2 * sigma_max
