"""LP back-ends: one :class:`Solution` type whatever solved the model.

``solve(lp, method="highs")`` picks the back-end by name, the way ``scipy.optimize`` does.
"""

from __future__ import annotations

from lpsched.errors import LpschedError
from lpsched.models.program import LinearProgram
from lpsched.solvers.highs import HighsModel, solve_highs, write_model
from lpsched.solvers.solution import Solution, Status

METHODS = ("highs", "pulp", "scipy")


def solve(lp: LinearProgram, method: str = "highs", time_limit: float | None = None) -> Solution:
    """Solve ``lp`` with the back-end ``method`` (``"highs"``, ``"pulp"`` (CBC), ``"scipy"``).

    Parameters
    ----------
    lp : LinearProgram
        The model to solve.
    method : str
        The back-end: ``"highs"`` (default, :func:`~lpsched.solvers.highs.solve_highs`),
        ``"pulp"`` (CBC through PuLP) or ``"scipy"`` (``linprog``).
    time_limit : float or None
        The solver's time limit in seconds; ``None`` (default): no limit.

    Returns
    -------
    Solution
        The back-end's answer; check its status (or call ``require_optimal``).

    Raises
    ------
    LpschedError
        An unknown ``method`` (or, with HiGHS, a bad ``time_limit``).
    """
    if method == "highs":
        return solve_highs(lp, time_limit)
    if method == "pulp":
        from lpsched.solvers.pulp import solve_pulp

        return solve_pulp(lp, time_limit)
    if method == "scipy":
        from lpsched.solvers.scipy import solve_scipy

        return solve_scipy(lp, time_limit)
    raise LpschedError(f"unknown LP method {method!r}; choose one of {METHODS}")


__all__ = ["METHODS", "HighsModel", "Solution", "Status", "solve", "solve_highs", "write_model"]
