"""The network map's plots, one function each: the kernel distance, the test loss, the share of
activation patterns changed, the parameter distance and the training loss, each over scale τ ×
balance δ after one of the recorded steps, the mean over the seeds (Kunin et al. Fig. 1b and
Fig. 10); the hover adds the seeds' spread. A map still being computed has blank (NaN) rows
where no seed is trained yet."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from solvers import networks as nw

from ...core.panel import Figure, Panel
from ...ui import figures as fig
from .trajectory_plots import unavailable

if TYPE_CHECKING:
    from .map import Controls, Map, Snapshot

#: short enough for a phone's half-width plot; which side is upstream the regions' labels say
X_TITLE = "balance δ = aᵢ² − ‖wᵢ‖²"


def _labels(controls: Controls, result: Snapshot) -> list[tuple[float, float, str]]:
    if not controls.labels:
        return []
    low, high = float(result.taus[0]), float(result.taus[-1])
    small = low * (high / low) ** 0.12
    edge = float(result.deltas[-1])
    # Kunin et al. Fig. 1b: lazy at large τ, rich at small τ, rapid rich at small τ upstream
    # (δ > 0); downstream at small τ the kernel has hardly moved, so "rich" is not written there
    return [
        (0.0, high / (high / low) ** 0.1, "lazy"),
        (0.6 * edge, small, "rapid rich"),
        (0.0, small, "rich"),
    ]


def _where(shown: Snapshot) -> str:
    """The hover's first words: the cell and the step shown."""
    return f"δ = %{{x:.3g}}, τ = %{{y:.3g}}, after {shown.step:,} steps"


def _spread(shown: Snapshot, index: int, form: str = ".2g") -> str:
    """The seeds' standard deviation, ``customdata[index]`` of the hover (nothing for one)."""
    if shown.seeds == 1:
        return ""
    seeds = f"{shown.seeds} seeds" if shown.seeds_done is None else "the seeds trained so far"
    return f" ± %{{customdata[{index}]:{form}}} (sd of {seeds})"


def _hover_data(shown: Snapshot, *values: np.ndarray, spread: np.ndarray) -> np.ndarray | None:
    """The hover's ``customdata``: ``values`` per cell, then the seeds' spread (left out for
    one seed: zeros the hover does not show need not travel)."""
    columns = [*values, spread] if shown.seeds > 1 else list(values)
    return np.stack(columns, axis=-1) if columns else None


def _map(controls: Controls, shown: Snapshot, z: np.ndarray, colorbar: str, **options) -> Figure:
    return fig.portrait(
        z,
        shown.deltas,
        shown.taus,
        x_title=X_TITLE,
        y_title="initial scale τ",
        colorbar=colorbar,
        log_y=True,
        labels=_labels(controls, shown),
        height=400,
        **options,
    )


def draw_kernel(controls: Controls, result: Map) -> Figure:
    shown = result.at(controls.shown)
    distance = shown.kernel_distance
    return _map(
        controls,
        shown,
        distance,
        "S(0, t)",
        zmin=0.0,
        zmax=max(float(np.nanmax(distance)), 1e-6),  # (NaN: rows of a map not done yet)
        customdata=_hover_data(shown, spread=shown.spread.kernel_distance),
        hover=f"{_where(shown)}<br>S = %{{z:.3g}}{_spread(shown, 0)}",
    )


def _log_map(
    controls: Controls, shown: Snapshot, name: str, label: str, colorscale: str | list
) -> Figure:
    """A positive measure ``name`` over the map on a log scale (a cell at exactly 0 drawn at
    the floor): one cell far from the others would otherwise take the whole colour range. The
    hover says the value itself."""
    values, spread = getattr(shown, name), getattr(shown.spread, name)
    with np.errstate(divide="ignore"):
        logs = np.log10(np.maximum(values, 1e-300))
    top = float(np.nanmax(logs))
    return _map(
        controls,
        shown,
        logs,
        f"log₁₀ {label}",
        colorscale=colorscale,
        zmax=top if math.isfinite(top) else None,
        customdata=_hover_data(shown, values, spread=spread),
        hover=f"{_where(shown)}<br>{label} = %{{customdata[0]:.3g}}{_spread(shown, 1)}",
    )


def draw_test_loss(controls: Controls, result: Map) -> Figure:
    shown = result.at(controls.shown)
    if shown.test_loss is None:
        return unavailable("the test loss needs test points", height=400)
    return _log_map(controls, shown, "test_loss", "test loss", fig.LOSS_SCALE)


def draw_activation(controls: Controls, result: Map) -> Figure:
    """The share of patterns changed; the hover adds Kunin et al.'s Hamming distance (units
    changed per input, docs/networks.md (N9)), of the seeds' mean share."""
    shown = result.at(controls.shown)
    share = shown.activation_distance
    blank = np.isnan(share)  # (rows of a map not done yet)
    hamming = np.where(blank, np.nan, nw.kunin_hamming(np.where(blank, 0.0, share), controls.width))
    return _map(
        controls,
        shown,
        share,
        "patterns changed",
        zmin=0.0,
        colorscale=fig.MAGMA,
        hover=(
            f"{_where(shown)}<br>%{{z:.1%}}{_spread(shown, 1, '.1%')} of the patterns changed"
            f"<br>Kunin et al.'s Hamming distance: %{{customdata[0]:.3g}} of {controls.width} "
            "units per input"
        ),
        customdata=_hover_data(shown, hamming, spread=shown.spread.activation_distance),
    )


def draw_parameter_distance(controls: Controls, result: Map) -> Figure:
    shown = result.at(controls.shown)
    return _log_map(controls, shown, "parameter_distance", "‖θ − θ₀‖", "Viridis")


def draw_training_loss(controls: Controls, result: Map) -> Figure:
    shown = result.at(controls.shown)
    return _log_map(controls, shown, "loss", "training loss", fig.LOSS_SCALE)


PANELS = (
    Panel(
        "kernel",
        "Kernel distance S(0, t)",
        r"$S(0,t) = 1 - \langle K_0, K_t\rangle_F/(\|K_0\|_F\|K_t\|_F)$ of each network's "
        r"empirical NTK on its training points after the step shown (the last, unless "
        r"'show the map after' says otherwise), the mean over the seeds averaged. Dark: the "
        r"kernel has not moved (lazy); bright: it has (rich).",
        draw_kernel,
        height=400,
        wide=True,
    ),
    Panel(
        "test_loss",
        "Test loss",
        r"$\log_{10}$ of the mean-square error $\tfrac1{2m}\sum(f - y)^2$ on held-out points of "
        r"the teacher. Kunin et al.: lowest where learning is rapidly rich (small $\tau$, "
        r"$\delta > 0$).",
        draw_test_loss,
        height=400,
    ),
    Panel(
        "activation",
        "Activation patterns changed",
        r"The share of (training input, hidden unit) pairs whose sign of $w_i^\top x$ differs "
        r"from the start: upstream networks move their patterns, downstream ones hardly. "
        r"Kunin et al.'s Fig. 10 plots it as a Hamming distance, the units changed per input: "
        r"$h$ times this share (on hover).",
        draw_activation,
        height=400,
    ),
    Panel(
        "parameters",
        "Parameter distance",
        r"$\|\theta_t - \theta_0\|_2$ over all the weights after the step shown (Kunin "
        r"et al. Fig. 10), on a log scale: a few cells that move far (small $\tau$, "
        r"$|\delta|$ large) would otherwise take all the colours.",
        draw_parameter_distance,
        height=400,
    ),
    Panel(
        "training_loss",
        "Training loss",
        r"$\log_{10}$ of $\tfrac1{2n}\sum(f - y)^2$ on the training points after the step "
        r"shown: how far each network has got in the steps it was given (Kunin et al. Fig. 10).",
        draw_training_loss,
        height=400,
    ),
)
