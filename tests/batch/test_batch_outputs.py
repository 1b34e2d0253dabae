"""``lpsched batch``'s answers are pinned, and equal to the plain simulators'.

* FCFS and EASY start times on the shared traces equal those of the simulator built on
  numpy masks and the event engine (pinned by hash, decision 169), and the textbook
  reference simulator of ``benchmarks/textbook_easy.py`` writes the same schedule as
  ``lpsched batch``; a Batsim workload made of a trace gives the same start times;
* the installed command's answers are pinned byte for byte (decision 433): the sha256 of
  the ``--out`` schedule (Batsim's ``jobs.csv``: every start time, end and processor set)
  and of the ``--json`` summary without its timings (``seconds``, ``jobs_per_second``) and
  the trace path, as the command gave them with the per-run text writers and the
  line-by-line reader that decisions 438-440 replaced;
* the writer's interval sets and the SWF reader's one-pass blocks give what the per-run
  text and the line-by-line reading give.

The traces' tests skip without ``../shared/data``; Curie (312,807 jobs) is ``slow``.
"""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import json
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.batch.simulator import simulate_batch, validate_batch
from lpsched.core.swf import Workload, read_swf, to_workload
from tests.shared_data import shared_file

ROOT = Path(__file__).resolve().parents[2]
LPSCHED = str(Path(sys.executable).parent / "lpsched")

#: sha256 of the start times rounded to 1e-6 s (little-endian float64), computed with the
#: simulator on numpy masks and the event engine (commit e86136f), the lean path's reference
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
def test_start_times_are_the_pinned_ones(name, policy):
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
    ``jobs.csv`` columns, its processors as ``0-3 7``; the textbook in its own columns,
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
    start times pinned for the trace itself."""
    from lpsched.batch.batsim import batsim_to_workload, read_batsim, swf_to_batsim, write_batsim

    bw, _ = swf_to_batsim(read_swf(trace("hpc2n-excerpt.swf")))
    with open(tmp_path / "w.json", "w") as fh:
        write_batsim(bw, fh)
    work, _names = batsim_to_workload(read_batsim(tmp_path / "w.json"))
    sched, _ = simulate_batch(work, policy)
    assert start_hash(sched.start) == PINNED["hpc2n-excerpt.swf", policy]


# ---------------------------------------------------- the installed command, byte for byte
#: the numpy the summaries' digests were taken with: another version may sum the means
#: in another order (the schedule's CSV digest holds everywhere)
PINNED_NUMPY = "2.4.6"
#: name -> (trace and options, sha256 of the CSV, sha256 of the JSON without timings)
CASES = {
    "gaia-easy": (["UniLu-Gaia-2014-1.swf", "--policy", "easy", "--alloc", "basic"],
                  "7d0034f5243d6d356d8ae2fa3c4e136a8a823232f69110e986a38d7c38530f62",
                  "3d05315a76e1e56de12e6d064cc4fb9a2aa962879f7c2e9afe8faa5cd503ee46"),
    "gaia-fcfs": (["UniLu-Gaia-2014-1.swf", "--policy", "fcfs", "--alloc", "basic"],
                  "712d1d3a6260c9e63d6fa957483a831844d9f85814a1fd63270a7013bd587a9c",
                  "2ab64416eeb3620d963fd47308adb353cf34d143c68c097e796003f2362d95ae"),
    "kth-easy-kill": (["KTH-SP2-1996-2.1-cln.swf.gz", "--policy", "easy", "--alloc",
                       "basic", "--kill-at-estimate"],
                      "3d59560b646135d78b28e4334cc55a16b398dcb08e3cfdc657c907338b1e267f",
                      "43ca019520e4fb72063890696a4c0db1bc16af06aebe0584322b57970da2027b"),
    "curie-easy": (["CEA-Curie-2011-2.1-cln.swf.gz", "--policy", "easy", "--alloc", "basic"],
                   "9d3c45298d6c9571aa8f0dbf418572348b7c78a5cd49addb411123fbe430c99d",
                   "db96d5496f2055b2ac6114e7034e1385abd52a072ceff0aa3f0fb121cc82ac11"),
}


def _digests(args: list[str], out: Path) -> tuple[str, str]:
    """The two digests of one ``lpsched batch`` run (the command as a subprocess)."""
    proc = subprocess.run([LPSCHED, "batch", str(shared_file(args[0])), *args[1:], "--out",
                           str(out), "--json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    summary = json.loads(proc.stdout)
    assert summary["valid"] is True
    for key in ("trace", "seconds", "jobs_per_second"):
        summary.pop(key)
    return (hashlib.sha256(out.read_bytes()).hexdigest(),
            hashlib.sha256(json.dumps(summary, sort_keys=True).encode()).hexdigest())


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=[pytest.mark.slow] if name.startswith("curie") else [])
    for name in CASES])
def test_batch_answers_are_the_pinned_ones(name: str, tmp_path: Path) -> None:
    args, csv_digest, json_digest = CASES[name]
    shared_file(args[0])
    csv_seen, json_seen = _digests(args, tmp_path / "jobs.csv")
    assert csv_seen == csv_digest  # the schedule: the same bytes in every environment
    if np.__version__ != PINNED_NUMPY:
        pytest.skip(f"the summary's digest was taken with numpy {PINNED_NUMPY} (this is "
                    f"{np.__version__}): its float means may differ in the last bit")
    assert json_seen == json_digest


def _plain_interval_sets(runs, first: int, stop: int) -> list[str]:
    """The interval sets as per-run text (one string per run)."""
    offsets = runs.offsets[first:stop + 1].tolist()
    lo = runs.lo[offsets[0]:offsets[-1]].tolist()
    hi = runs.hi[offsets[0]:offsets[-1]].tolist()
    parts = [str(a) if b - a == 1 else f"{a}-{b - 1}" for a, b in zip(lo, hi, strict=True)]
    return [" ".join(parts[a - offsets[0]:b - offsets[0]])
            for a, b in pairwise(offsets)]


@pytest.mark.parametrize("seed", range(40))
def test_interval_sets_are_the_plain_text(seed: int) -> None:
    """The byte-table interval sets (digits written all at once) equal the per-run text,
    on ids of 1 to 11 digits, jobs without processors and every slice of jobs."""
    from lpsched.batch.batsim import interval_sets
    from lpsched.batch.procsets import ProcSets

    rng = np.random.default_rng(seed)
    scale = int(rng.choice([1, 7, 10**4, 10**10]))
    flat = []
    for _ in range(int(rng.integers(0, 7))):
        k = int(rng.integers(0, 4))
        cuts = np.sort(rng.choice(np.arange(0, 400, 2), 2 * k, replace=False)) * scale
        runs = []
        for a, b in zip(cuts[0::2].tolist(), cuts[1::2].tolist(), strict=True):
            runs += [a, a + 1] if rng.random() < 0.4 else [a, b]
        flat.append(runs)
    sets = ProcSets.from_flat(flat)
    for first in range(len(flat) + 1):
        for stop in range(first + 1, len(flat) + 1):
            assert interval_sets(sets, first, stop) == _plain_interval_sets(sets, first, stop)


@pytest.mark.parametrize("extra", ["", "\n", "   \n", "; a comment\n"])
def test_swf_blocks_with_and_without_comments(tmp_path: Path, extra: str) -> None:
    """Blocks of job lines only are split in one pass (decision 440); a block with a blank
    line or a comment takes the line-by-line way: the same jobs and line numbers."""
    from lpsched.core.swf import _BLOCK, read_swf

    line = " {} 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1  \n"
    count = 3 * _BLOCK // len(line)
    texts = ["; MaxProcs: 4\n"]
    for j in range(1, count + 1):
        texts.append(line.format(j))
        if j == 2 * count // 3:
            texts.append(extra)
    path = tmp_path / "t.swf"
    path.write_text("".join(texts))
    trace = read_swf(path)
    assert trace.columns["job"].tolist() == list(range(1, count + 1))
    shift = (np.arange(1, count + 1) > 2 * count // 3) & (extra != "")
    assert trace.lines.tolist() == (np.arange(2, count + 2) + shift).tolist()
    assert ("; a comment" in trace.comments) == (extra.startswith(";"))
