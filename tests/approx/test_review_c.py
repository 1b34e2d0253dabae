"""Review C findings 1, 4, 8 and 10 (notes/review-C.md), through the Python API: MIP time
limits that meant "no limit", K-shelf refusing the tables ``repair=True`` accepts, MRT's
lower bound above its own makespan on repaired tables, the error naming ``repair=True``,
the interval of ``approx identical --exact``, and the check-ratios module doc."""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any

import numpy as np
import pytest

from lpsched.approx import exact, ratios
from lpsched.approx.certified import Certified, MachineSchedule
from lpsched.approx.listsched import list_scheduling, lpt
from lpsched.approx.moldable import (
    check_table,
    kshelf,
    mrt,
    simple_lower_bound,
    validate_moldable,
)
from lpsched.approx.packing import nfdh_ls
from lpsched.errors import InvalidInstanceError

# ---------------------------------------------------------------- finding 1: time limits


@pytest.mark.parametrize("limit", [0, 0.0, -1, -0.5, float("nan"), True, "1"])
def test_an_exact_mip_refuses_a_time_limit_that_means_no_limit(limit: Any) -> None:
    """0, a negative number or NaN used to run HiGHS without any limit."""
    with pytest.raises(InvalidInstanceError, match="time_limit"):
        exact.makespan_identical([3.0, 2.0, 2.0], 2, time_limit=limit)
    with pytest.raises(InvalidInstanceError, match="time_limit"):
        exact.makespan({"times": [[2.0, 1.5]], "processors": 2}, time_limit=limit)


@pytest.mark.parametrize("limit", [None, math.inf, 5, 0.5, np.float64(2.0)])
def test_an_exact_mip_takes_none_infinity_or_a_positive_limit(limit: Any) -> None:
    res = exact.makespan_identical([3.0, 2.0, 2.0], 2, time_limit=limit)
    assert res.optimal and res.makespan == 4.0


def _stopped(makespan: float, bound: float) -> exact.ExactResult:
    return exact.ExactResult(makespan, bound, False, np.zeros(3, int), "time_limit")


def test_the_known_interval_never_ends_above_the_heuristic() -> None:
    """A MIP stopped by its limit held 357.983 while LPT had 343.259: the interval's upper
    end is the better of the two schedules, its lower end the better of the two bounds."""
    from lpsched.cli.approx import _known_optimum

    res = lpt([5.0, 4.0, 3.0, 3.0, 3.0], 2)  # LPT 10, certified bound 9
    worse = _known_optimum(res, _stopped(11.0, 8.5))
    assert worse["upper_bound"] == res.makespan == 10.0
    assert worse["lower_bound"] == res.lower_bound == 9.0
    assert worse["makespan"] == 11.0 and worse["bound"] == 8.5  # the MIP's own values
    better = _known_optimum(res, _stopped(9.5, 9.2))
    assert better["upper_bound"] == 9.5 and better["lower_bound"] == 9.2


# ------------------------------------------------ finding 4: repaired (non-monotonic) tables


def _optimum_two_processors(table: np.ndarray) -> float:
    """Brute-force optimum of moldable jobs on 2 processors: the jobs on both processors
    run alone (one after another), the others are a P2||Cmax on their one-processor times."""
    n = table.shape[0]
    best = math.inf
    for wide in itertools.product((False, True), repeat=n):
        both = sum(table[j, 1] for j in range(n) if wide[j])
        ones = [table[j, 0] for j in range(n) if not wide[j]]
        split = min((max(sum(ones[i] for i in range(len(ones)) if side[i]),
                         sum(ones[i] for i in range(len(ones)) if not side[i]))
                     for side in itertools.product((False, True), repeat=len(ones))),
                    default=0.0)
        best = min(best, both + split)
    return best


def test_mrt_reports_a_valid_lower_bound_on_the_reviewers_table() -> None:
    """{"times": [[10, 1]]} with --repair: lower bound 5 for a makespan of 1."""
    with pytest.warns(UserWarning, match="work decreases"):
        r = mrt([[10.0, 1.0]], 2, repair=True)
    assert r.makespan == 1.0 and r.lower_bound == 1.0 and r.holds()
    assert r.extra["monotonic"] is False and math.isinf(r.guarantee)


def test_repaired_lower_bounds_never_exceed_the_optimum() -> None:
    """Random superlinear tables on 2 processors: every lower bound is <= the brute-force
    optimum <= the makespan (the old Σ T[j, 0]/m exceeded both)."""
    rng = np.random.default_rng(3)
    above_old = 0
    for _ in range(150):
        n = int(rng.integers(1, 6))
        t1 = rng.uniform(1, 20, n)
        table = np.c_[t1, t1 * rng.uniform(0.05, 1.0, n)]  # work may fall below T(1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            hat, _ = check_table(table, 2, repair=True)
            results = [mrt(table, 2, repair=True), kshelf(table, 2, repair=True),
                       kshelf(table, 2, repair=True, compact=False)]
        opt = _optimum_two_processors(hat)
        for r in results:
            validate_moldable(hat, r.schedule)
            assert r.lower_bound <= opt * (1 + 1e-12) <= r.makespan * (1 + 1e-9), r
            assert r.holds()
        above_old += simple_lower_bound(hat) > opt * (1 + 1e-9)
    assert above_old > 0  # the monotone formula is wrong on these tables


def test_kshelf_passes_repair_on_to_mrt() -> None:
    """kshelf(repair=True) used to call mrt() without it and raise the very error."""
    with pytest.warns(UserWarning, match="work decreases"):
        r = kshelf([[10.0, 1.0], [10.0, 1.0]], 2, repair=True)
    assert r.makespan == 2.0 and r.lower_bound == 2.0 and r.holds()
    with pytest.raises(InvalidInstanceError, match="non-decreasing"):
        kshelf([[10.0, 1.0], [10.0, 1.0]], 2)


def test_monotonic_tables_keep_their_bounds() -> None:
    """The monotone formula is unchanged (results on ordinary inputs stay the same)."""
    table = np.array([[4.0, 2.0, 1.5], [3.0, 1.6, 1.2], [2.0, 2.0, 2.0]])
    assert simple_lower_bound(table) == simple_lower_bound(table, monotonic=True) == 3.0
    assert simple_lower_bound(table, monotonic=False) == 3.0  # the same on this table
    r = mrt(table, 3)
    assert (r.makespan, round(r.lower_bound, 3)) == (4.5, 3.166)


def test_a_bound_above_the_makespan_is_not_certified() -> None:
    """Certified.holds() said True for lower_bound 5 > makespan 1 (guarantee inf)."""
    sched = MachineSchedule(np.zeros(1, int), np.zeros(1), np.ones(1))
    assert not Certified("x", sched, 1.0, 5.0, math.inf).holds()
    assert not Certified("x", sched, 1.0, 1.5, 2.0).holds()
    assert Certified("x", sched, 1.0, 1.0, math.inf).holds()
    assert Certified("x", sched, 1.0, 1.0 + 1e-12, 1.0).holds()  # round-off is tolerated


# ------------------------------------------------------------- finding 8: the wording


def test_the_monotony_errors_say_how_to_accept_the_table() -> None:
    with pytest.raises(InvalidInstanceError, match=r"pass repair=True") as err:
        check_table([[1.0, 2.0]], 2)
    assert "monotonic" in str(err.value)
    with pytest.raises(InvalidInstanceError, match=r"pass repair=True") as err:
        check_table([[4.0, 1.0]], 2)
    assert "non-decreasing" in str(err.value) and "3/2 guarantee" in str(err.value)


# ------------------------------------------------------ finding 10: check-ratios' module doc


def test_the_families_the_doc_calls_tight_are_tight() -> None:
    for m in range(2, 9):
        times, opt = ratios.graham_tight(m)
        assert list_scheduling(times, m).makespan / opt == pytest.approx(2 - 1 / m)
        times, opt = ratios.lpt_tight(m)
        assert lpt(times, m).makespan / opt == pytest.approx(4 / 3 - 1 / (3 * m))


def test_the_doc_describes_the_three_job_instance_as_it_is() -> None:
    """Ratio 2 to the lower bound (not 3), and its makespan is the local optimum."""
    doc = ratios.__doc__ or ""
    assert "adversarial CPU/GPU" not in doc and "no adversarial family" in doc
    jobs = np.array([[1.0, 2], [1.0, 2], [1.0, 2]])
    r = nfdh_ls(jobs, 2, 3)
    assert r.ratio == 2.0 and "twice its lower bound" in " ".join(doc.split())
    assert exact.makespan_rigid(jobs, 6, 3, local=True).makespan == r.makespan == 2.0
