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
criterion the text describes. The seed states that HCPA "bounds the number of processors
that can be used in a schedule" [L595-597] but not the value of the bound (it is left to
its reference [22]); none is added (decision 336). It is the ``literal`` kind of
:class:`lpsched.ptg.hcpa.HcpaBound`, which takes no value (decision 416).

The loop is the one-increment-at-a-time algorithm done in *jumps*: on a fixed critical
path the chosen task's key ``T(v, p+1)/(p+1)`` only decreases as it grows, so it stays
the choice; the path stays the walk's path while it is strictly longer than every path
avoiding ``v`` (those do not change); so the increments up to the first step at which the
stopping test holds, the cap is reached or the path may lose its strict lead are taken at
once, and the levels are brought up to date only then, on the chosen task and its
ancestors alone (no other level can change; decision 348, bit-identical to a full sweep:
:func:`literal_alloc_sweeps`). Areas are exact-rounded sums
(``math.fsum``), so the jump and the one-step reference take the same stopping decisions:
the result equals the one-step loop's (tested against it on random graphs). The walk
follows a successor chain kept with the levels, and a jump's end is found from the two
tests' roots and checked step by step (:func:`_jump_end`; decision 410, speed only).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lpsched.core.kernels import PURE_PYTHON, compiled, kernel_state  # noqa: F401
from lpsched.ptg.levels import bottom_level_list, critical_path
from lpsched.ptg.model import Dag

try:  # the compiled loop (optional: without a C compiler or Cython the Python loop runs)
    from lpsched.ptg import _hcpa_c
except ImportError:  # pragma: no cover - depends on the build
    _hcpa_c = None  # type: ignore[assignment]

#: relative tolerance of the stopping test ``T_CP <= T_A`` (as :mod:`hcpa_loop`)
TOL = 1e-12
#: the environment variable that forces the Python loop (any value but "" and "0"), as for
#: :mod:`lpsched.batch.line`


def kernel_in_use() -> str:
    """Say which literal-HCPA loop :func:`literal_alloc` runs.

    Returns
    -------
    str
        ``"compiled"`` (the extension ``lpsched.ptg._hcpa_c``, built from
        ``lpsched/ptg/_hcpa_c.pyx``), ``"python (LPSCHED_PURE_PYTHON is set)"`` or
        ``"python (the extension lpsched.ptg._hcpa_c is not built)"``.

    Notes
    -----
    Decision 640: the compiled loop is optional, the Python one the reference.
    """
    return kernel_state(_hcpa_c, "lpsched.ptg._hcpa_c")


def _compiled_graph(dag: Dag) -> Any:
    """The compiled loop's view of ``dag`` (cached on the graph), or None where the Python
    loop must run: the extension is not built, ``LPSCHED_PURE_PYTHON`` is set, or a time or
    ``α`` is not finite (the compiled exact sum takes finite terms only)."""
    if not compiled(_hcpa_c):
        return None
    memo = dag.__dict__
    if "_literal_c" not in memo:
        real, sources, t1, al, walk = dag.plain
        finite = bool(np.isfinite(dag.t1).all() and np.isfinite(dag.alpha).all())
        memo["_literal_c"] = (_hcpa_c.prepare(real, sources, t1, al, walk, dag.preds)
                              if finite and sources else None)
    return memo["_literal_c"]


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
    ancestors of ``v``: the only tasks whose bottom level depends on ``T(v)``, each with
    its successors sorted (the walk's tie order, :attr:`Dag.plain`). Cached on the graph
    (``dag.__dict__``). O(n + e) once per task."""
    memo: dict[int, list[tuple[int, int, list[int]]]] = dag.__dict__.setdefault(
        "_ancestor_walks", {})
    if v not in memo:
        seen = set(dag.preds[v])
        stack = list(seen)
        while stack:
            for u in dag.preds[stack.pop()]:
                if u not in seen:
                    seen.add(u)
                    stack.append(u)
        walk = dag.plain[4]
        memo[v] = [(u, only, walk[u]) for u, only, _ in dag.sweeps[0] if u in seen]
    return memo[v]


#: below this ``α`` the stopping test of a jump is scanned one increment at a time
#: (:func:`_jump_end`): its right side ``q·T(v, q)`` is then too flat for a proof of
#: monotonicity in floating point
MONOTONE_ALPHA = 1e-6


def _jump_end(q1: int, cap: int, t: float, a: float, base_l: float, base_a: float,
              b: int, grow: float, other: float) -> int:
    """Where a jump on one task ends: the first ``q`` in ``[q1, cap)`` at which the
    stopping test holds or the path loses its strict lead over ``other`` (the longest
    path avoiding the task), else ``cap``; neither holds at ``q1 − 1``.

    Exactly the one-increment scan of :func:`literal_alloc_sweeps`, found in O(1): both
    tests are monotone in ``q`` *in floating point* (the path length
    ``base_l + t·(a + (1−a)/q)`` is a chain of correctly rounded operations, each
    monotone in ``q``; the area ``base_a + q·T(v, q)`` rises by ``t·a`` per step while
    its rounding error is below ``6·2⁻⁵³·t·(a·q + 1)``, so it is non-decreasing when
    ``a >= MONOTONE_ALPHA``), so the first ``q`` where one holds is found from the real
    roots (the lead: ``q >= (1−a)/((other − base_l)/t − a)``; the stop: the positive
    root of ``t·a·q² + (base_a + t(1−a) − b(base_l + t·a))·q − b·t(1−a)``) and then
    checked, and moved one step at a time, with the scan's own expressions. Below
    ``MONOTONE_ALPHA`` (or ``t <= 0``) the scan itself runs. Speed only (decision 410).

    Parameters
    ----------
    q1 : int
        The first processor count to test (``p_v + 2``: neither test holds at
        ``p_v + 1``, the increment the walk chose).
    cap : int
        The task's cap: the jump ends there at the latest.
    t, a : float
        The task's sequential time ``T(v, 1)`` (s) and Amdahl fraction ``α``.
    base_l, base_a : float
        The critical path's length and the area ``Σ p_u T(u, p_u)`` without the task's
        own term.
    b : int
        The processors the area is averaged over (``T_A = area / b``).
    grow : float
        ``1 + TOL``, the stopping test's tolerance.
    other : float
        The longest path avoiding the task (``-inf`` when every path contains it).

    Returns
    -------
    int
        The task's processor count at the end of the jump, in ``[q1, cap]``.
    """
    def holds(q: int) -> bool:
        tq = t * (a + (1.0 - a) / q)
        lq = base_l + tq
        return lq * b <= (base_a + q * tq) * grow or not lq > other

    if a < MONOTONE_ALPHA or not t > 0.0:
        q = q1
        while q < cap and not holds(q):
            q += 1
        return q
    est = float(cap)
    d = (other - base_l) / t - a  # the lead is lost once (1 - a) / q <= d
    if d > 0.0:
        est = min(est, (1.0 - a) / d)
    c = t * (1.0 - a)
    ta = t * a
    bb = base_a + c - b * (base_l + ta)
    disc = math.sqrt(bb * bb + 4.0 * ta * b * c)
    root = 2.0 * b * c / (bb + disc) if bb > 0.0 else (disc - bb) / (2.0 * ta)
    est = min(est, root)
    q = min(cap, max(q1, math.ceil(est))) if math.isfinite(est) else cap
    while q < cap and not holds(q):  # monotone: step up to the first q that holds
        q += 1
    while q > q1 and holds(q - 1):  # ... and down while the one before holds too
        q -= 1
    return q


def literal_alloc(dag: Dag, budget: int, limit: np.ndarray | None = None,
                  stop_budget: int | None = None) -> np.ndarray:
    """HCPA_ALLOC as written in seed 004 [L216-222] (module doc): returns ``p_v`` (0 for
    dummy tasks).

    The compiled loop (``lpsched.ptg._hcpa_c``, the Python loop statement for statement,
    the same allocations bit for bit) runs when it is built, the Python loop (the
    reference) otherwise or when ``LPSCHED_PURE_PYTHON`` is set.

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
        The allocation, an integer per task (:func:`literal_alloc_python`'s).

    Notes
    -----
    The compiled loop is decision 640.
    """
    g = _compiled_graph(dag)
    if g is None:
        return literal_alloc_python(dag, budget, limit, stop_budget)
    lim = (np.full(dag.n, budget, dtype=np.int64) if limit is None
           else np.ascontiguousarray(limit, dtype=np.int64))
    return _hcpa_c.literal_alloc(g, budget, lim, budget if stop_budget is None
                                 else stop_budget, 1 + TOL, MONOTONE_ALPHA)


def literal_allocs(dag: Dag, processors: int) -> list[np.ndarray] | None:
    """:func:`literal_alloc` for every budget ``b = 1..processors`` as the literal HCPA
    runs it (caps ``b``, 1 for the tasks of ``α = 1``; ``T_A`` on ``b`` processors), in one
    call of the compiled loop; None when the compiled loop does not run.

    Parameters
    ----------
    dag : Dag
        One PTG with its sequential times and ``α``.
    processors : int
        ``P``: the largest budget.

    Returns
    -------
    list of numpy.ndarray or None
        Item ``b − 1`` the allocation for budget ``b``
        (``literal_alloc(dag, b, caps, b)``'s), or None.
    """
    g = _compiled_graph(dag)
    if g is None:
        return None
    one = np.ascontiguousarray(dag.alpha >= 1.0, dtype=np.uint8)
    return list(_hcpa_c.literal_allocs(g, 1, processors, one, 1 + TOL, MONOTONE_ALPHA))


def literal_alloc_python(dag: Dag, budget: int, limit: np.ndarray | None = None,
                         stop_budget: int | None = None) -> np.ndarray:
    """:func:`literal_alloc`'s Python loop, the reference of the compiled one.

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
    # the key T(u, p_u + 1)/(p_u + 1) of every task that may still grow, else None
    key: list[float | None] = [
        t1[u] * (al[u] + (1.0 - al[u]) / (p[u] + 1)) / (p[u] + 1)
        if real[u] and p[u] < cap[u] else None for u in range(n)]
    bl = bottom_level_list(dag, tt)
    at = bl.__getitem__  # ``max`` keeps the first of equal keys: lists sorted ascending
    # the critical-path walk's next task from each task (-1 at the exits), kept with bl
    nxt = [(s[0] if len(s) == 1 else max(s, key=at)) if s else -1 for s in walk]
    single = sources[0] if len(sources) == 1 else -1
    neg = -math.inf
    fsum = math.fsum
    while True:
        u = single if single >= 0 else max(sources, key=at)
        L = bl[u]
        area = fsum(prod)
        if L * b <= area * grow:
            break
        v, kv = -1, 0.0  # the walk and the smallest key on it [L216-220]
        while u >= 0:
            k = key[u]
            if k is not None and (v < 0 or k < kv or (k == kv and u < v)):
                v, kv = u, k
            u = nxt[u]
        if v < 0:
            break  # saturation: every critical-path task is at its cap
        anc = _ancestor_sweep(dag, v)
        q0, t, a, tq0 = p[v], t1[v], al[v], tt[v]
        base_l, base_a = L - tq0, area - q0 * tq0
        q = q0 + 1  # the first increment was decided by the walk and the test above
        cv = cap[v]
        if q < cv:  # the state before the next increment has q processors
            tq = t * (a + (1.0 - a) / q)
            lq = base_l + tq
            if lq * b > (base_a + q * tq) * grow:  # no stop at q
                bl2 = bl[:]  # the longest path avoiding v, levels as they are now
                bl2[v] = neg
                at2 = bl2.__getitem__
                for w, only, s in anc:
                    bl2[w] = tt[w] + (bl2[only] if only >= 0 else max(map(at2, s)))
                other = max([bl2[x] for x in sources if x != v], default=neg)
                if lq > other:  # the path keeps its lead at q: the jump goes on
                    q = _jump_end(q + 1, cv, t, a, base_l, base_a, b, grow, other)
        p[v] = q
        tv = t * (a + (1.0 - a) / q)
        tt[v] = tv
        prod[v] = q * tv
        key[v] = t * (a + (1.0 - a) / (q + 1)) / (q + 1) if q < cv else None
        e = own.get(v)
        bl[v] = tv if e is None else tv + (bl[e[1]] if e[1] >= 0
                                           else max([bl[x] for x in e[2]]))
        for w, only, s in anc:  # s sorted: the first largest is the walk's next task
            if only >= 0:
                bl[w] = tt[w] + bl[only]
            else:
                vals = [bl[x] for x in s]
                m = max(vals)
                bl[w] = tt[w] + m
                nxt[w] = s[vals.index(m)]
    return np.array(p, dtype=np.int64)


def literal_alloc_sweeps(dag: Dag, budget: int, limit: np.ndarray | None = None,
                         stop_budget: int | None = None) -> np.ndarray:
    """:func:`literal_alloc` with full sweeps, a second test oracle: the same jumps, with the bottom
    levels swept over the whole graph at every jump and the longest path avoiding ``v`` swept over
    the whole graph too.

    O(J·(n + e) + K).

    Parameters
    ----------
    dag : Dag
        One PTG (or a composite graph) with its sequential times and ``α``.
    budget : int
        ``Pb``, the processors of the (virtual) cluster.
    limit : numpy.ndarray, optional
        A per-task cap (default ``budget``).
    stop_budget : int, optional
        The processors ``T_A`` is averaged over (default ``budget``).

    Returns
    -------
    numpy.ndarray
        The allocation, equal to :func:`literal_alloc`'s.
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
    """The same algorithm one increment at a time (levels recomputed after every increment): the
    test oracle of :func:`literal_alloc`.

    O(K·(n + e)).

    Parameters
    ----------
    dag : Dag
        One PTG with its sequential times and ``α``.
    budget : int
        ``Pb`` (the cap of every task and the processors of the stopping test).

    Returns
    -------
    numpy.ndarray
        The allocation [L216-222], 0 for dummy tasks.
    """
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
