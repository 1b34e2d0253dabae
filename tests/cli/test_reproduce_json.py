"""Every ``lpsched reproduce`` takes ``--json``: one JSON value on stdout
with the seed-vs-ours table under ``vs_seed``; the table itself goes to stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lpsched.cli import build_parser

EXPERIMENTS = ("cbs3m", "contiguity", "platform-level", "topology-aware", "redirection",
               "faircamp", "ostrich", "ptg")


@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_every_reproduction_accepts_json(experiment: str) -> None:
    args = build_parser(["reproduce", experiment]).parse_args(
        ["reproduce", experiment, "--json"])
    assert args.json is True


def test_cbs3m_json_is_one_value_with_the_table(tmp_path: Path) -> None:
    lpsched = Path(sys.executable).with_name("lpsched")
    proc = subprocess.run([str(lpsched), "reproduce", "cbs3m", "--instances", "1",
                           "--out", str(tmp_path / "r"), "--json", "--quiet"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["experiment"] == "cbs3m" and doc["cells"] > 0
    assert doc["vs_seed"]["experiment"] == "cbs3m" and doc["vs_seed"]["rows"]
    assert "cbs3m vs seed, " in proc.stderr and "figure" in proc.stderr
    assert (tmp_path / "r" / "cbs3m_vs_seed.csv").exists()
