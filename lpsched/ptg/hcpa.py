"""HCPA allocation and the M-STATIC mapping (seed 004 §3 [L214-226]; spec §3.1–§3.3, §1.5).

* :func:`bottom_levels` — ``bl(v) = T(v, p_v) + max_{w ∈ succ(v)} bl(w)`` (spec §1.5).
* :func:`hcpa_alloc` — CPA/HCPA allocation under a processor budget ``Pb``: every task
  starts on one processor; while the critical path ``T_CP`` exceeds the average area
  ``T_A = Σ p_v T(v, p_v)/Pb``, the critical-path task with the largest gain
  ``T(v,p)/p − T(v,p+1)/(p+1)`` (DECIDE-2, GAIN) gets one more processor, subject to the
  per-task cap and the optional per-level cap of CRA (DECIDE-1, DECIDE-17).
  Ties (critical-path walk, selection) go to the lowest task index, so the allocation is a
  function of ``(graph, Pb)`` and can be cached (docs/decisions.md, decision 113).
* :class:`HcpaBound` — the processor bound of "improved HCPA" [22], which "bounds the
  number of processors that can be used in a schedule as a way to increase parallel
  efficiency" [L221-223, L592-597] (DECIDE-1; [22]'s exact rule is not in the seed): one
  of a small documented family (a per-task cap ``⌈f·Pb⌉`` or ``⌈x·√Pb⌉``, an Amdahl
  efficiency threshold, a per-level cap, a reduced budget), calibrated on A9 only:
  :data:`DEFAULT_BOUND` is HCPA_ALLOC on ``⌈0.65·Pb⌉`` processors (docs/decisions.md).
  CRA's own allocations do not get it (DECIDE-17).
* :class:`Trajectory` — the run on ``P`` processors, replayed to get the allocation for
  every budget ``Pb <= P`` at once (the moldable specification of §3.7).
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
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from lpsched.errors import InvalidInstanceError
from lpsched.ptg.model import Dag
from lpsched.ptg.schedule import PtgSchedule

_TOL = 1e-12


#: the kinds of :class:`HcpaBound`
BOUND_KINDS = ("none", "fraction", "sqrt", "efficiency", "level", "budget")


def _ceil(x: float) -> int:
    """``⌈x⌉`` robust to round-off (``0.4·20`` is 8, not 9), at least 1."""
    return max(1, math.ceil(x - 1e-9))


@dataclass(frozen=True)
class HcpaBound:
    """The processor bound of "improved HCPA" (seed 004 [L221-223, L592-597], spec §3.1,
    DECIDE-1), as a function of the budget ``Pb`` (the processors the schedule may use).

    * ``none`` — plain CPA (every task up to ``Pb``).
    * ``fraction`` ``f`` — every task on at most ``⌈f·Pb⌉`` processors.
    * ``sqrt`` ``x`` — every task on at most ``⌈x·√Pb⌉`` processors.
    * ``efficiency`` ``e`` — task ``v`` on at most the largest ``p`` with Amdahl efficiency
      ``T(v,1)/(p·T(v,p)) = 1/(α_v p + 1 − α_v) >= e`` (``Pb`` when ``α_v = 0``).
    * ``level`` ``f`` — the tasks of one precedence level on at most ``⌈f·Pb⌉`` processors
      together (as CRA's level cap, DECIDE-17).
    * ``budget`` ``f`` — HCPA_ALLOC on ``⌈f·Pb⌉`` processors: the stopping test
      ``T_CP <= Σ p T/⌈f·Pb⌉`` and every task on at most ``⌈f·Pb⌉``.

    Every cap is non-decreasing in ``Pb`` (the trajectory replay relies on it) and at
    least 1. ``str(bound)`` is ``kind:value`` (``none``); :meth:`parse` reads it back."""

    kind: str = "none"
    value: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in BOUND_KINDS:
            raise InvalidInstanceError("hcpa bound", self.kind,
                                       f"unknown kind; one of {', '.join(BOUND_KINDS)}")
        v = self.value
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                or v <= 0 or (self.kind not in ("none", "sqrt") and v > 1):
            raise InvalidInstanceError("hcpa bound", f"{self.kind}:{v}",
                                       "the value must be in (0, 1] (sqrt: > 0)")
        if self.kind == "none":
            object.__setattr__(self, "value", 1.0)  # one plain CPA, whatever the value

    def __str__(self) -> str:
        return "none" if self.kind == "none" else f"{self.kind}:{self.value:g}"

    @classmethod
    def parse(cls, text: str) -> HcpaBound:
        """``"none"``, ``"fraction:0.5"``, ``"sqrt:1"``, ``"efficiency:0.6"``, ``"level:1"``,
        ``"budget:0.5"`` (InvalidInstanceError otherwise)."""
        kind, _, val = str(text).strip().partition(":")
        if kind == "none" and not val:
            return cls()
        try:
            number = float(val)
        except ValueError:
            raise InvalidInstanceError("hcpa bound", text, "expected KIND:VALUE, e.g. "
                                       "fraction:0.5, or none") from None
        return cls(kind, number)

    def budget(self, pb: int) -> int:
        """The processors of the stopping test ``T_CP <= T_A``: ``Pb`` (``budget``:
        ``⌈f·Pb⌉``)."""
        return min(pb, _ceil(self.value * pb)) if self.kind == "budget" else pb

    def caps(self, dag: Dag, pb: int) -> np.ndarray:
        """The largest allocation of every task under budget ``pb`` (integers in
        ``[1, pb]``)."""
        if self.kind in ("fraction", "budget"):
            c = _ceil(self.value * pb)
        elif self.kind == "sqrt":
            c = _ceil(self.value * math.sqrt(pb))
        elif self.kind == "efficiency":
            a = dag.alpha
            with np.errstate(divide="ignore", invalid="ignore"):
                lim = np.floor((1.0 / self.value - 1.0 + a) / a + 1e-9)
            lim = np.where(a > 0, lim, pb)
            return np.clip(np.nan_to_num(lim, nan=pb, posinf=pb), 1, pb).astype(int)
        else:
            c = pb
        return np.full(dag.n, min(c, pb), dtype=int)

    def level_cap(self, pb: int) -> int | None:
        """The cap on the processors of one precedence level (``level`` only)."""
        return min(pb, _ceil(self.value * pb)) if self.kind == "level" else None


#: plain CPA: no processor bound beyond the budget (CRA's allocations, DECIDE-17)
NO_BOUND = HcpaBound()
#: the calibrated bound of "improved HCPA": HCPA_ALLOC on ``⌈0.65·Pb⌉`` processors, the
#: candidate whose A9 (share of scenarios where CRA gives a PTG a stretch below 1) on the
#: first 600 scenarios was closest to the paper's 6 % (6.3 %; docs/decisions.md, DECIDE-1
#: revised; calibrated on A9 only)
DEFAULT_BOUND = HcpaBound("budget", 0.65)


def dag_levels(dag: Dag) -> np.ndarray:
    """Precedence levels of ``dag`` (longest path in edges from a source). O(n + e)."""
    lev = np.zeros(dag.n, dtype=int)
    for v in range(dag.n):
        for u in dag.preds[v]:
            lev[v] = max(lev[v], lev[u] + 1)
    return lev


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
    lev: list[float]  # processors on the chosen task's level before the step (level cap)


def _hcpa_run(dag: Dag, budget: int, limit: np.ndarray, level_cap: int | None,
              levels: np.ndarray | None, p0: np.ndarray, rec: _Record | None = None,
              ) -> np.ndarray:
    """The HCPA loop (module doc) with stopping budget ``budget`` and per-task caps
    ``limit``, in batches: while the critical path ``L`` stays longer
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
        cand = [v for v in path if real[v] and p[v] < limit[v]]
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
                budget: int, limit: np.ndarray, level_cap: int | None, levels: np.ndarray | None,
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
            rec.lev.append(levsum[levels[v]] if levsum is not None else 0.0)  # type: ignore[index]
        L -= tq - tq1
        area += (q + 1) * tq1 - q * tq
        p[v] = q + 1
        if levsum is not None:
            levsum[levels[v]] += 1  # type: ignore[index]
        if q + 1 < limit[v]:
            tq2 = t * (a + (1.0 - a) / (q + 2))
            push(heap, (tq2 / (q + 2) - tq1 / (q + 1), v, q + 1, tq1, tq2, t, a))


def hcpa_alloc(dag: Dag, budget: int, cap: int | None = None, level_cap: int | None = None,
               levels: np.ndarray | None = None, init: np.ndarray | None = None,
               bound: HcpaBound = DEFAULT_BOUND) -> np.ndarray:
    """HCPA_ALLOC (spec §3.1) with budget ``Pb = budget`` under the improved-HCPA
    ``bound`` (default :data:`DEFAULT_BOUND`; :data:`NO_BOUND` is plain CPA); returns
    ``p_v`` (0 for dummies).

    Stops when ``T_CP <= T_A`` (``T_A`` on ``bound.budget(Pb)`` processors) or no
    critical-path task may grow (cap ``min(cap, bound.caps(Pb))``, level cap: ``Σ_{lev(u) =
    lev(v)} p_u + 1 <= min(level_cap, bound.level_cap(Pb))``, levels computed when not
    given). The result never exceeds ``budget`` per task. O(K log n + B·(n + e)) for ``K``
    increments in ``B`` batches."""
    limit = bound.caps(dag, budget)
    if cap:
        limit = np.minimum(limit, cap)
    lc = _min_cap(level_cap, bound.level_cap(budget))
    if lc is not None and levels is None:
        levels = dag_levels(dag)
    p = init.copy() if init is not None else np.where(dag.dummy, 0, 1)
    return _hcpa_run(dag, bound.budget(budget), limit, lc, levels, p)


def _min_cap(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _replay_point(traj: Trajectory, b: int, chosen: np.ndarray, before: np.ndarray,
                  lev: np.ndarray, t_cp: np.ndarray, area: np.ndarray) -> tuple[int, bool]:
    """How far a recorded run (steps ``chosen``…, with a larger budget) is also the run
    for budget ``b``: ``(k, stopped)`` — the first ``k`` steps are shared, and ``stopped``
    says the ``b``-run stops there (else it must continue from that state). The two runs
    choose the same task while the ``b``-run's stopping test fails and the chosen task is
    still a candidate for it (below its cap, its level below the level cap): the ``b``-run's
    candidates are a subset, so its largest gain is the same task."""
    k_steps = chosen.size
    bound = traj.bound
    stop = t_cp * bound.budget(b) <= area * (1 + _TOL)
    bad = before >= bound.caps(traj.dag, b)[chosen]
    lc = bound.level_cap(b)
    if lc is not None:
        bad |= lev + 1 > lc
    k_stop = int(np.argmax(stop)) if stop.any() else k_steps + 1
    k_div = int(np.argmax(np.append(bad, True)))
    return min(k_stop, k_div, k_steps), k_stop <= k_div


@dataclass
class Trajectory:
    """The HCPA increments on the whole cluster, replayed for smaller budgets.

    For budget ``b`` the run follows the one on ``P`` until either its stopping test holds
    or the chosen task is no longer a candidate for it (:func:`_replay_point`: it already
    has ``b``'s cap, or its level is full); then the run continues from that state. This
    needs every cap of ``bound`` non-decreasing in the budget, and deterministic ties.
    Exactly :func:`hcpa_alloc` with the same ``bound`` for every ``b``."""

    dag: Dag
    chosen: np.ndarray
    before: np.ndarray
    t_cp: np.ndarray
    area: np.ndarray
    processors: int
    bound: HcpaBound = DEFAULT_BOUND
    lev: np.ndarray | None = None
    levels: np.ndarray | None = None

    @classmethod
    def build(cls, dag: Dag, processors: int, bound: HcpaBound = DEFAULT_BOUND,
              ) -> Trajectory:
        """One HCPA run with budget ``P`` under ``bound``, recording every step.
        O(K log n)."""
        levels = dag_levels(dag) if bound.level_cap(processors) is not None else None
        rec = _Record([], [], [], [], [])
        p = _hcpa_run(dag, bound.budget(processors), bound.caps(dag, processors),
                      bound.level_cap(processors), levels, np.where(dag.dummy, 0, 1), rec)
        _close(dag, rec, p)
        return cls(dag, np.array(rec.chosen, int), np.array(rec.before, int),
                   np.array(rec.t_cp), np.array(rec.area), processors, bound,
                   np.array(rec.lev), levels)

    def alloc(self, budget: int) -> np.ndarray:
        """HCPA_ALLOC with budget ``budget <= P``. O(K) plus any capped continuation."""
        k, stopped = _replay_point(self, budget, self.chosen, self.before, self._lev(),
                                   self.t_cp, self.area)
        p = np.where(self.dag.dummy, 0, 1)
        np.add.at(p, self.chosen[:k], 1)
        if stopped or budget >= self.processors:
            return p
        return hcpa_alloc(self.dag, budget, init=p, bound=self.bound, levels=self.levels)

    def _lev(self) -> np.ndarray:
        return self.lev if self.lev is not None else np.zeros(self.chosen.size)


def _close(dag: Dag, rec: _Record, p: np.ndarray) -> None:
    """Append the final state's ``T_CP`` and area to a record."""
    rec.t_cp.append(float(bottom_levels(dag, p).max()))
    rec.area.append(float((np.maximum(p, 1) * dag.times(p))[~dag.dummy].sum()))


def all_allocs(traj: Trajectory) -> list[np.ndarray]:
    """``HCPA_ALLOC`` for every budget ``b = 1..P`` (item ``b − 1``) under ``traj.bound``,
    exactly.

    Budgets are processed in decreasing order and the run for ``b`` is replayed from the
    run for ``b + 1`` (not from the run on ``P``): the two choose the same task as long as
    that task is still a candidate for ``b`` (:func:`_replay_point`), so only the steps
    after the first divergence are recomputed."""
    dag, P, bound = traj.dag, traj.processors, traj.bound
    base = np.where(dag.dummy, 0, 1)
    out: list[np.ndarray] = [base] * P
    chosen, before, t_cp, area = traj.chosen, traj.before, traj.t_cp, traj.area
    lev = traj._lev()
    out[P - 1] = traj.alloc(P)
    for b in range(P - 1, 0, -1):
        k, stopped = _replay_point(traj, b, chosen, before, lev, t_cp, area)
        p = base.copy()
        np.add.at(p, chosen[:k], 1)
        if stopped:
            out[b - 1] = p
            chosen, before, lev = chosen[:k], before[:k], lev[:k]
            t_cp, area = t_cp[:k + 1], area[:k + 1]
            continue
        rec = _Record(chosen[:k].tolist(), before[:k].tolist(), t_cp[:k].tolist(),
                      area[:k].tolist(), lev[:k].tolist())
        p = _hcpa_run(dag, bound.budget(b), bound.caps(dag, b), bound.level_cap(b),
                      traj.levels, p, rec)
        out[b - 1] = p
        _close(dag, rec, p)
        chosen, before = np.array(rec.chosen, int), np.array(rec.before, int)
        t_cp, area, lev = np.array(rec.t_cp), np.array(rec.area), np.array(rec.lev)
    return out


def topo_order(dag: Dag, keys: tuple[np.ndarray, ...], rng: np.random.Generator,
               ) -> list[int]:
    """Tasks by increasing ``keys`` (lexicographic), random ties, never a task before one of
    its predecessors (a heap over the ready tasks: DECIDE-27). O(n log n + e)."""
    tie = rng.permutation(dag.n)
    missing = np.array([len(x) for x in dag.preds])
    # entries (key values..., tie, task): as long as ``keys`` plus two
    heap: list[tuple[Any, ...]] = [(*(float(k[v]) for k in keys), int(tie[v]), v)
                                   for v in np.flatnonzero(missing == 0)]
    heapq.heapify(heap)
    out: list[int] = []
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
                  alloc: np.ndarray | None = None, bound: HcpaBound = DEFAULT_BOUND,
                  ) -> PtgSchedule:
    """HCPA_SCHED (spec §3.2): ``alloc`` (default :func:`hcpa_alloc` with budget
    ``processors`` under ``bound``) mapped by M-STATIC with decreasing bottom levels on
    ``processors``."""
    p = hcpa_alloc(dag, processors, bound=bound) if alloc is None else alloc
    return m_static(dag, p, (-bottom_levels(dag, p),), processors, rng)
