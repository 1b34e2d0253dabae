"""Simulate rigid jobs on a batch cluster: FCFS, EASY and conservative backfilling.

Seed 000 ch. 4-5 and seed 001.

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
  when jobs end before their estimate (all four keep the reservations of submission until
  then; the rule runs once per instant, after all of its ends and before the reservations
  of the jobs submitted at that instant):

  - ``"textbook"`` (the default; Mu'alem & Feitelson 2001, the rule peer simulators and
    papers mean by "conservative backfilling"): every queued job, in queue (submission)
    order, has its reservation removed and re-inserted at the earliest time ``>= now`` the
    profile fits it, the others staying in place. The old slot is still free, so a
    reservation never moves later; it may move to a *future* time, earlier than before;
  - ``"reassign"`` (seed 000 §5.5): a queued job, in queue order, moves only to *now*, when
    it fits now without touching any other reservation; otherwise it keeps its reservation
    even if an earlier future slot opened (the machine may idle until it);
  - ``"none"``: every reservation is kept (with real, overestimated wall times the machine
    then idles: 8 % utilisation on UniLu-Gaia);
  - ``"rebuild"``: every reservation is re-planned in queue order at every pass, from the
    running jobs' estimated ends alone (a job can then lose its first reservation to an
    earlier job that moved into its slot — 202 of 300 random workloads in the suite's
    generator).

  Under ``textbook``, ``reassign`` and ``none`` no job starts after its first reservation
  unless a job overruns its estimate or a forced allocation refuses it (it is then re-planned
  from now).

Processors are chosen by an allocation rule (:mod:`lpsched.batch.allocation`; default
``basic``, the lowest-numbered free ones), on a line of processors or, with a
:class:`~lpsched.batch.topology.Topology`, on the leaves of a tree (uninstalled leaves
never free). A forced rule that cannot place a job leaves it queued until the next end
(under conservative backfilling its reservation is re-planned from that end: decision 265).

Placement-dependent run times (fixed when a job starts, the scheduler still plans with the
estimates):

* ``penalty=("linear", F)`` or ``("quadratic", F)`` — seed 000 §5.3.4 Eq. 5.1/5.2 with
  ``R = L_cur − L_min``: ``T' = T·(1 + R·F)`` or ``T' = T·F^R``; a job with
  ``T' > estimate`` is killed at its estimate and counted failed (success rate, §4.4);
* ``speedup=s`` (percent) — seed 001 §5.1: under ``contiguous``/``quasi-contiguous``
  allocation every job of two or more processors runs ``T·(1 − s/100)``.

**Cost**. FCFS and EASY under ``basic`` on a line (no topology, no penalty), the common
case, run in one kernel (:func:`lpsched.batch.line._simulate_line`: the rules below on
plain containers, compiled where the extension is built; its processor runs go to flat
int64 buffers, 16 bytes a run); every other case runs :class:`_BatchSim`, which
tests/batch/test_line_kernel.py uses as the kernel's reference.
The event loop is the simulator's own, in the
order of :class:`~lpsched.core.engine.Engine` (ends, submissions, one pass) but with plain
Python containers: a heap of ends (O(log n) per job), the sorted submissions, a sorted
list of releases (EASY's shadow, an insertion per start). Under ``basic`` on a line the
free processors are runs of ids (:class:`~lpsched.batch.procsets.FreeLine`: a job costs
the runs it takes, not its size) and the schedule keeps every job's set as runs
(:class:`~lpsched.batch.procsets.ProcSets`); the other rules keep the boolean mask, with
its per-bucket and per-cluster free counts, in the compiled ``lpsched.batch._mask_c.Mask``
where it is built (the take and give of a job's ids, every allocation rule, the kill of
advanced jobs' two searches, EASY's backfilling candidates: decisions 627-629), the
Python functions of :mod:`lpsched.batch.allocation` the reference and the fallback
(``LPSCHED_PURE_PYTHON=1``). An EASY pass is O(queue) comparisons after the FCFS part.
Conservative backfilling keeps its numpy profile: O(breakpoints) per reservation search;
a fixed-reservation pass searches only for the due and new jobs and, after an early end,
the jobs a vectorised test says may move (decision 266).
"""

from __future__ import annotations

import bisect
import heapq
import math
import time as _time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, cast

import numpy as np

from lpsched.batch.allocation import (
    ALLOCATORS,
    BLOCK,
    NEEDS_CLUSTERS,
    NEEDS_TOPOLOGY,
    allocate,
    block_counts,
    cluster_counts,
    free_blocks,
    placeable,
)
from lpsched.batch.line import _simulate_line
from lpsched.batch.plan import Profile
from lpsched.batch.procsets import FreeLine, ProcSets
from lpsched.batch.schedule import (  # noqa: F401  (re-exported: the public API)
    BatchSchedule,
    batch_metrics,
    placement_factors,
)
from lpsched.batch.topology import Topology
from lpsched.batch.validation import validate_batch  # noqa: F401  (re-exported)
from lpsched.core.kernels import kernel_state
from lpsched.core.swf import Workload
from lpsched.errors import InvalidInstanceError, LpschedError

try:  # the mask and its rules compiled (optional: the Python functions are the reference)
    from lpsched.batch import _mask_c
except ImportError:  # pragma: no cover - depends on the build
    _mask_c = None  # type: ignore[assignment]

POLICIES = ("fcfs", "easy", "conservative")
#: what EASY does when its head's reservation time comes and the head cannot be placed:
#: wait for the next end (decision 265), or kill advanced jobs (seed 001 §3, decision 387)
BLOCKED_HEAD = ("wait", "kill-advanced")
_NO_PROCS = np.zeros(0, np.int32)
_NO_RANKS = np.zeros(0, np.int64)
#: the rules that read free counts per cluster or per tree block, and those that read
#: runs of free ids (decision 460)
_CLUSTER_RULES = ("beloc", "loc", *NEEDS_TOPOLOGY)
_RUN_RULES = ("becont", "cont", "becont-ff", "cont-ff")


def _count_clusters(clusters: np.ndarray, which: np.ndarray, sign: int) -> None:
    """Add ``sign`` to ``clusters`` once per entry of ``which`` (a job's clusters, one per
    id): in place by index when the job has few ids for the clusters (a ``bincount`` would
    build and add a whole array: 16,384 clusters on Curie's ch. 5 tree), else by a
    ``bincount``. The same integer counts either way."""
    if 4 * which.size < clusters.size:
        np.add.at(clusters, which, sign)
    else:
        clusters += sign * np.bincount(which, minlength=clusters.size)


def mask_kernel_in_use() -> str:
    """Say whether :class:`_BatchSim`'s mask path runs the compiled :class:`Mask`.

    Returns
    -------
    str
        ``"compiled"`` (the extension ``lpsched.batch._mask_c``),
        ``"python (LPSCHED_PURE_PYTHON is set)"`` or ``"python (the extension
        lpsched.batch._mask_c is not built)"``.
    """
    return kernel_state(_mask_c, "lpsched.batch._mask_c")


PENALTIES = ("linear", "quadratic")
#: conservative backfilling's rules for early ends (module doc); the first is the default
COMPRESSIONS = ("textbook", "reassign", "none", "rebuild")


def simulate_batch(work: Workload, policy: str = "easy", processors: int | None = None,
                   kill: bool = False, alloc: str = "basic",
                   cluster_size: int | None = None, topology: Topology | None = None,
                   qct: int = 20, penalty: tuple[str, float] | None = None,
                   speedup: float = 0.0, compression: str | None = None,
                   progress: Callable[[int, int, float], None] | None = None,
                   blocked_head: str = "wait",
                   ) -> tuple[BatchSchedule, dict[str, Any]]:
    """Simulate a batch scheduler on a workload: FCFS, EASY or conservative backfilling.

    ``policy`` runs on ``work`` with the allocation rule ``alloc`` (the module's list).
    ``topology`` (its ``installed`` = the machine) gives the tree for
    ``beplat``/``plat``/``contiguous``/``quasi-contiguous`` (``qct`` percent), the
    clusters for ``beloc``/``loc`` and the levels for ``penalty``. ``compression``
    (conservative only; default ``"textbook"``) is one of :data:`COMPRESSIONS`.
    ``progress(started, jobs, now)``, when given, is called every 4,096 events and at the
    end (the CLI draws a line on a terminal's stderr from it).

    Parameters
    ----------
    work : Workload
        The jobs (seed 000 §4.5's rigid jobs: submit, run, size, estimate; SWF job numbers).
    policy : {"fcfs", "easy", "conservative"}
        The batch scheduler (seed 000 §4.5, §5.5).
    processors : int, optional
        The machine; default the workload's (a topology's ``installed`` when given).
    kill : bool
        Stop every job at its estimate (Batsim's walltime rule).
    alloc : str
        One of :data:`~lpsched.batch.allocation.ALLOCATORS` (default ``basic``).
    cluster_size : int, optional
        Processors per cluster (``beloc``, ``loc``; seed 000 ch. 4's ``ℓ``).
    topology : Topology, optional
        The tree (seed 000 ch. 5, seed 001).
    qct : int
        Quasi-contiguity threshold, percent (seed 001; default 20).
    penalty : tuple of (str, float), optional
        ``("linear", F)`` or ``("quadratic", F)`` (seed 000 Eq. 5.1/5.2).
    speedup : float
        Percent run-time gain of jobs of two or more processors under ``contiguous`` /
        ``quasi-contiguous`` (seed 001 §5.1).
    compression : str, optional
        Conservative only: one of :data:`COMPRESSIONS` (default ``textbook``).
    progress : callable, optional
        ``progress(started, jobs, now)``.
    blocked_head : {"wait", "kill-advanced"}
        EASY only: what happens when the head's reservation time comes and the allocation
        rule cannot place it. ``"wait"`` (default): it waits for the next end (decision
        265). ``"kill-advanced"``: seed 001 §3's rule [001 L51–L53], read in decisions
        387–388 — at the head's reservation time, running jobs that backfilling advanced
        past it are killed (of the latest started, those whose processors its placement
        needs), none if all of them would not suffice; a killed job goes back to the queue
        at its submission position and later runs its whole time again.

    Returns
    -------
    tuple of (BatchSchedule, dict)
        The schedule (workload order) and ``{"events", "seconds", "first_reservation"}``:
        events handled, seconds of the event loop, and each job's first reservation (s;
        conservative: at submission, EASY: when it first became the head; NaN if never).
        Under ``blocked_head="kill-advanced"`` also ``reservation_kills`` (kills),
        ``reservation_killed_jobs`` (the jobs they hit; a job may be killed several times)
        and ``killed_work`` (processor-seconds the killed runs had used; the schedule keeps
        each job's last run only).

    Examples
    --------
    Four processors: job 1 takes three for 10 s, job 2 needs all four, job 3 one for 2 s.
    FCFS keeps job 3 behind job 2; EASY backfills it at once (it ends before job 2 can
    start):

    >>> import numpy as np
    >>> from lpsched.core.swf import Workload
    >>> work = Workload(job=np.arange(1, 4), submit=np.array([0.0, 1.0, 2.0]),
    ...                 run=np.array([10.0, 5.0, 2.0]), size=np.array([3, 4, 1]),
    ...                 estimate=np.array([10.0, 5.0, 2.0]), processors=4)
    >>> sched, stats = simulate_batch(work, "fcfs")
    >>> sched.start.tolist()
    [0.0, 10.0, 15.0]
    >>> sched, stats = simulate_batch(work, "easy")
    >>> sched.start.tolist(), round(batch_metrics(work, sched, 4)["utilisation"], 3)
    ([0.0, 10.0, 2.0], 0.867)
    """
    cluster_size = _check_options(policy, alloc, cluster_size, topology, qct, penalty,
                                  speedup, compression)
    if blocked_head not in BLOCKED_HEAD:
        raise InvalidInstanceError("blocked_head", blocked_head,
                                   f"must be one of {BLOCKED_HEAD}")
    if blocked_head != "wait" and policy != "easy":
        raise InvalidInstanceError("blocked_head", blocked_head, "killing advanced jobs is "
                                   f"EASY backfilling's rule (seed 001 §3); policy {policy!r} "
                                   "advances no job")
    if policy == "conservative":
        _check_finite_estimates(work)
    compression = compression or COMPRESSIONS[0]
    topology, m = _machine(work, processors, topology)
    if policy != "conservative" and alloc == "basic" and topology is None and penalty is None \
            and blocked_head == "wait":
        sched, stats = _simulate_line(work, policy, m, kill, progress)
    else:
        sim = _BatchSim(work, policy, m, kill, alloc, cluster_size, topology, qct, penalty,
                        speedup, compression)
        sim.kill_advanced = blocked_head == "kill-advanced"
        sim.progress = progress
        sched, stats = sim.simulate()
    return sched.remember(work, m), stats  # for sched.to_frame() without arguments


def _check_finite_estimates(work: Workload) -> None:
    """Refuse a non-finite estimate under conservative backfilling, which reserves every job
    up to its estimated end: a job estimated to run for ever would hold its processors in
    the plan for ever, and the reservation of a later job needing them could never begin
    (decision 702)."""
    bad = np.flatnonzero(~np.isfinite(np.asarray(work.estimate, np.float64)))
    if bad.size:
        j = int(bad[0])
        raise InvalidInstanceError(
            "estimate", float(work.estimate[j]),
            f"job {int(work.job[j])} ({bad.size} job(s) in all): conservative backfilling "
            "reserves each job up to its estimated end, so an estimate must be finite; give "
            "the requested or the run time, or use the 'easy' or 'fcfs' policy")


def _check_options(policy: str, alloc: str, cluster_size: int | None,
                   topology: Topology | None, qct: int, penalty: tuple[str, float] | None,
                   speedup: float, compression: str | None) -> int | None:
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
    if penalty is not None and penalty[0] == "quadratic" and not penalty[1] >= 1:
        raise InvalidInstanceError("penalty", penalty, "quadratic:F needs F >= 1: T' = T·F^R "
                                   "(seed 000 Eq. 5.2) is a slowdown, and F < 1 would run "
                                   "badly placed jobs faster")
    if not 0 <= speedup < 100:
        raise InvalidInstanceError("speedup", speedup, "must be a percentage in [0, 100)")
    if speedup and alloc not in ("contiguous", "quasi-contiguous"):
        raise InvalidInstanceError("speedup", speedup, "the speed-up of seed 001 §5.1 applies "
                                   "under contiguous or quasi-contiguous allocation only "
                                   f"(alloc {alloc!r})")
    if not 0 <= qct <= 100:
        raise InvalidInstanceError("qct", qct, "must be a percentage in [0, 100]")
    if policy not in POLICIES:
        raise InvalidInstanceError("policy", policy, f"must be one of {POLICIES}")
    if compression is not None and compression not in COMPRESSIONS:
        raise InvalidInstanceError("compression", compression, f"must be one of "
                                   f"{COMPRESSIONS}")
    if compression is not None and policy != "conservative":
        raise InvalidInstanceError("compression", compression, "compression rules apply to "
                                   "conservative backfilling only")
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
    """One run of :func:`simulate_batch`. State: the clock ``now`` and the events (the jobs'
    ends in a heap, the submissions as a sorted list, conservative's wake-ups in a heap),
    the queue, the free processors (``line``, a :class:`FreeLine`, for ``basic`` on a line;
    otherwise the mask ``free`` and per-bucket ``counts``; ``nfree`` counts them in both),
    the running jobs (``running``: job -> estimated end; ``releases``: sorted
    ``(estimated end, job)``, EASY's shadow; ``version`` changes whenever they do) and, for
    conservative backfilling, the reservations. Each method is one phase of a pass; the
    loops bind the attributes they read to locals, and ``__slots__`` keeps attribute reads
    fast. ``begin``/``finish`` are bound at construction to the line's or the mask's
    methods."""

    __slots__ = (
        "advanced",
        "alloc",
        "alloc_free",
        "begin",
        "by_rank",
        "cluster_size",
        "clusters",
        "compression",
        "counts",
        "due_heap",
        "early_end",
        "end",
        "ends",
        "est",
        "est_l",
        "failed",
        "finish",
        "first_resv",
        "fixed",
        "free",
        "freed",
        "freed_base",
        "kernel",
        "kill",
        "kill_advanced",
        "killed_jobs",
        "killed_work",
        "kills",
        "least_size",
        "len_r",
        "line",
        "machine",
        "nfree",
        "now",
        "nstarted",
        "penalty",
        "plan",
        "policy",
        "prev_seq",
        "procs",
        "progress",
        "qarr",
        "qct",
        "queue",
        "rank",
        "refused",
        "refused_at",
        "releases",
        "resv_r",
        "run_l",
        "running",
        "runs",
        "runs_at",
        "scan_from",
        "scan_state",
        "seq",
        "shadow_memo",
        "size_a",
        "size_r",
        "sizes_l",
        "slot",
        "stamp_r",
        "start",
        "started_now",
        "topology",
        "trial_failed",
        "version",
        "wait_hi",
        "wait_lo",
        "waiting",
        "wake_for",
        "wakes",
        "work",
    )

    def __init__(self, work: Workload, policy: str, m: int, kill: bool, alloc: str,
                 cluster_size: int | None, topology: Topology | None, qct: int,
                 penalty: tuple[str, float] | None, speedup: float, compression: str,
                 ) -> None:
        n = work.jobs
        run = np.minimum(work.run, work.estimate) if kill else work.run.copy()
        if speedup and alloc in ("contiguous", "quasi-contiguous"):
            run = np.where(work.size >= 2, run * (1 - speedup / 100), run)
        est = np.maximum(np.asarray(work.estimate, np.float64), 0.0)  # float32 exactly
        self.work, self.policy, self.compression = work, policy, compression
        self.fixed = policy == "conservative" and compression != "rebuild"
        self.alloc, self.cluster_size, self.topology, self.qct = alloc, cluster_size, topology, qct
        self.penalty, self.kill = penalty, kill
        self.est = est
        self.least_size = int(work.size.min()) if n else 0  # no job fits fewer free
        # Python scalars for the hot loops
        self.sizes_l, self.est_l, self.run_l = work.size.tolist(), est.tolist(), run.tolist()
        self.size_a = np.ascontiguousarray(work.size, np.int64)
        self.failed = np.zeros(n, bool)
        self.now = 0.0
        self.ends: list[tuple[float, int, int]] = []  # (time, sequence, job): the ends' heap
        self.wakes: list[float] = []  # conservative: times a reservation falls due
        self.seq = 0
        self.init_free(m, alloc == "basic" and topology is None and penalty is None)
        self.queue: list[int] = []
        # EASY: ``queue[:len(qarr)]`` as an array (decision 464), synced at each pass
        self.qarr = _NO_RANKS
        self.running: dict[int, float] = {}  # job -> estimated end
        self.releases: list[tuple[float, int]] = []  # (estimated end, job), sorted: the shadow
        self.version = 0  # changes whenever the running set does
        # decision 462: the sizes the allocation rule refused on the free processors of
        # ``version`` (the rule reads only the mask, so a size refused is refused again
        # until a job starts or ends)
        self.refused: set[int] = set()
        self.refused_at = -1
        self.runs: tuple[np.ndarray, np.ndarray] = (_NO_RANKS, _NO_RANKS)
        self.runs_at = -1  # the ``version`` whose free runs ``runs`` holds
        self.start: list[float] = [math.nan] * n
        self.end: list[float] = [math.nan] * n
        self.procs: list[Any] = [_NO_PROCS] * n  # ids (mask) or flat runs (line)
        self.first_resv = [math.nan] * n  # conservative: at submission; EASY: first as head
        self.plan: Profile | None = None  # the persistent profile of fixed reservations (lazy)
        self.slot: dict[int, tuple[float, float]] = {}  # fixed mode: each job's plan interval
        self.early_end = False  # a job ended before its estimate since the last pass
        self.shadow_memo: dict[tuple[int, int, int], tuple[float, int]] = {}
        self.scan_state: tuple[int, int, float, int] | None = None  # EASY: last idle pass
        self.scan_from = 1
        # fixed mode (decision 266): jobs by queue rank (submission order, ties by index);
        # ``waiting[r]``, ``resv_r[r]`` (slot start) and ``size_r[r]`` per rank, a heap of
        # (slot start, rank) to find the due jobs; ``queue`` holds the arrivals since the
        # last pass only
        self.rank: list[int] = []
        self.by_rank: list[int] = []
        self.due_heap: list[tuple[float, int]] = []
        self.started_now: list[int] = []
        self.waiting = self.resv_r = self.size_r = self.stamp_r = self.len_r = np.zeros(0)
        # the ranks that may be waiting lie in ``[wait_lo, wait_hi)``: a compression pass
        # reads that window of ``waiting``, not the whole trace's mask
        self.wait_lo = self.wait_hi = 0
        # fixed mode: the plan's frees as (from, to), ``freed_base`` + index their sequence
        # numbers; ``stamp_r[r]``: the sequence number when the job was last found unable
        # to move (a textbook compression need only try the jobs a later free can help)
        self.freed: list[tuple[float, float]] = []
        self.freed_base = self.prev_seq = 0
        self.progress: Callable[[int, int, float], None] | None = None
        self.nstarted = 0
        # decision 387: seed 001's EASY kills advanced jobs for a blocked head; the running
        # jobs backfilling started, in start order (a dict keeps insertion order)
        self.kill_advanced = False
        self.advanced: dict[int, None] = {}
        self.kills = 0
        self.killed_jobs: set[int] = set()
        self.killed_work = 0.0
        self.trial_failed: tuple[int, int] | None = None  # (version, head) of a failed check
        self.wake_for = math.nan  # the reservation time a pass is already scheduled at

    def init_free(self, m: int, on_line: bool) -> None:
        """The free processors: a :class:`FreeLine` under ``basic`` on a line, else the
        mask with its per-bucket (and, for the cluster and tree rules, per-cluster) free
        counts."""
        self.machine = m
        if on_line:
            self.line: FreeLine | None = FreeLine(m)
            self.begin, self.finish = self.begin_line, self.finish_line
            self.free = self.counts = self.alloc_free = self.clusters = None
            self.kernel = None
            self.nfree = m
            return
        alloc, topology, cluster_size = self.alloc, self.topology, self.cluster_size
        self.line = None
        self.begin, self.finish = self.begin_mask, self.finish_mask
        self.free = topology.free_mask() if topology is not None else np.ones(m, bool)
        self.nfree = int(self.free.sum())  # kept in step with ``free``
        self.counts = block_counts(self.free)  # free per bucket, kept in step too
        # decision 460: the rules that read clusters or tree blocks get the free count
        # per cluster, kept in step (not a sum over the whole mask per try); the rules
        # that read runs of free ids get the installed ids only (a tree's uninstalled
        # tail is never free, so it holds no run)
        self.clusters = cluster_counts(self.free, cluster_size) \
            if cluster_size and alloc in _CLUSTER_RULES else None
        self.alloc_free = self.free[:m] if alloc in _RUN_RULES else self.free
        self.kernel = _mask_c.Mask(self.free, self.counts, self.clusters, alloc, m,
                                   cluster_size or 0,
                                   topology.block_sizes if topology is not None else (),
                                   self.qct, BLOCK) if mask_kernel_in_use() == "compiled" else None

    def simulate(self) -> tuple[BatchSchedule, dict[str, Any]]:
        """Run the events to the end and give the schedule and its statistics.

        At each instant the jobs ending (in the order they started), then those submitted
        (submission order, ties by index), then the conservative wake-ups, then one
        scheduling pass: the order of the event engine (:class:`lpsched.core.engine.Engine`:
        ends, submissions, passes) without an object per event: O(log n) per end, O(1) per
        submission.

        Returns
        -------
        tuple of (BatchSchedule, dict)
            As :func:`simulate_batch`.
        """
        work = self.work
        order = np.lexsort((np.arange(work.jobs), work.submit))
        subs = work.submit[order].tolist()
        bad = [t for t in subs if not t >= 0.0]
        if bad:
            raise LpschedError(f"cannot schedule an event at {bad[0]} before now = 0.0")
        self.by_rank = order.tolist()
        rank = np.empty(work.jobs, np.int64)
        rank[order] = np.arange(work.jobs)
        self.rank = rank.tolist()
        t0 = _time.perf_counter()
        try:
            events = self.run(order.tolist(), subs)
        finally:
            # ``begin``/``finish`` are this object's bound methods: a reference cycle that
            # kept every simulation's arrays until a full garbage collection (the ch. 5
            # RICC run's 4.5 GB, decisions 432 and 463); broken here, the object and its
            # arrays go when the last reference does
            del self.begin, self.finish
        seconds = _time.perf_counter() - t0
        procs = ProcSets.from_flat(self.procs) if self.line is not None else self.procs
        killed = self.failed | (self.work.run > self.est) if self.kill else self.failed.copy()
        sched = BatchSchedule(np.array(self.start), np.array(self.end), procs, self.failed,
                              killed)
        stats: dict[str, Any] = {"events": events, "seconds": seconds,
                                 "first_reservation": np.array(self.first_resv)}
        if self.kill_advanced:
            stats["reservation_kills"] = self.kills
            stats["reservation_killed_jobs"] = len(self.killed_jobs)
            stats["killed_work"] = self.killed_work
        return sched, stats

    def run(self, order: list[int], subs: list[float]) -> int:
        """The event loop of :meth:`simulate`; returns the number of events handled."""
        ends, wakes, queue, finish, npass = self.ends, self.wakes, self.queue, self.finish, 0
        i, n, inf, pop, tick = 0, len(order), math.inf, heapq.heappop, 0
        while True:
            t = ends[0][0] if ends else inf
            if i < n and subs[i] < t:
                t = subs[i]
            if wakes and wakes[0] < t:
                t = wakes[0]
            if t == inf:
                if self.progress is not None:
                    self.progress(self.nstarted, n, self.now)
                return n + len(order) + npass  # ends + submissions + passes
            self.now = t
            tick += 1
            if not tick & 4095 and self.progress is not None:
                self.progress(self.nstarted, n, t)
            while ends and ends[0][0] == t:
                finish(pop(ends)[2])
            while i < n and subs[i] == t:
                queue.append(order[i])
                i += 1
            while wakes and wakes[0] == t:
                pop(wakes)
                npass += 1
            self.scheduling_pass()
            npass += 1

    def wake_at(self, t: float) -> None:
        """A pass at ``t`` (a reservation falls due)."""
        heapq.heappush(self.wakes, t)

    def started(self, j: int, length: float) -> None:
        """``j`` starts now and runs ``length``: its times, its estimated release, its end."""
        now = self.now
        self.start[j] = now
        self.nstarted += 1
        self.end[j] = end = now + length
        if not end >= now:
            raise LpschedError(f"cannot schedule an event at {end} before now = {now}")
        self.running[j] = released = now + self.est_l[j]
        bisect.insort(self.releases, (released, j))
        self.version += 1
        self.seq += 1
        heapq.heappush(self.ends, (end, self.seq, j))

    def begin_line(self, j: int) -> bool:
        """Start ``j`` now on the lowest free ids of the line (``basic``): O(runs taken)."""
        size = self.sizes_l[j]
        if size > self.nfree:
            return False
        self.procs[j] = self.line.take(size)  # type: ignore[union-attr]
        self.nfree -= size
        self.started(j, self.run_l[j])
        return True

    def finish_line(self, j: int) -> None:
        """``j`` ends: its runs are free again (:meth:`finish_mask` for the rest)."""
        self.line.give(self.procs[j])  # type: ignore[union-attr]
        self.nfree += self.sizes_l[j]
        self.ended(j)

    def begin_mask(self, j: int) -> bool:
        """Start ``j`` now if the allocation rule places it: take its processors, fix its run
        time (placement penalty: killed at its estimate if longer), schedule its end.

        The compiled :class:`Mask` chooses and takes the ids when built, else
        :func:`~lpsched.batch.allocation.allocate` and :meth:`take_python` (the reference):
        the same ids and counts."""
        size = self.sizes_l[j]
        if self.refused_at == self.version and size in self.refused:
            return False  # the same free processors refused this size (decision 462)
        runs = self.free_runs() if self.alloc in _RUN_RULES else None
        kernel = self.kernel
        if kernel is not None:
            ids = kernel.begin(size, self.nfree, *(runs or ()))
        else:
            ids = allocate(self.alloc, self.alloc_free, size, self.cluster_size,  # type: ignore[arg-type]
                           self.topology, self.qct, self.counts, self.clusters,
                           total=self.nfree, blocks=runs)
            if ids is not None:
                ids = self.take_python(ids)
        if ids is None:
            if self.refused_at != self.version:
                self.refused, self.refused_at = set(), self.version
            self.refused.add(size)
            return False
        self.nfree -= ids.size
        self.procs[j] = ids
        length = self.run_l[j]
        if self.penalty is not None:
            length = self.penalised(j, ids, length)
        self.started(j, length)
        return True

    def take_python(self, ids: np.ndarray) -> np.ndarray:
        """Mark ``ids`` busy in the mask, the bucket and the cluster counts (the Python path
        of :meth:`begin_mask`).

        Parameters
        ----------
        ids : numpy.ndarray
            The ids an allocation rule chose (int64).

        Returns
        -------
        numpy.ndarray
            The ids as int32, as the schedule keeps them.
        """
        free, counts = self.free, self.counts
        assert free is not None and counts is not None  # the mask's state (not a line)
        free[ids] = False
        if counts.size == 1:  # one bucket: its count is the free count
            counts[0] -= ids.size
        else:
            counts[:] -= np.bincount(ids // BLOCK, minlength=counts.size)
        clusters = self.clusters
        if clusters is not None:
            _count_clusters(clusters, ids // self.cluster_size, -1)
        return ids.astype(np.int32)

    def free_runs(self) -> tuple[np.ndarray, np.ndarray]:
        """:func:`~lpsched.batch.allocation.free_blocks` of the free processors, found
        once per state of the running set (``version`` changes with every start and end,
        the only changes of the mask): the forced rule's placeable test and its allocation
        read the same runs.

        Returns
        -------
        tuple of (numpy.ndarray, numpy.ndarray)
            The starts and lengths of the maximal runs of free processors.
        """
        if self.runs_at != self.version:
            self.runs = free_blocks(self.alloc_free)  # type: ignore[arg-type]
            self.runs_at = self.version
        return self.runs

    def penalised(self, j: int, ids: np.ndarray, length: float) -> float:
        """``j``'s run time on ``ids`` under the placement penalty (module doc), or its
        estimate, with ``j`` marked failed, when that is longer."""
        topology, penalty = self.topology, self.penalty
        assert topology is not None and penalty is not None
        if not ids.size:  # on no processor: no level, no penalty (decision 390)
            return length
        kind, factor = penalty
        r = topology.level_of(ids) - topology.min_level(self.sizes_l[j])
        length *= (1 + r * factor) if kind == "linear" else factor ** r
        if length > self.est[j]:
            length, self.failed[j] = self.est[j], True
        return length

    def finish_mask(self, j: int) -> None:
        """``j`` ends: its processors are free again."""
        ids, kernel = self.procs[j], self.kernel
        self.nfree += ids.size
        if kernel is not None:
            kernel.give(ids)
            self.ended(j)
            return
        free, counts = self.free, self.counts
        assert free is not None and counts is not None  # the mask's state (not a line)
        free[ids] = True
        if counts.size == 1:
            counts[0] += ids.size
        else:
            counts[:] += np.bincount(ids // BLOCK, minlength=counts.size)
        clusters = self.clusters
        if clusters is not None:
            _count_clusters(clusters, ids // self.cluster_size, 1)
        self.ended(j)

    def ended(self, j: int) -> None:
        """``j`` has ended: in fixed mode the rest of its slot is free again if it ended
        early; it leaves the running jobs."""
        if self.fixed:
            now = self.now
            _rs, re = self.slot.pop(j)
            if now < re:  # ended early: its estimated rest is free again
                self.plan.add(now, re, self.sizes_l[j])  # type: ignore[union-attr]
                self.freed.append((now, re))
                self.early_end = True
        releases = self.releases
        del releases[bisect.bisect_left(releases, (self.running.pop(j), j))]
        self.version += 1
        if self.advanced:
            self.advanced.pop(j, None)

    def scheduling_pass(self) -> None:
        """The FCFS part of every policy (a forced allocation may refuse the head), then
        EASY's backfilling or the conservative re-plan (or the fixed-reservation pass)."""
        if self.fixed:
            self.fixed_pass()
            return
        queue = self.queue
        self.fcfs_part()
        if self.kill_advanced:
            while queue and self.kill_for_head():
                self.fcfs_part()
        if not queue or self.policy == "fcfs":
            return
        if self.policy == "easy":
            self.easy_backfill(self.now)
            if self.kill_advanced and queue and self.advanced:
                self.wake_for_head()
            return
        self.rebuild_pass(self.now)

    def wake_for_head(self) -> None:
        """Wake the simulation at the head's reservation time when it lies ahead.

        "When the time of the reservation is reached" [001 L51]: a running job's estimated
        end is no event of its own when the job overruns it, so the pass at that time is
        asked for. Each such time is a release time: finitely many.

        Notes
        -----
        Decision 388 (a).
        """
        t_h = self.shadow(self.sizes_l[self.queue[0]], self.now)[0]
        if t_h > self.now and t_h != self.wake_for:
            self.wake_for = t_h
            self.wake_at(t_h)

    def fcfs_part(self) -> None:
        """Start the queue's jobs in order while the head fits and the rule places it."""
        queue, sizes_l, begin = self.queue, self.sizes_l, self.begin
        k = 0
        while k < len(queue) and sizes_l[queue[k]] <= self.nfree and begin(queue[k]):
            k += 1
        if k:
            del queue[:k]
            if self.qarr.size:
                self.qarr = self.qarr[k:]  # still ``queue[:len(qarr)]``

    def kill_for_head(self) -> bool:
        """Kill advanced jobs for a head whose reservation time has come; start it.

        Seed 001 §3's rule [001 L51–L53]: when the head's reservation time (the shadow time
        by the estimates) has come and the rule cannot place it, kill jobs advanced past
        it (submitted after it, started by backfilling), of the shortest
        latest-started-first prefix that lets the rule place it, those whose processors the
        placement uses, then start it. None is killed if all of them would not suffice
        (remembered until a job starts or ends). A killed job returns to the queue at its
        submission position. O(m) per check; O(running) per kill.

        Returns
        -------
        bool
            Whether the head started.

        Notes
        -----
        Decisions 387 and 388.
        """
        queue, rank = self.queue, self.rank
        head = queue[0]
        size = self.sizes_l[head]
        key = (self.version, head)
        if key == self.trial_failed or self.shadow(size, self.now)[0] > self.now:
            return False
        after = rank[head]
        victims = [v for v in reversed(self.advanced) if rank[v] > after]
        order = self.victims_for(victims, size) if victims else None
        if order is None:
            self.trial_failed = key
            return False
        killed = []
        for v in order:
            self.kill_job(v)
            killed.append(v)
            if self.sizes_l[head] <= self.nfree and self.begin(head):
                break
        else:  # pragma: no cover - the check above found a placement with all of them
            raise LpschedError(f"job {head}: no placement after killing every advanced job")
        del queue[0]
        for v in killed:  # back at its submission position among the waiting jobs
            bisect.insort(queue, v, key=rank.__getitem__)
        self.qarr = _NO_RANKS  # rebuilt from the queue by the next EASY pass
        self.scan_state = None
        return True

    def victims_for(self, victims: list[int], size: int) -> list[int] | None:
        """Choose which advanced jobs to kill, in order, for a head of ``size``.

        Of the shortest prefix of ``victims`` (latest started first) whose processors, with
        the free ones, let the rule place the head, first those whose processors that
        placement uses, then the others as a fallback.

        Parameters
        ----------
        victims : list of int
            The running jobs advanced past the head, latest started first.
        size : int
            The head's processors.

        Returns
        -------
        list of int or None
            The kill order; ``None`` when all of them would not suffice.

        Notes
        -----
        Decision 388 (c).
        """
        if self.kernel is not None:
            return self.victims_compiled(victims, size)
        if self.line is not None:  # ``basic`` on a line: the free runs as a mask
            if self.nfree + sum(self.sizes_l[v] for v in victims) < size:
                return None
            free = np.zeros(self.machine, bool)
            for lo, hi in zip(self.line.lo, self.line.hi, strict=True):
                free[lo:hi] = True
        else:
            free = self.alloc_free.copy()  # type: ignore[union-attr]
        ids_of = [self.ids_of(v) for v in victims]
        trial = free.copy()
        for ids in ids_of:
            trial[ids] = True
        rule, cluster, topo, qct = self.alloc, self.cluster_size, self.topology, self.qct
        if allocate(rule, trial, size, cluster, topo, qct) is None:
            return None
        n, place = 0, None
        while place is None:  # the prefix: ends at the latest when every victim is in
            free[ids_of[n]] = True
            n += 1
            place = allocate(rule, free, size, cluster, topo, qct)
        used = np.zeros(free.size, bool)
        used[place] = True
        needed = [v for v, ids in zip(victims[:n], ids_of, strict=False) if used[ids].any()]
        return needed + [v for v in victims if v not in needed]

    def victims_compiled(self, victims: list[int], size: int) -> list[int] | None:
        """:meth:`victims_for` on copies of the compiled :class:`Mask`: the same trial of
        every victim, the same shortest prefix, the same kill order.

        Parameters
        ----------
        victims : list of int
            The running jobs advanced past the head, latest started first.
        size : int
            The head's processors.

        Returns
        -------
        list of int or None
            The kill order; ``None`` when all of them would not suffice.
        """
        kernel = self.kernel
        assert kernel is not None
        ids_of = [self.procs[v] for v in victims]
        if self.alloc not in _RUN_RULES:  # in place on the machine's mask, restored
            found = kernel.victims(ids_of, size, self.nfree)
            if found is None:
                return None
            n, place = found
            return self.kill_order(victims, ids_of, n, place)
        trial, total = kernel.copy(), self.nfree
        for ids in ids_of:
            trial.give(ids)
            total += ids.size
        if trial.allocate(size, total, *self.runs_of(trial)) is None:
            return None
        mask, total = kernel.copy(), self.nfree
        n, place = 0, None
        while place is None:  # the prefix: ends at the latest when every victim is in
            mask.give(ids_of[n])
            total += ids_of[n].size
            n += 1
            place = mask.allocate(size, total, *self.runs_of(mask))
        return self.kill_order(victims, ids_of, n, place)

    def kill_order(self, victims: list[int], ids_of: list[np.ndarray], n: int,
                   place: np.ndarray) -> list[int]:
        """Of the first ``n`` victims those whose ids ``place`` uses, then the others
        (:meth:`victims_for`).

        Parameters
        ----------
        victims : list of int
            The running jobs advanced past the head, latest started first.
        ids_of : list of numpy.ndarray
            Their ids.
        n : int
            The shortest prefix whose ids let the rule place the head.
        place : numpy.ndarray
            The head's placement on them.

        Returns
        -------
        list of int
            The kill order.
        """
        used = np.zeros(self.free.size, bool)  # type: ignore[union-attr]
        used[place] = True
        needed = [v for v, ids in zip(victims[:n], ids_of, strict=False) if used[ids].any()]
        return needed + [v for v in victims if v not in needed]

    def runs_of(self, mask: Any) -> tuple[np.ndarray, ...]:
        """The free runs of a :class:`Mask`'s installed ids for the run rules, else none.

        Parameters
        ----------
        mask : Mask
            A compiled mask (a copy of the machine's).

        Returns
        -------
        tuple of numpy.ndarray
            ``(starts, lengths)`` or ``()``.
        """
        return free_blocks(mask.free[:self.machine]) if self.alloc in _RUN_RULES else ()

    def ids_of(self, j: int) -> np.ndarray:
        """The running job ``j``'s processor ids (from its flat runs on a line)."""
        p = self.procs[j]
        if self.line is None:
            return p
        return np.concatenate([np.arange(p[i], p[i + 1]) for i in range(0, len(p), 2)]
                              or [np.zeros(0, np.int64)])

    def kill_job(self, v: int) -> None:
        """Stop the running job ``v`` now: free its processors, drop its end, clear its start.

        Parameters
        ----------
        v : int
            The running job killed (it is waiting again, with no start).

        Notes
        -----
        Decision 387.
        """
        ends = self.ends
        at = next(i for i, e in enumerate(ends) if e[2] == v)
        ends[at] = ends[-1]
        ends.pop()
        heapq.heapify(ends)
        start = self.start[v]
        self.finish(v)
        self.kills += 1
        self.killed_jobs.add(v)
        self.killed_work += (self.now - start) * self.sizes_l[v]
        self.start[v] = self.end[v] = math.nan
        self.procs[v] = _NO_PROCS
        self.failed[v] = False
        self.nstarted -= 1

    def fixed_pass(self) -> None:
        """Run one pass of conservative backfilling with reservations kept from submission.

        On a persistent profile ``plan``: running jobs hold their slot until their
        estimated end, queued jobs their reservation; only starts, early ends and re-plans
        edit it. A job overrunning its estimate is not extended in the plan: jobs due on
        its processors fail to start and are re-planned from the next end until they fit.

        The rule reads the waiting jobs in queue (submission) order; a job's turn can change
        something only when it is new (its reservation), due (its slot has come), or, in a
        pass after an early end, when it can move: ``textbook`` needs ``size`` free
        processors somewhere in the plan between now and its slot (the running maximum of
        the free counts, one vectorised test for every waiting job), ``reassign`` needs
        ``size`` free now. Only those turns are taken, in queue order; the test is redone
        for the later jobs after a turn that freed part of the plan (a move or a re-plan).
        The skipped turns are the ones that left the plan unchanged: a pass costs O(log n)
        per due job plus, after an early end, O(waiting jobs) in numpy and one profile
        search per job that passes the test, instead of one profile search per waiting job.

        Notes
        -----
        Decision 266: only the turns that can change the plan are taken.
        """
        now = self.now
        prof = self.plan
        if prof is None:
            prof = self.plan = Profile(now, self.nfree)
            self.waiting = np.zeros(self.work.jobs, bool)
            self.resv_r = np.full(self.work.jobs, math.inf)
            self.size_r = cast(Any, self.size_a[self.by_rank])  # int64: the compiled test
            self.stamp_r = np.zeros(self.work.jobs, np.int64)
            self.len_r = np.maximum(self.est[self.by_rank], 1e-12)
        prof.trim(now)
        rule = self.compression if self.early_end else "none"  # compress after early ends
        self.early_end = False
        waiting, resv_r, rank, by_rank = self.waiting, self.resv_r, self.rank, self.by_rank
        due_heap, slot = self.due_heap, self.slot
        due: list[int] = []  # ranks of the waiting jobs whose slot has come
        while due_heap and due_heap[0][0] <= now:
            t, r = heapq.heappop(due_heap)
            if waiting[r] and resv_r[r] == t:
                due.append(r)
                resv_r[r] = -math.inf  # counted once
        for r in due:
            resv_r[r] = slot[by_rank[r]][0]
        due.sort()
        fresh = self.queue[:]  # the event loop appends to this very list
        self.queue.clear()
        self.started_now = []
        if rule == "none":
            for r in due:
                self.turn(by_rank[r], True, rule)
        else:
            self.compress_turns(due, rule)
        for j in fresh:  # new jobs come last in queue order: their reservations
            size, length = self.sizes_l[j], max(self.est_l[j], 1e-12)
            t = prof.earliest(size, length)
            self.first_resv[j] = t
            if t == now and size <= self.nfree and self.begin(j):
                # placed now and started (decision 682): the plan edit :meth:`hold` and
                # :meth:`turn` would make, without the waiting state they would undo
                slot[j] = (t, t + length)
                prof.add(t, t + length, -size)
                continue
            self.hold(j, t, length)
            if t <= now:
                self.turn(j, True, rule)
        for j in self.started_now:
            waiting[rank[j]] = False

    def compress_turns(self, due: list[int], rule: str) -> None:
        """The turns of a compression pass (:meth:`fixed_pass`): the due jobs (``due``,
        ranks, sorted) and the jobs :meth:`movable` lets through, merged in queue order; the
        test is redone for the later jobs after a turn that let part of the plan go
        (``reassign``: :meth:`reassign_turns`)."""
        # every waiting job is tried or found unable to move in this pass: the frees
        # logged before it no longer matter to the next one
        start_seq = self.freed_base + len(self.freed)
        if rule == "reassign":
            self.reassign_turns(due)
        else:
            by_rank = self.by_rank
            lo, hi = self.wait_lo, self.wait_hi
            ranks = self.waiting[lo:hi].nonzero()[0] + lo
            self.wait_lo = int(ranks[0]) if ranks.size else hi  # none waits below
            cand = self.movable(ranks, rule) if ranks.size else []
            di, ci, last = 0, 0, len(self.waiting)  # ``last``: past every rank
            while True:
                nd = due[di] if di < len(due) else last
                nc = int(ranks[cand[ci]]) if ci < len(cand) else last
                r = min(nd, nc)
                if r == last:
                    break
                if r == nd:
                    di += 1
                if r == nc:
                    ci += 1
                if self.turn(by_rank[r], r == nd, rule) and ranks.size:
                    # later jobs may move into it: the test again after ``r``
                    cand = self.movable(ranks, rule, int(ranks.searchsorted(r, "right")))
                    ci = 0
        del self.freed[: self.prev_seq - self.freed_base]
        self.freed_base, self.prev_seq = self.prev_seq, start_seq

    def reassign_turns(self, due: list[int]) -> None:
        """The turns of a ``reassign`` compression pass: the due jobs (``due``, ranks,
        sorted) and, in queue order, the waiting jobs its test lets through, each found
        only when its turn comes (:meth:`Profile.reassign_next`) against the free
        processors' answer and the plan of the last test.

        The plan changes between tests only at a turn that let part of it go (the test
        is then redone after it) or at a due job started off its own slot; before such a
        due turn the later candidates are listed at once (:meth:`movable`), as the test
        found them. A failed try restores the plan and a due job started on its slot
        leaves it as it was, so the candidates found when their turn comes are the ones
        the test listed: the same turns in the same order.

        Parameters
        ----------
        due : list of int
            The ranks of the waiting jobs whose slot has come, sorted.

        Notes
        -----
        Decision 683.
        """
        by_rank, now = self.by_rank, self.now
        if self.nfree < self.least_size:
            # no job fits the free processors now (a pass only lowers them): reassign
            # moves none, so only the due jobs take turns, without the O(waiting) test
            # (decision 381)
            for r in due:
                self.turn(by_rank[r], True, "reassign")
            return
        lo, hi = self.wait_lo, self.wait_hi
        ranks = self.waiting[lo:hi].nonzero()[0] + lo
        n = ranks.size
        self.wait_lo = int(ranks[0]) if n else hi  # none waits below
        prof = self.plan
        assert prof is not None
        # what the free processors allow, found at version ``found_at`` (decision 681)
        found_at, cap, best = self.version, self.free_cap(), self.loc_best()
        cluster = self.cluster_size or 1
        resv_r, size_r, len_r = self.resv_r, self.size_r, self.len_r
        listed: list[int] | None = None  # the candidates listed at once, if they are
        pos = li = di = 0  # the first position not passed; in ``listed``; in ``due``
        posd = int(ranks.searchsorted(due[0])) if due else n
        while True:
            if listed is None:
                p = prof.reassign_next(ranks, resv_r, size_r, len_r, now, pos, posd, cap, best,
                                       cluster)
            else:
                while li < len(listed) and listed[li] < pos:
                    li += 1
                p = min(listed[li], posd) if li < len(listed) else posd
            if p == n:
                break
            pos = p + 1
            if p < posd:
                j, is_due = by_rank[int(ranks[p])], False
            else:
                j, is_due = by_rank[due[di]], True
                di += 1
                posd = int(ranks.searchsorted(due[di])) if di < len(due) else n
                if listed is None and self.off_slot(j):
                    # started off its slot, it edits the plan: the later candidates now
                    listed, li = self.movable(ranks, "reassign", pos, cap, best), 0
            if self.turn(j, is_due, "reassign"):  # later jobs may move into it
                if found_at != self.version:
                    found_at, cap, best = self.version, self.free_cap(), self.loc_best()
                listed = None

    def off_slot(self, j: int) -> bool:
        """Whether the due job ``j``'s turn may edit the plan without letting part of it
        go: its slot is not exactly ``[now, now + estimate)`` (:meth:`turn` then lets it
        go and, if ``j`` starts, takes its run)."""
        length = max(self.est_l[j], 1e-12)
        rs, re = self.slot[j]
        return not (rs == self.now and re == self.now + length)

    def loc_best(self) -> np.ndarray | None:
        """``loc``'s table of the free processors: entry ``k`` the free processors of the
        ``k`` fullest clusters (:func:`~lpsched.batch.allocation.placeable`'s ``best``), or
        ``None`` for the other rules (:meth:`free_cap` says it all).

        Returns
        -------
        numpy.ndarray or None
            int64, one entry per count of clusters from 0.

        Notes
        -----
        Decision 681.
        """
        clusters = self.clusters
        if self.alloc_free is None or self.alloc != "loc" or not self.cluster_size:
            return None
        if clusters is None:
            clusters = cluster_counts(self.alloc_free, self.cluster_size)
        return np.concatenate([[0], np.cumsum(np.sort(clusters)[::-1])])

    def free_cap(self) -> int:
        """Give the largest size the free processors may allow now.

        ``nfree``, and for ``cont``/``cont-ff`` the longest free run. A size passes
        :meth:`fits_now` exactly when it is at most this and, under ``loc``, the fullest
        clusters of :meth:`loc_best` hold it (the same tests of
        :func:`~lpsched.batch.allocation.placeable`).

        Returns
        -------
        int
            The bound (processors).

        Notes
        -----
        Decision 681.
        """
        cap = self.nfree
        if self.alloc_free is not None and self.alloc in ("cont", "cont-ff"):
            _, lengths = self.free_runs()
            cap = min(cap, int(lengths.max()) if lengths.size else 0)
        return cap

    def fits_now(self, size: np.ndarray) -> np.ndarray:
        """Say which sizes the free processors allow now.

        At most ``nfree``, and a shape the forced rule can place
        (:func:`~lpsched.batch.allocation.placeable`, one test for every size). Reads only
        the free processors: the same until a job starts or ends. The reference of
        :meth:`free_cap` and :meth:`loc_best`, which a pass reads
        (tests/batch/test_reassign_turns_adversarial.py compares them).

        Parameters
        ----------
        size : numpy.ndarray
            Sizes of waiting jobs.

        Returns
        -------
        numpy.ndarray
            bool, one per size.

        Notes
        -----
        Decision 681.
        """
        ok = size <= self.nfree
        alloc_free = self.alloc_free
        if alloc_free is not None and ok.any():  # a forced rule's shape, for all at once
            ok[ok] = placeable(self.alloc, alloc_free, size[ok], self.cluster_size,
                               self.nfree, self.clusters,
                               self.free_runs() if self.alloc in _RUN_RULES else None)
        return ok

    def movable(self, ranks: np.ndarray, rule: str, start: int = 0, cap: int | None = None,
                best: np.ndarray | None = None) -> list[int]:
        """Find the waiting jobs that may move in a compression pass under ``rule``.

        Positions in ``ranks`` (waiting jobs, queue order) from ``start`` on, by a
        necessary condition: each position then gets the exact test of its turn
        (:meth:`fixed_pass`); the others are stamped as unable to move at this point of the
        plan's history.

        ``reassign`` (start now): ``size`` free processors now, and ``size`` free in the plan
        on every breakpoint from now to the earlier of its slot and ``now + estimate`` (the
        running minimum of the free counts; the slot's own processors count only from its
        start, and the end is read with :meth:`Profile.earliest`'s tolerance): one call of
        :meth:`Profile.reassign_scan`.
        ``textbook`` (move earlier): a free of the plan since the job was last found unable
        to move that begins before its slot ends and has not passed (a window before its
        slot that did not fit then fits only if some of it was freed since), and ``size``
        free somewhere between now and its slot (the running maximum). Both read a table
        of the plan (:meth:`Profile.held_until`, :meth:`Profile.reached_at`), not a search
        of the breakpoints per job.

        Parameters
        ----------
        ranks : numpy.ndarray
            Waiting jobs, by submission rank, in queue order.
        rule : {"reassign", "textbook"}
            The compression rule.
        start : int
            The first position tested.
        cap : int, optional
            ``reassign``: :meth:`free_cap`, when found at the current free processors
            (else it and ``best`` are found now).
        best : numpy.ndarray, optional
            ``reassign`` under ``loc``: :meth:`loc_best`, found with ``cap``.

        Returns
        -------
        list of int
            The positions (increasing) that may move.

        Notes
        -----
        Decisions 279 and 680.
        """
        prof, now = self.plan, self.now
        assert prof is not None
        if rule == "reassign":
            # the free processors' test first (every test is per job: the order of the
            # conjunction changes no answer), then the plan's on the jobs it lets through
            if cap is None:
                cap, best = self.free_cap(), self.loc_best()
            return prof.reassign_scan(ranks, self.resv_r, self.size_r, self.len_r, now, start,
                                      cap, best, self.cluster_size or 1)
        ranks = ranks[start:]
        rs, size = self.resv_r[ranks], self.size_r[ranks]
        seq = self.freed_base + len(self.freed)
        helped = np.zeros(ranks.size, bool)
        if self.freed:
            log = np.array(self.freed)
            begin = np.where(log[:, 1] > now, np.maximum(log[:, 0], now), math.inf)
            first = np.concatenate((np.minimum.accumulate(begin[::-1])[::-1], (math.inf,)))
            since = np.clip(self.stamp_r[ranks] - self.freed_base, 0, len(self.freed))
            helped = first[since] < rs + self.len_r[ranks]
        helped |= self.stamp_r[ranks] < 0  # re-planned from the next end: try it
        ok = (rs > now) & helped
        ok[ok] = prof.reached_at(size[ok]) < rs[ok]
        self.stamp_r[ranks[~ok]] = seq
        return cast("list[int]", (ok.nonzero()[0] + start).tolist())

    def hold(self, j: int, t: float, length: float, fresh: bool = True) -> None:
        """``j`` (waiting) now holds ``[t, t + length)`` in the plan; a pass at ``t``.
        ``fresh``: ``t`` is its earliest fit (a new reservation), not a re-plan from the
        next end (which a textbook compression may still move earlier)."""
        prof = self.plan
        assert prof is not None
        r = self.rank[j]
        self.slot[j] = (t, t + length)
        prof.add(t, t + length, -self.sizes_l[j])
        self.waiting[r] = True
        if r < self.wait_lo:
            self.wait_lo = r
        if r >= self.wait_hi:
            self.wait_hi = r + 1
        self.resv_r[r] = t
        self.stamp_r[r] = self.freed_base + len(self.freed) if fresh else -1
        heapq.heappush(self.due_heap, (t, r))
        if t > self.now:
            self.wake_at(t)

    def turn(self, j: int, due: bool, rule: str) -> bool:
        """Take one waiting job's turn in a fixed-reservation pass.

        A due job starts if its allocation places it, else is re-planned from the next
        end; otherwise ``textbook`` re-inserts it at its earliest fitting time and
        ``reassign`` starts it now if it fits now without touching any other reservation.

        Parameters
        ----------
        j : int
            The job.
        due : bool
            Its slot has come.
        rule : str
            The compression rule of this pass (``"none"`` without an early end).

        Returns
        -------
        bool
            Whether part of the plan was let go (a later job may now move).
        """
        prof, now, slot = self.plan, self.now, self.slot
        assert prof is not None
        size, length = self.sizes_l[j], max(self.est_l[j], 1e-12)
        rs, re = slot[j]
        if not due and rule == "textbook":
            moved, started = self.reinsert(j, size, length, rs, re)
            r = self.rank[j]
            if moved:
                self.freed.append((rs, re))
            if started:
                self.started_now.append(j)
            elif moved:
                self.resv_r[r] = slot[j][0]
                heapq.heappush(self.due_heap, (slot[j][0], r))
            self.stamp_r[r] = self.freed_base + len(self.freed)
            return moved
        if not due and size > self.nfree:
            return False
        if due and rs == now and re == now + length:
            # its slot is exactly the run it would start: letting the slot go and taking
            # it again leaves the plan as it was (the allocation does not read the plan),
            # so the plan is edited only if the rule cannot place it
            if size <= self.nfree and self.begin(j):
                self.started_now.append(j)
                return False
            prof.add(rs, re, size)
        else:
            prof.add(rs, re, size)  # let go of its own slot, then try now
            if (due or prof.earliest(size, length) <= now) and size <= self.nfree \
                    and self.begin(j):
                prof.add(now, now + length, -size)
                slot[j] = (now, now + length)
                self.started_now.append(j)
                if not due:
                    self.freed.append((rs, re))
                return not due
        if due:  # an overrun or a forced allocation: re-plan from the next end
            self.freed.append((rs, re))
            self.hold(j, prof.earliest(size, length, self.next_change(j)), length,
                      fresh=False)
            return True
        prof.add(rs, re, -size)
        return False

    def next_change(self, j: int) -> float:
        """Give the earliest time a due job ``j`` that cannot start now may be placed.

        The next end (now when a job that started this instant ends at it too). The free
        processors grow only at ends, so a retry before the next end fails again: planning
        from now instead gave a forced allocator a slot the count profile offered but the
        free processors' shape could not honour, re-planned one rounding step later at
        every pass; zero-length jobs refused in turn then advanced the clock by one ulp a
        pass and never reached the next end. Each refusal of ``j`` is thus followed by at
        least one end before its next try: at most ``n + 1`` refusals per job, so finitely
        many passes. The next end is the simulator's event, not an estimate the scheduler
        reads: it is when the scheduler is told processors came back, and so the first
        instant its retry can succeed.

        Parameters
        ----------
        j : int
            The due job.

        Returns
        -------
        float
            The next end (s).

        Notes
        -----
        Decision 265.
        """
        if self.ends:
            return max(self.ends[0][0], self.now)
        raise LpschedError(f"job {int(self.work.job[j])} (size {self.sizes_l[j]}) cannot be "
                           f"placed by the {self.alloc!r} allocation even on the idle "
                           "machine")

    def reinsert(self, j: int, size: int, length: float, rs: float, re: float,
                 ) -> tuple[bool, bool]:
        """Compress one queued job by the textbook rule (Mu'alem & Feitelson 2001).

        Its reservation ``[rs, re)`` is removed from the plan and re-inserted at the
        earliest fitting time ``t >= now`` (never after ``rs``: the old slot still fits);
        ``j`` starts when ``t = now`` and its allocation places it. One profile search:
        O(breakpoints).

        Parameters
        ----------
        j : int
            The job.
        size : int
            Its processors.
        length : float
            Its estimate (s, at least 1e-12).
        rs, re : float
            Its reservation's start and end (s).

        Returns
        -------
        tuple of (bool, bool)
            Whether it moved and whether it started.
        """
        prof, now = self.plan, self.now
        assert prof is not None
        # only the breakpoints before ``re`` (decision 381): a run that starts before ``rs``
        # and has enough free up to there lasts past ``re > t + length``, so it fits, and
        # a start at or after ``rs`` is no move. The job's own slot is let go virtually
        # (``size`` more free from ``rs`` on), so a job that does not move (most turns)
        # leaves the plan untouched
        t = prof.earlier_fit(size, length, rs, re)
        if t >= rs:  # nothing earlier: the same slot
            return False, False
        prof.add(rs, re, size)
        if t <= now and size <= self.nfree and self.begin(j):
            t = now
            started = True
        else:
            started = False
            if t > now:
                self.wake_at(t)
        self.slot[j] = (t, t + length)
        prof.add(t, t + length, -size)
        return True, started

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
                if math.isnan(first_resv[j]):
                    first_resv[j] = t
        for j in started:
            queue.remove(j)

    def profile(self) -> Profile:
        """Free processors from now on by the running jobs' estimated ends."""
        running = self.running
        jobs = np.fromiter(running.keys(), dtype=np.int64, count=len(running))
        ends = np.fromiter(running.values(), dtype=float, count=len(running))
        return Profile.from_releases(self.now, self.nfree, ends, self.work.size[jobs])

    def easy_backfill(self, now: float) -> None:
        """Run EASY's backfilling after the FCFS part of a pass.

        The head's reservation at the shadow time ``t_h``, then, in queue order, any job
        that fits now and either ends by ``t_h`` or uses only the ``extra`` processors the
        head leaves free at ``t_h``: an O(1) test per queued job, equal to checking the
        whole (never decreasing) profile; O(queue) per pass, in plain Python (no array is
        built for a pass), and only the newly submitted jobs when no job started or ended
        since a pass that started none (the others are refused again).

        Parameters
        ----------
        now : float
            The current time (s).
        """
        queue, sizes_l, est_l, begin = self.queue, self.sizes_l, self.est_l, self.begin
        head = queue[0]
        size_h = sizes_l[head]
        t_h, free_then = self.shadow(size_h, now)
        first_resv = self.first_resv
        if first_resv[head] != first_resv[head]:  # NaN: not set yet
            first_resv[head] = t_h
        extra = free_then - size_h
        bound = t_h + 1e-9 * max(1.0, abs(t_h))
        started: list[int] = []
        nfree = self.nfree
        state = (self.version, head, t_h, free_then)
        qarr, kernel = self.qarr, self.kernel
        if kernel is None and qarr.size < len(queue):  # the jobs submitted since the last pass
            qarr = self.qarr = np.concatenate([qarr, np.array(queue[qarr.size:], np.int64)])
        lo, n = self.scan_from if state == self.scan_state else 1, len(queue)
        while lo < n:
            # decision 464: the positions the loop below would not skip at once, found in
            # numpy (too wide for the free count now, of a size refused on these free
            # processors, or neither ending by the shadow time nor within ``extra``); a
            # start changes all three, so the search is redone after each start.
            # The loop still tests every job it reads: the same jobs start as a scan of
            # every position
            for k in self.backfill_candidates(qarr, lo, nfree, now, bound, extra) \
                    if kernel is None else _mask_c.backfill_candidates(
                        queue, lo, self.size_a, self.est, now, bound, extra, nfree,
                        self.refused if self.refused_at == self.version else None):
                j = queue[k]
                size = sizes_l[j]
                if size > nfree or (self.refused_at == self.version and size in self.refused):
                    continue  # too wide, or refused on these free processors (decision 462)
                ends_first = now + est_l[j] <= bound
                if (ends_first or size <= extra) and begin(j):
                    started.append(k)
                    if self.kill_advanced:
                        self.advanced[j] = None
                    nfree = self.nfree
                    if not ends_first:
                        extra -= size
                    lo = k + 1
                    break
            else:
                break
        for k in reversed(started):
            del queue[k]
        if started and kernel is None:
            self.qarr = np.delete(qarr, started)
        # nothing started: until a job starts or ends, the same head, shadow and free
        # counts refuse these jobs again (``now + estimate`` only grows): the next pass
        # need only read the jobs submitted meanwhile, from ``scan_from``
        self.scan_state, self.scan_from = (None, 1) if started else (state, len(queue))

    def backfill_candidates(self, qarr: np.ndarray, lo: int, nfree: int, now: float,
                            bound: float, extra: int) -> Any:
        """Queue positions from ``lo`` that may backfill: all positions, in order, when
        few remain.

        A position qualifies when its job is at most ``nfree`` wide, not of a size refused
        on the current free processors, and ends by ``bound`` (``now + estimate``, the same
        float sum) or fits in ``extra`` (:meth:`easy_backfill`'s tests).

        Notes
        -----
        Decision 464: reading only these positions starts what reading every one does.
        """
        if qarr.size - lo < 32:
            return range(lo, qarr.size)
        jobs = qarr[lo:]
        sizes = self.work.size[jobs]
        ok = (sizes <= nfree) & ((now + self.est[jobs] <= bound) | (sizes <= extra))
        if self.refused_at == self.version and self.refused:
            ok &= ~np.isin(sizes, np.fromiter(self.refused, np.int64, len(self.refused)))
        return (ok.nonzero()[0] + lo).tolist()

    def shadow(self, size: int, now: float) -> tuple[float, int]:
        """Give the earliest time ``size`` processors are free by the estimates, and how many.

        Only releases change the free count, so it never decreases: the first time enough
        are free holds for any length (what :meth:`Profile.earliest` gives). Remembered
        until the running set changes, unless an estimate has run out (its release then
        moves with ``now``) or the remembered time has passed (it was ``now`` of a past
        pass).

        Parameters
        ----------
        size : int
            The head's processors.
        now : float
            The current time (s).

        Returns
        -------
        tuple of (float, int)
            The shadow time (s) and the processors free then.
        """
        memo = self.shadow_memo
        key = (self.version, size, self.nfree)
        if key in memo and memo[key][0] >= now and (
                not self.releases or self.releases[0][0] >= now):
            return memo[key]
        memo.clear()
        memo[key] = found = self._shadow(size, now)
        return found

    def _shadow(self, size: int, now: float) -> tuple[float, int]:
        """:meth:`shadow` without the memo: one walk of the sorted releases (every release
        due by ``now`` counts at ``now``; then release times in order, ties together).
        ``size`` is at most the machine, so the releases always suffice."""
        sizes_l, have, at = self.sizes_l, self.nfree, now
        for t, j in self.releases:
            if t > at:
                if have >= size:
                    return at, have
                at = t
            have += sizes_l[j]
        return at, have
