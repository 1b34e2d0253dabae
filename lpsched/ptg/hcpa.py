"""HCPA allocation and the M-STATIC mapping (seed 004 §3 [L214-226]; spec §3.1–§3.3, §1.5).

* :func:`bottom_levels` — ``bl(v) = T(v, p_v) + max_{w ∈ succ(v)} bl(w)`` (spec §1.5).
* :func:`hcpa_alloc` — CPA/HCPA allocation under a processor budget ``Pb``: every task
  starts on one processor; while the critical path ``T_CP`` exceeds the average area
  ``T_A = Σ p_v T(v, p_v)/Pb``, the critical-path task with the largest gain
  ``T(v,p)/p − T(v,p+1)/(p+1)`` (DECIDE-2, GAIN) gets one more processor, subject to the
  per-task cap and the optional per-level cap of CRA (DECIDE-1, DECIDE-17).
  Ties (critical-path walk, selection) go to the lowest task index, so the allocation is a
  function of ``(graph, Pb)`` and can be cached (docs/decisions.md, decision 113).
* :class:`Trajectory` — the uncapped run on ``P`` processors, replayed to get the
  allocation for every budget ``Pb <= P`` at once (the moldable specification of §3.7).
* :func:`m_static` — static list scheduling "as early as possible" with BEST_SET
  (spec §3.3): tasks in priority order (a topological heap: random ties among tasks whose
  predecessors are mapped, DECIDE-27), appended after the last task of the chosen processors.
* :func:`hcpa_schedule` — HCPA_SCHED (spec §3.2): allocation then M-STATIC by decreasing
  bottom level on a virtual cluster of ``p`` processors; its makespan is ``C*_i`` for
  ``p = P`` (no backfilling, DECIDE-3).
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass

import numpy as np

from lpsched.ptg.model import Dag
from lpsched.ptg.schedule import PtgSchedule

_TOL = 1e-12


def bottom_levels(dag: Dag, p: np.ndarray) -> np.ndarray:
    """Bottom levels under allocation ``p`` (the task's own time included). O(n + e)."""
    tt = dag.times(p)
    bl = tt.copy()
    for v in range(dag.n - 1, -1, -1):
        s = dag.succs[v]
        if s:
            bl[v] = tt[v] + max(bl[w] for w in s)
    return bl


def top_levels(dag: Dag, tt: np.ndarray) -> np.ndarray:
    """``tl(v) = max_{u ∈ pred(v)} tl(u) + T(u)`` (spec §1.5). O(n + e)."""
    tl = np.zeros(dag.n)
    for v in range(dag.n):
        pr = dag.preds[v]
        if pr:
            tl[v] = max(tl[u] + tt[u] for u in pr)
    return tl


def _critical_path(dag: Dag, bl: np.ndarray, sources: list[int]) -> tuple[float, list[int]]:
    """``T_CP`` and one critical path (walk to the successor of largest ``bl``, lowest
    index on ties)."""
    v = max(sources, key=lambda u: (bl[u], -u))
    t_cp = float(bl[v])
    path = [v]
    while dag.succs[v]:
        v = max(dag.succs[v], key=lambda u: (bl[u], -u))
        path.append(v)
    return t_cp, path


def _second_path(dag: Dag, path: list[int], on: np.ndarray, tl: np.ndarray, tt: np.ndarray,
                 bl: np.ndarray) -> float:
    """An upper bound on every path other than ``path``: such a path visits a task off
    ``path`` or uses an edge between two of its tasks that are not consecutive on it."""
    off = (tl + bl)[~on]
    best = float(off.max()) if off.size else -np.inf
    nxt = dict(itertools.pairwise(path))
    for u in path:
        for w in dag.succs[u]:
            if on[w] and nxt.get(u) != w:
                best = max(best, float(tl[u] + tt[u] + bl[w]))
    return best


@dataclass
class _Record:
    chosen: list[int]
    before: list[int]
    t_cp: list[float]
    area: list[float]


def _hcpa_run(dag: Dag, budget: int, limit: int, level_cap: int | None,
              levels: np.ndarray | None, p0: np.ndarray, rec: _Record | None = None,
              ) -> np.ndarray:
    """The HCPA loop (module doc), in batches: while the critical path ``L`` stays longer
    than every other path (:func:`_second_path`), it remains the critical path, so the
    increments (largest gain first, a heap) need no bottom-level recomputation. Every
    single increment is still tested and recorded, so the result is exactly the
    one-step-at-a-time algorithm's."""
    p = p0.copy()
    real = ~dag.dummy
    sources = [v for v in range(dag.n) if not dag.preds[v]]
    levsum = (np.bincount(levels, weights=np.where(real, p, 0)).tolist()
              if level_cap is not None and levels is not None else None)
    tt = dag.times(p)
    bl = bottom_levels(dag, p)
    tl = top_levels(dag, tt)
    while True:
        area = float((np.maximum(p, 1) * tt)[real].sum())
        L, path = _critical_path(dag, bl, sources)
        on = np.zeros(dag.n, bool)
        on[path] = True
        L2 = _second_path(dag, path, on, tl, tt, bl)
        cand = [v for v in path if real[v] and p[v] < limit]
        before = p.copy()
        if not _increments(dag, p, cand, L, L2, area, budget, limit, level_cap, levels,
                           levsum, rec):
            return p
        changed = np.flatnonzero(p != before).tolist()
        tt[changed] = dag.t1[changed] * (dag.alpha[changed]
                                         + (1 - dag.alpha[changed]) / p[changed])
        _update_levels(dag, tt, bl, tl, changed)


def _update_levels(dag: Dag, tt: np.ndarray, bl: np.ndarray, tl: np.ndarray,
                   changed: list[int]) -> None:
    """Bottom levels of the ancestors and top levels of the descendants of ``changed``
    after their times changed (in place; each task recomputed from its neighbours, in
    reverse / forward topological order, propagating only actual changes)."""
    must = set(changed)
    heap = [-v for v in changed]
    heapq.heapify(heap)
    seen = set(changed)
    while heap:
        u = -heapq.heappop(heap)
        s = dag.succs[u]
        new = tt[u] + (max(bl[w] for w in s) if s else 0.0)
        if new != bl[u] or u in must:
            bl[u] = new
            for w in dag.preds[u]:
                if w not in seen:
                    seen.add(w)
                    heapq.heappush(heap, -w)
    heap = sorted({w for v in changed for w in dag.succs[v]})
    seen = set(heap)
    while heap:
        w = heapq.heappop(heap)
        new = max(tl[u] + tt[u] for u in dag.preds[w])
        if new != tl[w]:
            tl[w] = new
            for x in dag.succs[w]:
                if x not in seen:
                    seen.add(x)
                    heapq.heappush(heap, x)


def _increments(dag: Dag, p: np.ndarray, cand: list[int], L: float, L2: float, area: float,
                budget: int, limit: int, level_cap: int | None, levels: np.ndarray | None,
                levsum: list[float] | None, rec: _Record | None) -> bool:
    """One batch of increments on a fixed critical path; updates ``p`` in place. Returns
    True when the critical path must be recomputed, False when HCPA stops."""
    t1, al = dag.t1, dag.alpha
    heap = []
    for v in cand:
        q, a, t = int(p[v]), float(al[v]), float(t1[v])
        tq, tq1 = t * (a + (1.0 - a) / q), t * (a + (1.0 - a) / (q + 1))
        heap.append((tq1 / (q + 1) - tq / q, v, q, tq, tq1, t, a))
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    first = True
    while True:
        if not first and L <= L2 * (1 + 1e-12):
            return True  # another path may be critical
        if L * budget <= area * (1 + _TOL):
            return False
        first = False
        while heap and levsum is not None and \
                levsum[levels[heap[0][1]]] + 1 > level_cap:  # type: ignore[index,operator]
            pop(heap)  # level sums only grow: it never fits again
        if not heap:
            return False
        _, v, q, tq, tq1, t, a = pop(heap)
        if rec is not None:
            rec.chosen.append(v)
            rec.before.append(q)
            rec.t_cp.append(L)
            rec.area.append(area)
        L -= tq - tq1
        area += (q + 1) * tq1 - q * tq
        p[v] = q + 1
        if levsum is not None:
            levsum[levels[v]] += 1  # type: ignore[index]
        if q + 1 < limit:
            tq2 = t * (a + (1.0 - a) / (q + 2))
            push(heap, (tq2 / (q + 2) - tq1 / (q + 1), v, q + 1, tq1, tq2, t, a))


def hcpa_alloc(dag: Dag, budget: int, cap: int | None = None, level_cap: int | None = None,
               levels: np.ndarray | None = None, init: np.ndarray | None = None,
               ) -> np.ndarray:
    """HCPA_ALLOC (spec §3.1) with budget ``Pb = budget``; returns ``p_v`` (0 for dummies).

    Stops when ``T_CP <= T_A`` or no critical-path task may grow (cap ``min(cap, Pb)``,
    level cap: ``Σ_{lev(u) = lev(v)} p_u + 1 <= level_cap``). The result never exceeds
    ``budget`` per task. O(K log n + B·(n + e)) for ``K`` increments in ``B`` batches."""
    limit = min(cap or budget, budget)
    p = init.copy() if init is not None else np.where(dag.dummy, 0, 1)
    return _hcpa_run(dag, budget, limit, level_cap, levels, p)


@dataclass
class Trajectory:
    """The HCPA increments on the whole cluster, replayed for smaller budgets.

    For budget ``b`` the capped run follows the uncapped one until either its stopping test
    ``T_CP <= area/b`` holds or the chosen task already has ``b`` processors (then the run
    continues from that state with the cap): with deterministic ties the two runs choose
    the same task while the cap does not bind. Exactly :func:`hcpa_alloc` for every ``b``."""

    dag: Dag
    chosen: np.ndarray
    before: np.ndarray
    t_cp: np.ndarray
    area: np.ndarray
    processors: int

    @classmethod
    def build(cls, dag: Dag, processors: int) -> Trajectory:
        """One HCPA run with budget ``P``, recording every step. O(K log n)."""
        rec = _Record([], [], [], [])
        p = _hcpa_run(dag, processors, processors, None, None, np.where(dag.dummy, 0, 1), rec)
        tt = dag.times(p)
        rec.t_cp.append(float(bottom_levels(dag, p).max()))
        rec.area.append(float((np.maximum(p, 1) * tt)[~dag.dummy].sum()))
        return cls(dag, np.array(rec.chosen, int), np.array(rec.before, int),
                   np.array(rec.t_cp), np.array(rec.area), processors)

    def alloc(self, budget: int) -> np.ndarray:
        """HCPA_ALLOC with budget ``budget <= P``. O(K) plus any capped continuation."""
        k_steps = self.chosen.size
        stop = self.t_cp * budget <= self.area * (1 + _TOL)
        diverge = np.append(self.before >= budget, True)
        k_stop = int(np.argmax(stop)) if stop.any() else k_steps + 1
        k_div = int(np.argmax(diverge))
        k = min(k_stop, k_div, k_steps)
        p = np.where(self.dag.dummy, 0, 1)
        np.add.at(p, self.chosen[:k], 1)
        if k_stop <= k_div or budget >= self.processors:
            return p
        return hcpa_alloc(self.dag, budget, init=p)


def all_allocs(traj: Trajectory) -> list[np.ndarray]:
    """``HCPA_ALLOC`` for every budget ``b = 1..P`` (item ``b − 1``), exactly.

    Budgets are processed in decreasing order and the run for ``b`` is replayed from the
    run for ``b + 1`` (not from the run on ``P``): the two choose the same task as long as
    that task has fewer than ``b`` processors, so only the steps after the first task of the
    ``(b+1)``-run that reaches ``b`` processors are recomputed."""
    dag, P = traj.dag, traj.processors
    base = np.where(dag.dummy, 0, 1)
    out: list[np.ndarray] = [base] * P
    chosen, before, t_cp, area = traj.chosen, traj.before, traj.t_cp, traj.area
    out[P - 1] = traj.alloc(P)
    for b in range(P - 1, 0, -1):
        K = chosen.size
        stop = t_cp * b <= area * (1 + _TOL)
        k_stop = int(np.argmax(stop)) if stop.any() else K + 1
        k_div = int(np.argmax(np.append(before >= b, True)))
        k = min(k_stop, k_div, K)
        p = base.copy()
        np.add.at(p, chosen[:k], 1)
        if k_stop <= k_div:
            out[b - 1] = p
            chosen, before, t_cp, area = chosen[:k], before[:k], t_cp[:k + 1], area[:k + 1]
            continue
        rec = _Record(chosen[:k].tolist(), before[:k].tolist(), t_cp[:k].tolist(),
                      area[:k].tolist())
        p = _hcpa_run(dag, b, b, None, None, p, rec)
        out[b - 1] = p
        rec.t_cp.append(float(bottom_levels(dag, p).max()))
        rec.area.append(float((np.maximum(p, 1) * dag.times(p))[~dag.dummy].sum()))
        chosen, before = np.array(rec.chosen, int), np.array(rec.before, int)
        t_cp, area = np.array(rec.t_cp), np.array(rec.area)
    return out


def topo_order(dag: Dag, keys: tuple[np.ndarray, ...], rng: np.random.Generator,
               ) -> list[int]:
    """Tasks by increasing ``keys`` (lexicographic), random ties, never a task before one of
    its predecessors (a heap over the ready tasks: DECIDE-27). O(n log n + e)."""
    tie = rng.permutation(dag.n)
    missing = np.array([len(x) for x in dag.preds])
    heap = [(*(float(k[v]) for k in keys), int(tie[v]), v) for v in np.flatnonzero(missing == 0)]
    heapq.heapify(heap)
    out = []
    while heap:
        v = heapq.heappop(heap)[-1]
        out.append(v)
        for w in dag.succs[v]:
            missing[w] -= 1
            if missing[w] == 0:
                heapq.heappush(heap, (*(float(k[w]) for k in keys), int(tie[w]), w))
    return out


def best_set(avail: np.ndarray, k: int, est: float) -> np.ndarray:
    """BEST_SET (spec §3.3): processors free by ``est`` by decreasing ``avail`` (smallest
    idle gap), then the others by increasing ``avail``; the first ``k``. O(P log P)."""
    early = avail <= est + _TOL * max(1.0, est)
    order = np.lexsort((np.where(early, -avail, avail), ~early))
    return order[:k]


def m_static(dag: Dag, p: np.ndarray, keys: tuple[np.ndarray, ...], processors: int,
             rng: np.random.Generator, order: list[int] | None = None) -> PtgSchedule:
    """M-STATIC (spec §3.3): in priority order, each task as early as possible on
    ``p_v`` processors chosen by :func:`best_set`, after the last task mapped on them (no
    insertion). O(n·P log P)."""
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


def hcpa_schedule(dag: Dag, processors: int, rng: np.random.Generator,
                  alloc: np.ndarray | None = None) -> PtgSchedule:
    """HCPA_SCHED (spec §3.2): ``alloc`` (default :func:`hcpa_alloc` with budget
    ``processors``) mapped by M-STATIC with decreasing bottom levels on ``processors``."""
    p = hcpa_alloc(dag, processors) if alloc is None else alloc
    return m_static(dag, p, (-bottom_levels(dag, p),), processors, rng)
