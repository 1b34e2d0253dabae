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


# -- resize_mode (spec A7): literal / fragmentation_only / none ---------------------------

def _three_jobs():
    """m = 3, closed loop, think 0: user 0 runs a (p 4, q 2) then b (p 4, q 1); user 1 runs
    c (p 4, q 2). Tags at 0: F_a = F_c = 8 (tie: user 0 first)."""
    return make_workload(3, [
        {"user": 0, "submit": None, "jobs": [{"p": 4.0, "q": 2}]},
        {"user": 0, "submit": None, "jobs": [{"p": 4.0, "q": 1}]},
        {"user": 1, "submit": None, "jobs": [{"p": 4.0, "q": 2}]}], 2)


@pytest.mark.parametrize("mode, b_start", [
    # [0, 4): a runs, c waits (does not fit): V gets 2 (literal, fragmentation) or 3
    # (none) for k = 2 users: V(4) = 4, 4, 6. At 4 b is submitted, gated until V = F_a = 8;
    # c runs, 1 processor idle and nothing eligible waits: V gets 2, 3, 3 from then on.
    ("literal", 8.0),                      # 4 + (8 - 4) / (2 / 2)
    ("fragmentation_only", 4 + 4 / 1.5),   # 4 + (8 - 4) / (3 / 2)
    ("none", 4 + 2 / 1.5),                 # 4 + (8 - 6) / (3 / 2)
])
def test_resize_modes_differ_hand_checked(mode, b_start) -> None:
    w = _three_jobs()
    run = simulate(w, lambda: OStrich(gate=True, first_fit=True, resize_mode=mode))
    validate(run)
    assert run.start[[0, 2]].tolist() == [0.0, 4.0]
    assert run.start[1] == pytest.approx(b_start, rel=1e-12)
    assert run.info["eligible_at"][1] == pytest.approx(b_start, rel=1e-12)
    assert run.info["resize_mode"] == mode and run.info["resize"] == (mode != "none")
    # V's served area: literal = R's busy area while a user is active (Lemma 6.2)
    want = {"literal": 2 * 4 + 2 * 4,                  # [0, 8): 2 busy
            "fragmentation_only": 2 * 4 + 3 * (b_start - 4),   # user 1 leaves at V = 8
            "none": 3 * b_start}[mode]
    # ... then user 0 alone until V = F_b = 12 (4 more units of area)
    assert run.info["virtual_area"] == pytest.approx(want + 4.0, rel=1e-12)


@pytest.mark.parametrize("mode", ["literal", "fragmentation_only", "none"])
def test_validation_checks_the_virtual_area_of_every_mode(mode) -> None:
    """The per-mode capacity rule is recomputed from R: a wrong V area is caught."""
    from dataclasses import replace

    from lpsched.errors import InvalidScheduleError

    run = simulate(_three_jobs(), lambda: OStrich(gate=True, first_fit=True,
                                                  resize_mode=mode))
    validate(run)
    bad = replace(run, info={**run.info, "virtual_area": run.info["virtual_area"] + 0.5})
    with pytest.raises(InvalidScheduleError, match="virtual-area"):
        validate(bad)
    other = "none" if mode != "none" else "literal"   # checked against its own rule only
    with pytest.raises(InvalidScheduleError, match="virtual-area"):
        validate(replace(run, info={**run.info, "resize_mode": other}))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.booleans(), st.booleans(), st.booleans())
def test_every_resize_mode_validates(seed, gate, first_fit, deps) -> None:
    """Every mode, with and without the gate, strict priority or first fit: the schedule
    validates (capacity, releases, precedences, gate, V's area by its mode's rule) and
    the run ends (no stall)."""
    w = random_workload(seed, users=3, campaigns=8, m=4, parallel=True, deps=deps,
                        open_loop=seed % 2 == 0)
    for mode in ("literal", "fragmentation_only", "none"):
        run = simulate(w, lambda m=mode: OStrich(gate=gate, first_fit=first_fit,
                                                 resize_mode=m))
        validate(run)
        assert np.all(np.isfinite(run.start))


class _LaggingLiteral(OStrich):
    """A misreading of literal resizing: V's capacity over ``[t, t')`` is R's busy count
    *before* the pass at ``t`` (so V runs with 0 processors from 0 until the first job
    ends, and again whenever R was idle before the pass). It makes V lag R, which is what
    spec A7's deadlock needs."""

    def __init__(self) -> None:
        super().__init__(gate=True, first_fit=True, resize_mode="none")

    def schedule(self) -> None:
        self.busy_before = self.sim.m - self.sim.free
        super().schedule()

    def after_pass(self) -> None:
        self.vc.m_eff = float(self.busy_before)
        super().after_pass()


def test_gate_deadlock_is_reported_and_avoided() -> None:
    """Spec A7: R fully idle while a user's next campaign waits at the gate, V frozen
    (m_eff = 0). Reported at once with a clear error (never a hang); fragmentation_only
    (V gets m while nothing eligible waits) and our literal (m_eff after the pass: V's
    area equals R's, so V catches up exactly when R idles) both complete."""
    from lpsched.errors import InvalidScheduleError

    w = make_workload(2, [{"user": 0, "submit": None, "jobs": [{"p": 5.0}]},
                          {"user": 0, "submit": None, "jobs": [{"p": 1.0}]}], 1)
    with pytest.raises(InvalidScheduleError, match=r"gate-deadlock.*fragmentation_only"):
        simulate(w, _LaggingLiteral)
    for mode in ("fragmentation_only", "literal", "none"):
        run = simulate(w, lambda m=mode: OStrich(gate=True, first_fit=True, resize_mode=m))
        validate(run)
        assert run.start.tolist() == [0.0, 5.0]           # V reached F_1 = 5 by t = 5
        assert run.info["eligible_at"][1] == 5.0


def test_policy_factory_resize_mode_and_defaults() -> None:
    from lpsched.errors import InvalidInstanceError

    seq, par = policy_factory("ostrich", False)(), policy_factory("ostrich", True)()
    assert (seq.gate, seq.resize_mode, seq.first_fit) == (True, "none", False)
    assert (par.gate, par.resize_mode, par.first_fit) == (False, "literal", True)
    p = policy_factory("ostrich", True, resize_mode="fragmentation_only", gate=True)()
    assert (p.gate, p.resize_mode, p.first_fit) == (True, "fragmentation_only", True)
    assert OStrich(resize=True).resize_mode == "literal"      # the older spelling
    with pytest.raises(InvalidInstanceError, match="resize_mode"):
        policy_factory("ostrich", True, resize_mode="half")
    with pytest.raises(InvalidInstanceError, match="resize_mode"):
        OStrich(resize_mode="half")
    with pytest.raises(InvalidInstanceError, match="OStrich"):
        policy_factory("fcfs", False, resize_mode="literal")
