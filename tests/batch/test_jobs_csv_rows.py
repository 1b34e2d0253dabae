"""The rows of ``jobs.csv``: the compiled formatter writes Python's text, byte for byte."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from lpsched.batch import batsim
from lpsched.batch.batsim import format_rows, interval_sets, number_text, write_jobs_csv
from lpsched.batch.line import PURE_PYTHON
from lpsched.batch.procsets import ProcSets
from lpsched.batch.simulator import simulate_batch
from lpsched.core.swf import Workload

compiled = pytest.mark.skipif(batsim._rows_c is None, reason="lpsched.batch._rows_c not built")

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.1, 1e16, 2.0**53, -(2.0**53), 2.0**53 + 2, 1e-300, 5e-324,
           1.7976931348623157e308, math.inf, -math.inf, math.nan, 123456789.125, 3600.0]


def _both(columns: list, texts: list[str], rows: int,
          monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    fast = format_rows(columns, texts, rows)
    with monkeypatch.context() as m:
        m.setenv(PURE_PYTHON, "1")
        slow = format_rows(columns, texts, rows)
    return fast, slow


@compiled
@pytest.mark.parametrize("seed", range(6))
def test_random_columns_give_python_text(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 300))
    floats = np.concatenate([rng.choice(SPECIAL, n // 2),
                             rng.normal(0, 10.0 ** rng.integers(-5, 12), n - n // 2)])
    rng.shuffle(floats)
    ints = rng.integers(-(2**62), 2**62, n)
    ints[: min(n, 3)] = [np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0][: min(n, 3)]
    words = [rng.choice(["", "a", "ünïcode", "x,y", "%d", "€"]) for _ in range(n)]
    counts = rng.integers(0, 4, n)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    lo = rng.integers(-50, 10**6, int(offsets[-1])).astype(np.int64)
    hi = lo + rng.integers(1, 4, lo.size)
    finite = np.where(np.isfinite(floats), floats, 7.5)
    columns = [ints, ("number", finite), floats, words, ("runs", offsets, lo, hi, 0)]
    texts = ["<", ",%s,", ",", "%%", "|", "\n"]
    fast, slow = _both(columns, texts, n, monkeypatch)
    assert fast == slow
    assert slow.count("\n") == n


def test_the_python_path_is_the_functions_it_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PURE_PYTHON, "1")
    values = np.array([3600.0, 0.25, -0.0, math.inf])
    runs = ProcSets.from_flat([[0, 4, 7, 8], [], [4, 7]])
    text = format_rows([("number", values[:3]), ("runs", runs.offsets, runs.lo, runs.hi, 0),
                        values[:3]], ["", ";", ";", "\n"], 3)
    assert text.splitlines() == [f"{number_text(v)};{s};{v!r}" for v, s in
                                 zip(values[:3].tolist(), interval_sets(runs, 0, 3),
                                     strict=True)]


@compiled
def test_runs_from_a_later_job(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = ProcSets.from_flat([[0, 4], [5, 6, 9, 12], [], [2, 3]])
    fast, slow = _both([("runs", runs.offsets, runs.lo.astype(np.int64),
                         runs.hi.astype(np.int64), 1)], ["", "\n"], 3, monkeypatch)
    assert fast == slow == "5 9-11\n\n2\n"


@compiled
@pytest.mark.parametrize(("value", "error"), [(math.inf, OverflowError), (math.nan, ValueError)])
def test_a_number_column_refuses_what_number_text_refuses(
        value: float, error: type[Exception], monkeypatch: pytest.MonkeyPatch) -> None:
    for pure in ("", "1"):
        monkeypatch.setenv(PURE_PYTHON, pure)
        with pytest.raises(error, match="cannot convert float"):
            format_rows([("number", np.array([1.0, value]))], ["", "\n"], 2)


@compiled
def test_bad_shapes_are_refused() -> None:
    with pytest.raises(ValueError, match="2 columns need 3 texts"):
        format_rows([np.zeros(1, np.int64), np.zeros(1)], ["", ""], 1)
    with pytest.raises(ValueError, match="a column of 1 values for 2 rows"):
        format_rows([np.zeros(1, np.int64)], ["", ""], 2)


@compiled
@pytest.mark.parametrize("seed", range(4))
def test_jobs_csv_is_the_same_either_way(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    n = 400
    run = np.round(rng.exponential(100.0, n), int(rng.integers(0, 3)))
    work = Workload(job=np.arange(1, n + 1), submit=np.sort(rng.uniform(0, 5e3, n)),
                    run=run, size=rng.integers(1, 9, n),
                    estimate=np.maximum(run * rng.uniform(0.5, 3.0, n), 1.0), processors=8)
    sched = simulate_batch(work, "easy", kill=True)[0]
    ids = {int(j): f"job-{j}" for j in work.job[::3]} if seed % 2 else None
    profiles = [f"p{j % 5}" for j in range(n)] if seed >= 2 else None
    texts = []
    for pure in ("", "1"):
        monkeypatch.setenv(PURE_PYTHON, pure)
        out = io.StringIO()
        write_jobs_csv(out, work, sched, profiles=profiles, ids=ids, workload_name="w,%0")
        texts.append(out.getvalue())
    assert texts[0] == texts[1]
    assert "WALLTIME_REACHED" in texts[0]


@compiled
def test_runs_outside_the_arrays_are_refused() -> None:
    runs = ProcSets.from_flat([[0, 4], [5, 6]])
    offsets, lo, hi = (a.astype(np.int64) for a in (runs.offsets, runs.lo, runs.hi))
    with pytest.raises(ValueError, match=r"runs of 2 rows for rows -1\.\.0"):
        format_rows([("runs", offsets, lo, hi, -1)], ["", "\n"], 2)
    with pytest.raises(ValueError, match=r"row 1: runs 1\.\.2 outside the 1 runs given"):
        format_rows([("runs", offsets, lo[:1], hi[:1], 0)], ["", "\n"], 2)


def test_a_lone_surrogate_is_written_as_python_writes_it() -> None:
    text = format_rows([["a\udc80b"]], ["<", ">"], 1)
    assert text == "<a\udc80b>"
