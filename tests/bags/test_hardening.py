"""Seed 003's searches and simulations at the edges: no hang, no solver internals, no lost
results.

A hang shows as a timeout of the subprocess that runs the case, a memory blow-up as a
MemoryError under an address-space limit.
"""

from __future__ import annotations

import csv
import itertools
import math
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from lpsched import check_plan, max_stretch
from lpsched.bags import Application, Instance, StarPlatform, random_bags
from lpsched.bags import reproduce as exp
from lpsched.bags.policies import get_policy
from lpsched.bags.simulator import simulate
from lpsched.errors import InvalidInstanceError, LpschedError, SolverError
from lpsched.solvers.solution import Status
from tests.conftest import small_instance


def bounded(code: str, timeout: float = 60.0, memory: int | None = None,
            ) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter; a hang fails the test instead of stalling it.
    ``memory`` (bytes) caps the child's address space."""
    def limit() -> None:  # pragma: no cover - runs in the child
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                              capture_output=True, text=True, timeout=timeout, check=False,
                              preexec_fn=limit if memory else None)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {timeout:g} s (a hang)")


def replaced(inst: Instance, k: int, **changes: float) -> Instance:
    apps = list(inst.applications)
    a = apps[k]
    apps[k] = Application(changes.get("release", a.release), int(changes.get("tasks", a.tasks)),
                          changes.get("work", a.work), changes.get("size", a.size))
    return Instance(inst.platform, tuple(apps))


def on_platform(inst: Instance, speeds=None, bandwidths=None, port=None) -> Instance:
    plat = inst.platform
    return Instance(StarPlatform(plat.speeds if speeds is None else speeds,
                                 plat.bandwidths if bandwidths is None else bandwidths,
                                 plat.master_bandwidth, port or plat.port), inst.applications)


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """``time.monotonic`` advances one second per call: any budget runs out quickly."""
    ticks = itertools.count()
    monkeypatch.setattr(time, "monotonic", lambda: float(next(ticks)))


# -- search loops: iteration caps and a wall-clock budget --------------------------------------
def test_bisection_below_the_float_resolution_ends():
    """tol 1e-17 is below one ulp of any stretch >= 1: the bisection used to loop forever."""
    proc = bounded("""
        from lpsched import max_stretch
        from tests.conftest import small_instance
        inst = small_instance(1)  # the single-resource bound is not the optimum here
        fine = max_stretch(inst, method="bisection", tol=1e-17)
        exact = max_stretch(inst)
        assert abs(fine.stretch - exact.stretch) <= 1e-7 * exact.stretch, (fine, exact)
        print("ok", fine.lp_solves)
    """)
    assert proc.returncode == 0 and proc.stdout.startswith("ok"), proc.stderr[-2000:]


def test_the_single_resource_bound_never_loops_forever():
    """A demand that never fits (not finite, or a window test that always says no) used to
    double the upper end forever."""
    proc = bounded("""
        import numpy as np
        from lpsched.bags.maxstretch import StretchProblem
        from lpsched.bags.maxstretch import relaxations
        from lpsched.errors import SolverError
        from tests.conftest import small_instance
        problem = StretchProblem.offline(small_instance(1, n=3, p=2))
        demand = np.array([1.0, np.inf, 2.0])
        try:
            relaxations.single_machine_stretch(problem, demand)
        except SolverError as exc:
            print("capped:", exc)
        relaxations.window_feasible = lambda *a: False
        try:
            relaxations.single_machine_stretch(problem, np.ones(3))
        except SolverError as exc:
            print("capped:", exc)
    """)
    assert proc.returncode == 0 and proc.stdout.count("capped:") == 2, proc.stderr[-2000:]


@pytest.mark.parametrize("bound", [True, False])
def test_the_search_has_a_wall_clock_budget(fake_clock, bound):
    """Each LP used to get the whole limit afresh, so many fast LPs never stopped."""
    inst = random_bags(6, 3, seed=2)
    with pytest.raises(SolverError, match=r"time limit.* ran out \(status time_limit\)") as err:
        max_stretch(inst, method="bisection", tol=1e-9, time_limit=30, relaxation_bound=bound)
    assert "--time-limit" in str(err.value)  # says what to do
    if not bound:  # the LPs' own budget
        assert err.value.status is Status.TIME_LIMIT and "30 s" in str(err.value)


@pytest.mark.parametrize("limit", [0, -1, math.nan, True])
def test_time_limit_must_be_positive(limit):
    """0, -1 and nan used to mean "no limit" (HiGHS reads them so); inf means no limit
    (decision 238, tests/bags/test_check_state.py)."""
    with pytest.raises(LpschedError, match="time_limit"):
        max_stretch(small_instance(2), time_limit=limit)


# -- conditioning: valid instances the LP layer used to reject ---------------------------------
@pytest.mark.parametrize("port", ["one-port", "multiport"])
def test_a_billion_tasks_is_solved_and_checked(port):
    """Used to fail with "HiGHS rejected the model ... kWarning": per-task times below 1e-9
    of the horizon. Amounts now count whole applications; the plan is checked in tasks."""
    inst = replaced(random_bags(5, 3, seed=3, port=port), 0, tasks=10**9)
    res = max_stretch(inst)
    report = check_plan(inst, res.plan)
    assert report.ok, report.violations
    assert res.plan.comm[0].sum() == pytest.approx(1e9, rel=1e-9)
    assert res.search.units is not None
    bis = max_stretch(inst, method="bisection", tol=1e-9)
    assert bis.stretch == pytest.approx(res.stretch, rel=1e-6)


def test_nearly_equal_makespans_are_solved():
    """Two applications whose MS* differ by 1e-11 (relative) made an epoch slope difference
    HiGHS drops, and the model was rejected."""
    base = random_bags(5, 3, seed=3)
    a = base.applications[2]
    twin = Application(a.release + 1e-3, a.tasks, a.work, a.size)
    near = Application(a.release + 1e-3, a.tasks, a.work, a.size * (1 + 1e-11))
    apps = base.applications
    exact = max_stretch(Instance(base.platform, (*apps[:3], twin, *apps[3:])))
    inst = Instance(base.platform, (*apps[:3], near, *apps[3:]))
    res = max_stretch(inst)
    assert res.stretch == pytest.approx(exact.stretch, rel=1e-7)
    assert check_plan(inst, res.plan).ok


def test_small_makespans_beside_a_huge_one_are_solved_apart():
    """MS* 1 and 1.3 beside 2e8 were made equal (to 1.3): S came out right by luck, but the
    plan computed application 0 after its true deadline (decision 235). The time scales are
    solved apart (decision 250): the small pair sets S* = 2.3/1.3 exactly (1.3 s waits for
    1 s), the plan of the whole instance passes the check."""
    plat = StarPlatform([1.0], [1e6])
    apps = (Application(0.0, 1, 1.0, 1.0), Application(0.0, 1, 1.3, 1.0),
            Application(0.0, 200_000_000, 1.0, 1.0))
    inst = Instance(plat, apps)
    res = max_stretch(inst)
    ms = res.dedicated_makespans
    assert res.stretch == pytest.approx((ms[0] + ms[1]) / ms[1], rel=1e-9)
    assert res.status == "optimal" and res.lower <= res.stretch
    assert check_plan(inst, res.plan).ok
    with pytest.raises(LpschedError, match="time scales apart"):
        res.interval_lp()  # no single LP holds it


@pytest.mark.parametrize("releases", [(0.0, 0.0, 0.0), (0.0, 0.5, 1e6), (1e6, 1e6 + 0.5, 0.0),
                                      (1e14, 1e14 + 0.5, 1e14)])
def test_time_scales_apart_at_any_release(releases):
    """The large application is paused while the small ones run, before or after its own
    release; shifted by 1e14 the same once the times are counted from the first release,
    as the loader does (:func:`lpsched.bags.io.fit_time_origin`, decision 251)."""
    from lpsched.bags.io import fit_time_origin

    plat = StarPlatform([1.0, 2.0], [1e6, 1e6])
    apps = (Application(releases[0], 3, 1.0, 1.0), Application(releases[1], 2, 1.3, 1.0),
            Application(releases[2], 300_000_000, 1.0, 1.0))
    inst = fit_time_origin(Instance(plat, apps))
    assert inst.origin == min(releases) or min(releases) < 1e9
    res = max_stretch(inst)
    small = max_stretch(inst.subset([0, 1]))
    assert res.stretch == pytest.approx(small.stretch, rel=1e-9)  # the small ones set S*
    assert check_plan(inst, res.plan).ok


def test_time_scales_bracket_and_its_refusal():
    """Two large applications set the stretch: the small ones, released 1000 s apart,
    pause them twice (0.5 s each, not 1000 s), so S* lies in a bracket of 1e-8 relative:
    answered ``within_tolerance`` with the plan checked; asked for tol = 1e-10, the bracket
    is wider and the split is refused with both bounds (decision 250)."""
    plat = StarPlatform([1.0, 1.0], [1e6, 1e6])
    apps = (Application(0, 1, 1.0, 1.0), Application(1e3, 1, 1.0, 1.0),
            Application(0, 200_000_000, 1.0, 1.0), Application(0, 300_000_000, 1.0, 1.0))
    inst = Instance(plat, apps)
    res = max_stretch(inst)
    assert res.status == "within_tolerance" and check_plan(inst, res.plan).ok
    assert res.lower <= res.stretch <= res.lower * (1 + 1e-7)
    assert res.lower == pytest.approx(max_stretch(inst.subset([2, 3])).stretch, rel=1e-12)
    with pytest.raises(SolverError, match=r"lies in \[1.6666666.*wider than tol"):
        max_stretch(inst, method="bisection", tol=1e-10)


def test_makespans_too_far_apart_are_solved_apart():
    """MS* 1.8e192 beside 1e2 was refused ("too far apart" for one LP); the scales are now
    solved apart (decision 250): the four small applications set the stretch, the plan of
    the whole instance passes the check."""
    inst = replaced(random_bags(5, 3, seed=3), 0, work=1e200)
    res = max_stretch(inst)
    assert res.stretch == pytest.approx(max_stretch(inst.subset([1, 2, 3, 4])).stretch,
                                        rel=1e-12)
    assert check_plan(inst, res.plan).ok


@pytest.mark.parametrize("generation", [True, False])
def test_a_useless_slow_worker_is_left_out(generation):
    """A worker 1e248 times too slow made coefficients HiGHS rejects (>= 1e15) as soon as
    an LP held it (every LP without worker generation)."""
    base = random_bags(5, 3, seed=3)
    slow = on_platform(base, speeds=np.append(base.platform.speeds[:2], 1e-240))
    without = Instance(StarPlatform(base.platform.speeds[:2], base.platform.bandwidths[:2]),
                       base.applications)
    res = max_stretch(slow, worker_generation=generation)
    assert res.stretch == pytest.approx(max_stretch(without).stretch, rel=1e-9)
    assert res.plan.comm.shape[1] == 3 and res.plan.comm[:, 2].sum() == 0
    assert check_plan(slow, res.plan).ok


@pytest.mark.parametrize("port", ["one-port", "multiport"])
def test_a_very_fast_link_is_solved(port):
    base = random_bags(5, 3, seed=3, port=port)
    inst = on_platform(base, bandwidths=np.append(1e20, base.platform.bandwidths[1:]))
    res = max_stretch(inst)
    assert check_plan(inst, res.plan).ok


def test_an_overflowing_makespan_is_rejected_at_load():
    with pytest.raises(InvalidInstanceError, match=r"applications\[0\]\.tasks"):
        replaced(random_bags(3, 2, seed=1), 0, tasks=2**53, work=1e305)


# -- the simulator: a budget, an event cap, a size limit ---------------------------------------
def test_a_simulation_has_a_wall_clock_budget(fake_clock):
    inst = random_bags(seed=2)  # about 1,800 events: the clock is read every 1,024
    with pytest.raises(SolverError, match=r"fifo-mct: the time limit of 1 s ran out"):
        simulate(inst, get_policy("fifo-mct"), time_limit=1)
    # a policy's own solves get what is left of the run's budget
    with pytest.raises(SolverError, match=r"time limit.* ran out") as err:
        simulate(inst, get_policy("cbs3m-edf-online"), time_limit=50)
    assert exp.outcome(err.value) == "time_limit"
    with pytest.raises(LpschedError, match="time_limit"):
        simulate(inst, get_policy("fifo-mct"), time_limit=-1)


def test_the_simulator_refuses_a_billion_tasks_at_once():
    """It used to allocate six arrays of 10^9 entries (48 GB) before simulating."""
    proc = bounded("""
        from lpsched.bags import Application, Instance, random_bags
        from lpsched.bags.policies import get_policy
        from lpsched.bags.simulator import simulate
        from lpsched.errors import LpschedError
        base = random_bags(3, 2, seed=1)
        a = base.applications[0]
        inst = Instance(base.platform, (Application(a.release, 10**9, a.work, a.size),)
                        + base.applications[1:])
        try:
            simulate(inst, get_policy("fifo-mct"))
        except LpschedError as exc:
            print("refused:", exc)
    """, timeout=120, memory=4 * 2**30)
    assert proc.returncode == 0 and "records every task" in proc.stdout, proc.stderr[-2000:]


# -- reproductions: a policy that cannot finish is a row ---------------------------------------
SLOW_LINKS = 1e-2  # base bandwidth (B/s): 1e6 times slower links than the seed's


def test_a_policy_that_cannot_finish_is_a_row(stalled_mwma_ms):
    row, = exp.cell((0, "mwma-ms", "mpi", SLOW_LINKS))
    assert row["status"] == "failed" and "unfinished" in row["reason"]
    assert all(row[m] is None for m in exp.METRICS)
    ok, = exp.cell((0, "fifo-mct", "mpi", SLOW_LINKS))
    assert ok["status"] == "ok" and ok["reason"] is None and ok["max_stretch"] > 1


def test_tables_and_csv_report_failures(tmp_path, stalled_mwma_ms):
    names = ["fifo-mct", "mwma-ms", "cbs3m-edf-offline"]
    rows = [r for c in exp.cells(2, "mpi", policies=names, base_bandwidth=SLOW_LINKS)
            for r in exp.cell(c)]
    tab = exp.tables(rows)
    for metric in exp.METRICS:
        assert tab[metric]["mwma-ms"]["failed"] == 2 and tab[metric]["mwma-ms"]["n"] == 0
        assert math.isnan(tab[metric]["mwma-ms"]["avg"])
        assert tab[metric]["mwma-ms"]["best"] == 0.0
        assert tab[metric]["fifo-mct"]["n"] == 2 and tab[metric]["fifo-mct"]["failed"] == 0
        assert sum(s["best"] for s in tab[metric].values()) >= 100.0
    text = exp.format_tables(tab)
    assert "failed" in text and "nan" not in text
    exp.write_csv(tab, rows, tmp_path)
    with open(tmp_path / "cbs3m_rows.csv", newline="") as fh:
        got = list(csv.DictReader(fh))
    assert [r["status"] for r in got].count("failed") == 2
    assert all("unfinished" in r["reason"] for r in got if r["status"] == "failed")
