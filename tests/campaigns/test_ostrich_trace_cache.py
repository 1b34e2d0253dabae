"""The LPC-EGEE trace of ``reproduce ostrich`` is parsed once per process and each of its two
campaign workloads (with and without dependencies) extracted once: the check and the five
replay cells share them, the rows are those of a parse and an extraction per cell, the
shared arrays are read-only, and a file rewritten in between is parsed again."""

from __future__ import annotations

import os

import numpy as np

from lpsched.campaigns import reproduce as exp
from lpsched.campaigns.extract import extract
from lpsched.core.swf import read_swf


def _write(path, jobs: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    lines = ["; MaxProcs: 140", "; UnixStartTime: 1091615532"]
    t = 0.0
    for j in range(jobs):
        t += float(rng.integers(0, 400))
        run = int(rng.integers(1, 3000))
        lines.append(f"{j + 1} {t:.0f} 0 {run} 1 -1 -1 1 -1 -1 1 {int(rng.integers(1, 6))} "
                     "1 -1 -1 -1 -1 -1")
    path.write_text("\n".join(lines) + "\n")


def _clear() -> None:
    exp._read_trace_cached.cache_clear()
    exp._egee_workload_cached.cache_clear()


def _cells(path: str) -> list[dict]:
    return [c for c in exp.ostrich_cells(path, instances=1) if c["part"] == "egee"]


def test_one_parse_for_the_check_and_the_replays(tmp_path, monkeypatch) -> None:
    path = tmp_path / "egee.swf"
    _write(path, 300, 1)
    expected = []
    for cell in _cells(str(path)):  # one parse per cell: the rows without the cache
        _clear()
        expected += exp.ostrich_cell(cell)
    calls, extractions = [], []

    def counting(p):
        calls.append(p)
        return read_swf(p)

    def extracting(trace, *args, **kwargs):
        extractions.append(args)
        return extract(trace, *args, **kwargs)

    monkeypatch.setattr(exp, "read_swf", counting)
    monkeypatch.setattr(exp, "extract", extracting)
    _clear()
    assert exp.check_trace(str(path)) == 300
    rows = [r for cell in _cells(str(path)) for r in exp.ostrich_cell(cell)]
    assert calls == [str(path)]
    assert sorted(a[2] for a in extractions) == [False, True]
    for row in rows + expected:
        row.pop("seconds")
    assert rows == expected


def test_the_shared_workload_is_read_only(tmp_path) -> None:
    path = tmp_path / "egee.swf"
    _write(path, 60, 4)
    _clear()
    w = exp._egee_workload(_cells(str(path))[0])
    assert not w.p.flags.writeable and not w.submit.flags.writeable
    assert all(not a.flags.writeable for a in w.job_data.values())
    assert exp._egee_workload(_cells(str(path))[0]) is w


def test_a_rewritten_trace_is_parsed_again(tmp_path) -> None:
    path = tmp_path / "egee.swf"
    _write(path, 50, 2)
    _clear()
    first = exp._read_trace(str(path))
    assert exp._read_trace(str(path)) is first
    _write(path, 80, 3)
    os.utime(path, ns=(1, 1))  # another modification time even within the clock's step
    again = exp._read_trace(str(path))
    assert again is not first
    assert again.columns["submit"].size == 80
