"""Campaign family (seed 002) timings and peak memory: prints Markdown.

    python benchmarks/bench_campaigns.py [path/to/shared/data] [--repeats 3]

Each row is the median wall time of ``--repeats`` runs of one step (what it includes is in
the row) and the peak of Python allocations during one run (``tracemalloc``; numpy arrays
included, the interpreter itself not).
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.campaigns import sequential
from lpsched.campaigns.extract import extract
from lpsched.campaigns.faircamp import faircamp, faircamp_packed
from lpsched.campaigns.generators import faircamp_workload
from lpsched.campaigns.metrics import campaign_stretch
from lpsched.campaigns.policies import policy_factory
from lpsched.campaigns.reproduce import FAIRCAMP_POLICIES, faircamp_cell
from lpsched.campaigns.schedule import original_run, validate
from lpsched.campaigns.simulator import simulate
from lpsched.core.swf import read_swf
from lpsched.core.versions import versions_report


def measure(fn: Callable[[], Any], repeats: int) -> tuple[float, float, Any]:
    times = []
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return statistics.median(times), peak / 2**20, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", nargs="?", default=str(Path(__file__).resolve().parents[2]
                                                   / "shared" / "data"))
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    rows: list[tuple[str, float, float, str]] = []
    w = faircamp_workload(10, 10_000, seed=1)
    t, mem, _ = measure(lambda: faircamp(w), args.repeats)
    rows.append(("FairCamp, 10^4 jobs, k = 10 (simulation only; blocks by the ch. 4 "
                 "shortcut)", t, mem, ""))
    t, mem, _ = measure(lambda: faircamp_packed(w), args.repeats)
    rows.append(("FairCamp packed, 10^4 jobs, k = 10 (the ch. 4 shortcut)", t, mem, ""))
    t, mem, _ = measure(lambda: sequential.fcfs(w), args.repeats)
    rows.append(("fcfs, 10^4 jobs, k = 10 (the ch. 4 shortcut)", t, mem, ""))
    cell = {"k": 10, "seed": 1, "jobs": 10_000, "policies": ",".join(FAIRCAMP_POLICIES)}
    t, mem, _ = measure(lambda: faircamp_cell(cell), args.repeats)
    rows.append(("one `reproduce faircamp` cell: 4 policies, validation, S1 and S2", t, mem,
                 ""))
    for pol in ("fcfs", "ostrich", "space-share", "fair-share"):
        t, mem, _ = measure(lambda p=pol: simulate(w, policy_factory(p, False, 50.0)),
                            args.repeats)
        rows.append((f"{pol}, 10^4 jobs, k = 10 (simulation only, engine)", t, mem, ""))
    t, mem, _ = measure(lambda: validate(faircamp(w)), args.repeats)
    rows.append(("FairCamp + independent validation, 10^4 jobs", t, mem, ""))
    path = Path(args.data) / "LPC-EGEE-2004-1.2-cln.swf.gz"
    if path.exists():
        _egee(path, args.repeats, rows)
    print(f"<!-- {versions_report().splitlines()[0]} -->")
    print("| step | median s | peak MiB | result |")
    print("|---|---:|---:|---|")
    for name, t, mem, note in rows:
        print(f"| {name} | {t:.3f} | {mem:.0f} | {note} |")


def _egee(path: Path, repeats: int, rows: list[tuple[str, float, float, str]]) -> None:
    t, mem, trace = measure(lambda: read_swf(path), repeats)
    rows.append(("LPC-EGEE read_swf (234,889 jobs, gzip)", t, mem, ""))
    for deps in (False, True):
        t, mem, ex = measure(lambda d=deps: extract(trace, 140, "max", d), repeats)
        rows.append((f"LPC-EGEE MAX extraction{' + dependency DAGs' if deps else ''}", t, mem,
                     f"{ex.workload.campaigns} campaigns, {ex.workload.dep_src.size} edges"))
        w = ex.workload
        for pol in ("ostrich", "fcfs"):
            t, mem, run = measure(lambda p=pol, w=w: simulate(w, policy_factory(p, False)),
                                  repeats)
            d = campaign_stretch(run)
            rows.append((f"LPC-EGEE replay, {pol}, {'deps' if deps else 'no deps'} "
                         "(simulation of every piece)", t, mem,
                         f"D = 1: {np.mean(d <= 1 + 1e-9):.3f}, D < 1.5: "
                         f"{np.mean(d < 1.5):.3f}"))
        t0 = time.perf_counter()
        validate(run)
        rows.append(("  validation of that schedule", time.perf_counter() - t0, 0.0, ""))
    d = campaign_stretch(original_run(w))
    rows.append(("LPC-EGEE original log (metrics only)", 0.0, 0.0,
                 f"D = 1: {np.mean(d <= 1 + 1e-9):.4f}, D < 1.5: {np.mean(d < 1.5):.3f}"))


if __name__ == "__main__":
    main()
