"""Checks and measures of a batch schedule, independent of the simulator that made it
(seed 000 §4.10's placement factors; the validation of issue #5): :func:`validate_batch`,
:func:`batch_metrics`, :func:`placement_factors`.

The processor sets are read as runs of consecutive ids
(:func:`~lpsched.batch.procsets.proc_runs`), never from the simulator's state, once per
schedule (:meth:`BatchSchedule.runs`, shared by the validation and the metrics); the
per-job rules (locality, platform level) and the placement factors are computed from the
runs for every job at once (issue 29, decisions 480–483), with the former job-by-job code
kept for the schedules it would stop on with an error of its own (an empty or too wide
job, ids that are not whole numbers), so that every value and every message stays the
same.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

import numpy as np

from lpsched.batch.allocation import is_local
from lpsched.batch.procsets import ProcSets, proc_runs
from lpsched.batch.schedule import BatchSchedule
from lpsched.batch.topology import Topology
from lpsched.core.swf import Workload
from lpsched.errors import InvalidScheduleError


def validate_batch(work: Workload, sched: BatchSchedule, processors: int,
                   contiguous: bool = False, cluster_size: int | None = None,
                   local: bool = False, topology: Topology | None = None,
                   forced: str | None = None, qct: int = 20) -> None:
    """Every job ran once, after its submission, on ``size`` distinct processors of the
    machine, and no processor ran two jobs at once; with ``contiguous`` / ``local`` (or
    ``forced`` = ``"cont"`` / ``"loc"``) every job is contiguous / spans the fewest clusters
    it can (clusters from ``topology`` when given); with a
    ``topology`` and ``forced`` = ``"plat"`` or ``"contiguous"`` every job sits at its
    minimal platform level, with ``"quasi-contiguous"`` every job has at most
    ``⌈qct·size/100⌉`` processors outside its best level-``L_min`` block, all inside one
    level-``L_min + 1`` block.

    Independent of the simulator: the processor sets are read as runs of consecutive ids
    (:func:`~lpsched.batch.procsets.proc_runs`) and one sweep in start order keeps each
    processor's busy-until time as an interval map over the ids (pieces of equal value):
    O(R log R) for R runs, whatever the machine size.

    Parameters
    ----------
    work : Workload
        The jobs (seed 000 §4.5's rigid jobs: submit, run, size, estimate; SWF job numbers).
    sched : BatchSchedule
        Their schedule (:func:`simulate_batch`).
    processors : int
        The machine (ids ``0 .. processors − 1``).
    contiguous, local : bool
        Also require every job contiguous / local.
    cluster_size : int, optional
        Processors per cluster for ``local`` (a topology's when given).
    topology : Topology, optional
        The tree (the platform-level rules, its clusters).
    forced : str, optional
        The allocation rule the schedule was made with (its forced shape is checked).
    qct : int
        Quasi-contiguity threshold, percent (seed 001).
    """
    contiguous = contiguous or forced in ("cont", "cont-ff")
    local = local or forced == "loc"
    if topology is not None:
        cluster_size = topology.cluster_size
        processors = min(processors or topology.installed, topology.installed)
        _check_levels(work, sched, topology, forced, qct)
    if np.isnan(sched.start).any():
        raise InvalidScheduleError("counts", "a job never started",
                                   int(np.argmax(np.isnan(sched.start))))
    late = sched.start < work.submit - 1e-9
    if late.any():
        raise InvalidScheduleError("release", "a job started before its submission",
                                   int(np.argmax(late)))
    runs, repeated = _runs_of(sched)
    lo, hi, offsets = runs.lo, runs.hi, runs.offsets
    inner = np.ones(lo.size, bool)  # run r and r + 1 belong to the same job
    bounds = offsets[1:-1]
    inner[bounds[bounds > 0] - 1] = False
    overlapping = (lo[1:] < hi[:-1]) & inner[:-1]
    if len(runs) != work.jobs or (runs.sizes() != work.size).any() or repeated.any() \
            or (hi <= lo).any() or overlapping.any():
        raise InvalidScheduleError("size", "a job has the wrong number of processors")
    first, last = _extent(runs)
    broken = (last - first != work.size) & (work.size > 0) if contiguous else \
        np.zeros(work.jobs, bool)
    upto = int(np.argmax(broken)) if broken.any() else work.jobs
    if local:
        cs = int(cluster_size or 0)
        if cs > 0 and _integral(sched.procs):
            away = np.flatnonzero(~_local(runs, cs)[:upto])
            if away.size:
                j = int(away[0])
                raise InvalidScheduleError("locality", f"job {j} spans too many clusters", j)
        else:  # the job-by-job reading (its own error without clusters)
            for j in range(upto):
                if not is_local(sched.procs[j], cs):
                    raise InvalidScheduleError("locality", f"job {j} spans too many "
                                               "clusters", j)
    if upto < work.jobs:
        raise InvalidScheduleError("contiguity", f"job {upto} is not contiguous", upto)
    outside = (work.size > 0) & ((first < 0) | (last > processors))
    _sweep(runs, sched.start, sched.end, outside)


def _runs_of(sched: BatchSchedule) -> tuple[ProcSets, np.ndarray]:
    """The schedule's runs, read once per schedule (:meth:`BatchSchedule.runs`)."""
    return sched.runs() if isinstance(sched, BatchSchedule) else proc_runs(sched.procs)


def _integral(procs: Sequence[np.ndarray]) -> bool:
    """Every job's ids are whole numbers (the vectorised readings assume it)."""
    return isinstance(procs, ProcSets) or all(np.asarray(p).dtype.kind in "iu"
                                              for p in procs)


def _clusters_used(runs: ProcSets, cluster_size: int) -> np.ndarray:
    """Per job, the distinct clusters (``id // cluster_size``) of its ids, from its runs
    (increasing): each run's clusters, less one where a run starts in the cluster its
    predecessor of the same job ends in; :meth:`Topology.clusters_used` of every job."""
    first = runs.lo // cluster_size
    last = (runs.hi - 1) // cluster_size
    part = (last - first + 1).astype(np.int64)
    if part.size > 1:
        inner = np.ones(part.size - 1, bool)  # run r and r + 1 belong to the same job
        bounds = runs.offsets[1:-1]
        inner[bounds[(bounds > 0) & (bounds < part.size)] - 1] = False
        part[1:] -= inner & (first[1:] == last[:-1])
    total = np.zeros(part.size + 1, np.int64)
    np.cumsum(part, out=total[1:])
    return total[runs.offsets[1:]] - total[runs.offsets[:-1]]


def _local(runs: ProcSets, cluster_size: int) -> np.ndarray:
    """Per job, :func:`~lpsched.batch.allocation.is_local`: clusters used ``<=
    ⌈size/ℓ⌉`` (the same float division and ceiling)."""
    least = np.ceil(runs.sizes() / cluster_size)
    return _clusters_used(runs, cluster_size) <= least


def _levels(runs: ProcSets, topology: Topology) -> np.ndarray:
    """Per job (each holding at least one id), :meth:`Topology.level_of`: the smallest
    level whose aligned block holds its lowest and highest id."""
    first, last = _extent(runs)
    last = last - 1
    level = np.full(len(runs), topology.levels, np.int64)
    for lvl in range(topology.levels, 0, -1):
        b = topology.block_sizes[lvl - 1]
        level[first // b == last // b] = lvl
    return level


def _min_levels(size: np.ndarray, topology: Topology) -> np.ndarray:
    """Per size (at most the tree's leaves), :meth:`Topology.min_level`: one plus the
    levels whose blocks are smaller."""
    level = np.ones(size.size, np.int64)
    for b in topology.block_sizes:
        level += size > b
    return level


def _extent(runs: ProcSets) -> tuple[np.ndarray, np.ndarray]:
    """Per job its lowest id and its highest id + 1 (0 and 0 for a job without any)."""
    offsets = runs.offsets
    held = np.flatnonzero(np.diff(offsets) > 0)
    first, last = np.zeros(len(runs), np.int64), np.zeros(len(runs), np.int64)
    first[held], last[held] = runs.lo[offsets[held]], runs.hi[offsets[held + 1] - 1]
    return first, last


def _check_levels(work: Workload, sched: BatchSchedule, topology: Topology,
                  forced: str | None, qct: int) -> None:
    """The platform-level rules of :func:`validate_batch` (``plat``, ``contiguous``,
    ``quasi-contiguous`` on a tree), job by job."""
    if forced not in ("plat", "contiguous", "quasi-contiguous"):
        return
    procs, sizes = sched.procs, work.size
    if len(procs) == work.jobs and sizes.dtype.kind in "iu" and _integral(procs) and \
            not (sizes > topology.leaves).any():
        runs, _ = _runs_of(sched)
        if (np.diff(runs.offsets) > 0).all():  # every job holds a processor
            least, level = _min_levels(sizes, topology), _levels(runs, topology)
            for j in np.flatnonzero(level != least).tolist():
                _level_error(j, procs[j], int(sizes[j]), int(least[j]), int(level[j]),
                             topology, forced, qct)
            return
    for j, ids in enumerate(procs):  # the job-by-job reading (its errors on odd jobs)
        size = int(sizes[j])
        if not size and not len(ids):  # a job of no processor has no level (decision 390)
            continue
        lmin, lcur = topology.min_level(size), topology.level_of(ids)
        if lcur != lmin:
            _level_error(j, ids, size, lmin, lcur, topology, forced, qct)


def _level_error(j: int, ids: np.ndarray, size: int, lmin: int, lcur: int,
                 topology: Topology, forced: str | None, qct: int) -> None:
    """Job ``j`` is above its minimal level: the error of :func:`_check_levels`, if its
    rule forbids it."""
    if forced in ("plat", "contiguous"):
        raise InvalidScheduleError("platform level", f"job {j} at level {lcur}, "
                                   f"not its minimal level {lmin}", j)
    if forced == "quasi-contiguous":
        bs = topology.block_sizes[lmin - 1]
        kept = np.bincount(ids // bs).max()
        if lcur > lmin + 1 or size - kept > (qct * size + 99) // 100:
            raise InvalidScheduleError("quasi-contiguity", f"job {j}: {size - kept} "
                                       f"processors outside its block", j)


def _sweep(runs: ProcSets, start: np.ndarray, end: np.ndarray, outside: np.ndarray) -> None:
    """The overlap sweep of :func:`validate_batch`: jobs in start order (a zero-length job
    before its successor); every processor's busy-until time is kept as pieces ``[cut[i],
    cut[i+1])`` (the last up to a sentinel beyond every id), each piece's end and time in
    two dicts by its start. A run's check reads the pieces it covers, which its update then
    replaces by one: amortised O(log R) per run; a run that is exactly one piece (most of
    them: a processor set taken again as it was freed) is two dict reads and a write
    (issue 34, decision 438). The runs are put in sweep order by numpy and read in chunks
    (bounded memory). ``outside[j]``: job ``j`` uses a processor outside the machine (an
    error when the sweep reaches it)."""
    order = np.lexsort((end, start))
    bad = np.flatnonzero(outside[order])
    if bad.size:  # the sweep stops there, unless an overlap comes first
        order = order[: int(bad[0])]
    count = np.diff(runs.offsets)[order]
    total = int(count.sum())
    first_run = np.repeat(runs.offsets[order] - (np.cumsum(count) - count), count)
    idx = first_run + np.arange(total)
    job = np.repeat(order, count)
    limit = start + 1e-9 * np.maximum(1.0, np.abs(start))
    # the pieces: their starts in order (``cut``, ending with a sentinel beyond every id,
    # so that every piece has an end), and by start, each one's end and busy-until time
    beyond = max(int(runs.hi.max()) + 1 if runs.hi.size else 1, 1)
    cut = [0, beyond]
    end_of, busy_of = {0: beyond}, {0: -math.inf}
    right, left, piece_end = bisect.bisect_right, bisect.bisect_left, end_of.get
    for c in range(0, total, 1 << 16):
        part = idx[c:c + (1 << 16)]
        owner = job[c:c + (1 << 16)]
        for a, b, lim, e, j in zip(runs.lo[part].tolist(), runs.hi[part].tolist(),
                                   limit[owner].tolist(), end[owner].tolist(),
                                   owner.tolist(), strict=True):
            if piece_end(a) == b:  # the run is one piece (86 % of Curie's): no cut
                if busy_of[a] > lim:
                    raise InvalidScheduleError("overlap", f"job {j} starts on a busy "
                                               "processor", j)
                busy_of[a] = e
                continue
            i = right(cut, a) - 1
            k = left(cut, b, i + 1)
            if (busy_of[cut[i]] if k == i + 1 else
                    max(map(busy_of.__getitem__, cut[i:k]))) > lim:
                raise InvalidScheduleError("overlap", f"job {j} starts on a busy processor", j)
            if cut[k] > b:  # the piece under b goes on past b: its tail starts at b
                end_of[b], busy_of[b] = cut[k], busy_of[cut[k - 1]]
                new_cut = [a, b]
            else:
                new_cut = [a]
            if cut[i] < a:  # the first piece starts before a: keep its head
                end_of[cut[i]] = a
                i += 1
            for gone in cut[i:k]:
                del end_of[gone], busy_of[gone]
            end_of[a], busy_of[a] = b, e
            cut[i:k] = new_cut
    if bad.size:
        j = int(np.lexsort((end, start))[bad[0]])
        raise InvalidScheduleError("processors", f"job {j} uses a processor outside the "
                                   "machine", j)


def above_min_level(sched: BatchSchedule, topology: Topology) -> np.ndarray:
    """Per job, whether it is spread above its minimal platform level, ``L_cur > L_min``
    (seed 001's quasi-contiguous placements; seed 000 §5.3's ``R > 0``); a job of no
    processor never is. Vectorised over the schedule's runs.

    Parameters
    ----------
    sched : BatchSchedule
        A schedule (:func:`~lpsched.batch.simulator.simulate_batch`).
    topology : Topology
        The tree the jobs ran on.

    Returns
    -------
    numpy.ndarray
        Booleans, one per job.
    """
    runs = _runs_of(sched)[0]
    sizes = runs.sizes()
    return (sizes > 0) & (_levels(runs, topology) > _min_levels(sizes, topology))


def placement_factors(work: Workload, sched: BatchSchedule, topology: Topology,
                      ) -> dict[str, float]:
    """Seed 000 §4.10, means over all jobs: contiguity factor (contiguous runs of ids per
    job), locality factor (clusters used / ``⌈size/ℓ⌉``), platform level factor
    (``L_cur / L_min``); and the success rate (share of jobs not killed by a penalty).

    Parameters
    ----------
    work : Workload
        The jobs (seed 000 §4.5's rigid jobs: submit, run, size, estimate; SWF job numbers).
    sched : BatchSchedule
        Their schedule (:func:`simulate_batch`).
    topology : Topology
        The tree the jobs ran on.

    Returns
    -------
    dict
        ``contiguity_factor``, ``locality_factor``, ``platform_level_factor``,
        ``success_rate`` (floats) and ``failed_jobs`` (int).
    """
    failed = sched.failed if sched.failed is not None else np.zeros(work.jobs, bool)
    procs, sizes = sched.procs, work.size
    if len(procs) == work.jobs > 0 and sizes.dtype.kind in "iu" and _integral(procs) and \
            not ((sizes <= 0) | (sizes > topology.leaves)).any():
        runs_of, _ = _runs_of(sched)
        count = np.diff(runs_of.offsets)
        if (count > 0).all():  # every job holds a processor: the factors job by job,
            # as arrays in job order (the same values and the same np.mean as below)
            least = np.ceil(sizes / topology.cluster_size).astype(np.int64)
            loc_of = _clusters_used(runs_of, topology.cluster_size) / least
            lvl_of = _levels(runs_of, topology) / _min_levels(sizes, topology)
            return {"contiguity_factor": float(np.mean(count)),
                    "locality_factor": float(np.mean(loc_of)),
                    "platform_level_factor": float(np.mean(lvl_of)),
                    "success_rate": float(1 - failed.mean()),
                    "failed_jobs": int(failed.sum())}
    runs, loc, lvl = [], [], []  # the job-by-job reading (its errors on odd jobs)
    for j, ids in enumerate(procs):
        s = np.sort(ids)
        size = int(work.size[j])
        runs.append(1 + int((np.diff(s) != 1).sum()))
        if not size and not s.size:  # on no processor: placed ideally (decision 390)
            loc.append(1.0)
            lvl.append(1.0)
            continue
        loc.append(topology.clusters_used(s) / topology.min_clusters(size))
        lvl.append(topology.level_of(s) / topology.min_level(size))
    return {"contiguity_factor": float(np.mean(runs)), "locality_factor": float(np.mean(loc)),
            "platform_level_factor": float(np.mean(lvl)),
            "success_rate": float(1 - failed.mean()) if work.jobs else 1.0,
            "failed_jobs": int(failed.sum())}


def batch_metrics(work: Workload, sched: BatchSchedule, processors: int,
                  bound: float = 10.0, cluster_size: int | None = None,
                  topology: Topology | None = None) -> dict[str, float]:
    """Wait, flow, stretch, bounded slowdown (bound 10 s), makespan, utilisation, and the
    share of contiguous (and, with clusters, local) jobs; with a topology also the
    placement factors of :func:`placement_factors`.

    Parameters
    ----------
    work : Workload
        The jobs (seed 000 §4.5's rigid jobs: submit, run, size, estimate; SWF job numbers).
    sched : BatchSchedule
        Their schedule (:func:`simulate_batch`).
    processors : int
        The machine (for the utilisation).
    bound : float
        The bounded slowdown's floor on the run time (s; default 10).
    cluster_size : int, optional
        Processors per cluster: adds ``local_jobs``.
    topology : Topology, optional
        Adds :func:`placement_factors`.

    Returns
    -------
    dict
        ``makespan``, ``mean_wait``, ``max_wait``, ``mean_flow`` (s), ``mean_stretch``,
        ``mean_bounded_slowdown``, ``utilisation``, ``contiguous_jobs`` (share), and the
        optional entries above.
    """
    if topology is not None:
        cluster_size = topology.cluster_size
    wait = sched.start - work.submit
    flow = sched.end - work.submit
    runtime = sched.end - sched.start
    bsld = np.maximum(1.0, flow / np.maximum(runtime, bound))
    span = sched.makespan - float(work.submit.min()) if work.jobs else 0.0
    util = float((runtime * work.size).sum() / (processors * span)) if span > 0 else 0.0
    out = {"makespan": sched.makespan, "mean_wait": float(wait.mean()),
           "max_wait": float(wait.max()), "mean_flow": float(flow.mean()),
           "mean_bounded_slowdown": float(bsld.mean()), "utilisation": util,
           "contiguous_jobs": _contiguous_share(_runs_of(sched)[0])}
    # stretch = flow / run time, run times floored at 1 s (decision 52)
    out["mean_stretch"] = float((flow / np.maximum(runtime, 1.0)).mean()) if work.jobs \
        else 0.0
    if cluster_size:
        procs = sched.procs
        if int(cluster_size) > 0 and len(procs) and _integral(procs):
            local = _local(_runs_of(sched)[0], int(cluster_size))
            out["local_jobs"] = float(np.mean(local))
        else:  # the job-by-job reading
            out["local_jobs"] = float(np.mean([is_local(p, cluster_size) for p in procs]))
    if topology is not None:
        out.update(placement_factors(work, sched, topology))
    return out


def _contiguous_share(runs: ProcSets) -> float:
    """The share of jobs on one run of consecutive ids (:func:`is_contiguous` of each),
    read from the runs: ``highest − lowest + 1 = size``."""
    first, last = _extent(runs)
    return float(np.mean(last - first == runs.sizes())) if len(runs) else float("nan")
