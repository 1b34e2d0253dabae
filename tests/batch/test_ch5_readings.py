"""benchmarks/ch5_readings.py (decisions 405-409 and 419-423 of docs/decisions.md):
the readings' instances, decision 405's identity, and the command line. The cases that read
a trace skip without ``../shared/data``."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lpsched.batch.reproduce import CH5_PLATFORMS, PLATFORM_ALLOCS, period_instance
from tests.shared_data import data_folder, shared_file

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "ch5_readings.py"
_spec = importlib.util.spec_from_file_location("ch5_readings", SCRIPT)
assert _spec is not None and _spec.loader is not None
ch5 = importlib.util.module_from_spec(_spec)
sys.modules["ch5_readings"] = ch5
_spec.loader.exec_module(ch5)


def needs(platform: str) -> Path:
    return shared_file(CH5_PLATFORMS[platform][0])


def test_distinct_periods_never_repeat() -> None:
    firsts = [ch5.distinct_first_period(48, 1, s) for s in range(48)]
    assert sorted(firsts) == list(range(48))
    assert ch5.distinct_first_period(48, 3, 0) < 46  # windows of 3 stay inside the trace


def test_identity_on_hand_made_rows() -> None:
    rows = []
    flows = {("basic", 2.0): 10.0, ("basic", 1.0): 8.0, ("cont", 2.0): 11.0,
             ("cont", 1.0): 10.5}
    for (alloc, factor), f in flows.items():
        rows.append({"reading": "default", "platform": "kth_sp2", "seed": 0, "alloc": alloc,
                     "factor": factor, "sum_flow": f, "sum_flow_ok": f, "jobs": 2,
                     "sum_exec": 3.0, "sum_run": 2.0, "penalised": 1, "failed": 0})
    s = ch5.summarise(rows, "default", "kth_sp2")
    assert s["ratio"]["cont"] == pytest.approx(1.1)
    assert s["P"]["basic"] == pytest.approx(0.2) and s["G"]["cont"] == pytest.approx(0.25)
    assert s["P"]["cont"] == pytest.approx(0.05) and s["identity"] < 1e-12
    assert s["best"] == "cont" and s["failed"]["cont"] == 0.0


def test_default_reading_is_the_package_instance() -> None:
    path = needs("kth_sp2")
    work, topo = ch5.reading_instance("kth_sp2", 3, "default", data_folder())
    ref = period_instance(str(path), 3, 1, "completed")
    assert np.array_equal(work.submit, ref.submit) and np.array_equal(work.size, ref.size)
    assert topo.arity == (16, 4, 4) and topo.installed == 100


def test_readings_change_only_their_input() -> None:
    needs("llnl_thunder")
    base, _ = ch5.reading_instance("llnl_thunder", 0, "default", data_folder())
    nodes, topo = ch5.reading_instance("llnl_thunder", 0, "table", data_folder())
    assert topo.installed == 1024 and np.array_equal(nodes.size * 4, base.size)
    _, tree = ch5.reading_instance("llnl_thunder", 0, "headers", data_folder())
    assert tree.arity == (4, 4, 4, 4, 4, 4) and tree.installed == 4008
    _, c8 = ch5.reading_instance("llnl_thunder", 0, "c8", data_folder())
    assert c8.cluster_size == 8
    with pytest.raises(ValueError, match="expected one of"):
        ch5.reading_instance("llnl_thunder", 0, "nonsense", data_folder())


def test_no_penalty_means_no_inflation() -> None:
    needs("kth_sp2")
    work, topo = ch5.reading_instance("kth_sp2", 0, "default", data_folder())
    for alloc in PLATFORM_ALLOCS:
        one = ch5.run_cell(work, topo, alloc, 1.0)
        assert one["failed"] == 0 and one["sum_exec"] == pytest.approx(one["sum_run"])
    two = ch5.run_cell(work, topo, "basic", 2.0)
    assert two["sum_exec"] > two["sum_run"] and two["penalised"] > 0


def test_command_line(tmp_path: Path) -> None:
    py = ROOT / ".venv" / "bin" / "python"
    exe = str(py) if py.exists() else sys.executable
    done = subprocess.run([exe, str(SCRIPT), "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "--decompose" in done.stdout and done.stderr == ""
    bad = subprocess.run([exe, str(SCRIPT), "--instances", "0", "--out",
                          str(tmp_path / "r.jsonl")], capture_output=True, text=True)
    assert bad.returncode == 2 and "at least 1" in bad.stderr and bad.stdout == ""
    needs("kth_sp2")
    out = tmp_path / "r.jsonl"
    ok = subprocess.run([exe, str(SCRIPT), "--platform", "kth_sp2", "--instances", "1",
                         "--decompose", "--out", str(out)], capture_output=True, text=True,
                        env={"LPSCHED_DATA": str(data_folder()), "PATH": "/usr/bin:/bin"})
    assert ok.returncode == 0, ok.stderr
    assert "| kth_sp2 | 1 |" in ok.stdout and "identity error" in ok.stdout
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2 * len(PLATFORM_ALLOCS)
