"""The compiled FCFS/EASY kernel ``lpsched.batch._line_c`` gives the Python kernel's answers
(decisions 443–449).

Both kernels of :func:`lpsched.batch.line._simulate_line` run on the same workloads (the
compiled one by default, the Python one with ``LPSCHED_PURE_PYTHON=1``) and must agree on
every start, end, processor run, first reservation, event count, progress call and error
message: random workloads (ties of submissions and of ends, zero run times, zero sizes,
jobs of the whole machine, estimates below the run time with and without kill, infinite
estimates and run times, NaN and negative times), the shared traces (skipped without
../shared/data; Curie is ``slow``) and the installed command. The comparisons skip, saying
why, when the extension is not built (no C compiler at install time): the Python kernel
is then the only one and the other tests of tests/batch hold it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.batch import line
from lpsched.batch.simulator import _machine
from lpsched.core.swf import Workload, read_swf, to_workload
from lpsched.errors import LpschedError
from tests.shared_data import shared_file

LPSCHED = str(Path(sys.executable).parent / "lpsched")
BUILT = line._line_c is not None
needs_c = pytest.mark.skipif(
    not BUILT, reason="the compiled kernel lpsched.batch._line_c is not built (no C compiler "
    "or Python headers at install time): only the Python kernel runs, nothing to compare")


def _run(work: Workload, policy: str, kill: bool, pure: bool, m: int | None = None,
         ) -> tuple[Any, ...]:
    """One kernel's whole answer: the schedule's arrays, the first reservations, the event
    count and the progress calls, or the error's type and message with the calls before."""
    old = os.environ.get(line.PURE_PYTHON)
    os.environ[line.PURE_PYTHON] = "1" if pure else "0"
    calls: list[tuple[int, int, float]] = []
    try:
        if BUILT:
            assert line.kernel_in_use() == ("compiled" if not pure else
                                            f"python ({line.PURE_PYTHON} is set)")
        if m is None:
            m = _machine(work, None, None)[1]
        try:
            sched, extra = line._simulate_line(work, policy, m, kill,
                                               lambda *a: calls.append(a))
        except LpschedError as exc:
            return ("error", type(exc), str(exc), calls)
    finally:
        if old is None:
            del os.environ[line.PURE_PYTHON]
        else:
            os.environ[line.PURE_PYTHON] = old
    return (sched.start.tobytes(), sched.end.tobytes(), sched.procs.offsets.tobytes(),
            sched.procs.lo.tobytes(), sched.procs.hi.tobytes(), sched.failed.tobytes(),
            sched.killed.tobytes(), extra["first_reservation"].tobytes(), extra["events"],
            calls)


def _same(work: Workload, policy: str, kill: bool = False, m: int | None = None) -> tuple:
    """Both kernels' answers, asserted equal byte for byte; returns the answer."""
    c, py = _run(work, policy, kill, False, m), _run(work, policy, kill, True, m)
    assert len(c) == len(py)
    for k, (a, b) in enumerate(zip(c, py, strict=True)):
        assert a == b, f"item {k} differs"
    return c


def _random_work(seed: int) -> Workload:
    """A workload full of ties and edge cases (small integer times, the whole machine)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    m = int(rng.integers(1, 65))
    submit = np.sort(rng.integers(0, int(rng.integers(1, 400)), n)).astype(float)
    run = rng.integers(0, 60, n).astype(float)  # zero run times, equal ends
    if rng.random() < 0.5:
        run = np.round(rng.exponential(30.0, n), int(rng.integers(0, 3)))
    size = rng.integers(1, m + 1, n)
    size[rng.random(n) < 0.1] = m  # the whole machine
    size[rng.random(n) < 0.05] = 0
    estimate = run * rng.choice([0.5, 1.0, 1.0, 2.0, 5.0], n)  # some below the run time
    estimate[rng.random(n) < 0.05] = -1.0  # clipped to 0
    if rng.random() < 0.2:
        estimate[rng.random(n) < 0.05] = np.inf
    if rng.random() < 0.3:  # submissions out of order (the kernel sorts them, stably)
        submit = rng.permutation(submit)
    return Workload(job=np.arange(1, n + 1), submit=submit, run=run, size=size,
                    estimate=estimate, processors=m)


@needs_c
@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("policy", ["easy", "fcfs"])
def test_random_workloads_same_answers(seed: int, policy: str) -> None:
    work = _random_work(seed)
    _same(work, policy)
    _same(work, policy, kill=True)


@needs_c
@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 12), st.integers(0, 6),
                          st.integers(0, 15)), min_size=1, max_size=40),
       st.integers(1, 6), st.sampled_from(["easy", "fcfs"]), st.booleans())
def test_hypothesis_workloads_same_answers(jobs: list[tuple[int, int, int, int]], m: int,
                                           policy: str, kill: bool) -> None:
    submit, run, size, estimate = (np.array(col) for col in zip(*jobs, strict=True))
    work = Workload(job=np.arange(1, len(jobs) + 1), submit=submit.astype(float),
                    run=run.astype(float), size=np.minimum(size, m),
                    estimate=estimate.astype(float), processors=m)
    _same(work, policy, kill)


@needs_c
@pytest.mark.parametrize("bad", [np.nan, -5.0, -np.inf])
@pytest.mark.parametrize("policy", ["easy", "fcfs"])
def test_errors_same_message(bad: float, policy: str) -> None:
    """A NaN or negative run time: the same LpschedError, the same progress calls before."""
    n = 9000  # past two progress ticks (every 4,096 events) before the bad job starts
    submit = np.arange(n, dtype=float)
    run = np.ones(n)
    run[n - 3] = bad
    work = Workload(job=np.arange(1, n + 1), submit=submit, run=run, size=np.ones(n, int),
                    estimate=np.ones(n), processors=2)
    answer = _same(work, policy)
    assert answer[0] == "error" and answer[1] is LpschedError
    assert answer[2] == f"cannot schedule an event at {bad + n - 3} before now = {n - 3.0}"
    assert len(answer[3]) == 2


@needs_c
def test_infinite_run_and_size_zero() -> None:
    work = Workload(job=np.arange(1, 6), submit=np.array([0.0, 0.0, 1.0, 1.0, 2.0]),
                    run=np.array([np.inf, 3.0, 0.0, 2.0, 1.0]), size=np.array([2, 0, 4, 1, 2]),
                    estimate=np.array([np.inf, 1.0, 0.0, 9.0, 1.0]), processors=4)
    for policy in ("easy", "fcfs"):
        _same(work, policy)
        _same(work, policy, kill=True)


def test_nan_estimates_and_float_sizes_take_the_python_kernel() -> None:
    """Inputs whose tuple order is Python's own (a NaN estimate) or that the C arrays do not
    hold (float sizes) stay on the Python kernel, so the answer is the reference's."""
    work = Workload(job=np.arange(1, 5), submit=np.array([0.0, 0.0, 1.0, 2.0]),
                    run=np.array([4.0, 3.0, 2.0, 1.0]), size=np.array([2, 1, 2, 1]),
                    estimate=np.array([np.nan, 3.0, 2.0, 1.0]), processors=3)
    _same(work, "easy")
    with pytest.raises(TypeError):  # the Python kernel's arrays refuse float ids
        _run(Workload(job=work.job, submit=work.submit, run=work.run,
                      size=work.size.astype(float), estimate=work.run, processors=3),
             "easy", False, False)


def test_kernel_in_use_names_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = "python (the extension lpsched.batch._line_c is not built)"
    monkeypatch.setenv(line.PURE_PYTHON, "1")
    assert line.kernel_in_use() == ("python (LPSCHED_PURE_PYTHON is set)" if BUILT
                                    else missing)
    for value in ("0", ""):
        monkeypatch.setenv(line.PURE_PYTHON, value)
        assert line.kernel_in_use() == ("compiled" if BUILT else missing)
    monkeypatch.delenv(line.PURE_PYTHON)
    assert line.kernel_in_use() == ("compiled" if BUILT else missing)


TRACES = {
    "gaia": ("UniLu-Gaia-2014-1.swf", ["easy", "fcfs"], False),
    "kth": ("KTH-SP2-1996-2.1-cln.swf.gz", ["easy"], True),
    "curie": ("CEA-Curie-2011-2.1-cln.swf.gz", ["easy"], False),
}


@needs_c
@pytest.mark.parametrize("name", [pytest.param(name, marks=[pytest.mark.slow]
                                               if name == "curie" else [])
                                  for name in TRACES])
def test_shared_traces_same_answers(name: str) -> None:
    file, policies, kill = TRACES[name]
    work = to_workload(read_swf(shared_file(file)))
    for policy in policies:
        _same(work, policy, kill)


def _write_swf(path: Path, seed: int) -> None:
    """A small SWF trace (18 fields a job line) with ties and jobs of the whole machine."""
    rng = np.random.default_rng(seed)
    n, m = 400, 16
    lines = [f"; MaxProcs: {m}"]
    submit = np.sort(rng.integers(0, 3000, n))
    for k in range(n):
        run, size = int(rng.integers(0, 200)), int(rng.choice([1, 2, 4, 8, m]))
        est = int(run * rng.choice([1, 2, 3]) + 1)
        fields = [k + 1, int(submit[k]), 0, run, size, -1, -1, size, est, -1, 1, 1, 1, -1, 1,
                  -1, -1, -1]
        lines.append(" ".join(str(f) for f in fields))
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("policy", ["easy", "fcfs"])
def test_installed_command_same_bytes_either_kernel(tmp_path: Path, policy: str) -> None:
    """``lpsched batch`` (the installed command) writes the same CSV and JSON, but for its
    timings, with the compiled kernel and with ``LPSCHED_PURE_PYTHON=1``."""
    trace = tmp_path / "small.swf"
    _write_swf(trace, 3)
    outputs = []
    for pure in ("0", "1"):
        out = tmp_path / f"jobs{pure}.csv"
        env = {**os.environ, line.PURE_PYTHON: pure}
        proc = subprocess.run([LPSCHED, "batch", str(trace), "--policy", policy, "--alloc",
                               "basic", "--out", str(out), "--json"], capture_output=True,
                              text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        summary = json.loads(proc.stdout)
        assert summary["valid"] is True
        for key in ("seconds", "jobs_per_second"):
            summary.pop(key)
        outputs.append((out.read_bytes(), summary))
    assert outputs[0] == outputs[1]


class _Refuse:
    """A stand-in for the extension that fails if called."""

    @staticmethod
    def simulate(*args: Any) -> Any:
        raise AssertionError("the compiled kernel was called")


def test_pure_python_setting_skips_the_compiled_kernel(monkeypatch: pytest.MonkeyPatch,
                                                       ) -> None:
    work = _random_work(1)
    monkeypatch.setattr(line, "_line_c", _Refuse)
    monkeypatch.setenv(line.PURE_PYTHON, "1")
    sched, _ = line._simulate_line(work, "easy", int(work.processors or 0), False, None)
    assert not np.isnan(sched.start).any()
    monkeypatch.setenv(line.PURE_PYTHON, "0")
    with pytest.raises(AssertionError, match="compiled kernel was called"):
        line._simulate_line(work, "easy", int(work.processors or 0), False, None)


@needs_c
@pytest.mark.parametrize("pure", ["0", "1"])
def test_progress_errors_propagate(monkeypatch: pytest.MonkeyPatch, pure: str) -> None:
    """An exception raised by the progress callback leaves either kernel unchanged."""
    n = 5000
    work = Workload(job=np.arange(1, n + 1), submit=np.arange(n, dtype=float),
                    run=np.ones(n), size=np.ones(n, int), estimate=np.ones(n), processors=1)

    def progress(started: int, jobs: int, now: float) -> None:
        raise KeyError((started, jobs, now))

    monkeypatch.setenv(line.PURE_PYTHON, pure)
    with pytest.raises(KeyError) as info:
        line._simulate_line(work, "easy", 1, False, progress)
    assert info.value.args[0] == (4095, n, 4095.0)


@needs_c
@pytest.mark.parametrize("seed", range(3))
def test_fragmented_machine_same_answers(seed: int) -> None:
    """A wide machine cut into many free runs (the run lists grow past their first blocks)."""
    rng = np.random.default_rng(100 + seed)
    n, m = 6000, 3000
    size = np.where(rng.random(n) < 0.8, rng.integers(1, 8, n), rng.integers(1, m + 1, n))
    run = np.round(rng.exponential(200.0, n))
    work = Workload(job=np.arange(1, n + 1), submit=np.sort(rng.integers(0, 20000, n)) * 1.0,
                    run=run, size=size, estimate=run * rng.choice([1.0, 1.5, 3.0], n),
                    processors=m)
    answer = _same(work, "easy")
    assert int(np.max(np.diff(np.frombuffer(answer[2], np.int64)))) > 1  # split jobs


def _mutating_run(pure: bool) -> tuple[bytes, bytes]:
    """EASY on 4 processors, unit jobs every second; the progress callback writes into
    the caller's size array (a reused buffer) during the run."""
    n, m = 10000, 4
    work = Workload(job=np.arange(1, n + 1), submit=np.arange(n, dtype=float),
                    run=np.full(n, 2.0), size=np.ones(n, np.int64),
                    estimate=np.full(n, 2.0), processors=m)

    def progress(started: int, jobs: int, now: float) -> None:
        if started < jobs:
            work.size[:] = 4
            work.run[:] = 7.0

    old = os.environ.get(line.PURE_PYTHON)
    os.environ[line.PURE_PYTHON] = "1" if pure else "0"
    try:
        sched, _ = line._simulate_line(work, "easy", m, False, progress)
    finally:
        if old is None:
            del os.environ[line.PURE_PYTHON]
        else:
            os.environ[line.PURE_PYTHON] = old
    return sched.procs.lo.tobytes() + sched.procs.hi.tobytes(), sched.end.tobytes()


@needs_c
def test_a_callback_writing_the_callers_arrays_does_not_reach_the_kernel() -> None:
    """The compiled kernel reads private copies of the sizes and run times, as the Python
    loop reads its own lists (a callback that rewrote ``work.size`` while the kernel read
    it in place made heap pointers come back as processor ids; decision 384)."""
    assert _mutating_run(pure=False) == _mutating_run(pure=True)


@needs_c
@pytest.mark.parametrize("m", [2**63, 4.0, np.float64(4.0), True])
def test_machines_the_kernel_cannot_take_stay_in_python(m: Any) -> None:
    """A machine of 2^63 processors or more, or not an integer, never reaches the compiled
    kernel: the answer (or the error) is the Python loop's."""
    work = Workload(job=np.arange(1, 4), submit=np.array([0.0, 0.0, 1.0]),
                    run=np.array([5.0, 3.0, 2.0]), size=np.array([1, 1, 1]),
                    estimate=np.array([5.0, 3.0, 2.0]), processors=4)

    def answer(pure: bool) -> tuple[Any, ...]:
        try:
            return _run(work, "easy", False, pure, m)
        except (TypeError, OverflowError) as exc:
            return ("raised", type(exc), str(exc))

    assert answer(False) == answer(True)


@needs_c
def test_unaligned_inputs_same_answers() -> None:
    """Arrays that are contiguous but not aligned (a view at an odd byte offset) are copied
    before the kernel reads them."""
    raw = bytearray(8 * 5 + 1)
    size = np.frombuffer(raw, np.int64, count=5, offset=1)
    size[:] = [1, 2, 1, 3, 1]
    work = Workload(job=np.arange(1, 6), submit=np.arange(5, dtype=float),
                    run=np.full(5, 3.0), size=size, estimate=np.full(5, 4.0), processors=4)
    assert not work.size.flags.aligned
    _same(work, "easy")
