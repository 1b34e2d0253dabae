"""The report hook of seed 004 (:func:`lpsched.ptg.report.report_part`): every manifest
entry a row on an empty store, the run's size and bound read from a small store, Figs 2-8
drawn as ``<ref>.png``; and ``lpsched reproduce ptg`` then ``lpsched report`` through the
installed command (pages written, every row of the table on the page, every image
present)."""

from __future__ import annotations

import csv
import html
import re
from pathlib import Path

import pytest

from lpsched.core.store import ResultStore
from lpsched.ptg.report import report_part
from tests.ptg.test_fidelity_table import ENTRIES, fake_rows


def test_the_hook_on_an_empty_store_and_on_a_small_store(tmp_path: Path) -> None:
    empty = report_part(ResultStore(tmp_path / "e.sqlite"), "ptg", tmp_path / "e")
    assert ENTRIES <= {r.ref for r in empty.table.rows} and not empty.figures
    pytest.importorskip("matplotlib")
    store = ResultStore(tmp_path / "s.sqlite")
    rows = fake_rows(6)
    keys = sorted({(r["class"], r["N"], r["set"], r["cluster"]) for r in rows})
    for key in keys:
        store.add("ptg", [*key, [], 0, [], "none"], [r for r in rows if (
            r["class"], r["N"], r["set"], r["cluster"]) == key])
    part = report_part(store, "ptg", tmp_path / "figs")
    assert part.table.size is not None and part.table.size.n == 18
    assert part.notes == ("improved-HCPA bound of the rows: none",)
    assert {f.ref for f in part.figures} == {f"004-F{k}" for k in range(2, 9)}
    assert all(f.path.is_file() and f.path.stat().st_size > 1000 for f in part.figures)
    # the captions describe what is drawn: the run's 18 scenarios, not the seed's 1,500
    assert all("over the run's 18 scenarios" in f.caption for f in part.figures)
    f8 = next(f for f in part.figures if f.ref == "004-F8")
    assert "(6 at N = 2, 3 at N = 4," in f8.caption


def test_reproduce_then_report_through_the_installed_command(tmp_path: Path) -> None:
    from tests.cli.test_cli_subprocess import lpsched

    out = tmp_path / "res"
    p = lpsched("reproduce", "ptg", "--scenarios", "2", "--out", str(out), "--quiet",
                "--no-figures")
    assert p.returncode == 0, p.stderr
    assert "ptg vs seed, 2 of 1,500 scenarios:" in p.stderr
    rows = list(csv.DictReader((out / "ptg_vs_seed.csv").open()))
    assert ENTRIES <= {r["ref"] for r in rows}
    assert all(r["seed_line"].startswith("004 L") for r in rows)
    a16 = next(r for r in rows if r["figure"] == "A16 SELFISH MaxS median")
    assert a16["verdict"].startswith("not measured: reduced run (2 of 1,500")
    pytest.importorskip("matplotlib")
    rep = lpsched("report", str(out / "ptg.sqlite"), "--out", str(tmp_path / "rep"))
    assert rep.returncode == 0, rep.stderr
    page = (tmp_path / "rep" / "seed004.html").read_text()
    text = html.unescape(page)
    for r in rows:
        assert r["figure"] in text, r["figure"]
    images = re.findall(r'<img src="([^"]+)"', page)
    assert len(images) == 7
    for src in images:
        assert (tmp_path / "rep" / src).is_file(), src
