"""The shared part of every ``to_frame()`` of lpsched's result types.

pandas is an optional dependency (``pip install 'lpsched[pandas]'``): :func:`pandas` imports
it when a result is first turned into a DataFrame and, when it is missing, raises an
:class:`~lpsched.errors.LpschedError` that names the method and the extra to install.
:func:`frame` builds the DataFrame from named columns (arrays of one length, or scalars
repeated on every row), so every ``to_frame()`` reads as its list of columns.

Conventions of every ``to_frame()``: one row per application, task, job, piece, PTG,
campaign or policy (the docstring says which; ``per=`` chooses among several, and
``per="run"``, where a family has it, is one row with the run's metrics), one column per
field, named as the field (with its unit in the docstring), a ``RangeIndex``; numbers stay
numbers (``int64``, ``float64``, ``bool``), lists of processor ids stay Python lists in an
``object`` column, a list of numbers in a one-row summary becomes the three columns of
:func:`number_lists`. Each result knows what it is of (the instance or workload it was
computed on), so ``to_frame()`` needs no argument; a value a row does not have is missing
(``NaN``), never made up. tests/test_frames.py calls every result type's ``to_frame`` with
every ``per`` value it documents.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from lpsched.errors import LpschedError

__all__ = ["EXTRA", "frame", "number_lists", "pandas"]

#: The optional extra that installs pandas.
EXTRA = "pip install 'lpsched[pandas]'"


def pandas(what: str = "to_frame()") -> Any:
    """The ``pandas`` module, imported on first use.

    Parameters
    ----------
    what : str
        The method that needs pandas, named in the error message.

    Returns
    -------
    module
        ``pandas``.

    Raises
    ------
    lpsched.errors.LpschedError
        pandas is not installed; the message names ``what`` and the extra to install.

    Examples
    --------
    >>> pandas().DataFrame({"a": [1]}).shape
    (1, 1)
    """
    # import_module: pandas ships no type information (pandas-stubs is separate)
    try:
        return importlib.import_module("pandas")
    except ImportError:
        raise LpschedError(f"{what} returns a pandas DataFrame and pandas is not installed: "
                           f"{EXTRA}") from None


def frame(columns: Mapping[str, Any], what: str = "to_frame()") -> Any:
    """A DataFrame with one column per entry of ``columns``, in their order.

    Parameters
    ----------
    columns : mapping of str to array_like or scalar
        Column name to its values: 1-D arrays (or lists) of one common length, or scalars,
        which are repeated on every row. A list whose items are lists (processor ids per
        task) stays a column of Python lists.
    what : str
        The method building the frame, named in the error when pandas is missing.

    Returns
    -------
    pandas.DataFrame
        One row per position of the arrays (no row at all when they are empty).

    Raises
    ------
    lpsched.errors.LpschedError
        pandas is not installed.
    ValueError
        The arrays differ in length (a bug of the caller).

    Examples
    --------
    >>> import numpy as np
    >>> frame({"task": np.arange(2), "start": [0.0, 1.5], "policy": "fifo"})
       task  start policy
    0     0    0.0   fifo
    1     1    1.5   fifo
    """
    pd = pandas(what)
    lengths = {len(v) for v in columns.values() if _is_column(v)}
    if len(lengths) > 1:
        raise ValueError(f"{what}: columns of different lengths {sorted(lengths)}")
    n = lengths.pop() if lengths else 1
    data: dict[str, Any] = {}
    for name, values in columns.items():
        if not _is_column(values):
            data[name] = [values] * n
        elif isinstance(values, list) and any(isinstance(v, (list, np.ndarray))
                                              for v in values):
            col = np.empty(len(values), dtype=object)
            col[:] = [v.tolist() if isinstance(v, np.ndarray) else v for v in values]
            data[name] = col
        else:
            data[name] = np.asarray(values)
    return pd.DataFrame(data, columns=list(columns))


def _is_column(values: Any) -> bool:
    """A column (list, tuple or 1-D array), not a scalar to repeat."""
    return isinstance(values, (list, tuple)) or (isinstance(values, np.ndarray)
                                                 and values.ndim == 1)


def number_lists(name: str, values: Any) -> dict[str, Any] | None:
    """Numeric summary columns of a list of numbers, or ``None`` when ``values`` is not one.

    A field that holds a list of numbers per row (CBS3M's ``solve_seconds``, the wall time
    of each of its solves) is summarised in three numeric columns: ``<name>_count`` (int,
    the list's length), ``<name>_sum`` and ``<name>_max`` (float, in the list's unit; an
    empty list has sum 0.0 and max ``nan``).

    Parameters
    ----------
    name : str
        The field's name, prefix of the three columns.
    values : Any
        The field's value in one row.

    Returns
    -------
    dict or None
        The three columns, or ``None`` when ``values`` is not a list (or tuple, or 1-D
        array) of real numbers.

    Examples
    --------
    >>> number_lists("solve_seconds", [0.5, 1.5])
    {'solve_seconds_count': 2, 'solve_seconds_sum': 2.0, 'solve_seconds_max': 1.5}
    >>> number_lists("policy", "fifo") is None
    True
    """
    if not _is_column(values) or not all(
            isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            for v in values):
        return None
    arr = np.asarray(values, float)
    return {f"{name}_count": int(arr.size), f"{name}_sum": float(arr.sum()),
            f"{name}_max": float(arr.max()) if arr.size else float("nan")}
