"""Issue 30 (seed 000 ch. 3): the chapter's job selection (decision 285), its default in
the reproduction, the seed-vs-ours table (decision 288) and the reliability of far
release dates (decision 286)."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np
import pytest

from lpsched.core import ResultStore, run_cells
from lpsched.core.fidelity import COLUMNS
from lpsched.errors import InvalidInstanceError, InvalidScheduleError
from lpsched.tasks import reproduce as exp
from lpsched.tasks.instance import (
    MAX_TIME,
    TaskInstance,
    instance_from_trace,
    trace_workload,
)
from lpsched.tasks.policies import get_policy
from lpsched.tasks.schedule import check_bounds, validate_schedule
from lpsched.tasks.simulator import evaluate, simulate
from tests.shared_data import shared_file

#: (status, run time) of the hand-made trace's jobs, in submission order
JOBS = [(1, 100), (1, 0), (0, 50), (5, 40), (1, 30), (-1, 20), (1, 0), (0, 0), (1, 70),
        (1, 10)]


def _kth_like(tmp_path: Path, jobs: list[tuple[int, int]] = JOBS, days: float = 30.0,
              seed: int = 1) -> Path:
    """A trace named like Table 3.1's KTH-SP2 (so Table 3.1's row and 15-day window
    apply), MaxProcs 100, ``jobs`` repeated over ``days`` with processors 1-8."""
    rng = np.random.default_rng(seed)
    lines = ["; Version: 2.2", "; MaxProcs: 100"]
    reps = 12
    submit = np.sort(rng.uniform(0, days * 86400, len(jobs) * reps)).astype(int)
    for i, t in enumerate(submit.tolist()):
        status, run = jobs[i % len(jobs)]
        run = run * int(rng.integers(1, 40)) if run else 0
        q = int(rng.integers(1, 9))
        lines.append(f"{i + 1} {t} 0 {run} {q} -1 -1 {q} {run * 2 + 1} -1 {status} 1 1 -1 "
                     "-1 1 -1 -1")
    path = tmp_path / "KTH-SP2-1996-2.1-cln.swf"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_selection_counts_per_status_and_run_time(tmp_path: Path) -> None:
    """The chapter's selection keeps the completed jobs of positive run time; every other
    job is counted with its reason (status, run time 0)."""
    path = _kth_like(tmp_path)
    every, m = trace_workload(str(path))
    assert m == 100 and every.jobs == 120
    chapter, _ = trace_workload(str(path), status="completed", zero_run="drop")
    assert chapter.jobs == 12 * 4  # (1, 100), (1, 30), (1, 70), (1, 10)
    assert chapter.dropped == {"status 0 not selected": 24, "status 5 not selected": 12,
                               "status -1 not selected": 12, "run time 0 (field 4 = 0)": 24}
    completed, _ = trace_workload(str(path), status="completed")
    assert completed.jobs == 12 * 6
    with pytest.raises(InvalidInstanceError, match="zero_run"):
        trace_workload(str(path), zero_run="maybe")
    inst = instance_from_trace(str(path), "all", status="completed", zero_run="drop")
    assert inst.n == 48 and inst.meta["jobs_selected"] == {"status": "completed",
                                                           "zero_run": "drop"}
    assert inst.meta["trace_dropped"]["run time 0 (field 4 = 0)"] == 24


def test_reproduction_defaults_to_the_chapter_selection(tmp_path: Path) -> None:
    """Decision 285: cells, instances and the command default to completed jobs of
    positive run time; ``tasks`` keeps every job by default."""
    from lpsched.cli import build_parser

    path = _kth_like(tmp_path)
    cell = exp.comparison_cells([str(path)], 1, policies=("spt",))[0]
    assert cell[4] == {"status": "completed", "zero_run": "drop"} == exp.CHAPTER_SELECTION
    assert exp.tuning_cells(str(path), 1, md_values=(1,))[0][4] == exp.CHAPTER_SELECTION
    assert exp.instance(str(path), 0).meta["jobs_selected"] == exp.CHAPTER_SELECTION
    args = build_parser(["reproduce", "redirection"]).parse_args(["reproduce", "redirection"])
    assert (args.status, args.zero_run) == ("completed", "drop")
    args = build_parser(["tasks", "x.swf"]).parse_args(["tasks", "x.swf"])
    assert (args.status, args.zero_run) == ("all", "keep")
    # a cell stored before decision 285 (four items) was computed on every job line
    legacy = exp.run_cell([str(path), 0, "spt", {}])[0]
    assert (legacy["job_status"], legacy["zero_run"]) == ("all", "keep")
    assert exp.run_cell(cell)[0]["n"] < legacy["n"]


def test_ratio_08() -> None:
    """The ceil(0.8 n)-th smallest over the largest; None without a positive length."""
    assert exp.ratio_08(np.arange(1.0, 11.0)) == 0.8
    assert exp.ratio_08(np.array([5.0])) == 1.0
    assert exp.ratio_08(np.zeros(3)) is None and exp.ratio_08(np.zeros(0)) is None


def test_sampling_tolerance() -> None:
    tol, note = exp._sampling_tolerance([10.0, 14.0])
    assert tol == pytest.approx(2 * math.sqrt(8) * math.sqrt(1 / 20 + 1 / 2))
    assert "2 instances" in note
    assert exp._sampling_tolerance([3.0]) == (0.0, "1 instance: no sampling tolerance")


def test_fidelity_table_rows_and_verdicts_on_a_small_store(tmp_path: Path) -> None:
    """A reduced run on a KTH-named trace, stored and read back: one row per published
    figure of ch. 3 (41), the traces not in the run 'not measured', the KTH rows measured
    with the verdict rule of decision 288."""
    path = _kth_like(tmp_path)
    cells = exp.comparison_cells([str(path)], 2)
    store = ResultStore(tmp_path / "r.sqlite")
    run_cells("redirection", cells, exp.run_cell, store, progress=False, group=exp.group)
    rows = store.rows_of("redirection", cells)
    table = exp.fidelity(rows, [str(path)])
    assert table.experiment == "redirection" and len(table.rows) == 7 * 5 + 2 + 5
    by = {r.figure: r for r in table.rows}
    count = by["Table 3.1 KTH-SP2 trace # tasks"]
    assert (count.seed_value, count.ours, count.role) == ("20483", "48", "calibration")
    assert count.verdict == "differs: explained by decision 285"
    assert by["Table 3.1 KTH-SP2 trace # CPUs"].verdict == "match"
    size = by["Table 3.1 KTH-SP2 trace size"]
    assert size.seed_value == "333 d" and size.verdict == "differs"  # a 30-day trace
    n = [r["n"] for r in rows if r["policy"] == "spt"]
    tasks = by["Table 3.1 KTH-SP2 tasks per instance"]
    assert float(tasks.ours) == pytest.approx(np.mean(n), abs=0.05)
    tol = float(tasks.tolerance)
    assert tol == pytest.approx(exp._sampling_tolerance([float(v) for v in n])[0], rel=1e-3)
    assert tasks.verdict.startswith("differs")  # 48 jobs in 30 days, not 860 in 15
    mq = by["Table 3.1 KTH-SP2 instance CPUs (m/Q)"]
    # KTH-SP2's m/Q comes back at full size: no decision explains a difference there
    assert mq.verdict in ("match", "close", "differs")
    for name in ("Curie", "HPC2N", "LLNL-Thunder", "Metacentrum", "RICC", "SDSC-Blue-4.1"):
        assert by[f"Table 3.1 {name} trace # tasks"].verdict == (
            "not measured: trace not in this run")
    assert by["Table 3.1 Curie trace size"].role == "calibration"
    assert by["Curie GSPT-RD vs GSPT: stretch metrics"].verdict.startswith("not measured")
    claim = by["other traces: (trace, method) pairs improving all stretch metrics"]
    assert claim.seed_value == "> 2" and "of 4 pairs (KTH-SP2" in claim.note
    assert claim.verdict in ("match", "differs")
    assert by["b: p of the 0.8n-th task / longest, mean of traces"].ours != ""
    work, _, _ = exp._trace(str(path))  # the whole-trace reading: run times
    whole = by["b: run time of the 0.8n-th job / longest, whole traces"]
    assert whole.role == "calibration"
    assert float(whole.ours) == pytest.approx(exp.ratio_08(work.run), abs=5e-5)
    text = table.csv_text()
    assert next(csv.reader(io.StringIO(text))) == list(COLUMNS)
    assert len(text.splitlines()) == 43
    tune = exp.fidelity(rows, [str(path)], claims=False)
    assert len(tune.rows) == 37


def test_curie_size_is_read_in_hours(tmp_path: Path) -> None:
    """Table 3.1's Curie size (6089) is compared in hours (decision 288)."""
    lines = ["; MaxProcs: 80640"] + [
        f"{i} {t} 0 100 32 -1 -1 32 200 -1 1 1 1 -1 -1 1 -1 -1"
        for i, t in enumerate((0, 6089 * 3600), start=1)]
    path = tmp_path / "CEA-Curie-2011-2.1-cln.swf"
    path.write_text("\n".join(lines) + "\n")
    table = exp.fidelity([], [str(path)], claims=False)
    size = {r.figure: r for r in table.rows}["Table 3.1 Curie trace size"]
    assert (size.ours, size.verdict, size.role) == ("6089 h", "match", "calibration")


# -- decision 286: far release dates ---------------------------------------------------------

def test_far_releases_are_rebased_and_keep_their_durations() -> None:
    """Two tasks released at 1e19 (floats 2,048 s apart there) used to give max-flow 0;
    at 1e17 SPT's max-stretch was 3.7631 for 3.7702. Rebased, both equal the instance at
    0, and the origin is kept (and survives JSON)."""
    near = TaskInstance(1, [0.0, 0.0], [5.0, 3.0])
    far = TaskInstance(1, [1e19, 1e19], [5.0, 3.0])
    assert far.release.tolist() == [0.0, 0.0] and far.meta["release_origin"] == 1e19
    assert evaluate(far, "spt").metrics == evaluate(near, "spt").metrics
    assert evaluate(far, "spt").metrics["max_flow"] == 8.0
    again = TaskInstance.from_dict(far.to_dict())
    assert again.meta["release_origin"] == 1e19 and again.release.tolist() == [0.0, 0.0]
    rng = np.random.default_rng(3)
    r = np.sort(rng.integers(0, 300, 50)) * 32.0  # exact at 1e17 (floats 16 s apart)
    p = rng.uniform(1, 500, 50).round(1)
    base, shifted = TaskInstance(3, r, p), TaskInstance(3, r + 1e17, p)
    assert evaluate(shifted, "spt").metrics == evaluate(base, "spt").metrics
    with pytest.raises(InvalidInstanceError, match="release_origin"):
        TaskInstance(1, [5.0], [1.0], {"release_origin": "yesterday"})


def test_times_beyond_a_microsecond_are_refused() -> None:
    TaskInstance(1, [0.0, MAX_TIME - 10], [1.0, 5.0])
    with pytest.raises(InvalidInstanceError, match=r"tasks\[1\].*kept to 1e-06 s"):
        TaskInstance(1, [0.0, 1e17], [1.0, 5.0])
    inst = TaskInstance(1, [0.0, MAX_TIME - 10], [1.0, 5.0])
    validate_schedule(inst, simulate(inst, get_policy("spt")))
    late = TaskInstance(1, [0.0, 0.0], [0.99 * MAX_TIME] * 2)  # ends beyond 2^33 s
    with pytest.raises(InvalidScheduleError, match="time-resolution"):
        evaluate(late, "fcfs")


def test_a_schedule_below_a_proven_bound_is_refused() -> None:
    bounds = {"max_stretch": {"value": 102.4, "bound": "preemptive-exact"},
              "max_flow": {"value": 1024.0, "bound": "preemptive-exact"}}
    check_bounds({"max_stretch": 102.4, "max_flow": 1024.0}, bounds)
    check_bounds({"max_stretch": 102.4 * (1 - 1e-8), "max_flow": 2000.0}, bounds)
    with pytest.raises(InvalidScheduleError, match=r"lower-bound.*max_flow = 0 .*1024"):
        check_bounds({"max_stretch": 200.0, "max_flow": 0.0}, bounds)


# -- the real traces (skipped without them: tests/shared_data.py) ---------------------------

def _trace_path(short: str) -> Path:
    from lpsched.tasks.instance import TRACES

    return shared_file(next(t.file for t in TRACES.values() if t.short == short))


@pytest.mark.parametrize("short", [
    "KTH-SP2", "SDSC-Blue-4.1",
    pytest.param("Curie", marks=pytest.mark.slow), pytest.param("HPC2N", marks=pytest.mark.slow),
    pytest.param("LLNL-Thunder", marks=pytest.mark.slow),
    pytest.param("Metacentrum", marks=pytest.mark.slow),
    pytest.param("RICC", marks=pytest.mark.slow)])
def test_chapter_selection_gives_table_3_1_counts(short: str) -> None:
    """Decision 285 (calibration): completed jobs of positive run time are exactly Table
    3.1's "# tasks"; completed alone leaves SDSC 4 over (RICC 2)."""
    path = _trace_path(short)
    figures = exp.trace_figures(str(path))
    assert figures["jobs"] == exp.TABLE_3_1[short][1]
    if short == "SDSC-Blue-4.1":
        completed, _ = trace_workload(str(path), status="completed")
        assert completed.jobs == exp.TABLE_3_1[short][1] + 4
        assert figures["dropped"]["run time 0 (field 4 = 0)"] == 4
