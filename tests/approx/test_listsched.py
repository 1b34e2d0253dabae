"""Graham's list scheduling and LPT on identical machines (``lpsched.approx.listsched``):
their guarantees against the exact optimum and the tight instances that reach them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lpsched.approx import exact
from lpsched.approx.listsched import list_scheduling, lpt
from lpsched.approx.ratios import graham_tight, lpt_tight

times = st.lists(st.floats(0.1, 20, allow_nan=False), min_size=1, max_size=7)


machines = st.integers(1, 3)


def valid_identical(res, p, m):
    s = res.schedule
    assert np.allclose(s.end - s.start, p)
    for i in range(m):
        mine = np.sort(np.flatnonzero(s.machine == i))
        order = mine[np.argsort(s.start[mine])]
        assert (s.start[order][1:] >= s.end[order][:-1] - 1e-9).all()
    assert ((s.machine >= 0) & (s.machine < m)).all()


@given(times, machines)
def test_list_scheduling_and_lpt_guarantees(p, m):
    p = np.array(p)
    opt = exact.makespan_identical(p, m, time_limit=10)
    assert opt.optimal
    ls, lp_ = list_scheduling(p, m), lpt(p, m)
    for res in (ls, lp_):
        valid_identical(res, p, m)
        assert res.holds()
        assert res.lower_bound <= opt.makespan * (1 + 1e-9)
    assert ls.makespan <= (2 - 1 / m) * opt.makespan * (1 + 1e-9)
    assert lp_.makespan <= (4 / 3 - 1 / (3 * m)) * opt.makespan * (1 + 1e-9)


@pytest.mark.parametrize("m", [2, 3, 5, 8])
def test_tight_instances_reach_their_bounds(m):
    t, opt = graham_tight(m)
    assert list_scheduling(t, m).makespan == pytest.approx((2 - 1 / m) * opt)
    t, opt = lpt_tight(m)
    assert lpt(t, m).makespan == pytest.approx((4 / 3 - 1 / (3 * m)) * opt)
    assert exact.makespan_identical(*lpt_tight(2)[:1], 2).makespan == pytest.approx(6.0)
