"""``jobs.csv`` of a schedule whose times are not ``float64``.

:func:`lpsched.batch.batsim.write_jobs_csv` writes the stretch column as it computes it,
``(end - submit) / execution``: ``float32`` when the workload's and the schedule's times
are. Python's ``%r`` (the reference, ``LPSCHED_PURE_PYTHON=1``) writes those values; the
compiled writer (``lpsched.batch._rows_c``) must write the same text, not refuse the
column. Skipped when the extension is not built.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from lpsched.batch import batsim
from lpsched.batch.batsim import write_jobs_csv
from lpsched.batch.line import PURE_PYTHON
from lpsched.batch.schedule import BatchSchedule
from lpsched.batch.simulator import simulate_batch
from lpsched.core.swf import Workload


@pytest.mark.skipif(batsim._rows_c is None, reason="lpsched.batch._rows_c not built")
def test_a_float32_schedule_writes_the_same_csv_both_ways(
        monkeypatch: pytest.MonkeyPatch) -> None:
    f32 = np.float32
    work = Workload(job=np.array([1, 2]), submit=np.array([0.0, 1.0], f32),
                    run=np.array([10.0, 5.0], f32), size=np.array([2, 1]),
                    estimate=np.array([20.0, 5.0], f32), processors=2)
    sched = simulate_batch(work, "fcfs")[0]
    sched = BatchSchedule(sched.start.astype(f32), sched.end.astype(f32), sched.procs,
                          sched.failed, sched.killed)
    texts = []
    for pure in ("1", ""):
        monkeypatch.setenv(PURE_PYTHON, pure)
        out = io.StringIO()
        write_jobs_csv(out, work, sched)
        texts.append(out.getvalue())
    assert texts[1] == texts[0]
    assert texts[0].count("\n") == 3
