"""Hand-computed schedules of every policy of seed 000 ch. 3 (§3.4), the ΔF exceptions,
redirections and the Fig. 3.2 construction."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lpsched.errors import LpschedError
from lpsched.tasks import TaskInstance, evaluate, get_policy, simulate
from lpsched.tasks.schedule import COMPLETE, INTERRUPTED, PREEMPTED


def completions(inst: TaskInstance, name: str, **params: float) -> list[float]:
    return evaluate(inst, name, **params).schedule.completion.tolist()


def test_fcfs_and_gspt_on_one_processor() -> None:
    inst = TaskInstance(1, [0, 1, 1], [5, 3, 1])
    assert completions(inst, "fcfs") == [5, 8, 9]
    assert completions(inst, "gspt") == [5, 9, 6]  # the shortest waiting task first
    assert completions(inst, "spt") == [5, 9, 6]


def test_gsrpt_preempts_the_longest_running_task() -> None:
    inst = TaskInstance(2, [0, 0, 1], [10, 4, 2])
    res = evaluate(inst, "gsrpt")
    # at 1: running rem 9 (P0) and 3 (P1); 2 < 9 preempts the 10 on P0
    assert res.schedule.completion.tolist() == [12, 4, 3]
    assert res.counts["preemptions"] == 1
    kinds = res.schedule.kind[res.schedule.task == 0]
    assert sorted(kinds.tolist()) == [COMPLETE, PREEMPTED]


def test_gsrpt_equal_remaining_does_not_preempt() -> None:
    """A3.5: strict comparison, equal remaining times never swap."""
    inst = TaskInstance(1, [0, 1], [3, 2])
    assert evaluate(inst, "gsrpt").counts["preemptions"] == 0


SRPT_CASE = TaskInstance(2, [0, 0, 0, 1], [10, 3, 5, 2])


def test_spt_dispatch_general_rule() -> None:
    """A -> P0; B: ΔF P0 = 3 + 3 (delays A) = 6 > P1 = 3; C: P0 = 5 + 5 = 10 > P1 = 3 + 5;
    D at 1: P0 = 9 + 2 = 11, P1 = 2 + 2 + 2 (delays C) = 6 -> P1, which runs D before C."""
    assert completions(SRPT_CASE, "spt") == [10, 3, 10, 5]


def test_srpt_dispatch_exception() -> None:
    """D at 1: on P0 it would preempt A (rem 9): ΔF = 2 + 2·1 = 4 < P1's 6 (no preemption
    there: 2 < 2 is false), so D goes to P0 and preempts A."""
    res = evaluate(SRPT_CASE, "srpt")
    assert res.schedule.completion.tolist() == [12, 3, 8, 3]
    assert res.counts["preemptions"] == 1
    procs = res.schedule.proc[res.schedule.task == 0]
    assert set(procs.tolist()) == {0}  # SRPT with dispatch never migrates


def test_spt_rd_dispatch_exception_and_redirection() -> None:
    """m = 3, m_d = 1, τ = 1. D at 1: on P0 it would redirect A (c = τ − 1 = 0):
    ΔF = 0 + 2 − 0 = 2 < P1's 4; A is interrupted, restarts on P2 at 1."""
    inst = TaskInstance(3, [0, 0, 1], [10, 3, 2])
    res = evaluate(inst, "spt-rd", md=1, tau=1)
    s = res.schedule
    assert s.completion.tolist() == [11, 3, 3]
    assert res.counts["redirections"] == 1 and res.counts["interruptions"] == 1
    cut = s.kind == INTERRUPTED
    assert s.task[cut].tolist() == [0] and s.start[cut][0] == 0 and s.end[cut][0] == 1
    assert s.proc[(s.task == 0) & (s.kind == COMPLETE)].tolist() == [2]
    # without redirection (the same main pool) D goes to P1: 9 + 2 > 2 + 2
    assert completions(TaskInstance(2, inst.release, inst.p), "spt") == [10, 3, 5]


def test_gspt_rd_counts_waiting_arrivals_and_redirects() -> None:
    inst = TaskInstance(2, [0, 1, 2], [10, 1, 1])
    res = evaluate(inst, "gspt-rd", md=1, tau=2)
    assert res.schedule.completion.tolist() == [12, 3, 4]
    assert res.counts["redirections"] == 1
    # τ = 3: A is never interrupted
    assert completions(inst, "gspt-rd", md=1, tau=3) == [10, 11, 12]


def test_gspt_rd_does_not_count_arrivals_that_find_a_free_processor() -> None:
    """A3.4: with a free main processor the arrival waits for nobody."""
    inst = TaskInstance(3, [0, 1, 2], [10, 1, 1])  # P1 is free at 1 and again at 2
    assert evaluate(inst, "gspt-rd", md=1, tau=1).counts["redirections"] == 0
    inst = TaskInstance(3, [0, 1, 1.5], [10, 1, 1])  # at 1.5 both main processors run
    res = evaluate(inst, "gspt-rd", md=1, tau=1)
    assert res.counts["redirections"] == 1
    assert res.schedule.completion.tolist() == [11.5, 2, 2.5]


def test_random_redirection_extremes_and_seed() -> None:
    inst = TaskInstance(3, np.arange(6.0), [1, 2, 3, 4, 5, 6])
    # every task is the longest so far: potentially heavy; c = 1 sends all
    res = evaluate(inst, "gspt-rr", md=1, b=0.02, c=1.0)
    assert res.counts["redirections"] == 6
    assert evaluate(inst, "spt-rr", md=1, b=0.02, c=0.0).counts["redirections"] == 0
    # b = 1: only tasks at least as long as every earlier one are candidates
    dec = TaskInstance(3, np.arange(4.0), [6, 5, 4, 3])
    assert evaluate(dec, "gspt-rr", md=1, b=1.0, c=1.0).counts["redirections"] == 1
    big = TaskInstance(4, np.arange(200.0), np.linspace(1, 50, 200))
    a = evaluate(big, "spt-rr", md=2, c=0.5, seed=3).schedule.completion
    b = evaluate(big, "spt-rr", md=2, c=0.5, seed=3).schedule.completion
    assert np.array_equal(a, b)


@pytest.mark.parametrize("p", [5, 6, 7, 10, 20])
def test_fig_3_2_total_flows(p: int) -> None:
    """Fig. 3.2: a task of length p at 0, unit tasks at 1..p. Without redirection the
    unit tasks wait for the big one: total flow p² + p. With τ = 3 the big task restarts
    at r_3 = 3 on the dedicated processor: total flow 4p + 3 (p > 4)."""
    inst = TaskInstance(2, [0.0, *range(1, p + 1)], [float(p)] + [1.0] * p)
    one = TaskInstance(1, inst.release, inst.p)
    assert evaluate(one, "gspt").metrics["sum_flow"] == p * p + p
    assert evaluate(one, "spt").metrics["sum_flow"] == p * p + p
    assert evaluate(inst, "gspt-rd", md=1, tau=math.inf).metrics["sum_flow"] == p * p + p
    for name in ("gspt-rd", "spt-rd"):
        res = evaluate(inst, name, md=1, tau=3)
        assert res.metrics["sum_flow"] == 4 * p + 3
        cut = res.schedule.kind == INTERRUPTED
        assert res.schedule.end[cut].tolist() == [3.0]


def test_parameter_checks() -> None:
    inst = TaskInstance(4, [0.0], [1.0])
    for params in ({"md": 4}, {"md": 0}, {"tau": 0.5}):
        with pytest.raises(LpschedError):
            simulate(inst, get_policy("gspt-rd", **params))
    for params in ({"b": 1.5}, {"c": -0.1}):
        with pytest.raises(LpschedError):
            simulate(inst, get_policy("spt-rr", **params))
    with pytest.raises(LpschedError, match="unknown policy"):
        get_policy("lifo")


def test_zero_length_tasks_and_simultaneous_arrivals() -> None:
    inst = TaskInstance(2, [0, 0, 0, 0, 5], [0, 3, 0, 2, 0])
    for name in ("fcfs", "gspt", "gsrpt", "spt", "srpt", "gspt-rd", "spt-rd", "gspt-rr",
                 "spt-rr"):
        res = evaluate(inst, name, md=1)
        assert res.metrics["max_flow"] >= 0


@pytest.mark.parametrize("name", ["gspt-rr", "spt-rr"])
@pytest.mark.parametrize("seed, draws, expected, redirected", [
    # default_rng(2).random(4) = 0.262, 0.298, 0.814, 0.092: tasks 0, 2, 5 redirected
    (2, [0.262, 0.298, 0.814, 0.092], [4, 1, 15, 4, 4, 9], 3),
    # default_rng(1).random(4) = 0.512, 0.950, 0.144, 0.949: task 3 redirected
    (1, [0.512, 0.950, 0.144, 0.949], [4, 1, 7, 4, 6, 11], 1),
])
def test_random_redirection_hand_computed(name: str, seed: int, draws: list[float],
                                          expected: list[float], redirected: int) -> None:
    """m = 3, m_d = 1 (main pool 0, 1; dedicated 2), b = 0.5, c = 0.5. Potentially heavy
    (p >= b·pmax, pmax including the arrival): tasks 0 (4 >= 2), 2 (6 >= 3), 3 (3 >= 3),
    5 (5 >= 3), each drawing in that order; redirected when the draw is <= c.

    Seed 2: the pool runs 0 in [0, 4], then the shortest of the waiting 2 and 5: 5 in
    [4, 9], 2 in [9, 15]; the main pool runs 1 in [0, 1], 3 in [1, 4], 4 in [2, 4] (SPT-RR:
    ΔF 2 on the idle processor against 4 behind 3). Seed 1: the pool runs 3 in [1, 4]; the
    main pool runs 1 in [0, 1] and 0 in [0, 4] (SPT-RR: ΔF 1 + 1 behind the queued 0 on
    processor 0, 1 on processor 1), 2 in [1, 7] (SPT-RR: ΔF 6 against 3 + 6), then 4 in
    [4, 6] and 5 in [6, 11] (SPT-RR: both behind 0, ΔF 2 + 2 against 5 + 2, then 2 + 2 + 5
    against 5 + 5)."""
    assert np.round(np.random.default_rng(seed).random(4), 3).tolist() == draws
    inst = TaskInstance(3, [0, 0, 1, 1, 2, 2], [4, 1, 6, 3, 2, 5])
    res = evaluate(inst, name, md=1, b=0.5, c=0.5, seed=seed)
    assert res.schedule.completion.tolist() == expected
    assert res.counts["redirections"] == redirected
