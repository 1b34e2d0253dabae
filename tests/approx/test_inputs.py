"""Input checks of the approximation family (issue 10): what the numbers must be, each
failure naming the field and index, and no crash or silent wrong answer at the edges."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from lpsched.approx.certified import (
    MAX_MACHINES,
    TIME_MAX,
    TIME_MIN,
    check_time,
    check_time_table,
    check_times,
)
from lpsched.approx.dual import hybrid_schedule, hybrid_step_32
from lpsched.approx.listsched import list_scheduling, lpt
from lpsched.approx.moldable import kshelf, mrt
from lpsched.errors import InvalidInstanceError, SolverError


@pytest.mark.parametrize(("values", "field", "words"), [
    ([1, True, 3], r"t\[1\] = True", "not a boolean"),
    ([1.5, False], r"t\[1\] = False", "not a boolean"),
    ([1, "2"], r"t\[1\] = '2'", "not a string"),
    ([1, None], r"t\[1\] = None", "not null"),
    ([[1], 2], r"t\[0\] = \[1\]", "not a list"),
    ([1, {"a": 1}], r"t\[1\]", "not an object"),
    ([1, float("nan")], r"t\[1\] = nan", "finite"),
    ([1, -float("inf")], r"t\[1\] = -inf", "finite"),
    ([1, -1], r"t\[1\] = -1.0", ">= 0"),
    ([1, 10 ** 400], r"t\[1\] = 1000", "float range"),
    ([1, 1e200], r"t\[1\] = 1e\+200", "at most"),
    ([1, 1e-200], r"t\[1\] = 1e-200", "at least"),
    (np.array([True, False]), r"t\[0\] = True", "not a boolean"),
    (np.array([1.0, np.inf]), r"t\[1\] = inf", "finite"),
])
def test_check_times_names_the_first_bad_entry(values, field, words):
    with pytest.raises(InvalidInstanceError, match=field) as err:
        check_times("t", values)
    assert words in str(err.value)


def test_valid_times_pass_unchanged():
    for values in ([0, 1, 2.5], (3, 4), np.array([1, 2]), np.array([0.5]),
                   [np.float32(1.5), np.int64(2)], [TIME_MIN, TIME_MAX, 0]):
        arr = check_times("t", values)
        assert arr.dtype == float and arr.tolist() == [float(v) for v in values]
    assert check_times("t", []).shape == (0,)  # the library accepts no tasks
    assert check_time("x", 2) == 2.0
    with pytest.raises(InvalidInstanceError, match="> 0"):
        check_time("x", 0, positive=True)


def test_booleans_and_strings_are_refused_by_every_algorithm():
    with pytest.raises(InvalidInstanceError, match=r"times\[1\]"):
        list_scheduling([2, True], 2)
    with pytest.raises(InvalidInstanceError, match=r"times\[0\]"):
        lpt(["3", 1], 2)
    with pytest.raises(InvalidInstanceError, match=r"cpu_times\[1\]"):
        hybrid_schedule([1, True, 3], [1, 2, 3], 1, 1)
    with pytest.raises(InvalidInstanceError, match=r"gpu_times\[2\]"):
        hybrid_schedule([1, 2, 3], [1, 2, "3"], 1, 1, variant="3/2")
    with pytest.raises(InvalidInstanceError, match=r"times\[1\]\[1\]"):
        mrt([[4, 2], [3, True]], 2)
    with pytest.raises(InvalidInstanceError, match=r"times\[0\]\[0\]"):
        kshelf([["4", 2]], 2)


def test_time_tables_name_ragged_rows_and_bad_cells():
    with pytest.raises(InvalidInstanceError, match=r"times\[1\] = \[3\]: needs one column"):
        mrt([[4, 2], [3]], 2)
    with pytest.raises(InvalidInstanceError, match=r"times\[1\] = 5"):
        mrt([[4, 2], 5], 2)
    with pytest.raises(InvalidInstanceError, match=r"times\[0\]\[1\] = 0.0: must be a finite "
                       r"number > 0"):
        check_time_table("times", [[1, 0]], 2)
    with pytest.raises(InvalidInstanceError, match=r"times\[0\]\[0\] = 1e\+300"):
        mrt([[1e300, 1e300]], 2)
    with pytest.raises(InvalidInstanceError, match=r"times\[1\]\[0\] = 1e-300"):
        kshelf(np.array([[2.0], [1e-300]]), 1)
    assert check_time_table("times", [], 3).shape == (0, 3)


def test_counts_are_whole_numbers_in_range():
    for bad in (0, -1, True, 2.0, "2", MAX_MACHINES + 1):
        with pytest.raises(InvalidInstanceError, match="whole number between 1 and"):
            hybrid_schedule([1], [1], bad, 1)
    assert hybrid_schedule([1], [1], MAX_MACHINES, 1).makespan == 1.0


def test_tasks_free_on_one_side_give_makespan_zero():
    """All-zero lower bound: a ZeroDivisionError before issue 10."""
    for variant in ("2", "3/2"):
        r = hybrid_schedule([0, 0, 5], [3, 0, 0], 1, 1, variant=variant)
        assert r.makespan == 0.0 and r.lower_bound == 0.0 and r.holds()
        assert r.extra["cpu_tasks"] == 2 and r.schedule.machine.tolist() == [0, 0, 1]
        empty = hybrid_schedule([], [], 1, 1, variant=variant)
        assert empty.makespan == 0.0 and empty.extra["cpu_tasks"] == 0


def test_extreme_but_valid_times_stay_exact_and_quiet():
    """Times at both ends of the range: no overflow, no warning, the guarantee holds."""
    p, q = [TIME_MAX, TIME_MIN, 0.0, 5.0], [TIME_MIN, TIME_MAX, 3.0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for variant in ("2", "3/2"):
            r = hybrid_schedule(p, q, 1, 2, variant=variant)
            assert r.holds() and np.isfinite([r.makespan, r.lower_bound]).all()
            assert r.makespan == pytest.approx(TIME_MIN, rel=0.7)
        table = [[TIME_MAX, TIME_MAX], [TIME_MIN, TIME_MIN], [3.0, 2.0]]
        m = mrt(table, 2)
        k = kshelf(table, 2)
        assert m.holds() and m.makespan == TIME_MAX and k.makespan == TIME_MAX


def test_a_dynamic_program_too_large_is_refused_before_allocating():
    with pytest.raises(SolverError, match="dynamic program would need"):
        hybrid_schedule(np.ones(1000), np.ones(1000), 1000, 1000, variant="3/2")
    with pytest.raises(SolverError, match="variant '2'"):
        hybrid_step_32(np.ones(2000), np.ones(2000), 4, 4, 10.0)
    with pytest.raises(InvalidInstanceError, match="dp_eps"):
        hybrid_step_32([1.0], [1.0], 1, 1, 1.0, eps=0.0)
