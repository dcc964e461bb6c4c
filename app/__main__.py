"""``python -m app``: the dashboard on http://127.0.0.1:8050 (HOST and PORT override)."""

import os

from . import create_app
from .config import Settings
from .paper_figures import warm_up_in_background


def main() -> None:
    host = os.environ.get("HOST", "127.0.0.1")
    port = int(os.environ.get("PORT", "8050"))
    print(f"Lazy vs rich explorer: http://{host}:{port}/")
    app = create_app()
    warm_up_in_background(Settings.from_env())
    app.run(host=host, port=port, debug=False)


if __name__ == "__main__":
    main()
