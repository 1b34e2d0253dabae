"""A result store that survives interruption: SQLite, one committed transaction per cell.

Rows are keyed by ``(experiment, cell)``; a cell's rows are inserted in a single transaction,
so a process killed at any moment leaves either all of a cell's rows or none, and a rerun
skips the cells already stored (``INSERT OR IGNORE`` on the key: never a duplicate).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rows (
    experiment TEXT NOT NULL,
    cell TEXT NOT NULL,
    idx INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (experiment, cell, idx)
)
"""


class ResultStore:
    """``ResultStore(path)``; ``":memory:"`` for a throw-away store."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path)
        self.db.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: a committed cell survives the process being killed at any moment
        # (only an operating-system crash could lose the last commits)
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(_SCHEMA)
        self.db.commit()

    @staticmethod
    def key(cell: Any) -> str:
        return json.dumps(cell, sort_keys=True)

    def done(self, experiment: str) -> set[str]:
        """Keys of the cells already stored for ``experiment``."""
        cur = self.db.execute("SELECT DISTINCT cell FROM rows WHERE experiment = ?",
                              (experiment,))
        return {row[0] for row in cur}

    def add(self, experiment: str, cell: Any, rows: Iterable[dict[str, Any]]) -> None:
        """Store all rows of one cell atomically."""
        key = self.key(cell)
        with self.db:  # one transaction: all rows of the cell or none
            self.db.executemany(
                "INSERT OR IGNORE INTO rows (experiment, cell, idx, data) VALUES (?, ?, ?, ?)",
                [(experiment, key, i, json.dumps(r, sort_keys=True)) for i, r in
                 enumerate(rows)])

    def rows(self, experiment: str) -> list[dict[str, Any]]:
        """Every stored row of ``experiment``, in cell-key then row order."""
        cur = self.db.execute("SELECT data FROM rows WHERE experiment = ? ORDER BY cell, idx",
                              (experiment,))
        return [json.loads(row[0]) for row in cur]

    def rows_of(self, experiment: str, cells: Iterable[Any]) -> list[dict[str, Any]]:
        """The stored rows of the given ``cells`` only (a store may hold other runs)."""
        keys = {self.key(c) for c in cells}
        cur = self.db.execute("SELECT cell, data FROM rows WHERE experiment = ? "
                              "ORDER BY cell, idx", (experiment,))
        return [json.loads(data) for cell, data in cur if cell in keys]

    def close(self) -> None:
        self.db.close()
