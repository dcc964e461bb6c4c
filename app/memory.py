"""Process-level tuning that makes the solvers' large temporaries cheap. Opt-in.

A dashboard-sized trajectory is an array of ~10⁵ floats (800 KB). glibc's malloc hands out
blocks that large with ``mmap`` and returns them to the kernel on ``free``, so every new array
pays fresh page faults on first touch — on a virtual machine that costs ~0.6 ms per array, ten
times the arithmetic. :func:`keep_freed_memory` asks malloc to serve such blocks from its heap
and to keep freed memory for reuse. It changes no result, only speed; it is a no-op off glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util

__all__ = ["keep_freed_memory"]

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def keep_freed_memory(trim_threshold: int = 512 * 2**20) -> bool:
    """Serve arrays up to 32 MB from malloc's heap and keep up to ``trim_threshold`` bytes of
    freed memory for reuse. Returns True when glibc accepted both settings."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # 32 MB is glibc's ceiling for the mmap threshold on 64-bit systems.
    accepted = mallopt(_M_MMAP_THRESHOLD, 32 * 2**20) == 1
    return accepted and mallopt(_M_TRIM_THRESHOLD, int(trim_threshold)) == 1
