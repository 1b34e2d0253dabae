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
[L595-597] (docs/pending/decisions-32.md). It is the ``literal`` kind of
:class:`lpsched.ptg.hcpa.HcpaBound`.

The loop is the one-increment-at-a-time algorithm done in *jumps*: on a fixed critical
path the chosen task's key ``T(v, p+1)/(p+1)`` only decreases as it grows, so it stays
the choice; the path stays the walk's path while it is strictly longer than every path
avoiding ``v`` (those do not change); so the increments up to the first step at which the
stopping test holds, the cap is reached or the path may lose its strict lead are taken at
once, and the levels are swept again only then. Areas are exact-rounded sums
(``math.fsum``), so the jump and the one-step reference take the same stopping decisions:
the result equals the one-step loop's (tested against it on random graphs).
"""

from __future__ import annotations

import math

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
        The allocation, an integer per task. O(J·(n + e) + K) for ``J`` jumps
        (critical-path changes) and ``K`` increments.
    """
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
