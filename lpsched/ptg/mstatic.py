"""M-STATIC (seed 004 §3.3, spec §3.3): static list scheduling "as early as possible" with
BEST_SET, and its makespan-only form for the moldable specification (spec §3.7).

* :func:`topo_order` — tasks by priority keys, random ties, predecessors first (DECIDE-27).
* :func:`best_set` / :func:`m_static` — each task on the ``p_v`` processors BEST_SET picks,
  after the last task mapped on them (no insertion).
* :func:`static_makespan` / :func:`hcpa_makespans` — the same start and end times without
  the processor sets (a sorted list of availability times), for the ``P`` schedules per PTG
  of the moldable specification.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable
from typing import Any

import numpy as np

from lpsched.ptg.levels import bottom_level_list
from lpsched.ptg.model import Dag
from lpsched.ptg.schedule import PtgSchedule

#: relative tolerance of "free by the earliest start" in BEST_SET
_TOL = 1e-12


def topo_order(dag: Dag, keys: tuple[np.ndarray, ...], rng: np.random.Generator,
               ) -> list[int]:
    """Tasks by increasing ``keys`` (lexicographic), random ties, never a task before one of its
    predecessors (a heap over the ready tasks: DECIDE-27).

    O(n log n + e).

    Parameters
    ----------
    dag : Dag
        The tasks.
    keys : tuple of numpy.ndarray
        Priority keys, compared lexicographically, smaller first (spec §3.5).
    rng : numpy.random.Generator
        Draws the random tie-breaker.

    Returns
    -------
    list of int
        Every task once, in a topological order.
    """
    return _ordered(dag, [np.asarray(k, float).tolist() for k in keys],
                    rng.permutation(dag.n).tolist())


def _ordered(dag: Dag, cols: list[list[float]], tie: list[int] | None) -> list[int]:
    """:func:`topo_order` on lists; ``tie=None`` when no two tasks have equal keys (the
    tie-breaker is then never compared)."""
    # entries (key values..., tie, task): as long as ``keys`` plus two (one without ties)
    rows: list[tuple[Any, ...]]
    if tie is None:
        rows = ([(k0, v) for v, k0 in enumerate(cols[0])] if len(cols) == 1 else
                [(*(c[v] for c in cols), v) for v in range(dag.n)])
    elif len(cols) == 1:
        rows = [(k0, t, v) for v, (k0, t) in enumerate(zip(cols[0], tie, strict=True))]
    else:
        rows = [(*(c[v] for c in cols), tie[v], v) for v in range(dag.n)]
    missing = [len(x) for x in dag.preds]
    heap: list[tuple[Any, ...]] = [rows[v] for v in range(dag.n) if not missing[v]]
    heapq.heapify(heap)
    out: list[int] = []
    succs = dag.succs
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        v = pop(heap)[-1]
        out.append(v)
        for w in succs[v]:
            missing[w] -= 1
            if not missing[w]:
                push(heap, rows[w])
    return out


def best_set(avail: np.ndarray, k: int, est: float) -> np.ndarray:
    """BEST_SET (spec §3.3): processors free by ``est`` by decreasing ``avail`` (smallest idle gap),
    then the others by increasing ``avail``; the first ``k``.

    O(P log P).

    Parameters
    ----------
    avail : numpy.ndarray
        The time (s) each processor becomes free.
    k : int
        Processors wanted.
    est : float
        The task's earliest start (s).

    Returns
    -------
    numpy.ndarray
        The ``k`` processor indices.
    """
    early = avail <= est + _TOL * max(1.0, est)
    order = np.lexsort((np.where(early, -avail, avail), ~early))
    return order[:k]


def m_static(dag: Dag, p: np.ndarray, keys: tuple[np.ndarray, ...], processors: int,
             rng: np.random.Generator, order: list[int] | None = None) -> PtgSchedule:
    """M-STATIC (spec §3.3): in priority order, each task as early as possible on ``p_v`` processors
    chosen by :func:`best_set`, after the last task mapped on them (no insertion).

    O(n·P log P).

    Parameters
    ----------
    dag : Dag
        The tasks.
    p : numpy.ndarray
        Processors per task.
    keys : tuple of numpy.ndarray
        Priority keys, compared lexicographically, smaller first (spec §3.5).
    processors : int
        The processors of the (virtual) cluster.
    rng : numpy.random.Generator
        Breaks ties between equal keys.
    order : list of int, optional
        A mapping order to use instead of :func:`topo_order` of ``keys``.

    Returns
    -------
    PtgSchedule
        Start, end and processors of every task.
    """
    seq = order if order is not None else topo_order(dag, keys, rng)
    avail = np.zeros(processors)
    n = dag.n
    start, end = np.zeros(n), np.zeros(n)
    procs: list[np.ndarray] = [np.zeros(0, int)] * n
    tt = dag.times(p)
    for v in seq:
        est = max((end[u] for u in dag.preds[v]), default=0.0)
        if p[v] == 0:
            start[v] = end[v] = est
            continue
        q = best_set(avail, int(p[v]), est)
        start[v] = max(est, float(avail[q].max()))
        end[v] = start[v] + tt[v]
        avail[q] = end[v]
        procs[v] = np.sort(q)
    return PtgSchedule(start, end, p.copy(), procs, dag.owner.copy(), np.array(seq, int))


def static_makespan(dag: Dag, p: np.ndarray, keys: tuple[np.ndarray, ...], processors: int,
                    rng: np.random.Generator) -> float:
    """The makespan of :func:`m_static` with the same arguments, without the processor sets.

    Processors are interchangeable, so the state is the sorted list of their availability
    times, and BEST_SET's ``k`` processors are a contiguous run of it (the ``k`` latest of
    those free by ``est``, else the ``k`` earliest), replaced by ``k`` copies of the task's
    end. Same start and end times, bit for bit (same comparisons, same sums). O(n·P) element
    moves in C instead of O(n·P log P) sorting.

    Parameters
    ----------
    dag : Dag
        The tasks.
    p : numpy.ndarray
        Processors per task.
    keys : tuple of numpy.ndarray
        Priority keys, compared lexicographically, smaller first (spec §3.5).
    processors : int
        The processors of the (virtual) cluster.
    rng : numpy.random.Generator
        Breaks ties between equal keys.

    Returns
    -------
    float
        The makespan (s).
    """
    return _static_end(dag, dag.times(p).tolist(), p.tolist(), topo_order(dag, keys, rng),
                       processors)[0]


def hcpa_makespans(dag: Dag, allocs: list[np.ndarray],
                   rng: Callable[[int], np.random.Generator]) -> np.ndarray:
    """``hcpa_schedule(dag, p, rng(p), allocs[p − 1]).makespan`` for ``p = 1..len(allocs)`` (the
    moldable specification, spec §3.7), without the schedules (:func:`static_makespan`).

    ``rng(p)`` is called only when two tasks have equal bottom levels (otherwise the random
    tie-breaker is never used). When budget ``p`` has the allocation of ``p − 1``, no ties,
    and on ``p − 1`` processors every task found its processors free by its earliest start,
    the schedule on ``p`` is the same (the extra processor stays idle: BEST_SET takes the
    latest-free of the free ones), so its makespan is reused. O(P·(n log n + e + n·P)).

    Parameters
    ----------
    dag : Dag
        One PTG.
    allocs : list of numpy.ndarray
        The HCPA allocation for every budget ``1..P`` (:func:`lpsched.ptg.hcpa.all_allocs`).
    rng : callable
        ``rng(p)`` gives the tie-breaking generator of budget ``p``.

    Returns
    -------
    numpy.ndarray
        ``T_i(p)`` for ``p = 1..P`` (s), shape ``(P,)``.
    """
    out = np.zeros(len(allocs))
    same = False
    for i, alloc in enumerate(allocs):
        if same and np.array_equal(alloc, allocs[i - 1]):
            out[i] = out[i - 1]
            continue
        tt = dag.times(alloc).tolist()
        key = [-b for b in bottom_level_list(dag, tt)]
        tie = rng(i + 1).permutation(dag.n).tolist() if len(set(key)) < len(key) else None
        out[i], waited = _static_end(dag, tt, alloc.tolist(), _ordered(dag, [key], tie),
                                     i + 1)
        same = tie is None and not waited
    return out


def _static_end(dag: Dag, tt: list[float], alloc: list[int], seq: list[int],
                processors: int) -> tuple[float, bool]:
    """The M-STATIC loop of :func:`static_makespan` on task order ``seq``: the makespan,
    and whether some task had to take processors not yet free at its earliest start."""
    avail = [0.0] * processors
    end = [0.0] * dag.n
    preds = dag.preds
    waited = False
    for v in seq:
        pr = preds[v]
        est = (end[pr[0]] if len(pr) == 1 else max([end[u] for u in pr])) if pr else 0.0
        k = alloc[v]
        if k == 0:
            end[v] = est
            continue
        m = bisect.bisect_right(avail, est + _TOL * max(1.0, est))
        if m >= k:
            lo = m - k
        else:
            lo, waited = 0, True
        top = avail[lo + k - 1]
        e = end[v] = max(est, top) + tt[v]
        del avail[lo:lo + k]
        at = bisect.bisect_right(avail, e)
        avail[at:at] = [e] * k
    return (max(end) if end else 0.0), waited
