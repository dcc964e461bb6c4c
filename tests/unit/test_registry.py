"""One registry: a model is one record (``MODEL`` in ``app/views/<model>/__init__.py``), and
everything that lists models derives from it. Adding a model touches its solver, its view
package, its tests and its documentation, nothing else: a throw-away model written into a copy
of the tree shows up in the app, the navigation, the start page, the footer, the paper-figures
page and the tests' tables."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

from app.factory import navigation
from app.ui.components import page_shell
from app.views import BY_KEY, MODELS, PAPERS, VIEWS
from tests.models import EXPECTED, MAP_CHECKS, SOLVER_MODULES

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_view_belongs_to_one_model_and_has_download_checks():
    assert [model.order for model in MODELS] == sorted(model.order for model in MODELS)
    owned = [view.key for model in MODELS for view in model.views]
    assert sorted(owned) == sorted(BY_KEY) and len(owned) == len(set(owned)) == len(VIEWS)
    trajectories = {view.key for view in VIEWS if not view.is_map}
    assert set(EXPECTED) == trajectories
    assert set(MAP_CHECKS) == set(BY_KEY) - trajectories
    for model in MODELS:
        assert (ROOT / "tests" / "integration" / model.name).is_dir(), model.name
        assert model.solver.__name__ in SOLVER_MODULES


def test_the_footer_names_each_paper_once_in_model_order():
    shell = page_shell("body", navigation=navigation(lambda path: path), current="/", embed=False)
    footer = repr(shell.children[-1])
    positions = [footer.index(paper.title) for paper in PAPERS]
    assert positions == sorted(positions)
    assert all(footer.count(paper.title) == 1 for paper in PAPERS)
    assert len(PAPERS) == 4 and "Get rich quick" in footer  # networks adds no paper of its own


SOLVER = '''
"""A toy model for the registry test: the loss of one exponential decay, e^{-2rt}."""

from dataclasses import dataclass

import numpy as np

__all__ = ["ToyTrajectory", "exact"]


@dataclass(frozen=True)
class ToyTrajectory:
    t: np.ndarray
    loss: np.ndarray


def exact(rate: float, t) -> ToyTrajectory:
    t = np.asarray(t, dtype=float)
    return ToyTrajectory(t, np.exp(-2.0 * rate * t))
'''

VIEW = """
from dataclasses import dataclass

import numpy as np

from solvers import toy

from ...core.downloads import columns_of
from ...core.model import Model
from ...core.panel import Panel
from ...core.presets import Paper, Preset
from ...core.state import number
from ...core.view import View
from ...ui.figures import exact_trace, figure


@dataclass(frozen=True)
class Controls:
    rate: float = number("decay rate r", 1.0, 0.1, 10.0)


def compute(controls):
    return toy.exact(controls.rate, np.linspace(0.0, 5.0, 50))


def draw(controls, path):
    return figure([exact_trace(path.t, path.loss)], y_title="loss")


PAPER = Paper("Toy et al.", "A toy registry paper", "one exponential decay")
TRAJECTORY = View(
    key="toy",
    path="/toy",
    title="A toy model",
    nav_title="Toy",
    summary="One exponential decay.",
    intro="The loss decays.",
    controls=Controls,
    compute=compute,
    result_type=toy.ToyTrajectory,
    panels=(Panel("loss", "Loss", "e^{-2rt}", draw),),
    facts=lambda controls, path: [("final loss", f"{path.loss[-1]:.3g}")],
    tables=lambda controls, path: {"exact": columns_of(path, ("t", "loss"))},
    presets=(Preset("fig-1-toy", "Fig. 1 — toy", "The decay.", {"rate": 2.0}, figure="Fig. 1"),),
)
MODEL = Model(order=6, paper=PAPER, views=(TRAJECTORY,), solver=toy)
"""

CHECKS = """
import numpy as np

from solvers import toy


def toy_expected(values, t):
    return {"loss": np.exp(-2.0 * values["rate"] * np.asarray(t))}


EXPECTED = {"toy": toy_expected}
MAP_CHECKS = {}
"""

PROBE = """
import json
from app.factory import create_app, navigation
from app.home import layout
from app.paper_figures import GROUPS
from app.ui.components import page_shell
from app.views import MODELS
from tests.models import EXPECTED, MAP_CHECKS, SOLVER_MODULES

link = lambda path: path
shell = navigation(link)
app = create_app()
dependencies = app.server.test_client().get("/_dash-dependencies").get_json()
print(json.dumps({
    "models": [model.name for model in MODELS],
    "nav": [item.href for item in shell.views],
    "footer": repr(page_shell("x", navigation=shell, current="/", embed=False).children[-1]),
    "start": repr(layout(link, "", False)),
    "figures": [paper.title for paper, _, _ in GROUPS],
    "expected": sorted(EXPECTED),
    "solvers": list(SOLVER_MODULES),
    "outputs": [d["output"] for d in dependencies],
}))
"""


def _copy_tree(target: pathlib.Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "artifacts")
    for folder in ("app", "solvers", "tests", "assets"):
        shutil.copytree(ROOT / folder, target / folder, ignore=ignore)


def _add_toy_model(target: pathlib.Path) -> list[pathlib.Path]:
    """The files a new model brings — its solver, its view package, its tests — and no
    others."""
    files = {
        "solvers/toy.py": SOLVER,
        "app/views/toy/__init__.py": VIEW,
        "tests/integration/toy/__init__.py": "",
        "tests/integration/toy/downloads.py": CHECKS,
    }
    for name, text in files.items():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_text(textwrap.dedent(text).lstrip())
    return [target / name for name in files]


def test_a_new_model_needs_only_its_own_files(tmp_path):
    _copy_tree(tmp_path)
    added = _add_toy_model(tmp_path)
    assert all(path.exists() for path in added)
    environment = {
        **os.environ,
        "PYTHONPATH": str(tmp_path),
        "CACHE_TYPE": "SimpleCache",
        "OPENBLAS_NUM_THREADS": "1",
        # the app compiles the network engine's loop at start-up: not what this test is about
        "NUMBA_DISABLE_JIT": "1",
    }
    run = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout.splitlines()[-1])
    assert seen["models"][-1] == "toy" and seen["models"][:-1] == [m.name for m in MODELS]
    assert seen["nav"][-1] == "/toy"
    assert "A toy registry paper" in seen["footer"] and "Toy et al." in seen["footer"]
    assert "'/toy'" in seen["start"]
    assert "A toy registry paper" in seen["figures"]
    assert "toy" in seen["expected"] and "solvers.toy" in seen["solvers"]
    assert any(output.startswith("..toy-graph-loss.figure") for output in seen["outputs"])


def test_no_test_picks_a_view_by_its_place():
    """Tests name the view they mean (``BY_KEY["single-neuron"]``): a new model's place in the
    navigation must not change what another test checks."""
    pattern = re.compile(r"\b(?:VIEWS|MAPS|MODELS)\[\d")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in (ROOT / "tests").rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, found
