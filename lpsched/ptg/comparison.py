"""Every algorithm's metrics on one problem against its lower bounds, one row per algorithm:
the rows of the table ``lpsched ptg schedule --algorithm all`` prints.

:func:`compare_algorithms` computes the lower bounds of the problem once
(:func:`lpsched.ptg.bounds.lower_bounds`), then runs each algorithm with BACKFILL and the
independent validator (:func:`lpsched.ptg.registry.run`) and checks that no bound exceeds
what a schedule achieves. The result's :attr:`rows <AlgorithmComparison.rows>` are the
table's lines and :meth:`AlgorithmComparison.to_frame` gives them as a DataFrame, so the
two cannot differ; its :attr:`results <AlgorithmComparison.results>` keep each schedule
(the JSON rows and the Gantt chart of the command).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lpsched.errors import InvalidInstanceError, InvalidScheduleError
from lpsched.ptg.bounds import Bounds, lower_bounds
from lpsched.ptg.problem import Problem
from lpsched.ptg.registry import ALGORITHMS, RunResult, run

__all__ = ["TABLE_COLUMNS", "AlgorithmComparison", "check_bounds", "compare_algorithms",
           "comparison_row"]

#: The row fields ``lpsched ptg schedule --table`` prints, in its column order (headed
#: ``algorithm``, ``Cmax (s)``, ``Cmax/LB``, ``SSCT``, ``SSCT/LB``, ``MaxS``, ``util %``,
#: ``time (s)`` and ``shared (s)``; the utilisation in percent).
TABLE_COLUMNS = ("algorithm", "makespan", "makespan_ratio", "scaled_sum_completion",
                 "ssct_ratio", "max_stretch", "utilisation", "seconds", "shared_seconds")


def comparison_row(res: RunResult, bounds: Bounds) -> dict[str, Any]:
    """One algorithm's row: its run's metrics and each one against its lower bound.

    Parameters
    ----------
    res : RunResult
        The algorithm's backfilled, validated run.
    bounds : Bounds
        The problem's lower bounds.

    Returns
    -------
    dict
        :meth:`RunResult.row <lpsched.ptg.registry.RunResult.row>`'s fields (``algorithm``,
        ``valid``, ``makespan`` (s), ``scaled_sum_completion``, ``max_stretch``,
        ``utilisation``, ``seconds``, ``shared_seconds``), then ``makespan_bound`` (s) and
        ``makespan_ratio`` (the makespan over it), ``ssct_bound`` and ``ssct_ratio``.
    """
    row = res.row()
    row.update({"makespan_bound": bounds.makespan,
                "makespan_ratio": res.metrics.makespan / bounds.makespan,
                "ssct_bound": bounds.ssct,
                "ssct_ratio": res.metrics.scaled_sum_completion / bounds.ssct})
    return row


@dataclass(frozen=True)
class AlgorithmComparison:
    """The algorithms run on one problem (:func:`compare_algorithms`).

    Attributes
    ----------
    results : list of RunResult
        One run per algorithm, in the order asked: schedules, metrics and timings.
    bounds : Bounds
        The problem's lower bounds (makespan, scaled sum completion time).
    bound_seconds : float
        The time the lower bounds took (s).
    """

    results: list[RunResult]
    bounds: Bounds
    bound_seconds: float

    @property
    def rows(self) -> list[dict[str, Any]]:
        """One row per algorithm (:func:`comparison_row`), in the order asked."""
        return [comparison_row(r, self.bounds) for r in self.results]

    def to_frame(self) -> Any:
        """The rows as a pandas DataFrame, one row per algorithm (``pip install
        'lpsched[pandas]'`` when pandas is missing).

        Returns
        -------
        pandas.DataFrame
            The columns of :func:`comparison_row`: ``algorithm`` (str), ``valid`` (bool),
            ``makespan`` (s), ``scaled_sum_completion`` (1), ``max_stretch`` (1),
            ``utilisation`` (busy area over ``P·Cmax``, 0 to 1), ``seconds`` and
            ``shared_seconds`` (s), ``makespan_bound`` (s), ``makespan_ratio``,
            ``ssct_bound`` and ``ssct_ratio`` (1). The columns of :data:`TABLE_COLUMNS`
            are ``lpsched ptg schedule --table``'s, with the same values.

        Examples
        --------
        >>> from lpsched.ptg.generators import fft_ptg
        >>> from lpsched.ptg.model import get_cluster
        >>> pb = Problem([fft_ptg(4, seed=1), fft_ptg(4, seed=2)], get_cluster("chti"))
        >>> frame = compare_algorithms(pb, ["selfish", "cafm-k-shelves"]).to_frame()
        >>> frame[["algorithm", "makespan", "max_stretch"]].round(3)
                algorithm  makespan  max_stretch
        0         selfish   271.837        1.747
        1  cafm-k-shelves   169.027        0.986
        >>> bool((frame["makespan_ratio"] >= 1).all())
        True
        """
        from lpsched.core.frames import pandas

        pd = pandas("AlgorithmComparison.to_frame()")
        rows = self.rows
        return pd.DataFrame.from_records(rows, columns=list(rows[0]))


def check_bounds(res: RunResult, bounds: Bounds) -> None:
    """Refuse a run that a lower bound exceeds (a bug of the bounds or of the schedule).

    Parameters
    ----------
    res : RunResult
        A validated run.
    bounds : Bounds
        The lower bounds of its problem.

    Raises
    ------
    InvalidScheduleError
        The makespan or the scaled sum completion time bound exceeds the run's value by
        more than a relative 1e-9.
    """
    m = res.metrics
    if (bounds.makespan > m.makespan * (1 + 1e-9)
            or bounds.ssct > m.scaled_sum_completion * (1 + 1e-9)):
        raise InvalidScheduleError("lower-bound", f"{res.algorithm}: a lower bound exceeds "
                                   "the achieved value (a bug: please report it)")


def compare_algorithms(pb: Problem, algorithms: str | Sequence[str] = "all",
                       lp: bool = True) -> AlgorithmComparison:
    """Run every algorithm of ``algorithms`` on ``pb`` after its lower bounds: the rows of
    ``lpsched ptg schedule``.

    Parameters
    ----------
    pb : Problem
        The PTGs, their cluster and the improved-HCPA variant.
    algorithms : str or sequence of str
        ``"all"`` (the 19 of :data:`lpsched.ptg.registry.ALGORITHMS`, in seed 004 §4.0's
        order), one name, or a list of names.
    lp : bool
        Also solve the LP lower bounds (``False``: the classical ones only, as
        ``--no-lp``).

    Returns
    -------
    AlgorithmComparison
        The runs, each validated before and after BACKFILL and checked against the bounds.

    Raises
    ------
    InvalidInstanceError
        An unknown algorithm name, or none.
    InvalidScheduleError
        A schedule breaks a rule of the platform or a bound exceeds it (a bug).
    """
    if isinstance(algorithms, str):
        names = list(ALGORITHMS) if algorithms == "all" else [algorithms]
    else:
        names = list(algorithms)
    if not names:
        raise InvalidInstanceError("algorithms", [], "give at least one algorithm")
    t0 = time.perf_counter()
    bounds = lower_bounds(pb, lp=lp)
    bound_seconds = time.perf_counter() - t0
    results = [run(pb, name) for name in names]
    for r in results:
        check_bounds(r, bounds)
    return AlgorithmComparison(results, bounds, bound_seconds)
