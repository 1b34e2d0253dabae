"""Batsim workloads as ``batch``, ``convert`` and ``swf-info`` read them (decision 207).

Errors speak the workload's own terms (``jobs[i] (id X)``, a profile's ``type``,
``nb_res``), ``--lenient`` rounds a fractional ``res`` up as it does an SWF processor
count, ``swf-info`` reads a workload, and the commands that read SWF traces only say that
a JSON file looks like a Batsim workload and which commands read one. Subprocess tests run
the installed ``lpsched``; the others call :func:`lpsched.cli.main` in this process.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from lpsched.cli import main
from tests.cli.test_batsim_cli import WORKLOAD, one_error
from tests.cli.test_cli_subprocess import lpsched, one_json_object


def write(path: Path, doc: Any) -> Path:
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def run_in_process(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    """:func:`lpsched.cli.main` on ``argv`` in this process: (status, stdout, stderr)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def in_process_error(capsys: pytest.CaptureFixture[str], *argv: Any) -> str:
    """Exit 2, nothing on stdout, one ``lpsched: error:`` line (returned)."""
    code, out, err = run_in_process(capsys, *argv)
    assert code == 2 and out == "", (code, out, err)
    assert err.startswith("lpsched: error: ") and err.count("\n") == 1, err
    return err


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


def test_lenient_rounds_a_fractional_res_up(tmp_path, capsys):
    doc = workload()
    doc["jobs"][1]["res"] = 2.5
    path = write(tmp_path / "w.json", doc)
    err = in_process_error(capsys, "batch", path)
    assert "jobs[1] (id 2): res = 2.5: must be a whole number >= 1" in err
    assert "--lenient rounds a fractional res up" in err
    code, out, _ = run_in_process(capsys, "batch", path, "--lenient", "--json", "--out",
                                  tmp_path / "jobs.csv")
    data = json.loads(out)
    assert code == 0 and data["jobs"] == 2 and data["rounded"] == {"res": 1}
    rows = list(csv.DictReader(io.StringIO((tmp_path / "jobs.csv").read_text())))
    assert [r["requested_number_of_resources"] for r in rows] == ["4", "3"]
    code, out, _ = run_in_process(capsys, "swf-info", path, "--lenient", "--json")
    assert code == 0 and json.loads(out)["rounded"] == {"res": 1}
