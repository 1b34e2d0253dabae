"""Small SWF traces for the tasks family (the project ships its own fixtures)."""

from __future__ import annotations

from pathlib import Path

import pytest

#: 8 jobs on a 16-processor machine over ~3 days: (submit, run, processors)
JOBS = [(0, 100, 4), (60, 3000, 2), (600, 50, 8), (3600, 20, 1), (7200, 86400, 4),
        (90000, 10, 2), (100000, 500, 16), (200000, 40, 1)]


def swf_text(jobs: list[tuple[int, int, int]] = JOBS, procs: int = 16) -> str:
    lines = ["; Version: 2.2", f"; MaxProcs: {procs}"]
    for i, (submit, run, q) in enumerate(jobs, start=1):
        lines.append(f"{i} {submit} 0 {run} {q} -1 -1 {q} {run * 2} -1 1 1 1 -1 -1 1 -1 -1")
    return "\n".join(lines) + "\n"


@pytest.fixture
def small_swf(tmp_path: Path) -> Path:
    path = tmp_path / "small.swf"
    path.write_text(swf_text())
    return path


@pytest.fixture
def busy_swf(tmp_path: Path) -> Path:
    """200 jobs in one day on 64 processors: queues form, redirections happen."""
    import numpy as np

    rng = np.random.default_rng(5)
    submit = np.sort(rng.uniform(0, 86400, 200)).astype(int)
    run = np.exp(rng.uniform(1, 10, 200)).astype(int)
    q = rng.choice([1, 2, 4, 8, 16], 200)
    path = tmp_path / "busy.swf"
    path.write_text(swf_text(list(zip(submit.tolist(), run.tolist(), q.tolist(),
                                      strict=True)), 64))
    return path
