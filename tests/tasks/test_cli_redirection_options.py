"""The installed command, as a user runs it (issue 33 review): ``lpsched reproduce
redirection`` refuses --trace without --tune and --traces with it, before anything runs;
``lpsched tasks`` selects statuses with --status and run-0 jobs with --zero-run, as
``lpsched batch`` does (decision 380)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

LPSCHED = str(Path(sys.executable).parent / "lpsched")


@pytest.mark.parametrize("extra,named", [
    (["--trace", "KTH-SP2"], "--trace KTH-SP2: --trace names the trace of the tuning grids"),
    (["--tune", "--traces", "KTH-SP2"], "--traces KTH-SP2: the tuning grids (--tune) run "
     "on one trace"),
])
def test_trace_options_of_the_other_mode_are_refused(tmp_path: Path, extra: list[str],
                                                     named: str) -> None:
    out = tmp_path / "out"
    proc = subprocess.run([LPSCHED, "reproduce", "redirection", *extra, "--data",
                           str(tmp_path), "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"lpsched: error: {named}")
    assert len(proc.stderr.splitlines()) == 1
    assert not out.exists()  # refused before the output folder is made


def test_tasks_status_selects_statuses_only_and_zero_run_drops(tmp_path: Path) -> None:
    """``tasks`` as ``batch`` (decision 380): ``--status completed`` keeps a completed job
    of run time 0; ``--zero-run drop`` drops it, counted under the reason batch uses."""
    from tests.tasks.conftest import swf_text

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
