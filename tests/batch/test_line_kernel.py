"""The FCFS/EASY kernel on a line (decision 375): the same start times, ends, processors,
first reservations and event counts as the general simulator, the same start times and
runs as the pinned values on the shared traces and as the plain simulator of benchmarks/,
and the same jobs.csv as the plain simulator byte for byte."""

import hashlib
import importlib.util
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.batch import simulator as S
from lpsched.core.swf import Workload, read_swf, to_workload
from lpsched.errors import LpschedError
from tests.shared_data import needs_shared, shared_file

ROOT = Path(__file__).resolve().parents[2]
GAIA, CURIE = "UniLu-Gaia-2014-1.swf", "CEA-Curie-2011-2.1-cln.swf.gz"
LPSCHED = str(Path(sys.executable).parent / "lpsched")

#: sha256 (first 16 hex digits) of the start times (little-endian float64) and of the
#: runs (lo then hi, int64) computed by the general simulator's rules (commit c34351f)
PRE_CHANGE = {
    ("gaia", None, "easy"): ("b20ea753ec2d506b", "e660e3f2ec059d15"),
    ("gaia", None, "fcfs"): ("f58e394f1864b418", "f4295599c659ee76"),
    ("curie", 50_000, "easy"): ("f1ec6539ead9f6bd", "94e7080b30509910"),
    ("curie", 50_000, "fcfs"): ("52bc3146bf4235d6", "4e57140d62d681b3"),
    ("curie", None, "easy"): ("7c67ad771e1e587d", "aa2f7e69a8ec1ed6"),
}


def _plain():
    spec = importlib.util.spec_from_file_location("plain_easy",
                                                  ROOT / "benchmarks" / "plain_easy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _general(work: Workload, policy: str, kill: bool = False):
    """The general simulator (``_BatchSim``: the line's FreeLine methods), the reference."""
    _, m = S._machine(work, None, None)
    return S._BatchSim(work, policy, m, kill, "basic", None, None, 20, None, 0.0,
                       "textbook").simulate()


def _same(a, b) -> None:
    (sa, xa), (sb, xb) = a, b
    assert np.array_equal(sa.start, sb.start) and np.array_equal(sa.end, sb.end)
    for key in ("offsets", "lo", "hi"):
        assert np.array_equal(getattr(sa.procs, key), getattr(sb.procs, key)), key
    assert np.array_equal(sa.killed, sb.killed) and np.array_equal(sa.failed, sb.failed)
    assert np.array_equal(xa["first_reservation"], xb["first_reservation"], equal_nan=True)
    assert xa["events"] == xb["events"]


def _digest(values: np.ndarray, dtype: str) -> str:
    return hashlib.sha256(np.ascontiguousarray(values, dtype).tobytes()).hexdigest()[:16]


def _prefix(work: Workload, n: int | None) -> Workload:
    if n is None:
        return work
    k = slice(0, n)
    return replace(work, job=work.job[k], submit=work.submit[k], run=work.run[k],
                   size=work.size[k], estimate=work.estimate[k])


def _workload(seed: int, n: int, m: int) -> Workload:
    rng = np.random.default_rng(seed)
    run = np.round(rng.uniform(0, 60, n))  # zero-length jobs too
    est = np.round(run * rng.uniform(0.5, 3.0, n))  # some jobs overrun their estimate
    return Workload(job=np.arange(1, n + 1), submit=np.sort(np.round(rng.uniform(0, 200, n))),
                    run=run, size=rng.integers(1, m + 1, n), estimate=est, processors=m)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["fcfs", "easy"]), st.booleans(),
       st.integers(1, 60), st.integers(1, 24))
def test_kernel_equals_the_general_simulator(seed, policy, kill, n, m):
    work = _workload(seed, n, m)
    _same(S.simulate_batch(work, policy, kill=kill), _general(work, policy, kill))


def test_kernel_refuses_a_negative_or_nan_submission():
    for bad in (-1.0, np.nan):
        work = Workload(job=np.arange(1, 3), submit=np.array([0.0, bad]),
                        run=np.array([1.0, 1.0]), size=np.array([1, 1]),
                        estimate=np.array([1.0, 1.0]), processors=2)
        with pytest.raises(LpschedError, match=r"before now = 0\.0"):
            S.simulate_batch(work, "easy")


def test_kernel_on_an_empty_machine_history():
    work = Workload(job=np.arange(1, 4), submit=np.zeros(3), run=np.zeros(3),
                    size=np.array([2, 2, 1]), estimate=np.zeros(3), processors=2)
    sched, stats = S.simulate_batch(work, "easy")
    assert sched.start.tolist() == [0.0, 0.0, 0.0]
    assert [p.tolist() for p in sched.procs] == [[0, 1], [0, 1], [0]]
    _same((sched, stats), _general(work, "easy"))


needs_data = needs_shared(GAIA, CURIE)


@needs_data
@pytest.mark.parametrize("trace,n,policy", [("gaia", None, "easy"), ("gaia", None, "fcfs"),
                                            ("curie", 50_000, "easy"),
                                            ("curie", 50_000, "fcfs")])
def test_start_times_and_processors_as_pinned(trace, n, policy):
    path = shared_file(GAIA if trace == "gaia" else CURIE)
    work = _prefix(to_workload(read_swf(path)), n)
    sched, _ = S.simulate_batch(work, policy)
    assert (_digest(sched.start, "<f8"),
            _digest(np.concatenate([sched.procs.lo, sched.procs.hi]), "<i8")) == \
        PRE_CHANGE[(trace, n, policy)]


@needs_data
@pytest.mark.parametrize("trace,n", [("gaia", None), ("curie", 30_000)])
def test_start_times_equal_the_plain_simulator(trace, n):
    plain = _plain()
    path = shared_file(GAIA if trace == "gaia" else CURIE)
    job, submit, run, size, estimate, m = plain.read_jobs(str(path))
    work = _prefix(to_workload(read_swf(path)), n)
    k = work.jobs
    assert job[:k].tolist() == work.job.tolist() and m == work.processors
    start, procs = plain.simulate(submit[:k].tolist(), run[:k].tolist(), size[:k].tolist(),
                                  estimate[:k].tolist(), m)
    sched, _ = S.simulate_batch(work, "easy")
    assert sched.start.tolist() == start
    runs = np.empty(2 * sched.procs.lo.size, np.int64)
    runs[0::2], runs[1::2] = sched.procs.lo, sched.procs.hi
    assert runs.tolist() == [x for p in procs for x in p]


@needs_data
@pytest.mark.slow
def test_whole_curie_as_pinned_and_as_the_plain_simulator(tmp_path):
    curie = shared_file(CURIE)
    work = to_workload(read_swf(curie))
    sched, _ = S.simulate_batch(work, "easy")
    assert (_digest(sched.start, "<f8"),
            _digest(np.concatenate([sched.procs.lo, sched.procs.hi]), "<i8")) == \
        PRE_CHANGE[("curie", None, "easy")]
    out, plain_out = tmp_path / "jobs.csv", tmp_path / "plain.csv"
    subprocess.run([LPSCHED, "batch", str(curie), "--out", str(out), "--json"], check=True,
                   capture_output=True)
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "plain_easy.py"), str(curie),
                    "--out", str(plain_out)], check=True, capture_output=True)
    assert out.read_bytes() == plain_out.read_bytes()


@needs_data
def test_batch_command_writes_the_plain_simulators_csv(tmp_path):
    """The installed command on a trace: exit 0, JSON on stdout, nothing on stderr, and the
    jobs.csv of the plain simulator byte for byte (start times and processors)."""
    trace = shared_file("hpc2n-excerpt.swf")
    out, plain_out = tmp_path / "jobs.csv", tmp_path / "plain.csv"
    done = subprocess.run([LPSCHED, "batch", str(trace), "--policy", "easy", "--alloc",
                           "basic", "--out", str(out), "--json"], capture_output=True,
                          text=True)
    assert done.returncode == 0 and done.stderr == ""
    assert '"valid": true' in done.stdout and '"policy": "easy"' in done.stdout
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "plain_easy.py"), str(trace),
                    "--out", str(plain_out)], check=True, capture_output=True)
    assert out.read_bytes() == plain_out.read_bytes()
