"""The report pages (lpsched.report): one page per seed, the tally first, every manifest
entry in the seed's order with its rows, every figure linked and present, the evidence of
every difference, and entries whose experiment was not given said so."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from lpsched.core.fidelity import Bound, FidelityTable, Gap, Size, compare, not_measured
from lpsched.core.store import ResultStore
from lpsched.report import build_report
from lpsched.report import parts as report_parts
from lpsched.report.manifest import SEEDS, manifest
from lpsched.report.parts import FigureFile, ReportPart


def fake_part(store: Any, experiment: str, folder: Path) -> ReportPart:
    """A report hook: one row per seed 003 entry of ``experiment`` (every verdict kind
    appears), a figure for each figure entry, built from the store's rows."""
    rows = store.rows(experiment) if store is not None else []
    value = float(rows[0]["value"]) if rows else None
    entries = [e for e in manifest("003") if e.experiment == experiment]
    table_rows = []
    figures = []
    folder.mkdir(parents=True, exist_ok=True)
    for i, e in enumerate(entries):
        if value is None:
            table_rows.append(not_measured(e.claim[:40], e.seed_lines.split(",")[0], 1.0,
                                           "no rows", ref=e.id, source=e.source))
        elif i % 3 == 0:
            table_rows.append(compare(f"row {e.id}", e.seed_lines.split(",")[0], 1.0, value,
                                      tolerance=0.5, ref=e.id, source=e.source))
        elif i % 3 == 1:
            table_rows.append(compare(f"row {e.id}", e.seed_lines.split(",")[0],
                                      Bound("<", 1.0), 5.0, ref=e.id, source=e.source,
                                      gap=Gap(316, measured=True,
                                              evidence="the seed's DD asks when idle")))
        else:
            table_rows.append(compare(f"row {e.id}", e.seed_lines.split(",")[0], 1.0, value,
                                      tolerance=0.5, ref=e.id, source=e.source,
                                      role="calibration"))
        if e.kind == "figure":
            path = folder / f"{e.id}.png"
            path.write_bytes(b"\x89PNG\r\n\x1a\n")  # a file the page links
            figures.append(FigureFile(e.id, path, f"{e.source}: ours beside the seed's"))
    table_rows.append(compare("a row of no manifest entry", "003 L1", 1.0, 1.0))
    return ReportPart(experiment, FidelityTable(experiment, table_rows, Size(2, 1000)),
                      tuple(figures), notes=("Figure 7 is not drawn: no printed points",))


@pytest.fixture
def fake_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in report_parts.HOOKS:
        monkeypatch.setitem(report_parts.HOOKS, name, "tests.report.test_report:fake_part")


def _store(tmp_path: Path) -> Path:
    store = ResultStore(tmp_path / "cbs3m.sqlite")
    store.add("cbs3m", (0, "x"), [{"value": 1.2}])
    store.close()
    return tmp_path / "cbs3m.sqlite"


def test_every_seed_gets_a_page_and_every_row_appears(tmp_path: Path,
                                                      fake_hooks: None) -> None:
    report = build_report([_store(tmp_path)], tmp_path / "out")
    names = {p.name for p in report.pages}
    assert {f"seed{s}.html" for s in SEEDS} <= names and "index.html" in names
    page = (tmp_path / "out" / "seed003.html").read_text()
    text = html.unescape(page)
    for e in manifest("003"):
        assert f'id="{e.id}"' in page, e.id
        if e.experiment == "cbs3m":
            assert f"row {e.id}" in text, e.id
    assert "a row of no manifest entry" in text  # rows outside the manifest come last
    assert "cbs3m: Figure 7 is not drawn: no printed points" in text  # the parts' notes
    assert "cbs3m: Figure 7 is not drawn" in (tmp_path / "out" / "seed003.md").read_text()
    assert "decision 316: the seed's DD asks when idle" in text
    for src in re.findall(r'<img src="([^"]+)"', page):
        assert (tmp_path / "out" / src).is_file(), src
    assert len(re.findall(r"<img ", page)) == sum(
        e.kind == "figure" and e.experiment == "cbs3m" for e in manifest("003"))


def test_the_tally_counts_validation_rows_at_the_size_run(tmp_path: Path,
                                                          fake_hooks: None) -> None:
    report = build_report([_store(tmp_path)], tmp_path / "out")
    table = fake_part(ResultStore(tmp_path / "cbs3m.sqlite"), "cbs3m", tmp_path / "f").table
    assert report.tallies["003"]["rows"] == table.counts()["rows"]
    assert report.tallies["003"]["calibration"] == table.counts()["calibration"] > 0
    md = (tmp_path / "out" / "seed003.md").read_text()
    assert "| cbs3m | 2 of 1,000 instances |" in md


def test_an_experiment_not_given_is_said_not_measured(tmp_path: Path,
                                                      fake_hooks: None) -> None:
    build_report([_store(tmp_path)], tmp_path / "out")
    page = html.unescape((tmp_path / "out" / "seed002.html").read_text())
    assert "not measured: no `faircamp` store was given to the report" in page
    assert "not measured: no `ostrich` store was given to the report" in page


def test_a_missing_store_or_two_stores_of_one_experiment_are_refused(
        tmp_path: Path, fake_hooks: None) -> None:
    from lpsched.errors import LpschedError

    with pytest.raises(LpschedError, match="no such result store"):
        build_report([tmp_path / "none.sqlite"], tmp_path / "out")
    first = _store(tmp_path)
    (tmp_path / "b").mkdir()
    second = _store(tmp_path / "b")
    with pytest.raises(LpschedError, match="second store"):
        build_report([first, second], tmp_path / "out")


def test_a_companion_store_is_left_to_the_hook_that_reads_it(tmp_path: Path,
                                                             fake_hooks: None) -> None:
    """``redirection-tuning`` (``reproduce redirection --tune``) is read by the redirection
    hook from its store's folder: given to the report, it is named, not refused."""
    store = ResultStore(tmp_path / "redirection-tuning.sqlite")
    store.add("redirection-tuning", (0, "x"), [{"value": 1.0}])
    store.close()
    build_report([_store(tmp_path), tmp_path / "redirection-tuning.sqlite"], tmp_path / "out")
    page = html.unescape((tmp_path / "out" / "seed000.html").read_text())
    assert "redirection-tuning" in page and "read by the redirection hook" in page
    # each page names only its own seed's stores; the index names every store
    assert "redirection-tuning" not in (tmp_path / "out" / "seed003.html").read_text()
    assert "redirection-tuning" in (tmp_path / "out" / "index.md").read_text()


def test_the_index_says_which_seeds_had_no_store(tmp_path: Path, fake_hooks: None) -> None:
    build_report([_store(tmp_path)], tmp_path / "out")
    index = (tmp_path / "out" / "index.md").read_text()
    assert "| [001](seed001.md) | no store given |" in index
    assert "| [003](seed003.md) | no store given |" not in index
