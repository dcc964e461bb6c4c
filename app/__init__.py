"""The dashboard: Dash views over the :mod:`solvers` engine.

``gunicorn app:server`` serves it; ``python -m app`` runs it on http://127.0.0.1:8050. The app
is built on first access of ``app.server`` (or ``app.dash_app``), so importing the package has
no side effects; tests build their own instances with :func:`create_app`.
"""

from __future__ import annotations

import os

# The matrices here are at most a few hundred wide: BLAS threads add contention between
# concurrent requests, not speed. (Effective only if numpy is not imported yet.)
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

from typing import Any  # noqa: E402

from .factory import create_app  # noqa: E402

__all__ = ["create_app", "dash_app", "server"]

_built: dict[str, Any] = {}


def _start_paper_figures() -> None:
    """The paper-figures page's cards, computed once for the deployment beside the server."""
    from .config import Settings
    from .paper_figures import warm_up_in_background

    warm_up_in_background(Settings.from_env())


def __getattr__(name: str) -> Any:
    if name in ("server", "dash_app"):
        if "app" not in _built:
            _built["app"] = create_app()
            _start_paper_figures()
        return _built["app"] if name == "dash_app" else _built["app"].server
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
