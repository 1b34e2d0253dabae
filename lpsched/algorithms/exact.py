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
