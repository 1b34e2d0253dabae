"""Public docstrings open with what a thing does; figures and decision numbers come after.

A reader of the API reference meets, in order: one sentence saying what the function,
class or module does (at most :data:`SUMMARY_CHARS` characters), an optional short
description, then the numpydoc sections (``Parameters``, ``Returns``, ...). Benchmark
figures (medians, timings, speed-ups) and decision numbers belong in ``Notes`` or after
the sections, never before the parameters (a module's docstring: never in its first
paragraph).

Run as a script to list the docstrings that break the rule, optionally for some paths:
``python tests/test_docstring_openings.py lpsched/bags``.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "lpsched"
SUMMARY_CHARS = 300
SECTION = re.compile(r"^(Parameters|Other Parameters|Returns|Yields|Attributes|Raises|Warns|"
                     r"Examples|Notes|See Also|References|Methods)\n-{3,}", re.MULTILINE)
DECISION = re.compile(r"\bdecisions?\s+\d", re.IGNORECASE)
#: where the API reference's one-line summary ends: a period and a space, as autosummary
#: cuts it (docs/conf.py adds the abbreviations "ch.", "Fig.", "eq." ... that do not end it)
SENTENCE_END = re.compile(r"(?<!\bch)(?<!\bCh)(?<!\bFig)(?<!\bFigs)(?<!\beq)(?<!\bEq)(?<!\bcf)"
                          r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bNo)\.\s")
FIGURES = re.compile(r"\bmedians?\b|\b\d+(\.\d+)? ?(ms|s)\b ?(->|→|to \d)|"
                     r"\d(\.\d+)?x (faster|slower)|\bbenchmark", re.IGNORECASE)


def public_docstrings(path: Path) -> list[tuple[str, int, str, bool]]:
    """(name, line, docstring, is_module) of the module and its public functions/classes."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    doc = ast.get_docstring(tree)
    if doc:
        found.append(("module", 1, doc, True))
    for node in ast.walk(tree):
        if (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and not node.name.startswith("_")):
            doc = ast.get_docstring(node)
            if doc:
                found.append((node.name, node.lineno, doc, False))
    return found


def problems(paths: tuple[str, ...] = ("lpsched",)) -> list[str]:
    """``path:line name: what`` for every public docstring breaking the rule."""
    found = []
    for top in paths:
        base = ROOT / top
        for path in [base] if base.is_file() else sorted(base.rglob("*.py")):
            for name, line, doc, is_module in public_docstrings(path):
                summary = " ".join(doc.split("\n\n")[0].split())
                section = SECTION.search(doc)
                head = doc.split("\n\n")[0] if is_module else (
                    doc[:section.start()] if section else doc)
                what = []
                cut = SENTENCE_END.split(summary + " ", maxsplit=1)[0]
                if cut.count("``") % 2:
                    what.append("its one-line summary cuts a ``literal`` in two")
                if len(summary) > SUMMARY_CHARS:
                    what.append(f"opening paragraph of {len(summary)} characters")
                if DECISION.search(head):
                    what.append("a decision number before the sections")
                if FIGURES.search(head):
                    what.append("benchmark figures before the sections")
                if what:
                    found.append(f"{path.relative_to(ROOT)}:{line} {name}: {'; '.join(what)}")
    return found


def test_public_docstrings_open_with_what_the_thing_does() -> None:
    found = problems()
    assert not found, f"{len(found)} docstrings:\n" + "\n".join(found[:60])


def test_the_rule_finds_a_figure_and_a_decision_before_the_parameters() -> None:
    sample = ('def f(x):\n    """Solve it.\n\n    Median 12.7 s -> 3.8 s (decision 402).\n\n'
              '    Parameters\n    ----------\n    x : int\n        The input.\n    """\n')
    tree = ast.parse(sample)
    doc = ast.get_docstring(tree.body[0])  # type: ignore[arg-type]
    assert doc is not None
    head = doc[:SECTION.search(doc).start()]  # type: ignore[union-attr]
    assert DECISION.search(head) and FIGURES.search(head)


if __name__ == "__main__":
    lines = problems(tuple(sys.argv[1:]) or ("lpsched",))
    print("\n".join(lines))
    print(f"{len(lines)} docstrings", file=sys.stderr)
