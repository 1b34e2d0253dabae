"""``lpsched campaigns generate | run | extract`` and ``lpsched reproduce faircamp | ostrich``
through the installed console script (subprocess: real stdout / stderr, exit codes)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from lpsched.campaigns.generators import MAX_JOBS
from lpsched.campaigns.instance import MAX_USERS
from lpsched.core.swf import MAX_PROCESSORS
from lpsched.report.manifest import manifest
from tests.campaigns.helpers import DEP, PAR, PAR3
from tests.cli.test_cli_subprocess import lpsched, one_json_object
from tests.shared_data import needs_shared, shared_file

EGEE = "LPC-EGEE-2004-1.2-cln.swf.gz"

SWF = """; Version: 2.2
; MaxProcs: 4
1 0 0 10 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
2 2 0 10 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
3 15 0 10 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
4 3 1 5 2 -1 -1 2 -1 -1 1 3 1 -1 -1 -1 -1 -1
5 4 0 0 1 -1 -1 1 -1 -1 5 3 1 -1 -1 -1 -1 -1
"""


def one_error_line(proc: Any, code: int = 2) -> str:
    """Exit ``code``, nothing on stdout, one ``lpsched: error:`` line on stderr and no
    traceback; the line."""
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lpsched: error:"), proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


def test_generate_then_run_every_policy(tmp_path) -> None:
    w = tmp_path / "w.json"
    report = one_json_object(lpsched("campaigns", "generate", "--profile", "faircamp",
                                     "--users", "4", "--jobs", "800", "--seed", "1",
                                     "-o", str(w), "--json"))
    assert report["jobs"] == 800 and w.exists()
    for policy in ("faircamp", "fcfs", "ostrich", "space-share", "fair-share", "multicamp"):
        out = one_json_object(lpsched("campaigns", "run", str(w), "--policy", policy,
                                      "--json"))
        for key in ("policy", "valid", "campaigns", "users", "max_campaign_stretch",
                    "mean_campaign_stretch", "share_stretch_below_1_5", "max_user_stretch",
                    "utilisation", "seconds"):
            assert key in out
        assert out["policy"] == policy and out["valid"] is True
        assert out["max_campaign_stretch"] >= 1.0
    packed = one_json_object(lpsched("campaigns", "run", str(w), "--policy", "faircamp",
                                     "--json"))  # the default reading (decision 91)
    assert (packed["policy"], packed["variant"]) == ("faircamp", "faircamp-packed")
    block = one_json_object(lpsched("campaigns", "run", str(w), "--policy", "faircamp",
                                    "--faircamp-mode", "block", "--json"))
    assert block["variant"] == "faircamp-block"
    fcfs = one_json_object(lpsched("campaigns", "run", str(w), "--policy", "fcfs",
                                   "--fcfs-order", "generation", "--json"))
    assert (fcfs["policy"], fcfs["variant"]) == ("fcfs", "fcfs-generation")
    table = lpsched("campaigns", "run", str(w), "--policy", "ostrich", "--table")
    assert table.returncode == 0 and table.stderr == ""
    assert table.stdout.splitlines()[0].split() == ["policy", "ostrich"]


def test_run_parallel_workload_and_machines(tmp_path) -> None:
    data = {"processors": 4, "campaigns": [
        {"user": 0, "submit": 0.0, "think": 0.0, "jobs": [{"p": 10.0, "q": 4}]},
        {"user": 1, "submit": 0.0, "think": 0.0, "jobs": [{"p": 1.0, "q": 2}] * 2}]}
    path = tmp_path / "par.json"
    path.write_text(json.dumps(data))
    out = one_json_object(lpsched("campaigns", "run", str(path), "--policy", "ostrich",
                                  "--json"))
    assert out["max_campaign_stretch"] == pytest.approx(1.1)  # light at x + 1 = 11, l = 10
    proc = lpsched("campaigns", "run", str(path), "--machines", "2", "--json")
    assert "q" in one_error_line(proc)


@pytest.mark.parametrize("campaign, field", [
    ({"user": 0, "submit": None, "jobs": []}, "campaigns[0].jobs"),
    ({"user": 0, "submit": None, "jobs": [{"p": 1.0, "q": 9}]}, "campaigns[0].jobs[0].q"),
    ({"user": 0, "submit": None, "jobs": [{"p": -1.0}]}, "campaigns[0].jobs[0].p"),
    ({"user": 0, "submit": None, "think": -2, "jobs": [{"p": 1.0}]}, "campaigns[0].think"),
    ({"user": -1, "submit": 0.0, "jobs": [{"p": 1.0}]}, "campaigns[0].user"),
])
def test_bad_workloads_exit_2(tmp_path, campaign, field) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"processors": 4, "campaigns": [campaign]}))
    assert field in one_error_line(lpsched("campaigns", "run", str(path), "--json"))


def test_bad_files_and_options(tmp_path) -> None:
    one_error_line(lpsched("campaigns", "run", str(tmp_path / "missing.json")))
    bad = tmp_path / "x.json"
    bad.write_text("{not json")
    assert "x.json" in one_error_line(lpsched("campaigns", "run", str(bad)))
    one_error_line(lpsched("campaigns", "generate", "--users", "0", "-o",
                           str(tmp_path / "g.json")))
    one_error_line(lpsched("campaigns", "generate", "-o", str(tmp_path / "nodir" / "g.json")))


def test_extract_reports_unplaced_jobs(tmp_path) -> None:
    swf = tmp_path / "t.swf"
    swf.write_text(SWF)
    out = tmp_path / "c.json"
    rep = one_json_object(lpsched("campaigns", "extract", str(swf), "--method", "max",
                                  "--deps", "-o", str(out), "--json"))
    assert rep["campaigns"] == 3 and rep["jobs"] == 4
    assert sum(v["count"] for v in rep["unplaced"].values()) == 1
    assert [5] in [v["jobs"] for v in rep["unplaced"].values()]
    run = one_json_object(lpsched("campaigns", "run", str(out), "--policy", "fcfs",
                                  "--json"))
    assert run["campaigns"] == 3
    closed = tmp_path / "closed.json"
    one_json_object(lpsched("campaigns", "extract", str(swf), "--replay", "closed", "-o",
                            str(closed), "--json"))
    data = json.loads(closed.read_text())
    assert data["replay"] == "closed"
    assert [c["submit"] is None for c in data["campaigns"]].count(True) == 1
    one_error_line(lpsched("campaigns", "run", str(out), "--policy", "fair-share",
                           "--tick", "0"))
    one_error_line(lpsched("campaigns", "extract", str(tmp_path / "nope.swf"), "-o",
                           str(tmp_path / "n.json")))


def json_and_table(proc, experiment: str) -> dict:
    """A reproduction's output: one JSON object on stdout (with the seed-vs-ours table
    under ``"vs_seed"``), the table itself on stderr, ending with its summary line."""
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("\n") == 1
    data = json.loads(proc.stdout)
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(f"{experiment} vs seed") and "_vs_seed.csv" in last, last
    assert " validation rows: match " in last and "calibration rows apart: " in last
    assert "Traceback" not in proc.stderr and data["vs_seed"]["experiment"] == experiment
    return data


def test_reproduce_faircamp_small(tmp_path) -> None:
    proc = lpsched("reproduce", "faircamp", "--instances", "2", "--users", "2,5",
                   "--jobs-per-instance", "500", "--out", str(tmp_path), "--quiet", "--plots")
    data = json_and_table(proc, "faircamp")
    assert set(data["summary"]) == {"2", "5"}
    assert [Path(f).name for f in data["figures"]] == [
        "002-F4.1.png", "002-F4.2.png", "002-F4.3.png", "002-F4.4.png"]
    assert all(Path(f).stat().st_size > 0 for f in data["figures"])
    assert (tmp_path / "faircamp.csv").exists() and (tmp_path / "faircamp.sqlite").exists()


@needs_shared(EGEE)
def test_reproduce_ostrich_small(tmp_path) -> None:
    proc = lpsched("reproduce", "ostrich", "--trace", str(shared_file(EGEE)), "--limit", "5000",
                   "--instances", "1", "--jobs-per-instance", "500", "--out",
                   str(tmp_path), "--quiet", "--plots")
    data = json_and_table(proc, "ostrich")
    assert [Path(f).name for f in data["figures"]] == [
        f"002-F5.{n}.png" for n in (1, 3, 4, 5, 6, 12, 13)]  # no Dec-Jan before job 5,000
    assert {"ostrich", "ostrich-nodeps", "fcfs", "original"} <= set(data["summary"]["egee"])
    header = (tmp_path / "ostrich.csv").read_text().splitlines()[0].split(",")
    assert "part" in header and "utilisation_dec_jan" not in header  # its own CSV (B26)


def test_multicmax_refuses_parallel_jobs_with_exit_2(tmp_path) -> None:
    """Five jobs of q = 3 on 4 processors: refused (exit 2) as MULTICAMP does, not an
    invalid schedule (exit 1, with a doubled "invalid schedule" prefix)."""
    path = tmp_path / "par.json"
    path.write_text(json.dumps({"processors": 4, "campaigns": [
        {"user": u, "submit": None, "jobs": [{"p": 2.0, "q": 3}]} for u in range(5)]}))
    for policy in ("multicamp", "multicmax"):
        line = one_error_line(lpsched("campaigns", "run", str(path), "--policy", policy))
        assert "sequential" in line and "invalid schedule" not in line


@pytest.mark.parametrize("tick", ["1e-14", "1e-300"])
def test_tiny_tick_refused_not_hanging(tmp_path, tick) -> None:
    w = tmp_path / "w.json"
    one_json_object(lpsched("campaigns", "generate", "--users", "3", "--jobs", "200",
                            "-o", str(w), "--json"))
    line = one_error_line(lpsched("campaigns", "run", str(w), "--policy", "fair-share",
                                  "--tick", tick))
    assert f"--tick {tick}" in line and "horizon" in line


@pytest.mark.parametrize("argv, shown", [
    (("campaigns", "generate", "--seed", "-1", "-o", "g.json"), "-1"),
    (("campaigns", "run", "w.json", "--seed", "-4"), "-4"),
    (("reproduce", "faircamp", "--first-seed", "-3", "--out", "r"), "-3"),
    (("reproduce", "ostrich", "--limit", "-2", "--out", "r", "--trace", "t.swf"), "-2"),
])
def test_negative_seed_and_limit_name_the_value(tmp_path, argv, shown) -> None:
    proc = lpsched(*argv, cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f" {shown}" in lines[0] and ">= 0" in lines[0], lines


@pytest.mark.parametrize("processors, campaign, field", [
    (4, {"user": 1e30, "submit": None, "jobs": [{"p": 1.0}]}, "campaigns[0].user"),
    (1e30, {"user": 0, "submit": None, "jobs": [{"p": 1.0}]}, "processors"),
    (10**7 + 1, {"user": 0, "submit": None, "jobs": [{"p": 1.0}]}, "processors"),
    (4, {"user": 0, "submit": 1e308, "jobs": [{"p": 1.0}]}, "campaigns[0].submit"),
    (4, {"user": 0, "submit": None, "jobs": [{"p": 1e308}]}, "campaigns[0].jobs[0].p"),
    (4, {"user": 0, "submit": None, "think": 1e308, "jobs": [{"p": 1.0}]},
     "campaigns[0].think"),
])
def test_huge_numbers_refused_naming_the_field(tmp_path, processors, campaign, field) -> None:
    path = tmp_path / "huge.json"
    path.write_text(json.dumps({"processors": processors, "campaigns": [campaign]}))
    assert f"{field} = " in one_error_line(lpsched("campaigns", "run", str(path), "--json"))


def test_ostrich_resize_mode_and_gate_options(tmp_path) -> None:
    """``--resize-mode`` / ``--gate`` reach OStrich (decision 140) and are refused, one
    line, for a policy without a virtual schedule."""
    w = tmp_path / "w.json"
    lpsched("campaigns", "generate", "--profile", "faircamp", "--users", "3", "--jobs",
            "200", "--seed", "2", "-o", str(w))
    seen = {}
    for mode in ("literal", "fragmentation_only", "none"):
        out = one_json_object(lpsched("campaigns", "run", str(w), "--policy", "ostrich",
                                      "--resize-mode", mode, "--gate", "on", "--json"))
        assert out["valid"] is True and out["resize_mode"] == mode and out["gate"] is True
        seen[mode] = out["virtual_area"]
    default = one_json_object(lpsched("campaigns", "run", str(w), "--policy", "ostrich",
                                      "--json"))
    assert default["resize_mode"] == "none" and default["gate"] is True  # sequential
    assert seen["none"] == default["virtual_area"]
    line = one_error_line(lpsched("campaigns", "run", str(w), "--policy", "fcfs",
                                  "--resize-mode", "literal"))
    assert "--resize-mode literal" in line and "ostrich" in line


def test_extract_session_method(tmp_path) -> None:
    """SESSION (decision 139): job 3, submitted 5 s after job 2 ended, stays in the
    session with a gap of 10 s (one campaign, as under MAX, where job 1, running 0-100,
    holds all three together) and opens a new session and campaign with a gap of 1 s."""
    log = tmp_path / "s.swf"
    log.write_text("; MaxProcs: 4\n"
                   "1 0 0 100 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1\n"
                   "2 10 0 20 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1\n"
                   "3 35 0 10 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1\n")
    counts = {}
    for gap in ("10", "1"):
        rep = one_json_object(lpsched("campaigns", "extract", str(log), "--method",
                                      "session", "--session-gap", gap, "-o",
                                      str(tmp_path / f"e{gap}.json"), "--json"))
        assert rep["method"] == "session" and rep["session_gap"] == float(gap)
        counts[gap] = rep["campaigns"]
    assert counts == {"10": 1, "1": 2}
    line = one_error_line(lpsched("campaigns", "extract", str(log), "--method", "session",
                                  "--session-gap", "-5", "-o", str(tmp_path / "x.json")))
    assert "--session-gap" in line


# -- the status of a job, logs where no job can be placed, the user-count sweep and the
#    seed-vs-ours tables (decisions 300-306) --------------------------------------------


# user 7: statuses 1, 0, 5 (ran) and 5 (never ran); user 3: status 1
STATUS_SWF = """; MaxProcs: 4
1 0 0 10 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
2 2 0 10 1 -1 -1 1 -1 -1 0 7 1 -1 -1 -1 -1 -1
3 30 0 4 1 -1 -1 1 -1 -1 5 7 1 -1 -1 -1 -1 -1
4 31 0 -1 1 -1 -1 1 -1 -1 5 7 1 -1 -1 -1 -1 -1
5 3 0 5 1 -1 -1 1 -1 -1 1 3 1 -1 -1 -1 -1 -1
"""
#: a log where no job can be placed: one job of run time 0, one that never ran
ZERO = """; MaxProcs: 4
1 0 0 0 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
2 5 0 -1 1 -1 -1 1 -1 -1 5 7 1 -1 -1 -1 -1 -1
"""


def test_extract_status(tmp_path) -> None:
    log = tmp_path / "s.swf"
    log.write_text(STATUS_SWF)
    out = tmp_path / "w.json"
    rep = one_json_object(lpsched("campaigns", "extract", str(log), "--status",
                                  "completed", "-o", str(out), "--json"))
    assert rep["status"] == "1" and rep["jobs"] == 2
    assert {r: v["count"] for r, v in rep["unplaced"].items()} == {
        "status 0 not selected": 1, "status 5 not selected": 2}
    assert json.loads(out.read_text())["status"] == "1"
    plain = lpsched("campaigns", "extract", str(log), "-o", str(out))  # default: all
    assert plain.returncode == 0 and plain.stderr == ""
    assert plain.stdout.splitlines() == [
        f"3 campaigns of 2 users (4 jobs, 1 pieces, 0 dependency edges) -> {out}; "
        "1 jobs not placed", "  1 did not run (run time <= 0 or unknown): jobs [4]"]
    line = one_error_line(lpsched("campaigns", "extract", str(log), "--status", "done",
                                  "-o", str(out)))
    assert "--status done" in line and "completed" in line


@pytest.mark.parametrize("deps", [(), ("--deps",)])
def test_extract_nothing_placeable_exit_2(tmp_path, deps) -> None:
    """Decision 301: one line, exit 2, with or without ``--deps`` (not an error on an empty
    array)."""
    log = tmp_path / "z.swf"
    log.write_text(ZERO)
    line = one_error_line(lpsched("campaigns", "extract", str(log), *deps, "-o",
                                  str(tmp_path / "z.json")))
    assert "no job can be placed" in line and "2 did not run" in line
    assert not (tmp_path / "z.json").exists()


def test_reproduce_ostrich_nothing_placeable_exit_2(tmp_path) -> None:
    log = tmp_path / "z.swf"
    log.write_text(ZERO)
    line = one_error_line(lpsched("reproduce", "ostrich", "--trace", str(log), "--out",
                                  str(tmp_path / "r"), "--quiet"))
    assert "no job can be placed" in line and str(log) in line


def test_reproduce_ostrich_status_and_users_sweep(tmp_path) -> None:
    log = tmp_path / "s.swf"
    log.write_text(STATUS_SWF)
    out = tmp_path / "r"
    data = json_and_table(lpsched(
        "reproduce", "ostrich", "--trace", str(log), "--status", "completed", "--users",
        "4,10", "--instances", "1", "--jobs-per-instance", "300", "--out", str(out),
        "--quiet"), "ostrich")
    s = data["summary"]
    assert s["egee"]["ostrich"]["campaigns"] == 2  # jobs 1 and 5 only
    assert set(s["profiles_sweep"]) == {"4", "10"} and s["profiles_users"] == 10
    with open(out / "ostrich_profiles_sweep.csv") as fh:
        sweep = list(csv.DictReader(fh))
    assert [r["users"] for r in sweep] == ["4", "10"]
    with open(out / "ostrich_vs_seed.csv") as fh:
        table = list(csv.DictReader(fh))
    assert [r["figure"] for r in table] == [r["figure"] for r in data["vs_seed"]["rows"]]
    assert {r["role"] for r in table} == {"validation", "calibration"}
    wanted = {e.id for e in manifest("002") if e.experiment == "ostrich"}
    assert wanted <= {r["ref"] for r in table}
    # another trace than the seed's: its results are not judged
    share = next(r for r in table if r["figure"] == "OStrich campaigns at stretch 1")
    assert share["verdict"] == "not measured: trace s is not the seed's LPC-EGEE-2004-1.2-cln"
    line = one_error_line(lpsched("reproduce", "ostrich", "--trace", str(log), "--status",
                                  "x", "--out", str(tmp_path / "bad")))
    assert "--status x" in line and not (tmp_path / "bad").exists()
    line = one_error_line(lpsched("reproduce", "ostrich", "--trace", str(log), "--users",
                                  "4,zero", "--out", str(tmp_path / "bad")))
    assert "--users 4,zero" in line


def test_reproduce_faircamp_table(tmp_path) -> None:
    proc = lpsched("reproduce", "faircamp", "--instances", "2", "--users", "2,20",
                   "--jobs-per-instance", "400", "--out", str(tmp_path), "--quiet")
    data = json_and_table(proc, "faircamp")
    assert "FCFS/FairCamp mean max-stretch, k = 20 (blocks)" in proc.stderr
    with open(tmp_path / "faircamp_vs_seed.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["figure"] for r in rows] == [r["figure"] for r in data["vs_seed"]["rows"]]
    assert {e.id for e in manifest("002") if e.experiment == "faircamp"} <= {
        r["ref"] for r in rows}
    k3 = [r for r in rows if r["figure"].startswith("FCFS/FairCamp mean max-stretch, k = 3")]
    assert [r["verdict"] for r in k3] == ["not measured: k = 3 not run"] * 2
    assert {r["role"] for r in k3} == {"validation", "calibration"}
    # 2 instances of 400 jobs: not the seed's instances, nothing measured is judged
    k20 = [r for r in rows if "k = 20 (" in r["figure"] and "FCFS/FairCamp" in r["figure"]]
    assert len(k20) == 2 and all(r["verdict"].startswith("not measured") for r in k20)
    assert any(r["verdict"].startswith("not measured: instances of 400 jobs") for r in rows)
    assert data["vs_seed"]["size"] == {"n": 2, "seed_n": 1000,
                                       "unit": "instances of 400 jobs"}


def test_reproduce_faircamp_zipf_exponent(tmp_path) -> None:
    data = json_and_table(lpsched("reproduce", "faircamp", "--instances", "1", "--users",
                                  "3", "--jobs-per-instance", "300", "--zipf-exponent", "1",
                                  "--out", str(tmp_path / "r"), "--quiet"), "faircamp")
    zipf = [r for r in data["vs_seed"]["rows"] if r["figure"] == "campaign owners: Zipf "
            "exponent"]
    assert zipf[0]["ours"] == "1"
    assert zipf[0]["verdict"] == "not measured: --zipf-exponent 1: another setting than the seed's"
    assert any("Zipf 1;" in r["note"] or r["note"].endswith("Zipf 1")
               for r in data["vs_seed"]["rows"])
    line = one_error_line(lpsched("reproduce", "faircamp", "--zipf-exponent", "-1",
                                  "--out", str(tmp_path / "bad")))
    assert "--zipf-exponent -1" in line and not (tmp_path / "bad").exists()


# -- rigid parallel jobs, dependencies, user ids and sizes each command refuses or takes
#    (decisions 245-248) ----------------------------------------------------------------


@pytest.mark.parametrize("mode", ["packed", "block"])
@pytest.mark.parametrize("data", [PAR3, PAR])
def test_cli_faircamp_refuses_parallel_jobs_in_both_modes(tmp_path: Path, mode: str,
                                                          data: dict[str, Any]) -> None:
    path = tmp_path / "par.json"
    path.write_text(json.dumps(data))
    for fmt in ((), ("--json",)):
        line = one_error_line(lpsched("campaigns", "run", str(path), "--policy", "faircamp",
                                      "--faircamp-mode", mode, *fmt))
        assert "q = 2" in line and "sequential" in line and "ostrich" in line
        assert "invalid schedule" not in line


def test_cli_offline_policies_refuse_dependencies(tmp_path: Path) -> None:
    path = tmp_path / "dep.json"
    path.write_text(json.dumps(DEP))
    for policy in ("multicamp", "multicmax"):
        line = one_error_line(lpsched("campaigns", "run", str(path), "--policy", policy))
        assert "deps = 1" in line and "independent" in line and "--deps" in line
        assert "invalid schedule" not in line
    # the same jobs without the edge are scheduled (and validated)
    data = {**DEP, "campaigns": [{k: v for k, v in DEP["campaigns"][0].items() if k != "deps"}]}
    path.write_text(json.dumps(data))
    for policy in ("multicamp", "multicmax"):
        out = one_json_object(lpsched("campaigns", "run", str(path), "--policy", policy,
                                      "--json"))
        assert out["valid"] is True and out["jobs"] == 2


def test_cli_fair_share_with_huge_user_ids(tmp_path: Path) -> None:
    """Three users with ids up to 9,999,999: a tick costs O(users present), not O(10^7)
    ids (a permutation, draws and a sort over every id made this run take more than 8 s);
    the run itself (``seconds``, the O(k) permutation once included) takes well under
    that."""
    path = tmp_path / "bigu.json"
    path.write_text(json.dumps({"processors": 2, "users": 10**7, "campaigns": [
        {"user": u, "jobs": [{"p": 1.0}, {"p": 2.0}, {"p": 1.0}, {"p": 5.0}]}
        for u in (9_999_999, 0, 5_000_000)]}))
    out = one_json_object(lpsched("campaigns", "run", str(path), "--policy", "fair-share",
                                  "--json"))
    assert out["valid"] is True and out["users"] == 3 and out["jobs"] == 12
    assert out["seconds"] < 8.0, out["seconds"]


@pytest.mark.parametrize("argv, shown", [
    (("--users", "100000000"), "--users 100000000: must be a whole number from 1 to "
                               "10,000,000"),
    (("--jobs", "1000000000"), "--jobs 1000000000: must be a whole number from 1 to "
                               "1,000,000"),
    (("--processors", "10000001"), "--processors 10000001: must be a whole number from 1 "
                                   "to 10,000,000"),
    (("--jobs", "0"), "--jobs 0: must be a whole number >= 1"),
])
def test_cli_generate_refuses_what_run_rejects(tmp_path: Path, argv: tuple[str, ...],
                                                shown: str) -> None:
    out = tmp_path / "g.json"
    line = one_error_line(lpsched("campaigns", "generate", *argv, "-o", str(out)))
    assert shown in line
    assert not out.exists()


def test_cli_generate_help_states_the_limits() -> None:
    proc = lpsched("campaigns", "generate", "--help")
    assert proc.returncode == 0 and proc.stderr == ""
    text = " ".join(proc.stdout.split())
    assert f"from 1 to {MAX_USERS:,}" in text and f"from 1 to {MAX_JOBS:,}" in text
    assert f"from 1 to {MAX_PROCESSORS:,}" in text


@pytest.mark.parametrize("argv, shown", [
    (("faircamp", "--jobs-per-instance", "2000000"), "--jobs-per-instance 2000000"),
    (("faircamp", "--users", "2,100000000"), "--users 2,100000000"),
    (("ostrich", "--users-per-instance", "0", "--trace", "t.swf"), "--users-per-instance 0"),
    (("ostrich", "--users-per-instance", "20000000", "--trace", "t.swf"),
     "--users-per-instance 20000000"),
])
def test_cli_reproduce_refuses_generator_sizes_up_front(tmp_path: Path,
                                                         argv: tuple[str, ...],
                                                         shown: str) -> None:
    line = one_error_line(lpsched("reproduce", *argv, "--out", str(tmp_path / "r")))
    assert shown in line
    assert not (tmp_path / "r").exists()
