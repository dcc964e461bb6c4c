"""What a click on the finite-width map opens: the network of a map cell, a point of the line
m = 0, a Table-1 point or a sweep point, in the trajectory view — the scheme's scaled network
(:func:`solvers.finite_width.scaled`, the one the width sweep computes for κ = d), moved by the
exact rescaling symmetry into the trajectory view's ranges where it has to be."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from solvers import finite_width as fw

from ...core.clicks import ClickPoint, Link, nearest_index
from ...core.state import Field
from . import trajectory
from .map_plots import ETA_RANGE, grid, markers, plane, sweep_rows, widths, zero_output_for

if TYPE_CHECKING:
    from .map import Controls

TRAJECTORY = trajectory.VIEW.spec.by_name
#: a click opens at most this width (the trajectory view's cap)
MAX_OPEN_WIDTH = int(TRAJECTORY["d"].high)
#: width of a fixed-width scheme (c_d = 0, the lazy scaling) when a click opens it
LAZY_WIDTH = 100


def kappa_of(controls: Controls) -> int:
    """The κ a click on the map opens (a whole number: it is the width when c_d = 1)."""
    return round(controls.kappa)


def width_at(scheme: str, kappa: int) -> int:
    """The width of ``scheme`` at κ: κ itself (c_d = 1), or :data:`LAZY_WIDTH` (c_d = 0)."""
    return kappa if fw.SCALINGS[scheme]["c_d"] == 1 else LAZY_WIDTH


def _in_range(field: Field, value) -> bool:
    """Whether a number fits the trajectory view's range (other values always do)."""
    if field.kind not in ("float", "int"):
        return True
    slack = 1e-9 * max(1.0, abs(field.high), abs(field.low))
    return field.low - slack <= float(value) <= field.high + slack


def _span(name: str) -> tuple[float, float]:
    return TRAJECTORY[name].low, TRAJECTORY[name].high


def _horizon(setting: fw.Scaled, controls: Controls) -> float:
    """A horizon (in t_c) long enough to reach α₊: leaving a small initialisation takes about
    t_c |ln α₊|/4."""
    alpha = setting.network(controls.y, controls.seed).start.alpha_plus
    spread = abs(math.log(alpha)) if math.isfinite(alpha) and alpha > 0 else 40.0
    return float(f"{min(max(5.0, 3.0 + spread / 2), 1000.0):.3g}")


def open_network(
    controls: Controls,
    scheme: str,
    rates: tuple[float, float],
    c_gamma: float,
    kappa: int,
    width: int,
    zero_output: bool,
) -> Link | None:
    """The trajectory view with ``scheme`` at κ: γ = κ^c_γ, σ² = κ^c, learning rates
    (c_ηu, c_ηw) = ``rates`` — the view keeps η_uη_w = 1 and measures time in t_c, so their
    common factor, which only sets t_c, drops out — the map's y and seed, and the exponents for
    its phase table. None when the network does not fit that view's ranges."""
    if not 1 <= width <= MAX_OPEN_WIDTH:
        return None
    c_eta_u, c_eta_w = rates
    setting = fw.scaled(
        scheme, kappa, c_gamma=c_gamma, c_eta_u=c_eta_u, c_eta_w=c_eta_w, width=width
    )
    ratio = setting.eta_u / setting.eta_w
    if not all(
        math.isfinite(v) and v > 0 for v in (setting.gamma, setting.sigma_u, setting.sigma_w, ratio)
    ):
        return None
    scale = setting.balanced_scale(_span("gamma"), _span("sigma_u"), _span("sigma_w"))
    if scale is None:
        return None
    shown = setting.rescaled(scale)
    scaling = fw.SCALINGS[scheme]
    rule = "free"
    if scale == 1.0 and scaling["c_d"] == 1 and kappa == width:
        rule = {-1.0: "mf", -0.5: "ntk"}.get(c_gamma, "free")
    values = {
        "d": width,
        "d0": 1,
        "x_norm": 1.0,
        "y": controls.y,
        "gamma_rule": rule,
        "gamma": shown.gamma,
        "init": "gaussian",
        "sigma_u": shown.sigma_u,
        "sigma_w": shown.sigma_w,
        "seed": controls.seed,
        "eta_ratio": ratio,
        "c_d": scaling["c_d"],
        "c_gamma": c_gamma,
        "c_u": scaling["c_u"],
        "c_w": scaling["c_w"],
        "c_eta_u": c_eta_u,
        "c_eta_w": c_eta_w,
        "zero_output": zero_output,
        "independent": True,
    }
    if not all(_in_range(TRAJECTORY[name], value) for name, value in values.items()):
        return None
    horizon = _horizon(setting, controls)
    return Link(trajectory.VIEW, values | {"horizon": horizon, "log_time": horizon > 100})


def _map_cell(controls: Controls, point: ClickPoint) -> tuple[float, float] | None:
    """(c_η, c_γ) of a clicked heatmap cell: from its grid indices when the browser sends them,
    else the grid point nearest its coordinates (they travel as float32)."""
    etas, gammas = grid(controls)
    found = point.cell(gammas.size, etas.size)
    if found is not None:
        return float(etas[found[1]]), float(gammas[found[0]])
    if point.x is None or point.y is None:
        return None
    step_x, step_y = etas[1] - etas[0], gammas[1] - gammas[0]
    if not (etas[0] - step_x <= point.x <= etas[-1] + step_x):
        return None
    if not (gammas[0] - step_y <= point.y <= gammas[-1] + step_y):
        return None
    return float(etas[nearest_index(etas, point.x)]), float(gammas[nearest_index(gammas, point.y)])


def _map_target(controls: Controls, point: ClickPoint) -> tuple[str, float, float] | None:
    """(scheme, c_η, c_γ) of a click on the phase map: a cell (curve 0, also when the click
    names no curve), a point of the line m = 0 (curves 1, 2: kept on the line) or a Table-1
    point (from curve 3 on: that scheme's own initialisation)."""
    curve = 0 if point.curve is None else point.curve
    if curve < 0:
        return None
    if curve == 0:
        cell = _map_cell(controls, point)
        return None if cell is None else (controls.scheme, *cell)
    if curve in (1, 2):
        if point.x is None or not ETA_RANGE[0] - 1e-6 <= point.x <= ETA_RANGE[1] + 1e-6:
            return None
        c_eta = round(point.x, 6) + 0.0  # grid columns and the kink are multiples of 1/240
        return controls.scheme, c_eta, float(plane(controls).boundary(c_eta)[0])
    traces = markers(controls)
    if curve - 3 >= len(traces) or not isinstance(point.index, int):
        return None
    points = traces[curve - 3].points
    if not 0 <= point.index < len(points):
        return None
    scheme, _block, c_eta, c_gamma = points[point.index]
    return scheme, c_eta, c_gamma


def open_map_point(controls: Controls, point: ClickPoint) -> Link | None:
    """A click on the phase map opens that network at the chosen κ."""
    target = _map_target(controls, point)
    if target is None:
        return None
    scheme, c_eta, c_gamma = target
    kappa = kappa_of(controls)
    return open_network(
        controls,
        scheme,
        plane(controls).learning_rates(c_eta),
        c_gamma,
        kappa,
        width_at(scheme, kappa),
        zero_output_for(controls, scheme),
    )


def open_sweep_point(controls: Controls, point: ClickPoint) -> Link | None:
    """A click on a sweep point: that row's scheme and Table-1 pair at that width (κ = d), the
    network the sweep computed there."""
    rows = sweep_rows(controls)
    if controls.sweep_zero_output:
        return None  # the trajectory view has no zero-output start: it would open another network
    if point.curve is None or not 0 <= point.curve < len(rows):
        return None  # the ζ(0) reference line, or no curve at all
    width = widths(controls)
    if isinstance(point.index, int) and 0 <= point.index < width.size:
        d = int(width[point.index])
    else:
        column = nearest_index(width, point.x, log=True)
        if column is None:
            return None
        d = int(width[column])
    scheme, regime = rows[point.curve]
    c_eta, c_gamma = fw.TABLE_1[scheme][regime]
    return open_network(controls, scheme, (c_eta, c_eta), c_gamma, d, d, False)
