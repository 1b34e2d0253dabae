"""The compiled mask ``lpsched.batch._mask_c`` on inputs the random comparisons of
tests/batch/test_mask_kernel.py do not make.

A workload whose arrays are ``float32`` (a :class:`~lpsched.core.swf.Workload` built by a
caller, not read from SWF): the Python path simulates it, so the compiled one must too,
with the same schedule. :meth:`Mask.allocate` for a run rule called without the runs:
:func:`~lpsched.batch.allocation.allocate` finds them itself, so the kernel must not
silently refuse. A free count above the mask's: the kernel must never hand back ids that
are not free (its output array is ``numpy.empty``, and :meth:`Mask.begin` would then mark
those ids busy a second time). The tests skip when the extension is not built.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

from lpsched.batch import simulator
from lpsched.batch.allocation import BLOCK, allocate, block_counts
from lpsched.batch.line import PURE_PYTHON
from lpsched.batch.simulator import simulate_batch
from lpsched.core.swf import Workload

needs_c = pytest.mark.skipif(
    simulator._mask_c is None, reason="the compiled mask lpsched.batch._mask_c is not built: "
    "only the Python rules run, nothing to compare")


def _schedule(pure: bool, work: Workload, **kwargs: Any) -> tuple[list, list, list]:
    old = os.environ.get(PURE_PYTHON)
    os.environ[PURE_PYTHON] = "1" if pure else "0"
    try:
        sched, _ = simulate_batch(work, "easy", **kwargs)
    finally:
        if old is None:
            del os.environ[PURE_PYTHON]
        else:
            os.environ[PURE_PYTHON] = old
    return sched.start.tolist(), sched.end.tolist(), [p.tolist() for p in sched.procs]


@needs_c
def test_a_float32_workload_simulates_alike_both_ways() -> None:
    rng = np.random.default_rng(1)
    n = 40
    work = Workload(job=np.arange(n),
                    submit=np.sort(rng.uniform(0, 100, n)).astype(np.float32),
                    run=rng.uniform(1, 50, n).astype(np.float32),
                    size=rng.integers(1, 8, n).astype(np.int32),
                    estimate=rng.uniform(1, 80, n).astype(np.float32), processors=16)
    python = _schedule(True, work, alloc="becont")
    assert _schedule(False, work, alloc="becont") == python


@needs_c
@pytest.mark.parametrize("rule", ["becont", "cont", "becont-ff", "cont-ff"])
def test_a_run_rule_without_its_runs_finds_them(rule: str) -> None:
    free = np.ones(10, bool)
    kernel = simulator._mask_c.Mask(free, block_counts(free), None, rule, 10, 0, (), 20,
                                    BLOCK)
    got = kernel.allocate(3, 10)
    want = allocate(rule, free, 3)
    assert want is not None and got is not None, rule
    assert got.tolist() == want.tolist()


@needs_c
def test_an_overstated_free_count_never_gives_busy_ids() -> None:
    free = np.zeros(3000, bool)
    free[5] = True
    kernel = simulator._mask_c.Mask(free, block_counts(free), None, "basic", 3000, 0, (), 20,
                                    BLOCK)
    with pytest.raises(ValueError, match="total = 10 free processors, but the rule found 1"):
        kernel.allocate(4, 10)  # 10 claimed free, 1 is: an error, never busy ids
    with pytest.raises(ValueError, match="id 6 is not a free processor"):
        kernel.take(np.array([5, 6], np.int32))
    with pytest.raises(ValueError, match="id 5 is not a busy processor"):
        kernel.give(np.array([7, 5], np.int32))
    assert not free[7] and free[5]  # a refused call changes nothing
    with pytest.raises(ValueError, match="id 3000 is not a free processor"):
        kernel.take(np.array([3000], np.int32))
