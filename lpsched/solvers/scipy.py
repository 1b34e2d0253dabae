"""SciPy back-end (``scipy.optimize.linprog``), a third opinion for cross-checks."""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from lpsched.models.program import LinearProgram
from lpsched.solvers.solution import Solution, Status

_STATUS = {0: Status.OPTIMAL, 1: Status.TIME_LIMIT, 2: Status.INFEASIBLE, 3: Status.UNBOUNDED}


def solve_scipy(lp: LinearProgram, time_limit: float | None = None) -> Solution:
    """Solve ``lp`` with ``linprog(method="highs")`` (ranged rows split into two).

    Parameters
    ----------
    lp : LinearProgram
        The model to solve (continuous; scipy's ``linprog`` ignores integrality).
    time_limit : float or None
        The solver's wall-clock limit in seconds; ``None`` (default) or 0: no limit.

    Returns
    -------
    Solution
        Solver ``"scipy-highs"``, its status, timings and iteration count; the primal values
        (``x``, ``values`` per block), objective and worst residual only when optimal.
    """
    t0 = time.perf_counter()
    a = lp.matrix.tocsr()
    lo, hi = lp.row_lower, lp.row_upper
    eq = lo == hi
    up = ~eq & np.isfinite(hi)
    dn = ~eq & np.isfinite(lo)
    a_ub = sp.vstack([a[up], -a[dn]]).tocsr()
    b_ub = np.concatenate([hi[up], -lo[dn]])
    sign = -1.0 if lp.sense == "max" else 1.0
    columns = np.column_stack([lp.col_lower, lp.col_upper])
    bounds = [(None if np.isinf(lb) else lb, None if np.isinf(ub) else ub) for lb, ub in columns]
    options = {"time_limit": time_limit} if time_limit else {}
    built = time.perf_counter() - t0
    t1 = time.perf_counter()
    res = linprog(sign * lp.cost, A_ub=a_ub if a_ub.shape[0] else None,
                  b_ub=b_ub if a_ub.shape[0] else None,
                  A_eq=a[eq] if eq.any() else None, b_eq=lo[eq] if eq.any() else None,
                  bounds=bounds, method="highs", options=options)
    status = _STATUS.get(res.status, Status.ERROR)
    sol = Solution(status=status, solve_seconds=time.perf_counter() - t1, build_seconds=built,
                   solver="scipy-highs", message=res.message, iterations=int(res.nit or 0))
    if status is Status.OPTIMAL:
        sol.x = np.asarray(res.x, float)
        sol.objective = sign * float(res.fun) + lp.objective_offset
        sol.values = lp.split_columns(sol.x)
        sol.residual = max(lp.residuals(sol.x).values())
    return sol
