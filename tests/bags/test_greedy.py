"""The greedy heuristics' readings (seed 003 §4.1): when DD asks, when the master switches.

``dd_request="received"`` makes DD serve the workers in RR's cyclic order under one-port, the
identity of every RR and DD row of Tables 4-8 (decision 316); ``switch="complete"`` waits
for the current application to be computed (decision 317).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.bags import Application, Instance, StarPlatform, random_bags
from lpsched.bags import reproduce as exp
from lpsched.bags.policies.greedy import APP_RULES, GreedyPolicy
from lpsched.bags.schedule import Schedule, validate
from lpsched.bags.simulator import simulate
from lpsched.errors import LpschedError
from tests.conftest import small_instance

#: Worker 0 computes a task in 0.25 s, worker 1 in 4 s; every send takes 1 s.
SKEWED = Instance(StarPlatform([4.0, 0.25], [1.0, 1.0]), (Application(0.0, 4, 1.0, 1.0),))


def _order(sched: Schedule) -> list[int]:
    return [int(u) for u in sched.worker[np.argsort(sched.send_start, kind="stable")]]


def test_dd_served_on_reception_is_round_robin_by_hand():
    """Hand-checked on SKEWED. RR sends to 0, 1, 0, 1 back to back (t = 0, 1, 2, 3). DD with
    requests when idle (decision A20): 0 (t=0), 1 (t=1), 0 (t=2, worker 0 idle again at
    1.25), then nobody asks at t=3 (worker 1 computes until 6, worker 0 until 3.25): the
    port idles and worker 0 gets the last task at 3.25. DD with requests on reception
    (decision 316): the request queue is [0, 1] -> [1, 0] -> [0, 1] -> [1, 0]: RR exactly."""
    rr = simulate(SKEWED, GreedyPolicy("fifo", "rr")).schedule
    idle = simulate(SKEWED, GreedyPolicy("fifo", "dd", dd_request="idle")).schedule
    got = simulate(SKEWED, GreedyPolicy("fifo", "dd", dd_request="received")).schedule
    assert _order(rr) == [0, 1, 0, 1]
    assert np.allclose(np.sort(rr.send_start), [0, 1, 2, 3])
    assert _order(idle) == [0, 1, 0, 0]
    assert np.allclose(np.sort(idle.send_start), [0, 1, 2, 3.25])
    assert _order(got) == [0, 1, 0, 1]
    assert got.to_dict() == rr.to_dict()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(APP_RULES),
       st.sampled_from(("dispatch", "complete")))
def test_dd_on_reception_equals_rr_on_every_one_port_instance(seed, rule, switch):
    """Under one-port the reception reading makes DD's schedule RR's, whatever the speeds,
    releases and application rule (the identity of Tables 4-8 [L893-L1012])."""
    inst = small_instance(seed)
    rr = simulate(inst, GreedyPolicy(rule, "rr", switch=switch)).schedule
    dd = simulate(inst, GreedyPolicy(rule, "dd", dd_request="received",
                                     switch=switch)).schedule
    validate(inst, dd)
    assert dd.to_dict() == rr.to_dict()


def test_the_idle_reading_is_not_round_robin_on_the_seeds_instances():
    """The old reading (A20) departs from RR on a Table-2 instance: the identity above is a
    property of the reading, not of the instances."""
    inst = random_bags(seed=0)  # Table 2's 20 applications on 10 workers
    rr = simulate(inst, GreedyPolicy("fifo", "rr")).schedule
    dd = simulate(inst, GreedyPolicy("fifo", "dd", dd_request="idle")).schedule
    assert dd.to_dict() != rr.to_dict()


def test_switch_on_completion_waits_for_the_current_application():
    """``switch="complete"`` [L755, L763]: no task of the next application is sent before
    the current one is computed; ``"dispatch"`` (A17) sends it as soon as the current one is
    all sent."""
    inst = Instance(StarPlatform([1.0, 0.5], [4.0, 4.0]),
                    (Application(0.0, 4, 8.0, 1.0), Application(0.0, 3, 6.0, 1.0)))
    for rule in ("fifo-mct", "spt-rr", "swrpt-dd"):
        app, res = rule.split("-")
        done = simulate(inst, GreedyPolicy(app, res, switch="complete",
                                           dd_request="received")).schedule
        early = simulate(inst, GreedyPolicy(app, res, switch="dispatch",
                                            dd_request="received")).schedule
        validate(inst, done)
        first = int(done.app[np.argmin(done.send_start)])
        other = 1 - first
        assert done.send_start[done.app == other].min() >= done.end[done.app == first].max()
        assert early.send_start[early.app == other].min() < early.end[early.app == first].max()


def test_bad_readings_are_refused():
    with pytest.raises(LpschedError, match="dd_request"):
        GreedyPolicy("fifo", "dd", dd_request="sometimes")
    with pytest.raises(LpschedError, match="switch"):
        GreedyPolicy("fifo", "dd", switch="never")
    with pytest.raises(LpschedError, match="greedy reading"):
        exp.parse_reading("dd_request=idle;switch=late")
