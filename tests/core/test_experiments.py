"""``lpsched.experiments``: a result store's rows as a pandas DataFrame (decision 194)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lpsched import experiments as ex
from lpsched.core import ResultStore, run_cells
from lpsched.errors import LpschedError, StoreError
from tests.core.test_store_typed import LegacyStore, tables

try:
    import pandas  # noqa: F401
except ImportError:  # pragma: no cover - the pandas extra
    PANDAS = False
else:
    PANDAS = True


def _store(path: Path, experiments: tuple[str, ...] = ("cbs3m",)) -> list[dict[str, Any]]:
    store = ResultStore(path)
    for name in experiments:
        store.add(name, [2], [{"seed": 2, "policy": "b", "stretch": 1.5, "ok": True},
                              {"seed": 2, "policy": "c", "stretch": None, "ok": False}])
        store.add(name, [1], [{"seed": 1, "policy": "a", "stretch": 3, "note": "x"}])
    rows = store.rows(experiments[0])
    store.close()
    return rows


def test_load_gives_the_stored_rows(tmp_path):
    pd = pytest.importorskip("pandas")
    path = tmp_path / "cbs3m.sqlite"
    rows = _store(path)
    frame = ex.load(path)
    assert isinstance(frame, pd.DataFrame)
    # the table's column order: the first cell's fields, then "note" (first met later)
    assert list(frame.columns) == ["seed", "policy", "stretch", "ok", "note"]
    assert len(frame) == 3 and frame["seed"].tolist() == [1, 2, 2]  # cell-key order
    assert str(frame["seed"].dtype) == "int64" and str(frame["stretch"].dtype) == "float64"
    for record, row in zip(frame.to_dict("records"), rows, strict=True):
        for field, value in record.items():
            if row.get(field) is not None:
                assert value == row[field], (field, value, row)
            else:  # absent or None: missing in the frame
                assert value is None or (isinstance(value, float) and math.isnan(value))
    assert frame["note"].tolist()[0] == "x" and frame["ok"].tolist()[1:] == [True, False]
    assert ex.load(path, "cbs3m").equals(frame)


def test_several_or_unknown_experiments_are_one_clear_error(tmp_path):
    pytest.importorskip("pandas")
    path = tmp_path / "s.sqlite"
    _store(path, ("cbs3m", "platform-level"))
    assert ex.experiments(path) == ["cbs3m", "platform-level"]
    with pytest.raises(LpschedError, match=r"holds 2 experiments \('cbs3m', "
                                           r"'platform-level'\): name the one to load"):
        ex.load(path)
    with pytest.raises(LpschedError, match=r"no experiment 'ptg' in this store \(its "
                                           r"experiments: 'cbs3m', 'platform-level'\)"):
        ex.load(path, "ptg")
    assert len(ex.load(path, "platform-level")) == 3
    empty = tmp_path / "empty.sqlite"
    ResultStore(empty).close()
    assert ex.experiments(empty) == []
    with pytest.raises(LpschedError, match="holds no experiment yet"):
        ex.load(empty)


def test_files_that_are_not_stores_raise_store_error(tmp_path):
    text = tmp_path / "rows.csv"
    text.write_text("seed,policy\n1,a\n")
    missing = tmp_path / "nope.sqlite"
    for path in (text, missing, tmp_path):
        with pytest.raises(StoreError) as err:
            ex.experiments(path)
        assert str(err.value).startswith(str(path)) and "\n" not in str(err.value)
        if PANDAS:
            with pytest.raises(StoreError):
                ex.load(path)
    assert not missing.exists() and text.read_text() == "seed,policy\n1,a\n"


def test_a_store_of_earlier_versions_loads_unchanged(tmp_path):
    pytest.importorskip("pandas")
    path = tmp_path / "old.sqlite"
    old = LegacyStore(path)
    old.add("sq", 1, [{"x": 1, "y": 1.0}])
    old.add("sq", 2, [{"x": 2, "flag": True}])
    old.close()
    before = path.read_bytes()
    assert ex.experiments(path) == ["sq"]
    frame = ex.load(path)
    assert list(frame.columns) == ["x", "y", "flag"] and frame["x"].tolist() == [1, 2]
    assert path.read_bytes() == before and tables(path) == {"rows"}


def test_a_reproduction_loads(tmp_path):
    pytest.importorskip("pandas")
    from lpsched.bags import reproduce as exp

    store = ResultStore(tmp_path / "cbs3m.sqlite")
    cells = exp.cells(1, policies=["fifo-mct", "spt-mct"])
    run_cells(exp.EXPERIMENT, cells, exp.cell, store, progress=False, schema=exp.ROW_SCHEMA)
    frame = ex.load(store.path)
    assert list(frame.columns[:4]) == ["seed", "policy", "status", "reason"]
    assert frame["max_stretch"].tolist() == [r["max_stretch"] for r in store.rows("cbs3m")]


def test_without_pandas_the_error_says_what_to_install(tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite"
    _store(path)
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    with pytest.raises(LpschedError, match=r"pip install 'lpsched\[pandas\]'"):
        ex.load(path)
    assert ex.experiments(path) == ["cbs3m"]  # needs no pandas


def test_pandas_is_imported_by_load_only(tmp_path):
    path = tmp_path / "s.sqlite"
    _store(path)
    code = ("import sys, lpsched, lpsched.core, lpsched.experiments as ex\n"
            f"assert ex.experiments({str(path)!r}) == ['cbs3m']\n"
            "assert 'pandas' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
