"""The plain way: the EASY simulator a user writes in an afternoon, in plain Python and
numpy, that ``lpsched batch TRACE --policy easy --alloc basic --out jobs.csv --json`` is
measured against.

    python benchmarks/plain_easy.py TRACE.swf[.gz] [--out jobs.csv] [--json]

No lpsched import. The usual data structures and nothing more:

* the trace read with ``numpy.loadtxt`` (``;`` lines are comments), the jobs ``lpsched
  batch`` keeps under its defaults: size = requested processors (field 8), else allocated
  (field 5); estimate = requested time (field 9), else the run time; the jobs without run
  time, processors or submit time, or wider than the header's ``MaxProcs`` (else
  ``MaxNodes``), dropped; submission order (ties in file order), shifted to start at 0;
* a heap of job ends and a free-processor counter; at every instant the jobs ending, then
  those submitted, then one pass: (1) queued jobs start in order while the first fits;
  (2) the first that does not fit gets the *shadow time*, when enough processors are free
  by the running jobs' estimated ends (a job past its estimate counted as ending now), from
  a sweep over the running jobs in end order, and the ``extra`` processors it leaves then;
  (3) every later queued job that fits now starts if it ends (by its estimate) by the
  shadow time or uses only extra processors (the comparison with a relative 1e-9, as
  lpsched, so both give the same start times);
* processor ids because ``lpsched batch --out`` writes them: ``basic`` allocation, the
  lowest free ids, kept as a sorted list of free intervals (bisect); they do not change a
  start time;
* the schedule written with :mod:`csv` in the columns of Batsim's ``jobs.csv`` (the text of
  ``lpsched batch --out``: the two files are equal byte for byte), and ``--json`` a short
  summary.
"""

from __future__ import annotations

import argparse
import bisect
import csv
import heapq
import json
import math
import sys
import time

import numpy as np

COLUMNS = ["job_id", "workload_name", "profile", "submission_time",
           "requested_number_of_resources", "requested_time", "success", "final_state",
           "starting_time", "execution_time", "finish_time", "waiting_time",
           "turnaround_time", "stretch", "allocated_resources", "consumed_energy", "metadata"]


def read_jobs(path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                  np.ndarray, int]:
    """Job numbers, submit times (from 0), run times, sizes and estimates in submission
    order, and the machine size (``MaxProcs``, else ``MaxNodes``).

    Parameters
    ----------
    path : str
        An SWF trace (``.swf`` or ``.swf.gz``) whose header gives ``MaxProcs`` or ``MaxNodes``.

    Returns
    -------
    tuple
        ``(job, submit, run, size, estimate, m)``: numpy arrays in submission order (job
        numbers, seconds from the first submission, run times, processors, estimates) and
        the machine size.
    """
    import gzip

    machine = {}
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as fh:
        for line in fh:
            if not line.startswith(";"):
                if line.strip():
                    break
                continue
            key, _, value = line[1:].partition(":")
            if key.strip() in ("MaxProcs", "MaxNodes") and value.split():
                machine.setdefault(key.strip(), float(value.split()[0]))
    m = next(int(machine[k]) for k in ("MaxProcs", "MaxNodes") if machine.get(k, -1) >= 1)
    data = np.loadtxt(path, comments=";", ndmin=2)
    job, submit, run = data[:, 0], data[:, 1], data[:, 3]
    size = np.where(data[:, 7] > 0, data[:, 7], data[:, 4])
    estimate = np.where(data[:, 8] > 0, data[:, 8], run)
    keep = np.flatnonzero((run >= 0) & (size > 0) & (submit >= 0) & (size <= m))
    keep = keep[np.argsort(submit[keep], kind="stable")]
    sub = submit[keep] - submit[keep][0]
    return (job[keep].astype(int), sub, run[keep], size[keep].astype(int),
            np.maximum(estimate[keep], 0.0), m)


def take_lowest(free_lo: list[int], free_hi: list[int], need: int) -> list[int]:
    """Take the ``need`` lowest free ids out of the free intervals (``basic``).

    Parameters
    ----------
    free_lo, free_hi : list of int
        The free processors: sorted disjoint intervals ``[lo, hi)``, changed in place.
    need : int
        Processors wanted (at most the free ones).

    Returns
    -------
    list of int
        The ids taken as flat ``[lo, hi)`` intervals.
    """
    taken: list[int] = []
    while need:
        a, b = free_lo[0], free_hi[0]
        if b - a <= need:
            taken += (a, b)
            need -= b - a
            del free_lo[0], free_hi[0]
        else:
            taken += (a, a + need)
            free_lo[0] = a + need
            need = 0
    return taken


def give_back(free_lo: list[int], free_hi: list[int], ids: list[int]) -> None:
    """Put a job's intervals back among the free ones, merged with their neighbours.

    Parameters
    ----------
    free_lo, free_hi : list of int
        The free processors: sorted disjoint intervals ``[lo, hi)``, changed in place.
    ids : list of int
        The job's processors as flat ``[lo, hi)`` intervals.
    """
    for k in range(0, len(ids), 2):
        a, b = ids[k], ids[k + 1]
        p = bisect.bisect_left(free_lo, a)
        if p and free_hi[p - 1] == a:  # merge with the interval before
            if p < len(free_lo) and free_lo[p] == b:
                free_hi[p - 1] = free_hi[p]
                del free_lo[p], free_hi[p]
            else:
                free_hi[p - 1] = b
        elif p < len(free_lo) and free_lo[p] == b:
            free_lo[p] = a
        else:
            free_lo.insert(p, a)
            free_hi.insert(p, b)


def shadow_time(running: dict[int, float], size: list[int], need: int, nfree: int,
                now: float) -> tuple[float, int]:
    """The head's shadow time and the processors free then.

    Parameters
    ----------
    running : dict
        Running job -> its estimated end (a job past its estimate counts as ending now).
    size : list of int
        Processors per job.
    need : int
        The head's processors.
    nfree : int
        Processors free now.
    now : float
        The current time (s).

    Returns
    -------
    tuple of (float, int)
        The earliest time ``need`` processors are free by the estimated ends, and how many
        are free then.
    """
    shadow, have = now, nfree
    for t, j in sorted((max(e, now), j) for j, e in running.items()):
        if t > shadow:
            if have >= need:
                break
            shadow = t
        have += size[j]
    return shadow, have


def simulate(submit: list[float], run: list[float], size: list[int], estimate: list[float],
             m: int) -> tuple[list[float], list[list[int]]]:
    """EASY with ``basic`` allocation on ``m`` processors: each job's start time and its
    processors as flat ``[lo, hi)`` intervals.

    Parameters
    ----------
    submit, run : list of float
        Submission and run times (s), in submission order.
    size : list of int
        Processors per job.
    estimate : list of float
        Estimated run times (s).
    m : int
        Processors of the machine.

    Returns
    -------
    tuple of (list of float, list of list of int)
        Start times (s) and each job's processors as flat ``[lo, hi)`` intervals.
    """
    n = len(submit)
    start = [math.nan] * n
    procs: list[list[int]] = [[]] * n
    ends: list[tuple[float, int]] = []  # heap of (end time, job)
    running: dict[int, float] = {}  # job -> estimated end
    free_lo, free_hi = [0], [m]  # free processors: sorted disjoint intervals
    nfree = m
    queue: list[int] = []
    i = 0

    def begin(j: int, now: float) -> None:
        nonlocal nfree
        procs[j] = take_lowest(free_lo, free_hi, size[j])
        nfree -= size[j]
        start[j] = now
        running[j] = now + estimate[j]
        heapq.heappush(ends, (now + run[j], j))

    while ends or i < n:
        now = min(ends[0][0] if ends else math.inf, submit[i] if i < n else math.inf)
        while ends and ends[0][0] == now:
            j = heapq.heappop(ends)[1]
            give_back(free_lo, free_hi, procs[j])
            nfree += size[j]
            del running[j]
        while i < n and submit[i] == now:
            queue.append(i)
            i += 1
        k = 0  # (1) first come, first served
        while k < len(queue) and size[queue[k]] <= nfree:
            begin(queue[k], now)
            k += 1
        del queue[:k]
        if not queue:
            continue
        # (2) the head's shadow time and the extra processors
        shadow, have = shadow_time(running, size, size[queue[0]], nfree, now)
        extra = have - size[queue[0]]
        bound = shadow + 1e-9 * max(1.0, abs(shadow))
        started = []
        for q in range(1, len(queue)):  # (3) backfilling
            j = queue[q]
            if size[j] > nfree:
                continue
            ends_first = now + estimate[j] <= bound
            if ends_first or size[j] <= extra:
                begin(j, now)
                started.append(q)
                if not ends_first:
                    extra -= size[j]
        for q in reversed(started):
            del queue[q]
    return start, procs


def number(v: float) -> str:
    """A delay's name: whole numbers without a fraction.

    Parameters
    ----------
    v : float
        A run time (s).

    Returns
    -------
    str
        ``3600`` for 3600.0, ``0.25`` for 0.25.
    """
    return str(int(v)) if v == int(v) else repr(v)


def intervals(ids: list[int]) -> str:
    """``0-3 7``: the flat intervals as Batsim's interval set.

    Parameters
    ----------
    ids : list of int
        Flat intervals ``[lo0, hi0, lo1, hi1, ...]``.

    Returns
    -------
    str
        Inclusive ranges separated by spaces.
    """
    return " ".join(str(ids[k]) if ids[k + 1] - ids[k] == 1 else f"{ids[k]}-{ids[k + 1] - 1}"
                    for k in range(0, len(ids), 2))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--out", help="the schedule as Batsim's jobs.csv")
    ap.add_argument("--json", action="store_true", help="a JSON summary on stdout")
    args = ap.parse_args()
    job, submit, run, size, estimate, m = read_jobs(args.trace)
    t0 = time.perf_counter()
    sub_l, run_l, est_l = submit.tolist(), run.tolist(), estimate.tolist()
    start, procs = simulate(sub_l, run_l, size.tolist(), est_l, m)
    seconds = time.perf_counter() - t0
    if args.out:
        with open(args.out, "w", newline="") as fh:
            out = csv.writer(fh, lineterminator="\n")
            out.writerow(COLUMNS)
            for j, (number_j, s, r, p, e, b) in enumerate(zip(
                    job.tolist(), sub_l, run_l, size.tolist(), est_l, start, strict=True)):
                end = b + r
                turnaround, execution = end - s, end - b
                stretch = turnaround / execution if execution else \
                    (math.inf if turnaround else math.nan)
                out.writerow([number_j, "w0", number(r), s, p, e, 1, "COMPLETED_SUCCESSFULLY",
                              b, execution, end, b - s, turnaround, stretch,
                              intervals(procs[j]), -1, ""])
    if args.json:
        start_a = np.array(start)
        json.dump({"jobs": len(start), "processors": m, "seconds": seconds,
                   "mean_wait": float((start_a - submit).mean()),
                   "makespan": float((start_a + run).max())}, sys.stdout)
        print()


if __name__ == "__main__":
    main()
