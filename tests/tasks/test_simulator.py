"""The result of one simulated policy (``lpsched.tasks.simulator.OnlineResult``) as a
DataFrame: per task with its flow and bounded stretch, per execution piece, and per run as
the row ``lpsched online --json`` prints, all from the instance the run kept."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lpsched.tasks.instance import TaskInstance
from lpsched.tasks.simulator import evaluate

pd = pytest.importorskip("pandas")

#: five tasks on two processors: SRPT preempts, GSPT-RD interrupts and redirects
INST = TaskInstance(2, [0.0, 0.5, 1.0, 1.0, 3.0], [4.0, 1.0, 2.0, 30.0, 1.0])


@pytest.mark.parametrize(("name", "params"), [("srpt", {}), ("gspt-rd", {"md": 1, "tau": 1})])
def test_per_task_rows_give_the_metrics_back(name: str, params: dict[str, float]) -> None:
    res = evaluate(INST, name, **params)
    tasks = res.to_frame()
    assert list(tasks.columns) == ["policy", "task", "completion", "pieces", "proc",
                                   "release", "p", "flow", "stretch"]
    assert (tasks["policy"] == name).all() and len(tasks) == INST.n
    assert tasks.drop(columns="policy").equals(res.schedule.to_frame(per="task", inst=INST))
    assert tasks["stretch"].max() == res.metrics["max_stretch"]
    assert tasks["flow"].max() == res.metrics["max_flow"]
    assert tasks["flow"].sum() == pytest.approx(res.metrics["sum_flow"])
    assert np.sqrt((tasks["stretch"] ** 2).sum()) == pytest.approx(res.metrics["l2_stretch"])
    assert tasks["pieces"].sum() == res.schedule.pieces
    assert tasks["release"].tolist() == INST.release.tolist()


def test_per_task_stretch_uses_the_bound_of_the_metrics() -> None:
    """``evaluate(..., bound=B)`` measures ``F_j / max(p_j, B)``; the frame uses the same B."""
    res = evaluate(INST, "spt", bound=1.0)
    stretch = res.to_frame()["stretch"]
    assert stretch.max() == res.metrics["max_stretch"]
    assert stretch.max() != evaluate(INST, "spt").to_frame()["stretch"].max()


def test_per_piece_rows_are_the_schedules() -> None:
    res = evaluate(INST, "gspt-rd", md=1, tau=1)
    pieces = res.to_frame(per="piece")
    assert list(pieces.columns) == ["policy", "task", "proc", "start", "end", "kind",
                                    "dedicated"]
    assert pieces.drop(columns="policy").equals(res.schedule.to_frame())
    assert (pieces["kind"] == "interrupted").sum() == res.counts["interruptions"] >= 1
    assert pieces.loc[pieces["dedicated"], "kind"].eq("complete").all()


def test_per_run_row_is_the_json_row() -> None:
    res = evaluate(INST, "spt-rd", md=1, tau=2)
    run = res.to_frame(per="run")
    assert len(run) == 1
    assert list(run.columns) == list(res.to_dict())
    row = run.iloc[0].to_dict()
    for key, value in res.to_dict().items():
        assert row[key] == value or (value is None and pd.isna(row[key])), key
    assert (row["md"], row["tau"], row["valid"]) == (1, 2.0, True)


def test_a_result_without_its_instance_gives_the_schedule_columns() -> None:
    """A result built by hand, without the instance: per task, the schedule's own columns
    (no flow or stretch is made up); the instance is never printed."""
    res = evaluate(INST, "fcfs")
    assert "instance" not in repr(res)
    bare = replace(res, instance=None)
    assert list(bare.to_frame().columns) == ["policy", "task", "completion", "pieces", "proc"]
    with pytest.raises(ValueError, match="'task', per 'piece' or per 'run'"):
        res.to_frame(per="job")
