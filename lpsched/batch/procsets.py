"""Processor sets as runs of consecutive ids (``basic`` allocation, seed 000 ch. 5 §5.6 Alg. 2).

A job of the batch simulator holds a set of processor ids. Stored one id at a time they cost
``Σ sizes`` (2·10^8 ids on CEA-Curie: 870 MB, and as many numpy element writes to take,
free, validate and print them); stored as runs ``[lo, hi)`` of consecutive ids they cost a
few numbers per job. :class:`FreeLine` is the free processors of a line as sorted disjoint
runs (``basic``'s lowest free ids are its first runs); :class:`ProcSets` is every job's set
as runs (compressed rows: ``offsets``, ``lo``, ``hi``), read as arrays of ids on demand, so
code that indexes ``sched.procs[j]`` keeps working; :func:`proc_runs` gives the runs of any
list of id arrays.

>>> line = FreeLine(8)
>>> a, b = line.take(3), line.take(2)
>>> a, b
([0, 3], [3, 5])
>>> line.give(a); line.take(4), line.free
([0, 3, 5, 6], 2)
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from itertools import chain
from typing import Any, overload

import numpy as np


class FreeLine:
    """The free processors of a line of ``m``, as sorted disjoint runs of ids.

    The runs ``[lo[i], hi[i])`` are never adjacent (merged on release). :meth:`take` is
    ``basic`` (the ``size`` lowest free ids) in O(runs taken + 1) plus a memmove,
    :meth:`give` O(log F) plus a memmove per run (``F`` free runs, at most one more than
    the running jobs).
    """

    __slots__ = ("free", "hi", "lo")

    def __init__(self, m: int) -> None:
        self.lo: list[int] = [0] if m else []
        self.hi: list[int] = [m] if m else []
        self.free = m

    def take(self, size: int) -> list[int]:
        """The ``size`` lowest free ids (``size <= free``) as flat runs
        ``[lo0, hi0, lo1, hi1, ...]``, in increasing order.

        Parameters
        ----------
        size : int
            Processors wanted, at most :attr:`free` (``basic``, seed 000 §5.6 Alg. 2).

        Returns
        -------
        list of int
            The ids taken as flat half-open runs (``[0, 3, 5, 6]``: ids 0, 1, 2 and 5).
        """
        lo, hi = self.lo, self.hi
        out: list[int] = []
        k, left = 0, size
        while left:
            a, b = lo[k], hi[k]
            if b - a <= left:
                out += (a, b)
                left -= b - a
                k += 1
            else:
                out += (a, a + left)
                lo[k] = a + left
                left = 0
        if k:
            del lo[:k], hi[:k]
        self.free -= size
        return out

    def give(self, runs: list[int]) -> None:
        """The flat runs of :meth:`take` are free again.

        Parameters
        ----------
        runs : list of int
            Flat runs that :meth:`take` returned (a job's processors at its end).
        """
        lo, hi = self.lo, self.hi
        for i in range(0, len(runs), 2):
            a, b = runs[i], runs[i + 1]
            k = bisect_left(lo, a)
            left = k > 0 and hi[k - 1] == a
            if k < len(lo) and lo[k] == b:
                if left:
                    hi[k - 1] = hi[k]
                    del lo[k], hi[k]
                else:
                    lo[k] = a
            elif left:
                hi[k - 1] = b
            else:
                lo.insert(k, a)
                hi.insert(k, b)
            self.free += b - a


class ProcSets(Sequence[np.ndarray]):
    """Every job's processors as runs: job ``j`` holds ``[lo[r], hi[r])`` for ``r`` in
    ``offsets[j]:offsets[j+1]`` (increasing, disjoint). ``procs[j]`` is the array of its ids
    (``int32``, increasing), built when asked for."""

    def __init__(self, offsets: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        self.offsets, self.lo, self.hi = offsets, lo, hi

    @classmethod
    def from_flat(cls, runs: list[list[int]]) -> ProcSets:
        """From one flat run list per job (:meth:`FreeLine.take`'s form). O(total runs).

        Parameters
        ----------
        runs : list of list of int
            Per job, its flat runs ``[lo0, hi0, ...]``.

        Returns
        -------
        ProcSets
            The same sets in compressed rows.
        """
        counts = np.fromiter(map(len, runs), np.int64, len(runs)) // 2
        offsets = np.zeros(len(runs) + 1, np.int64)
        np.cumsum(counts, out=offsets[1:])
        flat = np.fromiter(chain.from_iterable(runs), np.int64, 2 * int(offsets[-1]))
        return cls(offsets, flat[0::2].copy(), flat[1::2].copy())

    def __len__(self) -> int:
        return self.offsets.size - 1

    @overload
    def __getitem__(self, j: int) -> np.ndarray: ...

    @overload
    def __getitem__(self, j: slice) -> list[np.ndarray]: ...

    def __getitem__(self, j: Any) -> Any:
        if isinstance(j, slice):
            return [self[i] for i in range(*j.indices(len(self)))]
        n = len(self)
        if not -n <= j < n:
            raise IndexError(j)
        j %= n
        a, b = self.offsets[j], self.offsets[j + 1]
        parts = [np.arange(lo, hi, dtype=np.int32)
                 for lo, hi in zip(self.lo[a:b].tolist(), self.hi[a:b].tolist(), strict=True)]
        return np.concatenate(parts) if parts else np.zeros(0, np.int32)

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self[j] for j in range(len(self)))

    def sizes(self) -> np.ndarray:
        """Processors per job.

        Returns
        -------
        numpy.ndarray
            int64, per job: the processors it holds (the sum of its runs' lengths).
        """
        total = np.concatenate([[0], np.cumsum(self.hi - self.lo)])
        return total[self.offsets[1:]] - total[self.offsets[:-1]]


def proc_runs(procs: Sequence[np.ndarray]) -> tuple[ProcSets, np.ndarray]:
    """Read processor sets as runs of consecutive ids, and say which jobs repeat an id.

    ``procs`` is a :class:`ProcSets` (kept as it is) or any list of id arrays, whose ids
    are sorted per job and cut where they stop being consecutive. O(Σ sizes) for id arrays
    whose jobs are already sorted (the mask path's), plus a sort of each job that is not;
    O(1) for runs. The ids are checked per job with one vectorised difference over their
    concatenation (job boundaries masked); only the jobs with a descending step are
    sorted, each on its own. The ids are kept as ``int32`` when they fit.

    Parameters
    ----------
    procs : sequence of numpy.ndarray
        Each job's processor ids, or a :class:`ProcSets`.

    Returns
    -------
    tuple of (ProcSets, numpy.ndarray)
        The runs (``lo``, ``hi``: ``int32`` when every id fits, ``int64`` otherwise), and
        per job (bool) whether one of its ids repeats (always ``False`` for a
        :class:`ProcSets`).

    Notes
    -----
    Decision 480: no global sort of the ids; int32 where they fit.
    """
    if isinstance(procs, ProcSets):
        return procs, np.zeros(len(procs), bool)
    n = len(procs)
    arrays = [np.asarray(p).ravel() for p in procs]
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.fromiter(map(len, arrays), np.int64, n), out=offsets[1:])
    total = int(offsets[-1])
    if not total:
        return ProcSets(np.zeros(n + 1, np.int64), np.zeros(0, np.int64),
                        np.zeros(0, np.int64)), np.zeros(n, bool)
    ids = np.concatenate(arrays)
    del arrays
    if ids.dtype.kind not in "iu" or ids.dtype == np.uint64:
        ids = ids.astype(np.int64)  # as ``np.asarray(p, np.int64)`` would
    narrow = -(2**30) <= int(ids.min()) and int(ids.max()) < 2**30  # no overflow below
    ids = ids.astype(np.int32 if narrow else np.int64, copy=False)
    # inner[i]: ids i and i + 1 belong to the same job
    inner = np.ones(total - 1, bool)
    bounds = offsets[1:-1]
    inner[bounds[(bounds > 0) & (bounds < total)] - 1] = False
    down = np.flatnonzero((ids[1:] < ids[:-1]) & inner)
    if down.size:  # sort only the jobs with a descending step, each on its own
        for j in np.unique(np.searchsorted(offsets, down, "right") - 1).tolist():
            ids[offsets[j]:offsets[j + 1]].sort()
    step = ids[1:] - ids[:-1]
    same = (step == 0) & inner
    repeated = np.zeros(n, bool)
    if same.any():
        repeated[np.searchsorted(offsets, np.flatnonzero(same) + 1, "right") - 1] = True
    inner &= step == 1
    del step, same
    cut = np.flatnonzero(~inner) + 1
    del inner
    starts = np.concatenate([[0], cut])
    ends = np.concatenate([cut, [total]])
    owner = np.searchsorted(offsets, starts, "right") - 1
    run_offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(owner, minlength=n), out=run_offsets[1:])
    return ProcSets(run_offsets, ids[starts], ids[ends - 1] + 1), repeated
