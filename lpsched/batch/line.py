"""FCFS and EASY under ``basic`` allocation on a line of processors, in one kernel.

This is the common case of :func:`~lpsched.batch.simulator.simulate_batch` (no topology,
no penalty, the lowest free ids). Its rules are :class:`~lpsched.batch.simulator._BatchSim`'s
(seed 000 §4.5: FCFS, EASY's shadow time and backfilling test), written once more on plain
containers: a heap of ends (O(log n) per job), a sorted list of estimated releases (an
insertion per start), the free processors as sorted runs of ids (a job costs the runs it
takes, not its size) and an EASY pass of O(queue) comparisons after the FCFS part.

Two kernels run these rules. The compiled one, ``_line_c.c`` (the optional extension
``lpsched.batch._line_c``: ``pip install`` builds it when a C compiler and Python's headers
are present, and installs without it otherwise), is the fast path. The Python one, below,
is the reference and the fallback, written to be read rule by rule: :class:`_Line` holds
the machine (free runs, running jobs, the runs taken) and starts and ends jobs;
:func:`_fcfs_starts` is the FCFS part of a pass, :func:`_shadow` EASY's reservation for
the head and :func:`_easy_backfill` its backfilling test; :func:`_run_python` is the event
loop that calls them. ``LPSCHED_PURE_PYTHON=1`` in the environment forces the Python
kernel; :func:`kernel_in_use` says which one runs.

Both kernels give the same start times, ends, processors, first reservations, events,
progress calls and errors, byte for byte (tests/batch/test_line_compiled.py), and the same
schedules as the general simulator (tests/batch/test_line_kernel.py). Decisions 375 (one
kernel for the common case) and 443-449 (the compiled kernel) say why.
"""

from __future__ import annotations

import bisect
import heapq
import math
import time as _time
from array import array
from collections.abc import Callable
from typing import Any

import numpy as np

from lpsched.batch.procsets import ProcSets
from lpsched.batch.schedule import BatchSchedule
from lpsched.core.kernels import PURE_PYTHON, kernel_state  # noqa: F401
from lpsched.core.swf import Workload
from lpsched.errors import LpschedError

try:  # the compiled loop (optional: a machine without a C compiler runs the Python one)
    from lpsched.batch import _line_c
except ImportError:  # pragma: no cover - depends on the build
    _line_c = None  # type: ignore[assignment]

#: the environment variable that forces the Python kernel (any value but "" and "0")
#: the progress callback is called every this many instants (a power of two minus one:
#: ``tick & PROGRESS_EVERY == 0``)
PROGRESS_EVERY = 4095

Progress = Callable[[int, int, float], None]


def kernel_in_use() -> str:
    """Say which FCFS/EASY kernel :func:`_simulate_line` runs.

    Returns
    -------
    str
        ``"compiled"`` (the extension ``lpsched.batch._line_c``),
        ``"python (LPSCHED_PURE_PYTHON is set)"`` or ``"python (the extension
        lpsched.batch._line_c is not built)"``.

    Notes
    -----
    Decision 443: the compiled kernel is optional, the Python one the reference.
    """
    return kernel_state(_line_c, "lpsched.batch._line_c")


def _simulate_line(work: Workload, policy: str, m: int, kill: bool,
                   progress: Progress | None,
                   ) -> tuple[BatchSchedule, dict[str, Any]]:
    """Simulate FCFS or EASY with ``basic`` allocation on a line of ``m`` processors.

    The same event order as the general simulator (ends, then submissions in rank order,
    then one pass), the same FCFS part, EASY's shadow time from the sorted estimated
    releases and the same backfilling test, so the same start times, ends, processors and
    first reservations (tests/batch/test_line_kernel.py compares both). The compiled
    kernel runs when it is built and defined identically on these inputs
    (:func:`_compiled_applies`), the Python one (:func:`_run_python`) otherwise.

    Parameters
    ----------
    work : Workload
        The jobs (seed 000 §4.5's rigid jobs: submit, run, size, estimate).
    policy : str
        ``"fcfs"`` or ``"easy"``.
    m : int
        Processors on the line (ids ``0..m-1``).
    kill : bool
        Stop every job at its estimate.
    progress : callable, optional
        ``progress(started, jobs, now)`` every 4,096 instants and at the end.

    Returns
    -------
    tuple of (BatchSchedule, dict)
        As :func:`~lpsched.batch.simulator.simulate_batch`.
    """
    n = work.jobs
    est = np.maximum(work.estimate, 0.0)
    run = np.minimum(work.run, work.estimate) if kill else work.run
    order = np.lexsort((np.arange(n), work.submit))
    subs = np.ascontiguousarray(work.submit[order], float)
    _check_submissions(subs)
    if _compiled_applies(work.size, est, m):
        return _simulate_line_c(work, subs, order, run, est, policy, m, kill, progress)
    return _run_python(work, subs, order, run, est, policy, m, kill, progress)


def _check_submissions(subs: np.ndarray) -> None:
    """Refuse a submission before time 0 or NaN, as the event loop would, before any event:
    ``subs`` is sorted, so the first is the least unless NaN (sorted last)."""
    n = subs.size
    if n and not subs[0] >= 0.0:
        first_bad = subs[np.flatnonzero(~(subs >= 0.0))[0]]
        raise LpschedError(f"cannot schedule an event at {first_bad} before now = 0.0")
    if n and np.isnan(subs[-1]):
        raise LpschedError(f"cannot schedule an event at {subs[-1]} before now = 0.0")


def _compiled_applies(sizes: np.ndarray, est: np.ndarray, m: int) -> bool:
    """Whether the compiled kernel is built, chosen, and defined as the Python one on these
    inputs: integer sizes in ``[0, m]``, float estimates of at most 64 bits without NaN,
    an integer machine below 2^63 (decision 444)."""
    return bool(_line_c is not None and sizes.dtype.kind in "iu" and est.dtype.kind == "f"
                and est.dtype.itemsize <= 8 and kernel_in_use() == "compiled"
                and isinstance(m, int | np.integer) and not isinstance(m, bool)
                and 0 < m < 2**63
                and (not sizes.size or (sizes.min() >= 0 and sizes.max() <= m))
                and not np.isnan(est).any())


class _Line:
    """The state of one run of the Python kernel, and the two moves that change it.

    The free processors are sorted, maximal runs ``[free_lo[k], free_hi[k])``; ``nfree``
    counts them. A started job's runs are appended to the flat ``array('q')`` ``out_lo`` /
    ``out_hi`` (16 bytes a run, no Python object per id): job ``j``'s are ``cnt[j]`` runs
    from ``off[j]``. ``ends`` is the heap of ``(end, seq, job)`` (``seq`` breaks ties in
    start order), ``releases`` the sorted ``(estimated release, job)`` of the running jobs
    (EASY's shadow reads them), and ``version`` changes whenever the running set does.
    ``shadow_key``/``shadow_val`` remember the last shadow, ``scan_state``/``scan_from``
    the queue positions the last backfilling scan refused (:func:`_easy_backfill`).
    """

    __slots__ = ("cnt", "end", "ends", "est", "first_resv", "free_hi", "free_lo", "nfree",
                 "nstarted", "off", "out_hi", "out_lo", "rel", "releases", "run", "scan_from",
                 "scan_state", "seq", "shadow_key", "shadow_val", "sizes", "start", "version")

    def __init__(self, sizes: list[Any], est: list[float], run: array[float], n: int,
                 m: int) -> None:
        self.sizes, self.est, self.run = sizes, est, run
        self.free_lo, self.free_hi = ([0], [m]) if m else ([], [])
        self.nfree = m
        self.out_lo: array[int] = array("q")
        self.out_hi: array[int] = array("q")
        self.off = array("q", [0]) * n  # the job's first run in ``out_lo``/``out_hi``
        self.cnt = array("q", [0]) * n  # and how many
        self.start = array("d", [math.nan]) * n
        self.end = array("d", [math.nan]) * n
        self.first_resv = array("d", [math.nan]) * n
        self.rel = array("d", [0.0]) * n  # estimated release of a running job
        self.ends: list[tuple[float, int, int]] = []
        self.releases: list[tuple[float, int]] = []
        self.seq = self.version = self.nstarted = 0
        self.shadow_key: tuple[int, int, int] | None = None
        self.shadow_val: tuple[float, int] = (0.0, 0)
        self.scan_state: tuple[int, int, float, int] | None = None
        self.scan_from = 1

    def start_job(self, j: int, now: float) -> None:
        """Start job ``j`` at ``now`` on the ``size`` lowest free ids (``basic``): its runs
        appended to the runs taken, its end in the heap, its estimated release among the
        sorted releases."""
        free_lo, free_hi, out_lo, out_hi = self.free_lo, self.free_hi, self.out_lo, self.out_hi
        size = self.sizes[j]
        a0, left, k = len(out_lo), size, 0
        while left:  # take the lowest free ids, run after run
            a, b = free_lo[k], free_hi[k]
            if b - a <= left:  # the whole run
                out_lo.append(a)
                out_hi.append(b)
                left -= b - a
                k += 1
            else:  # its first ``left`` ids
                out_lo.append(a)
                out_hi.append(a + left)
                free_lo[k] = a + left
                left = 0
        if k:
            del free_lo[:k], free_hi[:k]
        self.off[j], self.cnt[j] = a0, len(out_lo) - a0
        self.nfree -= size
        self.start[j] = now
        self.nstarted += 1
        self.end[j] = e = now + self.run[j]
        if not e >= now:
            raise LpschedError(f"cannot schedule an event at {e} before now = {now}")
        self.rel[j] = released = now + self.est[j]
        bisect.insort(self.releases, (released, j))
        self.seq += 1
        heapq.heappush(self.ends, (e, self.seq, j))

    def finish_job(self, j: int) -> None:
        """End job ``j``: its runs are free again, merged with their free neighbours, and
        its release leaves the sorted releases."""
        free_lo, free_hi, out_lo, out_hi = self.free_lo, self.free_hi, self.out_lo, self.out_hi
        a0 = self.off[j]
        for r in range(a0, a0 + self.cnt[j]):
            a, b = out_lo[r], out_hi[r]
            k = bisect.bisect_left(free_lo, a)
            if k and free_hi[k - 1] == a:  # joins the run before it
                if k < len(free_lo) and free_lo[k] == b:  # and the run after it
                    free_hi[k - 1] = free_hi[k]
                    del free_lo[k], free_hi[k]
                else:
                    free_hi[k - 1] = b
            elif k < len(free_lo) and free_lo[k] == b:  # joins the run after it
                free_lo[k] = a
            else:
                free_lo.insert(k, a)
                free_hi.insert(k, b)
        self.nfree += self.sizes[j]
        del self.releases[bisect.bisect_left(self.releases, (self.rel[j], j))]
        self.version += 1


def _fcfs_starts(line: _Line, queue: list[int], now: float) -> None:
    """The FCFS part of a pass: start the queued jobs in order while the head fits."""
    sizes = line.sizes
    k, nq, avail = 0, len(queue), line.nfree
    while k < nq and sizes[queue[k]] <= avail:
        avail -= sizes[queue[k]]
        k += 1
    if k:
        todo = queue[:k]
        del queue[:k]
        for j in todo:  # started at once: a later one reads the free runs
            line.start_job(j, now)
        line.version += 1


def _shadow(line: _Line, size_h: int, now: float) -> tuple[float, int]:
    """EASY's reservation for a head of ``size_h`` processors: the shadow time ``t_h``,
    the earliest time enough processors are free by the running jobs' estimated releases
    (the releases already due count at ``now``), and how many are free then.

    One walk of the sorted releases; the answer is remembered until the running set, the
    head's size or the free count changes, or a remembered time falls behind ``now``.
    """
    releases = line.releases
    key = (line.version, size_h, line.nfree)
    if key == line.shadow_key and line.shadow_val[0] >= now and (
            not releases or releases[0][0] >= now):
        return line.shadow_val
    sizes = line.sizes
    have, t_h = line.nfree, now
    for tr, jr in releases:
        if tr > t_h:
            if have >= size_h:
                break
            t_h = tr
        have += sizes[jr]
    line.shadow_key, line.shadow_val = key, (t_h, have)
    return t_h, have


def _easy_backfill(line: _Line, queue: list[int], now: float) -> None:
    """EASY's backfilling after the FCFS part: the head gets its shadow reservation (the
    first one is kept as the head's first reservation), and each later queued job, in
    order, starts now if it fits now and either ends by the shadow time (by its estimate,
    within a relative 1e-9) or uses only the processors the head leaves spare then.

    When nothing starts, the same head, shadow and free count refuse the same jobs again
    until a job starts or ends (``now + estimate`` only grows): the next scan starts past
    them.
    """
    head = queue[0]
    size_h = line.sizes[head]
    t_h, free_then = _shadow(line, size_h, now)
    first_resv = line.first_resv
    if first_resv[head] != first_resv[head]:  # NaN: not set yet
        first_resv[head] = t_h
    extra = free_then - size_h
    bound = t_h + 1e-9 * max(1.0, abs(t_h))
    state = (line.version, head, t_h, free_then)
    sizes, est, nfree = line.sizes, line.est, line.nfree
    started: list[int] = []
    for k in range(line.scan_from if state == line.scan_state else 1, len(queue)):
        j = queue[k]
        size = sizes[j]
        if size > nfree:
            continue
        ends_first = now + est[j] <= bound
        if ends_first or size <= extra:
            started.append(k)
            line.start_job(j, now)
            line.version += 1
            nfree = line.nfree
            if not ends_first:
                extra -= size
    for k in reversed(started):
        del queue[k]
    line.scan_state, line.scan_from = (None, 1) if started else (state, len(queue))


def _run_python(work: Workload, subs_a: np.ndarray, order_a: np.ndarray, run_a: np.ndarray,
                est: np.ndarray, policy: str, m: int, kill: bool, progress: Progress | None,
                ) -> tuple[BatchSchedule, dict[str, Any]]:
    """The Python kernel's event loop: at each instant, the jobs ending then finish, the
    jobs submitted then join the queue (in rank order), and one pass starts jobs
    (:func:`_fcfs_starts`, then :func:`_easy_backfill` under EASY)."""
    n = work.jobs
    # read once per job: C arrays (no Python object per job); read in the scans: lists
    subs, order = array("d", subs_a.tobytes()), array("q", order_a.astype(np.int64).tobytes())
    run_l = array("d", np.ascontiguousarray(run_a, float).tobytes())
    del order_a, subs_a
    line = _Line(work.size.tolist(), est.tolist(), run_l, n, m)
    ends, queue, easy, finish = line.ends, [], policy == "easy", line.finish_job
    npass = tick = i = 0
    now, inf = 0.0, math.inf
    t0 = _time.perf_counter()
    while True:
        t = ends[0][0] if ends else inf
        if i < n and subs[i] < t:
            t = subs[i]
        if t == inf:
            break
        now = t
        tick += 1
        if not tick & PROGRESS_EVERY and progress is not None:
            progress(line.nstarted, n, t)
        while ends and ends[0][0] == t:
            finish(heapq.heappop(ends)[2])
        while i < n and subs[i] == t:
            queue.append(order[i])
            i += 1
        npass += 1
        _fcfs_starts(line, queue, now)
        if queue and easy:
            _easy_backfill(line, queue, now)
    if progress is not None:
        progress(line.nstarted, n, now)
    seconds = _time.perf_counter() - t0
    del subs, order, run_l, ends, queue
    off = np.frombuffer(line.off, np.int64) if n else np.zeros(0, np.int64)
    cnt = np.frombuffer(line.cnt, np.int64) if n else np.zeros(0, np.int64)
    procs = _job_order(off, cnt, line.out_lo, line.out_hi)
    start, end = np.array(line.start, float), np.array(line.end, float)
    first_resv = np.array(line.first_resv, float)
    del line, off, cnt
    return _result(work, est, kill, start, end, procs, 2 * n + npass, seconds, first_resv)


def _result(work: Workload, est: np.ndarray, kill: bool, start: np.ndarray, end: np.ndarray,
            procs: ProcSets, events: int, seconds: float, first_resv: np.ndarray,
            ) -> tuple[BatchSchedule, dict[str, Any]]:
    """The schedule and the statistics of either kernel (no job fails on a line; under
    ``kill`` the jobs that run past their estimate, ``est``, are killed)."""
    failed = np.zeros(work.jobs, bool)
    killed = work.run > est if kill else failed.copy()
    sched = BatchSchedule(start, end, procs, failed, killed)
    return sched, {"events": events, "seconds": seconds, "first_reservation": first_resv}


def _simulate_line_c(work: Workload, subs: np.ndarray, order: np.ndarray, run: np.ndarray,
                     est: np.ndarray, policy: str, m: int, kill: bool, progress: Progress | None,
                     ) -> tuple[BatchSchedule, dict[str, Any]]:
    """The event loop of :func:`_run_python` in ``_line_c.c`` (the same rules, C arrays): called
    only with integer sizes in ``[0, m]``, an integer machine below 2^63 and estimates
    without NaN (decision 444). Every input is a private, aligned copy: the kernel reads the
    sizes and run times at every event, and a progress callback that wrote into the
    caller's arrays must not reach it (the Python loop reads its own lists)."""
    n = work.jobs
    start, end, first_resv = (np.full(n, math.nan) for _ in range(3))
    off, cnt = np.zeros(n, np.int64), np.zeros(n, np.int64)
    t0 = _time.perf_counter()
    lo, hi, npass = _line_c.simulate(
        np.array(subs, float), np.array(order, np.int64), np.array(run, float),
        np.array(work.size, np.int64), np.array(est, float), n,
        int(m), policy == "easy", progress, LpschedError, start, end, first_resv, off, cnt)
    seconds = _time.perf_counter() - t0
    procs = _job_order(off, cnt, lo, hi)
    del lo, hi
    return _result(work, est, kill, start, end, procs, 2 * n + npass, seconds, first_resv)


def _job_order(first: np.ndarray, counts: np.ndarray, out_lo: array[int] | bytearray,
               out_hi: array[int] | bytearray) -> ProcSets:
    """The runs taken in start order (job ``j``'s are ``first[j]`` to ``first[j] +
    counts[j] - 1`` of ``out_lo``/``out_hi``) as a :class:`ProcSets` in job order: one
    index array, built by a cumulative sum of steps (1 within a job, a jump between two),
    so the reordering holds one index and the two run arrays (peak memory).

    Parameters
    ----------
    first : numpy.ndarray
        Per job, the position of its first run in ``out_lo``/``out_hi`` (int64).
    counts : numpy.ndarray
        Per job, how many runs it took (int64).
    out_lo, out_hi : array.array or bytearray
        The runs ``[lo, hi)`` (typecode ``q``, or int64 bytes), in the order they were
        taken.

    Returns
    -------
    ProcSets
        Job ``j``'s runs at ``offsets[j]:offsets[j+1]``.
    """
    n = counts.size
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    idx = np.ones(total, np.int64)
    held = np.flatnonzero(counts)
    if held.size:  # at a job's first run: jump from the previous job's last run
        starts = first[held]
        prev_end = np.concatenate(([0], starts[:-1] + counts[held][:-1] - 1))
        idx[offsets[held]] = starts - prev_end
        idx[0] = starts[0]
        np.cumsum(idx, out=idx)
    lo_a = np.frombuffer(out_lo, np.int64) if total else np.zeros(0, np.int64)
    hi_a = np.frombuffer(out_hi, np.int64) if total else np.zeros(0, np.int64)
    return ProcSets(offsets, lo_a[idx], hi_a[idx])
