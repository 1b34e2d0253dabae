"""The lean batch path changes no output (issue 13 item 3): FCFS and EASY start times on the
shared traces equal those of the simulator before it (pinned by hash), and the textbook
reference simulator of ``benchmarks/textbook_easy.py`` writes the same schedule as
``lpsched batch``; a Batsim workload made of a trace gives the same start times (issue 17).
Skipped when ``../shared/data`` is absent."""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.batch.simulator import simulate_batch, validate_batch
from lpsched.core.swf import Workload, read_swf, to_workload
from tests.shared_data import shared_file

ROOT = Path(__file__).resolve().parents[2]

#: sha256 of the start times rounded to 1e-6 s (little-endian float64), computed with the
#: simulator of commit e86136f, before the lean path (numpy masks and the event engine)
PINNED = {
    ("hpc2n-excerpt.swf", "fcfs"):
        "2f4c968f99f4ced3654daa830f3bc3e34facfb29ae187116539163f98e83a8de",
    ("hpc2n-excerpt.swf", "easy"):
        "6aa6d58ddc4e34a5a4ab1111a7d0d3a2cff98c8db1ff3f4a5eae710f1880b2df",
    ("lublin_256.swf", "fcfs"):
        "4da3ff78083538db0e85a225623416d05a7b27129e4234f36eae4f8ed26b4f5a",
    ("lublin_256.swf", "easy"):
        "e31e86b3bc0ab0d3d89a20b2fc46191af6ad564e414456a64f8faeaa2ebeab78",
    ("UniLu-Gaia-2014-1.swf", "fcfs"):
        "f58e394f1864b4180d1d44cf336a1f00f1cb631ee05e0e1b6eba0f0b883c364b",
    ("UniLu-Gaia-2014-1.swf", "easy"):
        "b20ea753ec2d506bf32e1631a7ed8a69e48765f8478d16bb031b762399fd4feb",
}


def start_hash(start: np.ndarray) -> str:
    rounded = np.ascontiguousarray(np.round(start, 6), dtype="<f8")
    return hashlib.sha256(rounded.tobytes()).hexdigest()


def trace(name: str) -> Path:
    return shared_file(name)


@pytest.mark.parametrize(("name", "policy"), sorted(PINNED))
def test_start_times_are_unchanged(name, policy):
    work = to_workload(read_swf(trace(name)))
    sched, _ = simulate_batch(work, policy)
    assert start_hash(sched.start) == PINNED[name, policy]
    validate_batch(work, sched, int(work.processors), forced="basic")


def test_the_hash_sees_one_changed_start():
    """The pinned hashes can fail: one start moved by a millisecond changes the hash."""
    work = to_workload(read_swf(trace("hpc2n-excerpt.swf")))
    sched, _ = simulate_batch(work, "easy")
    start = sched.start.copy()
    start[len(start) // 2] += 1e-3
    assert start_hash(sched.start) == PINNED["hpc2n-excerpt.swf", "easy"]
    assert start_hash(start) != PINNED["hpc2n-excerpt.swf", "easy"]


def textbook_module():
    spec = importlib.util.spec_from_file_location(
        "textbook_easy", ROOT / "benchmarks" / "textbook_easy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 12), st.booleans())
def test_easy_equals_the_textbook_simulator(seed, m, ties):
    """On random workloads (integer times with many ties when ``ties``, zero run times,
    overruns of the estimates, bursts of submissions), lpsched's EASY starts every job when
    the plain textbook simulator does."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    submit = np.sort(rng.integers(0, 40, n) if ties else rng.uniform(0, 200, n)).astype(float)
    run = rng.integers(0, 30, n).astype(float) if ties else rng.uniform(0, 50, n)
    estimate = np.round(run * rng.uniform(0.5, 3.0, n)) if ties else run * rng.uniform(0.5, 3, n)
    size = rng.integers(1, m + 1, n)
    work = Workload(job=np.arange(n), submit=submit, run=run, size=size, estimate=estimate,
                    processors=m)
    sched, _ = simulate_batch(work, "easy")
    start, _end, _procs = textbook_module().simulate_easy(submit, run, size,
                                                           np.maximum(estimate, 0.0), m)
    assert sched.start.tolist() == start.tolist()
    validate_batch(work, sched, m)


def test_the_textbook_reference_writes_the_same_schedule(tmp_path):
    """benchmarks/textbook_easy.py (the reference of the speed target) and ``lpsched batch
    --policy easy --alloc basic`` write the same schedule: every job's id, submission,
    start, end, size and processors, field for field as text (lpsched in Batsim's
    ``jobs.csv`` columns, its processors as ``0-3 7``; the textbook in the columns of before,
    ``job_id,submit,start,end,procs,processors`` with ``0-3,7``)."""
    path = trace("hpc2n-excerpt.swf")
    textbook = textbook_module()
    _job, submit, run, size, estimate, m = textbook.read_jobs(str(path))
    start, _end, _procs = textbook.simulate_easy(submit, run, size, estimate, m)
    assert start_hash(start) == PINNED["hpc2n-excerpt.swf", "easy"]
    ours, theirs = tmp_path / "lpsched.csv", tmp_path / "textbook.csv"
    subprocess.run([sys.executable, "-m", "lpsched.cli", "batch", str(path), "--policy",
                    "easy", "--alloc", "basic", "--out", str(ours)], check=True,
                   capture_output=True)
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "textbook_easy.py"),
                    str(path), "--out", str(theirs)], check=True, capture_output=True)
    with open(ours, newline="") as a, open(theirs, newline="") as b:
        mine, reference = list(csv.DictReader(a)), list(csv.DictReader(b))
    assert len(mine) == len(reference) == 3145
    same = {"job_id": "job_id", "submission_time": "submit", "starting_time": "start",
            "finish_time": "end", "requested_number_of_resources": "procs"}
    for row, ref in zip(mine, reference, strict=True):
        assert {k: row[k] for k in same} == {k: ref[v] for k, v in same.items()}
        assert row["allocated_resources"].replace(" ", ",") == ref["processors"]


@pytest.mark.parametrize("policy", ["fcfs", "easy"])
def test_a_batsim_workload_of_the_trace_gives_the_pinned_start_times(tmp_path, policy):
    """The Batsim workload ``lpsched convert`` makes of hpc2n-excerpt schedules with the
    start times pinned for the trace itself (issue 17)."""
    from lpsched.batch.batsim import batsim_to_workload, read_batsim, swf_to_batsim, write_batsim

    bw, _ = swf_to_batsim(read_swf(trace("hpc2n-excerpt.swf")))
    with open(tmp_path / "w.json", "w") as fh:
        write_batsim(bw, fh)
    work, _names = batsim_to_workload(read_batsim(tmp_path / "w.json"))
    sched, _ = simulate_batch(work, policy)
    assert start_hash(sched.start) == PINNED["hpc2n-excerpt.swf", policy]
