"""The seed-003 commands at the installed ``lpsched`` command: ``solve``, ``check``,
``simulate``, ``generate bags``, ``reproduce cbs3m``, ``plot`` and ``policies``.

``solve`` poses its LPs as paths or buffers (``--formulation``) and runs the path master's
first solve by simplex or interior point (``--first-solve``, decision 452); ``check``
verifies a plan under one model (the instance's, or ``--port``'s) for both MS* and the
capacities, with per-application tolerances, and the file's summary against the plan;
``simulate`` names the bound of the instance's model; options that would be ignored are
errors; option errors name the option; ``reproduce cbs3m`` prints Tables 4-8, the CBS3M
dispatchers side by side and the seed-vs-ours table, and ``plot`` redraws its figures from
the store.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli_subprocess import lpsched, one_json_object

#: the installed command, beside the interpreter running the tests
LPSCHED = Path(sys.executable).with_name("lpsched")


# -- solve --formulation -------------------------------------------------------------------


def test_paths_and_buffers_give_one_optimum(tmp_path: Path) -> None:
    """Both LPs behind the search give the same optimal stretch; ``auto`` takes paths
    offline, and the JSON says which one ran."""
    inst = tmp_path / "b.json"
    made = lpsched("generate", "bags", "--profile", "balanced", "--apps", "8", "--workers",
                   "4", "--seed", "5", "-o", str(inst))
    assert made.returncode == 0, made.stderr
    out = {f: one_json_object(lpsched("solve", str(inst), "--json", "--formulation", f))
           for f in ("auto", "paths", "buffers")}
    assert out["auto"]["formulation"] == "paths" and out["buffers"]["formulation"] == "buffers"
    assert out["paths"]["stretch"] == pytest.approx(out["buffers"]["stretch"], rel=1e-7)
    assert out["auto"]["stretch"] == out["paths"]["stretch"]


def test_paths_refuse_a_memory_bound(tmp_path: Path) -> None:
    inst = tmp_path / "b.json"
    assert lpsched("generate", "bags", "--apps", "4", "--workers", "2", "--seed", "1",
                   "-o", str(inst)).returncode == 0
    p = lpsched("solve", str(inst), "--formulation", "paths", "--memory", "1e9")
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1
    assert "--formulation buffers" in p.stderr
    ok = lpsched("solve", str(inst), "--memory", "1e9", "--json")  # auto: buffers
    assert one_json_object(ok)["formulation"] == "buffers"


def test_paths_refuse_an_instance_counted_per_application(tmp_path: Path) -> None:
    """An application of 10^9 tasks: ``--formulation paths`` is refused in one line (exit 2),
    ``auto`` solves it with the buffer model."""
    from lpsched.bags import random_bags, save_instance
    from tests.bags.test_hardening import replaced

    inst = tmp_path / "huge.json"
    save_instance(replaced(random_bags(5, 3, seed=3), 0, tasks=10**9), str(inst))
    p = lpsched("solve", str(inst), "--formulation", "paths")
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1
    assert "--formulation buffers" in p.stderr
    assert one_json_object(lpsched("solve", str(inst), "--json"))["formulation"] == "buffers"


# -- solve --first-solve (decision 452) -------------------------------------------------


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LPSCHED), *args], capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("first_solve") / "b3.json"
    gen = _run("generate", "bags", "--profile", "balanced", "--apps", "20", "--workers", "10",
               "--seed", "3", "-o", str(path))
    assert gen.returncode == 0, gen.stderr
    return path


def _solve(instance: Path, *extra: str) -> dict[str, Any]:
    run = _run("solve", str(instance), "--json", "--plan", *extra)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    out: dict[str, Any] = json.loads(run.stdout)
    return out


def test_simplex_is_the_default_plan(instance: Path) -> None:
    default = _solve(instance)
    simplex = _solve(instance, "--first-solve", "simplex")
    for key in ("stretch", "lower", "iterations", "plan", "probes"):
        if key == "probes":  # their seconds differ from run to run
            assert ([{k: v for k, v in p.items() if k != "seconds"} for p in default[key]]
                    == [{k: v for k, v in p.items() if k != "seconds"} for p in simplex[key]])
        else:
            assert default[key] == simplex[key]


def test_ipm_gives_the_optimum_and_a_checked_plan(instance: Path) -> None:
    default = _solve(instance)
    run = _run("solve", str(instance), "--json", "--plan", "--first-solve", "ipm")
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    ipm = json.loads(run.stdout)
    assert ipm["stretch"] == pytest.approx(default["stretch"], rel=1e-7)
    assert ipm["formulation"] == "paths"
    result = instance.with_name("ipm.json")
    result.write_text(run.stdout)
    check = _run("check", str(instance), str(result))
    assert check.returncode == 0, check.stdout + check.stderr


def test_an_unknown_first_solve_is_an_argument_error(instance: Path) -> None:
    run = _run("solve", str(instance), "--first-solve", "barrier")
    assert run.returncode == 2
    assert run.stdout == ""
    assert "--first-solve" in run.stderr and "invalid choice: 'barrier'" in run.stderr


# -- check, simulate and the options of the bags commands ------------------------------


PORTMIX: dict[str, Any] = {  # one-port, unrelated speeds: its two port models differ
    "platform": {"speeds": [[10, 1], [1, 10]], "bandwidths": [1, 1], "port": "one-port"},
    "applications": [{"release": 0, "tasks": 10, "work": 10, "size": 0.6},
                     {"release": 0, "tasks": 10, "work": 10, "size": 0.6}]}
SKEW: dict[str, Any] = {  # MS* 1e6 s beside MS* 1 s on one worker
    "platform": {"speeds": [1], "bandwidths": [1000]},
    "applications": [{"release": 0, "tasks": 1000000, "work": 1, "size": 1},
                     {"release": 0, "tasks": 1, "work": 1, "size": 1}]}
LATENT: dict[str, Any] = {  # multiport, a bounded master, link latencies
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
    d = tmp_path_factory.mktemp("check")
    out = {"portmix": write(d / "portmix.json", PORTMIX), "skew": write(d / "skew.json", SKEW),
           "latent": write(d / "latent.json", LATENT), "dir": d}
    for name, argv in (("portmix_mp", ["--port", "multiport"]), ("portmix_1p", []),
                       ("skew_sol", [])):
        inst = out[name.split("_")[0]]
        proc = lpsched("solve", str(inst), "--json", "--plan", *argv)
        assert proc.returncode == 0, proc.stderr
        out[name] = write(d / f"{name}.json", json.loads(proc.stdout))
    return out


# -- check: one port model for MS* and the capacities (decision 231) -------------------


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


# -- check: per-application tolerances (decision 232) ----------------------------------


def test_check_fails_a_small_applications_deadline_miss(files):
    """skew.tamper.json: application 1 (MS* 1 s) finishes at 2 s, the plan says
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


# -- check: the file's summary against its plan (decision 233) ------------------------


def test_check_verifies_the_files_stretch(files):
    data = json.loads(files["portmix_1p"].read_text())
    data["stretch"] = 1.0
    tampered = write(files["dir"] / "stretch.tamper.json", data)
    proc = lpsched("check", str(files["portmix"]), str(tampered))
    assert proc.stdout.startswith("summary stretch 1 differs from the plan's 1.32")
    error_line(proc, "summary stretch", status=1, stdout=None)


# -- errors name the field or the option -----------------------------------------------


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


# -- options that would be ignored are errors (decision 234) -----------------------------


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


# -- simulate names the bound of the instance's model (decision 234) ---------------------


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


# -- reproduce cbs3m, plot and policies (decisions 318-321) ------------------------------


def _store(folder: Path, rows: list[tuple[Any, dict[str, Any]]]) -> Path:
    from lpsched.bags import reproduce as exp
    from lpsched.core import ResultStore

    folder.mkdir(parents=True, exist_ok=True)
    store = ResultStore(folder / "cbs3m.sqlite")
    for cell, row in rows:
        store.add(exp.EXPERIMENT, cell, [row], exp.ROW_SCHEMA)
    store.close()
    return folder


def _row(seed: int, policy: str, status: str = "ok", value: float | None = 2.0,
         bound: float = 1.5) -> dict[str, Any]:
    from lpsched.bags.reproduce import METRICS

    metrics = dict.fromkeys(METRICS, value)
    return {"seed": seed, "policy": policy, "status": status,
            "reason": None if status == "ok" else "policy stopped (test)",
            "lp_bound": bound, **metrics}


def test_plot_box_counts_and_names_failed_rows_instead_of_crashing(tmp_path):
    """A store holding a legitimately failed row (status failed, metrics NULL, as
    ``reproduce cbs3m`` documents) is counted and named, never a ``None / lp_bound`` crash
    (exit 3)."""
    rows = [((s, p, "simgrid", 12.5e6), _row(s, p)) for s in range(3)
            for p in ("fifo-mct", "cbs3m-edf-online")]
    rows.append(((3, "fifo-mct", "simgrid", 12.5e6), _row(3, "fifo-mct", "failed", None)))
    rows.append(((3, "cbs3m-edf-online", "simgrid", 12.5e6),
                 _row(3, "cbs3m-edf-online", "time_limit", None)))
    folder = _store(tmp_path / "res", rows)
    out = tmp_path / "box.png"
    proc = lpsched("plot", "box", str(folder), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert "2 run(s) that did not finish are not plotted" in proc.stderr
    assert "fifo-mct: 1" in proc.stderr and "cbs3m-edf-online: 1" in proc.stderr
    assert out.stat().st_size > 0


def test_reproduce_cbs3m_prints_the_seed_table_and_draws_the_figures(tmp_path):
    """``reproduce cbs3m`` on one MPI-profile instance (seconds): Tables 4-8, the CBS3M
    dispatchers side by side, Figures 5-10 (PNG and CSV) and the seed-vs-ours table, printed
    and written to cbs3m_vs_seed.csv; ``plot load`` redraws the figures from the store and
    their CSVs match the store's rows."""
    from lpsched.bags import reproduce as exp
    from lpsched.core import ResultStore

    out = tmp_path / "run"
    proc = lpsched("reproduce", "cbs3m", "--instances", "1", "--profile", "mpi", "--jobs", "1",
                   "--quiet", "--eager", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Table 4 — max-stretch / LP optimum (1 instances)" in proc.stdout
    assert "CBS3M dispatchers: lazy (spec §4.4) vs eager" in proc.stdout
    assert "Table 3 CBS3M EDF OFFLINE average" in proc.stdout and "003 L848" in proc.stdout
    assert ("cbs3m vs seed, 1 of 10 experiments (mpi profile): " in proc.stdout
            and "calibration rows apart: " in proc.stdout)
    _check_vs_seed_csv(out / "cbs3m_vs_seed.csv", proc.stdout)
    for n, metric in ((5, "max_stretch"), *((exp.FIGURE_OF[m], m) for m in exp.METRICS)):
        assert (out / f"fig{n}_{metric}.png").stat().st_size > 0
        assert (out / f"fig{n}_{metric}.csv").exists()
    store = ResultStore(out / "cbs3m.sqlite")
    rows = exp.select(store.rows(exp.EXPERIMENT, exp.ROW_SCHEMA), "lazy")
    store.close()
    assert len(rows) == 18  # the seed's 18; the 4 eager rows are in the store beside them
    assert exp.read_curve_csv(out / "fig8_makespan.csv") == exp.load_curves(rows, "makespan")
    assert exp.read_curve_csv(out / "fig5_max_stretch.csv") == exp.figure5_rows(rows)

    again = tmp_path / "redrawn"
    proc = lpsched("plot", "load", str(out), "-o", str(again), "--figure5")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert sorted(proc.stdout.split()) == sorted(
        str(again / f"fig{n}_{m}.{ext}") for n, m in
        ((5, "max_stretch"), *((exp.FIGURE_OF[m], m) for m in exp.METRICS))
        for ext in ("csv", "png"))
    for metric in exp.METRICS:
        name = f"fig{exp.FIGURE_OF[metric]}_{metric}.csv"
        assert (again / name).read_text() == (out / name).read_text()


def _check_vs_seed_csv(path: Path, printed: str) -> None:
    """The CSV holds one row per row of the printed table: every seed-003 manifest entry
    of ``cbs3m`` (and ``none``) by its ref, the verdicts as printed, Tables 4-8 not
    measured without a simgrid run."""
    import csv

    from lpsched.report.manifest import manifest

    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[:3] == ["ref", "source", "figure"]
    wanted = {e.id for e in manifest("003") if e.experiment in ("cbs3m", "none")}
    assert wanted <= {r["ref"] for r in rows}
    assert all(r["seed_line"].startswith("003 L") for r in rows)
    t4 = [r for r in rows if r["ref"] == "003-T4"]
    assert len(t4) == 18 * 5
    assert all(r["verdict"].startswith("not measured: no run of the simgrid") for r in t4)
    t3 = next(r for r in rows if r["figure"] == "Table 3 CBS3M EDF OFFLINE average")
    assert t3["ours"] and t3["ours"] in printed
    shown = printed.count("\n")
    assert shown >= len(rows)  # every row printed (long cells wrap onto more lines)


def test_reproduce_cbs3m_judges_both_profiles_of_one_store(tmp_path):
    """``reproduce all`` runs the mpi and the simgrid profiles into one store: the second
    run's table (printed, CSV, ``--json``'s ``vs_seed``) judges Table 3 from the first run
    and Tables 4-8 from its own, each at its size; at the default 100 Mbit/s the Tables
    4-8 rows are calibration (decision 36), counted apart."""
    import csv

    out = tmp_path / "both"
    first = lpsched("reproduce", "cbs3m", "--instances", "1", "--profile", "mpi", "--jobs",
                    "1", "--quiet", "--out", str(out))
    assert first.returncode == 0, first.stderr
    proc = lpsched("reproduce", "cbs3m", "--instances", "1", "--jobs", "1", "--quiet",
                   "--json", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    vs_seed = json.loads(proc.stdout)["vs_seed"]
    assert "1 of 1,000 instances; mpi profile: 1 of 10 experiments" in proc.stderr
    with (out / "cbs3m_vs_seed.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["ref"] for r in rows] == [r["ref"] for r in vs_seed["rows"]]
    t3 = next(r for r in rows if r["figure"] == "Table 3 CBS3M EDF OFFLINE average")
    assert t3["ours"] and t3["role"] == "validation"
    t4 = next(r for r in rows if r["figure"] == "Table 4 CBS3M_EDF_ONLINE avg")
    assert t4["ours"] and t4["role"] == "calibration"
    assert t4["verdict"].startswith("not measured: reduced run (1 of 1,000 instances)")


def test_plot_load_on_a_store_with_failed_rows(tmp_path):
    """Failed runs are counted and left out of the figures; the CSV behind each figure is
    the store's finished rows, binned (recomputed here from the rows)."""
    from lpsched.bags import reproduce as exp

    rows = [((s, p, "simgrid", 12.5e6), _row(s, p, value=2.0 + s + i, bound=1.0 + s))
            for s in range(4) for i, p in enumerate(("fifo-mct", "cbs3m-edf-online"))]
    rows.append(((4, "fifo-mct", "simgrid", 12.5e6),
                 _row(4, "fifo-mct", "invalid", None, bound=5.0)))
    rows.append(((4, "cbs3m-edf-online", "simgrid", 12.5e6),
                 _row(4, "cbs3m-edf-online", bound=5.0)))
    folder = _store(tmp_path / "res", rows)
    proc = lpsched("plot", "load", str(folder))
    assert proc.returncode == 0, proc.stderr
    assert "1 run(s) that did not finish are left out of the figures" in proc.stderr
    got = exp.read_curve_csv(folder / "fig6_max_stretch.csv")
    mct = [r for r in got if r["policy"] == "fifo-mct"]
    assert sum(r["instances"] for r in mct) == 4
    # loads 1..5 cut into 8 bins: one instance per bin (0, 2, 4, 6, 7); the last is the
    # failed run's, kept as a bin with no finished run
    assert [r["bin"] for r in mct] == [0, 2, 4, 6, 7]
    assert [r["instances"] for r in mct] == [1, 1, 1, 1, 0]
    assert [r["mean"] for r in mct[:4]] == [(2.0 + s) / (1.0 + s) for s in range(4)]


def test_plot_load_without_a_store_is_one_error_line(tmp_path):
    proc = lpsched("plot", "load", str(tmp_path))
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stdout == ""
    assert proc.stderr.startswith("lpsched: error: ") and "cbs3m.sqlite" in proc.stderr


def test_policies_lists_the_eager_variants_apart():
    """``policies --json`` stays the seed's 18 names; ``--variants`` adds the 4 eager CBS3M
    dispatchers, which the text listing marks."""
    import json

    proc = lpsched("policies", "--json")
    assert proc.returncode == 0 and proc.stderr == ""
    assert len(json.loads(proc.stdout)) == 18
    proc = lpsched("policies", "--json", "--variants")
    names = json.loads(proc.stdout)
    assert len(names) == 22 and "cbs3m-edf-online-eager" in names
    proc = lpsched("policies", "--family", "bags")
    assert proc.returncode == 0
    line = next(x for x in proc.stdout.splitlines() if x.startswith("cbs3m-edf-offline-eager"))
    assert "(variant)" in line


def test_reproduce_reading_options_reach_the_cells(tmp_path):
    """``--dd-request``, ``--greedy-switch`` and ``--arrivals`` are in every stored key, so
    a store is never read back under another reading; a bad value is one error line."""
    import sqlite3

    out = tmp_path / "r"
    proc = lpsched("reproduce", "cbs3m", "--instances", "1", "--profile", "mpi", "--jobs", "1",
                   "--quiet", "--dd-request", "idle", "--greedy-switch", "dispatch",
                   "--arrivals", "interarrival", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Table 3 CBS3M EDF OFFLINE average" in proc.stdout
    with sqlite3.connect(out / "cbs3m.sqlite") as db:
        keys = [k for (k,) in db.execute("select _cell from cbs3m")]
    assert len(keys) == 18
    assert all("dd_request=idle;switch=dispatch" in k and "interarrival" in k for k in keys)
    bad = lpsched("reproduce", "cbs3m", "--instances", "1", "--greedy-switch", "late",
                  "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and bad.stdout == ""
    assert "--greedy-switch" in bad.stderr


def test_cbs3m_help_names_the_registered_greedy_readings() -> None:
    """The help's defaults are written out (no scipy import when the parser is built):
    they must be the registered policies' readings."""
    from lpsched.bags.policies import greedy
    from lpsched.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices["reproduce"]
    cb = next(a for a in sub._actions if a.dest == "experiment").choices["cbs3m"]
    helps = {a.dest: a.help for a in cb._actions}
    assert f"default: {greedy.DD_REQUEST}," in helps["dd_request"]
    assert f"default: {greedy.SWITCH}," in helps["greedy_switch"]
