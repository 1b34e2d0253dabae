"""Every policy on random workloads, each schedule checked by the independent validator;
FCFS on the Prop 3.6 instance (B11); the validator catches broken schedules."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.campaigns.faircamp import faircamp
from lpsched.campaigns.instance import make_workload
from lpsched.campaigns.metrics import campaign_stretch, job_stretch, summary, user_stretch
from lpsched.campaigns.ostrich import OStrich
from lpsched.campaigns.policies import FairShare, Fcfs, min_tick, policy_factory
from lpsched.campaigns.schedule import validate
from lpsched.campaigns.simulator import simulate
from lpsched.errors import InvalidInstanceError, InvalidScheduleError
from tests.campaigns.helpers import random_workload

SIM = ("fcfs", "ostrich", "space-share", "fair-share")


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.booleans(), st.booleans(), st.booleans())
def test_every_policy_gives_a_valid_schedule(seed, parallel, open_loop, deps) -> None:
    w = random_workload(seed, users=3, campaigns=8, m=3, parallel=parallel,
                        open_loop=open_loop, deps=deps)
    for name in SIM:
        run = simulate(w, policy_factory(name, w.parallel, tick=5.0, seed=seed))
        validate(run)
        lb = campaign_stretch(run)
        assert np.all(lb >= 1 - 1e-9)  # l is a lower bound on every campaign's flow
        assert np.all(job_stretch(run) >= 1 - 1e-9)
    if not w.parallel and not w.has_deps:
        validate(faircamp(w))


def prop_3_6(p: float):
    """User 1 (jobs of length p) submits at 0 and p, user 2 (unit jobs) just after."""
    return make_workload(2, [
        {"user": 0, "submit": 0.0, "jobs": [{"p": p}] * 2},
        {"user": 0, "submit": p, "jobs": [{"p": p}] * 2},
        {"user": 1, "submit": 0.5, "jobs": [{"p": 1.0}] * 2},
        {"user": 1, "submit": p + 1, "jobs": [{"p": 1.0}] * 2}])


def test_fcfs_prop_3_6_b11() -> None:
    """FCFS makes the unit-job user wait for the long campaigns every round: ΣΔ^2 grows
    like (p + 1) σ against σ = 2 alone; OStrich gives it priority."""
    w = prop_3_6(10.0)
    fcfs = simulate(w, Fcfs)
    validate(fcfs)
    assert fcfs.completion.tolist() == [10.0, 21.0, 11.0, 22.0]
    flow = np.bincount(w.user, weights=fcfs.completion - fcfs.release)
    assert flow[1] == 21.5
    ost = simulate(w, policy_factory("ostrich", False))
    validate(ost)
    assert np.bincount(w.user, weights=ost.completion - ost.release)[1] < flow[1] / 1.5


def test_summary_names_every_stretch() -> None:
    w = random_workload(3)
    run = simulate(w, policy_factory("ostrich", False))
    s = summary(run, 0.1, True)
    for key in ("policy", "valid", "campaigns", "users", "max_campaign_stretch",
                "mean_campaign_stretch", "share_stretch_below_1_5", "max_user_stretch",
                "utilisation", "seconds", "max_job_stretch"):
        assert key in s
    assert s["max_user_stretch"] == pytest.approx(np.nanmax(user_stretch(run)))


def test_fair_share_deprioritises_the_heavy_user() -> None:
    """One machine, tick 1: user 0 ran alone in [0, 1]; at t = 1 the factors are 2^-3 vs
    1 (B8's shape), so user 1's waiting job goes before user 0's second one."""
    w = make_workload(1, [{"user": 0, "submit": 0.0, "jobs": [{"p": 1.0}] * 3},
                          {"user": 1, "submit": 0.5, "jobs": [{"p": 1.0}]},
                          {"user": 2, "submit": 0.5, "jobs": [{"p": 1.0}]}])
    run = simulate(w, policy_factory("fair-share", False, tick=1.0))
    validate(run)
    assert run.start[0] == 0.0
    assert sorted(run.start[3:].tolist()) == [1.0, 2.0]  # users 1 and 2 before user 0


def _valid_run():
    w = random_workload(11, users=2, campaigns=4, m=2, deps=True, open_loop=True)
    run = simulate(w, Fcfs)
    validate(run)
    return run


def test_validator_catches_broken_schedules() -> None:
    run = _valid_run()
    w = run.workload
    early = run.start.copy()
    last = int(np.argmax(run.release[w.camp]))
    early[last] = run.release[w.camp[last]] - 1.0
    with pytest.raises(InvalidScheduleError, match=r"release|capacity|precedence"):
        validate(replace(run, start=early))
    crowded = np.full(w.jobs, 100.0)
    with pytest.raises(InvalidScheduleError):
        validate(replace(run, start=crowded))
    moved = run.release.copy()
    moved[-1] += 0.5
    with pytest.raises(InvalidScheduleError):
        validate(replace(run, release=moved))
    with pytest.raises(InvalidScheduleError, match="started"):
        validate(replace(run, start=np.full(w.jobs, np.nan)))


def test_validator_catches_a_precedence_violation() -> None:
    w = make_workload(2, [{"user": 0, "submit": 0.0, "jobs": [{"p": 2.0}, {"p": 1.0}],
                           "deps": [[0, 1]]}])
    run = simulate(w, Fcfs)
    validate(run)
    assert run.start.tolist() == [0.0, 2.0]
    with pytest.raises(InvalidScheduleError, match="precedence"):
        validate(replace(run, start=np.array([0.0, 1.0])))


@pytest.mark.parametrize("tick", [1e-14, 1e-300, 0.0, float("inf")])
def test_fair_share_refuses_a_tick_that_cannot_advance_time(tick: float) -> None:
    """A tiny tick used to loop forever (``now + tick == now``): now refused at attach."""
    w = random_workload(3, open_loop=True)
    with pytest.raises(InvalidInstanceError, match="tick"):
        simulate(w, lambda: FairShare(tick))


def test_fair_share_tick_guard_at_large_times() -> None:
    """At large absolute times a tick below 1e-12 of the time is refused (``now + tick``
    would not advance time)."""
    w = make_workload(2, [{"user": 0, "submit": 1e15, "jobs": [{"p": 1e3}]}])
    policy = FairShare(1e6)
    simulate(w, lambda: policy)  # accepted: 1e6 >= min_tick
    assert min_tick(w) <= 1e6
    policy = FairShare(1.0)
    with pytest.raises(InvalidInstanceError, match="tick"):
        simulate(w, lambda: policy)


def _with_info(run, **changes):
    return replace(run, info={**run.info, **changes})


def test_validate_asserts_the_ostrich_start_gate() -> None:
    """s >= s̃ on every run: a start before the campaign's eligibility is refused."""
    w = random_workload(5, users=3, campaigns=8, m=3, open_loop=True)
    run = simulate(w, policy_factory("ostrich", False))
    validate(run)
    late = run.info["eligible_at"].copy()
    c = int(w.camp[int(np.argmax(run.start))])
    late[c] = run.start.max() + 1.0
    with pytest.raises(InvalidScheduleError, match="start-gate"):
        validate(_with_info(run, eligible_at=late))


def test_validate_asserts_parallel_ostrich_idle_areas() -> None:
    """V's executed area equals R's busy area over the active periods (Lemma 6.2)."""
    w = random_workload(6, users=3, campaigns=8, m=4, parallel=True)
    run = simulate(w, policy_factory("ostrich", True))
    validate(run)
    area = float(run.info["virtual_area"])
    with pytest.raises(InvalidScheduleError, match="virtual-area"):
        validate(_with_info(run, virtual_area=area * 1.01 + 1.0))


def test_validate_asserts_faircamp_deadlines_in_the_setting_of_prop_4_1() -> None:
    w = random_workload(7, users=3, campaigns=8, m=3)
    w = make_workload(3, [{"user": int(u), "submit": None, "think": 0.0,
                           "jobs": [{"p": float(x)} for x in w.p[w.offsets[c]:w.offsets[c + 1]]]}
                          for c, u in enumerate(w.user.tolist())])
    run = faircamp(w)
    validate(run)
    early = run.info["deadlines"].copy()
    early[0] = run.completion[0] - 1.0
    with pytest.raises(InvalidScheduleError, match="deadline"):
        validate(_with_info(run, deadlines=early))


def test_the_simulator_checks_the_invariants_per_piece() -> None:
    """Each trace piece is checked with its own V before the pieces are merged."""
    w = make_workload(2, [{"user": 0, "submit": 0.0, "piece": 0, "jobs": [{"p": 2.0}]},
                          {"user": 1, "submit": 100.0, "piece": 1, "jobs": [{"p": 3.0}]}])
    calls = []

    class Spy(OStrich):
        def info(self):
            out = super().info()
            calls.append(out["eligible_at"].size)
            return {**out, "eligible_at": out["eligible_at"] + 50.0}

    with pytest.raises(InvalidScheduleError, match="start-gate"):
        simulate(w, Spy)
    assert calls == [1]
