"""How the rows of :mod:`lpsched.core.store` map to typed SQLite columns and back.

A row field gets a column *kind* (:data:`KINDS`: ``int``, ``real``, ``text``, ``bool``,
``json``, or ``any`` for a column whose first values were all ``None``); :class:`Table` keeps
an experiment's columns and row shapes; :func:`encode` turns a row into INSERT parameters,
putting a value its column cannot give back exactly (an int in a REAL column, ``nan``,
``-0.0``, an integer beyond 64 bits, text SQLite cannot hold) into the row's ``_extra`` JSON
as well as, as SQLite best can, into its column (decisions 190-192). The store
itself (transactions, checks, locks, conversion of old stores) is :mod:`lpsched.core.store`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

#: the range of a SQLite INTEGER
INT_LOW, INT_HIGH = -(1 << 63), (1 << 63) - 1
PLAIN_TYPES = frozenset({type(None), bool, int, float, str, list, dict})
#: the bookkeeping columns that precede the fields in every experiment's table
BOOKKEEPING = ("_cell", "_idx", "_shape", "_extra")


def utf8(text: str) -> bool:
    """Whether SQLite can hold ``text`` (no lone surrogate).

    Parameters
    ----------
    text : str
        A value or field name.

    Returns
    -------
    bool
        ``False`` when it holds a lone surrogate (not encodable as UTF-8).
    """
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _fits_int(v: Any) -> bool:
    return type(v) is int and INT_LOW <= v <= INT_HIGH


def _fits_real(v: Any) -> bool:
    # nan reads back as NULL, -0.0 as 0.0 (SQLite keeps integral reals as integers)
    return type(v) is float and v == v and (v != 0.0 or math.copysign(1.0, v) > 0)


def _fits_text(v: Any) -> bool:
    return type(v) is str and utf8(v)


def _fits_bool(v: Any) -> bool:
    return type(v) is bool


def _fits_json(v: Any) -> bool:
    return type(v) is list or type(v) is dict


def _fits_any(v: Any) -> bool:
    t = type(v)
    return ((t is int and INT_LOW <= v <= INT_HIGH) or (t is float and v == v)
            or (t is str and utf8(v)))


def _dumps(v: Any) -> str:
    # sort_keys: nested objects read back in the key order of the JSON rows of old
    return json.dumps(v, sort_keys=True)


def _decode_bool(x: Any) -> Any:
    if x is None:
        return None
    if type(x) is int and x in (0, 1):
        return x == 1
    raise ValueError(f"{x!r} in a BOOLEAN column")


def _decode_json(x: Any) -> Any:
    if x is None:
        return None
    if type(x) is not str:
        raise ValueError(f"{x!r} in a JSON column")
    return json.loads(x)


Fits = Callable[[Any], bool]
Coder = Callable[[Any], Any]
#: kind -> (declared SQL type, does a value fit, value -> SQL, SQL -> value); ``None``: as is
KINDS: dict[str, tuple[str, Fits, Coder | None, Coder | None]] = {
    "int": ("INTEGER", _fits_int, None, None),
    "real": ("REAL", _fits_real, None, None),
    "text": ("TEXT", _fits_text, None, None),
    "bool": ("BOOLEAN", _fits_bool, int, _decode_bool),
    "json": ("JSON", _fits_json, _dumps, _decode_json),
    "any": ("", _fits_any, None, None),
}
#: row-schema kinds (:data:`RowSchema`) -> column kinds
SCHEMA_KINDS = {"int": "int", "number": "real", "text": "text"}


def kind_of(v: Any) -> str:
    """The column kind a first non-``None`` value asks for.

    Parameters
    ----------
    v : object
        A row's value.

    Returns
    -------
    str
        ``"bool"``, ``"int"``, ``"real"``, ``"text"``, ``"json"`` (a list or dict) or
        ``"any"`` (exact types only: a subclass is ``"any"``).
    """
    t = type(v)
    if t is bool:
        return "bool"
    if t is int:
        return "int"
    if t is float:
        return "real"
    if t is str:
        return "text"
    if t is list or t is dict:
        return "json"
    return "any"


def normal(v: Any) -> Any:
    """``v`` as the JSON rows of old gave it back (tuples as lists, a float subclass as a
    float); a value JSON cannot hold raises ``TypeError`` as it always did.

    Parameters
    ----------
    v : object
        A JSON-compatible value.

    Returns
    -------
    object
        The value after a JSON round trip.
    """
    return json.loads(json.dumps(v))


def loose(v: Any) -> Any:
    """Return what a column shows of a value it cannot give back exactly.

    The number, the text or the JSON text; ``None`` when SQLite has none. The exact value
    goes to the row's ``_extra``.

    Parameters
    ----------
    v : object
        The value a column cannot hold exactly.

    Returns
    -------
    object
        An int, float, str or ``None`` for the column.
    """
    t = type(v)
    if t is bool:
        return int(v)
    if t is int:
        if INT_LOW <= v <= INT_HIGH:
            return v
        try:
            return float(v)
        except OverflowError:
            return None
    if t is float or v is None:
        return v
    if t is str:
        return v if utf8(v) else None
    return _dumps(v)


def quote(name: str) -> str:
    """``name`` as an SQL identifier (double quotes, inner ones doubled).

    Parameters
    ----------
    name : str
        A table or column name.

    Returns
    -------
    str
        The quoted identifier.
    """
    return '"' + name.replace('"', '""') + '"'


def unique(name: str, taken: set[str]) -> str:
    """``name`` (made a legal identifier) with the first suffix ``_2``, ``_3``, ... that no
    name in ``taken`` has, ignoring case as SQLite does; added to ``taken``.

    Parameters
    ----------
    name : str
        The wanted name (a field's).
    taken : set of str
        The lower-cased names already used; the result's lower case is added.

    Returns
    -------
    str
        The name to use.
    """
    base = name.encode("utf-8", "replace").decode("utf-8").replace("\x00", "_") or "_"
    candidate, k = base, 2
    while candidate.lower() in taken:
        candidate, k = f"{base}_{k}", k + 1
    taken.add(candidate.lower())
    return candidate


class Table:
    """What the store knows of one experiment's table: columns and shapes."""

    def __init__(self, experiment: str, name: str) -> None:
        self.experiment, self.name = experiment, name
        self.fields: list[str] = []  # of the field columns, in table order
        self.kinds: list[str] = []
        self.names: list[str] = []
        #: field -> (position among the field columns, fits, encoder)
        self.coders: dict[str, tuple[int, Fits, Coder | None]] = {}
        self.decoders: dict[str, tuple[int, Coder | None]] = {}
        self.shapes: dict[int, tuple[str, ...]] = {}  # id -> sorted fields
        self.shape_ids: dict[tuple[str, ...], int] = {}
        self.order_ids: dict[tuple[str, ...], int] = {}  # fields in a row's own order -> id
        #: shape id -> ((field, index in a selected row or None, decoder), ...), complete
        self.specs: dict[int, tuple[tuple[tuple[str, int | None, Coder | None], ...], bool]] = {}
        self._sql: tuple[str, str] | None = None

    def add_column(self, field: str, name: str, kind: str) -> None:
        """Record the next field column of the table.

        Parameters
        ----------
        field : str
            The rows' field.
        name : str
            Its SQL column name (unique in the table).
        kind : str
            A key of :data:`KINDS` (``"int"``, ``"real"``, ``"text"``, ...).
        """
        _, fits, encode, decode = KINDS[kind]
        pos = len(self.fields)
        self.fields.append(field)
        self.kinds.append(kind)
        self.names.append(name)
        self.coders[field] = (pos, fits, encode)
        self.decoders[field] = (pos, decode)
        self.specs.clear()
        self._sql = None

    def add_shape(self, sid: int, fields: tuple[str, ...]) -> None:
        """Record the row shape ``sid``: the sorted fields a row of that shape has.

        Parameters
        ----------
        sid : int
            The shape's id, stored in each row's ``_shape``.
        fields : tuple of str
            The sorted field names of a row of that shape.
        """
        self.shapes[sid] = fields
        self.shape_ids[fields] = sid

    def sql(self) -> tuple[str, str]:
        """``(INSERT OR IGNORE ..., SELECT ...)`` of every column, rows in key order.

        Returns
        -------
        insert : str
            The INSERT statement, one ``?`` per bookkeeping and field column.
        select : str
            The SELECT of ``_cell``, ``_shape``, ``_extra`` and the field columns, ordered by cell
            and row index.
        """
        if self._sql is None:
            table = quote(self.name)
            cols = ", ".join([*BOOKKEEPING, *map(quote, self.names)])
            marks = ", ".join("?" * (len(BOOKKEEPING) + len(self.names)))
            picked = ", ".join(["_cell", "_shape", "_extra", *map(quote, self.names)])
            self._sql = (f"INSERT OR IGNORE INTO {table} ({cols}) VALUES ({marks})",
                         f"SELECT {picked} FROM {table} ORDER BY _cell, _idx")
        return self._sql


def keyed(row: Any) -> dict[str, Any]:
    """``row`` with text keys, as a JSON object of old (other keys through JSON).

    Parameters
    ----------
    row : object
        A row (a dict).

    Returns
    -------
    dict
        ``row`` itself when its keys are all str, else its JSON round trip (sorted keys).

    Raises
    ------
    TypeError
        ``row`` is not a dict, or holds a value JSON cannot hold.
    """
    if not isinstance(row, dict):
        raise TypeError(f"a row must be a dict, not {type(row).__name__}")
    if all(type(k) is str for k in row):
        return row
    normal = json.loads(json.dumps(row, sort_keys=True))
    assert isinstance(normal, dict)
    return normal


def encode(table: Table, key: str, idx: int, sid: int, row: dict[str, Any]) -> tuple[Any, ...]:
    """The INSERT parameters of one row: each value in its column when the column gives it
    back exactly, else shown there as SQLite best can and kept exactly in ``_extra``.

    Parameters
    ----------
    table : Table
        The experiment's table (its columns and coders).
    key : str
        The cell's key (:meth:`ResultStore.key`).
    idx : int
        The row's index within the cell.
    sid : int
        The row's shape id.
    row : dict
        The row.

    Returns
    -------
    tuple
        ``(key, idx, sid, extra JSON or None, *column values)``.
    """
    values: list[Any] = [None] * len(table.fields)
    extra: dict[str, Any] | None = None
    coders = table.coders
    for f, v in row.items():
        if type(v) not in PLAIN_TYPES:
            v = normal(v)
        coder = coders.get(f)
        if coder is None:  # a field beyond MAX_COLUMNS
            if extra is None:
                extra = {}
            extra[f] = v
        elif v is not None:
            pos, fits, encode = coder
            if fits(v):
                values[pos] = v if encode is None else encode(v)
            else:
                values[pos] = loose(v)
                if extra is None:
                    extra = {}
                extra[f] = v
    return (key, idx, sid, None if extra is None else _dumps(extra), *values)
