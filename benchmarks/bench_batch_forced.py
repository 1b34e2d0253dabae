"""Growth of forced allocators under conservative backfilling (decisions 265-266): seconds
per run of ``simulate_batch`` on the first N jobs of a trace, online (the
trace's submission times) or offline (all at 0, ``batch --offline``), for each N.

    python benchmarks/bench_batch_forced.py KTH-SP2-1996-2.1-cln.swf.gz cont-ff reassign \\
        offline 250 1000 2000 4000 8000 0            # 0: the whole trace
    python benchmarks/bench_batch_forced.py CEA-Curie-2011-2.1-cln.swf.gz loc textbook \\
        online 5000 20000 --processors 512 --cluster-size 16

Each line gives wall and CPU seconds, a hash of the start times (rounded to 1e-6 s: equal
hashes before and after a change mean the same schedule) and the process's peak RSS so far
(one size per run for a size's own peak). Needs ../shared/data."""

from __future__ import annotations

import argparse
import hashlib
import resource
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from lpsched.batch.simulator import simulate_batch, validate_batch
from lpsched.core.swf import read_swf, to_workload

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("alloc")
    ap.add_argument("compression")
    ap.add_argument("mode", choices=("online", "offline"))
    ap.add_argument("sizes", nargs="+", type=int)
    ap.add_argument("--processors", type=int)
    ap.add_argument("--cluster-size", type=int, default=10)
    args = ap.parse_args()
    work = to_workload(read_swf(DATA / args.trace), processors=args.processors)
    for n in args.sizes:
        n = work.jobs if n <= 0 or n > work.jobs else n
        k = slice(0, n)
        w = replace(work, job=work.job[k], submit=np.zeros(n) if args.mode == "offline"
                    else work.submit[k], run=work.run[k], size=work.size[k],
                    estimate=work.estimate[k])
        t0, c0 = time.perf_counter(), time.process_time()
        sched, stats = simulate_batch(w, "conservative", alloc=args.alloc,
                                      cluster_size=args.cluster_size,
                                      compression=args.compression)
        sec, cpu = time.perf_counter() - t0, time.process_time() - c0
        validate_batch(w, sched, int(w.processors), cluster_size=args.cluster_size,
                       forced=args.alloc)
        digest = hashlib.sha256(np.round(sched.start, 6).tobytes()).hexdigest()[:12]
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{args.trace} {args.alloc} {args.compression} {args.mode} {n} jobs: "
              f"{sec:.2f} s wall, {cpu:.2f} s CPU ({stats['events']} events), starts "
              f"{digest}, peak RSS so far {peak:.0f} MB", flush=True)


if __name__ == "__main__":
    main()
