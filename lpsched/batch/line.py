"""The lean batch path (issue 34): FCFS and EASY under ``basic`` allocation on a line of
processors (no topology, no penalty), the common case of
:func:`~lpsched.batch.simulator.simulate_batch`, in one function whose state is local
variables (decision 375).

The rules are :class:`~lpsched.batch.simulator._BatchSim`'s (seed 000 §4.5: FCFS, EASY's
shadow time and backfilling test); tests/batch/test_line_kernel.py checks the kernel against
it. Cost: a heap of ends (O(log n) per job), a sorted list of estimated releases (an
insertion per start), the free processors as sorted runs of ids (a job costs the runs it
takes, not its size) and an EASY pass of O(queue) Python comparisons after the FCFS part.

The same loop is compiled in ``_line_c.c`` (decisions 443–449): when the optional extension
``lpsched.batch._line_c`` was built (``pip install`` builds it when a C compiler and Python's
headers are present, and installs without it otherwise), :func:`_simulate_line` runs it and
keeps this module's Python loop as the reference and the fallback. ``LPSCHED_PURE_PYTHON=1``
in the environment forces the Python loop; :func:`kernel_in_use` says which one runs.
tests/batch/test_34_ckernel.py holds both to the same start times, ends, processors, first
reservations, events, progress calls and errors.
"""

from __future__ import annotations

import bisect
import heapq
import math
import os
import time as _time
from array import array
from collections.abc import Callable
from typing import Any

import numpy as np

from lpsched.batch.procsets import ProcSets
from lpsched.batch.schedule import BatchSchedule
from lpsched.core.swf import Workload
from lpsched.errors import LpschedError

try:  # the compiled loop (optional: a machine without a C compiler runs the Python one)
    from lpsched.batch import _line_c
except ImportError:  # pragma: no cover - depends on the build
    _line_c = None  # type: ignore[assignment]

#: the environment variable that forces the Python kernel (any value but "" and "0")
PURE_PYTHON = "LPSCHED_PURE_PYTHON"


def kernel_in_use() -> str:
    """Which FCFS/EASY kernel :func:`_simulate_line` runs: ``"compiled"`` (the extension
    ``lpsched.batch._line_c``) or ``"python (...)"`` with the reason (issue 34, decision 443).

    Returns
    -------
    str
        ``"compiled"``, ``"python (LPSCHED_PURE_PYTHON is set)"`` or ``"python (the
        extension lpsched.batch._line_c is not built)"``.
    """
    if _line_c is None:
        return "python (the extension lpsched.batch._line_c is not built)"
    if os.environ.get(PURE_PYTHON, "") not in ("", "0"):
        return f"python ({PURE_PYTHON} is set)"
    return "compiled"


def _simulate_line(work: Workload, policy: str, m: int, kill: bool,
                   progress: Callable[[int, int, float], None] | None,
                   ) -> tuple[BatchSchedule, dict[str, Any]]:
    """FCFS and EASY with ``basic`` allocation on a line (no topology, no penalty): the
    one code path of the common case (issue 34), the rules of :class:`_BatchSim` in one
    function whose state is local variables.

    The same event order (ends, then submissions in rank order, then one pass), the same
    FCFS part, EASY's shadow time from the sorted estimated releases (remembered until the
    running set changes) and the same backfilling test, so the same start times, ends,
    processors and first reservations as the general simulator (tests/batch/
    test_line_kernel.py compares both). The free processors are the sorted runs of
    :class:`~lpsched.batch.procsets.FreeLine` inlined; the runs each job takes are appended
    to two flat ``array('q')`` (16 bytes a run, no Python object per id) and become a
    :class:`~lpsched.batch.procsets.ProcSets` at the end; start and end times are kept in
    ``array('d')``.

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
        ``progress(started, jobs, now)`` every 4,096 events and at the end.

    Returns
    -------
    tuple of (BatchSchedule, dict)
        As :func:`simulate_batch`.
    """
    n = work.jobs
    est = np.maximum(work.estimate, 0.0)
    run_a = np.minimum(work.run, work.estimate) if kill else work.run
    order_a = np.lexsort((np.arange(n), work.submit))
    subs_a = np.ascontiguousarray(work.submit[order_a], float)
    if n and not subs_a[0] >= 0.0:  # the first is the least, unless NaN (sorted last)
        first_bad = subs_a[np.flatnonzero(~(subs_a >= 0.0))[0]]
        raise LpschedError(f"cannot schedule an event at {first_bad} before now = 0.0")
    if n and np.isnan(subs_a[-1]):
        raise LpschedError(f"cannot schedule an event at {subs_a[-1]} before now = 0.0")
    sizes_a = work.size
    if (_line_c is not None and sizes_a.dtype.kind in "iu" and est.dtype.kind == "f"
            and est.dtype.itemsize <= 8 and kernel_in_use() == "compiled"
            and isinstance(m, int | np.integer) and not isinstance(m, bool)
            and 0 < m < 2**63
            and (not n or (sizes_a.min() >= 0 and sizes_a.max() <= m))
            and not np.isnan(est).any()):
        return _simulate_line_c(work, subs_a, order_a, run_a, est, policy, m, kill,
                                progress)
    # read once per job: C arrays (no Python object per job); read in the scans: lists
    subs, order = array("d", subs_a.tobytes()), array("q", order_a.astype(np.int64).tobytes())
    run_l = array("d", np.ascontiguousarray(run_a, float).tobytes())
    del order_a, subs_a
    sizes_l, est_l = work.size.tolist(), est.tolist()
    nan, inf = math.nan, math.inf
    start = array("d", [nan]) * n
    end = array("d", [nan]) * n
    first_resv = array("d", [nan]) * n
    rel = array("d", [0.0]) * n  # estimated release of a running job
    off = array("q", [0]) * n  # the job's first run in ``out_lo``/``out_hi``
    cnt = array("q", [0]) * n  # and how many
    out_lo, out_hi = array("q"), array("q")
    free_lo, free_hi = ([0], [m]) if m else ([], [])
    nfree, easy = m, policy == "easy"
    ends: list[tuple[float, int, int]] = []
    releases: list[tuple[float, int]] = []
    queue: list[int] = []
    pop, push, insort, bleft = heapq.heappop, heapq.heappush, bisect.insort, bisect.bisect_left
    version = seq = nstarted = npass = tick = i = 0
    memo_key: tuple[int, int, int] | None = None
    memo_val = (0.0, 0)
    scan_state: tuple[int, int, float, int] | None = None
    scan_from = 1
    now = 0.0
    t0 = _time.perf_counter()
    while True:
        t = ends[0][0] if ends else inf
        if i < n and subs[i] < t:
            t = subs[i]
        if t == inf:
            break
        now = t
        tick += 1
        if not tick & 4095 and progress is not None:
            progress(nstarted, n, t)
        while ends and ends[0][0] == t:  # finish: the job's runs are free again
            j = pop(ends)[2]
            a0 = off[j]
            for r in range(a0, a0 + cnt[j]):
                a, b = out_lo[r], out_hi[r]
                k = bleft(free_lo, a)
                if k and free_hi[k - 1] == a:
                    if k < len(free_lo) and free_lo[k] == b:
                        free_hi[k - 1] = free_hi[k]
                        del free_lo[k], free_hi[k]
                    else:
                        free_hi[k - 1] = b
                elif k < len(free_lo) and free_lo[k] == b:
                    free_lo[k] = a
                else:
                    free_lo.insert(k, a)
                    free_hi.insert(k, b)
            nfree += sizes_l[j]
            del releases[bleft(releases, (rel[j], j))]
            version += 1
        while i < n and subs[i] == t:
            queue.append(order[i])
            i += 1
        npass += 1
        # one pass: FCFS while the head fits, then EASY's backfilling; ``todo`` holds the
        # jobs to start now, in order (started at once: a later one reads the free count)
        k, nq, avail = 0, len(queue), nfree
        while k < nq and sizes_l[queue[k]] <= avail:
            avail -= sizes_l[queue[k]]
            k += 1
        todo = queue[:k]
        if k:
            del queue[:k]
        if todo:
            for j in todo:
                size = sizes_l[j]
                # take the ``size`` lowest free ids
                a0, left, k = len(out_lo), size, 0
                while left:
                    a, b = free_lo[k], free_hi[k]
                    if b - a <= left:
                        out_lo.append(a)
                        out_hi.append(b)
                        left -= b - a
                        k += 1
                    else:
                        out_lo.append(a)
                        out_hi.append(a + left)
                        free_lo[k] = a + left
                        left = 0
                if k:
                    del free_lo[:k], free_hi[:k]
                off[j], cnt[j] = a0, len(out_lo) - a0
                nfree -= size
                start[j] = now
                nstarted += 1
                end[j] = e = now + run_l[j]
                if not e >= now:
                    raise LpschedError(f"cannot schedule an event at {e} before now = {now}")
                rel[j] = released = now + est_l[j]
                insort(releases, (released, j))
                seq += 1
                push(ends, (e, seq, j))
            version += 1
        if not queue or not easy:
            continue
        head = queue[0]
        size_h = sizes_l[head]
        key = (version, size_h, nfree)
        if key == memo_key and memo_val[0] >= now and (
                not releases or releases[0][0] >= now):
            t_h, free_then = memo_val
        else:  # the shadow: one walk of the sorted releases (due ones count at now)
            have, t_h = nfree, now
            for tr, jr in releases:
                if tr > t_h:
                    if have >= size_h:
                        break
                    t_h = tr
                have += sizes_l[jr]
            free_then = have
            memo_key, memo_val = key, (t_h, have)
        if first_resv[head] != first_resv[head]:  # NaN: not set yet
            first_resv[head] = t_h
        extra = free_then - size_h
        bound = t_h + 1e-9 * max(1.0, abs(t_h))
        state = (version, head, t_h, free_then)
        started: list[int] = []
        for k in range(scan_from if state == scan_state else 1, len(queue)):
            j = queue[k]
            size = sizes_l[j]
            if size > nfree:
                continue
            ends_first = now + est_l[j] <= bound
            if ends_first or size <= extra:
                started.append(k)
                a0, left, q = len(out_lo), size, 0
                while left:
                    a, b = free_lo[q], free_hi[q]
                    if b - a <= left:
                        out_lo.append(a)
                        out_hi.append(b)
                        left -= b - a
                        q += 1
                    else:
                        out_lo.append(a)
                        out_hi.append(a + left)
                        free_lo[q] = a + left
                        left = 0
                if q:
                    del free_lo[:q], free_hi[:q]
                off[j], cnt[j] = a0, len(out_lo) - a0
                nfree -= size
                start[j] = now
                nstarted += 1
                end[j] = e = now + run_l[j]
                if not e >= now:
                    raise LpschedError(f"cannot schedule an event at {e} before now = {now}")
                rel[j] = released = now + est_l[j]
                insort(releases, (released, j))
                seq += 1
                push(ends, (e, seq, j))
                version += 1
                if not ends_first:
                    extra -= size
        for k in reversed(started):
            del queue[k]
        # nothing started: until a job starts or ends, the same head, shadow and free
        # counts refuse these jobs again (``now + estimate`` only grows)
        scan_state, scan_from = (None, 1) if started else (state, len(queue))
    if progress is not None:
        progress(nstarted, n, now)
    seconds = _time.perf_counter() - t0
    del subs, order, run_l, est_l, ends, releases, queue
    procs = _job_order(np.frombuffer(off, np.int64) if n else np.zeros(0, np.int64),
                       np.frombuffer(cnt, np.int64) if n else np.zeros(0, np.int64),
                       out_lo, out_hi)
    del out_lo, out_hi
    failed = np.zeros(n, bool)
    killed = work.run > est if kill else failed.copy()
    sched = BatchSchedule(np.array(start, float), np.array(end, float), procs, failed, killed)
    return sched, {"events": 2 * n + npass, "seconds": seconds,
                   "first_reservation": np.array(first_resv, float)}


def _simulate_line_c(work: Workload, subs: np.ndarray, order: np.ndarray, run: np.ndarray,
                     est: np.ndarray, policy: str, m: int, kill: bool,
                     progress: Callable[[int, int, float], None] | None,
                     ) -> tuple[BatchSchedule, dict[str, Any]]:
    """:func:`_simulate_line`'s loop in ``_line_c.c`` (the same rules, C arrays): called
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
    failed = np.zeros(n, bool)
    killed = work.run > est if kill else failed.copy()
    sched = BatchSchedule(start, end, procs, failed, killed)
    return sched, {"events": 2 * n + npass, "seconds": seconds,
                   "first_reservation": first_resv}


def _job_order(first: np.ndarray, counts: np.ndarray, out_lo: array[int] | bytearray,
               out_hi: array[int] | bytearray) -> ProcSets:
    """The runs taken in start order (job ``j``'s are ``first[j]`` to ``first[j] +
    counts[j] - 1`` of ``out_lo``/``out_hi``) as a :class:`ProcSets` in job order: one
    index array, built by a cumulative sum of steps (1 within a job, a jump between two),
    so the reordering holds one index and the two run arrays (issue 34, peak memory).

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
