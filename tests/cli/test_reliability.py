"""Nothing lost, nothing false at the edges (decisions 250-256).

Each test holds one edge: time scales one LP cannot hold, instances far from the origin of
time, schedules below a proven bound, files a compiled library writes, the solver log as an
output, the runner's options and workers. It runs the installed ``lpsched`` console script
where the edge is a command-line one (stdout, stderr and exit status checked).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

LPSCHED = str(Path(sys.executable).with_name("lpsched"))


def run(*argv: str, cwd: Path | None = None, timeout: float = 60.0,
        preexec_fn: object = None) -> subprocess.CompletedProcess[str]:
    """The installed ``lpsched`` with ``argv`` (text output, no shell)."""
    return subprocess.run([LPSCHED, *argv], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, preexec_fn=preexec_fn,  # type: ignore[arg-type]
                          env={**os.environ, "LPSCHED_DEBUG": ""})


def assert_clean_error(p: subprocess.CompletedProcess[str], status: int, *words: str) -> None:
    """One ``lpsched: error:`` line on stderr naming ``words``, nothing on stdout."""
    assert p.returncode == status, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lpsched: error:"), p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""
    for w in words:
        assert w in lines[0], (w, lines[0])


# --- a DOT edge endpoint with an invalid escape (decision 256) ------------------------


@pytest.mark.parametrize("statement", ['"a\\q" -> "t0";', '"t0" -> "b\\x";',
                                       '"t\\q1" [work=1e9, alpha=0.1];'])
def test_dot_invalid_escape_is_a_parse_error(tmp_path: Path, statement: str) -> None:
    f = tmp_path / "g.dot"
    f.write_text('digraph g {\n  "t0" [work=1e9, alpha=0.1];\n  ' + statement + "\n}\n")
    p = run("ptg", "schedule", "--cluster", "grelon", str(f))
    assert_clean_error(p, 2, "g.dot:3", "invalid quoted id", "escape")


def test_dot_reader_raises_parse_error_on_edge_escape() -> None:
    from lpsched.errors import ParseError
    from lpsched.ptg.io import from_dot

    with pytest.raises(ParseError, match="invalid quoted id"):
        from_dot('"t0" [work=1, alpha=0];\n"a\\q" -> "t0";\n', "g")


# --- executor addresses and --jobs in every experiment (decision 255) ----------------


@pytest.mark.parametrize("option", [["--executor", "dask://"], ["--executor", "dask://h"],
                                    ["--executor", "dask://:8786"], ["--executor", "tcp://h:1"],
                                    ["--jobs", "0"], ["--jobs", "-1"]])
def test_cbs3m_refuses_bad_runner_options(tmp_path: Path, option: list[str]) -> None:
    p = run("reproduce", "cbs3m", "--instances", "1", "--out", str(tmp_path / "o"), *option,
            timeout=30)
    assert_clean_error(p, 2, option[0])
    assert not (tmp_path / "o").exists()  # refused before any work


def test_unreachable_dask_scheduler_is_reported_within_seconds(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    p = run("reproduce", "cbs3m", "--instances", "1", "--quiet", "--out", str(tmp_path / "o"),
            "--executor", f"dask://127.0.0.1:{port}", timeout=30)
    assert time.monotonic() - t0 < 10
    assert_clean_error(p, 2, "cannot connect", f"127.0.0.1:{port}")


def test_run_cells_refuses_bad_jobs_and_executor() -> None:
    from lpsched.core import ResultStore, run_cells
    from lpsched.errors import LpschedError

    for kw in ({"jobs": 0}, {"jobs": -3}, {"executor": "dask://"}, {"executor": "local2"}):
        with pytest.raises(LpschedError):
            run_cells("e", [1], _square, ResultStore(":memory:"), progress=False,
                      **kw)  # type: ignore[arg-type]


def _square(x: int) -> list[dict[str, int]]:
    return [{"x": x, "y": x * x}]


# --- workers end with their parent (decision 255) ------------------------------------


def _children(pid: int) -> set[int]:
    kids: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            kids |= {int(c) for c in (task / "children").read_text().split()}
    return kids


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"  # a zombie has exited


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_exit_when_the_parent_is_killed(tmp_path: Path) -> None:
    proc = subprocess.Popen([LPSCHED, "reproduce", "cbs3m", "--instances", "20", "--jobs",
                             "2", "--quiet", "--out", str(tmp_path / "o")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        workers: set[int] = set()
        while time.monotonic() < deadline and proc.poll() is None and len(workers) < 2:
            workers = _children(proc.pid)
            time.sleep(0.05)
        if proc.poll() is not None:
            pytest.skip("the run ended before its workers were seen")
        assert len(workers) >= 2
        proc.kill()  # the parent only, as kill -9 PID does
        proc.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(_gone(w) for w in workers):
            time.sleep(0.1)
        left = [w for w in workers if not _gone(w)]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert not left, f"workers {left} outlived their parent"


# --- what a compiled library writes is checked before it replaces a file (decisions 253-254)


@pytest.fixture(scope="module")
def bags_instance(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bags")
    p = run("generate", "bags", "--seed", "1", "-o", str(folder / "inst.json"))
    assert p.returncode == 0, p.stderr
    return folder / "inst.json"


def _file_size_limit(limit: int) -> object:
    def preexec() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return preexec


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE")
@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_export_lp_past_the_file_size_limit_fails_and_keeps_the_old_file(
        tmp_path: Path, bags_instance: Path, suffix: str) -> None:
    target = tmp_path / f"model{suffix}"
    target.write_text("the old model\n")
    p = run("solve", str(bags_instance), "--export-lp", str(target), cwd=tmp_path,
            preexec_fn=_file_size_limit(100_000))  # the model takes > 600 kB
    assert p.returncode != 0
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lpsched: error:"), p.stderr
    assert "incomplete" in lines[0] and str(target) in lines[0] and ".tmp" not in lines[0]
    assert target.read_text() == "the old model\n"
    assert sorted(f.name for f in tmp_path.iterdir()) == [target.name]  # no temporary left
    ok = run("solve", str(bags_instance), "--export-lp", str(target), cwd=tmp_path)
    assert ok.returncode == 0 and target.stat().st_size > 100_000


def test_atomic_path_refuses_a_truncated_file(tmp_path: Path) -> None:
    from lpsched.cli.outputs import atomic_path
    from lpsched.errors import LpschedError

    target = tmp_path / "fig.png"
    target.write_bytes(b"old")
    with pytest.raises(LpschedError, match="incomplete"), atomic_path(target) as tmp:
        Path(tmp).write_bytes(b"\x89PNG\r\n\x1a\n" + b"x" * 100)  # no IEND chunk
    with pytest.raises(LpschedError, match="empty"), atomic_path(target) as tmp:
        pass  # the writer wrote nothing
    with pytest.raises(LpschedError, match="mine"), atomic_path(
            target, check=lambda f: (_ for _ in ()).throw(LpschedError("mine"))) as tmp:
        Path(tmp).write_bytes(b"new")
    assert target.read_bytes() == b"old" and [f.name for f in tmp_path.iterdir()] == ["fig.png"]
    with atomic_path(target) as tmp:
        Path(tmp).write_bytes(b"\x89PNG...IEND\xaeB`\x82")
    assert target.read_bytes().endswith(b"IEND\xaeB`\x82")


def test_write_model_reports_an_incomplete_file(tmp_path: Path) -> None:
    from lpsched.errors import SolverError
    from lpsched.models.program import LinearProgram
    from lpsched.solvers import write_model
    from lpsched.solvers.highs import _check_model_file

    lp = LinearProgram(sense="max")
    x = lp.add_variables("x", 2, upper=1.0)
    lp.add_constraints("cap", [0, 0], x, [1.0, 1.0], upper=[1.5])
    lp.set_objective(x, 1.0)
    write_model(lp, str(tmp_path / "m.lp"))
    text = (tmp_path / "m.lp").read_text()
    (tmp_path / "cut.lp").write_text(text[: len(text) // 2])
    with pytest.raises(SolverError, match="incomplete"):
        _check_model_file(str(tmp_path / "cut.lp"))
    with pytest.raises(SolverError):
        write_model(lp, str(tmp_path / "no" / "such" / "m.lp"))


def test_solver_log_may_not_be_an_input(tmp_path: Path, bags_instance: Path) -> None:
    inst = tmp_path / "i.json"
    inst.write_bytes(bags_instance.read_bytes())
    before = inst.read_bytes()
    for log in (str(inst), "./i.json"):
        p = run("--solver-log", log, "solve", str(inst), cwd=tmp_path)
        assert_clean_error(p, 2, "--solver-log", "destroy the input")
        assert inst.read_bytes() == before
    p = run("--solver-log", "log.txt", "solve", str(inst), cwd=tmp_path)
    assert p.returncode == 0 and (tmp_path / "log.txt").stat().st_size > 0


# --- approx identical refuses an empty list as hybrid and moldable do (decision 256) ---


@pytest.mark.parametrize("extra", [[], ["--json"], ["--algorithm", "list"]])
def test_approx_identical_refuses_no_job(tmp_path: Path, extra: list[str]) -> None:
    f = tmp_path / "e.json"
    f.write_text('{"times": [], "machines": 2}')
    p = run("approx", "identical", str(f), *extra)
    assert_clean_error(p, 2, "times", "at least one job")


def test_list_scheduling_refuses_no_job() -> None:
    from lpsched.approx.listsched import list_scheduling, lpt
    from lpsched.errors import InvalidInstanceError

    for fn in (lpt, list_scheduling):
        with pytest.raises(InvalidInstanceError, match="at least one job"):
            fn([], 3)


# --- bags release dates far from 0 (decisions 251, 252) ------------------------------


def _shifted(src: Path, dst: Path, shift: float, only: int | None = None) -> Path:
    doc = json.loads(src.read_text())
    for k, a in enumerate(doc["applications"]):
        if only is None or k == only:
            a["release"] += shift
    dst.write_text(json.dumps(doc))
    return dst


@pytest.fixture(scope="module")
def small_bags(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("small")
    p = run("generate", "bags", "--seed", "3", "--apps", "6", "--workers", "4", "-o",
            str(folder / "s.json"))
    assert p.returncode == 0, p.stderr
    return folder / "s.json"


def test_simulate_after_a_huge_shift_stays_above_its_lp_bound(tmp_path: Path) -> None:
    """HEAD e863134: spt-mct 7.42 and srpt-mct 7.35 under their LP bound 10.49, "valid"."""
    base = tmp_path / "g3.json"
    assert run("generate", "bags", "--seed", "3", "-o", str(base)).returncode == 0
    f = _shifted(base, tmp_path / "g3s.json", 1e17)
    p = run("simulate", str(f), "--policy", "spt-mct,srpt-mct,cbs3m-edf-online", "--json")
    assert p.returncode == 0, p.stderr
    for row in json.loads(p.stdout):
        assert row["valid"] and row["max_stretch"] >= row["lp_bound"] * (1 - 1e-9), row
        assert row["makespan"] > 1e17  # an absolute date, as in the file


@pytest.mark.parametrize("shift", [1e9, 1e12, 1e15])
def test_schedule_op_ac_does_not_drift_with_a_shift(tmp_path: Path, small_bags: Path,
                                                    shift: float) -> None:
    base = json.loads(run("schedule", str(small_bags), "--json").stdout)
    f = _shifted(small_bags, tmp_path / "shifted.json", shift)
    p = run("schedule", str(f), "--json")
    assert p.returncode == 0, p.stderr
    moved = json.loads(p.stdout)
    assert moved["valid"]
    # the file's releases are the unshifted ones rounded to the spacing of the shift
    rel = 16 * np.spacing(shift) / min(base["max_flow"], 1e300)
    assert moved["max_stretch"] == pytest.approx(base["max_stretch"], rel=max(1e-9, rel))
    assert moved["lp_stretch"] == pytest.approx(base["lp_stretch"], rel=max(1e-9, rel))
    assert moved["makespan"] == pytest.approx(base["makespan"] + shift, rel=1e-15)


def test_a_release_too_far_from_the_others_is_refused(tmp_path: Path,
                                                      small_bags: Path) -> None:
    f = _shifted(small_bags, tmp_path / "far.json", 1e17, only=5)
    for cmd in ("solve", "simulate", "schedule"):
        p = run(cmd, str(f))
        assert_clean_error(p, 2, "applications[5].release", "MS*")


def test_rebased_instances_keep_their_dates(small_bags: Path) -> None:
    from lpsched.bags.io import instance_from_dict, instance_to_dict

    doc = json.loads(small_bags.read_text())
    plain = instance_from_dict(doc)
    assert plain.origin == 0.0  # dates of a few hundred seconds: kept
    shifted = json.loads(json.dumps(doc))
    for a in shifted["applications"]:
        a["release"] += 1e12
    inst = instance_from_dict(shifted)
    assert inst.origin == min(a["release"] for a in shifted["applications"])
    assert float(inst.release.min()) == 0.0
    assert instance_to_dict(inst) == shifted  # absolute dates back, exactly


def test_validate_refuses_a_schedule_below_a_proven_bound(small_bags: Path) -> None:
    from lpsched.bags.io import load_instance
    from lpsched.bags.maxstretch import max_stretch
    from lpsched.bags.reconstruct import reconstruct_op_ac
    from lpsched.bags.schedule import validate
    from lpsched.errors import InvalidScheduleError

    inst = load_instance(small_bags)
    res = max_stretch(inst)
    sched = reconstruct_op_ac(inst, res.plan).schedule
    validate(inst, sched, stretch_bound=res.stretch)
    with pytest.raises(InvalidScheduleError, match="proven lower bound"):
        validate(inst, sched, stretch_bound=res.stretch * 10)
    # a date of 1e19 s, built without the loader: the durations vanish in the dates, the
    # rules hold to their tolerance, the flow of 0 does not
    from lpsched.bags.instance import Application, Instance
    from lpsched.bags.platform import StarPlatform
    from lpsched.bags.schedule import Schedule

    far = Instance(StarPlatform([1.0, 1.0], [1.0, 1.0]), (Application(1e19, 2, 1.0, 1.0),))
    t = np.full(2, 1e19)
    zero = Schedule(np.array([0, 0]), np.array([0, 1]), t, t + 1.0, t + 1.0, t + 2.0)
    with pytest.raises(InvalidScheduleError, match="bound"):
        validate(far, zero)


# --- 10^9 tasks beside applications of 10-50 tasks (decision 250) --------------------


@pytest.mark.parametrize("shift", [0.0, 1e14])
def test_a_billion_tasks_beside_small_applications_is_solved(tmp_path: Path,
                                                             bags_instance: Path,
                                                             shift: float) -> None:
    """Refused on HEAD e863134 ("closer than one LP can tell apart"): the time scales are
    solved apart (decision 250) and the plan of the whole instance passes ``check``."""
    doc = json.loads(bags_instance.read_text())
    doc["applications"][3]["tasks"] = 10**9
    for a in doc["applications"]:
        a["release"] += shift
    f = write_json(tmp_path / "giant.json", doc)
    p = run("solve", str(f), "--json", "--plan")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    res = json.loads(p.stdout)
    assert res["status"] in ("optimal", "within_tolerance")
    assert res["lower"] <= res["stretch"] <= res["lower"] * (1 + 1e-6)
    plan = write_json(tmp_path / "plan.json", res)
    c = run("check", str(f), str(plan))
    assert c.returncode == 0 and c.stdout.startswith("plan OK"), c.stdout + c.stderr
    without = dict(doc, applications=[a for k, a in enumerate(doc["applications"]) if k != 3])
    small = json.loads(run("solve", str(write_json(tmp_path / "small.json", without)),
                           "--json").stdout)
    assert res["stretch"] == pytest.approx(small["stretch"], rel=1e-9)  # the small ones set S*


def write_json(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc))
    return path
