"""The testing tools for the campaign (seed 002) and multiple-PTG (seed 004) families.

The strategies draw instances the families' simulators, algorithms and validators accept;
``lower_bound`` never exceeds what any of them achieves; the instance documents
round-trip."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings

from lpsched.campaigns.instance import Workload
from lpsched.campaigns.metrics import campaign_stretch
from lpsched.campaigns.policies import policy_factory
from lpsched.campaigns.schedule import validate
from lpsched.campaigns.simulator import simulate
from lpsched.ptg.problem import Problem
from lpsched.ptg.registry import ALGORITHMS, run
from lpsched.testing import lower_bound, strategies
from lpsched.testing.bounds import UnsupportedObjectiveError
from lpsched.testing.instances import family, from_dict, to_dict

TOL = 1e-9


@settings(max_examples=30, deadline=None, derandomize=True)
@given(strategies.campaign_workloads())
def test_every_campaign_policy_respects_the_bounds(w: Workload) -> None:
    assert family(w) == "campaigns"
    again = from_dict(json.loads(json.dumps(to_dict(w))))
    assert np.array_equal(again.p, w.p) and np.array_equal(again.q, w.q)
    makespan = lower_bound(w, "makespan")
    assert makespan.kind == "combinatorial"
    assert lower_bound(w, "max_campaign_stretch").value == 1.0
    for name in ("fcfs", "space-share", "fair-share", "ostrich"):
        result = simulate(w, policy_factory(name, w.parallel))
        validate(result)
        assert result.end.max() >= makespan.value * (1 - TOL), name
        assert campaign_stretch(result).min() >= 1 - TOL, name


def test_the_campaign_bound_is_the_longest_user_chain() -> None:
    """Two users: user 0 has two sequential campaigns of one 5 s job each (chain 10), user
    1 one campaign of two 1 s jobs on 2 processors (area 1): the bound is 10."""
    from lpsched.campaigns.instance import make_workload

    w = make_workload(2, [{"user": 0, "jobs": [{"p": 5.0, "q": 1}]},
                          {"user": 0, "jobs": [{"p": 5.0, "q": 1}]},
                          {"user": 1, "jobs": [{"p": 1.0, "q": 1}, {"p": 1.0, "q": 1}]}])
    assert lower_bound(w, "makespan").value == 10.0


@settings(max_examples=15, deadline=None, derandomize=True)
@given(strategies.ptg_scenarios())
def test_every_ptg_algorithm_respects_the_bounds(pb: Problem) -> None:
    assert family(pb) == "ptg"
    again = from_dict(json.loads(json.dumps(to_dict(pb))))
    assert again.N == pb.N and again.P == pb.P
    cmax = lower_bound(pb, "makespan")
    total = lower_bound(pb, "sum_completion")
    assert cmax.kind in ("lp", "combinatorial") and total.value > 0
    for name in ALGORITHMS:
        res = run(pb, name)  # validated: an invalid schedule raises
        assert res.metrics.makespan >= cmax.value * (1 - TOL), name
        assert res.metrics.completion.sum() >= total.value * (1 - TOL), name


def test_families_say_which_objectives_they_bound() -> None:
    from lpsched.campaigns.instance import make_workload

    w = make_workload(1, [{"user": 0, "jobs": [{"p": 1.0, "q": 1}]}])
    with pytest.raises(UnsupportedObjectiveError, match="campaigns"):
        lower_bound(w, "sum_flow")
