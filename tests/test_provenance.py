"""The project speaks of itself: no account of when, in which work period, by which review
or under which issue number something was done, in the package, the tests, the docs, the
benchmarks, the notebooks or the README. A thing is described by what it is and why (the
seed line, the measured reason); decision numbers stay as stable anchors into
docs/decisions.md.

Run as a script to list the offending lines of some paths:
``python tests/test_provenance.py lpsched/bags tests/bags``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: where the project describes itself (generated and cached files excluded)
SCOPE = ("lpsched", "tests", "docs", "benchmarks", "notebooks", "scripts", "README.md",
         "Makefile", "pyproject.toml", "setup.py", ".ci")
SUFFIXES = {".py", ".pyi", ".c", ".md", ".rst", ".ipynb", ".toml", ".txt", ".cfg", ""}
SKIP_PARTS = {"_build", "generated", ".ipynb_checkpoints", "__pycache__", "data"}

#: accounts of the work, case-insensitive. "session" alone is a domain word (a campaign
#: user's session in seed 002, a pytest session): only a numbered or ordinal one counts.
PATTERNS = {
    "an issue number": r"\bissues?\s*#?\s*\d+|\bissue\s+#|(?<![\w&/])#\d{1,3}\b(?!\w)",
    "a work period": (r"\bsessions?\s+\d+\b|\b(first|second|third|fourth|fifth|sixth|"
                      r"this|last|next|previous|earlier|later|same|current|another)\s+"
                      r"(work\s+)?sessions?\b|\bwork\s+periods?\b"),
    "a review": r"\breview(s|ed|er|ers|ing)?\b",
    "an assistant": r"\bhelper('s|s'|\s+session)|\bassistants?\b|\bsubagents?\b",
    "a wave": r"\bwaves?\b",
    "a date of work": r"\b(on|since|until|before|after|of)\s+20\d\d-\d\d-\d\d\b",
}
PROVENANCE = re.compile("|".join(f"(?:{p})" for p in PATTERNS.values()), re.IGNORECASE)


def files(paths: tuple[str, ...] = SCOPE) -> Iterator[Path]:
    """Every text file of ``paths`` (relative to the repository root) that is checked."""
    for name in paths:
        top = ROOT / name
        candidates = [top] if top.is_file() else sorted(top.rglob("*"))
        for path in candidates:
            if (path.is_file() and path.suffix in SUFFIXES and path != Path(__file__)
                    and not SKIP_PARTS.intersection(path.relative_to(ROOT).parts)):
                yield path


def offences(paths: tuple[str, ...] = SCOPE) -> list[str]:
    """``path:line: text`` of every line with an account of the work (its file name too)."""
    found = []
    for path in files(paths):
        rel = path.relative_to(ROOT).as_posix()
        if PROVENANCE.search(path.name.replace("_", " ")) or re.search(
                r"test_(issue|review)?_?\d", path.name):
            found.append(f"{rel}: the file's name")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if PROVENANCE.search(line):
                found.append(f"{rel}:{number}: {line.strip()[:140]}")
    return found


def test_no_account_of_the_work() -> None:
    found = offences()
    assert not found, f"{len(found)} lines tell how the work was done:\n" + "\n".join(
        found[:60])


if __name__ == "__main__":
    lines = offences(tuple(sys.argv[1:]) or SCOPE)
    print("\n".join(lines))
    print(f"{len(lines)} lines", file=sys.stderr)
