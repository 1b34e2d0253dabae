"""Properties on random small instances: every policy's schedule validates and lies above
the proven lower bounds, and GSPT-RD (SPT-RD) with τ = ∞ is GSPT (SPT) on the main pool."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.tasks import TaskInstance, evaluate
from lpsched.tasks.bounds import lower_bounds
from lpsched.tasks.policies import ALL_POLICIES


@st.composite
def instances(draw: st.DrawFn) -> TaskInstance:
    n = draw(st.integers(1, 12))
    m = draw(st.integers(2, 4))
    release = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 7.0, 20.0]),
                            min_size=n, max_size=n))
    p = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 5.0, 12.0, 30.0, 100.0]),
                      min_size=n, max_size=n))
    return TaskInstance(m, release, p)


@settings(max_examples=40, deadline=None)
@given(instances(), st.integers(1, 3), st.sampled_from([1.0, 2.0, 3.0, math.inf]))
def test_every_policy_validates_and_respects_the_bounds(inst: TaskInstance, md: int,
                                                         tau: float) -> None:
    md = min(md, inst.processors - 1)
    bounds = lower_bounds(inst)
    for name in ALL_POLICIES:
        res = evaluate(inst, name, md=md, tau=tau, c=0.5, seed=1)  # validates
        for key in ("max_stretch", "max_flow", "sum_flow"):
            assert res.metrics[key] >= bounds[key].value * (1 - 1e-7) - 1e-9, (name, key)


@settings(max_examples=30, deadline=None)
@given(instances(), st.integers(1, 3))
def test_gspt_rd_without_threshold_is_gspt_on_the_main_pool(inst: TaskInstance,
                                                            md: int) -> None:
    md = min(md, inst.processors - 1)
    rd = evaluate(inst, "gspt-rd", md=md, tau=math.inf)
    gspt = evaluate(TaskInstance(inst.processors - md, inst.release, inst.p), "gspt")
    assert np.allclose(rd.schedule.completion, gspt.schedule.completion)
    assert rd.counts["redirections"] == 0
    srd = evaluate(inst, "spt-rd", md=md, tau=math.inf)
    spt = evaluate(TaskInstance(inst.processors - md, inst.release, inst.p), "spt")
    assert np.allclose(srd.schedule.completion, spt.schedule.completion)
