"""lower_bound and optimum: honest kinds, lower <= optimum, exact = brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings

from lpsched.bags import Instance
from lpsched.bags.policies import get_policy
from lpsched.bags.schedule import metrics, validate
from lpsched.bags.simulator import simulate
from lpsched.errors import LpschedError
from lpsched.testing import (
    IdenticalJobs,
    MoldableJobs,
    UnsupportedObjectiveError,
    lower_bound,
    optimum,
    strategies,
)
from lpsched.testing.instances import HybridTasks, RigidJobs

REL = 1e-9


def brute_identical(times: np.ndarray, m: int) -> float:
    """min over every assignment of the largest load."""
    best = np.inf
    for assign in itertools.product(range(m), repeat=times.size):
        best = min(best, np.bincount(assign, weights=times, minlength=m).max())
    return float(best)


def brute_hybrid(inst: HybridTasks) -> float:
    """min over every CPU/GPU split of the best list schedules, each side brute-forced."""
    best = np.inf
    n = inst.cpu_times.size
    for on_cpu in itertools.product((True, False), repeat=n):
        mask = np.array(on_cpu)
        cpu = brute_identical(inst.cpu_times[mask], inst.cpus) if mask.any() else 0.0
        gpu = brute_identical(inst.gpu_times[~mask], inst.gpus) if (~mask).any() else 0.0
        best = min(best, max(cpu, gpu))
    return best


def brute_moldable(inst: MoldableJobs) -> float:
    """Every allotment and every job order, each job started as early as the list
    schedule of that order allows (earliest start on the ``p`` first-free processors):
    a list schedule in the right order with the right allotments is optimal."""
    T, m = inst.times, inst.processors
    n = T.shape[0]
    best = np.inf
    for allot in itertools.product(range(1, m + 1), repeat=n):
        for order in itertools.permutations(range(n)):
            free = np.zeros(m)
            end = 0.0
            for j in order:
                p = allot[j]
                ids = np.argsort(free, kind="stable")[:p]
                start = free[ids].max()
                free[ids] = start + T[j, p - 1]
                end = max(end, start + T[j, p - 1])
            best = min(best, end)
    return float(best)


def _honest(opt, brute: float) -> None:
    """``lower <= OPT <= value``, and ``value == OPT`` whenever ``proven``."""
    assert _leq(opt.lower, brute) and _leq(brute, opt.value)
    if opt.proven:
        assert opt.kind == "exact" and opt.lower == opt.value
        assert opt.value == pytest.approx(brute, rel=1e-9, abs=1e-15)


def test_integral_optima_are_proven_and_tiny_ones_are_not_overclaimed() -> None:
    opt = optimum(IdenticalJobs([5, 5, 4, 4, 3, 3, 3], 3))
    assert opt.proven and opt.value == 9.0
    # HiGHS stops within an absolute gap of 1e-6: on times of 1e-6 it may answer 2e-6 for
    # an optimum of 1e-6 and call it optimal; optimum() must not claim that as proven
    tiny = HybridTasks([1e-6, 1e-6], [1e-6, 1e-6], 1, 1)
    _honest(optimum(tiny), brute_hybrid(tiny))
    # optimum() scales such times to whole numbers first, so it can prove them exactly
    opt = optimum(IdenticalJobs([1e-6] * 4, 3))
    assert opt.proven and opt.value == pytest.approx(2e-6, rel=1e-12)
    assert "scaled by 1e+06" in opt.how
    few = optimum(IdenticalJobs([1.25, 3.5, 0.75], 2))  # steps of 0.01: provable
    assert few.proven and few.value == pytest.approx(3.5, rel=1e-12)
    # steps of 0.001 and an optimum of 12.75: the exact MIPs solve with zero gaps
    # (decision 87), so only HiGHS's tolerances (4e-6 relative) remain: proven
    real = optimum(IdenticalJobs([12.456, 3.5, 9.25], 2))
    assert real.proven and real.value == pytest.approx(12.75, rel=1e-12)
    # optima of thousands of grid units are proven too (unproven, a true "ratio 1" claim
    # would fail against a bound below the optimum: decision 83)
    big = optimum(IdenticalJobs([5000, 5000, 4000, 4000, 3000, 3000, 3000, 1], 3))
    assert big.proven and big.value == 9001.0
    odd = optimum(IdenticalJobs([0.001, 7, 7], 2))
    assert odd.proven and odd.value == pytest.approx(7.001, rel=1e-12)
    # beyond what the tolerances can separate, nothing is claimed
    huge = optimum(IdenticalJobs([0.5, 1e6, 1e6], 2))
    assert not huge.proven and huge.lower <= 1e6 + 0.5 <= huge.value


def _leq(a: float, b: float) -> bool:
    return a <= b * (1 + REL) + 1e-12


@settings(max_examples=30)
@given(strategies.identical_jobs(max_jobs=6, max_machines=3))
def test_identical_exact_is_brute_force_and_bounds_below(inst: IdenticalJobs) -> None:
    opt = optimum(inst)
    _honest(opt, brute_identical(inst.times, inst.machines))
    lb = lower_bound(inst)
    assert lb.kind == "combinatorial" and _leq(lb.value, opt.value)


@settings(max_examples=25)
@given(strategies.hybrid_tasks(max_tasks=5, max_cpus=2, max_gpus=2))
def test_hybrid_exact_is_brute_force_and_bounds_below(inst: HybridTasks) -> None:
    opt = optimum(inst)
    _honest(opt, brute_hybrid(inst))
    assert _leq(lower_bound(inst).value, opt.value)


@settings(max_examples=20)
@given(strategies.moldable_jobs(max_jobs=3, max_processors=3, max_time=8))
def test_moldable_exact_is_brute_force_and_bounds_below(inst: MoldableJobs) -> None:
    opt = optimum(inst)
    assert opt.proven  # whole-number tables: the MIP's gap cannot hide a better makespan
    _honest(opt, brute_moldable(inst))
    assert _leq(lower_bound(inst).value, opt.value)


@settings(max_examples=20)
@given(strategies.rigid_jobs(max_jobs=4))
def test_rigid_lower_bound_below_the_optimum(inst) -> None:
    from lpsched.approx.packing import nfdh_ls

    opt = optimum(inst)
    lb = lower_bound(inst).value
    heuristic = nfdh_ls(inst.jobs, inst.clusters, inst.cluster_size).makespan
    assert _leq(opt.lower, heuristic)  # NFDH+LS is contiguous and local: a feasible schedule
    if opt.proven:
        assert _leq(lb, opt.value) and opt.value == opt.lower
        assert _leq(opt.value, heuristic)
    else:
        assert opt.status == "optimal" or opt.status == "time_limit"


@settings(max_examples=20)
@given(strategies.star_instances(max_apps=3, max_workers=3))
def test_star_lp_bound_below_every_policy(inst: Instance) -> None:
    lb = lower_bound(inst, "max_stretch")
    assert lb.kind == "lp" and lb.value >= 1 - 1e-9
    flow = lower_bound(inst, "sum_flow")
    for name in ("fifo-rr", "srpt-mct", "swrpt-dd", "cbs3m-edf-offline", "mwma-ms"):
        sched = simulate(inst, get_policy(name)).schedule
        validate(inst, sched)
        got = metrics(inst, sched)
        assert got.max_stretch >= lb.value * (1 - 1e-9), name
        assert got.sum_flow >= flow.value * (1 - 1e-9), name
        assert got.makespan >= lower_bound(inst, "makespan").value * (1 - 1e-9), name


def test_unsupported_pairs_are_clear_errors() -> None:
    inst = IdenticalJobs([1, 2], 2)
    with pytest.raises(UnsupportedObjectiveError, match="max_stretch"):
        lower_bound(inst, "max_stretch")
    with pytest.raises(LpschedError):
        optimum(MoldableJobs([[2.5]], 1))  # the time-indexed MIP needs whole numbers
    from lpsched.bags import random_bags

    with pytest.raises(UnsupportedObjectiveError, match="no exact solver"):
        optimum(random_bags(2, 2, seed=0), "max_stretch")
    with pytest.raises(LpschedError):
        optimum(inst, time_limit=-1)


def test_a_stopped_solver_never_claims_optimality() -> None:
    """Small whole numbers (provable if the solver finished), a limit that stops it: the
    answer must not be proven (with large times a test would pass whatever optimum()
    claimed). Rigid and moldable MIPs stopped before any schedule return an unproven answer
    instead of raising."""
    rng = np.random.default_rng(3)
    inst = IdenticalJobs(rng.integers(1, 50, 60).astype(float), 7)
    opt = optimum(inst, time_limit=0.01)
    assert not opt.proven and opt.kind == "incumbent" and opt.status == "time_limit"
    assert opt.lower <= opt.value
    assert lower_bound(inst).value <= opt.value
    rigid = RigidJobs(rng.integers(1, 1000, 25).astype(float), rng.integers(1, 5, 25), 2, 4,
                      False)
    stopped = optimum(rigid, time_limit=0.05)
    assert not stopped.proven and stopped.status == "time_limit"
    assert stopped.lower == lower_bound(rigid).value
