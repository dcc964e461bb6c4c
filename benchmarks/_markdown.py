"""The benchmarks' ``--markdown`` output: what ``benchmarks/performance_doc.py`` writes into
docs/performance.md, so that the figures there come from a run, never from a hand.

A section opens with the command that printed it, the date, the versions, the cores and the
load average when it started (the machine is shared: a high load means noisy figures), then
the benchmark's own output — a Markdown table where it prints one, its text in a fence where
it prints aligned columns.
"""

from __future__ import annotations

import atexit
import datetime
import os
import platform
import sys

import numpy as np


def provenance() -> str:
    command = " ".join(["python", f"benchmarks/{os.path.basename(sys.argv[0])}", *sys.argv[1:]])
    today = datetime.date.today().isoformat()
    load = os.getloadavg()[0]
    return (
        f"`{command}` — {today}, Python {platform.python_version()}, numpy {np.__version__}, "
        f"{os.cpu_count()} cores, load average {load:.1f} at the start:"
    )


def start(enabled: bool, *, fenced: bool = True) -> None:
    """Open the benchmark's section (``enabled``: ``--markdown``): its provenance line, then a
    text fence (closed when the script exits) unless it prints Markdown itself."""
    if not enabled:
        return
    print(provenance() + "\n", flush=True)
    if fenced:
        print("```text", flush=True)
        atexit.register(print, "```", flush=True)


def add_option(parser) -> None:
    parser.add_argument(
        "--markdown",
        action="store_true",
        help="print a section for docs/performance.md (benchmarks/performance_doc.py)",
    )
