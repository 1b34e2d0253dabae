"""A result store that survives interruption: SQLite, one committed transaction per cell.

Rows are keyed by ``(experiment, cell)``; a cell's rows are inserted in a single transaction,
so a process killed at any moment leaves either all of a cell's rows or none, and a rerun
skips the cells already stored (``INSERT OR IGNORE`` on the key: never a duplicate).

**One typed table per experiment** (the value encoding is in
:mod:`lpsched.core.store_columns`). Each experiment's rows live in a table named after the
experiment, one column per row field, so ``pandas.read_sql("select * from cbs3m", con)``
(or :func:`lpsched.experiments.load`) gives numbers as numbers. A name that SQL does not take
bare is quoted, never changed: ``select * from "platform-level"``. Only a name SQLite
forbids or lpsched reserves gets a leading underscore (``rows``, names starting with
``sqlite_`` or ``lpsched_``; an empty name is ``_``), and a name another table already has
(compared ignoring case, as SQLite does) gets a suffix ``_2``, ``_3``, ...; the table
``lpsched_experiments`` maps each experiment to its table (:meth:`ResultStore.table`).
Columns:

- ``_cell`` (the cell's key, :meth:`ResultStore.key`) and ``_idx`` (the row's index within
  the cell): the primary key, which makes a rerun skip the stored cells;
- ``_shape``: which fields the row has (an id in ``lpsched_shapes``), so a field a row does
  not have stays absent when read back, distinct from a field whose value is ``None``;
- ``_extra``: ``NULL``, or a JSON object holding the exact value of each field of the row
  that its column cannot give back exactly (below);
- one column per field, named after it (a suffix as above when two fields differ only by
  case, or a field is named like a bookkeeping column), declared from the experiment's row
  schema when the runner is given one (``"int"`` as ``INTEGER``, ``"number"`` as ``REAL``,
  ``"text"`` as ``TEXT``; :data:`RowSchema`) or else from the first non-``None`` value met:
  ``INTEGER``, ``REAL``, ``TEXT``, ``BOOLEAN`` (0 or 1; read back as ``bool``) or ``JSON``
  (lists and dicts, as JSON text); a field that is ``None`` in every row that created it
  gets a column with no declared type. A field first met later adds a column
  (``ALTER TABLE ... ADD COLUMN``); an experiment has at most 500 field columns, further
  fields (and a field whose name SQLite cannot hold: a lone surrogate) are kept in
  ``_extra`` only.

A value its column cannot give back exactly — an ``int`` in a ``REAL`` column, a float in an
``INTEGER`` one, text in a number column, ``nan`` (SQLite stores ``NULL``), ``-0.0`` in a
``REAL`` column (SQLite stores ``0``), an integer beyond 64 bits, text SQLite cannot hold
(lone surrogates) — is written to its column as SQLite best can (the number, the text,
the JSON text; ``NULL`` when none) and, exactly, to the row's ``_extra``; reading gives the
``_extra`` value. :meth:`ResultStore.rows` therefore returns exactly the dictionaries the
JSON rows of earlier versions gave: the same fields (keys in sorted order), values and
types as ``json.loads(json.dumps(row))``.

**Stores of earlier versions.** A store written before the typed layout (a single table
``rows(experiment, cell, idx, data)`` of JSON rows) opens, reads and resumes unchanged; the
first write to it (:meth:`ResultStore.add`, so the first new cell of a resumed run) first
converts it in place, in the same transaction: every row moves to its experiment's typed
table and ``rows`` is dropped, so a killed conversion leaves the old store untouched. A
store only read (``lpsched plot box``, :func:`lpsched.experiments.load`) is never
modified; :meth:`ResultStore.migrate` converts one explicitly. The experiment being added
(and, for :meth:`~ResultStore.migrate`, every experiment given a schema) gets its columns
from its row schema as in a fresh store (the same columns, in the same order, with the same
declared types, for the same rows); the others from their first rows. A converted store cannot be
opened by an lpsched that predates the typed layout (it refuses it as not a store).

**Checked on opening.** A file that is not an lpsched store — garbage bytes, a truncated or
otherwise damaged SQLite file, a SQLite database with other tables or another ``rows``
table — raises :class:`~lpsched.errors.StoreError` naming the file and what to do (move it
away or choose another folder); so does a store that cannot be created or written
(permissions, a folder in its place), and one written by a newer lpsched. Nothing is ever
written into a file that failed these checks. Any SQLite error met later (a file damaged
while in use) is reported the same way, and so is a stored row that lpsched did not write
(an unknown shape, a malformed ``_extra`` or ``JSON`` value).

**One writer at a time.** :meth:`ResultStore.lock` takes an exclusive lock on the file
``<store>.lock`` beside the database (a POSIX ``fcntl`` record lock); :func:`run_cells
<lpsched.core.runner.run_cells>` holds it for the whole run. A second run on the same store
does not wait: it fails at once with ``StoreError`` "... is in use by another run (pid N)",
before computing anything (waiting would hang silently for as long as the first run lasts,
and then find its work done). A run that ends removes the lock file, while it still holds
the lock; a run that opened the file just before (and locks it once it is released) then
holds a lock on a file no longer at the path, so every locker checks, once it holds the
lock, that the file at the path is the one it locked (same device and inode) and starts
again with the file at the path otherwise: two runs never hold "the" lock at once, and no
``<store>.lock`` stays behind a finished run. The kernel drops the lock when the holding
process ends, even by ``kill -9`` (which leaves the file: it never blocks a later run); the
lock is not
inherited by worker processes forked from the holder (POSIX record locks belong to one
process), so orphaned workers cannot keep a dead run's lock (on a system without
``fcntl``, Windows, runs are not locked). Reading a store
(``rows``, ``done``) needs no lock: SQLite's WAL mode lets readers run beside the writer,
and each read runs in one transaction, so it sees whole cells only.
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

from lpsched.core.store_columns import (
    BOOKKEEPING,
    KINDS,
    PLAIN_TYPES,
    SCHEMA_KINDS,
    Coder,
    Table,
    encode,
    keyed,
    kind_of,
    normal,
    quote,
    unique,
    utf8,
)
from lpsched.errors import StoreError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX (Windows): runs are not locked there
    fcntl = None  # type: ignore[assignment]

#: The layout of earlier versions (read, then converted on the first write): one table of
#: JSON rows for every experiment.
_LEGACY_SCHEMA = """
CREATE TABLE IF NOT EXISTS rows (
    experiment TEXT NOT NULL,
    cell TEXT NOT NULL,
    idx INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (experiment, cell, idx)
)
"""
#: ``(name, declared type, not null, position in the primary key)`` of every column
_LEGACY_COLUMNS = [("experiment", "TEXT", 1, 1), ("cell", "TEXT", 1, 2),
                   ("idx", "INTEGER", 1, 3), ("data", "TEXT", 1, 0)]

#: ``PRAGMA user_version`` of a store with one typed table per experiment
FORMAT = 2
_META_SQL = (
    "CREATE TABLE IF NOT EXISTS lpsched_experiments (experiment TEXT NOT NULL PRIMARY KEY, "
    "table_name TEXT NOT NULL UNIQUE)",
    "CREATE TABLE IF NOT EXISTS lpsched_columns (experiment TEXT NOT NULL, field TEXT NOT "
    "NULL, column_name TEXT NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (experiment, field))",
    "CREATE TABLE IF NOT EXISTS lpsched_shapes (experiment TEXT NOT NULL, id INTEGER NOT "
    "NULL, fields TEXT NOT NULL, PRIMARY KEY (experiment, id))",
)
_META_COLUMNS = {
    "lpsched_experiments": [("experiment", "TEXT", 1, 1), ("table_name", "TEXT", 1, 0)],
    "lpsched_columns": [("experiment", "TEXT", 1, 1), ("field", "TEXT", 1, 2),
                        ("column_name", "TEXT", 1, 0), ("kind", "TEXT", 1, 0)],
    "lpsched_shapes": [("experiment", "TEXT", 1, 1), ("id", "INTEGER", 1, 2),
                       ("fields", "TEXT", 1, 0)],
}
#: at most this many field columns per experiment; further fields live in ``_extra`` only
#: (SQLite allows 2,000 columns and, before 3.32, 999 parameters per statement)
MAX_COLUMNS = 500
_AFRESH = "move it away or choose another folder to start a new store"
#: lock files held by this process (POSIX locks are per process: a second lock taken by
#: the same process would succeed, and closing it would silently drop the first)
_HELD: dict[str, int] = {}
#: how many times a locker starts again when the lock file it locked was removed meanwhile
_LOCK_TRIES = 50


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
    """A resumable store of experiment rows in one SQLite file (module doc).

    Parameters
    ----------
    path : str or Path
        The ``.sqlite`` file (created with its folder when missing), or ``":memory:"`` for
        a throw-away store.
    create : bool
        ``False`` opens an existing store only: a missing or empty file raises
        :class:`~lpsched.errors.StoreError` instead of becoming a new store (what readers
        use). Default ``True``.

    Raises
    ------
    lpsched.errors.StoreError
        ``path`` is not a usable result store: not an lpsched store, damaged, written by a
        newer lpsched, or not writable (module doc).
    """

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = str(path)
        self._lock_fd: int | None = None
        #: ``PRAGMA schema_version`` that the layout and tables below were read at
        self._version: int | None = None
        self._layout = "empty"  # "typed", "legacy" (one table of JSON rows) or "empty"
        self._tables: dict[str, Table] = {}
        if self.path != ":memory:":
            self._prepare_path(create)
        with self._guard():
            # autocommit: every operation below runs in one explicit transaction
            self.db = sqlite3.connect(self.path, isolation_level=None)
        try:
            with self._guard():
                self._open(create)
        except StoreError:
            self.db.close()
            raise

    def _prepare_path(self, create: bool) -> None:
        target = Path(self.path)
        if target.parent.exists() and not target.parent.is_dir():
            raise StoreError(self.path, f"{target.parent} is a file, not a folder: choose "
                             "another folder")
        if target.is_dir():
            raise StoreError(self.path, f"is a folder, not a result store; {_AFRESH}")
        if not create:
            if not target.exists():
                raise StoreError(self.path, "no such result store: check the path (a "
                                 "reproduction writes <out>/<experiment>.sqlite)")
            return
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(self.path, f"cannot create the folder {target.parent} "
                             f"({exc.strerror or exc})") from None
        if target.is_dir():
            raise StoreError(self.path, f"is a folder, not a result store; {_AFRESH}")

    def _open(self, create: bool) -> None:
        tables = dict(self.db.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
        if tables:
            self._check_schema(tables)
            self._check_integrity()
        elif not create:
            raise StoreError(self.path, "is empty, not a result store (nothing was ever "
                             "stored in it): check the path")
        self.db.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: a committed cell survives the process being killed at any moment
        # (only an operating-system crash could lose the last commits)
        self.db.execute("PRAGMA synchronous=NORMAL")
        if not tables:
            with self._transaction(write=True):
                self._create_meta()

    def _columns_of(self, table: str) -> list[tuple[str, str, int, int]]:
        return [(name, kind.upper(), notnull, pk) for _, name, kind, notnull, _, pk in
                self.db.execute(f"PRAGMA table_info({quote(table)})")]

    def _check_schema(self, tables: dict[str, str]) -> None:
        if any(name in tables for name in _META_COLUMNS):
            self._check_typed(tables)
            return
        if "rows" not in tables:
            names = ", ".join(sorted(tables)[:5])
            raise StoreError(self.path, f"a SQLite database but not an lpsched result store "
                             f"(its tables: {names}); {_AFRESH}")
        columns = self._columns_of("rows")
        if columns != _LEGACY_COLUMNS:
            shown = ", ".join(c[0] for c in columns)
            raise StoreError(self.path, f"a SQLite database whose 'rows' table is not an "
                             f"lpsched result store's (columns: {shown}); {_AFRESH}")

    def _check_typed(self, tables: dict[str, str]) -> None:
        for name, expected in _META_COLUMNS.items():
            columns = self._columns_of(name) if name in tables else []
            if columns != expected:
                shown = ", ".join(c[0] for c in columns) or "missing"
                raise StoreError(self.path, f"a SQLite database whose '{name}' table is not "
                                 f"an lpsched result store's (columns: {shown}); {_AFRESH}")
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > FORMAT:
            raise StoreError(self.path, f"written by a newer lpsched (store format {version}; "
                             f"this one reads formats up to {FORMAT}): upgrade lpsched, or "
                             "choose another folder")
        if version != FORMAT:
            raise StoreError(self.path, f"has lpsched's tables but not its format number "
                             f"(user_version {version}, expected {FORMAT}): the store is "
                             f"damaged; {_AFRESH}")
        expected_columns: dict[str, list[str]] = {}
        for experiment, column in self.db.execute(
                "SELECT experiment, column_name FROM lpsched_columns ORDER BY rowid"):
            expected_columns.setdefault(experiment, []).append(column)
        for experiment, table in self.db.execute(
                "SELECT experiment, table_name FROM lpsched_experiments").fetchall():
            have = {c[0].lower() for c in self._columns_of(table)} if table in tables else set()
            missing = [c for c in [*BOOKKEEPING, *expected_columns.get(experiment, [])]
                       if str(c).lower() not in have]
            if missing:
                what = (f"its table {table!r} is missing" if not have else
                        f"its table {table!r} lacks the columns {', '.join(missing[:5])}")
                raise StoreError(self.path, f"the rows of experiment {experiment!r} are not "
                                 f"where lpsched put them ({what}): the store is damaged; "
                                 f"{_AFRESH}")

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

    @contextlib.contextmanager
    def _transaction(self, write: bool) -> Iterator[None]:
        """One transaction (``BEGIN IMMEDIATE`` to write: the write lock first), the layout
        and tables re-read when another connection changed the schema (a new experiment or
        column, a conversion); rolled back, and the cached tables dropped, on any error."""
        with self._guard():
            self.db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                self._sync()
                yield
                if write:
                    self._version = self.db.execute("PRAGMA schema_version").fetchone()[0]
                self.db.execute("COMMIT")
            except BaseException:
                self._version = None
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
                raise

    def _sync(self) -> None:
        version = self.db.execute("PRAGMA schema_version").fetchone()[0]
        if version == self._version:
            return
        names = {name for (name,) in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        self._tables = {}
        if "lpsched_experiments" in names:
            self._layout = "typed"
            self._load_tables()
        else:
            self._layout = "legacy" if "rows" in names else "empty"
        self._version = version

    def _damaged(self, what: str) -> StoreError:
        return StoreError(self.path, f"{what}: the store is damaged or was written by another "
                          f"program; {_AFRESH}")

    def _load_tables(self) -> None:
        tables = {experiment: Table(experiment, name) for experiment, name in self.db.execute(
            "SELECT experiment, table_name FROM lpsched_experiments")}
        for experiment, field, name, kind in self.db.execute(
                "SELECT experiment, field, column_name, kind FROM lpsched_columns "
                "ORDER BY rowid"):
            table = tables.get(experiment)
            if table is None or kind not in KINDS or field in table.coders:
                raise self._damaged(f"lpsched_columns has a row lpsched did not write "
                                    f"({experiment!r}, {field!r}, {kind!r})")
            table.add_column(field, name, kind)
        for experiment, sid, fields in self.db.execute(
                "SELECT experiment, id, fields FROM lpsched_shapes"):
            table = tables.get(experiment)
            if table is None:
                raise self._damaged(f"lpsched_shapes names an unknown experiment "
                                    f"{experiment!r}")
            table.add_shape(sid, self._parse_shape(fields))
        self._tables = tables

    def _parse_shape(self, text: Any) -> tuple[str, ...]:
        try:
            fields = json.loads(text)
        except (TypeError, ValueError, RecursionError):
            fields = None
        if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
            raise self._damaged(f"lpsched_shapes holds {str(text)[:30]!r}, not a list of "
                                "field names")
        return tuple(fields)

    def _create_meta(self) -> None:
        for sql in _META_SQL:
            self.db.execute(sql)
        self.db.execute(f"PRAGMA user_version = {FORMAT}")
        self._layout = "typed"

    @staticmethod
    def key(cell: Any) -> str:
        """The text key of ``cell`` in the store: its JSON with sorted keys (what :meth:`done`
        returns and :func:`~lpsched.core.runner.run_cells` compares to skip finished cells).

        Parameters
        ----------
        cell : object
            A JSON-ready cell description (e.g. ``{"seed": 3, "policy": "fifo-rr"}``).

        Returns
        -------
        str
            ``json.dumps(cell, sort_keys=True)``.
        """
        return json.dumps(cell, sort_keys=True)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the store's exclusive writer lock for the block (module doc).

        A store in use by another run raises :class:`~lpsched.errors.StoreError` at once.
        A no-op for ``":memory:"``. Not re-entrant.

        Yields
        ------
        None
            The lock is held inside the block.

        Raises
        ------
        StoreError
            The store is in use by another run (or already locked by this process), or the
            lock file cannot be created.
        """
        if self.path == ":memory:" or fcntl is None:
            yield
            return
        lock_path = self.path + ".lock"
        key = os.path.realpath(lock_path)
        if key in _HELD:
            raise StoreError(self.path, "is already in use by this process")
        fd = self._acquire(lock_path)
        _HELD[key] = fd
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            yield
        finally:
            del _HELD[key]
            with contextlib.suppress(OSError):  # removed while held (module doc)
                if _same_file(fd, lock_path):
                    os.unlink(lock_path)
            os.close(fd)  # releases the lock

    def _acquire(self, lock_path: str) -> int:
        """A descriptor of ``lock_path`` holding its exclusive lock, once the file locked is
        still the one at the path (module doc: a finishing run removes it while it holds
        it); a :class:`StoreError` when another run holds it."""
        assert fcntl is not None
        for _ in range(_LOCK_TRIES):
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
                raise StoreError(self.path, f"is in use by another run ({who}); wait for it "
                                 "to finish, or choose another folder") from None
            if _same_file(fd, lock_path):
                return fd
            os.close(fd)  # removed (or replaced) by the run that held it: lock the new one
        raise StoreError(self.path, f"the lock file {lock_path} keeps being removed by other "
                         "runs; wait for them to finish, or choose another folder")

    # -- reading ---------------------------------------------------------------------------

    def experiments(self) -> list[str]:
        """The experiments with rows in the store.

        Returns
        -------
        list of str
            Their names, sorted.
        """
        with self._transaction(write=False):
            if self._layout == "legacy":
                return [e for (e,) in self.db.execute(
                    "SELECT DISTINCT experiment FROM rows ORDER BY experiment")]
            return sorted(self._tables)

    def table(self, experiment: str) -> str | None:
        """The SQL table of ``experiment``'s rows.

        Parameters
        ----------
        experiment : str
            The experiment's name (e.g. ``"cbs3m"``).

        Returns
        -------
        str or None
            The table's name (quote it in SQL: ``select * from "platform-level"``), or
            ``None`` when the experiment has no rows or the store still has the layout of
            earlier versions (module doc).
        """
        with self._transaction(write=False):
            table = self._tables.get(experiment)
            return None if table is None else table.name

    def fields(self, experiment: str) -> list[str]:
        """The fields of ``experiment``'s rows.

        Parameters
        ----------
        experiment : str
            The experiment's name (e.g. ``"cbs3m"``).

        Returns
        -------
        list of str
            In the order of its table's columns, then the fields kept in ``_extra`` only
            (sorted); ``[]`` for a store of earlier versions or an unknown experiment.
        """
        with self._transaction(write=False):
            table = self._tables.get(experiment)
            if table is None:
                return []
            rest = {f for fields in table.shapes.values() for f in fields} - set(table.fields)
            return [*table.fields, *sorted(rest)]

    def done(self, experiment: str) -> set[str]:
        """Keys of the cells already stored for ``experiment``.

        Parameters
        ----------
        experiment : str
            The experiment's name (e.g. ``"cbs3m"``).

        Returns
        -------
        set of str
            Their :meth:`key` texts.
        """
        with self._transaction(write=False):
            if self._layout == "legacy":
                cur = self.db.execute("SELECT DISTINCT cell FROM rows WHERE experiment = ?",
                                      (experiment,))
                return {row[0] for row in cur}
            table = self._tables.get(experiment)
            if table is None:
                return set()
            return {row[0] for row in self.db.execute(
                f"SELECT DISTINCT _cell FROM {quote(table.name)}")}

    def rows(self, experiment: str, schema: RowSchema | None = None) -> list[dict[str, Any]]:
        """Every stored row of ``experiment``, in cell-key then row order; each checked
        against ``schema`` (:func:`check_row`) when one is given.

        Parameters
        ----------
        experiment : str
            The experiment's name (e.g. ``"cbs3m"``).
        schema : RowSchema or None
            The fields to check in each row read (name -> kind, :data:`RowSchema`); ``None``
            (default): no check.

        Returns
        -------
        list of dict
            The rows as they were added.

        Raises
        ------
        StoreError
            A stored row that is not a JSON object or fails ``schema``.
        """
        return self._read(experiment, None, schema)

    def rows_of(self, experiment: str, cells: Iterable[Any],
                schema: RowSchema | None = None) -> list[dict[str, Any]]:
        """The stored rows of the given ``cells`` only (a store may hold other runs),
        checked against ``schema`` when one is given.

        Parameters
        ----------
        experiment : str
            The experiment's name (e.g. ``"cbs3m"``).
        cells : iterable
            The cells whose rows are wanted (compared by :meth:`key`).
        schema : RowSchema or None
            The fields to check in each row read (name -> kind, :data:`RowSchema`); ``None``
            (default): no check.

        Returns
        -------
        list of dict
            The rows as they were added.

        Raises
        ------
        StoreError
            A stored row that is not a JSON object or fails ``schema``.
        """
        return self._read(experiment, {self.key(c) for c in cells}, schema)

    def _read(self, experiment: str, keys: set[str] | None,
              schema: RowSchema | None) -> list[dict[str, Any]]:
        with self._transaction(write=False):
            if self._layout == "legacy":
                cur = self.db.execute("SELECT cell, data FROM rows WHERE experiment = ? "
                                      "ORDER BY cell, idx", (experiment,))
                found = [self._decode(data) for cell, data in cur
                         if keys is None or cell in keys]
            else:
                table = self._tables.get(experiment)
                if table is None:
                    return []
                cur = self.db.execute(table.sql()[1])
                found = [self._row(table, r) for r in cur if keys is None or r[0] in keys]
        if schema is not None:
            for row in found:
                problem = check_row(row, schema)
                if problem:
                    raise StoreError(self.path, f"a stored row is not a row this experiment "
                                     f"writes ({problem}): the store is damaged or was "
                                     f"written by another version; {_AFRESH}")
        return found

    def _decode(self, data: Any) -> dict[str, Any]:
        """A JSON row of the layout of earlier versions."""
        try:
            row = json.loads(data)
        except (TypeError, ValueError, RecursionError):
            row = None
        if not isinstance(row, dict):
            raise StoreError(self.path, f"a stored row is not a JSON object "
                             f"({str(data)[:30]!r}...): the store is damaged; {_AFRESH}")
        return row

    def _spec(self, table: Table, sid: Any) -> tuple[tuple[tuple[str, int | None,
                                                              Coder | None], ...], bool]:
        """How to read the rows of shape ``sid`` (the shape re-read from the database when
        another connection added it after this one loaded the table)."""
        spec = table.specs.get(sid)
        if spec is not None:
            return spec
        fields = table.shapes.get(sid)
        if fields is None:
            found = self.db.execute("SELECT fields FROM lpsched_shapes WHERE experiment = ? "
                                    "AND id = ?", (table.experiment, sid)).fetchone()
            if found is None:
                raise self._damaged(f"a row of {table.name!r} has the unknown shape {sid!r}")
            fields = self._parse_shape(found[0])
            table.add_shape(sid, fields)
        at = len(BOOKKEEPING) - 1  # the SELECT leaves _idx out
        items = []
        for f in fields:
            pos, decode = table.decoders.get(f, (None, None))
            items.append((f, None if pos is None else at + pos, decode))
        spec = (tuple(items), all(pos is not None for _, pos, _ in items))
        table.specs[sid] = spec
        return spec

    def _row(self, table: Table, r: tuple[Any, ...]) -> dict[str, Any]:
        """One selected row as the dict that was stored (keys sorted, as the JSON rows of
        earlier versions had them)."""
        try:
            spec, complete = self._spec(table, r[1])
            if r[2] is None and complete:
                return {f: (r[p] if dec is None else dec(r[p]))  # type: ignore[index]
                        for f, p, dec in spec}
            extra = {} if r[2] is None else json.loads(r[2])
            if not isinstance(extra, dict):
                raise ValueError(f"_extra {str(r[2])[:30]!r} is not a JSON object")
            row = {}
            for f, p, dec in spec:
                if f in extra:
                    row[f] = extra[f]
                elif p is None:
                    raise ValueError(f"no value for the field {f!r}")
                else:
                    row[f] = r[p] if dec is None else dec(r[p])
            if len(extra) > len(row) or any(f not in row for f in extra):
                raise ValueError(f"_extra has fields the row does not have: {sorted(extra)}")
            return row
        except (TypeError, ValueError, RecursionError) as exc:
            raise self._damaged(f"a row of the table {table.name!r} (cell {r[0]!r}) is not "
                                f"one lpsched wrote ({exc})") from None

    # -- writing ---------------------------------------------------------------------------

    def add(self, experiment: str, cell: Any, rows: Iterable[dict[str, Any]],
            schema: RowSchema | None = None) -> None:
        """Store all rows of one cell atomically, in one transaction.

        ``schema`` (the experiment's :data:`RowSchema`, optional) declares the types of the
        columns it creates (also when this first write converts a store of earlier
        versions: the experiment's table is then the one a fresh store would have); the
        rows read back the same with or without it.

        Parameters
        ----------
        experiment : str
            The experiment's name (e.g. ``"cbs3m"``).
        cell : object
            The cell the rows belong to (JSON-ready; stored by :meth:`key`).
        rows : iterable of dict
            The rows, JSON-ready; nothing is written when empty.
        schema : RowSchema or None
            The types of the columns the rows create; ``None`` (default): inferred.
        """
        key = self.key(cell)
        items = [(key, i, keyed(r)) for i, r in enumerate(rows)]
        if not items:
            return
        with self._transaction(write=True):  # one transaction: all rows of the cell or none
            if self._layout == "legacy":  # typed as a fresh store: this experiment's schema
                self._migrate({experiment: schema} if schema is not None else {})
            elif self._layout == "empty":
                self._create_meta()
            self._insert(experiment, items, schema)

    def migrate(self, schemas: Mapping[str, RowSchema] | None = None) -> bool:
        """Convert a store of earlier versions (one table of JSON rows) to one typed table
        per experiment, in place and in one transaction (module doc); :meth:`add` does it
        before its first write.

        Parameters
        ----------
        schemas : mapping of str to RowSchema, optional
            The row schema of some experiments: their tables get the columns, column order
            and declared types a fresh store gets from it; the others are typed from their
            first rows.

        Returns
        -------
        bool
            ``False`` when the store had nothing to convert.

        Raises
        ------
        lpsched.errors.StoreError
            A stored row is not a JSON object (the store is left as it was).
        """
        with self._transaction(write=True):
            if self._layout != "legacy":
                return False
            self._migrate(schemas or {})
            return True

    def _migrate(self, schemas: Mapping[str, RowSchema]) -> None:
        experiments = [e for (e,) in self.db.execute(
            "SELECT DISTINCT experiment FROM rows ORDER BY experiment").fetchall()]
        self._create_meta()
        for experiment in experiments:
            stored = self.db.execute("SELECT cell, idx, data FROM rows WHERE experiment = ? "
                                     "ORDER BY cell, idx", (experiment,)).fetchall()
            for start in range(0, len(stored), 2000):  # the first rows declare the columns
                self._insert(experiment, [(cell, idx, self._decode(data)) for cell, idx, data
                                          in stored[start:start + 2000]],
                             schemas.get(experiment))
        self.db.execute("DROP TABLE rows")

    def _insert(self, experiment: str, items: list[tuple[str, int, dict[str, Any]]],
                schema: RowSchema | None) -> None:
        table = self._tables.get(experiment)
        if table is None:
            table = self._create_table(experiment, items, schema)
        sids = []
        for _, _, row in items:
            sid = table.order_ids.get(tuple(row))
            if sid is None:
                self._add_columns(table, row, items, schema)
                sid = self._shape_id(table, row)
            sids.append(sid)
        insert = table.sql()[0]
        self.db.executemany(insert, [encode(table, key, idx, sid, row) for (key, idx, row), sid
                                     in zip(items, sids, strict=True)])

    def _create_table(self, experiment: str, items: list[tuple[str, int, dict[str, Any]]],
                      schema: RowSchema | None) -> Table:
        taken = {name.lower() for (name,) in self.db.execute("SELECT name FROM sqlite_master")}
        taken |= {t.name.lower() for t in self._tables.values()}
        name = experiment
        low = name.lower()
        if low == "rows" or low.startswith(("sqlite_", "lpsched_")):
            name = "_" + name
        table = Table(experiment, unique(name, taken))
        self.db.execute(f"CREATE TABLE {quote(table.name)} (_cell TEXT NOT NULL, _idx INTEGER "
                        "NOT NULL, _shape INTEGER NOT NULL, _extra TEXT, PRIMARY KEY (_cell, "
                        "_idx))")
        self.db.execute("INSERT INTO lpsched_experiments (experiment, table_name) VALUES (?, ?)",
                        (experiment, table.name))
        self._tables[experiment] = table
        fields = dict.fromkeys(schema or ())
        for _, _, row in items:
            fields.update(dict.fromkeys(row))
        self._add_fields(table, list(fields), items, schema)
        return table

    def _add_columns(self, table: Table, row: dict[str, Any],
                     items: list[tuple[str, int, dict[str, Any]]],
                     schema: RowSchema | None) -> None:
        new = [f for f in row if f not in table.coders]
        if new:
            self._add_fields(table, new, items, schema)

    def _add_fields(self, table: Table, fields: list[str],
                    items: list[tuple[str, int, dict[str, Any]]],
                    schema: RowSchema | None) -> None:
        """Columns for ``fields`` (up to :data:`MAX_COLUMNS`): the kind from ``schema``, or
        from the first non-``None`` value among ``items``."""
        taken = {b.lower() for b in BOOKKEEPING} | {n.lower() for n in table.names}
        quoted = quote(table.name)
        for field in fields:
            if len(table.fields) >= MAX_COLUMNS:
                return
            if field in table.coders or not utf8(field):  # SQLite cannot name it
                continue
            kind = SCHEMA_KINDS.get(str((schema or {}).get(field, "")).rstrip("?")
                                     .partition(">=")[0])
            if kind is None:
                values = (row.get(field) for _, _, row in items)
                first = next((v for v in values if v is not None), None)
                kind = kind_of(first if type(first) in PLAIN_TYPES else normal(first))
            name = unique(field, taken)
            declared = KINDS[kind][0]
            self.db.execute(f"ALTER TABLE {quoted} ADD COLUMN {quote(name)} {declared}"
                            .rstrip())
            self.db.execute("INSERT INTO lpsched_columns (experiment, field, column_name, "
                            "kind) VALUES (?, ?, ?, ?)", (table.experiment, field, name, kind))
            table.add_column(field, name, kind)

    def _shape_id(self, table: Table, row: dict[str, Any]) -> int:
        fields = tuple(sorted(row))
        sid = table.shape_ids.get(fields)
        if sid is None:
            text = json.dumps(list(fields))
            found = self.db.execute("SELECT id FROM lpsched_shapes WHERE experiment = ? AND "
                                    "fields = ?", (table.experiment, text)).fetchone()
            if found is None:
                found = self.db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM lpsched_shapes "
                                        "WHERE experiment = ?", (table.experiment,)).fetchone()
                self.db.execute("INSERT INTO lpsched_shapes (experiment, id, fields) VALUES "
                                "(?, ?, ?)", (table.experiment, found[0], text))
            sid = int(found[0])
            table.add_shape(sid, fields)
        table.order_ids[tuple(row)] = sid
        return sid

    def close(self) -> None:
        """Close the SQLite connection; the store cannot be used afterwards."""
        self.db.close()


#: A row's expected fields: name -> kind. Kinds: ``"text"``, ``"int"``, ``"number"``
#: (finite, not a boolean), optionally with a lower bound (``"number>=1"``, ``"int>=0"``)
#: and a trailing ``"?"`` when ``null`` is allowed (``"number>=0?"``).
RowSchema = Mapping[str, str]


def check_row(row: Mapping[str, Any], schema: RowSchema) -> str | None:
    """Check ``row`` against ``schema`` and say what is wrong, or ``None`` if nothing is.

    The answer names the first field that is missing, of the wrong type, not finite or
    below its bound. Fields not in the schema are not checked: experiments add informative
    fields freely, and the schema names those the tables and summaries read.

    Parameters
    ----------
    row : mapping
        One row.
    schema : RowSchema
        Field name -> kind (``"text"``, ``"int"``, ``"number"``, optionally ``">=bound"``
        and a trailing ``"?"`` when null is allowed).

    Returns
    -------
    str or None
        The first problem as a phrase, or ``None``.

    Examples
    --------
    >>> check_row({"seed": 3, "max_stretch": -5.0},
    ...           {"seed": "int>=0", "max_stretch": "number>=1?"})
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


def _same_file(fd: int, path: str) -> bool:
    """Whether the open file ``fd`` is the file at ``path`` (same device and inode); a
    missing ``path`` is not."""
    try:
        held, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (held.st_dev, held.st_ino) == (there.st_dev, there.st_ino)


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
