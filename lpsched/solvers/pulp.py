"""The PuLP emitter and back-end: a model as a ``pulp.LpProblem``, solved by CBC.

The ``pulp.LpProblem`` can be read, changed and exported; CBC's answer cross-checks
HiGHS'.
"""

from __future__ import annotations

import time

import numpy as np
import pulp

from lpsched.models.program import LinearProgram
from lpsched.solvers.solution import Solution, Status

_STATUS = {
    pulp.LpStatusOptimal: Status.OPTIMAL,
    pulp.LpStatusInfeasible: Status.INFEASIBLE,
    pulp.LpStatusUnbounded: Status.UNBOUNDED,
    pulp.LpStatusNotSolved: Status.TIME_LIMIT,
    pulp.LpStatusUndefined: Status.ERROR,
}


def _cbc(msg: bool, time_limit: float | None) -> pulp.LpSolver:
    """CBC: a ``cbc`` on the PATH (PuLP 4 style) or the binary bundled with PuLP 3."""
    coin = pulp.COIN_CMD(msg=msg, timeLimit=time_limit)
    if coin.available():
        return coin
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return pulp.PULP_CBC_CMD(msg=msg, timeLimit=time_limit)


def to_pulp(lp: LinearProgram) -> tuple[pulp.LpProblem, list[pulp.LpVariable]]:
    """Emit ``lp`` as a ``pulp.LpProblem``; returns the problem and its columns in order.

    Ranged rows (finite lower and upper, not equal) become two PuLP constraints named
    ``<row>_lo`` and ``<row>_hi``.

    Parameters
    ----------
    lp : LinearProgram
        The model to emit (its objective offset is kept as a constant term).

    Returns
    -------
    problem : pulp.LpProblem
        The model, one PuLP constraint per row (two for a ranged row).
    columns : list of pulp.LpVariable
        The PuLP variables in the order of ``lp``'s columns, named by
        ``lp.column_names()``, with the column bounds.
    """
    sense = pulp.LpMaximize if lp.sense == "max" else pulp.LpMinimize
    prob = pulp.LpProblem(lp.name, sense)
    lo, hi = lp.col_lower, lp.col_upper
    names = lp.column_names()
    new_var = getattr(prob, "add_variable", None) or pulp.LpVariable  # PuLP >= 3.3 / older
    cols = [
        new_var(names[i], None if np.isinf(lo[i]) else float(lo[i]),
                None if np.isinf(hi[i]) else float(hi[i]))
        for i in range(lp.num_cols)
    ]
    cost = lp.cost
    nz = np.flatnonzero(cost)
    prob += pulp.LpAffineExpression([(cols[i], float(cost[i])) for i in nz]) + lp.objective_offset
    a = lp.matrix.tocsr()
    rlo, rhi = lp.row_lower, lp.row_upper
    for r, name in enumerate(lp.row_names()):
        s, e = a.indptr[r], a.indptr[r + 1]
        expr = pulp.LpAffineExpression(
            [(cols[j], float(v)) for j, v in zip(a.indices[s:e], a.data[s:e], strict=True)]
        )
        if rlo[r] == rhi[r]:
            prob += (expr == float(rlo[r])), name
            continue
        ranged = np.isfinite(rlo[r]) and np.isfinite(rhi[r])
        if np.isfinite(rlo[r]):
            prob += (expr >= float(rlo[r])), f"{name}_lo" if ranged else name
        if np.isfinite(rhi[r]):
            prob += (expr <= float(rhi[r])), f"{name}_hi" if ranged else name
    return prob, cols


def solve_pulp(lp: LinearProgram, time_limit: float | None = None, msg: bool = False) -> Solution:
    """Solve ``lp`` with CBC through PuLP (slow; for cross-checks on small models).

    Parameters
    ----------
    lp : LinearProgram
        The model to solve.
    time_limit : float or None
        CBC's time limit in seconds; ``None`` (default): no limit.
    msg : bool
        Let CBC print its log (default ``False``).

    Returns
    -------
    Solution
        Solver ``"pulp-cbc"``, its status and timings; primal values, objective and worst
        residual only when optimal (no duals).
    """
    t0 = time.perf_counter()
    prob, cols = to_pulp(lp)
    built = time.perf_counter() - t0
    solver = _cbc(msg, time_limit)
    t1 = time.perf_counter()
    code = prob.solve(solver)
    seconds = time.perf_counter() - t1
    status = _STATUS.get(code, Status.ERROR)
    sol = Solution(status=status, solve_seconds=seconds, build_seconds=built, solver="pulp-cbc",
                   message=pulp.LpStatus.get(code, str(code)))
    if status is Status.OPTIMAL:
        x = np.array([v.value() or 0.0 for v in cols], dtype=float)
        sol.x = x
        sol.objective = float(pulp.value(prob.objective) or 0.0)
        sol.values = lp.split_columns(x)
        sol.residual = max(lp.residuals(x).values())
    return sol
