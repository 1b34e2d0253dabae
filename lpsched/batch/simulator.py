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
from functools import partial
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
from lpsched.batch.topology import Topology
from lpsched.core.engine import Engine
from lpsched.core.swf import Workload
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
    cluster_size = _check_options(policy, alloc, cluster_size, topology, qct, penalty,
                                  speedup, compression)
    topology, m = _machine(work, processors, topology)
    sim = _BatchSim(work, policy, m, kill, alloc, cluster_size, topology, qct, penalty,
                    speedup, compression)
    return sim.simulate()


def _check_options(policy: str, alloc: str, cluster_size: int | None,
                   topology: Topology | None, qct: int, penalty: tuple[str, float] | None,
                   speedup: float, compression: str) -> int | None:
    """The option checks of :func:`simulate_batch`, in its order; returns the cluster size
    (the topology's when one is given)."""
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
    return cluster_size


def _machine(work: Workload, processors: int | None, topology: Topology | None,
             ) -> tuple[Topology | None, int]:
    """The machine size (``processors``, else the workload's; a topology's installed leaves,
    cut to that size), and the topology with its leaves past the machine uninstalled; every
    job must fit."""
    m = processors or work.processors
    if topology is not None:
        if m and m < topology.installed:  # the leaves past the machine are uninstalled
            topology = replace(topology, installed=int(m))
        m = topology.installed
    if m is None or m < 1:
        raise InvalidInstanceError("processors", m, "unknown: give the machine size")
    if (work.size > m).any():
        raise InvalidInstanceError("size", int(work.size.max()), f"wider than {m} processors")
    return topology, m


class _BatchSim:
    """One run of :func:`simulate_batch`. State: the clock (an :class:`Engine`), the queue,
    the free processors (mask ``free``, count ``nfree`` and per-bucket ``counts``, kept in
    step), the running jobs (``running``: job -> estimated end; ``releases``: sorted
    ``(estimated end, job)``, EASY's shadow; ``version`` changes whenever they do) and, for
    conservative backfilling, the reservations. Each method is one phase of a pass; the
    loops bind the attributes they read to locals, and ``__slots__`` keeps attribute reads
    fast (more attributes than an instance dict shares keys for)."""

    __slots__ = ("alloc", "cluster_size", "compression", "counts", "early_end", "end", "eng", "est",
                 "est_l", "failed", "first_resv", "fixed", "free", "nfree", "pass_action",
                 "penalty", "pending", "plan", "policy", "procs", "qct", "queue", "releases",
                 "run_time", "running", "shadow_memo", "sizes_l", "slot", "start", "topology",
                 "version", "work")

    def __init__(self, work: Workload, policy: str, m: int, kill: bool, alloc: str,
                 cluster_size: int | None, topology: Topology | None, qct: int,
                 penalty: tuple[str, float] | None, speedup: float, compression: str,
                 ) -> None:
        n = work.jobs
        run = np.minimum(work.run, work.estimate) if kill else work.run.copy()
        if speedup and alloc in ("contiguous", "quasi-contiguous"):
            run = np.where(work.size >= 2, run * (1 - speedup / 100), run)
        est = np.maximum(work.estimate, 0.0)
        self.work, self.policy, self.compression = work, policy, compression
        self.fixed = policy == "conservative" and compression != "rebuild"
        self.alloc, self.cluster_size, self.topology, self.qct = alloc, cluster_size, topology, qct
        self.penalty = penalty
        self.run_time, self.est = run, est
        self.sizes_l, self.est_l = work.size.tolist(), est.tolist()  # Python scalars: hot loops
        self.failed = np.zeros(n, bool)
        self.eng = Engine()
        self.free = topology.free_mask() if topology is not None else np.ones(m, bool)
        self.nfree = int(self.free.sum())  # kept in step with ``free``
        self.counts = block_counts(self.free)  # free processors per bucket, kept in step too
        self.queue: list[int] = []
        self.running: dict[int, float] = {}  # job -> estimated end
        self.releases: list[tuple[float, int]] = []  # (estimated end, job), sorted: the shadow
        self.version = 0  # changes whenever the running set does
        self.start = np.full(n, np.nan)
        self.end = np.full(n, np.nan)
        self.procs: list[np.ndarray] = [np.zeros(0, int)] * n
        self.pending = False  # a scheduling pass is due at ``now``
        self.first_resv = np.full(n, np.nan)  # conservative: at submission; EASY: first as head
        self.plan: Profile | None = None  # the persistent profile of fixed reservations (lazy)
        self.slot: dict[int, tuple[float, float]] = {}  # fixed mode: each job's plan interval
        self.early_end = False  # a job ended before its estimate since the last pass
        self.shadow_memo: dict[tuple[int, int, int], tuple[float, int]] = {}
        self.pass_action = self.scheduling_pass  # bound once: one object for every pass

    def simulate(self) -> tuple[BatchSchedule, dict[str, Any]]:
        """Submit every job (submission order, ties by index), run the clock to the end."""
        work, eng, submit = self.work, self.eng, self.submit
        order = np.lexsort((np.arange(work.jobs), work.submit))
        for j in order:
            eng.at(float(work.submit[j]), partial(submit, int(j)), SUBMIT)
        t0 = _time.perf_counter()
        eng.run()
        seconds = _time.perf_counter() - t0
        return BatchSchedule(self.start, self.end, self.procs, self.failed), {
            "events": eng.processed, "seconds": seconds, "first_reservation": self.first_resv}

    def request(self) -> None:
        """One scheduling pass at ``now``, after this instant's other events."""
        if not self.pending:
            self.pending = True
            self.eng.at(self.eng.now, self.pass_action, PASS)

    def wake_at(self, t: float) -> None:
        """A pass at ``t`` (a reservation falls due)."""
        self.eng.at(t, self.request, PASS)

    def submit(self, j: int) -> None:
        """``j`` is submitted: it joins the queue and a pass is due."""
        self.queue.append(j)
        self.request()

    def begin(self, j: int) -> bool:
        """Start ``j`` now if the allocation rule places it: take its processors, fix its run
        time (placement penalty: killed at its estimate if longer), schedule its end."""
        counts = self.counts
        ids = allocate(self.alloc, self.free, self.sizes_l[j], self.cluster_size,
                       self.topology, self.qct, counts)
        if ids is None:
            return False
        self.free[ids] = False
        self.nfree -= ids.size
        counts[:] -= np.bincount(ids // BLOCK, minlength=counts.size)
        self.procs[j] = ids.astype(np.int32)
        now = self.eng.now
        self.start[j] = now
        length = self.run_time[j]
        if self.penalty is not None:
            length = self.penalised(j, ids, length)
        end = self.end
        end[j] = now + length
        self.running[j] = released = now + self.est_l[j]
        bisect.insort(self.releases, (released, j))
        self.version += 1
        self.eng.at(end[j], partial(self.finish, j), END)
        return True

    def penalised(self, j: int, ids: np.ndarray, length: float) -> float:
        """``j``'s run time on ``ids`` under the placement penalty (module doc), or its
        estimate, with ``j`` marked failed, when that is longer."""
        topology, (kind, factor) = self.topology, self.penalty
        assert topology is not None
        r = topology.level_of(ids) - topology.min_level(self.sizes_l[j])
        length *= (1 + r * factor) if kind == "linear" else factor ** r
        if length > self.est[j]:
            length, self.failed[j] = self.est[j], True
        return length

    def finish(self, j: int) -> None:
        """``j`` ends: its processors are free again (in fixed mode, so is the rest of its
        slot if it ended early), and a pass is due."""
        if self.fixed:
            now = self.eng.now
            _rs, re = self.slot.pop(j)
            if now < re:  # ended early: its estimated rest is free again
                self.plan.add(now, re, self.sizes_l[j])  # type: ignore[union-attr]
                self.early_end = True
        ids = self.procs[j]
        self.free[ids] = True
        self.nfree += ids.size
        counts = self.counts
        counts[:] += np.bincount(ids // BLOCK, minlength=counts.size)
        releases = self.releases
        del releases[bisect.bisect_left(releases, (self.running.pop(j), j))]
        self.version += 1
        self.request()

    def scheduling_pass(self) -> None:
        """The FCFS part of every policy (a forced allocation may refuse the head), then
        EASY's backfilling or the conservative re-plan (or the fixed-reservation pass)."""
        self.pending = False
        if self.fixed:
            self.fixed_pass()
            return
        queue = self.queue
        while queue and self.sizes_l[queue[0]] <= self.nfree and self.begin(queue[0]):
            queue.pop(0)
        if not queue or self.policy == "fcfs":
            return
        if self.policy == "easy":
            self.easy_backfill(self.eng.now)
            return
        self.rebuild_pass(self.eng.now)

    def fixed_pass(self) -> None:
        """Conservative backfilling with reservations kept from submission (module doc), on
        a persistent profile ``plan``: running jobs hold their slot until their estimated
        end, queued jobs their reservation; only starts, early ends and re-plans edit it.
        A job overrunning its estimate is not extended in the plan: jobs due on its
        processors fail to start and are re-planned from now until they fit."""
        now = self.eng.now
        prof = self.plan
        if prof is None:
            prof = self.plan = Profile(now, self.nfree)
        prof.trim(now)
        reassign = self.compression == "reassign" and self.early_end  # seed 000 §5.5
        self.early_end = False
        queue, sizes_l, est_l, slot = self.queue, self.sizes_l, self.est_l, self.slot
        started: list[int] = []
        for j in queue:
            size, length = sizes_l[j], max(est_l[j], 1e-12)
            if j not in slot:  # a new job: its reservation, kept from now on
                t = prof.earliest(size, length)
                slot[j] = (t, t + length)
                prof.add(t, t + length, -size)
                self.first_resv[j] = t
                if t > now:
                    self.wake_at(t)
            rs, re = slot[j]
            due = rs <= now
            if not due and (not reassign or size > self.nfree):
                continue
            prof.add(rs, re, size)  # let go of its own slot, then try now
            if (due or prof.earliest(size, length) <= now) and size <= self.nfree \
                    and self.begin(j):
                prof.add(now, now + length, -size)
                slot[j] = (now, now + length)
                started.append(j)
            elif due:  # an overrun or a forced allocation: re-plan from now
                t = max(prof.earliest(size, length), now)
                slot[j] = (t, t + length)
                prof.add(t, t + length, -size)
                if t > now:
                    self.wake_at(t)
            else:
                prof.add(rs, re, -size)
        for j in started:
            queue.remove(j)

    def rebuild_pass(self, now: float) -> None:
        """Conservative backfilling re-planning every reservation in queue order, on the
        profile of the running jobs' estimated ends; the jobs whose slot is now start."""
        prof = self.profile()
        queue, sizes_l, est_l, first_resv = self.queue, self.sizes_l, self.est_l, self.first_resv
        started: list[int] = []
        for j in queue:
            size, length = sizes_l[j], est_l[j]
            t = prof.earliest(size, length)
            if t <= now and size <= self.nfree and self.begin(j):
                prof.reserve(now, max(length, 1e-12), size)
                started.append(j)
            else:
                prof.reserve(t, max(length, 1e-12), size)
                if np.isnan(first_resv[j]):
                    first_resv[j] = t
        for j in started:
            queue.remove(j)

    def profile(self) -> Profile:
        """Free processors from now on by the running jobs' estimated ends."""
        running = self.running
        jobs = np.fromiter(running.keys(), dtype=np.int64, count=len(running))
        ends = np.fromiter(running.values(), dtype=float, count=len(running))
        return Profile.from_releases(self.eng.now, self.nfree, ends, self.work.size[jobs])

    def easy_backfill(self, now: float) -> None:
        """EASY after the FCFS part: the head's reservation at the shadow time ``t_h``, then
        any job that fits now and either ends by ``t_h`` or uses only the ``extra``
        processors the head leaves free at ``t_h`` — an O(1) test per job, equal to checking
        the whole (never decreasing) profile; a numpy pre-filter skips the jobs that cannot
        start (the free counts only fall during the pass)."""
        queue, sizes_l = self.queue, self.sizes_l
        head = queue[0]
        size_h = sizes_l[head]
        t_h, free_then = self.shadow(size_h, now)
        first_resv = self.first_resv
        if np.isnan(first_resv[head]):
            first_resv[head] = t_h
        extra = free_then - size_h
        slack = 1e-9 * max(1.0, abs(t_h))
        rest = np.array(queue[1:], dtype=np.int64)
        sizes, ends = self.work.size[rest], now + self.est[rest]
        maybe = rest[(sizes <= self.nfree) & ((ends <= t_h + slack) | (sizes <= extra))]
        started: list[int] = []
        for j in maybe.tolist():
            size = sizes_l[j]
            if size > self.nfree:
                continue
            ends_first = now + self.est_l[j] <= t_h + slack
            if (ends_first or size <= extra) and self.begin(j):
                started.append(j)
                if not ends_first:
                    extra -= size
        for j in started:
            queue.remove(j)

    def shadow(self, size: int, now: float) -> tuple[float, int]:
        """Earliest time ``size`` processors are free by the estimates, and how many are
        free then. Only releases change the free count, so it never decreases: the first
        time enough are free holds for any length (what :meth:`Profile.earliest` gives).
        Remembered until the running set changes, unless an estimate has run out (its
        release then moves with ``now``) or the remembered time has passed (it was ``now``
        of an earlier pass)."""
        memo = self.shadow_memo
        key = (self.version, size, self.nfree)
        if key in memo and memo[key][0] >= now and (
                not self.releases or self.releases[0][0] >= now):
            return memo[key]
        memo.clear()
        memo[key] = found = self._shadow(size, now)
        return found

    def _shadow(self, size: int, now: float) -> tuple[float, int]:
        """:meth:`shadow` without the memo: one walk of the sorted releases."""
        releases, sizes_l = self.releases, self.sizes_l
        have, t, i = self.nfree, now, 0
        while True:
            if i < len(releases) and max(releases[i][0], now) <= t:
                have += sizes_l[releases[i][1]]
                i += 1
            elif have >= size:
                return t, have
            else:  # size <= machine, so the releases always suffice
                t = max(releases[i][0], now)


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
