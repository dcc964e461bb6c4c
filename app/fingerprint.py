"""A fingerprint of the code that computes results (the app and the engine), for what is kept
across the processes and machines of a deployment longer than a result: the paper cards
(app/paper_figures.py) and a shared job's parts (app/shared_parts.py). A new version of either
computes them afresh instead of reading what an older version left in a shared cache."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

__all__ = ["code_version"]


@functools.cache
def code_version() -> str:
    """The fingerprint: a hash of every Python file of ``app`` and ``solvers``."""
    digest = hashlib.blake2b(digest_size=8)
    root = Path(__file__).resolve().parent.parent
    for folder in ("app", "solvers"):
        for path in sorted((root / folder).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()
