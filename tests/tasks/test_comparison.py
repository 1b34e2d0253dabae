"""``lpsched.tasks.comparison``: every online policy's row on one task instance as a
DataFrame, the same rows as ``lpsched online INSTANCE --policy all --table`` prints (the
installed command, run here), ``--json`` and ``--csv`` write."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lpsched.errors import LpschedError
from lpsched.tasks.comparison import METRICS, compare_policies
from lpsched.tasks.instance import TaskInstance

pd = pytest.importorskip("pandas")

LPSCHED = str(Path(sys.executable).with_name("lpsched"))
#: the table's ratio columns and the row fields they print
RATIOS = {"maxS/LB": "max_stretch_over_lb", "maxF/LB": "max_flow_over_lb",
          "sumF/LB": "sum_flow_over_lb"}
#: 6 tasks on 3 processors (a 30-second task: RD redirects it), and 2 tasks on 1 processor
#: (no dedicated pool can be set aside: the redirection policies are skipped)
INSTANCES = {
    "m3": {"processors": 3, "tasks": [{"release": r, "p": p} for r, p in (
        (0, 4), (0.5, 1), (1, 2), (1, 30), (3, 1), (3.5, 7))]},
    "m1": {"processors": 1, "tasks": [{"release": 0, "p": 4}, {"release": 0.5, "p": 1}]},
}


def fmt(value: Any) -> str:
    """``lpsched online``'s number format."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return f"{value:.4g}"


def table(stdout: str) -> list[list[str]]:
    """The policy lines of the table, split in cells (a skipped policy has two)."""
    lines = stdout.splitlines()
    head = lines[0].split()
    assert head == ["policy", *METRICS, *RATIOS, "redirect", "seconds"]
    end = next(i for i, line in enumerate(lines) if line.startswith("lower bound"))
    return [line.split() for line in lines[1:end]]


@pytest.mark.parametrize("name", list(INSTANCES))
def test_the_frame_is_the_table(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(INSTANCES[name]))
    proc = subprocess.run([LPSCHED, "online", str(path), "--policy", "all", "--table"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    res = compare_policies(TaskInstance.from_dict(INSTANCES[name]))
    frame = res.to_frame()
    printed = table(proc.stdout)
    assert frame["policy"].tolist() == [cells[0] for cells in printed]
    for record, cells in zip(frame.to_dict("records"), printed, strict=True):
        if record["status"] == "skipped":
            assert cells[1:] == ["skipped:"]
            assert f"{record['policy']} skipped: {record['reason']}" in proc.stdout
            assert all(pd.isna(record[m]) for m in METRICS)
            continue
        want = [*(fmt(record[m]) for m in METRICS), *(fmt(record[r]) for r in RATIOS.values()),
                str(int(record["redirections"]))]  # float64 when some policy was skipped
        assert cells[1:-1] == want, record["policy"]
    for key, bound in res.bounds.items():
        assert (frame[f"lb_{key}"] == bound["value"]).all()
        assert (frame[f"lb_{key}_kind"] == bound["bound"]).all()
        ok = frame["status"] == "ok"
        assert (frame.loc[ok, f"{key}_over_lb"] * bound["value"]).tolist() == \
            pytest.approx(frame.loc[ok, key].tolist())
    skipped = (frame["status"] == "skipped").sum()
    assert skipped == (4 if name == "m1" else 0)


def test_json_and_csv_rows_are_the_frames(tmp_path: Path) -> None:
    path = tmp_path / "m3.json"
    path.write_text(json.dumps(INSTANCES["m3"]))
    out = tmp_path / "rows.csv"
    proc = subprocess.run([LPSCHED, "online", str(path), "--policy", "spt,spt-rd", "--json",
                           "--csv", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    frame = compare_policies(TaskInstance.from_dict(INSTANCES["m3"]), ["spt", "spt-rd"]
                             ).to_frame()
    with out.open() as fh:
        written = list(csv.DictReader(fh))
    for row, record, line in zip(rows, frame.to_dict("records"), written, strict=True):
        for key, value in row.items():
            if key in ("seconds", "lower_bounds"):
                continue
            assert record[key] == value or (value is None and pd.isna(record[key])), key
        assert set(line) <= set(frame.columns)  # the CSV's columns, without the bounds


def test_named_policy_that_cannot_run_is_an_error() -> None:
    inst = TaskInstance.from_dict(INSTANCES["m1"])
    with pytest.raises(LpschedError, match="policy spt-rd: a dedicated pool needs m >= 2"):
        compare_policies(inst, ["spt-rd"])
    with pytest.raises(LpschedError, match="unknown policy 'lifo'"):
        compare_policies(inst, "spt,lifo")
    with pytest.raises(LpschedError, match="bounds 'tight'"):
        compare_policies(inst, bounds="tight")
    assert compare_policies(inst, bounds="none").to_frame().filter(like="lb_").empty
