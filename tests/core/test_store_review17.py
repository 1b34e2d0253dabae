"""A store of earlier versions converted by a resumed run (or ``migrate(schemas)``) is typed
as a fresh store: the same columns in the same order with the same declared types (review
of issue 17, finding 4)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from lpsched.core import ResultStore
from tests.core.test_store_typed import LegacyStore

SCHEMA = {"x": "int", "y": "number", "status": "text", "reason": "text?"}


def cell(x: int) -> list[dict[str, Any]]:
    return [{"x": x, "y": x / 2, "status": "ok", "reason": None, "aux": [x]}]


def table_info(path: Path, table: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as con:
        return con.execute(f'PRAGMA table_info("{table}")').fetchall()


def fresh(path: Path, cells: range, schema: dict[str, str] | None = SCHEMA) -> None:
    store = ResultStore(path)
    for x in cells:
        store.add("exp", x, cell(x), schema=schema)
    store.close()


def legacy(path: Path, cells: range) -> None:
    old = LegacyStore(path)
    for x in cells:
        old.add("exp", x, cell(x))
        old.add("other", x, [{"b": x, "a": None}])
    old.close()


def test_a_store_converted_by_add_with_a_schema_equals_a_fresh_one(tmp_path):
    fresh(tmp_path / "fresh.sqlite", range(3))
    legacy(tmp_path / "old.sqlite", range(2))
    store = ResultStore(tmp_path / "old.sqlite")
    store.add("exp", 2, cell(2), schema=SCHEMA)  # the first write of the resumed run
    store.close()
    info = table_info(tmp_path / "old.sqlite", "exp")
    assert info == table_info(tmp_path / "fresh.sqlite", "exp")
    assert [(name, kind) for _, name, kind, *_ in info][4:] == [
        ("x", "INTEGER"), ("y", "REAL"), ("status", "TEXT"), ("reason", "TEXT"),
        ("aux", "JSON")]  # schema order, then the others; reason TEXT although always None
    other = [(name, kind) for _, name, kind, *_ in table_info(tmp_path / "old.sqlite",
                                                              "other")][4:]
    assert other == [("a", ""), ("b", "INTEGER")]  # no schema: its first rows, as before
    assert ResultStore(tmp_path / "old.sqlite").rows("exp") == \
        ResultStore(tmp_path / "fresh.sqlite").rows("exp")


def test_migrate_takes_the_schemas_of_the_experiments(tmp_path):
    fresh(tmp_path / "fresh.sqlite", range(2))
    legacy(tmp_path / "old.sqlite", range(2))
    assert ResultStore(tmp_path / "old.sqlite").migrate({"exp": SCHEMA}) is True
    assert table_info(tmp_path / "old.sqlite", "exp") == \
        table_info(tmp_path / "fresh.sqlite", "exp")
    legacy(tmp_path / "plain.sqlite", range(2))  # without a schema: alphabetical, untyped
    assert ResultStore(tmp_path / "plain.sqlite").migrate() is True
    names = [(name, kind) for _, name, kind, *_ in table_info(tmp_path / "plain.sqlite",
                                                              "exp")][4:]
    assert names == [("aux", "JSON"), ("reason", ""), ("status", "TEXT"), ("x", "INTEGER"),
                     ("y", "REAL")]
