"""The ptg family's references: every file path it cites exists, every "decision N" it
cites is one of the family's (an entry or a fold of the table that closes
docs/families/ptg.md) or one it names on purpose; and that table is the family's section
of docs/decisions.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "families" / "ptg.md"
FAMILY = [*sorted((ROOT / "lpsched" / "ptg").glob("*.py")),
          ROOT / "lpsched" / "cli" / "ptg.py",
          *sorted((ROOT / "tests" / "ptg").glob("*.py")),
          *sorted((ROOT / "tests" / "cli").glob("test_ptg*.py")),
          *sorted((ROOT / "benchmarks").glob("bench_ptg*.py")),
          PAGE]
#: decisions of other families the ptg files cite on purpose: ``--cluster``, a name, a
#: processor count or a platform file (373, the platforms' entry); every family's figures
#: laid out once (692, the core's entry)
SHARED = {373, 692}
ROW = re.compile(r"^\| \[(\d+)\]\(\.\./decisions\.md#d\1\) \| [^|]+ \|([^|]*)\|$", re.M)


def _table() -> tuple[set[int], set[int]]:
    """The entries and the folds of the page's closing table."""
    rows = ROW.findall(PAGE.read_text(encoding="utf-8"))
    entries = {int(n) for n, _ in rows}
    folds = {int(f) for _, cell in rows for f in re.findall(r"\d+", cell)}
    return entries, folds


def _numbers(text: str) -> set[int]:
    """The decision numbers of ``decision 336``, ``decisions 349-354``, ``340, 341 and 413``."""
    found: set[int] = set()
    for lo, hi in re.findall(r"(\d+)(?:\s*[-–]\s*(\d+))?", text):
        found.update(range(int(lo), int(hi or lo) + 1))
    return found


def _citations() -> list[tuple[Path, str, int]]:
    cited = re.compile(r"[Dd]ecisions? ((?:\d+(?:\s*[-–]\s*\d+)?(?:,\s*|\s+and\s+)?)+)")
    found = []
    for path in FAMILY:
        text = path.read_text(encoding="utf-8")
        for m in cited.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.end())
            context = text[max(0, line_start - 200):line_end]
            found += [(path, context, n) for n in sorted(_numbers(m.group(1)))]
    return found


def test_cited_files_exist() -> None:
    for path in FAMILY:
        for ref in re.findall(r"(?:docs|benchmarks)/[\w./-]+\.(?:md|py)", path.read_text()):
            assert (ROOT / ref).exists(), f"{path.name} cites missing {ref}"


def test_the_page_closes_with_the_family_s_decisions() -> None:
    entries, folds = _table()
    assert {113, 133, 170, 336, 371, 484} <= entries and {111, 112, 243, 348} <= folds
    assert not entries & folds
    text = PAGE.read_text(encoding="utf-8")
    for n in re.findall(r"\.\./decisions\.md#d(\d+)", text):
        assert int(n) in entries | SHARED, f"the page links decision {n}, not in its table"


def test_cited_decisions_are_the_family_s() -> None:
    entries, folds = _table()
    citations = _citations()
    assert len(citations) > 60
    for path, context, number in citations:
        assert number in entries | folds | SHARED, (
            f"{path.name}: decision {number} ({context[-160:]!r})")


def test_the_decisions_file_holds_the_table() -> None:
    """docs/decisions.md's section of the family (headed ``(`lpsched/ptg`)``) has
    one ``#### N ·`` entry per row of the table and the same folds."""
    text = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    head = re.search(r"^## .*\(`lpsched/ptg`\)$", text, re.M)
    if head is None:
        pytest.skip("docs/decisions.md has no section headed (`lpsched/ptg`)")
    end = text.find("\n## ", head.end())
    section = text[head.end():end if end > 0 else len(text)]
    entries, folds = _table()
    assert {int(n) for n in re.findall(r"^#### (\d+) · ", section, re.M)} == entries
    assert _numbers(" ".join(re.findall(r"^Folds:\s*(.+)$", section, re.M))) == folds
    for n in entries:
        assert f"(d{n})=\n#### {n} · " in section, f"decision {n} has no anchor"
