"""The report hook of ``cbs3m`` (``lpsched.bags.report``): every manifest entry a row from an
empty store and from a small store holding both profiles (as ``reproduce all`` writes it),
Figures 5-10 drawn as ``<ref>.png``, and ``lpsched report`` on that store writing a page
with every row and every image."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lpsched.bags import reproduce as rep
from lpsched.bags.report import report_part, table_of
from lpsched.core.store import ResultStore
from lpsched.report.manifest import manifest
from tests.bags.test_fidelity import RECEIVED, _rows

LPSCHED = Path(sys.executable).with_name("lpsched")
WANTED = {e.id for e in manifest("003") if e.experiment in ("cbs3m", "none")}
FIGURES = sorted(e.id for e in manifest("003") if e.kind == "figure")


def _small_store(folder: Path) -> Path:
    """Two mpi experiments and three simgrid instances, synthetic rows, one store."""
    folder.mkdir(parents=True, exist_ok=True)
    store = ResultStore(folder / "cbs3m.sqlite")
    for profile, base, n in (("mpi", 1.25e6, 2), ("simgrid", 12.5e6, 3)):
        for row in _rows(n, seed=n):
            key = (row["seed"], row["policy"], profile, base, RECEIVED)
            store.add(rep.EXPERIMENT, key, [row], rep.ROW_SCHEMA)
    store.close()
    return folder / "cbs3m.sqlite"


def test_the_hook_on_an_empty_store_gives_every_row_and_no_figure(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "empty.sqlite")
    part = report_part(store, "cbs3m", tmp_path / "fig")
    assert WANTED <= {r.ref for r in part.table.rows}
    assert part.figures == ()
    assert {r.kind for r in part.table.rows} <= {"not measured", "holds by construction"}
    assert any("no cbs3m run" in n for n in part.notes)
    assert report_part(None, "cbs3m", tmp_path / "fig").table.rows == part.table.rows


def test_the_hook_on_a_store_of_both_profiles_draws_every_figure(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    store = ResultStore(_small_store(tmp_path / "run"), create=False)
    part = report_part(store, "cbs3m", tmp_path / "fig")
    assert WANTED <= {r.ref for r in part.table.rows}
    assert sorted(f.ref for f in part.figures) == FIGURES
    for f in part.figures:
        assert f.path == tmp_path / "fig" / f"{f.ref}.png" and f.path.stat().st_size > 0
        assert "seed prints no values" in f.caption
    assert len(part.notes) == 2 and all(n.startswith("judged: ") for n in part.notes)
    t3 = next(r for r in part.table.rows if r.ref == "003-T3" and "average" in r.figure)
    assert t3.ours  # the mpi run is judged beside the simgrid one
    assert table_of(store).rows == part.table.rows
    store.close()


def test_lpsched_report_on_the_store_shows_every_row_and_image(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = _small_store(tmp_path / "run")
    out = tmp_path / "report"
    proc = subprocess.run([str(LPSCHED), "report", str(path), "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    page = (out / "seed003.html").read_text()
    text = html.unescape(page)
    store = ResultStore(path, create=False)
    rows = table_of(store).rows
    store.close()
    for row in rows:
        assert html.unescape(html.escape(row.figure)) in text, row.figure
    images = re.findall(r'<img src="([^"]+)"', page)
    assert len(images) == len(FIGURES)
    for src in images:
        assert (out / src).is_file(), src
    assert (out / "seed003.md").is_file()
