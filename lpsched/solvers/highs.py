"""HiGHS back-end through ``highspy``: the whole model in one ``passModel`` call.

:class:`HighsModel` keeps the ``Highs`` object alive so that later solves of the same
structure (new row or column bounds, a new objective) warm-start from the last basis —
the lever the max-stretch searches use. Nothing HiGHS prints reaches stdout or stderr
unless a solver log was asked for (:mod:`lpsched.solvers.console`, decision 59).
"""

from __future__ import annotations

import math
import numbers
import time
from typing import Any

import highspy
import numpy as np

from lpsched.core import tolerances
from lpsched.errors import LpschedError, SolverError
from lpsched.models.program import LinearProgram
from lpsched.solvers import console
from lpsched.solvers.solution import Solution, Status

_STATUS = {
    highspy.HighsModelStatus.kOptimal: Status.OPTIMAL,
    highspy.HighsModelStatus.kInfeasible: Status.INFEASIBLE,
    highspy.HighsModelStatus.kUnbounded: Status.UNBOUNDED,
    highspy.HighsModelStatus.kUnboundedOrInfeasible: Status.UNBOUNDED,
    highspy.HighsModelStatus.kTimeLimit: Status.TIME_LIMIT,
    highspy.HighsModelStatus.kIterationLimit: Status.TIME_LIMIT,
    highspy.HighsModelStatus.kInterrupt: Status.TIME_LIMIT,
    highspy.HighsModelStatus.kSolutionLimit: Status.TIME_LIMIT,
}



def set_time_limit(highs: Any, seconds: float | None) -> None:
    """Let the next ``run`` of ``highs`` take at most ``seconds`` more.

    ``None`` or ``inf``: no limit; 0, a negative number or NaN raise :class:`LpschedError`
    (0 is not "no limit"). HiGHS compares its ``time_limit`` option with the run time
    accumulated over every ``run`` of the same object, so a warm model's limit is its run
    time so far plus the budget left.

    Parameters
    ----------
    highs : highspy.Highs
        The live HiGHS object.
    seconds : float or None
        The budget of the next run (s, > 0); ``None`` or ``inf``: no limit.

    Raises
    ------
    LpschedError
        0, a negative number, NaN or a non-number.

    Notes
    -----
    Decision 238. Setting the budget alone as HiGHS' limit, a 3 s search budget tripped
    after 1.8 s of a warm model's solves.
    """
    if seconds is None or seconds == math.inf:
        limit = highspy.kHighsInf
    elif isinstance(seconds, numbers.Real) and not isinstance(seconds, bool) and seconds > 0:
        limit = float(highs.getRunTime()) + float(seconds)
    else:  # 0, negative, NaN: refused, never read as "no limit" (decision 238)
        raise LpschedError(f"time limit {seconds!r}: must be a number of seconds > 0 "
                           "(None: no limit)")
    highs.setOptionValue("time_limit", limit)


def model_status(highs: Any) -> Status:
    """Return the :class:`Status` of a ``highspy.Highs`` object's last solve.

    ``ERROR`` for a status lpsched does not name. For code that drives a live HiGHS model
    itself (the column generation of the bags family's path formulation).

    Parameters
    ----------
    highs : highspy.Highs
        The live HiGHS object, after a ``run``.

    Returns
    -------
    Status
        ``OPTIMAL``, ``INFEASIBLE``, ``TIME_LIMIT``, ... or ``ERROR``.
    """
    return _STATUS.get(highs.getModelStatus(), Status.ERROR)


_BASIS_STATUS = {int(v): v for v in (
    highspy.HighsBasisStatus.kLower, highspy.HighsBasisStatus.kBasic,
    highspy.HighsBasisStatus.kUpper, highspy.HighsBasisStatus.kZero,
    highspy.HighsBasisStatus.kNonbasic)}

DEFAULT_OPTIONS: dict[str, Any] = {
    "output_flag": False,
    "primal_feasibility_tolerance": tolerances.LP_FEASIBILITY,
    "dual_feasibility_tolerance": tolerances.LP_OPTIMALITY,
    "threads": 1,
    "random_seed": 0,
}


def _pass_model(highs: highspy.Highs, lp: LinearProgram) -> None:
    """Load ``lp`` with one ``passModel`` call on numpy arrays (no per-element conversion)."""
    def as_f64(a: np.ndarray) -> np.ndarray:  # highspy's kHighsInf is IEEE inf
        return np.ascontiguousarray(a, dtype=np.float64)

    a = lp.csc
    sense = highspy.ObjSense.kMaximize if lp.sense == "max" else highspy.ObjSense.kMinimize
    status = highs.passModel(
        int(lp.num_cols), int(lp.num_rows), int(a.nnz),
        int(highspy.MatrixFormat.kColwise), int(sense), float(lp.objective_offset),
        as_f64(lp.cost), as_f64(lp.col_lower), as_f64(lp.col_upper),
        as_f64(lp.row_lower), as_f64(lp.row_upper),
        np.ascontiguousarray(a.indptr, dtype=np.int32),
        np.ascontiguousarray(a.indices, dtype=np.int32),
        np.ascontiguousarray(a.data, dtype=np.float64),
        lp.integrality.astype(np.int32),  # kContinuous = 0, kInteger = 1
    )
    if status != highspy.HighsStatus.kOk:
        raise SolverError(f"HiGHS rejected the model {lp.name!r} ({status})")


class HighsModel:
    """A :class:`LinearProgram` loaded into a live ``highspy.Highs`` object.

    The object is kept, so that a change of bounds or costs followed by :meth:`solve` starts
    from the last basis (a warm start). HiGHS runs with :data:`DEFAULT_OPTIONS` (one thread,
    seed 0, the tolerances of :mod:`lpsched.core.tolerances`, output off) and ``options``.

    Parameters
    ----------
    lp : LinearProgram
        The model, loaded with one ``passModel`` call.
    **options
        HiGHS options set before loading (e.g. ``presolve="off"``), over the defaults.

    Examples
    --------
    >>> from lpsched.models.program import LinearProgram
    >>> lp = LinearProgram(sense="max")
    >>> x = lp.add_variables("x", 2, upper=1.0)
    >>> lp.set_objective(x, 1.0)
    >>> HighsModel(lp).solve().objective
    2.0
    """

    def __init__(self, lp: LinearProgram, **options: Any) -> None:
        t0 = time.perf_counter()
        self.lp = lp
        self.highs = console.construct(highspy.Highs)
        self.logging = console.logging_enabled()
        log_options = {"output_flag": True, "log_to_console": True} if self.logging else {}

        def load() -> None:
            for key, value in {**DEFAULT_OPTIONS, **log_options, **options}.items():
                self.highs.setOptionValue(key, value)
            _pass_model(self.highs, lp)

        if self.logging:
            console.quietly(load)
        else:
            load()
        self.build_seconds = time.perf_counter() - t0
        self.solves = 0

    def set_option(self, key: str, value: Any) -> None:
        """Set the HiGHS option ``key`` to ``value`` on the live model (kept for later solves).

        Parameters
        ----------
        key : str
            A HiGHS option name (e.g. ``"presolve"``).
        value : object
            Its value, of the type HiGHS expects.
        """
        self.highs.setOptionValue(key, value)

    def basis(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the current basis as HiGHS status codes.

        Returns
        -------
        tuple of numpy.ndarray
            ``(col_status, row_status)``, ``int8`` codes of ``highspy.HighsBasisStatus``:
            0 at lower bound, 1 basic, 2 at upper bound, 3 zero (free), 4 nonbasic.

        Examples
        --------
        >>> from lpsched.models.program import LinearProgram
        >>> lp = LinearProgram(sense="max")
        >>> x = lp.add_variables("x", 2, upper=1.0)
        >>> _ = lp.add_constraints("sum", [0, 0], x, [1.0, 1.0], upper=1.5, num_rows=1)
        >>> lp.set_objective(x, [1.0, 2.0])
        >>> model = HighsModel(lp)
        >>> model.solve().objective
        2.5
        >>> cols, rows = model.basis()
        >>> int((cols == 1).sum() + (rows == 1).sum())  # one basic variable per row
        1
        """
        b = self.highs.getBasis()
        return (np.array([int(v) for v in b.col_status], dtype=np.int8),
                np.array([int(v) for v in b.row_status], dtype=np.int8))

    def set_basis(self, col_status: np.ndarray, row_status: np.ndarray) -> None:
        """Start the next :meth:`solve` from this basis.

        Passed as an *alien* basis: HiGHS checks it and, if it is singular or has the wrong
        number of basic variables, completes it with slacks before factorising.

        Parameters
        ----------
        col_status, row_status : numpy.ndarray
            Status codes as returned by :meth:`basis`, one per column and per row.

        Raises
        ------
        SolverError
            When the lengths do not match the model, or HiGHS rejects the basis.

        Examples
        --------
        >>> from lpsched.models.program import LinearProgram
        >>> lp = LinearProgram(sense="max")
        >>> x = lp.add_variables("x", 2, upper=1.0)
        >>> _ = lp.add_constraints("sum", [0, 0], x, [1.0, 1.0], upper=1.5, num_rows=1)
        >>> lp.set_objective(x, [1.0, 2.0])
        >>> first = HighsModel(lp)
        >>> _ = first.solve()
        >>> second = HighsModel(lp)
        >>> second.set_basis(*first.basis())
        >>> sol = second.solve()
        >>> sol.objective, sol.iterations
        (2.5, 0)
        """
        if len(col_status) != self.lp.num_cols or len(row_status) != self.lp.num_rows:
            raise SolverError(f"basis of {len(col_status)} columns and {len(row_status)} rows "
                              f"for a model of {self.lp.num_cols} and {self.lp.num_rows}")
        b = highspy.HighsBasis()
        b.col_status = [_BASIS_STATUS[v] for v in np.asarray(col_status).tolist()]
        b.row_status = [_BASIS_STATUS[v] for v in np.asarray(row_status).tolist()]
        b.valid = True
        b.alien = True
        if self.highs.setBasis(b) == highspy.HighsStatus.kError:
            raise SolverError(f"HiGHS rejected the start basis of model {self.lp.name!r}")

    def restart(self) -> None:
        """Forget the basis and solution, so that the next :meth:`solve` starts cold.

        The model, bounds and costs stay, as on a freshly loaded model.
        """
        self.highs.clearSolver()

    @staticmethod
    def _bounds(index: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                ) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        idx = np.asarray(index, dtype=np.int32).ravel()
        lo = np.broadcast_to(np.asarray(lower, np.float64), idx.shape)
        hi = np.broadcast_to(np.asarray(upper, np.float64), idx.shape)
        return idx.size, idx, np.ascontiguousarray(lo), np.ascontiguousarray(hi)

    def set_row_bounds(self, rows: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> None:
        """Change the bounds of ``rows`` in the solver and in the model, keeping the basis.

        Parameters
        ----------
        rows : numpy.ndarray
            Global row indices.
        lower : numpy.ndarray
            Their new lower bounds.
        upper : numpy.ndarray
            Their new upper bounds.
        """
        self.lp.set_row_bounds(rows, lower, upper)
        # highspy's stubs omit changeRowsBounds (the binding has it since 1.7)
        self.highs.changeRowsBounds(*self._bounds(rows, lower, upper))  # type: ignore[attr-defined]

    def set_col_bounds(self, cols: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> None:
        """Change the bounds of ``cols`` in the solver and in the model, keeping the basis.

        Parameters
        ----------
        cols : numpy.ndarray
            Global column indices.
        lower : numpy.ndarray
            Their new lower bounds.
        upper : numpy.ndarray
            Their new upper bounds.
        """
        self.lp.set_col_bounds(cols, lower, upper)
        self.highs.changeColsBounds(*self._bounds(cols, lower, upper))

    def set_costs(self, cost: np.ndarray, sense: str | None = None) -> None:
        """Replace the whole objective vector (and optionally the sense), here and in the model.

        Parameters
        ----------
        cost : numpy.ndarray
            One cost per column, shape ``(num_cols,)`` (the offset is kept).
        sense : str or None
            ``"min"`` or ``"max"``; ``None`` (default): unchanged.
        """
        cols = np.arange(self.lp.num_cols, dtype=np.int32)
        cost = np.asarray(cost, float)
        self.lp.set_objective(np.flatnonzero(cost), cost[cost != 0], self.lp.objective_offset)
        if sense is not None:
            self.lp.sense = sense
        self.highs.changeColsCost(cols.size, cols, np.asarray(cost, float))
        if sense is not None:
            self.highs.changeObjectiveSense(highspy.ObjSense.kMaximize if sense == "max"
                                            else highspy.ObjSense.kMinimize)

    def solve(self, time_limit: float | None = None) -> Solution:
        """Run HiGHS and return a :class:`Solution`; never raises on a bad status.

        Parameters
        ----------
        time_limit : float or None
            Seconds this solve may take (> 0); ``None`` (default) or ``inf``: no limit.

        Returns
        -------
        Solution
            Solver ``"highs"``: status, timings and iterations; when optimal the primal values,
            objective, worst residual and (when HiGHS has them) duals and reduced costs; for a
            MIP the gap and dual bound, and the best solution found at a time limit.

        Raises
        ------
        LpschedError
            A bad ``time_limit``.
        """
        h = self.highs
        set_time_limit(h, time_limit)
        t0 = time.perf_counter()
        if self.logging:
            console.quietly(h.run)  # the log goes to the user's file or stderr
        else:
            h.run()
        seconds = time.perf_counter() - t0
        self.solves += 1
        model_status = h.getModelStatus()
        status = _STATUS.get(model_status, Status.ERROR)
        info = h.getInfo()
        iterations = int(info.simplex_iteration_count) + int(info.ipm_iteration_count)
        sol = Solution(status=status, iterations=iterations, solve_seconds=seconds,
                       build_seconds=self.build_seconds, solver="highs",
                       message=h.modelStatusToString(model_status))
        if self.lp.is_mip:
            sol.mip_gap = float(info.mip_gap)
            sol.mip_bound = float(info.mip_dual_bound)
            if status is Status.TIME_LIMIT and int(info.primal_solution_status) == 2:
                sol.x = np.asarray(h.getSolution().col_value, dtype=float)  # best found
                sol.objective = float(info.objective_function_value)
                sol.values = self.lp.split_columns(sol.x)
        if status is Status.OPTIMAL:
            raw = h.getSolution()
            x = np.asarray(raw.col_value, dtype=float)
            sol.x = x
            sol.objective = float(info.objective_function_value)
            sol.values = self.lp.split_columns(x)
            if raw.dual_valid:
                sol.duals = self.lp.split_rows(np.asarray(raw.row_dual, dtype=float))
                sol.reduced_costs = self.lp.split_columns(np.asarray(raw.col_dual, dtype=float))
            res = self.lp.residuals(x)
            sol.residual = max(res.values())
        self.build_seconds = 0.0
        return sol


def solve_highs(lp: LinearProgram, time_limit: float | None = None, **options: Any) -> Solution:
    """Solve ``lp`` once with HiGHS.

    Parameters
    ----------
    lp : LinearProgram
        The model to solve.
    time_limit : float or None
        Seconds this solve may take (> 0); ``None`` (default) or ``inf``: no limit.
    **options
        HiGHS options (name=value), added to lpsched's defaults.

    Returns
    -------
    Solution
        Solver ``"highs"``: status, timings and iterations; when optimal the primal values,
        objective, worst residual and (when HiGHS has them) duals and reduced costs; for a
        MIP the gap and dual bound, and the best solution found at a time limit.
    """
    return HighsModel(lp, **options).solve(time_limit)


#: the last non-blank word of a complete model file, by extension
MODEL_TRAILERS = {".lp": b"end", ".mps": b"ENDATA"}


def write_model(lp: LinearProgram, path: str) -> None:
    """Write ``lp`` to the file ``path``, in LP or MPS format after its extension.

    HiGHS' writer reports a failed ``open`` (its status, checked here) but not a short
    write: on a full disk (``ENOSPC``) or past a file size limit (``EFBIG``) it returns
    success with the file cut anywhere. The file is therefore checked once written: not
    empty, and ending with the ``end`` (LP) or ``ENDATA`` (MPS) line HiGHS writes last.

    Parameters
    ----------
    lp : LinearProgram
        The model, its rows and columns named by ``row_names()`` and ``column_names()``.
    path : str
        The file, ending ``.lp`` or ``.mps``; its folder must exist.

    Raises
    ------
    SolverError
        HiGHS reported an error, or the file is incomplete (its name and size in the
        message); the incomplete file is left for the caller (the CLI writes a temporary
        file and removes it).
    """
    import os

    folder = os.path.dirname(str(path)) or "."
    if not os.path.isdir(folder):  # older HiGHS crash (SIGSEGV) on a file they cannot open
        raise SolverError(f"HiGHS could not write the model to {path}: the folder {folder} "
                          "does not exist")
    model = HighsModel(lp)
    for name_fn, pass_fn, count in (
        (lp.column_names, model.highs.passColName, lp.num_cols),
        (lp.row_names, model.highs.passRowName, lp.num_rows),
    ):
        names = name_fn()
        for i in range(count):
            pass_fn(i, names[i])
    status = console.quietly(lambda: model.highs.writeModel(str(path)))
    if status == highspy.HighsStatus.kError:
        raise SolverError(f"HiGHS could not write the model to {path}")
    _check_model_file(str(path))


def _check_model_file(path: str) -> None:
    import os

    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise SolverError(f"HiGHS left no model file at {path} ({exc.strerror})") from None
    if not os.path.isfile(path):
        return  # /dev/null, a FIFO: nothing to read back
    trailer = next((t for suffix, t in MODEL_TRAILERS.items()
                    if path.lower().endswith(suffix)), None)
    with open(path, "rb") as fh:
        fh.seek(max(0, size - 256))
        tail = fh.read().rstrip()
    if size == 0 or (trailer is not None and not tail.endswith(trailer)):
        raise SolverError(f"the model file {path} is incomplete ({size} bytes, no final "
                          f"{trailer.decode() if trailer else 'byte'}): disk full or file "
                          "size limit?")
