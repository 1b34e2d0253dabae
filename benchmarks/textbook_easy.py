"""A plain EASY backfilling simulator written from the textbook: the reference ``lpsched
batch --policy easy --alloc basic`` is measured against end to end.

    python benchmarks/textbook_easy.py TRACE.swf[.gz] [--out schedule.csv] [--json]

Unoptimised and clear on purpose: Python and numpy, no lpsched import. It reads the SWF
trace (the jobs ``lpsched swf-info`` keeps: requested processors, else allocated; requested
time as the estimate, else the run time; jobs without run time, processors or submission,
or wider than ``MaxProcs``, dropped; submission order, submissions shifted to 0), simulates
EASY (Lifka 1995; Mu'alem & Feitelson 2001) on the lowest free processor ids, validates the
schedule processor by processor and writes the same CSV as ``lpsched batch --out``.

EASY, as in the textbook: at every instant, after the jobs ending then the jobs submitted,
(1) start queued jobs in order while the first fits; (2) the first job that does not fit
gets a reservation at the *shadow time*, when enough processors are free according to the
running jobs' estimated ends (a job past its estimate is taken to end now), leaving
``extra`` processors beside it; (3) any later queued job, in queue order, starts now if it
fits now and either ends (by its estimate) before the shadow time or uses only extra
processors. The comparison with the shadow time allows a relative 1e-9, as lpsched does, so
that both give identical start times.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import heapq
import json
import sys
import time

import numpy as np

END, SUBMIT = 0, 1


def read_jobs(path: str) -> tuple[np.ndarray, ...]:
    """``(job id, submit, run, size, estimate)`` arrays in submission order, and the
    machine size from the header.

    Parameters
    ----------
    path : str
        An SWF trace (``.swf`` or ``.swf.gz``).

    Returns
    -------
    tuple
        ``(job, submit, run, size, estimate, machine)``.
    """
    opener = gzip.open if path.endswith(".gz") else open
    rows, header = [], {}
    with opener(path, "rt") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            if line.startswith(";"):
                key, _, value = line[1:].partition(":")
                if key.strip() in ("MaxProcs", "MaxNodes") and value.split():
                    header.setdefault(key.strip(), float(value.split()[0]))
                continue
            rows.append([float(x) for x in line.split()])
    known = [header[k] for k in ("MaxProcs", "MaxNodes") if header.get(k, -1) >= 1]
    machine = int(known[0]) if known else None  # MaxProcs, else MaxNodes
    data = np.array(rows)
    job, submit, run = data[:, 0], data[:, 1], data[:, 3]
    size = np.where(data[:, 7] > 0, data[:, 7], data[:, 4])
    estimate = np.where(data[:, 8] > 0, data[:, 8], run)
    keep = (run >= 0) & (size > 0) & (submit >= 0)
    if machine is not None:
        keep &= size <= machine
    order = np.flatnonzero(keep)
    order = order[np.argsort(submit[order], kind="stable")]
    sub = submit[order] - submit[order][0]
    return (job[order].astype(int), sub, run[order], size[order].astype(int),
            np.maximum(estimate[order], 0.0), machine)


def simulate_easy(submit: np.ndarray, run: np.ndarray, size: np.ndarray,
                  estimate: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray, list]:
    """EASY on ``m`` processors: start and end times and the processor ids of each job.

    Parameters
    ----------
    submit, run, size, estimate : numpy.ndarray
        Per job, in submission order: submission (s), run time (s), processors, estimate (s).
    m : int
        Processors of the machine.

    Returns
    -------
    tuple
        Start times, end times (s) and each job's processor ids.
    """
    n = len(submit)
    start, end = np.full(n, np.nan), np.full(n, np.nan)
    procs: list = [None] * n
    free = np.ones(m, bool)
    events = [(float(submit[j]), SUBMIT, j, j) for j in range(n)]
    heapq.heapify(events)
    seq = n
    queue: list[int] = []
    running: dict[int, float] = {}  # job -> estimated end
    nfree = m
    while events:
        now = float(events[0][0])
        while events and events[0][0] == now:  # ends first, then submissions
            _, kind, _, j = heapq.heappop(events)
            if kind == END:
                free[procs[j]] = True
                nfree += size[j]
                del running[j]
            else:
                queue.append(j)

        def begin(j: int, now: float) -> None:
            nonlocal seq, nfree
            ids = np.flatnonzero(free)[: size[j]]
            free[ids] = False
            nfree -= size[j]
            procs[j] = ids
            start[j], end[j] = now, now + run[j]
            running[j] = now + estimate[j]
            heapq.heappush(events, (end[j], END, seq, j))
            seq += 1

        while queue and size[queue[0]] <= nfree:  # (1) FCFS
            begin(queue.pop(0), now)
        if not queue:
            continue
        head = queue[0]  # (2) the head's reservation: the shadow time
        jobs = list(running)
        ends = np.maximum(np.array([running[j] for j in jobs]), now)
        order = np.argsort(ends, kind="stable")
        available = nfree + np.cumsum(size[jobs][order])
        k = int(np.argmax(available >= size[head]))
        shadow = ends[order][k]
        extra = int(nfree + size[jobs][order][ends[order] <= shadow].sum() - size[head])
        for j in list(queue[1:]):  # (3) backfilling
            fits = size[j] <= nfree
            ends_first = now + estimate[j] <= shadow + 1e-9 * max(1.0, abs(shadow))
            if fits and (ends_first or size[j] <= extra):
                begin(j, now)
                queue.remove(j)
                if not ends_first:
                    extra -= size[j]
    return start, end, procs


def validate(submit: np.ndarray, size: np.ndarray, start: np.ndarray, end: np.ndarray,
             procs: list, m: int) -> None:
    """Every job started after its submission on ``size`` distinct processors, and no
    processor ran two jobs at once (jobs in start order, each processor's busy-until).

    Parameters
    ----------
    submit, size, start, end : numpy.ndarray
        Per job: submission (s), processors, start and end (s).
    procs : list of numpy.ndarray
        Each job's processor ids.
    m : int
        Processors of the machine.
    """
    assert not np.isnan(start).any() and (start >= submit - 1e-9).all()
    busy_until = np.full(m, -np.inf)
    for j in np.lexsort((end, start)):
        ids = procs[j]
        assert ids.size == size[j] == np.unique(ids).size
        assert (busy_until[ids] <= start[j] + 1e-9 * max(1.0, abs(start[j]))).all(), j
        busy_until[ids] = end[j]


def ranges(ids: np.ndarray) -> str:
    """``0-3,8``: the ids as ranges.

    Parameters
    ----------
    ids : numpy.ndarray
        Processor ids.

    Returns
    -------
    str
        ``0-3,8``.
    """
    parts, ids = [], sorted(int(i) for i in ids)
    i = 0
    while i < len(ids):
        k = i
        while k + 1 < len(ids) and ids[k + 1] == ids[k] + 1:
            k += 1
        parts.append(str(ids[i]) if i == k else f"{ids[i]}-{ids[k]}")
        i = k + 1
    return ",".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--out", help="CSV of the schedule")
    ap.add_argument("--json", action="store_true", help="a JSON summary on stdout")
    args = ap.parse_args()
    job, submit, run, size, estimate, m = read_jobs(args.trace)
    t0 = time.perf_counter()
    start, end, procs = simulate_easy(submit, run, size, estimate, m)
    seconds = time.perf_counter() - t0
    validate(submit, size, start, end, procs, m)
    if args.out:
        with open(args.out, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["job_id", "submit", "start", "end", "procs", "processors"])
            for j in range(len(job)):
                w.writerow([int(job[j]), submit[j], start[j], end[j], int(size[j]),
                            ranges(procs[j])])
    if args.json:
        json.dump({"jobs": len(job), "processors": m, "seconds": seconds,
                   "mean_wait": float((start - submit).mean()),
                   "makespan": float(end.max())}, sys.stdout)
        print()


if __name__ == "__main__":
    main()
