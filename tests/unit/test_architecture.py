"""The layout the code promises: no import cycle, the dashboard keeps no model maths and short
functions, the engine cites its theory document."""

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: the longest function the dashboard may have (lines, docstring included)
LONGEST = 60
#: what only the engine may do
LINEAR_ALGEBRA = ("np.linalg", "scipy", "numpy.linalg")


def _modules(*packages: str) -> dict[str, pathlib.Path]:
    found = {}
    for package in packages:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _runtime_imports(path: pathlib.Path, name: str, modules: dict) -> set[str]:
    """Modules of ``modules`` that ``path`` imports when it runs (not for type checkers)."""
    tree = ast.parse(path.read_text())
    for node in list(ast.walk(tree)):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            parts = package.split(".")[: len(package.split(".")) - max(node.level - 1, 0)]
            relative = ".".join([*parts, node.module] if node.module else parts)
            base = relative if node.level else (node.module or "")
            subs = {f"{base}.{a.name}" for a in node.names} & modules.keys()
            found |= subs or ({base} & modules.keys())
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names} & modules.keys()
    return found - {name}


def test_no_import_cycle():
    modules = _modules("app", "solvers")
    graph = {name: _runtime_imports(path, name, modules) for name, path in modules.items()}
    state: dict[str, str] = {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = "open"
        for other in graph[name]:
            assert state.get(other) != "open", " → ".join([*trail, other])
            if other not in state:
                visit(other, [*trail, other])
        state[name] = "done"

    for name in graph:
        if name not in state:
            visit(name, [name])


def test_dashboard_functions_are_short_and_do_no_linear_algebra():
    for path in (ROOT / "app").rglob("*.py"):
        text = path.read_text()
        assert not any(word in text for word in LINEAR_ALGEBRA), path
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                assert length <= LONGEST, f"{path.relative_to(ROOT)}: {node.name} ({length} lines)"


#: "docs/theory.md (1.8)–(1.10)" or "theory.md (3.19)": a citation of numbered equations
CITATION = re.compile(r"theory\.md,? \((\d+\.\d+)\)(?:–\((\d+\.\d+)\))?")


def test_citations_point_at_the_theory_document():
    """Every equation the code cites in docs/theory.md is one the document defines (a
    paragraph that opens with its bold label, "**(1.3) Conserved quantity.**")."""
    theory = (ROOT / "docs" / "theory.md").read_text()
    defined = set(re.findall(r"^\*\*\((\d+\.\d+)\)", theory, re.M))
    assert len(defined) > 50
    cited: dict[str, set[str]] = {}
    for path in [*(ROOT / "solvers").rglob("*.py"), *(ROOT / "app").rglob("*.py")]:
        text = path.read_text()
        assert "SPEC §" not in text, path
        for first, last in CITATION.findall(text.replace("\n", " ")):
            for label in filter(None, (first, last)):
                cited.setdefault(label, set()).add(path.name)
    assert len(cited) > 30
    missing = {label: sorted(files) for label, files in cited.items() if label not in defined}
    assert not missing, f"cited but not defined in docs/theory.md: {missing}"
