"""The scaling phases over the learning-rate and output-scale exponents (Xu & Ziyin §4, eq. 18,
Theorem 2, Table 1), the phase table of a set of exponents, and a Table-1 scheme at a finite κ."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import (
    as_finite_scalar,
    as_positive,
    as_positive_int,
)
from ._exact import (
    SCALINGS,
    PhaseTerms,
    phase,
    phase_terms,
)
from ._network import Network, network
from ._sweep import TABLE_1, TABLE_1_BLOCKS, _powers

__all__ = [
    "PHASES",
    "PhaseGrid",
    "PhasePlane",
    "PhaseRow",
    "PhaseTable",
    "TableEntry",
    "phase_table",
    "power_fit",
    "predicted_delta",
]

#: the scaling phases, in the order of their codes 0…3 in :class:`PhaseGrid`
PHASES = ("frozen", "kernel", "feature learning", "unstable")


@dataclass(frozen=True)
class TableEntry:
    """One block of Table 1 for one scheme: where it sits and the phase it is in."""

    block: str  #: one of :data:`TABLE_1_BLOCKS`
    c_eta: float
    c_gamma: float
    phase: str


@dataclass(frozen=True)
class PhaseGrid:
    """The phase of every point of a grid over (c_η, c_γ)."""

    etas: np.ndarray  #: (E,) c_η of the columns
    gammas: np.ndarray  #: (G,) c_γ of the rows
    codes: np.ndarray  #: (G, E) index into :data:`PHASES`
    m: np.ndarray  #: (G, E) the exponent m of eq. 18 (0 exactly on the line m = 0)


@dataclass(frozen=True)
class PhasePlane:
    """The scaling phases of one initialisation over the learning-rate and output-scale exponents
    (c_η, c_γ) — Xu & Ziyin §4, eq. 18 and Theorem 2 (docs/theory.md §2).

    The initialisation is a scheme of :data:`SCALINGS` (its c_d, c_u, c_w; its own c_γ is one
    of the plane's coordinates); ``zero_output_init`` assumes Chizat's zero initial output
    (case 2 of Theorem 2); ``split`` = c_ηu − c_ηw shares the learning-rate exponent c_η
    unevenly between the layers (case 3): ``c_ηu = c_η + split/2``, ``c_ηw = c_η − split/2``.
    """

    scheme: str
    zero_output_init: bool = False
    split: float = 0.0

    def __post_init__(self) -> None:
        if self.scheme not in SCALINGS:
            raise ValueError(f"scheme must be one of {', '.join(SCALINGS)}; got {self.scheme!r}.")
        as_finite_scalar("split", self.split)

    @classmethod
    def as_in_table(cls, scheme: str) -> PhasePlane:
        """The plane as Table 1 assumes it: equal learning rates, a zero initial output for the
        "lazy" scheme (Chizat et al.) only."""
        return cls(scheme, zero_output_init=scheme == "lazy")

    @property
    def exponents(self) -> tuple[float, float, float]:
        """(c_d, c_u, c_w) of the scheme."""
        scaling = SCALINGS[self.scheme]
        return scaling["c_d"], scaling["c_u"], scaling["c_w"]

    def shares_initialisation(self, scheme: str) -> bool:
        """Whether ``scheme`` has this plane's (c_d, c_u, c_w) (NTK and MF do)."""
        return PhasePlane(scheme).exponents == self.exponents

    def learning_rates(self, c_eta: float) -> tuple[float, float]:
        """(c_ηu, c_ηw) at the plane's c_η."""
        half = self.split / 2
        return c_eta + half, c_eta - half

    def terms(self, c_eta: float, c_gamma: float) -> PhaseTerms:
        c_d, c_u, c_w = self.exponents
        return phase_terms(
            c_d,
            c_gamma,
            c_u,
            c_w,
            *self.learning_rates(c_eta),
            zero_output_init=self.zero_output_init,
        )

    def phase(self, c_eta: float, c_gamma: float) -> str:
        """:func:`phase` at (c_η, c_γ)."""
        c_d, c_u, c_w = self.exponents
        return phase(
            c_d,
            c_gamma,
            c_u,
            c_w,
            *self.learning_rates(c_eta),
            zero_output_init=self.zero_output_init,
        )

    def boundary(self, c_eta) -> np.ndarray:
        """c_γ of the line m = 0 at each ``c_eta``. Both terms of eq. 18 are 2c_γ plus a function
        of the learning rates alone — ``c_ηu + c_ηw`` and ``c_d + max(c_ηw + c_u, c_ηu + c_w)``
        — so m = 0 ⇔ c_γ = −max(the two)/2."""
        c_d, c_u, c_w = self.exponents
        etas = np.atleast_1d(np.asarray(c_eta, dtype=float))
        eta_u, eta_w = self.learning_rates(etas)
        feature = eta_u + eta_w
        kernel = c_d + np.maximum(eta_w + c_u, eta_u + c_w)
        return -np.maximum(feature, kernel) / 2

    @property
    def kink(self) -> float:
        """c_η where the two terms of eq. 18 are equal: left of it the initialisation (kernel)
        term sets m, right of it the feature term. Their difference falls with slope −1 in
        c_η, so the kink is that difference at c_η = 0."""
        c_d, c_u, c_w = self.exponents
        half = self.split / 2
        return c_d + max(c_u - half, c_w + half)

    @property
    def left_phase(self) -> str:
        """The phase of the line m = 0 left of the kink (kernel iff P/Q → 1 there, Theorem 2;
        right of it the line always learns features)."""
        c_eta = self.kink - 1.0
        return self.phase(c_eta, float(self.boundary(c_eta)[0]))

    def grid(self, etas: np.ndarray, gammas: np.ndarray) -> PhaseGrid:
        """The phase at every (c_η, c_γ) of a grid: frozen below the line m = 0, unstable above
        it, and on it (where |m| < 10⁻⁶) as :meth:`phase` decides."""
        etas = np.asarray(etas, dtype=float)
        gammas = np.asarray(gammas, dtype=float)
        m = 2 * gammas[:, None] - 2 * self.boundary(etas)[None, :]
        codes = np.where(m < 0, PHASES.index("frozen"), PHASES.index("unstable"))
        for row, column in zip(*np.nonzero(np.abs(m) < 1e-6), strict=True):
            name = self.phase(float(etas[column]), float(gammas[row]))
            codes[row, column] = PHASES.index(name)
            if name in ("kernel", "feature learning"):
                m[row, column] = 0.0
        return PhaseGrid(etas, gammas, codes, m)

    def table(self, scheme: str | None = None) -> tuple[TableEntry, ...]:
        """Table 1's four points of ``scheme`` (this plane's by default), each with the phase it
        has on this plane — for another scheme, at this plane's initialisation."""
        row = TABLE_1[self.scheme if scheme is None else scheme]
        return tuple(
            TableEntry(block, *row[block], self.phase(*row[block])) for block in TABLE_1_BLOCKS
        )


@dataclass(frozen=True)
class PhaseRow:
    """One scheme of Table 1 in :func:`phase_table`."""

    scheme: str
    exponents: tuple[float, float, float, float]  #: (c_d, c_γ, c_u, c_w)
    #: the scheme's phase at the learning-rate exponents asked about
    yours: str
    table: tuple[TableEntry, ...]  #: its four blocks of Table 1, as Table 1 assumes them


@dataclass(frozen=True)
class PhaseTable:
    """The §4 rule for one set of exponents, and for every scheme of Table 1."""

    terms: PhaseTerms
    phase: str
    rows: tuple[PhaseRow, ...]


def phase_table(
    c_d: float,
    c_gamma: float,
    c_u: float,
    c_w: float,
    c_eta_u: float,
    c_eta_w: float,
    *,
    zero_output_init: bool = False,
    independent_init: bool = True,
) -> PhaseTable:
    """The terms and phase of these exponents (:func:`phase_terms`, :func:`phase`), and each
    scheme of Table 1 — its own phase at these learning-rate exponents and its four blocks —
    with Table 1's assumptions (Xu & Ziyin §4, docs/theory.md §2)."""
    flags = {"zero_output_init": zero_output_init, "independent_init": independent_init}
    exponents = (c_d, c_gamma, c_u, c_w, c_eta_u, c_eta_w)
    rows = []
    for scheme, scaling in SCALINGS.items():
        own = (scaling["c_d"], scaling["c_gamma"], scaling["c_u"], scaling["c_w"])
        plane = PhasePlane.as_in_table(scheme)
        yours = phase(*own, c_eta_u, c_eta_w, zero_output_init=plane.zero_output_init)
        rows.append(PhaseRow(scheme, own, yours, plane.table()))
    return PhaseTable(phase_terms(*exponents, **flags), phase(*exponents, **flags), tuple(rows))


def predicted_delta(scheme: str, regime: str) -> float:
    """The exponent δ of ``‖W(∞) − W(0)‖/‖W(0)‖ ∝ κ^{−δ}`` that Xu & Ziyin's App. B.4 estimates
    for a Table-1 pair: 0 in the feature-learning phase; in the kernel phase
    ``−(2c_γ + c_ηu + c_ηw)/2`` when c_u = c_w, else ``−(2c_γ + c_ηu + c_ηw)``."""
    if regime not in ("kernel", "feature learning"):
        raise ValueError(f"regime must be 'kernel' or 'feature learning'; got {regime!r}.")
    if regime != "kernel":
        return 0.0
    c_eta, c_gamma = TABLE_1[scheme]["kernel"]
    scaling = SCALINGS[scheme]
    exponent = 2 * c_gamma + 2 * c_eta
    return -exponent / 2 if scaling["c_u"] == scaling["c_w"] else -exponent


def power_fit(widths: np.ndarray, values: np.ndarray) -> float | None:
    """The exponent k of a power law ``values ∝ widths^k``: the least-squares slope of
    log(values) against log(widths) over the positive, finite values; None without two
    distinct widths to fit."""
    widths = np.asarray(widths, dtype=float)
    values = np.asarray(values, dtype=float)
    keep = (values > 0) & np.isfinite(values) & (widths > 0)
    if np.count_nonzero(keep) < 2 or np.ptp(np.log(widths[keep])) == 0:
        return None
    return float(np.polyfit(np.log(widths[keep]), np.log(values[keep]), 1)[0])


# -- a Table-1 scheme at a finite κ -------------------------------------------------------------

__all__ += ["Scaled", "scaled"]


@dataclass(frozen=True)
class Scaled:
    """The hyperparameters of a Table-1 scheme at a finite κ (Xu & Ziyin §4): width, output
    scale, initial scales and learning rates, each a power of κ."""

    width: int
    gamma: float
    sigma_u: float
    sigma_w: float
    eta_u: float
    eta_w: float

    def network(self, y: float, seed: int | None = 0) -> Network:
        """Its network on the data point x = 1, Gaussian layers from ``seed``: for κ = d the
        network of :func:`width_sweep`'s row at that width."""
        return network(
            self.width,
            y=y,
            gamma=self.gamma,
            sigma_u=self.sigma_u,
            sigma_w=self.sigma_w,
            seed=seed,
            eta_u=self.eta_u,
            eta_w=self.eta_w,
        )

    def rescaled(self, s: float) -> Scaled:
        """The same network under the exact symmetry ``u, W → s u, s W``, ``γ → γ/s²``,
        ``η → s²η`` (their footnote 5; in exponents (c_u, c_w, c_η, c_γ) → (+θ, +θ, +θ, −θ)):
        the function and the path are unchanged, ``u(t), W(t) → s u(t), s W(t)``."""
        s = as_positive("s", s)
        return Scaled(
            self.width,
            self.gamma / s**2,
            self.sigma_u * s,
            self.sigma_w * s,
            self.eta_u * s**2,
            self.eta_w * s**2,
        )

    def balanced_scale(
        self,
        gamma_range: tuple[float, float],
        sigma_u_range: tuple[float, float],
        sigma_w_range: tuple[float, float],
    ) -> float | None:
        """The s of :meth:`rescaled` that puts γ/s², sσ_u and sσ_w inside the given ranges: 1
        if that works, else the s with γ/s² = 1, else the s nearest 1; None if none does."""
        log_gamma = float(np.log(self.gamma))
        low = max(
            (log_gamma - float(np.log(gamma_range[1]))) / 2,
            float(np.log(sigma_u_range[0] / self.sigma_u)),
            float(np.log(sigma_w_range[0] / self.sigma_w)),
        )
        high = min(
            (log_gamma - float(np.log(gamma_range[0]))) / 2,
            float(np.log(sigma_u_range[1] / self.sigma_u)),
            float(np.log(sigma_w_range[1] / self.sigma_w)),
        )
        if low > high:
            return None
        if low <= 0 <= high:
            return 1.0
        if low <= log_gamma / 2 <= high:
            return float(np.exp(log_gamma / 2))
        return float(np.exp(min(max(0.0, low), high)))


def scaled(
    scheme: str,
    kappa: float,
    *,
    c_gamma: float,
    c_eta_u: float,
    c_eta_w: float,
    width: int | None = None,
) -> Scaled:
    """``scheme``'s initialisation (:data:`SCALINGS`: σ_u = κ^{c_u/2}, σ_w = κ^{c_w/2}) at κ
    with output scale γ = κ^{c_γ} and learning rates η_u = κ^{c_ηu}, η_w = κ^{c_ηw}, at width
    ``width`` (κ itself by default, as for c_d = 1). :func:`width_sweep` builds its rows the
    same way, with κ = d."""
    if scheme not in SCALINGS:
        raise ValueError(f"scheme must be one of {', '.join(SCALINGS)}; got {scheme!r}.")
    kappa = as_positive("kappa", kappa)
    scaling = SCALINGS[scheme]
    gamma, sigma_u, sigma_w, eta_u = _powers(
        kappa,
        as_finite_scalar("c_gamma", c_gamma),
        scaling["c_u"],
        scaling["c_w"],
        as_finite_scalar("c_eta_u", c_eta_u),
    )
    eta_w = kappa ** as_finite_scalar("c_eta_w", c_eta_w)
    size = as_positive_int("width", round(kappa) if width is None else width)
    return Scaled(size, float(gamma), float(sigma_u), float(sigma_w), float(eta_u), float(eta_w))
