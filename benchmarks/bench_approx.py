"""Speed and quality of the approximation algorithms against their guarantees: prints Markdown.

    python benchmarks/bench_approx.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from lpsched.approx import exact
from lpsched.approx.dual import hybrid_schedule
from lpsched.approx.moldable import amdahl_table, kshelf, mrt
from lpsched.approx.packing import nfdh_ls
from lpsched.core.versions import versions_report


def med(fn, repeats: int = 3) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    print("Measured with:\n" + versions_report("- ") + "\n")
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
    moldable(rng)


def moldable(rng: np.random.Generator) -> None:
    """MRT and K-shelf on Amdahl tables (serial fractions uniform in [0, 0.2])."""
    print()
    print("## Moldable jobs: MRT (eps = 1e-3) and K-shelf (median of 3 runs)")
    print()
    print("| algorithm | instance | median time (s) | dual tests | construction | "
          "makespan / proven LB | makespan / d* |")
    print("|---|---|---|---|---|---|---|")
    for n, m in ((100, 1024), (1000, 1024), (100, 4096)):
        table = amdahl_table(rng.uniform(1, 100, n), rng.uniform(0, 0.2, n), m)
        t, r = med(lambda table=table, m=m: mrt(table, m))
        print(f"| MRT | {n} jobs, {m} processors | {t:.3f} | {r.extra['dual_tests']} | "
              f"{r.extra['construction']} | {r.ratio:.4f} | "
              f"{r.makespan / r.extra['d_star']:.4f} |")
        t, k = med(lambda table=table, m=m, c=r.extra["d_star"]: kshelf(table, m, cmax=c))
        print(f"| K-shelf (C = d*, compacted) | {n} jobs, {m} processors | {t:.3f} | - | "
              f"{k.extra['shelves_used']} shelves | {k.ratio:.4f} | "
              f"{k.makespan / r.extra['d_star']:.4f} |")
    print()
    print("## MRT against the time-indexed MIP optimum (integer Amdahl tables)")
    print()
    print("| jobs x processors | instances | optimal proofs | mean MRT/OPT | worst MRT/OPT | "
          "mean K-shelf/OPT | mean OPT/simple LB |")
    print("|---|---|---|---|---|---|---|")
    from lpsched.approx.moldable import simple_lower_bound

    for n, m in ((4, 3), (6, 4), (8, 4)):
        ratios, kr, lbr, proven = [], [], [], 0
        for _ in range(10):
            s = rng.integers(0, 4, n)[:, None]
            w = rng.integers(1, 4, n)[:, None] * 12
            table = (s + w / np.arange(1, m + 1)[None, :]).astype(float)
            e = exact.makespan_moldable(table, m, time_limit=20)
            proven += e.optimal
            ratios.append(mrt(table, m).makespan / e.makespan)
            kr.append(kshelf(table, m).makespan / e.makespan)
            lbr.append(e.makespan / simple_lower_bound(table))
        print(f"| {n} x {m} | 10 | {proven} | {np.mean(ratios):.4f} | {max(ratios):.4f} | "
              f"{np.mean(kr):.4f} | {np.mean(lbr):.4f} |")


if __name__ == "__main__":
    main()
