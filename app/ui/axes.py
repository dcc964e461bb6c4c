"""Axes that read at a phone's 356 px as at a desktop's 700: tick labels that say the number
they mark, and margins wide enough for the labels and the title beside them.

The server draws one figure for every screen and plotly lays it out in the browser. Plotly
can measure its tick labels and widen the margins itself (``automargin``), but that measures
every label and lays the plot out twice at each redraw (it made the maps' updates about twice
as slow). Here the labels are known or predicted on the server — logarithmic axes get their
labels written out (:func:`log_ticks`), linear ones are predicted as plotly chooses them
(:func:`linear_labels`) — and the margins are set from their widths (:func:`fit_margins`),
measured in the widest common interface font (DejaVu Sans), so narrower fonts only leave more
room.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["fit_margins", "linear_labels", "log_ticks", "text_width"]

#: tick labels' and titles' font sizes (px)
TICK_SIZE = 12
TITLE_SIZE = 13
#: widths of characters in ems (DejaVu Sans), the rest 0.62
_WIDTHS = {
    **dict.fromkeys("0123456789", 0.64),
    **dict.fromkeys(".,:;!|il'", 0.3),
    **dict.fromkeys(" ()[]", 0.38),
    **dict.fromkeys("−×+=<>∞", 0.84),
    **dict.fromkeys("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺₀₁₂₃₄₅₆₇₈₉", 0.45),
    **dict.fromkeys("mwMWΩ‖", 0.98),
    "-": 0.36,
}
_MARKUP = re.compile(r"<(/?)(sub|sup)>|<[^>]*>")
_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def text_width(text: str, size: float = TICK_SIZE) -> float:
    """Pixels a line of plotly text takes (its widest line; ``<sub>``/``<sup>`` at 70 %)."""
    widest = 0.0
    for line in re.split(r"<br\s*/?>", str(text)):
        width, scale = 0.0, 1.0
        for piece in re.split(r"(<[^>]*>)", line):
            tag = _MARKUP.fullmatch(piece) if piece.startswith("<") else None
            if tag:
                if tag.group(2):
                    scale = 1.0 if tag.group(1) else 0.7
                continue
            width += scale * sum(_WIDTHS.get(c, 0.62) for c in piece)
        widest = max(widest, width)
    return widest * size


# -- logarithmic axes ----------------------------------------------------------------------------


def _power(exponent: int) -> str:
    """10ⁿ as a label: 1 and 10 as themselves, else with a raised exponent."""
    return (
        "1" + "0" * exponent
        if exponent in (0, 1)
        else "10" + str(exponent).translate(_SUPERSCRIPTS)
    )


def _written(value: float, powers: bool) -> str:
    """A tick's label: the number itself (0.002, 50) or a power of ten (10⁻⁶)."""
    if powers:
        return _power(round(math.log10(value)))
    return f"{value:.6g}"


def _nice_linear(low: float, high: float, count: int = 4) -> list[float]:
    """A few round numbers inside [low, high] (for a log axis spanning a fraction of a decade)."""
    step = 10.0 ** math.floor(math.log10((high - low) / count))
    for factor in (1, 2, 5, 10):
        if (high - low) / (step * factor) <= count + 1:
            step *= factor
            break
    first = math.ceil(low / step)
    return [k * step for k in range(first, math.floor(high / step) + 1)]


def _mantissa_ticks(low: float, high: float, most: int) -> tuple[list[float], list[float]]:
    """(labelled, unlabelled) values: the densest of 1-2-5, 1-3 or the decades that gives at
    most ``most`` labels; with decades only, every k-th decade (a multiple of k)."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))

    def inside(values: Iterable[float]) -> list[float]:
        return [v for v in values if low * (1 - 1e-9) <= v <= high * (1 + 1e-9)]

    every = inside(m * 10.0**k for k in range(first, last + 1) for m in range(1, 10))
    for mantissas in ((1, 2, 5), (1, 3)):
        shown = inside(m * 10.0**k for k in range(first, last + 1) for m in mantissas)
        if 2 <= len(shown) <= most:
            return shown, [v for v in every if v not in shown]
    decades = [k for k in range(first, last + 1) if low * (1 - 1e-9) <= 10.0**k <= high * 1.000001]
    step = max(1, math.ceil(len(decades) / most))
    shown = [10.0**k for k in decades if k % step == 0]
    hidden = (
        [10.0**k for k in decades if k % step]
        if len(decades) > 7
        else [v for v in every if v not in shown]
    )
    return shown, hidden


def log_ticks(values: Sequence[float], most: int = 6) -> dict:
    """Ticks of a logarithmic axis over ``values``, each label the number it marks (0.2, 50,
    10⁻⁶ — plotly's own labels read "2, 5" for 0.2 and 0.5, or "2" for 20), at most ``most``
    of them, with unlabelled minor ticks between."""
    shown = np.asarray(values, dtype=float).ravel()
    shown = shown[np.isfinite(shown) & (shown > 0)]
    if shown.size < 1:
        return {}
    low, high = float(shown.min()), float(shown.max())
    if high <= low * 1.0001:  # one value: a decade around it
        low, high = low / 3, high * 3
    labelled, minor = _mantissa_ticks(low, high, most)
    if len(labelled) < 2:
        labelled, minor = _nice_linear(low, high), []
    # beyond 0.001 to 10⁴ the labels are powers of ten (only decades are labelled there)
    powers = any(not 1e-3 <= v < 1e4 for v in labelled) and all(
        math.isclose(math.log10(v), round(math.log10(v)), abs_tol=1e-9) for v in labelled
    )
    texts = [_written(v, powers) for v in labelled]
    ticks = {"tickmode": "array", "tickvals": labelled, "ticktext": texts}
    if minor:
        ticks["minor"] = {"tickmode": "array", "tickvals": minor, "ticks": "outside", "ticklen": 3}
    return ticks


# -- linear axes -------------------------------------------------------------------------------


def _steps(low: float, high: float, length: float, letter: str) -> list[float]:
    """The spacings plotly may choose for its automatic ticks (about one per 40 px on a y axis,
    80 px on an x axis, at 2, 5 or 10 times a power of ten) for a length a little off."""
    steps = []
    for scale in (0.8, 1.0, 1.25):
        per = 40.0 if letter == "y" else 80.0
        count = min(max(length * scale / per, 4), 9) + 1
        rough = (high - low) / count
        base = 10.0 ** math.floor(math.log10(rough))
        steps.append(base * next(m for m in (2, 5, 10) if m >= rough / base - 1e-9))
    return steps


def linear_labels(
    low: float, high: float, length: float, letter: str = "y", step: float | None = None
) -> list[str]:
    """The tick labels plotly writes on a linear axis of ``length`` px over [low, high]: every
    ``step`` (an axis's ``dtick``), else at each spacing its automatic ticks may choose."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [f"{low:.3g}"] if math.isfinite(low) else []
    top = max(abs(low), abs(high))
    exponent = math.floor(math.log10(top)) if top > 0 else 0
    if abs(exponent) > 3:
        # plotly's exponent format ("power"): beyond 10^±3 its labels are mantissas of the
        # range's power of ten, "0.5×10¹⁷" — not 0.5e17 written out in 18 digits
        scale = 10.0**exponent
        mantissas = linear_labels(low / scale, high / scale, length, letter, step and step / scale)
        power = "×10" + str(exponent).translate(_SUPERSCRIPTS)
        return [m if m == "0" else m + power for m in mantissas]
    labels = []
    for spacing in [step] if step else _steps(low, high, length, letter):
        decimals = len(f"{spacing:.12f}".rstrip("0").partition(".")[2])
        for k in range(math.ceil(low / spacing - 1e-9), math.floor(high / spacing + 1e-9) + 1):
            text = f"{k * spacing:.{decimals}f}"
            text = text.rstrip("0").rstrip(".") if "." in text else text
            labels.append(("0" if text == "-0" else text).replace("-", "−"))
    return labels


# -- margins ---------------------------------------------------------------------------------------


def _numbers(values) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        return np.array([])
    return array[np.isfinite(array)]


def axis_values(data: Sequence[dict], name: str) -> np.ndarray:
    """Every finite value the traces put on axis ``name`` ("yaxis", "xaxis2", …)."""
    letter, suffix = name[0], name[5:]
    found = []
    for trace in data:
        if trace.get(f"{letter}axis", letter) != letter + suffix or trace.get("type") == "table":
            continue
        key = "z" if trace.get("type") == "scatter3d" else letter
        values = trace.get(key)
        if values is not None and not isinstance(values, dict):
            found.append(_numbers(values))
    return np.concatenate(found) if found else np.array([])


def _labels(axis: dict, data: Sequence[dict], name: str, length: float) -> list[str]:
    """The tick labels axis ``name`` will show (written out, categories, or predicted)."""
    if axis.get("visible") is False or axis.get("showticklabels") is False:
        return []
    if "ticktext" in axis:
        return [str(t) for t in axis["ticktext"]]
    categories = [
        str(v)
        for t in data
        if t.get(f"{name[0]}axis", name[0]) == name[0] + name[5:]
        and isinstance(t.get(name[0]), list | tuple)
        for v in t[name[0]]
        if isinstance(v, str)
    ]
    if categories:
        return categories
    values = axis_values(data, name)
    low, high = axis.get("range", (None, None))
    if low is None or high is None or axis.get("type") == "log":
        if values.size == 0:
            return []
        low, high = float(values.min()), float(values.max())
        pad = 0.05 * (high - low)
        low, high = low - pad, high + pad
    step = axis.get("dtick") if isinstance(axis.get("dtick"), int | float) else None
    return linear_labels(float(low), float(high), length, name[0], step)


def label_width(axis: dict, data: Sequence[dict], name: str, length: float) -> float:
    """The widest tick label of an axis, in px."""
    size = axis.get("tickfont", {}).get("size", TICK_SIZE)
    return max((text_width(t, size) for t in _labels(axis, data, name, length)), default=0.0)


def _side_margin(axis: dict, data: Sequence[dict], name: str, length: float) -> int:
    """Room beside a y axis: its tick labels (after the tick and a gap) and its title."""
    titled = bool((axis.get("title") or {}).get("text"))
    labels = label_width(axis, data, name, length)
    ticks = axis.get("ticklen", 5) if axis.get("ticks") == "outside" else 0
    return math.ceil(6 + ticks + labels + (TITLE_SIZE + 10 if titled else 0))


def fit_margins(figure: dict) -> dict:
    """Set the left (and, with a right-hand axis, the right) margin of a 2-D figure to what its
    tick labels and titles take (in place; returns the figure)."""
    layout, data = figure["layout"], figure["data"]
    margin = layout.setdefault("margin", {})
    length = max(layout.get("height", 300) - margin.get("t", 14) - margin.get("b", 48) - 40, 80)
    if isinstance(layout.get("yaxis"), dict) and layout["yaxis"].get("visible", True):
        margin["l"] = max(_side_margin(layout["yaxis"], data, "yaxis", length), 16)
    if isinstance(layout.get("yaxis2"), dict):
        margin["r"] = max(_side_margin(layout["yaxis2"], data, "yaxis2", length), 16)
    return figure
