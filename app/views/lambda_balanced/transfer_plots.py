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
    figure = fig.heatmap(
        result.feature.T,
        x_labels=[float(lam) for lam in result.lams],
        y_labels=lb.HIERARCHY_ITEMS,
        title="",
        limit=1.0,
        height=360,
    )
    trace = figure["data"][0]
    trace["hovertemplate"] = "%{y}, λ = %{x:.3g}: %{z:.3g}<extra></extra>"
    trace["colorbar"]["title"] = {"text": "new feature"}
    trace.pop("uid")  # no play bar here: the cells are not a cursor
    figure["layout"]["title"] = None
    figure["layout"]["margin"] = {"l": 96, "r": 10, "t": 10, "b": 50}
    figure["layout"]["xaxis"] = fig.axis("λ", tickangle=0)
    figure["layout"]["yaxis"] = {"autorange": "reversed"}
    if controls.mark:
        figure["layout"]["shapes"] = [_frame(result)]
    return figure


def _frame(result: Transfer) -> dict:
    """A rectangle round the rows of the items that share the feature (the target)."""
    rows = np.flatnonzero(result.truth)
    return {
        "type": "rect",
        "xref": "paper",
        "yref": "y",
        "x0": 0,
        "x1": 1,
        "y0": float(rows[0]) - 0.5,
        "y1": float(rows[-1]) + 0.5,
        "line": {"color": fig.COLORS["target"], "width": 2, "dash": "dash"},
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
        height=360,
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
