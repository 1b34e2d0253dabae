"""Exact references: MIPs solved by HiGHS for small instances (issue #4).

Every function returns :class:`ExactResult`: the best makespan found, the proven lower
bound, and ``optimal`` only when HiGHS proved it within the time limit (status ``TIME_LIMIT``
keeps the incumbent and the bound — never reported as optimal).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from lpsched.approx.certified import check_count, check_times
from lpsched.errors import SolverError
from lpsched.models.program import LinearProgram
from lpsched.solvers import Status, solve


@dataclass(frozen=True)
class ExactResult:
    makespan: float
    bound: float
    optimal: bool
    machine: np.ndarray
    status: str
    schedule: Any = None


def _assignment_mip(times: np.ndarray, time_limit: float) -> ExactResult:
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
    lp.add_constraints("load", np.concatenate([cols.ravel(), np.arange(machines)]),
                       np.concatenate([x.ravel(), np.full(machines, cmax[0])]),
                       np.concatenate([t.ravel(), -np.ones(machines)]), upper=0.0,
                       num_rows=machines)
    lp.set_objective(cmax, 1.0)
    sol = solve(lp, time_limit=time_limit)
    if sol.status not in (Status.OPTIMAL, Status.TIME_LIMIT) or sol.x.size == 0:
        raise SolverError(f"exact makespan MIP: {sol.status.value}", sol.status)
    machine = np.argmax(sol.values["x"], axis=1)
    makespan = float(np.bincount(machine, weights=t[np.arange(n), machine],
                                 minlength=machines).max())
    optimal = sol.status is Status.OPTIMAL
    bound = makespan if optimal else float(sol.mip_bound)
    return ExactResult(makespan, bound, optimal, machine, sol.status.value)


def makespan_identical(times: ArrayLike, machines: int, time_limit: float = 10.0,
                       ) -> ExactResult:
    """Optimal P||Cmax by MIP (symmetric; small instances)."""
    p = check_times("times", times)
    m = check_count("machines", machines)
    return _assignment_mip(np.repeat(p[:, None], m, axis=1), time_limit)


def makespan_hybrid(cpu_times: ArrayLike, gpu_times: ArrayLike, cpus: int, gpus: int,
                    time_limit: float = 10.0) -> ExactResult:
    """Optimal CPU+GPU makespan by MIP (machines 0..m-1 CPUs, then the GPUs)."""
    p = check_times("cpu_times", cpu_times)
    q = check_times("gpu_times", gpu_times)
    m, k = check_count("cpus", cpus), check_count("gpus", gpus)
    times = np.concatenate([np.repeat(p[:, None], m, axis=1),
                            np.repeat(q[:, None], k, axis=1)], axis=1)
    return _assignment_mip(times, time_limit)


def makespan_rigid(jobs: ArrayLike, processors: int, cluster_size: int | None = None,
                   local: bool = False, time_limit: float = 10.0) -> ExactResult:
    """Optimal makespan of rigid jobs ``(time, size)`` on ``processors`` numbered in a line,
    every job on **contiguous** processors and, with ``local=True``, inside one cluster of
    ``cluster_size`` (seed 000 ch. 4's ``C^C`` and ``C^{C+L}``).

    A 2-D packing MIP: start ``s_j``, first processor ``f_j`` (integer), and for every pair
    four binaries "i before j", "j before i", "i left of j", "j left of i", at least one true,
    each enabling its big-M separation; locality adds an integer cluster ``c_j`` with
    ``ℓ·c_j <= f_j`` and ``f_j + size_j <= ℓ·(c_j + 1)``. For small instances (a dozen jobs).
    ``machine`` in the result holds each job's first processor.
    """
    from lpsched.approx.packing import _jobs

    p, size = _jobs(jobs)
    m = check_count("processors", processors)
    if (size > m).any():
        from lpsched.errors import InvalidInstanceError

        raise InvalidInstanceError("jobs size", int(size.max()), f"wider than {m} processors")
    n = p.size
    horizon = float(p.sum())
    lp = LinearProgram("rigid_contiguous", sense="min")
    start = lp.add_variables("start", n, upper=horizon)
    first = lp.add_variables("first", n, upper=(m - size).astype(float), integer=True)
    cmax = lp.add_variables("cmax", 1)
    lp.add_constraints("end", np.r_[np.arange(n), np.arange(n)],
                       np.r_[start, np.full(n, cmax[0])], np.r_[np.ones(n), -np.ones(n)],
                       upper=-p, num_rows=n)
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
                               upper=horizon - p[a], num_rows=pairs)
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
    sol = solve(lp, time_limit=time_limit)
    if sol.status not in (Status.OPTIMAL, Status.TIME_LIMIT) or sol.x.size == 0:
        raise SolverError(f"exact rigid-job MIP: {sol.status.value}", sol.status)
    optimal = sol.status is Status.OPTIMAL
    makespan = float(sol.objective)
    return ExactResult(makespan, makespan if optimal else float(sol.mip_bound), optimal,
                       np.round(sol.values["first"]).astype(int), sol.status.value)


def makespan_moldable(times: ArrayLike, processors: int, time_limit: float = 10.0,
                      ) -> ExactResult:
    """Optimal makespan of independent moldable jobs (``times[j][p−1]`` on ``p``
    processors, any processor set) by a time-indexed MIP; the times must be whole numbers
    (scale them first).

    Binary ``x[j, p, s]``: job ``j`` starts at slot ``s`` on ``p`` processors; one start per
    job; in every unit slot the running jobs use at most ``m`` processors; ``Cmax >= s + T``
    of each job. Because processors may be any free ones, a profile within ``m`` at every
    slot is a schedule (jobs get free processors in start order). The horizon is MRT's
    makespan (an integer-time optimum is never later), so the model has at most
    ``n·m·H`` binaries: a few jobs on a few processors. ``schedule`` holds the
    :class:`~lpsched.approx.moldable.MoldableSchedule`; ``machine`` the allotments.
    """
    from lpsched.approx.moldable import MoldableSchedule, check_table, mrt

    T, _ = check_table(times, processors)
    if (T != np.round(T)).any():
        from lpsched.errors import InvalidInstanceError

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
    sol = solve(lp, time_limit=time_limit)
    if sol.status not in (Status.OPTIMAL, Status.TIME_LIMIT) or sol.x.size == 0:
        raise SolverError(f"exact moldable MIP: {sol.status.value}", sol.status)
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


def makespan(instance: Mapping[str, Any], time_limit: float = 10.0) -> ExactResult:
    """The exact MIP for the problem ``instance`` describes (its keys choose it):

    * ``{"times": [...], "machines": m}`` — P||Cmax (:func:`makespan_identical`);
    * ``{"cpu_times", "gpu_times", "cpus", "gpus"}`` — CPU+GPU (:func:`makespan_hybrid`);
    * ``{"jobs": [[time, size], ...], "processors": m}`` (+ ``cluster_size``, ``local``) —
      contiguous rigid jobs (:func:`makespan_rigid`);
    * ``{"times": [[T(1), ..., T(m)], ...], "processors": m}`` — moldable jobs
      (:func:`makespan_moldable`).
    """
    from lpsched.errors import InvalidInstanceError

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
