"""Event-driven mappings and the BACKFILL pass (seed 004 §3 [L227-233, L300-303];
spec §3.4, §3.6, §4.4 M_RIGID).

* :func:`m_ready` — M-READY (CRA): time-driven list scheduling of the *ready* tasks; at
  every event the ready tasks are tried in priority order and each one that fits in the
  free processors starts (greedy skip, DECIDE-6), on the lowest free ids (DECIDE-28).
* :func:`m_rigid` — the same for independent rigid jobs (CAFM's boxes).
* :func:`backfill` — conservative compaction: in mapping order (DECIDE-7), each task starts
  at the earliest time in ``[est, start]`` at which ``p_v`` processors are free for its
  whole duration given every other task's current position (DECIDE-8: processors may
  change; its old ones are preferred). One pass (DECIDE-9). No task ever starts later.
"""

from __future__ import annotations

import heapq

import numpy as np

from lpsched.core.kernels import compiled
from lpsched.ptg.model import Dag
from lpsched.ptg.schedule import PtgSchedule

try:  # the compiled BACKFILL (optional: without a C compiler or Cython the Python one runs)
    from lpsched.ptg import _backfill_c
except ImportError:  # pragma: no cover - depends on the build
    _backfill_c = None  # type: ignore[assignment]

_EPS = 1e-9


def m_ready(dag: Dag, p: np.ndarray, keys: tuple[np.ndarray, ...], processors: int,
            rng: np.random.Generator) -> PtgSchedule:
    """M-READY (spec §3.4).

    O(E·R log R + n·P) for E events and at most R ready tasks.

    Parameters
    ----------
    dag : Dag
        The tasks of every PTG (flat).
    p : numpy.ndarray
        Processors per task (0 for dummies).
    keys : tuple of numpy.ndarray
        Priority keys, compared lexicographically, smaller first (spec §3.5).
    processors : int
        ``P``, the cluster's processors.
    rng : numpy.random.Generator
        Breaks ties between equal keys.

    Returns
    -------
    PtgSchedule
        Each ready task started, by priority, as soon as ``p_v`` processors are free.
    """
    n = dag.n
    tie = rng.permutation(n)
    rank = {v: (*(float(k[v]) for k in keys), int(tie[v])) for v in range(n)}
    tt = dag.times(p)
    start, end = np.zeros(n), np.zeros(n)
    procs: list[np.ndarray] = [np.zeros(0, int)] * n
    missing = np.array([len(x) for x in dag.preds])
    free = np.ones(processors, bool)
    ready = [v for v in range(n) if missing[v] == 0]
    running: list[tuple[float, int]] = []
    seq: list[int] = []
    t = 0.0

    def finish(v: int) -> None:
        for w in dag.succs[v]:
            missing[w] -= 1
            if missing[w] == 0:
                ready.append(w)

    while ready or running:
        progress = True
        while progress:  # dummies complete at once and may free new ready tasks
            progress = False
            ready.sort(key=rank.__getitem__)
            for v in list(ready):
                if p[v] == 0:
                    start[v] = end[v] = t
                    ready.remove(v)
                    seq.append(v)
                    finish(v)
                    progress = True
                elif p[v] <= free.sum():
                    q = np.flatnonzero(free)[: p[v]]
                    free[q] = False
                    procs[v], start[v], end[v] = q, t, t + tt[v]
                    heapq.heappush(running, (end[v], v))
                    ready.remove(v)
                    seq.append(v)
        if not running:
            break
        t = running[0][0]
        while running and running[0][0] <= t + _EPS * max(1.0, t):
            _, v = heapq.heappop(running)
            free[procs[v]] = True
            finish(v)
    return PtgSchedule(start, end, p.copy(), procs, dag.owner.copy(), np.array(seq, int))


def m_rigid(size: np.ndarray, duration: np.ndarray, order: np.ndarray, processors: int,
            ) -> tuple[np.ndarray, list[np.ndarray]]:
    """M_RIGID (spec §4.4): independent rigid jobs, event-driven, in ``order`` each job that fits
    starts (greedy skip); returns starts and processor sets.

    O(J²).

    Parameters
    ----------
    size : numpy.ndarray
        Processors of each job (the CAFM boxes' allotments ``a_i``).
    duration : numpy.ndarray
        Length of each job (s).
    order : numpy.ndarray
        Job indices in priority order (SAF, SPTF or LPTF).
    processors : int
        ``P``, the cluster's processors.

    Returns
    -------
    tuple
        Start time of each job (s, shape ``(J,)``) and the processor indices of each job.
    """
    J = size.size
    start = np.zeros(J)
    procs: list[np.ndarray] = [np.zeros(0, int)] * J
    free = np.ones(processors, bool)
    waiting = [int(j) for j in order]
    running: list[tuple[float, int]] = []
    t = 0.0
    while waiting:
        for j in list(waiting):
            if size[j] <= free.sum():
                q = np.flatnonzero(free)[: size[j]]
                free[q] = False
                start[j], procs[j] = t, q
                heapq.heappush(running, (t + duration[j], j))
                waiting.remove(j)
        if not waiting:
            break
        t = running[0][0]
        while running and running[0][0] <= t + _EPS * max(1.0, t):
            _, j = heapq.heappop(running)
            free[procs[j]] = True
    return start, procs


def backfill(sched: PtgSchedule, dag: Dag, processors: int) -> PtgSchedule:
    """BACKFILL (spec §3.6): returns a new schedule where no task starts later than in ``sched`` and
    every task keeps its allocation and duration.

    The compiled loop (``lpsched.ptg._backfill_c``, :func:`backfill_python` statement for
    statement, the same schedule bit for bit) runs when it is built, the Python loop (the
    reference) otherwise or when ``LPSCHED_PURE_PYTHON`` is set.

    Parameters
    ----------
    sched : PtgSchedule
        A schedule of ``dag`` (its mapping order is the order tasks are reconsidered in,
        seed 004 [L228-233]).
    dag : Dag
        The tasks (durations, precedences).
    processors : int
        ``P``, the cluster's processors.

    Returns
    -------
    PtgSchedule
        The compacted schedule (:func:`backfill_python`'s).

    Notes
    -----
    The compiled loop is decision 641.
    """
    if not compiled(_backfill_c) \
            or sched.start.dtype != np.float64 or sched.end.dtype != np.float64:
        return backfill_python(sched, dag, processors)
    n, P = dag.n, processors
    start, end = sched.start.copy(), sched.end.copy()
    member = np.zeros((n, P), np.uint8)
    for v in range(n):
        member[v, sched.procs[v]] = 1
    if "_pred_csr" not in dag.__dict__:
        preds = dag.preds
        dag.__dict__["_pred_csr"] = (
            np.concatenate([[0], np.cumsum([len(x) for x in preds])]).astype(np.int64),
            np.array([u for x in preds for u in x], dtype=np.int64))
    pptr, pidx = dag.__dict__["_pred_csr"]
    moved = _backfill_c.backfill(start, end, np.ascontiguousarray(sched.alloc, np.int64),
                                 np.ascontiguousarray(sched.order, np.int64), pptr, pidx,
                                 member, _EPS)
    procs = list(sched.procs)
    for v in moved:
        procs[v] = np.flatnonzero(member[v])
    return PtgSchedule(start, end, sched.alloc.copy(), procs, sched.owner.copy(),
                       sched.order.copy(), dict(sched.info))


def backfill_python(sched: PtgSchedule, dag: Dag, processors: int) -> PtgSchedule:
    """:func:`backfill`'s Python loop, the reference of the compiled one.

    Candidate start times are ``est`` and the finish times in ``(est, start]``. O(n·c·n·P) for ``c``
    candidates.

    Parameters
    ----------
    sched : PtgSchedule
        A schedule of ``dag`` (its mapping order is the order tasks are reconsidered in,
        seed 004 [L228-233]).
    dag : Dag
        The tasks (durations, precedences).
    processors : int
        ``P``, the cluster's processors.

    Returns
    -------
    PtgSchedule
        The compacted schedule (same allocations, no task later, no task delayed).
    """
    n, P = dag.n, processors
    start, end = sched.start.copy(), sched.end.copy()
    dur = end - start
    member = np.zeros((n, P), bool)
    for v in range(n):
        member[v, sched.procs[v]] = True
    procs = list(sched.procs)
    for v in sched.order:
        est = max((end[u] for u in dag.preds[v]), default=0.0)
        if sched.alloc[v] == 0:
            start[v] = end[v] = est
            continue
        if est >= start[v] - _EPS * max(1.0, start[v]):
            continue
        member_v = member[v].copy()
        member[v] = False
        cands = np.unique(np.concatenate([[est], end[(end > est) & (end < start[v])]]))
        for t in cands:
            over = (start < t + dur[v] - _EPS * max(1.0, t)) & (end > t + _EPS * max(1.0, t))
            over[v] = False
            free = ~member[over].any(axis=0)
            if free.sum() >= sched.alloc[v]:
                pick = np.flatnonzero(free & member_v)
                if pick.size < sched.alloc[v]:
                    others = np.flatnonzero(free & ~member_v)
                    pick = np.concatenate([pick, others[: sched.alloc[v] - pick.size]])
                q = np.sort(pick[: sched.alloc[v]])
                member_v[:] = False
                member_v[q] = True
                start[v], end[v] = t, t + dur[v]
                procs[v] = q
                break
        member[v] = member_v
    return PtgSchedule(start, end, sched.alloc.copy(), procs, sched.owner.copy(),
                       sched.order.copy(), dict(sched.info))
