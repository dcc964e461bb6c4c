"""λ-balanced two-layer linear networks (Dominé et al., *From lazy to rich: exact learning
dynamics in deep linear networks*, Theorem 4.3).

``f(x) = W₂W₁x`` with ``W₁ ∈ ℝ^{h×dᵢ}``, ``W₂ ∈ ℝ^{dₒ×h}``, whitened inputs, loss
``L = ½‖Σyx − W₂W₁‖²_F``; gradient flow ``W₁' = W₂ᵀ(Σyx − W₂W₁)``, ``W₂' = (Σyx − W₂W₁)W₁ᵀ``.
The balance ``W₂ᵀW₂ − W₁W₁ᵀ = λI_h`` is conserved; λ is the relative scale (λ > 0: large
read-out, like δ > 0 for the single neuron).

Exact solution (docs/theory.md (3.3)–(3.5)): ``Q = [W₁ᵀ; W₂]`` obeys ``Q' = FQ − ½QQᵀQ`` with
``F = [[−λ/2·I, Σyxᵀ], [Σyx, λ/2·I]]``; ``QQᵀ(t)`` holds the input similarity ``W₁ᵀW₁``, the
network function ``W₂W₁`` and the output similarity ``W₂W₂ᵀ``. It is evaluated by
:class:`solvers._riccati.MatrixRiccati` (the one-shot formula loses all accuracy by t ≈ 8 when
growth rates differ widely: its h×h matrix reaches condition number 1e16): wherever it is well
conditioned — generic starts with λ ≠ 0 or a task of rank ≥ h — by a restart-free form with
only decaying exponentials, all times in one array expression (docs/theory.md, "λ-balanced:
restart-free closed form"); elsewhere (near a saddle, zero rates) by restarting the closed form
from intermediate states, which stays exact at long horizons.

The networks the views show are *scenarios* (:func:`scenario`): sizes that fit the architecture,
λ and start asked for (:func:`architecture`), a task and a start drawn from the streams of one
seed; a map's cells are scenarios too (:func:`scenario_sweep`). Tasks learnt one after another —
the applications of the paper's §6 and App. D — restart the closed form at each switch
(:func:`exact_sequence`; docs/lambda-balanced-applications.md). How far a LeCun start is from
λ-balanced — the paper's Fig. 1C — is :func:`lecun_balance`.
"""

from ._exact import *  # noqa: F403
from ._exact import __all__ as _exact_names
from ._initialisation import *  # noqa: F403
from ._initialisation import __all__ as _initialisation_names
from ._scenario import *  # noqa: F403
from ._scenario import __all__ as _scenario_names
from ._sequences import *  # noqa: F403
from ._sequences import __all__ as _sequences_names
from ._sweep import *  # noqa: F403
from ._sweep import __all__ as _sweep_names

__all__ = [
    *_exact_names,
    *_sweep_names,
    *_scenario_names,
    *_sequences_names,
    *_initialisation_names,
]
