"""Certified results of approximation algorithms: a schedule, a lower bound computed alongside
and the proven guarantee, so ``makespan <= guarantee·(1 + tolerance)·lower_bound`` can be
checked on every call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from lpsched.errors import InvalidInstanceError


@dataclass(frozen=True)
class MachineSchedule:
    """A schedule of independent tasks on machines: one machine and one interval per task.

    Task ``j`` runs on machine ``machine[j]`` during ``[start[j], end[j]]``. On a hybrid
    platform machines ``0..m-1`` are the CPUs and ``m..m+k-1`` the GPUs.
    """

    machine: np.ndarray
    start: np.ndarray
    end: np.ndarray

    @property
    def makespan(self) -> float:
        """Completion time of the last task (time units of the instance); 0 for an empty
        schedule."""
        return float(self.end.max()) if self.end.size else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: lists ``machine``, ``start`` and ``end`` indexed by task (the
        ``schedule`` object of ``lpsched approx hybrid/identical --json --schedule``).

        Returns
        -------
        dict of str to list
            ``machine`` (int ids), ``start`` and ``end`` (times), one entry per task.
        """
        return {"machine": self.machine.tolist(), "start": self.start.tolist(),
                "end": self.end.tolist()}

    def to_frame(self) -> Any:
        """The schedule as a pandas DataFrame, one row per task (``pip install
        'lpsched[pandas]'`` when pandas is missing).

        Returns
        -------
        pandas.DataFrame
            Columns ``task`` (int), ``machine`` (int; on a hybrid platform CPUs first, then
            GPUs), ``start`` and ``end`` (time units of the instance).

        Examples
        --------
        >>> from lpsched.approx.listsched import lpt
        >>> lpt([2, 3, 4, 6, 2, 2], machines=3).schedule.to_frame()
           task  machine  start  end
        0     0        2    3.0  5.0
        1     1        2    0.0  3.0
        2     2        1    0.0  4.0
        3     3        0    0.0  6.0
        4     4        1    4.0  6.0
        5     5        2    5.0  7.0
        """
        from lpsched.core.frames import frame

        return frame({"task": np.arange(self.machine.size), "machine": self.machine,
                      "start": self.start, "end": self.end}, "MachineSchedule.to_frame()")


class ScheduleLike(Protocol):
    """What :class:`Certified` needs of a schedule: its makespan and its JSON form.

    :class:`MachineSchedule`, :class:`~lpsched.approx.packing.RigidSchedule` and
    :class:`~lpsched.approx.moldable.MoldableSchedule` provide both.
    """

    @property
    def makespan(self) -> float:
        """Completion time of the last job; what :attr:`Certified.makespan` records."""

    def to_dict(self) -> dict[str, Any]:
        """The schedule as JSON-ready lists (the ``schedule`` field of
        :meth:`Certified.to_dict`).

        Returns
        -------
        dict of str to list
            One list per field, indexed by job or task.
        """


S = TypeVar("S", bound=ScheduleLike)


@dataclass(frozen=True)
class Certified(Generic[S]):
    """A schedule with the lower bound computed alongside it and the ratio proven between them.

    ``makespan`` is the schedule's; ``lower_bound`` <= OPT (proved); ``guarantee`` is proven
    against that bound; ``tolerance`` is the relative slack of a numerical search (0 if
    none); ``opt_guarantee`` is the ratio proven against the optimum when it is smaller than
    the one certifiable from the bound (e.g. LPT's 4/3 − 1/(3m)); ``extra`` holds what the
    algorithm reports besides (bisection steps, allotments, ...).

    Generic in the schedule's type: ``Certified[MachineSchedule]`` (list scheduling, LPT,
    CPU+GPU), ``Certified[RigidSchedule]`` (NFDH+LS), ``Certified[MoldableSchedule]`` (MRT,
    K shelves).
    """

    algorithm: str
    schedule: S
    makespan: float
    lower_bound: float
    guarantee: float
    tolerance: float = 0.0
    opt_guarantee: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        """``makespan / lower_bound`` (1.0 when the bound is 0): an upper bound of the ratio to
        the optimum, ``makespan / OPT``, since ``lower_bound <= OPT``."""
        return self.makespan / self.lower_bound if self.lower_bound > 0 else 1.0

    def holds(self) -> bool:
        """Whether the certificate holds: the bound is below the makespan, within the guarantee.

        The certificate is ``lower_bound <= makespan <= guarantee·(1 + tolerance)·
        lower_bound``, both sides up to 1e-9 relative. A lower bound above the makespan of a
        schedule is no bound (``OPT <= makespan``), so the result is not certified, even
        when the guarantee is ``inf``.

        Returns
        -------
        bool
            Whether the certificate holds.
        """
        if self.lower_bound > self.makespan * (1 + 1e-9) + 1e-12:
            return False
        return self.makespan <= self.guarantee * (1 + self.tolerance) * self.lower_bound * (
            1 + 1e-9) + 1e-12

    def to_dict(self, schedule: bool = False) -> dict[str, Any]:
        """The JSON form printed by ``lpsched approx hybrid/identical/moldable --json``.

        Algorithm, makespan, bound, guarantees, ``ratio_to_lower_bound``, ``certified``
        (:meth:`holds`: the bound is below the makespan and the guarantee holds) and the
        ``extra`` fields; with ``schedule=True`` also the schedule's own
        :meth:`~ScheduleLike.to_dict`.

        Parameters
        ----------
        schedule : bool
            Add the ``schedule`` field (default ``False``: summary only).

        Returns
        -------
        dict
            ``algorithm``, ``makespan``, ``lower_bound``, ``guarantee``, ``tolerance``,
            ``opt_guarantee``, ``ratio_to_lower_bound``, ``certified``, the ``extra`` fields and
            optionally ``schedule``.
        """
        out = {"algorithm": self.algorithm, "makespan": self.makespan,
               "lower_bound": self.lower_bound, "guarantee": self.guarantee,
               "tolerance": self.tolerance, "opt_guarantee": self.opt_guarantee,
               "ratio_to_lower_bound": self.ratio, "certified": self.holds(), **self.extra}
        if schedule:
            out["schedule"] = self.schedule.to_dict()
        return out

    def to_frame(self, per: str = "task") -> Any:
        """The result as a pandas DataFrame (``pip install 'lpsched[pandas]'`` when pandas
        is missing).

        Parameters
        ----------
        per : {"task", "result"}
            ``"task"`` (default): one row per task (job) of the schedule: ``algorithm``
            (str), ``task`` (int), then the schedule's own per-task lists, as its
            ``to_dict()`` names them: ``machine``, ``start``, ``end`` for a
            :class:`MachineSchedule`; ``start``, ``end``, ``first`` (int, first processor)
            and ``size`` (int, processors) for a
            :class:`~lpsched.approx.packing.RigidSchedule`; ``start``, ``end``,
            ``allotment`` (int) and ``processors`` (list of int) for a
            :class:`~lpsched.approx.moldable.MoldableSchedule`; times in the instance's
            units. ``"result"``: one row, the columns of :meth:`to_dict` (``makespan`` and
            ``lower_bound`` in the instance's time units, ``guarantee``,
            ``opt_guarantee``, ``ratio_to_lower_bound`` and ``tolerance`` ratios,
            ``certified`` a bool, then the algorithm's ``extra`` fields; a list of numbers
            among them as ``<name>_count``, ``<name>_sum`` and ``<name>_max``).

        Returns
        -------
        pandas.DataFrame
            One row per task, or one row.

        Raises
        ------
        ValueError
            ``per`` is neither ``"task"`` nor ``"result"``.

        Examples
        --------
        >>> from lpsched.approx.dual import hybrid_schedule
        >>> res = hybrid_schedule([4, 4, 1], [1, 1, 4], cpus=1, gpus=1)
        >>> res.to_frame()
          algorithm  task  machine  start  end
        0  hybrid-2     0        1    0.0  1.0
        1  hybrid-2     1        1    1.0  2.0
        2  hybrid-2     2        0    0.0  1.0
        >>> res.to_frame(per="result")[["algorithm", "makespan", "certified"]]
          algorithm  makespan  certified
        0  hybrid-2       2.0       True
        """
        from lpsched.core.frames import frame, number_lists

        if per == "task":
            columns = self.schedule.to_dict()
            n = len(next(iter(columns.values()), []))
            return frame({"algorithm": self.algorithm, "task": np.arange(n), **columns},
                         "Certified.to_frame()")
        if per != "result":
            raise ValueError(f"per={per!r}: Certified.to_frame() gives one row per 'task' or "
                             "one per 'result'")
        row: dict[str, Any] = {}
        for name, value in self.to_dict().items():
            summary = number_lists(name, value)
            row.update(summary if summary is not None else {name: value})
        return frame({k: [v] for k, v in row.items()}, "Certified.to_frame(per='result')")


#: Processing times are 0 (where allowed) or in ``[TIME_MIN, TIME_MAX]``: every sum, work
#: product, bisection and dynamic-programming grid of this family then stays far inside the
#: float range (a time outside it is refused with its field: change the time unit).
TIME_MIN, TIME_MAX = 1e-100, 1e100
#: Most machines (CPUs, GPUs, processors, clusters, cluster size) a count may give: list
#: schedules and dynamic programs keep per-machine state.
MAX_MACHINES = 1_000_000

_NUMBER_TYPES = (int, float, np.integer, np.floating)


def _reason(value: float, positive: bool) -> str | None:
    """Why a float is not an acceptable time (``None``: it is)."""
    sign = "> 0" if positive else ">= 0"
    if not np.isfinite(value) or value < 0 or (positive and value == 0):
        return f"must be a finite number {sign}"
    if value > TIME_MAX:
        return f"must be at most {TIME_MAX:g} (use a larger time unit)"
    if 0 < value < TIME_MIN:
        return (f"must be {'' if positive else '0 or '}at least {TIME_MIN:g} (use a smaller "
                "time unit)")
    return None


def _kind(value: Any) -> str:
    """What a non-number is, in the words of JSON."""
    if isinstance(value, (bool, np.bool_)):
        return "a boolean"
    if value is None:
        return "null"
    for types, name in ((str, "a string"), ((list, tuple, np.ndarray), "a list"),
                        (dict, "an object")):
        if isinstance(value, types):
            return name
    return f"a {type(value).__name__}"


def check_time(field: str, value: Any, positive: bool = False) -> float:
    """Check one processing time and return it as a float.

    A time is a real number (not a boolean, string or list), finite, ``> 0``
    (``positive``) or ``>= 0``, within :data:`TIME_MIN`/:data:`TIME_MAX`.

    Parameters
    ----------
    field : str
        The value's name in the error message (e.g. ``"times[3]"``).
    value : object
        The decoded value.
    positive : bool
        Require ``> 0`` (default ``False``: ``>= 0``; a nonzero time still at least
        ``TIME_MIN``).

    Returns
    -------
    float
        The time.

    Raises
    ------
    InvalidInstanceError
        Not a real number, outside the float range, not finite, negative (or 0 with
        ``positive``), or outside ``TIME_MIN`` (1e-100) and ``TIME_MAX`` (1e100).
    """
    sign = "> 0" if positive else ">= 0"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, _NUMBER_TYPES):
        raise InvalidInstanceError(field, value, f"must be a finite number {sign}, not "
                                   f"{_kind(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise InvalidInstanceError(field, value, f"outside the float range: must be a "
                                   f"finite number {sign}") from None
    why = _reason(number, positive)
    if why:
        raise InvalidInstanceError(field, number, why)
    return number


def _plain_floats(values: list[Any]) -> np.ndarray | None:
    """``values`` as floats when every entry is a plain int or float that fits (fast path)."""
    if not all(type(v) is float or type(v) is int for v in values):
        return None
    try:
        return np.array(values, dtype=float)
    except OverflowError:
        return None


def check_times(name: str, times: Any, positive: bool = False) -> np.ndarray:
    """Check a list of processing times and return it as a 1-D float array.

    Each entry is checked as by :func:`check_time`; the first bad one is named ``name[i]``
    (InvalidInstanceError).

    Parameters
    ----------
    name : str
        The list's name in error messages (e.g. ``"cpu_times"``).
    times : object
        A list, tuple or 1-D array of numbers.
    positive : bool
        Require every time ``> 0`` (default ``False``: ``>= 0``).

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)``, float.

    Raises
    ------
    InvalidInstanceError
        Not a 1-D list, or an entry refused by :func:`check_time`.
    """
    if isinstance(times, np.ndarray) and times.dtype.kind in "iuf":
        arr = times.astype(float)
    elif isinstance(times, (list, tuple, np.ndarray)):
        seq = times.tolist() if isinstance(times, np.ndarray) else list(times)
        fast = _plain_floats(seq)
        if fast is None:
            return np.array([check_time(f"{name}[{i}]", v, positive) for i, v in
                             enumerate(seq)], dtype=float)
        arr = fast
    else:
        raise InvalidInstanceError(name, times, "must be a 1-D list of times")
    if arr.ndim != 1:
        raise InvalidInstanceError(name, arr.shape, "must be a 1-D list of times")
    bad = ~np.isfinite(arr) | (arr < 0) | (arr > TIME_MAX) | ((arr < TIME_MIN) & (
        (arr > 0) | positive))
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidInstanceError(f"{name}[{i}]", float(arr[i]), _reason(arr[i], positive)
                                   or "")
    return arr


def check_time_table(name: str, rows: Any, width: int) -> np.ndarray:
    """Check a table of positive times, one row per job and ``width`` columns.

    A ragged row is named ``name[j]``, a bad entry ``name[j][p]`` (InvalidInstanceError).
    An empty list is a table of 0 rows.

    Parameters
    ----------
    name : str
        The table's name in error messages (e.g. ``"times"``).
    rows : object
        A list of rows or a 2-D array: ``rows[j][p−1]``, job j's time on p processors.
    width : int
        The number of columns each row must have (the processors).

    Returns
    -------
    numpy.ndarray
        Shape ``(n, width)``, float, every entry in [``TIME_MIN``, ``TIME_MAX``].

    Raises
    ------
    InvalidInstanceError
        Not a 2-D table, a row of the wrong width, or an entry that is not a finite positive
        number within the limits.
    """
    if isinstance(rows, np.ndarray) and rows.dtype.kind in "iuf":
        if rows.size == 0 and rows.ndim == 1:
            rows = rows.reshape(0, width)
        if rows.ndim != 2:
            raise InvalidInstanceError(name, rows.shape, "must be a 2-D table T[job][p-1]")
        if rows.shape[1] != width:
            raise InvalidInstanceError(name, rows.shape, f"needs one column per processor "
                                       f"(p = 1..{width}), got {rows.shape[1]}")
        table = rows.astype(float)
    elif isinstance(rows, (list, tuple, np.ndarray)):
        seq = rows.tolist() if isinstance(rows, np.ndarray) else list(rows)
        for j, row in enumerate(seq):
            if not isinstance(row, (list, tuple, np.ndarray)):
                raise InvalidInstanceError(f"{name}[{j}]", row, "must be a list of times, "
                                           "one per processor count p = 1, 2, ...")
            if len(row) != width:
                raise InvalidInstanceError(f"{name}[{j}]", row, f"needs one column per "
                                           f"processor (p = 1..{width}), got {len(row)}")
        table = np.zeros((len(seq), width))
        for j, row in enumerate(seq):
            table[j] = check_times(f"{name}[{j}]", row, positive=True)
        return table
    else:
        raise InvalidInstanceError(name, rows, "must be a 2-D table T[job][p-1]")
    bad = ~np.isfinite(table) | (table <= 0) | (table > TIME_MAX) | (table < TIME_MIN)
    if bad.any():
        j, p = np.argwhere(bad)[0]
        raise InvalidInstanceError(f"{name}[{j}][{p}]", float(table[j, p]),
                                   _reason(table[j, p], True) or "")
    return table


def check_count(name: str, value: Any, minimum: int = 1, maximum: int = MAX_MACHINES) -> int:
    """Check a count (machines, processors, clusters): a whole number in a range.

    The range is ``[minimum, maximum]``; a boolean or a float (``2.0`` included) is refused.

    Parameters
    ----------
    name : str
        The value's name in error messages (e.g. ``"machines"``).
    value : object
        The decoded value (a Python or numpy integer).
    minimum : int
        The smallest value accepted (default 1).
    maximum : int
        The largest value accepted (default ``MAX_MACHINES``, 10^6).

    Returns
    -------
    int
        The value.

    Raises
    ------
    InvalidInstanceError
        A boolean, a non-integer (``2.0`` included) or a value out of range.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or not minimum <= value <= maximum:
        raise InvalidInstanceError(name, value, f"must be a whole number between {minimum} "
                                   f"and {maximum}")
    return int(value)
