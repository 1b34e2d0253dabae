"""Every WfCommons recipe as a PTG (decision 371): draw ``--n`` tasks
(``--seed``), schedule on grelon (seed 004 Table 1) with the 19 algorithms, check that every
schedule is valid and above the makespan lower bound, and print the best and worst
``Cmax/LB``. Needs the optional ``wfcommons`` package.

    nice -n 10 .venv/bin/python benchmarks/bench_ptg_wfcommons_recipes.py --n 200
"""

from __future__ import annotations

import argparse
import sys
import time


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; one line per recipe. Returns 1 when a bound is violated."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200, help="tasks asked of each recipe")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cluster", default="grelon")
    args = ap.parse_args(argv)
    try:
        import wfcommons  # noqa: F401
    except ImportError:
        print("needs the wfcommons package (pip install wfcommons)", file=sys.stderr)
        return 2
    from lpsched.errors import LpschedError
    from lpsched.ptg.bounds import lower_bounds
    from lpsched.ptg.model import get_cluster
    from lpsched.ptg.problem import Problem
    from lpsched.ptg.registry import ALGORITHMS, run
    from lpsched.ptg.wfcommons_gen import RECIPES, wfcommons_ptg

    cluster = get_cluster(args.cluster)
    bad = 0
    for name in RECIPES:
        t0 = time.perf_counter()
        try:
            g = wfcommons_ptg(name, args.n, seed=args.seed, speed=cluster.speed)
        except LpschedError as exc:
            print(f"{name:12s} skipped: {exc}")
            continue
        pb = Problem([g], cluster)
        b = lower_bounds(pb)
        res = [run(pb, a) for a in ALGORITHMS]
        ok = all(r.valid and r.metrics.makespan >= b.makespan * (1 - 1e-9) for r in res)
        bad += not ok
        best = min(res, key=lambda r: r.metrics.makespan)
        worst = max(r.metrics.makespan / b.makespan for r in res)
        print(f"{name:12s} {int((~g.dummy).sum()):5d} tasks  valid and >= LB: {ok}  best "
              f"{best.algorithm} Cmax/LB {best.metrics.makespan / b.makespan:.3f}  worst "
              f"{worst:.3f}  {time.perf_counter() - t0:.1f} s", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
