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

pandas is an optional dependency (``pip install 'lpsched[pandas]'``), imported by
:func:`load` only.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from lpsched.core.store import ResultStore
from lpsched.errors import LpschedError

__all__ = ["experiments", "load"]


def _pandas() -> Any:
    # import_module: pandas ships no type information (pandas-stubs is separate)
    try:
        pandas = importlib.import_module("pandas")
    except ImportError:
        raise LpschedError("lpsched.experiments.load returns a pandas DataFrame and pandas "
                           "is not installed: pip install 'lpsched[pandas]'") from None
    return pandas


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


def load(path: str | Path, experiment: str | None = None) -> Any:
    """The rows of one experiment of the result store ``path`` as a pandas DataFrame.

    One DataFrame row per stored row, in the order the reproductions read them (cell key,
    then row index); one column per field, in the order of the store's table (the fields
    the experiment declares first, then as they were first met). A field a row does not
    have is missing (``NaN``) in that row. Values are those the reproduction stored: numbers
    give numeric columns (``int64``, or ``float64`` when some rows have none), booleans
    ``bool`` columns, text and lists ``object`` (or pandas' string) columns.

    Parameters
    ----------
    path : str or pathlib.Path
        A result store (``<out>/<experiment>.sqlite`` of ``lpsched reproduce``), of this
        version or an earlier one; it is not modified.
    experiment : str, optional
        The experiment to load; may be left out when the store holds one experiment only.

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
        (the message lists them); pandas is not installed.

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
    pandas = _pandas()
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
        rows = store.rows(experiment)
        order = store.fields(experiment)
    finally:
        store.close()
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    columns = [f for f in order if f in seen] + [f for f in seen if f not in order]
    return pandas.DataFrame.from_records(rows, columns=columns)
