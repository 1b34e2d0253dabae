"""Proven lower bounds for the online task policies (issue 14; none of the seed's
baselines is a bound: SRPT and GSRPT are preemptive heuristics).

* **max-stretch, max-flow, exact** (``"preemptive-exact"``): the optimum over preemptive,
  migratory schedules on ``m`` identical processors of ``max_j F_j / w_j`` (``w_j =
  max(p_j, B)`` for the bounded stretch, ``1`` for the flow), which is at most the value
  of any schedule a policy builds. A bisection over ``S`` asks whether the deadlines
  ``d_j = r_j + S w_j`` can be met (Horn's transportation model,
  :mod:`lpsched.tasks.deadline_model`): by an integral maximum flow
  (``scipy.sparse.csgraph.maximum_flow``) on capacities scaled to integers and rounded
  *in the schedule's favour* (demands down, capacities up), so a "no" is a proof; or by
  the LP on HiGHS (``method="lp"``). The bound reported is the largest ``S`` proven
  infeasible (or a trivial bound when none is), with the smallest ``S`` found feasible
  beside it (``upper``): the optimum lies in between (relative gap ``rtol``).
* **single machine of speed m** (``"speed-m-edf"``, for the instances above
  ``exact_limit`` tasks): any ``m``-processor schedule runs on one processor of speed
  ``m``, where preemptive EDF decides the deadlines in ``O(n log n)``. Weaker, valid.
* **sum-flow** (``"srpt-speed-m"``): SRPT on one processor of speed ``m`` is optimal there
  for the total flow (Schrage), hence a bound for ``m`` processors; with ``Σ p_j`` (each task
  needs ``p_j`` on one processor) the larger of the two is reported.

>>> from lpsched.tasks.instance import TaskInstance
>>> inst = TaskInstance(1, [0.0, 0.0], [10.0, 10.0])
>>> round(max_weighted_flow_bound(inst, "flow").value, 4)
20.0
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_flow

from lpsched.core import tolerances
from lpsched.errors import LpschedError
from lpsched.solvers.highs import solve_highs
from lpsched.tasks.deadline_model import deadline_lp, windows
from lpsched.tasks.instance import BOUND_B, TaskInstance

#: largest number of tasks for which :func:`lower_bounds` runs the exact search by default
EXACT_LIMIT = 3000
#: relative gap between the proven bound and a feasible value at which the search stops
RTOL = 1e-6
_INT_TOP = 2**30


@dataclass(frozen=True)
class BoundResult:
    """``value``: proven lower bound; ``kind``: how it was proven; ``upper``: a value
    found feasible by the same test (``None`` for sum bounds); ``tests``: feasibility
    tests run."""

    value: float
    kind: str
    upper: float | None = None
    tests: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "bound": self.kind, "upper": self.upper,
                "tests": self.tests, "seconds": self.seconds}


def edf_speed_feasible(release: np.ndarray, p: np.ndarray, deadline: np.ndarray,
                       speed: float) -> bool:
    """Can one processor of speed ``speed`` meet every deadline, preempting? (EDF is
    optimal there.) Lenient by a relative 1e-12, so a "no" is a proof."""
    order = np.lexsort((deadline, release))
    r, d = release[order].tolist(), deadline[order].tolist()
    w = (p[order] / speed).tolist()
    tol = 1e-12 * max(1.0, float(np.max(deadline, initial=0.0)))
    heap: list[tuple[float, float]] = []
    t, i, n = -math.inf, 0, len(r)
    while i < n or heap:
        if not heap:
            t = max(t, r[i])
        while i < n and r[i] <= t:
            heapq.heappush(heap, (d[i], w[i]))
            i += 1
        dl, work = heapq.heappop(heap)
        nxt = r[i] if i < n else math.inf
        if t + work <= nxt:
            t += work
            if t > dl + tol:
                return False
        else:
            heapq.heappush(heap, (dl, work - (nxt - t)))
            t = nxt
    return True


def flow_feasible(release: np.ndarray, p: np.ndarray, deadline: np.ndarray, m: int) -> bool:
    """Horn's model as an integral maximum flow, rounded in the schedule's favour: a
    ``False`` proves that no preemptive schedule on ``m`` processors meets the
    deadlines."""
    if np.any(p > deadline - release):
        return False
    total = float(p.sum())
    if total <= 0:
        return True
    win = windows(release, p, deadline)
    scale = _INT_TOP / total
    n, k = release.size, win.length.size
    demand = np.floor(p * scale)
    caps = np.concatenate([demand, np.ceil(win.cap * scale),
                           np.ceil(np.minimum(m * win.length, total) * scale)])
    rows = np.concatenate([np.zeros(n, np.int64), 1 + win.task, 1 + n + np.arange(k)])
    cols = np.concatenate([1 + np.arange(n), 1 + n + win.interval,
                           np.full(k, n + k + 1, np.int64)])
    graph = sp.csr_matrix((caps.astype(np.int32), (rows, cols)), shape=(n + k + 2,) * 2)
    flow = maximum_flow(graph, 0, n + k + 1).flow_value
    return flow >= int(demand.sum())


def lp_feasible(release: np.ndarray, p: np.ndarray, deadline: np.ndarray, m: int) -> bool:
    """The same question as :func:`flow_feasible` on the LP of
    :func:`~lpsched.tasks.deadline_model.deadline_lp`, solved by HiGHS."""
    if np.any(p > deadline - release):
        return False
    total = float(p.sum())
    if total <= 0:
        return True
    sol = solve_highs(deadline_lp(release, p, deadline, m)).require_optimal("deadline LP")
    return sol.objective >= total * (1 - tolerances.DELIVERY) - tolerances.LP_FEASIBILITY


def _bisect(test: Callable[[float], bool], lo: float, rtol: float) -> tuple[float, float, int]:
    """``(lo, hi, tests)``: ``lo`` is the given lower bound or a value ``test`` rejected,
    ``hi`` a value it accepted, ``hi - lo <= rtol * hi``. ``lo`` itself is tried first
    (the trivial bound is often the optimum), then ``lo (1 + g)`` for growing gaps ``g``."""
    tests = 1
    if lo > 0 and test(lo):
        return lo, lo, tests
    base, gap = max(lo, 1e-12), 1e-3
    while True:
        hi = base * (1 + gap)
        tests += 1
        if test(hi):
            break
        lo, gap = hi, gap * 4
        if hi > 1e300:
            raise LpschedError("no finite bound: the deadline test never succeeds")
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        tests += 1
        if test(mid):
            hi = mid
        else:
            lo = mid
    return lo, hi, tests


def max_weighted_flow_bound(inst: TaskInstance, method: str = "flow",
                            weights: np.ndarray | None = None,
                            rtol: float = RTOL) -> BoundResult:
    """Lower bound on ``max_j (C_j − r_j) / w_j`` over every schedule on
    ``inst.processors`` processors (default ``w_j = max(p_j, B)``: the bounded max-stretch;
    ``w = 1``: the max-flow). ``method``: ``"flow"`` or ``"lp"`` (exact search),
    ``"speed-m"`` (single machine of speed ``m``)."""
    t0 = time.perf_counter()
    w = inst.weights(BOUND_B) if weights is None else np.broadcast_to(
        np.asarray(weights, float), inst.p.shape)
    r, p, m = inst.release, inst.p, inst.processors
    if float(p.max()) <= 0:
        return BoundResult(0.0, "trivial", 0.0, 0, time.perf_counter() - t0)
    speed_lo, speed_hi, tests = _bisect(
        lambda s: edf_speed_feasible(r, p, r + s * w, m), float(np.max(p / (m * w))), rtol)
    if method == "speed-m":
        return BoundResult(speed_lo, "speed-m-edf", speed_hi, tests, time.perf_counter() - t0)
    if method not in ("flow", "lp"):
        raise LpschedError(f"unknown bound method {method!r}: 'flow', 'lp' or 'speed-m'")
    test = flow_feasible if method == "flow" else lp_feasible
    lo = max(speed_lo, float(np.max(p / w)))
    lo, hi, more = _bisect(lambda s: test(r, p, r + s * w, m), lo, rtol)
    return BoundResult(lo, "preemptive-exact", hi, tests + more, time.perf_counter() - t0)


def srpt_speed_sum_flow(release: np.ndarray, p: np.ndarray, speed: float) -> float:
    """Total flow of SRPT on one processor of speed ``speed`` (optimal there)."""
    order = np.lexsort((p, release))
    r, w = release[order].tolist(), (p[order] / speed).tolist()
    heap: list[tuple[float, float]] = []
    t, i, n, total = -math.inf, 0, len(r), 0.0
    while i < n or heap:
        if not heap:
            t = max(t, r[i])
        while i < n and r[i] <= t:
            heapq.heappush(heap, (w[i], r[i]))
            i += 1
        work, rel = heapq.heappop(heap)
        nxt = r[i] if i < n else math.inf
        if t + work <= nxt:
            t += work
            total += t - rel
        else:
            heapq.heappush(heap, (work - (nxt - t), rel))
            t = nxt
    return total


def sum_flow_bound(inst: TaskInstance) -> BoundResult:
    """``max(SRPT on one processor of speed m, Σ p_j)``: a lower bound on the total flow
    of every schedule (preemptive or not) on ``m`` processors."""
    t0 = time.perf_counter()
    value = max(srpt_speed_sum_flow(inst.release, inst.p, inst.processors), inst.total_work)
    return BoundResult(value, "srpt-speed-m", None, 1, time.perf_counter() - t0)


def lower_bounds(inst: TaskInstance, exact_limit: int = EXACT_LIMIT, method: str = "flow",
                 rtol: float = RTOL) -> dict[str, BoundResult]:
    """``max_stretch``, ``max_flow`` (exact search up to ``exact_limit`` tasks, else the
    speed-``m`` bound) and ``sum_flow``."""
    how = method if inst.n <= exact_limit else "speed-m"
    return {"max_stretch": max_weighted_flow_bound(inst, how, rtol=rtol),
            "max_flow": max_weighted_flow_bound(inst, how, weights=np.ones(1), rtol=rtol),
            "sum_flow": sum_flow_bound(inst)}
