"""OStrich (seed 002 ch. 5-6): the virtual-clock example (B18), the ch. 6 two-user
comparison (B29), the invariants of spec §9.4 and the bounds B20, B31, B32 as properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.campaigns.instance import make_workload
from lpsched.campaigns.ostrich import OStrich, VirtualClock, parallel_ostrich
from lpsched.campaigns.policies import policy_factory
from lpsched.campaigns.schedule import previous_campaign, validate
from lpsched.campaigns.simulator import simulate
from tests.campaigns.helpers import random_workload


def test_virtual_clock_example_b18() -> None:
    """Fig. 5.1, m = 6 [L1188-L1199] (spec §5.3, erratum A18: s̃_2^3 = 7, not 8)."""
    vc = VirtualClock(6)
    vc.advance(0.0)
    vc.submit(0, 1, 48.0)
    vc.submit(1, 2, 18.0)
    assert [vc.projected(0, 0.0), vc.projected(1, 0.0)] == [16.0, 6.0]
    vc.advance(2.0)
    assert vc.V == 6.0
    vc.submit(2, 3, 10.0)
    assert [vc.projected(c, 2.0) for c in (0, 1, 2)] == [23.0, 8.0, 7.0]
    vc.advance(5.0)
    assert vc.submit(3, 3, 8.0) is False          # gated until V reaches F_1^3
    assert vc.projected(3, 5.0) == 11.0
    assert vc.time_of(vc.S[3], 5.0) == 7.0        # s̃_2^3 = C̃_1^3 = 7
    assert vc.advance(7.0) == [3]                 # eligible exactly at 7
    vc.advance(8.0)
    assert vc.k == 2                              # user 2 left V at 8 (F = 18)
    vc.submit(4, 2, 10.0)
    assert vc.projected(4, 8.0) == 13.0
    vc.advance(11.0)
    assert vc.k == 2 and vc.V == 24.0             # user 3 left at 11
    assert vc.projected(4, 11.0) == pytest.approx(12 + 1 / 3)


def two_users(x: float):
    """Two campaigns at t = 0 on m = 2: light (two jobs of x), dark (two unit jobs)."""
    return make_workload(2, [{"user": 0, "submit": 0.0, "jobs": [{"p": x}, {"p": x}]},
                             {"user": 1, "submit": 0.0, "jobs": [{"p": 1.0}, {"p": 1.0}]}])


@pytest.mark.parametrize("policy, light, dark", [
    ("ostrich", 11.0, 1.0),      # dark optimal, light at x + 1
    ("fcfs", 10.0, 11.0),        # dark waits for light
    ("space-share", 12.0, 2.0),  # one processor each; re-split when dark leaves at 2
])
def test_two_user_comparison_b29(policy, light, dark) -> None:
    w = two_users(10.0)
    run = simulate(w, policy_factory(policy, False))
    validate(run)
    assert run.completion.tolist() == [light, dark]


def test_parallel_two_user_comparison_b29() -> None:
    w = make_workload(4, [{"user": 0, "submit": 0.0, "jobs": [{"p": 10.0, "q": 4}]},
                          {"user": 1, "submit": 0.0, "jobs": [{"p": 1.0, "q": 2},
                                                              {"p": 1.0, "q": 2}]}])
    run = simulate(w, parallel_ostrich)
    validate(run)
    assert run.completion.tolist() == [11.0, 1.0]


def _check_gate(run) -> None:
    w = run.workload
    assert np.all(run.start >= run.info["eligible_at"][w.camp] - 1e-9)


def _area_in(run, intervals: np.ndarray) -> float:
    """Busy area of R inside the intervals (independent of the policy)."""
    w = run.workload
    s, e = run.start, run.end
    total = 0.0
    for a, b in intervals:
        total += float(np.sum(w.q * np.clip(np.minimum(e, b) - np.maximum(s, a), 0, None)))
    return total


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.booleans())
def test_sequential_invariants_and_bound_b20(seed: int, open_loop: bool) -> None:
    """Gate s >= s̃, Eq. (5.3): C_i <= t_i + k (W_{i-1} + W_i)/m + 3 p_max."""
    w = random_workload(seed, users=3, campaigns=9, m=3, open_loop=open_loop)
    run = simulate(w, policy_factory("ostrich", False))
    validate(run)
    _check_gate(run)
    prev = previous_campaign(w)
    work = w.work
    w_prev = np.where(prev >= 0, work[np.maximum(prev, 0)], 0.0)
    k = np.unique(w.user).size
    bound = run.release + k * (w_prev + work) / w.processors + 3 * w.p.max()
    assert np.all(run.completion <= bound + 1e-9), "Eq. (5.3) violated: a finding"
    tags = run.info["finish_tag"]
    assert np.all(np.isfinite(tags))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.booleans())
def test_parallel_lemma_6_2_and_bound_b32(seed: int, deps: bool) -> None:
    """V's executed area equals R's while users are active (Lemma 6.2); Eq. (6.2)."""
    w = random_workload(seed, users=3, campaigns=8, m=4, parallel=True, deps=deps)
    w = make_workload(4, [dict(c, jobs=[dict(j, q=min(j["q"], 2)) for j in c["jobs"]])
                          for c in _camps(w)], w.users)
    run = simulate(w, parallel_ostrich)
    validate(run)
    v_area = run.info["virtual_area"]
    assert v_area == pytest.approx(_area_in(run, run.info["active_intervals"]), rel=1e-9)
    if not deps:
        alpha = 2 / 4
        prev = previous_campaign(w)
        work = w.work
        w_prev = np.where(prev >= 0, work[np.maximum(prev, 0)], 0.0)
        k = np.unique(w.user).size
        bound = run.release + k * (w_prev + work) / (w.processors * (1 - alpha)) + w.p.max()
        assert np.all(run.completion <= bound + 1e-9), "Eq. (6.2) violated: a finding"


def _camps(w):
    from lpsched.campaigns.instance import to_dict
    return to_dict(w)["campaigns"]


def test_no_gate_strict_priority_variant_runs() -> None:
    w = random_workload(7, users=3, campaigns=10, m=3, deps=True)
    run = simulate(w, lambda: OStrich(gate=False))
    validate(run)


def _busy_area(run, a: float, b: float) -> float:
    return _area_in(run, np.array([[a, b]]))


def _measure_in(intervals: np.ndarray, a: float, b: float) -> float:
    return float(sum(max(0.0, min(e, b) - max(s, a)) for s, e in intervals))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.booleans())
def test_lemma_5_1_idle_areas_b19(seed: int, open_loop: bool) -> None:
    """Between the first and the last job start, R idles at most m p_max more than V."""
    w = random_workload(seed, users=3, campaigns=9, m=3, open_loop=open_loop)
    run = simulate(w, policy_factory("ostrich", False))
    a, b = float(run.start.min()), float(run.start.max())
    m = w.processors
    idle_r = m * (b - a) - _busy_area(run, a, b)
    idle_v = m * (b - a) - m * _measure_in(run.info["active_intervals"], a, b)
    assert idle_r - idle_v <= m * w.p.max() + 1e-9, "Lemma 5.1 violated: a finding"


@pytest.mark.parametrize("policy", ["ostrich", "fcfs", "space-share", "fair-share"])
def test_lower_bound_instance_b21_b33(policy) -> None:
    """Prop 5.1: k users with m unit jobs each at t = 0: someone finishes at k. Space
    sharing gives every user stretch k (B33)."""
    k, m = 3, 6
    w = make_workload(m, [{"user": u, "submit": 0.0, "jobs": [{"p": 1.0}] * m}
                          for u in range(k)])
    run = simulate(w, policy_factory(policy, False, tick=1.0))
    validate(run)
    assert run.completion.max() == k
    if policy == "space-share":
        assert run.completion.tolist() == [k] * k
    if policy == "ostrich":
        assert sorted(run.completion.tolist()) == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("lifo", [False, True])
def test_prop_5_2_tight_instance_b22(lifo) -> None:
    """k users; campaign 1 = m jobs of p_max at 0, campaign 2 = m unit jobs right after.
    With adversarial (LIFO) ties D_2^1 = (k-1) p_max + k; with FIFO ties user 1 goes first."""
    k, m, pmax = 3, 2, 5.0
    camps = [{"user": u, "submit": None, "jobs": [{"p": pmax}] * m} for u in range(k)]
    camps += [{"user": u, "submit": None, "jobs": [{"p": 1.0}] * m} for u in range(k)]
    w = make_workload(m, camps)
    run = simulate(w, lambda: OStrich(lifo_ties=lifo))
    validate(run)
    d = (run.completion - run.release) / w.lower_bound
    assert run.completion[:k].tolist() == [pmax * (u + 1) for u in range(k)]
    want = (k - 1) * pmax + k if lifo else (k - 1) * pmax + 1
    assert d[k] == want


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.booleans())
def test_parallel_greedy_lemma_6_1_b30(seed: int, deps: bool) -> None:
    """Greedy first fit: whenever a released job waits, fewer processors are idle than the
    smallest waiting job needs (so at most alpha m: Lemma 6.1). Checked from the schedule."""
    w = random_workload(seed, users=3, campaigns=8, m=5, parallel=True, deps=deps)
    run = simulate(w, parallel_ostrich)
    validate(run)
    s, e = run.start, run.end
    avail = run.release[w.camp].copy()
    for a, b in zip(w.dep_src.tolist(), w.dep_dst.tolist(), strict=True):
        avail[b] = max(avail[b], e[a])
    for t in np.unique(np.concatenate((s, e))).tolist():
        busy = int(w.q[(s <= t) & (t < e)].sum())
        waiting = (avail <= t) & (t < s)
        if waiting.any():
            assert w.processors - busy < w.q[waiting].min(), f"idle at {t}: a finding"
