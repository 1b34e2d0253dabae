"""FairCamp (seed 002 ch. 4): the worked example (B12), Prop 4.1 (B13), Cor 4.1 (B14)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.campaigns.faircamp import FairCampPacked, faircamp, faircamp_packed
from lpsched.campaigns.generators import faircamp_workload
from lpsched.campaigns.instance import from_dict, make_workload
from lpsched.campaigns.metrics import user_stretch
from lpsched.campaigns.schedule import validate
from lpsched.campaigns.simulator import simulate
from lpsched.errors import InvalidInstanceError
from tests.campaigns.helpers import PAR, PAR3, random_workload


def worked_example():
    """[L967-L977]: k = 2; user 1 has Δ(ζ) = 5, 3; user 2 has 3, 3, 10 (one machine)."""
    def camp(u, p):
        return {"user": u, "submit": None, "think": 0.0, "jobs": [{"p": p}]}
    return make_workload(1, [camp(0, 5.0), camp(0, 3.0), camp(1, 3.0), camp(1, 3.0),
                             camp(1, 10.0)])


def test_worked_example_b12() -> None:
    run = faircamp(worked_example())
    validate(run)
    assert run.info["deadlines"].tolist() == [10.0, 16.0, 6.0, 12.0, 32.0]
    # blocks: u2c1 [0,3], u1c1 [3,8], u2c2 [8,11], u1c2 [11,14], u2c3 [14,24]
    assert run.completion.tolist() == [8.0, 14.0, 3.0, 11.0, 24.0]
    assert run.start.tolist() == [3.0, 11.0, 0.0, 8.0, 14.0]
    assert bool(np.all(run.completion <= run.info["deadlines"]))


def test_lpt_blocks_on_several_machines() -> None:
    w = make_workload(2, [{"user": 0, "submit": None, "jobs": [{"p": 3.0}, {"p": 3.0},
                                                               {"p": 2.0}, {"p": 2.0},
                                                               {"p": 2.0}]}])
    run = faircamp(w)
    validate(run)
    assert run.info["rho_lengths"].tolist() == [7.0]  # LPT: 3+2+2 | 3+2
    assert run.info["deadlines"].tolist() == [7.0]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_deadlines_met_and_corollary_4_1(seed: int) -> None:
    """B13: every C <= d (think 0, closed loop); B14: C_last^u <= k Σ Δ(ζ)."""
    w = random_workload(seed, users=4, campaigns=10, m=3)
    w = make_workload(3, [dict(c, think=0.0) for c in _dicts(w)], 4)
    run = faircamp(w)
    validate(run)
    assert np.all(run.completion <= run.info["deadlines"] + 1e-9)
    for u in np.unique(w.user):
        mine = w.user == u
        assert run.completion[mine].max() <= w.users * run.info["rho_lengths"][mine].sum() \
            + 1e-9
    s2 = user_stretch(run)
    assert np.nanmax(s2) <= w.users + 1e-9  # the red line of Fig. 4.3


def _dicts(w):
    from lpsched.campaigns.instance import to_dict
    return to_dict(w)["campaigns"]


def test_generated_instance_is_fast_and_bounded() -> None:
    w = faircamp_workload(20, 10_000, seed=3)
    run = faircamp(w)
    validate(run)
    assert np.nanmax(user_stretch(run)) <= 20


def test_faircamp_rejects_parallel_jobs() -> None:
    w = random_workload(1, parallel=True, m=4)
    if w.parallel:
        with pytest.raises(InvalidInstanceError):
            faircamp(w)


# -- rigid parallel jobs are refused in both modes (decision 245) ---------------------------

@pytest.mark.parametrize("data", [PAR3, PAR])
def test_faircamp_packed_refuses_parallel_jobs(data: dict[str, Any]) -> None:
    w = from_dict(data)
    for run in (faircamp_packed, faircamp, lambda w: simulate(w, FairCampPacked)):
        with pytest.raises(InvalidInstanceError, match="sequential") as info:
            run(w)
        assert (info.value.field, info.value.value) == ("q", 2)


def test_faircamp_packed_still_runs_sequential_workloads() -> None:
    w = faircamp_workload(4, jobs=300, seed=3)
    run = faircamp_packed(w)
    validate(run)
    assert run.policy == "faircamp-packed" and run.info["k"] == 4
