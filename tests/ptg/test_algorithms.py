"""The 19 algorithms (seed 004 §4): every schedule validates, BACKFILL never delays, bounds
hold."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.errors import InvalidInstanceError, InvalidScheduleError
from lpsched.ptg.algorithms import cra_betas
from lpsched.ptg.bounds import lower_bounds
from lpsched.ptg.cafm import moldable_spec, shared_spec
from lpsched.ptg.hcpa import DEFAULT_BOUND, NO_BOUND, HcpaBound
from lpsched.ptg.model import CLUSTERS
from lpsched.ptg.problem import Problem
from lpsched.ptg.registry import ALGORITHMS, algorithm_names, run
from lpsched.ptg.schedule import validate
from tests.ptg.helpers import chain_fork, random_problem_ptgs, small_cluster

ISSUE_NAMES = ["selfish", "selfish-order", "selfish-weight", "c1", "c4", "f1", "f2",
               "cra-ndags", "cra-ndags-weight", "cra-work", "cra-work-weight", "cra-width",
               "cra-width-weight", "cafm-cra", "cafm-cra-weight", "cafm-saf", "cafm-sptf",
               "cafm-lptf", "cafm-k-shelves"]


def test_the_19_names() -> None:
    assert algorithm_names() == ISSUE_NAMES


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), count=st.integers(1, 4),
       procs=st.sampled_from([1, 3, 8, 20]),
       bound=st.sampled_from([str(DEFAULT_BOUND), "none", "efficiency:0.6", "level:1",
                              "budget:0.5"]))
def test_every_algorithm_validates_and_respects_bounds(seed: int, count: int,
                                                       procs: int, bound: str) -> None:
    pb = Problem(random_problem_ptgs(seed, count), small_cluster(procs), seed=seed,
                 hcpa_bound=HcpaBound.parse(bound))
    b = lower_bounds(pb)
    assert b.makespan_lp >= b.makespan_classical * (1 - 1e-6)
    assert (b.ptg_lp >= b.ptg_classical * (1 - 1e-6)).all()
    for name in ALGORITHMS:
        r = run(pb, name)  # validates raw and backfilled schedules
        assert (r.schedule.start <= r.before_backfill.start + 1e-9).all(), name
        m = r.metrics
        assert m.makespan >= b.makespan * (1 - 1e-9), name
        assert m.scaled_sum_completion >= b.ssct * (1 - 1e-9), name
        assert (m.completion >= np.fmax(b.ptg_classical, b.ptg_lp) * (1 - 1e-9)).all()
        assert 0 < m.utilisation <= 1 + 1e-9


@pytest.mark.parametrize("cluster", ["chti", "grillon"])
def test_a_ptg_alone_under_selfish_has_stretch_one(cluster: str) -> None:
    for seed in range(4):
        pb = Problem(random_problem_ptgs(seed, 1), CLUSTERS[cluster], seed=seed)
        r = run(pb, "selfish")
        assert r.before_backfill.makespan == pytest.approx(pb.cstar[0], rel=1e-12)
        assert r.metrics.max_stretch <= 1 + 1e-12


def test_validator_catches_violations() -> None:
    g = chain_fork({"a": (10.0, 0.0), "b": (10.0, 0.5)}, [("a", "b")])
    pb = Problem([g], small_cluster(4))
    s = run(pb, "selfish").schedule
    k = int(np.flatnonzero(~g.dummy)[1])
    bad = s.end.copy()
    bad[k] += 1.0
    with pytest.raises(InvalidScheduleError, match="Amdahl"):
        validate(type(s)(s.start, bad, s.alloc, s.procs, s.owner, s.order), [g], pb.cluster)
    early = s.start.copy()
    early[k] -= 5.0
    with pytest.raises(InvalidScheduleError):
        validate(type(s)(early, s.end - (s.start - early), s.alloc, s.procs, s.owner, s.order),
                 [g], pb.cluster)
    procs = list(s.procs)
    procs[k] = np.array([0, 0, 1, 2])[: int(s.alloc[k])]
    if s.alloc[k] >= 2:
        with pytest.raises(InvalidScheduleError, match="allocation"):
            validate(type(s)(s.start, s.end, s.alloc, procs, s.owner, s.order), [g], pb.cluster)


def test_cra_betas_equations() -> None:
    ptgs = random_problem_ptgs(3, 3)
    pb = Problem(ptgs, CLUSTERS["chti"])
    for strat in ("ndags", "work", "width"):
        beta = cra_betas(pb, strat)
        assert beta.sum() == pytest.approx(1.0) and (beta >= 1 / (2 * 3) - 1e-12).all()
    w = np.array([d.t1.sum() for d in pb.dags])
    assert cra_betas(pb, "work") == pytest.approx(1 / 6 + w / (2 * w.sum()))


def test_moldable_spec_is_the_running_minimum() -> None:
    pb = Problem(random_problem_ptgs(5, 3), CLUSTERS["chti"], seed=2)
    ms = moldable_spec(pb)
    for i in range(pb.N):
        raw = pb.spec_times(i)
        assert ms.hat[i] == pytest.approx(np.minimum.accumulate(raw))
        assert raw[ms.best[i] - 1] == pytest.approx(ms.hat[i])
        assert (ms.best[i] <= np.arange(1, pb.P + 1)).all()
    assert ms.hat[:, -1].max() <= ms.d_star * (1 + 1e-9)
    assert (1 <= ms.allotment).all() and (ms.allotment <= pb.P).all()
    assert np.array([pb.spec_times(i)[-1] for i in range(pb.N)]) == pytest.approx(pb.cstar)
    assert (ms.hat[:, -1] <= pb.cstar * (1 + 1e-12)).all()  # T̂_i(P) <= T_i(P) = C*_i


def test_c4_grafts_after_the_latest_fitting_task() -> None:
    # A: chain a1 → a2 → a3, 10 s each with α = 1 (T = 10 on any allocation): C*_A = 30,
    # remaining path after a1, a2, a3: 20, 10, 0. B: one 10 s task, C*_B = 10. The latest
    # task with remaining >= 10 is a2, so b must start after a2 ends (DECIDE-12).
    a = chain_fork({"a1": (10.0, 1.0), "a2": (10.0, 1.0), "a3": (10.0, 1.0)},
                   [("a1", "a2"), ("a2", "a3")], "A")
    b = chain_fork({"b": (10.0, 1.0)}, [], "B")
    pb = Problem([a, b], small_cluster(2))
    assert pb.cstar == pytest.approx([30.0, 10.0])
    raw = run(pb, "c4").before_backfill
    assert raw.start[3] >= raw.end[1] - 1e-9 and raw.start[3] == pytest.approx(20.0)
    assert raw.start[3] > 0 and run(pb, "c1").before_backfill.makespan == pytest.approx(30.0)


@pytest.mark.parametrize("name", ["f1", "f2"])
def test_fairness_maps_an_unstarted_ptg_first(name: str) -> None:
    # one processor; A (20 s) and B (10 s) both unstarted: the larger bottom level first;
    # then A has stretch 1 and B is unstarted (worst): B next (DECIDE-14).
    a = chain_fork({"x": (20.0, 0.0), "y": (5.0, 0.0)}, [("x", "y")], "A")
    b = chain_fork({"z": (10.0, 0.0)}, [], "B")
    pb = Problem([a, b], small_cluster(1))
    s = run(pb, name).before_backfill
    assert s.order.tolist() == [0, 2, 1]
    assert s.start.tolist() == pytest.approx([0.0, 30.0, 20.0])


def test_valid_reports_what_was_checked() -> None:
    g = chain_fork({"a": (10.0, 0.0), "b": (10.0, 0.5)}, [("a", "b")])
    pb = Problem([g], small_cluster(4))
    assert run(pb, "selfish").to_dict()["valid"] is True
    unchecked = run(pb, "selfish", check=False).to_dict()
    assert unchecked["valid"] is None  # not validated: neither true nor false


def test_shared_precomputation_is_reported_for_every_cafm_algorithm(monkeypatch) -> None:
    import time

    from lpsched.ptg import cafm

    real = cafm.moldable_spec

    def slow(pb: Problem) -> cafm.MoldableSpec:
        time.sleep(0.3)  # a known, large cost for the shared specification
        return real(pb)

    monkeypatch.setattr(cafm, "moldable_spec", slow)
    pb = Problem(random_problem_ptgs(3, 3), small_cluster(20), seed=3)
    first, second = run(pb, "cafm-cra"), run(pb, "cafm-lptf")
    for r in (first, second):
        assert set(r.shared) == {"standalone_hcpa", "moldable_spec"}
        assert r.shared["moldable_spec"] >= 0.3
        assert r.seconds < 0.3  # own time: the specification is not in it
        assert r.shared_seconds == pytest.approx(sum(r.shared.values()))
        d = r.to_dict()
        assert d["shared_seconds"] == r.shared_seconds and d["shared"] == r.shared
    assert second.shared == first.shared  # the later one shows the cost it did not pay
    assert set(run(pb, "selfish").shared) == {"standalone_hcpa"}


def test_improved_hcpa_bound_everywhere_but_cra() -> None:
    """The problem's bound (here every task on at most ⌈Pb/2⌉ processors) reaches the
    standalone allocations (C*), SELFISH, C1, the moldable specification and CAFM CRA;
    CRA's allocations keep only their own bound P_i (DECIDE-17), which is how a PTG gets
    a stretch below 1 (seed L592-597): one task, t1 = 100 s, α = 0.01, P = 8: alone
    T(4) = 100(0.01 + 0.99/4) = 25.75 s; CRA NDAGS with N = 1 gives it all 8 processors,
    T(8) = 13.375 s, stretch 13.375/25.75."""
    g = chain_fork({"x": (100.0, 0.01)}, [])
    half = Problem([g], small_cluster(8), hcpa_bound=HcpaBound("fraction", 0.5))
    assert half.selfish_alloc.tolist() == [4] and half.cstar == pytest.approx([25.75])
    assert Problem([g], small_cluster(8), hcpa_bound=NO_BOUND).selfish_alloc.tolist() == [8]
    for name in ("selfish", "c1", "c4", "f1", "cafm-cra", "cafm-k-shelves"):
        assert run(half, name).before_backfill.alloc.max() <= 4, name
    for p in range(1, 9):
        assert half.spec_schedule(0, p).alloc.max() <= -(-p // 2)
    assert shared_spec(half).hat[0, -1] == pytest.approx(25.75)
    cra = run(half, "cra-ndags")
    assert cra.schedule.alloc.tolist() == [8]
    assert cra.metrics.max_stretch == pytest.approx(13.375 / 25.75)


def test_runs_are_deterministic_under_the_default_bound() -> None:
    ptgs = random_problem_ptgs(11, 3)
    a = Problem(ptgs, CLUSTERS["grillon"], seed=5)
    b = Problem(ptgs, CLUSTERS["grillon"], seed=5)
    assert a.hcpa_bound == DEFAULT_BOUND
    for name in ALGORITHMS:
        ra, rb = run(a, name), run(b, name)
        assert np.array_equal(ra.schedule.start, rb.schedule.start), name
        assert np.array_equal(ra.schedule.alloc, rb.schedule.alloc), name


def test_problem_rejects_a_bound_that_is_not_one() -> None:
    with pytest.raises(InvalidInstanceError, match="hcpa_bound"):
        Problem(random_problem_ptgs(1, 1), small_cluster(4), hcpa_bound="fraction:0.5")
