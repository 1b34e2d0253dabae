"""Every result type's ``to_frame()``: its values are the result's own fields, its columns
are the documented ones, every documented ``per`` gives a frame without arguments, and a
missing pandas says which extra to install."""

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
    with pytest.raises(ValueError, match="'job', per 'campaign' or per 'run'"):
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
    """An empty list counts 0 solves; a row without the list (``None`` or the field
    absent) has no count, sum or max: missing, never an invented 0."""
    store = ResultStore(tmp_path / "s.sqlite")
    store.add("cbs3m", [1], [{"policy": "cbs3m", "solve_seconds": [0.25, 1.0, 0.5]},
                             {"policy": "mwma", "solve_seconds": []},
                             {"policy": "fifo", "solve_seconds": None},
                             {"policy": "spt"}])
    store.close()
    summary = load(tmp_path / "s.sqlite")
    assert list(summary.columns) == ["policy", "solve_seconds", "solve_seconds_count",
                                     "solve_seconds_sum", "solve_seconds_max"]
    assert summary["solve_seconds_count"].tolist()[:2] == [3, 0]
    assert str(summary["solve_seconds_count"].dtype) == "float64"  # as any absent number
    assert summary["solve_seconds_sum"].tolist()[:2] == [1.75, 0.0]
    assert summary["solve_seconds_max"].tolist()[0] == 1.0
    for name in ("count", "sum"):
        assert summary[f"solve_seconds_{name}"].isna().tolist() == [False, False, True, True]
    assert summary["solve_seconds_max"].isna().tolist() == [False, True, True, True]
    exploded = load(tmp_path / "s.sqlite", lists="explode")
    assert exploded["policy"].tolist() == ["cbs3m"] * 3 + ["mwma", "fifo", "spt"]
    assert str(exploded["solve_seconds"].dtype) == "float64"
    assert exploded.groupby("policy", sort=False)["solve_seconds"].sum().tolist() == [
        1.75, 0.0, 0.0, 0.0]
    assert exploded["solve_seconds"].isna().tolist() == [False] * 3 + [True] * 3
    kept = load(tmp_path / "s.sqlite", lists="keep")
    assert kept["solve_seconds"].tolist()[:2] == [[0.25, 1.0, 0.5], []]
    with pytest.raises(LpschedError, match="lists='sum'"):
        load(tmp_path / "s.sqlite", lists="sum")


def test_load_counts_stay_integers_when_every_row_has_its_list(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "s.sqlite")
    store.add("cbs3m", [1], [{"policy": "cbs3m", "solve_seconds": [0.25, 1.0]},
                             {"policy": "mwma", "solve_seconds": []}])
    store.close()
    summary = load(tmp_path / "s.sqlite")
    assert str(summary["solve_seconds_count"].dtype) == "int64"
    assert summary["solve_seconds_count"].tolist() == [2, 0]


def test_load_explode_needs_equal_lengths(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "s.sqlite")
    store.add("x", [1], [{"a": [1.0, 2.0], "b": [1.0]}])
    store.close()
    with pytest.raises(LpschedError, match=r"of one length in each row \(row 0: a 2, b 1 "
                       r"elements\); use lists='summary', or lists='keep' and "
                       r"DataFrame.explode on one field"):
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
    of contiguous jobs are batch_metrics'."""
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


# -- every result type, every per value ------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def _results() -> dict[str, object]:
    """One result of each type with a ``to_frame()``, by ``module path:class`` (the file
    that defines its class): every one is called without arguments (each result knows what
    it is of)."""
    from lpsched.bags.comparison import compare_policies
    from lpsched.batch.simulator import simulate_batch
    from lpsched.core.swf import Workload
    from lpsched.ptg.comparison import compare_algorithms
    from lpsched.tasks.comparison import compare_policies as compare_tasks
    from lpsched.tasks.simulator import evaluate as evaluate_task_policy

    inst = random_bags(3, 2, seed=4)
    sim = simulate(inst, get_policy("cbs3m-edf-online"))
    stretch = max_stretch(inst)
    rng = np.random.default_rng(3)
    run = rng.uniform(1, 500, 20)
    work = Workload(job=np.arange(1, 21), submit=np.sort(rng.uniform(0, 2000, 20)), run=run,
                    size=rng.integers(1, 9, 20), estimate=run * 1.5, processors=16)
    batch, _ = simulate_batch(work, "easy", alloc="becont-ff")
    camp = simulate_campaigns(faircamp_workload(3, jobs=40, seed=1),
                              policy_factory("ostrich", parallel=False))
    task_inst = TaskInstance(2, [0.0, 0.5, 1.0], [4.0, 1.0, 2.0])
    tasks = simulate_tasks(task_inst, get_task_policy("srpt"))
    problem = Problem([fft_ptg(4, seed=3), fft_ptg(4, seed=4)], get_cluster("chti"))
    ptg = run_ptg(problem, "cafm-k-shelves")
    lpt_res = lpt([2, 3, 4, 6, 2, 2], machines=3)
    found = [
        sim.schedule, metrics(inst, sim.schedule), sim, stretch.plan, stretch,
        compare_policies(inst, ["fifo-rr", "fifo-dd", "mwma-ms"]),
        batch, camp, tasks, evaluate_task_policy(task_inst, "srpt"),
        compare_tasks(task_inst, ["srpt", "spt-rd"]),
        ptg.schedule, ptg.metrics, ptg, compare_algorithms(problem, ["selfish",
                                                                     "cafm-k-shelves"]),
        lpt_res.schedule, lpt_res,
    ]
    return {_kind(obj): obj for obj in found}


def _kind(obj: object) -> str:
    """``module path:class`` of the class of ``obj``, as :func:`_classes_with_to_frame`
    names it (``bags/schedule.py:Schedule``)."""
    import inspect

    source = Path(inspect.getsourcefile(type(obj)) or "").resolve()
    return f"{source.relative_to(ROOT / 'lpsched').as_posix()}:{type(obj).__name__}"


def _classes_with_to_frame() -> set[str]:
    """The classes of lpsched that define ``to_frame``, read from the source."""
    import ast

    found = set()
    for path in (ROOT / "lpsched").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(f, ast.FunctionDef) and f.name == "to_frame" for f in node.body):
                found.add(f"{path.relative_to(ROOT / 'lpsched').as_posix()}:{node.name}")
    return found


def _per_values(method: object) -> list[str | None]:
    """The ``per`` values a ``to_frame`` documents (``per : {"a", "b"}``), ``[None]`` for
    a ``to_frame`` without ``per``."""
    import inspect
    import re

    if "per" not in inspect.signature(method).parameters:  # type: ignore[arg-type]
        return [None]
    doc = inspect.getdoc(method) or ""
    found = re.search(r"^\s*per : \{(.*)\}", doc, re.M)
    assert found, f"{method}: per's values are not documented"
    return re.findall(r'"(\w+)"', found.group(1))


@pytest.fixture(scope="module")
def results() -> dict[str, object]:
    return _results()


def test_every_result_type_is_covered(results: dict) -> None:
    assert _classes_with_to_frame() == set(results)


@pytest.mark.parametrize("kind", sorted(_classes_with_to_frame()))
def test_every_per_value_gives_a_frame(kind: str, results: dict) -> None:
    """Each documented ``per`` of each result: a DataFrame with rows, a RangeIndex and
    unique column names; an unknown ``per`` is a ``ValueError`` naming the values."""
    res = results[kind]
    pers = _per_values(res.to_frame)
    for per in pers:
        frame = res.to_frame() if per is None else res.to_frame(per=per)
        assert isinstance(frame, pd.DataFrame) and len(frame) > 0, (kind, per)
        assert isinstance(frame.index, pd.RangeIndex), (kind, per)
        assert frame.columns.is_unique, (kind, per)
    if pers != [None]:
        with pytest.raises(ValueError, match="per='nope'.*" + ".*".join(f"'{p}'" for p in pers)):
            res.to_frame(per="nope")


def test_simulation_run_row_carries_the_metrics(results: dict) -> None:
    """``per="run"``: the five objectives of ``lpsched simulate``'s row, then the run's
    figures and the policy's counters."""
    sim = results["bags/simulator.py:SimResult"]
    row = sim.to_frame(per="run").iloc[0]
    objectives = metrics(sim.instance, sim.schedule)
    for name in ("max_stretch", "sum_stretch", "makespan", "max_flow", "sum_flow"):
        assert row[name] == getattr(objectives, name), name
    assert (row["tasks"], row["events"], row["solves"]) == (
        sim.schedule.size, sim.events, sim.stats["solves"])
    # a result built by hand knows no instance: pass it, else a clear error
    from dataclasses import replace

    bare = replace(sim, instance=None)
    with pytest.raises(ValueError, match=r"needs the instance simulated .*: pass inst="):
        bare.to_frame(per="run")
    assert bare.to_frame(per="run", inst=sim.instance).equals(sim.to_frame(per="run"))
    assert bare.to_frame().equals(sim.to_frame())  # per task needs no instance
    with pytest.raises(ValueError, match="the instance has 2 applications"):
        bare.to_frame(per="run", inst=random_bags(2, 2, seed=4))


def test_batch_schedule_frames_need_no_argument(results: dict) -> None:
    """The simulator keeps the workload it simulated; ``work=`` still works (a schedule
    built by hand or unpickled), and without either the error says what to pass."""
    import pickle

    from lpsched.batch.schedule import BatchSchedule
    from lpsched.batch.validation import batch_metrics
    from lpsched.core.swf import Workload

    sched = results["batch/schedule.py:BatchSchedule"]
    work, m = sched.__dict__["_simulated"]
    jobs = sched.to_frame()
    assert jobs.equals(sched.to_frame(work))
    assert jobs["job"].tolist() == work.job.tolist()
    run = sched.to_frame(per="run").iloc[0].to_dict()
    want = batch_metrics(work, sched, m)
    assert {k: run[k] for k in want} == want
    assert (run["jobs"], run["processors"], run["failed"], run["killed"]) == (
        work.jobs, m, 0, 0)
    copy = pickle.loads(pickle.dumps(sched))  # the workload is no field: not carried
    assert "_simulated" not in copy.__dict__ and (copy.end == sched.end).all()
    with pytest.raises(ValueError, match=r"needs the workload: .* pass work="):
        copy.to_frame()
    assert copy.to_frame(work).equals(jobs)
    hand = BatchSchedule(sched.start, sched.end, sched.procs)
    with pytest.raises(ValueError, match="pass work="):
        hand.to_frame(per="run")
    assert hand.to_frame(work, per="run").iloc[0]["makespan"] == run["makespan"]
    with pytest.raises(ValueError, match="the workload has 19 jobs, the schedule 20"):
        hand.to_frame(Workload(job=work.job[:19], submit=work.submit[:19], run=work.run[:19],
                               size=work.size[:19], estimate=work.estimate[:19],
                               processors=16))


def test_campaign_run_row_is_the_run_summary(results: dict) -> None:
    """``per="run"``: ``lpsched campaigns run --json``'s fields but the wall time."""
    from lpsched.campaigns.metrics import summary

    run = results["campaigns/schedule.py:CampaignRun"]
    row = run.to_frame(per="run").iloc[0].to_dict()
    want = summary(run, 0.0, True)
    del want["seconds"]
    assert row == want
