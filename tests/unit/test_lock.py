"""The deployment lock (``requirements.txt``, what the Procfile platform installs) agrees with
``pyproject.toml``: every dependency is pinned to a version its range allows, nothing is pinned
that no dependency needs, and the file says how it was made."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PROJECT = "lazy-rich-explorer (pyproject.toml)"


def _project() -> list[Requirement]:
    """The dependencies, and those of the extras the lock's command names (--extra=fast)."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = re.findall(r"--extra=(\w+)", (ROOT / "requirements.txt").read_text())
    optional = data["project"].get("optional-dependencies", {})
    texts = data["project"]["dependencies"] + [t for e in extras for t in optional[e]]
    return [Requirement(text) for text in texts]


def _lock() -> tuple[str, dict[str, str], dict[str, set[str]]]:
    """(header comment, pins name → version, name → what needs it)."""
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    header = []
    for line in lines:
        if not line.startswith("#"):
            break
        header.append(line)
    pins: dict[str, str] = {}
    needed_by: dict[str, set[str]] = {}
    current = None
    for line in lines[len(header) :]:
        pin = re.fullmatch(r"([A-Za-z0-9._-]+)==([^\s;]+)", line)
        comment = line.strip().lstrip("#").strip().removeprefix("via").strip()
        if not line.strip():
            current = None
        elif pin:
            current = canonicalize_name(pin[1])
            pins[current], needed_by[current] = pin[2], set()
        elif current and line.strip().startswith("#") and comment:
            needed_by[current].add(comment if comment == PROJECT else canonicalize_name(comment))
    return "\n".join(header), pins, needed_by


def test_the_lock_names_the_command_that_made_it():
    header, _, _ = _lock()
    assert "pip-compile" in header and "pyproject.toml" in header
    assert "--output-file=requirements.txt" in header


def test_every_dependency_is_pinned_within_its_range():
    _, pins, _ = _lock()
    for requirement in _project():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is missing from requirements.txt: run the lock command"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"requirements.txt pins {name}=={pins[name]}, outside {requirement.specifier}"
        )


def test_nothing_is_pinned_that_no_dependency_needs():
    _, pins, needed_by = _lock()
    direct = {canonicalize_name(r.name) for r in _project()}
    assert {name for name, via in needed_by.items() if PROJECT in via} == direct
    for name, via in needed_by.items():
        assert via, f"{name} has no '# via' line"
        assert via <= set(pins) | {PROJECT}, f"{name} is needed by unpinned {via - set(pins)}"
