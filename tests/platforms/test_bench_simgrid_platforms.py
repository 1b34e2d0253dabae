"""benchmarks/bench_simgrid_platforms.py: per file and per command, loads or refused and why,
then the counts of each command (run as a script on a folder of hand-written files)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.platforms.test_projections import BATSIM

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "bench_simgrid_platforms.py"

STAR = """<?xml version='1.0'?>
<platform version="4.1"><zone id="z" routing="Full">
  <host id="m" speed="1Gf"/><host id="a" speed="2Gf"/>
  <link id="l" bandwidth="1MBps"/>
  <route src="m" dst="a" symmetrical="NO"><link_ctn id="l"/></route>
</zone></platform>
"""


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True,
                          text=True, timeout=120, check=False)


def test_each_command_has_its_outcome_and_its_counts(tmp_path: Path) -> None:
    (tmp_path / "a_lab.xml").write_text(BATSIM)
    (tmp_path / "b_star.xml").write_text(STAR)
    (tmp_path / "c_ring.xml").write_text(BATSIM.replace('core="2"', 'topology="RING"'))
    proc = run(str(tmp_path))
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0] == f"== {tmp_path}"
    # the star uses every host without a deployment: the storage host of speed 0 too
    assert ("star: refused: <host id='pfs'> speed = '0f' must be > 0: host 'pfs' computes in "
            "pstate 0 | batch: 4 hosts at 2e+09 flop/s | ptg: 8 x 2e+09 flop/s") in lines[1]
    assert lines[2].endswith("star: ok (1 workers, master m) | batch: 2 hosts at 1e+09 "
                             "flop/s (slowest of 2 speeds) | ptg: refused: hosts of "
                             "different speeds")
    assert lines[3].endswith("star: refused: <cluster id='c' topology='RING'>: expected FLAT, "
                             "TORUS, FAT_TREE or DRAGONFLY")  # not a platform: no command
    assert lines[4:] == [
        "3 files: 1 load as they are, 0 with --master, 2 refused",
        "    1 a host of speed 0", "    1 unknown cluster topology",
        "batch --platform: 2 load, 1 refused", "    1 unknown cluster topology",
        "ptg schedule --cluster FILE: 1 load, 2 refused", "    1 hosts of different speeds",
        "    1 unknown cluster topology"]
    doc = json.loads(run(str(tmp_path), "--json").stdout)[0]
    assert doc["commands"]["ptg"]["refused_by_reason"] == {"hosts of different speeds": 1,
                                                          "unknown cluster topology": 1}
    assert [r["batch"]["outcome"] for r in doc["rows"]] == ["ok", "ok", "refused"]
