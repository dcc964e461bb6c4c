"""How λ-balanced a LeCun-initialised two-layer linear network is (Dominé et al. Fig. 1C,
App. A.3, Theorem A.3).

LeCun's start draws ``W₁ ~ N(0, 1/dᵢ)`` (h × dᵢ) and ``W₂ ~ N(0, 1/h)`` (dₒ × h). Its balance
matrix ``B = W₂ᵀW₂ − W₁W₁ᵀ`` (h × h, the quantity the flow conserves, docs/theory.md (3.2)) has
expectation ``(dₒ/h − 1) I`` (Theorem A.3: ``E W₂ᵀW₂ = dₒ·(1/h) I``, ``E W₁W₁ᵀ = dᵢ·(1/dᵢ) I``),
and each entry's variance falls as the widths grow. The spectrum of B tells how close one draw
is to a scaled identity: the best λ is its mean eigenvalue, and the relative deviation
``‖B − λI‖₂ / ‖B‖₂`` (operator norms, i.e. the largest eigenvalue moduli) is zero for an exactly
λ-balanced start. By Marchenko–Pastur, a Gram matrix of h columns with d rows deviates from its
mean by about ``2√(h/d)`` of it, so the deviation falls like ``√(h/d)`` only once the outer widths
dᵢ, dₒ are many times the hidden width h; at equal widths it does not fall at all.

A sweep draws B from its own distribution rather than through the weights: each Gram matrix is
Wishart, drawn by Bartlett's decomposition from h²/2 numbers instead of d·h (the widest
network's W₂ alone has 4,000 × 125), which keeps a slider step of the view quick; the weights'
own draw (:func:`lecun_init`, :func:`operator_balance`) is the tests' independent reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import as_finite_scalar, as_positive_int

__all__ = [
    "LECUN_WIDTHS",
    "MAX_LECUN_DRAWS",
    "MAX_LECUN_HIDDEN",
    "MAX_LECUN_WIDENING",
    "MAX_LECUN_WIDTH",
    "LecunBalance",
    "balance_of",
    "lecun_balance",
    "lecun_balance_matrix",
    "lecun_init",
    "operator_balance",
]

#: networks in a sweep: the outer widths times factors from 1 to the widening, evenly on a log
#: scale (1, 2, 4, 8, 16 for a widening of 16); the hidden width stays
LECUN_WIDTHS = 5
#: largest widening, outer width (dᵢ, dₒ) and hidden width of a sweep's base network, and most
#: draws per width: the largest network, 16·250 → 125 → 16·250, keeps a sweep within a request
MAX_LECUN_WIDENING = 16.0
MAX_LECUN_WIDTH = 250
MAX_LECUN_HIDDEN = 125
MAX_LECUN_DRAWS = 4


@dataclass(frozen=True)
class LecunBalance:
    """The balance of LeCun draws at outer widths ``≈ factor · (dᵢ, dₒ)``, hidden width h."""

    hidden: int
    d_in: np.ndarray  #: (K,) input width of each network of the sweep
    d_out: np.ndarray  #: (K,) output width of each network of the sweep
    expected_lam: np.ndarray  #: (K,) dₒ/h − 1, the mean of B's eigenvalues in expectation
    lam: np.ndarray  #: (K, draws) the mean eigenvalue of each draw's B
    deviation: np.ndarray  #: (K, draws) ‖B − λI‖₂ / ‖B‖₂ of each draw
    eigenvalues: np.ndarray  #: (h,) ascending eigenvalues of B at the base widths, first draw

    @property
    def median_deviation(self) -> np.ndarray:
        """(K,) the median relative deviation over the draws at each width."""
        return np.median(self.deviation, axis=1)

    @property
    def slope(self) -> float:
        """The least-squares slope of log(median deviation) against log(outer width): −½ where
        the deviation falls like √(h/d)."""
        return float(np.polyfit(np.log(self.d_in), np.log(self.median_deviation), 1)[0])


def lecun_init(
    d_in: int, hidden: int, d_out: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``(W₁, W₂)`` drawn as LeCun et al. (1998): ``W₁ ~ N(0, 1/dᵢ)`` of shape (h, dᵢ) and
    ``W₂ ~ N(0, 1/h)`` of shape (dₒ, h) (Dominé et al. App. A.3)."""
    W1 = rng.standard_normal((hidden, d_in)) / np.sqrt(d_in)
    W2 = rng.standard_normal((d_out, hidden)) / np.sqrt(hidden)
    return W1, W2


def _gram(rows: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """``GᵀG`` for a ``rows × size`` matrix G of independent N(0, 1) entries, drawn from its
    Wishart distribution: for ``rows ≥ size`` by Bartlett's decomposition ``GᵀG = LLᵀ``, L lower
    triangular with ``L_ii² ~ χ²(rows − i)`` (i = 0 … size − 1) and N(0, 1) below the diagonal,
    all independent; with fewer rows, from G itself (fewer numbers still)."""
    if rows < size:
        G = rng.standard_normal((rows, size))
        return G.T @ G
    L = np.tril(rng.standard_normal((size, size)), -1)
    L[np.diag_indices(size)] = np.sqrt(rng.chisquare(rows - np.arange(size)))
    return L @ L.T


def lecun_balance_matrix(
    d_in: int, hidden: int, d_out: int, rng: np.random.Generator
) -> np.ndarray:
    """The balance matrix ``B = W₂ᵀW₂ − W₁W₁ᵀ`` (h × h) of a LeCun start (:func:`lecun_init`),
    drawn from its distribution: ``W₂ᵀW₂ = GᵀG/h`` with G of dₒ × h standard normals and
    ``W₁W₁ᵀ = G'ᵀG'/dᵢ`` with G' of dᵢ × h, independent Wishart matrices (:func:`_gram`)."""
    return _gram(d_out, hidden, rng) / hidden - _gram(d_in, hidden, rng) / d_in


def balance_of(B: np.ndarray) -> tuple[np.ndarray, float, float]:
    """``(eigenvalues of B, λ, ‖B − λI‖₂ / ‖B‖₂)`` for a symmetric balance matrix B, λ its mean
    eigenvalue. Both operator norms are largest eigenvalue moduli."""
    eigenvalues = np.linalg.eigvalsh(B)
    lam = float(np.mean(eigenvalues))
    largest = float(np.max(np.abs(eigenvalues)))
    deviation = float(np.max(np.abs(eigenvalues - lam))) / largest if largest > 0 else 0.0
    return eigenvalues, lam, deviation


def operator_balance(W1: np.ndarray, W2: np.ndarray) -> tuple[np.ndarray, float, float]:
    """:func:`balance_of` ``B = W₂ᵀW₂ − W₁W₁ᵀ`` for the weights themselves."""
    if W1.ndim != 2 or W2.ndim != 2 or W2.shape[1] != W1.shape[0]:
        raise ValueError(
            f"W1 must be (h, d_in) and W2 (d_out, h) with the same h; got {W1.shape} and "
            f"{W2.shape}."
        )
    return balance_of(W2.T @ W2 - W1 @ W1.T)


def lecun_balance(
    d_in: int, hidden: int, d_out: int, *, seed: int, draws: int, widening: float = 16.0
) -> LecunBalance:
    """The balance of ``draws`` LeCun starts at :data:`LECUN_WIDTHS` outer widths
    ``round(factor · (dᵢ, dₒ))``, the factors from 1 to ``widening`` evenly on a log scale, the
    hidden width fixed. Draw ``k`` at the ``i``-th width comes from
    ``np.random.default_rng([seed, i, k])`` (:func:`lecun_balance_matrix`), so each cell is
    reproducible alone."""
    d_in = as_positive_int("d_in", d_in, maximum=MAX_LECUN_WIDTH)
    d_out = as_positive_int("d_out", d_out, maximum=MAX_LECUN_WIDTH)
    hidden = as_positive_int("hidden", hidden, maximum=MAX_LECUN_HIDDEN)
    draws = as_positive_int("draws", draws, maximum=MAX_LECUN_DRAWS)
    seed = as_positive_int("seed", seed, minimum=0)
    widening = as_finite_scalar("widening", widening)
    if not 2.0 <= widening <= MAX_LECUN_WIDENING:
        raise ValueError(
            f"widening must lie in [2, {MAX_LECUN_WIDENING:g}] (the outer widths' largest "
            f"multiple); got {widening:g}."
        )
    factors = np.geomspace(1.0, widening, LECUN_WIDTHS)
    inputs = np.round(factors * d_in).astype(int)
    outputs = np.round(factors * d_out).astype(int)
    lam = np.empty((factors.size, draws))
    deviation = np.empty((factors.size, draws))
    first = np.empty(hidden)
    for i in range(factors.size):
        for k in range(draws):
            rng = np.random.default_rng([seed, i, k])
            B = lecun_balance_matrix(int(inputs[i]), hidden, int(outputs[i]), rng)
            eigenvalues, lam[i, k], deviation[i, k] = balance_of(B)
            if i == k == 0:
                first = eigenvalues
    return LecunBalance(
        hidden=hidden,
        d_in=inputs,
        d_out=outputs,
        expected_lam=outputs / hidden - 1.0,
        lam=lam,
        deviation=deviation,
        eigenvalues=first,
    )
