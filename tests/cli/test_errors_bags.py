"""The seed-003 commands against hostile instance files, options and output paths.

Bad input is exit 2 with exactly one line ``lpsched: error: ...`` naming the field or the
option, and nothing computed; a policy that cannot finish is a row, not an error; a valid
instance with 10^9 tasks gets an answer, not solver internals; JSON output is strict
(decisions 65-73). Cases that could hang or crash the interpreter run in a subprocess with
a timeout.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lpsched.cli import main
from lpsched.cli.common import dump_json
from tests.cli.test_cli_subprocess import lpsched

BASE: dict[str, Any] = {
    "platform": {"speeds": [3e8, 5e8, 1.1e8], "bandwidths": [1.4e5, 1.25e6, 6.25e5],
                 "master_bandwidth": None, "port": "one-port"},
    "applications": [
        {"release": 4.8, "tasks": 17, "work": 3.8e9, "size": 4.5e7},
        {"release": 27.6, "tasks": 14, "work": 5.2e9, "size": 8.5e7},
        {"release": 31.7, "tasks": 40, "work": 3.3e9, "size": 5.4e7},
        {"release": 41.3, "tasks": 10, "work": 9.0e9, "size": 1.3e8},
    ],
}


def doc(**changes: Any) -> dict[str, Any]:
    """A copy of BASE; ``platform__speeds=...`` or ``app0__work=...`` change one field."""
    data = json.loads(json.dumps(BASE))
    for key, value in changes.items():
        where, field = key.split("__")
        target = data["platform"] if where == "platform" else data["applications"][int(where[3:])]
        target[field] = value
    return data


def write(path: Path, content: bytes | str | dict) -> Path:
    if isinstance(content, dict):
        content = json.dumps(content)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def one_error_line(code: int, out: str, err: str, *named: str, status: int = 2) -> None:
    assert code == status, err
    assert out == "", f"something was computed: {out[:200]!r}"
    assert err.startswith("lpsched: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and "HiGHS" not in err
    for text in named:
        assert text in err, err


@pytest.fixture
def inst(tmp_path: Path) -> Path:
    return write(tmp_path / "inst.json", BASE)


# -- 1. input validation -----------------------------------------------------------------------
HOSTILE = {
    "bool-in-speeds": (doc(platform__speeds=[True, 5e8, 1.1e8]), "platform.speeds[0]"),
    "string-in-bandwidths": (doc(platform__bandwidths=[1.4e5, "1e6", 6.25e5]),
                             "platform.bandwidths[1]"),
    "null-in-speeds": (doc(platform__speeds=[3e8, None, 1.1e8]), "platform.speeds[1]"),
    "ragged-speeds": (doc(platform__speeds=[[1, 2, 3]] * 3 + [[1, 2]]), "different lengths"),
    "1e400": (json.dumps(doc(app0__work=12345.5)).replace("12345.5", "3.8e400"),
              "applications[0].work = 3.8e400"),
    "huge-integer": (json.dumps(BASE).replace('"tasks": 17', '"tasks": 1' + "0" * 400),
                     "applications[0].tasks"),
    "NaN": (json.dumps(BASE).replace('"tasks": 14', '"tasks": NaN'),
            "applications[1].tasks = NaN"),
    "Infinity": (json.dumps(doc(platform__master_bandwidth=math.inf)),
                 "platform.master_bandwidth = Infinity"),
    "not-utf8": (json.dumps(BASE).encode().replace(b"one-port", b"one\xffport"),
                 "not UTF-8 text (byte 0xff"),
    "nested": ("[" * 50_000 + "]" * 50_000, "nested too deeply"),
    "top-level-list": ("[1, 2]", "must be a JSON object"),
    "overflowing-ratio": (doc(platform__speeds=[1e-300, 5e8, 1.1e8]), "platform.speeds[0]"),
}


@pytest.mark.parametrize("command", ["solve", "throughput", "simulate", "schedule", "check"])
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_instances_are_one_line_naming_the_field(capsys, tmp_path, command, case):
    content, named = HOSTILE[case]
    path = write(tmp_path / "i.json", content)
    argv = [command, str(path)] + ([str(path)] if command == "check" else [])
    one_error_line(*run(capsys, *argv), named)


@pytest.mark.parametrize("command", ["solve", "simulate", "schedule"])
@pytest.mark.parametrize(("field", "value", "named"), [
    ("app0__work", 1e-308, "applications[0].work"),
    ("app0__size", 1e-308, "applications[0].size"),
    ("platform__bandwidths", [1e-308, 1.25e6, 6.25e5], "platform.bandwidths[0]"),
])
def test_tiny_values_are_rejected_at_load_not_a_hang(tmp_path, command, field, value, named):
    """1e-308 used to make the stretch bound's bracket search double forever."""
    path = write(tmp_path / "tiny.json", doc(**{field: value}))
    proc = lpsched(command, str(path))
    one_error_line(proc.returncode, proc.stdout, proc.stderr, named, "overflows")


def test_json_plan_files_are_read_strictly_too(capsys, tmp_path, inst):
    _, out, _ = run(capsys, "solve", str(inst), "--json", "--plan")
    plan = json.loads(out)
    plan["plan"]["stretch"] = math.nan
    bad = write(tmp_path / "plan.json", json.dumps(plan))  # Python writes NaN
    one_error_line(*run(capsys, "check", str(inst), str(bad)), "plan.stretch = NaN",
                   str(bad))


def test_every_familys_json_reader_is_hardened(capsys, tmp_path):
    """cli.common.read_json (approx reads its files with it) names the file and field."""
    bad = write(tmp_path / "tasks.json", b'{"cpu_times": [1, 2], "gpu_times": [1, NaN]}')
    one_error_line(*run(capsys, "approx", "hybrid", str(bad), "--cpus", "1", "--gpus", "1"),
                   str(bad), "gpu_times[1] = NaN")
    latin = write(tmp_path / "latin.json", b'{"times": [[1]], "note": "caf\xe9"}')
    one_error_line(*run(capsys, "approx", "moldable", str(latin), "--processors", "1"),
                   str(latin), "not UTF-8")


# -- 2. time limits ----------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["solve", "simulate", "schedule"])
@pytest.mark.parametrize("limit", ["-1", "0", "nan", "inf"])
def test_time_limit_is_validated(capsys, inst, command, limit):
    """-1, 0 and nan used to mean "no limit"; simulate and schedule had no option."""
    one_error_line(*run(capsys, command, str(inst), "--time-limit", limit), "--time-limit")


#: A compute-bound instance on which the bisection really bisects (its single-resource
#: bound is not the optimum).
BISECTED = {
    "platform": {"speeds": [2.876, 0.8604], "bandwidths": [4.769, 1.903],
                 "master_bandwidth": None, "port": "one-port"},
    "applications": [{"release": 8.467, "tasks": 16, "work": 0.624, "size": 3.891},
                     {"release": 16.554, "tasks": 14, "work": 2.922, "size": 1.984},
                     {"release": 8.184, "tasks": 11, "work": 1.864, "size": 2.541}],
}


def test_bisection_with_a_tolerance_below_one_ulp_ends(tmp_path):
    """tol 1e-17 is below one ulp of the stretch: the bisection looped forever."""
    path = write(tmp_path / "b.json", BISECTED)
    proc = lpsched("solve", str(path), "--method", "bisection", "--tol", "1e-17", "--json")
    assert proc.returncode == 0, proc.stderr
    exact = json.loads(lpsched("solve", str(path), "--json").stdout)["stretch"]
    assert json.loads(proc.stdout)["stretch"] == pytest.approx(exact, rel=1e-7)


# -- 3. strict JSON output ---------------------------------------------------------------------
def strict(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in JSON output: {text[:200]!r}")

    return json.loads(text, parse_constant=refuse)


def test_dump_json_maps_non_finite_numbers_inside_arrays_to_null():
    """Arrays went through json's ``default`` hook, after the NaN/inf cleaning."""
    text = dump_json({"a": np.array([1.0, np.nan, np.inf]), "b": np.float64(-np.inf),
                      "c": [np.float32(np.nan), np.int64(3)], "d": np.array([[np.nan]])})
    assert strict(text) == {"a": [1.0, None, None], "b": None, "c": [None, 3], "d": [[None]]}


def test_throughput_json_never_prints_nan_or_infinity(tmp_path):
    """``throughput --json`` printed NaN with exit 0 on a 1e-308 flop task; the installed
    command now either rejects the instance (one line, exit 2) or prints strict JSON."""
    for value in (1e-308, 1e-300, 1e300):
        path = write(tmp_path / f"w{value}.json", doc(app0__work=value))
        proc = lpsched("throughput", str(path), "--json")
        assert "NaN" not in proc.stdout and "Infinity" not in proc.stdout
        if proc.returncode == 0:
            data = strict(proc.stdout)
            assert all(v is None or math.isfinite(v) for v in data["throughputs"])
        else:
            one_error_line(proc.returncode, proc.stdout, proc.stderr, "applications[0].work")
    good = strict(lpsched("throughput", str(write(tmp_path / "g.json", BASE)), "--json").stdout)
    assert len(good["throughputs"]) == 4


def test_a_tiny_master_link_is_refused_naming_it(tmp_path):
    """Multiport with ``master_bandwidth: 1e-300`` must not print
    ``"dedicated_makespans": [null, ...]`` with exit 0 (``throughput``), nor ``solve`` blame
    ``applications[0].tasks``: every command refuses it at load, naming the field."""
    path = write(tmp_path / "m.json", doc(platform__port="multiport",
                                          platform__master_bandwidth=1e-300))
    for command in ("throughput", "solve"):
        proc = lpsched(command, str(path), "--json")
        one_error_line(proc.returncode, proc.stdout, proc.stderr, "platform.master_bandwidth",
                       "master link")
    ok = write(tmp_path / "ok.json", doc(platform__port="multiport",
                                         platform__master_bandwidth=1e-3))
    data = strict(lpsched("throughput", str(ok), "--json").stdout)
    assert all(v is not None and math.isfinite(v) for v in data["dedicated_makespans"])


# -- 4. 10^9 tasks -----------------------------------------------------------------------------
def test_a_billion_tasks_gets_an_answer_not_solver_internals(capsys, tmp_path):
    """Used to end in "HiGHS rejected the model 'max_stretch' (HighsStatus.kWarning)"."""
    path = write(tmp_path / "big.json", doc(app0__tasks=10**9))
    code, out, err = run(capsys, "solve", str(path), "--json", "--plan")
    assert code == 0 and err == "", err
    plan = tmp_path / "plan.json"
    plan.write_text(out)
    code, out, err = run(capsys, "check", str(path), str(plan))
    assert code == 0 and out.startswith("plan OK"), out + err
    # one record per task: the simulator and the schedule say so, in one line, at once
    one_error_line(*run(capsys, "simulate", str(path)), "records every task")
    one_error_line(*run(capsys, "schedule", str(path)), "records every task")


def test_makespans_too_far_apart_are_solved_apart(capsys, tmp_path):
    """Refused ("too far apart") until decision 250: the time scales are now solved apart,
    and an application 1e190 times longer than the others leaves them the optimal stretch
    they have without it."""
    path = write(tmp_path / "far.json", doc(app0__work=1e200))
    code, out, err = run(capsys, "solve", str(path), "--json")
    assert code == 0, err
    alone = doc()
    del alone["applications"][0]
    code0, out0, err0 = run(capsys, "solve", str(write(tmp_path / "rest.json", alone)),
                            "--json")
    assert code0 == 0, err0
    assert strict(out)["stretch"] >= strict(out0)["stretch"] * (1 - 1e-9)


# -- 5. per-policy outcomes --------------------------------------------------------------------
@pytest.fixture
def starved(tmp_path: Path, stalled_mwma_ms: None) -> Path:
    """Bounded multiport with a master bandwidth of 0.1 B/s (every policy's schedule ends
    near 1e10 s), and mwma-ms replaced by one that stops with an application unfinished
    (the ``stalled_mwma_ms`` fixture); every other policy finishes."""
    return write(tmp_path / "starved.json", doc(platform__port="multiport",
                                                platform__master_bandwidth=0.1))


def test_simulate_all_keeps_every_policys_result(capsys, starved):
    """Used to exit 2 on mwma-ms and discard the other 17 results."""
    code, out, err = run(capsys, "simulate", str(starved), "--policy", "all", "--json")
    assert code == 0 and err == "", err
    rows = strict(out)
    assert isinstance(rows, list) and len(rows) == 18
    by_name = {r["policy"]: r for r in rows}
    failed = by_name.pop("mwma-ms")
    assert failed["status"] == "failed" and "unfinished" in failed["reason"]
    assert failed["max_stretch"] is None and failed["valid"] is None
    assert all(r["status"] == "ok" and r["reason"] is None and r["valid"]
               for r in by_name.values())
    code, out, err = run(capsys, "simulate", str(starved), "--policy", "all")
    assert code == 0 and err == ""
    line = next(x for x in out.splitlines() if x.startswith("mwma-ms "))
    assert "FAILED" in line
    assert "mwma-ms failed: policy mwma-ms stopped with application" in out
    code, out, _ = run(capsys, "simulate", str(starved), "--policy", "mwma-ms", "--json")
    assert code == 0 and strict(out)["status"] == "failed"


# -- 6. output paths: checked before any work, written atomically ------------------------------
def test_generate_output_is_checked_first(capsys, tmp_path):
    one_error_line(*run(capsys, "generate", "bags", "-o", str(tmp_path)), "-o", "is a folder")
    missing = tmp_path / "no" / "i.json"
    one_error_line(*run(capsys, "generate", "bags", "-o", str(missing)), "does not exist")
    assert not missing.parent.exists()
    code, _, err = run(capsys, "generate", "bags", "--base-bandwidth", "nan", "-o",
                       str(tmp_path / "x.json"))
    one_error_line(code, "", err, "--base-bandwidth")


@pytest.mark.parametrize(("target", "named"), [
    ("no/such/folder/model.lp", "does not exist"),
    ("model.txt", "must end with .lp or .mps"),
    (".", "must end with .lp or .mps"),
])
def test_export_lp_target_is_checked_before_solving(tmp_path, inst, target, named):
    """Into a missing folder this was a segmentation fault, after the whole solve."""
    proc = lpsched("solve", str(inst), "--export-lp", target, cwd=tmp_path)
    one_error_line(proc.returncode, proc.stdout, proc.stderr, "--export-lp", named)


def test_export_lp_folder_target_and_atomic_write(capsys, tmp_path, inst, monkeypatch):
    folder = tmp_path / "model.lp"
    folder.mkdir()
    one_error_line(*run(capsys, "solve", str(inst), "--export-lp", str(folder)), "is a folder")
    target = tmp_path / "m.mps"
    code, _, _ = run(capsys, "solve", str(inst), "--export-lp", str(target))
    assert code == 0 and target.read_text().startswith("NAME")
    before = target.read_bytes()

    def broken(lp: Any, path: str) -> None:
        Path(path).write_text("NAME half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("lpsched.bags.maxstretch.results.write_model", broken)
    code, _, err = run(capsys, "solve", str(inst), "--export-lp", str(target))
    assert code == 2 and "No space left" in err
    assert target.read_bytes() == before  # the old file is intact
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inst.json", "m.mps", "model.lp"]


@pytest.mark.parametrize(("target", "named"), [
    ("g.jpg", "must end with .png or .pdf or .svg"),
    ("nope/g.png", "does not exist"),
])
@pytest.mark.parametrize("kind", ["gantt", "box"])
def test_plot_target_is_checked_before_any_work(capsys, tmp_path, inst, kind, target, named):
    source = str(inst) if kind == "gantt" else str(tmp_path / "no-results")
    one_error_line(*run(capsys, "plot", kind, source, "-o", str(tmp_path / target)),
                   "-o", named)


def test_plot_into_a_folder_and_atomic_write(capsys, tmp_path, inst, monkeypatch):
    folder = tmp_path / "g.png"
    folder.mkdir()
    one_error_line(*run(capsys, "plot", "gantt", str(inst), "-o", str(folder)),
                   "is a folder")
    target = tmp_path / "g.svg"
    target.write_text("old")
    import matplotlib.figure

    def broken(self: Any, path: str, **kwargs: Any) -> None:
        Path(path).write_text("<svg half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", broken)
    code, _, err = run(capsys, "plot", "gantt", str(inst), "-o", str(target))
    assert code == 2 and "No space left" in err
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.png", "g.svg", "inst.json"]


def test_reproduce_out_is_checked_before_any_cell(capsys, tmp_path):
    file = write(tmp_path / "results", "not a folder")
    one_error_line(*run(capsys, "reproduce", "cbs3m", "--instances", "1", "--out", str(file),
                        "--quiet"), "--out", "is a file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]
    one_error_line(*run(capsys, "reproduce", "cbs3m", "--instances", "0", "--out",
                        str(tmp_path / "r"), "--quiet"), "--instances")


def test_reproduce_reports_a_policy_that_cannot_finish(capsys, tmp_path, stalled_mwma_ms):
    """A policy that stops with work left (links of 0.01 B/s once made mwma-ms do so; the
    fixture stands in for it since that was fixed): the reproduction used to crash; now its
    rows say so and the tables count it, the other 17 policies still report."""
    out = tmp_path / "r"
    code, text, err = run(capsys, "reproduce", "cbs3m", "--instances", "1", "--profile", "mpi",
                          "--base-bandwidth", "1e-2", "--out", str(out), "--quiet")
    assert code == 0, err
    line = next(x for x in text.splitlines() if x.startswith("mwma-ms "))
    assert line.split()[1] == "-" and line.split()[-1] == "1"  # no statistics, 1 failed
    with open(out / "cbs3m_rows.csv", newline="") as fh:
        rows = {r["policy"]: r for r in csv.DictReader(fh)}
    assert len(rows) == 18 and rows["mwma-ms"]["status"] == "failed"
    assert "unfinished" in rows["mwma-ms"]["reason"]
    assert sum(r["status"] == "ok" for r in rows.values()) == 17


# -- plan files for `check` ------------------------------------------------------------------
def _plan_with(tmp_path: Path, inst: Path, change: Any) -> Path:
    proc = lpsched("solve", str(inst), "--json", "--plan")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    change(data["plan"])
    return write(tmp_path / "plan.json", data)


@pytest.mark.parametrize(("change", "named"), [
    (lambda p: p.update(apps=[0.5, 1, 2, 3]), "plan field 'apps'"),
    (lambda p: p.update(apps=[0, 1, 7, 3]), "plan field 'apps'"),
    (lambda p: p.update(apps=[0, 0, 1, 2]), "plan field 'apps'"),
    (lambda p: p["comm"][0][0].__setitem__(0, True), "plan field 'comm': True is not a number"),
    (lambda p: p["comp"][0].pop(), "plan field 'comp'"),
    (lambda p: p.update(stretch="2"), "plan field 'stretch'"),
    (lambda p: p.update(port="star"), "plan field 'port'"),
    (lambda p: p.pop("buffers"), "field 'buffers' missing"),
    (lambda p: p["epochs"].__setitem__(1, None), "plan field 'epochs': None is not a number"),
])
def test_check_reads_plan_files_strictly(tmp_path, inst, change, named):
    """`true` inside `comm` is not read as 1, `apps: [0.5, 1, 2]` does not pass as "plan OK"
    (0.5 truncated) and `apps: [0, 1, 7]` does not end in an IndexError (exit 3)."""
    plan = _plan_with(tmp_path, inst, change)
    proc = lpsched("check", str(inst), str(plan))
    one_error_line(proc.returncode, proc.stdout, proc.stderr, str(plan), named)


def test_check_still_accepts_the_plans_solve_writes(tmp_path, inst):
    plan = _plan_with(tmp_path, inst, lambda p: None)
    proc = lpsched("check", str(inst), str(plan))
    assert proc.returncode == 0 and proc.stdout.startswith("plan OK"), proc.stderr
