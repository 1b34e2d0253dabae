"""``--zero-run keep|drop`` (decision 380): the same option and meaning as ``lpsched
tasks``; ``--status completed`` selects statuses only, in ``batch`` and in the batch
reproductions (whose cells keep their stored keys for the seed's defaults)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lpsched.batch.reproduce import load_trace, selection
from lpsched.errors import InvalidInstanceError

LPSCHED = str(Path(sys.executable).parent / "lpsched")
SWF = """; MaxProcs: 4
1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1
2 1 -1 0 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1
3 2 -1 3 1 -1 -1 1 5 -1 0 1 1 1 1 -1 -1 -1
"""


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([LPSCHED, *argv], capture_output=True, text=True, check=False)


def test_batch_zero_run_drop_and_status_completed_are_separate(tmp_path):
    trace = tmp_path / "t.swf"
    trace.write_text(SWF)
    done = run("batch", str(trace), "--status", "completed", "--json")
    assert done.returncode == 0 and done.stderr == ""
    out = json.loads(done.stdout)
    assert out["jobs"] == 2 and out["dropped"] == {"status 0 not selected": 1}
    done = run("batch", str(trace), "--status", "completed", "--zero-run", "drop", "--json")
    assert done.returncode == 0 and done.stderr == ""
    out = json.loads(done.stdout)
    assert out["jobs"] == 1
    assert out["dropped"] == {"status 0 not selected": 1, "run time 0 (field 4 = 0)": 1}
    bad = run("batch", str(trace), "--zero-run", "some")
    assert bad.returncode == 2 and "--zero-run" in bad.stderr and bad.stdout == ""


def test_batch_zero_run_is_refused_on_a_batsim_workload(tmp_path):
    work = tmp_path / "w.json"
    work.write_text(json.dumps({"nb_res": 2, "jobs": [
        {"id": 1, "subtime": 0, "res": 1, "walltime": 10, "profile": "10"}],
        "profiles": {"10": {"type": "delay", "delay": 10}}}))
    done = run("batch", str(work), "--zero-run", "drop")
    assert done.returncode != 0 and "--zero-run drop: applies to SWF traces only" in \
        done.stderr and done.stdout == ""


def test_selection_slots_keep_the_stored_keys_for_the_defaults(tmp_path):
    assert selection("completed", "drop") == "completed"  # ch. 5's default, as before
    assert selection(None, "keep") is None and selection("all", "keep") == "all"
    assert selection("completed", "keep") == "completed;zero-run=keep"
    assert selection(None, "drop") == "all;zero-run=drop"
    with pytest.raises(InvalidInstanceError, match="zero_run"):
        selection(None, "maybe")
    trace = tmp_path / "t.swf"
    trace.write_text(SWF)
    assert load_trace(str(trace), selection("completed", "keep")).jobs == 2
    assert load_trace(str(trace), selection("completed", "drop")).jobs == 1
    assert load_trace(str(trace), selection(None, "drop")).jobs == 2
    assert load_trace(str(trace), selection(None, "keep")).jobs == 3
    assert load_trace(str(trace), "completed", zero_run="keep").jobs == 2


def test_a_trace_is_read_once_however_load_trace_is_called(tmp_path, monkeypatch):
    """The cells pass the estimate, the progress line's work estimate does not: one read."""
    from lpsched.batch import reproduce as exp
    from lpsched.core import caches

    trace = tmp_path / "t.swf"
    trace.write_text(SWF)
    reads = []
    read_swf = exp.read_swf
    monkeypatch.setattr(exp, "read_swf", lambda path: (reads.append(path), read_swf(path))[1])
    caches.release()
    first = load_trace(str(trace), "completed", "requested")
    assert load_trace(str(trace), "completed") is first
    assert load_trace(str(trace), status="completed", estimate="requested") is first
    assert len(reads) == 1
    assert load_trace(str(trace), "completed", "runtime") is not first
    assert len(reads) == 2
    caches.release()
