"""Independent monotonic moldable jobs (seed 004 §4.4 and its reference [11]; EXT in
shared/specs/seed004_spec.md §5.1–§5.3).

Job ``j`` runs on any ``p = 1..m`` processors in ``T[j, p−1]``; once started its processor
set is fixed. *Monotonic*: ``T[j, p]`` non-increasing and the work ``p·T[j, p]``
non-decreasing in ``p``. ``γ_j(x)`` is the fewest processors with ``T[j, γ−1] <= x``.

* :func:`mrt_test` — the dual test of Mounié, Rapine & Trystram (SIAM J. Comput. 37(2),
  2007) for a guess ``d``: jobs with ``T[j, 0] <= d/2`` are *small* (one processor); every
  other job goes to shelf S1 (length ``d``, ``γ_j(d)`` processors) or shelf S2 (length
  ``d/2``, ``γ_j(d/2)``), chosen by an exact knapsack (O(n·m) DP) that keeps ``Σ_{S1} γ(d) <= m``
  and minimises the total work ``W``. **Rejection is a proof** that no schedule of length
  ``<= d`` exists: in such a schedule every job longer than ``d/2`` runs at time ``d/2``, so
  those jobs are a feasible S1 and the others use at least their ``γ(d/2)`` work, hence
  ``W + W_small <= m·d``; a job with ``T[j, m−1] > d`` can never fit.
* :func:`mrt` — bisection on ``d`` between ``max(max_j T[j, m−1], Σ_j T[j, 0]/m)`` and
  ``Σ_j T[j, m−1]`` down to relative width ``eps``, then the schedule of the smallest
  accepted ``d*``: ``makespan <= 3/2·d* <= 3/2·(1 + eps)·OPT``. The result's
  ``lower_bound`` is the largest *proven* rejection (or the simple bound). On a table whose
  work is not monotonic (``repair=True``) neither the rejections nor ``Σ_j T[j, 0]/m`` are
  proofs: the search runs unchanged (a heuristic then, guarantee ``inf``) but the
  ``lower_bound`` reported is ``max(max_j min_p T[j, p], Σ_j min_p p·T[j, p] / m)``
  (:func:`simple_lower_bound` with ``monotonic=False``), valid for any table.
* :func:`kshelf` — the K-shelf packing of Dutot et al. (SPAA 2004) as CAFM K SHELVES uses
  it (seed 004 [L365–L377, L410–L418]): shelves of doubling length up to ``C = d*``, each
  filled by a knapsack maximising the (unit) weights of the jobs packed, each job on
  ``γ_j(L_k)`` processors. No makespan guarantee is claimed (the seed gives none; spec §5.3).

Building the ``3d/2`` schedule of an accepted guess (decision 47): S1 jobs start at 0 on the
first processors, S2 jobs end at ``3d/2``; if S2 needs more than ``m`` processors, MRT's
transformation rules make a shelf S0 spanning ``[0, 3d/2]`` — (i) an S2 job moves to S0 on
``γ(3d/2)`` processors when that many are idle under S1; (ii) an S1 job with
``T <= 3d/4`` on ``g >= 2`` processors runs on ``g − 1`` (work monotony: ``T(g−1) <= 2T(g)``)
in S0; (iii) two one-processor S1 jobs with ``T <= 3d/4`` stack on one processor of S0;
rules (ii)/(iii) are applied only when they enable a rule (i) move that saves more
processors than they cost. Small jobs then fill the gap of the processor with the largest
one: when ``W + W_small <= m·d`` and every shelf fits, a gap ``>= d/2`` always exists (else
every processor would be busy more than ``d``), so this step cannot fail. The seed does not
give MRT's full case analysis; if the rules leave S2 too wide, the jobs are list-scheduled
with their allotments instead, and a guess whose schedule still exceeds ``3d/2`` is counted
in ``extra["unbuilt_guesses"]`` and treated as not accepted — the certificate then rests on
the last *proven* rejection, so :meth:`Certified.holds` exposes any such gap instead of
hiding it. Every schedule is finally left-shifted (per-processor order kept), which can
only shorten it.
"""

from __future__ import annotations

import heapq
import itertools
import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from lpsched.approx.certified import Certified, check_count, check_time_table
from lpsched.errors import InvalidInstanceError, InvalidScheduleError, LpschedWarning

_TOL = 1e-12


class MonotonyWarning(LpschedWarning):
    """A moldable job's work decreases with more processors: the table was accepted
    (``repair=True``) but the 3/2 guarantee of the MRT algorithm does not hold for it."""


@dataclass(frozen=True)
class MoldableSchedule:
    """A schedule of moldable jobs: each job's processor set and interval.

    Job ``j`` runs on ``processors[j]`` (``allotment[j]`` ids) during ``[start[j], end[j]]``.
    """

    start: np.ndarray
    end: np.ndarray
    allotment: np.ndarray
    processors: tuple[np.ndarray, ...]

    @property
    def makespan(self) -> float:
        """Completion time of the last job; 0 for an empty schedule."""
        return float(self.end.max()) if self.end.size else 0.0

    @property
    def machine(self) -> np.ndarray:
        """First processor of each job (the machine-schedule interface of Certified)."""
        return np.array([int(p.min()) if p.size else -1 for p in self.processors])

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``start``, ``end``, ``allotment`` per job and ``processors``, the list
        of processor ids of each job (the ``schedule`` object of
        ``lpsched approx moldable --json --schedule``).

        Returns
        -------
        dict of str to list
            ``start``, ``end``, ``allotment`` and ``processors`` (a list of ids per job).
        """
        return {"start": self.start.tolist(), "end": self.end.tolist(),
                "allotment": self.allotment.tolist(),
                "processors": [p.tolist() for p in self.processors]}


@dataclass(frozen=True)
class MrtStep:
    """The shelves MRT's dual test chose for an accepted guess ``d``.

    ``shelf[j]`` is 0 (small), 1 (S1) or 2 (S2) and ``allotment[j]`` its processors;
    ``work`` the knapsack's total work, small jobs included.
    """

    d: float
    shelf: np.ndarray
    allotment: np.ndarray
    work: float


def check_table(times: ArrayLike, processors: int, repair: bool = False,
                ) -> tuple[np.ndarray, bool]:
    """Check a moldable time table and say whether its work is monotonic.

    ``times[j][p−1]`` is job ``j`` on ``p`` processors; the table must have one column per
    processor, numbers (not booleans or strings) in ``[TIME_MIN, TIME_MAX]``
    (:func:`~lpsched.approx.certified.check_time_table`), and be monotonic (time
    non-increasing, work non-decreasing up to 1e-9 relative). With ``repair=True`` (seed 004
    DECIDE-10) a non-increasing time is enforced as ``T̂[j, p] = min_{q<=p} T[j, q]`` and a
    non-monotonic work only warns (the 3/2 guarantee is then lost and reported as ``inf``).

    Parameters
    ----------
    times : array_like
        ``times[j][p−1]``: job j's time on p processors, one row per job.
    processors : int
        m, the number of processors (the table's width).
    repair : bool
        Repair a non-monotonic table instead of refusing it (default ``False``).

    Returns
    -------
    table : numpy.ndarray
        Shape ``(n, m)``, float (repaired when asked).
    monotonic : bool
        Whether the work is non-decreasing (``False`` only with ``repair``).

    Raises
    ------
    InvalidInstanceError
        A bad table or count, or (without ``repair``) a non-monotonic job.
    """
    m = check_count("processors", processors)
    arr = check_time_table("times", times, m)
    tol = 1e-9
    rising = arr[:, 1:] > arr[:, :-1] * (1 + tol)
    if rising.any():
        if not repair:
            j, p = np.argwhere(rising)[0]
            raise InvalidInstanceError(
                f"times[{j}][{p + 1}]", float(arr[j, p + 1]),
                f"longer than on {p + 1} processor(s) ({arr[j, p]}): the jobs must be "
                "monotonic (pass repair=True to use min over fewer processors)")
        arr = np.minimum.accumulate(arr, axis=1)
    work = arr * np.arange(1, m + 1)
    falling = work[:, 1:] < work[:, :-1] * (1 - tol)
    if falling.any():
        j, p = np.argwhere(falling)[0]
        if not repair:
            raise InvalidInstanceError(
                f"times[{j}][{p + 1}]", float(arr[j, p + 1]),
                f"work {work[j, p + 1]:.6g} on {p + 2} processors is below "
                f"{work[j, p]:.6g} on {p + 1}: the work must be non-decreasing (pass "
                "repair=True to accept it without the 3/2 guarantee)")
        warnings.warn(f"job {j}: work decreases from {p + 1} to {p + 2} processors; the 3/2 "
                      "guarantee does not hold", MonotonyWarning, stacklevel=3)
        return arr, False
    return arr, True


def canonical(times: np.ndarray, x: float) -> np.ndarray:
    """``γ_j(x)`` for every job: the fewest processors with ``T[j, γ−1] <= x``.

    ``m + 1`` when no allotment reaches ``x``; O(n·m), since the time is non-increasing.

    Parameters
    ----------
    times : numpy.ndarray
        ``T[j, p−1]``, job j's time on p processors, shape ``(n, m)``, checked and monotonic
        (:func:`check_table`).
    x : float
        The time limit.

    Returns
    -------
    numpy.ndarray
        int, shape ``(n,)``: γ_j(x), in 1..m+1.
    """
    return (times > x * (1 + _TOL)).sum(axis=1) + 1


def simple_lower_bound(times: np.ndarray, monotonic: bool = True) -> float:
    """A lower bound on the optimal makespan of a moldable time table ``times`` (``(n, m)``).

    Parameters
    ----------
    times : numpy.ndarray
        ``times[j, p−1]``: job ``j`` on ``p`` processors, non-increasing in ``p`` (as
        :func:`check_table` returns it, repaired or not).
    monotonic : bool
        Whether the work ``p·T[j, p−1]`` is non-decreasing in ``p`` (the second value
        :func:`check_table` returns).

    Returns
    -------
    float
        ``max(max_j T[j, m−1], Σ_j T[j, 0]/m)`` when ``monotonic``: no job is faster than
        on all processors and (work monotony) none does less work than sequentially.
        Otherwise ``max(max_j min_p T[j, p−1], Σ_j min_p p·T[j, p−1] / m)``: each job lasts
        at least its shortest time and covers at least its smallest area, whatever the
        table. A repaired table ``T̂[j, p] = min_{q<=p} T[j, q]`` has the optimum of the
        original one (a job on ``p`` processors runs its best ``q <= p`` allotment), so
        either bound holds for both. 0 for an empty table.

    Examples
    --------
    A job that runs 10 on one processor and 1 on two (superlinear: work 10, then 2):

    >>> import numpy as np
    >>> t = np.array([[10.0, 1.0]])
    >>> simple_lower_bound(t), simple_lower_bound(t, monotonic=False)
    (5.0, 1.0)
    """
    if times.shape[0] == 0:
        return 0.0
    m = times.shape[1]
    if monotonic:
        return float(max(times[:, -1].max(), times[:, 0].sum() / m))
    area = (times * np.arange(1, m + 1)).min(axis=1)
    return float(max(times.min(axis=1).max(), area.sum() / m))


def knapsack_max(weight: np.ndarray, value: np.ndarray, capacity: int) -> np.ndarray:
    """Solve a 0/1 knapsack exactly and return the mask of the items chosen.

    Dynamic programming over the integer capacity, O(n·C) with numpy rows. Ties: the
    smallest total weight among the best-value solutions (spec DECIDE-21), then the earlier
    items.

    Parameters
    ----------
    weight : numpy.ndarray
        Each item's integer weight (e.g. processors), shape ``(n,)``.
    value : numpy.ndarray
        Each item's value, shape ``(n,)``.
    capacity : int
        C, the integer capacity (>= 0).

    Returns
    -------
    numpy.ndarray
        bool, shape ``(n,)``: the items chosen.
    """
    n = weight.size
    best = np.zeros(capacity + 1)
    keep = np.zeros((n, capacity + 1), dtype=bool)
    for k in range(n):
        w = int(weight[k])
        if w > capacity:
            continue
        cand = best[: capacity + 1 - w] + value[k]
        better = cand > best[w:] + 1e-12 * max(1.0, abs(float(value[k])))
        keep[k, w:] = better
        best[w:] = np.where(better, cand, best[w:])
    # best[c] is the best value with weight <= c; the smallest c reaching the max
    c = int(np.argmax(best >= best[-1] - 1e-9 * max(1.0, abs(float(best[-1])))))
    chosen = np.zeros(n, dtype=bool)
    for k in range(n - 1, -1, -1):
        if keep[k, c]:
            chosen[k] = True
            c -= int(weight[k])
    return chosen


def mrt_test(times: np.ndarray, d: float) -> MrtStep | None:
    """Run MRT's dual test for a guess ``d``: the shelves of a ``3d/2`` schedule, or a proof.

    ``None`` is a proof that ``OPT > d`` (module doc).

    Parameters
    ----------
    times : numpy.ndarray
        ``T[j, p−1]``, job j's time on p processors, shape ``(n, m)``, checked and monotonic
        (:func:`check_table`).
    d : float
        The guess of the optimal makespan.

    Returns
    -------
    MrtStep or None
        The shelves and allotments for ``d``, or ``None`` (``OPT > d``).
    """
    n, m = times.shape
    if n == 0:
        return MrtStep(d, np.zeros(0, int), np.zeros(0, int), 0.0)
    if (times[:, -1] > d * (1 + _TOL)).any():
        return None
    work = times * np.arange(1, m + 1)
    rows = np.arange(n)
    small = times[:, 0] <= d / 2 * (1 + _TOL)
    g1, g2 = canonical(times, d), canonical(times, d / 2)
    big = ~small
    forced = big & (g2 > m)
    free = big & ~forced
    capacity = m - int(g1[forced].sum())
    if capacity < 0:
        return None
    w1 = work[rows, np.minimum(g1, m) - 1]
    w2 = np.where(g2 <= m, work[rows, np.minimum(g2, m) - 1], np.inf)
    idx = np.flatnonzero(free)
    chosen = knapsack_max(g1[idx], np.maximum(w2[idx] - w1[idx], 0.0), capacity)
    shelf = np.where(small, 0, 2)
    shelf[forced] = 1
    shelf[idx[chosen]] = 1
    allot = np.where(shelf == 1, g1, np.where(shelf == 2, g2, 1))
    total = float(w1[shelf == 1].sum() + w2[shelf == 2].sum() + times[small, 0].sum())
    if total > m * d * (1 + 1e-9):
        return None
    return MrtStep(d, shelf, allot.astype(int), total)


def _left_shift(times: np.ndarray, allot: np.ndarray, start: np.ndarray,
                procs: list[np.ndarray]) -> MoldableSchedule:
    """Start every job as early as its processors allow, keeping each processor's order."""
    m = times.shape[1]
    free = np.zeros(m)
    dur = times[np.arange(allot.size), allot - 1] if allot.size else np.zeros(0)
    new = np.zeros_like(start)
    for j in np.argsort(start, kind="stable"):
        new[j] = free[procs[j]].max() if procs[j].size else 0.0
        free[procs[j]] = new[j] + dur[j]
    return MoldableSchedule(new, new + dur, allot.copy(), tuple(procs))


def list_schedule(times: np.ndarray, allot: np.ndarray,
                  order: np.ndarray | None = None) -> MoldableSchedule:
    """List-schedule jobs with fixed allotments: each starts when its processors are free.

    In ``order`` (default: decreasing time), each job starts when ``allot[j]`` processors
    are free, on the earliest-free ones. O(n·m log m).

    Parameters
    ----------
    times : numpy.ndarray
        ``T[j, p−1]``, job j's time on p processors, shape ``(n, m)``, checked and monotonic
        (:func:`check_table`).
    allot : numpy.ndarray
        Each job's processor count, in 1..m, shape ``(n,)``.
    order : numpy.ndarray or None
        The job indices in list order; ``None`` (default): decreasing time, ties by index.

    Returns
    -------
    MoldableSchedule
        Each job's start, end, allotment and processor ids.
    """
    n, m = times.shape
    dur = times[np.arange(n), allot - 1] if n else np.zeros(0)
    if order is None:
        order = np.argsort(-dur, kind="stable")
    free = np.zeros(m)
    start = np.zeros(n)
    procs: list[np.ndarray] = [np.zeros(0, int)] * n
    for j in order:
        ids = np.argsort(free, kind="stable")[: allot[j]]
        start[j] = free[ids].max()
        free[ids] = start[j] + dur[j]
        procs[j] = np.sort(ids)
    return MoldableSchedule(start, start + dur, allot.copy(), tuple(procs))


_Free = tuple[int, str, tuple[int, ...]]  # (top processors it costs, rule, jobs)


def _frees(times: np.ndarray, allot: np.ndarray, shelf: np.ndarray, s0: np.ndarray,
           d: float) -> list[_Free]:
    """Rules (ii)/(iii): the ways to free one bottom processor each, cheapest top cost
    first (a pair of short one-processor S1 jobs costs 1, a short S1 job on ``g``
    processors that still fits ``3d/2`` on ``g − 1`` costs ``g − 1``)."""
    top_len = 1.5 * d
    frees: list[_Free] = []
    s1 = np.flatnonzero((shelf == 1) & ~s0)
    short = s1[times[s1, allot[s1] - 1] <= 0.75 * d * (1 + _TOL)]
    singles = [int(j) for j in short if allot[j] == 1]
    for a, b in zip(singles[::2], singles[1::2], strict=False):
        frees.append((1, "iii", (a, b)))
    for j in short:
        if allot[j] >= 2 and times[j, allot[j] - 2] <= top_len * (1 + _TOL):
            frees.append((int(allot[j]) - 1, "ii", (int(j),)))
    frees.sort(key=lambda f: f[0])
    return frees


def _apply_frees(frees: list[_Free], allot: np.ndarray, s0: np.ndarray,
                 stacked: dict[int, int]) -> tuple[int, int]:
    """Move the S1 jobs of ``frees`` to S0 (rule ii: one processor fewer; rule iii: the
    second job stacked after the first); returns the changes of ``p0`` and ``p1``."""
    d0 = d1 = 0
    for _c, rule, jobs in frees:
        if rule == "ii":
            (j,) = jobs
            allot[j] -= 1
            d1 -= allot[j] + 1
            d0 += allot[j]
            s0[j] = True
        else:
            a, b = jobs
            stacked[b] = a
            d1 -= 2
            d0 += 1
            s0[a] = s0[b] = True
    return d0, d1


def _transform(times: np.ndarray, d: float, shelf: np.ndarray, allot: np.ndarray,
               ) -> tuple[np.ndarray, dict[int, int]] | None:
    """MRT's rules while S0 and S2 overflow the machine: each round moves the S2 job with
    the largest net saving to S0 on ``γ(3d/2)`` processors (rule i), first freeing the
    processors it lacks under S1 with rules (ii)/(iii). Updates ``allot`` in place and
    returns the S0 mask and the rule (iii) pairs (job -> the job it runs after in S0);
    ``None`` if no move saves processors."""
    n, m = times.shape
    stacked: dict[int, int] = {}
    g32 = canonical(times, 1.5 * d)
    p0, p1, p2 = 0, int(allot[shelf == 1].sum()), int(allot[shelf == 2].sum())
    s0 = np.zeros(n, dtype=bool)
    while p0 + p2 > m:
        q = m - p0 - p1
        s2 = np.flatnonzero((shelf == 2) & ~s0)
        gain = allot[s2] - g32[s2]
        frees = _frees(times, allot, shelf, s0, d)
        cost = np.concatenate([[0], np.cumsum([f[0] for f in frees])])
        need = np.maximum(g32[s2] - q, 0)
        ok = need < cost.size
        net = np.where(ok, gain - cost[np.minimum(need, cost.size - 1)], -1)
        if s2.size == 0 or net.max() <= 0:
            return None
        i = int(np.argmax(net))
        d0, d1 = _apply_frees(frees[: int(need[i])], allot, s0, stacked)
        p0 += d0
        p1 += d1
        j = int(s2[i])
        p2 -= int(allot[j])
        allot[j] = g32[j]
        p0 += int(allot[j])
        s0[j] = True
    return s0, stacked


def _place_shelves(dur: np.ndarray, allot: np.ndarray, shelf: np.ndarray, s0: np.ndarray,
                   stacked: dict[int, int], top_len: float, m: int,
                   ) -> tuple[np.ndarray, list[np.ndarray], np.ndarray, np.ndarray] | None:
    """Place S0 (then the stacked rule (iii) jobs) and S1 from processor 0 up, starting at
    0, and S2 from processor ``m − 1`` down, ending at ``top_len``; returns the starts, the
    processors, and per processor the end of its bottom part and the start of its top
    part. ``None`` if S2 reaches down into S0."""
    n = dur.size
    start = np.zeros(n)
    procs: list[np.ndarray] = [np.zeros(0, int)] * n
    front = np.zeros(m)  # end of the bottom part of each processor
    back = np.full(m, top_len)  # start of the top part
    nxt = 0
    bottom = np.flatnonzero(s0 & ~np.isin(np.arange(n), list(stacked)))
    for j in bottom:  # S0: spans the whole height, no top job on these processors
        ids = np.arange(nxt, nxt + allot[j])
        procs[j] = ids
        front[ids] = dur[j]
        back[ids] = front[ids]
        nxt += allot[j]
    for b, a in stacked.items():
        procs[b] = procs[a]
        start[b] = dur[a]
        front[procs[a]] = back[procs[a]] = dur[a] + dur[b]
    first_free = nxt
    s1 = np.flatnonzero((shelf == 1) & ~s0)
    for j in s1[np.argsort(-dur[s1], kind="stable")]:
        ids = np.arange(nxt, nxt + allot[j])
        procs[j] = ids
        front[ids] = dur[j]
        nxt += allot[j]
    top = m
    s2 = np.flatnonzero((shelf == 2) & ~s0)
    for j in s2[np.argsort(-dur[s2], kind="stable")]:  # longest S2 over the shortest S1
        ids = np.arange(top - allot[j], top)
        if ids.size and ids[0] < first_free:
            return None
        procs[j] = ids
        start[j] = top_len - dur[j]
        back[ids] = start[j]
        top -= allot[j]
    return start, procs, front, back


def _fill_small(dur: np.ndarray, shelf: np.ndarray, start: np.ndarray,
                procs: list[np.ndarray], front: np.ndarray, back: np.ndarray) -> bool:
    """Put the small jobs, longest first, each at the bottom end of the processor with the
    largest gap (updates ``start``, ``procs``, ``front``); ``False`` if a job does not fit."""
    heap = [(-(back[i] - front[i]), i) for i in range(front.size)]
    heapq.heapify(heap)
    small = np.flatnonzero(shelf == 0)
    for j in small[np.argsort(-dur[small], kind="stable")]:
        gap, i = heapq.heappop(heap)
        if -gap < dur[j] * (1 - 1e-9):
            return False
        procs[j] = np.array([i])
        start[j] = front[i]
        front[i] += dur[j]
        heapq.heappush(heap, (-(back[i] - front[i]), i))
    return True


def _shelves(times: np.ndarray, step: MrtStep) -> MoldableSchedule | None:
    """The ``3d/2`` construction of an accepted guess (module doc); ``None`` if the
    transformation rules cannot make shelf S2 fit."""
    n, m = times.shape
    allot = step.allotment.copy()
    shelf = step.shelf.copy()
    dur = times[np.arange(n), allot - 1]
    moved = _transform(times, step.d, shelf, allot)
    if moved is None:
        return None
    s0, stacked = moved
    dur = times[np.arange(n), allot - 1]  # rules (i)/(ii) changed some allotments
    placed = _place_shelves(dur, allot, shelf, s0, stacked, 1.5 * step.d, m)
    if placed is None:
        return None
    start, procs, front, back = placed
    if not _fill_small(dur, shelf, start, procs, front, back):
        return None
    return _left_shift(times, allot, start, procs)


def build_schedule(times: np.ndarray, step: MrtStep) -> tuple[MoldableSchedule, str] | None:
    """Build a schedule of length ``<= 3d/2`` for an accepted guess of MRT's dual test.

    The shelves with MRT's transformation rules first, else list scheduling with the
    test's allotments; returns the schedule and how it was built (``"shelves"`` or
    ``"list"``), ``None`` if neither construction reaches ``3d/2``.

    Parameters
    ----------
    times : numpy.ndarray
        ``T[j, p−1]``, job j's time on p processors, shape ``(n, m)``, checked and monotonic
        (:func:`check_table`).
    step : MrtStep
        An accepted guess of :func:`mrt_test`.

    Returns
    -------
    tuple or None
        ``(schedule, how)`` with ``how`` ``"shelves"`` or ``"list"``, or ``None``.
    """
    limit = 1.5 * step.d * (1 + 1e-9)
    sched = _shelves(times, step)
    if sched is not None and sched.makespan <= limit:
        return sched, "shelves"
    sched = list_schedule(times, step.allotment)
    if sched.makespan <= limit:
        return _left_shift(times, sched.allotment, sched.start, list(sched.processors)), "list"
    return None


@dataclass
class _Search:
    lower: float  # largest proven rejection (or the simple bound)
    d: float = math.inf
    step: MrtStep | None = None
    tests: int = 0
    unbuilt: list[float] = field(default_factory=list)


def mrt(times: ArrayLike, processors: int, eps: float = 1e-3, repair: bool = False,
        ) -> Certified[MoldableSchedule]:
    """Schedule moldable jobs by the Mounié–Rapine–Trystram ``3/2(1 + eps)`` dual approximation.

    The dual test, its bisection and the ``3d/2`` construction are the module doc's.
    ``times[j][p−1]``: job ``j`` on ``p`` processors (one column per processor). Returns a
    :class:`Certified` whose schedule is a :class:`MoldableSchedule`; ``extra`` holds
    ``d_star`` (the smallest accepted guess, ``<= (1 + eps)·OPT``: spec DECIDE-20 reports
    it as the approximation of ``C*max``), the allotments, shelf sizes, the construction used
    and the number of dual tests. O(n·m·log(1/eps)) for the tests.

    Parameters
    ----------
    times : array_like
        ``times[j][p−1]``, job j's time on p processors, monotonic (time non-increasing,
        work non-decreasing).
    processors : int
        m, the number of processors (the table's width).
    eps : float
        The bisection's relative width, in (0, 1) (default 1e-3).
    repair : bool
        Accept a non-monotonic table, repaired (default ``False``; the guarantee is then
        ``inf``).

    Returns
    -------
    Certified of MoldableSchedule
        The schedule, its makespan, a lower bound (the largest rejected guess, or a simple
        bound), the guarantee 3/2 (with ``tolerance`` ``eps``) and the ``extra`` fields above.

    Raises
    ------
    InvalidInstanceError
        A bad table, count or ``eps``, or a non-monotonic job without ``repair``.

    Examples
    --------
    Three jobs on three processors (row ``j``: the time of job ``j`` on 1, 2, 3 processors):

    >>> r = mrt([[4.0, 2.0, 1.5], [3.0, 1.6, 1.2], [2.0, 2.0, 2.0]], processors=3)
    >>> r.makespan, round(r.lower_bound, 3), r.guarantee, r.holds()
    (4.5, 3.166, 1.5, True)
    >>> r.schedule.allotment.tolist()
    [3, 1, 1]
    """
    T, monotonic = check_table(times, processors, repair)
    return _mrt(T, monotonic, _check_eps(eps))


def _check_eps(eps: float) -> float:
    """The bisection's relative width, in (0, 1) (InvalidInstanceError otherwise)."""
    if not (isinstance(eps, (int, float)) and 0 < eps < 1):
        raise InvalidInstanceError("eps", eps, "must be in (0, 1)")
    return eps


def _mrt(T: np.ndarray, monotonic: bool, eps: float) -> Certified[MoldableSchedule]:
    """:func:`mrt` on a table :func:`check_table` accepted (``monotonic``: its work is)."""
    n, m = T.shape
    lb = simple_lower_bound(T)
    if n == 0:
        empty = MoldableSchedule(np.zeros(0), np.zeros(0), np.zeros(0, int), ())
        return Certified("mrt", empty, 0.0, 0.0, 1.5, eps)
    # fallback at UB = Σ T[j, m−1]: every job on all processors, one after another
    ub = float(T[:, -1].sum())
    seq_start = np.concatenate([[0.0], np.cumsum(T[:, -1])[:-1]])
    best = MoldableSchedule(seq_start, seq_start + T[:, -1], np.full(n, m),
                            tuple(np.arange(m) for _ in range(n)))
    best_d, how = ub, "sequential"
    s = _Search(lb, ub)
    lo = lb
    while True:
        while s.d - lo > eps * lo:
            d = (lo + s.d) / 2
            s.tests += 1
            step = mrt_test(T, d)
            if step is None:
                lo = s.lower = d
            else:
                s.d, s.step = d, step
        if s.step is None or s.d >= best_d:
            break
        built = build_schedule(T, s.step)
        if built is not None:
            best, how = built
            best_d = s.d
            break
        s.unbuilt.append(s.d)  # accepted but not built: search above it (not a proof)
        lo, s.d, s.step = s.d, best_d, None
    final = s.step if s.step is not None and s.d == best_d else None
    extra: dict[str, Any] = {
        "d_star": best_d, "construction": how, "dual_tests": s.tests,
        "unbuilt_guesses": len(s.unbuilt), "monotonic": monotonic,
        "allotment": best.allotment.tolist()}
    if final is not None:
        extra.update({f"shelf_{k}": int((final.shelf == k).sum()) for k in (0, 1, 2)})
    # without work monotony the rejections prove nothing: the bound valid for any table
    lower = s.lower if monotonic else simple_lower_bound(T, monotonic=False)
    return Certified("mrt", best, best.makespan, lower,
                     1.5 if monotonic else math.inf, eps, extra=extra)


def kshelf(times: ArrayLike, processors: int, cmax: float | None = None,
           weights: ArrayLike | None = None, eps: float = 1e-3, repair: bool = False,
           compact: bool = True) -> Certified[MoldableSchedule]:
    """Schedule moldable jobs in shelves of doubling length (the K-shelf algorithm).

    Seed 004 [L365–L377, L410–L418]; spec §5.3, DECIDE-22/23. ``C = cmax`` or MRT's ``d*``;
    ``t_min = min_j T[j, m−1]``; ``K = max(1, ceil(log2(C/t_min)))`` shelves of length
    ``L_k = C/2^(K−k)``; shelf ``k`` packs, among the remaining jobs that fit
    (``T[j, m−1] <= L_k``), a subset of maximal total weight (default: unit weights) with
    ``Σ γ_j(L_k) <= m`` (exact DP); jobs left after shelf ``K`` go into extra shelves of
    length ``C`` (DECIDE-22); a shelf starts at the nominal end of the previous non-empty
    one (DECIDE-23); shelves are not shuffled. With ``compact`` (default) the boxes are then
    list-scheduled in shelf order, [11]'s compaction without its random shuffles: every job
    then starts no later than its shelf (at a shelf's start all earlier shelves are over and
    the shelf's own jobs fit side by side), so compaction never lengthens the schedule;
    ``compact=False`` keeps the nominal shelves (CAFM's boxes, which it backfills). The
    result's ``guarantee`` is ``inf``: no makespan bound is proven for this variant (on one
    processor, nominal shelves hold one job each).

    Parameters
    ----------
    times : array_like
        ``times[j][p−1]``, job j's time on p processors, monotonic.
    processors : int
        m, the number of processors (the table's width).
    cmax : float or None
        C, the target makespan; ``None`` (default): MRT's ``d*``. At least the longest
        job on all processors.
    weights : array_like or None
        Each job's weight in the shelves' knapsacks (finite, >= 0); ``None`` (default):
        all 1.
    eps : float
        MRT's bisection width when ``cmax`` is ``None`` (in (0, 1); default 1e-3).
    repair : bool
        Accept a non-monotonic table, repaired (default ``False``).
    compact : bool
        List-schedule the shelves' boxes in shelf order (default ``True``); ``False``:
        nominal shelves.

    Returns
    -------
    Certified of MoldableSchedule
        The schedule, its makespan, a lower bound and the guarantee ``inf``; ``extra``
        holds ``C``, ``K``, ``shelves_used``, ``extra_shelves`` and ``shelf_lengths``.

    Raises
    ------
    InvalidInstanceError
        A bad table, count, ``eps`` or ``weights``, or ``cmax`` below the longest job.

    Examples
    --------
    >>> r = kshelf([[4.0, 2.0, 1.5], [3.0, 1.6, 1.2], [2.0, 2.0, 2.0]], processors=3)
    >>> r.makespan, r.extra["K"], r.extra["shelves_used"], r.schedule.allotment.tolist()
    (4.5, 2, 2, [3, 1, 1])
    """
    T, monotonic = check_table(times, processors, repair)
    n, m = T.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (n,) or not np.isfinite(w).all() or (w < 0).any():
        raise InvalidInstanceError("weights", w.shape, f"need {n} finite weights >= 0")
    base: Certified[MoldableSchedule] | None = None
    if cmax is None:  # the table as checked (and repaired): repair carries over to MRT
        base = _mrt(T, monotonic, _check_eps(eps))
        c = float(base.extra["d_star"])
    else:
        c = float(cmax)
    if n and c < T[:, -1].max() * (1 - 1e-12):
        raise InvalidInstanceError("cmax", c, f"below the longest job on all processors "
                                   f"({T[:, -1].max()}): some job fits no shelf")
    start = np.zeros(n)
    allot = np.zeros(n, dtype=int)
    procs: list[np.ndarray] = [np.zeros(0, int)] * n
    if n == 0:
        empty = MoldableSchedule(start, start, allot, ())
        return Certified("k-shelf", empty, 0.0, 0.0, math.inf)
    t_min = float(T[:, -1].min())
    k_shelves = max(1, math.ceil(math.log2(c / t_min))) if c > t_min else 1
    remaining = np.ones(n, dtype=bool)
    t0, k, used = 0.0, 1, 0
    lengths: list[float] = []
    while remaining.any():
        length = c / 2 ** (k_shelves - k) if k <= k_shelves else c
        cand = np.flatnonzero(remaining & (T[:, -1] <= length * (1 + _TOL)))
        size = canonical(T[cand], length)
        mask = knapsack_max(size, w[cand], m)
        chosen = cand[mask]
        if chosen.size:
            nxt = 0
            for j, g in zip(chosen, size[mask], strict=True):
                allot[j], start[j] = g, t0
                procs[j] = np.arange(nxt, nxt + g)
                nxt += g
            remaining[chosen] = False
            t0 += length
            used += 1
            lengths.append(length)
        elif k > k_shelves:  # cannot happen: every job fits a shelf of length C
            raise InvalidInstanceError("cmax", c, "a job fits no shelf of length C")
        k += 1
    end = start + T[np.arange(n), allot - 1]
    sched = MoldableSchedule(start, end, allot, tuple(procs))
    if compact:
        sched = list_schedule(T, allot, np.lexsort((np.arange(n), start)))
    lower = base.lower_bound if base is not None else simple_lower_bound(T, monotonic)
    return Certified("k-shelf", sched, sched.makespan, lower,
                     math.inf, extra={"C": c, "K": k_shelves, "shelves_used": used,
                                      "extra_shelves": max(0, k - 1 - k_shelves),
                                      "shelf_lengths": lengths})


def validate_moldable(times: np.ndarray, sched: MoldableSchedule) -> None:
    """Check a moldable schedule independently of the algorithm that made it.

    Each job runs once, for ``T[j, allotment−1]``, on ``allotment`` distinct processors of
    the machine, and no processor runs two jobs at once (InvalidScheduleError).

    Parameters
    ----------
    times : numpy.ndarray
        ``T[j, p−1]``, job j's time on p processors, shape ``(n, m)``, checked and monotonic
        (:func:`check_table`).
    sched : MoldableSchedule
        The schedule to check.

    Raises
    ------
    InvalidScheduleError
        At the first violation: a job missing, a start before 0, a wrong allotment or
        processor set, a wrong duration, or an overlap.
    """
    n, m = times.shape
    if sched.start.size != n or len(sched.processors) != n:
        raise InvalidScheduleError("jobs", "the schedule does not hold every job once")
    if (sched.start < -1e-12).any():
        raise InvalidScheduleError("start", "a job starts before time 0")
    busy: list[list[tuple[float, float, int]]] = [[] for _ in range(m)]
    for j in range(n):
        ids, a = sched.processors[j], int(sched.allotment[j])
        if not 1 <= a <= m or ids.size != a or np.unique(ids).size != a:
            raise InvalidScheduleError("allotment", f"job {j} holds {ids.size} processors "
                                       f"for an allotment of {a}", j)
        if (ids < 0).any() or (ids >= m).any():
            raise InvalidScheduleError("processors", f"job {j} outside the machine", j)
        dur = sched.end[j] - sched.start[j]
        if abs(dur - times[j, a - 1]) > 1e-9 * max(1.0, times[j, a - 1]):
            raise InvalidScheduleError("duration", f"job {j} runs {dur}, not "
                                       f"T[{j}][{a - 1}] = {times[j, a - 1]}", j)
        for i in ids:
            busy[int(i)].append((float(sched.start[j]), float(sched.end[j]), j))
    for i, spans in enumerate(busy):
        spans.sort()
        for (_s, e, a), (s2, _e2, b) in itertools.pairwise(spans):
            if s2 < e - 1e-9 * max(1.0, abs(e)):
                raise InvalidScheduleError("overlap", f"processor {i} runs jobs {a} and {b} "
                                           "at once", b)


def amdahl_table(work: ArrayLike, serial: ArrayLike, processors: int) -> np.ndarray:
    """Build the time table of Amdahl's law, ``T[j, p−1] = work_j·(serial_j + (1 − serial_j)/p)``.

    Monotonic for ``0 <= serial_j <= 1``: time falls, work ``work_j·(serial_j·p + 1 −
    serial_j)`` rises.

    Parameters
    ----------
    work : array_like
        Each job's sequential time (its work at unit speed), shape ``(n,)``.
    serial : array_like
        Each job's serial fraction, in [0, 1], shape ``(n,)``.
    processors : int
        m, the number of processors (the table's width).

    Returns
    -------
    numpy.ndarray
        Shape ``(n, m)``.

    Raises
    ------
    InvalidInstanceError
        ``processors`` not a whole number in range.
    """
    w = np.asarray(work, dtype=float)[:, None]
    f = np.asarray(serial, dtype=float)[:, None]
    p = np.arange(1, check_count("processors", processors) + 1)[None, :]
    return w * (f + (1 - f) / p)
