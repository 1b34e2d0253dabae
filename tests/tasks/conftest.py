"""Small SWF traces for the tasks family (the project ships its own fixtures)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

#: 8 jobs on a 16-processor machine over ~3 days: (submit, run, processors)
JOBS = [(0, 100, 4), (60, 3000, 2), (600, 50, 8), (3600, 20, 1), (7200, 86400, 4),
        (90000, 10, 2), (100000, 500, 16), (200000, 40, 1)]
#: three jobs of 12, 8 and 4 processors: on 4 processors two are too wide
WIDE_JOBS = [(0, 600, 12), (60, 300, 8), (120, 1200, 4)]
#: (status, run time) of :func:`kth_like`'s jobs, in submission order
STATUS_JOBS = [(1, 100), (1, 0), (0, 50), (5, 40), (1, 30), (-1, 20), (1, 0), (0, 0),
               (1, 70), (1, 10)]


def swf_text(jobs: list[tuple[int, int, int]] = JOBS, procs: int = 16) -> str:
    lines = ["; Version: 2.2", f"; MaxProcs: {procs}"]
    for i, (submit, run, q) in enumerate(jobs, start=1):
        lines.append(f"{i} {submit} 0 {run} {q} -1 -1 {q} {run * 2} -1 1 1 1 -1 -1 1 -1 -1")
    return "\n".join(lines) + "\n"


def kth_like(tmp_path: Path, jobs: list[tuple[int, int]] = STATUS_JOBS, days: float = 30.0,
             seed: int = 1) -> Path:
    """A trace named like Table 3.1's KTH-SP2 (so Table 3.1's row and 15-day window
    apply), MaxProcs 100, ``jobs`` (status, run time) repeated 12 times over ``days`` with
    processors 1-8."""
    rng = np.random.default_rng(seed)
    lines = ["; Version: 2.2", "; MaxProcs: 100"]
    reps = 12
    submit = np.sort(rng.uniform(0, days * 86400, len(jobs) * reps)).astype(int)
    for i, t in enumerate(submit.tolist()):
        status, run = jobs[i % len(jobs)]
        run = run * int(rng.integers(1, 40)) if run else 0
        q = int(rng.integers(1, 9))
        lines.append(f"{i + 1} {t} 0 {run} {q} -1 -1 {q} {run * 2 + 1} -1 {status} 1 1 -1 "
                     "-1 1 -1 -1")
    path = tmp_path / "KTH-SP2-1996-2.1-cln.swf"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def small_swf(tmp_path: Path) -> Path:
    path = tmp_path / "small.swf"
    path.write_text(swf_text())
    return path


@pytest.fixture
def wide_swf(tmp_path: Path) -> Path:
    """:data:`WIDE_JOBS` on a 16-processor machine."""
    path = tmp_path / "wide.swf"
    path.write_text(swf_text(WIDE_JOBS, 16))
    return path


@pytest.fixture
def busy_swf(tmp_path: Path) -> Path:
    """200 jobs in one day on 64 processors: queues form, redirections happen."""
    rng = np.random.default_rng(5)
    submit = np.sort(rng.uniform(0, 86400, 200)).astype(int)
    run = np.exp(rng.uniform(1, 10, 200)).astype(int)
    q = rng.choice([1, 2, 4, 8, 16], 200)
    path = tmp_path / "busy.swf"
    path.write_text(swf_text(list(zip(submit.tolist(), run.tolist(), q.tolist(),
                                      strict=True)), 64))
    return path
