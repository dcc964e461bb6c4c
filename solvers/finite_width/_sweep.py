"""Where each of Table 1's scalings ends up (t → ∞) as the width grows (Xu & Ziyin §4, Table 1,
Fig. 4): the t → ∞ limit of the exact flow for a row × width grid at once."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import (
    as_array,
    as_finite_scalar,
    as_positive_int,
    as_seed,
    guard_overflow,
    require_finite,
)
from ._exact import (
    SCALINGS,
    flow_rates,
    gaussian_init,
    phase,
)

__all__ = [
    "MAX_SWEEP_WIDTH",
    "MAX_SWEEP_WIDTHS",
    "TABLE_1",
    "TABLE_1_BLOCKS",
    "WidthSweep",
    "width_sweep",
]

#: the four blocks of Xu & Ziyin Table 1, in its order: the scheme as initialised (c_η = 0 with
#: its own c_γ), with the stabilising learning rate c_η*, and the (c_η, c_γ) pairs that put it in
#: the feature-learning phase (their "+") and in the kernel phase ("−")
TABLE_1_BLOCKS = ("as initialised", "stable", "feature learning", "kernel")

#: Xu & Ziyin Table 1: per initialisation scheme of :data:`SCALINGS`, the (c_η, c_γ) of each of
#: :data:`TABLE_1_BLOCKS`, learning-rate exponents equal for both layers (docs/theory.md §2).
#: NTK and MF share their initialisation (σ_u = σ_w = 1), so their ± pairs coincide: Table 1
#: turns each into the other. "lazy" (c_d = 0) keeps the width fixed.
TABLE_1: dict[str, dict[str, tuple[float, float]]] = {
    "NTK": {
        "as initialised": (0.0, -0.5),
        "stable": (0.0, -0.5),
        "feature learning": (1.0, -1.0),
        "kernel": (0.0, -0.5),
    },
    "MF": {
        "as initialised": (0.0, -1.0),
        "stable": (1.0, -1.0),
        "feature learning": (1.0, -1.0),
        "kernel": (0.0, -0.5),
    },
    "Xavier": {
        "as initialised": (0.0, 0.0),
        "stable": (0.0, 0.0),
        "feature learning": (0.0, 0.0),
        "kernel": (-2.0, 1.0),
    },
    "Kaiming": {
        "as initialised": (0.0, 0.0),
        "stable": (-1.0, 0.0),
        "feature learning": (1.0, -1.0),
        "kernel": (-1.0, 0.0),
    },
    "lazy": {
        "as initialised": (0.0, 1.0),
        "stable": (-2.0, 1.0),
        "feature learning": (0.0, 0.0),
        "kernel": (-2.0, 1.0),
    },
}
#: most widths of one sweep, and the largest width
MAX_SWEEP_WIDTHS = 64
MAX_SWEEP_WIDTH = 10_000
#: largest input size d₀ of a sweep
MAX_SWEEP_INPUT = 100


@dataclass(frozen=True)
class WidthSweep:
    """Where each scaling ends up (t → ∞) as the width grows, one row per (scheme, phase).

    Row r uses :data:`SCALINGS` [``schemes[r]``] and :data:`TABLE_1` [``schemes[r]``]
    [``regimes[r]``] with κ = d: ``γ = d^{c_γ}``, ``σ_u = d^{c_u/2}``, ``σ_w = d^{c_w/2}``,
    ``η_u = η_w = d^{c_η}``. Array fields have shape ``(len(schemes), len(widths))`` unless
    stated.
    """

    widths: np.ndarray  #: (W,) widths d
    schemes: tuple[str, ...]  #: (R,) initialisation scheme per row ("NTK", "MF", …)
    regimes: tuple[str, ...]  #: (R,) "kernel" or "feature learning" (Table 1's − / + block)
    c_eta: np.ndarray  #: (R,) learning-rate exponent of both layers
    c_gamma: np.ndarray  #: (R,) output-scale exponent
    predicted_phase: tuple[str, ...]  #: (R,) :func:`phase` of the row's exponents
    x: np.ndarray  #: (d₀,) the data point
    y: float  #: the target
    seed: int | None  #: seed of :func:`gaussian_init` (the same draw per width for every row)
    zero_output_init: bool  #: the second layer was projected off W x: f(0) = 0, P = Q
    gamma: np.ndarray  #: output scale γ
    eta: np.ndarray  #: learning rate of both layers (changes the time scale only)
    sigma_u: np.ndarray  #: std of the second layer
    sigma_w: np.ndarray  #: std of the first layer
    initial_alignment: np.ndarray  #: (W,) ζ(0), the same for every row (scales drop out)
    final_alignment: np.ndarray  #: ζ(∞) = cos(u, W x̂) at convergence
    ntk_change: np.ndarray  #: |K(∞) − K(0)|/K(0), K = K(x, x)
    weight_change: np.ndarray  #: ‖W(∞) − W(0)‖_F/‖W(0)‖_F (their Fig. 4, right)
    alpha_plus: np.ndarray  #: α₊ = A(∞) (p grows by √α₊, q shrinks by it)
    t_c: np.ndarray  #: time scale of the row's flow


def _powers(kappa, c_gamma, c_u, c_w, c_eta):
    """(γ, σ_u, σ_w, η) = (κ^{c_γ}, κ^{c_u/2}, κ^{c_w/2}, κ^{c_η}): how Table 1's exponents make
    a network at a finite κ (σ² ∝ κ^c, so σ = κ^{c/2}). Broadcasts over arrays."""
    return kappa**c_gamma, kappa ** (0.5 * c_u), kappa ** (0.5 * c_w), kappa**c_eta


def _sweep_rows(schemes, regimes) -> list[tuple[str, str]]:
    if isinstance(schemes, str) or isinstance(regimes, str):
        raise ValueError("schemes and regimes must be sequences of names, not a single string.")
    rows = []
    widened = sorted(name for name, scaling in SCALINGS.items() if scaling["c_d"] == 1)
    for scheme in schemes:
        if scheme not in widened:
            raise ValueError(
                f"unknown scheme {scheme!r}; choose from {widened} (the c_d = 1 rows of "
                "Table 1; 'lazy' keeps the width fixed and has no width sweep)."
            )
        for regime in regimes:
            if regime not in ("kernel", "feature learning"):
                raise ValueError(
                    f"unknown regime {regime!r}; choose 'kernel' or 'feature learning'."
                )
            rows.append((scheme, regime))
    if not rows:
        raise ValueError("schemes and regimes must name at least one row each.")
    return rows


@guard_overflow
def width_sweep(
    widths: np.ndarray,
    *,
    schemes: tuple[str, ...] = ("NTK", "MF", "Xavier", "Kaiming"),
    regimes: tuple[str, ...] = ("kernel", "feature learning"),
    x: np.ndarray | float = 1.0,
    y: float = 1.0,
    seed: int | None = 0,
    zero_output_init: bool = False,
) -> WidthSweep:
    """Final layer alignment ζ(∞) and relative NTK change versus width in the kernel and the
    feature-learning scalings — Xu & Ziyin, *Three mechanisms of feature learning in a linear
    network*, §4 (Table 1, Theorem 2) and Fig. 4 (kernel phase: the network's change from
    initialisation vanishes like a power of d; feature-learning phase: it stays O(1)).

    Parameters
    ----------
    widths : (W,) widths d, whole numbers in [1, 10⁴], at most 64 of them.
    schemes : initialisations from :data:`TABLE_1` ("NTK", "MF", "Xavier", "Kaiming").
    regimes : "kernel" and/or "feature learning": which (c_η, c_γ) of Table 1 to use.
    x : the data point (d₀ ≤ 100 entries, non-zero); y : the target.
    seed : the layers are ``gaussian_init(d, d₀, σ_u, σ_w, seed)`` — for every row the same
        standard-normal draw per width, scaled by the row's σ_u, σ_w.
    zero_output_init : project the second layer's draw off ``W x`` (``g ← g − (g·h/h·h) h``),
        so that every network starts with output 0 and P = Q exactly — Chizat's lazy
        initialisation, case 2 of their Theorem 2 (B.4's estimates assume f(0) = O(1)).

    Values are the exact solution's t → ∞ limit (docs/theory.md (2.19); A(∞) = α₊;
    :func:`exact` at t ≫ t_c gives the same to rounding). Both learning rates are d^{c_η}: a
    common learning rate only rescales time, so it sets ``t_c`` but not the limits. The
    relative NTK change is written as a product, ``∝ (y − f₀)(y + f₀)``, so it keeps its
    relative accuracy however small it is.
    Row × width arrays are computed together; only the Gaussian draws loop over widths.
    """
    widths, x, y = _sweep_inputs(widths, x, y, seed)
    rows = _sweep_rows(schemes, regimes)
    sums = _standard_sums(widths, x, seed, zero_output_init)
    c_eta, c_gamma, c_u, c_w, predicted = _row_exponents(rows)
    gamma, sigma_u, sigma_w, eta = _powers(
        widths.astype(np.float64)[None, :],
        c_gamma[:, None],
        c_u[:, None],
        c_w[:, None],
        c_eta[:, None],
    )
    ends = _limits(sums, float(np.linalg.norm(x)), y, gamma, sigma_u, sigma_w, eta)
    gg, hh, gh, _ = sums
    initial = gh / np.sqrt(gg * hh)
    require_finite("finite_width.width_sweep", *ends.values(), initial)
    return WidthSweep(
        widths=widths,
        schemes=tuple(s for s, _ in rows),
        regimes=tuple(r for _, r in rows),
        c_eta=c_eta,
        c_gamma=c_gamma,
        predicted_phase=predicted,
        x=x,
        y=y,
        seed=seed,
        zero_output_init=bool(zero_output_init),
        gamma=gamma,
        eta=eta,
        sigma_u=sigma_u,
        sigma_w=sigma_w,
        initial_alignment=initial,
        final_alignment=np.clip(ends["zeta"], -1.0, 1.0),
        ntk_change=ends["ntk"],
        weight_change=ends["weight"],
        alpha_plus=ends["alpha_plus"],
        t_c=1.0 / ends["rate"],
    )


def _sweep_inputs(widths, x, y, seed) -> tuple[np.ndarray, np.ndarray, float]:
    """The widths, the data point and the target of :func:`width_sweep`, checked."""
    widths = np.atleast_1d(as_array("widths", widths, ndim=(0, 1)))
    if widths.size > MAX_SWEEP_WIDTHS:
        raise ValueError(f"widths may hold at most {MAX_SWEEP_WIDTHS} values; got {widths.size}.")
    widths = np.array(
        [as_positive_int("widths", float(d), maximum=MAX_SWEEP_WIDTH) for d in widths],
        dtype=np.int64,
    )
    x = np.atleast_1d(as_array("x", x, ndim=(0, 1)))
    if x.size > MAX_SWEEP_INPUT:
        raise ValueError(f"x may have at most {MAX_SWEEP_INPUT} entries; got {x.size}.")
    if not np.any(x != 0):
        raise ValueError(
            "x must be non-zero: with x = 0 the network output is 0 and nothing learns."
        )
    y = as_finite_scalar("y", y)
    if isinstance(seed, np.random.Generator):
        raise ValueError("seed must be a whole number or None (every width reuses it).")
    as_seed(seed)
    return widths, x, y


def _standard_sums(widths: np.ndarray, x: np.ndarray, seed, zero_output: bool) -> np.ndarray:
    """Per width, the standard-normal draw's four sums everything needs, (4, W): g·g, h·h, g·h
    and ‖G‖²_F with ``g, G = gaussian_init(d, d₀, 1, 1, seed)``, ``h = G x`` (g projected off
    h with ``zero_output``)."""
    sums = np.empty((4, widths.size))
    for column, d in enumerate(widths):
        g, G = gaussian_init(int(d), x.size, 1.0, 1.0, seed)
        h = G @ x
        if zero_output:
            g = g - (g @ h) / (h @ h) * h
        sums[:, column] = g @ g, h @ h, g @ h, np.sum(G * G)
    return sums


def _row_exponents(rows):
    """(c_η, c_γ, c_u, c_w) per row, (R,) each, and the phase :func:`phase` predicts for it."""
    c_eta = np.array([TABLE_1[s][r][0] for s, r in rows])
    c_gamma = np.array([TABLE_1[s][r][1] for s, r in rows])
    c_u = np.array([SCALINGS[s]["c_u"] for s, _ in rows])
    c_w = np.array([SCALINGS[s]["c_w"] for s, _ in rows])
    predicted = tuple(
        phase(SCALINGS[s]["c_d"], c_g, SCALINGS[s]["c_u"], SCALINGS[s]["c_w"], c_e, c_e)
        for (s, _), c_e, c_g in zip(rows, c_eta, c_gamma, strict=True)
    )
    return c_eta, c_gamma, c_u, c_w, predicted


def _limits(sums, rho, y, gamma, sigma_u, sigma_w, eta) -> dict[str, np.ndarray]:
    """The exact flow's t → ∞ limit for every (row, width) at once (docs/theory.md (2.19)):
    ζ(∞), the relative NTK and weight changes, α₊ and 1/t_c, each formed from terms of one
    sign or as a product, so that it keeps its relative accuracy however small it is."""
    gg, hh, gh, frobenius = sums
    # Σp², Σq², Σpq of pᵢ, qᵢ = (√η hᵢ ± √η ρ uᵢ)/(2ρ) with u = σ_u g, h = σ_w G x (2.2).
    wide, tall = sigma_w**2 * hh, (rho * sigma_u) ** 2 * gg
    mixed = 2 * rho * sigma_u * sigma_w * gh
    factor = eta / (4 * rho**2)
    sum_p, sum_q = factor * (wide + tall + mixed), factor * (wide + tall - mixed)
    sum_pq = factor * (wide - tall)
    f0 = gamma * sigma_u * sigma_w * gh
    g_P, g_Q = 2 * gamma**2 * rho**2 * sum_p, 2 * gamma**2 * rho**2 * sum_q  # 2γ²dρ²·(P, Q)
    rate, a_plus, a_minus = flow_rates(eta * gamma * rho * y, g_P, g_Q)  # b = √(η_uη_w)γρy
    # (over: scales near the ends of the double range; require_finite refuses them)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        total = a_plus + a_minus  # = 2/t_c
        # At t = ∞ (e^{−4t/t_c} = 0, φ = t_c/2): A = numerator/denominator, as in exact.
        numerator, denominator = (a_plus + g_Q) / total, (a_minus + g_P) / total
        drive = 2 * gamma * rho * eta * (y - f0)  # numerator − denominator = φ·drive
        difference = drive / total
        root_num, root_den = np.sqrt(numerator), np.sqrt(denominator)
        grow = difference / (root_den * (root_num + root_den))  # √A − 1
        shrink = -difference / (root_num * (root_num + root_den))  # 1/√A − 1
        # K(∞)/K(0) − 1 = φ·drive·(Σp²a₊ − Σq²a₋)/(numerator·denominator·(Σp² + Σq²)) with
        # Σp²a₊ − Σq²a₋ = Σp²(a₊ − g_Q)(a₊ + g_Q)/a₊, a₊ − g_Q = g_Q·2γρη(y + f₀)/(g_Q + a₋).
        plus_gap = g_Q * 2 * gamma * rho * eta * (y + f0) / (g_Q + a_minus)
        imbalance = sum_p * plus_gap * (a_plus + g_Q) / a_plus  # Σp²a₊ − Σq²a₋
        ntk = np.abs(imbalance * drive) / (total**2 * numerator * denominator * (sum_p + sum_q))
        # ζ = cos(p − q, p + q) at t = ∞ (u ∝ p − q, W x ∝ p + q with positive factors)
        grown, shrunk = 1 + grow, 1 + shrink  # √A, 1/√A
        dot = grown**2 * sum_p - shrunk**2 * sum_q  # (p − q)·(p + q) = AΣp² − Σq²/A
        cross = 2 * grown * shrunk * sum_pq
        spread = grown**2 * sum_p + shrunk**2 * sum_q
        zeta = dot / np.sqrt((spread - cross) * (spread + cross))
        moved = grow**2 * sum_p + 2 * grow * shrink * sum_pq + shrink**2 * sum_q  # ‖Δp + Δq‖²
        weight = np.sqrt(np.maximum(moved, 0.0) / eta) / (sigma_w * np.sqrt(frobenius))
        alpha_plus = (a_plus + g_Q) / (a_minus + g_P)
    return {"zeta": zeta, "ntk": ntk, "weight": weight, "alpha_plus": alpha_plus, "rate": rate}
