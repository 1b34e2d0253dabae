"""The validator's whole-array pass (:func:`lpsched.ptg.schedule._all_hold`, decision 642)
says "every check holds" exactly when the per-task loops find no violation: on the 19
algorithms' schedules (before and after BACKFILL) and on those schedules broken in each way
the validator checks (allocation, processor ids, duration, precedence, a processor twice at
once, more than ``P`` busy), where the loops still name the violation."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.errors import InvalidScheduleError
from lpsched.ptg.model import get_cluster
from lpsched.ptg.problem import Problem
from lpsched.ptg.registry import ALGORITHMS, run
from lpsched.ptg.schedule import PtgSchedule, _all_hold, _check_processors, _check_ptg, validate
from tests.ptg.helpers import random_problem_ptgs


def _loops_pass(sched: PtgSchedule, pb: Problem) -> bool:
    """The per-task loops of :func:`validate` alone (the reference)."""
    sizes = [g.n for g in pb.ptgs]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    n = int(sum(sizes))
    tol = 1e-9 + 1e-9 * max(1.0, float(np.abs(sched.end).max()) if n else 1.0)
    try:
        for i, g in enumerate(pb.ptgs):
            _check_ptg(sched, g, offsets[i], pb.cluster, tol)
        _check_processors(sched, pb.P, tol)
    except InvalidScheduleError:
        return False
    return True


def _hold(sched: PtgSchedule, pb: Problem) -> bool:
    sizes = [g.n for g in pb.ptgs]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    tol = 1e-9 + 1e-9 * max(1.0, float(np.abs(sched.end).max()))
    return _all_hold(sched, pb.ptgs, offsets, pb.cluster, tol)


def _copy(s: PtgSchedule) -> PtgSchedule:
    return PtgSchedule(s.start.copy(), s.end.copy(), s.alloc.copy(),
                       [np.array(p) for p in s.procs], s.owner.copy(), s.order.copy())


def _broken(s: PtgSchedule, rng: np.random.Generator, P: int) -> PtgSchedule:
    """``s`` with one random defect of the kinds the validator checks."""
    b = _copy(s)
    real = np.flatnonzero(b.alloc > 0)
    k = int(rng.choice(real))
    kind = int(rng.integers(0, 8))
    if kind == 0:  # a processor id out of range
        b.procs[k] = b.procs[k].copy()
        b.procs[k][0] = P
    elif kind == 1:  # a processor twice in one task
        if b.procs[k].size > 1:
            b.procs[k] = b.procs[k].copy()
            b.procs[k][1] = b.procs[k][0]
    elif kind == 2:  # allocation and processors disagree
        b.alloc[k] += 1
    elif kind == 3:  # a duration off by a little
        b.end[k] += float(rng.choice([1e-12, 1e-6, 1.0])) * max(1.0, b.end[k])
    elif kind == 4:  # moved earlier: precedence, or another task's processors
        d = b.end[k] - b.start[k]
        b.start[k] = max(0.0, b.start[k] - float(rng.uniform(0.0, 1.0)) * b.start[k])
        b.end[k] = b.start[k] + d
    elif kind == 5:  # another task's processors
        j = int(rng.choice(real))
        b.procs[k] = np.sort(np.asarray(b.procs[j]))[: b.alloc[k]]
        if b.procs[k].size < b.alloc[k]:
            b.alloc[k] = b.procs[k].size
    elif kind == 6:  # a dummy task holding a processor
        dummies = np.flatnonzero(b.alloc == 0)
        if dummies.size:
            b.procs[int(dummies[0])] = np.array([0])
    else:  # moved later: its successors may now start before it ends
        shift = float(rng.uniform(0.0, 1.0)) * (b.end[k] - b.start[k])
        b.start[k] += shift
        b.end[k] += shift
    return b


@pytest.mark.parametrize("seed", range(3))
def test_whole_arrays_agree_with_the_loops(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pb = Problem(random_problem_ptgs(seed, 3 + seed), get_cluster(("chti", "grillon",
                                                                    "chti")[seed]), seed=seed)
    for name in ALGORITHMS:
        r = run(pb, name)  # validates both schedules
        for s in (r.before_backfill, r.schedule):
            assert _hold(s, pb) and _loops_pass(s, pb)
            for _ in range(6):
                b = _broken(s, rng, pb.P)
                assert not _hold(b, pb) or _loops_pass(b, pb), name
                if not _loops_pass(b, pb):
                    with pytest.raises(InvalidScheduleError):
                        validate(b, pb.ptgs, pb.cluster)


def test_two_tasks_on_one_processor_at_once_is_named() -> None:
    pb = Problem(random_problem_ptgs(7, 2), get_cluster("chti"), seed=1)
    s = _copy(run(pb, "selfish").schedule)
    real = np.flatnonzero(s.alloc > 0)
    a, b = int(real[0]), int(real[-1])
    s.procs[b] = np.sort(np.asarray(s.procs[a]))[: s.alloc[b]]
    s.alloc[b] = s.procs[b].size
    d = s.end[b] - s.start[b]
    s.start[b] = s.start[a]
    s.end[b] = s.start[b] + d
    assert not _hold(s, pb)
    with pytest.raises(InvalidScheduleError):
        validate(s, pb.ptgs, pb.cluster)
