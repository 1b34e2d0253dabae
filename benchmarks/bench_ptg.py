"""Scheduler run times of seed 004 (A32 of spec §(a)): the 19 algorithms on 10 random PTGs
on gdx (216 processors), the LP lower bound, and the reproduction's cost per scenario.

    .venv/bin/python benchmarks/bench_ptg.py [--repeat 5] [--scenarios 0] [--hcpa-bound B]
    .venv/bin/python benchmarks/bench_ptg.py --parts [--repeat 3]   # CPU of the spec's parts
    .venv/bin/python benchmarks/bench_ptg.py --write-a32 DIR        # the A32 PTGs as JSON

``fresh``: a new :class:`~lpsched.ptg.problem.Problem` per run, so the time includes every
HCPA run the algorithm needs (the standalone allocations and ``C*_i``; for CAFM the moldable
specification, ``P`` HCPA schedules per PTG), BACKFILL and nothing else (validation and
metrics are excluded: ``run(..., check=False)``). ``own``: the same algorithm again on a
problem where those shared parts are already computed (what the reproduction pays per
algorithm after the first; ``RunResult.seconds``). ``shared precomp.``: the one-time cost of
those shared parts (``RunResult.shared_seconds``: standalone HCPA, plus the moldable
specification for CAFM), which ``lpsched ptg schedule`` reports for every algorithm.
``--scenarios K`` also times the first K scenarios of the reproduction (one process), 19
algorithms and the bounds each, with validation. ``--hcpa-bound`` (default the literal
``DEFAULT_BOUND``) is the improved-HCPA processor bound of the problems (DECIDE-1).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from lpsched.core.versions import versions_report
from lpsched.ptg import reproduce as exp
from lpsched.ptg.bounds import lower_bounds
from lpsched.ptg.generators import build_member, population
from lpsched.ptg.hcpa import DEFAULT_BOUND, HcpaBound
from lpsched.ptg.model import CLUSTERS
from lpsched.ptg.problem import Problem
from lpsched.ptg.registry import ALGORITHMS, run


def a32_ptgs(seed: int = 0) -> list:
    """10 random PTGs of the 1,296-population (n = 30 only: the paper's worst case)."""
    pop = [m for m in population("random") if dict(m.params)["n"] == 30]
    pick = np.random.default_rng(seed).choice(len(pop), 10, replace=False)
    return [build_member(pop[int(k)], seed) for k in pick]


def bench_algorithms(repeat: int, bound: HcpaBound = DEFAULT_BOUND) -> None:
    ptgs = a32_ptgs()
    gdx = CLUSTERS["gdx"]
    print(f"improved-HCPA bound: {bound}")
    print(f"{'algorithm':<18} {'fresh mean (s)':>15} {'fresh max':>10} {'own (s)':>9} "
          f"{'shared precomp. (s)':>20}")
    for name in ALGORITHMS:
        fresh = []
        for _ in range(repeat):
            pb = Problem(ptgs, gdx, seed=1, hcpa_bound=bound)
            t0 = time.perf_counter()
            r = run(pb, name, check=False)
            fresh.append(time.perf_counter() - t0)
        again = run(pb, name, check=False)
        print(f"{name:<18} {statistics.mean(fresh):>15.3f} {max(fresh):>10.3f} "
              f"{again.seconds:>9.4f} {r.shared_seconds:>20.3f}")
    pb = Problem(ptgs, gdx, seed=1, hcpa_bound=bound)
    pb.cstar  # noqa: B018 - the bounds divide by sum C*
    t0 = time.perf_counter()
    b = lower_bounds(pb)
    print(f"LP + classical bounds: {time.perf_counter() - t0:.3f} s "
          f"(Cmax >= {b.makespan:.2f} s, SSCT >= {b.ssct:.3f})")


def bench_reproduction(count: int, bound: HcpaBound = DEFAULT_BOUND) -> None:
    cells = exp.cells(count, hcpa_bound=bound)
    t0 = time.perf_counter()
    for c in cells:
        exp.cell_rows(c)
    wall = time.perf_counter() - t0
    print(f"reproduction: first {count} scenarios x 19 algorithms + bounds: {wall:.1f} s "
          f"({wall / count:.2f} s per scenario, one process)")


def bench_parts(repeat: int, bound: HcpaBound = DEFAULT_BOUND) -> None:
    """CPU (``time.process_time``) of the moldable specification's parts on the A32 case,
    through calls every version of the code has: the standalone trajectories, the
    allocations of every budget (``all_allocs``), and the makespans (``spec_times`` of a
    fresh problem whose trajectories exist, less its ``all_allocs``). Medians of
    ``repeat`` runs."""
    from lpsched.ptg.hcpa import all_allocs

    ptgs, gdx = a32_ptgs(), CLUSTERS["gdx"]
    rows = []
    for _ in range(repeat):
        pb = Problem(ptgs, gdx, seed=1, hcpa_bound=bound)
        t0 = time.process_time()
        traj = pb.trajectories
        t1 = time.process_time()
        for t in traj:
            all_allocs(t)
        t2 = time.process_time()
        for i in range(pb.N):
            pb.spec_times(i)
        t3 = time.process_time()
        rows.append((t1 - t0, t2 - t1, (t3 - t2) - (t2 - t1)))
    med = [statistics.median(r[k] for r in rows) for k in range(3)]
    print(f"moldable specification parts (CPU, median of {repeat}): trajectories "
          f"{med[0]:.3f} s, allocations {med[1]:.3f} s, makespans {med[2]:.3f} s")


def write_a32(folder: str) -> None:
    """The A32 PTGs as JSON files ``g0.json`` ... ``g9.json`` in ``folder`` (for timing
    ``lpsched ptg schedule`` end to end)."""
    from pathlib import Path

    from lpsched.ptg.io import to_json

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    for i, g in enumerate(a32_ptgs()):
        (out / f"g{i}.json").write_text(to_json(g))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scenarios", type=int, default=0)
    ap.add_argument("--hcpa-bound", type=HcpaBound.parse, default=DEFAULT_BOUND,
                    help="improved-HCPA variant, e.g. literal (default), none, budget:0.65")
    ap.add_argument("--parts", action="store_true",
                    help="only the CPU of the moldable specification's parts")
    ap.add_argument("--write-a32", metavar="DIR", help="only write the A32 PTGs as JSON")
    args = ap.parse_args()
    if args.write_a32:
        write_a32(args.write_a32)
        return
    print(versions_report())
    if args.parts:
        bench_parts(args.repeat, args.hcpa_bound)
        return
    bench_algorithms(args.repeat, args.hcpa_bound)
    if args.scenarios:
        bench_reproduction(args.scenarios, args.hcpa_bound)


if __name__ == "__main__":
    main()
