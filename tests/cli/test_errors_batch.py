"""Errors a researcher can act on, for the batch family (``swf-info``, ``batch``,
``reproduce contiguity | platform-level | topology-aware``): every bad trace, option or
output path ends in one line ``lpsched: error: ...`` and exit 2, naming the file, the line
and the field where there is one; nothing is changed silently (lenient reading is counted
and reported); an absurd machine size is refused before any memory is spent; output paths
are checked before any work and written atomically.

Most runs call :func:`lpsched.cli.main` in this process; the runs that would exhaust memory
on a faulty version run in a child process with a capped address space.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import resource
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import lpsched
from lpsched.cli import main

HEADER = ["; Version: 2.2", "; MaxProcs: 8"]
ROWS = [
    "1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 1 -1 -1",
    "2 5 0 50 2 -1 -1 2 60 -1 1 1 1 -1 -1 1 -1 -1",
    "3 6 0 30 8 -1 -1 8 60 -1 1 1 1 -1 -1 1 -1 -1",
    "4 9 0 20 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1",
]  # lines 3-6 of the file


def swf_text(header: list[str] | None = None, rows: list[str] | None = None) -> str:
    return "\n".join((HEADER if header is None else header)
                     + (ROWS if rows is None else rows)) + "\n"


def with_field(row: int, field: int, value: str) -> list[str]:
    """ROWS with field ``field`` (1-based) of row ``row`` (0-based) replaced."""
    rows = [r.split() for r in ROWS]
    rows[row][field - 1] = value
    return [" ".join(r) for r in rows]


def write(tmp_path: Path, data: str | bytes, name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def allocated(text: str) -> list[int]:
    """The processor ids of a ``jobs.csv`` interval set (``0-3 7``)."""
    ids: list[int] = []
    for part in text.split():
        lo, _, hi = part.partition("-")
        ids += range(int(lo), int(hi or lo) + 1)
    return ids


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_error(capsys: pytest.CaptureFixture[str], *argv: Any) -> str:
    """Exit 2, exactly one ``lpsched: error:`` line on stderr, nothing on stdout."""
    code, out, err = run(capsys, *argv)
    assert code == 2, err
    assert err.startswith("lpsched: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and out == "", (out, err)
    return err


COMMANDS = [["swf-info"], ["batch", "--json"]]


# -- 1. reading: containers, encodings, header values, empty and job-less traces ------------

def gz_cases() -> list[tuple[str, bytes, str, str]]:
    text = swf_text().encode()
    packed = gzip.compress(text, mtime=0)
    return [
        ("truncated", packed[: len(packed) // 2], "t.swf.gz", "truncated gzip data"),
        ("fake-gz", text, "t.swf.gz", "not gzip-compressed although named .gz"),
        ("gz-named-swf", packed, "t.swf", "gzip-compressed but not named .gz"),
        ("trailing-garbage", packed + b"garbage", "t.swf.gz", "corrupt gzip data"),
        ("empty-gz", b"", "t.swf.gz", "empty file"),
        ("gz-of-nothing", gzip.compress(b"", mtime=0), "t.swf.gz", "empty file"),
        ("empty", b"", "t.swf", "empty file"),
        ("blank-lines", b"\n \n\t\n", "t.swf", "empty file"),
    ]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("case", gz_cases(), ids=lambda c: c[0])
def test_containers_and_empty_files(tmp_path, capsys, command, case):
    _, data, name, expected = case
    path = write(tmp_path, data, name)
    err = one_error(capsys, command[0], path, *command[1:])
    assert f"{path}: {expected}" in err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_non_utf8_job_line_names_line_and_field(tmp_path, capsys, command):
    rows = list(ROWS)
    data = swf_text(rows=rows).encode().replace(b" 60 ", b" 6\xff0 ", 1)  # line 4, field 9
    path = write(tmp_path, data)
    err = one_error(capsys, command[0], path, *command[1:])
    assert f"{path}:4: field 9 (requested_time): not UTF-8 text (byte 0xff" in err


def test_non_utf8_comment_and_bom_are_accepted(tmp_path, capsys):
    data = b"\xef\xbb\xbf; Computer: Ume\xe5 cluster\n" + swf_text().encode()
    code, out, err = run(capsys, "swf-info", write(tmp_path, data), "--json")
    assert code == 0 and err == "" and json.loads(out)["jobs"] == 4


@pytest.mark.parametrize("value, problem", [
    ("1e18", "more than 10,000,000 processors"), ("10000001", "more than 10,000,000"),
    ("nan", "not a finite number"), ("inf", "not a finite number"),
    ("1e400", "not a finite number"), ("0.5", "not a whole number"),
    ("0", "a machine has at least 1"), ("-5", "a machine has at least 1"),
    ("abc", "not a number"), ("", "not a number"),
])
@pytest.mark.parametrize("key", ["MaxProcs", "MaxNodes"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_absurd_header_values(tmp_path, capsys, command, key, value, problem):
    header = ["; Version: 2.2", f"; {key}: {value}"]
    path = write(tmp_path, swf_text(header=header))
    err = one_error(capsys, command[0], path, *command[1:])
    assert f"{path}:2: header {key} = {value!r}: {problem}" in err


def test_unknown_machine_size(tmp_path, capsys):
    """``-1`` means unknown: the workload has no machine; ``batch`` asks for one."""
    path = write(tmp_path, swf_text(header=["; MaxProcs: -1"]))
    code, out, _ = run(capsys, "swf-info", path, "--json")
    assert code == 0 and json.loads(out)["processors"] is None
    err = one_error(capsys, "batch", path)
    assert f"{path}: the header gives no MaxProcs or MaxNodes" in err and "--processors" in err
    code, out, _ = run(capsys, "batch", path, "--processors", "8", "--json")
    assert code == 0 and json.loads(out)["processors"] == 8


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400"])
def test_non_finite_fields(tmp_path, capsys, value):
    path = write(tmp_path, swf_text(rows=with_field(2, 4, value)))
    err = one_error(capsys, "batch", path, "--json")
    assert f"{path}:5: field 4 (run) = " in err and "not a finite number" in err


@pytest.mark.parametrize("value", ["1_0", "\u0663", "0x10", "abc", "5\x000"])
def test_fields_that_are_not_numbers(tmp_path, capsys, value):
    path = write(tmp_path, swf_text(rows=with_field(1, 8, value)))
    err = one_error(capsys, "swf-info", path)
    assert f"{path}:4: field 8 (requested_procs) = {value!r}: not a number" in err


def test_no_job_kept_says_why(tmp_path, capsys):
    rows = [" ".join([*r.split()[:3], "-1", *r.split()[4:]]) for r in ROWS]
    path = write(tmp_path, swf_text(rows=rows))
    err = one_error(capsys, "batch", path)
    assert f"{path}: no job kept: all 4 job lines were dropped (4 no run time" in err
    err = one_error(capsys, "batch", write(tmp_path, swf_text(rows=[]), "h.swf"))
    assert "h.swf: no job in the trace (only header and comment lines)" in err
    # swf-info reports what it found: every job dropped, and why
    code, out, _ = run(capsys, "swf-info", path, "--json")
    assert code == 0 and json.loads(out)["jobs"] == 0


# -- 2. job numbers and processor counts: rejected with the line, or repaired and counted ---

@pytest.mark.parametrize("row, field, value, expected", [
    (1, 8, "0.5", "4: field 8 (requested_procs) = 0.5: a processor count must be a whole"),
    (1, 5, "2.5", "4: field 5 (allocated) = 2.5: a processor count must be a whole"),
    (2, 1, "2.5", "5: field 1 (job) = 2.5: a job number must be a whole number >= 0"),
    (2, 1, "-3", "5: field 1 (job) = -3: a job number must be a whole number >= 0"),
    (2, 1, "1e30", "5: field 1 (job) = 1e+30: out of range"),
    (2, 1, "2", "5: field 1 (job) = 2: job number repeated (first at line 4)"),
    (3, 8, "1e30", "6: field 8 (requested_procs) = 1e+30: out of range"),
])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_ids_and_counts_rejected_with_line(tmp_path, capsys, command, row, field, value,
                                           expected):
    path = write(tmp_path, swf_text(rows=with_field(row, field, value)))
    err = one_error(capsys, command[0], path, *command[1:])
    assert f"{path}:{expected}" in err


def test_lenient_rounds_counts_up_and_reports_them(tmp_path, capsys):
    """0.5 processors is never scheduled on 0: rounded up to 1 and counted."""
    path = write(tmp_path, swf_text(rows=with_field(1, 8, "0.5")))
    code, out, err = run(capsys, "batch", path, "--lenient", "--json", "--out",
                         tmp_path / "s.csv")
    data = json.loads(out)
    assert code == 0 and err == ""
    assert data["rounded"] == {"requested_procs": 1} and data["jobs"] == 4
    with open(tmp_path / "s.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    sizes = {int(r["job_id"]): int(r["requested_number_of_resources"]) for r in rows}
    assert sizes[2] == 1 and len(allocated(rows[1]["allocated_resources"])) == 1


def test_lenient_skips_bad_ids_and_repeats_into_the_accounting(tmp_path, capsys):
    rows = with_field(2, 1, "2.5")  # line 5: not a whole number
    rows += [rows[0]]  # line 7: job 1 again
    path = write(tmp_path, swf_text(rows=rows))
    code, out, _ = run(capsys, "batch", path, "--lenient", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["records"] == 5 and data["jobs"] == 3
    assert data["jobs"] + sum(data["dropped"].values()) == data["records"]
    assert data["skipped_lines"]["first"] == [5, 7]
    assert data["skipped_lines"]["reasons"] == {"job number not a whole number >= 0": 1,
                                                "repeated job number": 1}


# -- 3. batch --lenient: skipped lines stay in the accounting and the output ----------------

def test_lenient_accounting_json_and_text(tmp_path, capsys):
    rows = list(ROWS)
    rows.insert(1, "1 2 3")  # line 4
    rows.insert(3, "9 0 0 ten 1 -1 -1 1 10 -1 1 1 1 -1 -1 1 -1 -1")  # line 6
    rows[-1] = " ".join([*rows[-1].split()[:3], "-1", *rows[-1].split()[4:]])  # no run time
    path = write(tmp_path, swf_text(rows=rows))
    code, out, err = run(capsys, "batch", path, "--lenient", "--json")
    data = json.loads(out)
    assert code == 0 and err == ""  # reported in the output, not as a Python warning
    assert data["records"] == 6 and data["jobs"] == 3
    assert data["jobs"] + sum(data["dropped"].values()) == data["records"]
    assert data["dropped"]["malformed line skipped (--lenient)"] == 2
    assert data["skipped_lines"]["count"] == 2 and data["skipped_lines"]["first"] == [4, 6]
    code, out, _ = run(capsys, "batch", path, "--lenient")
    assert code == 0 and "6 job lines read" in out and "skipped lines 4, 6" in out
    code, out, _ = run(capsys, "swf-info", path, "--lenient", "--json")
    data = json.loads(out)
    assert data["jobs"] + sum(data["dropped"].values()) == data["records"] == 6
    # --limit cuts count as dropped too
    code, out, _ = run(capsys, "batch", path, "--lenient", "--json", "--limit", "2")
    data = json.loads(out)
    assert data["jobs"] == 2 and data["jobs"] + sum(data["dropped"].values()) == 6


# -- 4. absurd machine sizes: refused before any memory is spent ----------------------------

def capped(argv: list[str], limit: int = 2 << 30) -> subprocess.CompletedProcess[str]:
    """``lpsched argv`` in a child whose address space is capped at ``limit`` bytes."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    root = str(Path(lpsched.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root, "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1"}
    env.pop("PYTHONWARNINGS", None)
    return subprocess.run([sys.executable, "-m", "lpsched.cli", *argv], capture_output=True,
                          text=True, timeout=120, env=env, preexec_fn=cap, check=False)


@pytest.mark.parametrize("value", ["1e9", "100000000", "1e18"])
def test_absurd_machine_refused_before_memory_is_spent(tmp_path, value):
    path = write(tmp_path, swf_text(header=[f"; MaxProcs: {value}"]))
    proc = capped(["batch", str(path), "--policy", "easy", "--json"])
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr[-500:]
    assert f"{path}:1: header MaxProcs = {value!r}: more than 10,000,000" in proc.stderr


@pytest.mark.parametrize("spec", ["kary-ntree:4,30", "kary-ntree:2,1000000000",
                                  "fat-tree:16,4,4,4,4,4,4,4,4,4,4,4,4"])
def test_absurd_trees_refused(tmp_path, spec):
    path = write(tmp_path, swf_text(header=["; MaxProcs: -1"]))
    proc = capped(["batch", str(path), "--topology", spec, "--json"])
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr[-500:]
    assert "topology" in proc.stderr and "more than 134,217,728 leaves" in proc.stderr


def test_tree_without_machine_size_is_bounded(tmp_path):
    """No MaxProcs: a large tree would make every leaf a processor; the machine must then
    be given (a tree of 2^26 leaves and no header grew to gigabytes in validation)."""
    path = write(tmp_path, swf_text(header=["; MaxProcs: -1"]))
    proc = capped(["batch", str(path), "--topology", "kary-ntree:2,26", "--json"])
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr[-500:]
    assert "67,108,864 leaves" in proc.stderr and "--processors" in proc.stderr
    proc = capped(["batch", str(path), "--topology", "kary-ntree:2,26", "--processors", "8",
                   "--json"])
    assert proc.returncode == 0 and json.loads(proc.stdout)["processors"] == 8, proc.stderr


def test_absurd_machine_options(tmp_path, capsys):
    path = write(tmp_path, swf_text())
    for option in ("--processors", "--cluster-size"):
        for value in ("0", "-4", "20000000000"):
            err = one_error(capsys, "batch", path, option, value)
            assert option in err
    assert "--limit -1: must be a whole number >= 0" in one_error(capsys, "batch", path,
                                                                   "--limit", "-1")
    for spec in ("linear:inf", "quadratic:nan", "linear:-1", "quadratic:x"):
        err = one_error(capsys, "batch", path, "--topology", "kary-ntree:2,3", "--penalty",
                        spec)
        assert f"penalty = '{spec}'" in err and "finite F >= 0" in err


def test_machine_of_the_largest_size_runs_in_bounded_memory(tmp_path):
    """10^7 processors (the cap) on a small trace: the per-processor arrays are the free
    mask (1 byte each) and what validation needs, not one 8-byte id per free processor."""
    from lpsched.batch.allocation import block_counts

    free = np.ones(10**7, bool)
    tracemalloc.start()
    try:
        counts = block_counts(free)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert counts.sum() == 10**7 and peak < 1 << 20  # the ids alone would be 80 MB
    path = write(tmp_path, swf_text(header=["; MaxProcs: 10000000"]))
    proc = capped(["batch", str(path), "--json"], limit=1536 << 20)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert json.loads(proc.stdout)["processors"] == 10**7


# -- 5. output paths: checked before any work, written atomically ---------------------------

@pytest.fixture
def no_simulation(monkeypatch):
    """Fails the test if a simulation or a reproduction cell starts."""
    import lpsched.batch.reproduce as reproduce
    import lpsched.batch.simulator as simulator
    import lpsched.core as core

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("work started before the output path was checked")

    for module in (simulator, reproduce):
        monkeypatch.setattr(module, "simulate_batch", refuse)
    monkeypatch.setattr(core, "run_cells", refuse)


@pytest.mark.parametrize("target, expected", [
    ("folder", "is a folder, give a file name"),
    ("missing/s.csv", "does not exist"),
])
def test_batch_out_checked_before_simulating(tmp_path, capsys, no_simulation, target,
                                             expected):
    (tmp_path / "folder").mkdir()
    out = tmp_path / target
    err = one_error(capsys, "batch", write(tmp_path, swf_text()), "--out", out)
    assert f"--out {out}: " in err and expected in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_batch_out_unwritable(tmp_path, capsys, no_simulation):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        err = one_error(capsys, "batch", write(tmp_path, swf_text()), "--out",
                        locked / "s.csv")
        assert "permission denied" in err
    finally:
        locked.chmod(0o700)


def test_batch_out_overwrites_atomically(tmp_path, capsys, monkeypatch):
    """An existing file is replaced once the CSV is complete; a run that fails while
    writing (here after the first chunk of rows is out) leaves it as it was, and no
    temporary file behind."""
    from lpsched.batch import batsim

    path = write(tmp_path, swf_text())
    out = tmp_path / "s.csv"
    out.write_text("old\n")
    code, _, _ = run(capsys, "batch", path, "--out", out)
    assert code == 0 and out.read_text().startswith(",".join(batsim.JOBS_COLUMNS) + "\n")
    out.write_text("old\n")
    calls = []
    real = batsim.format_rows

    def disk_full(*args: Any) -> str:
        """The second chunk of rows finds the disk full."""
        calls.append(args)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(*args)

    monkeypatch.setattr(batsim, "CHUNK", 1)
    monkeypatch.setattr(batsim, "format_rows", disk_full)
    err = one_error(capsys, "batch", path, "--out", out)
    assert "No space left on device" in err and out.read_text() == "old\n"
    assert len(calls) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.csv", "t.swf"]


def test_reproduce_out_checked_before_any_cell(tmp_path, capsys, no_simulation):
    trace = write(tmp_path, swf_text())
    afile = write(tmp_path, "x", "afile")
    err = one_error(capsys, "reproduce", "topology-aware", "--trace", trace, "--out", afile)
    assert f"--out {afile}: is a file, give a folder" in err
    (tmp_path / "res" / "topology-aware.csv").mkdir(parents=True)
    err = one_error(capsys, "reproduce", "topology-aware", "--trace", trace, "--out",
                    tmp_path / "res")
    assert "topology-aware.csv: is a folder" in err


@pytest.mark.parametrize("argv, expected", [
    (["topology-aware", "--speedups", "0,abc"], "--speedups 0,abc: 'abc' is not a number"),
    (["topology-aware", "--speedups", "nan"], "--speedups nan: nan is not a percentage"),
    (["contiguity", "--first-seed", "-1"], "--first-seed -1: must be a whole number"),
    (["platform-level", "--instances", "0"], "--instances 0: must be a whole number >= 1"),
    (["contiguity", "--processors", "0"], "--processors 0: must be a whole number from 1"),
    (["contiguity", "--processors", "4", "--cluster-size", "16"], "larger than the machine"),
])
def test_reproduce_options_checked_before_any_cell(tmp_path, capsys, no_simulation, argv,
                                                   expected):
    trace = write(tmp_path, swf_text())
    err = one_error(capsys, "reproduce", *argv, "--trace", trace, "--out", tmp_path / "r")
    assert expected in err and not (tmp_path / "r").exists()  # nothing created either


@pytest.mark.parametrize("experiment", ["contiguity", "platform-level", "topology-aware"])
def test_reproduce_bad_trace_fails_before_any_cell(tmp_path, capsys, no_simulation,
                                                   experiment):
    trace = write(tmp_path, swf_text(rows=with_field(1, 8, "0.5")))
    err = one_error(capsys, "reproduce", experiment, "--trace", trace, "--out",
                    tmp_path / "r")
    assert f"{trace}:4: field 8 (requested_procs) = 0.5" in err


def test_reproduce_writes_the_csv_atomically(tmp_path, capsys, monkeypatch):
    """A failure while writing the CSV leaves the previous one whole; a success replaces
    it; no temporary file is left behind."""
    import csv

    trace = write(tmp_path, swf_text())
    res = tmp_path / "res"
    res.mkdir()
    target = res / "topology-aware.csv"
    target.write_text("old\n")
    argv = ["reproduce", "topology-aware", "--trace", trace, "--out", res, "--speedups", "0",
            "--quiet"]

    class DiskFull(csv.DictWriter):
        def writerows(self, rows: Any) -> None:
            raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(csv, "DictWriter", DiskFull)
        err = one_error(capsys, *argv)
    assert "No space left on device" in err and target.read_text() == "old\n"
    code, out, err = run(capsys, *argv)
    assert code == 0 and json.loads(out)["experiment"] == "topology-aware", err
    assert target.read_text().splitlines()[0].startswith("alloc,")
    assert not [p for p in res.iterdir() if p.name.endswith(".tmp")]


def test_topology_aware_takes_no_instances(capsys) -> None:
    """Seed 001 replays whole traces: ``--instances`` and ``--first-seed`` would be ignored,
    so topology-aware does not offer them."""
    from lpsched.cli import build_parser

    parser = build_parser(["reproduce", "topology-aware"])
    with pytest.raises(SystemExit):
        parser.parse_args(["reproduce", "topology-aware", "--instances", "3"])
    assert parser.parse_args(["reproduce", "contiguity", "--instances", "3"]).instances == 3
