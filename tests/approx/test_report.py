"""The report hook of seed 000 ch. 2 (experiment ``hardware``, :mod:`lpsched.approx.report`):
every manifest entry a row with no store, every printed cell of the hardware tables a row
that says why it is not measured, the idle-time rows measured on the task model, and the
three figures drawn from the seed's own tables."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from lpsched.approx.report import (
    CONFIGS,
    HARDWARE,
    build_table,
    model_idle,
    report_part,
    seed_values,
)
from lpsched.report.manifest import manifest

ENTRIES = [e for e in manifest("000") if e.experiment == "hardware"]


def test_every_entry_and_every_printed_cell_is_a_row(tmp_path: Path) -> None:
    start = time.process_time()
    part = report_part(None, "hardware", tmp_path / "fig")
    assert time.process_time() - start < 5  # computed inside the hook: seconds at most
    refs = [r.ref for r in part.table.rows]
    assert {e.id for e in ENTRIES} <= set(refs)
    for entry in ENTRIES:
        if entry.kind == "table":
            assert refs.count(entry.id) == len(seed_values(entry)), entry.id
    t22 = [r for r in part.table.rows if r.ref == "000-T2.2"]
    assert len(t22) == 23 and all(r.verdict == f"not measured: {HARDWARE}" for r in t22)
    assert all(r.seed_line.startswith("000 L") for r in part.table.rows)


def test_the_idle_rows_are_a_models_answer_judged_by_the_rule() -> None:
    rows = {r.ref: r for r in build_table().rows if r.ref in ("000-L1125", "000-L312")}
    for ref, r in rows.items():
        assert r.role == "validation" and "a model's answer" in r.note, ref
        # a direction: beyond two standard errors on either side, or undetermined
        ours, noise = r.numbers["ours"], r.numbers["noise"]
        assert ours is not None and noise is not None and noise > 0
    idle = rows["000-L1125"]
    expected = "match" if idle.numbers["ours"] + 2 * idle.numbers["noise"] < 0.05 else (
        "undetermined" if idle.numbers["ours"] - 2 * idle.numbers["noise"] <= 0.05
        else "differs: not reproduced (decision 561: 1 reading tried)")
    assert idle.verdict == expected


def test_model_idle_is_the_schedule_s_idle_share() -> None:
    model = model_idle(8, draws=3)
    assert set(model) == {"idle", "near_full", "ratio"}
    assert all(0 <= x < 1 for x in model["idle"]) and all(r >= 1 for r in model["ratio"])
    assert all(r <= 2 * (1 + 1e-6) for r in model["ratio"])  # the 2-dual guarantee
    assert CONFIGS[2] == (1, 1) and CONFIGS[8] == (4, 4)
    assert np.mean(model_idle(2, draws=3)["idle"]) < np.mean(model["idle"])


def test_the_figures_are_the_seeds_tables(tmp_path: Path) -> None:
    part = report_part(None, "hardware", tmp_path / "fig")
    assert [f.ref for f in part.figures] == ["000-F2.7", "000-F2.8", "000-F2.9"]
    for figure in part.figures:
        assert figure.path.read_bytes()[:4] == b"\x89PNG"
        assert "seed" in figure.caption
    rows = [r for r in part.table.rows if r.source.startswith("Figure")]
    assert len(rows) == 3 and all(r.kind == "not measured" for r in rows)


def test_installed_report_prints_every_hardware_row_and_figure(tmp_path: Path) -> None:
    """``lpsched report`` with any store: ch. 2's static part on the seed 000 page, every
    row of its table and its three figures."""
    import re
    import subprocess
    import sys

    from lpsched.core.store import ResultStore

    ResultStore(tmp_path / "empty.sqlite").close()
    lpsched = str(Path(sys.executable).parent / "lpsched")
    proc = subprocess.run([lpsched, "report", str(tmp_path / "empty.sqlite"), "--out",
                           str(tmp_path / "p")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "p" / "seed000.md").read_text()
    for row in build_table().rows:
        assert row.figure in page, row.figure
    images = re.findall(r"\]\((seed000/000-F2\.\d\.png)\)", page)
    assert sorted(images) == ["seed000/000-F2.7.png", "seed000/000-F2.8.png",
                              "seed000/000-F2.9.png"]
    assert all((tmp_path / "p" / image).is_file() for image in images)


def test_the_printed_cells_keep_the_seeds_digits_and_their_tables_reason() -> None:
    rows = {r.figure: r for r in build_table().rows}
    assert rows["Table 2.2 SWPS3/1"].seed_value == "69208.2 s"
    assert rows["Table 2.1 SWIPE/version"].seed_value == "1.0"
    shown = {r.seed_value for r in rows.values() if r.source == "Table 2.2"}
    assert "543.28 s" in shown
    assert "versions and command lines" in rows["Table 2.1 SWIPE/version"].verdict
    assert "databases' sizes" in rows["Table 2.3 UniProt/seqs"].verdict
    assert rows["Table 2.2 SWPS3/1"].verdict == f"not measured: {HARDWARE}"
