"""Findings of the review of issue 17 parts 1-3 on the command line: an output that is the
input is refused, killed jobs are counted, Batsim input errors speak Batsim, ``--lenient``
rounds a fractional ``res`` up, write errors name the file. Subprocess tests run the
installed ``lpsched``; the others call :func:`lpsched.cli.main` in this process."""

from __future__ import annotations

import csv
import errno
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from lpsched.cli import main
from tests.cli.test_batsim_cli import SWF, WORKLOAD, one_error
from tests.cli.test_cli_subprocess import lpsched, one_json_object

HPC2N = "hpc2n-excerpt.swf"


def write(path: Path, doc: Any) -> Path:
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def in_process_error(capsys: pytest.CaptureFixture[str], *argv: Any) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "", (code, out, err)
    assert err.startswith("lpsched: error: ") and err.count("\n") == 1, err
    return err


# -- 1. an output that is the input is refused before anything is read ------------------------

def test_convert_refuses_to_overwrite_its_input(tmp_path):
    trace = write(tmp_path / "h.swf", SWF)
    one_error(lpsched("convert", str(trace), "-o", str(trace), "--to", "batsim"),
              f"-o {trace}: the same file as the input {trace}")
    assert trace.read_text() == SWF
    work = write(tmp_path / "w.json", WORKLOAD)
    before = work.read_text()
    one_error(lpsched("convert", str(work), "-o", str(work), "--to", "swf"),
              "the same file as the input")
    assert work.read_text() == before


def test_batch_refuses_its_trace_as_out_through_a_link_or_another_spelling(tmp_path):
    trace = write(tmp_path / "h.swf", SWF)
    link = tmp_path / "link.swf"
    link.symlink_to(trace)
    hard = tmp_path / "hard.swf"
    os.link(trace, hard)
    for out, given in ((trace, trace), (trace, link), (hard, trace),
                       (tmp_path / "." / "h.swf", trace)):
        one_error(lpsched("batch", str(given), "--out", str(out)),
                  f"--out {out}: the same file as the input {given}")
    assert trace.read_text() == SWF
    one_json_object(lpsched("batch", str(trace), "--json", "--out",
                            str(tmp_path / "jobs.csv")))  # another file is fine


def test_every_command_with_an_input_and_an_output_refuses_the_same_file(tmp_path, capsys):
    trace = write(tmp_path / "t.swf", SWF)
    named_json = write(tmp_path / "t.json", SWF)
    xml = write(tmp_path / "p.xml", "<platform/>")
    inst = tmp_path / "inst.xml"
    for argv, option in (
            (["tasks", trace, "-o", trace], "-o"),
            (["campaigns", "extract", named_json, "-o", named_json], "-o"),
            (["generate", "bags", "--apps", "2", "--platform", xml, "-o", xml], "-o"),
            (["export", "simgrid", write(inst, "{}"), "-o", inst], "-o"),
            (["export", "simgrid", inst, "-o", tmp_path / "o.xml", "--deployment", inst],
             "--deployment")):
        err = in_process_error(capsys, *argv)
        assert f"{option} " in err and "the same file as the input" in err, err
    assert trace.read_text() == SWF and xml.read_text() == "<platform/>"


# -- 5. jobs killed at their estimate are counted ---------------------------------------------

def killed_in_csv(path: Path) -> int:
    with path.open(newline="") as fh:
        return sum(r["final_state"] == "COMPLETED_WALLTIME_REACHED"
                   for r in csv.DictReader(fh))


def test_killed_jobs_are_reported_and_equal_the_csv(tmp_path):
    trace = write(tmp_path / "t.swf", SWF)
    out = tmp_path / "jobs.csv"
    data = one_json_object(lpsched("batch", str(trace), "--kill-at-estimate", "--json",
                                   "--out", str(out)))
    assert data["killed_jobs"] == killed_in_csv(out) == 1  # job 1: 100 s over 80 s
    text = lpsched("batch", str(trace), "--kill-at-estimate")
    assert text.returncode == 0
    assert "1 jobs killed at their estimate (COMPLETED_WALLTIME_REACHED)" in text.stdout
    plain = one_json_object(lpsched("batch", str(trace), "--json"))
    assert "killed_jobs" not in plain  # nothing is ever stopped without the option


def test_killed_jobs_on_hpc2n_equal_the_csv(tmp_path, shared_data):
    out = tmp_path / "jobs.csv"
    data = one_json_object(lpsched("batch", str(shared_data(HPC2N)), "--kill-at-estimate", "--json",
                                   "--out", str(out)))
    assert data["killed_jobs"] == killed_in_csv(out) == 320


# -- 6. Batsim input errors in Batsim's terms --------------------------------------------------

def workload(**changes: Any) -> dict[str, Any]:
    doc = json.loads(json.dumps(WORKLOAD))
    doc.update(changes)
    return doc


@pytest.mark.parametrize(("doc", "argv", "expected"), [
    (workload(jobs=[]), [], "the workload has no jobs ('jobs' is an empty list)"),
    (workload(nb_res=1), [], "no job kept: all 2 jobs of the workload were dropped "
     "(2 wider than the machine (1 processors))"),
    (workload(), ["--size", "allocated"], "--size allocated: applies to SWF traces only"),
    (workload(profiles={"long": {"delay": 100}, "short": {"type": "delay", "delay": 50}}),
     [], "jobs[0] (id 1): profile 'long' is missing 'type'"),
    (workload(profiles={"long": {"type": "delay"}, "short": {"type": "delay", "delay": 50}}),
     [], "jobs[0] (id 1): profile 'long' is missing 'delay'"),
    (workload(nb_res=None), [], "nb_res is missing: give the machine size with --processors"),
])
def test_batsim_errors_speak_batsim(tmp_path, capsys, doc, argv, expected):
    if doc.get("nb_res", 0) is None:
        del doc["nb_res"]
    path = write(tmp_path / "w.json", doc)
    err = in_process_error(capsys, "batch", path, *argv)
    assert expected in err, err
    assert "invalid instance" not in err and "None" not in err and "job lines" not in err


def test_convert_without_nb_res_says_so(tmp_path):
    doc = workload()
    del doc["nb_res"]
    path = write(tmp_path / "w.json", doc)
    proc = lpsched("convert", str(path), "-o", str(tmp_path / "w.swf"))
    assert proc.returncode == 0 and proc.stdout == ""
    assert "nb_res is missing" in proc.stderr and "give --processors" in proc.stderr
    assert "unknown processors" not in proc.stderr


def test_swf_info_reads_a_batsim_workload(tmp_path):
    doc = workload(jobs=[*WORKLOAD["jobs"], {"id": 3, "subtime": 9, "res": 99,
                                             "profile": "short"}])
    path = write(tmp_path / "w.json", doc)
    data = one_json_object(lpsched("swf-info", str(path), "--json"))
    assert data["format"] == "batsim" and data["max_procs"] == 8
    assert data["records"] == 3 and data["jobs"] == 2
    assert data["dropped"] == {"wider than the machine (8 processors)": 1}
    text = lpsched("swf-info", str(path))
    assert text.returncode == 0 and text.stderr == ""
    assert text.stdout.startswith(f"{path}: 3 jobs read, machine 8 processors\nkept 2 jobs")


@pytest.mark.parametrize("argv", [["tasks", "{path}"],
                                  ["campaigns", "extract", "{path}", "-o", "{out}"]])
@pytest.mark.parametrize("name", ["w.json", "w.txt"])
def test_swf_only_commands_say_the_file_is_a_batsim_workload(tmp_path, argv, name):
    path = write(tmp_path / name, WORKLOAD)
    proc = lpsched(*(a.format(path=path, out=tmp_path / "out.json") for a in argv))
    err = one_error(proc, "looks like a Batsim (JSON) workload, not an SWF trace",
                    "reads SWF traces (.swf, .swf.gz)")
    assert "expected 18 fields" not in err
    assert ("lpsched convert" in err) == name.endswith(".json")


# -- 7. --lenient rounds a fractional res up, as for SWF ---------------------------------------

def test_lenient_rounds_a_fractional_res_up(tmp_path, capsys):
    doc = workload()
    doc["jobs"][1]["res"] = 2.5
    path = write(tmp_path / "w.json", doc)
    err = in_process_error(capsys, "batch", path)
    assert "jobs[1] (id 2): res = 2.5: must be a whole number >= 1" in err
    assert "--lenient rounds a fractional res up" in err
    code, out, _ = run(capsys, "batch", path, "--lenient", "--json", "--out",
                       tmp_path / "jobs.csv")
    data = json.loads(out)
    assert code == 0 and data["jobs"] == 2 and data["rounded"] == {"res": 1}
    rows = list(csv.DictReader(io.StringIO((tmp_path / "jobs.csv").read_text())))
    assert [r["requested_number_of_resources"] for r in rows] == ["4", "3"]
    code, out, _ = run(capsys, "swf-info", path, "--lenient", "--json")
    assert code == 0 and json.loads(out)["rounded"] == {"res": 1}


# -- 8. write errors name the file -------------------------------------------------------------

def full_disk(*_: Any, **__: Any) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_failed_write_names_the_file_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    from lpsched.batch import batsim

    trace = write(tmp_path / "t.swf", SWF)
    out = tmp_path / "jobs.csv"
    monkeypatch.setattr(batsim, "write_jobs_csv", full_disk)
    err = in_process_error(capsys, "batch", trace, "--out", out)
    assert err == f"lpsched: error: cannot write {out}: No space left on device\n"
    monkeypatch.setattr(batsim, "write_batsim", full_disk)
    err = in_process_error(capsys, "convert", trace, "-o", tmp_path / "w.json")
    assert f"cannot write {tmp_path / 'w.json'}: No space left on device" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.swf"]  # no temporary left


def test_a_failed_write_to_a_special_file_names_it(tmp_path, monkeypatch):
    from lpsched.cli.outputs import atomic_output
    from lpsched.errors import LpschedError

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # so that opening it to write works
    try:
        with pytest.raises(LpschedError, match=f"cannot write {fifo}: No space left"), \
                atomic_output(fifo) as fh:
            assert fh.name == str(fifo)
            full_disk()
    finally:
        os.close(reader)
