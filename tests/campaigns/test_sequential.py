"""The ch. 4 shortcuts (lpsched.campaigns.sequential) against the engine-driven runs they
replace: the same starts, releases, deadlines, completions and event counts, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.campaigns import faircamp as fc_module
from lpsched.campaigns import sequential
from lpsched.campaigns.faircamp import FairCampPacked, faircamp, faircamp_packed
from lpsched.campaigns.generators import faircamp_workload, profiles_workload
from lpsched.campaigns.instance import Workload, make_workload
from lpsched.campaigns.metrics import rho_lengths
from lpsched.campaigns.offline import lpt
from lpsched.campaigns.policies import policy_factory
from lpsched.campaigns.reproduce import faircamp_cell, ostrich_cell
from lpsched.campaigns.schedule import CampaignRun
from lpsched.campaigns.simulator import simulate


def _ragged(seed: int) -> Workload:
    """Campaigns of 1 to 30 jobs, lengths with many ties (small integers) or none, users
    with gaps in their ids, 1 to 7 processors."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 8))
    ties = seed % 2 == 0
    camps = []
    for _ in range(int(rng.integers(1, 40))):
        size = int(rng.integers(1, 31))
        p = rng.integers(1, 5, size) if ties else rng.uniform(0.1, 50.0, size)
        camps.append({"user": int(rng.choice([0, 3, 4, 9])),
                      "jobs": [{"p": float(x)} for x in p]})
    return make_workload(m, camps)


WORKLOADS = ([faircamp_workload(k, 600, seed=s) for k in (1, 2, 5, 20) for s in (0, 1)]
             + [profiles_workload(6, 800, seed=3, processors=7), profiles_workload(10, 3000)]
             + [_ragged(s) for s in range(12)])


def _same(a: CampaignRun, b: CampaignRun) -> None:
    assert a.policy == b.policy
    assert np.array_equal(a.start, b.start)
    assert np.array_equal(a.release, b.release)
    assert a.events == b.events
    assert a.info.keys() == b.info.keys()
    for key, value in a.info.items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(value, b.info[key], equal_nan=True)
        else:
            assert value == b.info[key]


@pytest.mark.parametrize("w", WORKLOADS)
def test_fcfs_as_the_simulator(w: Workload) -> None:
    assert sequential.applies(w)
    for order in ("submission", "generation"):
        _same(sequential.fcfs(w, order),
              simulate(w, policy_factory("fcfs", False, fcfs_order=order)))


@pytest.mark.parametrize("w", WORKLOADS)
def test_faircamp_packed_as_the_simulator(w: Workload, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    fast = faircamp_packed(w)
    given = faircamp_packed(w, sequential.lpt_schedules(w)[1])
    monkeypatch.setattr(fc_module, "applies", lambda _w: False)
    slow = faircamp_packed(w)
    _same(fast, slow)
    _same(given, slow)
    ref = simulate(w, FairCampPacked)
    assert np.array_equal(fast.start, ref.start)


@pytest.mark.parametrize("w", WORKLOADS)
def test_faircamp_block_as_the_engine(w: Workload, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = faircamp(w)
    given = faircamp(w, sequential.lpt_schedules(w))
    monkeypatch.setattr(fc_module, "applies", lambda _w: False)
    slow = faircamp(w)
    _same(fast, slow)
    _same(given, slow)


@pytest.mark.parametrize("w", WORKLOADS)
def test_lpt_schedules_are_each_campaigns_lpt(w: Workload) -> None:
    zeta, lengths = sequential.lpt_schedules(w)
    assert np.array_equal(lengths, rho_lengths(w))
    for c in range(w.campaigns):
        lo, hi = int(w.offsets[c]), int(w.offsets[c + 1])
        assert np.array_equal(zeta[lo:hi], lpt(w.p[lo:hi], w.processors)[0])


def test_lpt_of_few_jobs_starts_them_together() -> None:
    start, makespan = lpt(np.array([2.0, 5.0, 1.0]), 3)
    assert start.tolist() == [0.0, 0.0, 0.0] and makespan == 5.0
    assert lpt(np.array([]), 2)[1] == 0.0
    assert lpt(np.array([3.0, 3.0, 2.0, 2.0, 2.0]), 2)[1] == 7.0


def test_applies_only_to_the_chapter_4_setting() -> None:
    base = {"user": 0, "jobs": [{"p": 1.0}]}
    assert sequential.applies(make_workload(2, [base]))
    assert not sequential.applies(make_workload(2, [{**base, "submit": 3.0}]))
    assert not sequential.applies(make_workload(2, [{**base, "think": 1.0}]))
    assert not sequential.applies(make_workload(2, [{"user": 0, "jobs": [{"p": 1.0,
                                                                           "q": 2}]}]))


def test_unknown_order_refused() -> None:
    w = faircamp_workload(2, 20)
    with pytest.raises(ValueError, match="order"):
        sequential.list_schedule(w, "random")
    with pytest.raises(ValueError, match="order"):
        sequential.fcfs(w, "deadline")


def test_reproduction_cell_as_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = {"k": 5, "seed": 7, "jobs": 1500, "policies": "x"}
    fast = faircamp_cell(cell)
    monkeypatch.setattr(sequential, "applies", lambda _w: False)
    monkeypatch.setattr(fc_module, "applies", lambda _w: False)
    slow = faircamp_cell(cell)
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in fast]
    assert strip == [{k: v for k, v in r.items() if k != "seconds"} for r in slow]


def test_profiles_cell_as_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = {"part": "profiles", "seed": 4, "jobs": 2000, "users": 10, "row_version": 2}
    fast = ostrich_cell(cell)
    monkeypatch.setattr(sequential, "applies", lambda _w: False)
    assert fast == ostrich_cell(cell)
