"""Check a batch schedule, independently of the simulator that made it.

:func:`validate_batch` checks that every job ran once, after its submission, on as many
distinct processors of the machine as it asked for, that no processor ran two jobs at
once, and the shape its allocation rule forces (contiguous, local, at its minimal
platform level, quasi-contiguous). The processor sets are read as runs of consecutive ids
(:func:`~lpsched.batch.procsets.proc_runs`), never from the simulator's state, once per
schedule (:meth:`BatchSchedule.runs`, shared with the measures); the per-job rules
(locality, platform level) are computed from the runs for every job at once
(:mod:`lpsched.batch.placement`). A schedule those readings cannot take (an empty or too
wide job, ids that are not whole numbers) is read job by job, with that reading's own
error, so every value and every message is the same either way.

The measures of a schedule (:func:`batch_metrics`, :func:`placement_factors`,
:func:`above_min_level`) are :mod:`lpsched.batch.schedule`'s, re-exported here.

Notes
-----
Decisions 480-483: one reading of the runs, the per-job rules vectorised, pinned
outputs.
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from lpsched.batch import placement
from lpsched.batch.allocation import is_local
from lpsched.batch.procsets import ProcSets
from lpsched.batch.schedule import BatchSchedule, runs_of
from lpsched.batch.schedule import above_min_level as above_min_level  # re-exported
from lpsched.batch.schedule import batch_metrics as batch_metrics  # re-exported
from lpsched.batch.schedule import placement_factors as placement_factors  # re-exported
from lpsched.batch.topology import Topology
from lpsched.core.swf import Workload
from lpsched.errors import InvalidScheduleError


def validate_batch(work: Workload, sched: BatchSchedule, processors: int,
                   contiguous: bool = False, cluster_size: int | None = None,
                   local: bool = False, topology: Topology | None = None,
                   forced: str | None = None, qct: int = 20) -> None:
    """Check a batch schedule; raise :class:`~lpsched.errors.InvalidScheduleError` if broken.

    Every job ran once, after its submission, on ``size`` distinct processors of the
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
        Their schedule (:func:`~lpsched.batch.simulator.simulate_batch`).
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
    runs, repeated = runs_of(sched)
    lo, hi, offsets = runs.lo, runs.hi, runs.offsets
    inner = np.ones(lo.size, bool)  # run r and r + 1 belong to the same job
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
        cs = int(cluster_size or 0)
        if cs > 0 and placement.integral(sched.procs):
            away = np.flatnonzero(~placement.local(runs, cs)[:upto])
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


def _check_levels(work: Workload, sched: BatchSchedule, topology: Topology,
                  forced: str | None, qct: int) -> None:
    """The platform-level rules of :func:`validate_batch` (``plat``, ``contiguous``,
    ``quasi-contiguous`` on a tree), job by job."""
    if forced not in ("plat", "contiguous", "quasi-contiguous"):
        return
    procs, sizes = sched.procs, work.size
    if len(procs) == work.jobs and sizes.dtype.kind in "iu" and placement.integral(procs) and \
            not (sizes > topology.leaves).any():
        runs, _ = runs_of(sched)
        if (np.diff(runs.offsets) > 0).all():  # every job holds a processor
            least = placement.min_levels(sizes, topology)
            level = placement.levels(runs, topology)
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
    (decision 438). The runs are put in sweep order by numpy and read in chunks
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
