"""Every decision the project cites exists in docs/decisions.md.

Decision numbers are stable anchors: code, tests, docs and benchmarks cite them ("decision
387", "decisions 443-449") as the reason for a reading or a default. docs/decisions.md keeps
the decisions in force, one entry each under a heading ``#### 387 · title``; a decision
folded into the one that replaced it is listed on that entry's ``Folds:`` line, so that its
number still leads somewhere. A number cited nowhere in the file is a dangling reference.

Run as a script to list the dangling references: ``python tests/test_decision_refs.py``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DECISIONS = ROOT / "docs" / "decisions.md"
SCOPE = ("lpsched", "tests", "benchmarks", "notebooks", "docs", "README.md")
SUFFIXES = {".py", ".pyi", ".c", ".md", ".ipynb"}
SKIP_PARTS = {"_build", "generated", ".ipynb_checkpoints", "__pycache__"}

ENTRY = re.compile(r"^#### (\d+)\b", re.MULTILINE)
FOLDS = re.compile(r"^Folds:\s*(.+)$", re.MULTILINE)
CITED = re.compile(r"\bdecisions?\s+((?:\d+(?:\s*[-–]\s*\d+)?(?:\s*,\s*|\s+and\s+|,\s+and\s+)?)+)",
                   re.IGNORECASE)


def numbers(text: str) -> set[int]:
    """The decision numbers of a list such as ``387-388, 405 and 419–427``."""
    found: set[int] = set()
    for lo, hi in re.findall(r"(\d+)(?:\s*[-–]\s*(\d+))?", text):
        first = int(lo)
        last = int(hi) if hi else first
        if last - first > 200:  # not a range of decisions ("1-1000 instances")
            last = first
        found.update(range(first, last + 1))
    return found


def anchors(text: str) -> set[int]:
    """The decision numbers docs/decisions.md answers for: its entries and their folds."""
    found = {int(n) for n in ENTRY.findall(text)}
    for line in FOLDS.findall(text):
        found |= numbers(line)
    return found


def dangling() -> list[str]:
    """``path:line: decision N`` for every cited number docs/decisions.md does not hold."""
    held = anchors(DECISIONS.read_text(encoding="utf-8"))
    missing = []
    for name in SCOPE:
        top = ROOT / name
        for path in [top] if top.is_file() else sorted(top.rglob("*")):
            if (not path.is_file() or path.suffix not in SUFFIXES
                    or SKIP_PARTS.intersection(path.relative_to(ROOT).parts)
                    or path == DECISIONS):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for number, line in enumerate(text.splitlines(), 1):
                for match in CITED.finditer(line):
                    for n in sorted(numbers(match.group(1)) - held):
                        missing.append(f"{path.relative_to(ROOT)}:{number}: decision {n}")
    return missing


def test_every_cited_decision_is_in_the_decisions_file() -> None:
    missing = dangling()
    assert not missing, f"{len(missing)} references lead nowhere:\n" + "\n".join(missing[:50])


def test_the_reference_reader_reads_lists_and_ranges() -> None:
    assert numbers("387-388, 405 and 419–421") == {387, 388, 405, 419, 420, 421}
    assert anchors("#### 12 · Title\nFolds: 3, 7-8\n#### 40 · x\n") == {12, 3, 7, 8, 40}


if __name__ == "__main__":
    lines = dangling()
    print("\n".join(lines))
    print(f"{len(lines)} dangling references", file=sys.stderr)
