"""The installed ``lpsched`` command, run as users run it: a subprocess, real file descriptors.

In-process tests (``main()`` with ``capsys``) cannot see what a compiled library writes to
file descriptor 1 or 2; these can. Every command that has ``--json`` must print exactly one
JSON object on stdout and nothing on stderr when it succeeds; ``--table`` and CSV outputs
print the table or the CSV and nothing else; exit codes follow the README (0 success, 1 a
solver that cannot answer or a violated guarantee, 2 bad input).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SWF = """; Version: 2.2
; MaxProcs: 8
    1    0  0  100   4   -1 -1   4   200 -1 1 1 1 -1 -1 1 -1 -1
    2    5  0   50   2   -1 -1   2    60 -1 1 1 1 -1 -1 1 -1 -1
    3    6  0   30   8   -1 -1   8    60 -1 1 1 1 -1 -1 1 -1 -1
    4    9  0   20   1   -1 -1   1    60 -1 1 1 1 -1 -1 1 -1 -1
"""


def _lpsched_command() -> str:
    """The console script installed beside this interpreter (the one ``make test`` uses)."""
    script = Path(sys.executable).with_name("lpsched")
    if script.exists():
        return str(script)
    found = shutil.which("lpsched")
    if found is None:
        pytest.fail("the 'lpsched' console script is not installed (pip install -e .)")
    return found


LPSCHED = _lpsched_command()


def lpsched(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    return subprocess.run([LPSCHED, *argv], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env=env, check=False)


def one_json_object(proc: subprocess.CompletedProcess[str], kind: type = dict) -> Any:
    """Stdout is exactly one JSON object (one line), stderr is empty, exit status 0."""
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", f"stderr not empty: {proc.stderr!r}"
    text = proc.stdout
    assert text.endswith("\n") and text.count("\n") == 1, f"not one line: {text[:300]!r}"
    data = json.loads(text)  # raises on anything before or after the object
    assert isinstance(data, kind)
    return data


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("cli")
    inst = d / "inst.json"
    proc = lpsched("generate", "bags", "--apps", "5", "--workers", "3", "--seed", "3",
                   "-o", str(inst))
    assert proc.returncode == 0 and proc.stdout == "" and "wrote" in proc.stderr
    hybrid = d / "hybrid.json"
    hybrid.write_text(json.dumps({"tasks": [{"cpu": 4, "gpu": 1}, {"cpu": 3, "gpu": 2},
                                            {"cpu": 1, "gpu": 4}]}))
    moldable = d / "moldable.json"
    moldable.write_text(json.dumps({"times": [[4, 2, 1.5, 1.25], [3, 3, 3, 3],
                                              [8, 4, 3, 2.25]]}))
    trace = d / "t.swf"
    trace.write_text(SWF)
    plan = d / "plan.json"
    proc = lpsched("solve", str(inst), "--json", "--plan")
    plan.write_text(proc.stdout)
    return {"inst": inst, "hybrid": hybrid, "moldable": moldable, "swf": trace, "plan": plan,
            "dir": d}


JSON_COMMANDS = {
    "solve": ["solve", "{inst}", "--json"],
    "solve-bisection": ["solve", "{inst}", "--method", "bisection", "--json"],
    "throughput": ["throughput", "{inst}", "--json"],
    "check": ["check", "{inst}", "{plan}", "--json"],
    "simulate": ["simulate", "{inst}", "--policy", "cbs3m-edf-online,srpt-mct", "--json"],
    "schedule": ["schedule", "{inst}", "--model", "op-ac", "--json"],
    "approx-hybrid": ["approx", "hybrid", "{hybrid}", "--cpus", "1", "--gpus", "1",
                      "--variant", "3/2", "--json"],
    "approx-moldable": ["approx", "moldable", "{moldable}", "--processors", "4", "--json"],
    "approx-kshelf": ["approx", "moldable", "{moldable}", "--processors", "4",
                      "--algorithm", "kshelf", "--json"],
    "check-ratios": ["check-ratios", "--trials", "3", "--seed", "1", "--json"],
    "swf-info": ["swf-info", "{swf}", "--json"],
    "batch": ["batch", "{swf}", "--policy", "easy", "--json"],
    "policies": ["policies", "--json"],
}
LISTS = {"policies", "simulate"}  # one JSON array: names, or one row per policy


@pytest.mark.parametrize("name", sorted(JSON_COMMANDS))
def test_json_output_is_one_object_and_nothing_else(name: str, files: dict[str, Path]) -> None:
    argv = [a.format(**{k: str(v) for k, v in files.items()}) for a in JSON_COMMANDS[name]]
    data = one_json_object(lpsched(*argv), list if name in LISTS else dict)
    assert data  # every command reports something


def test_solve_json_values(files: dict[str, Path]) -> None:
    data = one_json_object(lpsched("solve", str(files["inst"]), "--json"))
    assert data["stretch"] >= 1.0 and data["lp_solves"] >= 1
    again = one_json_object(lpsched("solve", str(files["inst"]), "--json"))
    assert again["stretch"] == data["stretch"]  # deterministic across processes


def test_check_ratios_json_reports_ok(files: dict[str, Path]) -> None:
    data = one_json_object(lpsched("check-ratios", "--trials", "3", "--seed", "1", "--json"))
    assert data["ok"] is True


def test_table_output_is_the_table_only(files: dict[str, Path]) -> None:
    proc = lpsched("simulate", str(files["inst"]), "--policy", "all", "--table")
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert "policy" in lines[0].lower()
    assert not any("HiGHS" in line or "Copyright" in line for line in lines)
    assert any(line.startswith("cbs3m-edf-online") for line in lines)


def test_batch_csv_to_stdout_is_the_csv_only(files: dict[str, Path]) -> None:
    proc = lpsched("batch", str(files["swf"]), "--policy", "easy", "--out", "-")
    assert proc.returncode == 0
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert [r["job_id"] for r in rows] == ["1", "2", "3", "4"]
    assert all(float(r["finish_time"]) >= float(r["starting_time"]) for r in rows)
    assert "easy on" in proc.stderr  # the summary moves to stderr, off the CSV
    both = lpsched("batch", str(files["swf"]), "--out", "-", "--json")
    assert both.returncode == 2 and both.stdout == "" and "stdout" in both.stderr


def test_human_summary_has_no_solver_banner(files: dict[str, Path]) -> None:
    proc = lpsched("solve", str(files["inst"]))
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("optimal max-stretch")


def test_solver_log_goes_where_asked(files: dict[str, Path]) -> None:
    log = files["dir"] / "highs.log"
    data = one_json_object(lpsched("--solver-log", str(log), "solve", str(files["inst"]),
                                   "--json"))
    assert data["stretch"] >= 1.0
    text = log.read_text()
    assert "status" in text and "Optimal" in text  # the real solver log, not an empty file
    proc = lpsched("--verbose", "solve", str(files["inst"]), "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["stretch"] == data["stretch"]
    assert "Optimal" in proc.stderr
    bad = lpsched("--solver-log", str(files["dir"] / "no" / "such.log"), "solve",
                  str(files["inst"]), "--json")
    assert bad.returncode == 2 and bad.stdout == "" and "solver log" in bad.stderr


def test_exit_codes(files: dict[str, Path]) -> None:
    missing = lpsched("solve", str(files["dir"] / "nope.json"), "--json")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.startswith("lpsched: error:") and missing.stderr.count("\n") == 1
    bad = files["dir"] / "bad.json"
    bad.write_text(json.dumps({"cpu_times": [1, -1], "gpu_times": [1, 1]}))
    proc = lpsched("approx", "hybrid", str(bad), "--cpus", "1", "--gpus", "1", "--json")
    assert proc.returncode == 2 and proc.stdout == "" and "cpu_times[1]" in proc.stderr
    usage = lpsched("solve")
    assert usage.returncode == 2 and "usage" in usage.stderr and usage.stdout == ""
    tampered = json.loads(files["plan"].read_text())
    tampered["plan"]["comm"][0][0] = [v * 2 + 1 for v in tampered["plan"]["comm"][0][0]]
    worse = files["dir"] / "tampered.json"
    worse.write_text(json.dumps(tampered))
    proc = lpsched("check", str(files["inst"]), str(worse), "--json")
    assert proc.returncode == 1 and json.loads(proc.stdout)["ok"] is False


def test_version_verbose_lists_the_dependencies() -> None:
    proc = lpsched("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("lpsched ")
    proc = lpsched("--version", "--verbose")
    assert proc.returncode == 0 and proc.stderr == ""
    names = {line.split()[0] for line in proc.stdout.splitlines() if line.strip()}
    assert {"lpsched", "python", "numpy", "scipy", "highspy", "networkx", "pulp"} <= names


def test_reproduce_progress_has_no_banner(tmp_path: Path) -> None:
    proc = lpsched("reproduce", "cbs3m", "--instances", "2", "--jobs", "2", "--profile",
                   "mpi", "--out", str(tmp_path / "r"), "--quiet")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout + proc.stderr
    # HiGHS' banner ("Running HiGHS 1.x ...: Copyright (c) ...") and its solver log lines;
    # the seed-vs-ours table may name HiGHS in a note, which is no banner
    assert "Running HiGHS" not in out and "Copyright" not in out
    assert not any(line.lstrip().startswith(("Presolving", "Solving", "Model status"))
                   for line in out.splitlines())


def test_approx_identical_runs_the_files_lpsched_testing_prints(tmp_path: Path) -> None:
    """A failing P||Cmax example of ``lpsched.testing`` is printed as {"times", "machines"}
    JSON that an lpsched command accepts: LPT's tight instance on 3 machines (LPT 11,
    optimum 9)."""
    path = tmp_path / "instance.json"
    path.write_text(json.dumps({"times": [5, 5, 4, 4, 3, 3, 3], "machines": 3}))
    data = one_json_object(lpsched("approx", "identical", str(path), "--exact", "--json"))
    assert data["algorithm"] == "lpt" and data["makespan"] == 11.0
    assert data["exact"]["optimal"] and data["exact"]["makespan"] == 9.0
    bad = lpsched("approx", "identical", str(path), "--machines", "0")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--machines" in bad.stderr


def test_generate_bags_uses_the_profiles_units() -> None:
    """``generate bags --profile balanced`` gives the Python API's instance: the profile's
    10 MB/s base links, not the 10 or 100 Mbit/s of the seed's profiles (mpi and simgrid,
    decision 36), and so does the default simgrid profile."""
    from lpsched.bags import instance_to_dict, random_bags

    out = one_json_object(lpsched("generate", "bags", "--profile", "balanced", "--seed", "3"))
    assert out == json.loads(json.dumps(instance_to_dict(random_bags(profile="balanced",
                                                                      seed=3))))
    assert min(out["platform"]["bandwidths"]) >= 1e6  # 1e7 / U[1, 10]
    simgrid = one_json_object(lpsched("generate", "bags", "--seed", "3"))
    assert simgrid == json.loads(json.dumps(instance_to_dict(random_bags(seed=3))))
    assert max(simgrid["platform"]["bandwidths"]) <= 12.5e6  # 100 Mbit/s / U{1..10}
    mpi = one_json_object(lpsched("generate", "bags", "--profile", "mpi", "--seed", "3"))
    assert max(mpi["platform"]["bandwidths"]) <= 1.25e6  # 10 Mbit/s / U{1..10}
