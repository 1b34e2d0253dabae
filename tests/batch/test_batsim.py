"""Batsim's formats (lpsched/batch/batsim.py): the ``jobs.csv`` schema evalys reads
(checked as evalys parses it, and with evalys itself when it is installed), JSON workloads of
delay jobs (every rule of the reader, the mapping to an lpsched workload) and the SWF <->
Batsim conversion (the same simulated start times, the same jobs back). The tests on the
shared traces skip when ``../shared/data`` is absent."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.batch.batsim import (
    COMPLETED,
    JOBS_COLUMNS,
    WALLTIME_REACHED,
    BatsimWorkload,
    batsim_to_swf,
    batsim_to_workload,
    delay_names,
    load_jobs,
    read_batsim,
    swf_to_batsim,
    write_batsim,
    write_jobs_csv,
)
from lpsched.batch.simulator import batch_metrics, simulate_batch, validate_batch
from lpsched.core.swf import FIELDS, SwfTrace, Workload, read_swf, to_workload, write_swf
from lpsched.errors import InvalidInstanceError, ParseError
from tests.shared_data import shared_file

#: Batsim's column list, copied from its documentation (docs/output-jobs.rst, "in this
#: order") rather than from the module, so that a change of JOBS_COLUMNS fails here
BATSIM_DOC_COLUMNS = [
    "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
    "requested_time", "success", "final_state", "starting_time", "execution_time",
    "finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_resources",
    "consumed_energy", "metadata"]
#: the text form of an interval set that procset.ProcSet.from_str reads (evalys)
INTERVALS = re.compile(r"\d+(-\d+)?( \d+(-\d+)?)*")
FLOAT_COLUMNS = ("submission_time", "requested_time", "starting_time", "execution_time",
                 "finish_time", "waiting_time", "turnaround_time", "stretch",
                 "consumed_energy")


def trace_path(name: str) -> Path:
    return shared_file(name)


def jobs_csv(work: Workload, sched: Any, profiles: list[str] | None = None) -> list[dict]:
    out = io.StringIO()
    write_jobs_csv(out, work, sched, profiles)
    return list(csv.DictReader(io.StringIO(out.getvalue())))


def interval_ids(text: str) -> list[int]:
    ids: list[int] = []
    for part in text.split():
        lo, _, hi = part.partition("-")
        ids += range(int(lo), int(hi or lo) + 1)
    return ids


def check_schema(rows: list[dict], header: list[str]) -> None:
    """The rows as evalys reads them (JobSet.from_csv: pandas with ``job_id`` and ``profile``
    as strings, ``allocated_resources`` through ``ProcSet.from_str``; compute_load then
    rebuilds ``starting_time = submission_time + waiting_time`` and ``finish_time =
    starting_time + execution_time``): Batsim's columns in Batsim's order, every number
    parses, every interval set is ``a-b c`` text of increasing, non-adjacent ranges with as
    many ids as the job requested, and the derived columns agree as Batsim defines them."""
    assert header == BATSIM_DOC_COLUMNS == list(JOBS_COLUMNS)
    for row in rows:
        assert row["workload_name"] == "w0" and row["profile"] and row["metadata"] == ""
        assert row["job_id"].isdigit()
        values = {c: float(row[c]) for c in FLOAT_COLUMNS}
        assert int(row["requested_number_of_resources"]) >= 1
        assert (row["success"], row["final_state"]) in (("1", COMPLETED),
                                                        ("0", WALLTIME_REACHED))
        assert values["consumed_energy"] == -1
        assert INTERVALS.fullmatch(row["allocated_resources"]), row["allocated_resources"]
        ids = interval_ids(row["allocated_resources"])
        assert ids == sorted(set(ids)) and len(ids) == int(row["requested_number_of_resources"])
        ranges = [[int(x) for x in part.split("-")]
                  for part in row["allocated_resources"].split()]
        assert all(b[0] > a[-1] + 1 for a, b in itertools.pairwise(ranges))
        submit, start, end = (values[c] for c in ("submission_time", "starting_time",
                                                  "finish_time"))
        assert math.isclose(submit + values["waiting_time"], start, abs_tol=1e-6)
        assert math.isclose(start + values["execution_time"], end, abs_tol=1e-6)
        assert math.isclose(end - submit, values["turnaround_time"], abs_tol=1e-6)
        if values["execution_time"] > 0:
            assert math.isclose(values["stretch"],
                                values["turnaround_time"] / values["execution_time"])


# --- jobs.csv ----------------------------------------------------------------------------

def small_work(**kw: Any) -> Workload:
    """3 jobs on 4 processors: job 10 (4 procs, 10 s, estimate 10) first, then job 20
    (2 procs, runs 8 s but estimated 5) and job 30 (2 procs, 0 s)."""
    data = {"job": np.array([10, 20, 30]), "submit": np.array([0.0, 1.0, 1.5]),
            "run": np.array([10.0, 8.0, 0.0]), "size": np.array([4, 2, 2]),
            "estimate": np.array([10.0, 5.0, 3.0]), "processors": 4}
    data.update(kw)
    return Workload(**data)


def test_jobs_csv_by_hand():
    """FCFS on small_work: 10 runs [0, 10) on 0-3; 20 and 30 start at 10 side by side. Under
    kill, job 20 stops at its estimate (5 s): COMPLETED_WALLTIME_REACHED, success 0."""
    work = small_work()
    for kill, end20, state, success in ((False, 18.0, COMPLETED, "1"),
                                        (True, 15.0, WALLTIME_REACHED, "0")):
        sched, _ = simulate_batch(work, "fcfs", kill=kill)
        rows = jobs_csv(work, sched)
        assert [r["job_id"] for r in rows] == ["10", "20", "30"]
        assert [r["profile"] for r in rows] == ["10", "8", "0"]
        assert [r["allocated_resources"] for r in rows] == ["0-3", "0-1", "2-3"]
        assert [r["starting_time"] for r in rows] == ["0.0", "10.0", "10.0"]
        assert rows[1]["finish_time"] == repr(end20)
        assert (rows[1]["final_state"], rows[1]["success"]) == (state, success)
        assert [r["final_state"] for r in (rows[0], rows[2])] == [COMPLETED, COMPLETED]
        assert [r["requested_time"] for r in rows] == ["10.0", "5.0", "3.0"]
        assert rows[1]["waiting_time"] == "9.0" and rows[2]["waiting_time"] == "8.5"
        # Batsim's stretch = turnaround / execution: 8.5 / 0 for the empty job
        assert rows[2]["execution_time"] == "0.0" and rows[2]["stretch"] == "inf"
        assert rows[0]["stretch"] == "1.0"
        check_schema(rows, list(rows[0].keys()))


def test_jobs_csv_profile_names_and_quoting():
    """A Batsim workload's own profile names are written, quoted where CSV needs it; fractional
    times keep every digit."""
    work = small_work(submit=np.array([0.0, 0.1, 1 / 3]))
    sched, _ = simulate_batch(work, "easy")
    rows = jobs_csv(work, sched, ["plain", 'a,"b"', "x%s"])
    assert [r["profile"] for r in rows] == ["plain", 'a,"b"', "x%s"]
    assert float(rows[2]["submission_time"]) == 1 / 3
    with pytest.raises(InvalidInstanceError, match="one per job"):
        jobs_csv(work, sched, ["only one"])


def test_penalty_failures_are_walltime_reached():
    """A job a placement penalty pushes past its estimate is stopped there: the CSV says so
    (the ``killed`` mask of the schedule includes ``failed``)."""
    from lpsched.batch.topology import parse_topology

    topo = parse_topology("fat-tree:2,2", 4)
    work = small_work(run=np.array([10.0, 4.0, 1.0]), estimate=np.array([10.0, 4.0, 3.0]))
    sched, _ = simulate_batch(work, "fcfs", topology=topo, penalty=("linear", 2.0),
                              alloc="basic")
    assert sched.killed is not None and sched.failed is not None
    assert (sched.killed == sched.failed).all()
    rows = jobs_csv(work, sched)
    assert [r["final_state"] == WALLTIME_REACHED for r in rows] == sched.failed.tolist()


def test_chunks_give_the_same_text(monkeypatch):
    """Rows are formatted in chunks (bounded memory); chunk boundaries change nothing, also
    when only some chunks have killed jobs or whole-number columns."""
    from lpsched.batch import batsim

    rng = np.random.default_rng(5)
    n = 50
    run = rng.integers(0, 20, n).astype(float)
    run[::7] += 0.25
    work = Workload(job=np.arange(n), submit=np.sort(rng.integers(0, 40, n)).astype(float),
                    run=run, size=rng.integers(1, 5, n),
                    estimate=np.maximum(run + rng.integers(-3, 5, n), 0.0),
                    processors=6)
    sched, _ = simulate_batch(work, "easy", kill=True)
    whole = io.StringIO()
    write_jobs_csv(whole, work, sched)
    monkeypatch.setattr(batsim, "CHUNK", 7)
    parts = io.StringIO()
    write_jobs_csv(parts, work, sched)
    assert parts.getvalue() == whole.getvalue()
    rows = list(csv.DictReader(io.StringIO(whole.getvalue())))
    assert sum(r["success"] == "0" for r in rows) == int(sched.killed.sum()) > 0
    check_schema(rows, list(rows[0].keys()))


def lpsched_csv(tmp_path: Path, policy: str = "easy") -> tuple[Path, dict]:
    """``lpsched batch hpc2n-excerpt --policy POLICY --out jobs.csv --json``."""
    from lpsched.cli import main

    path = tmp_path / "jobs.csv"
    buf = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(buf):
        code = main(["batch", str(trace_path("hpc2n-excerpt.swf")), "--policy", policy,
                     "--out", str(path), "--json"])
    assert code == 0
    return path, json.loads(buf.getvalue())


def test_schema_on_hpc2n(tmp_path):
    """The CSV of EASY on hpc2n-excerpt passes the schema check, and the utilisation evalys
    computes from it (the area of ``proc_alloc`` between ``starting_time`` and
    ``finish_time`` over the span of the events, divided by the machine) is lpsched's."""
    path, report = lpsched_csv(tmp_path)
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
        header = list(reader.fieldnames or [])
    check_schema(rows, header)
    assert len(rows) == report["jobs"] == 3145
    area = sum(len(interval_ids(r["allocated_resources"])) * float(r["execution_time"])
               for r in rows)
    span = max(float(r["finish_time"]) for r in rows) - \
        min(float(r["starting_time"]) for r in rows)
    assert area / span / report["processors"] == pytest.approx(report["utilisation"],
                                                                rel=1e-12)
    assert report["utilisation"] == pytest.approx(0.3965, abs=5e-5)


def test_evalys_reads_the_csv(tmp_path):
    """evalys (when installed) loads lpsched's jobs.csv unchanged; its mean utilisation over
    the schedule, divided by the machine, is lpsched's; its queue and Gantt views run."""
    evalys_jobset = pytest.importorskip("evalys.jobset")
    path, report = lpsched_csv(tmp_path)
    js = evalys_jobset.JobSet.from_csv(str(path))
    assert len(js.df) == report["jobs"] and js.MaxProcs == report["processors"]
    assert js.mean_utilisation() / report["processors"] == pytest.approx(
        report["utilisation"], rel=1e-9)
    assert js.queue["load"].iloc[-1] == 0  # every job started
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    js.gantt()
    plt.close("all")


# --- reading Batsim workloads ------------------------------------------------------------

def workload_doc(**changes: Any) -> dict:
    doc: dict[str, Any] = {
        "nb_res": 4,
        "jobs": [{"id": 1, "subtime": 0, "res": 2, "walltime": 30, "profile": "p10"},
                 {"id": "w0!2", "subtime": 5.5, "res": 4, "profile": "p10"},
                 {"id": "3", "subtime": 2, "res": 1, "walltime": -1, "profile": "p2"}],
        "profiles": {"p10": {"type": "delay", "delay": 10},
                     "p2": {"type": "DelayProfile", "delay": 2.5},
                     "unused": {"type": "parallel_homogeneous", "cpu": 1, "com": 0}}}
    doc.update(changes)
    return doc


def write_doc(tmp_path: Path, doc: Any, name: str = "w.json") -> Path:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def test_read_batsim_and_its_workload(tmp_path):
    bw = read_batsim(write_doc(tmp_path, workload_doc()))
    assert bw.job.tolist() == [1, 2, 3] and bw.res.tolist() == [2, 4, 1]
    assert bw.walltime.tolist() == [30.0, -1.0, -1.0] and bw.delay.tolist() == [10, 10, 2.5]
    assert bw.profile == ("p10", "p10", "p2") and bw.nb_res == 4 and bw.records == 3
    work, names = batsim_to_workload(bw)
    assert work.job.tolist() == [1, 3, 2] and names == ["p10", "p2", "p10"]  # by subtime
    assert work.submit.tolist() == [0.0, 2.0, 5.5] and work.processors == 4
    assert work.estimate.tolist() == [30.0, 2.5, 10.0]  # no walltime: the delay
    assert work.fallbacks == {"size": 0, "estimate": 2} and work.dropped == {}
    exact, _ = batsim_to_workload(bw, estimate="runtime")
    assert exact.estimate.tolist() == exact.run.tolist() == [10.0, 2.5, 10.0]
    small, _ = batsim_to_workload(bw, processors=3)
    assert small.job.tolist() == [1, 3]
    assert small.dropped == {"wider than the machine (3 processors)": 1}
    late = read_batsim(write_doc(tmp_path, workload_doc(jobs=[
        {"id": 9, "subtime": 7, "res": 1, "profile": "p2"},
        {"id": 8, "subtime": 7, "res": 1, "profile": "p2"}])))
    work, _ = batsim_to_workload(late)
    assert work.job.tolist() == [9, 8] and work.submit.tolist() == [0.0, 0.0]  # shifted
    kept, _ = batsim_to_workload(late, shift=False)
    assert kept.submit.tolist() == [7.0, 7.0]


@pytest.mark.parametrize(("job", "expected"), [
    ({"subtime": 0, "res": 1, "profile": "p10"}, "jobs[0]: missing 'id'"),
    ({"id": "", "subtime": 0, "res": 1, "profile": "p10"}, "the id must be a non-empty string"),
    ({"id": -1, "subtime": 0, "res": 1, "profile": "p10"}, "the id must be a non-empty string"),
    ({"id": True, "subtime": 0, "res": 1, "profile": "p10"}, "or a whole number >= 0"),
    ({"id": 1.5, "subtime": 0, "res": 1, "profile": "p10"}, "or a whole number >= 0"),
    ({"id": 5, "res": 1, "profile": "p10"}, "jobs[0] (id 5): missing 'subtime'"),
    ({"id": 5, "subtime": -3, "res": 1, "profile": "p10"}, "subtime = -3: must be a finite"),
    ({"id": 5, "subtime": "0", "res": 1, "profile": "p10"}, "subtime = '0'"),
    ({"id": 5, "subtime": 1e300, "res": 1, "profile": "p10"}, "subtime = 1e+300"),
    ({"id": 5, "subtime": 0, "res": 0, "profile": "p10"}, "res = 0: must be a whole number"),
    ({"id": 5, "subtime": 0, "res": 1, "walltime": 0, "profile": "p10"},
     "walltime = 0: must be -1 (no walltime) or a number > 0"),
    ({"id": 5, "subtime": 0, "res": 1, "profile": "nope"}, "profile 'nope' is not defined"),
    ({"id": 5, "subtime": 0, "res": 1, "profile": "bad"},
     "profile 'bad': delay = -1: must be a finite number >= 0"),
    ("job", "jobs[0]: not a JSON object"),
])
def test_malformed_jobs_are_named(tmp_path, job, expected):
    doc = workload_doc(jobs=[job], profiles={"p10": {"type": "delay", "delay": 10},
                                             "bad": {"type": "delay", "delay": -1}})
    path = write_doc(tmp_path, doc)
    with pytest.raises(ParseError, match=re.escape(expected)) as err:
        read_batsim(path)
    assert str(err.value).startswith(f"{path}: ")
    lenient = read_batsim(path, lenient=True)
    assert lenient.jobs == 0 and lenient.skipped == (0,) and lenient.records == 1


def test_lenient_skips_and_counts(tmp_path):
    """Lenient reading keeps the valid jobs, the first of a repeated id, and records the
    positions skipped; the workload counts them among the dropped jobs."""
    jobs = workload_doc()["jobs"] + [{"id": 1, "subtime": 9, "res": 1, "profile": "p2"},
                                     {"id": 7, "subtime": 9, "res": 0, "profile": "p2"}]
    path = write_doc(tmp_path, workload_doc(jobs=jobs))
    with pytest.raises(ParseError, match=r"jobs\[3\] \(id 1\): id repeated \(first at jobs"
                                         r"\[0\]\)"):
        read_batsim(path)
    bw = read_batsim(path, lenient=True)
    assert bw.job.tolist() == [1, 2, 3] and bw.skipped == (3, 4)
    assert bw.skip_reasons == {"repeated id": 1, "bad res": 1}
    work, _ = batsim_to_workload(bw)
    assert work.records == 5 and work.jobs + sum(work.dropped.values()) == 5
    assert work.report()["skipped_lines"]["first"] == [3, 4]


def test_unsimulated_profile_types_are_an_error_or_skipped_and_counted(tmp_path):
    """A profile type lpsched does not simulate (trace replay) is one error line naming the
    job, its profile and the type; under lenient the job is skipped and counted apart from
    the malformed ones (jobs + dropped = records)."""
    doc = workload_doc()
    doc["profiles"]["smpi"] = {"type": "TraceReplayProfile", "trace_type": "SMPI",
                               "filename": "t.txt"}
    doc["jobs"][2]["profile"] = "smpi"
    path = write_doc(tmp_path, doc)
    with pytest.raises(ParseError, match=re.escape(
            "jobs[2] (id '3'): profile 'smpi' has type 'TraceReplayProfile', which lpsched "
            "does not simulate")) as err:
        read_batsim(path)
    assert "\n" not in str(err.value)
    bw = read_batsim(path, lenient=True)
    assert bw.jobs == 2 and bw.skipped == (2,) and bw.unsimulated == 1
    work, _ = batsim_to_workload(bw)
    assert work.dropped == {"profile type not simulated (--lenient)": 1}
    assert work.jobs + sum(work.dropped.values()) == work.records == 3
    doc["profiles"]["unused"] = {"delay": 3}
    doc["jobs"][2]["profile"] = "unused"
    with pytest.raises(ParseError, match="profile 'unused' is missing 'type'"):
        read_batsim(write_doc(tmp_path, doc))


@pytest.mark.parametrize(("text", "expected"), [
    ("", "empty file"),
    ("[1, 2]", "not a Batsim workload: expected a JSON object"),
    ('{"jobs": [], "profiles": {}, "nb_res": 0}', "nb_res = 0: must be a whole number >= 1"),
    ('{"jobs": [], "profiles": {}, "nb_res": 1e12}', "nb_res = 1000000000000: more than"),
    ('{"jobs": [], "profiles": {}, "nb_res": "4"}', "nb_res = '4'"),
    ('{"profiles": {}, "nb_res": 4}', "not a Batsim workload: missing 'jobs'"),
    ('{"jobs": {}, "profiles": {}, "nb_res": 4}', "'jobs' must be a JSON array"),
    ('{"jobs": [], "profiles": [], "nb_res": 4}', "'profiles' must be a JSON object"),
    ('{"jobs": [], "profiles": {}, "nb_res": NaN}', "NaN is not a number JSON allows"),
    ('{"jobs": [}', "not valid JSON"),
])
def test_malformed_files(tmp_path, text, expected):
    path = write_doc(tmp_path, text)
    with pytest.raises(ParseError, match=re.escape(expected)):
        read_batsim(path, lenient=True)


def test_no_nb_res_and_missing_file(tmp_path):
    doc = workload_doc()
    del doc["nb_res"]
    work, _ = batsim_to_workload(read_batsim(write_doc(tmp_path, doc)))
    assert work.processors is None
    assert batsim_to_workload(read_batsim(write_doc(tmp_path, doc)), processors=8)[0]\
        .processors == 8
    with pytest.raises(ParseError, match="cannot read file"):
        read_batsim(tmp_path / "missing.json")


def test_load_jobs_dispatches_on_the_name(tmp_path):
    path = write_doc(tmp_path, workload_doc())
    work, names, ids, approximated = load_jobs(path)
    assert names == ["p10", "p2", "p10"] and work.jobs == 3 and approximated == {}
    assert ids == {1: "1", 3: "3", 2: "w0!2"}
    with pytest.raises(InvalidInstanceError, match="--size applies to SWF traces only"):
        load_jobs(path, size="allocated")


# --- conversion --------------------------------------------------------------------------

def random_trace(seed: int) -> SwfTrace:
    """A random SWF trace: shuffled job numbers, fractional and tied submissions (not
    starting at 0), unknown requested times and processors (fallbacks), zero and unknown run
    times, jobs wider than the machine."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    rows = np.full((n, len(FIELDS)), -1.0)
    rows[:, 0] = rng.permutation(np.arange(100, 100 + 3 * n, 3))[:n]
    rows[:, 1] = np.round(rng.uniform(50, 400, n), int(rng.integers(0, 3)))
    rows[::5, 1] = rows[0, 1]
    rows[:, 3] = np.round(rng.uniform(0, 60, n), 1)
    rows[::6, 3] = 0
    rows[1::9, 3] = -1
    rows[:, 4] = rng.integers(1, 11, n)
    rows[:, 7] = np.where(rng.random(n) < 0.3, -1, rng.integers(1, 11, n))
    rows[:, 8] = np.where(rng.random(n) < 0.3, -1, np.round(rows[:, 3] * rng.uniform(
        0.5, 3, n)))
    return SwfTrace({f: rows[:, i].copy() for i, f in enumerate(FIELDS)}, {"MaxProcs": "8"},
                    ["; MaxProcs: 8"], "random.swf")


def same_jobs(a: Workload, b: Workload) -> None:
    for name in ("job", "submit", "run", "size", "estimate"):
        assert getattr(a, name).tolist() == getattr(b, name).tolist(), name
    assert a.processors == b.processors


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["requested", "allocated"]),
       st.sampled_from(["requested", "runtime"]))
def test_swf_to_batsim_keeps_the_simulated_jobs(tmp_path_factory, seed, size, estimate):
    """SWF -> Batsim JSON -> lpsched workload gives exactly the jobs of the trace under the
    same conventions (so every policy starts every job at the same time), and SWF -> Batsim
    -> SWF -> workload too."""
    tmp = tmp_path_factory.mktemp("conv")
    trace = random_trace(seed)
    try:
        expected = to_workload(trace, size=size, estimate=estimate).require_jobs()
    except ParseError:
        return  # no job kept: nothing to convert (tested in the CLI tests)
    bw, work = swf_to_batsim(trace, size=size, estimate=estimate)
    assert work.dropped == expected.dropped
    with open(tmp / "w.json", "w") as fh:
        write_batsim(bw, fh)
    got, names = batsim_to_workload(read_batsim(tmp / "w.json"), estimate=estimate)
    same_jobs(got, expected)
    assert names == delay_names(expected.run)
    write_swf(batsim_to_swf(read_batsim(tmp / "w.json")), tmp / "back.swf")
    back = to_workload(read_swf(tmp / "back.swf"), estimate=estimate, shift=False)
    for name in ("job", "run", "size", "estimate"):  # submissions: to the nearest second
        assert getattr(back, name).tolist() == getattr(expected, name).tolist(), name
    assert back.submit.tolist() == np.floor(bw.subtime + 0.5).tolist()
    for policy in ("fcfs", "easy", "conservative"):
        a, _ = simulate_batch(expected, policy, kill=True)
        b, _ = simulate_batch(got, policy, kill=True)
        assert a.start.tolist() == b.start.tolist()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_batsim_to_swf_to_batsim_gives_the_same_workload(tmp_path_factory, seed):
    """A Batsim workload (unsorted, fractional times, with and without walltimes, shared
    profiles) -> SWF -> Batsim gives back the same jobs: ids, submission times, sizes,
    walltimes, delays, and nb_res; only the profile names change (to their delays)."""
    tmp = tmp_path_factory.mktemp("back")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    delays = np.round(rng.uniform(0, 100, 4), int(rng.integers(0, 3)))
    pick = rng.integers(0, 4, n)
    bw = BatsimWorkload(
        job=rng.permutation(n * 2)[:n].astype(np.int64),
        subtime=np.round(rng.uniform(0, 500, n), int(rng.integers(0, 4))),
        res=rng.integers(1, 9, n), walltime=np.where(rng.random(n) < 0.4, -1.0, np.round(
            rng.uniform(0.5, 300, n), 2)),
        delay=delays[pick], profile=tuple(f"prof {k}" for k in pick.tolist()), nb_res=8)
    with open(tmp / "a.json", "w") as fh:
        write_batsim(bw, fh)
    first = read_batsim(tmp / "a.json")
    write_swf(batsim_to_swf(first), tmp / "a.swf")
    again, _ = swf_to_batsim(read_swf(tmp / "a.swf"))
    order = np.lexsort((np.arange(n), bw.subtime))
    for name in ("res", "walltime", "delay"):
        assert getattr(again, name).tolist() == getattr(bw, name)[order].tolist(), name
    assert again.id_text() == [str(j) for j in bw.job[order].tolist()]  # ids as given
    assert again.subtime.tolist() == np.floor(bw.subtime[order] + 0.5).tolist()  # seconds
    assert again.job.min() >= 1  # SWF job numbers from 1
    assert again.nb_res == bw.nb_res
    assert list(again.profile) == delay_names(bw.delay[order])


def test_writers_are_deterministic_and_readable(tmp_path):
    bw = read_batsim(write_doc(tmp_path, workload_doc()))
    texts = []
    for _ in range(2):
        out = io.StringIO()
        write_batsim(bw, out, description="a test")
        texts.append(out.getvalue())
    assert texts[0] == texts[1]
    doc = json.loads(texts[0])
    assert doc["description"] == "a test" and doc["nb_res"] == 4
    assert doc["jobs"][1] == {"id": "w0!2", "subtime": 5.5, "res": 4, "walltime": -1,
                              "profile": "p10"}
    assert doc["profiles"] == {"p10": {"type": "delay", "delay": 10},
                               "p2": {"type": "delay", "delay": 2.5}}
    clash = BatsimWorkload(np.array([1, 2]), np.zeros(2), np.ones(2, np.int64),
                           np.full(2, -1.0), np.array([1.0, 2.0]), ("p", "p"), 2)
    with pytest.raises(InvalidInstanceError, match="one profile name with two delays"):
        write_batsim(clash, io.StringIO())


def test_swf_to_batsim_needs_a_machine():
    trace = random_trace(1)
    headless = SwfTrace(trace.columns, {}, [], "x.swf")
    with pytest.raises(ParseError, match=r"x\.swf: the header gives no MaxProcs"):
        swf_to_batsim(headless)
    bw, _ = swf_to_batsim(headless, processors=16)
    assert bw.nb_res == 16


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_hpc2n_as_batsim_workload_gives_the_same_start_times(tmp_path, policy):
    """Decision 180's check: the Batsim workload made of hpc2n-excerpt starts
    every job when the SWF run does, under FCFS, EASY and conservative backfilling; the
    schedules validate and their metrics are equal."""
    trace = read_swf(trace_path("hpc2n-excerpt.swf"))
    bw, _ = swf_to_batsim(trace)
    with open(tmp_path / "hpc2n.json", "w") as fh:
        write_batsim(bw, fh)
    direct = to_workload(trace)
    via, _ = batsim_to_workload(read_batsim(tmp_path / "hpc2n.json"))
    same_jobs(via, direct)
    a, _ = simulate_batch(direct, policy)
    b, _ = simulate_batch(via, policy)
    assert a.start.tolist() == b.start.tolist() and a.end.tolist() == b.end.tolist()
    validate_batch(via, b, 240)
    assert batch_metrics(via, b, 240) == batch_metrics(direct, a, 240)


# --- every profile type, string ids, platforms (decisions 365-367) ---------------------------

#: four compute hosts at 2 Gflop/s behind a master (which does not compute)
PLATFORM_XML = """<?xml version='1.0'?>
<platform version="4.1"><zone id="AS0" routing="Full">
  <host id="master_host" speed="1Gf"/>
  <cluster id="c" prefix="n" suffix=".x" radical="0-3" speed="2Gf, 1Gf" bw="1GBps" lat="0us"/>
</zone></platform>
"""


def profile_doc() -> dict:
    """One job per profile style, durations by hand below (at 2 Gflop/s and at the default
    1 Gflop/s)."""
    return {
        "nb_res": 8,
        "jobs": [{"id": "comp1-ok", "subtime": 0, "res": 1, "profile": "d"},
                 {"id": "hom", "subtime": 1, "res": 3, "profile": "h"},
                 {"id": "spread", "subtime": 2, "res": 2, "profile": "hs"},
                 {"id": "pt", "subtime": 3, "res": 2, "profile": "p"},
                 {"id": "seq", "subtime": 4, "res": 2, "walltime": 100, "profile": "s"},
                 {"id": "w0!7", "subtime": 5, "res": 1, "profile": "t"}],
        "profiles": {
            "d": {"type": "DelayProfile", "delay": 7},
            "h": {"type": "parallel_homogeneous", "cpu": 4e9, "com": 0},
            "hs": {"type": "ParallelTaskHomogeneousProfile", "cpu": 8e9, "com": 0,
                   "generation_strategy": "DefinedAmountsSpreadUniformly"},
            "p": {"type": "ptask", "cpu": [2e9, 6e9], "com": [0, 1e6, 0, 0]},
            "s": {"type": "SequentialCompositionProfile", "repeat": 2,
                  "seq": ["d", "h", "p"]},
            "t": {"type": "TraceReplayProfile", "trace_type": "SMPI", "filename": "x.txt"}}}


def test_read_platform_hosts_speeds_and_master(tmp_path):
    from lpsched.batch.batsim import parse_speed, read_platform

    path = tmp_path / "p.xml"
    path.write_text(PLATFORM_XML)
    plat = read_platform(path)
    assert plat.hosts == ("n0.x", "n1.x", "n2.x", "n3.x") and plat.processors == 4
    assert plat.speed == 2e9 and plat.homogeneous
    assert parse_speed("16.673E9flops") == 16.673e9 and parse_speed("42f") == 42.0
    assert parse_speed("100Mf, 50Mf", 1) == 50e6
    role = PLATFORM_XML.replace('<host id="master_host" speed="1Gf"/>',
                                '<host id="boss" speed="1Gf"><prop id="role" '
                                'value="master"/></host><host id="master_host" speed="1Gf"/>')
    path.write_text(role)
    mixed = read_platform(path)  # a role=master host: master_host computes
    assert mixed.processors == 5 and mixed.speed == 1e9 and not mixed.homogeneous
    # SimGrid builds a cabinet's hosts in a routing="Cluster" zone only, at one speed
    cabinet = (PLATFORM_XML.replace('routing="Full"', 'routing="Cluster"')
               .replace("<cluster ", "<cabinet ").replace('radical="0-3"', 'radical="0-1,5"')
               .replace('speed="2Gf, 1Gf"', 'speed="2Gf"'))
    path.write_text("\n" + cabinet)  # a blank line before the declaration, as SimGrid allows
    assert read_platform(path).hosts == ("n0.x", "n1.x", "n5.x")
    path.write_text(PLATFORM_XML.replace('speed="2Gf, 1Gf"', 'speed="fast"'))
    with pytest.raises(ParseError, match="speed 'fast' is not a SimGrid speed"):
        read_platform(path)
    path.write_text("<platform")
    with pytest.raises(ParseError, match="not a SimGrid platform"):
        read_platform(path)


@pytest.mark.parametrize(("with_platform", "expected"), [
    # delay 7; cpu 4e9 / speed; 8e9 spread on 2 hosts / speed; max(2e9, 6e9) / speed;
    # 2 x (7 + h + p)
    (True, [7.0, 2.0, 2.0, 3.0, 24.0]),
    (False, [7.0, 4.0, 4.0, 6.0, 34.0]),
])
def test_every_profile_style_has_its_hand_computed_duration(tmp_path, with_platform,
                                                            expected):
    from lpsched.batch.batsim import read_platform

    path = write_doc(tmp_path, profile_doc())
    plat = None
    if with_platform:
        (tmp_path / "p.xml").write_text(PLATFORM_XML)
        plat = read_platform(tmp_path / "p.xml")
    with pytest.raises(ParseError, match=re.escape(
            "jobs[5] (id 'w0!7'): profile 't' has type 'TraceReplayProfile'")):
        read_batsim(path, platform=plat)
    bw = read_batsim(path, lenient=True, platform=plat)
    assert bw.delay.tolist() == expected
    assert bw.id_text() == ["comp1-ok", "hom", "spread", "pt", "seq"]
    assert bw.job.tolist() == [1, 2, 3, 4, 5]  # string ids: numbered in file order
    assert bw.approximated == {"communication ignored": 2}  # pt and seq (through p)
    assert bw.skip_reasons == {"profile type not simulated (--lenient)": 1}


@pytest.mark.parametrize(("profile", "expected"), [
    ({"type": "ptask", "cpu": [1, 2, 3]}, "describes 3 hosts but the job requests res = 2"),
    ({"type": "ptask", "cpu": [1, 2], "com": [0, 0, 0]}, "com an array of size*size"),
    ({"type": "ptask", "cpu": 5}, "cpu must be an array of numbers >= 0"),
    ({"type": "ParallelTaskProfile", "com": [0, 1, 1]}, "com an array of size*size"),
    ({"type": "ptask", "cpu": [1, "2"]}, "cpu must be an array of numbers >= 0"),
    ({"type": "parallel_homogeneous", "cpu": -1, "com": 0}, "cpu and com must be numbers"),
    ({"type": "sequence", "seq": []}, "seq must be a non-empty array"),
    ({"type": "sequence", "seq": ["x"], "repeat": 0}, "repeat a whole number >= 1"),
    ({"type": "sequence", "seq": ["x"]}, "contains itself: x -> x"),
    ({"type": "sequence", "seq": ["missing"]}, "in the sequence 'x': profile 'missing' is "
     "not defined"),
    ({"type": "Mystery"}, "has type 'Mystery', which lpsched does not simulate"),
])
def test_bad_profiles_are_named(tmp_path, profile, expected):
    """Each malformed profile is one error line naming it; lenient skips the job."""
    doc = {"nb_res": 4, "jobs": [{"id": "a", "subtime": 0, "res": 2, "profile": "x"}],
           "profiles": {"x": profile}}
    path = write_doc(tmp_path, doc)
    with pytest.raises(ParseError, match=re.escape(expected)):
        read_batsim(path)
    assert read_batsim(path, lenient=True).skipped == (0,)


def test_string_ids_in_jobs_csv_and_through_swf(tmp_path):
    """String ids are the job_id column as given, and Batsim -> SWF (numbered from 1,
    whole-second submissions) -> Batsim gives them back."""
    doc = profile_doc()
    doc["jobs"][1]["subtime"] = 1.5  # rounded to 2 in the SWF (halves up)
    bw = read_batsim(write_doc(tmp_path, doc), lenient=True)
    work, names = batsim_to_workload(bw)
    sched, _ = simulate_batch(work, "easy")
    out = io.StringIO()
    write_jobs_csv(out, work, sched, names, ids=bw.id_map())
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [r["job_id"] for r in rows] == ["comp1-ok", "hom", "spread", "pt", "seq"]
    assert [float(r["execution_time"]) for r in rows] == [7.0, 4.0, 4.0, 6.0, 34.0]
    trace = batsim_to_swf(bw)
    assert trace.columns["job"].tolist() == [1, 2, 3, 4, 5]
    assert trace.columns["submit"].tolist() == [0, 2, 2, 3, 4]
    assert "; Note: 1 submit times rounded to the nearest second (halves up)" in \
        trace.comments
    write_swf(trace, tmp_path / "w.swf")
    again, _ = swf_to_batsim(read_swf(tmp_path / "w.swf"))
    assert again.id_text() == ["comp1-ok", "hom", "spread", "pt", "seq"]
    with open(tmp_path / "again.json", "w") as fh:
        write_batsim(again, fh)
    assert [j["id"] for j in json.loads((tmp_path / "again.json").read_text())["jobs"]] == \
        ["comp1-ok", "hom", "spread", "pt", "seq"]


def test_numeric_ids_keep_their_numbers_and_zero_is_renumbered(tmp_path):
    doc = workload_doc(jobs=[{"id": 5, "subtime": 0, "res": 1, "profile": "p10"},
                             {"id": 9, "subtime": 1, "res": 1, "profile": "p10"}])
    bw = read_batsim(write_doc(tmp_path, doc))
    assert bw.job.tolist() == [5, 9] and bw.id_map() is None
    assert batsim_to_swf(bw).columns["job"].tolist() == [5, 9]
    doc["jobs"][0]["id"] = 0
    zero = batsim_to_swf(read_batsim(write_doc(tmp_path, doc)))
    assert zero.columns["job"].tolist() == [1, 2] and "; BatsimId: 1 0" in zero.comments


@pytest.mark.parametrize(("kind", "strategy", "res", "expected"), [
    ("msg_par_hg", None, 3, 6.0),  # 6e9 flops on each host at 1 Gflop/s
    ("msg_par_hg_tot", None, 3, 2.0),  # 6e9 in total: 2e9 on each of 3 hosts
    ("parallel_homogeneous_total", None, 2, 3.0),
    ("ptask_homogeneous", "DefinedAmountsUsedForEachValue", 2, 6.0),
    ("ParallelTaskHomogeneousProfile", "DefinedAmountsSpreadUniformly", 4, 1.5),
])
def test_old_and_new_homogeneous_names(tmp_path, kind, strategy, res, expected):
    profile = {"type": kind, "cpu": 6e9, "com": 0}
    if strategy:
        profile["generation_strategy"] = strategy
    doc = {"nb_res": 4, "jobs": [{"id": 0, "subtime": 0, "res": res, "profile": "x"}],
           "profiles": {"x": profile}}
    bw = read_batsim(write_doc(tmp_path, doc))
    assert bw.delay.tolist() == [expected] and bw.job.tolist() == [0]


def test_evalys_reads_string_ids(tmp_path):
    """evalys (when installed) reads the string ids of lpsched's jobs.csv as they were
    given, one row per job."""
    evalys_jobset = pytest.importorskip("evalys.jobset")
    bw = read_batsim(write_doc(tmp_path, profile_doc()), lenient=True)
    work, names = batsim_to_workload(bw)
    sched, _ = simulate_batch(work, "easy")
    with open(tmp_path / "jobs.csv", "w", newline="") as fh:
        write_jobs_csv(fh, work, sched, names, ids=bw.id_map())
    js = evalys_jobset.JobSet.from_csv(str(tmp_path / "jobs.csv"))
    assert sorted(js.df["jobID"].astype(str)) == sorted(bw.id_text())
