"""One result type for every LP back-end (DESIGN.md, "Solution")."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np

from lpsched.errors import SolverError


class Status(str, enum.Enum):
    """The outcome of a solve; only ``OPTIMAL`` carries a trustworthy point and value."""

    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    TIME_LIMIT = "time_limit"
    ERROR = "error"


@dataclass
class Solution:
    """What a solver returned for a :class:`~lpsched.models.program.LinearProgram`.

    ``values``, ``duals`` (rows) and ``reduced_costs`` (columns) map block names to arrays
    (variable blocks keep their shape, constraint blocks are 1-D); duals follow HiGHS' sign
    convention: the change of the objective per unit increase of the active bound. ``x`` is
    the full primal vector. ``residual`` is the largest violation of a row or column bound at
    ``x``, recomputed here from the model (not reported by the solver). ``iterations``
    counts simplex (or IPM) iterations. For a MIP, ``mip_bound`` is the proven bound and
    ``mip_gap`` the relative gap; a time-limited MIP keeps its best solution in ``x`` with
    status ``TIME_LIMIT`` (never ``OPTIMAL``).
    """

    status: Status
    objective: float = float("nan")
    x: np.ndarray = field(default_factory=lambda: np.zeros(0))
    values: dict[str, np.ndarray] = field(default_factory=dict)
    duals: dict[str, np.ndarray] = field(default_factory=dict)
    reduced_costs: dict[str, np.ndarray] = field(default_factory=dict)
    iterations: int = 0
    solve_seconds: float = 0.0
    build_seconds: float = 0.0
    residual: float = float("nan")
    mip_gap: float = float("nan")
    mip_bound: float = float("nan")
    solver: str = ""
    message: str = ""

    @property
    def optimal(self) -> bool:
        """Whether the solver proved ``x`` optimal (status ``OPTIMAL``)."""
        return self.status is Status.OPTIMAL

    def require_optimal(self, what: str = "LP") -> Solution:
        """Return self if optimal, else raise :class:`SolverError` saying what happened.

        Parameters
        ----------
        what : str
            What was solved, the start of the error message (default ``"LP"``).

        Returns
        -------
        Solution
            This solution, unchanged, when its status is ``OPTIMAL``.

        Raises
        ------
        SolverError
            Any other status; the message names ``what``, the solver, the status and the
            solver's message, and the error carries the status.
        """
        if self.status is not Status.OPTIMAL:
            raise SolverError(
                f"{what}: {self.solver} returned status {self.status.value}"
                + (f" ({self.message})" if self.message else ""),
                status=self.status,
            )
        return self
