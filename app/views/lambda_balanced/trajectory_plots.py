"""The λ-balanced view's plots, one function each: the singular values of W₂W₁, the loss and the
kernel distance over time, and the network function and both similarity matrices as heatmaps
that the play bar moves through time."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from ...core.panel import Figure, Panel
from ...ui import figures as fig
from ...ui.notation import typeset

if TYPE_CHECKING:
    from .trajectory import Controls, Run

#: frames of the play bar
FRAMES = 100


def shown(controls: Controls, run: Run) -> np.ndarray:
    """Which exact times are drawn: all of them, or those > 0 on a logarithmic time axis (the
    kernel distance is still measured from t = 0)."""
    return run.exact.t > 0 if controls.log_time else np.ones(run.exact.t.size, dtype=bool)


def _times(controls: Controls, run: Run) -> tuple[np.ndarray, np.ndarray]:
    """(mask of the exact times drawn, those times)."""
    keep = shown(controls, run)
    return keep, run.exact.t[keep]


def _descent_steps(controls: Controls, run: Run) -> np.ndarray:
    """Descent steps drawn: those before the run leaves the plot (and t > 0 on a log axis)."""
    inside = run.descent_inside
    return inside & (run.descent.t > 0) if controls.log_time else inside


def _mode_traces(run: Run, t: np.ndarray, singular: np.ndarray) -> list[dict]:
    """One curve s_i(t) per mode and its task value σ_i as a dashed line, in one colour."""
    rank = run.scenario.architecture.rank
    sigma = run.scenario.task_singular_values
    colours = fig.colors_for(-np.arange(rank)) if rank > 1 else [fig.COLORS["exact"]]
    data = []
    for i in range(rank):
        group = f"mode {i + 1}"
        data.append(fig.exact_trace(t, singular[:, i], f"s_{i + 1}", colours[i], group=group))
        data.append(
            fig.exact_trace(
                [t[0], t[-1]],
                [sigma[i], sigma[i]],
                f"task σ_{i + 1}",
                colours[i],
                dash="dash",
                group=group,
                show_legend=False,
                width=1.3,
            )
        )
    return data


def draw_singular(controls: Controls, run: Run) -> Figure:
    keep, t = _times(controls, run)
    data = _mode_traces(run, t, run.exact.singular_values[keep])
    if run.descent is not None:
        steps = _descent_steps(controls, run)
        for i in range(run.scenario.architecture.rank):
            data.append(
                fig.descent_trace(
                    run.descent.t[steps],
                    run.descent.singular_values[steps, i],
                    group="gradient descent",
                    show_legend=i == 0,
                )
            )
    return fig.figure(
        data,
        log_x=controls.log_time,
        shapes=[fig.cursor_line(float(t[0]))],  # shapes sit in data units, log or not
        height=320,
        y_title="singular value",
    )


def _over_time(
    controls: Controls,
    run: Run,
    quantity: str,
    y_title: str,
    log_y: bool = False,
    y_range: list[float] | None = None,
):
    keep, t = _times(controls, run)
    exact = getattr(run.exact, quantity)
    # A log axis cannot show 0, and below ~1e-28 of the largest value only rounding is left.
    floor = 1e-28 * float(np.max(exact)) if log_y else -np.inf
    data = [fig.exact_trace(t, np.maximum(exact[keep], floor), "exact")]
    if run.descent is not None:
        steps = _descent_steps(controls, run)
        values = np.maximum(getattr(run.descent, quantity)[steps], floor)
        data.append(fig.descent_trace(run.descent.t[steps], values))
    return fig.figure(
        data,
        log_x=controls.log_time,
        log_y=log_y,
        shapes=[fig.cursor_line(float(t[0]))],
        y_title=y_title,
        yaxis=fig.axis(y_title, log=log_y, range=y_range),
    )


def draw_loss(controls: Controls, run: Run) -> Figure:
    return _over_time(controls, run, "loss", "loss", log_y=True)


def draw_kernel(controls: Controls, run: Run) -> Figure:
    # S on its whole range [0, 1]: a lazy run's 0.01 stays flat beside a rich run's 0.7
    return _over_time(controls, run, "kernel_distance", "S(0, t)", y_range=fig.UNIT_RANGE)


def _names(labels) -> list[str]:
    """Rows' and columns' names, typeset: "x1" → x₁ (the hierarchy's items stay words)."""
    return [typeset(re.sub(r"^([xy])(\d+)$", r"\1_\2", str(label))) for label in labels]


def _matrix(controls: Controls, run: Run, quantity: str, x_labels, y_labels) -> Figure:
    """A heatmap at the first frame, coloured on the scale of every frame (so that the play bar
    keeps the colours comparable)."""
    keep = shown(controls, run)
    stack = getattr(run.exact, quantity)[keep][fig.thin(int(keep.sum()), FRAMES)]
    limit = float(np.max(np.abs(stack))) or 1.0
    return fig.heatmap(
        stack[0], x_labels=_names(x_labels), y_labels=_names(y_labels), limit=limit, height=340
    )


def draw_function(controls: Controls, run: Run) -> Figure:
    scenario = run.scenario
    return _matrix(controls, run, "function", scenario.inputs, scenario.outputs)


def draw_rsm_in(controls: Controls, run: Run) -> Figure:
    return _matrix(controls, run, "rsm_in", run.scenario.inputs, run.scenario.inputs)


def draw_rsm_out(controls: Controls, run: Run) -> Figure:
    return _matrix(controls, run, "rsm_out", run.scenario.outputs, run.scenario.outputs)


PANELS = (
    Panel(
        "singular",
        "Singular values of W₂W₁",
        r"The singular values $s_i(t)$ of the network function; dashed: the task's $\sigma_i$. "
        r"From a task-aligned start each follows $\dot s = \sqrt{\lambda^2 + 4s^2}\,(\sigma - s)$: "
        r"a sudden sigmoidal step for $\lambda \approx 0$ (rich), a plain exponential for "
        r"$|\lambda| \to \infty$ (lazy).",
        draw_singular,
        height=320,
    ),
    Panel(
        "loss",
        "Loss",
        r"$\mathcal{L} = \tfrac12\|\Sigma_{yx} - W_2W_1\|_F^2$ (inputs whitened).",
        draw_loss,
    ),
    Panel(
        "kernel",
        "Kernel distance S(0, t)",
        r"$S(0,t) = 1 - \dfrac{\langle K_0, K_t\rangle_F}{\|K_0\|_F\|K_t\|_F}$ with the NTK "
        r"$K = W_2W_2^\top \otimes I + I \otimes W_1^\top W_1$. Near 0: lazy; large: rich.",
        draw_kernel,
    ),
    Panel(
        "function",
        "Network function W₂W₁",
        r"$W_2W_1$ at the time of the scrubber (rows: outputs, columns: inputs); it tends to "
        r"$\Sigma_{yx}$ (or its best rank-$h$ approximation).",
        draw_function,
        height=340,
    ),
    Panel(
        "rsm_in",
        "Input similarity W₁ᵀW₁",
        r"$W_1^\top W_1$: how the first layer represents the inputs. It ends at $\tfrac12\left("
        r"-\lambda I + \sqrt{\lambda^2 I + 4\Sigma_{yx}^\top\Sigma_{yx}}\right)$ on the learned "
        r"directions: the task's structure at $\lambda = 0$, $\approx |\lambda| I$ (task-agnostic, "
        r"lazy) for $\lambda \ll 0$, small but structured "
        r"($\approx \Sigma_{yx}^\top\Sigma_{yx}/\lambda$) for $\lambda \gg 0$.",
        draw_rsm_in,
        height=340,
    ),
    Panel(
        "rsm_out",
        "Output similarity W₂W₂ᵀ",
        r"$W_2W_2^\top$: how the read-out represents the outputs. It ends at $\tfrac12\left("
        r"\lambda I + \sqrt{\lambda^2 I + 4\Sigma_{yx}\Sigma_{yx}^\top}\right)$ on the learned "
        r"directions: the task's structure at $\lambda = 0$, $\approx \lambda I$ (task-agnostic, "
        r"lazy) for $\lambda \gg 0$, small but structured "
        r"($\approx \Sigma_{yx}\Sigma_{yx}^\top/|\lambda|$) for $\lambda \ll 0$.",
        draw_rsm_out,
        height=340,
    ),
)
