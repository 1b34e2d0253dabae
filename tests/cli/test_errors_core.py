"""Errors, warnings and exit statuses as users meet them (decision 68): the installed
``lpsched`` in a subprocess, real stderr.

* warnings are summed up after a success (each different one in full, once) and never
  printed before an error;
* Python errors that bad input causes are one line and exit 2; an unexpected exception is
  one "internal error" line and exit 3 (the traceback with ``LPSCHED_DEBUG=1``);
* ``approx hybrid`` / ``approx moldable`` name the field and index of a bad time, and the
  options are range-checked;
* ``--json`` never prints NaN or Infinity.

Faults that no valid input can provoke (a warning storm, a ``MemoryError``, a bug) are
injected with a ``sitecustomize`` module on ``PYTHONPATH``, which Python imports before the
command runs: the command itself is untouched.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

LPSCHED = str(Path(sys.executable).with_name("lpsched"))


def lpsched(*argv: str, inject: str | None = None, tmp: Path | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    environ.pop("PYTHONWARNINGS", None)
    if inject is not None:
        assert tmp is not None
        site = tmp / "inject"
        site.mkdir(exist_ok=True)
        (site / "sitecustomize.py").write_text(textwrap.dedent(inject))
        environ["PYTHONPATH"] = os.pathsep.join(
            [str(site), *filter(None, [environ.get("PYTHONPATH")])])
    environ.update(env or {})
    return subprocess.run([LPSCHED, *argv], capture_output=True, text=True, timeout=300,
                          env=environ, check=False)


def one_error_line(proc: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """Exit ``code``, nothing on stdout, exactly one stderr line and no traceback."""
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr and "Warning" not in proc.stderr, proc.stderr
    assert proc.stdout == "", proc.stdout
    assert proc.stderr.endswith("\n") and proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr


def strict_json(text: str) -> Any:
    """Parse JSON, refusing the NaN / Infinity extensions Python's json module accepts."""
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in the JSON output")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture
def hybrid(tmp_path: Path) -> Path:
    path = tmp_path / "hybrid.json"
    path.write_text(json.dumps({"cpu_times": [4, 3, 1], "gpu_times": [1, 2, 4]}))
    return path


# ------------------------------------------------------------------ warnings

NOISY = """
    import numpy as np
    import lpsched.cli.approx as cli

    _command = cli._cmd_approx

    def noisy(args):
        for _ in range(12):
            np.array([1e308]) * 10  # RuntimeWarning: overflow encountered in multiply
        return _command(args)

    cli._cmd_approx = noisy
"""


def test_warnings_are_one_summary_line_after_a_success(tmp_path, hybrid):
    proc = lpsched("approx", "hybrid", str(hybrid), "--cpus", "1", "--gpus", "1", "--json",
                   inject=NOISY, tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr
    strict_json(proc.stdout)
    assert proc.stderr == ("lpsched: note: 12 numerical warnings (first: overflow encountered "
                           "in multiply)\n")


def test_warnings_are_not_printed_before_the_error_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"cpu_times": [1, -1], "gpu_times": [1, 1]}))
    proc = lpsched("approx", "hybrid", str(bad), "--cpus", "1", "--gpus", "1",
                   inject=NOISY, tmp=tmp_path)
    assert one_error_line(proc).startswith("lpsched: error: invalid instance: cpu_times[1]")


def test_a_real_user_warning_becomes_the_summary(tmp_path):
    """``--repair`` on a table whose work decreases warns that the guarantee is lost."""
    jobs = tmp_path / "m.json"
    jobs.write_text(json.dumps({"times": [[4.0, 1.0]]}))
    proc = lpsched("approx", "moldable", str(jobs), "--repair", "--json")
    assert proc.returncode == 0, proc.stderr
    assert strict_json(proc.stdout)["monotonic"] is False
    assert proc.stderr == ("lpsched: note: 1 warning (first: job 0: work decreases from 1 to "
                           "2 processors; the 3/2 guarantee does not hold)\n")


NOISY_CELLS = """
    import numpy as np
    import lpsched.bags.reproduce as exp

    _cell = exp.cell

    def cell(key):
        for _ in range(3):
            np.array([1e308]) * 10
        return _cell(key)

    cell.__module__, cell.__qualname__ = exp.__name__, "cell"  # picklable as exp.cell
    exp.cell = cell
"""


def test_warnings_of_worker_processes_are_summed_up_too(tmp_path):
    proc = lpsched("reproduce", "cbs3m", "--instances", "2", "--jobs", "2", "--quiet",
                   "--out", str(tmp_path / "out"), inject=NOISY_CELLS, tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lpsched: note: "), proc.stderr
    assert "numerical warnings (first: overflow encountered in multiply)" in lines[0]


VARIED = """
    import warnings
    import numpy as np
    import lpsched.cli.approx as cli
    from lpsched.errors import LpschedWarning

    _command = cli._cmd_approx

    def varied(args):
        for _ in range(3):
            np.array([1e308]) * 10
        warnings.warn("x" * 200 + " end of a long message", LpschedWarning)
        for k in range({distinct}):
            warnings.warn(f"distinct warning {{k}}", UserWarning)
        return _command(args)

    cli._cmd_approx = varied
"""


def test_every_different_warning_is_printed_in_full_after_a_success(tmp_path, hybrid):
    """Each different warning on its own line, in the order first met, with its count; a
    message far longer than a terminal line is printed whole."""
    proc = lpsched("approx", "hybrid", str(hybrid), "--cpus", "1", "--gpus", "1", "--json",
                   inject=VARIED.format(distinct=2), tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr
    strict_json(proc.stdout)
    assert proc.stderr.splitlines() == [
        "lpsched: note: 6 warnings:",
        "lpsched: note: - overflow encountered in multiply (3 times)",
        "lpsched: note: - " + "x" * 200 + " end of a long message",
        "lpsched: note: - distinct warning 0",
        "lpsched: note: - distinct warning 1"]


def test_a_flood_of_different_warnings_is_bounded(tmp_path, hybrid):
    """At most SHOWN_WARNINGS different warnings are printed; one line counts the rest."""
    from lpsched.cli import SHOWN_WARNINGS

    proc = lpsched("approx", "hybrid", str(hybrid), "--cpus", "1", "--gpus", "1",
                   inject=VARIED.format(distinct=500), tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if line.startswith("lpsched: note:")]
    assert notes[0] == "lpsched: note: 504 warnings:"
    assert len(notes) == 1 + SHOWN_WARNINGS + 1
    assert notes[-1] == (f"lpsched: note: - and {504 - 3 - 1 - (SHOWN_WARNINGS - 2)} more, "
                         f"of other kinds (the first {SHOWN_WARNINGS} different warnings are "
                         "shown)")


def test_lpsched_warnings_share_one_base_class():
    """A caller filters every warning lpsched issues on purpose with one class."""
    import warnings

    from lpsched.core.swf import SwfHeaderWarning
    from lpsched.errors import LpschedWarning

    assert issubclass(SwfHeaderWarning, LpschedWarning)
    assert issubclass(LpschedWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LpschedWarning)
        with pytest.raises(SwfHeaderWarning):
            warnings.warn("header given twice", SwfHeaderWarning, stacklevel=1)


# ------------------------------------------------------------------ Python errors

def raising(expression: str) -> str:
    return f"""
        import lpsched.cli.approx as cli

        def broken(args):
            {expression}

        cli._cmd_approx = broken
    """


@pytest.mark.parametrize(("expression", "expected"), [
    ("raise RecursionError('maximum recursion depth exceeded')", "nested too deeply"),
    ("b'\\xff'.decode('utf-8')", "not UTF-8 text (byte 0xff at offset 0)"),
    ("raise OverflowError('int too large to convert to float')", "outside the float range"),
    ("raise MemoryError()", "out of memory"),
    ("open('/nonexistent/in.json')", "/nonexistent/in.json: No such file or directory"),
])
def test_python_errors_of_bad_input_are_one_line_and_exit_2(tmp_path, hybrid, expression,
                                                            expected):
    proc = lpsched("approx", "hybrid", str(hybrid), "--cpus", "1", "--gpus", "1",
                   inject=raising(expression), tmp=tmp_path)
    line = one_error_line(proc, 2)
    assert line.startswith("lpsched: error: ") and expected in line, line


def test_an_unexpected_exception_is_an_internal_error_exit_3(tmp_path, hybrid):
    inject = raising("return 1 / 0")
    proc = lpsched("approx", "hybrid", str(hybrid), "--cpus", "1", "--gpus", "1",
                   inject=inject, tmp=tmp_path)
    line = one_error_line(proc, 3)
    assert line.startswith("lpsched: internal error: ZeroDivisionError: division by zero")
    assert "please report" in line and "LPSCHED_DEBUG=1" in line
    debug = lpsched("approx", "hybrid", str(hybrid), "--cpus", "1", "--gpus", "1",
                    inject=inject, tmp=tmp_path, env={"LPSCHED_DEBUG": "1"})
    assert debug.returncode == 1 and "Traceback" in debug.stderr
    assert "ZeroDivisionError" in debug.stderr


def test_unreadable_input_files_are_one_line(tmp_path):
    latin = tmp_path / "latin1.json"
    latin.write_bytes('{"cpu_times": [1], "gpu_times": [1], "name": "caf\xe9"}'.encode("latin-1"))
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    for path in (latin, deep):
        for argv in (["approx", "hybrid", str(path), "--cpus", "1", "--gpus", "1"],
                     ["approx", "moldable", str(path)]):
            one_error_line(lpsched(*argv), 2)


# ------------------------------------------------------------------ approx inputs

#: a number beyond the float range: refused by the JSON reader or by the approx checks
OUT_OF_RANGE = "float range|not a finite number"

HYBRID_BAD = [
    ({"cpu_times": [1, True, 3], "gpu_times": [1, 2, 3]}, "cpu_times[1] = True", "boolean"),
    ({"cpu_times": [1, 2, 3], "gpu_times": [1, "2", 3]}, "gpu_times[1] = '2'", "string"),
    ({"cpu_times": [1, None], "gpu_times": [1, 2]}, "cpu_times[1] = None", "null"),
    ({"cpu_times": [1, [2]], "gpu_times": [1, 2]}, "cpu_times[1] = [2]", "list"),
    ({"cpu_times": [1e308, 1e308], "gpu_times": [1, 1]}, "cpu_times[0] = 1e+308",
     r"at most 1e\+100"),
    ({"cpu_times": [1e-300, 1], "gpu_times": [1, 1]}, "cpu_times[0] = 1e-300", "at least"),
    ({"cpu_times": [10 ** 400], "gpu_times": [1]}, "cpu_times[0] = 1000", OUT_OF_RANGE),
    ({"cpu_times": [], "gpu_times": []}, "cpu_times = []", "at least one task"),
    ({"cpu_times": [1, 2], "gpu_times": [1]}, "gpu_times = [1]", "one time per task"),
    ({"tasks": [{"cpu": 1, "gpu": 2}, {"cpu": 3, "gpu": False}]}, "tasks[1].gpu = False",
     "boolean"),
    ({"tasks": [{"cpu": 1}]}, "tasks[0]", "'cpu' and 'gpu'"),
    ({"tasks": []}, "tasks = []", "non-empty"),
]


@pytest.mark.parametrize(("data", "field", "reason"), HYBRID_BAD)
def test_approx_hybrid_names_the_bad_time(tmp_path, data, field, reason):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    line = one_error_line(lpsched("approx", "hybrid", str(path), "--cpus", "2", "--gpus", "1",
                                  "--json"))
    assert field in line and re.search(reason, line), line


MOLDABLE_BAD = [
    ({"times": [[4, 2], [3, True]]}, "times[1][1] = True", "boolean"),
    ({"times": [[4, 2], [3, "3"]]}, "times[1][1] = '3'", "string"),
    ({"times": [[4, 2], [3]]}, "times[1] = [3]", "got 1"),
    ({"times": [[4, 2], 5]}, "times[1] = 5", "list of times"),
    ({"times": []}, "times = []", "at least one job"),
    ({"times": [[]]}, "times[0] = []", "non-empty"),
    ({"times": [[4, 2], [3, 1e400]]}, "times[1][1] = ", OUT_OF_RANGE),
    ({"times": [[1e308, 1e308]]}, "times[0][0] = 1e+308", r"at most 1e\+100"),
    ({"times": [[4, 2], [3, 10 ** 400]]}, "times[1][1] = 1000", OUT_OF_RANGE),
    ({"times": [[4, 2]], "processors": True}, "processors = True", "whole number"),
    ({"times": [[4, 2]], "processors": 0}, "processors = 0", "whole number"),
]


@pytest.mark.parametrize(("data", "field", "reason"), MOLDABLE_BAD)
@pytest.mark.parametrize("algorithm", ["mrt", "kshelf"])
def test_approx_moldable_names_the_bad_time(tmp_path, data, field, reason, algorithm):
    path = tmp_path / "m.json"
    text = json.dumps(data).replace("Infinity", "1e400")  # what a user's file would hold
    path.write_text(text)
    line = one_error_line(lpsched("approx", "moldable", str(path), "--algorithm", algorithm,
                                  "--json"))
    assert field in line and re.search(reason, line), line


@pytest.mark.parametrize("argv", [
    ["approx", "hybrid", "{hybrid}", "--cpus", "0", "--gpus", "1"],
    ["approx", "hybrid", "{hybrid}", "--gpus", "-3", "--cpus", "1"],
    ["approx", "hybrid", "{hybrid}", "--gpus", "10000000000000", "--cpus", "1"],
    ["approx", "moldable", "{moldable}", "--processors", "0"],
    ["approx", "moldable", "{moldable}", "--processors", "-2"],
    ["approx", "moldable", "{moldable}", "--eps", "0"],
    ["approx", "moldable", "{moldable}", "--eps", "nan"],
    ["approx", "moldable", "{moldable}", "--eps", "1.5"],
    ["check-ratios", "--trials", "0"],
    ["check-ratios", "--trials", "-5"],
    ["check-ratios", "--trials", "100000000"],
    ["check-ratios", "--seed", "-1"],
])
def test_option_ranges_are_checked(tmp_path, hybrid, argv):
    """The first option of each command line is the bad one; the error names it."""
    moldable = tmp_path / "m.json"
    moldable.write_text(json.dumps({"times": [[4, 2], [3, 3]]}))
    argv = [a.format(hybrid=hybrid, moldable=moldable) for a in argv]
    line = one_error_line(lpsched(*argv))
    option = next(a for a in argv if a.startswith("--"))
    assert line.startswith(f"lpsched: error: {option} "), line


def test_a_dynamic_program_too_large_is_refused_not_attempted(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"cpu_times": [1.0] * 1000, "gpu_times": [2.0] * 1000}))
    line = one_error_line(lpsched("approx", "hybrid", str(path), "--cpus", "10", "--gpus",
                                  "10", "--variant", "3/2"), 1)
    assert "dynamic program" in line and "variant '2'" in line


# ------------------------------------------------------------------ JSON output

@pytest.mark.parametrize(("argv", "data"), [
    (["approx", "hybrid", "{file}", "--cpus", "1", "--gpus", "1", "--schedule"],
     {"cpu_times": [0, 0, 2], "gpu_times": [3, 0, 0]}),
    (["approx", "hybrid", "{file}", "--cpus", "1", "--gpus", "2", "--variant", "3/2"],
     {"cpu_times": [1e100, 1e-100, 0, 5], "gpu_times": [1e-100, 1e100, 3, 0]}),
    (["approx", "moldable", "{file}", "--algorithm", "kshelf", "--schedule"],
     {"times": [[1e100, 1e100], [1e-100, 1e-100], [3, 2]]}),
    (["approx", "moldable", "{file}", "--repair", "--schedule"], {"times": [[4.0, 1.0]]}),
    (["check-ratios", "--trials", "2"], None),
])
def test_json_never_holds_nan_or_infinity(tmp_path, argv, data):
    path = tmp_path / "in.json"
    path.write_text(json.dumps(data))
    proc = lpsched(*[a.format(file=path) for a in argv], "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("\n") == 1
    strict_json(proc.stdout)


# -- output files: permissions, links, special files, unwritable file systems ----------------
def _generate(path: Path | str, seed: int = 1) -> subprocess.CompletedProcess[str]:
    return lpsched("generate", "bags", "--apps", "2", "--workers", "2", "--seed", str(seed),
                   "-o", str(path))


def test_outputs_get_the_usual_permissions_and_keep_existing_ones(tmp_path):
    """Atomically written outputs get ``0o666`` less the umask, never mkstemp's
    ``-rw-------``; a replaced file keeps its mode (decision 67)."""
    mask = os.umask(0o022)
    try:
        assert _generate(tmp_path / "new.json").returncode == 0
        assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o644
        (tmp_path / "new.json").chmod(0o640)
        assert _generate(tmp_path / "new.json", seed=2).returncode == 0
        assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(mask)


def test_a_symbolic_link_is_followed_and_kept(tmp_path):
    """The file a link points to is written, the link kept (not replaced by a regular file,
    its target left unchanged)."""
    (tmp_path / "link.json").symlink_to("real.json")
    assert _generate(tmp_path / "link.json").returncode == 0
    assert (tmp_path / "link.json").is_symlink()
    assert json.loads((tmp_path / "real.json").read_text())["platform"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_special_file_is_written_in_place(tmp_path):
    """An output that is a named pipe (or ``/dev/null``, a terminal) must be written
    through, not replaced by a rename (which, as root, would replace ``/dev/null`` by a
    regular file). A FIFO stands in for the device so a failure harms nothing."""
    import threading

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    proc = _generate(fifo)
    if proc.returncode != 0 or not fifo.exists() or not fifo.is_fifo():
        with open(fifo if fifo.is_fifo() else os.devnull, "wb"):
            pass  # release the reader
    reader.join(10)
    assert proc.returncode == 0, proc.stderr
    assert fifo.is_fifo()
    assert json.loads(got[0])["platform"]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc file system")
def test_a_file_system_that_refuses_files_fails_before_any_work(tmp_path):
    """``batch --out /proc/o.csv`` fails before the simulation (the probe of
    :func:`check_output`), naming the user's path, not a hidden temporary file."""
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 4\n" + " ".join(["1", "0", "0", "10", "2", "-1", "-1",
                                                   "2", "20"] + ["-1"] * 9) + "\n")
    err = one_error_line(lpsched("batch", str(trace), "--out", "/proc/o.csv"))
    assert "--out /proc/o.csv: cannot create a file in /proc" in err and ".tmp" not in err


@pytest.mark.parametrize(("argv", "named"), [
    (["solve", "x.json", "--time-limit=abc"], "--time-limit"),
    (["batch", "x.swf", "--processors", "2.5"], "--processors"),
    (["generate", "bags", "--seed", "-1"], "must be a whole number >= 0"),
    (["demo", "--seed", "-1"], "must be a whole number >= 0"),
    (["reproduce", "cbs3m", "--first-seed", "-1", "--out", "unused"],
     "must be a whole number >= 0"),
    (["no-such-command"], "invalid choice"),
])
def test_usage_errors_are_one_line(argv, named):
    """A usage error is one line, not argparse's 4-11 usage lines, and a negative seed is a
    usage error (exit 2), never numpy's exception (internal error, exit 3) in generate,
    demo and reproduce cbs3m."""
    err = one_error_line(lpsched(*argv))
    assert named in err and "--help" in err
