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

import bisect
import heapq
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
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
    return np.array(_bottom_levels(dag, dag.times(p).tolist()))


def _bottom_levels(dag: Dag, tt: list[float]) -> list[float]:
    """:func:`bottom_levels` on plain lists (the HCPA loop's representation)."""
    bl = tt[:]
    for v, only, s in dag.sweeps[0]:
        bl[v] = tt[v] + (bl[only] if only >= 0 else max([bl[w] for w in s]))
    return bl


def top_levels(dag: Dag, tt: np.ndarray) -> np.ndarray:
    """``tl(v) = max_{u ∈ pred(v)} tl(u) + T(u)`` (spec §1.5). O(n + e)."""
    return np.array(_top_levels(dag, np.asarray(tt, float).tolist()))


def _top_levels(dag: Dag, tt: list[float]) -> list[float]:
    """:func:`top_levels` on plain lists."""
    tl = [0.0] * len(tt)
    for v, only, pr in dag.sweeps[1]:
        tl[v] = tl[only] + tt[only] if only >= 0 else max([tl[u] + tt[u] for u in pr])
    return tl


def _critical_path(succs: list[list[int]], bl: list[float], sources: list[int],
                   ) -> tuple[float, list[int]]:
    """``T_CP`` and one critical path (walk to the successor of largest ``bl``, lowest
    index on ties; ``sources`` and every ``succs[v]`` in increasing order)."""
    at = bl.__getitem__  # ``max`` keeps the first of equal keys: lists sorted ascending
    v = sources[0] if len(sources) == 1 else max(sources, key=at)
    t_cp = bl[v]
    path = [v]
    while s := succs[v]:
        v = s[0] if len(s) == 1 else max(s, key=at)
        path.append(v)
    return t_cp, path


class _Detours:
    """Every path other than the critical path ``path`` in groups: through an off-path
    task ``x`` (longest: ``tl(x) + bl(x)``), or through a skip edge ``u → w`` between two
    path tasks that are not consecutive (``tl(u) + T(u) + bl(w)``); any other path is in
    one of them, so the largest value bounds them all (:attr:`second`). Each group has
    the path tasks that EVERY path of it contains (dominators and post-dominators on
    ``path``, as bit masks over path positions). While only path tasks speed up, a
    group's longest path shrinks by at least the decrease of those tasks, so
    :meth:`now` is an upper bound on every other path that follows the batch: it lets a
    batch go on while the critical path stays strictly the longest, where the fixed
    :attr:`second` would end it after a few increments: a detour shares most of its
    tasks with the critical path and speeds up with it. O(n + e) bit operations."""

    def __init__(self, succs: list[list[int]], preds: list[list[int]], path: list[int],
                 tl: list[float], tt: list[float], bl: list[float],
                 cache: dict[tuple[int, ...], list[Any]]) -> None:
        n = len(tt)
        #: what depends on the path only (on-path flags, off-path tasks, skip edges, then
        #: the masks), shared through ``cache`` by the batches and runs on the same graph
        known = cache.get(tuple(path))
        if known is None:
            on = [False] * n
            for v in path:
                on[v] = True
            nxt = dict(itertools.pairwise(path))
            known = cache[tuple(path)] = [
                on, [x for x in range(n) if not on[x]],
                [(u, w) for u in path for w in succs[u] if on[w] and nxt.get(u) != w]]
        self.known: list[Any] = known
        values = [tl[x] + bl[x] for x in known[1]]
        values.extend(tl[u] + tt[u] + bl[w] for u, w in known[2])
        #: the largest value: the second-path bound of the batch start
        self.second = max(values) if values else -math.inf
        self.graph, self.path = (succs, preds), path
        self.values = np.array(values)
        self.usable = bool(values) and len(path) <= 62 and n <= _SMALL

    @property
    def shared(self) -> np.ndarray:
        """``shared[k, i]``: every path of group ``k`` contains ``path[i]``."""
        if len(self.known) == 3:
            self.known.extend(self._masks())
        out: np.ndarray = self.known[3]
        return out

    @property
    def by_task(self) -> np.ndarray:
        """``by_task[v, k]``: every path of group ``k`` contains task ``v``."""
        if len(self.known) == 3:
            self.known.extend(self._masks())
        out: np.ndarray = self.known[4]
        return out

    def _masks(self) -> tuple[np.ndarray, np.ndarray]:
        """:attr:`shared` and :attr:`by_task`: dominators and post-dominators restricted
        to the path, as bit masks over path positions, in one forward and one backward
        sweep."""
        (succs, preds), path = self.graph, self.path
        on, off, skips = self.known[:3]
        n = len(on)
        pos = {v: i for i, v in enumerate(path)}
        bit = [1 << pos[v] if on[v] else 0 for v in range(n)]
        dom = [0] * n
        for v in range(n):
            m = -1
            for u in preds[v]:
                m &= dom[u] | bit[u]
            dom[v] = m if preds[v] else 0
        post = [0] * n
        for v in range(n - 1, -1, -1):
            m = -1
            for w in succs[v]:
                m &= post[w] | bit[w]
            post[v] = m if succs[v] else 0
        masks = [dom[x] | post[x] for x in off]
        masks.extend(dom[u] | post[w] | bit[u] | bit[w] for u, w in skips)
        mk = np.array(masks, dtype=np.int64)
        shared = ((mk[:, None] >> np.arange(len(path))) & 1).astype(float)
        by_task = np.zeros((n, len(masks)))
        by_task[path] = shared.T
        return shared, by_task

    def along(self, delta: list[float], tasks: np.ndarray, fall: np.ndarray,
              ) -> np.ndarray | float:
        """:meth:`now` before each of the steps ``tasks`` (their times falling by
        ``fall``) and after the last one, vectorised."""
        if not self.usable:
            return self.second
        cum = np.empty((tasks.size + 1, self.values.size))
        cum[0] = self.shared @ np.array([delta[v] for v in self.path])
        np.multiply(self.by_task[tasks], fall[:, None], out=cum[1:])
        np.cumsum(cum, axis=0, out=cum)
        cum *= 1 - 1e-9
        np.subtract(self.values * (1 + 1e-12), cum, out=cum)
        return cum.max(axis=1)

    def now(self, delta: list[float]) -> float:
        """The bound after the path tasks' times fell by ``delta`` (indexed by task), with
        a margin that covers rounding (it only ends batches earlier)."""
        if not self.usable:
            return self.second
        fall = self.shared @ np.array([delta[v] for v in self.path])
        return float((self.values * (1 + 1e-12) - fall * (1 - 1e-9)).max())


@dataclass
class _Record:
    chosen: list[int]
    before: list[int]
    t_cp: list[float]
    area: list[float]
    lev: list[float]  # processors on the chosen task's level before the step (level cap)


@dataclass
class _Caps:
    """The limits of one HCPA run: stopping budget, per-task caps, level cap and levels
    (``levsum``: processors per level, kept up to date by the run)."""

    budget: int
    limit: list[int]
    level_cap: int | None
    levels: list[int] | None
    levsum: list[float] | None


class _Gains:
    """Every increment ``q → q + 1`` (``q = 1..top − 1``) of every real task of ``dag``,
    once, in the HCPA heap's pop order (largest gain, then lowest task, then lowest
    count), with the floating-point values the heap computes. A batch's remaining
    increments are then a filter of it, not a sort: the many runs of the moldable
    specification share it. ``ok`` is False when some task's keys are not monotone in
    floating point (then batches sort their own increments). O(n·top·log(n·top))."""

    def __init__(self, dag: Dag, top: int) -> None:
        real = np.flatnonzero(~dag.dummy)
        qs = np.tile(np.arange(1, max(top, 1), dtype=np.int64), real.size)
        vs = np.repeat(real, max(top - 1, 0))
        t, a = dag.t1[vs], dag.alpha[vs]
        tq = t * (a + (1.0 - a) / qs)
        tq1 = t * (a + (1.0 - a) / (qs + 1))
        key = tq1 / (qs + 1) - tq / qs
        self.ok = bool(np.all((key[1:] >= key[:-1]) | (vs[1:] != vs[:-1])))
        order = np.lexsort((qs, vs, key))
        self.vs, self.qs, self.tq, self.tq1 = vs[order], qs[order], tq[order], tq1[order]
        self.top = top
        #: the critical paths met so far, with what :class:`_Detours` derives from them
        self.paths: dict[tuple[int, ...], list[Any]] = {}

    def after(self, heap: list[tuple[Any, ...]], limit: list[int], n: int) -> np.ndarray:
        """Positions of the increments still to come for the tasks in ``heap`` (from the
        count in their entry up to their cap), in pop order."""
        low = np.full(n, self.top, dtype=np.int64)
        high = np.zeros(n, dtype=np.int64)
        for _, v, q, *_ in heap:
            low[v], high[v] = q, limit[v]
        return np.flatnonzero((self.qs >= low[self.vs]) & (self.qs < high[self.vs]))


def _hcpa_run(dag: Dag, budget: int, limit: np.ndarray, level_cap: int | None,
              levels: np.ndarray | None, p0: np.ndarray, rec: _Record | None = None,
              gains: _Gains | None = None) -> np.ndarray:
    """The HCPA loop (module doc) with stopping budget ``budget`` and per-task caps
    ``limit``, in batches: while the critical path ``L`` stays longer
    than every other path (:class:`_Detours`), it remains the critical path, so the
    increments (largest gain first) need no bottom-level recomputation. Every single
    increment is still tested and recorded, so the result is exactly the
    one-step-at-a-time algorithm's. Plain lists inside (``n`` is small)."""
    p = p0.tolist()
    real, sources, t1, al, walk = dag.plain
    succs, preds = dag.succs, dag.preds
    lev = levels.tolist() if level_cap is not None and levels is not None else None
    levsum = None
    if lev is not None:
        levsum = [0.0] * (max(lev) + 1)
        for v, ok in enumerate(real):
            if ok:
                levsum[lev[v]] += p[v]
    caps = _Caps(budget, limit.tolist(), level_cap, lev, levsum)
    tt = [t1[v] * (al[v] + (1 - al[v]) / max(p[v], 1)) for v in range(dag.n)]
    bl, tl = _bottom_levels(dag, tt), _top_levels(dag, tt)
    known = gains.paths if gains is not None else {}
    path: list[int] = []
    heap: list[tuple[Any, ...]] = []
    while True:  # the area as numpy sums it (pairwise), for bit-identical stopping tests
        area = float(np.array([max(p[v], 1) * tt[v] for v in range(dag.n) if real[v]]).sum())
        L, now = _critical_path(walk, bl, sources)
        if not path or now != path:  # else the heap holds the same candidates
            path, heap = now, _candidates(dag, p, now, real, caps)
        detours = _Detours(succs, preds, path, tl, tt, bl, known)
        batch = _Batch(p, heap, caps, rec, detours,
                       partial(_candidates, dag, p, path, real, caps), gains)
        if not batch.run(L, detours.second, area):
            return np.array(p, dtype=p0.dtype)
        heap = batch.heap
        changed = [v for v in path if batch.delta[v]]  # only path tasks grow
        for v in changed:
            tt[v] = t1[v] * (al[v] + (1 - al[v]) / p[v])
        _update_levels(dag, tt, bl, tl, changed)


def _candidates(dag: Dag, p: list[int], path: list[int], real: list[bool], caps: _Caps,
                ) -> list[tuple[Any, ...]]:
    """The heap of a critical path's next increments: ``(−gain, task, p, T(p), T(p+1),
    T(1), α)`` for its tasks below their cap."""
    _, _, t1, al, _ = dag.plain
    heap = []
    limit = caps.limit
    for v in path:
        q = p[v]
        if real[v] and q < limit[v]:
            a, t = al[v], t1[v]
            tq, tq1 = t * (a + (1.0 - a) / q), t * (a + (1.0 - a) / (q + 1))
            heap.append((tq1 / (q + 1) - tq / q, v, q, tq, tq1, t, a))
    heapq.heapify(heap)
    return heap


#: graphs up to this many tasks get full level sweeps and the detour bound; larger ones
#: (the composite graphs of C1/C4) propagate level changes and keep the fixed bound
_SMALL = 128


def _update_levels(dag: Dag, tt: list[float], bl: list[float], tl: list[float],
                   changed: list[int]) -> None:
    """Bottom levels of the ancestors and top levels of the descendants of ``changed``
    after their times changed, in place. Small graphs are swept in full (a batch changes
    a whole critical path, whose ancestors and descendants are nearly every task, and a
    plain sweep is cheaper); larger ones propagate from ``changed`` in reverse / forward
    topological order, only along actual changes. Both give the same values: each level
    is a function of its neighbours' levels."""
    if len(tt) <= _SMALL:
        bl[:] = _bottom_levels(dag, tt)
        tl[:] = _top_levels(dag, tt)
        return
    succs, preds = dag.succs, dag.preds
    must = set(changed)
    heap = [-v for v in changed]
    heapq.heapify(heap)
    seen = set(changed)
    while heap:
        u = -heapq.heappop(heap)
        s = succs[u]
        new = tt[u] + (max([bl[w] for w in s]) if s else 0.0)
        if new != bl[u] or u in must:
            bl[u] = new
            for w in preds[u]:
                if w not in seen:
                    seen.add(w)
                    heapq.heappush(heap, -w)
    heap = sorted({w for v in changed for w in succs[v]})
    seen = set(heap)
    while heap:
        w = heapq.heappop(heap)
        new = max([tl[u] + tt[u] for u in preds[w]])
        if new != tl[w]:
            tl[w] = new
            for x in succs[w]:
                if x not in seen:
                    seen.add(x)
                    heapq.heappush(heap, x)


#: increments of one batch done one by one before the rest of the batch is vectorised
_SCALAR_STEPS = 100


@dataclass
class _Batch:
    """One batch of increments on a fixed critical path (its candidates in ``heap``),
    updating ``p`` and ``heap`` in place; ``delta`` is how much each task's time fell."""

    p: list[int]
    heap: list[tuple[Any, ...]]
    caps: _Caps
    rec: _Record | None
    detours: _Detours
    rebuild: Callable[[], list[tuple[Any, ...]]]
    gains: _Gains | None = None

    def run(self, L: float, L2: float, area: float) -> bool:
        """Increments until HCPA stops (False) or another path may be critical (True).
        When ``L`` reaches the bound ``L2``, the bound is tightened with the detours
        (:class:`_Detours`) before giving up. After :data:`_SCALAR_STEPS` increments the
        rest goes to :meth:`tail` (same steps, same floating-point operations)."""
        p, heap, caps, rec = self.p, self.heap, self.caps, self.rec
        limit, budget, levels, levsum = caps.limit, caps.budget, caps.levels, caps.levsum
        self.delta = delta = [0.0] * len(p)
        pop, push = heapq.heappop, heapq.heappush
        scalar = len(p) * max(limit) + 1 if levsum is not None else \
            1 if self.detours.second == -math.inf else _SCALAR_STEPS  # one path: all at once
        log = (rec.chosen.append, rec.before.append, rec.t_cp.append, rec.area.append,
               rec.lev.append) if rec is not None else None
        grow = 1 + _TOL
        near = L2 * (1 + 1e-12)
        steps = 0
        while True:
            if steps and L <= near:
                near = self.detours.now(delta) * (1 + 1e-12)
                if L <= near:
                    return True  # another path may be critical
            if L * budget <= area * grow:
                return False
            if steps >= scalar and heap:
                out = self.tail(L, area)
                if out is not None:
                    more, L, area = out
                    if not more:
                        return False
                    heap[:] = self.rebuild()
                    steps = 1
                    near = L  # the tail stopped at the bound: tighten it first
                    continue
                scalar = len(p) * max(limit) + 1
            steps += 1
            while heap and levsum is not None and \
                    levsum[levels[heap[0][1]]] + 1 > caps.level_cap:  # type: ignore[index,operator]
                pop(heap)  # level sums only grow: it never fits again
            if not heap:
                return False
            _, v, q, tq, tq1, t, a = pop(heap)
            if log is not None:
                log[0](v)
                log[1](q)
                log[2](L)
                log[3](area)
                log[4](levsum[levels[v]] if levsum is not None else 0.0)  # type: ignore[index]
            fall = tq - tq1
            L -= fall
            delta[v] += fall
            area += (q + 1) * tq1 - q * tq
            p[v] = q + 1
            if levsum is not None:
                levsum[levels[v]] += 1  # type: ignore[index]
            if q + 1 < limit[v]:
                tq2 = t * (a + (1.0 - a) / (q + 2))
                push(heap, (tq2 / (q + 2) - tq1 / (q + 1), v, q + 1, tq1, tq2, t, a))

    def tail(self, L: float, area: float) -> tuple[bool, float, float] | None:
        """The rest of the batch at once (no level cap; at least one step done): every
        remaining increment of every candidate, merged in the heap's pop order (largest
        gain, then lowest task, then lowest count: a lexsort, valid because each task's
        keys grow with its count, which is checked), ``L`` and the area accumulated in
        the same order as the scalar loop (``ufunc.accumulate`` is sequential), up to the
        first step where a test holds (with the detour bound along the way: the batch's
        end). Returns (another path may be critical, ``L``, area) there, the heap left
        stale; None when the keys are not monotone in floating point (the caller goes on
        one step at a time). Generating fewer increments per candidate was measured
        slower: the merged order is certain only below every left-out key, so short
        windows end early and batches need many calls."""
        heap, g = self.heap, self.gains
        if g is not None and g.ok and max(self.caps.limit) <= g.top:
            at = g.after(heap, self.caps.limit, len(self.p))
            vs, qs, tq, tq1 = g.vs[at], g.qs[at], g.tq[at], g.tq1[at]
        else:
            sorted_ = self._merge()
            if sorted_ is None:
                return None
            vs, qs, tq, tq1 = sorted_
        fall = tq - tq1
        ls = np.subtract.accumulate(np.concatenate(([L], fall)))
        areas = np.add.accumulate(np.concatenate(([area], (qs + 1) * tq1 - qs * tq)))
        recompute = ls <= self.detours.along(self.delta, vs, fall) * (1 + 1e-12)
        stop = recompute | (ls * self.caps.budget <= areas * (1 + _TOL))
        j = int(np.argmax(stop)) if stop.any() else vs.size  # else no increment is left
        self._apply(vs[:j], qs[:j], fall[:j], ls[:j], areas[:j])
        return bool(stop[j] and recompute[j]), float(ls[j]), float(areas[j])

    def _merge(self) -> tuple[np.ndarray, ...] | None:
        """The candidates' remaining increments generated and sorted in pop order (no
        shared :class:`_Gains`); None when some task's keys are not monotone."""
        heap = self.heap
        head = np.array([(v, q, self.caps.limit[v]) for _, v, q, *_ in heap], dtype=np.int64)
        ta = np.array([(t, a) for *_, t, a in heap])
        count = head[:, 2] - head[:, 1]
        first = np.cumsum(count) - count
        seg = np.repeat(np.arange(count.size), count)
        qs = np.arange(seg.size) - first[seg] + head[seg, 1]
        t, a = ta[seg, 0], ta[seg, 1]
        tq = t * (a + (1.0 - a) / qs)
        tq1 = t * (a + (1.0 - a) / (qs + 1))
        key = tq1 / (qs + 1) - tq / qs
        if not bool(np.all((key[1:] >= key[:-1]) | (seg[1:] != seg[:-1]))):
            return None
        order = np.lexsort((qs, head[seg, 0], key))
        return head[seg, 0][order], qs[order], tq[order], tq1[order]

    def _apply(self, vs: np.ndarray, qs: np.ndarray, fall: np.ndarray, ls: np.ndarray,
               areas: np.ndarray) -> None:
        """Apply and record the increments ``vs`` of :meth:`tail`."""
        p, rec = self.p, self.rec
        n = len(p)
        for v, c in enumerate(np.bincount(vs, minlength=n).tolist()):
            p[v] += c
        for v, d in enumerate(np.bincount(vs, fall, minlength=n).tolist()):
            self.delta[v] += d
        if rec is not None:
            rec.chosen.extend(vs.tolist())
            rec.before.extend(qs.tolist())
            rec.t_cp.extend(ls.tolist())
            rec.area.extend(areas.tolist())
            rec.lev.extend([0.0] * vs.size)


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
    #: every increment in pop order, shared with the replays (small graphs only)
    gains: _Gains | None = field(default=None, repr=False, compare=False)

    @classmethod
    def build(cls, dag: Dag, processors: int, bound: HcpaBound = DEFAULT_BOUND,
              ) -> Trajectory:
        """One HCPA run with budget ``P`` under ``bound``, recording every step.
        O(K log n)."""
        levels = dag_levels(dag) if bound.level_cap(processors) is not None else None
        rec = _Record([], [], [], [], [])
        gains = _Gains(dag, processors) if dag.n <= _SMALL else None
        p = _hcpa_run(dag, bound.budget(processors), bound.caps(dag, processors),
                      bound.level_cap(processors), levels, np.where(dag.dummy, 0, 1), rec,
                      gains)
        _close(dag, rec, p)
        return cls(dag, np.array(rec.chosen, int), np.array(rec.before, int),
                   np.array(rec.t_cp), np.array(rec.area), processors, bound,
                   np.array(rec.lev), levels, gains)

    def alloc(self, budget: int) -> np.ndarray:
        """HCPA_ALLOC with budget ``budget <= P``. O(K) plus any capped continuation."""
        k, stopped = _replay_point(self, budget, self.chosen, self.before, self._lev(),
                                   self.t_cp, self.area)
        p = np.where(self.dag.dummy, 0, 1)
        p += np.bincount(self.chosen[:k], minlength=p.size)
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
    gains = traj.gains
    limits = (bound.budget(P), bound.caps(dag, P), bound.level_cap(P))
    for b in range(P - 1, 0, -1):
        last, limits = limits, (bound.budget(b), bound.caps(dag, b), bound.level_cap(b))
        if limits[0] == last[0] and limits[2] == last[2] and np.array_equal(limits[1],
                                                                              last[1]):
            out[b - 1] = out[b].copy()  # the same run: it depends on ``b`` only by these
            continue
        k, stopped = _replay_point(traj, b, chosen, before, lev, t_cp, area)
        p = base.copy()
        p += np.bincount(chosen[:k], minlength=p.size)
        if stopped:
            out[b - 1] = p
            chosen, before, lev = chosen[:k], before[:k], lev[:k]
            t_cp, area = t_cp[:k + 1], area[:k + 1]
            continue
        rec = _Record([], [], [], [], [])  # the steps after the shared prefix
        p = _hcpa_run(dag, limits[0], limits[1], limits[2], traj.levels, p, rec, gains)
        out[b - 1] = p
        _close(dag, rec, p)
        chosen = np.concatenate((chosen[:k], np.array(rec.chosen, int)))
        before = np.concatenate((before[:k], np.array(rec.before, int)))
        t_cp = np.concatenate((t_cp[:k], rec.t_cp))
        area = np.concatenate((area[:k], rec.area))
        lev = np.concatenate((lev[:k], rec.lev))
    return out


def topo_order(dag: Dag, keys: tuple[np.ndarray, ...], rng: np.random.Generator,
               ) -> list[int]:
    """Tasks by increasing ``keys`` (lexicographic), random ties, never a task before one of
    its predecessors (a heap over the ready tasks: DECIDE-27). O(n log n + e)."""
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


def static_makespan(dag: Dag, p: np.ndarray, keys: tuple[np.ndarray, ...], processors: int,
                    rng: np.random.Generator) -> float:
    """The makespan of :func:`m_static` with the same arguments, without the processor
    sets: processors are interchangeable, so the state is the sorted list of their
    availability times, and BEST_SET's ``k`` processors are a contiguous run of it (the
    ``k`` latest of those free by ``est``, else the ``k`` earliest), replaced by ``k``
    copies of the task's end. Same start and end times, bit for bit (same comparisons,
    same sums). O(n·P) element moves in C instead of O(n·P log P) sorting."""
    return _static_end(dag, dag.times(p).tolist(), p.tolist(), topo_order(dag, keys, rng),
                       processors)[0]


def hcpa_makespans(dag: Dag, allocs: list[np.ndarray],
                   rng: Callable[[int], np.random.Generator]) -> np.ndarray:
    """``hcpa_schedule(dag, p, rng(p), allocs[p − 1]).makespan`` for ``p = 1..len(allocs)``
    (the moldable specification, spec §3.7) without the schedules
    (:func:`static_makespan`). ``rng(p)`` is called only when two tasks have equal
    bottom levels (otherwise the random tie-breaker is never used). When budget ``p``
    has the allocation of ``p − 1``, no ties, and on ``p − 1`` processors every task
    found its processors free by its earliest start, the schedule on ``p`` is the same
    (the extra processor stays idle: BEST_SET takes the latest-free of the free ones),
    so its makespan is reused. O(P·(n log n + e + n·P))."""
    out = np.zeros(len(allocs))
    same = False
    for i, alloc in enumerate(allocs):
        if same and np.array_equal(alloc, allocs[i - 1]):
            out[i] = out[i - 1]
            continue
        tt = dag.times(alloc).tolist()
        key = [-b for b in _bottom_levels(dag, tt)]
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


def hcpa_schedule(dag: Dag, processors: int, rng: np.random.Generator,
                  alloc: np.ndarray | None = None, bound: HcpaBound = DEFAULT_BOUND,
                  ) -> PtgSchedule:
    """HCPA_SCHED (spec §3.2): ``alloc`` (default :func:`hcpa_alloc` with budget
    ``processors`` under ``bound``) mapped by M-STATIC with decreasing bottom levels on
    ``processors``."""
    p = hcpa_alloc(dag, processors, bound=bound) if alloc is None else alloc
    return m_static(dag, p, (-bottom_levels(dag, p),), processors, rng)
