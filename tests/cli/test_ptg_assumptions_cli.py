"""``lpsched ptg schedule`` and ``ptg generate`` state the modelling defaults behind their
numbers (lpsched.ptg.assumptions): a workflow task recorded on one core runs sequentially
unless ``--alpha`` says otherwise, each default is one ``lpsched: note:`` line on stderr and a
record of the ``--json`` output's ``assumptions``; daggen's text output is read; a DOT node
defined twice with different attributes is a warning (subprocess of the installed script)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli_subprocess import lpsched
from tests.ptg.test_daggen_text import DAGGEN_TEXT

# 23.7 s of sequential work recorded on one core each, in a chain, beside a 4-core task
DAX = """<?xml version="1.0" encoding="UTF-8"?>
<adag xmlns="http://pegasus.isi.edu/schema/DAX" version="3.6" name="chain">
  <job id="ID1" name="mProject" runtime="10.0"/>
  <job id="ID2" name="mDiff" runtime="8.7"/>
  <job id="ID3" name="mAdd" runtime="5.0"/>
  <job id="ID4" name="mBg" runtime="6.0" cores="4"/>
  <child ref="ID2"><parent ref="ID1"/></child>
  <child ref="ID3"><parent ref="ID2"/><parent ref="ID4"/></child>
</adag>
"""
SEQUENTIAL = 10.0 + 8.7 + 5.0

WF = {"name": "wf", "schemaVersion": "1.5", "workflow": {
    "specification": {"tasks": [{"name": "a", "id": "a", "parents": []},
                                {"name": "b", "id": "b", "parents": ["a"]}]},
    "execution": {"tasks": [{"id": "a", "runtimeInSeconds": 30.0, "coreCount": 1},
                            {"id": "b", "runtimeInSeconds": 12.5}]}}}


def _run(*argv: str) -> tuple[dict, list[str]]:
    """Exit 0, one JSON object on stdout, the stderr lines (each a note)."""
    p = lpsched(*argv)
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("\n") == 1
    notes = p.stderr.splitlines()
    assert all(n.startswith("lpsched: note: ") for n in notes), p.stderr
    return json.loads(p.stdout), [n.removeprefix("lpsched: note: ") for n in notes]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "chain.dax").write_text(DAX)
    (tmp_path / "wf.json").write_text(json.dumps(WF))
    return {"dax": tmp_path / "chain.dax", "wf": tmp_path / "wf.json"}


@pytest.mark.parametrize(("name", "sequential"), [("dax", SEQUENTIAL), ("wf", 42.5)])
def test_one_core_tasks_run_sequentially_and_say_so(files: dict[str, Path], name: str,
                                                    sequential: float) -> None:
    f = files[name]
    doc, notes = _run("ptg", "schedule", str(f), "--cluster", "64", "--json")
    assert [n for n in notes] == [a["note"] for a in doc["assumptions"]]
    seq = next(a for a in doc["assumptions"] if a["key"] == "alpha_sequential")
    assert seq["alpha"] == 1.0 and seq["tasks"] == 3 if name == "dax" else 2
    assert seq["per_ptg"] == {str(f): seq["tasks"]}
    assert any(n.startswith("alpha = 1 (sequential") and str(f) in n and "--alpha" in n
               for n in notes)
    assert any(n.startswith("recorded runtimes") for n in notes)
    assert not any("flop/s" in n for n in notes)  # runtimes: the speed cancels out
    assert doc["alpha_option"] is None and len(doc["results"]) == 19
    for r in doc["results"]:  # on 64 cores, never below the recorded sequential chain
        assert r["valid"] and r["makespan"] >= sequential * (1 - 1e-9), r["algorithm"]
    assert doc["lower_bounds"]["makespan"]["value"] >= sequential * (1 - 1e-9)


def test_the_alpha_option_lets_the_tasks_spread(files: dict[str, Path]) -> None:
    doc, notes = _run("ptg", "schedule", str(files["dax"]), "--cluster", "64", "--json",
                      "--algorithm", "selfish", "--alpha", "0.1")
    assert doc["alpha_option"] == 0.1
    assert [a["key"] for a in doc["assumptions"]] == ["recorded_runtimes"] and len(notes) == 1
    assert doc["valid"] and doc["makespan"] < SEQUENTIAL  # 10 % sequential: it scales


def test_the_table_prints_the_notes_too(files: dict[str, Path]) -> None:
    p = lpsched("ptg", "schedule", str(files["dax"]), str(files["wf"]), "--cluster", "64",
                "--algorithm", "selfish")
    assert p.returncode == 0 and p.stdout.splitlines()[0].startswith("algorithm")
    notes = p.stderr.splitlines()
    assert notes[0].startswith("lpsched: note: alpha = 1 (sequential")
    assert f"{files['dax']}: 3, {files['wf']}: 2" in notes[0]
    assert any("alpha = 1/cores" in n and "4 cores" in n for n in notes)


@pytest.mark.parametrize("value", ["2", "-0.5", "nan", "x"])
def test_bad_alpha_is_a_usage_error(files: dict[str, Path], value: str) -> None:
    p = lpsched("ptg", "schedule", str(files["dax"]), "--cluster", "64", "--alpha", value)
    assert p.returncode == 2 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1
    assert "--alpha" in p.stderr and "[0, 1]" in p.stderr


def test_daggen_text_output(tmp_path: Path) -> None:
    f = tmp_path / "dg20.txt"
    f.write_text(DAGGEN_TEXT)
    doc, notes = _run("ptg", "schedule", str(f), "--cluster", "64", "--json")
    assert doc["ptgs"] == ["dg20"] and all(r["valid"] for r in doc["results"])
    # its work is flop: the speed of "--cluster 64" is a default, and said so
    assert [a["key"] for a in doc["assumptions"]] == ["speed"]
    assert "--cluster 64 names no speed" in notes[0] and str(f) in notes[0]
    doc, notes = _run("ptg", "schedule", str(f), "--cluster", "64@2e9", "--json")
    assert notes == [] and doc["assumptions"] == []


def test_duplicate_dot_node_is_a_warning(tmp_path: Path) -> None:
    f = tmp_path / "dup.dot"
    f.write_text('digraph G {\n  1 [size="2e9", alpha="0.1"]\n  1 [size="3e9"]\n}\n')
    p = lpsched("ptg", "schedule", str(f), "--cluster", "chti", "--algorithm", "selfish",
                "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["valid"]
    (line,) = p.stderr.splitlines()
    assert line.startswith("lpsched: note: 1 warning (first: dup.dot: node '1' size='3e9' "
                           "(line 3) replaces '2e9' (line 2)")
    same = tmp_path / "same.dot"
    same.write_text('digraph G {\n  1 [size="2e9", alpha="0.1"]\n  1 [size="2e9"]\n}\n')
    p = lpsched("ptg", "schedule", str(same), "--cluster", "chti", "--algorithm", "selfish",
                "--json")
    assert p.returncode == 0 and p.stderr == ""


def test_generate_states_no_default_for_the_seed_classes(tmp_path: Path) -> None:
    out = tmp_path / "g.json"
    p = lpsched("ptg", "generate", "--class", "fft", "--points", "4", "-o", str(out))
    assert p.returncode == 0 and p.stderr.count("\n") == 1 and "note" not in p.stderr
    assert "assumptions" not in json.loads(out.read_text())
    p = lpsched("ptg", "generate", "--class", "random", "--alpha", "0.1")
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1
    assert "--alpha applies to --class wfcommons:" in p.stderr
