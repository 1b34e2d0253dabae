"""The tasks family's commands: ``tasks``, ``online``, ``policies --family tasks`` and
``reproduce redirection`` (in process and as the installed command)."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lpsched.cli import main
from lpsched.report.manifest import manifest
from tests.cli.test_cli_subprocess import lpsched, one_json_object
from tests.tasks.conftest import WIDE_JOBS, kth_like, swf_text

#: the installed command beside this interpreter
LPSCHED = str(Path(sys.executable).parent / "lpsched")

KEYS = ("policy", "valid", "max_stretch", "sum_stretch", "l2_stretch", "max_flow",
        "sum_flow", "l2_flow", "lower_bounds", "redirections", "seconds")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    import numpy as np

    rng = np.random.default_rng(2)
    submit = np.sort(rng.uniform(0, 2 * 86400, 150)).astype(int)
    run_ = np.exp(rng.uniform(1, 9, 150)).astype(int)
    q = rng.choice([1, 2, 4], 150)
    path = tmp_path / "t.swf"
    path.write_text(swf_text(list(zip(submit.tolist(), run_.tolist(), q.tolist(),
                                      strict=True)), 32))
    return path


@pytest.fixture
def instance(tmp_path: Path, trace: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "x.json"
    code, stdout, err = run(capsys, "tasks", str(trace), "--window", "random:1d", "--seed",
                            "3", "-o", str(out))
    assert code == 0 and stdout == "" and err.startswith("wrote")
    return out


@pytest.fixture
def wide(tmp_path: Path) -> Path:
    """Three jobs of 12, 8 and 4 processors: on 4 processors two are too wide."""
    path = tmp_path / "wide.swf"
    path.write_text(swf_text(WIDE_JOBS, 16))
    return path


# -- lpsched tasks ------------------------------------------------------------------------


def test_tasks_builds_a_method_c_instance(capsys, trace: Path, instance: Path) -> None:
    data = json.loads(instance.read_text())
    assert data["processors"] >= 1 and data["method"] == "C" and data["seed"] == 3
    assert all(t["release"] >= 0 and t["p"] >= 0 for t in data["tasks"])
    code, out, _ = run(capsys, "tasks", str(trace), "--window", "random:1d", "--seed", "3")
    assert code == 0 and json.loads(out)["tasks"] == data["tasks"]  # stdout, same seed
    code, out, _ = run(capsys, "tasks", str(trace), "--window", "all", "--method", "B",
                       "--json")
    summary = json.loads(out)
    assert summary["tasks"] == 150 and summary["processors"] == 32


def test_tasks_command_reports_dropped_jobs(wide: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    proc = lpsched("tasks", str(wide), "--window", "all", "--processors", "4", "-o", str(out))
    assert proc.returncode == 0 and proc.stdout == ""
    assert "2 of the trace's 3 job lines dropped" in proc.stderr
    data = json.loads(out.read_text())
    assert data["trace_records"] == 3 and len(data["tasks"]) == 1
    # nothing dropped: no note
    proc = lpsched("tasks", str(wide), "--window", "all", "-o", str(out))
    assert proc.returncode == 0 and "dropped" not in proc.stderr


def test_tasks_json_without_output_is_a_documented_dry_run(wide: Path) -> None:
    summary = one_json_object(lpsched("tasks", str(wide), "--window", "all", "--json"))
    assert summary["tasks"] == 3 and summary["output"] is None
    assert "dry run" in lpsched("tasks", "--help").stdout


def test_tasks_status_selects_statuses_only_and_zero_run_drops(tmp_path: Path) -> None:
    """``tasks`` as ``batch`` (decision 380): ``--status completed`` keeps a completed job
    of run time 0; ``--zero-run drop`` drops it, counted under the reason batch uses."""
    path = tmp_path / "t.swf"
    path.write_text(swf_text([(0, 100, 4), (10, 0, 2), (20, 50, 1)], 16))
    base = [LPSCHED, "tasks", str(path), "--window", "all", "--status", "completed",
            "--json"]
    kept = subprocess.run(base, capture_output=True, text=True)
    assert kept.returncode == 0 and kept.stderr == ""
    assert json.loads(kept.stdout)["tasks"] == 3
    dropped = subprocess.run([*base, "--zero-run", "drop"], capture_output=True, text=True)
    assert dropped.returncode == 0
    out = json.loads(dropped.stdout)
    assert out["tasks"] == 2
    assert out["trace_dropped"] == {"run time 0 (field 4 = 0)": 1}
    assert out["jobs_selected"] == {"status": "completed", "zero_run": "drop"}
    assert dropped.stderr == ("lpsched: note: 1 of the trace's 3 job lines dropped before "
                              "the window was cut (1 run time 0 (field 4 = 0))\n")


def _selection_trace(tmp_path: Path) -> Path:
    return kth_like(tmp_path)


def test_installed_tasks_status_and_zero_run(tmp_path: Path) -> None:
    """``tasks --status completed --zero-run drop`` keeps the chapter's jobs and says what
    it dropped, per status and run time; a bad ``--status`` is one line, exit 2."""
    trace = _selection_trace(tmp_path)
    proc = lpsched("tasks", str(trace), "--window", "all", "--status", "completed",
                   "--zero-run", "drop", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["tasks"] == 48 and data["jobs_selected"] == {"status": "completed",
                                                             "zero_run": "drop"}
    assert data["trace_dropped"] == {"status -1 not selected": 12,
                                     "status 0 not selected": 24,
                                     "status 5 not selected": 12,
                                     "run time 0 (field 4 = 0)": 24}
    assert proc.stderr.startswith("lpsched: note: 72 of the trace's 120 job lines dropped")
    plain = json.loads(lpsched("tasks", str(trace), "--window", "all", "--json").stdout)
    assert plain["tasks"] == 120  # every job, run time 0 kept
    bad = lpsched("tasks", str(trace), "--status", "finished")
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1
    assert "--status 'finished'" in bad.stderr
    bad = lpsched("tasks", str(trace), "--zero-run", "sometimes")
    assert bad.returncode == 2 and "--zero-run" in bad.stderr


# -- lpsched online -----------------------------------------------------------------------


def test_online_one_policy_json(capsys, instance: Path) -> None:
    code, out, _ = run(capsys, "online", str(instance), "--policy", "spt-rd", "--md", "2",
                       "--tau", "1", "--json")
    data = json.loads(out)
    assert code == 0 and all(k in data for k in KEYS)
    assert data["valid"] is True and data["md"] == 2 and data["tau"] == 1
    lb = data["lower_bounds"]
    assert lb["max_stretch"]["bound"] == "preemptive-exact"
    assert lb["sum_flow"]["bound"] == "srpt-speed-m"
    for key in ("max_stretch", "max_flow", "sum_flow"):
        assert data[key] >= lb[key]["value"] * (1 - 1e-7)


def test_online_all_table_and_csv(capsys, instance: Path, tmp_path: Path) -> None:
    rows_csv = tmp_path / "rows.csv"
    code, out, _ = run(capsys, "online", str(instance), "--policy", "all", "--table",
                       "--csv", str(rows_csv))
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("policy")
    names = [line.split()[0] for line in lines[1:10]]
    assert names == ["spt", "gspt", "srpt", "gsrpt", "spt-rd", "gspt-rd", "spt-rr",
                     "gspt-rr", "fcfs"]
    assert any(line.startswith("lower bound") for line in lines)
    assert len(list(csv.DictReader(rows_csv.open()))) == 9
    code, out, _ = run(capsys, "online", str(instance), "--policy", "all", "--json",
                       "--bounds", "speed-m")
    rows = json.loads(out)
    assert len(rows) == 9 and rows[0]["lower_bounds"]["max_flow"]["bound"] == "speed-m-edf"


@pytest.mark.parametrize("argv, text", [
    (["--policy", "spt-rd", "--md", "999"], "--md 999"),
    (["--policy", "gspt-rd", "--tau", "0.5"], "--tau"),
    (["--policy", "spt-rr", "--b", "1.5"], "--b"),
    (["--policy", "spt-rr", "--c", "-1"], "--c"),
    (["--policy", "lifo"], "unknown policy"),
])
def test_online_bad_options_exit_2(capsys, instance: Path, argv: list[str], text: str) -> None:
    code, out, err = run(capsys, "online", str(instance), *argv)
    assert code == 2 and out == "" and text in err and err.count("\n") == 1


@pytest.mark.parametrize("doc, field", [
    ({"tasks": [{"release": 0, "p": 1}]}, "processors"),
    ({"processors": 2, "tasks": [{"release": -1, "p": 1}]}, "tasks[0].release"),
    ({"processors": 2, "tasks": [{"release": 0, "p": -1}]}, "tasks[0].p"),
])
def test_online_bad_instances_exit_2(capsys, tmp_path: Path, doc: dict, field: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    code, out, err = run(capsys, "online", str(path), "--policy", "spt")
    assert code == 2 and out == "" and field in err and err.count("\n") == 1


def test_online_all_reports_table_md_too_large_as_skipped(capsys, tmp_path: Path) -> None:
    """KTH-SP2 on 7 processors: Table 3.2's m_d is 8 for SPT-RD and 7 for GSPT-RD. With
    ``--policy all`` both are rows with status "skipped" and the reason; named alone, the
    error says where m_d = 8 came from (the user gave no --md)."""
    path = tmp_path / "kth.json"
    path.write_text(json.dumps({"processors": 7, "source": "KTH-SP2-1996-2.1-cln.swf.gz",
                                "tasks": [{"release": float(i), "p": 5.0 + i % 3}
                                          for i in range(20)]}))
    code, out, err = run(capsys, "online", str(path), "--policy", "all", "--json")
    assert code == 0, err
    rows = {r["policy"]: r for r in json.loads(out)}
    assert len(rows) == 9
    assert {k for k, r in rows.items() if r["status"] == "skipped"} == {"spt-rd", "gspt-rd"}
    assert "m_d = 8" in rows["spt-rd"]["reason"] and "m_d = 7" in rows["gspt-rd"]["reason"]
    assert rows["spt-rr"]["status"] == "ok" and rows["spt-rr"]["md"] == 2
    code, out, _ = run(capsys, "online", str(path), "--policy", "all", "--table")
    assert code == 0 and "spt-rd skipped: Table 3.2's m_d = 8" in out
    code, out, err = run(capsys, "online", str(path), "--policy", "spt-rd")
    assert code == 2 and "Table 3.2's m_d = 8" in err and "--md 8" not in err
    code, out, _ = run(capsys, "online", str(path), "--policy", "spt-rd", "--md", "3",
                       "--json")
    assert code == 0 and json.loads(out)["md"] == 3


def test_online_csv_dash_writes_stdout(tmp_path: Path) -> None:
    inst = tmp_path / "t.json"
    inst.write_text(json.dumps({"processors": 1, "tasks": [
        {"release": 0, "p": 100}, {"release": 1, "p": 1}, {"release": 2, "p": 1}]}))
    proc = lpsched("online", str(inst), "--policy", "spt,gspt", "--csv", "-", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert [r["policy"] for r in rows] == ["spt", "gspt"]
    assert not (tmp_path / "-").exists()
    proc = lpsched("online", str(inst), "--policy", "spt", "--csv", "-", "--json")
    assert proc.returncode == 2 and proc.stdout == "" and "stdout" in proc.stderr


def test_online_names_the_exact_bound_test(tmp_path: Path) -> None:
    inst = tmp_path / "t.json"
    inst.write_text(json.dumps({"processors": 2, "tasks": [
        {"release": 0, "p": 5}, {"release": 1, "p": 3}, {"release": 1, "p": 3}]}))
    lp = one_json_object(lpsched("online", str(inst), "--policy", "spt", "--bounds", "lp",
                                 "--json"))
    flow = one_json_object(lpsched("online", str(inst), "--policy", "spt", "--json"))
    assert lp["lower_bounds"]["max_stretch"]["test"] == "lp"
    assert flow["lower_bounds"]["max_stretch"]["test"] == "max-flow"
    assert "test" not in flow["lower_bounds"]["sum_flow"]


def test_installed_command(tmp_path: Path) -> None:
    trace = tmp_path / "t.swf"
    trace.write_text(swf_text())
    inst = tmp_path / "i.json"
    proc = lpsched("tasks", str(trace), "--window", "all", "-o", str(inst))
    assert proc.returncode == 0 and proc.stdout == "" and "wrote" in proc.stderr
    data = one_json_object(lpsched("online", str(inst), "--policy", "gspt-rd", "--md", "1",
                                   "--tau", "1", "--json"))
    assert all(k in data for k in KEYS)
    table = lpsched("online", str(inst), "--policy", "all", "--table")
    assert table.returncode == 0 and table.stderr == ""
    assert table.stdout.splitlines()[0].startswith("policy")
    bad = lpsched("online", str(inst), "--policy", "spt-rd", "--md", "50")
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1
    data = one_json_object(lpsched("tasks", str(trace), "--window", "all", "--json"))
    assert data["tasks"] == 8


def test_installed_online_far_releases_and_long_swf_line(tmp_path: Path) -> None:
    """Two tasks released at 1e19: the real flows (8 and 3), not 0 (decision 286); an
    instance beyond a microsecond's reach is one error line; a .swf.gz inflating to a
    2 MiB line is refused at that line (decision 289)."""
    import gzip

    far = tmp_path / "far.json"
    far.write_text(json.dumps({"processors": 1, "tasks": [{"release": 1e19, "p": 5.0},
                                                          {"release": 1e19, "p": 3.0}]}))
    data = one_json_object(lpsched("online", str(far), "--policy", "spt", "--json"))
    assert data["max_flow"] == 8.0 and data["sum_flow"] == 11.0
    assert data["max_flow"] >= data["lower_bounds"]["max_flow"]["value"]
    spread = tmp_path / "spread.json"
    spread.write_text(json.dumps({"processors": 1, "tasks": [{"release": 0, "p": 5.0},
                                                             {"release": 1e19, "p": 3.0}]}))
    bad = lpsched("online", str(spread), "--policy", "spt")
    assert bad.returncode != 0 and bad.stdout == "" and bad.stderr.count("\n") == 1
    assert "kept to 1e-06 s" in bad.stderr
    big = tmp_path / "big.swf.gz"
    with gzip.open(big, "wb", compresslevel=1) as fh:
        fh.write(b"; MaxProcs: 4\n" + b"1 " * (1 << 20) + b"\n")
    proc = lpsched("tasks", str(big))
    assert proc.returncode != 0 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert "big.swf.gz:2" in proc.stderr and "longer than 4,096 bytes" in proc.stderr


def test_policies_family_tasks(capsys) -> None:
    code, out, _ = run(capsys, "policies", "--family", "tasks", "--json")
    assert code == 0 and json.loads(out) == ["fcfs", "gspt", "gsrpt", "spt", "srpt",
                                             "gspt-rd", "spt-rd", "gspt-rr", "spt-rr"]
    code, out, _ = run(capsys, "policies")
    assert "online sequential tasks" in out and "gspt-rr" in out


# -- lpsched reproduce redirection -------------------------------------------------------


def test_reproduce_redirection_reduced(capsys, tmp_path: Path, trace: Path) -> None:
    out = tmp_path / "r"
    code, stdout, err = run(capsys, "reproduce", "redirection", "--traces", str(trace),
                            "--instances", "2", "--out", str(out), "--quiet")
    assert code == 0, err
    report = json.loads(stdout)
    assert report["cells"] == 18 and report["computed"] == 18 and report["skipped"] == {}
    rows = list(csv.DictReader((out / "redirection.csv").open()))
    assert len(rows) == 18 and all(r["valid"] == "True" for r in rows)
    assert all(float(r["max_stretch_over_lb"]) >= 1 - 1e-7 for r in rows)
    assert (out / "redirection-summary.csv").exists() and report["findings"]
    assert report["figures"] and Path(report["figures"][0]).exists()
    # resumable: a second run computes nothing
    code, stdout, _ = run(capsys, "reproduce", "redirection", "--traces", str(trace),
                          "--instances", "2", "--out", str(out), "--quiet", "--no-plots")
    assert code == 0 and json.loads(stdout)["computed"] == 0


def test_reproduce_tuning_grid_reduced(capsys, tmp_path: Path, trace: Path) -> None:
    out = tmp_path / "t"
    code, stdout, err = run(capsys, "reproduce", "redirection", "--tune", "--trace",
                            str(trace), "--instances", "1", "--out", str(out), "--quiet")
    assert code == 0, err
    report = json.loads(stdout)
    assert report["cells"] == 10 * 5 * 2 + 10 * 5 * 2  # m_d x tau and m_d x c, two each
    summ = list(csv.DictReader((out / "redirection-tuning-summary.csv").open()))
    assert {r["policy"] for r in summ} == {"spt-rd", "gspt-rd", "spt-rr", "gspt-rr"}
    assert len(report["figures"]) == 4
    # its own table: a tuning run never replaces the comparison run's
    assert (out / "redirection-tuning_vs_seed.csv").exists()
    assert not (out / "redirection_vs_seed.csv").exists()
    assert report["vs_seed"]["experiment"] == "redirection-tuning"


def test_reproduce_trace_paths_are_absolute(capsys, tmp_path: Path, trace: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Cells carry absolute trace paths (a Dask worker started elsewhere reads them), so
    the store's keys do not depend on the working folder: the same trace named from
    another folder finds every cell already computed."""
    import argparse

    from lpsched.cli.tasks import _data_folder, _trace_paths

    (tmp_path / "sub").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "KTH-SP2-1996-2.1-cln.swf.gz").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    args = argparse.Namespace(data="data")
    assert _data_folder(args) == str(tmp_path.resolve() / "data")
    assert _trace_paths(args, "KTH-SP2") == [
        str(tmp_path.resolve() / "data" / "KTH-SP2-1996-2.1-cln.swf.gz")]
    assert _trace_paths(args, "t.swf") == [str(trace.resolve())]
    out = str(tmp_path / "r")
    code, stdout, err = run(capsys, "reproduce", "redirection", "--traces", "t.swf",
                            "--instances", "1", "--out", out, "--quiet", "--no-plots")
    assert code == 0 and json.loads(stdout)["computed"] == 9, err
    monkeypatch.chdir(tmp_path / "sub")
    code, stdout, err = run(capsys, "reproduce", "redirection", "--traces", "../t.swf",
                            "--instances", "1", "--out", out, "--quiet", "--no-plots")
    assert code == 0 and json.loads(stdout)["computed"] == 0, err


def test_installed_reproduce_writes_and_prints_the_table(tmp_path: Path) -> None:
    """``reproduce redirection --out DIR``: stdout one JSON value with ``vs_seed`` and the
    selection used (the chapter's by default), the table on stderr, the CSV in DIR; the
    former reading with ``--status all --zero-run keep``."""
    trace = _selection_trace(tmp_path)
    out = tmp_path / "r"
    proc = lpsched("reproduce", "redirection", "--traces", str(trace), "--instances", "1",
                   "--out", str(out), "--quiet", "--no-plots")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["jobs"] == {"status": "completed", "zero_run": "drop"}
    rows = {r["figure"]: r for r in report["vs_seed"]["rows"]}
    assert rows["Table 3.1 KTH-SP2 trace # tasks"]["ours"] == "48"
    assert "redirection vs seed, 1 of 20 instances per trace:" in proc.stderr
    assert "Table 3.1 KTH-SP2 trace # tasks" in proc.stderr
    table = list(csv.DictReader((out / "redirection_vs_seed.csv").open()))
    assert len(table) == len(report["vs_seed"]["rows"])
    assert table[0]["figure"] == "instances: how they are cut from a trace"
    # every published result of ch. 3 a row, even at one instance of one trace
    wanted = {e.id for e in manifest("000") if e.experiment == "redirection"}
    assert wanted <= {r["ref"] for r in table}
    # one instance has no noise: no mean of it is judged against the seed's 20
    mq = next(r for r in table if r["figure"] == "Table 3.1 KTH-SP2 instance CPUs (m/Q)")
    assert mq["verdict"].startswith("not measured: reduced run (1 of 20 instances)")
    every = lpsched("reproduce", "redirection", "--traces", str(trace), "--instances", "1",
                    "--out", str(out), "--quiet", "--no-plots", "--status", "all",
                    "--zero-run", "keep")
    assert every.returncode == 0, every.stderr
    again = json.loads(every.stdout)
    assert again["computed"] == 9  # another selection: other cells, same store
    rows = {r["figure"]: r for r in again["vs_seed"]["rows"]}
    assert rows["Table 3.1 KTH-SP2 trace # tasks"]["ours"] == "120"
    bad = lpsched("reproduce", "redirection", "--traces", str(trace), "--out", str(out),
                  "--status", "done")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


@pytest.mark.parametrize("extra,named", [
    (["--trace", "KTH-SP2"], "--trace KTH-SP2: --trace names the trace of the tuning grids"),
    (["--tune", "--traces", "KTH-SP2"], "--traces KTH-SP2: the tuning grids (--tune) run "
     "on one trace"),
])
def test_trace_options_of_the_other_mode_are_refused(tmp_path: Path, extra: list[str],
                                                     named: str) -> None:
    """Decision 404: ``--trace`` without ``--tune`` and ``--traces`` with it are refused
    before anything runs."""
    out = tmp_path / "out"
    proc = subprocess.run([LPSCHED, "reproduce", "redirection", *extra, "--data",
                           str(tmp_path), "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"lpsched: error: {named}")
    assert len(proc.stderr.splitlines()) == 1
    assert not out.exists()  # refused before the output folder is made


def test_installed_reproduce_both_runs_then_report(tmp_path: Path) -> None:
    """The comparison and the tuning grids into one ``--out``: each run's table reads the
    other's store (Table 3.2 and the claims in one table), and ``lpsched report`` on the
    comparison store reads the tuning store beside it: the page holds every row of the
    table and every figure drawn exists."""
    trace = kth_like(tmp_path, days=40.0)
    out = tmp_path / "r"
    tune = lpsched("reproduce", "redirection", "--tune", "--trace", str(trace),
                   "--instances", "2", "--out", str(out), "--quiet", "--no-plots")
    assert tune.returncode == 0, tune.stderr
    assert json.loads(tune.stdout)["vs_seed"]["experiment"] == "redirection-tuning"
    proc = lpsched("reproduce", "redirection", "--traces", str(trace), "--instances", "2",
                   "--out", str(out), "--quiet", "--no-plots")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["vs_seed"]["rows"]
    cells = [r for r in rows if r["figure"].startswith("Table 3.2 KTH-SP2 SPT-RD")]
    assert [r["verdict"] for r in cells] == ["not measured: reduced run (2 of 20 "
                                             "instances)"] * 2
    assert all("worst objective" in r["note"] for r in cells)  # the grid was read
    report = lpsched("report", str(out / "redirection.sqlite"), "--out", str(tmp_path / "p"))
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "p" / "seed000.md").read_text()
    assert "redirection: " in page and "(2 of 20 instances per trace)" in page
    for row in rows:
        assert row["figure"].replace("|", "\\|") in page, row["figure"]
    images = re.findall(r"\]\((seed000/[^)]+\.png)\)", page)
    assert "seed000/000-F3.9.png" in images  # KTH-SP2's comparison
    assert all((tmp_path / "p" / image).is_file() for image in images)
