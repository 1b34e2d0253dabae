"""Seed 003 Tables 4-8 reproduction: timing, throughput and runner scaling.

    python benchmarks/bench_reproduction.py --instances 1000 --scaling 100 --out results/bench

Prints Markdown: the tables beside the seed's (the ``simgrid`` profile's default 100 Mbit/s
links, decision 36), simulated events per second, CBS3M online re-solve time per arrival
(median, p95), the runner's wall time with 1 and 2 processes, and Table 4 at the literal
10 Mbit/s (``--variant``).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from pathlib import Path

import numpy as np

from lpsched.bags import reproduce as exp
from lpsched.core import ResultStore, run_cells
from lpsched.core.versions import versions_report


def timed_run(instances: int, jobs: int, out: Path) -> tuple[float, list[dict]]:
    shutil.rmtree(out, ignore_errors=True)
    store = ResultStore(out / "cbs3m.sqlite")
    t0 = time.perf_counter()
    run_cells(exp.EXPERIMENT, exp.cells(instances), exp.cell, store, jobs=jobs,
              progress=False, group=exp.by_instance)
    wall = time.perf_counter() - t0
    return wall, store.rows(exp.EXPERIMENT)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--instances", type=int, default=1000, help="0: skip the full run")
    ap.add_argument("--scaling", type=int, default=100)
    ap.add_argument("--out", default="results/bench")
    ap.add_argument("--variant", type=int, default=100,
                    help="instances of the 10 Mbit/s variant, the seed's literal "
                    "\"10 Mbps\" and the default before decision 36 (0: skip)")
    args = ap.parse_args()
    print("Measured with:\n" + versions_report("- ") + "\n")
    out = Path(args.out)

    if args.instances > 0:
        wall, rows = timed_run(args.instances, 2, out / "full")
        print(f"## Full reproduction: {args.instances} instances x 18 policies, 2 local processes")
        print()
        print(f"Wall time: {wall:.1f} s ({wall / 60:.1f} min) for {len(rows)} cells.")
        print()
        events = sum(r["events"] for r in rows)
        sim_seconds = sum(r["seconds"] for r in rows)
        greedy = [r for r in rows if r["policy"].endswith(("-rr", "-mct", "-dd"))]
        greedy_rate = sum(r["events"] for r in greedy) / sum(r["seconds"] for r in greedy)
        print(f"Simulated events: {events} in {sim_seconds:.1f} s of simulation (all policies, "
              f"LP solves of CBS3M/MWMA included): {events / sim_seconds:,.0f} events/s. "
              f"Greedy policies alone: {greedy_rate:,.0f} events/s.")
        print()
        for name in ("cbs3m-edf-online", "cbs3m-fifo-online"):
            per = [t for r in rows if r["policy"] == name for t in r["solve_seconds"]]
            print(f"{name}: {len(per)} re-solves, {statistics.median(per) * 1000:.1f} ms median, "
                  f"{np.percentile(per, 95) * 1000:.1f} ms p95, {max(per) * 1000:.0f} ms max "
                  "per re-solve.")
        print()
        print("```")
        print(exp.format_tables(exp.tables(rows)))
        print("```")
        print()
    print(f"## Runner scaling, {args.scaling} instances x 18 policies")
    print()
    print("| processes | wall time (s) | speed-up |")
    print("|---|---|---|")
    one, r1 = timed_run(args.scaling, 1, out / "scale1")
    two, r2 = timed_run(args.scaling, 2, out / "scale2")
    print(f"| 1 | {one:.1f} | 1.00 |")
    print(f"| 2 | {two:.1f} | {one / two:.2f} |")
    same = sorted((r["seed"], r["policy"], r["max_stretch"]) for r in r1) == sorted(
        (r["seed"], r["policy"], r["max_stretch"]) for r in r2)
    print()
    print(f"Same rows with 1 and 2 processes: {same}.")
    if args.variant:
        print()
        print(f"## Modelling check: base bandwidth 10 Mbit/s (the seed's literal "
              f"\"10 Mbps\", simgrid's default before decision 36) instead of 100 Mbit/s "
              f"({args.variant} instances)")
        print()
        store = ResultStore(":memory:")
        run_cells(exp.EXPERIMENT, exp.cells(args.variant, base_bandwidth=1.25e6), exp.cell,
                  store, jobs=2, progress=False, group=exp.by_instance)
        rows = store.rows(exp.EXPERIMENT)
        tab = exp.tables(rows)
        print("```")
        print(exp.format_tables({"max_stretch": tab["max_stretch"]}))
        print("```")


if __name__ == "__main__":
    main()
