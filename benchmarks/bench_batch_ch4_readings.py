"""Seed 000 ch. 4's makespan figures under each candidate reading (decision 272): the whole
ch. 4 seed-vs-ours table per reading (:func:`lpsched.batch.fidelity.vs_seed`), on the same
instances.

    python benchmarks/bench_batch_ch4_readings.py [--instances 64] [--readings base,textbook]

Readings (each alone against ``base``): ``base`` (offline, all jobs at 0, real run times,
conservative with reassignment, requested size, forced = wait); ``textbook`` / ``none``
(the compression rule); ``window`` (300 consecutive jobs with their submission times);
``allocated`` (field 5 as the size); ``laststart`` (makespan read as the last start time,
without the tail of the last jobs). The readings of decision 274: ``fallback`` (a forced
rule refused at the reserved start takes the best-effort processors: the simulator's
``becont-ff`` / ``beloc`` for ``cont-ff`` / ``loc``, the same answer whenever the forced
shape exists); ``warmup`` (``window`` preceded by the 300 jobs before it, measured on the
last 300 only); ``slices`` (Algorithm 1's time slices with processor sets,
:func:`lpsched.batch.allocation.slice_plan`). Needs ../shared/data (CEA-Curie)."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from lpsched.batch.allocation import is_contiguous, is_local, slice_plan
from lpsched.batch.fidelity import vs_seed
from lpsched.batch.reproduce import CONTIGUITY_ALLOCS, contiguity_summary, subset
from lpsched.batch.simulator import BatchSchedule, simulate_batch, validate_batch
from lpsched.core.swf import read_swf, to_workload

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CURIE = DATA / "CEA-Curie-2011-2.1-cln.swf.gz"
READINGS = ("base", "textbook", "none", "window", "allocated", "laststart", "fallback",
            "warmup", "slices")
WARMUP = 300  # jobs simulated before the measured window (reading ``warmup``)


def instance(work, seed: int, reading: str, jobs: int = 300, m: int = 512):
    """One ch. 4 instance under a reading (decision 272/274).

    Parameters
    ----------
    work : Workload
        The Curie jobs (requested or allocated sizes).
    seed : int
        The instance's seed.
    reading : str
        One of the readings of this script.
    jobs : int
        Jobs per instance (300).
    m : int
        Processors (512).

    Returns
    -------
    Workload
        The instance (estimates = run times, ``m`` processors).
    """
    fit = np.flatnonzero(work.size <= m)
    rng = np.random.default_rng(seed)
    if reading in ("window", "warmup"):
        lead = WARMUP if reading == "warmup" else 0
        first = int(rng.integers(lead, fit.size - jobs))
        sub = subset(work, fit[first - lead:first + jobs])
    else:
        sub = subset(work, np.sort(rng.choice(fit, size=jobs, replace=False)), offline=True)
    return replace(sub, estimate=sub.run.copy(), processors=m)


def rows_for(reading: str, instances: int, traces: dict) -> list[dict]:
    """Every instance's rows under one reading.

    Parameters
    ----------
    reading : str
        The reading.
    instances : int
        Instances (seeds 0 .. instances − 1).
    traces : dict
        ``"requested"`` and ``"allocated"`` workloads of the trace.

    Returns
    -------
    list of dict
        One row per instance and allocator.
    """
    work = traces["allocated" if reading == "allocated" else "requested"]
    comp = reading if reading in ("textbook", "none") else "reassign"
    rows = []
    for seed in range(instances):
        w = instance(work, seed, reading)
        for alloc in CONTIGUITY_ALLOCS:
            rows.append({"seed": seed, "alloc": alloc, **one_run(w, alloc, reading, comp)})
    return rows


def one_run(w, alloc: str, reading: str, comp: str) -> dict:
    """Makespan and shares of one allocator on one instance under ``reading``.

    Parameters
    ----------
    w : Workload
        The instance.
    alloc : str
        The allocator.
    reading : str
        The reading.
    comp : str
        The conservative compression rule.

    Returns
    -------
    dict
        ``makespan`` and the contiguous and local shares.
    """
    if reading == "slices":
        start, procs = slice_plan(w.run, w.size, 512, alloc, 16)
        sched = BatchSchedule(start=start, end=start + w.run, procs=procs)
    else:
        rule = {"cont-ff": "becont-ff", "loc": "beloc"}.get(alloc, alloc) \
            if reading == "fallback" else alloc
        sched, _ = simulate_batch(w, "conservative", alloc=rule, cluster_size=16,
                                  compression=comp)
    validate_batch(w, sched, 512, cluster_size=16, forced=alloc if reading != "fallback"
                   else None)
    keep = np.arange(w.jobs)[WARMUP:] if reading == "warmup" else np.arange(w.jobs)
    span = float(sched.start.max()) if reading == "laststart" else \
        float(sched.end[keep].max() - w.submit[keep].min())
    procs = [sched.procs[k] for k in keep]
    return {"jobs": int(keep.size), "makespan": span,
            "contiguous_jobs": float(np.mean([is_contiguous(p) for p in procs])),
            "local_jobs": float(np.mean([is_local(p, 16) for p in procs]))}


def cells(reading: str, instances: int) -> list[list]:
    """The cell keys of :func:`rows_for`'s run, as ``reproduce contiguity`` writes them
    (the ``slices`` reading under decision 274's planner (h)), for the table's settings.

    Parameters
    ----------
    reading : str
        The reading.
    instances : int
        Instances (seeds 0 .. instances − 1).

    Returns
    -------
    list of list
        ``[trace, seed, jobs, processors, cluster, alloc, status, planner]``.
    """
    planner = "slices" if reading == "slices" else "profile"
    return [[str(CURIE), seed, 300, 512, 16, alloc, "all", planner]
            for seed in range(instances) for alloc in CONTIGUITY_ALLOCS]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--instances", type=int, default=64)
    ap.add_argument("--readings", default=",".join(READINGS))
    args = ap.parse_args()
    if not CURIE.exists():
        sys.exit(f"{CURIE} is absent")
    trace = read_swf(CURIE)
    traces = {"requested": to_workload(trace), "allocated": to_workload(trace,
                                                                        size="allocated")}
    for reading in args.readings.split(","):
        t0 = time.perf_counter()
        rows = rows_for(reading, args.instances, traces)
        summary = contiguity_summary(rows)
        table = vs_seed("contiguity", rows, cells(reading, args.instances))
        print(f"\n== reading {reading}: {args.instances} instances, "
              f"{time.perf_counter() - t0:.0f} s")
        print(table.format())
        print("  " + "; ".join(
            f"{a}: dev {100 * s['mean_deviation']:+.2f} %, within 2 % "
            f"{100 * s['within_2pct']:.0f} %, local {100 * s['local_jobs']:.1f} %, "
            f"contiguous {100 * s['contiguous_jobs']:.1f} %"
            for a, s in summary.items() if "mean_deviation" in s), flush=True)


if __name__ == "__main__":
    main()
