"""``lpsched ptg schedule FILE --cluster 64 --json`` on workflow files other tools write
(decisions 370-374): daggen's DOT, WfCommons JSON 1.4/1.5, Pegasus DAX; the unknown-format
error; ``--cluster`` as a processor count (subprocess of the installed console script)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli_subprocess import lpsched
from tests.ptg.test_formats import DAGGEN, DAX, WF14, WF15

FILES = {"daggen.dot": DAGGEN, "wf15.json": json.dumps(WF15), "wf14.json": json.dumps(WF14),
         "mini.dax": DAX}


def one_json_object(proc: subprocess.CompletedProcess[str]) -> Any:
    """Exit 0, stdout one JSON object (one line), stderr only the ``lpsched: note:`` lines
    of the modelling defaults used, each also a record of the JSON's ``assumptions``."""
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith("\n") and proc.stdout.count("\n") == 1, proc.stdout[:300]
    doc = json.loads(proc.stdout)
    notes = proc.stderr.splitlines()
    assert all(n.startswith("lpsched: note: ") for n in notes), proc.stderr
    assert [n.removeprefix("lpsched: note: ") for n in notes] == [
        a["note"] for a in doc["assumptions"]]
    return doc


@pytest.mark.parametrize("name", sorted(FILES))
def test_schedule_each_format(tmp_path: Path, name: str) -> None:
    f = tmp_path / name
    f.write_text(FILES[name])
    doc = one_json_object(lpsched("ptg", "schedule", str(f), "--cluster", "64", "--json"))
    assert doc["cluster"] == "P64@1e+09" and doc["ptgs"] == [json.loads(FILES[name])["name"]
                                                             if name.endswith(".json") else
                                                             {"daggen.dot": "daggen",
                                                              "mini.dax": "mini"}[name]]
    assert doc["algorithm"] == "all" and len(doc["results"]) == 19
    for r in doc["results"]:
        assert r["valid"] is True
        assert r["makespan"] >= doc["lower_bounds"]["makespan"]["value"] * (1 - 1e-9)


def test_one_processor_replays_the_recorded_runtimes(tmp_path: Path) -> None:
    """On one processor, a WfCommons instance takes the sum of its tasks' T(v, 1) = work /
    speed (decisions 371, 484): p1 10 s on 4 cores, α = 1/4, takes 10 / (1/4 + 3/16) s;
    p2 5 s on 1 core, sequential, 5 s; add its own α 0.5, 20 s on 2 cores: 20 / 0.75 s.
    With ``--alpha 0`` p1 is perfectly parallel: 10 s × 4 cores."""
    f = tmp_path / "wf15.json"
    f.write_text(json.dumps(WF15))
    doc = one_json_object(lpsched("ptg", "schedule", str(f), "--cluster", "1@2e9",
                                  "--algorithm", "selfish", "--json"))
    # on 1 processor T(v, 1) = work/s, whatever the speed
    assert doc["makespan"] == pytest.approx(10 / 0.4375 + 5 + 20 / 0.75)
    assert doc["cluster"] == "P1@2e+09"
    doc = one_json_object(lpsched("ptg", "schedule", str(f), "--cluster", "1@2e9",
                                  "--algorithm", "selfish", "--json", "--alpha", "0"))
    assert doc["makespan"] == pytest.approx(40 + 5 + 20 / 0.75)  # add keeps its own α


def test_dax_work_follows_the_cluster_speed(tmp_path: Path) -> None:
    """Runtimes become work at the speed of the cluster used (decision 371): on one
    processor the makespan is 13.5 + 10 / (1/4 + 3/16) + 2.5 s (ID00001 recorded on 4
    cores, α = 1/4, decision 484) at any speed."""
    f = tmp_path / "mini.dax"
    f.write_text(DAX)
    for cluster in ("1@1e9", "1@4e9"):
        doc = one_json_object(lpsched("ptg", "schedule", str(f), "--cluster", cluster,
                                      "--algorithm", "selfish", "--json"))
        assert doc["makespan"] == pytest.approx(13.5 + 10 / 0.4375 + 2.5)


@pytest.mark.parametrize(("name", "content", "words"), [
    ("u.json", '{"foo": 1}', "not a workflow format lpsched reads"),
    ("u.txt", "hello", "not a workflow format lpsched reads"),
    ("bad.dot", 'digraph G {\n  1 [size="2e9"]\n  2 [size="x"]\n}\n', "bad.dot:3:"),
    ("bad.dax", DAX.replace(' runtime="2.5"', ""), "no runtime attribute"),
    ("bad.json", json.dumps({**WF15, "workflow": {**WF15["workflow"], "execution": {}}}),
     "workflow.execution.tasks: missing"),
])
def test_bad_files_one_line_exit_2(tmp_path: Path, name: str, content: str,
                                   words: str) -> None:
    f = tmp_path / name
    f.write_text(content)
    p = lpsched("ptg", "schedule", str(f), "--cluster", "64", "--json")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("lpsched: error:") and p.stderr.count("\n") == 1
    assert words in p.stderr and "Traceback" not in p.stderr
    if "not a workflow format" in words:
        assert "WfCommons JSON" in p.stderr and "Pegasus DAX" in p.stderr


@pytest.mark.parametrize(("cluster", "words"), [
    ("0", "[1, 100000]"), ("64@0", "speed"), ("sixty", "P@SPEED")])
def test_bad_cluster_count(tmp_path: Path, cluster: str, words: str) -> None:
    f = tmp_path / "daggen.dot"
    f.write_text(DAGGEN)
    p = lpsched("ptg", "schedule", str(f), "--cluster", cluster, "--json")
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1
    assert words in p.stderr


def test_help_names_the_formats_and_counts() -> None:
    p = lpsched("ptg", "schedule", "--help")
    assert p.returncode == 0 and p.stderr == ""
    text = " ".join(p.stdout.split())
    assert "WfCommons" in text and "DAX" in text and "64@3.2e9" in text


def test_cluster_from_a_platform_file(tmp_path: Path) -> None:
    from tests.ptg.test_formats import PLATFORM

    plat = tmp_path / "plat.xml"
    plat.write_text(PLATFORM)
    f = tmp_path / "mini.dax"
    f.write_text(DAX)
    doc = one_json_object(lpsched("ptg", "schedule", str(f), "--cluster", str(plat),
                                  "--json"))
    assert doc["cluster"] == "plat" and all(r["valid"] for r in doc["results"])
    missing = tmp_path / "none.xml"
    p = lpsched("ptg", "schedule", str(f), "--cluster", str(missing), "--json")
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1
    assert "none.xml" in p.stderr


def test_platform_option_reads_the_same_cluster_whatever_the_file_name(
        tmp_path: Path) -> None:
    """``--platform FILE`` is ``--cluster FILE.xml`` for a file of any name: the same
    reader, the same cluster, the same answers, and no note of a default speed."""
    from tests.ptg.test_formats import PLATFORM

    (tmp_path / "plat.xml").write_text(PLATFORM)
    (tmp_path / "plat.platform").write_text(PLATFORM)
    f = tmp_path / "g.dot"
    f.write_text(DAGGEN)
    by_cluster = lpsched("ptg", "schedule", str(f), "--cluster", str(tmp_path / "plat.xml"),
                         "--json")
    by_platform = lpsched("ptg", "schedule", str(f), "--platform",
                          str(tmp_path / "plat.platform"), "--json")
    a, b = one_json_object(by_cluster), one_json_object(by_platform)

    def answers(doc: dict) -> list[dict]:  # the results without their timings
        return [{k: v for k, v in r.items() if "seconds" not in k and k != "shared"}
                for r in doc["results"]]

    assert answers(a) == answers(b) and a["lower_bounds"] == b["lower_bounds"]
    assert "names no speed" not in by_platform.stderr
    both = lpsched("ptg", "schedule", str(f), "--platform", str(tmp_path / "plat.xml"),
                   "--cluster", "8")
    assert both.returncode == 2 and "not allowed with" in both.stderr


def test_generate_from_a_wfcommons_recipe(tmp_path: Path) -> None:
    pytest.importorskip("wfcommons")
    out = tmp_path / "montage.json"
    p = lpsched("ptg", "generate", "--class", "wfcommons:montage", "--n", "60", "--seed", "3",
                "-o", str(out))
    assert p.returncode == 0 and p.stdout == "" and str(out) in p.stderr
    first, *notes = p.stderr.splitlines()
    assert "dummy entry/exit" in first and all(n.startswith("lpsched: note: ") for n in notes)
    assert any(n.startswith("lpsched: note: alpha = 1") for n in notes)  # the α default
    assert any("1e+09 flop/s" in n for n in notes)  # the reference speed of the work
    data = json.loads(out.read_text())
    assert data["name"] == "montage-60-s3" and data["reference_speed"] == 1e9
    keys = {a["key"] for a in data["assumptions"]}
    assert "reference_speed" in keys and keys & {"alpha_sequential", "alpha_recorded_cores"}
    doc = one_json_object(lpsched("ptg", "schedule", str(out), "--cluster", "64", "--json",
                                  "--algorithm", "cafm-lptf"))
    assert doc["valid"] is True
    assert doc["makespan"] >= doc["lower_bounds"]["makespan"]["value"] * (1 - 1e-9)
    p = lpsched("ptg", "generate", "--class", "wfcommons:montage", "--n", "3")
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1
    assert "wfcommons:montage with --n 3" in p.stderr
