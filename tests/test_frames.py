"""Every result type's ``to_frame()`` (issue 33, item 4): its values are the result's own
fields, its columns are the documented ones, and a missing pandas says which extra to
install."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

from lpsched.approx.dual import hybrid_schedule  # noqa: E402
from lpsched.approx.listsched import lpt  # noqa: E402
from lpsched.approx.moldable import mrt  # noqa: E402
from lpsched.approx.packing import nfdh_ls  # noqa: E402
from lpsched.bags import random_bags  # noqa: E402
from lpsched.bags.maxstretch import max_stretch  # noqa: E402
from lpsched.bags.policies import get_policy  # noqa: E402
from lpsched.bags.schedule import metrics  # noqa: E402
from lpsched.bags.simulator import simulate  # noqa: E402
from lpsched.campaigns.generators import faircamp_workload  # noqa: E402
from lpsched.campaigns.metrics import campaign_stretch, job_stretch  # noqa: E402
from lpsched.campaigns.policies import policy_factory  # noqa: E402
from lpsched.campaigns.simulator import simulate as simulate_campaigns  # noqa: E402
from lpsched.core import frames  # noqa: E402
from lpsched.core.store import ResultStore  # noqa: E402
from lpsched.errors import LpschedError  # noqa: E402
from lpsched.experiments import load  # noqa: E402
from lpsched.ptg.generators import fft_ptg  # noqa: E402
from lpsched.ptg.model import get_cluster  # noqa: E402
from lpsched.ptg.problem import Problem  # noqa: E402
from lpsched.ptg.registry import run as run_ptg  # noqa: E402
from lpsched.tasks import schedule as task_schedule  # noqa: E402
from lpsched.tasks.instance import TaskInstance  # noqa: E402
from lpsched.tasks.policies import get_policy as get_task_policy  # noqa: E402
from lpsched.tasks.simulator import simulate as simulate_tasks  # noqa: E402


def same(column: object, values: object) -> None:
    np.testing.assert_array_equal(np.asarray(column), np.asarray(values))


@pytest.fixture(scope="module")
def bags() -> tuple[object, object]:
    inst = random_bags(4, 3, seed=2)
    return inst, max_stretch(inst)


def test_max_stretch_per_application(bags: tuple) -> None:
    inst, res = bags
    apps = res.to_frame()
    assert list(apps.columns) == ["app", "release", "start", "tasks", "buffered", "rho_star",
                                  "ms_star", "deadline", "stretch"]
    same(apps["app"], res.plan.apps)
    same(apps["release"], inst.release)
    same(apps["start"], res.plan.start)
    same(apps["tasks"], inst.tasks)
    same(apps["buffered"], np.zeros(inst.n))
    same(apps["rho_star"], res.throughputs)
    same(apps["ms_star"], res.dedicated_makespans)
    same(apps["deadline"], res.deadlines)
    assert (apps["stretch"] == res.stretch).all()
    np.testing.assert_allclose(apps["release"] + apps["stretch"] * apps["ms_star"],
                               apps["deadline"])


def test_max_stretch_plan_and_probes(bags: tuple) -> None:
    _, res = bags
    plan = res.plan
    intervals = res.to_frame(per="interval")
    assert intervals.equals(plan.to_frame())
    n, p, j = plan.comm.shape
    assert len(intervals) == n * p * j
    row = intervals.iloc[(1 * p + 2) * j + 3]  # application 1, worker 2, interval 3
    assert (row["app"], row["worker"], row["interval"]) == (plan.apps[1], 2, 3)
    assert (row["begin"], row["end"]) == (plan.epochs[3], plan.epochs[4])
    assert (row["comm"], row["comp"]) == (plan.comm[1, 2, 3], plan.comp[1, 2, 3])
    assert row["buffered"] == plan.buffers[1, 2, 4]
    comm_rate, comp_rate = plan.rates()
    same(intervals["comm_rate"], comm_rate.ravel())
    same(intervals["comp_rate"], comp_rate.ravel())
    probes = res.to_frame(per="probe")
    assert len(probes) == len(res.probes)
    assert probes.to_dict("records") == [p.to_dict() for p in res.probes]
    with pytest.raises(ValueError, match="'application', 'interval' or 'probe'"):
        res.to_frame(per="task")


def test_bags_schedule_metrics_and_simulation() -> None:
    inst = random_bags(3, 2, seed=4)
    res = simulate(inst, get_policy("cbs3m-edf-online"))
    sched = res.schedule
    tasks = sched.to_frame()
    for name in ("app", "worker", "send_start", "send_end", "start", "end"):
        same(tasks[name], getattr(sched, name))
    same(tasks["task"], np.arange(sched.size))
    m = metrics(inst, sched)
    apps = m.to_frame()
    same(apps["completion"], m.completion)
    same(apps["flow"], m.flow)
    same(apps["stretch"], m.stretch)
    assert apps["stretch"].max() == m.max_stretch and apps["flow"].sum() == m.sum_flow
    per_task = res.to_frame()
    assert (per_task["policy"] == res.policy).all()
    assert per_task.drop(columns="policy").equals(tasks)
    run = res.to_frame(per="run").iloc[0]
    assert (run["policy"], run["tasks"], run["events"], run["seconds"]) == (
        res.policy, sched.size, res.events, res.seconds)
    solves = res.stats["solve_seconds"]
    assert run["solves"] == res.stats["solves"] == run["solve_seconds_count"] == len(solves)
    assert run["solve_seconds_sum"] == pytest.approx(sum(solves))
    assert run["solve_seconds_max"] == max(solves)
    assert run["stretches_max"] == max(res.stats["stretches"])
    with pytest.raises(ValueError, match="'task' or per 'run'"):
        res.to_frame(per="app")


def test_tasks_schedule() -> None:
    inst = TaskInstance(2, [0.0, 0.5, 1.0, 1.0, 3.0], [4.0, 1.0, 2.0, 30.0, 1.0])
    sched = simulate_tasks(inst, get_task_policy("srpt"))
    pieces = sched.to_frame()
    for name in ("task", "proc", "start", "end"):
        same(pieces[name], getattr(sched, name))
    same(pieces["kind"].map({"complete": 0, "preempted": 1, "interrupted": 2}), sched.kind)
    same(pieces["dedicated"], sched.proc >= sched.main)
    tasks = sched.to_frame(per="task", inst=inst)
    same(tasks["completion"], sched.completion)
    same(tasks["release"], inst.release)
    same(tasks["p"], inst.p)
    assert tasks["pieces"].sum() == sched.pieces
    wanted = task_schedule.metrics(inst, sched.completion)
    assert tasks["stretch"].max() == wanted["max_stretch"]
    assert tasks["flow"].sum() == pytest.approx(wanted["sum_flow"])
    assert list(sched.to_frame(per="task").columns) == ["task", "completion", "pieces", "proc"]
    with pytest.raises(ValueError, match="the instance has 1 tasks"):
        sched.to_frame(per="task", inst=TaskInstance(1, [0.0], [1.0]))
    with pytest.raises(ValueError, match="'piece' or per 'task'"):
        sched.to_frame(per="job")


def test_campaign_run() -> None:
    w = faircamp_workload(3, jobs=40, seed=1)
    run = simulate_campaigns(w, policy_factory("ostrich", parallel=False))
    jobs = run.to_frame()
    assert len(jobs) == w.jobs
    same(jobs["start"], run.start)
    same(jobs["end"], run.end)
    same(jobs["p"], w.p)
    same(jobs["q"], w.q)
    same(jobs["campaign"], w.camp)
    same(jobs["stretch"], job_stretch(run))
    camps = run.to_frame(per="campaign")
    assert len(camps) == w.campaigns
    same(camps["release"], run.release)
    same(camps["completion"], run.completion)
    same(camps["first_start"], run.first_start)
    same(camps["user"], w.user)
    same(camps["stretch"], campaign_stretch(run))
    assert camps["jobs"].sum() == w.jobs
    # the per-job frame aggregates to the per-campaign one
    same(jobs.groupby("campaign")["end"].max(), camps["completion"])
    with pytest.raises(ValueError, match="'job' or per 'campaign'"):
        run.to_frame(per="user")


def test_ptg_run() -> None:
    pb = Problem([fft_ptg(4, seed=3), fft_ptg(4, seed=4)], get_cluster("chti"))
    res = run_ptg(pb, "cafm-k-shelves")
    sched = res.schedule
    tasks = res.to_frame()
    assert (tasks["algorithm"] == "cafm-k-shelves").all()
    same(tasks["start"], sched.start)
    same(tasks["end"], sched.end)
    same(tasks["alloc"], sched.alloc)
    same(tasks["ptg"], sched.owner)
    assert tasks["procs"].tolist() == [p.tolist() for p in sched.procs]
    same(tasks["start_before"], res.before_backfill.start)
    same(tasks["rank"].to_numpy()[sched.order], np.arange(sched.order.size))
    same(tasks.groupby("ptg")["vertex"].max() + 1, [len(g.ids) for g in pb.ptgs])
    same(tasks.groupby("ptg")["vertex"].min(), [0, 0])
    ptgs = res.to_frame(per="ptg")
    same(ptgs["completion"], res.metrics.completion)
    same(ptgs["alone"], res.metrics.alone)
    same(ptgs["stretch"], res.metrics.stretch)
    with pytest.raises(ValueError, match="'task' or per 'ptg'"):
        res.to_frame(per="job")


@pytest.mark.parametrize("result", [
    lambda: lpt([2, 3, 4, 6, 2, 2], machines=3),
    lambda: hybrid_schedule([4, 4, 1, 3], [1, 1, 4, 2], cpus=2, gpus=1),
    lambda: nfdh_ls([[2.0, 1], [1.0, 2], [3.0, 1]], 2, 2),
    lambda: mrt([[4.0, 2.5], [2.0, 1.5], [3.0, 2.0]], 2),
], ids=["lpt", "hybrid", "nfdh-ls", "mrt"])
def test_certified(result: object) -> None:
    res = result()  # type: ignore[operator]
    tasks = res.to_frame()
    assert (tasks["algorithm"] == res.algorithm).all()
    for name, values in res.schedule.to_dict().items():
        assert tasks[name].tolist() == values
    assert tasks["end"].max() == pytest.approx(res.makespan)
    row = res.to_frame(per="result").iloc[0].to_dict()
    for name, value in res.to_dict().items():
        if isinstance(value, list):  # a list of numbers: its count, sum and max
            assert (row[f"{name}_count"], row[f"{name}_sum"], row[f"{name}_max"]) == (
                len(value), sum(value), max(value))
            assert name not in row
        else:
            assert row[name] == value or (value is None and pd.isna(row[name]))
    with pytest.raises(ValueError, match="'task' or one per 'result'"):
        res.to_frame(per="machine")


def test_machine_schedule() -> None:
    sched = lpt([5, 1, 1], machines=2).schedule
    frame = sched.to_frame()
    same(frame["machine"], sched.machine)
    same(frame["start"], sched.start)
    same(frame["end"], sched.end)


def test_load_number_lists(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "s.sqlite")
    store.add("cbs3m", [1], [{"policy": "cbs3m", "solve_seconds": [0.25, 1.0, 0.5]},
                             {"policy": "mwma", "solve_seconds": []},
                             {"policy": "fifo", "solve_seconds": None}])
    store.close()
    summary = load(tmp_path / "s.sqlite")
    assert list(summary.columns) == ["policy", "solve_seconds", "solve_seconds_count",
                                     "solve_seconds_sum", "solve_seconds_max"]
    assert summary["solve_seconds_count"].tolist() == [3, 0, 0]
    assert str(summary["solve_seconds_count"].dtype) == "int64"
    assert summary["solve_seconds_sum"].tolist() == [1.75, 0.0, 0.0]
    assert summary["solve_seconds_max"].tolist()[0] == 1.0
    assert summary["solve_seconds_max"].isna().tolist() == [False, True, True]
    exploded = load(tmp_path / "s.sqlite", lists="explode")
    assert exploded["policy"].tolist() == ["cbs3m"] * 3 + ["mwma", "fifo"]
    assert str(exploded["solve_seconds"].dtype) == "float64"
    assert exploded.groupby("policy", sort=False)["solve_seconds"].sum().tolist() == [
        1.75, 0.0, 0.0]
    kept = load(tmp_path / "s.sqlite", lists="keep")
    assert kept["solve_seconds"].tolist()[0] == [0.25, 1.0, 0.5]
    with pytest.raises(LpschedError, match="lists='sum'"):
        load(tmp_path / "s.sqlite", lists="sum")


def test_load_explode_needs_equal_lengths(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "s.sqlite")
    store.add("x", [1], [{"a": [1.0, 2.0], "b": [1.0]}])
    store.close()
    with pytest.raises(LpschedError, match="of one length in each row"):
        load(tmp_path / "s.sqlite", lists="explode")
    assert load(tmp_path / "s.sqlite")["b_sum"].tolist() == [1.0]


def test_missing_pandas_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    sched = lpt([5, 1, 1], machines=2).schedule
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    with pytest.raises(LpschedError, match=r"MachineSchedule.to_frame\(\) returns a pandas "
                       r"DataFrame and pandas is not installed: pip install "
                       r"'lpsched\[pandas\]'"):
        sched.to_frame()
    with pytest.raises(LpschedError, match=r"lpsched.experiments.load .*lpsched\[pandas\]"):
        load("nowhere.sqlite")


def test_frame_checks_lengths() -> None:
    with pytest.raises(ValueError, match="different lengths"):
        frames.frame({"a": [1, 2], "b": [1]})
    assert frames.number_lists("x", [True]) is None


def test_batch_schedule_frame_agrees_with_batch_metrics() -> None:
    """One row per job; the means of wait, flow, bounded slowdown, stretch and the share
    of contiguous jobs are batch_metrics' (issue 33 item 4)."""
    import numpy as np

    from lpsched.batch.simulator import batch_metrics, simulate_batch
    from lpsched.core.swf import Workload

    rng = np.random.default_rng(3)
    n = 60
    run = rng.uniform(1, 500, n)
    work = Workload(job=np.arange(1, n + 1), submit=np.sort(rng.uniform(0, 2000, n)),
                    run=run, size=rng.integers(1, 9, n), estimate=run * 1.5, processors=16)
    sched, _ = simulate_batch(work, "easy", alloc="becont-ff")
    df = sched.to_frame(work)
    m = batch_metrics(work, sched, 16)
    assert len(df) == n and df["job"].tolist() == list(range(1, n + 1))
    assert df["wait"].mean() == pytest.approx(m["mean_wait"])
    assert df["flow"].mean() == pytest.approx(m["mean_flow"])
    assert df["bounded_slowdown"].mean() == pytest.approx(m["mean_bounded_slowdown"])
    assert df["stretch"].mean() == pytest.approx(m["mean_stretch"])
    assert df["contiguous"].mean() == pytest.approx(m["contiguous_jobs"])
    assert (df["procs"].map(len) == df["size"]).all()
