"""How a recorded task becomes an Amdahl task (lpsched.ptg.wfformats, decisions 371 and 484)
and the modelling defaults stated for it (lpsched.ptg.assumptions): a task recorded on one
core is sequential, ``alpha=`` (``--alpha``) sets the α of tasks without their own, a task
recorded on ``c`` cores takes its runtime on them with α = 1/c. Every file is written here."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lpsched.errors import InvalidInstanceError
from lpsched.ptg.assumptions import (
    alpha_assumptions,
    reference_speed_note,
    runtime_assumptions,
    schedule_assumptions,
    speed_note,
)
from lpsched.ptg.io import load_ptg, ptg_from_dict, to_json
from lpsched.ptg.model import get_cluster, speed_is_default
from lpsched.ptg.wfformats import check_alpha, from_dax, from_dot_any, from_wfcommons

# one WfCommons 1.5 instance: a one-core task, a 4-core task, a task with its own alpha,
# and a task recorded with 0 s
WF = {"name": "w", "schemaVersion": "1.5", "workflow": {
    "specification": {"tasks": [
        {"name": "seq", "id": "s", "parents": []},
        {"name": "par", "id": "q", "parents": ["s"]},
        {"name": "own", "id": "o", "parents": ["s"]},
        {"name": "nil", "id": "z", "parents": ["q", "o"]}]},
    "execution": {"tasks": [
        {"id": "s", "runtimeInSeconds": 12.0, "coreCount": 1},
        {"id": "q", "runtimeInSeconds": 8.0, "coreCount": 4},
        {"id": "o", "runtimeInSeconds": 6.0, "coreCount": 2, "alpha": 0.2},
        {"id": "z", "runtimeInSeconds": 0}]}}}


def _by_id(g, values) -> dict[str, float]:
    return {g.ids[v]: float(values[v]) for v in range(g.n) if not g.dummy[v]}


def test_a_one_core_task_is_sequential() -> None:
    g = from_wfcommons(WF, speed=2e9)
    v = g.ids.index("s")
    assert g.alpha[v] == 1.0 and g.alpha_from[v] == "cores"
    # the recorded 12 s on 1, 2, 64 or 10,000 processors: more gains it nothing
    for p in (1, 2, 64, 10_000):
        assert g.times(2e9, p)[v] == pytest.approx(12.0)


def test_a_multi_core_record_runs_its_runtime_on_its_cores() -> None:
    g = from_wfcommons(WF, speed=2e9)
    v = g.ids.index("q")
    assert g.alpha[v] == 0.25 and g.task_extra[v]["cores"] == 4.0
    times = np.array([g.times(2e9, p)[v] for p in (1, 4, 8, 1000)])
    assert times[1] == pytest.approx(8.0)  # its recorded runtime on its recorded cores
    assert times[0] == pytest.approx(8.0 * 16 / 7)  # r·c²/(2c − 1) on one processor
    # the speed-up over one processor never reaches the recorded cores (1/α = 4)
    assert (times[0] / times[1:] < 4).all() and times[3] > 8.0 * 4 / 7 * (1 - 1e-9)
    # work on the recorded cores is the recorded 4 cores × 8 s
    assert 4 * times[1] == pytest.approx(32.0)


def test_the_alpha_option_sets_tasks_without_their_own() -> None:
    g = from_wfcommons(WF, speed=1e9, alpha=0.1)
    a = _by_id(g, g.alpha)
    assert a == {"s": 0.1, "q": 0.1, "o": 0.2, "z": 0.1}  # "o" keeps its own alpha
    origin = {g.ids[v]: g.alpha_from[v] for v in range(g.n) if not g.dummy[v]}
    assert origin == {"s": "option", "q": "option", "o": "file", "z": "option"}
    # each still takes its recorded runtime on its recorded cores
    for tid, runtime, cores in (("s", 12.0, 1), ("q", 8.0, 4), ("o", 6.0, 2)):
        assert g.times(1e9, cores)[g.ids.index(tid)] == pytest.approx(runtime)
    # alpha 0: perfectly parallel, work = runtime × cores × speed
    g0 = from_wfcommons(WF, speed=1e9, alpha=0.0)
    assert _by_id(g0, g0.work)["q"] == pytest.approx(8.0 * 4 * 1e9)
    assert g0.times(1e9, 64)[g0.ids.index("s")] == pytest.approx(12.0 / 64)


def test_dax_tasks_follow_the_same_rule() -> None:
    dax = ('<adag name="d"><job id="a" runtime="23.7"/>'
           '<job id="b" runtime="5" cores="8"/><child ref="b"><parent ref="a"/></child></adag>')
    g = from_dax(dax)
    assert _by_id(g, g.alpha) == {"a": 1.0, "b": 0.125}
    # the sequential 23.7 s stays 23.7 s on 64 processors (alpha 0 made it 0.37 s)
    assert g.times(1e9, 64)[g.ids.index("a")] == pytest.approx(23.7)
    assert from_dax(dax, alpha=0.0).times(1e9, 64)[0] == pytest.approx(23.7 / 64)


def test_zero_runtime_is_raised_and_kept_as_recorded() -> None:
    g = from_wfcommons(WF)
    t = g.task_extra[g.ids.index("z")]
    assert t["runtime"] == 1e-3 and t["recorded_runtime"] == 0.0
    (zero,) = [a for a in runtime_assumptions([g]) if a.key == "zero_runtimes"]
    assert zero.detail["tasks"] == 1 and "0 s" in zero.note


def test_dot_and_json_tasks_without_alpha() -> None:
    g = from_dot_any("digraph { a [work=1e9]; b [work=2e9, alpha=0.3]; a -> b }")
    assert _by_id(g, g.alpha) == {"a": 0.0, "b": 0.3}
    assert [g.alpha_from[g.ids.index(t)] for t in "ab"] == ["absent", "file"]
    h = from_dot_any("digraph { a [work=1e9]; b [work=2e9, alpha=0.3]; a -> b }", alpha=0.5)
    assert _by_id(h, h.alpha) == {"a": 0.5, "b": 0.3}
    j = ptg_from_dict({"tasks": [{"id": "a", "work": 1e9}, {"id": "b", "work": 1e9,
                                                             "alpha": 0.1}]}, alpha=0.4)
    assert _by_id(j, j.alpha) == {"a": 0.4, "b": 0.1}
    assert [j.alpha_from[j.ids.index(t)] for t in "ab"] == ["option", "file"]
    (note,) = alpha_assumptions([g], ["g.dot"])
    assert note.key == "alpha_absent" and note.detail == {"alpha": 0.0, "tasks": 1,
                                                          "per_ptg": {"g.dot": 1}}


def test_alpha_notes_count_each_default() -> None:
    g = from_wfcommons(WF)
    notes = {a.key: a for a in alpha_assumptions([g, g], ["w1.json", "w2.json"])}
    assert set(notes) == {"alpha_sequential", "alpha_recorded_cores"}
    # "s" and "z" (no coreCount: 1 core) in each file; "o" has its own alpha
    seq = notes["alpha_sequential"]
    assert seq.detail == {"alpha": 1.0, "tasks": 4, "per_ptg": {"w1.json": 2, "w2.json": 2}}
    assert "w1.json: 2, w2.json: 2" in seq.note and "--alpha" in seq.note
    cores = notes["alpha_recorded_cores"]
    assert cores.detail["cores"] == [4.0, 4.0] and cores.detail["tasks"] == 2
    assert cores.to_dict()["note"] == cores.note and cores.to_dict()["key"] == cores.key
    # with --alpha, nothing is defaulted
    assert alpha_assumptions([from_wfcommons(WF, alpha=0.2)]) == []


def test_a_written_graph_states_no_default_when_read_back(tmp_path: Path) -> None:
    """A file lpsched writes gives every α itself: reading it back defaults nothing, and
    its work is flop (the speed note applies, the runtime notes do not)."""
    p = tmp_path / "w.json"
    p.write_text(to_json(from_wfcommons(WF)))
    g = load_ptg(p)
    assert set(g.alpha_from) <= {"file", "dummy"} and g.read_from == "json"
    assert alpha_assumptions([g]) == [] and runtime_assumptions([g]) == []
    (speed,) = speed_note([g], get_cluster("8"), "8", ["w.json"])
    assert speed.key == "speed" and speed.detail["flop_per_s"] == 1e9
    assert "--cluster 8@SPEED" in speed.note


def test_the_speed_note_only_when_the_speed_is_a_default_and_matters() -> None:
    trace = from_wfcommons(WF)
    flop = from_dot_any("digraph { a [work=1e9, alpha=0.1] }", "f")
    assert speed_is_default("64") and speed_is_default(" 64 @ ")
    assert not any(speed_is_default(x) for x in ("64@3e9", "gdx", "plat.xml"))
    assert speed_note([flop], get_cluster("gdx"), "gdx") == []  # the seed's speed
    assert speed_note([flop], get_cluster("4@2e9"), "4@2e9") == []  # given
    assert speed_note([trace], get_cluster("4"), "4") == []  # runtimes: speed cancels
    keys = [a.key for a in schedule_assumptions([trace, flop], get_cluster("4"), "4")]
    assert keys == ["alpha_sequential", "alpha_recorded_cores", "recorded_runtimes",
                    "zero_runtimes", "speed"]


def test_reference_speed_note_of_a_generated_graph() -> None:
    g = from_wfcommons(WF, speed=1e9)
    (note,) = reference_speed_note(g, "wfcommons:x")
    assert note.detail == {"flop_per_s": 1e9} and "1e+09 flop/s" in note.note
    assert reference_speed_note(from_dot_any("digraph { a [work=1] }"), "d") == []


def test_check_alpha() -> None:
    assert check_alpha(None, "--alpha") is None and check_alpha(1, "--alpha") == 1.0
    for bad in (-0.1, 1.5, float("nan"), True):
        with pytest.raises(InvalidInstanceError, match="--alpha"):
            check_alpha(bad, "--alpha")


def test_load_ptg_passes_the_option_to_every_reader(tmp_path: Path) -> None:
    (tmp_path / "w.json").write_text(json.dumps(WF))
    (tmp_path / "g.dot").write_text("digraph { a [work=1e9] }")
    g = load_ptg(tmp_path / "w.json", alpha=0.3)
    assert _by_id(g, g.alpha) == {"s": 0.3, "q": 0.3, "o": 0.2, "z": 0.3}
    assert load_ptg(tmp_path / "g.dot", alpha=0.3).alpha.tolist() == [0.3]
