"""Exact references: MIPs solved by HiGHS for small instances (issue #4).

Every function returns :class:`ExactResult`: the best makespan found, the proven lower
bound, and ``optimal`` only when HiGHS proved it within the time limit (status ``TIME_LIMIT``
keeps the incumbent and the bound — never reported as optimal).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lpsched.algorithms.certified import check_count, check_times
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
    from lpsched.algorithms.packing import _jobs

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
