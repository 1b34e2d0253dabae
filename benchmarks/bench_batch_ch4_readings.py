"""Seed 000 ch. 4's makespan figures under each candidate reading (issue 29 item 4,
decision 272): the whole ch. 4 seed-vs-ours table per reading, on the same instances.

    python benchmarks/bench_batch_ch4_readings.py [--instances 64] [--readings base,textbook]

Readings (each alone against ``base``): ``base`` (offline, all jobs at 0, real run times,
conservative with reassignment, requested size, forced = wait); ``textbook`` / ``none``
(the compression rule); ``window`` (300 consecutive jobs with their submission times);
``allocated`` (field 5 as the size); ``laststart`` (makespan read as the last start time,
without the tail of the last jobs). Needs ../shared/data (CEA-Curie)."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from lpsched.batch.fidelity import contiguity_table
from lpsched.batch.reproduce import CONTIGUITY_ALLOCS, contiguity_summary, subset
from lpsched.batch.simulator import batch_metrics, simulate_batch, validate_batch
from lpsched.core.swf import read_swf, to_workload

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CURIE = DATA / "CEA-Curie-2011-2.1-cln.swf.gz"
READINGS = ("base", "textbook", "none", "window", "allocated", "laststart")


def instance(work, seed: int, reading: str, jobs: int = 300, m: int = 512):
    fit = np.flatnonzero(work.size <= m)
    rng = np.random.default_rng(seed)
    if reading == "window":
        first = int(rng.integers(0, fit.size - jobs))
        sub = subset(work, fit[first:first + jobs])
    else:
        sub = subset(work, np.sort(rng.choice(fit, size=jobs, replace=False)), offline=True)
    return replace(sub, estimate=sub.run.copy(), processors=m)


def rows_for(reading: str, instances: int, traces: dict) -> list[dict]:
    work = traces["allocated" if reading == "allocated" else "requested"]
    comp = reading if reading in ("textbook", "none") else "reassign"
    rows = []
    for seed in range(instances):
        w = instance(work, seed, reading)
        for alloc in CONTIGUITY_ALLOCS:
            sched, _ = simulate_batch(w, "conservative", alloc=alloc, cluster_size=16,
                                      compression=comp)
            validate_batch(w, sched, 512, cluster_size=16, forced=alloc)
            met = batch_metrics(w, sched, 512, cluster_size=16)
            span = float(sched.start.max()) if reading == "laststart" else met["makespan"]
            rows.append({"seed": seed, "alloc": alloc, "jobs": w.jobs, "makespan": span,
                         "contiguous_jobs": met["contiguous_jobs"],
                         "local_jobs": met["local_jobs"]})
    return rows


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
        summary = contiguity_summary(rows_for(reading, args.instances, traces))
        table = contiguity_table(summary, note=f"reading {reading}")
        print(f"\n== reading {reading}: {args.instances} instances, "
              f"{time.perf_counter() - t0:.0f} s")
        print(table.format())
        print("  " + "; ".join(
            f"{a}: dev {100 * s['mean_deviation']:+.2f} %, within 2 % "
            f"{100 * s['within_2pct']:.0f} %, local {100 * s['local_jobs']:.0f} %"
            for a, s in summary.items() if "mean_deviation" in s), flush=True)


if __name__ == "__main__":
    main()
