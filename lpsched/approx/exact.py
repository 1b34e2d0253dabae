"""Exact references: MIPs solved by HiGHS to proven optimality, for small instances.

They are the optimum the approximation algorithms are measured against
(``approx identical --exact``, :mod:`lpsched.approx.ratios`, the tests). Every function
returns :class:`ExactResult`: the best makespan found, the proven lower bound, and
``optimal`` only when HiGHS proved it within the time limit (status ``TIME_LIMIT`` keeps the
incumbent and the bound — never reported as optimal). ``time_limit`` is a number of seconds
``> 0`` (``None`` or ``inf``: no limit); 0, a negative number or NaN is refused (HiGHS would
run without a limit).

Both MIP gaps are 0 and each MIP is solved in a time unit where the largest time lies in
``[1, 2)`` (a power of two: the same numbers, rescaled without rounding), since HiGHS'
tolerances are absolute; the makespan is always recomputed from the schedule in the
caller's unit, never read from the objective (decision 87).
"""

from __future__ import annotations

import graphlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from lpsched.approx.certified import check_count, check_times
from lpsched.errors import InvalidInstanceError, SolverError
from lpsched.models.program import LinearProgram
from lpsched.solvers import Solution, Status, solve_highs


@dataclass(frozen=True)
class ExactResult:
    """The answer of an exact MIP: the best makespan found and the bound HiGHS proved.

    ``makespan`` is the best schedule's (recomputed from it, never read from the MIP's
    objective), ``bound`` the proven lower bound, ``optimal`` true only when proven;
    ``machine`` the assignment (rigid jobs: each job's first processor; moldable jobs: each
    job's allotment); ``schedule`` the start times (rigid jobs) or the
    :class:`~lpsched.approx.moldable.MoldableSchedule`; ``status`` HiGHS' status
    (``"optimal"`` or ``"time_limit"``).
    """

    makespan: float
    bound: float
    optimal: bool
    machine: np.ndarray
    status: str
    schedule: Any = None


def check_time_limit(time_limit: float | None) -> float | None:
    """Check a MIP time limit: ``None`` (no limit) or a number of seconds ``> 0``.

    ``inf`` also means no limit.

    Parameters
    ----------
    time_limit : float or None
        The limit to check.

    Returns
    -------
    float or None
        The limit as a float, or ``None``.

    Raises
    ------
    InvalidInstanceError
        For a boolean, a non-number, 0, a negative number or NaN: HiGHS would take each of
        them as "no limit" (or refuse it silently), so a run meant to be short would not be.

    Examples
    --------
    >>> check_time_limit(2), check_time_limit(None)
    (2.0, None)
    """
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float, np.integer,
                                                                   np.floating)) \
            or not time_limit > 0:
        raise InvalidInstanceError("time_limit", time_limit, "must be a number of seconds "
                                   "> 0 (None: no limit)")
    return float(time_limit)


def _solve_exact(lp: LinearProgram, time_limit: float | None, what: str) -> Solution:
    """Solve a MIP to proven optimality: HiGHS' default stopping rule (relative gap 1e-4,
    absolute gap 1e-6) would call "optimal" a makespan of 2e-6 when the optimum is 1e-6, or
    one 0.01 % above the optimum, so both gaps are 0 here (decision 87). A time limit keeps
    the incumbent and the bound, never reported optimal."""
    sol = solve_highs(lp, time_limit, mip_rel_gap=0.0, mip_abs_gap=0.0)
    if sol.status not in (Status.OPTIMAL, Status.TIME_LIMIT) or sol.x.size == 0:
        raise SolverError(f"exact {what} MIP: {sol.status.value}", sol.status)
    return sol


def _unit_scale(times: np.ndarray) -> float:
    """The power of two that brings the largest time into ``[1, 2)``: the MIP is solved in
    that unit (exactly the same numbers, rescaled without rounding), since HiGHS' tolerances
    are absolute (1e-6): on times of 1e-6 they cannot tell 1e-6 from 2e-6."""
    top = float(times.max()) if times.size else 0.0
    return 2.0 ** -np.floor(np.log2(top)) if top > 0 else 1.0


def _assignment_mip(times: np.ndarray, time_limit: float | None) -> ExactResult:
    """``times[j, i]``: time of task j on machine i (inf: not allowed). min Cmax."""
    n, machines = times.shape
    allowed = np.isfinite(times)
    lp = LinearProgram("assignment", sense="min")
    x = lp.add_variables("x", (n, machines), upper=np.where(allowed, 1.0, 0.0).ravel(),
                         integer=True)
    cmax = lp.add_variables("cmax", 1)
    rows = np.broadcast_to(np.arange(n)[:, None], (n, machines))
    lp.add_constraints("assign", rows, x, 1.0, lower=1.0, upper=1.0, num_rows=n)
    cols = np.broadcast_to(np.arange(machines)[None, :], (n, machines))
    t = np.where(allowed, times, 0.0)
    scale = _unit_scale(t)
    lp.add_constraints("load", np.concatenate([cols.ravel(), np.arange(machines)]),
                       np.concatenate([x.ravel(), np.full(machines, cmax[0])]),
                       np.concatenate([(t * scale).ravel(), -np.ones(machines)]), upper=0.0,
                       num_rows=machines)
    lp.set_objective(cmax, 1.0)
    sol = _solve_exact(lp, time_limit, "makespan")
    machine = np.argmax(sol.values["x"], axis=1)
    makespan = float(np.bincount(machine, weights=t[np.arange(n), machine],
                                 minlength=machines).max())
    optimal = sol.status is Status.OPTIMAL
    bound = makespan if optimal else min(makespan, float(sol.mip_bound) / scale)
    return ExactResult(makespan, bound, optimal, machine, sol.status.value)


def makespan_identical(times: ArrayLike, machines: int, time_limit: float | None = 10.0,
                       ) -> ExactResult:
    """Optimal P||Cmax (independent jobs, identical machines) by MIP, for small instances.

    Parameters
    ----------
    times : array_like
        p_j, each job's processing time, shape ``(n,)`` (finite, >= 0).
    machines : int
        m, the number of identical machines (1 to ``MAX_MACHINES``).
    time_limit : float or None
        HiGHS' time limit in seconds (> 0; default 10; ``None``: no limit). When it stops the
        MIP, the best schedule found is returned with ``optimal=False`` and the MIP's bound.

    Returns
    -------
    ExactResult
        The best makespan, the proven bound, ``optimal``, and ``machine``, each job's
        machine.

    Raises
    ------
    InvalidInstanceError
        A bad time, machine count or time limit.
    SolverError
        HiGHS ended without a schedule (infeasible, error, or the time limit before any
        incumbent).
    """
    time_limit = check_time_limit(time_limit)
    p = check_times("times", times)
    m = check_count("machines", machines)
    return _assignment_mip(np.repeat(p[:, None], m, axis=1), time_limit)


def makespan_hybrid(cpu_times: ArrayLike, gpu_times: ArrayLike, cpus: int, gpus: int,
                    time_limit: float | None = 10.0) -> ExactResult:
    """Optimal CPU+GPU makespan by MIP (machines 0..m-1 are the CPUs, then the GPUs).

    Parameters
    ----------
    cpu_times : array_like
        p_j, each task's time on a CPU, shape ``(n,)``.
    gpu_times : array_like
        p̄_j, each task's time on a GPU, shape ``(n,)``.
    cpus : int
        m, the number of CPUs (machines ``0..m-1``).
    gpus : int
        k, the number of GPUs (machines ``m..m+k-1``).
    time_limit : float or None
        HiGHS' time limit in seconds (> 0; default 10; ``None``: no limit). When it stops the
        MIP, the best schedule found is returned with ``optimal=False`` and the MIP's bound.

    Returns
    -------
    ExactResult
        The best makespan, the proven bound, ``optimal``, and ``machine``, each task's
        machine.

    Raises
    ------
    InvalidInstanceError
        A bad time, count or time limit.
    SolverError
        HiGHS ended without a schedule (infeasible, error, or the time limit before any
        incumbent).
    """
    time_limit = check_time_limit(time_limit)
    p = check_times("cpu_times", cpu_times)
    q = check_times("gpu_times", gpu_times)
    m, k = check_count("cpus", cpus), check_count("gpus", gpus)
    times = np.concatenate([np.repeat(p[:, None], m, axis=1),
                            np.repeat(q[:, None], k, axis=1)], axis=1)
    return _assignment_mip(times, time_limit)


def makespan_rigid(jobs: ArrayLike, processors: int, cluster_size: int | None = None,
                   local: bool = False, time_limit: float | None = 10.0) -> ExactResult:
    """Optimal makespan of rigid jobs on contiguous processors, optionally inside one cluster.

    Jobs ``(time, size)`` run on ``processors`` numbered in a line, every job on
    **contiguous** processors and, with ``local=True``, inside one cluster of
    ``cluster_size`` (seed 000 ch. 4's ``C^C`` and ``C^{C+L}``). A 2-D packing MIP: start
    ``s_j``, first processor ``f_j`` (integer), and for every pair four binaries "i before
    j", "j before i", "i left of j", "j left of i", at least one true, each enabling its
    big-M separation; locality adds an integer cluster ``c_j`` with ``ℓ·c_j <= f_j`` and
    ``f_j + size_j <= ℓ·(c_j + 1)``. For small instances (a dozen jobs). ``machine`` in the
    result holds each job's first processor.

    Parameters
    ----------
    jobs : array_like
        Shape ``(n, 2)``: rows ``(time, size)``, each job's processing time and number of
        processors (a whole number >= 1, at most ``processors``).
    processors : int
        m, the processors of the line.
    cluster_size : int or None
        ℓ, the processors per cluster; required when ``local``.
    local : bool
        Also keep every job inside one cluster (default ``False``: contiguity only).
    time_limit : float or None
        HiGHS' time limit in seconds (> 0; default 10; ``None``: no limit). When it stops the
        MIP, the best schedule found is returned with ``optimal=False`` and the MIP's bound.

    Returns
    -------
    ExactResult
        The best makespan, the proven bound, ``optimal``, ``machine`` (each job's first
        processor) and ``schedule`` (each job's start time).

    Raises
    ------
    InvalidInstanceError
        Bad jobs, a job wider than the machine, or a bad count or time limit.
    SolverError
        HiGHS ended without a schedule (infeasible, error, or the time limit before any
        incumbent).
    """
    from lpsched.approx.packing import _jobs

    time_limit = check_time_limit(time_limit)
    p, size = _jobs(jobs)
    m = check_count("processors", processors)
    if (size > m).any():
        raise InvalidInstanceError("jobs size", int(size.max()), f"wider than {m} processors")
    n = p.size
    scale = _unit_scale(p)
    ps = p * scale  # the MIP's unit; the schedule is rebuilt in the caller's (exact)
    horizon = float(ps.sum())
    lp = LinearProgram("rigid_contiguous", sense="min")
    start = lp.add_variables("start", n, upper=horizon)
    first = lp.add_variables("first", n, upper=(m - size).astype(float), integer=True)
    cmax = lp.add_variables("cmax", 1)
    lp.add_constraints("end", np.r_[np.arange(n), np.arange(n)],
                       np.r_[start, np.full(n, cmax[0])], np.r_[np.ones(n), -np.ones(n)],
                       upper=-ps, num_rows=n)
    i, j = np.triu_indices(n, 1)
    pairs = i.size
    if pairs:
        sep = lp.add_variables("separation", (pairs, 4), upper=1.0, integer=True)
        lp.add_constraints("one_separation", np.repeat(np.arange(pairs), 4), sep.ravel(), 1.0,
                           lower=1.0, num_rows=pairs)
        r = np.arange(pairs)
        # time: s_a + p_a <= s_b + H(1 − y)  ⇔  s_a − s_b + H·y <= H − p_a
        for col, (a, b) in enumerate(((i, j), (j, i))):
            lp.add_constraints(f"time_{col}", np.r_[r, r, r],
                               np.r_[start[a], start[b], sep[:, col]],
                               np.r_[np.ones(pairs), -np.ones(pairs), np.full(pairs, horizon)],
                               upper=horizon - ps[a], num_rows=pairs)
        # space: f_a + size_a <= f_b + m(1 − y)
        for col, (a, b) in enumerate(((i, j), (j, i)), start=2):
            lp.add_constraints(f"space_{col}", np.r_[r, r, r],
                               np.r_[first[a], first[b], sep[:, col]],
                               np.r_[np.ones(pairs), -np.ones(pairs), np.full(pairs, m)],
                               upper=m - size[a], num_rows=pairs)
    if local:
        ell = check_count("cluster_size", cluster_size)
        clusters = lp.add_variables("cluster", n, upper=float(m // ell - 1), integer=True)
        lp.add_constraints("in_cluster_lo", np.r_[np.arange(n), np.arange(n)],
                           np.r_[first, clusters], np.r_[-np.ones(n), np.full(n, ell)],
                           upper=0.0, num_rows=n)
        lp.add_constraints("in_cluster_hi", np.r_[np.arange(n), np.arange(n)],
                           np.r_[first, clusters], np.r_[np.ones(n), -np.full(n, ell)],
                           upper=ell - size, num_rows=n)
    lp.set_objective(cmax, 1.0)
    sol = _solve_exact(lp, time_limit, "rigid-job")
    optimal = sol.status is Status.OPTIMAL
    first = np.round(sol.values["first"]).astype(int)
    before = sol.values["separation"][:, :2] > 0.5 if pairs else np.zeros((0, 2), bool)
    starts = _compact_rigid(p, size, first, sol.values["start"], i, j, before)
    makespan = float((starts + p).max()) if n else 0.0
    bound = makespan if optimal else min(makespan, float(sol.mip_bound) / scale)
    return ExactResult(makespan, bound, optimal, first, sol.status.value, starts)


def _compact_rigid(p: np.ndarray, size: np.ndarray, first: np.ndarray, start: np.ndarray,
                   i: np.ndarray, j: np.ndarray, before: np.ndarray) -> np.ndarray:
    """Exact start times for the MIP's solution: every pair of jobs whose processor ranges
    overlap is ordered in time as the MIP chose ("i before j" or "j before i"), and each
    job starts when the last of its predecessors ends (a longest path, exact in floating
    point). The MIP's own starts and objective are only feasible up to its tolerances
    (three jobs of length 3 on one processor came back as 8.999999)."""
    overlap = (first[i] < first[j] + size[j]) & (first[j] < first[i] + size[i])
    preds: dict[int, list[int]] = {job: [] for job in range(p.size)}
    for a, b, ab, ba in zip(i[overlap], j[overlap], before[overlap, 0], before[overlap, 1],
                            strict=True):
        # the MIP guarantees one order for overlapping ranges; if it chose both, its starts
        # tell which one it used
        a_first = ab if ab != ba else start[a] <= start[b]
        preds[int(b) if a_first else int(a)].append(int(a) if a_first else int(b))
    out = np.zeros(p.size)
    try:
        order = list(graphlib.TopologicalSorter(preds).static_order())
    except graphlib.CycleError:
        raise SolverError("exact rigid-job MIP: its time orders form a cycle (tolerances)",
                          Status.ERROR) from None
    for job in order:
        out[job] = max((out[q] + p[q] for q in preds[job]), default=0.0)
    return out


def makespan_moldable(times: ArrayLike, processors: int, time_limit: float | None = 10.0,
                      ) -> ExactResult:
    """Optimal makespan of independent moldable jobs by a time-indexed MIP.

    Job ``j`` takes ``times[j][p−1]`` on any ``p`` processors; the times must be whole
    numbers (scale them first). Binary ``x[j, p, s]``: job ``j`` starts at slot ``s`` on
    ``p`` processors; one start per job; in every unit slot the running jobs use at most
    ``m`` processors; ``Cmax >= s + T`` of each job. Because processors may be any free
    ones, a profile within ``m`` at every slot is a schedule (jobs get free processors in
    start order). The horizon is MRT's makespan (an integer-time optimum is never later), so
    the model has at most ``n·m·H`` binaries: a few jobs on a few processors. ``schedule``
    holds the :class:`~lpsched.approx.moldable.MoldableSchedule`; ``machine`` the
    allotments.

    Parameters
    ----------
    times : array_like
        Shape ``(n, m)``: ``times[j][p−1]``, job j's time on p processors, whole numbers,
        monotonic (time non-increasing, work non-decreasing).
    processors : int
        m, the number of processors (the table's width).
    time_limit : float or None
        HiGHS' time limit in seconds (> 0; default 10; ``None``: no limit). When it stops the
        MIP, the best schedule found is returned with ``optimal=False`` and the MIP's bound.

    Returns
    -------
    ExactResult
        The best makespan, the proven bound, ``optimal``, ``machine`` (each job's
        allotment) and ``schedule`` (the :class:`~lpsched.approx.moldable.MoldableSchedule`).

    Raises
    ------
    InvalidInstanceError
        A bad or non-monotonic table, non-integer times, or a bad time limit.
    SolverError
        HiGHS ended without a schedule (infeasible, error, or the time limit before any
        incumbent).
    """
    from lpsched.approx.moldable import MoldableSchedule, check_table, mrt

    time_limit = check_time_limit(time_limit)
    T, _ = check_table(times, processors)
    if (T != np.round(T)).any():
        raise InvalidInstanceError("times", "non-integer", "the time-indexed MIP needs whole-"
                                   "number times; scale the table first")
    n, m = T.shape
    horizon = int(np.floor(mrt(T, m).makespan + 1e-9))
    dur = T.astype(int)
    # enumerate (job, p, start) triples with start + T <= horizon
    jj, pp = np.divmod(np.arange(n * m), m)
    last = horizon - dur[jj, pp]
    count = np.maximum(last + 1, 0)
    j3 = np.repeat(jj, count)
    p3 = np.repeat(pp, count)
    s3 = np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
    d3 = dur[j3, p3]
    v = j3.size
    lp = LinearProgram("moldable", sense="min")
    x = lp.add_variables("x", v, upper=1.0, integer=True)
    cmax = lp.add_variables("cmax", 1)
    lp.add_constraints("assign", j3, x, 1.0, lower=1.0, upper=1.0, num_rows=n)
    rows = np.repeat(s3, d3) + np.arange(d3.sum()) - np.repeat(np.cumsum(d3) - d3, d3)
    lp.add_constraints("capacity", rows, np.repeat(x, d3), np.repeat(p3 + 1.0, d3),
                       upper=float(m), num_rows=horizon)
    lp.add_constraints("end", np.r_[j3, np.arange(n)], np.r_[x, np.full(n, cmax[0])],
                       np.r_[(s3 + d3).astype(float), -np.ones(n)], upper=0.0, num_rows=n)
    lp.set_objective(cmax, 1.0)
    sol = _solve_exact(lp, time_limit, "moldable")
    pick = np.flatnonzero(sol.values["x"] > 0.5)
    order = pick[np.argsort(s3[pick], kind="stable")]
    start, allot = np.zeros(n), np.zeros(n, dtype=int)
    procs: list[np.ndarray] = [np.zeros(0, int)] * n
    free = np.zeros(m)
    for t in order:
        j = int(j3[t])
        start[j], allot[j] = s3[t], p3[t] + 1
        ids = np.flatnonzero(free <= s3[t] + 1e-9)[: allot[j]]
        procs[j] = ids
        free[ids] = s3[t] + d3[t]
    sched = MoldableSchedule(start, start + T[np.arange(n), allot - 1], allot, tuple(procs))
    optimal = sol.status is Status.OPTIMAL
    mk = sched.makespan
    return ExactResult(mk, mk if optimal else float(sol.mip_bound), optimal, allot,
                       sol.status.value, sched)


def makespan(instance: Mapping[str, Any], time_limit: float | None = 10.0) -> ExactResult:
    """Solve the exact MIP of the problem an instance describes (its keys choose it).

    The keys and the MIP they choose:

    * ``{"times": [...], "machines": m}`` — P||Cmax (:func:`makespan_identical`);
    * ``{"cpu_times", "gpu_times", "cpus", "gpus"}`` — CPU+GPU (:func:`makespan_hybrid`);
    * ``{"jobs": [[time, size], ...], "processors": m}`` (+ ``cluster_size``, ``local``) —
      contiguous rigid jobs (:func:`makespan_rigid`);
    * ``{"times": [[T(1), ..., T(m)], ...], "processors": m}`` — moldable jobs
      (:func:`makespan_moldable`).

    Parameters
    ----------
    instance : mapping
        The problem's data under the keys above (a decoded instance JSON).
    time_limit : float or None
        HiGHS' time limit in seconds (> 0; default 10; ``None``: no limit). When it stops the
        MIP, the best schedule found is returned with ``optimal=False`` and the MIP's bound.

    Returns
    -------
    ExactResult
        The answer of the chosen MIP.

    Raises
    ------
    InvalidInstanceError
        The keys name no problem, or the chosen function refuses the data.
    SolverError
        HiGHS ended without a schedule (infeasible, error, or the time limit before any
        incumbent).
    """
    keys = set(instance)
    if {"cpu_times", "gpu_times", "cpus", "gpus"} <= keys:
        return makespan_hybrid(instance["cpu_times"], instance["gpu_times"], instance["cpus"],
                               instance["gpus"], time_limit)
    if {"jobs", "processors"} <= keys:
        return makespan_rigid(instance["jobs"], instance["processors"],
                              instance.get("cluster_size"), bool(instance.get("local")),
                              time_limit)
    if {"times", "processors"} <= keys:
        return makespan_moldable(instance["times"], instance["processors"], time_limit)
    if {"times", "machines"} <= keys:
        return makespan_identical(instance["times"], instance["machines"], time_limit)
    raise InvalidInstanceError("instance", sorted(keys), "expected the keys of one problem: "
                               "times+machines, cpu_times+gpu_times+cpus+gpus, "
                               "jobs+processors, or times (table)+processors")
