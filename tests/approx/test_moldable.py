"""Moldable jobs (``lpsched.approx.moldable``, seed 004 §5): the MRT 3/2(1 + ε) dual
approximation, the K-shelf algorithm, their lower bounds on monotonic and repaired
tables, and the exact time-indexed MIP."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lpsched.approx import exact, moldable
from lpsched.approx.moldable import (
    MoldableSchedule,
    amdahl_table,
    check_table,
    knapsack_max,
    kshelf,
    mrt,
    mrt_test,
    simple_lower_bound,
    validate_moldable,
)
from lpsched.approx.ratios import moldable_table
from lpsched.errors import InvalidInstanceError, InvalidScheduleError

EPS = 1e-3


@st.composite
def tables(draw, max_m=40, max_n=30):
    m = draw(st.integers(1, max_m))
    n = draw(st.integers(1, max_n))
    kind = draw(st.integers(0, 3))
    seed = draw(st.integers(0, 2**31 - 1))
    return moldable_table(np.random.default_rng(seed), n, m, kind), m


@given(tables())
def test_mrt_is_within_three_halves_of_its_proven_bound(case):
    table, m = case
    r = mrt(table, m, eps=EPS)
    validate_moldable(table, r.schedule)
    assert r.extra["unbuilt_guesses"] == 0
    assert r.holds()  # makespan <= 3/2 (1 + eps) * proven lower bound
    assert r.makespan <= 1.5 * r.extra["d_star"] * (1 + 1e-9)
    assert r.extra["d_star"] <= (1 + EPS) * r.lower_bound * (1 + 1e-9)
    assert r.lower_bound >= moldable.simple_lower_bound(table) * (1 - 1e-12)


@given(tables(max_m=12, max_n=12))
def test_kshelf_schedules_are_valid_and_compaction_never_hurts(case):
    table, m = case
    base = mrt(table, m)
    c = base.extra["d_star"]
    packed = kshelf(table, m, cmax=c)
    nominal = kshelf(table, m, cmax=c, compact=False)
    validate_moldable(table, packed.schedule)
    validate_moldable(table, nominal.schedule)
    assert packed.makespan <= nominal.makespan * (1 + 1e-9)
    # every job sits on gamma(L_k) processors of the shelf it was packed in
    lengths = nominal.extra["shelf_lengths"]
    starts = np.cumsum([0.0, *lengths[:-1]])
    for j in range(table.shape[0]):
        k = int(np.argmin(np.abs(starts - nominal.schedule.start[j])))
        assert nominal.schedule.allotment[j] == moldable.canonical(table[j:j + 1],
                                                                   lengths[k])[0]
        assert nominal.schedule.end[j] - nominal.schedule.start[j] <= lengths[k] * (1 + 1e-9)


def integer_table(rng, n, m):
    """Whole-number Amdahl tables ``s + 12w/p`` (monotonic for m <= 4)."""
    s = rng.integers(0, 4, n)[:, None]
    w = rng.integers(1, 4, n)[:, None] * 12
    return (s + w / np.arange(1, m + 1)[None, :]).astype(float)


@pytest.mark.parametrize("seed", range(12))
def test_mrt_against_the_exact_mip(seed):
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 5)), int(rng.integers(1, 6))
    table = integer_table(rng, n, m)
    # a generous limit: the MIP must be proven optimal, however loaded the machine
    e = exact.makespan({"times": table.tolist(), "processors": m}, time_limit=120)
    assert e.optimal
    validate_moldable(table, e.schedule)
    r = mrt(table, m, eps=EPS)
    assert r.lower_bound <= e.makespan * (1 + 1e-9)  # the dual test never rejects OPT
    assert mrt_test(table, e.makespan * (1 + 1e-12)) is not None
    assert e.makespan <= r.makespan * (1 + 1e-9)
    assert r.makespan <= 1.5 * (1 + EPS) * e.makespan * (1 + 1e-9)


def test_exact_mip_on_a_hand_solved_instance():
    # two perfectly parallel jobs of work 4 on 2 processors and one sequential job of 2.
    # The work bound is 10/2 = 5, but no non-preemptive schedule reaches it: whichever
    # processor runs the sequential job, a parallel job must wait for it or run after the
    # other, so OPT = 6 (e.g. both parallel jobs on 2 processors, then the sequential one).
    table = np.array([[4.0, 2.0], [4.0, 2.0], [2.0, 2.0]])
    e = exact.makespan_moldable(table, 2)
    assert e.optimal and e.makespan == pytest.approx(6.0)
    assert moldable.simple_lower_bound(table) == pytest.approx(5.0)
    assert mrt(table, 2).makespan >= 6.0 - 1e-9


def test_mrt_on_hand_computed_instances():
    # two sequential unit jobs on 2 processors: both forced in S1, OPT = 1
    r = mrt([[1.0, 1.0], [1.0, 1.0]], 2, eps=EPS)
    assert r.makespan == pytest.approx(1.0)
    assert r.extra["shelf_1"] == 2
    # one perfectly parallel job of work 2: OPT = 1, any d < 1 is rejected (T(m) > d)
    assert mrt_test(np.array([[2.0, 1.0]]), 0.99) is None
    step = mrt_test(np.array([[2.0, 1.0]]), 1.0)
    assert step is not None and step.allotment.tolist() == [2]
    # the work bound rejects: three sequential jobs of 1 on 2 processors need d >= 1.5
    assert mrt_test(np.full((3, 2), 1.0), 1.4) is None  # W = 3 > 2 * 1.4
    assert mrt_test(np.full((3, 2), 1.0), 2.0) is not None


def test_transformation_rules_fit_an_overflowing_second_shelf():
    # both jobs are big with gamma(d) = 1 and gamma(d/2) = 2 at d = 36; zero knapsack profit
    # leaves both in S2 (4 processors > 2): rule (i) moves each to S0 on gamma(54) = 1.
    table = np.array([[36.0, 18.0], [36.0, 18.0]])
    step = mrt_test(table, 36.0)
    assert step is not None and step.shelf.tolist() == [2, 2]
    sched = moldable._shelves(table, step)
    assert sched is not None
    validate_moldable(table, sched)
    assert sched.allotment.tolist() == [1, 1] and sched.makespan == pytest.approx(36.0)


# instances found by a seeded search where shelf S2 overflows and rule (ii) or (iii) is needed
RULE_II = ([[120.0, 60.0, 40.0, 30.0], [122.0, 62.0, 42.0, 32.0], [180.0, 90.0, 60.0, 45.0]],
           106.0625)


RULE_III = ([[62.0, 32.0, 22.0, 17.0], [180.0, 90.0, 60.0, 45.0], [61.0, 31.0, 21.0, 16.0],
             [120.0, 60.0, 40.0, 30.0]], 105.8203125)


@pytest.mark.parametrize(("rows", "d", "rule"), [(*RULE_II, "ii"), (*RULE_III, "iii")])
def test_rules_ii_and_iii_free_processors_for_an_s2_job(rows, d, rule):
    table = np.array(rows)
    m = table.shape[1]
    step = mrt_test(table, d)
    assert step is not None
    assert step.allotment[step.shelf == 2].sum() > m  # S2 alone does not fit
    sched = moldable._shelves(table, step)
    assert sched is not None
    validate_moldable(table, sched)
    assert sched.makespan <= 1.5 * d * (1 + 1e-9)
    s1 = np.flatnonzero(step.shelf == 1)
    if rule == "ii":  # an S1 job runs on one processor fewer
        assert (sched.allotment[s1] < step.allotment[s1]).any()
    else:  # two one-processor S1 jobs share a processor
        singles = [j for j in s1 if sched.allotment[j] == 1]
        assert any(sched.processors[a].tolist() == sched.processors[b].tolist()
                   for a, b in itertools.combinations(singles, 2))


def test_knapsack_dp_matches_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(60):
        n, cap = int(rng.integers(1, 9)), int(rng.integers(0, 12))
        w, v = rng.integers(1, 7, n), np.round(rng.uniform(0, 5, n), 2)
        mask = knapsack_max(w, v, cap)
        assert w[mask].sum() <= cap
        best = max(v[list(s)].sum() for r in range(n + 1)
                   for s in itertools.combinations(range(n), r) if w[list(s)].sum() <= cap)
        assert v[mask].sum() == pytest.approx(best)


def test_mrt_bad_inputs_are_clear():
    with pytest.raises(InvalidInstanceError, match="column"):
        mrt([[2.0, 1.0]], 3)
    with pytest.raises(InvalidInstanceError, match=r"times\[0\]\[1\]"):
        mrt([[2.0, -1.0]], 2)
    with pytest.raises(InvalidInstanceError, match="finite"):
        mrt([[2.0, float("nan")]], 2)
    with pytest.raises(InvalidInstanceError, match="processors"):
        mrt([[2.0]], 0)
    with pytest.raises(InvalidInstanceError, match="monotonic"):
        mrt([[1.0, 2.0]], 2)
    with pytest.raises(InvalidInstanceError, match="work"):
        mrt([[4.0, 1.0]], 2)  # superlinear speed-up
    with pytest.raises(InvalidInstanceError, match="eps"):
        mrt([[1.0]], 1, eps=0)
    with pytest.raises(InvalidInstanceError, match="cmax"):
        kshelf([[4.0, 2.0]], 2, cmax=1.0)
    with pytest.raises(InvalidInstanceError, match="whole"):
        exact.makespan_moldable([[1.5]], 1)
    with pytest.raises(InvalidInstanceError, match="keys"):
        exact.makespan({"widgets": 1})


def test_repair_mode_reports_the_lost_guarantee():
    table, mono = check_table([[1.0, 2.0]], 2, repair=True)
    assert mono and table.tolist() == [[1.0, 1.0]]
    with pytest.warns(UserWarning, match="work decreases"):
        r = mrt([[4.0, 1.0]], 2, repair=True)
    assert r.extra["monotonic"] is False and math.isinf(r.guarantee)


def test_the_monotony_errors_say_how_to_accept_the_table() -> None:
    with pytest.raises(InvalidInstanceError, match=r"pass repair=True") as err:
        check_table([[1.0, 2.0]], 2)
    assert "monotonic" in str(err.value)
    with pytest.raises(InvalidInstanceError, match=r"pass repair=True") as err:
        check_table([[4.0, 1.0]], 2)
    assert "non-decreasing" in str(err.value) and "3/2 guarantee" in str(err.value)


def test_validate_moldable_catches_broken_schedules():
    table = np.array([[2.0, 1.0], [2.0, 1.0]])
    ok = mrt(table, 2).schedule
    validate_moldable(table, ok)
    clash = MoldableSchedule(np.zeros(2), np.full(2, 2.0), np.ones(2, int),
                             (np.array([0]), np.array([0])))
    with pytest.raises(InvalidScheduleError, match="at once"):
        validate_moldable(table, clash)
    short = MoldableSchedule(np.zeros(2), np.ones(2), np.ones(2, int),
                             (np.array([0]), np.array([1])))
    with pytest.raises(InvalidScheduleError, match="runs"):
        validate_moldable(table, short)


def test_mrt_100_jobs_on_1024_processors_is_fast():
    rng = np.random.default_rng(0)
    table = amdahl_table(rng.uniform(1, 100, 100), rng.uniform(0, 0.2, 100), 1024)
    r = mrt(table, 1024)
    validate_moldable(table, r.schedule)
    assert r.holds() and r.extra["dual_tests"] <= 40


# -- tables whose work is not monotonic (repair=True): decision 241 ------------------


def _optimum_two_processors(table: np.ndarray) -> float:
    """Brute-force optimum of moldable jobs on 2 processors: the jobs on both processors
    run alone (one after another), the others are a P2||Cmax on their one-processor times."""
    n = table.shape[0]
    best = math.inf
    for wide in itertools.product((False, True), repeat=n):
        both = sum(table[j, 1] for j in range(n) if wide[j])
        ones = [table[j, 0] for j in range(n) if not wide[j]]
        split = min((max(sum(ones[i] for i in range(len(ones)) if side[i]),
                         sum(ones[i] for i in range(len(ones)) if not side[i]))
                     for side in itertools.product((False, True), repeat=len(ones))),
                    default=0.0)
        best = min(best, both + split)
    return best


def test_mrt_reports_a_valid_lower_bound_on_a_superlinear_table() -> None:
    """``{"times": [[10, 1]]}`` repaired: the monotone formula would give a lower bound
    of 5 for a makespan of 1."""
    with pytest.warns(UserWarning, match="work decreases"):
        r = mrt([[10.0, 1.0]], 2, repair=True)
    assert r.makespan == 1.0 and r.lower_bound == 1.0 and r.holds()
    assert r.extra["monotonic"] is False and math.isinf(r.guarantee)


def test_repaired_lower_bounds_never_exceed_the_optimum() -> None:
    """Random superlinear tables on 2 processors: every lower bound is <= the brute-force
    optimum <= the makespan (the monotone formula Σ T[j, 0]/m exceeds both)."""
    rng = np.random.default_rng(3)
    above_old = 0
    for _ in range(150):
        n = int(rng.integers(1, 6))
        t1 = rng.uniform(1, 20, n)
        table = np.c_[t1, t1 * rng.uniform(0.05, 1.0, n)]  # work may fall below T(1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            hat, _ = check_table(table, 2, repair=True)
            results = [mrt(table, 2, repair=True), kshelf(table, 2, repair=True),
                       kshelf(table, 2, repair=True, compact=False)]
        opt = _optimum_two_processors(hat)
        for r in results:
            validate_moldable(hat, r.schedule)
            assert r.lower_bound <= opt * (1 + 1e-12) <= r.makespan * (1 + 1e-9), r
            assert r.holds()
        above_old += simple_lower_bound(hat) > opt * (1 + 1e-9)
    assert above_old > 0  # the monotone formula is wrong on these tables


def test_kshelf_passes_repair_on_to_mrt() -> None:
    """kshelf(repair=True) hands the repaired table to MRT, which would refuse the
    original."""
    with pytest.warns(UserWarning, match="work decreases"):
        r = kshelf([[10.0, 1.0], [10.0, 1.0]], 2, repair=True)
    assert r.makespan == 2.0 and r.lower_bound == 2.0 and r.holds()
    with pytest.raises(InvalidInstanceError, match="non-decreasing"):
        kshelf([[10.0, 1.0], [10.0, 1.0]], 2)


def test_monotonic_tables_keep_their_bounds() -> None:
    """On a monotonic table both formulas of the simple bound agree, and MRT's answer is
    the one pinned here."""
    table = np.array([[4.0, 2.0, 1.5], [3.0, 1.6, 1.2], [2.0, 2.0, 2.0]])
    assert simple_lower_bound(table) == simple_lower_bound(table, monotonic=True) == 3.0
    assert simple_lower_bound(table, monotonic=False) == 3.0  # the same on this table
    r = mrt(table, 3)
    assert (r.makespan, round(r.lower_bound, 3)) == (4.5, 3.166)
