"""Issue 30 (seed 002 half) through the installed console script: ``campaigns extract
--status``, the clean error of a log where no job can be placed, ``reproduce ostrich
--status / --users`` and the seed-vs-ours tables (stdout, stderr, exit codes)."""

from __future__ import annotations

import csv
import json

import pytest

from tests.cli.test_campaigns_cli import json_and_table, one_error_line
from tests.cli.test_cli_subprocess import lpsched, one_json_object

# user 7: statuses 1, 0, 5 (ran) and 5 (never ran); user 3: status 1
SWF = """; MaxProcs: 4
1 0 0 10 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
2 2 0 10 1 -1 -1 1 -1 -1 0 7 1 -1 -1 -1 -1 -1
3 30 0 4 1 -1 -1 1 -1 -1 5 7 1 -1 -1 -1 -1 -1
4 31 0 -1 1 -1 -1 1 -1 -1 5 7 1 -1 -1 -1 -1 -1
5 3 0 5 1 -1 -1 1 -1 -1 1 3 1 -1 -1 -1 -1 -1
"""
ZERO = """; MaxProcs: 4
1 0 0 0 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
2 5 0 -1 1 -1 -1 1 -1 -1 5 7 1 -1 -1 -1 -1 -1
"""


def test_extract_status(tmp_path) -> None:
    log = tmp_path / "s.swf"
    log.write_text(SWF)
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
    """Issue 28: was the minimum of an empty array (exit 3) with --deps."""
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
    log.write_text(SWF)
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
    assert len(table) == 16 and {r["role"] for r in table} == {"validation", "calibration"}
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
    assert "B16 FCFS/FairCamp mean max-stretch, k = 20" in proc.stderr
    with open(tmp_path / "faircamp_vs_seed.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 10 == len(data["vs_seed"]["rows"])
    assert rows[1]["verdict"] == "not measured: k = 3 not run"


def test_reproduce_faircamp_zipf_exponent(tmp_path) -> None:
    data = json_and_table(lpsched("reproduce", "faircamp", "--instances", "1", "--users",
                                  "3", "--jobs-per-instance", "300", "--zipf-exponent", "1",
                                  "--out", str(tmp_path / "r"), "--quiet"), "faircamp")
    assert "Zipf 1" in data["vs_seed"]["rows"][1]["note"]
    line = one_error_line(lpsched("reproduce", "faircamp", "--zipf-exponent", "-1",
                                  "--out", str(tmp_path / "bad")))
    assert "--zipf-exponent -1" in line and not (tmp_path / "bad").exists()
