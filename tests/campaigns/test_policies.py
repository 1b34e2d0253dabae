"""Every policy on random workloads, each schedule checked by the independent validator;
FCFS on the Prop 3.6 instance (B11); the validator catches broken schedules."""

from __future__ import annotations

import heapq
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.campaigns.faircamp import faircamp
from lpsched.campaigns.instance import make_workload, to_dict
from lpsched.campaigns.metrics import campaign_stretch, job_stretch, summary, user_stretch
from lpsched.campaigns.offline import fair_share_factor
from lpsched.campaigns.ostrich import OStrich
from lpsched.campaigns.policies import FairShare, Fcfs, SpaceShare, min_tick, policy_factory
from lpsched.campaigns.schedule import validate
from lpsched.campaigns.simulator import TICK, Policy, Simulator, simulate
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
    """A tick that cannot advance time (``now + tick == now``) would loop forever: it is
    refused at attach (decision 106)."""
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


# -- per-user state for the users present (decision 247) -----------------------------------

class FullStateFairShare(Policy):
    """The fair-share policy with its state over every user id (``users`` entries, a tick
    O(k)): the oracle of :class:`FairShare`'s schedules (decision 247)."""

    name = "fair-share"

    def __init__(self, tick: float, seed: int = 0) -> None:
        self.tick = float(tick)
        self.rng = np.random.default_rng(seed)

    def attach(self, sim: Simulator) -> None:
        super().attach(sim)
        k = sim.w.users
        self.queues: dict[int, list[tuple[Any, ...]]] = {}
        self.users = sim.w.user.tolist()
        self.used = np.zeros(k, dtype=np.int64)
        self.open_campaigns = np.zeros(k, dtype=np.int64)
        self.window = np.zeros(k)
        self.last = 0.0
        self.order = self.rng.permutation(k)
        self.ticking = False

    def on_submit(self, c: int) -> None:
        self.open_campaigns[self.users[c]] += 1

    def on_campaign_done(self, c: int) -> None:
        self.open_campaigns[self.users[c]] -= 1

    def on_ready(self, c: int, jobs: list[int]) -> None:
        q = self.queues.setdefault(self.users[c], [])
        for j in jobs:
            heapq.heappush(q, (float(self.sim.release[c]), c, self.sim.intra_key(j)))

    def on_finish(self, j: int) -> None:
        self.used[self.users[self.sim.camp[j]]] -= self.sim.q[j]

    def advance(self, now: float) -> None:
        dt = now - self.last
        if dt > 0:
            self.window += self.used * dt
            self.last = now

    def _tick(self) -> None:
        self.sim.request_pass()
        active = int(np.count_nonzero(self.open_campaigns > 0))
        total = self.window.sum()
        usage = self.window / total if total > 0 else np.zeros_like(self.window)
        factor = fair_share_factor(usage, 1.0 / max(active, 1))
        noise = self.rng.random(factor.size)
        self.order = np.lexsort((noise, -factor))
        self.window[:] = 0.0
        self.ticking = False

    def schedule(self) -> None:
        sim = self.sim
        for u in self.order.tolist():
            q = self.queues.get(u)
            while q and sim.free > 0:
                j = q[0][2][-1]
                if sim.q[j] > sim.free:
                    break
                heapq.heappop(q)
                self.used[u] += sim.q[j]
                sim.start(j)
            if sim.free == 0:
                break
        if (any(self.queues.values()) or sim.running > 0) and not self.ticking:
            self.ticking = True
            sim.eng.at(sim.eng.now + self.tick, self._tick, TICK)


def sparse_workload(seed: int, users: int) -> Any:
    """Random jobs of a few users whose ids are scattered in ``[0, users)``; open or closed
    loop, sequential or parallel, maybe several trace pieces, real lengths."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 5))
    ids = np.sort(rng.choice(users, size=min(int(rng.integers(1, 6)), users), replace=False))
    parallel, open_loop = bool(rng.random() < 0.4), bool(rng.random() < 0.5)
    pieces = bool(rng.random() < 0.3)
    camps = []
    for _ in range(int(rng.integers(1, 12))):
        entry: dict[str, Any] = {
            "user": int(rng.choice(ids)),
            "jobs": [{"p": float(rng.uniform(0.5, 9.0)),
                      "q": int(rng.integers(1, m + 1)) if parallel else 1}
                     for _ in range(int(rng.integers(1, 5)))],
            "submit": float(rng.integers(0, 30)) if open_loop else None,
            "think": float(rng.integers(0, 3))}
        if pieces:
            entry["piece"] = int(rng.integers(0, 3))
        camps.append(entry)
    return make_workload(m, camps, users)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([1, 7, 300, 20_000]),
       st.sampled_from([0.5, 2.0, 6.0]), st.integers(0, 3))
def test_fair_share_schedules_equal_the_full_state_oracle(seed: int, users: int, tick: float,
                                                          rng_seed: int) -> None:
    """The same starts as the full-state policy: ids dense (all k draws made) and sparse
    (k > 64 U + 4096: the absent users' draws skipped with ``PCG64.advance``)."""
    w = sparse_workload(seed, users)
    run = simulate(w, lambda: FairShare(tick, rng_seed))
    validate(run)
    ref = simulate(w, lambda: FullStateFairShare(tick, rng_seed))
    assert np.array_equal(run.start, ref.start)


def test_fair_share_reused_policy_keeps_the_random_stream() -> None:
    """One policy object run twice (its generator carried over, the 32-bit buffer included):
    the same starts as the full-state policy run twice."""
    ids = [5, 17, 4_000, 4_001, 12_345, 29_999]  # ties: users that have not run yet
    w = make_workload(1, [{"user": u, "submit": 0.0, "jobs": [{"p": 1.0}] * 3} for u in ids],
                      30_000)
    ours, ref = FairShare(1.0, 0), FullStateFairShare(1.0, 0)
    for _ in range(4):
        assert np.array_equal(simulate(w, lambda: ours).start,
                              simulate(w, lambda: ref).start)


@pytest.mark.parametrize("users", [300, 300_000])
@pytest.mark.parametrize("buffered", [0, 1])
def test_fair_share_noise_is_the_draws_of_every_user(users: int, buffered: int) -> None:
    """A tick's draws are those ``rng.random(users)`` gives the present users, and the
    generator is left where that call leaves it (the buffered 32-bit half included), whether
    all the draws are made (dense ids) or the absent users' are skipped (sparse ids)."""
    ids = [0, 1, 2, 250, 251, 299]
    w = make_workload(1, [{"user": u, "jobs": [{"p": 1.0}]} for u in ids], users)
    policy = FairShare(1.0, 7)
    Simulator(w, policy)  # attach
    state = dict(policy.rng.bit_generator.state)
    state["has_uint32"], state["uinteger"] = buffered, 12345
    policy.rng.bit_generator.state = state
    twin = np.random.default_rng()
    twin.bit_generator.state = state
    for _ in range(3):
        assert np.array_equal(policy._noise(), twin.random(users)[ids])
        assert policy.rng.bit_generator.state == twin.bit_generator.state


def test_per_user_state_is_the_users_present() -> None:
    """User ids 0 and 999,999 of 10^6: the policies hold two users, not a million (a tick
    over every id would cost O(10^6): a permutation, draws and a sort)."""
    w = make_workload(2, [{"user": 999_999, "jobs": [{"p": 1.0}] * 3 + [{"p": 5.0}]},
                          {"user": 0, "jobs": [{"p": 1.0}] * 3 + [{"p": 5.0}]}], 10**6)
    fair = FairShare(1.0)
    run = simulate(w, lambda: fair)
    validate(run)
    assert fair.window.size == fair.order.size == fair.used.size == 2
    assert fair.ids.tolist() == [0, 999_999] and run.info["ticks"] >= 5
    space = SpaceShare()
    validate(simulate(w, lambda: space))
    assert space.used.size == space.open_campaigns.size == 2


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6))
def test_space_share_unchanged_by_sparse_ids(seed: int) -> None:
    """Space sharing splits by user id order: the same schedule whatever the ids' spacing."""
    w = sparse_workload(seed, 100_000)
    dense = np.unique(w.user, return_inverse=True)[1]
    packed = make_workload(w.processors, [
        {**c, "user": int(dense[i])} for i, c in enumerate(to_dict(w)["campaigns"])])
    a = simulate(w, policy_factory("space-share", w.parallel))
    b = simulate(packed, policy_factory("space-share", w.parallel))
    assert np.array_equal(a.start, b.start)
