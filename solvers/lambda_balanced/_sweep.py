"""The λ sweep across architectures (Dominé et al. Fig. 5B, App. A.4): S(0, t) and the time to
learn over λ for funnel, square and inverted funnel, each architecture's cells as one stack."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._riccati import DecayingForm, MatrixRiccati, _March, unstable_margins
from .._validation import (
    as_array,
    as_finite_scalar,
    as_positive,
    as_positive_int,
    guard_overflow,
    require_finite,
)
from ..metrics import kernel_distance_from_changes
from ._exact import (
    SHAPES,
    _balanced_stack,
    _flow,
    _kernel_distance,
    _kernel_products,
    random_generator,
    random_task,
)

__all__ = ["MAX_SWEEP_LAMBDAS", "LambdaSweep", "lambda_sweep"]

#: most λ values of one sweep
MAX_SWEEP_LAMBDAS = 201
#: largest |λ| of a sweep (the fastest rate of F grows like |λ|/2)
MAX_SWEEP_ABS_LAMBDA = 1e3
#: most architectures of one sweep (≤ 804 cells), and largest dimension of each
MAX_SWEEP_SHAPES = 4
MAX_SWEEP_DIMENSION = 32
#: longest time or horizon of a sweep
MAX_SWEEP_TIME = 1e6


@dataclass(frozen=True)
class LambdaSweep:
    """Kernel distance and learning speed across the relative scale λ, one row per architecture.

    Every array field has shape ``(len(shapes), len(lams))``. Cells where the architecture
    cannot be λ-balanced (λ > 0 needs h ≤ dₒ, λ < 0 needs h ≤ dᵢ) have ``valid = False`` and
    hold 0.0 in every float field except ``time_to_threshold`` (inf): mask them with ``valid``.
    """

    lams: np.ndarray  #: (L,) relative scales λ
    shapes: tuple[str, ...]  #: architecture names, one per row
    dimensions: tuple[tuple[int, int, int], ...]  #: (dᵢ, h, dₒ) per row
    sigma_yx: tuple[np.ndarray, ...]  #: the task of each row (dₒ × dᵢ)
    t: float  #: time of ``kernel_distance`` and ``loss``
    horizon: float  #: ``time_to_threshold`` is inf when the threshold is not reached by then
    threshold: float  #: relative loss level of ``time_to_threshold``
    scale: float  #: absolute scale ‖W₂W₁‖_F at t = 0 (:func:`balanced_init`)
    seed: int | tuple[int, ...] | None  #: seed of :func:`balanced_init` (the same for every cell)
    valid: np.ndarray  #: bool, the architecture admits this λ
    kernel_distance: np.ndarray  #: S(0, t) of the NTK
    loss: np.ndarray  #: ``½‖Σyx − W₂W₁‖²`` at t
    initial_loss: np.ndarray  #: the loss at t = 0
    #: first time with ``loss ≤ threshold · initial_loss`` (0 if already there; inf if not by
    #: ``horizon``)
    time_to_threshold: np.ndarray
    #: as :attr:`LambdaBalancedTrajectory.saddle_margin`: below
    #: :data:`solvers.metrics.SADDLE_MARGIN` the start lies on a saddle's stable manifold (it
    #: stalls there, e.g. λ = 0 with det W₂ of the wrong sign)
    saddle_margin: np.ndarray


class _Checkpoints:
    """A forward-only march of one :class:`MatrixRiccati` flow that keeps every restart state.

    Any time up to the marched position + one step is then one closed-form step from its
    checkpoint — each step within the length the march validated, exactly as
    :meth:`MatrixRiccati.factors` does — so root-finding in time costs no re-marching.
    """

    def __init__(self, flow: MatrixRiccati) -> None:
        self.flow = flow
        self.march = _March(flow, flow.initial)
        self.positions = [0.0]
        self.states = [self.march.state]

    def reach(self, target: float) -> None:
        march = self.march
        while target - march.position > march.step:
            march.advance(allow_doubling=target - march.position > 2 * march.step)
            self.positions.append(march.position)
            self.states.append(march.state)

    def factors(self, times: np.ndarray) -> np.ndarray:
        """(T, n, h) factors X(t) (X Xᵀ = Q Qᵀ(t)) in the original coordinates, t reached."""
        times = np.asarray(times, dtype=np.float64)
        which = np.searchsorted(np.asarray(self.positions), times, side="right") - 1
        states = np.stack(self.states)[which]
        remainder = np.maximum(times - np.asarray(self.positions)[which], 0.0)
        return self.flow.basis @ self.flow.advance(states, remainder)


def _blocks(factors: np.ndarray, d_in: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(function W₂W₁, rsm_in W₁ᵀW₁, rsm_out W₂W₂ᵀ) from factors (…, dᵢ + dₒ, h)."""
    first, second = factors[..., :d_in, :], factors[..., d_in:, :]
    first_t, second_t = np.swapaxes(first, -1, -2), np.swapaxes(second, -1, -2)
    return second @ first_t, first @ first_t, second @ second_t


def _sweep_loss(function: np.ndarray, sigma_yx: np.ndarray) -> np.ndarray:
    residual = function - sigma_yx
    return 0.5 * np.sum(residual * residual, axis=(-2, -1))


def admits(d_in: int, hidden: int, d_out: int, lam: float) -> bool:
    """Whether a λ-balanced network of these sizes exists (and :func:`balanced_init` builds
    one): ``W₂ᵀW₂ = W₁W₁ᵀ + λI_h`` has rank h, so λ > 0 needs h ≤ dₒ, λ < 0 needs h ≤ dᵢ and
    λ = 0 one of the two (docs/theory.md §3)."""
    if lam > 0:
        return hidden <= d_out
    if lam < 0:
        return hidden <= d_in
    return hidden <= d_out or hidden <= d_in


def _first_crossing(
    path: _Checkpoints, sigma_yx: np.ndarray, d_in: int, target: float, horizon: float
) -> float:
    """First t ≤ horizon with loss(t) ≤ target (inf if none): the loss never increases under
    the flow, so the checkpoints bracket the crossing, and a safeguarded Newton iteration on
    log loss — with the exact slope ``dL/dt = −‖∇L‖² = −(⟨E, W₂W₂ᵀE⟩ + ⟨E, EW₁ᵀW₁⟩)``,
    ``E = Σyx − W₂W₁`` — pins it to ~1e-14 relative."""
    for stage in range(2):  # first within what is already marched, then up to the horizon
        if stage:
            path.reach(horizon)
        positions = np.asarray(path.positions)
        inside = positions[positions <= horizon]
        end = min(horizon, path.march.position + path.march.step)
        times = np.append(inside, end) if inside[-1] < end else inside
        losses = _sweep_loss(_blocks(path.factors(times), d_in)[0], sigma_yx)
        below = np.flatnonzero(losses <= target)
        if below.size:
            break
    else:
        return np.inf
    index = int(below[0])
    if index == 0:
        return 0.0

    def evaluate(times: np.ndarray, _: np.ndarray) -> tuple[np.ndarray, ...]:
        return (*_loss_and_slope(path.factors(times), sigma_yx, d_in), np.ones(1, dtype=bool))

    return float(
        _newton_crossings(
            evaluate,
            np.array([times[index - 1]]),
            np.array([times[index]]),
            losses[index - 1 : index + 1, None],
            np.array([target]),
        )[0]
    )


def _loss_and_slope(
    factors: np.ndarray, sigma_yx: np.ndarray, d_in: int
) -> tuple[np.ndarray, np.ndarray]:
    """Loss and its exact slope ``dL/dt = −‖∇L‖² = −(⟨E, W₂W₂ᵀE⟩ + ⟨E, EW₁ᵀW₁⟩)``,
    ``E = Σyx − W₂W₁``, from factors (C, n, h)."""
    function, rsm_in, rsm_out = _blocks(factors, d_in)
    error = sigma_yx - function
    loss = 0.5 * np.sum(error * error, axis=(-2, -1))
    slope = -(
        np.sum(error * (rsm_out @ error), axis=(-2, -1))
        + np.sum(error * (error @ rsm_in), axis=(-2, -1))
    )
    return loss, slope


def _newton_crossings(evaluate, low, high, losses, targets) -> np.ndarray:
    """Times where the loss falls to ``targets`` (C,), each inside its bracket ``(low, high]``
    (``losses`` (2, C) at the ends: above, then at or below the target): a safeguarded Newton
    iteration on log loss, bisecting whenever Newton leaves the bracket, to ~1e-14 relative.

    ``evaluate(times, cells)`` returns loss, slope and whether each was evaluated exactly;
    a cell whose evaluation is not exact comes out NaN.
    """
    log_target = np.log(targets)
    with np.errstate(divide="ignore"):
        excess_low = np.log(losses[0]) - log_target  # > 0
        excess_high = np.log(losses[1]) - log_target  # ≤ 0 (−inf if the loss is 0)
    with np.errstate(invalid="ignore"):
        time = low + (high - low) * excess_low / (excess_low - excess_high)  # secant in log loss
    time = np.where((low < time) & (time < high), time, 0.5 * (low + high))
    result = np.full(targets.shape, np.nan)
    active = np.arange(targets.size)
    for _ in range(100):
        loss, slope, exact = evaluate(time[active], active)
        active, loss, slope = active[exact], loss[exact], slope[exact]
        if not active.size:
            return result
        now = time[active]
        with np.errstate(divide="ignore", invalid="ignore"):
            excess = np.where(loss > 0, np.log(loss), -np.inf) - log_target[active]
            above = excess > 0
            low[active] = np.where(above, now, low[active])
            high[active] = np.where(above, high[active], now)
            newton = (slope < 0) & np.isfinite(excess)
            step = np.where(newton, -excess * loss / np.where(newton, slope, 1), np.nan)
        following = now + step
        # A Newton step below 1e-14 relative ends the search even if rounding put it on or
        # just past the bracket's end (e.g. a loss exactly at the target gives step 0 there):
        # bisecting instead would crawl back from the far end of the bracket.
        settled = np.abs(step) <= 1e-14 * np.abs(following)
        inside = settled | ((low[active] < following) & (following < high[active]))
        following = np.where(inside, following, 0.5 * (low[active] + high[active]))  # bisect
        done = (np.abs(following - now) <= 1e-14 * following) | (
            high[active] - low[active] <= 1e-14 * high[active]
        )
        result[active[done]] = following[done]
        time[active] = following
        active = active[~done]
        if not active.size:
            return result
    result[active] = high[active]
    return result


def _sweep_shapes(shapes, sigma_yx, task_seed):
    if shapes is None:
        shapes = SHAPES
    if not isinstance(shapes, Mapping) or not shapes:
        raise ValueError(
            "shapes must be a non-empty mapping name → (d_in, hidden, d_out), e.g. "
            "lambda_balanced.SHAPES."
        )
    if len(shapes) > MAX_SWEEP_SHAPES:
        raise ValueError(f"at most {MAX_SWEEP_SHAPES} shapes per sweep; got {len(shapes)}.")
    if sigma_yx is not None and not isinstance(sigma_yx, Mapping):
        raise ValueError("sigma_yx must be a mapping from shape name to its Σyx (d_out × d_in).")
    names, dimensions, tasks = [], [], []
    for name, dims in shapes.items():
        if not isinstance(dims, tuple | list) or len(dims) != 3:
            raise ValueError(f"shape {name!r} must be (d_in, hidden, d_out); got {dims!r}.")
        d_in, hidden, d_out = (
            as_positive_int(f"{name} {part}", value, maximum=MAX_SWEEP_DIMENSION)
            for part, value in zip(("d_in", "hidden", "d_out"), dims, strict=True)
        )
        if sigma_yx is not None and name in sigma_yx:
            task = as_array(f"sigma_yx[{name!r}]", sigma_yx[name], ndim=2, shape=(d_out, d_in))
        else:
            task = random_task(d_in, d_out, task_seed)
        names.append(str(name))
        dimensions.append((d_in, hidden, d_out))
        tasks.append(task)
    if sigma_yx is not None:
        unknown = set(sigma_yx) - set(shapes)
        if unknown:
            raise ValueError(f"sigma_yx names shapes that are not swept: {sorted(unknown)}.")
    return tuple(names), tuple(dimensions), tuple(tasks)


#: what :func:`_sweep_row` returns for each λ of one architecture
_ROW_FIELDS = ("valid", "distance", "loss", "initial_loss", "crossing", "margin")
#: points of the geometric grid (from 1e-12 × the horizon to the horizon) on which the batched
#: threshold search brackets each crossing; the loss never increases, so any grid brackets it
_BRACKET_POINTS = 64


def _generators(sigma_yx: np.ndarray, lams: np.ndarray) -> np.ndarray:
    """(C, n, n) ``F = [[−λ/2·I, Σyxᵀ], [Σyx, λ/2·I]]`` for each λ, as :func:`_flow` builds it."""
    d_out, d_in = sigma_yx.shape
    generators = np.zeros((lams.size, d_in + d_out, d_in + d_out))
    generators[:, :d_in, d_in:] = sigma_yx.T
    generators[:, d_in:, :d_in] = sigma_yx
    inputs, outputs = np.arange(d_in), d_in + np.arange(d_out)
    generators[:, inputs, inputs] = -0.5 * lams[:, None]
    generators[:, outputs, outputs] = 0.5 * lams[:, None]
    return generators


def _sweep_row(dims, task, lams, t, horizon, threshold, scale, seed) -> dict[str, np.ndarray]:
    """Every λ of one architecture: the valid cells are initialised, factorised and evaluated
    as one stack by the restart-free closed form; cells it refuses are marched one by one."""
    d_in, hidden, d_out = dims
    valid = np.array([admits(d_in, hidden, d_out, float(lam)) for lam in lams], dtype=bool)
    row = {field: np.zeros(lams.size) for field in _ROW_FIELDS} | {"valid": valid}
    row["crossing"][:] = np.inf
    columns = np.flatnonzero(valid)
    if not columns.size:
        return row
    W1, W2 = _balanced_stack(d_in, hidden, d_out, lams[columns], scale, seed)
    # F from the λ the weights carry (as exact does, see balance): at long horizons and large
    # |λ| the rounding of the nominal λ (~1e-13) would shift the loss by ~1e-7.
    difference = np.swapaxes(W2, -1, -2) @ W2 - W1 @ np.swapaxes(W1, -1, -2)
    carried = np.trace(difference, axis1=-2, axis2=-1) / hidden
    rates, basis = np.linalg.eigh(_generators(task, carried))
    initial = np.swapaxes(basis, -1, -2) @ np.concatenate([np.swapaxes(W1, -1, -2), W2], axis=-2)
    form = DecayingForm(rates, basis, initial)
    start = _sweep_loss(W2 @ W1, task)
    distance, loss = _closed_at(form, W1, W2, task, t)
    crossing = _closed_crossings(form, task, start, threshold, horizon)
    for k in np.flatnonzero(np.isnan(distance) | np.isnan(crossing)):
        distance[k], loss[k], crossing[k] = _marched_cell(
            W1[k], W2[k], task, carried[k], t, threshold, horizon
        )
    for field, values in zip(_ROW_FIELDS[1:5], (distance, loss, start, crossing), strict=True):
        row[field][columns] = values
    row["margin"][columns] = unstable_margins(rates, initial)
    return row


def _closed_at(
    form: DecayingForm, W1: np.ndarray, W2: np.ndarray, task: np.ndarray, t: float
) -> tuple[np.ndarray, np.ndarray]:
    """(kernel distance, loss) at t of every cell of a stack by the closed form; NaN where it
    is refused."""
    factors, condition = form.factors(np.array([t]))
    exact = condition[:, 0] <= form.CONDITION_LIMIT
    function, rsm_in, rsm_out = _blocks(factors[exact, 0], task.shape[1])
    require_finite("lambda_balanced.lambda_sweep", function, rsm_in, rsm_out)
    products = _kernel_products(
        W2[exact] @ np.swapaxes(W2[exact], -1, -2),
        np.swapaxes(W1[exact], -1, -2) @ W1[exact],
        rsm_out,
        rsm_in,
    )
    distance = np.full(exact.shape, np.nan)
    loss = np.full(exact.shape, np.nan)
    distance[exact] = [kernel_distance_from_changes(*cell) for cell in zip(*products, strict=True)]
    loss[exact] = _sweep_loss(function, task)
    return distance, loss


def _closed_crossings(
    form: DecayingForm, task: np.ndarray, start: np.ndarray, threshold: float, horizon: float
) -> np.ndarray:
    """First t ≤ horizon with ``loss ≤ threshold · start`` for every cell of a stack (0 if
    already there, inf if not by the horizon), by the closed form; NaN where it is refused.

    The loss on a geometric grid brackets each crossing (only grid points the closed form
    evaluates exactly count); :func:`_newton_crossings` then pins it down for all cells at
    once, exactly as :func:`_first_crossing` does for one marched cell."""
    crossing = np.zeros(start.shape)
    search = np.flatnonzero((start > 0) & (threshold < 1))
    if not search.size:
        return crossing
    d_in, targets = task.shape[1], threshold * start[search]
    grid = horizon * np.geomspace(1e-12, 1.0, _BRACKET_POINTS)
    factors, condition = form.factors(grid, search)
    losses = _sweep_loss(_blocks(factors, d_in)[0], task)
    exact = condition <= form.CONDITION_LIMIT
    below = exact & (losses <= targets[:, None])
    above = exact & (losses > targets[:, None])
    reached = np.any(below, axis=1)
    # never reached: inf if the loss at the horizon itself was evaluated exactly
    crossing[search[~reached]] = np.where(above[~reached, -1], np.inf, np.nan)
    cells = np.flatnonzero(reached)
    first = np.argmax(below[cells], axis=1)
    # low end: the last exact grid point above the target before it, else t = 0 (the start)
    before = above[cells] & (np.arange(grid.size) < first[:, None])
    last = grid.size - 1 - np.argmax(before[:, ::-1], axis=1)
    has_low = np.any(before, axis=1)
    low = np.where(has_low, grid[last], 0.0)
    ends = np.stack(
        [
            np.where(has_low, losses[cells, last], start[search[cells]]),
            losses[cells, first],
        ]
    )

    def evaluate(times: np.ndarray, which: np.ndarray) -> tuple[np.ndarray, ...]:
        factors, condition = form.factors(times[:, None], search[cells[which]])
        loss, slope = _loss_and_slope(factors[:, 0], task, d_in)
        return loss, slope, condition[:, 0] <= form.CONDITION_LIMIT

    crossing[search[cells]] = _newton_crossings(evaluate, low, grid[first], ends, targets[cells])
    return crossing


def _marched_cell(
    W1: np.ndarray,
    W2: np.ndarray,
    task: np.ndarray,
    lam: float,
    t: float,
    threshold: float,
    horizon: float,
) -> tuple[float, float, float]:
    """(kernel distance at t, loss at t, time to the threshold) of one cell by the restarted
    march: for the cells the closed form refuses, and the reference it is tested against."""
    d_in = task.shape[1]
    path = _Checkpoints(_flow(W1, W2, task, lam))
    path.reach(t)
    function, rsm_in, rsm_out = _blocks(path.factors(np.array([t])), d_in)
    require_finite("lambda_balanced.lambda_sweep", function, rsm_in, rsm_out)
    distance = _kernel_distance(W2 @ W2.T, W1.T @ W1, rsm_out, rsm_in)[0]
    start = float(_sweep_loss(W2 @ W1, task))
    crossing = (
        0.0
        if start == 0 or threshold == 1
        else _first_crossing(path, task, d_in, threshold * start, horizon)
    )
    return float(distance), float(_sweep_loss(function, task)[0]), crossing


@guard_overflow
def lambda_sweep(
    lams: np.ndarray,
    t: float,
    *,
    horizon: float = 100.0,
    threshold: float = 1e-2,
    scale: float = 0.1,
    seed: int | tuple[int, ...] | None = 0,
    task_seed: int | tuple[int, ...] | None = 0,
    shapes: Mapping[str, tuple[int, int, int]] | None = None,
    sigma_yx: Mapping[str, np.ndarray] | None = None,
) -> LambdaSweep:
    """Kernel distance S(0, t) and time to learn versus λ for funnel, square and inverted-funnel
    networks — Dominé et al., *From lazy to rich*, Fig. 5B (NTK distance vs λ per architecture)
    and App. A.4 (scale vs relative scale), with the exact matrix-Riccati flow of docs/theory.md
    (3.3); the time to the threshold as in (3.25).

    Parameters
    ----------
    lams : (L,) relative scales λ (at most 201, |λ| ≤ 1e3).
    t : time ≥ 0 of the kernel distance and loss.
    horizon : > 0, how long to look for the loss threshold (inf where it is not reached).
    threshold : in (0, 1]; ``time_to_threshold`` is the first t with
        ``loss(t) ≤ threshold · loss(0)``.
    scale : absolute scale ‖W₂W₁‖_F at initialisation (≥ 0).
    seed : seed of every cell's :func:`balanced_init` ``(dᵢ, h, dₒ, λ, scale, seed)`` — the same
        random factor, rescaled, for every λ (a whole number, a tuple of them or None; see
        :func:`random_generator`).
    task_seed : seed of :func:`random_task` ``(dᵢ, dₒ, task_seed)``, the task of every shape
        not given in ``sigma_yx``.
    shapes : name → (dᵢ, h, dₒ); default :data:`SHAPES` (funnel 4-2-2, square 3-3-3, inverted
        funnel 2-2-4, i.e. h = min(dᵢ, dₒ) as in the paper, valid for every λ).
    sigma_yx : optional name → Σyx (dₒ × dᵢ) overriding the random task of that shape.

    Each cell equals :func:`exact` from that initialisation (its kernel distance and loss at t,
    and the crossing time found by Newton's method on the exact loss, to ~1e-14 relative in t).
    The cells of one architecture are computed as one stack: one batched factorisation of F,
    the restart-free closed form at t for all of them (:class:`solvers._riccati.DecayingForm`),
    and one Newton iteration for all their crossing times. A cell it refuses (a start within
    rounding of a saddle's stable manifold, a zero rate) is marched on its own, the march then
    shared by t and the threshold search.
    """
    lams = np.atleast_1d(as_array("lams", lams, ndim=(0, 1)))
    if lams.size > MAX_SWEEP_LAMBDAS:
        raise ValueError(f"lams may hold at most {MAX_SWEEP_LAMBDAS} values; got {lams.size}.")
    if np.max(np.abs(lams)) > MAX_SWEEP_ABS_LAMBDA:
        raise ValueError(
            f"|λ| must be at most {MAX_SWEEP_ABS_LAMBDA:g} in a sweep (beyond it the net is "
            f"lazy to rounding); got {np.max(np.abs(lams)):g}."
        )
    t = as_finite_scalar("t", t)
    if not 0 <= t <= MAX_SWEEP_TIME:
        raise ValueError(f"t must be in [0, {MAX_SWEEP_TIME:g}]; got {t:g}.")
    horizon = as_positive("horizon", horizon)
    if horizon > MAX_SWEEP_TIME:
        raise ValueError(f"horizon must be at most {MAX_SWEEP_TIME:g}; got {horizon:g}.")
    threshold = as_positive("threshold", threshold)
    if threshold > 1:
        raise ValueError(
            f"threshold is a fraction of the initial loss and must be in (0, 1]; got {threshold:g}."
        )
    scale = as_finite_scalar("scale", scale)
    if scale < 0:
        raise ValueError(f"scale must be >= 0 (it is ‖W2 W1‖ at initialisation); got {scale:g}.")
    for name, value in (("seed", seed), ("task_seed", task_seed)):
        if isinstance(value, np.random.Generator):
            raise ValueError(
                f"{name} must be a whole number, a tuple of them or None (every cell reuses "
                "it), not a Generator."
            )
        random_generator(value)  # the same checks as balanced_init / random_task, before any work
    names, dimensions, tasks = _sweep_shapes(shapes, sigma_yx, task_seed)

    rows = [
        _sweep_row(dims, task, lams, t, horizon, threshold, scale, seed)
        for dims, task in zip(dimensions, tasks, strict=True)
    ]
    valid, distance, loss, initial_loss, crossing, margin = (
        np.stack([row[field] for row in rows]) for field in _ROW_FIELDS
    )
    return LambdaSweep(
        lams=lams,
        shapes=names,
        dimensions=dimensions,
        sigma_yx=tasks,
        t=t,
        horizon=horizon,
        threshold=threshold,
        scale=scale,
        seed=seed,
        valid=valid,
        kernel_distance=distance,
        loss=loss,
        initial_loss=initial_loss,
        time_to_threshold=crossing,
        saddle_margin=margin,
    )
