"""Review findings on the tasks family (session 26): nothing dropped silently when a trace
becomes tasks, ``--json`` without ``-o`` is a documented dry run, ``online --csv -`` writes to
stdout, and the clear messages of an empty window and of a bound out of float range."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from lpsched.errors import InvalidInstanceError, LpschedError
from lpsched.tasks.bounds import max_weighted_flow_bound
from lpsched.tasks.instance import TaskInstance, instance_from_trace
from tests.cli.test_cli_subprocess import lpsched, one_json_object
from tests.tasks.conftest import swf_text


@pytest.fixture
def wide(tmp_path: Path) -> Path:
    """Three jobs of 12, 8 and 4 processors: on 4 processors two are too wide."""
    path = tmp_path / "wide.swf"
    path.write_text(swf_text([(0, 600, 12), (60, 300, 8), (120, 1200, 4)], 16))
    return path


def test_dropped_jobs_are_counted_in_the_instance(wide: Path) -> None:
    inst = instance_from_trace(str(wide), "all", processors=4)
    assert inst.meta["jobs"] == 1
    assert inst.meta["trace_records"] == 3
    assert sum(inst.meta["trace_dropped"].values()) == 2
    assert inst.meta["trace_skipped_lines"] == 0


def test_lenient_skips_are_counted(tmp_path: Path) -> None:
    text = swf_text([(0, 600, 4), (60, 300, 4)], 16)
    path = tmp_path / "bad.swf"
    path.write_text(text + "3 130 -1 xx 4 -1 -1 4 100 -1 1 1 1 -1 -1 1 -1 -1\n")
    inst = instance_from_trace(str(path), "all", lenient=True)
    assert inst.meta["trace_skipped_lines"] == 1
    assert sum(inst.meta["trace_dropped"].values()) == 1 and inst.meta["jobs"] == 2


def test_tasks_command_reports_dropped_jobs(wide: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    proc = lpsched("tasks", str(wide), "--window", "all", "--processors", "4", "-o", str(out))
    assert proc.returncode == 0 and proc.stdout == ""
    assert "2 of the trace's 3 job lines dropped" in proc.stderr
    data = json.loads(out.read_text())
    assert data["trace_records"] == 3 and len(data["tasks"]) == 1
    # nothing dropped: no note
    proc = lpsched("tasks", str(wide), "--window", "all", "-o", str(out))
    assert proc.returncode == 0 and "dropped" not in proc.stderr


def test_tasks_json_without_output_is_a_documented_dry_run(wide: Path) -> None:
    summary = one_json_object(lpsched("tasks", str(wide), "--window", "all", "--json"))
    assert summary["tasks"] == 3 and summary["output"] is None
    assert "dry run" in lpsched("tasks", "--help").stdout


def test_empty_window_names_the_window(tmp_path: Path) -> None:
    path = tmp_path / "gap.swf"  # two jobs ten days apart: a 1 s window is empty
    path.write_text(swf_text([(0, 600, 4), (864000, 300, 4)], 16))
    with pytest.raises(InvalidInstanceError, match=r"random:1s.*seed 5"):
        instance_from_trace(str(path), "random:1s", seed=5)


def test_online_csv_dash_writes_stdout(tmp_path: Path) -> None:
    inst = tmp_path / "t.json"
    inst.write_text(json.dumps({"processors": 1, "tasks": [
        {"release": 0, "p": 100}, {"release": 1, "p": 1}, {"release": 2, "p": 1}]}))
    proc = lpsched("online", str(inst), "--policy", "spt,gspt", "--csv", "-", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert [r["policy"] for r in rows] == ["spt", "gspt"]
    assert not (tmp_path / "-").exists()
    proc = lpsched("online", str(inst), "--policy", "spt", "--csv", "-", "--json")
    assert proc.returncode == 2 and proc.stdout == "" and "stdout" in proc.stderr


def test_online_names_the_exact_bound_test(tmp_path: Path) -> None:
    inst = tmp_path / "t.json"
    inst.write_text(json.dumps({"processors": 2, "tasks": [
        {"release": 0, "p": 5}, {"release": 1, "p": 3}, {"release": 1, "p": 3}]}))
    lp = one_json_object(lpsched("online", str(inst), "--policy", "spt", "--bounds", "lp",
                                 "--json"))
    flow = one_json_object(lpsched("online", str(inst), "--policy", "spt", "--json"))
    assert lp["lower_bounds"]["max_stretch"]["test"] == "lp"
    assert flow["lower_bounds"]["max_stretch"]["test"] == "max-flow"
    assert "test" not in flow["lower_bounds"]["sum_flow"]


def test_bound_out_of_float_range_says_what_to_do() -> None:
    """Times beyond MAX_TIME never reach the bounds: the instance is refused (decision
    286); within it, both bounds run."""
    with pytest.raises(LpschedError, match=r"tasks\[1\].*kept to 1e-06 s.*shorten"):
        TaskInstance(2, [0.0, 1e300], [1e300, 1e300])
    inst = TaskInstance(2, [0.0, 1e9], [1e9, 1e9])
    assert max_weighted_flow_bound(inst, weights=[1.0, 1.0]).value == pytest.approx(1e9)
    assert max_weighted_flow_bound(inst, "speed-m", weights=[1.0, 1.0]).value > 0
