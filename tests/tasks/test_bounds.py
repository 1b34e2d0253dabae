"""Lower bounds (``lpsched.tasks.bounds``): the exact preemptive max-stretch / max-flow search
against brute force, flow against LP, speed-m below exact, the sum-flow bound against SRPT
on one processor, and what happens at the edge of the float range."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from lpsched.errors import LpschedError
from lpsched.tasks import TaskInstance, evaluate
from lpsched.tasks.bounds import (
    edf_speed_feasible,
    flow_feasible,
    lower_bounds,
    lp_feasible,
    max_weighted_flow_bound,
    sum_flow_bound,
)


def brute_force(inst: TaskInstance, weights: np.ndarray, step: float,
                objective: str = "max") -> float:
    """The best preemptive, migratory schedule whose decisions change only on a grid of
    ``step`` (every subset of at most m released tasks in every slot): ``max`` of the
    weighted flows, or their ``sum``. Grid schedules are schedules, so the true optimum
    is at most this value."""
    r = inst.release
    units = tuple(round(x / step) for x in inst.p)
    n, m = inst.n, inst.processors

    @functools.cache
    def best(slot: int, rem: tuple[int, ...]) -> float:
        if not any(rem):
            return 0.0
        t = slot * step
        ready = [j for j in range(n) if rem[j] and r[j] <= t + 1e-9]
        if not ready:
            return best(slot + 1, rem)
        out = np.inf
        for k in range(1, min(m, len(ready)) + 1):
            for chosen in itertools.combinations(ready, k):
                new = list(rem)
                done = 0.0
                for j in chosen:
                    new[j] -= 1
                    if new[j] == 0:
                        flow = (t + step - r[j]) / weights[j]
                        done = max(done, flow) if objective == "max" else done + flow
                rest = best(slot + 1, tuple(new))
                out = min(out, max(done, rest) if objective == "max" else done + rest)
        return out

    zero = [(r[j] / weights[j]) for j in range(n) if units[j] == 0]
    assert not zero, "brute force needs p > 0"
    return best(0, units)


TINY = [
    TaskInstance(1, [0, 1, 2], [3, 1, 1]),
    TaskInstance(2, [0, 0, 0], [2, 2, 2]),
    TaskInstance(2, [0, 1, 1], [3, 1, 2]),
    TaskInstance(2, [0, 0, 2], [2, 3, 1]),
    TaskInstance(1, [0, 0], [2, 1]),
    TaskInstance(3, [0, 0, 1, 1], [2, 1, 1, 3]),
]


@pytest.mark.parametrize("inst", TINY)
@pytest.mark.parametrize("kind", ["flow", "stretch"])
def test_exact_bound_against_brute_force(inst: TaskInstance, kind: str) -> None:
    w = np.ones(inst.n) if kind == "flow" else np.maximum(inst.p, 1.5)
    brute = brute_force(inst, w, 0.5)
    exact = max_weighted_flow_bound(inst, "flow", weights=w)
    lp = max_weighted_flow_bound(inst, "lp", weights=w)
    speed = max_weighted_flow_bound(inst, "speed-m", weights=w)
    assert exact.value <= brute * (1 + 1e-9)
    assert speed.value <= exact.upper * (1 + 1e-6)
    assert exact.value == pytest.approx(lp.value, rel=1e-5)
    assert exact.upper <= brute * (1 + 1e-6)
    if kind == "flow":  # integral deadlines: a half-unit grid holds an optimal schedule
        assert exact.upper == pytest.approx(brute, rel=1e-5)


def test_mcnaughton_case() -> None:
    """Three tasks of 2 at time 0 on two processors: preemptive max-flow 3."""
    inst = TaskInstance(2, [0, 0, 0], [2, 2, 2])
    bound = max_weighted_flow_bound(inst, "flow", weights=np.ones(1))
    assert bound.value == pytest.approx(3, rel=1e-5) and bound.kind == "preemptive-exact"
    # the speed-m machine finishes everything by 3 as well, but a single task by 1
    assert max_weighted_flow_bound(inst, "speed-m", weights=np.ones(1)).value <= 3 + 1e-6


def test_per_task_cap_makes_the_exact_bound_stronger() -> None:
    """One task of 4 on two processors: the speed-m machine alone does it in 2, the
    trivial bound (taken by both) says 4. Four tasks on two processors: speed-m (with the
    trivial bound) says 4, the exact optimum is 5."""
    inst = TaskInstance(2, [0.0], [4.0])
    assert max_weighted_flow_bound(inst, "speed-m", weights=np.ones(1)).value == 4
    assert max_weighted_flow_bound(inst, "flow", weights=np.ones(1)).value == 4
    inst = TaskInstance(2, [1.0, 2.0, 2.0, 3.0], [3.0, 4.0, 2.0, 3.0])
    assert max_weighted_flow_bound(inst, "speed-m", weights=np.ones(1)).value == 4
    assert max_weighted_flow_bound(inst, "flow", weights=np.ones(1)).value == pytest.approx(
        5, rel=1e-5)


def test_feasibility_tests_agree() -> None:
    rng = np.random.default_rng(0)
    for _ in range(30):
        n, m = int(rng.integers(1, 8)), int(rng.integers(1, 4))
        r = rng.integers(0, 6, n).astype(float)
        p = rng.integers(1, 5, n).astype(float)
        d = r + p + rng.integers(0, 6, n)
        f, lp = flow_feasible(r, p, d, m), lp_feasible(r, p, d, m)
        assert f == lp
        # the test rounded against the schedule accepts only feasible deadlines
        assert not flow_feasible(r, p, d, m, strict=True) or lp
        assert flow_feasible(r, p, d + 1e-6, m, strict=True) == lp_feasible(r, p, d + 1e-6, m)
        if f:  # feasible on m processors -> feasible on one of speed m
            assert edf_speed_feasible(r, p, d, m)


@pytest.mark.parametrize("seed", range(6))
def test_sum_flow_srpt_on_one_processor_is_optimal(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 5))
    inst = TaskInstance(1, rng.integers(0, 4, n).astype(float),
                        rng.integers(1, 4, n).astype(float))
    brute = brute_force(inst, np.ones(n), 1.0, objective="sum")
    srpt = evaluate(inst, "srpt").metrics["sum_flow"]
    gsrpt = evaluate(inst, "gsrpt").metrics["sum_flow"]
    bound = sum_flow_bound(inst)
    assert srpt == pytest.approx(brute) and gsrpt == pytest.approx(brute)
    assert bound.value <= brute + 1e-9
    assert bound.value == pytest.approx(brute)  # speed 1: the bound is SRPT itself


def test_lower_bounds_switch_to_speed_m_above_the_limit() -> None:
    inst = TaskInstance(2, np.arange(10.0), np.full(10, 3.0))
    exact = lower_bounds(inst)
    weak = lower_bounds(inst, exact_limit=5)
    assert exact["max_stretch"].kind == "preemptive-exact"
    assert weak["max_stretch"].kind == "speed-m-edf" and weak["max_flow"].kind == "speed-m-edf"
    assert weak["max_flow"].value <= exact["max_flow"].value + 1e-9
    assert exact["sum_flow"].kind == "srpt-speed-m"


def test_speed_m_bound_is_at_least_the_trivial_bound_above_the_limit() -> None:
    """A task alone takes ``p_j``: the speed-m bound (used above ``exact_limit`` tasks)
    never reports less than ``max_j p_j / w_j`` (one task of 800 on 4 processors: the
    speed-4 machine alone would say 205 for the max-flow, 0.26 for the max-stretch)."""
    inst = TaskInstance(4, np.zeros(3), [800.0, 10.0, 10.0])
    weak = lower_bounds(inst, exact_limit=2)
    assert weak["max_flow"].kind == "speed-m-edf"
    assert weak["max_flow"].value >= 800
    assert weak["max_stretch"].value >= 1
    assert weak["max_flow"].value <= lower_bounds(inst)["max_flow"].value + 1e-9


def test_exact_upper_is_feasible_without_rounding() -> None:
    """Two unit tasks at 0 on one processor: the optimum max-flow is exactly 2. The flow test
    rounds capacities up, so it accepts ``S`` a few 1e-9 below 2; the reported ``upper`` is
    confirmed by the test rounded against the schedule, so it is never below 2."""
    inst = TaskInstance(1, [0.0, 0.0], [1.0, 1.0])
    r, p = inst.release, inst.p
    assert flow_feasible(r, p, np.full(2, 2 - 1e-10), 1)  # the lenient test accepts
    assert not flow_feasible(r, p, np.full(2, 2 - 1e-10), 1, strict=True)
    assert flow_feasible(r, p, np.full(2, 2 + 1e-8), 1, strict=True)
    bound = max_weighted_flow_bound(inst, "flow", weights=np.ones(1), rtol=1e-12)
    assert bound.value <= 2 <= bound.upper <= 2 * (1 + 1e-8)


def test_speed_m_search_starts_at_the_trivial_bound() -> None:
    """Decision 174: spread-out tasks meet the trivial bound ``max p / w`` on the speed-m
    machine, proven by one EDF test; under contention the search runs above it."""
    spread = TaskInstance(2, np.array([0.0, 100.0, 200.0]), np.array([5.0, 7.0, 3.0]))
    res = max_weighted_flow_bound(spread, "speed-m", weights=np.ones(1))
    assert (res.value, res.tests) == (7.0, 1)
    # four tasks of 4 released at once on 2 processors: speed 2 finishes them at 8
    crowd = TaskInstance(2, np.zeros(4), np.full(4, 4.0))
    res = max_weighted_flow_bound(crowd, "speed-m", weights=np.ones(1))
    assert res.tests > 1 and res.value == pytest.approx(8.0, rel=1e-5)
    assert res.value <= 8.0  # a lower bound: the real optimum is 8


def test_speed_test_answers_as_edf_on_every_call():
    """SpeedTest (segments proven at a smaller s are skipped) answers every s as
    edf_speed_feasible does, in any order of the calls, with idle gaps, ties of releases
    and zero-length tasks (decision 400)."""
    from lpsched.tasks.bounds import SpeedTest

    rng = np.random.default_rng(3)
    for _ in range(300):
        n, m = int(rng.integers(1, 50)), int(rng.integers(1, 4))
        r = np.round(rng.exponential(5, n).cumsum() * rng.integers(0, 2), 0)
        p = rng.exponential(3, n) * (rng.random(n) > 0.1)
        w = np.maximum(p, 1.0)
        test = SpeedTest(r, p, w, m)
        for s in rng.uniform(0.1, 3, 12):
            assert test(s) == edf_speed_feasible(r, p, r + s * w, m)


def test_bound_out_of_float_range_says_what_to_do() -> None:
    """Times beyond MAX_TIME never reach the bounds: the instance is refused (decision
    286); within it, both bounds run."""
    with pytest.raises(LpschedError, match=r"tasks\[1\].*kept to 1e-06 s.*shorten"):
        TaskInstance(2, [0.0, 1e300], [1e300, 1e300])
    inst = TaskInstance(2, [0.0, 1e9], [1e9, 1e9])
    assert max_weighted_flow_bound(inst, weights=[1.0, 1.0]).value == pytest.approx(1e9)
    assert max_weighted_flow_bound(inst, "speed-m", weights=[1.0, 1.0]).value > 0
