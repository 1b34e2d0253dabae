"""Batch-cluster simulator for rigid jobs: FCFS, EASY and conservative backfilling
(issue #5; seed 000 ch. 4–5, seed 001).

Jobs arrive online (``Workload``: submit, run, size, estimate). Scheduling decisions use the
**estimates** (what the user requested); jobs then run their actual time (``kill=True``
stops them at the estimate). After every instant's events (jobs ending first, then
submissions — a job ending at ``t`` frees its processors for jobs starting at ``t``) one
scheduling pass runs:

* ``fcfs``: start queued jobs in order while the head fits;
* ``easy``: as FCFS, then the head gets a reservation at the earliest time enough
  processors are free (from the running jobs' estimated ends), and any later job that fits
  now without delaying that reservation starts (backfilling);
* ``conservative``: every queued job, in order, gets the earliest reservation that delays no
  earlier one; the jobs whose reservation is now start. Reservations are rebuilt at every
  pass from the current state, so a job ending early compresses the schedule (seed 000
  §5.5); a reservation never moves later unless a job overruns its estimate.

Processors are chosen by an allocation rule (:mod:`lpsched.sim.allocation`; default
``basic``, the lowest-numbered free ones), on a line of processors or, with a
:class:`~lpsched.instances.topology.Topology`, on the leaves of a tree (uninstalled leaves
never free). A forced rule that cannot place a job leaves it queued until the next event.

Placement-dependent run times (fixed when a job starts, the scheduler still plans with the
estimates):

* ``penalty=("linear", F)`` or ``("quadratic", F)`` — seed 000 §5.3.4 Eq. 5.1/5.2 with
  ``R = L_cur − L_min``: ``T' = T·(1 + R·F)`` or ``T' = T·F^R``; a job with
  ``T' > estimate`` is killed at its estimate and counted failed (success rate, §4.4);
* ``speedup=s`` (percent) — seed 001 §5.1: under ``contiguous``/``quasi-contiguous``
  allocation every job of two or more processors runs ``T·(1 − s/100)``.
"""

from __future__ import annotations

import bisect
import math
import time as _time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from lpsched.errors import InvalidInstanceError, InvalidScheduleError
from lpsched.instances.swf import Workload
from lpsched.instances.topology import Topology
from lpsched.sim.allocation import (
    ALLOCATORS,
    NEEDS_CLUSTERS,
    NEEDS_TOPOLOGY,
    allocate,
    is_contiguous,
    is_local,
)
from lpsched.sim.engine import Engine

POLICIES = ("fcfs", "easy", "conservative")
END, SUBMIT, PASS = range(3)


class Profile:
    """Free processors over time: ``free[i]`` on ``[times[i], times[i+1])``, last to ∞."""

    def __init__(self, now: float, free_now: int) -> None:
        self.times = [now]
        self.free = [free_now]

    def release(self, at: float, count: int) -> None:
        """``count`` processors become free from ``at`` on."""
        self._split(at)
        for i in range(len(self.times)):
            if self.times[i] >= at:
                self.free[i] += count

    def _split(self, at: float) -> int:
        i = bisect.bisect_right(self.times, at) - 1
        if self.times[i] == at:
            return i
        self.times.insert(i + 1, at)
        self.free.insert(i + 1, self.free[i])
        return i + 1

    def earliest(self, size: int, length: float) -> float:
        """Earliest start where ``size`` processors stay free for ``length`` (one pass)."""
        times, free = self.times, self.free
        n = len(times)
        start = None
        for i in range(n):
            if free[i] < size:
                start = None
                continue
            if start is None:
                start = times[i]
            if (times[i + 1] if i + 1 < n else math.inf) - start >= length:
                return start
        raise InvalidInstanceError("size", size, "no time ever has enough processors")

    def reserve(self, start: float, length: float, size: int) -> None:
        """Take ``size`` processors during ``[start, start + length)``."""
        self._split(start)
        self._split(start + length)
        a, b = self.times.index(start), self.times.index(start + length)
        for i in range(a, b):
            self.free[i] -= size


@dataclass(frozen=True)
class BatchSchedule:
    """Per job (workload order): start, end, and its processors (``procs[j]`` array)."""

    start: np.ndarray
    end: np.ndarray
    procs: list[np.ndarray]
    failed: np.ndarray | None = None  # killed by a placement penalty (seed 000 §4.4)

    @property
    def makespan(self) -> float:
        return float(self.end.max()) if self.end.size else 0.0


PENALTIES = ("linear", "quadratic")


def simulate_batch(work: Workload, policy: str = "easy", processors: int | None = None,
                   kill: bool = False, alloc: str = "basic",
                   cluster_size: int | None = None, topology: Topology | None = None,
                   qct: int = 20, penalty: tuple[str, float] | None = None,
                   speedup: float = 0.0) -> tuple[BatchSchedule, dict[str, Any]]:
    """Run ``policy`` on ``work`` with the allocation rule ``alloc`` (module doc); returns
    the schedule and run statistics. ``topology`` (its ``installed`` = the machine) gives
    the tree for ``beplat``/``plat``/``contiguous``/``quasi-contiguous`` (``qct`` percent),
    the clusters for ``beloc``/``loc`` and the levels for ``penalty``."""
    if alloc not in ALLOCATORS:
        raise InvalidInstanceError("alloc", alloc, f"must be one of {ALLOCATORS}")
    if topology is not None:
        cluster_size = topology.cluster_size
    if alloc in NEEDS_CLUSTERS and not cluster_size:
        raise InvalidInstanceError("cluster_size", cluster_size, f"{alloc!r} needs clusters")
    if (alloc in NEEDS_TOPOLOGY or penalty is not None) and topology is None:
        what = repr(alloc) if penalty is None else "a penalty"
        raise InvalidInstanceError("topology", None, f"{what} needs a tree topology "
                                   "(--topology)")
    if penalty is not None and (penalty[0] not in PENALTIES or not penalty[1] >= 0):
        raise InvalidInstanceError("penalty", penalty, f"expected one of {PENALTIES} with a "
                                   "factor >= 0, e.g. quadratic:2")
    if not 0 <= speedup < 100:
        raise InvalidInstanceError("speedup", speedup, "must be a percentage in [0, 100)")
    if not 0 <= qct <= 100:
        raise InvalidInstanceError("qct", qct, "must be a percentage in [0, 100]")
    if policy not in POLICIES:
        raise InvalidInstanceError("policy", policy, f"must be one of {POLICIES}")
    m = processors or work.processors
    if topology is not None:
        if m and m < topology.installed:  # the leaves past the machine are uninstalled
            topology = replace(topology, installed=int(m))
        m = topology.installed
    if m is None or m < 1:
        raise InvalidInstanceError("processors", m, "unknown: give the machine size")
    if (work.size > m).any():
        raise InvalidInstanceError("size", int(work.size.max()), f"wider than {m} processors")
    n = work.jobs
    run = np.minimum(work.run, work.estimate) if kill else work.run.copy()
    if speedup and alloc in ("contiguous", "quasi-contiguous"):
        run = np.where(work.size >= 2, run * (1 - speedup / 100), run)
    est = np.maximum(work.estimate, 0.0)
    failed = np.zeros(n, bool)
    eng = Engine()
    free = topology.free_mask() if topology is not None else np.ones(m, bool)
    queue: list[int] = []
    running: dict[int, float] = {}  # job -> estimated end
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    procs: list[np.ndarray] = [np.zeros(0, int)] * n
    pending = {"pass": False}

    def request() -> None:
        if not pending["pass"]:
            pending["pass"] = True
            eng.at(eng.now, scheduling_pass, PASS)

    def begin(j: int) -> bool:
        ids = allocate(alloc, free, int(work.size[j]), cluster_size, topology, qct)
        if ids is None:
            return False
        free[ids] = False
        procs[j] = ids
        start[j] = eng.now
        length = run[j]
        if penalty is not None:
            assert topology is not None
            r = topology.level_of(ids) - topology.min_level(int(work.size[j]))
            length *= (1 + r * penalty[1]) if penalty[0] == "linear" else penalty[1] ** r
            if length > est[j]:
                length, failed[j] = est[j], True
        end[j] = eng.now + length
        running[j] = eng.now + est[j]
        eng.at(end[j], lambda j=j: finish(j), END)
        return True

    def finish(j: int) -> None:
        free[procs[j]] = True
        del running[j]
        request()

    def submit(j: int) -> None:
        queue.append(j)
        request()

    def profile() -> Profile:
        prof = Profile(eng.now, int(free.sum()))
        for j, e in sorted(running.items(), key=lambda x: x[1]):
            prof.release(max(e, eng.now), int(work.size[j]))
        return prof

    def scheduling_pass() -> None:
        pending["pass"] = False
        # FCFS part of every policy (a forced allocation may refuse the head)
        while queue and work.size[queue[0]] <= free.sum() and begin(queue[0]):
            queue.pop(0)
        if not queue or policy == "fcfs":
            return
        prof = profile()
        now = eng.now
        started: list[int] = []
        for pos, j in enumerate(queue):
            size, length = int(work.size[j]), float(est[j])
            t = prof.earliest(size, length)
            if t <= now and size <= free.sum() and begin(j):
                prof.reserve(now, max(length, 1e-12), size)
                started.append(j)
            elif pos == 0 or policy == "conservative":
                prof.reserve(t, max(length, 1e-12), size)
        for j in started:
            queue.remove(j)

    order = np.lexsort((np.arange(n), work.submit))
    for j in order:
        eng.at(float(work.submit[j]), lambda j=int(j): submit(j), SUBMIT)
    t0 = _time.perf_counter()
    eng.run()
    seconds = _time.perf_counter() - t0
    return BatchSchedule(start, end, procs, failed), {"events": eng.processed,
                                                      "seconds": seconds}


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
    level-``L_min + 1`` block."""
    contiguous = contiguous or forced == "cont"
    local = local or forced == "loc"
    if topology is not None:
        cluster_size = topology.cluster_size
        processors = min(processors or topology.installed, topology.installed)
        for j, ids in enumerate(sched.procs):
            size = int(work.size[j])
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
    if np.isnan(sched.start).any():
        raise InvalidScheduleError("counts", "a job never started",
                                   int(np.argmax(np.isnan(sched.start))))
    late = sched.start < work.submit - 1e-9
    if late.any():
        raise InvalidScheduleError("release", "a job started before its submission",
                                   int(np.argmax(late)))
    sizes = np.array([p.size for p in sched.procs])
    if (sizes != work.size).any() or any(np.unique(p).size != p.size for p in sched.procs):
        raise InvalidScheduleError("size", "a job has the wrong number of processors")
    for j, ids in enumerate(sched.procs):
        if contiguous and not is_contiguous(ids):
            raise InvalidScheduleError("contiguity", f"job {j} is not contiguous", j)
        if local and not is_local(ids, int(cluster_size or 0)):
            raise InvalidScheduleError("locality", f"job {j} spans too many clusters", j)
    job = np.repeat(np.arange(work.jobs), sizes)
    proc = np.concatenate(sched.procs) if work.jobs else np.zeros(0, int)
    if proc.size and (proc.min() < 0 or proc.max() >= processors):
        raise InvalidScheduleError("processors", "a processor outside the machine")
    order = np.lexsort((sched.start[job], proc))
    same = proc[order][1:] == proc[order][:-1]
    clash = sched.start[job][order][1:] < sched.end[job][order][:-1] - 1e-9
    if (same & clash).any():
        i = int(job[order][1:][np.argmax(same & clash)])
        raise InvalidScheduleError("overlap", f"job {i} starts on a busy processor", i)


def placement_factors(work: Workload, sched: BatchSchedule, topology: Topology,
                      ) -> dict[str, float]:
    """Seed 000 §4.10, means over all jobs: contiguity factor (contiguous runs of ids per
    job), locality factor (clusters used / ``⌈size/ℓ⌉``), platform level factor
    (``L_cur / L_min``); and the success rate (share of jobs not killed by a penalty)."""
    runs, loc, lvl = [], [], []
    for j, ids in enumerate(sched.procs):
        s = np.sort(ids)
        size = int(work.size[j])
        runs.append(1 + int((np.diff(s) != 1).sum()))
        loc.append(topology.clusters_used(s) / topology.min_clusters(size))
        lvl.append(topology.level_of(s) / topology.min_level(size))
    failed = sched.failed if sched.failed is not None else np.zeros(work.jobs, bool)
    return {"contiguity_factor": float(np.mean(runs)), "locality_factor": float(np.mean(loc)),
            "platform_level_factor": float(np.mean(lvl)),
            "success_rate": float(1 - failed.mean()) if work.jobs else 1.0,
            "failed_jobs": int(failed.sum())}


def batch_metrics(work: Workload, sched: BatchSchedule, processors: int,
                  bound: float = 10.0, cluster_size: int | None = None,
                  topology: Topology | None = None) -> dict[str, float]:
    """Wait, flow, stretch, bounded slowdown (bound 10 s), makespan, utilisation, and the
    share of contiguous (and, with clusters, local) jobs; with a topology also the
    placement factors of :func:`placement_factors`."""
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
           "contiguous_jobs": float(np.mean([is_contiguous(p) for p in sched.procs]))}
    # stretch = flow / run time, run times floored at 1 s (decision 52)
    out["mean_stretch"] = float((flow / np.maximum(runtime, 1.0)).mean()) if work.jobs \
        else 0.0
    if cluster_size:
        out["local_jobs"] = float(np.mean([is_local(p, cluster_size) for p in sched.procs]))
    if topology is not None:
        out.update(placement_factors(work, sched, topology))
    return out
