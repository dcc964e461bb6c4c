"""``python -m app.precompute [server pid]``: the paper-figures page's cards, computed into the
deployment's shared result cache (the server starts it beside itself:
:func:`app.paper_figures.warm_up_in_background`)."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence

from flask import Flask

from .cache import ResultCache
from .config import Settings
from .paper_figures import CARDS, warm_up

log = logging.getLogger(__name__)


def _end_with(parent: int) -> None:
    """This process ends when the server that started it does (a stopped server must not
    leave it computing): at once where Linux can tell it, else within a second."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def main(argv: Sequence[str] = ()) -> int:
    """``python -m app.precompute [server pid]``: every card into the cache the settings
    name (ending early if that server stops)."""
    if argv:
        _end_with(int(argv[0]))
    os.nice(10)  # the web workers come first
    settings = Settings.from_env()
    cache = ResultCache.for_app(Flask(__name__), settings.flask_caching_config())
    failed = warm_up(cache)
    log.info("paper figures computed: %d of %d", len(CARDS) - failed, len(CARDS))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
