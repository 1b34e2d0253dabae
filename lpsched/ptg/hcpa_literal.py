"""HCPA's allocation step as the seed writes it (seed 004 §4.1 [L214-223]).

"Initially, each task is allocated only one processor. Task allocations are then increased
iteratively. At each iteration, HCPA selects the task v, with current allocation p_v, on
the current critical path that would benefit the most from one extra processor, i.e., the
task v for which the ratio T(v, p_v + 1)/(p_v + 1) is the smallest. The allocation of this
task is then increased by 1 [...]. HCPA uses a stopping criterion [...] to achieve an
optimal trade-off between the length of the critical path and the average processor
utilization" [L216-222].

:func:`literal_alloc` implements exactly that: the selection rule is the one the text
states (``argmin T(v, p+1)/(p+1)``, spec DECIDE-2 "LITERAL", lowest task index on ties),
and the stopping criterion is CPA's trade-off between the critical path ``T_CP`` and the
average area ``T_A = Σ p_v T(v, p_v) / Pb`` (stop when ``T_CP <= T_A``), the only
criterion the text describes; no processor bound is added, because the seed gives none
[L595-597] (docs/decisions.md). It is the ``literal`` kind of
:class:`lpsched.ptg.hcpa.HcpaBound`.

The loop is the one-increment-at-a-time algorithm done in *jumps*: on a fixed critical
path the chosen task's key ``T(v, p+1)/(p+1)`` only decreases as it grows, so it stays
the choice; the path stays the walk's path while it is strictly longer than every path
avoiding ``v`` (those do not change); so the increments up to the first step at which the
stopping test holds, the cap is reached or the path may lose its strict lead are taken at
once, and the levels are brought up to date only then, on the chosen task and its
ancestors alone (no other level can change; issue 32, decision 348, bit-identical to
a full sweep: :func:`literal_alloc_sweeps`). Areas are exact-rounded sums
(``math.fsum``), so the jump and the one-step reference take the same stopping decisions:
the result equals the one-step loop's (tested against it on random graphs).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lpsched.ptg.levels import bottom_level_list, critical_path
from lpsched.ptg.model import Dag

#: relative tolerance of the stopping test ``T_CP <= T_A`` (as :mod:`hcpa_loop`)
TOL = 1e-12


def _longest_avoiding(dag: Dag, tt: list[float], v: int, sources: list[int]) -> float:
    """The longest path of ``dag`` (task times ``tt``) that does not contain ``v``
    (``-inf`` when every path does). O(n + e)."""
    bl = tt[:]
    bl[v] = -math.inf
    for u, only, s in dag.sweeps[0]:
        if u != v:
            bl[u] = tt[u] + (bl[only] if only >= 0 else max([bl[w] for w in s]))
    return max([bl[s] for s in sources if s != v], default=-math.inf)


def _ancestor_sweep(dag: Dag, v: int) -> list[tuple[int, int, list[int]]]:
    """The entries of ``dag.sweeps[0]`` (reverse topological order) of the proper
    ancestors of ``v``: the only tasks whose bottom level depends on ``T(v)``. Cached on
    the graph (``dag.__dict__``). O(n + e) once per task."""
    memo: dict[int, list[tuple[int, int, list[int]]]] = dag.__dict__.setdefault(
        "_ancestor_sweeps", {})
    if v not in memo:
        seen = set(dag.preds[v])
        stack = list(seen)
        while stack:
            for u in dag.preds[stack.pop()]:
                if u not in seen:
                    seen.add(u)
                    stack.append(u)
        memo[v] = [e for e in dag.sweeps[0] if e[0] in seen]
    return memo[v]


def _smallest_key(path: list[int], real: Any, p: list[int], cap: list[int], t1: Any,
                  al: Any) -> int:
    """The task of ``path`` with the smallest ``T(u, p+1)/(p+1)`` that can still grow
    (lowest index on ties), or -1 when every one is at its cap [L216-220]."""
    best = -1
    key = 0.0
    for u in path:
        if real[u] and p[u] < cap[u]:
            pu = p[u] + 1
            k = t1[u] * (al[u] + (1.0 - al[u]) / pu) / pu
            if best < 0 or k < key or (k == key and u < best):
                best, key = u, k
    return best


def literal_alloc(dag: Dag, budget: int, limit: np.ndarray | None = None,
                  stop_budget: int | None = None) -> np.ndarray:
    """HCPA_ALLOC as written in seed 004 [L216-222] (module doc): returns ``p_v`` (0 for
    dummy tasks).

    Parameters
    ----------
    dag : Dag
        One PTG (or a composite graph) with its sequential times and ``α``.
    budget : int
        ``Pb``, the processors of the (virtual) cluster; no task gets more.
    limit : numpy.ndarray, optional
        A per-task cap (at most ``budget``); default ``budget`` for every task.
    stop_budget : int, optional
        The processors ``T_A`` is averaged over (default ``budget``).

    Returns
    -------
    numpy.ndarray
        The allocation, an integer per task, equal to :func:`literal_alloc_sweeps`' (and
        so to :func:`literal_alloc_reference`'s). The bottom levels are kept up to date
        instead of swept again: a jump on ``v`` changes only ``v``'s and its ancestors'
        (:func:`_ancestor_sweep`), which are recomputed by the same expressions in the
        same order as a full sweep, so every level is bit-identical to the full sweep's;
        the longest path avoiding ``v`` is recomputed on the same ancestors only; the
        area is ``math.fsum`` of the same products. O(J·A + K) for ``J`` jumps, ``A`` the
        largest ancestor sweep, ``K`` increments.
    """
    real, sources, t1, al, walk = dag.plain
    n = dag.n
    cap = [budget] * n if limit is None else [min(budget, int(c)) for c in limit]
    b = budget if stop_budget is None else stop_budget
    p = [0 if not real[v] else 1 for v in range(n)]
    tt = [t1[v] * (al[v] + (1.0 - al[v]) / max(p[v], 1)) if real[v] else 0.0
          for v in range(n)]
    own = {e[0]: e for e in dag.sweeps[0]}  # v's own sweep entry, if v has successors
    grow = 1 + TOL
    prod = [p[v] * tt[v] for v in range(n)]  # 0.0 for dummies: fsum is unchanged
    bl = bottom_level_list(dag, tt)
    neg = -math.inf
    fsum = math.fsum
    while True:
        L, path = critical_path(walk, bl, sources)
        area = fsum(prod)
        if L * b <= area * grow:
            break
        v = _smallest_key(path, real, p, cap, t1, al)
        if v < 0:
            break  # saturation: every critical-path task is at its cap
        anc = _ancestor_sweep(dag, v)
        q0, t, a, tq0 = p[v], t1[v], al[v], tt[v]
        base_l, base_a = L - tq0, area - q0 * tq0
        other: float | None = None
        q = q0 + 1  # the first increment was decided by the walk and the test above
        while q < cap[v]:  # the state before the next increment has q processors
            tq = t * (a + (1.0 - a) / q)
            lq = base_l + tq
            if lq * b <= (base_a + q * tq) * grow:
                break
            if other is None:  # the longest path avoiding v, levels as they are now
                bl2 = bl[:]
                bl2[v] = neg
                for u, only, s in anc:
                    bl2[u] = tt[u] + (bl2[only] if only >= 0 else max([bl2[w] for w in s]))
                other = max([bl2[s] for s in sources if s != v], default=neg)
            if not lq > other:
                break
            q += 1
        p[v] = q
        tv = t * (a + (1.0 - a) / q)
        tt[v] = tv
        prod[v] = q * tv
        e = own.get(v)
        bl[v] = tv if e is None else tv + (bl[e[1]] if e[1] >= 0
                                           else max([bl[w] for w in e[2]]))
        for u, only, s in anc:
            bl[u] = tt[u] + (bl[only] if only >= 0 else max([bl[w] for w in s]))
    return np.array(p, dtype=np.int64)


def literal_alloc_sweeps(dag: Dag, budget: int, limit: np.ndarray | None = None,
                         stop_budget: int | None = None) -> np.ndarray:
    """The previous implementation of :func:`literal_alloc` (issue 32), kept as a second
    test oracle: the same jumps, with the bottom levels swept over the whole graph at
    every jump and the longest path avoiding ``v`` swept over the whole graph too.
    Same parameters and result as :func:`literal_alloc`. O(J·(n + e) + K)."""
    real, sources, t1, al, walk = dag.plain
    n = dag.n
    cap = [budget] * n if limit is None else [min(budget, int(c)) for c in limit]
    b = budget if stop_budget is None else stop_budget
    p = [0 if not real[v] else 1 for v in range(n)]
    tt = [t1[v] * (al[v] + (1.0 - al[v]) / max(p[v], 1)) if real[v] else 0.0
          for v in range(n)]
    grow = 1 + TOL
    realv = [v for v in range(n) if real[v]]
    while True:
        bl = bottom_level_list(dag, tt)
        L, path = critical_path(walk, bl, sources)
        area = math.fsum([p[v] * tt[v] for v in realv])
        if L * b <= area * grow:
            break
        cand = [v for v in path if real[v] and p[v] < cap[v]]
        if not cand:
            break  # saturation: every critical-path task is at its cap
        v = min(cand, key=lambda u: (t1[u] * (al[u] + (1.0 - al[u]) / (p[u] + 1))
                                     / (p[u] + 1), u))
        q0, t, a, tq0 = p[v], t1[v], al[v], tt[v]
        base_l, base_a = L - tq0, area - q0 * tq0
        other: float | None = None
        q = q0 + 1  # the first increment was decided by the walk and the test above
        while q < cap[v]:  # the state before the next increment has q processors
            tq = t * (a + (1.0 - a) / q)
            lq = base_l + tq
            if lq * b <= (base_a + q * tq) * grow:
                break
            if other is None:
                other = _longest_avoiding(dag, tt, v, sources)
            if not lq > other:
                break
            q += 1
        p[v] = q
        tt[v] = t * (a + (1.0 - a) / q)
    return np.array(p, dtype=np.int64)


def literal_alloc_reference(dag: Dag, budget: int) -> np.ndarray:
    """The same algorithm one increment at a time (levels recomputed after every
    increment): the test oracle of :func:`literal_alloc`. O(K·(n + e))."""
    real, sources, t1, al, walk = dag.plain
    n = dag.n
    p = [0 if not real[v] else 1 for v in range(n)]
    while True:
        tt = [t1[v] * (al[v] + (1.0 - al[v]) / p[v]) if real[v] else 0.0 for v in range(n)]
        L, path = critical_path(walk, bottom_level_list(dag, tt), sources)
        area = math.fsum([p[v] * tt[v] for v in range(n) if real[v]])
        if L * budget <= area * (1 + TOL):
            break
        cand = [v for v in path if real[v] and p[v] < budget]
        if not cand:
            break
        v = min(cand, key=lambda u: (t1[u] * (al[u] + (1.0 - al[u]) / (p[u] + 1))
                                     / (p[u] + 1), u))
        p[v] += 1
    return np.array(p, dtype=np.int64)
