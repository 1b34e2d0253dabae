"""Review A (seed 003) findings 1, 2, 4, 5, 6 and 7 at the installed ``lpsched`` command.

``check`` verifies a plan under one model (the instance's, or ``--port``'s) for both MS*
and the capacities, with per-application tolerances, and the file's summary against the
plan; ``simulate`` names the bound of the instance's model; options that would be ignored
are errors; option errors name the option. Each test failed before the fix.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli_subprocess import lpsched, one_json_object

PORTMIX: dict[str, Any] = {  # review A's portmix.json
    "platform": {"speeds": [[10, 1], [1, 10]], "bandwidths": [1, 1], "port": "one-port"},
    "applications": [{"release": 0, "tasks": 10, "work": 10, "size": 0.6},
                     {"release": 0, "tasks": 10, "work": 10, "size": 0.6}]}
SKEW: dict[str, Any] = {  # review A's skew.json
    "platform": {"speeds": [1], "bandwidths": [1000]},
    "applications": [{"release": 0, "tasks": 1000000, "work": 1, "size": 1},
                     {"release": 0, "tasks": 1, "work": 1, "size": 1}]}
LATENT: dict[str, Any] = {  # review A's bmp.json, smaller: multiport, BW, link latencies
    "platform": {"speeds": [4.35e8, 1.05e8], "bandwidths": [1.78e6, 1.05e6],
                 "master_bandwidth": 1.2e6, "port": "multiport", "latencies": [0.01, 0.2]},
    "applications": [{"release": 28.7, "tasks": 8, "work": 3.2e9, "size": 9.3e6},
                     {"release": 93.3, "tasks": 6, "work": 8.3e9, "size": 1.7e7}]}


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data))
    return path


def error_line(proc: Any, *named: str, status: int = 2, stdout: str | None = "") -> str:
    """Exit ``status``, exactly one ``lpsched: error:`` line naming ``named`` on stderr, and
    ``stdout`` (``None``: not checked)."""
    assert proc.returncode == status, (proc.returncode, proc.stdout, proc.stderr)
    if stdout is not None:
        assert proc.stdout == stdout, proc.stdout
    assert proc.stderr.startswith("lpsched: error: ") and proc.stderr.count("\n") == 1, \
        proc.stderr
    for text in named:
        assert text in proc.stderr, proc.stderr
    return proc.stderr


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("review")
    out = {"portmix": write(d / "portmix.json", PORTMIX), "skew": write(d / "skew.json", SKEW),
           "latent": write(d / "latent.json", LATENT), "dir": d}
    for name, argv in (("portmix_mp", ["--port", "multiport"]), ("portmix_1p", []),
                       ("skew_sol", [])):
        inst = out[name.split("_")[0]]
        proc = lpsched("solve", str(inst), "--json", "--plan", *argv)
        assert proc.returncode == 0, proc.stderr
        out[name] = write(d / f"{name}.json", json.loads(proc.stdout))
    return out


# -- finding 1 --------------------------------------------------------------------------


def test_check_refuses_a_multiport_plan_on_a_one_port_instance(files):
    proc = lpsched("check", str(files["portmix"]), str(files["portmix_mp"]))
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("port model: the plan was computed for multiport, the "
                               "check is under one-port")
    assert any(line.startswith("one-port master (10-b) violated") for line in lines)
    error_line(proc, "the plan violates 2 constraint(s)", "--port multiport", status=1,
               stdout=None)


def test_check_port_checks_a_multiport_plan_under_multiport(files):
    proc = lpsched("check", str(files["portmix"]), str(files["portmix_mp"]), "--port",
                   "multiport")
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout == "plan OK: max-stretch 1.1 under multiport (K)\n"
    data = one_json_object(lpsched("check", str(files["portmix"]), str(files["portmix_mp"]),
                                   "--port", "multiport", "--json"))
    assert data["ok"] is True and data["port"] == "multiport"
    assert data["stretch"] == pytest.approx(1.1) and data["notes"] == []
    # and the one-port plan under --port multiport is the mismatch the other way
    proc = lpsched("check", str(files["portmix"]), str(files["portmix_1p"]), "--port",
                   "multiport", "--json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["violations"][0].startswith(
        "port model: the plan was computed for one-port, the check is under multiport")


# -- finding 2 --------------------------------------------------------------------------


def test_check_fails_a_small_applications_deadline_miss(files):
    """Review A's skew.tamper.json: application 1 (MS* 1 s) finishes at 2 s, the plan says
    S = 1.000001; the tolerance was 1e-6 of MS* = 1e6 s."""
    assert lpsched("check", str(files["skew"]), str(files["skew_sol"])).returncode == 0
    data = json.loads(files["skew_sol"].read_text())
    plan = data["plan"]
    plan["epochs"][2] = 2.0
    plan["deadlines"][1] = 2.0
    for key in ("comm", "comp"):
        plan[key] = [[[0.0, 1.0, 999999.0]], [[0.0, 1.0, 0.0]]]
    data["deadlines"] = plan["deadlines"]
    tampered = write(files["dir"] / "skew.tamper.json", data)
    proc = lpsched("check", str(files["skew"]), str(tampered))
    assert proc.stdout.splitlines() == [
        "deadlines (2) violated at app=(1,) by 1",
        "window (no activity outside [r_k, d_k]) violated at (app, worker, interval)=(1, 0, 1)"
        " by 1"]
    error_line(proc, "the plan violates 2 constraint(s); first: deadlines (2)", status=1,
               stdout=None)


# -- finding 5 --------------------------------------------------------------------------


def test_check_verifies_the_files_stretch(files):
    data = json.loads(files["portmix_1p"].read_text())
    data["stretch"] = 1.0
    tampered = write(files["dir"] / "stretch.tamper.json", data)
    proc = lpsched("check", str(files["portmix"]), str(tampered))
    assert proc.stdout.startswith("summary stretch 1 differs from the plan's 1.32")
    error_line(proc, "summary stretch", status=1, stdout=None)


# -- finding 7 --------------------------------------------------------------------------


def test_check_names_a_ragged_row(files):
    data = json.loads(files["portmix_1p"].read_text())
    data["plan"]["comm"][0][0].pop()
    ragged = write(files["dir"] / "ragged.json", data)
    error_line(lpsched("check", str(files["portmix"]), str(ragged)),
               "plan field 'comm': rows of unequal lengths")


@pytest.mark.parametrize(("argv", "named"), [
    (["solve", "{portmix}", "--memory", "lots"], "--memory lots: must be numbers"),
    (["solve", "{portmix}", "--memory", "1,2,3"], "3 values for 2 workers"),
    (["check", "{portmix}", "{portmix_1p}", "--memory", "-1"], "--memory -1: every value"),
])
def test_memory_errors_name_the_option(files, argv, named):
    args = [a.format(**{k: str(v) for k, v in files.items()}) for a in argv]
    line = error_line(lpsched(*args), named)
    assert "invalid instance" not in line


def test_base_bandwidth_errors_name_the_option():
    line = error_line(lpsched("generate", "bags", "--apps", "2", "--workers", "2",
                              "--base-bandwidth", "1e-300"),
                      "--base-bandwidth 1e-300: the generated platform.bandwidths[0]",
                      "the profile's default is 1.25e+07 bytes/s")
    assert not line.startswith("lpsched: error: invalid instance")


# -- finding 6: options that would be ignored ---------------------------------------------


@pytest.mark.parametrize(("argv", "named"), [
    (["solve", "{portmix}", "--plan"], "--plan: the plan is part of the --json output"),
    (["solve", "{portmix}", "--tol", "1e-3"], "--tol 0.001: the tolerance of --method "
     "bisection"),
    (["solve", "{portmix}", "--tol", "1e-3", "--json"], "--method intervals is exact"),
    (["simulate", "{portmix}", "--json", "--table"], "--json and --table: choose one"),
    (["schedule", "{portmix}", "--schedule"], "--schedule: the list of tasks"),
])
def test_ignored_options_are_errors(files, argv, named):
    args = [a.format(**{k: str(v) for k, v in files.items()}) for a in argv]
    error_line(lpsched(*args), named)


def test_tol_still_sets_the_bisection(files):
    data = one_json_object(lpsched("solve", str(files["portmix"]), "--method", "bisection",
                                   "--tol", "1e-3", "--json"))
    assert data["status"] == "within_tolerance"
    assert data["stretch"] == pytest.approx(1.32, abs=1e-3)


def test_plot_help_names_the_default_output():
    proc = lpsched("plot", "gantt", "--help")
    assert proc.returncode == 0 and proc.stderr == ""
    text = " ".join(proc.stdout.split())
    assert "default: gantt.png in the current folder; an existing file is replaced" in text


# -- finding 4: simulate's labels ---------------------------------------------------------


def test_simulate_names_the_bound_of_the_instances_model(files):
    proc = lpsched("simulate", str(files["latent"]), "--policy", "fifo-rr")
    assert proc.returncode == 0
    assert "LP lower bound on the max-stretch (K), multiport: " in proc.stdout
    assert "(K1)" not in proc.stdout
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(
        "lpsched: note: the LP lower bound (K) of the table ignores the link latencies")
    proc = lpsched("simulate", str(files["latent"]), "--policy", "fifo-rr", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["policy"] == "fifo-rr"
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(
        "lpsched: note: the LP lower bound (K) ('lp_bound') ignores the link latencies")
    assert "table" not in proc.stderr
