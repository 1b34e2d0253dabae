"""check_plan: one port model for MS* and the capacities, per-application time tolerances,
the file's summary, ragged rows (decisions 231-233).

Each test here catches a checker that reads the capacities' model from the plan and MS* from
the instance, scales every time tolerance by the largest MS*, never reads the summary, or
calls a short row "not a number".
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lpsched.bags import Application, Instance, StarPlatform
from lpsched.bags.check import (
    LP_RESOLUTION,
    PlanCheck,
    check_plan,
    check_summary,
    plan_from_dict,
)
from lpsched.bags.maxstretch import max_stretch
from lpsched.bags.steady_state import dedicated_makespans
from lpsched.errors import ParseError
from tests.conftest import small_instance


def portmix() -> Instance:
    """``portmix.json``: one-port, two workers with unrelated speeds, two
    applications released at 0; rho* is the same in both models (so is MS*), but the
    one-port optimum (1.32) is above the multiport one (1.1)."""
    plat = StarPlatform([[10.0, 1.0], [1.0, 10.0]], [1.0, 1.0], port="one-port")
    apps = (Application(0.0, 10, 10.0, 0.6), Application(0.0, 10, 10.0, 0.6))
    return Instance(plat, apps)


def skew(big: int = 10**6) -> Instance:
    """``skew.json``: one worker, application 0 has ``big`` tasks, application 1
    one task, both released at 0 (MS* 1e6 s and 1 s)."""
    plat = StarPlatform([1.0], [1000.0])
    return Instance(plat, (Application(0.0, big, 1.0, 1.0), Application(0.0, 1, 1.0, 1.0)))


# -- finding 1: the port model ------------------------------------------------------------


def test_a_multiport_plan_fails_on_a_one_port_instance():
    inst = portmix()
    assert np.allclose(dedicated_makespans(inst), dedicated_makespans(inst, "multiport"))
    plan = max_stretch(inst.with_port("multiport")).plan
    assert plan.stretch == pytest.approx(1.1, rel=1e-6)
    assert max_stretch(inst).stretch == pytest.approx(1.32, rel=1e-6)
    report = check_plan(inst, plan)
    assert not report.ok
    # the plan's label is reported, and the one-port master is checked (it was not)
    assert "port model" in report.worst
    assert report.worst["one-port master (10-b)"] == pytest.approx(0.2 - 1e-6, rel=1e-3)
    assert "--port multiport" in report.violations[0]


def test_a_plan_is_checked_under_the_model_asked_for():
    inst = portmix()
    plan = max_stretch(inst.with_port("multiport")).plan
    assert check_plan(inst, plan, port="multiport").ok
    assert check_plan(inst.with_port("multiport"), plan).ok
    one = max_stretch(inst).plan
    assert check_plan(inst, one).ok
    report = check_plan(inst, one, port="multiport")
    assert not report.ok and list(report.worst) == ["port model"]


def test_ms_and_capacities_come_from_one_model():
    """A plan relabelled to the instance's model is checked, capacities and MS*, under
    that model: a multiport plan called one-port breaks (10-b); on an instance where the
    two models' MS* differ, its deadlines break (2)."""
    inst = portmix()
    plan = replace(max_stretch(inst.with_port("multiport")).plan, port="one-port")
    report = check_plan(inst, plan)
    assert "port model" not in report.worst and "one-port master (10-b)" in report.worst
    slow_port = Instance(StarPlatform([2.0, 2.0], [1.0, 1.0], port="one-port"),
                         (Application(0.0, 8, 1.0, 1.0), Application(1.0, 4, 1.0, 1.0)))
    ms1, msm = dedicated_makespans(slow_port), dedicated_makespans(slow_port, "multiport")
    assert (ms1 > msm * 1.5).all()
    mp = max_stretch(slow_port.with_port("multiport")).plan
    report = check_plan(slow_port, replace(mp, port="one-port"))
    assert "deadlines (2)" in report.worst


# -- finding 2: per-application time tolerances -------------------------------------------


def test_a_small_application_missing_its_deadline_fails():
    """``skew.tamper.json``: application 1 (MS* = 1 s) computes in [0, 2],
    a stretch of 2, beside an application of MS* = 1e6 s; the plan says S = 1.000001."""
    inst = skew()
    plan = max_stretch(inst).plan
    assert check_plan(inst, plan).ok
    assert plan.epochs.tolist() == pytest.approx([0.0, 0.0, 1.000001, 1e6 + 1.0])
    epochs = plan.epochs.copy()
    epochs[2] = 2.0
    comm, comp = plan.comm.copy(), plan.comp.copy()
    for amounts in (comm, comp):
        amounts[0, 0] = [0.0, 1.0, 999999.0]
        amounts[1, 0] = [0.0, 1.0, 0.0]
    deadlines = plan.deadlines.copy()
    deadlines[1] = 2.0
    tampered = replace(plan, epochs=epochs, comm=comm, comp=comp, deadlines=deadlines)
    report = check_plan(inst, tampered)
    assert not report.ok
    assert report.worst["deadlines (2)"] == pytest.approx(1.0, rel=1e-3)
    assert report.worst["window (no activity outside [r_k, d_k])"] == pytest.approx(1.0,
                                                                                     rel=1e-3)


def test_an_overload_in_a_small_applications_window_fails():
    """Both applications compute one task in application 1's window [0, 1.000001]: the
    worker is booked 2 s in 1 s. The old tolerance (1e-6 of the largest MS*) was 1 s; the
    reported excess is over the tolerance (the LPs' resolution here: 0.01 s)."""
    inst = skew()
    plan = max_stretch(inst).plan
    comp, comm = plan.comp.copy(), plan.comm.copy()
    for amounts in (comm, comp):
        amounts[0, 0] = [0.0, 1.0, 999999.0]
    report = check_plan(inst, replace(plan, comm=comm, comp=comp))
    assert not report.ok and list(report.worst) == ["CPU capacity (8)"]
    assert report.worst["CPU capacity (8)"] == pytest.approx(0.99, rel=1e-3)


def test_an_excess_within_the_lp_resolution_is_a_note():
    """An interval 1e-4 s too short for its load: above 1e-6 of application 1's scale
    (1 s), below the LPs' resolution (1e-8 of the largest MS*, 0.01 s): a note, ok."""
    inst = skew()
    plan = max_stretch(inst).plan
    for shift, ok in ((1e-4, True), (0.1, False)):
        epochs = plan.epochs.copy()
        epochs[2] -= shift
        report = check_plan(inst, replace(plan, epochs=epochs))
        assert report.ok is ok, report.violations
        assert ok == (not report.violations)
        assert len(report.notes) == (1 if ok else 0)
    assert "CPU capacity (8)" in check_plan(inst, replace(plan, epochs=plan.epochs - [
        0, 0, 1e-4, 0])).notes[0]
    assert LP_RESOLUTION * 1e6 == pytest.approx(0.01)


def test_a_shifted_instance_still_passes():
    """The time tolerance adds the float resolution of the times themselves: a common
    shift of the releases (spec §11 invariant 11) keeps a solved plan valid."""
    base = small_instance(5, n=3, p=2)
    for shift in (0.0, 1e9, 1e12):
        apps = tuple(replace(a, release=a.release + shift) for a in base.applications)
        inst = Instance(base.platform, apps)
        report = check_plan(inst, max_stretch(inst).plan)
        assert report.ok, (shift, report.violations)


def test_valid_plans_of_skewed_instances_pass():
    """Solver plans at MS* ratios up to 1e6 pass (their capacity rows hold to about 1e-9
    of the largest MS*, the LPs' unit of time)."""
    rng = np.random.default_rng(3)
    for seed in range(6):
        base = small_instance(seed, n=4, p=2, port=("one-port", "multiport")[seed % 2])
        tasks = np.round(10 ** rng.uniform(0, 6, base.n)).astype(int) + 1
        apps = tuple(replace(a, tasks=int(t))
                     for a, t in zip(base.applications, tasks, strict=True))
        inst = Instance(base.platform, apps)
        report = check_plan(inst, max_stretch(inst).plan)
        assert report.ok, (seed, report.violations)


# -- finding 5: the summary of a result file ----------------------------------------------


@pytest.fixture(scope="module")
def solved_file():
    inst = small_instance(11, n=3, p=2)
    data = max_stretch(inst).to_dict()
    return inst, data


def test_a_solve_file_summary_agrees(solved_file):
    inst, data = solved_file
    plan = plan_from_dict(data, inst, "res.json")
    assert check_summary(data, inst, plan, "res.json").ok
    assert check_summary(data["plan"], inst, plan, "plan.json").ok  # a bare plan


@pytest.mark.parametrize("key, value, name", [
    ("stretch", 1.0, "summary stretch"),
    ("lower", 50.0, "summary lower"),
    ("port", "multiport", "summary port"),
    ("apps", [0, 1], "summary apps"),
    ("t_new", 3.0, "summary t_new"),
])
def test_a_summary_field_that_differs_is_reported(solved_file, key, value, name):
    inst, data = solved_file
    plan = plan_from_dict(data, inst, "res.json")
    report = check_summary({**data, key: value}, inst, plan, "res.json")
    assert not report.ok and name in report.worst, report.violations


@pytest.mark.parametrize("key", ["deadlines", "dedicated_makespans", "throughputs"])
def test_a_summary_array_that_differs_is_reported(solved_file, key):
    inst, data = solved_file
    plan = plan_from_dict(data, inst, "res.json")
    values = list(data[key])
    values[1] *= 1.001
    report = check_summary({**data, key: values}, inst, plan, "res.json")
    assert not report.ok and f"summary {key}" in report.worst, report.violations
    assert "app 1" in report.violations[0]
    with pytest.raises(ParseError, match=f"summary field '{key}'"):
        check_summary({**data, key: ["x"] * len(values)}, inst, plan, "res.json")


def test_plan_check_extend_merges_verdicts():
    a, b = PlanCheck(), PlanCheck()
    b.fail("x", "x is wrong")
    b.notes.append("n")
    a.extend(b)
    assert not a.ok and a.violations == ["x is wrong"] and a.notes == ["n"]


# -- finding 7: a ragged innermost row ----------------------------------------------------


def test_a_ragged_innermost_row_is_named(solved_file):
    inst, data = solved_file
    plan = {**data["plan"]}
    comm = [[list(row) for row in worker] for worker in plan["comm"]]
    comm[0][0] = comm[0][0][:-1]
    with pytest.raises(ParseError, match="plan field 'comm': rows of unequal lengths"):
        plan_from_dict({**data, "plan": {**plan, "comm": comm}}, inst, "res.json")
    mixed = [[list(row) for row in worker] for worker in plan["comp"]]
    mixed[0] = [1.0] * len(mixed[0])  # numbers where rows are expected
    with pytest.raises(ParseError, match="plan field 'comp': rows of unequal lengths"):
        plan_from_dict({**data, "plan": {**plan, "comp": mixed}}, inst, "res.json")
