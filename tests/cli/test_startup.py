"""Start-up (decisions 434-436): a command builds only its own family's parser.

The other families' modules are not imported, and everything a user sees stays as the whole
parser makes it: the help, the usage errors, the parsed options; ``import lpsched`` and the
core's light modules import neither the runner nor the store; the CLI asks for one BLAS
thread unless the user chose."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lpsched.cli import (
    COMMANDS,
    USER_THREADS,
    _command_name,
    _command_parser,
    build_parser,
    parse_command_line,
)
from lpsched.cli.reference import Command, markdown

LPSCHED = str(Path(sys.executable).parent / "lpsched")
FAMILIES = {"bags", "approx", "batch", "tasks", "campaigns", "ptg"}

SWF = """; MaxProcs: 4
1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1
2 1 -1 5 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1
"""


def _top(parser) -> dict:
    """The top-level subcommands of ``parser``: name -> subparser, in order."""
    return Command((), "", parser).children()


def test_the_table_of_commands_is_the_whole_parser_s():
    whole = [name for name in _top(build_parser()) if name != "reproduce"]
    assert list(COMMANDS) == whole


@pytest.mark.parametrize("name", list(COMMANDS))
def test_one_command_s_parser_is_the_whole_one_s(name):
    """Same help line, usage, options, defaults and help texts (the reference page's
    section of that command and of every subcommand under it)."""
    one = _command_parser([name])
    assert one is not None
    whole_help, whole_sub = _top(build_parser([name]))[name]
    one_help, one_sub = _top(one)[name]
    assert one_help == whole_help
    assert markdown(one_sub) == markdown(whole_sub)
    assert one_sub.format_help() == whole_sub.format_help()


@pytest.mark.parametrize(("argv", "name"), [
    (["batch", "t.swf"], "batch"),
    (["--verbose", "solve", "x"], "solve"),
    (["--solver-log", "batch", "tasks", "x"], "tasks"),  # batch is the log file
    (["--solver-log=log.txt", "online"], "online"),
    (["--solver", "log", "batch"], None),  # abbreviated: the whole parser reads it
    (["--he", "batch"], None),
    (["-h", "batch"], None),
    (["reproduce", "contiguity"], None),
    (["nope"], None),
    (["--solver-log"], None),
    ([], None),
])
def test_the_command_is_read_as_argparse_reads_it(argv, name):
    assert _command_name(argv) == name


def _whole(argv: list[str]) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of the whole parser on ``argv``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            build_parser(argv).parse_args(argv)
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv", [
    ["batch"],
    ["batch", "t.swf", "--policy", "nope"],
    ["batch", "t.swf", "--limit", "abc"],
    ["batch", "t.swf", "--bogus"],
    ["--verbose", "batch", "t.swf", "--processors"],
    ["approx", "moldable", "--nope"],
    ["batch", "--help"],
    ["online", "-h"],
    ["--help"],
])
def test_usage_errors_and_help_are_the_whole_parser_s(argv):
    assert_as_the_whole_parser(argv)


def assert_as_the_whole_parser(argv: list[str]) -> None:
    """The installed command on ``argv``, as a subprocess, exits, prints and complains
    exactly as the whole parser does (a usage error or a help, never a run)."""
    proc = subprocess.run([LPSCHED, *argv], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "80"})
    os.environ["COLUMNS"] = "80"
    try:
        expected = _whole(argv)
    finally:
        del os.environ["COLUMNS"]
    assert (proc.returncode, proc.stdout, proc.stderr) == expected
    assert proc.returncode in (0, 2)


def test_parsed_options_are_the_same(tmp_path):
    argv = ["--verbose", "batch", str(tmp_path / "t.swf"), "--policy", "fcfs", "--json"]
    one = vars(parse_command_line(argv))
    whole = vars(build_parser(argv).parse_args(argv))
    assert one == whole


def _imported(argv: list[str]) -> set[str]:
    """Every module a fresh interpreter has loaded after running the ``lpsched`` command
    line ``argv`` through :func:`lpsched.cli.main` (its output thrown away)."""
    code = ("import contextlib, io, json, sys; from lpsched.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    code = main(sys.argv[1:])\n"
            "print(json.dumps([code, sorted(sys.modules)]))")
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    code, modules = json.loads(proc.stdout)
    assert code == 0
    return set(modules)


def test_batch_imports_only_its_family(tmp_path):
    trace = tmp_path / "t.swf"
    trace.write_text(SWF)
    found = _imported(["batch", str(trace), "--json", "--out", str(tmp_path / "s.csv")])
    assert {"lpsched.cli.batch", "lpsched.batch.line", "numpy"} <= found
    others = {f"lpsched.cli.{f}" for f in FAMILIES - {"batch"}}
    unused = {"lpsched.core.runner", "lpsched.core.store", "concurrent.futures",
              "importlib.metadata"}
    assert not found & (others | unused), sorted(found & (others | unused))


def test_the_check_sees_another_family(tmp_path):
    found = _imported(["policies"])
    assert "lpsched.cli.bags" in found and "lpsched.cli.batch" not in found


def test_the_core_s_names_are_loaded_on_use():
    code = ("import sys, lpsched, lpsched.core.swf; "
            "print(sorted(m for m in ('lpsched.core.runner', 'lpsched.core.store', "
            "'concurrent.futures', 'importlib.metadata') if m in sys.modules)); "
            "from lpsched.core import ResultStore, run_cells; import lpsched.core as c; "
            "from lpsched.core.store import ResultStore as R; "
            "print(ResultStore is R, run_cells.__module__, c.runner.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[:2] == ["[]", "True lpsched.core.runner lpsched.core.runner"]


@pytest.mark.parametrize(("name", "given", "seen"), [
    (None, None, "1"), ("OPENBLAS_NUM_THREADS", "2", "2"),
    ("OMP_NUM_THREADS", "2", "unset"), ("GOTO_NUM_THREADS", "3", "unset")])
def test_one_blas_thread_unless_the_user_chose(name, given, seen):
    """What OpenBLAS reads in the command's process: ``1``, the user's own value, or
    nothing set when the user chose threads by another variable OpenBLAS reads."""
    env = {k: v for k, v in os.environ.items() if k not in USER_THREADS}
    if name is not None:
        env[name] = given
    code = ("import os, sys; from lpsched.cli import main; "
            "sys.argv = ['lpsched', 'policies']; import contextlib, io; "
            "f = io.StringIO(); ctx = contextlib.redirect_stdout(f); ctx.__enter__(); "
            "main(); ctx.__exit__(None, None, None); "
            "print(os.environ.get('OPENBLAS_NUM_THREADS', 'unset'), 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout.split()
    assert out[0] == seen


def test_version_verbose_names_the_batch_kernel() -> None:
    """``lpsched --version --verbose`` says which FCFS/EASY kernel ``batch`` runs
    (decision 443): the Python one, and why, under ``LPSCHED_PURE_PYTHON=1``."""
    env = {**os.environ, "LPSCHED_PURE_PYTHON": "1"}
    proc = subprocess.run([str(LPSCHED), "--version", "--verbose"], capture_output=True,
                          text=True, env=env, check=False)
    assert proc.returncode == 0 and proc.stderr == ""
    assert "lpsched-batch-kernel python (" in proc.stdout
    from lpsched.cli import COMPILED

    for label, _ in COMPILED:  # every compiled module, each on the Python path and why
        assert f"\n{label} python (" in proc.stdout
    plain = subprocess.run([str(LPSCHED), "--version", "--verbose"], capture_output=True,
                           text=True, env={k: v for k, v in os.environ.items()
                                           if k != "LPSCHED_PURE_PYTHON"}, check=True)
    for label, module in COMPILED:
        assert (f"\n{label} compiled" in plain.stdout or
                f"\n{label} python (the extension {module} is not built)" in plain.stdout)


def test_version_verbose_lists_every_compiled_module() -> None:
    """Every Cython source beside the packages (and the hand-written line kernel) is one
    line of ``--version --verbose``: a new compiled module cannot go unreported."""
    from lpsched.cli import COMPILED

    root = Path(__file__).resolve().parents[2] / "lpsched"
    sources = {".".join(("lpsched", *p.relative_to(root).with_suffix("").parts))
               for p in root.glob("*/_*_c.pyx")} | {"lpsched.batch._line_c"}
    assert sources == {module for _, module in COMPILED}
