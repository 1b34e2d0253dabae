"""The family's references after the merge into the shared docs: every file path it cites
exists and every "decision N" it cites is one of its own (items 88-110 of docs/decisions.md,
section "Campaign scheduling", and 139-146, its continuation), with the topic the citing
line names."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAMILY = [*sorted((ROOT / "lpsched" / "campaigns").glob("*.py")),
          ROOT / "lpsched" / "cli" / "campaigns.py",
          *sorted((ROOT / "tests" / "campaigns").glob("*.py")),
          ROOT / "tests" / "cli" / "test_campaigns_cli.py",
          ROOT / "tests" / "cli" / "test_campaigns_cli_30.py",
          ROOT / "benchmarks" / "bench_campaigns.py"]
FIRST, LAST = 88, 110
#: the continuation (SESSION, resize modes, B26)
MORE_FIRST, MORE_LAST = 139, 146
#: issue 30 (the seed's published figures; docs/decisions.md)
FIG_FIRST, FIG_LAST = 300, 314
#: rules every reproduction shares (reduced runs, the progress line; issue 33)
SHARED_FIRST, SHARED_LAST = 430, 431
#: a keyword of each decision cited next to a topic in the code (checked below)
TOPICS = {"deadlock": 105, "stream order": 93, "non-reactive": 93, "56,918": 99,
          "4 million edges": 110, "A13": 90}


def _section() -> str:
    text = (ROOT / "docs" / "decisions.md").read_text()
    start = text.index("## Campaign scheduling (issue 11, seed 002)")
    return text[start:text.index("\n## ", start + 10)]


def _citations() -> list[tuple[Path, str, int]]:
    found = []
    for path in FAMILY:
        text = path.read_text()
        for m in re.finditer(r"[Dd]ecisions? (\d+)", text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.end())
            context = text[max(0, line_start - 200):line_end]
            found.append((path, context, int(m.group(1))))
    return found


def test_cited_files_exist() -> None:
    for path in FAMILY:
        for ref in re.findall(r"(?:docs|benchmarks)/[\w./-]+\.md", path.read_text()):
            assert (ROOT / ref).exists(), f"{path.name} cites missing {ref}"
    section = _section()
    for ref in re.findall(r"(?:docs|benchmarks)/[\w./-]+\.md", section):
        assert (ROOT / ref).exists(), f"decisions.md (issue 11) cites missing {ref}"


def test_cited_decisions_are_the_family_s() -> None:
    section = _section()
    assert f"\n{FIRST}. " in section and f"\n{LAST}. " in section
    citations = _citations()
    assert citations
    for path, context, number in citations:
        assert (FIRST <= number <= LAST or MORE_FIRST <= number <= MORE_LAST
                or FIG_FIRST <= number <= FIG_LAST
                or SHARED_FIRST <= number <= SHARED_LAST), (
            f"{path.name}: decision {number} ({context!r})")
    text = (ROOT / "docs" / "decisions.md").read_text()
    more = text[text.index("## Campaign scheduling, continued (issue 11"):]
    assert f"\n{MORE_FIRST}. " in more and f"\n{MORE_LAST}. " in more


def test_cited_decisions_match_their_topic() -> None:
    for path, context, number in _citations():
        line = context.rsplit("\n", 1)[-1]
        for keyword, expected in TOPICS.items():
            if keyword in line and f"ecision {number}" in line:
                assert number == expected, f"{path.name}: {line.strip()!r} cites {number}"
