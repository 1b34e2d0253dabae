"""The default host speed of a Batsim workload in flops, said where users look.

A Batsim workload's parallel tasks are in flops; without ``--platform`` they run at
1 Gflop/s per host (decision 366), which only ``--help`` said. Now ``batch`` and
``convert`` say it when it applies: one ``lpsched: note:`` line on stderr, or under
``--json`` an ``assumptions`` field (stderr then stays empty, stdout one JSON value); a
workload of delay profiles only, or a run with ``--platform``, assumes nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.cli.test_cli_subprocess import LPSCHED

FLOPS = {"nb_res": 4,
         "jobs": [{"id": 1, "subtime": 0, "res": 2, "walltime": 30, "profile": "h"},
                  {"id": 2, "subtime": 1, "res": 2, "walltime": 30, "profile": "d"}],
         "profiles": {"h": {"type": "parallel_homogeneous", "cpu": 5e9, "com": 0},
                      "d": {"type": "delay", "delay": 3}}}
DELAYS = {**FLOPS, "jobs": [{**FLOPS["jobs"][1], "id": 1}]}  # type: ignore[dict-item]
PLATFORM = """<?xml version='1.0'?>
<platform version="4.1"><zone id="AS0" routing="Full">
  <cluster id="c" prefix="n" suffix="" radical="0-3" speed="2Gf" bw="1GBps" lat="0us"/>
</zone></platform>
"""
NOTE = ("lpsched: note: the workload's parallel tasks are in flops and no --platform gives "
        "the hosts' speed: they run at 1 Gflop/s per host (decision 366)\n")


def run(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    p = subprocess.run([LPSCHED, *argv], capture_output=True, text=True, cwd=cwd, env=env,
                       timeout=120, check=False)
    assert p.returncode == 0, p.stderr
    return p


def test_batch_says_the_default_speed(tmp_path: Path) -> None:
    (tmp_path / "w.json").write_text(json.dumps(FLOPS))
    p = run("batch", "w.json", cwd=tmp_path)
    assert p.stderr == NOTE
    assert "makespan 5 s" in p.stdout  # 5e9 flops at 1 Gflop/s: 5 s (the delay job: 1-4)
    p = run("batch", "w.json", "--json", cwd=tmp_path)
    out = json.loads(p.stdout)
    assert p.stderr == "" and out["assumptions"] == {
        "host_speed": 1e9, "host_speed_source": "default: no --platform (decision 366)"}
    p = run("batch", "w.json", "--out", "-", cwd=tmp_path)  # the summary on stderr too
    assert NOTE in p.stderr and p.stdout.startswith("job_id,")


def test_convert_says_the_default_speed(tmp_path: Path) -> None:
    (tmp_path / "w.json").write_text(json.dumps(FLOPS))
    p = run("convert", "w.json", "-o", "w.swf", cwd=tmp_path)
    assert p.stderr.startswith(NOTE)
    out = json.loads(run("convert", "w.json", "-o", "w.swf", "--json", cwd=tmp_path).stdout)
    assert out["assumptions"]["host_speed"] == 1e9


def test_nothing_is_assumed_with_a_platform_or_without_flops(tmp_path: Path) -> None:
    (tmp_path / "w.json").write_text(json.dumps(FLOPS))
    (tmp_path / "d.json").write_text(json.dumps(DELAYS))
    (tmp_path / "p.xml").write_text(PLATFORM)
    p = run("batch", "w.json", "--platform", "p.xml", cwd=tmp_path)
    assert p.stderr == "" and "makespan" in p.stdout
    out = json.loads(run("batch", "w.json", "--platform", "p.xml", "--json",
                         cwd=tmp_path).stdout)
    assert "assumptions" not in out
    p = run("batch", "d.json", cwd=tmp_path)
    assert p.stderr == ""
    assert "assumptions" not in json.loads(run("batch", "d.json", "--json",
                                               cwd=tmp_path).stdout)


def test_the_help_says_where_it_is_said(tmp_path: Path) -> None:
    text = " ".join(run("batch", "--help", cwd=tmp_path).stdout.split())
    assert "1 Gflop/s" in text and "assumptions" in text
