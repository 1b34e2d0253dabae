"""The CPU+GPU dual approximations (``lpsched.approx.dual``, seed 000 ch. 2): the 2 and
the 3/2 + ε variants against the exact optimum, the dual steps' rejections, the edges
(tasks free on one side, a dynamic program too large) and the speed on 10^5 tasks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lpsched.approx import exact
from lpsched.approx.dual import hybrid_lower_bound, hybrid_schedule, hybrid_step, hybrid_step_32
from lpsched.errors import InvalidInstanceError, SolverError

cpu_gpu = st.integers(1, 7).flatmap(lambda n: st.tuples(
    st.lists(st.floats(0.5, 10), min_size=n, max_size=n),
    st.lists(st.floats(0.1, 10), min_size=n, max_size=n)))


@given(cpu_gpu, st.integers(1, 2), st.integers(1, 2))
def test_hybrid_2_approximation(tasks, m, k):
    p, q = map(np.array, tasks)
    res = hybrid_schedule(p, q, m, k)
    assert res.holds()
    s = res.schedule
    on_gpu = s.machine >= m
    assert np.allclose(s.end - s.start, np.where(on_gpu, q, p))
    for i in range(m + k):
        mine = np.flatnonzero(s.machine == i)
        order = mine[np.argsort(s.start[mine])]
        assert (s.start[order][1:] >= s.end[order][:-1] - 1e-9).all()
    opt = exact.makespan_hybrid(p, q, m, k)
    assert opt.optimal
    assert res.lower_bound <= opt.makespan * (1 + 1e-9)
    assert res.makespan <= 2 * opt.makespan * (1 + res.tolerance) * (1 + 1e-9)
    # the dual step never rejects a λ that the optimum achieves
    assert hybrid_step(p, q, m, k, opt.makespan * (1 + 1e-12)) is not None
    assert hybrid_lower_bound(p, q, m, k) <= opt.makespan * (1 + 1e-9)


@given(cpu_gpu, st.integers(1, 2), st.integers(1, 2))
def test_hybrid_three_halves(tasks, m, k):
    from lpsched.approx.dual import hybrid_step_32

    p, q = map(np.array, tasks)
    res = hybrid_schedule(p, q, m, k, variant="3/2", dp_eps=0.1)
    assert res.holds() and res.guarantee == pytest.approx(1.6)
    opt = exact.makespan_hybrid(p, q, m, k)
    assert res.makespan <= 1.6 * opt.makespan * (1 + res.tolerance) * (1 + 1e-9)
    # never rejects a λ the optimum achieves (the DP's NO is correct)
    assert hybrid_step_32(p, q, m, k, opt.makespan * (1 + 1e-12)) is not None
    on_gpu = res.schedule.machine >= m
    assert np.allclose(res.schedule.end - res.schedule.start, np.where(on_gpu, q, p))


def test_hybrid_rejections_are_correct():
    # a task longer than λ everywhere, and a GPU area beyond kλ once forced
    assert hybrid_step([5, 1], [5, 1], 1, 1, 4.0) is None
    assert hybrid_step([9, 9], [3, 3], 1, 1, 5.0) is None  # both forced on the one GPU: 6>5
    on_cpu = hybrid_step([9, 1], [3, 8], 1, 1, 5.0)
    assert on_cpu is not None and on_cpu.tolist() == [False, True]


def test_tasks_free_on_one_side_give_makespan_zero():
    """An all-zero lower bound: makespan 0, certified, no division by zero."""
    for variant in ("2", "3/2"):
        r = hybrid_schedule([0, 0, 5], [3, 0, 0], 1, 1, variant=variant)
        assert r.makespan == 0.0 and r.lower_bound == 0.0 and r.holds()
        assert r.extra["cpu_tasks"] == 2 and r.schedule.machine.tolist() == [0, 0, 1]
        empty = hybrid_schedule([], [], 1, 1, variant=variant)
        assert empty.makespan == 0.0 and empty.extra["cpu_tasks"] == 0


def test_a_dynamic_program_too_large_is_refused_before_allocating():
    with pytest.raises(SolverError, match="dynamic program would need"):
        hybrid_schedule(np.ones(1000), np.ones(1000), 1000, 1000, variant="3/2")
    with pytest.raises(SolverError, match="variant '2'"):
        hybrid_step_32(np.ones(2000), np.ones(2000), 4, 4, 10.0)
    with pytest.raises(InvalidInstanceError, match="dp_eps"):
        hybrid_step_32([1.0], [1.0], 1, 1, 1.0, eps=0.0)


def test_hybrid_speed_on_1e5_tasks():
    rng = np.random.default_rng(0)
    p = rng.uniform(1, 10, 100_000)
    q = rng.uniform(0.5, 10, 100_000)
    res = hybrid_schedule(p, q, 4, 4)
    assert res.holds() and res.schedule.machine.size == 100_000
