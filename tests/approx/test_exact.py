"""The exact MIP references (``lpsched.approx.exact``): optimal at any scale of the times,
never reported optimal when stopped by the time limit, and the time limits they take."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from lpsched.approx import exact
from lpsched.approx.packing import nfdh_ls
from lpsched.errors import InvalidInstanceError

TIGHT_2x3 = np.array([[1.0, 2], [1.0, 2], [1.0, 2]])  # Theorems 2 and 3: C^L / C = 2


def test_exact_mips_are_exact_at_any_scale():
    """Decision 87: with HiGHS' default gaps (1e-4 relative, 1e-6 absolute) two tasks of
    1e-6 on one CPU and one GPU would come back "optimal" at 2e-6 (optimum 1e-6), and the
    rigid MIP's objective is 8.999999 for three jobs of 3 on one processor: the gaps are 0
    and the rigid makespan is the longest path of the MIP's time orders."""
    hyb = exact.makespan_hybrid([1e-6, 1e-6], [1e-6, 1e-6], 1, 1)
    assert hyb.optimal and hyb.makespan == 1e-6
    ident = exact.makespan_identical([1e-6] * 4, 3)
    assert ident.optimal and ident.makespan == 2e-6
    rigid = exact.makespan_rigid([[3.0, 1], [3.0, 1], [3.0, 1]], 1)
    assert rigid.optimal and rigid.makespan == 9.0
    assert sorted(rigid.schedule) == [0.0, 3.0, 6.0]
    jobs = np.array([[2.5, 2], [1.5, 1], [4.0, 3], [1.0, 2]])
    packed = exact.makespan_rigid(jobs, 4)
    starts = packed.schedule
    for a in range(4):  # no two jobs share a processor at the same time
        for b in range(a + 1, 4):
            space = (packed.machine[a] < packed.machine[b] + jobs[b, 1]) and (
                packed.machine[b] < packed.machine[a] + jobs[a, 1])
            time = starts[a] < starts[b] + jobs[b, 0] and starts[b] < starts[a] + jobs[a, 0]
            assert not (space and time), (a, b)
    assert packed.makespan == float((starts + jobs[:, 0]).max())


def test_exact_rigid_mip_and_theorem3_tightness():
    """C^C = 1 but C^{C+L} = 2 on two clusters of three (Theorems 2-3 tight instance),
    both proven by the MIP; NFDH+LS attains the local optimum."""
    c = exact.makespan_rigid(TIGHT_2x3, 6)
    cl = exact.makespan_rigid(TIGHT_2x3, 6, 3, local=True)
    assert c.optimal and cl.optimal
    assert (c.makespan, cl.makespan) == (1.0, 2.0)
    assert nfdh_ls(TIGHT_2x3, 2, 3).makespan == cl.makespan


def test_time_limited_mip_is_never_reported_optimal():
    rng = np.random.default_rng(0)
    p = rng.uniform(1, 10, 60)
    res = exact.makespan_identical(p, 7, time_limit=0.2)
    lb = max(p.sum() / 7, p.max())
    assert res.bound >= lb * (1 - 1e-6) and res.bound <= res.makespan * (1 + 1e-9)
    if not res.optimal:
        assert res.status == "time_limit"


@pytest.mark.parametrize("limit", [0, 0.0, -1, -0.5, float("nan"), True, "1"])
def test_an_exact_mip_refuses_a_time_limit_that_means_no_limit(limit: Any) -> None:
    """0, a negative number or NaN would run HiGHS without any limit (decision 238)."""
    with pytest.raises(InvalidInstanceError, match="time_limit"):
        exact.makespan_identical([3.0, 2.0, 2.0], 2, time_limit=limit)
    with pytest.raises(InvalidInstanceError, match="time_limit"):
        exact.makespan({"times": [[2.0, 1.5]], "processors": 2}, time_limit=limit)


@pytest.mark.parametrize("limit", [None, math.inf, 5, 0.5, np.float64(2.0)])
def test_an_exact_mip_takes_none_infinity_or_a_positive_limit(limit: Any) -> None:
    res = exact.makespan_identical([3.0, 2.0, 2.0], 2, time_limit=limit)
    assert res.optimal and res.makespan == 4.0
