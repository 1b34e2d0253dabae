"""What every algorithm of the approximation family accepts: each bad number named with its
field and index, and no crash or silent wrong answer at the edges of the time range."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from lpsched.approx.certified import (
    TIME_MAX,
    TIME_MIN,
    check_time_table,
)
from lpsched.approx.dual import hybrid_schedule
from lpsched.approx.listsched import list_scheduling, lpt
from lpsched.approx.moldable import kshelf, mrt
from lpsched.errors import InvalidInstanceError


def test_bad_inputs():
    with pytest.raises(InvalidInstanceError, match="times"):
        list_scheduling([1, -2], 2)
    with pytest.raises(InvalidInstanceError, match="machines"):
        lpt([1, 2], 0)
    with pytest.raises(InvalidInstanceError, match=r"cpu_times\[1\]"):
        hybrid_schedule([1, float("nan")], [1, 1], 1, 1)
    with pytest.raises(InvalidInstanceError, match="gpu_times"):
        hybrid_schedule([1, 2], [1], 1, 1)
    with pytest.raises(InvalidInstanceError, match="gpus"):
        hybrid_schedule([1], [1], 1, 0)


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
