"""The rows of a result store as a pandas DataFrame, one column per field.

``lpsched reproduce <experiment> --out DIR`` keeps every row it computes in the result store
``DIR/<experiment>.sqlite`` (:mod:`lpsched.core.store`): one SQL table per experiment, one
typed column per field. :func:`load` returns an experiment's rows as a DataFrame, exactly as
the reproduction read them to write its CSV files; :func:`experiments` lists a store's
experiments. SQL works too, on the same file::

    import sqlite3
    import pandas as pd
    pd.read_sql('select * from "cbs3m"', sqlite3.connect("results/cbs3m.sqlite"))

(the SQL table also shows the store's bookkeeping columns ``_cell``, ``_idx``, ``_shape`` and
``_extra``; :func:`load` leaves them out and gives each value its exact Python type).

A field that holds a list of numbers per row (``solve_seconds`` of the CBS3M and MWMA
rows of ``reproduce cbs3m``: the wall time of each LP solve, s; ``histogram_0_15`` of
``reproduce ostrich``) is something pandas cannot sum or plot as it is; :func:`load`
handles it as its ``lists`` argument says:

``"summary"`` (default)
    keeps the list column and adds after it ``<name>_count`` (the list's length),
    ``<name>_sum`` and ``<name>_max`` (``float64``, in the field's unit). An empty list
    has count 0, sum 0.0 and max ``NaN``. A row without the list (the field absent, as in
    the rows of the policies that solve no LP, or ``None``) has all three missing
    (``NaN``), never an invented 0: like any number field some rows lack,
    ``<name>_count`` is then ``float64``; ``int64`` when every row has a list.
``"explode"``
    one row per element of the lists (``float64`` values, the row's other fields
    repeated, one ``NaN`` row for an empty or missing list; the index repeats the stored
    row's position). The list fields of a row must have one length (else an error says
    so: explode one field of ``lists="keep"`` with ``DataFrame.explode``).
``"keep"``
    leaves the Python lists (missing in a row without the field).

>>> import pathlib, shutil, tempfile
>>> from lpsched.core import ResultStore
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> store = ResultStore(folder / "solves.sqlite")
>>> store.add("cbs3m", [1], [{"policy": "cbs3m", "solve_seconds": [0.5, 1.5]},
...                          {"policy": "mwma-ms", "solve_seconds": []},
...                          {"policy": "fifo-mct"}])
>>> store.close()
>>> load(folder / "solves.sqlite").drop(columns="solve_seconds")
     policy  solve_seconds_count  solve_seconds_sum  solve_seconds_max
0     cbs3m                  2.0                2.0                1.5
1   mwma-ms                  0.0                0.0                NaN
2  fifo-mct                  NaN                NaN                NaN
>>> load(folder / "solves.sqlite", lists="explode")
     policy  solve_seconds
0     cbs3m            0.5
0     cbs3m            1.5
1   mwma-ms            NaN
2  fifo-mct            NaN
>>> shutil.rmtree(folder)

pandas is an optional dependency (``pip install 'lpsched[pandas]'``), imported by
:func:`load` only. The results of lpsched's solvers, simulators and algorithms give their
own DataFrames with ``to_frame()`` (:mod:`lpsched.core.frames`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from lpsched.core import frames
from lpsched.core.store import ResultStore
from lpsched.errors import LpschedError

__all__ = ["experiments", "load"]


#: What :func:`load` does with a field holding lists of numbers.
LISTS = ("summary", "explode", "keep")


def _pandas() -> Any:
    return frames.pandas("lpsched.experiments.load")


def _number_list_fields(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    """The fields whose values are all lists of numbers (or missing), in some row a list."""
    found = []
    for name in columns:
        values = [row[name] for row in rows if row.get(name) is not None]
        if values and all(frames.number_lists(name, v) is not None for v in values):
            found.append(name)
    return found


def experiments(path: str | Path) -> list[str]:
    """The names of the experiments stored in the result store ``path``, sorted.

    Parameters
    ----------
    path : str or pathlib.Path
        A result store (``<out>/<experiment>.sqlite`` of ``lpsched reproduce``), of this
        version or an earlier one; it is not modified.

    Returns
    -------
    list of str
        The experiments with at least one stored row.

    Raises
    ------
    lpsched.errors.StoreError
        ``path`` is missing, empty, damaged or not a result store.

    Examples
    --------
    >>> import pathlib, shutil, tempfile
    >>> from lpsched.core import ResultStore
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> store = ResultStore(folder / "demo.sqlite")
    >>> store.add("cbs3m", [1, "fifo-mct"], [{"seed": 1, "policy": "fifo-mct"}])
    >>> store.add("platform-level", [1], [{"seed": 1, "alloc": "basic"}])
    >>> store.close()
    >>> experiments(folder / "demo.sqlite")
    ['cbs3m', 'platform-level']
    >>> shutil.rmtree(folder)
    """
    store = ResultStore(path, create=False)
    try:
        return store.experiments()
    finally:
        store.close()


def load(path: str | Path, experiment: str | None = None, lists: str = "summary") -> Any:
    """The rows of one experiment of the result store ``path`` as a pandas DataFrame.

    One DataFrame row per stored row, in the order the reproductions read them (cell key,
    then row index); one column per field, in the order of the store's table (the fields
    the experiment declares first, then as they were first met). A field a row does not
    have is missing (``NaN``) in that row, never a value made up for it: a store whose
    experiments give some rows fields the others lack (the CBS3M rows' ``solve_seconds``,
    the egee rows of ``reproduce ostrich``) loads whole. Values are those the reproduction
    stored: numbers give numeric columns (``int64``, or ``float64`` when some rows have
    none), booleans ``bool`` columns (``object`` when some rows have none), text and lists
    ``object`` (or pandas' string) columns.

    A field of lists of numbers is summarised (count, sum, max; missing in a row without
    the list), exploded or kept as ``lists`` says (module doc).

    Parameters
    ----------
    path : str or pathlib.Path
        A result store (``<out>/<experiment>.sqlite`` of ``lpsched reproduce``), of this
        version or an earlier one; it is not modified.
    experiment : str, optional
        The experiment to load; may be left out when the store holds one experiment only.
    lists : {"summary", "explode", "keep"}
        What to do with the fields that hold lists of numbers (module doc).

    Returns
    -------
    pandas.DataFrame
        The experiment's rows.

    Raises
    ------
    lpsched.errors.StoreError
        ``path`` is missing, empty, damaged or not a result store.
    lpsched.errors.LpschedError
        ``experiment`` is not in the store, or is left out while the store holds several
        (the message lists them); ``lists`` is unknown; ``lists="explode"`` on a row
        whose list fields differ in length; pandas is not installed.

    Examples
    --------
    >>> import pathlib, shutil, tempfile
    >>> from lpsched.core import ResultStore
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> store = ResultStore(folder / "cbs3m.sqlite")
    >>> for seed in (1, 2):
    ...     store.add("cbs3m", [seed], [
    ...         {"seed": seed, "policy": "fifo-mct", "max_stretch": 1.5 * seed, "ok": True},
    ...         {"seed": seed, "policy": "spt-mct", "max_stretch": None, "ok": False}])
    >>> store.close()
    >>> frame = load(folder / "cbs3m.sqlite")
    >>> frame
       seed    policy  max_stretch     ok
    0     1  fifo-mct          1.5   True
    1     1   spt-mct          NaN  False
    2     2  fifo-mct          3.0   True
    3     2   spt-mct          NaN  False
    >>> [str(frame[name].dtype) for name in ("seed", "max_stretch", "ok")]
    ['int64', 'float64', 'bool']
    >>> shutil.rmtree(folder)
    """
    if lists not in LISTS:
        raise LpschedError(f"lists={lists!r}: expected one of {', '.join(map(repr, LISTS))}")
    pandas = _pandas()
    rows, order = _stored_rows(path, experiment)
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    columns = [f for f in order if f in seen] + [f for f in seen if f not in order]
    frame = pandas.DataFrame.from_records(rows, columns=columns)
    listed = _number_list_fields(rows, columns) if lists != "keep" else []
    return _number_lists(frame, listed, lists, path) if listed else frame


def _stored_rows(path: str | Path, experiment: str | None,
                 ) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows of ``experiment`` (the only one when ``None``) and the store's field order;
    :class:`~lpsched.errors.LpschedError` naming the store's experiments otherwise."""
    store = ResultStore(path, create=False)
    try:
        names = store.experiments()
        if experiment is None:
            if len(names) != 1:
                held = (f"holds {len(names)} experiments ({', '.join(map(repr, names))}): "
                        "name the one to load" if names else "holds no experiment yet")
                raise LpschedError(f"{path}: {held}")
            experiment = names[0]
        elif experiment not in names:
            held = ", ".join(map(repr, names)) or "none"
            raise LpschedError(f"{path}: no experiment {experiment!r} in this store (its "
                               f"experiments: {held})")
        return store.rows(experiment), store.fields(experiment)
    finally:
        store.close()


def _number_lists(frame: Any, listed: list[str], lists: str, path: str | Path) -> Any:
    """``frame`` with its fields of lists of numbers ``listed`` summarised or exploded, as
    :func:`load`'s ``lists`` says."""
    if lists == "explode":
        return _explode(frame, listed, path)
    for name in reversed(listed):
        at = frame.columns.get_loc(name) + 1
        stats = [frames.number_lists(name, v) for v in frame[name]]  # None: no list
        # a row without the list has no count (NaN), as load gives any absent number
        count = np.asarray([st[f"{name}_count"] if st else np.nan for st in stats])
        frame.insert(at, f"{name}_count", count.astype(np.int64)
                     if all(stats) else count.astype(float))
        for offset, key in enumerate(("sum", "max"), start=1):
            values = [st[f"{name}_{key}"] if st else np.nan for st in stats]
            frame.insert(at + offset, f"{name}_{key}", np.asarray(values, dtype=float))
    return frame


def _explode(frame: Any, listed: list[str], path: str | Path) -> Any:
    """``frame`` with one row per element of its fields of lists of numbers ``listed``;
    :class:`~lpsched.errors.LpschedError` naming the first row whose lists differ in
    length."""
    for name in listed:  # no list -> [] so that explode gives one NaN row
        frame[name] = [v if isinstance(v, list) else [] for v in frame[name]]
    lengths = frame[listed].apply(lambda col: col.map(len))
    uneven = lengths.nunique(axis=1) > 1
    if uneven.any():
        at = int(uneven.to_numpy().argmax())
        sizes = ", ".join(f"{name} {int(n)}" for name, n in lengths.iloc[at].items())
        raise LpschedError(f"{path}: lists='explode' needs the list fields of one length in "
                           f"each row (row {at}: {sizes} elements); use lists='summary', or "
                           "lists='keep' and DataFrame.explode on one field")
    frame = frame.explode(listed)
    for name in listed:
        frame[name] = frame[name].astype(float)
    return frame
