"""The result store's typed tables (decisions 189-194): one SQL table per experiment, one
typed column per field, rows read back exactly as the JSON rows of earlier versions gave
them; stores of earlier versions open, read, resume and are converted on the first write;
every reproduction writes the same files from either layout."""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpsched.core
from lpsched.cli import main
from lpsched.core import ResultStore, run_cells
from lpsched.core import store as store_module
from lpsched.core.store import check_row
from lpsched.errors import StoreError
from tests.shared_data import shared_file
from tests.tasks.conftest import swf_text

HPC2N = "hpc2n-excerpt.swf"
EGEE = "LPC-EGEE-2004-1.2-cln.swf.gz"

LEGACY_SCHEMA = """
CREATE TABLE IF NOT EXISTS rows (
    experiment TEXT NOT NULL,
    cell TEXT NOT NULL,
    idx INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (experiment, cell, idx)
)
"""


class LegacyStore:
    """The result store of lpsched before the typed tables, as it wrote and read rows
    (lpsched/core/store.py at adce4fc, without its file checks and lock): one table of
    JSON rows. It writes the stores of earlier versions the tests open, and reads them the
    old way for the comparisons."""

    def __init__(self, path: str | Path, **_: Any) -> None:
        self.path = str(path)
        self.db = sqlite3.connect(self.path)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(LEGACY_SCHEMA)
        self.db.commit()

    @staticmethod
    def key(cell: Any) -> str:
        return json.dumps(cell, sort_keys=True)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        yield

    def done(self, experiment: str) -> set[str]:
        cur = self.db.execute("SELECT DISTINCT cell FROM rows WHERE experiment = ?",
                              (experiment,))
        return {row[0] for row in cur}

    def add(self, experiment: str, cell: Any, rows: Iterable[dict[str, Any]],
            schema: Any = None) -> None:
        key = self.key(cell)
        data = [(experiment, key, i, json.dumps(r, sort_keys=True)) for i, r in
                enumerate(rows)]
        with self.db:
            self.db.executemany(
                "INSERT OR IGNORE INTO rows (experiment, cell, idx, data) VALUES (?, ?, ?, ?)",
                data)

    def rows(self, experiment: str, schema: Any = None) -> list[dict[str, Any]]:
        cur = self.db.execute("SELECT data FROM rows WHERE experiment = ? "
                              "ORDER BY cell, idx", (experiment,))
        return [self._decode(row[0], schema) for row in cur]

    def rows_of(self, experiment: str, cells: Iterable[Any],
                schema: Any = None) -> list[dict[str, Any]]:
        keys = {self.key(c) for c in cells}
        cur = self.db.execute("SELECT cell, data FROM rows WHERE experiment = ? "
                              "ORDER BY cell, idx", (experiment,))
        return [self._decode(data, schema) for cell, data in cur if cell in keys]

    @staticmethod
    def _decode(data: str, schema: Any) -> dict[str, Any]:
        row = json.loads(data)
        assert isinstance(row, dict)
        if schema is not None:
            problem = check_row(row, schema)
            if problem:
                raise StoreError("legacy", problem)
        return row

    def close(self) -> None:
        self.db.close()


def same(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    """The same rows: fields in the same order, values of the same types (1 is not 1.0 nor
    True, -0.0 is not 0.0, nan is nan)."""
    return json.dumps(a) == json.dumps(b)


def tables(path: Path | str) -> set[str]:
    con = sqlite3.connect(path)
    try:
        return {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        con.close()


# -- rows round-trip exactly -------------------------------------------------------------------

FIELD_NAMES = st.sampled_from(["a", "A", "b", "seed", "N", "n", "_cell", "_extra", "x y",
                               'q"uote', "", "select", "é", "a\x00b", "\ud800"])
SCALARS = (st.none() | st.booleans() | st.integers(-(2 ** 70), 2 ** 70)
           | st.floats(allow_nan=True, allow_infinity=True)
           | st.text(max_size=6) | st.sampled_from(["\ud800", "a\x00", "3", "1e5", ""]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=6)
ROWS = st.dictionaries(FIELD_NAMES, VALUES, max_size=6)
CELLS = st.lists(st.lists(ROWS, max_size=3), max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cells=CELLS, schema=st.sampled_from([None, {"a": "int>=0", "b": "number?",
                                                   "seed": "text"}]))
def test_rows_read_back_as_the_json_rows_of_old(cells, schema):
    """Any mix of fields and values (absent fields, None, booleans, big integers, nan, -0.0,
    lone surrogates, nested lists and dicts, names that differ by case or need quoting,
    values whose type is not their column's) reads back exactly as the JSON store did."""
    new, old = ResultStore(":memory:"), LegacyStore(":memory:")
    for i, rows in enumerate(cells):
        new.add("e", [i], rows, schema)
        old.add("e", [i], rows)
    assert same(new.rows("e"), old.rows("e"))
    picked = list(range(0, len(cells), 2))
    assert same(new.rows_of("e", picked), old.rows_of("e", picked))
    assert new.done("e") == old.done("e")
    assert new.experiments() == (["e"] if any(cells) else [])


def test_absent_is_not_none_and_types_are_kept():
    store = ResultStore(":memory:")
    store.add("e", [0], [{"x": 1, "ok": True, "name": "a", "v": 2.5, "tags": [1, "b"]},
                         {"x": None, "ok": False}])
    store.add("e", [1], [{"y": 3}])
    rows = store.rows("e")
    assert rows == [{"name": "a", "ok": True, "tags": [1, "b"], "v": 2.5, "x": 1},
                    {"ok": False, "x": None}, {"y": 3}]
    assert [list(r) for r in rows] == [sorted(r) for r in rows]  # keys sorted, as JSON rows
    assert type(rows[0]["ok"]) is bool and type(rows[0]["x"]) is int
    # the field first met in the second cell added a column; earlier rows lack it
    assert store.fields("e") == ["x", "ok", "name", "v", "tags", "y"]


def test_columns_are_typed_and_conflicts_kept_exactly_in_extra():
    store = ResultStore(":memory:")
    schema = {"seed": "int>=0", "stretch": "number>=1?", "policy": "text"}
    store.add("e", [0], [{"seed": 1, "stretch": 2.5, "policy": "fifo", "ok": True,
                          "series": [1.0, 2.0], "note": None}], schema)
    declared = {name: kind for _, name, kind, *_ in store.db.execute("PRAGMA table_info(e)")}
    assert declared == {"_cell": "TEXT", "_idx": "INTEGER", "_shape": "INTEGER",
                        "_extra": "TEXT", "seed": "INTEGER", "stretch": "REAL",
                        "policy": "TEXT", "ok": "BOOLEAN", "series": "JSON", "note": ""}
    odd = {"seed": 2.0, "stretch": 3, "policy": 7, "ok": 1, "series": "x", "note": [1]}
    odder = {"seed": 2 ** 64, "stretch": float("nan"), "policy": "\ud800", "ok": None,
             "series": None, "note": -0.0}
    store.add("e", [1], [odd, odder], schema)
    rows = store.rows("e")
    assert same(rows[1:], [dict(sorted(odd.items())), dict(sorted(odder.items()))])
    # what SQL sees: each value as its column best shows it, the exact one in _extra
    shown = store.db.execute("SELECT seed, stretch, policy, ok, series, note, _extra FROM e "
                             "WHERE _cell = '[1]' ORDER BY _idx").fetchall()
    assert shown[0][:6] == (2, 3.0, "7", 1, "x", "[1]")
    assert json.loads(shown[0][6]) == odd
    assert shown[1][:6] == (1.8446744073709552e19, None, None, None, None, -0.0)
    extra = json.loads(shown[1][6])
    assert extra["seed"] == 2 ** 64 and math.isnan(extra["stretch"])
    assert set(extra) == {"seed", "stretch", "policy"}  # -0.0 fits an untyped column
    assert store.db.execute("SELECT _extra FROM e WHERE _cell = '[0]'").fetchone() == (None,)


def test_table_and_column_names():
    """A name is kept and quoted; only reserved or taken names change (module doc)."""
    store = ResultStore(":memory:")
    names = ["platform-level", "rows", "sqlite_x", "lpsched_shapes", "E", "e", 'a"b', ""]
    for name in names:
        store.add(name, [0], [{"N": 1, "n": 2, "_cell": 3, "select": 4, 'x"y': 5, "": 6}])
    assert store.experiments() == sorted(names)
    assert {n: store.table(n) for n in names} == {
        "platform-level": "platform-level", "rows": "_rows", "sqlite_x": "_sqlite_x",
        "lpsched_shapes": "_lpsched_shapes", "E": "E", "e": "e_2", 'a"b': 'a"b', "": "_"}
    columns = [c[1] for c in store.db.execute('PRAGMA table_info("platform-level")')][4:]
    assert columns == ["N", "n_2", "_cell_2", "select", 'x"y', "_"]
    for name in names:
        assert store.rows(name) == [{"": 6, "N": 1, "_cell": 3, "n": 2, "select": 4, 'x"y': 5}]
    assert store.db.execute('SELECT "N", n_2 FROM "platform-level"').fetchone() == (1, 2)
    assert store.table("nope") is None


def test_fields_beyond_the_column_limit_live_in_extra(monkeypatch):
    monkeypatch.setattr(store_module, "MAX_COLUMNS", 3)
    store = ResultStore(":memory:")
    row = {f"f{i}": i for i in range(6)}
    store.add("e", [0], [row])
    store.add("e", [1], [{"f5": "five", "g": None}])
    assert len(list(store.db.execute("PRAGMA table_info(e)"))) == 4 + 3
    assert store.rows("e") == [row, {"f5": "five", "g": None}]
    assert store.fields("e") == ["f0", "f1", "f2", "f3", "f4", "f5", "g"]


def test_a_row_that_cannot_be_stored_stores_nothing():
    """A value JSON cannot hold raises TypeError, and nothing of the cell is kept, not even
    the table or columns it would have created."""
    np = pytest.importorskip("numpy")
    store = ResultStore(":memory:")
    with pytest.raises(TypeError):
        store.add("e", [0], [{"a": 1}, {"a": np.int64(2)}])
    assert store.experiments() == [] and store.done("e") == set()
    store.add("e", [0], [{"a": 1}, {"a": np.float64(2.5), "t": (1, 2)}])  # as JSON did
    assert same(store.rows("e"), [{"a": 1}, {"a": 2.5, "t": [1, 2]}])
    with pytest.raises(TypeError, match="must be a dict"):
        store.add("e", [1], [[("a", 1)]])


def test_the_runner_declares_the_columns_from_the_schema(tmp_path):
    store = ResultStore(tmp_path / "s.sqlite")

    def cell(x: int) -> list[dict[str, Any]]:
        return [{"x": x, "y": None if x == 1 else x / 2}]

    run_cells("half", [1, 2, 3], cell, store, progress=False, schema={"y": "number?"})
    kinds = dict(store.db.execute("SELECT field, kind FROM lpsched_columns"))
    assert kinds == {"y": "real", "x": "int"}  # without the schema, y would be untyped
    assert store.rows("half") == [{"x": 1, "y": None}, {"x": 2, "y": 1.0}, {"x": 3, "y": 1.5}]


def test_pandas_read_sql_gives_typed_columns(tmp_path):
    """The SQL a pandas user types, ``pd.read_sql("select * from cbs3m", con)``, gives typed
    columns."""
    pd = pytest.importorskip("pandas")
    from lpsched.bags import reproduce as exp

    store = ResultStore(tmp_path / "cbs3m.sqlite")
    cells = exp.cells(1, policies=["fifo-mct", "cbs3m-edf-online"])
    run_cells(exp.EXPERIMENT, cells, exp.cell, store, progress=False, schema=exp.ROW_SCHEMA)
    frame = pd.read_sql("select * from cbs3m", sqlite3.connect(store.path))
    assert len(frame) == 2 and frame["_extra"].isna().all()
    assert str(frame["seed"].dtype) == "int64"
    for metric in ("lp_bound", *exp.METRICS, "seconds"):
        assert str(frame[metric].dtype) == "float64", metric
    assert set(frame["policy"]) == {"fifo-mct", "cbs3m-edf-online"}
    assert set(frame["status"]) == {"ok"}
    stored = store.rows(exp.EXPERIMENT)
    assert dict(zip(frame["policy"], frame["max_stretch"], strict=True)) == {
        r["policy"]: r["max_stretch"] for r in stored}


# -- damaged typed stores ----------------------------------------------------------------------

def _typed_store(path: Path) -> None:
    store = ResultStore(path)
    store.add("e", [0], [{"a": 1, "ok": True, "l": [1]}])
    store.add("e", [1], [{"a": 2, "ok": False, "l": [2]}])
    store.close()


def _sql(path: Path, *statements: str) -> None:
    con = sqlite3.connect(path)
    with con:
        for sql in statements:
            con.execute(sql)
    con.close()


@pytest.mark.parametrize(("damage", "named"), [
    ("UPDATE e SET _shape = 99 WHERE _idx = 0 AND _cell = '[1]'", "unknown shape 99"),
    ("UPDATE e SET _extra = '[1]' WHERE _cell = '[1]'", "is not a JSON object"),
    ("UPDATE e SET _extra = '{\"zz\": 1}' WHERE _cell = '[1]'", "does not have"),
    ("UPDATE e SET ok = 7 WHERE _cell = '[1]'", "7 in a BOOLEAN column"),
    ("UPDATE e SET l = '[1' WHERE _cell = '[1]'", "not one lpsched wrote"),
    ("UPDATE lpsched_shapes SET fields = '{}'", "not a list of field names"),
    ("INSERT INTO lpsched_columns VALUES ('e', 'b', 'a', 'complex')", "did not write"),
])
def test_rows_lpsched_did_not_write_are_one_error(tmp_path, damage, named):
    path = tmp_path / "s.sqlite"
    _typed_store(path)
    _sql(path, damage)
    with pytest.raises(StoreError) as err:
        ResultStore(path).rows("e")
    message = str(err.value)
    assert message.startswith(str(path)) and "\n" not in message
    assert named in message and "move it away" in message


@pytest.mark.parametrize(("damage", "named"), [
    ("DROP TABLE e", "its table 'e' is missing"),
    ("ALTER TABLE e DROP COLUMN ok", "lacks the columns ok"),
    ("ALTER TABLE lpsched_shapes ADD COLUMN x", "'lpsched_shapes' table is not"),
    ("DROP TABLE lpsched_columns", "'lpsched_columns' table is not"),
    ("PRAGMA user_version = 0", "not its format number"),
    ("PRAGMA user_version = 3", "written by a newer lpsched (store format 3"),
])
def test_a_damaged_typed_store_is_refused_on_opening(tmp_path, damage, named):
    if "DROP COLUMN" in damage and sqlite3.sqlite_version_info < (3, 35):
        pytest.skip("SQLite < 3.35 has no DROP COLUMN")
    path = tmp_path / "s.sqlite"
    _typed_store(path)
    _sql(path, damage)
    before = path.read_bytes()
    with pytest.raises(StoreError, match=named.replace("(", r"\(")) as err:
        ResultStore(path)
    assert "\n" not in str(err.value)
    assert path.read_bytes() == before


def test_readers_do_not_create(tmp_path):
    missing = tmp_path / "nope.sqlite"
    with pytest.raises(StoreError, match="no such result store"):
        ResultStore(missing, create=False)
    assert not missing.exists()
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    with pytest.raises(StoreError, match="is empty, not a result store"):
        ResultStore(empty, create=False)
    assert empty.read_bytes() == b""


# -- stores of earlier versions ----------------------------------------------------------------

def _legacy_store(path: Path, cells: dict[int, list[dict[str, Any]]],
                  experiment: str = "sq") -> None:
    """A store as lpsched wrote it before the typed tables (the legacy schema written
    directly, JSON rows)."""
    old = LegacyStore(path)
    for cell, rows in cells.items():
        old.add(experiment, cell, rows)
    old.close()


def square(x: int) -> list[dict[str, Any]]:
    return [{"x": x, "y": x * x}] if x % 2 else [{"x": x, "y": x * x}, {"x": x, "even": True}]


def test_a_legacy_store_opens_reads_resumes_and_is_converted(tmp_path):
    path = tmp_path / "sq.sqlite"
    _legacy_store(path, {x: square(x) for x in (1, 2, 3)})
    _legacy_store(tmp_path / "other.sqlite", {x: square(x) for x in (1, 2, 3)})
    expected = LegacyStore(tmp_path / "other.sqlite").rows("sq")
    before = path.read_bytes()
    store = ResultStore(path)
    assert store.experiments() == ["sq"] and store.table("sq") is None
    assert same(store.rows("sq"), expected) and len(store.done("sq")) == 3
    assert same(store.rows_of("sq", [2]), expected[1:3])
    assert path.read_bytes() == before and tables(path) == {"rows"}  # reading changes nothing
    # the resumed run skips the three stored cells; its first write converts the store
    assert run_cells("sq", [1, 2, 3, 4, 5], square, store, progress=False) == 2
    assert tables(path) == {"lpsched_experiments", "lpsched_columns", "lpsched_shapes", "sq"}
    old = LegacyStore(tmp_path / "other.sqlite")
    for x in (4, 5):
        old.add("sq", x, square(x))
    assert same(store.rows("sq"), old.rows("sq"))
    assert same(ResultStore(path).rows("sq"), old.rows("sq"))  # and once reopened
    assert run_cells("sq", [1, 2, 3, 4, 5], square, store, progress=False) == 0
    assert store.migrate() is False


def test_legacy_rows_are_checked_against_the_schema(tmp_path):
    """Rows read back are checked against the schema on the layout of earlier versions
    too."""
    path = tmp_path / "sq.sqlite"
    _legacy_store(path, {1: [{"x": 1, "y": 1}], 2: [{"x": 2}]})
    with pytest.raises(StoreError, match=r"not a row this experiment writes \(field 'y' "
                                         r"missing\)"):
        ResultStore(path).rows("sq", {"x": "int", "y": "int"})
    assert ResultStore(path).rows_of("sq", [1], {"x": "int", "y": "int"}) == [{"x": 1, "y": 1}]


def test_a_conversion_is_one_transaction(tmp_path):
    """A legacy store whose conversion fails (a damaged JSON row) is left as it was."""
    path = tmp_path / "sq.sqlite"
    _legacy_store(path, {x: square(x) for x in (1, 2, 3)})
    _legacy_store(path, {0: [{"a": 1}]}, experiment="another")
    _sql(path, "UPDATE rows SET data = '[1, 2]' WHERE experiment = 'sq' AND cell = '3'")
    store = ResultStore(path)
    with pytest.raises(StoreError, match="not a JSON object"):
        store.add("sq", 9, square(9))
    assert tables(path) == {"rows"}
    assert store.rows("another") == [{"a": 1}]
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM rows").fetchone() == (5,)


def test_a_conversion_by_another_connection_is_seen(tmp_path):
    path = tmp_path / "sq.sqlite"
    _legacy_store(path, {x: square(x) for x in (1, 2)})
    first, second = ResultStore(path), ResultStore(path)
    assert len(second.rows("sq")) == 3  # read the legacy layout
    assert first.migrate() is True
    assert len(second.rows("sq")) == 3 and second.table("sq") == "sq"
    second.add("sq", 3, square(3))
    first.add("sq", 4, square(4))  # each sees the other's new shapes and columns
    assert same(first.rows("sq"), second.rows("sq")) and len(first.rows("sq")) == 6


# -- a converted store is typed as a fresh one (decision 209) ----------------------------------

SCHEMA = {"x": "int", "y": "number", "status": "text", "reason": "text?"}


def typed_cell(x: int) -> list[dict[str, Any]]:
    return [{"x": x, "y": x / 2, "status": "ok", "reason": None, "aux": [x]}]


def table_info(path: Path, table: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as con:
        return con.execute(f'PRAGMA table_info("{table}")').fetchall()


def _fresh_typed(path: Path, cells: range, schema: dict[str, str] | None = SCHEMA) -> None:
    store = ResultStore(path)
    for x in cells:
        store.add("exp", x, typed_cell(x), schema=schema)
    store.close()


def _legacy_typed(path: Path, cells: range) -> None:
    old = LegacyStore(path)
    for x in cells:
        old.add("exp", x, typed_cell(x))
        old.add("other", x, [{"b": x, "a": None}])
    old.close()


def test_a_store_converted_by_add_with_a_schema_equals_a_fresh_one(tmp_path):
    """A store of earlier versions converted by a resumed run is typed as a fresh store:
    the same columns in the same order with the same declared types."""
    _fresh_typed(tmp_path / "fresh.sqlite", range(3))
    _legacy_typed(tmp_path / "old.sqlite", range(2))
    store = ResultStore(tmp_path / "old.sqlite")
    store.add("exp", 2, typed_cell(2), schema=SCHEMA)  # the first write of the resumed run
    store.close()
    info = table_info(tmp_path / "old.sqlite", "exp")
    assert info == table_info(tmp_path / "fresh.sqlite", "exp")
    assert [(name, kind) for _, name, kind, *_ in info][4:] == [
        ("x", "INTEGER"), ("y", "REAL"), ("status", "TEXT"), ("reason", "TEXT"),
        ("aux", "JSON")]  # schema order, then the others; reason TEXT although always None
    other = [(name, kind) for _, name, kind, *_ in table_info(tmp_path / "old.sqlite",
                                                              "other")][4:]
    assert other == [("a", ""), ("b", "INTEGER")]  # no schema: typed from its first rows
    assert ResultStore(tmp_path / "old.sqlite").rows("exp") == \
        ResultStore(tmp_path / "fresh.sqlite").rows("exp")


def test_migrate_takes_the_schemas_of_the_experiments(tmp_path):
    _fresh_typed(tmp_path / "fresh.sqlite", range(2))
    _legacy_typed(tmp_path / "old.sqlite", range(2))
    assert ResultStore(tmp_path / "old.sqlite").migrate({"exp": SCHEMA}) is True
    assert table_info(tmp_path / "old.sqlite", "exp") == \
        table_info(tmp_path / "fresh.sqlite", "exp")
    _legacy_typed(tmp_path / "plain.sqlite", range(2))  # without a schema: alphabetical, untyped
    assert ResultStore(tmp_path / "plain.sqlite").migrate() is True
    names = [(name, kind) for _, name, kind, *_ in table_info(tmp_path / "plain.sqlite",
                                                              "exp")][4:]
    assert names == [("aux", "JSON"), ("reason", ""), ("status", "TEXT"), ("x", "INTEGER"),
                     ("y", "REAL")]


# -- every reproduction writes the same files --------------------------------------------------

@pytest.fixture
def trace(tmp_path: Path) -> Path:
    import numpy as np

    rng = np.random.default_rng(2)
    submit = np.sort(rng.uniform(0, 2 * 86400, 150)).astype(int)
    run_ = np.exp(rng.uniform(1, 9, 150)).astype(int)
    q = rng.choice([1, 2, 4], 150)
    path = tmp_path / "t.swf"
    path.write_text(swf_text(list(zip(submit.tolist(), run_.tolist(), q.tolist(),
                                      strict=True)), 32))
    return path


def _needs(name: str) -> str:
    return str(shared_file(name))


#: family -> (the smallest reproduction, its experiment): the fast options of the existing
#: reproduction tests
REPRODUCTIONS: dict[str, Callable[[Path], tuple[list[str], str]]] = {
    "cbs3m": lambda t: (["cbs3m", "--instances", "1"], "cbs3m"),
    "contiguity": lambda t: (["contiguity", "--trace", _needs(HPC2N), "--instances", "1",
                              "--jobs-per-instance", "200", "--processors", "240"],
                             "contiguity"),
    "platform-level": lambda t: (["platform-level", "--trace", _needs(HPC2N), "--instances",
                                  "1"], "platform-level"),
    "topology-aware": lambda t: (["topology-aware", "--trace", _needs(HPC2N), "--limit",
                                  "600", "--speedups", "0,50"], "topology-aware"),
    "redirection": lambda t: (["redirection", "--traces", str(t), "--instances", "1",
                               "--no-plots"], "redirection"),
    "redirection-tuning": lambda t: (["redirection", "--tune", "--trace", str(t),
                                      "--instances", "1", "--no-plots"], "redirection-tuning"),
    "faircamp": lambda t: (["faircamp", "--instances", "1", "--users", "2",
                            "--jobs-per-instance", "200"], "faircamp"),
    "ostrich": lambda t: (["ostrich", "--trace", _needs(EGEE), "--limit", "5000",
                           "--instances", "1", "--jobs-per-instance", "500"], "ostrich"),
    "ptg": lambda t: (["ptg", "--scenarios", "1", "--no-figures"], "ptg"),
}


def _outputs(folder: Path) -> dict[str, bytes]:
    """The files a reproduction wrote beside its store."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())
            if ".sqlite" not in p.name}


@pytest.mark.parametrize("family", list(REPRODUCTIONS))
def test_reproductions_write_the_same_files_from_typed_and_json_rows(
        family, tmp_path, trace, monkeypatch, capsys):
    """Each family's smallest ``reproduce`` is run once, its rows stored in the typed
    tables and, the old way, as JSON rows (:class:`LegacyStore`) in a second store. Reading
    the JSON store with the code of old gives byte for byte the CSV (and summary) files of
    the typed run; so does this version reading the JSON store, before and after converting
    it."""
    argv, experiment = REPRODUCTIONS[family](trace)
    typed, legacy, converted = tmp_path / "typed", tmp_path / "legacy", tmp_path / "converted"
    legacy.mkdir()

    class Twin(ResultStore):
        def add(self, experiment: str, cell: Any, rows: Iterable[dict[str, Any]],
                schema: Any = None) -> None:
            rows = list(rows)
            super().add(experiment, cell, rows, schema)
            twin = LegacyStore(legacy / Path(self.path).name)
            twin.add(experiment, cell, rows)
            twin.close()

    def reproduce(store_class: type, out: Path) -> None:
        monkeypatch.setattr(lpsched.core, "ResultStore", store_class)
        assert main(["reproduce", *argv, "--out", str(out), "--quiet"]) == 0
        capsys.readouterr()

    reproduce(Twin, typed)
    files = _outputs(typed)
    assert files and all(files.values())
    store_name = f"{experiment}.sqlite"
    shutil.copytree(legacy, converted)
    reproduce(LegacyStore, legacy)  # the old code, on the JSON rows: nothing to compute
    assert _outputs(legacy) == files
    reproduce(ResultStore, converted)  # this version on the JSON store, as it is
    assert tables(converted / store_name) == {"rows"}
    assert _outputs(converted) == files
    assert ResultStore(converted / store_name).migrate() is True
    reproduce(ResultStore, converted)
    assert _outputs(converted) == files
    rows = ResultStore(typed / store_name).rows(experiment)
    assert rows and same(rows, LegacyStore(legacy / store_name).rows(experiment))
    assert same(ResultStore(converted / store_name).rows(experiment), rows)
