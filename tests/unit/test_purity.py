"""The engine stays pure numpy/scipy: nothing web- or plot-related may reach it."""

import ast
import pathlib
import subprocess
import sys

from tests.models import SOLVER_MODULES

FORBIDDEN = {
    "dash",
    "flask",
    "flask_caching",
    "plotly",
    "gunicorn",
    "werkzeug",
    "matplotlib",
    "redis",
}
PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "solvers"


def test_no_forbidden_import_statement():
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"


def test_importing_solvers_loads_no_forbidden_module():
    """Every engine module a registered model draws on (the registry's list, not one kept
    here), imported alone in a fresh interpreter."""
    assert "solvers.single_neuron" in SOLVER_MODULES and len(SOLVER_MODULES) >= 6
    check = (
        f"import sys, solvers, {', '.join(SOLVER_MODULES)}\n"
        f"loaded = {{m.split('.')[0] for m in sys.modules}} & set({sorted(FORBIDDEN)!r})\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", check], check=True, cwd=PACKAGE.parent)
