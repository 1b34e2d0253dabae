"""Review C, findings 2, 3, 5 and 6 (campaign scheduling, seed 002).

* 2: FairCamp's packed mode refuses rigid parallel jobs up front, as block mode does (its
  ρ-schedule and deadlines are for sequential jobs, [L755], [L1059]); it used to start a job
  on fewer free processors than it needs and fail its own capacity check (exit 1).
* 3: MULTICAMP / MULTICMAX / A-camp refuse dependencies up front (a campaign is a set of
  independent jobs, [L745]; LPT ignores precedence); they used to fail their own precedence
  check (exit 1).
* 5: the per-user policies keep state for the users present only (fair-share cost no longer
  grows with the user ids), with the same schedules as the full-state implementation
  (kept below as the oracle).
* 6: the generators and ``campaigns generate`` refuse sizes that ``campaigns run`` rejects
  or that cannot be generated (``users`` and ``processors`` up to 10^7, ``jobs`` up to
  10^6), before any work.
"""

from __future__ import annotations

import heapq
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.campaigns.faircamp import FairCampPacked, faircamp, faircamp_packed
from lpsched.campaigns.generators import (
    MAX_JOBS,
    check_sizes,
    faircamp_workload,
    generate,
    profiles_workload,
)
from lpsched.campaigns.instance import MAX_USERS, from_dict, make_workload, to_dict
from lpsched.campaigns.offline import acamp, fair_share_factor, lpt, multicamp, multicmax
from lpsched.campaigns.policies import FairShare, SpaceShare, policy_factory
from lpsched.campaigns.schedule import validate
from lpsched.campaigns.simulator import TICK, Policy, Simulator, simulate
from lpsched.core.swf import MAX_PROCESSORS
from lpsched.errors import InvalidInstanceError
from tests.cli.test_cli_subprocess import lpsched, one_json_object

# -- finding 2: FairCamp packed and parallel jobs ------------------------------------------

#: review C's par3.json: the packed mode started the q = 2 job with 1 processor free
PAR3 = {"processors": 2, "campaigns": [{"user": 0, "jobs": [{"p": 1, "q": 1}]},
                                       {"user": 1, "jobs": [{"p": 3, "q": 2}]}]}
#: review C's par.json: ran without a crash, with deadlines from an LPT that ignores q
PAR = {"processors": 2, "campaigns": [
    {"user": 0, "submit": None, "think": 0, "jobs": [{"p": 5, "q": 1}, {"p": 5, "q": 2}]},
    {"user": 1, "submit": None, "think": 0, "jobs": [{"p": 3, "q": 2}]}]}


def one_error_line(proc: Any, code: int = 2) -> str:
    """Exit ``code``, nothing on stdout, one ``lpsched: error:`` line on stderr."""
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lpsched: error:"), proc.stderr
    return lines[0]


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


@pytest.mark.parametrize("mode", ["packed", "block"])
@pytest.mark.parametrize("data", [PAR3, PAR])
def test_cli_faircamp_refuses_parallel_jobs_in_both_modes(tmp_path: Path, mode: str,
                                                          data: dict[str, Any]) -> None:
    path = tmp_path / "par.json"
    path.write_text(json.dumps(data))
    for fmt in ((), ("--json",)):
        line = one_error_line(lpsched("campaigns", "run", str(path), "--policy", "faircamp",
                                      "--faircamp-mode", mode, *fmt))
        assert "q = 2" in line and "sequential" in line and "ostrich" in line
        assert "invalid schedule" not in line


# -- finding 3: offline algorithms and dependencies ----------------------------------------

#: review C's dep.json
DEP: dict[str, Any] = {"processors": 2, "campaigns": [{"user": 0, "jobs": [{"p": 1}, {"p": 2}],
                                       "deps": [[0, 1]]}]}


def test_offline_algorithms_refuse_dependencies() -> None:
    w = from_dict(DEP)
    for name, run in (("MULTICAMP", multicamp), ("MULTICMAX", multicmax),
                      ("A-camp", lambda w: acamp(w, 0))):
        with pytest.raises(InvalidInstanceError, match=f"{name} takes independent") as info:
            run(w)
        assert (info.value.field, info.value.value) == ("deps", 1)


def test_cli_offline_policies_refuse_dependencies(tmp_path: Path) -> None:
    path = tmp_path / "dep.json"
    path.write_text(json.dumps(DEP))
    for policy in ("multicamp", "multicmax"):
        line = one_error_line(lpsched("campaigns", "run", str(path), "--policy", policy))
        assert "deps = 1" in line and "independent" in line and "--deps" in line
        assert "invalid schedule" not in line
    # the same jobs without the edge are scheduled (and validated)
    data = {**DEP, "campaigns": [{k: v for k, v in DEP["campaigns"][0].items() if k != "deps"}]}
    path.write_text(json.dumps(data))
    for policy in ("multicamp", "multicmax"):
        out = one_json_object(lpsched("campaigns", "run", str(path), "--policy", policy,
                                      "--json"))
        assert out["valid"] is True and out["jobs"] == 2


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_offline_grouping_by_user_unchanged(seed: int) -> None:
    """MULTICAMP / MULTICMAX group campaigns per user in one sort now: the same schedule as
    the per-user scans (computed here)."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 6))
    ids = np.sort(rng.choice(50, size=k, replace=False))
    camps = [{"user": int(ids[i]), "jobs": [{"p": float(rng.integers(1, 9))}
                                             for _ in range(int(rng.integers(1, 5)))]}
             for i in rng.integers(0, k, size=int(rng.integers(1, 9)))]
    w = make_workload(int(rng.integers(1, 4)), camps, 50)
    sched = multicamp(w)
    t, start = 0.0, np.empty(w.jobs)
    for u in sched.order.tolist():
        s, length = acamp(w, u)
        jobs = np.flatnonzero(w.user[w.camp] == u)
        start[jobs] = s + t
        t += length
        assert sched.total_flow[u] == t
    assert np.array_equal(sched.start, start) and sched.makespan == t
    mc = multicmax(w)
    users = np.unique(w.user)
    blocks = [lpt(w.p[w.user[w.camp] == u], w.processors) for u in users.tolist()]
    t = 0.0
    for i in np.argsort([b[1] for b in blocks], kind="stable").tolist():
        start[w.user[w.camp] == users[i]] = blocks[i][0] + t
        t += blocks[i][1]
        assert mc.total_flow[users[i]] == t
    assert np.array_equal(mc.start, start) and mc.makespan == t


# -- finding 5: per-user state for the users present ---------------------------------------


class FullStateFairShare(Policy):
    """The fair-share policy as it was before the fix (state over all ``users`` ids, a tick
    O(k)): the oracle of the schedules."""

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
def test_fair_share_schedules_unchanged(seed: int, users: int, tick: float, rng_seed: int
                                        ) -> None:
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
    used to cost O(10^6): permutation, draws and a sort over every id)."""
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


def test_cli_fair_share_with_huge_user_ids(tmp_path: Path) -> None:
    """Three users with ids up to 9,999,999: a tick used to cost about a second (a
    permutation, draws and a sort over all 10^7 ids: this run took more than 8 s); now the
    run itself (``seconds``, the O(k) permutation once included) takes well under that."""
    path = tmp_path / "bigu.json"
    path.write_text(json.dumps({"processors": 2, "users": 10**7, "campaigns": [
        {"user": u, "jobs": [{"p": 1.0}, {"p": 2.0}, {"p": 1.0}, {"p": 5.0}]}
        for u in (9_999_999, 0, 5_000_000)]}))
    out = one_json_object(lpsched("campaigns", "run", str(path), "--policy", "fair-share",
                                  "--json"))
    assert out["valid"] is True and out["users"] == 3 and out["jobs"] == 12
    assert out["seconds"] < 8.0, out["seconds"]


# -- finding 6: generator limits -----------------------------------------------------------


@pytest.mark.parametrize("users, jobs, processors, field", [
    (MAX_USERS + 1, 10, 10, "users"), (10, MAX_JOBS + 1, 10, "jobs"),
    (10, 10**9, 10, "jobs"), (10, 10, MAX_PROCESSORS + 1, "processors"),
    (0, 10, 10, "users"), (10, 10, 0, "processors"), (True, 10, 10, "users"),
])
def test_generators_refuse_sizes_out_of_range(users: int, jobs: int, processors: int,
                                               field: str) -> None:
    for make in (faircamp_workload, profiles_workload):
        with pytest.raises(InvalidInstanceError, match="whole number from 1 to") as info:
            make(users, jobs, 0, processors)
        assert info.value.field == field
    with pytest.raises(InvalidInstanceError):
        check_sizes(users, jobs, processors)


def test_generate_zero_processors_is_refused_not_the_default() -> None:
    """``processors=0`` used to mean the profile's default (``processors or 10``)."""
    for profile in ("faircamp", "profiles"):
        with pytest.raises(InvalidInstanceError) as info:
            generate(profile, 3, 10, 0, processors=0)
        assert info.value.field == "processors"
    assert generate("faircamp", 3, 10, 0).processors == 10
    assert generate("profiles", 3, 10, 0).processors == 64


def test_the_largest_generated_workload_loads() -> None:
    """At the limits, the workload file is one ``campaigns run`` accepts."""
    w = profiles_workload(MAX_USERS, 20, seed=1, processors=MAX_PROCESSORS)
    again = from_dict(json.loads(json.dumps(to_dict(w))))
    assert again.users == MAX_USERS and again.processors == MAX_PROCESSORS


@pytest.mark.parametrize("argv, shown", [
    (("--users", "100000000"), "--users 100000000: must be a whole number from 1 to "
                               "10,000,000"),
    (("--jobs", "1000000000"), "--jobs 1000000000: must be a whole number from 1 to "
                               "1,000,000"),
    (("--processors", "10000001"), "--processors 10000001: must be a whole number from 1 "
                                   "to 10,000,000"),
    (("--jobs", "0"), "--jobs 0: must be a whole number >= 1"),
])
def test_cli_generate_refuses_what_run_rejects(tmp_path: Path, argv: tuple[str, ...],
                                                shown: str) -> None:
    out = tmp_path / "g.json"
    line = one_error_line(lpsched("campaigns", "generate", *argv, "-o", str(out)))
    assert shown in line
    assert not out.exists()


def test_cli_generate_help_states_the_limits() -> None:
    proc = lpsched("campaigns", "generate", "--help")
    assert proc.returncode == 0 and proc.stderr == ""
    text = " ".join(proc.stdout.split())
    assert f"from 1 to {MAX_USERS:,}" in text and f"from 1 to {MAX_JOBS:,}" in text
    assert f"from 1 to {MAX_PROCESSORS:,}" in text


@pytest.mark.parametrize("argv, shown", [
    (("faircamp", "--jobs-per-instance", "2000000"), "--jobs-per-instance 2000000"),
    (("faircamp", "--users", "2,100000000"), "--users 2,100000000"),
    (("ostrich", "--users-per-instance", "0", "--trace", "t.swf"), "--users-per-instance 0"),
    (("ostrich", "--users-per-instance", "20000000", "--trace", "t.swf"),
     "--users-per-instance 20000000"),
])
def test_cli_reproduce_refuses_generator_sizes_up_front(tmp_path: Path,
                                                         argv: tuple[str, ...],
                                                         shown: str) -> None:
    line = one_error_line(lpsched("reproduce", *argv, "--out", str(tmp_path / "r")))
    assert shown in line
    assert not (tmp_path / "r").exists()
