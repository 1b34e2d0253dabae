"""Measuring a whole command as a user runs it: one child process, its wall time, CPU time
(user + system) and peak resident memory, from ``wait4`` (no dependency).

Shared by the benchmark scripts of this folder (``from _measure import ...`` works when a
script is run as ``python benchmarks/<script>.py``: the script's folder is first on
``sys.path``).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Run:
    """One child's figures: wall and CPU seconds, peak resident memory (MB), its stdout."""

    wall: float
    cpu: float
    peak_mb: float
    stdout: bytes


def measure(argv: Sequence[str], cwd: str | None = None) -> Run:
    """Run ``argv`` to the end and measure it.

    The child's standard output and error go to temporary files (not pipes, so that
    ``wait4`` reaps the child itself and reports its own resource usage).

    Parameters
    ----------
    argv : sequence of str
        The command line (the first item an executable path).
    cwd : str, optional
        Its working folder.

    Returns
    -------
    Run
        Wall time (seconds), CPU time of the child (user + system, seconds), its peak
        resident set (MB, ``ru_maxrss``) and its standard output.

    Raises
    ------
    SystemExit
        When the command fails, with the end of its standard error.
    """
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(list(argv), stdout=out, stderr=err, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode:
            raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): "
                             f"{err.read().decode(errors='replace')[-800:]}")
        return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read())


def median_run(runs: Sequence[Run]) -> Run:
    """The medians of wall, CPU and peak memory over ``runs`` (stdout of the first)."""
    return Run(statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs),
               statistics.median(r.peak_mb for r in runs), runs[0].stdout)


def lpsched_command() -> list[str]:
    """The installed ``lpsched`` beside this interpreter (its venv), else on ``PATH``."""
    beside = Path(sys.executable).parent / "lpsched"
    found = str(beside) if beside.exists() else shutil.which("lpsched")
    if not found:
        raise SystemExit("the lpsched command is not installed (make demo, or pip install -e .)")
    return [sys.executable, found]


def compile_package(name: str = "lpsched") -> str:
    """Write the bytecode of every module of the installed package ``name`` (what ``pip
    install`` does, and what Python does on a first import unless
    ``PYTHONDONTWRITEBYTECODE`` is set), so that a measured command reads its modules
    compiled, as on a user's machine (decision 437). Files already compiled are kept.

    Parameters
    ----------
    name : str
        The package (``lpsched``), imported from this interpreter's path.

    Returns
    -------
    str
        One phrase for the output: the folder compiled.
    """
    import compileall
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return f"{name} not found: nothing compiled"
    folder = next(iter(spec.submodule_search_locations))
    compileall.compile_dir(folder, quiet=1)
    return f"bytecode of {folder} written (as pip install does)"


def load() -> str:
    """The load average (1, 5, 15 minutes) and the CPU count, as one phrase."""
    return f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs"
