"""The batch family without its compiled modules: the Python paths run alone.

An install without Cython or a C compiler has no ``lpsched.batch._mask_c`` nor
``lpsched.batch._rows_c``: :mod:`lpsched.batch.simulator` and :mod:`lpsched.batch.batsim`
then hold ``None`` for them (simulated here with ``monkeypatch``). The simulator must say
so, run the Python rules with ``LPSCHED_PURE_PYTHON`` unset and give the schedule the
compiled mask gives; ``jobs.csv`` must be written by the ``%`` formatting, the same text.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from lpsched.batch import batsim, simulator
from lpsched.batch.batsim import write_jobs_csv
from lpsched.batch.line import PURE_PYTHON
from lpsched.batch.simulator import simulate_batch
from lpsched.batch.topology import kary_ntree
from lpsched.core.swf import Workload


def _work() -> Workload:
    rng = np.random.default_rng(7)
    n = 120
    run = rng.integers(1, 600, n).astype(float)
    return Workload(job=np.arange(1, n + 1), submit=np.sort(rng.integers(0, 3000, n)) * 1.0,
                    run=run, size=rng.integers(1, 12, n),
                    estimate=run * rng.uniform(0.8, 3.0, n), processors=64)


def _answer(work: Workload) -> tuple[list, list, list]:
    sched, _ = simulate_batch(work, "easy", alloc="quasi-contiguous", topology=kary_ntree(4, 3),
                              qct=20, blocked_head="kill-advanced")
    return sched.start.tolist(), sched.end.tolist(), [p.tolist() for p in sched.procs]


def test_without_the_mask_kernel_the_python_rules_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PURE_PYTHON, raising=False)
    work = _work()
    built = simulator._mask_c is not None
    compiled = _answer(work) if built else None
    monkeypatch.setattr(simulator, "_mask_c", None)
    assert simulator.mask_kernel_in_use() == \
        "python (the extension lpsched.batch._mask_c is not built)"
    python = _answer(work)
    assert len(python[0]) == work.jobs and not np.isnan(python[0]).any()
    if built:
        assert compiled == python


def test_without_the_rows_kernel_jobs_csv_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PURE_PYTHON, raising=False)
    work = _work()
    sched = simulate_batch(work, "easy", kill=True)[0]
    texts = []
    for kernel in (batsim._rows_c, None):
        monkeypatch.setattr(batsim, "_rows_c", kernel)
        out = io.StringIO()
        write_jobs_csv(out, work, sched)
        texts.append(out.getvalue())
    assert texts[0] == texts[1]
    assert texts[1].count("\n") == work.jobs + 1
