"""``lpsched batch`` shows progress on stderr when it is a terminal (decision 267)."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import numpy as np

from lpsched.batch.simulator import simulate_batch
from lpsched.cli.batch import batch_progress
from lpsched.core.swf import Workload

LPSCHED = Path(sys.executable).with_name("lpsched")  # the installed command


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def many_jobs(n: int = 9000) -> Workload:
    rng = np.random.default_rng(0)
    run = rng.integers(1, 100, n).astype(float)
    return Workload(job=np.arange(1, n + 1), submit=np.sort(rng.integers(0, 10 * n, n)) * 1.0,
                    run=run, size=rng.integers(1, 9, n), estimate=run.copy(), processors=16)


def test_progress_draws_a_line_on_a_terminal():
    stream = Tty()
    simulate_batch(many_jobs(), "easy",
                   progress=batch_progress(stream, after=0.0, every=0.0))
    text = stream.getvalue()
    assert text.startswith("\rbatch: ") and text.endswith("\n")
    assert "9,000/9,000 jobs started" in text.splitlines()[-1]
    assert text.count("\r") >= 2  # every 4,096 events, then the end


def test_no_progress_off_a_terminal_or_on_a_short_run():
    assert batch_progress(io.StringIO()) is None
    stream = Tty()
    simulate_batch(many_jobs(50), "easy", progress=batch_progress(stream))
    assert stream.getvalue() == ""  # ended before the first 2 s


def test_the_cli_prints_no_control_characters_into_a_pipe(tmp_path):
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 4\n1 0 0 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1\n"
                     "2 1 0 5 4 -1 -1 4 5 -1 1 1 1 -1 1 -1 -1 -1\n")
    res = subprocess.run([str(LPSCHED), "batch", str(trace), "--policy", "conservative",
                          "--alloc", "cont-ff"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert "\r" not in res.stderr and "\r" not in res.stdout
    assert res.stdout.startswith("conservative on ")


def test_the_cli_on_a_terminal_stays_quiet_when_fast(tmp_path):
    """With stderr a pseudo-terminal, a run shorter than 2 s draws nothing either."""
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 4\n1 0 0 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1\n")
    master, slave = pty.openpty()
    try:
        res = subprocess.run([str(LPSCHED), "batch", str(trace)], stdout=subprocess.PIPE,
                             stderr=slave, text=True, timeout=60)
        os.close(slave)
        slave = -1
        got = b""
        try:
            while chunk := os.read(master, 4096):
                got += chunk
        except OSError:
            pass
    finally:
        os.close(master)
        if slave >= 0:
            os.close(slave)
    assert res.returncode == 0
    assert b"batch:" not in got
    assert "makespan" in res.stdout
