"""Proven lower bounds on the objectives of the online task policies (seed 000 ch. 3, §3.2).

None of the chapter's baselines is a bound (SRPT and GSRPT are preemptive heuristics), so
every ratio ``lpsched online`` and ``reproduce redirection`` print is taken against one of
these proofs (decision 78):

* **max-stretch, max-flow, exact** (``"preemptive-exact"``): the optimum over preemptive,
  migratory schedules on ``m`` identical processors of ``max_j F_j / w_j`` (``w_j =
  max(p_j, B)`` for the bounded stretch, ``1`` for the flow), which is at most the value
  of any schedule a policy builds. A bisection over ``S`` asks whether the deadlines
  ``d_j = r_j + S w_j`` can be met (Horn's transportation model,
  :mod:`lpsched.tasks.deadline_model`): by an integral maximum flow
  (``scipy.sparse.csgraph.maximum_flow``) on capacities scaled to integers and rounded
  *in the schedule's favour* (demands down, capacities up), so a "no" is a proof; or by
  the LP on HiGHS (``method="lp"``). The bound reported (``value``) is the largest ``S``
  proven infeasible, or the trivial bound when that is larger. The bisection stops when
  the test's "no" and "yes" are ``rtol`` apart, but that "yes" is not a proof (the
  rounding may accept an ``S`` slightly too small); ``upper`` is the first of that
  "yes" times ``1, 1 + rtol, 1 + 2 rtol, 1 + 4 rtol, ...`` that the flow test rounded
  *against* the schedule (windows shrunk onto an integer time grid, demands up)
  accepts: a proven feasible value (for both methods), so the optimum lies
  in ``[value, upper]`` (1e-6 to 4e-3 apart on the traces' 3,000-task instances: the
  grid's unit, ``Σp / 2^30``, is coarse for short tasks with tight windows).
* **single machine of speed m** (``"speed-m-edf"``, for the instances above
  ``exact_limit`` tasks): any ``m``-processor schedule runs on one processor of speed
  ``m``, where preemptive EDF decides the deadlines in ``O(n log n)``; the bound is the
  larger of that and the trivial ``max_j p_j / w_j`` (a task alone takes ``p_j``).
  Weaker, valid; no ``upper``.
* **sum-flow** (``"srpt-speed-m"``): SRPT on one processor of speed ``m`` is optimal there
  for the total flow (Schrage), hence a bound for ``m`` processors; with ``Σ p_j`` (each task
  needs ``p_j`` on one processor) the larger of the two is reported.

>>> from lpsched.tasks.instance import TaskInstance
>>> inst = TaskInstance(1, [0.0, 0.0], [10.0, 10.0])  # the second ends at 20: stretch 2
>>> round(max_weighted_flow_bound(inst, "flow").value, 4)
2.0
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from lpsched.core import tolerances
from lpsched.core.kernels import compiled
from lpsched.errors import LpschedError
from lpsched.tasks.instance import BOUND_B, TaskInstance

# scipy's max-flow, HiGHS and the deadline model are imported by the exact tests that use
# them: the speed-m bounds of ``lpsched online`` on large instances need none of them
# (scipy.sparse.csgraph alone takes 0.15 s to import); where the compiled maximum flow is
# built, the flow test needs no scipy at all
try:  # the compiled maximum flow (optional: without a C compiler scipy's runs)
    from lpsched.tasks import _flow_c
except ImportError:  # pragma: no cover - depends on the build
    _flow_c = None  # type: ignore[assignment]

#: largest number of tasks for which :func:`lower_bounds` runs the exact search by default
EXACT_LIMIT = 3000
#: relative gap between the flow test's "no" and "yes" at which the bisection stops
RTOL = 1e-6
_INT_TOP = 2**30


@dataclass(frozen=True)
class BoundResult:
    """A proven lower bound, how it was proven and, for the exact search, a feasible value.

    ``value``: the proven lower bound; ``kind``: how it was proven; ``upper``: for the
    exact search, a value proven feasible (the optimum lies in ``[value, upper]``), ``None``
    for the speed-m and sum bounds; ``tests``: feasibility tests run; ``seconds``: wall
    time of the search.
    """

    value: float
    kind: str
    upper: float | None = None
    tests: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of the bound (an entry of ``lower_bounds`` in ``lpsched online`` and
        of the reproduction's rows).

        Returns
        -------
        dict
            ``value`` (the proven bound, in the unit of its objective: a stretch, or seconds for
            a flow), ``bound`` (the kind: ``"preemptive-exact"``, ``"speed-m-edf"``,
            ``"srpt-speed-m"`` or ``"trivial"``), ``upper`` (a proven feasible value, exact
            search only, else ``None``), ``tests`` (feasibility tests run) and ``seconds``
            (wall time of the search).
        """
        return {"value": self.value, "bound": self.kind, "upper": self.upper,
                "tests": self.tests, "seconds": self.seconds}


def edf_speed_feasible(release: np.ndarray, p: np.ndarray, deadline: np.ndarray,
                       speed: float) -> bool:
    """Whether one processor of speed ``speed`` meets every deadline, preempting (by EDF).

    EDF is optimal there, and one processor of speed ``m`` relaxes ``m`` processors: the
    single-machine relaxation of the bounds. Lenient by a relative 1e-12 of the largest
    deadline, so a "no" is a proof.

    Parameters
    ----------
    release, p, deadline : numpy.ndarray
        The tasks' release dates, processing times (on one of the ``m`` processors) and
        deadlines, in seconds, shape ``(n,)``.
    speed : float
        The machine's speed: ``m`` for the relaxation of ``m`` identical processors (a task
        takes ``p_j / speed``).

    Returns
    -------
    bool
        ``False`` only when EDF misses a deadline by more than the tolerance: then no
        schedule on ``m`` processors meets the deadlines.
    """
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


class SpeedTest:
    """The EDF test of :func:`edf_speed_feasible` for deadlines ``r + s w``, asked for many ``s``.

    The bisection of :func:`max_weighted_flow_bound` asks it; it gives the same answer per
    ``s`` from fewer steps of EDF.

    The tasks split into *segments*: runs of consecutive releases that no EDF order joins,
    because all the work released before a segment ends (at speed ``speed``, on a busy
    processor) before the segment's first release, by more than the rounding of any order
    of the sums. EDF restarts from an empty queue at each segment's first release, so one
    EDF sweep over a set of whole segments, in release order, gives each of them exactly
    the steps the sweep over all tasks gives it; a test is the conjunction over the
    segments. A segment that met its deadlines at ``s'`` meets them at every ``s >= s'``
    (deadlines only grow), so a test at ``s`` sweeps only the segments not yet proven at
    an ``s' <= s``, and stops at the first missed deadline as before.

    Parameters
    ----------
    release, p : numpy.ndarray
        The tasks' releases and processing times (s), shape ``(n,)``.
    w : numpy.ndarray
        The weights ``w_j`` of the deadlines ``d_j = r_j + s w_j``, shape ``(n,)``.
    speed : float
        The single machine's speed (``m``: the relaxation of ``m`` processors).

    Notes
    -----
    Decision 400: the answers are :func:`edf_speed_feasible`'s, call for call.
    """

    def __init__(self, release: np.ndarray, p: np.ndarray, w: np.ndarray,
                 speed: float) -> None:
        self.release, self.w, self.speed = release, w, speed
        self.work = p / speed
        base = np.argsort(release, kind="stable")
        rs = release[base]
        ws = self.work[base]
        # busy ends of the release-order sweep, end_k = max(end_{k-1}, r_k) + w_k, as a
        # max-plus scan: end_k = C_k + max_{j <= k} (r_j - C_{j-1}), C the prefix sums of w
        n = rs.size
        cum = np.cumsum(ws)
        end = cum + np.maximum.accumulate(rs - (cum - ws))
        scale = (float(np.max(np.abs(rs), initial=0.0)) + float(cum[-1])) if n else 0.0
        margin = 32 * n * 2.3e-16 * scale  # above the rounding of any order of the sums
        starts = np.flatnonzero(end[:-1] + margin < rs[1:]) + 1
        starts = np.concatenate([[0], starts]) if n else starts
        self.base = base
        self.bounds = np.append(starts.astype(np.int64), n)
        #: per segment, the smallest ``s`` at which its deadlines were met (inf: none yet)
        self.proven = np.full(len(starts), math.inf)

    def __call__(self, s: float) -> bool:
        """Whether one processor of speed ``speed`` meets the deadlines ``r + s w``.

        Parameters
        ----------
        s : float
            The stretch (or flow, with ``w = 1``) being tested.

        Returns
        -------
        bool
            :func:`edf_speed_feasible` of ``(release, p, release + s w, speed)``.
        """
        deadline = self.release + s * self.w
        tol = 1e-12 * max(1.0, float(np.max(deadline, initial=0.0)))
        todo = np.flatnonzero(self.proven > s)
        if todo.size == 0:
            return True
        lo, hi = self.bounds[todo], self.bounds[todo + 1]
        lengths = hi - lo
        # positions of the pending segments' tasks in release order, and where each starts
        first = np.repeat(lo - np.cumsum(lengths) + lengths, lengths)
        idx = self.base[first + np.arange(int(lengths.sum()))]
        idx = idx[np.lexsort((deadline[idx], self.release[idx]))]
        ends = np.cumsum(lengths).tolist()
        r, d = self.release[idx].tolist(), deadline[idx].tolist()
        work = self.work[idx].tolist()
        heap: list[tuple[float, float]] = []
        t, i, n, seg = -math.inf, 0, len(r), 0
        while i < n or heap:
            if not heap:
                while i >= ends[seg]:  # every segment before i met its deadlines
                    self.proven[todo[seg]] = s
                    seg += 1
                t = max(t, r[i])
            while i < n and r[i] <= t:
                heapq.heappush(heap, (d[i], work[i]))
                i += 1
            dl, left = heapq.heappop(heap)
            nxt = r[i] if i < n else math.inf
            if t + left <= nxt:
                t += left
                if t > dl + tol:
                    return False
            else:
                heapq.heappush(heap, (dl, left - (nxt - t)))
                t = nxt
        self.proven[todo[seg:]] = s
        return True


def flow_feasible(release: np.ndarray, p: np.ndarray, deadline: np.ndarray, m: int,
                  strict: bool = False) -> bool:
    """Decide Horn's deadline problem by an integral maximum flow on capacities scaled to integers.

    Parameters
    ----------
    release, p, deadline : numpy.ndarray
        The tasks' releases, processing times and deadlines.
    m : int
        Identical processors.
    strict : bool
        ``False`` (default): rounded in the schedule's favour (demands down, capacities
        up), so a ``False`` proves that no preemptive schedule on ``m`` processors meets
        the deadlines (a ``True`` may be wrong: it accepts deadlines a few rounding units,
        ``Σp / 2^30``, too short). ``True``: rounded against it (windows shrunk onto an
        integer grid of time, demands rounded up), so a ``True`` proves that such a
        schedule exists.

    Returns
    -------
    bool
        Whether the maximum flow carries every (rounded) demand.
    """
    from lpsched.tasks.deadline_model import windows

    if np.any(p > deadline - release):
        return False
    total = float(p.sum())
    if total <= 0:
        return True
    scale = _INT_TOP / total
    if strict:
        release, p, deadline = _grid(release, p, deadline, scale)
        if np.any(p > deadline - release):
            return False
    win = windows(release, p, deadline)
    n, k = release.size, win.length.size
    if strict:  # every length is a whole number: the capacities are exact
        demand = p
        caps = np.concatenate([p, win.cap, np.minimum(m * win.length, float(p.sum()))])
    else:
        demand = np.floor(p * scale)
        caps = np.concatenate([demand, np.ceil(win.cap * scale),
                               np.ceil(np.minimum(m * win.length, total) * scale)])
    rows = np.concatenate([np.zeros(n, np.int64), 1 + win.task, 1 + n + np.arange(k)])
    cols = np.concatenate([1 + np.arange(n), 1 + n + win.interval,
                           np.full(k, n + k + 1, np.int64)])
    del win  # the edges' arrays are copied: let go of the windows before the flow
    return _max_flow(n + k + 2, rows, cols, caps) >= int(demand.sum())


def _max_flow(nodes: int, rows: np.ndarray, cols: np.ndarray, caps: np.ndarray) -> int:
    """The value of a maximum flow from node 0 to node ``nodes - 1`` (edges ``rows[e] ->
    cols[e]`` of capacity ``caps[e]``, whole numbers below ``2^31`` read in C's float to
    integer truncation): the compiled Dinic when it is built, scipy's ``maximum_flow``
    otherwise or under ``LPSCHED_PURE_PYTHON`` (the same value: a maximum flow's value is
    unique). Int64 ``rows`` and ``cols`` are passed without a copy (decision 701)."""
    if compiled(_flow_c):
        return int(_flow_c.max_flow(nodes, np.asarray(rows, np.int64),
                                    np.asarray(cols, np.int64),
                                    np.asarray(caps, np.int64), 0, nodes - 1))
    import scipy.sparse as sp
    from scipy.sparse.csgraph import maximum_flow

    graph = sp.csr_matrix((caps.astype(np.int32), (rows, cols)), shape=(nodes, nodes))
    return int(maximum_flow(graph, 0, nodes - 1).flow_value)


def _grid(release: np.ndarray, p: np.ndarray, deadline: np.ndarray,
          scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The instance in units of ``1 / scale`` (coarser when the horizon needs it, so that
    every time stays an exact whole float), windows shrunk and demands rounded up, with a
    relative margin of 1e-12 against the rounding of the products: a schedule of the
    result is one of the original."""
    origin = float(release.min())
    scale = min(scale, 2.0**50 / max(float(deadline.max()) - origin, 1e-300))
    tiny = 1e-12
    start = np.ceil((release - origin) * scale * (1 + tiny))
    end = np.floor((deadline - origin) * scale * (1 - tiny))
    return start, np.ceil(p * scale * (1 + tiny)), end


def lp_feasible(release: np.ndarray, p: np.ndarray, deadline: np.ndarray, m: int) -> bool:
    """Decide Horn's deadline problem by its LP, solved by HiGHS.

    The same question as :func:`flow_feasible`, on the LP of
    :func:`~lpsched.tasks.deadline_model.deadline_lp` (Horn's transportation model).

    Parameters
    ----------
    release, p, deadline : numpy.ndarray
        The tasks' release dates, processing times and deadlines (s), shape ``(n,)``.
    m : int
        Identical processors.

    Returns
    -------
    bool
        Whether the LP delivers ``Σ p_j`` (to :data:`~lpsched.core.tolerances.DELIVERY`):
        a preemptive, migratory schedule on ``m`` processors meets the deadlines.
    """
    from lpsched.solvers.highs import solve_highs
    from lpsched.tasks.deadline_model import deadline_lp

    if np.any(p > deadline - release):
        return False
    total = float(p.sum())
    if total <= 0:
        return True
    sol = solve_highs(deadline_lp(release, p, deadline, m)).require_optimal("deadline LP")
    return sol.objective >= total * (1 - tolerances.DELIVERY) - tolerances.LP_FEASIBILITY


_NO_FINITE = ("no finite bound: the deadline test never succeeds below a stretch of "
              "1e300 (times near the float range?); rescale the instance's times, or use "
              "the speed-m bound (method='speed-m'; CLI: --bounds speed-m)")


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
            raise LpschedError(_NO_FINITE)
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        tests += 1
        if test(mid):
            hi = mid
        else:
            lo = mid
    return lo, hi, tests


def _confirm(test: Callable[[float], bool], hi: float, rtol: float) -> tuple[float, int]:
    """The smallest of ``hi (1 + g)``, ``g = 0, rtol, 2 rtol, 4 rtol, ...`` that ``test``
    (a proof of feasibility) accepts, and the number of tests run."""
    tests, gap = 1, rtol
    value = hi
    while not test(value):
        value, gap, tests = hi * (1 + gap), gap * 2, tests + 1
        if value > 1e300:
            raise LpschedError(_NO_FINITE)
    return value, tests


def max_weighted_flow_bound(inst: TaskInstance, method: str = "flow",
                            weights: np.ndarray | None = None,
                            rtol: float = RTOL) -> BoundResult:
    """Prove a lower bound on ``max_j (C_j − r_j) / w_j`` over every schedule of the instance.

    Every schedule on ``inst.processors`` processors, preemptive or not: the bounded
    max-stretch (``w_j = max(p_j, B)``) or the max-flow (``w_j = 1``).

    Parameters
    ----------
    inst : TaskInstance
        The instance.
    method : str
        ``"flow"`` or ``"lp"`` (exact search), ``"speed-m"`` (single machine of speed
        ``m``, never below the trivial ``max_j p_j / w_j``).
    weights : numpy.ndarray, optional
        ``w_j``; default ``max(p_j, B)`` (the bounded max-stretch); ``1``: the max-flow.
    rtol : float
        Relative gap at which the bisection stops.

    Returns
    -------
    BoundResult
        ``value`` (proven lower bound) and, for the exact search, ``upper``: a value proven
        feasible (confirmed by the flow test rounded against the schedule), so the optimum
        lies in ``[value, upper]``; ``None`` for the speed-m bound.
    """
    t0 = time.perf_counter()
    w = inst.weights(BOUND_B) if weights is None else np.broadcast_to(
        np.asarray(weights, float), inst.p.shape)
    r, p, m = inst.release, inst.p, inst.processors
    if float(p.max()) <= 0:
        return BoundResult(0.0, "trivial", 0.0, 0, time.perf_counter() - t0)
    trivial = float(np.max(p / w))  # a task alone takes p_j
    # The search starts at the trivial bound, itself a valid lower bound: one EDF test when
    # it is the speed-m optimum too (the common case on the traces: a single task sets the
    # max-flow, and stretch 1 is reachable), a bisection above it otherwise.
    speed_lo, _, tests = _bisect(SpeedTest(r, p, w, m), trivial, rtol)
    lo = max(speed_lo, trivial)
    if method == "speed-m":
        return BoundResult(lo, "speed-m-edf", None, tests, time.perf_counter() - t0)
    if method not in ("flow", "lp"):
        raise LpschedError(f"unknown bound method {method!r}: 'flow', 'lp' or 'speed-m'")
    test = flow_feasible if method == "flow" else lp_feasible
    lo, hi, more = _bisect(lambda s: test(r, p, r + s * w, m), lo, rtol)
    hi, check = _confirm(lambda s: flow_feasible(r, p, r + s * w, m, strict=True), hi, rtol)
    return BoundResult(lo, "preemptive-exact", hi, tests + more + check,
                       time.perf_counter() - t0)


def srpt_speed_sum_flow(release: np.ndarray, p: np.ndarray, speed: float) -> float:
    """Total flow of SRPT on one processor of speed ``speed``, optimal there (Schrage).

    With ``speed = m``, the sum-flow relaxation of ``m`` processors.

    Parameters
    ----------
    release, p : numpy.ndarray
        The tasks' release dates and processing times (s), shape ``(n,)``.
    speed : float
        The processor's speed (``m``: a task takes ``p_j / m``).

    Returns
    -------
    float
        ``Σ_j (C_j - r_j)`` of that schedule, in seconds.
    """
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
    """Prove a lower bound on the total flow of every schedule of the instance.

    ``max(SRPT on one processor of speed m, Σ p_j)`` bounds every schedule, preemptive or
    not, on ``m`` processors (seed 000 ch. 3's sum-flow objective, §3.2).

    Parameters
    ----------
    inst : TaskInstance
        The instance.

    Returns
    -------
    BoundResult
        Kind ``"srpt-speed-m"``, one test, ``value`` in seconds.
    """
    t0 = time.perf_counter()
    value = max(srpt_speed_sum_flow(inst.release, inst.p, inst.processors), inst.total_work)
    return BoundResult(value, "srpt-speed-m", None, 1, time.perf_counter() - t0)


def lower_bounds(inst: TaskInstance, exact_limit: int = EXACT_LIMIT, method: str = "flow",
                 rtol: float = RTOL) -> dict[str, BoundResult]:
    """Prove lower bounds on the max-stretch, max-flow and sum-flow of an instance.

    The bounds ``lpsched online`` prints beside each policy's objectives (seed 000 ch. 3,
    §3.2).

    Parameters
    ----------
    inst : TaskInstance
        The instance.
    exact_limit : int
        Most tasks for the exact preemptive search (default :data:`EXACT_LIMIT`, 3,000);
        above it the speed-``m`` bounds.
    method : str
        The exact search's feasibility test: ``"flow"`` (max-flow, default) or ``"lp"``
        (HiGHS); ``"speed-m"`` forces the relaxation.
    rtol : float
        Relative gap at which the exact bisection stops (default :data:`RTOL`).

    Returns
    -------
    dict of str to BoundResult
        ``max_stretch`` (bounded stretch, ``B`` = :data:`~lpsched.tasks.instance.BOUND_B`),
        ``max_flow`` and ``sum_flow``.
    """
    how = method if inst.n <= exact_limit else "speed-m"
    return {"max_stretch": max_weighted_flow_bound(inst, how, rtol=rtol),
            "max_flow": max_weighted_flow_bound(inst, how, weights=np.ones(1), rtol=rtol),
            "sum_flow": sum_flow_bound(inst)}
