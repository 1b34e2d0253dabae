"""Schedules of the online policies (``lpsched.tasks.schedule``): the independent validator
rejects every broken schedule, and no schedule may beat a proven lower bound."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lpsched.errors import InvalidScheduleError
from lpsched.tasks import TaskInstance, evaluate, validate_schedule
from lpsched.tasks.schedule import COMPLETE, PREEMPTED, check_bounds


def _broken(sched, **changes):
    return replace(sched, **changes)


def test_validator_rejects_broken_schedules() -> None:
    inst = TaskInstance(2, [0, 1, 2], [4, 2, 1])
    res = evaluate(inst, "gspt")
    s = res.schedule
    validate_schedule(inst, s)
    with pytest.raises(InvalidScheduleError, match="release"):
        validate_schedule(inst, _broken(s, start=s.start - 2, end=s.end - 2,
                                        completion=s.completion - 2))
    overlap = s.proc.copy()
    overlap[:] = 0
    with pytest.raises(InvalidScheduleError, match="overlap"):
        validate_schedule(inst, _broken(s, proc=overlap))
    short = s.start + 0.5 * (s.end - s.start)
    done = np.empty(inst.n)
    done[s.task] = short
    with pytest.raises(InvalidScheduleError, match="work"):
        validate_schedule(inst, _broken(s, end=short, completion=done))
    kinds = s.kind.copy()
    kinds[0] = PREEMPTED
    with pytest.raises(InvalidScheduleError):
        validate_schedule(inst, _broken(s, kind=kinds))
    with pytest.raises(InvalidScheduleError, match="completion"):
        validate_schedule(inst, _broken(s, completion=s.completion + 1))
    big = TaskInstance(1, [0, 1], [4, 1])
    pre = evaluate(big, "srpt").schedule
    assert (pre.kind == PREEMPTED).any()
    with pytest.raises(InvalidScheduleError, match="preempt"):
        validate_schedule(big, _broken(pre, preemptive=False))
    assert (pre.kind == COMPLETE).sum() == 2


def test_validator_rejects_migration_of_srpt() -> None:
    """SRPT preempts tasks 0 and 1 at 1 for the unit tasks 2 and 3, each resuming on its
    processor at 2. Swapping the processors of the two resumed pieces leaves no overlap,
    only two migrations, which the dispatch SRPT (non-migratory) may not do."""
    inst = TaskInstance(2, [0, 0, 1, 1], [10, 8, 1, 1])
    s = evaluate(inst, "srpt").schedule
    resumed = np.flatnonzero((s.kind == COMPLETE) & np.isin(s.task, [0, 1]))
    assert (s.kind == PREEMPTED).sum() == 2 and resumed.size == 2
    assert sorted(s.proc[resumed].tolist()) == [0, 1]
    proc = s.proc.copy()
    proc[resumed] = 1 - proc[resumed]
    validate_schedule(inst, replace(s, proc=proc, migratory=True))
    with pytest.raises(InvalidScheduleError, match="migration"):
        validate_schedule(inst, replace(s, proc=proc))


def test_validator_rejects_an_uninterrupted_task_on_the_dedicated_pool() -> None:
    """RD (seed L1319–1321): the dedicated pool "will be only used by the heavy tasks",
    the interrupted ones. Two tasks of GSPT-RD, never interrupted, one moved by hand from
    the main pool (processors 0, 1) to the idle dedicated processor 2."""
    inst = TaskInstance(3, [0.0, 0.0], [5.0, 3.0])
    s = evaluate(inst, "gspt-rd", md=1, tau=2).schedule
    assert s.main == 2 and (s.proc < 2).all() and (s.kind == COMPLETE).all()
    proc = s.proc.copy()
    proc[0] = 2
    with pytest.raises(InvalidScheduleError, match="dedicated"):
        validate_schedule(inst, replace(s, proc=proc))
    # the same pieces are a valid schedule of SPT-RR, whose pool takes tasks at arrival
    rr = evaluate(inst, "spt-rr", md=1, c=0.0).schedule
    validate_schedule(inst, replace(rr, task=s.task, proc=proc, start=s.start, end=s.end,
                                    kind=s.kind, completion=s.completion))


def test_a_schedule_below_a_proven_bound_is_refused() -> None:
    bounds = {"max_stretch": {"value": 102.4, "bound": "preemptive-exact"},
              "max_flow": {"value": 1024.0, "bound": "preemptive-exact"}}
    check_bounds({"max_stretch": 102.4, "max_flow": 1024.0}, bounds)
    check_bounds({"max_stretch": 102.4 * (1 - 1e-8), "max_flow": 2000.0}, bounds)
    with pytest.raises(InvalidScheduleError, match=r"lower-bound.*max_flow = 0 .*1024"):
        check_bounds({"max_stretch": 200.0, "max_flow": 0.0}, bounds)
