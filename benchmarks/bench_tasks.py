"""Online task policies and their lower bounds on the real traces: prints Markdown.

    python benchmarks/bench_tasks.py [path/to/shared/data] [--repeats 3]
        [--skip-policies | --policies-only | --curie-row]

1. Method-C instances of Table 3.1 (seed 0): build time, tasks, processors, Q.
2. Every policy on a 70,000-task, 160-processor instance (the first 70,000 tasks of a
   CEA-Curie window, ``p`` rescaled so the load per processor is kept): simulation time
   (median of ``--repeats``, wall and CPU: the CPU time is what a busy machine does not
   inflate), validation time and the peak of traced memory (tracemalloc).
   Then ``lpsched online big.json --policy P --json`` end to end for the slowest policies
   (subprocess of the installed command, median of ``--repeats``: Python start, reading
   the 70,000-task JSON, simulation, independent validation, the speed-m bounds, JSON out).
3. The lower bounds on 3,000-task instances (the first 3,000 tasks of a window of each
   trace with that many): exact search and speed-m, time and number of feasibility tests;
   "proven gap": ``upper / value − 1``, the optimum lying in ``[value, upper]``.
4. The 60-day Curie row (``--curie-row`` alone, or with the others): ``lpsched tasks
   CEA-Curie-2011-2.1-cln.swf.gz --window random:60d --seed 1`` (71,756 tasks on 96
   processors), then ``lpsched online curie60.json --policy spt-rd --json`` (Table 3.2's
   parameters, the speed-m lower bounds) as a user runs it: wall, CPU (user + system) and
   peak resident memory of the child from ``wait4`` (``benchmarks/_measure.py``), medians
   of ``--repeats``, with the load before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
from _measure import load, lpsched_command, measure, median_run

from lpsched.core.versions import versions_report
from lpsched.tasks.bounds import lower_bounds, max_weighted_flow_bound
from lpsched.tasks.instance import TRACES, TaskInstance, trace_workload, window_instance
from lpsched.tasks.policies import ALL_POLICIES, get_policy
from lpsched.tasks.schedule import validate_schedule
from lpsched.tasks.simulator import simulate


def instances(data: Path) -> dict[str, TaskInstance]:
    print("## Method-C instances (seed 0, Table 3.1 windows)\n")
    print("| trace | window | tasks | processors | Q | build s |")
    print("|---|---|---:|---:|---:|---:|")
    out = {}
    for info in TRACES.values():
        path = data / info.file
        if not path.exists():
            continue
        t0 = time.perf_counter()
        work, machine = trace_workload(str(path))
        inst = window_instance(work, machine, f"random:{info.days:g}d", 0, "C", path.name)
        out[info.short] = inst
        print(f"| {info.short} | {info.days:g} d | {inst.n:,} | {inst.processors} | "
              f"{inst.meta['Q']:.1f} | {time.perf_counter() - t0:.2f} |")
    return out


def big_instance(data: Path, n: int = 70_000, m: int = 160) -> TaskInstance:
    info = TRACES["CEA-Curie-2011-2.1-cln"]
    work, machine = trace_workload(str(data / info.file))
    base = window_instance(work, machine, "random:120d", 1, "C", info.file)
    assert base.n >= n, base.n
    return TaskInstance(m, base.release[:n], base.p[:n] * m / base.processors)


def policies(inst: TaskInstance, repeats: int) -> None:
    print(f"\n## Every policy on {inst.n:,} tasks, {inst.processors} processors "
          f"(m_d = 10, τ = 4, c = 0.8)\n")
    print("| policy | simulate s (median) | CPU s (median) | validate s | peak traced MB | "
          "events |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in ALL_POLICIES:
        pol = get_policy(name, md=10, tau=4, c=0.8)
        times, cpu = [], []
        for _ in range(repeats):
            c0 = time.process_time()
            sched = simulate(inst, pol)
            cpu.append(time.process_time() - c0)
            times.append(sched.stats["seconds"])
        tracemalloc.start()
        simulate(inst, pol)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        t0 = time.perf_counter()
        validate_schedule(inst, sched)
        check = time.perf_counter() - t0
        print(f"| {name} | {statistics.median(times):.2f} | {statistics.median(cpu):.2f} | "
              f"{check:.2f} | {peak:.0f} | {sched.stats['events']:,} |")


def end_to_end(inst: TaskInstance, repeats: int,
               names: tuple[str, ...] = ("spt", "srpt", "spt-rd", "gspt")) -> None:
    print("\n`lpsched online big.json --policy P --md 10 --tau 4 --c 0.8 --json`, end to end:\n")
    print("| policy | wall s (median) | CPU s (median) |")
    print("|---|---:|---:|")
    lpsched = str(Path(sys.executable).parent / "lpsched")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.json"
        path.write_text(json.dumps(inst.to_dict()))
        for name in names:
            walls, cpus = [], []
            for _ in range(repeats):
                before = os.times()
                t0 = time.perf_counter()
                subprocess.run([lpsched, "online", str(path), "--policy", name, "--md", "10",
                                "--tau", "4", "--c", "0.8", "--json"], check=True,
                               stdout=subprocess.DEVNULL)
                walls.append(time.perf_counter() - t0)
                after = os.times()
                cpus.append(after.children_user - before.children_user
                            + after.children_system - before.children_system)
            print(f"| {name} | {statistics.median(walls):.2f} | {statistics.median(cpus):.2f} |")


def bounds(insts: dict[str, TaskInstance], n: int = 3000) -> None:
    print(f"\n## Lower bounds on the first {n:,} tasks of each window\n")
    print("| trace | m | exact maxS | proven gap | s | tests | speed-m maxS | s | exact maxF | "
          "proven gap | s | sumF bound s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, full in insts.items():
        if full.n < n:
            continue
        inst = TaskInstance(full.processors, full.release[:n], full.p[:n])
        ex = max_weighted_flow_bound(inst, "flow")
        sp = max_weighted_flow_bound(inst, "speed-m")
        fl = max_weighted_flow_bound(inst, "flow", weights=np.ones(1))
        sf = lower_bounds(inst, exact_limit=0)["sum_flow"]
        print(f"| {name} | {inst.processors} | {ex.value:.4f} | {ex.upper / ex.value - 1:.1e} "
              f"| {ex.seconds:.2f} | {ex.tests} | {sp.value:.4f} | {sp.seconds:.2f} | "
              f"{fl.value:.0f} | {fl.upper / fl.value - 1:.1e} | {fl.seconds:.2f} | "
              f"{sf.seconds:.3f} |")


def curie_row(data: Path, repeats: int) -> None:
    """The online row on a 60-day Curie window, end to end (module doc, section 4)."""
    trace = data / TRACES["CEA-Curie-2011-2.1-cln"].file
    print(f"\n## `lpsched online --policy spt-rd` on Curie, 60 days, seed 1 ({load()})\n")
    with tempfile.TemporaryDirectory() as tmp:
        inst = f"{tmp}/curie60.json"
        made = measure([*lpsched_command(), "tasks", str(trace), "--window", "random:60d",
                        "--seed", "1", "-o", inst, "--json"])
        info = json.loads(made.stdout)
        run = median_run([measure([*lpsched_command(), "online", inst, "--policy", "spt-rd",
                                   "--json"]) for _ in range(repeats)])
    print("| instance | wall s | CPU s | peak MB | goal |")
    print("|---|---:|---:|---:|---|")
    print(f"| {info['tasks']:,} tasks, {info['processors']} processors | {run.wall:.2f} | "
          f"{run.cpu:.2f} | {run.peak_mb:.0f} | <= 3 s CPU: "
          f"{'met' if run.cpu <= 3.0 else 'not met'} |")
    print(f"\n{load()} at the end")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", nargs="?", default="../shared/data")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-policies", action="store_true", help="sections 1 and 3 only")
    ap.add_argument("--policies-only", action="store_true", help="section 2 only")
    ap.add_argument("--curie-row", action="store_true", help="section 4 only")
    args = ap.parse_args()
    data = Path(args.data)
    print("```\n" + versions_report() + "\n```\n")
    print(f"load average at the start: {os.getloadavg()[0]:.1f}\n")
    if args.curie_row:
        curie_row(data, args.repeats)
        return
    if not args.skip_policies:
        big = big_instance(data)
        policies(big, args.repeats)
        end_to_end(big, args.repeats)
    if not args.policies_only:
        bounds(instances(data))
        curie_row(data, args.repeats)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
