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
* ``conservative``: every job gets, when submitted, the earliest reservation that delays no
  earlier one (seed 000 §4.5), and starts when it is due. ``compression`` says what happens
  when jobs end early: ``"reassign"`` (default; seed 000 §5.5) moves a queued job, in queue
  order, to *now* when it fits now without touching any other reservation — only start-now
  moves, so no job ever starts after its first reservation unless a job overruns its
  estimate or a forced allocation refuses it (then it is re-planned from now); ``"none"``
  keeps every reservation (with real, overestimated wall times the machine then idles:
  8 % utilisation on UniLu-Gaia); ``"rebuild"`` re-plans every reservation in queue order
  at every pass (a job can then lose its first reservation to an earlier job that moved
  into its slot — 202 of 300 random workloads in the suite's generator).

Processors are chosen by an allocation rule (:mod:`lpsched.batch.allocation`; default
``basic``, the lowest-numbered free ones), on a line of processors or, with a
:class:`~lpsched.batch.topology.Topology`, on the leaves of a tree (uninstalled leaves
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

from lpsched.batch.allocation import (
    ALLOCATORS,
    BLOCK,
    NEEDS_CLUSTERS,
    NEEDS_TOPOLOGY,
    allocate,
    block_counts,
    is_contiguous,
    is_local,
)
from lpsched.batch.swf import Workload
from lpsched.batch.topology import Topology
from lpsched.core.engine import Engine
from lpsched.errors import InvalidInstanceError, InvalidScheduleError

POLICIES = ("fcfs", "easy", "conservative")
END, SUBMIT, PASS = range(3)


class Profile:
    """Free processors over time: ``free[i]`` on ``[times[i], times[i+1])``, the last to
    infinity; numpy arrays, so every operation is a few C passes over the breakpoints."""

    def __init__(self, now: float, free_now: int) -> None:
        self.times = np.array([float(now)])
        self.free = np.array([int(free_now)], dtype=np.int64)

    @classmethod
    def from_releases(cls, now: float, free_now: int, ends: np.ndarray,
                      sizes: np.ndarray) -> Profile:
        """The profile where ``sizes[i]`` processors come back at ``max(ends[i], now)``:
        one sort and a cumulative sum (what :meth:`add` to infinity per job would give)."""
        prof = cls(now, free_now)
        if ends.size:
            at = np.maximum(ends, now)
            times, inv = np.unique(at, return_inverse=True)
            gained = np.cumsum(np.bincount(inv, weights=sizes, minlength=times.size))
            gained = gained.astype(np.int64)
            if times[0] == now:
                prof.free[0] += gained[0]
                times, gained = times[1:], gained[1:]
            prof.times = np.concatenate([prof.times, times])
            prof.free = np.concatenate([prof.free, free_now + gained])
        return prof

    def _split(self, at: float) -> int:
        """Index of the breakpoint at ``at`` (inserted if needed; ``at >= times[0]``)."""
        i = int(np.searchsorted(self.times, at, side="right")) - 1
        if self.times[i] == at:
            return i
        self.times = np.insert(self.times, i + 1, at)
        self.free = np.insert(self.free, i + 1, self.free[i])
        return i + 1

    def add(self, start: float, end: float, delta: int) -> None:
        """``delta`` more free processors during ``[start, end)`` (clipped to the profile's
        start; ``end`` may be infinite)."""
        start = max(start, float(self.times[0]))
        if not end > start:
            return
        a = self._split(start)
        b = self._split(end) if end < math.inf else self.times.size
        self.free[a:b] += delta

    def reserve(self, start: float, length: float, size: int) -> None:
        """Take ``size`` processors during ``[start, start + length)``."""
        self.add(start, start + length, -size)

    def trim(self, now: float) -> None:
        """Forget the past: the profile starts at ``now``."""
        i = int(np.searchsorted(self.times, now, side="right")) - 1
        if i > 0 or self.times[0] < now:
            self.times, self.free = self.times[i:].copy(), self.free[i:].copy()
            self.times[0] = now

    def earliest(self, size: int, length: float) -> float:
        """Earliest start where ``size`` processors stay free for ``length``: the first
        maximal run of breakpoints with enough free processors that lasts ``length`` (a
        slot ending where a reservation starts is compared with a relative tolerance, since
        ``start + length`` rounds differently from that boundary)."""
        ok = self.free >= size
        starts = np.flatnonzero(ok & ~np.concatenate([[False], ok[:-1]]))
        if not starts.size:
            raise InvalidInstanceError("size", size, "no time ever has enough processors")
        bad = np.flatnonzero(~ok)
        nxt = np.searchsorted(bad, starts)
        ends = np.append(self.times, math.inf)[np.append(bad, self.times.size)[nxt]]
        want = self.times[starts] + length
        fits = ends >= want - 1e-9 * np.maximum(1.0, np.abs(want))
        if not fits.any():
            raise InvalidInstanceError("size", size, "no time ever has enough processors")
        return float(self.times[starts[int(np.argmax(fits))]])


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
COMPRESSIONS = ("none", "reassign", "rebuild")


def simulate_batch(work: Workload, policy: str = "easy", processors: int | None = None,
                   kill: bool = False, alloc: str = "basic",
                   cluster_size: int | None = None, topology: Topology | None = None,
                   qct: int = 20, penalty: tuple[str, float] | None = None,
                   speedup: float = 0.0, compression: str = "reassign",
                   ) -> tuple[BatchSchedule, dict[str, Any]]:
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
    if compression not in COMPRESSIONS:
        raise InvalidInstanceError("compression", compression, f"must be one of "
                                   f"{COMPRESSIONS}")
    if compression != "reassign" and policy != "conservative":
        raise InvalidInstanceError("compression", compression, "reassignment and rebuilding "
                                   "apply to conservative backfilling only")
    fixed = policy == "conservative" and compression != "rebuild"
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
    sizes_l, est_l = work.size.tolist(), est.tolist()  # Python scalars for the hot loops
    failed = np.zeros(n, bool)
    eng = Engine()
    free = topology.free_mask() if topology is not None else np.ones(m, bool)
    nfree = [int(free.sum())]  # kept in step with ``free``
    counts = block_counts(free)  # free processors per bucket, kept in step too
    queue: list[int] = []
    running: dict[int, float] = {}  # job -> estimated end
    releases: list[tuple[float, int]] = []  # (estimated end, job), sorted: EASY's shadow
    version = [0]  # changes whenever the running set does
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    procs: list[np.ndarray] = [np.zeros(0, int)] * n
    pending = {"pass": False}
    first_resv = np.full(n, np.nan)  # conservative: at submission; EASY: first as head
    plan: list[Profile] = []  # the persistent profile of fixed reservations (made lazily)
    slot: dict[int, tuple[float, float]] = {}  # fixed mode: each job's interval in the plan
    early_end = [False]  # a job ended before its estimate since the last pass

    def request() -> None:
        if not pending["pass"]:
            pending["pass"] = True
            eng.at(eng.now, scheduling_pass, PASS)

    def begin(j: int) -> bool:
        ids = allocate(alloc, free, sizes_l[j], cluster_size, topology, qct, counts)
        if ids is None:
            return False
        free[ids] = False
        nfree[0] -= ids.size
        counts[:] -= np.bincount(ids // BLOCK, minlength=counts.size)
        procs[j] = ids.astype(np.int32)
        start[j] = eng.now
        length = run[j]
        if penalty is not None:
            assert topology is not None
            r = topology.level_of(ids) - topology.min_level(sizes_l[j])
            length *= (1 + r * penalty[1]) if penalty[0] == "linear" else penalty[1] ** r
            if length > est[j]:
                length, failed[j] = est[j], True
        end[j] = eng.now + length
        running[j] = eng.now + est_l[j]
        bisect.insort(releases, (running[j], j))
        version[0] += 1
        eng.at(end[j], lambda j=j: finish(j), END)
        return True

    def finish(j: int) -> None:
        if fixed:
            _rs, re = slot.pop(j)
            if eng.now < re:  # ended early: its estimated rest is free again
                plan[0].add(eng.now, re, sizes_l[j])
                early_end[0] = True
        free[procs[j]] = True
        nfree[0] += procs[j].size
        counts[:] += np.bincount(procs[j] // BLOCK, minlength=counts.size)
        del releases[bisect.bisect_left(releases, (running[j], j))]
        version[0] += 1
        del running[j]
        request()

    def submit(j: int) -> None:
        queue.append(j)
        request()

    def profile() -> Profile:
        jobs = np.fromiter(running.keys(), dtype=np.int64, count=len(running))
        ends = np.fromiter(running.values(), dtype=float, count=len(running))
        return Profile.from_releases(eng.now, nfree[0], ends, work.size[jobs])

    def wake_at(t: float) -> None:
        eng.at(t, request, PASS)

    def fixed_pass() -> None:
        """Conservative backfilling with reservations kept from submission (module doc), on
        a persistent profile ``plan``: running jobs hold their slot until their estimated
        end, queued jobs their reservation; only starts, early ends and re-plans edit it.
        A job overrunning its estimate is not extended in the plan: jobs due on its
        processors fail to start and are re-planned from now until they fit."""
        now = eng.now
        if not plan:
            plan.append(Profile(now, nfree[0]))
        prof = plan[0]
        prof.trim(now)
        reassign = compression == "reassign" and early_end[0]  # seed 000 §5.5: on early ends
        early_end[0] = False
        started: list[int] = []
        for j in queue:
            size, length = sizes_l[j], max(est_l[j], 1e-12)
            if j not in slot:  # a new job: its reservation, kept from now on
                t = prof.earliest(size, length)
                slot[j] = (t, t + length)
                prof.add(t, t + length, -size)
                first_resv[j] = t
                if t > now:
                    wake_at(t)
            rs, re = slot[j]
            due = rs <= now
            if not due and (not reassign or size > nfree[0]):
                continue
            prof.add(rs, re, size)  # let go of its own slot, then try now
            if (due or prof.earliest(size, length) <= now) and size <= nfree[0] \
                    and begin(j):
                prof.add(now, now + length, -size)
                slot[j] = (now, now + length)
                started.append(j)
            elif due:  # an overrun or a forced allocation: re-plan from now
                t = max(prof.earliest(size, length), now)
                slot[j] = (t, t + length)
                prof.add(t, t + length, -size)
                if t > now:
                    wake_at(t)
            else:
                prof.add(rs, re, -size)
        for j in started:
            queue.remove(j)

    shadow_memo: dict[tuple[int, int, int], tuple[float, int]] = {}

    def shadow(size: int, now: float) -> tuple[float, int]:
        """Earliest time ``size`` processors are free by the estimates, and how many are
        free then. Only releases change the free count, so it never decreases: the first
        time enough are free holds for any length (what :meth:`Profile.earliest` gives).
        Remembered until the running set changes, unless an estimate has run out (its
        release then moves with ``now``) or the remembered time has passed (it was ``now``
        of an earlier pass)."""
        key = (version[0], size, nfree[0])
        if key in shadow_memo and shadow_memo[key][0] >= now and (
                not releases or releases[0][0] >= now):
            return shadow_memo[key]
        shadow_memo.clear()
        shadow_memo[key] = found = _shadow(size, now)
        return found

    def _shadow(size: int, now: float) -> tuple[float, int]:
        have, t, i = nfree[0], now, 0
        while True:
            if i < len(releases) and max(releases[i][0], now) <= t:
                have += sizes_l[releases[i][1]]
                i += 1
            elif have >= size:
                return t, have
            else:  # size <= machine, so the releases always suffice
                t = max(releases[i][0], now)

    def easy_backfill(now: float) -> None:
        """EASY after the FCFS part: the head's reservation at the shadow time ``t_h``, then
        any job that fits now and either ends by ``t_h`` or uses only the ``extra``
        processors the head leaves free at ``t_h`` — an O(1) test per job, equal to checking
        the whole (never decreasing) profile; a numpy pre-filter skips the jobs that cannot
        start (the free counts only fall during the pass)."""
        head = queue[0]
        size_h = sizes_l[head]
        t_h, free_then = shadow(size_h, now)
        if np.isnan(first_resv[head]):
            first_resv[head] = t_h
        extra = free_then - size_h
        slack = 1e-9 * max(1.0, abs(t_h))
        rest = np.array(queue[1:], dtype=np.int64)
        sizes, ends = work.size[rest], now + est[rest]
        maybe = rest[(sizes <= nfree[0]) & ((ends <= t_h + slack) | (sizes <= extra))]
        started: list[int] = []
        for j in maybe.tolist():
            size = sizes_l[j]
            if size > nfree[0]:
                continue
            ends_first = now + est_l[j] <= t_h + slack
            if (ends_first or size <= extra) and begin(j):
                started.append(j)
                if not ends_first:
                    extra -= size
        for j in started:
            queue.remove(j)

    def scheduling_pass() -> None:
        pending["pass"] = False
        if fixed:
            fixed_pass()
            return
        # FCFS part of every policy (a forced allocation may refuse the head)
        while queue and work.size[queue[0]] <= nfree[0] and begin(queue[0]):
            queue.pop(0)
        if not queue or policy == "fcfs":
            return
        now = eng.now
        if policy == "easy":
            easy_backfill(now)
            return
        prof = profile()
        started: list[int] = []
        for j in queue:
            size, length = sizes_l[j], est_l[j]
            t = prof.earliest(size, length)
            if t <= now and size <= nfree[0] and begin(j):
                prof.reserve(now, max(length, 1e-12), size)
                started.append(j)
            else:  # conservative, re-planning every reservation
                prof.reserve(t, max(length, 1e-12), size)
                if np.isnan(first_resv[j]):
                    first_resv[j] = t
        for j in started:
            queue.remove(j)

    order = np.lexsort((np.arange(n), work.submit))
    for j in order:
        eng.at(float(work.submit[j]), lambda j=int(j): submit(j), SUBMIT)
    t0 = _time.perf_counter()
    eng.run()
    seconds = _time.perf_counter() - t0
    return BatchSchedule(start, end, procs, failed), {
        "events": eng.processed, "seconds": seconds, "first_reservation": first_resv}


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
    contiguous = contiguous or forced in ("cont", "cont-ff")
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
    # sweep in start order with each processor's busy-until time: O(Σ sizes), no copies
    busy_until = np.full(processors, -math.inf)
    for j in np.lexsort((sched.end, sched.start)):  # a zero-length job before its successor
        ids, t = sched.procs[j], sched.start[j]
        if ids.size and (ids.min() < 0 or ids.max() >= processors):
            raise InvalidScheduleError("processors", f"job {j} uses a processor outside the "
                                       "machine", int(j))
        if (busy_until[ids] > t + 1e-9 * max(1.0, abs(t))).any():
            raise InvalidScheduleError("overlap", f"job {j} starts on a busy processor",
                                       int(j))
        busy_until[ids] = sched.end[j]


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
