"""Kernel–target alignment under optimal feature evolution (Shan & Bordelon, *Rapid feature
evolution accelerates learning in neural networks*, §4 and App. A.1).

Residual ``Δ ∈ ℝᴾ`` (Δ(0) = −y: zero initial output), features Ψ with kernel ``K = ΨᵀΨ``,

    Δ' = −η K Δ,   Ψ' = γη Ψ Δ Δᵀ,

so ``C = γΔΔᵀ + K`` is conserved (their eq. 9) and ``K(∞) = K₀ + γyyᵀ``. Exact solution
(docs/theory.md (4.5)): with ``C = O diag(c) Oᵀ``,

    Δ(t) = e^{−ηCt}Δ₀ / √(1 − 2ηγ Δ₀ᵀ(∫₀ᵗ e^{−2ηCs} ds)Δ₀).

The quantity under the root equals ``s∞ + γ Σ_k (b_k²/c_k) e^{−2ηc_k t}`` (b = OᵀΔ₀) with
``s∞ = 1/(1 + γ yᵀK₀⁻¹y) > 0``: a sum of positive terms, evaluated as a log-sum-exp so that no
horizon overflows or underflows to 0/0. γ = 0 is kernel gradient descent with the fixed K₀.
"""

from ._exact import *  # noqa: F403
from ._exact import __all__ as _exact_names
from ._setup import *  # noqa: F403
from ._setup import __all__ as _setup_names
from ._sweep import *  # noqa: F403
from ._sweep import __all__ as _sweep_names

__all__ = [*_exact_names, *_sweep_names, *_setup_names]
