"""Write the benchmarks' figures into docs/performance.md (and the README's few).

    python benchmarks/performance_doc.py [--only solvers_speed ...] [--matching TEXT] [--list]

docs/performance.md holds prose, and between each pair of markers

    <!-- benchmark: python benchmarks/solvers_speed.py --repeats 30 -->
    …
    <!-- end benchmark -->

what that command printed with ``--markdown`` (benchmarks/_markdown.py). This script runs the
commands (``--only`` names some of them by script) and replaces what is between their markers;
nothing else in the file changes. A test (tests/unit/test_docs.py) checks that every table of
the file sits between such markers. The machine is shared: run it when it is quiet, and read
the load average each section starts with.
"""

from __future__ import annotations

import argparse
import functools
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = ROOT / "docs" / "performance.md"
#: every file with generated sections; the README's repeat some of DOCUMENT's
DOCUMENTS = (DOCUMENT, ROOT / "README.md")
BLOCK = re.compile(
    r"(<!-- benchmark: (python (benchmarks/(\w+)\.py)[^>]*?) -->\n)(.*?)(<!-- end benchmark -->)",
    re.S,
)


def blocks(text: str) -> list[tuple[str, str]]:
    """(command, script name) of every generated section, in order."""
    return [(match.group(2), match.group(4)) for match in BLOCK.finditer(text)]


def run(command: str) -> str:
    arguments = [*command.split()[1:], "--markdown"]
    print(f"running {command} --markdown", file=sys.stderr, flush=True)
    done = subprocess.run(
        [sys.executable, *arguments], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.strip() + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="script names (solvers_speed, …) to run")
    parser.add_argument(
        "--matching", help="only the sections whose command contains this text (e.g. --load)"
    )
    parser.add_argument("--list", action="store_true", help="list the sections' commands")
    options = parser.parse_args()
    # every section's command, once: the README's repeat DOCUMENT's or print a shorter form
    sections = []
    for document in DOCUMENTS:
        sections += [b for b in blocks(document.read_text(encoding="utf-8")) if b not in sections]
    if options.list:
        print("\n".join(command for command, _ in sections))
        return

    failed = []
    done = set()
    for command, script in sections:
        if command in done or (options.only and script not in options.only):
            continue
        if options.matching and options.matching not in command:
            continue
        done.add(command)
        try:
            printed = run(command)
        except subprocess.CalledProcessError as error:  # the section keeps what it had
            failed.append(command)
            print(error.stderr[-2000:], file=sys.stderr)
            continue
        # written after each section: a long run keeps what it has measured so far
        for document in DOCUMENTS:
            text_now = document.read_text(encoding="utf-8")
            filled = BLOCK.sub(
                functools.partial(_filled, command=command, printed=printed), text_now
            )
            document.write_text(filled, encoding="utf-8")
    if failed:
        sys.exit(f"failed, sections left as they were: {failed}")


def _filled(match: re.Match, command: str, printed: str) -> str:
    if match.group(2) != command:
        return match.group(0)
    return match.group(1) + printed + match.group(6)


if __name__ == "__main__":
    main()
