"""The batch validation and measures (:func:`validate_batch`, :func:`batch_metrics`,
:func:`placement_factors`) read the processor sets once, as runs, and every job's placement
from them for all jobs at once (decisions 480-483). Two kinds of checks hold them to
what a job-by-job reading gives:

* on random schedules, odd ones included (unsorted, repeated, negative or out-of-machine
  ids, empty jobs, wrong sizes, jobs wider than the tree), against the job-by-job reading
  kept here as the reference (``proc_runs`` by one global lexsort, ``validate_batch``'s
  loops over the jobs for locality and platform level, ``placement_factors``' per-job
  ``np.unique``, ``batch_metrics``' ``is_local`` per job): values compared by their
  ``repr`` (bit for bit), errors by class, message and job;
* pinned outcomes: ``data/validation_outcomes.json`` holds, per case, the sha256 of
  :func:`batch_metrics`' JSON (``json.dumps(..., sort_keys=True)``, ``repr`` floats) and of
  the validation outcomes (``ok`` or the error's class, message and job) under every
  forced rule, as the job-by-job code gave them (``python -m tests.batch.test_validation
  --write`` writes it). Cases: the first 3,000 jobs of a Curie ch. 5 instance and a KTH
  week under the seven platform-level allocators (:mod:`tests.batch.tree_cases`), ch. 4's
  512-processor Curie draw under ``basic`` / ``cont-ff`` / ``loc``
  (:mod:`tests.batch.forced_cases`), and hand-made schedules, each breaking one rule
  (overlap, wrong size, repeated id, outside the machine, non-contiguous, non-local,
  platform level, quasi-contiguity, ...). The traces' cases skip without
  ``../shared/data``.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.batch import placement
from lpsched.batch import validation as v
from lpsched.batch.allocation import is_local
from lpsched.batch.procsets import ProcSets, proc_runs
from lpsched.batch.schedule import BatchSchedule
from lpsched.batch.topology import Topology, fat_tree
from lpsched.core.swf import Workload
from lpsched.errors import InvalidScheduleError

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from tests.batch import forced_cases, tree_cases  # noqa: E402
from tests.shared_data import shared_file  # noqa: E402

FIXTURE = HERE / "data" / "validation_outcomes.json"
#: the rules the pinned outcomes are taken under
PIN_RULES = (None, "cont", "cont-ff", "loc", "plat", "contiguous", "quasi-contiguous")


def outcome(call: Any) -> str:
    """``ok`` and the JSON of the value, or the exception's class, message and job."""
    try:
        value = call()
    except Exception as e:  # the error itself is compared
        return f"{type(e).__name__}: {e} | task={getattr(e, 'task', None)}"
    return "ok " + json.dumps(value, sort_keys=True)


# ------------------------------------------------------- the job-by-job reading, a reference
def lexsort_proc_runs(procs: Any) -> tuple[ProcSets, np.ndarray]:
    """The runs by one lexsort of every id by (job, id) (decision 480 sorts only the
    jobs out of order)."""
    if isinstance(procs, ProcSets):
        return procs, np.zeros(len(procs), bool)
    n = len(procs)
    sizes = np.fromiter((np.size(p) for p in procs), np.int64, n)
    ids = np.concatenate([np.asarray(p, np.int64).ravel() for p in procs]) if n else \
        np.zeros(0, np.int64)
    owner = np.repeat(np.arange(n), sizes)
    order = np.lexsort((ids, owner))
    ids, owner = ids[order], owner[order]
    same = owner[1:] == owner[:-1]
    repeated = np.zeros(n, bool)
    repeated[owner[1:][same & (ids[1:] == ids[:-1])]] = True
    cut = np.flatnonzero(~(same & (ids[1:] == ids[:-1] + 1))) + 1
    starts = np.concatenate([[0], cut]) if ids.size else np.zeros(0, np.int64)
    ends = np.concatenate([cut, [ids.size]]) if ids.size else np.zeros(0, np.int64)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(owner[starts], minlength=n), out=offsets[1:])
    return ProcSets(offsets, ids[starts], ids[ends - 1] + 1), repeated


def jobwise_check_levels(work: Workload, sched: BatchSchedule, topology: Topology,
                     forced: str | None, qct: int) -> None:
    if forced not in ("plat", "contiguous", "quasi-contiguous"):
        return
    for j, ids in enumerate(sched.procs):
        size = int(work.size[j])
        if not size and not len(ids):  # decision 390
            continue
        lmin, lcur = topology.min_level(size), topology.level_of(ids)
        if forced in ("plat", "contiguous") and lcur != lmin:
            raise InvalidScheduleError("platform level", f"job {j} at level {lcur}, "
                                       f"not its minimal level {lmin}", j)
        if forced == "quasi-contiguous" and lcur != lmin:
            bs = topology.block_sizes[lmin - 1]
            kept = np.bincount(ids // bs).max()
            if lcur > lmin + 1 or size - kept > (qct * size + 99) // 100:
                raise InvalidScheduleError("quasi-contiguity", f"job {j}: {size - kept} "
                                           f"processors outside its block", j)


def jobwise_validate(work: Workload, sched: BatchSchedule, processors: int,
                 contiguous: bool = False, cluster_size: int | None = None,
                 local: bool = False, topology: Topology | None = None,
                 forced: str | None = None, qct: int = 20) -> None:
    contiguous = contiguous or forced in ("cont", "cont-ff")
    local = local or forced == "loc"
    if topology is not None:
        cluster_size = topology.cluster_size
        processors = min(processors or topology.installed, topology.installed)
        jobwise_check_levels(work, sched, topology, forced, qct)
    if np.isnan(sched.start).any():
        raise InvalidScheduleError("counts", "a job never started",
                                   int(np.argmax(np.isnan(sched.start))))
    late = sched.start < work.submit - 1e-9
    if late.any():
        raise InvalidScheduleError("release", "a job started before its submission",
                                   int(np.argmax(late)))
    runs, repeated = lexsort_proc_runs(sched.procs)
    lo, hi, offsets = runs.lo, runs.hi, runs.offsets
    inner = np.ones(lo.size, bool)
    bounds = offsets[1:-1]
    inner[bounds[bounds > 0] - 1] = False
    overlapping = (lo[1:] < hi[:-1]) & inner[:-1]
    if len(runs) != work.jobs or (runs.sizes() != work.size).any() or repeated.any() \
            or (hi <= lo).any() or overlapping.any():
        raise InvalidScheduleError("size", "a job has the wrong number of processors")
    first, last = placement.extent(runs)
    broken = (last - first != work.size) & (work.size > 0) if contiguous else \
        np.zeros(work.jobs, bool)
    upto = int(np.argmax(broken)) if broken.any() else work.jobs
    if local:
        for j in range(upto):
            if not is_local(sched.procs[j], int(cluster_size or 0)):
                raise InvalidScheduleError("locality", f"job {j} spans too many clusters", j)
    if upto < work.jobs:
        raise InvalidScheduleError("contiguity", f"job {upto} is not contiguous", upto)
    outside = (work.size > 0) & ((first < 0) | (last > processors))
    v._sweep(runs, sched.start, sched.end, outside)


def jobwise_metrics(work: Workload, sched: BatchSchedule, processors: int,
                cluster_size: int | None = None, topology: Topology | None = None,
                ) -> dict[str, Any]:
    """The entries read from the runs, ``contiguous_jobs``, ``local_jobs`` and the placement
    factors, computed job by job."""
    if topology is not None:
        cluster_size = topology.cluster_size
    runs, _ = lexsort_proc_runs(sched.procs)
    first, last = placement.extent(runs)
    out: dict[str, Any] = {"contiguous_jobs": float(np.mean(last - first == runs.sizes()))
                           if len(runs) else float("nan")}
    if cluster_size:
        out["local_jobs"] = float(np.mean([is_local(p, cluster_size) for p in sched.procs]))
    if topology is not None:
        nruns, loc, lvl = [], [], []
        for j, ids in enumerate(sched.procs):
            s = np.sort(ids)
            size = int(work.size[j])
            nruns.append(1 + int((np.diff(s) != 1).sum()))
            if not size and not s.size:  # decision 390
                loc.append(1.0)
                lvl.append(1.0)
                continue
            loc.append(topology.clusters_used(s) / topology.min_clusters(size))
            lvl.append(topology.level_of(s) / topology.min_level(size))
        out.update({"contiguity_factor": float(np.mean(nruns)),
                    "locality_factor": float(np.mean(loc)),
                    "platform_level_factor": float(np.mean(lvl))})
    return out


# --------------------------------------------------------------------------- comparisons
RULES = (None, "cont", "loc", "plat", "contiguous", "quasi-contiguous")

jobs = st.lists(st.tuples(st.lists(st.integers(-2, 17), max_size=7), st.integers(0, 2),
                          st.integers(0, 30)), min_size=1, max_size=7)


def build(spec: list[tuple[list[int], int, int]], size_from_ids: bool,
          ) -> tuple[Workload, BatchSchedule]:
    n = len(spec)
    procs = [np.array(ids, np.int64) for ids, _, _ in spec]
    size = np.array([len(ids) if size_from_ids else d for ids, d, _ in spec], np.int64)
    start = np.array([float(t) for _, _, t in spec])
    work = Workload(job=np.arange(1, n + 1), submit=np.zeros(n), run=np.full(n, 5.0),
                    size=size, estimate=np.full(n, 5.0), processors=16)
    return work, BatchSchedule(start, start + 5.0, procs, failed=np.zeros(n, bool))


@settings(max_examples=300, deadline=None)
@given(jobs)
def test_proc_runs_as_the_lexsort(spec):
    procs = [np.array(ids, np.int64) for ids, _, _ in spec]
    new, rep_new = proc_runs(procs)
    old, rep_old = lexsort_proc_runs(procs)
    assert new.offsets.tolist() == old.offsets.tolist()
    assert new.lo.tolist() == old.lo.tolist() and new.hi.tolist() == old.hi.tolist()
    assert rep_new.tolist() == rep_old.tolist()


@settings(max_examples=300, deadline=None)
@given(jobs, st.booleans(), st.sampled_from([1, 2, 4]))
def test_validation_and_metrics_as_the_job_by_job_reading(spec, size_from_ids, cluster):
    work, sched = build(spec, size_from_ids)
    topo = fat_tree(cluster, [2] * int(math.log2(16 // cluster)), 16) if cluster < 16 \
        else fat_tree(16, [], 16)
    for rule in RULES:
        for local in (False, True):
            for tree in (None, topo):
                kw = {"cluster_size": cluster, "topology": tree, "forced": rule,
                      "local": local}
                fresh = BatchSchedule(sched.start, sched.end, sched.procs, sched.failed)
                assert outcome(partial(v.validate_batch, work, fresh, 16, **kw)) == \
                    outcome(partial(jobwise_validate, work, sched, 16, **kw)), (rule, local)
    touched = ("contiguous_jobs", "local_jobs", "contiguity_factor", "locality_factor",
               "platform_level_factor")
    for tree in (None, topo):
        for cs in (None, cluster):
            new = outcome(partial(_touched, work, sched, cs, tree, touched))
            assert new == outcome(partial(jobwise_metrics, work, sched, 16, cluster_size=cs,
                                          topology=tree)), (tree, cs)


def _touched(work: Workload, sched: BatchSchedule, cs: int | None, tree: Topology | None,
             keys: tuple[str, ...]) -> dict[str, Any]:
    met = v.batch_metrics(work, sched, 16, cluster_size=cs, topology=tree)
    return {k: val for k, val in met.items() if k in keys}


def test_the_runs_are_read_once_per_schedule():
    """validate_batch and batch_metrics share one reading; a replaced job is read again;
    the cache is neither compared nor pickled."""
    import pickle

    work, sched = build([([3, 1, 2], 0, 0), ([5, 4], 0, 0)], True)
    first = sched.runs()
    v.validate_batch(work, sched, 16)
    v.batch_metrics(work, sched, 16, cluster_size=4)
    assert sched.runs() is first
    assert "_runs" not in pickle.loads(pickle.dumps(sched)).__dict__
    assert "_runs" not in repr(sched)
    sched.procs[1] = np.array([6, 7])  # type: ignore[index]
    assert sched.runs() is not first and sched.runs()[0].lo.tolist() == [1, 6]


def test_ids_beyond_int32_stay_exact():
    big = 2**31 + 5
    runs, rep = proc_runs([np.array([big + 1, big], np.int64), np.array([-(2**31) - 3])])
    assert runs.lo.dtype == np.int64
    assert runs.lo.tolist() == [big, -(2**31) - 3] and runs.hi.tolist() == [big + 2,
                                                                          -(2**31) - 2]
    assert not rep.any()
    small, _ = proc_runs([np.array([2, 1, 0])])
    assert small.lo.dtype == np.int32 and small.hi.tolist() == [3]


# ----------------------------------------------------------------------- pinned outcomes
def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def case_digest(work: Workload, sched: BatchSchedule, processors: int,
                topo: Any = None, cluster: int | None = None) -> dict[str, str]:
    """The pinned hashes of one schedule: its metrics, and its validation under each
    rule of :data:`PIN_RULES`."""
    from lpsched.batch.validation import batch_metrics, validate_batch

    out = {"metrics": _digest(outcome(lambda: batch_metrics(
        work, sched, processors, cluster_size=cluster, topology=topo)))}
    for rule in PIN_RULES:
        for local in (False, True):
            text = outcome(lambda rule=rule, local=local: validate_batch(
                work, sched, processors, cluster_size=cluster, topology=topo, forced=rule,
                local=local))
            out[f"validate/{rule}/{local}"] = _digest(text)
    return out


# --------------------------------------------------------------------------- the traces
def ch5_case(name: str) -> dict[str, str]:
    """A ch. 5 cell (``curie/ALLOC`` or ``kth/ALLOC``) of :mod:`tests.batch.tree_cases`."""
    from lpsched.batch.topology import parse_topology

    sched = tree_cases.ch5_run(name)
    work, spec = tree_cases._WORK[name.split("/")[0]]
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
    out.update({f"ch5/{n}": ch5_case(n) for n in tree_cases.ch5_cases()})
    return out


def _present() -> None:
    for name in (tree_cases.CURIE, tree_cases.KTH):
        shared_file(name)


def _pinned(key: str) -> dict[str, str]:
    return json.loads(FIXTURE.read_text())[key]


def test_the_fixture_covers_every_case():
    assert sorted(json.loads(FIXTURE.read_text())) == sorted(
        [f"hand/{n}" for n in hand_made()] + [f"ch4/{n}" for n in ch4_cases()]
        + [f"ch5/{n}" for n in tree_cases.ch5_cases()])


@pytest.mark.parametrize("name", list(hand_made()))
def test_hand_made_outcomes_are_the_pinned_ones(name):
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
def test_ch4_outcomes_are_the_pinned_ones(name):
    _present()
    assert ch4_case(name) == _pinned(f"ch4/{name}")


@pytest.mark.parametrize("name", [n for n in tree_cases.ch5_cases() if n.startswith("kth")]
                         + [pytest.param(n, marks=pytest.mark.slow)
                            for n in tree_cases.ch5_cases() if n.startswith("curie")])
def test_ch5_outcomes_are_the_pinned_ones(name):
    _present()
    assert ch5_case(name) == _pinned(f"ch5/{name}")


if __name__ == "__main__" and "--write" in sys.argv:
    FIXTURE.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
