"""Speed and quality of the approximation algorithms (issue #4): prints Markdown.

    python benchmarks/bench_approx.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from lpsched.algorithms import exact
from lpsched.algorithms.dual import hybrid_schedule
from lpsched.algorithms.packing import nfdh_ls


def med(fn, repeats: int = 3) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    rng = np.random.default_rng(0)
    print("## Speed (median of 3 runs)")
    print()
    print("| algorithm | instance | median time (s) | makespan / lower bound |")
    print("|---|---|---|---|")
    p, q = rng.uniform(1, 10, 100_000), rng.uniform(0.5, 10, 100_000)
    t, r = med(lambda: hybrid_schedule(p, q, 4, 4))
    print(f"| hybrid 2-approximation | 10^5 tasks, 4 CPUs + 4 GPUs | {t:.3f} | {r.ratio:.4f} |")
    for n in (100, 200, 300, 400, 500, 600, 700):
        p3, q3 = rng.uniform(1, 10, n), rng.uniform(0.5, 10, n)
        t, r = med(lambda p3=p3, q3=q3: hybrid_schedule(p3, q3, 4, 4, variant="3/2"), 1)
        print(f"| hybrid (3/2 + 0.1) DP | {n} tasks, 4 CPUs + 4 GPUs | {t:.3f} | "
              f"{r.ratio:.4f} |")
        if t > 10:
            break
    jobs = np.c_[rng.uniform(1, 100, 1_000_000), rng.integers(1, 17, 1_000_000)]
    t, r = med(lambda: nfdh_ls(jobs, 32, 16))
    print(f"| NFDH+LS | 10^6 jobs, 32 clusters x 16 | {t:.3f} | {r.ratio:.4f} |")
    print()
    print("## The 2-approximation against the MIP optimum (20-40 tasks, 2 CPUs + 2 GPUs)")
    print()
    print("| tasks | instances | optimal proofs | mean ratio | worst ratio | mean LB ratio |")
    print("|---|---|---|---|---|---|")
    for n in (20, 30, 40):
        ratios, lb_ratios, proven = [], [], 0
        for _ in range(10):
            p, q = rng.uniform(1, 10, n), rng.uniform(0.5, 10, n)
            r = hybrid_schedule(p, q, 2, 2)
            e = exact.makespan_hybrid(p, q, 2, 2, time_limit=20)
            proven += e.optimal
            ratios.append(r.makespan / e.makespan)
            lb_ratios.append(r.ratio)
        print(f"| {n} | 10 | {proven} | {np.mean(ratios):.4f} | {max(ratios):.4f} | "
              f"{np.mean(lb_ratios):.4f} |")
    print()
    print("(ratio = makespan / best MIP makespan; when the MIP is not proven optimal within "
          "20 s its incumbent is used, so the ratio is then an upper estimate)")


if __name__ == "__main__":
    main()
