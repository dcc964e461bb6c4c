"""The documentation holds together: every relative link and anchor of README.md,
CONTRIBUTING.md and docs/*.md leads somewhere, the README stays short, and docs/engine.md names
every public function of the engine."""

from __future__ import annotations

import importlib
import pathlib
import re
import unicodedata

import pytest

from tests.models import SOLVER_MODULES

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
#: documents the README links that are being written on other branches; a link to one of them
#: may lead nowhere until it lands (then its anchors are checked like any other's)
PENDING: set[str] = set()
#: a benchmark whose --markdown is being written on another branch: its section holds what it
#: printed before, until it lands
PENDING_MARKDOWN: set[str] = set()

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped (letters, marks, digits,
    spaces, hyphens and underscores kept), spaces turned into hyphens."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LMN")
    return kept.replace(" ", "-")


def anchors(path: pathlib.Path) -> set[str]:
    """Every anchor a Markdown file offers: its headings' slugs (repeats numbered as GitHub
    numbers them) and explicit ``<a id="…">`` / ``name``."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    found.update(re.findall(r"<a (?:id|name)=\"([^\"]+)\"", text))
    return found


def links(path: pathlib.Path) -> list[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return [a or b for a, b in LINK.findall(text)]


def relative(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target)


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_leads_somewhere(document):
    broken = []
    for target in filter(relative, links(document)):
        file_part, _, anchor = target.partition("#")
        destination = (document.parent / file_part).resolve() if file_part else document
        name = destination.relative_to(ROOT).as_posix() if destination.is_relative_to(ROOT) else ""
        if not destination.exists():
            if name not in PENDING:
                broken.append(f"{target}: no file {name or destination}")
            continue
        if anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target}: no heading #{anchor} in {name}")
    assert not broken, f"{document.name}: " + "; ".join(broken)


def test_the_slugs_are_githubs():
    """Anchors these documents linked before the split (code spans, dashes, apostrophes)."""
    heading = "Networks — `/networks` and `/networks/map`"
    assert slug(heading) == "networks--networks-and-networksmap"
    assert slug("3 λ-balanced two-layer linear network") == "3-λ-balanced-two-layer-linear-network"
    assert slug("The network views' budgets") == "the-network-views-budgets"


def test_a_broken_link_is_found(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Top\n\n[ok](#top) [gone](#nowhere)\n```\n[in code](#ignored)\n```\n")
    assert anchors(page) == {"top"}
    assert links(page) == ["#top", "#nowhere"]


def test_the_readme_is_short_and_keeps_its_two_commands():
    readme = (ROOT / "README.md").read_bytes()
    assert len(readme) <= 8000, f"README.md is {len(readme)} bytes: move the detail to docs/"
    text = readme.decode()
    assert ".venv/bin/pip install -e . && .venv/bin/python -m app" in text
    assert "\nbash tests/run.sh " in text
    assert "tests/run.sh" in (ROOT / ".ci" / "run").read_text()


@pytest.mark.parametrize("module", SOLVER_MODULES)
def test_the_engine_reference_names_every_public_name(module):
    reference = (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")
    public = importlib.import_module(module).__all__
    missing = [name for name in public if f"`{name}`" not in reference]
    assert not missing, f"docs/engine.md does not name {module}'s {missing}"


def test_performance_figures_come_from_the_benchmarks():
    """docs/performance.md: every table and every fenced output lies in a section that a
    benchmark printed (between its markers, which name the command), and every such command
    is a script of benchmarks/ with a --markdown option (benchmarks/_markdown.py)."""
    text = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    block = re.compile(
        r"<!-- benchmark: python (benchmarks/\w+\.py)[^>]*-->\n.*?<!-- end benchmark -->", re.S
    )
    scripts = block.findall(text)
    assert len(scripts) >= 8
    for script in scripts:
        written = re.search(r"_markdown(\(\))?\.start\(", (ROOT / script).read_text())
        assert written or script in PENDING_MARKDOWN, f"{script} has no --markdown"
    outside = block.sub("", text)
    outside = re.sub(r"^```bash\n.*?^```\n", "", outside, flags=re.S | re.M)  # commands to run
    hand = [line for line in outside.splitlines() if line.startswith("|") or line.startswith("```")]
    assert not hand, f"figures outside a benchmark's section: {hand[:3]}"
