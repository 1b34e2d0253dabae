"""An output interrupted while it is written (``SIGTERM``, Ctrl-C) leaves no temporary file.

``SIGTERM`` is turned into an exception that unwinds the command (exit 143, ``lpsched:
terminated``), Ctrl-C is exit 130 (``lpsched: interrupted``), and either way the hidden
temporary file beside the output (``.jobs.csv.XXXX.tmp``) is removed and the old output
kept (lpsched.cli.outputs, lpsched.cli).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from lpsched.cli import outputs
from lpsched.cli.outputs import atomic_output, remove_temporaries
from tests.cli.test_cli_subprocess import LPSCHED


def _trace(path: Path, jobs: int) -> Path:
    """A trace of small, spaced jobs: simulated at once, its jobs.csv is long to write."""
    with open(path, "w") as fh:
        fh.write("; MaxProcs: 64\n")
        for j in range(1, jobs + 1):
            fh.write(f"{j} {j * 100} -1 {1 + j % 50} {1 + j % 4} -1 -1 {1 + j % 4} 120 -1 "
                     "1 1 1 -1 -1 1 -1 -1\n")
    return path


def _writing(folder: Path) -> bool:
    """A temporary file with bytes in it: the output is being written."""
    for f in list(folder.iterdir()):
        try:
            if f.name.endswith(".tmp") and f.stat().st_size > 0:
                return True
        except FileNotFoundError:
            continue
    return False


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _trace(tmp_path_factory.mktemp("trace") / "light.swf", 150_000)


@pytest.mark.parametrize("sig, status, line", [
    (signal.SIGTERM, 143, "lpsched: terminated"),
    (signal.SIGINT, 130, "lpsched: interrupted"),
], ids=["SIGTERM", "SIGINT"])
def test_a_signal_while_the_output_is_written(tmp_path: Path, trace: Path, sig: int,
                                              status: int, line: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    for _ in range(5):  # a loaded machine may finish the write before the signal lands
        (out / "jobs.csv").write_text("the old schedule\n")
        proc = subprocess.Popen([LPSCHED, "batch", str(trace), "--out",
                                 str(out / "jobs.csv")], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)
        deadline = time.time() + 240
        while proc.poll() is None and time.time() < deadline and not _writing(out):
            time.sleep(0.001)
        if proc.poll() is None:
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        if proc.returncode != 0:
            break
    else:
        pytest.fail("the command ended five times before its output was caught being written")
    assert proc.returncode == status, (proc.returncode, err)
    assert err == line + "\n" and "Traceback" not in err
    assert sorted(f.name for f in out.iterdir()) == ["jobs.csv"]  # no temporary left
    assert (out / "jobs.csv").read_text() == "the old schedule\n"


def test_an_exception_in_the_block_removes_the_temporary(tmp_path: Path) -> None:
    target = tmp_path / "x.csv"
    target.write_text("old\n")
    with pytest.raises(KeyboardInterrupt), atomic_output(target) as fh:
        fh.write("half")
        raise KeyboardInterrupt
    assert sorted(f.name for f in tmp_path.iterdir()) == ["x.csv"]
    assert target.read_text() == "old\n" and remove_temporaries() == []


def test_remove_temporaries_removes_what_a_write_left(tmp_path: Path) -> None:
    """The CLI's last resort on exit: a temporary that no block removed (its generator
    never resumed) is removed by name."""
    target = tmp_path / "y.csv"
    manager = atomic_output(target)
    fh = manager.__enter__()
    fh.write("never finished")
    left = [f for f in tmp_path.iterdir() if f.name.endswith(".tmp")]
    assert len(left) == 1 and str(left[0]) in outputs._LIVE
    assert remove_temporaries() == [str(left[0])]
    assert list(tmp_path.iterdir()) == [] and not outputs._LIVE
    fh.close()
