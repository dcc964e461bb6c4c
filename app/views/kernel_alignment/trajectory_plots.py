"""The kernel-alignment view's plots, one function each: the loss and the alignment over time
(for γ, for γ = 0 and gradient descent), the spectra of K₀ and K∞, the task power along them,
and the γ sweep with its threshold."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...core.panel import Figure, Panel
from ...ui import figures as fig

if TYPE_CHECKING:
    from .trajectory import Controls, Descent, Run

LAZY_LABEL = "γ = 0 (kernel gradient descent)"


def _floor(*curves: np.ndarray) -> float:
    """A log axis cannot show 0; below ~1e-30 of the start only rounding is left."""
    return 1e-30 * max(float(np.max(curve)) for curve in curves)


def loss_floor(run: Run) -> float:
    """The smallest loss the loss panel shows (its cursor too)."""
    return _floor(run.exact.loss, run.kernel.loss)


def _shown_descent(descent: Descent, log_time: bool) -> np.ndarray:
    """Which recorded steps to draw: not t = 0 on a log axis, and a diverged run only until its
    loss blows up (its last finite values would squash the loss axis)."""
    path = descent.path
    shown = path.t > 0 if log_time else np.ones(path.t.size, dtype=bool)
    if path.diverged_at is not None:
        shown &= np.cumprod(path.loss <= 1e3 * path.loss[0]).astype(bool)
    return shown


def _descent_markers(controls: Controls, descent: Descent, quantity: str, floor: float) -> dict:
    label = f"gradient descent, lr = {controls.lr:g}"
    if descent.capped:
        label += f" (first {descent.steps:,} steps)"
    shown = _shown_descent(descent, controls.log_time)
    values = np.maximum(getattr(descent.path, quantity)[shown], floor)
    return fig.descent_trace(descent.path.t[shown], values, label)


def draw_loss(controls: Controls, run: Run) -> Figure:
    t, floor = run.exact.t, loss_floor(run)
    data = [
        fig.exact_trace(t, np.maximum(run.kernel.loss, floor), LAZY_LABEL, fig.COLORS["kernel"]),
        fig.exact_trace(
            t, np.maximum(run.exact.loss, floor), f"γ = {controls.gamma:g}", fig.COLORS["exact"]
        ),
    ]
    if run.descent is not None:
        data.append(_descent_markers(controls, run.descent, "loss", floor))
    data.append(fig.cursor_point(float(t[0]), float(max(run.exact.loss[0], floor))))
    return fig.figure(
        data,
        y_title="loss ‖Δ‖²",
        log_x=controls.log_time,
        log_y=True,
        shapes=[fig.cursor_line(float(t[0]))],
    )


def draw_alignment(controls: Controls, run: Run) -> Figure:
    t = run.exact.t
    ends = [float(t[0]), float(t[-1])]
    data = [
        fig.exact_trace(t, run.kernel.alignment, LAZY_LABEL, fig.COLORS["kernel"]),
        fig.exact_trace(
            ends, [run.final_alignment] * 2, "A∞", fig.COLORS["feature"], dash="dash", width=1.5
        ),
        fig.exact_trace(t, run.exact.alignment, f"γ = {controls.gamma:g}", fig.COLORS["exact"]),
    ]
    if run.descent is not None:
        data.append(_descent_markers(controls, run.descent, "alignment", -np.inf))
    data.append(fig.cursor_point(float(t[0]), float(run.exact.alignment[0])))
    return fig.figure(
        data,
        y_title="alignment A(t)",
        log_x=controls.log_time,
        shapes=[fig.cursor_line(float(t[0]))],
        yaxis=fig.axis("alignment A(t)", range=fig.UNIT_RANGE),
    )


def _rank(run: Run) -> np.ndarray:
    return np.arange(1, run.initial.eigenvalues.size + 1)


def draw_spectrum(controls: Controls, run: Run) -> Figure:
    rank, before, after = _rank(run), run.initial.eigenvalues, run.final.eigenvalues
    floor = _floor(after)
    return fig.figure(
        [
            fig.exact_trace(rank, np.maximum(before, floor), "K₀", fig.COLORS["kernel"]),
            fig.exact_trace(
                rank,
                np.maximum(after, floor),
                f"K∞ = K₀ + γyyᵀ, γ = {controls.gamma:g}",
                fig.COLORS["exact"],
            ),
        ],
        x_title="rank k",
        y_title="eigenvalue λ_k",
        log_x=True,
        log_y=True,
    )


def draw_task(controls: Controls, run: Run) -> Figure:
    rank, before, after = _rank(run), run.initial.power, run.final.power
    floor = _floor(before, after)
    return fig.figure(
        [
            fig.exact_trace(rank, np.maximum(before, floor), "before (K₀)", fig.COLORS["kernel"]),
            fig.exact_trace(rank, np.maximum(after, floor), "after (K∞)", fig.COLORS["exact"]),
        ],
        x_title="rank k",
        y_title="task power v_k²",
        log_x=True,
        log_y=True,
    )


def _current_gamma(controls: Controls, run: Run) -> tuple[dict, dict]:
    """The marker of the chosen γ on both curves, and a vertical line there (data units)."""
    gamma = controls.gamma
    marker = {
        "type": "scatter",
        "mode": "markers",
        "x": [gamma, gamma],
        "y": [run.final.top_overlap, run.final_alignment],
        "name": f"current γ = {gamma:g}",
        "hovertemplate": "%{y:.4g}<extra>γ = %{x:.3g}</extra>",
        "marker": {
            "size": 10,
            "color": fig.COLORS["cursor"],
            "line": {"color": "#22313f", "width": 1.5},
        },
    }
    line = {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": gamma,
        "x1": gamma,
        "y0": 0,
        "y1": 1,
        "line": {"color": fig.COLORS["cursor"], "width": 2},
    }
    return marker, line


def threshold_line(star: float) -> dict:
    """The dotted vertical line at the threshold γ* (also on the map's line plot)."""
    label = f"threshold γ* ≈ {star:.2g}"
    return fig.exact_trace([star, star], [0, 1], label, "#555555", dash="dot", width=1.2)


def draw_sweep(controls: Controls, run: Run) -> Figure:
    sweep = run.sweep
    data = [
        fig.exact_trace(
            sweep.gammas,
            sweep.top_overlap,
            "top-eigenvector overlap |u₁ᵀy|/‖y‖",
            fig.COLORS["exact"],
        ),
        fig.exact_trace(
            sweep.gammas, sweep.final_alignment, "final alignment A∞", fig.COLORS["feature"]
        ),
    ]
    if sweep.threshold is not None:
        data.append(threshold_line(sweep.threshold))
    marker, line = _current_gamma(controls, run)
    data.append(marker)
    return fig.figure(
        data,
        x_title="feature-learning rate γ",
        y_title="overlap, alignment",
        log_x=True,
        shapes=[line],
        height=300,
        yaxis=fig.axis("overlap, alignment", range=fig.UNIT_RANGE),
    )


PANELS = (
    Panel(
        "loss",
        "Loss: feature learning vs the frozen kernel",
        r"$L(t) = \|\Delta(t)\|^2$ for the chosen $\gamma$ and for $\gamma = 0$, kernel gradient "
        r"descent $\Delta' = -\eta K_0\Delta$, $L = \sum_k v_k^2 e^{-2\eta\lambda_k t} \sim "
        r"t^{-(a-1)/b}$. Feature learning speeds learning up: at large $\gamma$ an exponential "
        r"phase $\sim e^{-2\eta c_1 t}$ comes first, then a power law with a better exponent.",
        draw_loss,
    ),
    Panel(
        "alignment",
        "Kernel–target alignment A(t)",
        r"$A(K, y) = \dfrac{y^\top K y}{\|K\|_F\,\|y\|^2}$ rises from $A_0$ to "
        r"$A_\infty = \dfrac{\gamma\|y\|^4 + y^\top K_0 y}{\|K_0 + \gamma y y^\top\|_F\,\|y\|^2}$ "
        r"(dashed), faster and higher for larger $\gamma$; with $\gamma = 0$ it stays at $A_0$.",
        draw_alignment,
    ),
    Panel(
        "spectrum",
        "Eigenvalues of K₀ and K∞",
        r"Since $C = \gamma\Delta\Delta^\top + K$ is conserved and $\Delta \to 0$, the final "
        r"kernel is $K_\infty = K_0 + \gamma y y^\top$: a rank-one spike that lifts only the top "
        r"eigenvalues; the power-law tail $\lambda_k \propto k^{-b}$ is unchanged (Fig. 2A).",
        draw_spectrum,
    ),
    Panel(
        "task",
        "Task power along the eigenvectors",
        r"$v_k^2 = (u_k^\top y)^2$ for the eigenvectors $u_k$ of $K_0$ ($\propto k^{-a}$ by "
        r"construction on the power-law task) and of $K_\infty$: after feature learning the "
        r"target sits in the top modes and the task power falls off much faster (Fig. 2B).",
        draw_task,
    ),
    Panel(
        "sweep",
        "Threshold: top eigenvector of K∞ and A∞ against γ",
        r"The overlap $|u_1^\top y|/\|y\|$ of $K_\infty$'s top eigenvector with the target and "
        r"the final alignment $A_\infty$, for $\gamma$ from $10^{-3}$ to $10^{3}$ (Fig. 2C–D). "
        r"Past a threshold $\gamma^*$ (dotted: the overlap half-way to 1) the top eigenvector "
        r"locks onto $y$. The current $\gamma$ is marked.",
        draw_sweep,
        wide=True,
    ),
)
