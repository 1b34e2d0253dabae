"""Batch simulator on the real SWF traces of shared/data (issue #5): prints Markdown.

    python benchmarks/bench_batch.py [path/to/shared/data]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from lpsched.instances.swf import read_swf, to_workload
from lpsched.sim.batch import batch_metrics, simulate_batch, validate_batch


def main() -> None:
    data = Path(sys.argv[1] if len(sys.argv) > 1 else
                Path(__file__).resolve().parents[2] / "shared" / "data")
    print("| trace | jobs | processors | policy | mean wait (s) | mean bounded slowdown | "
          "utilisation | seconds | jobs/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in ("hpc2n-excerpt.swf", "lublin_256.swf", "UniLu-Gaia-2014-1.swf"):
        path = data / name
        if not path.exists():
            continue
        t0 = time.perf_counter()
        work = to_workload(read_swf(path))
        load = time.perf_counter() - t0
        for policy in ("fcfs", "easy", "conservative"):
            sched, stats = simulate_batch(work, policy)
            validate_batch(work, sched, int(work.processors))
            m = batch_metrics(work, sched, int(work.processors))
            print(f"| {name} | {work.jobs} | {work.processors} | {policy} | "
                  f"{m['mean_wait']:.0f} | {m['mean_bounded_slowdown']:.2f} | "
                  f"{m['utilisation']:.3f} | {stats['seconds']:.2f} | "
                  f"{work.jobs / stats['seconds']:.0f} |")
        print(f"| {name} | (reading and converting the trace: {load:.2f} s) | | | | | | | |")


if __name__ == "__main__":
    main()
