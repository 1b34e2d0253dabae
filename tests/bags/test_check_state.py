"""The plan check against the instance's initial state, and the merge limit at the stretch
found (decisions 231 and 235: a plan leaving an application out, sending tasks before a
release, or computing half of an application must fail ``check_plan``; a merge within the
limit at ``S = 1`` still moves a deadline ``S`` times as far)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from lpsched import check_plan, max_stretch, online_max_stretch
from lpsched.bags import Instance, random_bags
from lpsched.bags.steady_state import dedicated_makespans
from lpsched.errors import LpschedError


@pytest.fixture(scope="module")
def solved() -> tuple[Instance, object]:
    inst = random_bags(6, 3, seed=4)
    return inst, max_stretch(inst).plan


def test_the_solver_plan_passes(solved) -> None:
    inst, plan = solved
    assert check_plan(inst, plan).ok


def test_an_application_left_out_fails(solved) -> None:
    inst, plan = solved
    keep = np.arange(1, inst.n)
    cut = replace(plan, apps=plan.apps[keep], comm=plan.comm[keep], comp=plan.comp[keep],
                  buffers=plan.buffers[keep], start=plan.start[keep],
                  deadlines=plan.deadlines[keep], remaining=plan.remaining[keep],
                  buffered=plan.buffered[keep])
    check = check_plan(inst, cut)
    assert not check.ok and "applications" in check.worst


def test_a_window_before_the_release_fails(solved) -> None:
    inst, plan = solved
    start = plan.start.copy()
    start[2] -= 0.5 * dedicated_makespans(inst)[2]
    check = check_plan(inst, replace(plan, start=start))
    assert not check.ok and "window start (r_k, or t_new online)" in check.worst


def test_half_the_tasks_fails(solved) -> None:
    inst, plan = solved
    half = replace(plan, remaining=plan.remaining * 0.5, comm=plan.comm * 0.5,
                   comp=plan.comp * 0.5, buffers=plan.buffers * 0.5)
    check = check_plan(inst, half)
    assert not check.ok and "offline: all tasks at the master" in check.worst


def test_an_online_plan_passes_and_its_state_is_bounded() -> None:
    inst = random_bags(6, 3, seed=4)
    t_new = float(np.median(inst.release))
    rem = inst.tasks.astype(float) * 0.5
    buf = np.zeros((inst.n, inst.p))
    buf[:, 0] = 1.0
    plan = online_max_stretch(inst, t_new, rem, buf).plan
    assert check_plan(inst, plan).ok
    more = replace(plan, remaining=plan.remaining + inst.tasks[plan.apps])
    assert not check_plan(inst, more).ok


def _scaled(inst: Instance, targets: list[float]) -> Instance:
    ms = dedicated_makespans(inst)
    apps = tuple(replace(a, work=a.work * targets[k] / ms[k], size=a.size * targets[k] / ms[k])
                 for k, a in enumerate(inst.applications))
    return replace(inst, applications=apps)


def test_a_merge_within_the_limit_at_s1_is_solved_by_scales() -> None:
    """Refused until decision 250 (one LP could not hold the scales); now solved apart, the
    plan passes the independent check and bisection agrees."""
    base = random_bags(5, 3, profile="balanced", seed=8, port="multiport")
    m = float(dedicated_makespans(base).min())
    inst = _scaled(base, [m * 1e4, m, m * (1 + 9.9e-7), m * 3, m * 7])
    res = max_stretch(inst)
    assert check_plan(inst, res.plan).ok
    assert res.stretch == pytest.approx(max_stretch(inst, method="bisection", tol=1e-9).stretch,
                                        rel=1e-8)


@pytest.mark.parametrize("limit", [math.inf, np.float64(30.0), 30])
def test_time_limit_inf_means_none(limit: float) -> None:
    inst = random_bags(3, 2, seed=0)
    assert max_stretch(inst, time_limit=limit).stretch == pytest.approx(
        max_stretch(inst, time_limit=None).stretch)


@pytest.mark.parametrize("limit", [0, -1.0, math.nan, complex(1, 0), True])
def test_time_limit_bad_values_refused(limit: object) -> None:
    with pytest.raises(LpschedError, match="seconds > 0"):
        max_stretch(random_bags(3, 2, seed=0), time_limit=limit)  # type: ignore[arg-type]
