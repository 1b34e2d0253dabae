"""The compiled BACKFILL (``lpsched.ptg._backfill_c``, decision 641) against the Python loop
it replaces (:func:`lpsched.ptg.mapping.backfill_python`): the same start and end times and
the same processor sets, bit for bit, on the schedules of the 19 algorithms before BACKFILL
(random, FFT and Strassen problems on Table 1's clusters and on small ones where tasks
queue)."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.ptg import mapping
from lpsched.ptg.mapping import backfill, backfill_python
from lpsched.ptg.model import get_cluster
from lpsched.ptg.problem import Problem
from lpsched.ptg.registry import ALGORITHMS, run
from lpsched.ptg.schedule import PtgSchedule
from tests.ptg.helpers import random_problem_ptgs, small_cluster

compiled = pytest.mark.skipif(mapping._backfill_c is None,
                              reason="the extension lpsched.ptg._backfill_c is not built")


def _same(a: PtgSchedule, b: PtgSchedule) -> None:
    assert a.start.tobytes() == b.start.tobytes()
    assert a.end.tobytes() == b.end.tobytes()
    assert len(a.procs) == len(b.procs)
    for x, y in zip(a.procs, b.procs, strict=True):
        assert np.asarray(x).dtype == np.asarray(y).dtype
        assert np.array_equal(x, y)
    assert np.array_equal(a.alloc, b.alloc) and np.array_equal(a.order, b.order)


@compiled
@pytest.mark.parametrize(("seed", "cluster"), [(0, "chti"), (1, "grillon"), (2, 5), (3, 3),
                                                (4, "grelon")])
def test_compiled_backfill_equals_python(seed: int, cluster: str | int) -> None:
    c = small_cluster(cluster) if isinstance(cluster, int) else get_cluster(cluster)
    pb = Problem(random_problem_ptgs(seed, 2 + 2 * (seed % 3)), c, seed=seed)
    moved = 0
    for name in ALGORITHMS:
        raw = run(pb, name, check=False).before_backfill
        fast = backfill(raw, pb.flat[0], pb.P)
        _same(fast, backfill_python(raw, pb.flat[0], pb.P))
        moved += int((fast.start < raw.start).sum())
    assert moved > 0  # the comparison covers tasks BACKFILL moves


def test_pure_python_variable_runs_the_python_backfill(monkeypatch: pytest.MonkeyPatch,
                                                       ) -> None:
    pb = Problem(random_problem_ptgs(5, 3), get_cluster("chti"), seed=5)
    raw = run(pb, "cra-work", check=False).before_backfill
    monkeypatch.setenv("LPSCHED_PURE_PYTHON", "1")
    calls: list[int] = []
    real = mapping.backfill_python

    def spy(*args: object) -> PtgSchedule:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(mapping, "backfill_python", spy)
    _same(backfill(raw, pb.flat[0], pb.P), real(raw, pb.flat[0], pb.P))
    assert calls == [1]
