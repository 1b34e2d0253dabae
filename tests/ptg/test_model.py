"""Model, validation and files (seed 004 §1)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lpsched.errors import InvalidInstanceError, ParseError
from lpsched.ptg.io import from_dot, load_ptg, ptg_from_dict, to_dot, to_json
from lpsched.ptg.model import CLUSTERS, Cluster, get_cluster, make_ptg
from tests.ptg.helpers import SPEED, chain_fork


def test_table1_clusters() -> None:
    assert {c: (v.processors, v.speed) for c, v in CLUSTERS.items()} == {
        "grelon": (120, 3.185e9), "grillon": (47, 3.379e9), "chti": (20, 4.311e9),
        "gdx": (216, 3.388e9)}
    with pytest.raises(InvalidInstanceError, match="cluster"):
        get_cluster("nowhere")
    with pytest.raises(InvalidInstanceError, match="processors"):
        Cluster("x", 0, 1e9)
    with pytest.raises(InvalidInstanceError, match="speed"):
        Cluster("x", 4, float("nan"))


def test_amdahl_times_and_dummies() -> None:
    g = chain_fork({"a": (100.0, 0.2), "b": (50.0, 0.0), "c": (10.0, 1.0)},
                   [("a", "b"), ("a", "c")])
    assert g.n == 4 and g.dummy.sum() == 1 and g.ids[-1] == "__exit__"  # two sinks
    t = dict(zip(g.ids, g.times(SPEED, 4), strict=True))
    assert t["a"] == pytest.approx(100 * (0.2 + 0.8 / 4))
    assert t["b"] == pytest.approx(12.5)
    assert t["c"] == pytest.approx(10.0)
    assert t["__exit__"] == 0.0
    assert g.levels.tolist() == [0, 1, 1, 2] and g.width == 2


def test_single_entry_added_and_topological() -> None:
    g = chain_fork({"x": (1, 0), "y": (1, 0), "z": (1, 0)}, [("y", "z"), ("x", "z")])
    assert g.ids[0] == "__entry__" and g.dummy[0]
    assert all(u < v for u, v in g.edges.tolist())
    assert len(g.graph.nodes) == 4


@pytest.mark.parametrize(("tasks", "edges", "field"), [
    ([{"id": "a", "work": 0}], [], "tasks[0].work"),
    ([{"id": "a", "work": -3}], [], "tasks[0].work"),
    ([{"id": "a", "work": 1, "alpha": 1.5}], [], "tasks[0].alpha"),
    ([{"id": "a", "work": 1, "alpha": float("nan")}], [], "tasks[0].alpha"),
    ([{"id": "a", "work": 1}, {"id": "a", "work": 1}], [], "tasks[1].id"),
    ([{"id": "a", "work": 1}], [["a", "b"]], "edges[0]"),
    ([{"id": "a", "work": 1}, {"id": "b", "work": 1}], [["a", "b"], ["b", "a"]], "edges"),
    ([{"id": "a", "work": True}], [], "tasks[0].work"),
    ([{"id": "a", "work": 1}], [[["x"], "a"]], "edges[0]"),
    ([{"id": "a", "work": 1}, {"id": "b", "work": 1}], [["a", "b"], ["a", {"k": 1}]],
     "edges[1]"),
    ([{"id": "a", "work": 1}], [[1, "a"]], "edges[0]"),
])
def test_invalid_ptgs_name_the_field(tasks: list, edges: list, field: str) -> None:
    with pytest.raises(InvalidInstanceError) as err:
        ptg_from_dict({"tasks": tasks, "edges": edges})
    assert err.value.field == field


def test_json_round_trip_keeps_extra_keys(tmp_path) -> None:
    data = {"tasks": [{"id": "t0", "work": 1.2e10, "alpha": 0.1, "kind": "fft"},
                      {"id": "t1", "work": 3e9, "alpha": 0.0}],
            "edges": [["t0", "t1"]], "source": "test"}
    g = ptg_from_dict(data, "g")
    back = json.loads(to_json(g))
    assert back["source"] == "test" and back["tasks"][0]["kind"] == "fft"
    assert back["tasks"] == [{**t, "alpha": t["alpha"]} for t in data["tasks"]]
    assert back["edges"] == data["edges"]
    p = tmp_path / "g.json"
    p.write_text(to_json(g))
    assert load_ptg(p).ids == g.ids


def test_dot_round_trip(tmp_path) -> None:
    g = make_ptg(["a", "b c", "d"], [1e9, 2e9, 3e9], [0.1, 0.2, 0.0],
                 [("a", "b c"), ("a", "d")], "dotty")
    h = from_dot(to_dot(g), "dotty")
    assert h.ids == g.ids and np.allclose(h.work, g.work) and np.allclose(h.alpha, g.alpha)
    assert h.edges.tolist() == g.edges.tolist()
    (tmp_path / "x.dot").write_text("digraph x {\n  a -- b;\n}\n")
    with pytest.raises(ParseError):
        load_ptg(tmp_path / "x.dot")


def test_bad_json_file(tmp_path) -> None:
    p = tmp_path / "bad.json"
    p.write_text('{"tasks": [{"id": "a", "work": NaN}]}')
    with pytest.raises(ParseError):
        load_ptg(p)
