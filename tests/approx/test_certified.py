"""``lpsched.approx.certified``: the certificate every algorithm returns and the checks of
the numbers it is computed from (each failure names the field and index)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lpsched.approx.certified import (
    MAX_MACHINES,
    TIME_MAX,
    TIME_MIN,
    Certified,
    MachineSchedule,
    check_time,
    check_times,
)
from lpsched.approx.dual import hybrid_schedule
from lpsched.errors import InvalidInstanceError


def test_a_bound_above_the_makespan_is_not_certified() -> None:
    """A lower bound above the makespan is no bound: not certified, even with an infinite
    guarantee (decision 241)."""
    sched = MachineSchedule(np.zeros(1, int), np.zeros(1), np.ones(1))
    assert not Certified("x", sched, 1.0, 5.0, math.inf).holds()
    assert not Certified("x", sched, 1.0, 1.5, 2.0).holds()
    assert Certified("x", sched, 1.0, 1.0, math.inf).holds()
    assert Certified("x", sched, 1.0, 1.0 + 1e-12, 1.0).holds()  # round-off is tolerated


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


def test_counts_are_whole_numbers_in_range():
    for bad in (0, -1, True, 2.0, "2", MAX_MACHINES + 1):
        with pytest.raises(InvalidInstanceError, match="whole number between 1 and"):
            hybrid_schedule([1], [1], bad, 1)
    assert hybrid_schedule([1], [1], MAX_MACHINES, 1).makespan == 1.0
