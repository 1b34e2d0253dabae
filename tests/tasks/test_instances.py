"""Instances: method C (and A, B) from SWF, windows, JSON, validation (seed 000 §3.5.1)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lpsched.errors import InvalidInstanceError, LpschedError, ParseError
from lpsched.tasks.instance import (
    TRACES,
    TaskInstance,
    instance_from_trace,
    load_instance,
    parse_window,
    save_instance,
    trace_info,
)
from tests.tasks.conftest import JOBS


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
