"""Processor sets as runs (decision 163): the free line against a boolean mask, the runs
of id arrays, and the validation sweep over runs against a brute-force check."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.batch.allocation import allocate
from lpsched.batch.procsets import FreeLine, ProcSets, proc_runs
from lpsched.batch.simulator import BatchSchedule, validate_batch
from lpsched.core.swf import Workload
from lpsched.errors import InvalidScheduleError


def ids_of(flat: list[int]) -> list[int]:
    return [i for a, b in zip(flat[::2], flat[1::2], strict=True) for i in range(a, b)]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.lists(st.tuples(st.booleans(), st.integers(0, 40)),
                                     max_size=60))
def test_free_line_is_basic_allocation(m, steps):
    """Taking and giving back in any order, the line takes the ids ``basic`` takes on the
    mask, and its runs stay sorted, disjoint and never adjacent."""
    line, free, held = FreeLine(m), np.ones(m, bool), []
    for take, value in steps:
        if take and 0 < value <= line.free:
            flat = line.take(value)
            expected = allocate("basic", free, value)
            assert expected is not None and ids_of(flat) == expected.tolist()
            free[expected] = False
            held.append(flat)
        elif held:
            flat = held.pop(value % len(held))
            line.give(flat)
            free[ids_of(flat)] = True
        assert line.free == int(free.sum())
        assert ids_of([x for ab in zip(line.lo, line.hi, strict=True) for x in ab]) == \
            np.flatnonzero(free).tolist()
        assert all(b < a for a, b in zip(line.lo[1:], line.hi[:-1], strict=True))


def test_proc_sets_read_as_arrays():
    sets = ProcSets.from_flat([[0, 3, 5, 6], [], [3, 5]])
    assert len(sets) == 3 and sets.sizes().tolist() == [4, 0, 2]
    assert [p.tolist() for p in sets] == [[0, 1, 2, 5], [], [3, 4]]
    assert sets[-1].tolist() == [3, 4] and [p.tolist() for p in sets[:1]] == [[0, 1, 2, 5]]
    with pytest.raises(IndexError):
        sets[3]
    runs, repeated = proc_runs([np.array([5, 0, 2, 1]), np.array([], int), np.array([4, 4])])
    assert runs.offsets.tolist() == [0, 2, 2, 4]
    assert runs.lo.tolist() == [0, 5, 4, 4] and runs.hi.tolist() == [3, 6, 5, 5]
    assert repeated.tolist() == [False, False, True]


def brute_force_ok(start, end, procs, submit, m) -> bool:
    """Processor by processor, the jobs on it in start order never overlap."""
    if (start < submit - 1e-9).any():
        return False
    for p in range(m):
        jobs = [j for j, ids in enumerate(procs) if p in set(ids.tolist())]
        jobs.sort(key=lambda j: (start[j], end[j]))
        for a, b in pairwise(jobs):
            if end[a] > start[b] + 1e-9 * max(1.0, abs(start[b])):
                return False
    return True


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**31 - 1), st.booleans())
def test_the_sweep_agrees_with_a_brute_force_check(seed, as_runs):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 9)), int(rng.integers(1, 13))
    start = rng.integers(0, 6, n).astype(float)
    end = start + rng.integers(0, 4, n)
    procs = [np.sort(rng.choice(m, int(rng.integers(1, m + 1)), replace=False))
             for _ in range(n)]
    work = Workload(job=np.arange(n), submit=np.zeros(n), run=end - start,
                    size=np.array([p.size for p in procs]), estimate=end - start,
                    processors=m)
    given_procs = proc_runs(procs)[0] if as_runs else procs
    sched = BatchSchedule(start, end, given_procs)
    try:
        validate_batch(work, sched, m)
        valid = True
    except InvalidScheduleError as exc:
        assert exc.args and "overlap" in str(exc)
        valid = False
    assert valid == brute_force_ok(start, end, procs, work.submit, m)


def test_runs_outside_the_machine_or_wrong_are_refused():
    work = Workload(job=np.arange(2), submit=np.zeros(2), run=np.ones(2),
                    size=np.array([2, 1]), estimate=np.ones(2), processors=4)
    start, end = np.zeros(2), np.ones(2)
    outside = ProcSets.from_flat([[0, 2], [4, 5]])
    with pytest.raises(InvalidScheduleError, match="job 1 uses a processor outside"):
        validate_batch(work, BatchSchedule(start, end, outside), 4)
    overlapping = ProcSets(np.array([0, 2, 3]), np.array([0, 1, 3]), np.array([2, 2, 4]))
    with pytest.raises(InvalidScheduleError, match="wrong number of processors"):
        validate_batch(work, BatchSchedule(start, end, overlapping), 4)
    shared = ProcSets.from_flat([[0, 2], [1, 2]])
    with pytest.raises(InvalidScheduleError, match="job 1 starts on a busy processor"):
        validate_batch(work, BatchSchedule(start, end, shared), 4)
    validate_batch(work, BatchSchedule(start, end, ProcSets.from_flat([[0, 2], [2, 3]])), 4)
