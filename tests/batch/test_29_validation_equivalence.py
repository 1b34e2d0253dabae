"""The vectorised validation and metrics (issue 29, decisions 480–483) give what the former
job-by-job code gave on any schedule, odd ones included (unsorted, repeated, negative or
out-of-machine ids, empty jobs, wrong sizes, jobs wider than the tree): the former code is
kept here as the reference (``proc_runs``' global lexsort, ``validate_batch``'s loops over
the jobs for locality and platform level, ``placement_factors``' per-job ``np.unique``,
``batch_metrics``' ``is_local`` per job), and both are run on random schedules; values are
compared by their ``repr`` (bit for bit), errors by class, message and job."""

from __future__ import annotations

import json
import math
from functools import partial
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.batch import validation as v
from lpsched.batch.allocation import is_local
from lpsched.batch.procsets import ProcSets, proc_runs
from lpsched.batch.schedule import BatchSchedule
from lpsched.batch.topology import Topology, fat_tree
from lpsched.core.swf import Workload
from lpsched.errors import InvalidScheduleError


# --------------------------------------------------------------------------- the former code
def old_proc_runs(procs: Any) -> tuple[ProcSets, np.ndarray]:
    """``proc_runs`` before decision 480: one lexsort of every id by (job, id)."""
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


def old_check_levels(work: Workload, sched: BatchSchedule, topology: Topology,
                     forced: str | None, qct: int) -> None:
    if forced not in ("plat", "contiguous", "quasi-contiguous"):
        return
    for j, ids in enumerate(sched.procs):
        size = int(work.size[j])
        if not size and not len(ids):  # decision 390 (after this reference was taken)
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


def old_validate(work: Workload, sched: BatchSchedule, processors: int,
                 contiguous: bool = False, cluster_size: int | None = None,
                 local: bool = False, topology: Topology | None = None,
                 forced: str | None = None, qct: int = 20) -> None:
    contiguous = contiguous or forced in ("cont", "cont-ff")
    local = local or forced == "loc"
    if topology is not None:
        cluster_size = topology.cluster_size
        processors = min(processors or topology.installed, topology.installed)
        old_check_levels(work, sched, topology, forced, qct)
    if np.isnan(sched.start).any():
        raise InvalidScheduleError("counts", "a job never started",
                                   int(np.argmax(np.isnan(sched.start))))
    late = sched.start < work.submit - 1e-9
    if late.any():
        raise InvalidScheduleError("release", "a job started before its submission",
                                   int(np.argmax(late)))
    runs, repeated = old_proc_runs(sched.procs)
    lo, hi, offsets = runs.lo, runs.hi, runs.offsets
    inner = np.ones(lo.size, bool)
    bounds = offsets[1:-1]
    inner[bounds[bounds > 0] - 1] = False
    overlapping = (lo[1:] < hi[:-1]) & inner[:-1]
    if len(runs) != work.jobs or (runs.sizes() != work.size).any() or repeated.any() \
            or (hi <= lo).any() or overlapping.any():
        raise InvalidScheduleError("size", "a job has the wrong number of processors")
    first, last = v._extent(runs)
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


def old_metrics(work: Workload, sched: BatchSchedule, processors: int,
                cluster_size: int | None = None, topology: Topology | None = None,
                ) -> dict[str, Any]:
    """The entries the change touched: ``contiguous_jobs``, ``local_jobs`` and the
    placement factors, as the former code computed them."""
    if topology is not None:
        cluster_size = topology.cluster_size
    runs, _ = old_proc_runs(sched.procs)
    first, last = v._extent(runs)
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
            if not size and not s.size:  # decision 390 (after this reference was taken)
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
def outcome(call: Any) -> str:
    try:
        value = call()
    except Exception as e:  # the error itself is compared
        return f"{type(e).__name__}: {e} | task={getattr(e, 'task', None)}"
    return "ok " + json.dumps(value, sort_keys=True)


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
    old, rep_old = old_proc_runs(procs)
    assert new.offsets.tolist() == old.offsets.tolist()
    assert new.lo.tolist() == old.lo.tolist() and new.hi.tolist() == old.hi.tolist()
    assert rep_new.tolist() == rep_old.tolist()


@settings(max_examples=300, deadline=None)
@given(jobs, st.booleans(), st.sampled_from([1, 2, 4]))
def test_validation_and_metrics_as_the_former_code(spec, size_from_ids, cluster):
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
                    outcome(partial(old_validate, work, sched, 16, **kw)), (rule, local)
    touched = ("contiguous_jobs", "local_jobs", "contiguity_factor", "locality_factor",
               "platform_level_factor")
    for tree in (None, topo):
        for cs in (None, cluster):
            new = outcome(partial(_touched, work, sched, cs, tree, touched))
            assert new == outcome(partial(old_metrics, work, sched, 16, cluster_size=cs,
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
