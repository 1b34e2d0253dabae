"""The seed-vs-ours table: verdict rules, formats and the CLI writer."""

from __future__ import annotations

import csv
import io
import math

import pytest

from lpsched.cli.common import report_fidelity
from lpsched.core.fidelity_legacy import (
    COLUMNS,
    Bound,
    FidelityTable,
    Range,
    compare,
    not_measured,
)


@pytest.mark.parametrize(("seed", "ours", "tol", "verdict"), [
    (1.163, 1.163, 0.0, "match"),
    (1.163, 1.20, 0.05, "match"),
    (1.163, 1.25, 0.05, "close"),      # 0.087 <= 2 x 0.05
    (1.163, 1.30, 0.05, "differs"),
    (Range(5, 30), 12.0, 0.0, "match"),
    (Range(5, 30), 31.0, 1.0, "match"),
    (Range(5, 30), 32.0, 1.0, "close"),
    (Range(5, 30), 40.0, 1.0, "differs"),
    (Bound("<", 2.0), 1.0, 0.0, "match"),
    (Bound("<", 2.0), 2.5, 0.5, "match"),
    (Bound("<", 2.0), 7.2, 0.5, "differs"),
    (Bound(">=", 90.0), 80.0, 1.0, "differs"),
    (Bound(">=", 90.0), 99.0, 0.0, "match"),
    ("CBS3M < MWMA-NBT < MCT", "cbs3m<mwma-nbt<mct", 0.0, "match"),
    ("CBS3M < MWMA-NBT", "MCT < CBS3M", 0.0, "differs"),
])
def test_verdict_rule(seed, ours, tol, verdict) -> None:
    assert compare("f", "L1", seed, ours, tolerance=tol).verdict == verdict


def test_relative_tolerance_and_explanation() -> None:
    row = compare("f", "L1", 200.0, 209.0, tolerance=0.05, relative=True)
    assert row.verdict == "match" and row.tolerance == "5 % rel."
    row = compare("f", "L1", 200.0, 300.0, tolerance=0.05, relative=True, explained_by=12)
    assert row.verdict == "differs: explained by decision 12"
    # an explanation never hides a match
    assert compare("f", "L1", 2.0, 2.0, explained_by=12).verdict == "match"
    assert compare("f", "L1", 2.0, math.nan, tolerance=1.0).verdict == "differs"


def test_not_measured_and_bad_input() -> None:
    row = not_measured("RICC tasks", "000 L1840", 19401, "trace RICC not in the data folder")
    assert row.verdict == "not measured: trace RICC not in the data folder" and row.ours == ""
    assert compare("f", "L1", 3.0, None).verdict == "not measured"
    with pytest.raises(TypeError, match="label"):
        compare("f", "L1", "ORDER", 3.0)
    with pytest.raises(ValueError, match="tolerance"):
        compare("f", "L1", 3.0, 3.0, tolerance=-1)
    with pytest.raises(ValueError, match="role"):
        compare("f", "L1", 3.0, 3.0, role="fitted")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Range(3, 1)


def test_table_csv_counts_and_dict(tmp_path) -> None:
    rows = [compare("a", "L1", 1.0, 1.0), compare("b", "L2", 1.0, 1.15, tolerance=0.1),
            compare("c", "L3", 1.0, 9.0, role="calibration"),
            not_measured("d", "L4", Range(1, 2), "reduced run")]
    table = FidelityTable("demo", rows)
    assert table.counts() == {"match": 1, "close": 1, "explained": 0, "differs": 1,
                              "not measured": 1}
    explained = FidelityTable("x", [compare("e", "L5", 1.0, 9.0, explained_by=7)])
    assert explained.counts()["explained"] == 1 and explained.counts()["differs"] == 0
    parsed = list(csv.DictReader(io.StringIO(table.csv_text())))
    assert tuple(parsed[0]) == COLUMNS and [r["verdict"] for r in parsed] == [
        "match", "close", "differs", "not measured: reduced run"]
    assert parsed[2]["role"] == "calibration"
    d = table.to_dict()
    assert d["rows"][1]["ours_number"] == pytest.approx(1.15)
    assert d["rows"][3]["seed_number"] is None

    out = io.StringIO()
    path = report_fidelity(table, tmp_path, stream=out)
    assert path == tmp_path / "demo_vs_seed.csv"
    assert path.read_text() == table.csv_text()
    text = out.getvalue()
    assert ("demo vs seed: match 1; close 1; differs, explained 0; "
            "differs, unexplained 1; not measured 1 (4 rows)") in text
    assert text.splitlines()[1].startswith("figure")


def test_not_measured_shows_its_tolerance_or_none() -> None:
    bare = not_measured("RICC tasks", "000 L1840", 19401, "trace RICC missing")
    assert bare.tolerance == "—"
    judged = not_measured("share", "002 L1140", 52.0, "k = 20 not run", unit="%",
                          tolerance=5.0)
    assert judged.tolerance == "5 %" and judged.seed_value == "52 %"
    rel = not_measured("ratio", "L9", 2.0, "no run", tolerance=0.1, relative=True)
    assert rel.tolerance == "10 % rel."


def test_printed_table_carries_a_note_under_its_row() -> None:
    plain = FidelityTable("x", [compare("a", "L1", 1.0, 1.0)]).format()
    assert "note" not in plain
    noted = FidelityTable("x", [compare("a", "L1", 1.0, 1.0),
                                compare("b", "L2", 1.0, 3.0, note="10 of 1,500 scenarios")])
    lines = noted.format().splitlines()
    assert "note" not in lines[0] and lines[2].startswith("b ")
    assert lines[3] == "    note: 10 of 1,500 scenarios"


def test_a_wide_table_wraps_to_the_width_and_loses_no_word() -> None:
    figure = "Table 5.4 SDSC Blue best-effort local: mean wait over basic's, 30 instances"
    note = "the reading of decision 251: jobs selected by status, " * 4
    rows = [compare(figure, "000 L2944", Bound(">", 1.0), 0.992, tolerance=0.01,
                    explained_by=251, note=note),
            compare("T4", "003 L908", Range(1.0, 2.0), 1.5)]
    table = FidelityTable("wide", rows)
    for width in (100, 80):
        text = table.format(width=width)
        assert max(len(line) for line in text.splitlines()) <= width
        # every word is printed once: wrapping moves words, never drops or cuts one
        assert sorted(text.split()) == sorted(table.format(width=1000).split())
        # the label stays whole on a line of its own, so it can be searched for
        assert figure in text.splitlines()
    # a single word longer than its column is kept whole (the line may then be wider)
    long_word = FidelityTable("w", [compare("x" * 120, "L1", 1.0, 1.0)]).format(width=40)
    assert "x" * 120 in long_word


def test_summary_names_each_kind_before_its_count() -> None:
    rows = [compare("a", "L1", 1.0, 1.0), compare("b", "L2", 1.0, 9.0),
            compare("c", "L3", 1.0, 9.0, explained_by=4)]
    assert FidelityTable("t", rows).summary() == (
        "t vs seed: match 1; close 0; differs, explained 1; "
        "differs, unexplained 1; not measured 0 (3 rows)")
