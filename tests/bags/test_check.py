"""check_plan must reject a plan that breaks any one constraint of (K)/(K1)."""

from dataclasses import replace

import numpy as np
import pytest

from lpsched import check_plan, max_stretch
from lpsched.bags import Application, Instance, StarPlatform
from lpsched.errors import InvalidPlanError
from tests.conftest import small_instance


@pytest.fixture(scope="module")
def solved():
    inst = small_instance(42, n=4, p=3)
    res = max_stretch(inst)
    assert check_plan(inst, res.plan).ok
    return inst, res.plan


def first_active(plan):
    k, u, j = np.argwhere(plan.comm > 0.1)[0]
    return int(k), int(u), int(j)


def broken(report, name):
    assert not report.ok
    assert any(name in v for v in report.violations), report.violations
    with pytest.raises(InvalidPlanError, match=name.split(" (")[0]):
        report.raise_if_invalid()


def test_missing_tasks(solved):
    inst, plan = solved
    comm = plan.comm.copy()
    k, u, j = first_active(plan)
    comm[k, u, j] -= 0.1
    broken(check_plan(inst, replace(plan, comm=comm)), "all tasks sent (3)")


def test_computing_before_receiving(solved):
    inst, plan = solved
    k, u, _ = first_active(plan)
    comm, comp = plan.comm.copy(), plan.comp.copy()
    # move the receptions of (k, u) one interval later than the computations need them
    moved = comm[k, u].copy()
    comm[k, u] = 0.0
    comm[k, u, -1] = moved.sum()
    report = check_plan(inst, replace(plan, comm=comm, comp=comp))
    assert not report.ok
    assert any("buffer" in v or "window" in v for v in report.violations)


def test_negative_amounts(solved):
    inst, plan = solved
    comp = plan.comp.copy()
    k, u, j = first_active(plan)
    comp[k, (u + 1) % inst.p, j] = -0.5
    broken(check_plan(inst, replace(plan, comp=comp)), "non-negative amounts (11)")


def test_activity_outside_the_window(solved):
    inst, plan = solved
    k = int(np.argmax(inst.release))
    outside = np.flatnonzero(plan.epochs[1:] <= inst.release[k] - 1e-9)
    assert outside.size
    comm = plan.comm.copy()
    comm[k, 0, outside[0]] += 0.5
    broken(check_plan(inst, replace(plan, comm=comm)), "window")


def test_cpu_overload(solved):
    inst, plan = solved
    comp = plan.comp * 3.0
    comm = plan.comm * 3.0
    buffers = plan.buffers * 3.0
    fake = replace(plan, comp=comp, comm=comm, buffers=buffers, remaining=plan.remaining * 3)
    broken(check_plan(inst, fake), "CPU capacity (8)")


def test_port_overload():
    # Two workers, each link alone is fine, but one-port serialises both sends.
    plat = StarPlatform([100.0, 100.0], [1.0, 1.0], port="one-port")
    inst = Instance(plat, (Application(0.0, 10, 1.0, 1.0),))
    res = max_stretch(inst.with_port("multiport"))  # plan for multiport: 2 tasks/s
    plan = replace(res.plan, port="one-port")
    broken(check_plan(inst, plan), "one-port master (10-b)")
    assert check_plan(inst.with_port("multiport"), res.plan).ok


def test_master_bandwidth():
    plat = StarPlatform([100.0, 100.0], [1.0, 1.0], master_bandwidth=1.0, port="multiport")
    inst = Instance(plat, (Application(0.0, 10, 1.0, 1.0),))
    res = max_stretch(inst.with_port("multiport"))
    assert res.stretch == pytest.approx(1.0)
    free = Instance(StarPlatform([100.0, 100.0], [1.0, 1.0], port="multiport"),
                    inst.applications)
    fast = max_stretch(free).plan  # uses both links at once: 2 bytes/s
    broken(check_plan(inst, fast), "master bandwidth (10)")


def test_wrong_deadlines_and_shapes(solved):
    inst, plan = solved
    broken(check_plan(inst, replace(plan, stretch=plan.stretch * 0.9)), "deadlines (2)")
    report = check_plan(inst, replace(plan, comm=plan.comm[:, :, :-1]))
    assert not report.ok and "shape" in report.violations[0]


def test_buffers_left_at_the_deadline(solved):
    inst, plan = solved
    comp = plan.comp.copy()
    k, u, _ = np.argwhere(plan.comp > 0.1)[0]
    j = int(np.flatnonzero(plan.comp[k, u] > 0.1)[-1])
    comp[k, u, j] -= 0.1
    broken(check_plan(inst, replace(plan, comp=comp)), "empty buffers at the deadline (6)")


def test_memory_bound():
    inst = small_instance(21, n=4, p=2)
    res = max_stretch(inst)
    held = np.einsum("kue,k->ue", res.buffers, inst.size).max()
    if held <= 0:
        pytest.skip("this plan buffers nothing")
    broken(check_plan(inst, res.plan, memory=np.full(inst.p, held / 2)),
           "buffer memory")
