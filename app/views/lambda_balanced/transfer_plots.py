"""The transfer map's plots: the new feature's value on every item against λ, and the
generalisation loss on the untrained items against λ."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from solvers import lambda_balanced as lb

from ...core.panel import Figure, Panel
from ...ui import figures as fig

if TYPE_CHECKING:
    from .transfer import Controls, Transfer


def draw_feature(controls: Controls, result: Transfer) -> Figure:
    rows = np.arange(len(lb.HIERARCHY_ITEMS))
    figure = fig.heatmap(
        result.feature.T,
        x_labels=[float(lam) for lam in result.lams],
        y_labels=[int(row) for row in rows],
        title="",
        limit=1.0,
        height=380,
    )
    trace = figure["data"][0]
    trace["customdata"] = np.array([[name] * result.lams.size for name in lb.HIERARCHY_ITEMS])
    trace["hovertemplate"] = "%{customdata}, λ = %{x:.3g}: %{z:.3g}<extra></extra>"
    # below the plot, so that a phone's narrow plot keeps its width for the cells
    trace["colorbar"] = {
        "orientation": "h",
        "thickness": 10,
        "len": 0.9,
        "y": -0.26,
        "yanchor": "top",
    }
    trace.pop("uid")  # no play bar here: the cells are not a cursor
    if controls.mark:
        figure["data"].append(_frame(result))
    layout = figure["layout"]
    layout["title"] = None
    layout["margin"] = {"l": 88, "r": 10, "t": 10, "b": 100}
    layout["xaxis"] = fig.axis("λ", tickangle=0)
    layout["yaxis"] = {
        "autorange": "reversed",
        "tickvals": rows.tolist(),
        "ticktext": list(lb.HIERARCHY_ITEMS),
        "zeroline": False,
        "showgrid": False,
    }
    return figure


def _frame(result: Transfer) -> dict:
    """A dashed outline round the rows of the items that share the feature (the target)."""
    rows = np.flatnonzero(result.truth)
    step = 0.5 * float(result.lams[1] - result.lams[0]) if result.lams.size > 1 else 0.5
    left, right = float(result.lams[0]) - step, float(result.lams[-1]) + step
    top, bottom = float(rows[0]) - 0.5, float(rows[-1]) + 0.5
    return {
        "type": "scatter",
        "mode": "lines",
        "x": [left, right, right, left, left],
        "y": [top, top, bottom, bottom, top],
        "line": {"color": fig.COLORS["target"], "width": 2, "dash": "dash"},
        "name": "the items that share the feature",
        "showlegend": False,
        "hoverinfo": "skip",
    }


def draw_generalisation(controls: Controls, result: Transfer) -> Figure:
    others = np.arange(result.truth.size) != result.item
    alone = 0.5 * float(np.sum(result.truth[others] ** 2))
    data = [
        fig.exact_trace(
            [result.lams[0], result.lams[-1]],
            [alone, alone],
            "the feature on the taught item alone",
            fig.COLORS["kernel"],
            dash="dash",
            width=1.3,
        ),
        fig.exact_trace(result.lams, result.generalisation, "generalisation loss"),
    ]
    data[1]["mode"] = "lines+markers"
    return fig.figure(
        data,
        x_title="λ",
        height=300,
        yaxis=fig.axis("loss on the untrained items", rangemode="tozero", automargin=True),
    )


PANELS = (
    Panel(
        "feature",
        "The new feature on every item",
        r"Its converged value $k_{ij}/k_{ii}$ on each item $j$ after it is taught for item $i$ "
        r"(value 1), against $\lambda$. Relatives of the taught item share it when the first "
        r"layer holds the tree ($\lambda \ge 0$); for $\lambda \ll 0$ it stays on the item. "
        "Dashed frame: the items that share the feature (the target).",
        draw_feature,
        height=380,
    ),
    Panel(
        "generalisation",
        "Generalisation to the untrained items",
        r"$\tfrac12\sum_{j \ne i}(\hat y_j - y_j)^2$ against a feature true of the taught item's "
        r"whole kingdom (the animals, or the plants); dashed: the loss when the feature stays "
        r"on the taught item alone.",
        draw_generalisation,
    ),
)
