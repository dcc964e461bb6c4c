"""Finite-width two-layer linear network on one-dimensional data (Xu & Ziyin, *Three mechanisms
of feature learning in a linear network*, Theorem 1).

``f(x) = γ Σᵢ uᵢ (wᵢ·x)``, width d, input size d₀, one data point x (any data set on a line
reduces to it, their Prop. 1), loss ``L = (f(x) − y)²``, learning rates η_u, η_w.

With ``ρ = ‖x‖``, ``hᵢ = wᵢ·x``, ``pᵢ = (√η_u hᵢ + √η_w ρ uᵢ)/(2ρ)``,
``qᵢ = (√η_u hᵢ − √η_w ρ uᵢ)/(2ρ)`` the flow is ``pᵢ(t) = pᵢ(0)√A(t)``, ``qᵢ(t) = qᵢ(0)/√A(t)``
where A solves the scalar Riccati equation ``A' = −4γ²dρ²(P A² − Q) + 4√(η_uη_w)γρy A``,
``A(0) = 1`` (P, Q = mean pᵢ(0)², mean qᵢ(0)²). docs/theory.md (2.5)–(2.7) gives its solution in
the paper's form (eqs. 8–11 with the misprints corrected); here it is rewritten as (2.8)–(2.9)

    A(t) = [w₊ + w₋ e^{−4t/t_c} + g_Q φ(t)] / [w₋ + w₊ e^{−4t/t_c} + g_P φ(t)],
    φ(t) = t_c (1 − e^{−4t/t_c}) / 2,   g_P = 2γ²dρ²P,   g_Q = 2γ²dρ²Q,

with weights ``w± = a±/(a₊ + a₋)``, ``a± = 2γ²dρ²P·α±``. Numerator and denominator are sums of
non-negative terms and never divide by P — the same expression covers P = 0 (their App. B),
y = 0 and the kernel limit, for any horizon. Their difference is ``φ(t)·2γρ√(η_uη_w)(y − f₀)``
exactly, and the changes ``√A − 1`` and ``1/√A − 1`` are formed from these three numbers, so
changes from initialisation keep full relative accuracy whether they are tiny (the lazy regime)
or A runs to 0 (a small initialisation with y < 0).

The package: the flow, its gradient descent, the phase rule and the initialisations in
:mod:`._exact`; the width sweep in :mod:`._sweep`; the views' networks in :mod:`._network`; the
phase plane and table in :mod:`._phases`.
"""

from ._exact import *  # noqa: F403
from ._exact import __all__ as _exact_names
from ._network import *  # noqa: F403
from ._network import __all__ as _network_names
from ._phases import *  # noqa: F403
from ._phases import __all__ as _phases_names
from ._sweep import *  # noqa: F403
from ._sweep import __all__ as _sweep_names

__all__ = [*_exact_names, *_sweep_names, *_network_names, *_phases_names]
