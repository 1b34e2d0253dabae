"""Validated workloads and the JSON round trip (seed 002 §1; the workload JSON, decision
110)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lpsched.campaigns.instance import (
    from_dict,
    load_workload,
    make_workload,
    save_workload,
    to_dict,
    topological_order,
)
from lpsched.errors import InvalidInstanceError
from tests.campaigns.helpers import random_workload


def base() -> dict:
    return {"processors": 4, "note": "kept", "campaigns": [
        {"user": 0, "submit": None, "think": 0.0, "jobs": [{"p": 12.0, "q": 1},
                                                             {"p": 3.0, "q": 2, "tag": "x"}],
         "deps": [[0, 1]], "color": "red"},
        {"user": 1, "submit": 5.0, "think": 1.5, "jobs": [{"p": 1.0}]}]}


def test_quantities_of_section_1() -> None:
    w = from_dict(base())
    assert w.campaigns == 2 and w.jobs == 3 and w.users == 2
    assert w.work.tolist() == [18.0, 1.0]          # W = sum p q (area)
    assert w.pmax.tolist() == [12.0, 1.0]
    assert w.lower_bound.tolist() == [12.0, 1.0]   # l = max(W/m, p_max)
    assert w.camp.tolist() == [0, 0, 1]
    assert np.isnan(w.submit[0]) and w.submit[1] == 5.0


def test_round_trip_keeps_extra_keys(tmp_path) -> None:
    w = from_dict(base())
    path = tmp_path / "w.json"
    save_workload(w, path)
    again = load_workload(path)
    d = to_dict(again)
    assert d["note"] == "kept"
    assert d["campaigns"][0]["color"] == "red"
    assert d["campaigns"][0]["jobs"][1]["tag"] == "x"
    assert d["campaigns"][0]["deps"] == [[0, 1]]
    assert d["campaigns"][1]["submit"] == 5.0 and d["campaigns"][0]["submit"] is None
    assert json.loads(json.dumps(d)) == to_dict(from_dict(d))


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d["campaigns"][0].update(jobs=[]), "campaigns[0].jobs"),
    (lambda d: d["campaigns"][0]["jobs"][0].update(q=5), "campaigns[0].jobs[0].q"),
    (lambda d: d["campaigns"][0]["jobs"][0].update(p=-1.0), "campaigns[0].jobs[0].p"),
    (lambda d: d["campaigns"][0]["jobs"][0].update(p=0.0), "campaigns[0].jobs[0].p"),
    (lambda d: d["campaigns"][1].update(think=-1.0), "campaigns[1].think"),
    (lambda d: d["campaigns"][1].update(user=-3), "campaigns[1].user"),
    (lambda d: d["campaigns"][1].update(submit=-2.0), "campaigns[1].submit"),
    (lambda d: d["campaigns"][0].update(deps=[[0, 5]]), "campaigns[0].deps[0]"),
    (lambda d: d["campaigns"][0].update(deps=[[0, 1], [1, 0]]), "deps"),
    (lambda d: d.update(processors=0), "processors"),
    (lambda d: d.update(campaigns=[]), "campaigns"),
    (lambda d: d.update(users=1), "users"),
    (lambda d: d["campaigns"][0]["jobs"][0].update(p="3"), "campaigns[0].jobs[0].p"),
])
def test_bad_input_names_the_field(mutate, field) -> None:
    d = base()
    mutate(d)
    with pytest.raises(InvalidInstanceError) as info:
        from_dict(d)
    assert info.value.field == field


def test_topological_order_detects_cycles() -> None:
    assert topological_order(3, np.array([0, 1]), np.array([1, 2])).tolist() == [0, 1, 2]
    assert topological_order(2, np.array([0, 1]), np.array([1, 0])) is None


def test_random_workloads_round_trip() -> None:
    for seed in range(5):
        w = random_workload(seed, parallel=True, deps=True, open_loop=seed % 2 == 0)
        again = from_dict(to_dict(w))
        assert np.array_equal(again.p, w.p) and np.array_equal(again.q, w.q)
        assert np.array_equal(again.dep_src, w.dep_src)
        assert np.array_equal(np.isnan(again.submit), np.isnan(w.submit))


def test_make_workload_rejects_non_list() -> None:
    with pytest.raises(InvalidInstanceError):
        make_workload(2, {"not": "a list"})  # type: ignore[arg-type]
