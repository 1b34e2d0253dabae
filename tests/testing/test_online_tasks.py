"""The testing tools for the online tasks family (seed 000 ch. 3).

The strategy draws instances the family's simulator and validator accept, and
``lower_bound`` never exceeds what a policy achieves (every policy of the chapter, on every
drawn instance) nor the brute-force preemptive optimum on tiny ones."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings

from lpsched.tasks.instance import TaskInstance
from lpsched.tasks.policies import ALL_POLICIES
from lpsched.tasks.simulator import evaluate
from lpsched.testing import assert_ratio, lower_bound, strategies
from lpsched.testing.bounds import UnsupportedObjectiveError
from lpsched.testing.instances import family, from_dict, to_dict

OBJECTIVES = ("max_stretch", "max_flow", "sum_flow")


@settings(max_examples=40, deadline=None, derandomize=True)
@given(strategies.online_tasks(max_tasks=7, max_processors=3))
def test_every_policy_is_valid_and_above_every_bound(inst: TaskInstance) -> None:
    assert family(inst) == "tasks"
    assert from_dict(json.loads(json.dumps(to_dict(inst)))).to_dict() == inst.to_dict()
    bounds = {o: lower_bound(inst, o) for o in OBJECTIVES}
    for b in bounds.values():
        assert b.kind in ("lp", "combinatorial") and np.isfinite(b.value)
    checked = 0
    for name in ALL_POLICIES:
        md = {"md": 1} if name.endswith(("-rd", "-rr")) else {}
        if md and inst.processors < 2:
            continue  # a dedicated pool needs a processor of its own
        res = evaluate(inst, name, **md)  # simulated and validated independently
        checked += 1
        for objective, bound in bounds.items():
            achieved = res.metrics[objective]
            assert achieved >= bound.value * (1 - 1e-9) - 1e-9, (name, objective)
    assert checked >= 5  # fcfs and the four policies without a dedicated pool at least


def test_a_false_claim_about_fcfs_fails_against_the_bound() -> None:
    """FCFS is not optimal for the sum of flows: a long task first, two short ones behind."""
    inst = TaskInstance(1, [0.0, 1.0, 1.0], [10.0, 1.0, 1.0])
    value = evaluate(inst, "fcfs").metrics["sum_flow"]  # 10 + 10 + 11 = 31
    assert value == 31.0
    assert lower_bound(inst, "sum_flow").value == 15.0  # SRPT: 12 + 1 + 2
    with pytest.raises(AssertionError, match="upper estimate"):
        assert_ratio(value, 1.0, inst, "sum_flow")  # the bound (SRPT, speed 1) is 15


def test_tasks_have_no_makespan_bound_and_say_so() -> None:
    with pytest.raises(UnsupportedObjectiveError, match="tasks"):
        lower_bound(TaskInstance(1, [0.0], [1.0]), "makespan")
