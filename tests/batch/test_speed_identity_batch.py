"""Issue 34: the speed work on ``lpsched batch`` keeps every answer identical.

The digests are those of the code before that work (commit 5b54b5e): the sha256 of the
``--out`` schedule (Batsim's ``jobs.csv``: every start time, end and processor set, byte for
byte) and of the ``--json`` summary without its timings (``seconds``, ``jobs_per_second``)
and the trace path, for the installed command run as a user runs it. They skip without
../shared/data; Curie (312,807 jobs) is ``slow``.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from tests.shared_data import shared_file

LPSCHED = str(Path(sys.executable).parent / "lpsched")

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
def test_batch_answers_unchanged(name: str, tmp_path: Path) -> None:
    args, csv_digest, json_digest = CASES[name]
    shared_file(args[0])
    csv_seen, json_seen = _digests(args, tmp_path / "jobs.csv")
    assert csv_seen == csv_digest  # the schedule: the same bytes in every environment
    if np.__version__ != PINNED_NUMPY:
        pytest.skip(f"the summary's digest was taken with numpy {PINNED_NUMPY} (this is "
                    f"{np.__version__}): its float means may differ in the last bit")
    assert json_seen == json_digest


def _plain_interval_sets(runs, first: int, stop: int) -> list[str]:
    """The interval sets as the code before issue 34 wrote them (one string per run)."""
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
    """Blocks of job lines only are split in one pass (issue 34); a block with a blank
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
