"""Task instances (``lpsched.tasks.instance``, seed 000 §3.5.1): method C (and A, B) from
SWF, windows, the job selection and the trace's accounting, JSON, validation, and the
rebased releases kept to a microsecond (decision 286)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lpsched.errors import InvalidInstanceError, InvalidScheduleError, LpschedError, ParseError
from lpsched.tasks.instance import (
    MAX_TIME,
    TRACES,
    TaskInstance,
    instance_from_trace,
    load_instance,
    parse_window,
    save_instance,
    trace_info,
    trace_workload,
)
from lpsched.tasks.policies import get_policy
from lpsched.tasks.schedule import validate_schedule
from lpsched.tasks.simulator import evaluate, simulate
from tests.tasks.conftest import JOBS, kth_like, swf_text


def test_method_c_keeps_volume_per_processor(small_swf: Path) -> None:
    inst = instance_from_trace(str(small_swf), window="all", method="C")
    q = np.array([j[2] for j in JOBS], float)
    e = np.array([j[1] for j in JOBS], float)
    big_q = q.mean()  # 4.75
    assert inst.meta["Q"] == pytest.approx(big_q)
    assert inst.processors == round(16 / big_q)  # 3.37 -> 3
    assert np.allclose(inst.p, q * e / big_q)
    assert inst.release[0] == 0 and np.allclose(inst.release, [j[0] for j in JOBS])
    # the ratio volume / processors of the trace is kept (up to the rounding of m/Q)
    assert inst.total_work / (16 / big_q) == pytest.approx((q * e).sum() / 16)


def test_methods_a_and_b(small_swf: Path) -> None:
    a = instance_from_trace(str(small_swf), window="all", method="A")
    b = instance_from_trace(str(small_swf), window="all", method="B")
    q = [j[2] for j in JOBS]
    assert a.processors == b.processors == 16
    assert a.n == sum(q) and b.n == len(JOBS)
    assert a.total_work == pytest.approx(b.total_work)
    assert b.p[0] == 400 and np.all(a.p[:4] == 100)


def test_random_window_is_seeded_and_inside(small_swf: Path) -> None:
    one = instance_from_trace(str(small_swf), window="random:2d", seed=1)
    two = instance_from_trace(str(small_swf), window="random:2d", seed=1)
    assert np.array_equal(one.p, two.p) and np.array_equal(one.release, two.release)
    assert one.release.min() == 0 and one.release.max() <= 2 * 86400
    assert one.meta["window"] == "random:2d" and one.meta["seed"] == 1


def test_parse_window() -> None:
    assert parse_window("random:15d") == ("random", 15 * 86400.0)
    assert parse_window("random:36h") == ("random", 36 * 3600.0)
    assert parse_window("first:90") == ("first", 90.0)
    assert parse_window("all")[0] == "all"
    for bad in ("random", "random:-1d", "weekly:3", "random:0"):
        with pytest.raises(LpschedError):
            parse_window(bad)


def test_json_round_trip_keeps_extra_keys(tmp_path: Path) -> None:
    inst = TaskInstance(3, [0.0, 2.5], [1.0, 4.0], {"note": "x", "seed": 7})
    path = tmp_path / "i.json"
    save_instance(inst, path)
    back = load_instance(path)
    assert back.processors == 3 and back.meta == {"note": "x", "seed": 7}
    assert np.array_equal(back.p, inst.p) and np.array_equal(back.release, inst.release)
    assert json.loads(path.read_text())["tasks"][1] == {"release": 2.5, "p": 4.0}


@pytest.mark.parametrize("data, field", [
    ({"tasks": [{"release": 0, "p": 1}]}, "processors"),
    ({"processors": 0, "tasks": [{"release": 0, "p": 1}]}, "processors"),
    ({"processors": 2.5, "tasks": [{"release": 0, "p": 1}]}, "processors"),
    ({"processors": 2, "tasks": [{"release": -1, "p": 1}]}, "tasks[0].release"),
    ({"processors": 2, "tasks": [{"release": 0, "p": -3}]}, "tasks[0].p"),
    ({"processors": 2, "tasks": [{"release": 0}]}, "tasks[0]"),
    ({"processors": 2, "tasks": [{"release": "0", "p": 1}]}, "tasks[0].release"),
    ({"processors": 2, "tasks": []}, "tasks"),
    ({"processors": 2, "tasks": {}}, "tasks"),
])
def test_invalid_instances_name_the_field(data: dict, field: str) -> None:
    with pytest.raises(InvalidInstanceError) as info:
        TaskInstance.from_dict(data)
    assert info.value.field == field


def test_bad_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"processors": 2, "tasks": [{"release": NaN, "p": 1}]}')
    with pytest.raises(ParseError):
        load_instance(bad)
    bad.write_text("{")
    with pytest.raises(ParseError):
        load_instance(bad)
    with pytest.raises(ParseError):
        load_instance(tmp_path / "missing.json")


def test_table_3_1_rows() -> None:
    assert len(TRACES) == 7
    assert trace_info("x/KTH-SP2-1996-2.1-cln.swf.gz").cpus == 100
    assert trace_info("Curie").params["spt-rd"] == (10, 10)
    assert trace_info("RICC-2010-2.swf.gz").params["gspt-rr"] == (5, 0.2)
    assert trace_info("other.swf") is None


def test_machine_size_needed_without_header(tmp_path: Path) -> None:
    path = tmp_path / "nohead.swf"
    path.write_text("1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 1 -1 -1\n")
    with pytest.raises(ParseError, match="--processors"):
        instance_from_trace(str(path), window="all")
    assert instance_from_trace(str(path), window="all", processors=4).processors == 4


def test_selection_counts_per_status_and_run_time(tmp_path: Path) -> None:
    """The chapter's selection keeps the completed jobs of positive run time; every other
    job is counted with its reason (status, run time 0)."""
    path = kth_like(tmp_path)
    every, m = trace_workload(str(path))
    assert m == 100 and every.jobs == 120
    chapter, _ = trace_workload(str(path), status="completed", zero_run="drop")
    assert chapter.jobs == 12 * 4  # (1, 100), (1, 30), (1, 70), (1, 10)
    assert chapter.dropped == {"status 0 not selected": 24, "status 5 not selected": 12,
                               "status -1 not selected": 12, "run time 0 (field 4 = 0)": 24}
    completed, _ = trace_workload(str(path), status="completed")
    assert completed.jobs == 12 * 6
    with pytest.raises(InvalidInstanceError, match="zero_run"):
        trace_workload(str(path), zero_run="maybe")
    inst = instance_from_trace(str(path), "all", status="completed", zero_run="drop")
    assert inst.n == 48 and inst.meta["jobs_selected"] == {"status": "completed",
                                                           "zero_run": "drop"}
    assert inst.meta["trace_dropped"]["run time 0 (field 4 = 0)"] == 24


def test_dropped_jobs_are_counted_in_the_instance(wide_swf: Path) -> None:
    inst = instance_from_trace(str(wide_swf), "all", processors=4)
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


def test_empty_window_names_the_window(tmp_path: Path) -> None:
    path = tmp_path / "gap.swf"  # two jobs ten days apart: a 1 s window is empty
    path.write_text(swf_text([(0, 600, 4), (864000, 300, 4)], 16))
    with pytest.raises(InvalidInstanceError, match=r"random:1s.*seed 5"):
        instance_from_trace(str(path), "random:1s", seed=5)


def test_far_releases_are_rebased_and_keep_their_durations() -> None:
    """Two tasks released at 1e19 (floats 2,048 s apart there) would give max-flow 0
    unrebased, and SPT's max-stretch at 1e17 3.7631 for 3.7702. Rebased, both equal the
    instance at 0, and the origin is kept (and survives JSON)."""
    near = TaskInstance(1, [0.0, 0.0], [5.0, 3.0])
    far = TaskInstance(1, [1e19, 1e19], [5.0, 3.0])
    assert far.release.tolist() == [0.0, 0.0] and far.meta["release_origin"] == 1e19
    assert evaluate(far, "spt").metrics == evaluate(near, "spt").metrics
    assert evaluate(far, "spt").metrics["max_flow"] == 8.0
    again = TaskInstance.from_dict(far.to_dict())
    assert again.meta["release_origin"] == 1e19 and again.release.tolist() == [0.0, 0.0]
    rng = np.random.default_rng(3)
    r = np.sort(rng.integers(0, 300, 50)) * 32.0  # exact at 1e17 (floats 16 s apart)
    p = rng.uniform(1, 500, 50).round(1)
    base, shifted = TaskInstance(3, r, p), TaskInstance(3, r + 1e17, p)
    assert evaluate(shifted, "spt").metrics == evaluate(base, "spt").metrics
    with pytest.raises(InvalidInstanceError, match="release_origin"):
        TaskInstance(1, [5.0], [1.0], {"release_origin": "yesterday"})


def test_times_beyond_a_microsecond_are_refused() -> None:
    TaskInstance(1, [0.0, MAX_TIME - 10], [1.0, 5.0])
    with pytest.raises(InvalidInstanceError, match=r"tasks\[1\].*kept to 1e-06 s"):
        TaskInstance(1, [0.0, 1e17], [1.0, 5.0])
    inst = TaskInstance(1, [0.0, MAX_TIME - 10], [1.0, 5.0])
    validate_schedule(inst, simulate(inst, get_policy("spt")))
    late = TaskInstance(1, [0.0, 0.0], [0.99 * MAX_TIME] * 2)  # ends beyond 2^33 s
    with pytest.raises(InvalidScheduleError, match="time-resolution"):
        evaluate(late, "fcfs")
