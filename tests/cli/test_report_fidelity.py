"""``report_fidelity``: the end of every ``reproduce`` run writes ``<experiment>_vs_seed.csv``
(the table's CSV, replaced when present) and prints the table and its one-line summary, on
stdout, or on stderr under ``--json``."""

from __future__ import annotations

import io

import pytest

from lpsched.cli.common import report_fidelity
from lpsched.core.fidelity import FidelityTable, compare, not_measured


def _table() -> FidelityTable:
    return FidelityTable("demo", [compare("a", "L1", 1.0, 1.0),
                                  compare("b", "L2", 1.0, 9.0),
                                  not_measured("c", "L3", 2.0, "reduced run")])


def test_writes_the_csv_and_prints_the_table_and_its_summary(tmp_path) -> None:
    table = _table()
    out = io.StringIO()
    path = report_fidelity(table, tmp_path, stream=out)
    assert path == tmp_path / "demo_vs_seed.csv"
    assert path.read_text() == table.csv_text()
    text = out.getvalue()
    assert f"{table.summary()} (written to {path})" in text
    assert table.format() in text
    # a second run replaces the file
    smaller = FidelityTable("demo", table.rows[:1])
    assert report_fidelity(smaller, tmp_path, stream=io.StringIO()) == path
    assert path.read_text() == smaller.csv_text() != table.csv_text()


def test_json_mode_keeps_stdout_for_the_json(tmp_path, capsys: pytest.CaptureFixture[str],
                                             ) -> None:
    table = _table()
    report_fidelity(table, tmp_path, json_mode=True)
    captured = capsys.readouterr()
    assert captured.out == "" and table.summary() in captured.err
