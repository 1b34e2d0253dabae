"""The SELFISH, Zhao (C1, C4, F1, F2) and CRA algorithms of seed 004 §4.1–§4.3 (spec §4.0
rows 1–13).

Each takes a :class:`~lpsched.ptg.problem.Problem` and a generator and returns the schedule
*before* BACKFILL; :func:`lpsched.ptg.registry.run` applies BACKFILL (the last step of all
19, [L230-233]) and validates.

* SELFISH / ORDER / WEIGHT [L212-253]: standalone HCPA allocations, M-STATIC on ``P`` with
  the BL, ORDER or WEIGHT key.
* C1 [L259-263]: one composite graph (common zero-cost entry and exit), improved HCPA
  on it (budget ``P``, the problem's ``hcpa_bound``), M-STATIC by bottom level.
* C4 [L265-268] (DECIDE-12): PTGs by decreasing ``C*``; each shorter one is grafted after
  the base task ``u`` with the smallest ``bl(u) − T(u)`` that is still ``>= C*_k`` (as late
  as possible without lengthening the base's critical path), else after the base entry.
* F1 / F2 [L269-282] (DECIDE-14/15): task by task, the PTG with the worst current stretch
  (an unstarted PTG first) maps its ready task of largest bottom level with BEST_SET.
* CRA NDAGS / WORK / WIDTH (+WEIGHT) [L295-348] (DECIDE-16/17/18): ``β_i`` per strategy,
  ``P_i = max(1, ⌊β_i P⌋)``, HCPA with budget, task cap and level cap ``P_i`` and no
  improved-HCPA bound, M-READY on the whole cluster.
"""

from __future__ import annotations

import numpy as np

from lpsched.ptg.hcpa import NO_BOUND, hcpa_alloc
from lpsched.ptg.levels import bottom_levels
from lpsched.ptg.mapping import m_ready
from lpsched.ptg.model import Dag
from lpsched.ptg.mstatic import best_set, m_static
from lpsched.ptg.problem import Problem
from lpsched.ptg.schedule import PtgSchedule


def selfish(pb: Problem, rng: np.random.Generator, key: str = "bl") -> PtgSchedule:
    """SELFISH (``key="bl"``), SELFISH ORDER (``"order"``), SELFISH WEIGHT (``"weight"``),
    seed 004 §4.1. O(n·P log P) after the shared standalone allocations.

    Parameters
    ----------
    pb : Problem
        The ``N`` PTGs on one cluster, with the shared standalone allocations, ``C*_i``
        and priority keys (:class:`lpsched.ptg.problem.Problem`).
    rng : numpy.random.Generator
        Breaks ties between equal priorities (the seed's random tie-breaking).
    key : {"bl", "order", "weight"}
        The mapping priority [L226, L242-249]: decreasing bottom level (SELFISH), increasing
        ``C*_i`` then decreasing bottom level (ORDER), decreasing ``bl / C*_i²`` (WEIGHT).

    Returns
    -------
    PtgSchedule
        One start, end, allocation and processor set per task of every PTG (flat order of
        ``pb``), not yet backfilled (:func:`lpsched.ptg.registry.run` applies BACKFILL).
    """
    p = pb.selfish_alloc
    return m_static(pb.flat[0], p, pb.keys(key, p), pb.P, rng)


def _composite(pb: Problem, order: list[int], grafts: list[tuple[int, int, int]],
               entry: bool) -> tuple[Dag, np.ndarray]:
    """PTGs in ``order`` as one graph; ``grafts`` are edges (ptg a, task of a, ptg b) to
    b's first task; a zero-cost exit after every PTG's last task, and a common entry when
    ``entry``. Returns the graph and, per composite task, its flat index (−1: added)."""
    dag, offs = pb.flat
    first = 1 if entry else 0
    pos = {}
    back = [-1] * first
    for i in order:
        pos[i] = len(back)
        back.extend(range(offs[i], offs[i + 1]))
    n = len(back) + 1
    back.append(-1)
    fl = np.array(back)
    preds: list[list[int]] = [[] for _ in range(n)]
    for c, f in enumerate(back):
        if f >= 0:
            i = int(dag.owner[f])
            preds[c] = [pos[i] + u - offs[i] for u in dag.preds[f]]
    for i in order:
        g = pb.ptgs[i]
        if entry:
            preds[pos[i]].append(0)
        preds[n - 1].append(pos[i] + g.n - 1)
    for a, u, b in grafts:
        preds[pos[b]].append(pos[a] + u)
    succs: list[list[int]] = [[] for _ in range(n)]
    for v in range(n):
        for u in preds[v]:
            succs[u].append(v)
    real = fl >= 0
    take = np.where(real, fl, 0)
    comp = Dag(np.where(real, dag.t1[take], 0.0), np.where(real, dag.alpha[take], 0.0),
               np.where(real, dag.dummy[take], True), preds, succs,
               np.where(real, dag.owner[take], 0), np.where(real, dag.local[take], 0))
    return comp, fl


def _back_to_flat(pb: Problem, s: PtgSchedule, fl: np.ndarray) -> PtgSchedule:
    dag = pb.flat[0]
    n = dag.n
    real = np.flatnonzero(fl >= 0)
    start, end, alloc = np.zeros(n), np.zeros(n), np.zeros(n, int)
    procs: list[np.ndarray] = [np.zeros(0, int)] * n
    start[fl[real]], end[fl[real]], alloc[fl[real]] = s.start[real], s.end[real], s.alloc[real]
    for c in real:
        procs[fl[c]] = s.procs[c]
    order = np.array([fl[c] for c in s.order if fl[c] >= 0], int)
    return PtgSchedule(start, end, alloc, procs, dag.owner.copy(), order)


def _on_composite(pb: Problem, comp: Dag, fl: np.ndarray, rng: np.random.Generator,
                  ) -> PtgSchedule:
    p = hcpa_alloc(comp, pb.P, bound=pb.hcpa_bound)
    s = m_static(comp, p, (-bottom_levels(comp, p),), pb.P, rng)
    return _back_to_flat(pb, s, fl)


def c1(pb: Problem, rng: np.random.Generator) -> PtgSchedule:
    """C1 (seed 004 [L259-263]): HCPA and M-STATIC on the fork-join composite graph.

    O(K·(n + e) + n·P log P) for ``K`` HCPA increments.

    Parameters
    ----------
    pb : Problem
        The ``N`` PTGs on one cluster, with the shared standalone allocations, ``C*_i``
        and priority keys (:class:`lpsched.ptg.problem.Problem`).
    rng : numpy.random.Generator
        Breaks ties between equal priorities (the seed's random tie-breaking).

    Returns
    -------
    PtgSchedule
        One start, end, allocation and processor set per task of every PTG (flat order of
        ``pb``), not yet backfilled (:func:`lpsched.ptg.registry.run` applies BACKFILL).
    """
    comp, fl = _composite(pb, list(range(pb.N)), [], entry=True)
    return _on_composite(pb, comp, fl, rng)


def c4(pb: Problem, rng: np.random.Generator) -> PtgSchedule:
    """C4 (seed 004 [L265-268], grafting rule DECIDE-12 in the module doc).

    Parameters
    ----------
    pb : Problem
        The ``N`` PTGs on one cluster, with the shared standalone allocations, ``C*_i``
        and priority keys (:class:`lpsched.ptg.problem.Problem`).
    rng : numpy.random.Generator
        Breaks ties between equal priorities (the seed's random tie-breaking).

    Returns
    -------
    PtgSchedule
        One start, end, allocation and processor set per task of every PTG (flat order of
        ``pb``), not yet backfilled (:func:`lpsched.ptg.registry.run` applies BACKFILL).
    """
    tie = rng.permutation(pb.N)
    order = sorted(range(pb.N), key=lambda i: (-pb.cstar[i], tie[i]))
    base = order[0]
    d = pb.dags[base]
    off = pb.flat[1][base]
    p = pb.selfish_alloc[off:off + d.n]
    rest = bottom_levels(d, p) - d.times(p)  # remaining path length after u
    grafts = []
    for k in order[1:]:
        ok = np.flatnonzero(rest >= pb.cstar[k])
        if ok.size:
            best = ok[rest[ok] == rest[ok].min()]
            grafts.append((base, int(rng.choice(best)), k))
        else:
            grafts.append((base, 0, k))
    comp, fl = _composite(pb, order, grafts, entry=False)
    return _on_composite(pb, comp, fl, rng)


def _fairness(pb: Problem, rng: np.random.Generator, variant: str) -> PtgSchedule:
    """F1 / F2 (spec §4.2). O(n·(N + n_i + P log P))."""
    dag, offs = pb.flat
    n = dag.n
    p = pb.selfish_alloc
    tt = dag.times(p)
    bl = bottom_levels(dag, p)
    a_start = np.concatenate([s.start for s in pb.alone])
    a_end = np.concatenate([s.end for s in pb.alone])
    tie_task, tie_ptg = rng.random(n), rng.random(pb.N)
    stretch = np.full(pb.N, np.inf)  # unstarted: worst (DECIDE-14)
    missing = np.array([len(x) for x in dag.preds])
    mapped = np.zeros(n, bool)
    start, end = np.zeros(n), np.zeros(n)
    procs: list[np.ndarray] = [np.zeros(0, int)] * n
    avail = np.zeros(pb.P)
    history: list[list[int]] = [[] for _ in range(pb.N)]
    seq = []
    for _ in range(n):
        left = np.where(mapped, -np.inf, bl)
        top = np.maximum.reduceat(left, offs[:-1])
        live = np.flatnonzero(top > -np.inf)
        i = int(max(live, key=lambda j: (stretch[j], top[j], tie_ptg[j])))
        ready = [v for v in range(offs[i], offs[i + 1]) if not mapped[v] and missing[v] == 0]
        v = max(ready, key=lambda u: (bl[u], tie_task[u]))
        est = max((end[u] for u in dag.preds[v]), default=0.0)
        if p[v] == 0:
            start[v] = end[v] = est
        else:
            q = best_set(avail, int(p[v]), est)
            start[v] = max(est, float(avail[q].max()))
            end[v] = start[v] + tt[v]
            avail[q] = end[v]
            procs[v] = np.sort(q)
            history[i].append(v)
        mapped[v] = True
        seq.append(v)
        for w in dag.succs[v]:
            missing[w] -= 1
        if p[v] == 0:
            continue
        if variant == "f1":
            if a_end[v] > 0:
                stretch[i] = end[v] / a_end[v]
        else:
            _f2_update(stretch, history, start, end, a_start, a_end, float(end[v]))
    return PtgSchedule(start, end, p.copy(), procs, dag.owner.copy(), np.array(seq, int))


def _f2_update(stretch: np.ndarray, history: list[list[int]], start: np.ndarray,
               end: np.ndarray, a_start: np.ndarray, a_end: np.ndarray, c: float) -> None:
    """F2's estimate at time ``c`` (DECIDE-15: ``start <= c < finish``, most recent)."""
    for j, hist in enumerate(history):
        for t in reversed(hist):
            if start[t] <= c < end[t]:
                f = (c - start[t]) / (end[t] - start[t])
                tau = a_start[t] + f * (a_end[t] - a_start[t])
                if tau > 0:
                    stretch[j] = c / tau
                break


def f1(pb: Problem, rng: np.random.Generator) -> PtgSchedule:
    """F1 (seed 004 [L269-278]): stretch = finish of the last mapped task over its finish
    in the standalone schedule.

    Parameters
    ----------
    pb : Problem
        The ``N`` PTGs on one cluster, with the shared standalone allocations, ``C*_i``
        and priority keys (:class:`lpsched.ptg.problem.Problem`).
    rng : numpy.random.Generator
        Breaks ties between equal priorities (the seed's random tie-breaking).

    Returns
    -------
    PtgSchedule
        One start, end, allocation and processor set per task of every PTG (flat order of
        ``pb``), not yet backfilled (:func:`lpsched.ptg.registry.run` applies BACKFILL).
    """
    return _fairness(pb, rng, "f1")


def f2(pb: Problem, rng: np.random.Generator) -> PtgSchedule:
    """F2 (seed 004 [L278-282]): stretch of every PTG re-estimated at the mapped task's
    finish time from the fraction done of its running task.

    Parameters
    ----------
    pb : Problem
        The ``N`` PTGs on one cluster, with the shared standalone allocations, ``C*_i``
        and priority keys (:class:`lpsched.ptg.problem.Problem`).
    rng : numpy.random.Generator
        Breaks ties between equal priorities (the seed's random tie-breaking).

    Returns
    -------
    PtgSchedule
        One start, end, allocation and processor set per task of every PTG (flat order of
        ``pb``), not yet backfilled (:func:`lpsched.ptg.registry.run` applies BACKFILL).
    """
    return _fairness(pb, rng, "f2")


def cra_betas(pb: Problem, strategy: str) -> np.ndarray:
    """``β_i`` of CRA (seed 004 [L305-338]): ``ndags`` ``1/N``; ``work`` eq. (1)
    ``1/(2N) + ω_i/(2Σω)``; ``width`` eq. (2) ``1/(2N) + width_i/(2Σ width)``.

    Parameters
    ----------
    pb : Problem
        The ``N`` PTGs on one cluster, with the shared standalone allocations, ``C*_i``
        and priority keys (:class:`lpsched.ptg.problem.Problem`).
    strategy : {"ndags", "work", "width"}
        The share rule of CRA NDAGS, CRA WORK or CRA WIDTH.

    Returns
    -------
    numpy.ndarray
        ``β_i`` per PTG (shape ``(N,)``, summing to 1): the share of the cluster's
        processors PTG ``i`` may use.
    """
    N = pb.N
    if strategy == "ndags":
        return np.full(N, 1.0 / N)
    if strategy == "work":
        w = np.array([d.t1.sum() for d in pb.dags])
    elif strategy == "width":
        w = np.array([max(g.width, 1) for g in pb.ptgs], float)
    else:
        raise ValueError(f"unknown CRA strategy {strategy!r}")
    return 1.0 / (2 * N) + w / (2 * w.sum())


def cra_alloc(pb: Problem, strategy: str) -> np.ndarray:
    """Constrained HCPA of every PTG (DECIDE-16/17): ``P_i = max(1, ⌊β_i P⌋)``, without the
    improved-HCPA bound (``NO_BOUND``): the seed explains CRA's stretches below 1 by HCPA's
    own bound being "more stringent than the bound used by the CRA algorithms"
    [L592-597], so CRA's bound is ``P_i`` alone.

    Parameters
    ----------
    pb : Problem
        The ``N`` PTGs on one cluster, with the shared standalone allocations, ``C*_i``
        and priority keys (:class:`lpsched.ptg.problem.Problem`).
    strategy : {"ndags", "work", "width"}
        The share rule of :func:`cra_betas`.

    Returns
    -------
    numpy.ndarray
        Processors per task, flat over the PTGs (0 for dummy tasks), each PTG's tasks at
        most its ``P_i``.
    """
    beta = cra_betas(pb, strategy)
    caps = np.maximum(1, np.floor(beta * pb.P + 1e-9)).astype(int)
    return np.concatenate([hcpa_alloc(d, int(c), cap=int(c), level_cap=int(c),
                                      levels=g.levels, bound=NO_BOUND)
                           for d, g, c in zip(pb.dags, pb.ptgs, caps, strict=True)])


def cra(pb: Problem, rng: np.random.Generator, strategy: str = "ndags",
        key: str = "bl") -> PtgSchedule:
    """CRA NDAGS / WORK / WIDTH with the BL or WEIGHT key (seed 004 §4.3): M-READY on the
    whole cluster, the constraint acting through the allocations only (DECIDE-18).

    Parameters
    ----------
    pb : Problem
        The ``N`` PTGs on one cluster, with the shared standalone allocations, ``C*_i``
        and priority keys (:class:`lpsched.ptg.problem.Problem`).
    rng : numpy.random.Generator
        Breaks ties between equal priorities (the seed's random tie-breaking).
    strategy : {"ndags", "work", "width"}
        The share rule of :func:`cra_betas`.
    key : {"bl", "weight"}
        Mapping priority: decreasing bottom level, or decreasing ``bl / C*_i²`` (WEIGHT).

    Returns
    -------
    PtgSchedule
        One start, end, allocation and processor set per task of every PTG (flat order of
        ``pb``), not yet backfilled (:func:`lpsched.ptg.registry.run` applies BACKFILL).
    """
    p = cra_alloc(pb, strategy)
    return m_ready(pb.flat[0], p, pb.keys(key, p), pb.P, rng)
