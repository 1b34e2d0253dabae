"""``lpsched batch`` on Batsim workloads and ``lpsched convert``, run as users run
them: the installed command in a subprocess, checking stdout, stderr and the exit status.
The runs on hpc2n-excerpt skip when ``../shared/data`` is absent."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import pytest

from tests.cli.test_cli_subprocess import lpsched, one_json_object

JOBS_HEADER = ("job_id,workload_name,profile,submission_time,requested_number_of_resources,"
               "requested_time,success,final_state,starting_time,execution_time,finish_time,"
               "waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,"
               "metadata")

SWF = """; Version: 2.2
; MaxProcs: 8
1 10 -1 100 4 -1 -1 4 80 -1 1 1 1 -1 -1 1 -1 -1
2 15 -1 50 2 -1 -1 2 60 -1 1 1 1 -1 -1 1 -1 -1
3 16 -1 30 8 -1 -1 8 -1 -1 1 1 1 -1 -1 1 -1 -1
4 19 -1 -1 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1
"""  # job 1 overruns its request (100 > 80); job 3 has none; job 4 no run time (dropped)

WORKLOAD = {"nb_res": 8,
            "jobs": [{"id": 1, "subtime": 0, "res": 4, "walltime": 80, "profile": "long"},
                     {"id": 2, "subtime": 5, "res": 2, "walltime": 60, "profile": "short"}],
            "profiles": {"long": {"type": "delay", "delay": 100},
                         "short": {"type": "delay", "delay": 50}}}


def one_error(proc, *expected: str) -> str:
    """Exit 2, stdout empty, one ``lpsched: error:`` line on stderr holding ``expected``."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == "" and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("lpsched: error: ") and "Traceback" not in proc.stderr
    for text in expected:
        assert text in proc.stderr, proc.stderr
    return proc.stderr


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def workload(tmp_path: Path) -> Path:
    path = tmp_path / "w.json"
    path.write_text(json.dumps(WORKLOAD))
    return path


def test_batch_reads_a_batsim_workload(workload):
    """The CSV on stdout is Batsim's jobs.csv with the workload's profile names; under
    --kill-at-estimate the job past its walltime is COMPLETED_WALLTIME_REACHED."""
    proc = lpsched("batch", str(workload), "--policy", "fcfs", "--out", "-")
    assert proc.returncode == 0 and proc.stdout.splitlines()[0] == JOBS_HEADER
    assert "fcfs on" in proc.stderr and "2 jobs read; dropped: none" in proc.stderr
    table = rows(proc.stdout)
    assert [r["profile"] for r in table] == ["long", "short"]
    assert [r["finish_time"] for r in table] == ["100.0", "55.0"]
    assert {r["final_state"] for r in table} == {"COMPLETED_SUCCESSFULLY"}
    killed = rows(lpsched("batch", str(workload), "--policy", "fcfs", "--kill-at-estimate",
                          "--out", "-").stdout)
    assert [(r["final_state"], r["success"], r["finish_time"]) for r in killed] == [
        ("COMPLETED_WALLTIME_REACHED", "0", "80.0"), ("COMPLETED_SUCCESSFULLY", "1", "55.0")]
    data = one_json_object(lpsched("batch", str(workload), "--json"))
    assert data["format"] == "batsim" and data["processors"] == 8 and data["jobs"] == 2


def test_batch_refuses_other_profiles_and_bad_options(tmp_path, workload):
    doc = json.loads(workload.read_text())
    doc["profiles"]["short"] = {"type": "TraceReplayProfile", "trace_type": "SMPI",
                                "filename": "t.txt"}
    bad = tmp_path / "smpi.json"
    bad.write_text(json.dumps(doc))
    one_error(lpsched("batch", str(bad), "--json"), f"{bad}: jobs[1] (id 2): profile "
              "'short' has type 'TraceReplayProfile', which lpsched does not simulate")
    one_error(lpsched("batch", str(workload), "--size", "allocated"),
              "--size allocated: applies to SWF traces only")
    del doc["nb_res"]
    doc["profiles"]["short"] = {"type": "delay", "delay": 5}
    bad.write_text(json.dumps(doc))
    one_error(lpsched("batch", str(bad)), "nb_res is missing: give the machine "
              "size with --processors")
    assert lpsched("batch", str(bad), "--processors", "4", "--json").returncode == 0
    doc["jobs"][1]["res"] = 0
    bad.write_text(json.dumps(doc))
    one_error(lpsched("batch", str(bad), "--processors", "4"), "jobs[1] (id 2): res = 0")
    lenient = lpsched("batch", str(bad), "--processors", "4", "--lenient")
    assert lenient.returncode == 0
    assert "dropped 1: 1 malformed job skipped (--lenient); skipped jobs jobs[1] (1 bad res)" \
        in lenient.stdout
    named_swf = tmp_path / "w.swf"
    named_swf.write_text(json.dumps(WORKLOAD))
    one_error(lpsched("batch", str(named_swf)), "a JSON object, not an SWF trace: name a "
              "Batsim workload .json")


def test_convert_round_trip_and_outputs(tmp_path):
    """SWF -> Batsim (the jobs simulated: job 4 dropped, walltime -1 where the request is
    unknown, submissions as in the trace) -> SWF (.swf.gz) -> Batsim gives the same jobs; the
    CSVs of the three runs are identical."""
    trace = tmp_path / "t.swf"
    trace.write_text(SWF)
    out = tmp_path / "t.json"
    proc = lpsched("convert", str(trace), "-o", str(out))
    assert proc.returncode == 0 and proc.stdout == ""
    assert proc.stderr == (f"wrote {out} (a Batsim workload): 3 jobs of the 4 read from "
                           f"{trace}, 1 dropped; machine 8 processors\n")
    doc = json.loads(out.read_text())
    assert doc["nb_res"] == 8 and [j["id"] for j in doc["jobs"]] == [1, 2, 3]
    assert [j["subtime"] for j in doc["jobs"]] == [10, 15, 16]
    assert [j["walltime"] for j in doc["jobs"]] == [80, 60, -1]
    assert doc["profiles"]["100"] == {"type": "delay", "delay": 100}
    back = tmp_path / "back.swf.gz"
    report = one_json_object(lpsched("convert", str(out), "-o", str(back), "--json"))
    assert report == {"input": str(out), "output": str(back), "from": "batsim", "to": "swf",
                      "records": 3, "jobs": 3, "processors": 8, "dropped": {},
                      "skipped_lines": {"count": 0, "first": [], "reasons": {}},
                      "rounded": {}}
    lines = gzip.decompress(back.read_bytes()).decode().splitlines()
    assert "; MaxProcs: 8" in lines and lines[-1].split()[:9] == \
        ["3", "16", "-1", "30", "-1", "-1", "-1", "8", "-1"]
    again = tmp_path / "again.json"
    assert lpsched("convert", str(back), "-o", str(again)).returncode == 0
    assert json.loads(again.read_text())["jobs"] == doc["jobs"]
    csvs = [lpsched("batch", str(path), "--policy", "easy", "--kill-at-estimate", "--out",
                    "-").stdout for path in (trace, out, back)]
    assert csvs[0] == csvs[1] == csvs[2] and csvs[0].startswith(JOBS_HEADER)
    to_stdout = lpsched("convert", str(trace), "-o", "-", "--to", "batsim")
    assert to_stdout.returncode == 0 and json.loads(to_stdout.stdout)["jobs"] == doc["jobs"]
    assert to_stdout.stderr.startswith("wrote stdout (a Batsim workload)")


def test_convert_errors(tmp_path, workload):
    trace = tmp_path / "t.swf"
    trace.write_text(SWF)
    one_error(lpsched("convert", str(trace), "-o", str(tmp_path / "x.swf")),
              "is already an SWF trace")
    one_error(lpsched("convert", str(trace), "-o", str(tmp_path / "x.txt")),
              "cannot tell the output format from the name", "give --to batsim or --to swf")
    one_error(lpsched("convert", str(trace), "-o", "-", "--to", "batsim", "--json"),
              "-o - and --json both write to stdout")
    one_error(lpsched("convert", str(workload), "-o", str(tmp_path / "x.swf"), "--size",
                      "allocated"), "--size allocated: applies to SWF traces only")
    one_error(lpsched("convert", str(trace), "-o", str(tmp_path / "no" / "x.json")),
              "does not exist")
    headless = tmp_path / "h.swf"
    headless.write_text("\n".join(SWF.splitlines()[2:]) + "\n")
    one_error(lpsched("convert", str(headless), "-o", str(tmp_path / "h.json")),
              "the header gives no MaxProcs or MaxNodes: give the machine size with "
              "--processors (a Batsim workload needs nb_res)")
    assert not (tmp_path / "h.json").exists()
    fine = lpsched("convert", str(headless), "-o", str(tmp_path / "h.json"), "--processors",
                   "16", "--json")
    assert one_json_object(fine)["processors"] == 16


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_hpc2n_swf_and_batsim_runs_write_the_same_csv(tmp_path, policy, shared_data):
    """The Batsim workload ``convert`` makes of hpc2n-excerpt schedules exactly as the trace:
    the two jobs.csv files are byte-identical (every start time, end and processor set)."""
    trace = shared_data("hpc2n-excerpt.swf")
    workload = tmp_path / "hpc2n.json"
    assert lpsched("convert", str(trace), "-o", str(workload)).returncode == 0
    a, b = tmp_path / "swf.csv", tmp_path / "batsim.csv"
    first = one_json_object(lpsched("batch", str(trace), "--policy", policy, "--out", str(a),
                                    "--json"))
    second = one_json_object(lpsched("batch", str(workload), "--policy", policy, "--out",
                                     str(b), "--json"))
    assert a.read_bytes() == b.read_bytes()
    for key in ("jobs", "makespan", "mean_wait", "utilisation", "processors"):
        assert first[key] == second[key]


# --- --platform, --lenient on profile types, string ids ----------------------------------------

PLATFORM = """<?xml version='1.0'?>
<platform version="4.1"><zone id="AS0" routing="Full">
  <host id="master_host" speed="1Gf"/>
  <cluster id="c" prefix="n" suffix="" radical="0-3" speed="2Gf" bw="1GBps" lat="0us"/>
</zone></platform>
"""
PROFILES = {"nb_res": 8,
            "jobs": [{"id": "comp1-ok", "subtime": 0, "res": 4, "profile": "h"},
                     {"id": "seq", "subtime": 1, "res": 2, "profile": "s"},
                     {"id": "smpi", "subtime": 2, "res": 1, "profile": "t"}],
            "profiles": {"h": {"type": "parallel_homogeneous", "cpu": 6e9, "com": 0},
                         "p": {"type": "ptask", "cpu": [2e9, 4e9]},
                         "s": {"type": "sequence", "seq": ["p", "p"], "repeat": 3},
                         "t": {"type": "TraceReplayProfile", "trace_type": "SMPI",
                               "filename": "x.txt"}}}


def test_batch_platform_and_lenient_profiles(tmp_path):
    """batch --platform: the platform's 4 compute hosts are the machine (nb_res says 8) and
    their 2 Gflop/s give the durations (h: 6e9 / 2e9 = 3 s; s: 3 x 2 x 4e9 / 2e9 = 12 s);
    the trace-replay job is one error line without --lenient, skipped and counted with it;
    the job_id column keeps the string ids."""
    work = tmp_path / "w.json"
    work.write_text(json.dumps(PROFILES))
    plat = tmp_path / "p.xml"
    plat.write_text(PLATFORM)
    one_error(lpsched("batch", str(work), "--platform", str(plat)),
              "jobs[2] (id 'smpi'): profile 't' has type 'TraceReplayProfile', which lpsched "
              "does not simulate", "--lenient skips such jobs")
    proc = lpsched("batch", str(work), "--platform", str(plat), "--lenient", "--out", "-")
    assert proc.returncode == 0, proc.stderr
    table = rows(proc.stdout)
    assert [r["job_id"] for r in table] == ["comp1-ok", "seq"]
    assert [float(r["execution_time"]) for r in table] == [3.0, 12.0]
    assert "on 4 processors" in proc.stderr and "3 jobs read" in proc.stderr
    assert "1 profile type not simulated (--lenient)" in proc.stderr
    summary = one_json_object(lpsched("batch", str(work), "--lenient", "--json"))
    assert summary["processors"] == 8 and summary["jobs"] == 2  # no platform: nb_res
    assert summary["records"] == summary["jobs"] + sum(summary["dropped"].values()) == 3
    # 1 Gflop/s: h runs 6 s from 0, s 3 x 2 x 4 s = 24 s from 1 (8 processors: no wait)
    assert summary["makespan"] == 25.0 and summary["mean_wait"] == 0.0
    one_error(lpsched("batch", str(work), "--platform", str(tmp_path / "none.xml"),
                      "--lenient"), "none.xml: cannot read file")


def test_convert_keeps_string_ids_and_whole_seconds(tmp_path):
    """Batsim (string ids, one fractional submission) -> SWF: jobs numbered from 1, whole
    seconds (the rounding said on stderr) -> Batsim: the ids as given."""
    doc = {"nb_res": 4, "jobs": [{"id": "comp1-ok", "subtime": 0.4, "res": 1, "profile": "d"},
                                 {"id": "b", "subtime": 3, "res": 2, "profile": "d"}],
           "profiles": {"d": {"type": "delay", "delay": 5}}}
    src = tmp_path / "w.json"
    src.write_text(json.dumps(doc))
    proc = lpsched("convert", str(src), "-o", str(tmp_path / "w.swf"))
    assert proc.returncode == 0 and proc.stdout == ""
    assert "1 fractional submit times rounded to the nearest second (halves up)" in proc.stderr
    lines = [line.split() for line in (tmp_path / "w.swf").read_text().splitlines()
             if not line.startswith(";")]
    assert [(x[0], x[1]) for x in lines] == [("1", "0"), ("2", "3")]
    back = lpsched("convert", str(tmp_path / "w.swf"), "-o", str(tmp_path / "b.json"))
    assert back.returncode == 0, back.stderr
    jobs = json.loads((tmp_path / "b.json").read_text())["jobs"]
    assert [j["id"] for j in jobs] == ["comp1-ok", "b"]


def test_convert_platform_gives_parallel_task_run_times(tmp_path):
    """convert --platform: the SWF run times of parallel tasks at the platform's 2 Gflop/s
    (h: 6e9 / 2e9 = 3 s; s: 3 x 2 x 4e9 / 2e9 = 12 s), MaxProcs its 4 hosts; refused for
    SWF input."""
    src = tmp_path / "w.json"
    src.write_text(json.dumps(PROFILES))
    plat = tmp_path / "p.xml"
    plat.write_text(PLATFORM)
    proc = lpsched("convert", str(src), "-o", str(tmp_path / "w.swf"), "--platform",
                   str(plat), "--lenient")
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "w.swf").read_text()
    lines = [line.split() for line in text.splitlines() if not line.startswith(";")]
    assert [(x[0], x[3]) for x in lines] == [("1", "3"), ("2", "12")]
    assert "; MaxProcs: 4" in text and "; BatsimId: 1 comp1-ok" in text
    one_error(lpsched("convert", str(tmp_path / "w.swf"), "-o", str(tmp_path / "x.json"),
                      "--platform", str(plat)), "--platform", "applies to Batsim input only")
