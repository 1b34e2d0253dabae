"""The HCPA increment loop (seed 004 §3.1 [L214-226], spec §3.1): exact, in batches.

:func:`run_hcpa` is HCPA_ALLOC's loop (every task starts on one processor; while the
critical path ``T_CP`` exceeds the average area ``T_A``, the critical-path task with the
largest gain gets one more processor, within its cap and the level cap) done in *batches*:
while the critical path stays strictly the longest, the increments need no level
recomputation, and a :class:`Batch` takes them from a heap of the path's candidates,
testing and recording every one. A batch ends when another path may be critical: the
:class:`Detours` bound (the longest other path, tightened by the decreases of the path tasks
every detour shares) says so; then the levels are swept again. Long batches are
vectorised (:meth:`Batch.tail`) with the same floating-point operations in the same order,
over one sorted list of every increment shared by the runs of a graph (:class:`Gains`).
The result is the one-increment-at-a-time algorithm's (decisions 113, 114, 211); the
replays over every budget live in :mod:`lpsched.ptg.hcpa`.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from lpsched.ptg.levels import bottom_level_list, critical_path, top_level_list
from lpsched.ptg.model import Dag

#: relative tolerance of HCPA's stopping test ``T_CP <= T_A``
TOL = 1e-12
#: the critical path stays critical while ``L > bound·(1 + STRICT)`` (a near-tie ends the
#: batch: the levels are swept again and the walk decides, as the one-step algorithm does)
STRICT = 1e-12
#: the detour bound counts the path tasks' decreases at ``1 − SHRINK`` (rounding can only
#: end a batch earlier); ``L`` accumulates about 1.1e-16 relative error per increment, so
#: this holds for batches far longer than any budget of the four clusters (decision 211)
SHRINK = 1e-9
#: graphs up to this many tasks get full level sweeps and the detour bound; larger ones
#: (the composite graphs of C1/C4) propagate level changes and keep the fixed bound
SMALL = 128
#: increments of one batch done one by one before the rest of the batch is vectorised
SCALAR_STEPS = 100
#: the dominator masks are bits of an int64 over path positions (a sign bit and one spare)
LONGEST_MASKED_PATH = 62


@dataclass
class PathData:
    """What depends on the critical path only: on-path flags, off-path tasks, skip edges,
    and the dominator masks (``None`` until first needed)."""

    on: list[bool]
    off: list[int]
    skips: list[tuple[int, int]]
    shared: np.ndarray | None = None
    by_task: np.ndarray | None = None


class Detours:
    """Every path other than the critical path ``path``, in groups whose largest value bounds them
    all, each group with the path tasks every one of its paths contains.

    The groups: paths through an off-path task ``x`` (longest: ``tl(x) + bl(x)``), or through
    a skip edge ``u → w`` between two path tasks that are not consecutive (``tl(u) + T(u) +
    bl(w)``); any other path is in one of them, so the largest value bounds them all
    (:attr:`second`). Each group has the path tasks that EVERY path of it contains
    (dominators and post-dominators on ``path``, as bit masks over path positions). While
    only path tasks speed up, a group's longest path shrinks by at least the decrease of
    those tasks, so :meth:`now` is an upper bound on every other path that follows the
    batch: it lets a batch go on while the critical path stays strictly the longest, where
    the fixed :attr:`second` would end it after a few increments: a detour shares most of its
    tasks with the critical path and speeds up with it. O(n + e) bit operations.
    """

    def __init__(self, succs: list[list[int]], preds: list[list[int]], path: list[int],
                 tl: list[float], tt: list[float], bl: list[float],
                 cache: dict[tuple[int, ...], PathData]) -> None:
        n = len(tt)
        #: what depends on the path only, shared through ``cache`` by the batches and
        #: runs on the same graph
        known = cache.get(tuple(path))
        if known is None:
            on = [False] * n
            for v in path:
                on[v] = True
            nxt = dict(itertools.pairwise(path))
            known = cache[tuple(path)] = PathData(
                on, [x for x in range(n) if not on[x]],
                [(u, w) for u in path for w in succs[u] if on[w] and nxt.get(u) != w])
        self.known = known
        values = [tl[x] + bl[x] for x in known.off]
        values.extend(tl[u] + tt[u] + bl[w] for u, w in known.skips)
        #: the largest value: the second-path bound of the batch start
        self.second = max(values) if values else -math.inf
        self.graph, self.path = (succs, preds), path
        self.values = np.array(values)
        self.usable = bool(values) and len(path) <= LONGEST_MASKED_PATH and n <= SMALL

    @property
    def shared(self) -> np.ndarray:
        """``shared[k, i]``: every path of group ``k`` contains ``path[i]``."""
        if self.known.shared is None:
            self.known.shared, self.known.by_task = self._masks()
        return self.known.shared

    @property
    def by_task(self) -> np.ndarray:
        """``by_task[v, k]``: every path of group ``k`` contains task ``v``."""
        if self.known.by_task is None:
            self.known.shared, self.known.by_task = self._masks()
        return self.known.by_task

    def _masks(self) -> tuple[np.ndarray, np.ndarray]:
        """:attr:`shared` and :attr:`by_task`: dominators and post-dominators restricted
        to the path, as bit masks over path positions, in one forward and one backward
        sweep."""
        (succs, preds), path = self.graph, self.path
        on, off, skips = self.known.on, self.known.off, self.known.skips
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
        ``fall``) and after the last one, vectorised.

        Parameters
        ----------
        delta : list of float
            How much each task's time has fallen so far in the batch (s, indexed by task).
        tasks : numpy.ndarray
            The path tasks of the coming steps, in order.
        fall : numpy.ndarray
            How much each step lowers its task's time (s).

        Returns
        -------
        numpy.ndarray or float
            The bound on every other path before each step and after the last (``len(tasks) +
            1`` values), or the plain bound ``second`` (one float) when the groups are not
            usable.
        """
        if not self.usable:
            return self.second
        cum = np.empty((tasks.size + 1, self.values.size))
        cum[0] = self.shared @ np.array([delta[v] for v in self.path])
        np.multiply(self.by_task[tasks], fall[:, None], out=cum[1:])
        np.cumsum(cum, axis=0, out=cum)
        cum *= 1 - SHRINK
        np.subtract(self.values * (1 + STRICT), cum, out=cum)
        return cum.max(axis=1)

    def now(self, delta: list[float]) -> float:
        """The bound after the path tasks' times fell by ``delta`` (indexed by task), with
        a margin that covers rounding (it only ends batches earlier).

        Parameters
        ----------
        delta : list of float
            How much each task's time has fallen in the batch (s).

        Returns
        -------
        float
            An upper bound (s) on the length of every path other than the critical path.
        """
        if not self.usable:
            return self.second
        fall = self.shared @ np.array([delta[v] for v in self.path])
        return float((self.values * (1 + STRICT) - fall * (1 - SHRINK)).max())


@dataclass
class Record:
    """Every step of a run: the task chosen, its processors before, ``T_CP`` and the area
    before the step, and the processors on its level (level cap); for replays."""

    chosen: list[int]
    before: list[int]
    t_cp: list[float]
    area: list[float]
    lev: list[float]  # processors (a count, kept as float) on the chosen task's level


@dataclass
class Caps:
    """The limits of one HCPA run: stopping budget, per-task caps, level cap and levels
    (``levsum``: processors per level, kept up to date by the run)."""

    budget: int
    limit: list[int]
    level_cap: int | None
    levels: list[int] | None
    levsum: list[float] | None


class Gains:
    """Every increment ``q → q + 1`` (``q = 1..top − 1``) of every real task of ``dag``, once, in
    the HCPA heap's pop order.

    The order is largest gain, then lowest task, then lowest count, with the floating-point
    values the heap computes. A batch's remaining increments are then a filter of it, not a
    sort: the many runs of the moldable specification share it. ``ok`` is False when some
    task's keys are not monotone in floating point (then batches sort their own increments).
    O(n·top·log(n·top)).
    """

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
        #: the critical paths met so far, with what :class:`Detours` derives from them
        self.paths: dict[tuple[int, ...], PathData] = {}

    def after(self, heap: list[tuple[Any, ...]], limit: list[int], n: int) -> np.ndarray:
        """Positions of the increments still to come for the tasks in ``heap`` (from the
        count in their entry up to their cap), in pop order.

        Parameters
        ----------
        heap : list of tuple
            The batch's candidates (:func:`candidates`' entries).
        limit : list of int
            The per-task caps.
        n : int
            Number of tasks of the graph.

        Returns
        -------
        numpy.ndarray
            Indices into the shared increments, in the heap's pop order.
        """
        low = np.full(n, self.top, dtype=np.int64)
        high = np.zeros(n, dtype=np.int64)
        for _, v, q, *_ in heap:
            low[v], high[v] = q, limit[v]
        return np.flatnonzero((self.qs >= low[self.vs]) & (self.qs < high[self.vs]))


def run_hcpa(dag: Dag, budget: int, limit: np.ndarray, level_cap: int | None,
              levels: np.ndarray | None, p0: np.ndarray, rec: Record | None = None,
              gains: Gains | None = None) -> np.ndarray:
    """The HCPA loop (module doc) with stopping budget ``budget`` and per-task caps ``limit``, in
    batches.

    While the critical path ``L`` stays longer than every other path (:class:`Detours`), it
    remains the critical path, so the increments (largest gain first) need no bottom-level
    recomputation. Every single increment is still tested and recorded, so the result is
    exactly the one-step-at-a-time algorithm's. Plain lists inside: a PTG has tens of tasks
    (composite graphs of C1/C4 a few hundred, with level propagation instead of sweeps).

    Parameters
    ----------
    dag : Dag
        The graph (sequential times in s, ``α``).
    budget : int
        The processors ``T_A`` is averaged over (the stopping test ``T_CP <= T_A``).
    limit : numpy.ndarray
        Per-task cap on the processors.
    level_cap : int or None
        Cap on the processors of one precedence level together (CRA), or None.
    levels : numpy.ndarray or None
        Precedence levels (needed with a level cap).
    p0 : numpy.ndarray
        The starting allocation (1 per real task, 0 per dummy, or a replay's state).
    rec : Record, optional
        Receives every step (for the replays of :class:`lpsched.ptg.hcpa.Trajectory`).
    gains : Gains, optional
        The graph's increments in pop order, shared by the runs of one graph.

    Returns
    -------
    numpy.ndarray
        The final allocation (integers, shape ``(n,)``).
    """
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
    caps = Caps(budget, limit.tolist(), level_cap, lev, levsum)
    tt = [t1[v] * (al[v] + (1 - al[v]) / max(p[v], 1)) for v in range(dag.n)]
    bl, tl = bottom_level_list(dag, tt), top_level_list(dag, tt)
    known = gains.paths if gains is not None else {}
    path: list[int] = []
    heap: list[tuple[Any, ...]] = []
    while True:  # the area as numpy sums it (pairwise), for bit-identical stopping tests
        area = float(np.array([max(p[v], 1) * tt[v] for v in range(dag.n) if real[v]]).sum())
        L, now = critical_path(walk, bl, sources)
        if not path or now != path:  # else the heap holds the same candidates
            path, heap = now, candidates(dag, p, now, real, caps)
        detours = Detours(succs, preds, path, tl, tt, bl, known)
        batch = Batch(p, heap, caps, rec, detours,
                       partial(candidates, dag, p, path, real, caps), gains)
        if not batch.run(L, detours.second, area):
            return np.array(p, dtype=p0.dtype)
        heap = batch.heap
        changed = [v for v in path if batch.delta[v]]  # only path tasks grow
        for v in changed:
            tt[v] = t1[v] * (al[v] + (1 - al[v]) / p[v])
        update_levels(dag, tt, bl, tl, changed)


def candidates(dag: Dag, p: list[int], path: list[int], real: list[bool], caps: Caps,
                ) -> list[tuple[Any, ...]]:
    """The heap of a critical path's next increments: ``(−gain, task, p, T(p), T(p+1),
    T(1), α)`` for its tasks below their cap.

    Parameters
    ----------
    dag : Dag
        The graph.
    p : list of int
        The current allocation.
    path : list of int
        The critical path's tasks.
    real : list of bool
        Whether each task is real (dummies never grow).
    caps : Caps
        The run's limits.

    Returns
    -------
    list of tuple
        A heap (``heapq``) of the path's candidate increments, largest gain first.
    """
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


def update_levels(dag: Dag, tt: list[float], bl: list[float], tl: list[float],
                   changed: list[int]) -> None:
    """Bottom levels of the ancestors and top levels of the descendants of ``changed`` after
    their times changed, in place.

    Small graphs are swept in full (a batch changes a whole critical path, whose ancestors and
    descendants are nearly every task, and a plain sweep is cheaper); larger ones propagate
    from ``changed`` in reverse / forward topological order, only along actual changes. Both
    give the same values: each level is a function of its neighbours' levels.

    Parameters
    ----------
    dag : Dag
        The graph.
    tt : list of float
        The task times (s) after the change.
    bl, tl : list of float
        Bottom and top levels (s), updated in place.
    changed : list of int
        The tasks whose time changed.
    """
    if len(tt) <= SMALL:
        bl[:] = bottom_level_list(dag, tt)
        tl[:] = top_level_list(dag, tt)
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


@dataclass
class Batch:
    """One batch of increments on a fixed critical path (its candidates in ``heap``),
    updating ``p`` and ``heap`` in place; ``delta`` is how much each task's time fell."""

    p: list[int]
    heap: list[tuple[Any, ...]]
    caps: Caps
    rec: Record | None
    detours: Detours
    rebuild: Callable[[], list[tuple[Any, ...]]]
    gains: Gains | None = None

    def run(self, L: float, L2: float, area: float) -> bool:
        """Increments until HCPA stops (False) or another path may be critical (True).

        When ``L`` reaches the bound ``L2``, the bound is tightened with the detours
        (:class:`Detours`) before giving up. After :data:`SCALAR_STEPS` increments the rest goes
        to :meth:`tail` (same steps, same floating-point operations).

        Parameters
        ----------
        L : float
            The critical path's length (s) at the batch's start.
        L2 : float
            The bound on every other path (s).
        area : float
            ``Σ p_v T(v, p_v)`` (processor-seconds) at the batch's start.

        Returns
        -------
        bool
            True when the levels must be recomputed (another path may be critical), False when
            the stopping test held or no candidate is left.
        """
        p, heap, caps, rec = self.p, self.heap, self.caps, self.rec
        limit, budget, levels, levsum = caps.limit, caps.budget, caps.levels, caps.levsum
        self.delta = delta = [0.0] * len(p)
        pop, push = heapq.heappop, heapq.heappush
        never = len(p) * max(limit) + 1  # more increments than the run can make
        if levsum is not None:
            scalar = never  # the level cap prunes the heap: no vectorised tail
        elif self.detours.second == -math.inf:
            scalar = 1  # a single path: vectorise from the first increment
        else:
            scalar = SCALAR_STEPS
        log = (rec.chosen.append, rec.before.append, rec.t_cp.append, rec.area.append,
               rec.lev.append) if rec is not None else None
        grow = 1 + TOL
        near = L2 * (1 + STRICT)
        steps = 0
        while True:
            if steps and L <= near:
                near = self.detours.now(delta) * (1 + STRICT)
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
                scalar = never  # keys not monotone: one step at a time
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
        """The rest of the batch at once (no level cap; at least one step done), in the
        scalar loop's order and floating-point operations.

        Every remaining increment of every candidate is merged in the heap's pop order (largest
        gain, then lowest task, then lowest count: a lexsort, valid because each task's keys grow
        with its count, which is checked); ``L`` and the area are accumulated in the same order as
        the scalar loop (``ufunc.accumulate`` is sequential), up to the first step where a test
        holds (with the detour bound along the way: the batch's end). Generating fewer increments
        per candidate was measured slower: the merged order is certain only below every left-out
        key, so short windows end early and batches need many calls.

        Parameters
        ----------
        L : float
            The critical path's length (s) now.
        area : float
            ``Σ p_v T(v, p_v)`` now.

        Returns
        -------
        tuple or None
            (another path may be critical, ``L``, area) at the batch's end, the heap left
            stale; None when the keys are not monotone in floating point (the caller goes on
            one step at a time).
        """
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
        recompute = ls <= self.detours.along(self.delta, vs, fall) * (1 + STRICT)
        stop = recompute | (ls * self.caps.budget <= areas * (1 + TOL))
        j = int(np.argmax(stop)) if stop.any() else vs.size  # else no increment is left
        self._apply(vs[:j], qs[:j], fall[:j], ls[:j], areas[:j])
        return bool(stop[j] and recompute[j]), float(ls[j]), float(areas[j])

    def _merge(self) -> tuple[np.ndarray, ...] | None:
        """The candidates' remaining increments generated and sorted in pop order (no
        shared :class:`Gains`); None when some task's keys are not monotone."""
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
