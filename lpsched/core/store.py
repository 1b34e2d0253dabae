"""A result store that survives interruption: SQLite, one committed transaction per cell.

Rows are keyed by ``(experiment, cell)``; a cell's rows are inserted in a single transaction,
so a process killed at any moment leaves either all of a cell's rows or none, and a rerun
skips the cells already stored (``INSERT OR IGNORE`` on the key: never a duplicate).

**Checked on opening.** A file that is not an lpsched store — garbage bytes, a truncated or
otherwise damaged SQLite file, a SQLite database with other tables or another ``rows``
table — raises :class:`~lpsched.errors.StoreError` naming the file and what to do (move it
away or choose another folder); so does a store that cannot be created or written
(permissions, a folder in its place). Nothing is ever written into a file that failed these
checks. Any SQLite error met later (a file damaged while in use) is reported the same way.

**One writer at a time.** :meth:`ResultStore.lock` takes an exclusive lock on the file
``<store>.lock`` beside the database (a POSIX ``fcntl`` record lock); :func:`run_cells
<lpsched.core.runner.run_cells>` holds it for the whole run. A second run on the same store
does not wait: it fails at once with ``StoreError`` "... is in use by another run (pid N)",
before computing anything (waiting would hang silently for as long as the first run lasts,
and then find its work done). The kernel drops the lock when the holding process ends, even
by ``kill -9``, so a lock file left behind never blocks a later run; the lock is not
inherited by worker processes forked from the holder (POSIX record locks belong to one
process), so orphaned workers cannot keep a dead run's lock (on a system without
``fcntl``, Windows, runs are not locked). Reading a store
(``rows``, ``done``) needs no lock: SQLite's WAL mode lets readers run beside the writer.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from lpsched.errors import StoreError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX (Windows): runs are not locked there
    fcntl = None  # type: ignore[assignment]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rows (
    experiment TEXT NOT NULL,
    cell TEXT NOT NULL,
    idx INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (experiment, cell, idx)
)
"""
#: ``(name, declared type, not null, position in the primary key)`` of every column
_COLUMNS = [("experiment", "TEXT", 1, 1), ("cell", "TEXT", 1, 2), ("idx", "INTEGER", 1, 3),
            ("data", "TEXT", 1, 0)]
_AFRESH = "move it away or choose another folder to start a new store"
#: lock files held by this process (POSIX locks are per process: a second lock taken by
#: the same process would succeed, and closing it would silently drop the first)
_HELD: dict[str, int] = {}


def _explain(path: str, exc: sqlite3.Error) -> StoreError:
    """One line for a SQLite error: what is wrong with ``path`` and what to do."""
    text = str(exc)
    low = text.lower()
    if "not a database" in low or "malformed" in low or "encrypted" in low:
        return StoreError(path, f"not a readable lpsched result store ({text}): the file is "
                          f"damaged or not a result store; {_AFRESH}")
    if "locked" in low or "busy" in low:
        return StoreError(path, f"the database is locked by another program ({text}); "
                          "try again when it has finished")
    return StoreError(path, f"cannot use the result store ({text}): check that the file "
                      "and its folder can be read and written")


class ResultStore:
    """``ResultStore(path)``; ``":memory:"`` for a throw-away store.

    Raises :class:`~lpsched.errors.StoreError` when ``path`` is not a usable result store
    (module doc).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock_fd: int | None = None
        if self.path != ":memory:":
            self._prepare_path()
        with self._guard():
            self.db = sqlite3.connect(self.path)
        try:
            with self._guard():
                self._open()
        except StoreError:
            self.db.close()
            raise

    def _prepare_path(self) -> None:
        target = Path(self.path)
        if target.parent.exists() and not target.parent.is_dir():
            raise StoreError(self.path, f"{target.parent} is a file, not a folder: choose "
                             "another folder")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(self.path, f"cannot create the folder {target.parent} "
                             f"({exc.strerror or exc})") from None
        if target.is_dir():
            raise StoreError(self.path, f"is a folder, not a result store; {_AFRESH}")

    def _open(self) -> None:
        tables = dict(self.db.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
        if tables:
            self._check_schema(tables)
            self._check_integrity()
        self.db.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: a committed cell survives the process being killed at any moment
        # (only an operating-system crash could lose the last commits)
        self.db.execute("PRAGMA synchronous=NORMAL")
        if not tables:
            self.db.execute(_SCHEMA)
            self.db.commit()

    def _check_schema(self, tables: dict[str, str]) -> None:
        if "rows" not in tables:
            names = ", ".join(sorted(tables)[:5])
            raise StoreError(self.path, f"a SQLite database but not an lpsched result store "
                             f"(its tables: {names}); {_AFRESH}")
        columns = [(name, kind.upper(), notnull, pk) for _, name, kind, notnull, _, pk in
                   self.db.execute("PRAGMA table_info(rows)")]
        if columns != _COLUMNS:
            shown = ", ".join(c[0] for c in columns)
            raise StoreError(self.path, f"a SQLite database whose 'rows' table is not an "
                             f"lpsched result store's (columns: {shown}); {_AFRESH}")

    def _check_integrity(self) -> None:
        """SQLite's quick check, and a file length that is a whole number of pages (a file
        cut inside its last page reads as zeros there, which the quick check misses)."""
        bad = self.db.execute("PRAGMA quick_check(1)").fetchone()[0]
        page = self.db.execute("PRAGMA page_size").fetchone()[0]
        if bad == "ok" and self.path != ":memory:" and os.path.getsize(self.path) % page:
            bad = "its length is not a whole number of pages: truncated"
        if bad != "ok":
            raise StoreError(self.path, f"the result store is damaged ({' '.join(bad.split())}"
                             f"); {_AFRESH}")

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        """Report any SQLite error as a StoreError naming the file."""
        try:
            yield
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None

    @staticmethod
    def key(cell: Any) -> str:
        return json.dumps(cell, sort_keys=True)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the store's exclusive writer lock for the block (module doc); a store in
        use by another run raises :class:`~lpsched.errors.StoreError` at once. A no-op for
        ``":memory:"``. Not re-entrant."""
        if self.path == ":memory:" or fcntl is None:
            yield
            return
        lock_path = self.path + ".lock"
        key = os.path.realpath(lock_path)
        if key in _HELD:
            raise StoreError(self.path, "is already in use by this process")
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(self.path, f"cannot create the lock file {lock_path} "
                             f"({exc.strerror or exc})") from None
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _read_pid(fd)
            os.close(fd)
            who = f"pid {holder}" if holder else "pid unknown"
            raise StoreError(self.path, f"is in use by another run ({who}); wait for it to "
                             "finish, or choose another folder") from None
        _HELD[key] = fd
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            yield
        finally:
            del _HELD[key]
            os.close(fd)  # releases the lock; the file stays (removing it would race)

    def done(self, experiment: str) -> set[str]:
        """Keys of the cells already stored for ``experiment``."""
        with self._guard():
            cur = self.db.execute("SELECT DISTINCT cell FROM rows WHERE experiment = ?",
                                  (experiment,))
            return {row[0] for row in cur}

    def add(self, experiment: str, cell: Any, rows: Iterable[dict[str, Any]]) -> None:
        """Store all rows of one cell atomically."""
        key = self.key(cell)
        data = [(experiment, key, i, json.dumps(r, sort_keys=True)) for i, r in
                enumerate(rows)]
        with self._guard(), self.db:  # one transaction: all rows of the cell or none
            self.db.executemany(
                "INSERT OR IGNORE INTO rows (experiment, cell, idx, data) VALUES (?, ?, ?, ?)",
                data)

    def rows(self, experiment: str, schema: RowSchema | None = None) -> list[dict[str, Any]]:
        """Every stored row of ``experiment``, in cell-key then row order; each checked
        against ``schema`` (:func:`check_row`) when one is given."""
        with self._guard():
            cur = self.db.execute("SELECT data FROM rows WHERE experiment = ? "
                                  "ORDER BY cell, idx", (experiment,))
            return [self._decode(row[0], schema) for row in cur]

    def rows_of(self, experiment: str, cells: Iterable[Any],
                schema: RowSchema | None = None) -> list[dict[str, Any]]:
        """The stored rows of the given ``cells`` only (a store may hold other runs),
        checked against ``schema`` when one is given."""
        keys = {self.key(c) for c in cells}
        with self._guard():
            cur = self.db.execute("SELECT cell, data FROM rows WHERE experiment = ? "
                                  "ORDER BY cell, idx", (experiment,))
            return [self._decode(data, schema) for cell, data in cur if cell in keys]

    def _decode(self, data: Any, schema: RowSchema | None = None) -> dict[str, Any]:
        try:
            row = json.loads(data)
        except (TypeError, ValueError, RecursionError):
            row = None
        if not isinstance(row, dict):
            raise StoreError(self.path, f"a stored row is not a JSON object "
                             f"({str(data)[:30]!r}...): the store is damaged; {_AFRESH}")
        if schema is not None:
            problem = check_row(row, schema)
            if problem:
                raise StoreError(self.path, f"a stored row is not a row this experiment "
                                 f"writes ({problem}): the store is damaged or was written "
                                 f"by another version; {_AFRESH}")
        return row

    def close(self) -> None:
        self.db.close()


#: A row's expected fields: name -> kind. Kinds: ``"text"``, ``"int"``, ``"number"``
#: (finite, not a boolean), optionally with a lower bound (``"number>=1"``, ``"int>=0"``)
#: and a trailing ``"?"`` when ``null`` is allowed (``"number>=0?"``).
RowSchema = Mapping[str, str]


def check_row(row: Mapping[str, Any], schema: RowSchema) -> str | None:
    """What is wrong with ``row`` against ``schema`` (the first field that is missing, of
    the wrong type, not finite or below its bound), or ``None`` if nothing is.

    Fields not in the schema are not checked: experiments add informative fields freely,
    and the schema names those the tables and summaries read.

    >>> check_row({"seed": 3, "max_stretch": -5.0}, {"seed": "int>=0", "max_stretch": "number>=1?"})
    'max_stretch = -5.0: must be >= 1'
    """
    for name, kind in schema.items():
        if name not in row:
            return f"field {name!r} missing"
        value = row[name]
        nullable = kind.endswith("?")
        base, _, low = kind.rstrip("?").partition(">=")
        if value is None:
            if nullable:
                continue
            return f"{name} = null: must be a {base}"
        if base == "text":
            if not isinstance(value, str):
                return f"{name} = {value!r}: must be text"
            continue
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or (base == "int" and not isinstance(value, int)):
            what = "a whole number" if base == "int" else "a number"
            return f"{name} = {value!r}: must be {what}"
        if not math.isfinite(value):
            return f"{name} = {value!r}: must be finite"
        if low and value < float(low):
            return f"{name} = {value!r}: must be >= {low}"
    return None


def _read_pid(fd: int) -> int | None:
    """The pid the lock holder wrote into the lock file (``None`` if it has not written it
    within a few tens of milliseconds: it writes it right after taking the lock)."""
    for _ in range(5):
        try:
            text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        except OSError:
            return None
        if text.isdigit():
            return int(text)
        time.sleep(0.01)
    return None
