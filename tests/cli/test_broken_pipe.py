"""Standard output closed by its reader (``lpsched ... | head -1``): never a traceback.

Every command that prints (``lpsched --version --verbose | head -1`` once printed a
``BrokenPipeError`` traceback), ``--help`` of every subcommand and ``--version`` included, stops
quietly when its stdout is a pipe whose reader has gone: nothing on stderr, exit status 141
(128 + SIGPIPE, what a shell reports for ``seq 1 100000 | head -1``; module doc of
lpsched.cli), and no temporary file is left.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from lpsched.cli.reference import commands
from tests.cli.test_cli_subprocess import LPSCHED

SWF = """; MaxProcs: 8
1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 1 -1 -1
2 5 -1 50 2 -1 -1 2 60 -1 1 1 1 -1 -1 1 -1 -1
3 6 -1 30 8 -1 -1 8 60 -1 1 1 1 -1 -1 1 -1 -1
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["LPSCHED_DEBUG"] = ""
    return env


def into_closed_pipe(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``lpsched ARGV`` whose stdout is a pipe already closed by its reader."""
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run([LPSCHED, *argv], stdout=w, stderr=subprocess.PIPE, text=True,
                              cwd=cwd, timeout=300, env=_env(), check=False)
    finally:
        os.close(w)


def quiet_stop(p: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in p.stderr and "Exception ignored" not in p.stderr, p.stderr
    assert p.stderr == "", p.stderr
    assert p.returncode == 141, (p.returncode, p.stderr)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pipe")
    (folder / "t.swf").write_text(SWF)
    p = subprocess.run([LPSCHED, "generate", "bags", "--apps", "3", "--workers", "2", "-o",
                        "inst.json"], cwd=folder, capture_output=True, text=True,
                       env=_env(), check=False)
    assert p.returncode == 0, p.stderr
    return folder


PRINTING = [
    ("--version",), ("--version", "--verbose"), ("--help",), ("policies",),
    ("solve", "inst.json"), ("solve", "inst.json", "--json"),
    ("simulate", "inst.json", "--table"), ("swf-info", "t.swf"),
    ("swf-info", "t.swf", "--json"), ("batch", "t.swf", "--json"),
    ("batch", "t.swf", "--out", "-"), ("convert", "t.swf", "-o", "-", "--to", "batsim"),
    ("tasks", "t.swf", "--json"),
]


@pytest.mark.parametrize("argv", PRINTING, ids=" ".join)
def test_a_printing_command_stops_quietly(work: Path, argv: tuple[str, ...]) -> None:
    quiet_stop(into_closed_pipe(*argv, cwd=work))
    assert not [f for f in work.iterdir() if f.name.endswith(".tmp")]


def test_the_help_of_every_subcommand_stops_quietly(tmp_path: Path) -> None:
    words = [cmd.words for cmd in commands()]
    assert len(words) > 20
    for argv in words:
        quiet_stop(into_closed_pipe(*argv, "--help", cwd=tmp_path))


def test_head_in_a_shell_pipeline(work: Path) -> None:
    """What users type: ``| head -1`` reads one line and leaves; whether lpsched had
    written all before is a race, so 0 or 141, never a traceback."""
    for argv in ("--version --verbose", "policies", "swf-info t.swf", "solve inst.json"):
        p = subprocess.run(["bash", "-c", f"'{LPSCHED}' {argv} | head -1; "
                            "echo status=${PIPESTATUS[0]}"], cwd=work, capture_output=True,
                           text=True, env=_env(), timeout=300, check=False)
        assert p.stderr == "", p.stderr
        lines = p.stdout.strip().splitlines()
        assert len(lines) == 2 and lines[1] in ("status=0", "status=141"), p.stdout


def test_exit_statuses_are_documented() -> None:
    import lpsched.cli as cli

    doc = " ".join((cli.__doc__ or "").split())
    assert "``141`` standard output closed by its reader" in doc
    assert cli.STDOUT_CLOSED == 141 and cli.TERMINATED == 143
