"""Offline results (seed 002 ch. 2-3): LPT (B2), MULTICAMP / MULTICMAX vector ratios against
exact optima (B5), the tight and lower-bound instances B4, B6, B7, B9, the fair-share
factor (B8)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.campaigns.instance import from_dict, make_workload
from lpsched.campaigns.offline import (
    acamp,
    exact_cmax,
    fair_share_factor,
    lpt,
    lpt_ratio,
    multicamp,
    multicmax,
    round_robin_flows,
    zenith,
)
from lpsched.errors import InvalidInstanceError
from tests.campaigns.helpers import DEP


def unit_campaigns(k: int, n: int, m: int):
    """Prop 3.4: every user has n campaigns of m unit jobs."""
    return make_workload(m, [{"user": u, "jobs": [{"p": 1.0}] * m} for u in range(k)
                             for _ in range(n)])


def test_lpt_and_exact_on_the_classic_tight_instance() -> None:
    # the LPT-tight instance for m = 2: 3,3,2,2,2 -> LPT 7, optimum 6 = 7 / (4/3 - 1/6)
    p = np.array([3.0, 3.0, 2.0, 2.0, 2.0])
    assert lpt(p, 2)[1] == 7.0 and exact_cmax(p, 2) == 6.0
    assert lpt(p, 2)[1] == pytest.approx(lpt_ratio(2) * 6.0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=8), st.integers(1, 4))
def test_lpt_ratio_b2(p, m) -> None:
    p = np.array(p, dtype=float)
    assert lpt(p, m)[1] <= lpt_ratio(m) * exact_cmax(p, m) + 1e-9
    assert exact_cmax(p, m) >= max(p.sum() / m, p.max()) - 1e-9


def test_prop_3_4_instance_b4() -> None:
    """Users finish at n, 2n, ..., kn under MULTICAMP; round robin gives kn-k+1 .. kn."""
    k, n, m = 3, 4, 2
    sched = multicamp(unit_campaigns(k, n, m))
    assert sorted(sched.total_flow.tolist()) == [n, 2 * n, 3 * n]
    assert round_robin_flows(k, n) == [10, 11, 12]


def test_multicmax_idle_gap_b6() -> None:
    """2 users with floor(m/2) jobs of length p: MULTICMAX 2p, optimum p."""
    m, p = 4, 5.0
    w = make_workload(m, [{"user": u, "jobs": [{"p": p}] * (m // 2)} for u in range(2)])
    assert multicmax(w).makespan == 2 * p
    assert exact_cmax(w.p, m) == p


def test_pareto_toy_b7() -> None:
    """Fig. 2.6: one machine, user 1 (4, 4), user 2 (3, 7): zenith (8, 10), MULTICMAX A =
    (8, 18)."""
    w = make_workload(1, [{"user": 0, "jobs": [{"p": 4.0}, {"p": 4.0}]},
                          {"user": 1, "jobs": [{"p": 3.0}, {"p": 7.0}]}])
    assert zenith(w, exact=True).tolist() == [8.0, 10.0]
    assert multicmax(w).total_flow.tolist() == [8.0, 18.0]


def test_fair_share_factor_b8() -> None:
    """Fig. 2.14 at t = 2: the dark user used everything (U = 1), S = 1/3: F = 0.125."""
    assert fair_share_factor(np.array([1.0, 0.0, 0.0]), 1 / 3).tolist() == [0.125, 1.0, 1.0]
    assert fair_share_factor(np.array([1 / 3]), 1 / 3)[0] == 0.5  # exactly at share


def test_prop_3_2_tight_b9() -> None:
    """m unit jobs each in its own campaign: C_σ* = σ Cmax* = σ."""
    m = 3
    w = make_workload(m, [{"user": 0, "jobs": [{"p": 1.0}]} for _ in range(m)])
    assert acamp(w, 0)[1] == m * exact_cmax(w.p, m) == 3.0


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_multicamp_vector_ratio_b5_b10(seed: int) -> None:
    """The r-th user in MULTICAMP's order gets ΣΔ <= r ρ ΣΔ* (exact zenith per user)."""
    rng = np.random.default_rng(seed)
    m, k = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    camps = [{"user": int(rng.integers(0, k)),
              "jobs": [{"p": float(rng.integers(1, 10))} for _ in range(rng.integers(1, 6))]}
             for _ in range(int(rng.integers(1, 7)))]
    w = make_workload(m, camps, k)
    sched = multicamp(w)
    opt = zenith(w, exact=True)
    rho = lpt_ratio(m)
    for r, u in enumerate(sched.order.tolist(), start=1):
        assert sched.total_flow[u] <= r * rho * opt[u] + 1e-9
        assert acamp(w, u)[1] <= rho * opt[u] + 1e-9  # A-camp, Prop 3.3


def test_multicmax_refuses_parallel_jobs_as_multicamp_does() -> None:
    w = make_workload(4, [{"user": u, "submit": None, "jobs": [{"p": 2.0, "q": 3}]}
                          for u in range(5)], 5)
    for algorithm in (multicamp, multicmax):
        with pytest.raises(InvalidInstanceError, match="sequential"):
            algorithm(w)


# -- dependencies are refused (decision 246) ------------------------------------------------

def test_offline_algorithms_refuse_dependencies() -> None:
    w = from_dict(DEP)
    for name, run in (("MULTICAMP", multicamp), ("MULTICMAX", multicmax),
                      ("A-camp", lambda w: acamp(w, 0))):
        with pytest.raises(InvalidInstanceError, match=f"{name} takes independent") as info:
            run(w)
        assert (info.value.field, info.value.value) == ("deps", 1)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_offline_grouping_by_user_equals_per_user_scans(seed: int) -> None:
    """MULTICAMP / MULTICMAX group campaigns per user in one stable sort (decision 246):
    the same schedule as per-user scans (computed here)."""
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
