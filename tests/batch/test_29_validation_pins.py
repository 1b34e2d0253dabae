"""The speed-up of the batch validation and metrics (issue 29, decisions 480–) keeps every
figure: ``data/validation_29.json`` was written *before* that change (``python -m
tests.batch.test_29_validation_pins --write``) and holds, per case, the sha256 of
:func:`batch_metrics`' JSON (``json.dumps(..., sort_keys=True)``, ``repr`` floats) and of
the validation outcomes (``ok`` or the error's class, message and job) under every forced
rule. Cases: the first 3,000 jobs of a Curie ch. 5 instance and a KTH week under the seven
platform-level allocators (``tests/batch/test_29_tree_speed.py``'s cells), ch. 4's
512-processor Curie draw under ``basic`` / ``cont-ff`` / ``loc`` (``forced_cases``), and
hand-made schedules, each breaking one rule (overlap, wrong size, repeated id, outside the
machine, non-contiguous, non-local, platform level, quasi-contiguity, ...). The traces'
cases skip without ``../shared/data``."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lpsched.batch.schedule import BatchSchedule
from lpsched.batch.topology import fat_tree
from lpsched.core.swf import Workload

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from tests.batch import forced_cases  # noqa: E402
from tests.batch import test_29_tree_speed as tree  # noqa: E402
from tests.shared_data import shared_file  # noqa: E402

FIXTURE = HERE / "data" / "validation_29.json"
RULES = (None, "cont", "cont-ff", "loc", "plat", "contiguous", "quasi-contiguous")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def outcome(call: Any) -> str:
    """``ok`` and the JSON of the value, or the exception's class, message and job."""
    try:
        value = call()
    except Exception as e:
        return f"{type(e).__name__}: {e} | task={getattr(e, 'task', None)}"
    return "ok " + json.dumps(value, sort_keys=True)


def case_digest(work: Workload, sched: BatchSchedule, processors: int,
                topo: Any = None, cluster: int | None = None) -> dict[str, str]:
    """The pinned hashes of one schedule: its metrics, and its validation under each
    rule of :data:`RULES`."""
    from lpsched.batch.validation import batch_metrics, validate_batch

    out = {"metrics": _digest(outcome(lambda: batch_metrics(
        work, sched, processors, cluster_size=cluster, topology=topo)))}
    for rule in RULES:
        for local in (False, True):
            text = outcome(lambda rule=rule, local=local: validate_batch(
                work, sched, processors, cluster_size=cluster, topology=topo, forced=rule,
                local=local))
            out[f"validate/{rule}/{local}"] = _digest(text)
    return out


# --------------------------------------------------------------------------- the traces
def ch5_case(name: str) -> dict[str, str]:
    """A ch. 5 cell (``curie/ALLOC`` or ``kth/ALLOC``) of the tree-speed test."""
    from lpsched.batch.topology import parse_topology

    sched = tree.ch5_run(name)
    work, spec = tree._WORK[name.split("/")[0]]
    topo = parse_topology(spec, int(work.processors))
    return case_digest(work, sched, topo.installed, topo=topo)


def ch4_cases() -> list[str]:
    """``curie-offline-0/ALLOC`` for ch. 4's three allocators."""
    return [f"curie-offline-0/{a}" for a in forced_cases.ALLOCS]


_CH4: dict[str, Any] = {}


def ch4_case(name: str) -> dict[str, str]:
    """A ch. 4 case (512 processors, clusters of 16, conservative + reassign)."""
    from lpsched.batch.simulator import simulate_batch

    inst, alloc = name.split("/")
    if not _CH4:
        _CH4.update(forced_cases.instances())
    work, cluster = _CH4[inst]
    sched, _ = simulate_batch(work, "conservative", alloc=alloc, cluster_size=cluster,
                              compression="reassign")
    return case_digest(work, sched, int(work.processors), cluster=cluster)


# --------------------------------------------------------------------------- hand-made
def _work(size: list[int], submit: list[float] | None = None) -> Workload:
    n = len(size)
    return Workload(job=np.arange(1, n + 1), submit=np.zeros(n) if submit is None else
                    np.array(submit, float), run=np.full(n, 10.0), size=np.array(size),
                    estimate=np.full(n, 10.0), processors=16)


def _sched(start: list[float], procs: list[list[int]], run: float = 10.0) -> BatchSchedule:
    s = np.array(start, float)
    return BatchSchedule(s, s + run, [np.array(p, np.int64) for p in procs],
                         failed=np.zeros(len(start), bool))


def hand_made() -> dict[str, tuple[Workload, BatchSchedule]]:
    """Small schedules on 16 processors (``fat-tree:4,2,2``), each breaking one rule."""
    ok = [[0, 1, 2, 3], [4, 5], [8, 9, 10, 11, 12, 13, 14, 15]]
    return {
        "valid": (_work([4, 2, 8]), _sched([0, 0, 0], ok)),
        "valid-unsorted": (_work([4, 2, 8]), _sched([0, 0, 0], [p[::-1] for p in ok])),
        "valid-shuffled": (_work([4, 3, 5]), _sched([0, 0, 0], [[3, 0, 2, 1], [9, 4, 7],
                                                               [15, 5, 11, 6, 8]])),
        "overlap": (_work([4, 2, 2]), _sched([0, 0, 5], [[0, 1, 2, 3], [4, 5], [5, 6]])),
        "overlap-late": (_work([2, 2, 2]), _sched([0, 20, 25], [[0, 1], [0, 1], [1, 2]])),
        "wrong-size": (_work([4, 3]), _sched([0, 0], [[0, 1, 2, 3], [4, 5]])),
        "repeated-id": (_work([4, 3]), _sched([0, 0], [[0, 1, 2, 3], [4, 5, 5]])),
        "outside": (_work([4, 2]), _sched([0, 0], [[0, 1, 2, 3], [15, 16]])),
        "negative": (_work([2, 2]), _sched([0, 0], [[-1, 0], [4, 5]])),
        "non-contiguous": (_work([4, 3]), _sched([0, 0], [[0, 1, 2, 3], [4, 6, 7]])),
        "non-local": (_work([2, 4, 2]), _sched([0, 0, 0], [[3, 4], [8, 9, 10, 11],
                                                          [12, 13]])),
        "non-local-gap": (_work([3, 2]), _sched([0, 0], [[0, 1, 8], [4, 5]])),
        "level": (_work([2, 4]), _sched([0, 0], [[0, 1], [6, 7, 8, 9]])),
        "quasi": (_work([6, 4]), _sched([0, 0], [[0, 1, 2, 3, 4, 8], [12, 13, 14, 15]])),
        "quasi-far": (_work([5]), _sched([0], [[0, 1, 2, 3, 15]])),
        "never-started": (_work([2, 2]), _sched([0, float("nan")], [[0, 1], [2, 3]])),
        "early": (_work([2, 2], [0, 5]), _sched([0, 1], [[0, 1], [2, 3]])),
        "empty-job": (_work([2, 0]), _sched([0, 0], [[0, 1], []])),
        "too-wide": (_work([2, 20]), _sched([0, 0], [[0, 1], list(range(20))])),
        "many-runs": (_work([6, 4]), _sched([0, 0], [[0, 2, 4, 6, 8, 10], [1, 3, 5, 7]])),
    }


def hand_case(name: str) -> dict[str, str]:
    """The pinned hashes of one hand-made schedule, with and without the tree."""
    work, sched = hand_made()[name]
    topo = fat_tree(4, [2, 2], 16)
    out = {f"tree/{k}": v for k, v in case_digest(work, sched, 16, topo=topo).items()}
    out.update({f"line/{k}": v for k, v in case_digest(work, sched, 16, cluster=4).items()})
    out.update({f"bare/{k}": v for k, v in case_digest(work, sched, 16).items()})
    return out


def compute() -> dict[str, dict[str, str]]:
    """Every case's hashes (the fixture's content)."""
    out = {f"hand/{n}": hand_case(n) for n in hand_made()}
    out.update({f"ch4/{n}": ch4_case(n) for n in ch4_cases()})
    out.update({f"ch5/{n}": ch5_case(n) for n in tree.ch5_cases()})
    return out


def _present() -> None:
    for name in (tree.CURIE, tree.KTH):
        shared_file(name)


def _pinned(key: str) -> dict[str, str]:
    return json.loads(FIXTURE.read_text())[key]


def test_the_fixture_covers_every_case():
    assert sorted(json.loads(FIXTURE.read_text())) == sorted(
        [f"hand/{n}" for n in hand_made()] + [f"ch4/{n}" for n in ch4_cases()]
        + [f"ch5/{n}" for n in tree.ch5_cases()])


@pytest.mark.parametrize("name", list(hand_made()))
def test_hand_made_outcomes_are_unchanged(name):
    assert hand_case(name) == _pinned(f"hand/{name}")


def test_each_hand_made_error_is_seen():
    """The hand-made cases do break their rule (so that the pins cover each message)."""
    from lpsched.batch.validation import validate_batch
    from lpsched.errors import InvalidScheduleError

    topo = fat_tree(4, [2, 2], 16)
    expect = {"overlap": ("overlap", None), "overlap-late": ("overlap", None),
              "wrong-size": ("size", None), "repeated-id": ("size", None),
              "outside": ("processors", None), "negative": ("processors", None),
              "non-contiguous": ("contiguity", "cont"), "non-local": ("locality", "loc"),
              "non-local-gap": ("locality", "loc"), "level": ("platform level", "plat"),
              "outside/quasi": ("quasi-contiguity", "quasi-contiguous"),
              "never-started": ("counts", None), "early": ("release", None)}
    cases = hand_made()
    for key, (rule, forced) in expect.items():
        name = key.split("/")[0]
        work, sched = cases[name]
        with pytest.raises(InvalidScheduleError) as err:
            validate_batch(work, sched, 16, topology=topo if forced else None,
                           cluster_size=4, forced=forced)
        assert err.value.rule == rule, key
    for name in ("valid", "valid-unsorted", "valid-shuffled"):
        validate_batch(cases[name][0], cases[name][1], 16, topology=topo)
    for name in ("quasi", "quasi-far"):  # one processor out: within the threshold
        validate_batch(cases[name][0], cases[name][1], 16, topology=topo,
                       forced="quasi-contiguous")


@pytest.mark.parametrize("name", ch4_cases())
def test_ch4_outcomes_are_unchanged(name):
    _present()
    assert ch4_case(name) == _pinned(f"ch4/{name}")


@pytest.mark.parametrize("name", [n for n in tree.ch5_cases() if n.startswith("kth")]
                         + [pytest.param(n, marks=pytest.mark.slow)
                            for n in tree.ch5_cases() if n.startswith("curie")])
def test_ch5_outcomes_are_unchanged(name):
    _present()
    assert ch5_case(name) == _pinned(f"ch5/{name}")


if __name__ == "__main__" and "--write" in sys.argv:
    FIXTURE.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
