"""Where the CPU of ``lpsched reproduce cbs3m`` goes, phase by phase, at the seed's size.

    python benchmarks/profile_bags.py [--profile simgrid|mpi] [--sample 20] [--instances 1000]

Runs a sample of whole instances (every policy of each, as the runner groups them) in this
process, the cells computed as :func:`lpsched.bags.reproduce.cell` computes them, with the
CPU time (user + system of this process) of each phase taken apart by wrapping the
functions that do it: the instance drawn, the LP optimum that normalises Tables 4-8, each
policy family's LP solves (HiGHS' own runs apart from the Python around them), the
simulator's event loop and dispatch, the validation, the metrics, the store's writes. The
sample is spread over the seeds of the run (every ``instances / sample``-th seed) and the
per-instance costs are extrapolated by cell counts to ``--instances`` (the seed's 1,000).
The fixed costs are measured apart, once each: the process start-up and imports (a child
process), and the tables, CSV files and figures built from the sampled rows.

Prints a Markdown table (phase, CPU s extrapolated, share). ``--floor OLD`` measures the
reduced runs of :data:`REDUCED` beside an old command with the part of each that no exact
change can remove (HiGHS' simplex runs, the tables and figures, the start-up), over the
old CPU. ``--side-by-side OLD`` measures
instead the reduced runs of :data:`REDUCED` with an old ``lpsched`` command and this
checkout's (medians of ``--repeats``, alternated). The same script runs on another
checkout's interpreter (``/work/old/.venv/bin/python benchmarks/profile_bags.py``): a phase
whose function does not exist there is left out, so the two tables read side by side.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: (phase, module, attribute path) of every function whose CPU is its phase's (exclusive of
#: the phases nested inside it). Order matters only for reading.
PHASES: list[tuple[str, str, str]] = [
    ("instance generation", "lpsched.bags.reproduce", "random_bags"),
    ("LP optimum MS*/ρ* of the instance (max_stretch)", "lpsched.bags.reproduce",
     "max_stretch"),
    # with SolveMemo (decision 610) the LP optimum is the offline plan's solve, counted here
    ("CBS3M offline plan (max_stretch)", "lpsched.bags.policies.cbs3m", "max_stretch"),
    ("CBS3M solves answered by the memo (SolveMemo lookups)", "lpsched.bags.policies.cbs3m",
     "SolveMemo._lookup"),
    ("CBS3M online re-solves (online_max_stretch)", "lpsched.bags.policies.cbs3m",
     "online_max_stretch"),
    ("MWMA steady-state LPs", "lpsched.bags.policies.mwma", "MWMA._solve"),
    ("  LP models built (StretchModel, weighted LP)", "lpsched.bags.maxstretch.search",
     "StretchModel.__init__"),
    ("  LP models built (StretchModel, weighted LP)", "lpsched.bags.policies.mwma",
     "weighted_throughput_lp"),
    ("  HiGHS objects created and loaded", "lpsched.solvers.highs", "HighsModel.__init__"),
    ("  single-resource relaxations", "lpsched.bags.maxstretch.search",
     "relaxation_lower_bound"),
    ("simulator: policy dispatch (next_send)", "lpsched.bags.simulator",
     "StarSimulator._dispatch"),
    ("validate (independent)", "lpsched.bags.reproduce", "validate"),
    ("metrics", "lpsched.bags.reproduce", "metrics"),
    ("store (one transaction per cell)", "lpsched.core.store", "ResultStore.add"),
]
#: The phase of HiGHS' own ``run`` (the simplex), nested in the LP phases above.
HIGHS_RUN = "  HiGHS simplex runs (C++)"


class Clock:
    """Exclusive CPU time per phase: a stack of open phases, each charged with the CPU that
    passed while it was on top."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)
        self.stack: list[str] = ["simulator: event loop, policies' own work, cell bookkeeping"]
        self.last = time.process_time()

    def switch(self, phase: str | None) -> None:
        now = time.process_time()
        self.spent[self.stack[-1]] += now - self.last
        self.last = now
        if phase is None:
            self.stack.pop()
        else:
            self.stack.append(phase)

    def wrap(self, phase: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            self.switch(phase)
            try:
                return fn(*args, **kwargs)
            finally:
                self.switch(None)
        return timed


def instrument(clock: Clock) -> list[str]:
    """Wrap every function of :data:`PHASES` and HiGHS' ``run``; the phases found."""
    found = []
    for phase, module, path in PHASES:
        try:
            owner: Any = importlib.import_module(module)
        except ImportError:
            continue
        *parents, name = path.split(".")
        for part in parents:
            owner = getattr(owner, part, None)
        if owner is None or not hasattr(owner, name):
            continue
        setattr(owner, name, clock.wrap(phase, getattr(owner, name)))
        found.append(phase)
    import highspy

    base = highspy.Highs

    class TimedHighs(base):  # type: ignore[misc, valid-type]
        def run(self) -> Any:
            clock.switch(HIGHS_RUN)
            try:
                return super().run()
            finally:
                clock.switch(None)

    highspy.Highs = TimedHighs
    found.append(HIGHS_RUN)
    return found


def startup_cpu() -> float:
    """CPU of a child process that imports what ``lpsched reproduce cbs3m`` imports."""
    code = ("import lpsched.cli, lpsched.cli.bags, lpsched.bags.reproduce, "
            "lpsched.core.store, lpsched.core.runner")
    t0 = os.times()
    subprocess.run([sys.executable, "-c", code], check=True)
    t1 = os.times()
    return (t1.children_user - t0.children_user) + (t1.children_system - t0.children_system)


def tables_cpu(rows: list[dict[str, Any]], profile: str) -> float:
    """CPU of the tables, the CSV files and the figures (PNG when matplotlib is there)."""
    from lpsched.bags import reproduce as exp

    c0 = time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        tab = exp.tables(exp.select(rows, "lazy"))
        exp.write_csv(tab, rows, Path(tmp))
        try:
            import matplotlib

            matplotlib.use("Agg")
            draw = True
        except ImportError:
            draw = False
        exp.write_figures(exp.select(rows, "lazy"), Path(tmp), profile == "mpi", draw=draw)
        exp.format_tables(tab, profile)
    return time.process_time() - c0


def run_sample(profile: str, seeds: list[int]) -> tuple[dict[str, float], list[dict], float]:
    """Every policy of each seed through the runner (one process) into a temporary store;
    the CPU per phase, the rows and the CPU of the whole loop."""
    from lpsched.bags import reproduce as exp
    from lpsched.core import ResultStore, run_cells

    clock = Clock()
    instrument(clock)
    cells = [c for s in seeds for c in exp.cells(1, profile, first_seed=s)]
    with tempfile.TemporaryDirectory() as tmp:
        store = ResultStore(Path(tmp) / "cbs3m.sqlite")
        c0 = time.process_time()
        clock.last = c0
        run_cells(exp.EXPERIMENT, cells, exp.cell, store, progress=False,
                  group=exp.by_instance)
        total = time.process_time() - c0
        clock.switch("end")  # charge the last stretch of the base phase
        rows = store.rows(exp.EXPERIMENT)
    return dict(clock.spent), rows, total


#: The reduced runs measured side by side (``--side-by-side``): (profile, instances, first seed)
REDUCED = [("simgrid", 2, 0), ("simgrid", 6, 0), ("simgrid", 20, 500), ("mpi", 10, 0)]


def side_by_side(old: str, repeats: int, no_figures: bool) -> None:
    """Each reduced run of :data:`REDUCED` by the old command and this checkout's, one
    process each, alternated, ``repeats`` times: the medians of CPU, wall and peak, and the
    ratio new / old of the CPU. ``no_figures`` hides matplotlib from this checkout's command
    (a package that fails to import, first on ``PYTHONPATH``), as the old virtualenv has no
    matplotlib: without it, both commands write the same files (no PNG figures)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _measure import measure, median_run

    new = str(Path(sys.executable).parent / "lpsched")
    with tempfile.TemporaryDirectory() as tmp:
        env_prefix = []
        if no_figures:
            stub = Path(tmp) / "stub" / "matplotlib"
            stub.mkdir(parents=True)
            (stub / "__init__.py").write_text("raise ImportError('hidden to measure')\n")
            env_prefix = ["env", f"PYTHONPATH={stub.parent}"]
        print("| run | old CPU s | new CPU s | ratio | old wall s | new wall s "
              "| old peak MB | new peak MB |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for profile, instances, first in REDUCED:
            runs: dict[str, list[Any]] = {"old": [], "new": []}
            for r in range(repeats):
                for who, cmd in (("old", [old]), ("new", [*env_prefix, new])):
                    out = Path(tmp) / f"{who}{r}"
                    runs[who].append(measure([
                        *cmd, "reproduce", "cbs3m", "--profile", profile, "--instances",
                        str(instances), "--first-seed", str(first), "--jobs", "1", "--quiet",
                        "--out", str(out)]))
            o, n = median_run(runs["old"]), median_run(runs["new"])
            print(f"| `--profile {profile} --instances {instances} --first-seed {first}` "
                  f"| {o.cpu:.2f} | {n.cpu:.2f} | {n.cpu / o.cpu:.2f} | {o.wall:.1f} "
                  f"| {n.wall:.1f} | {o.peak_mb:.0f} | {n.peak_mb:.0f} |")


def floor(old: str, repeats: int) -> None:
    """Each reduced run of :data:`REDUCED`: the old command's CPU and this checkout's
    (medians of ``repeats``, alternated, one process each), and the part of this
    checkout's run that no exact change can remove: HiGHS' own simplex runs (every LP
    kept as it is, decision 612), the tables and figures (drawn by the old code too) and
    the process start-up. ``floor`` is that part over the old CPU: the lowest ratio a run
    with the same rows could reach if everything else took no time."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _measure import measure, median_run

    new = str(Path(sys.executable).parent / "lpsched")
    print("| run | old CPU s | new CPU s | ratio | HiGHS runs s | tables and figures s "
          "| start-up s | floor |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for profile, instances, first in REDUCED:
            runs: dict[str, list[Any]] = {"old": [], "new": []}
            for r in range(repeats):
                for who, cmd in (("old", old), ("new", new)):
                    runs[who].append(measure([
                        cmd, "reproduce", "cbs3m", "--profile", profile, "--instances",
                        str(instances), "--first-seed", str(first), "--jobs", "1", "--quiet",
                        "--out", str(Path(tmp) / f"{who}{profile}{instances}{r}")]))
            o, n = median_run(runs["old"]).cpu, median_run(runs["new"]).cpu
            spent, rows, _ = run_sample(profile, list(range(first, first + instances)))
            highs, figures, start = spent[HIGHS_RUN], tables_cpu(rows, profile), startup_cpu()
            print(f"| `--profile {profile} --instances {instances} --first-seed {first}` "
                  f"| {o:.2f} | {n:.2f} | {n / o:.2f} | {highs:.2f} | {figures:.2f} "
                  f"| {start:.2f} | {(highs + figures + start) / o:.2f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--side-by-side", metavar="OLD_LPSCHED",
                    help="measure the reduced runs with this old lpsched command and this "
                         "checkout's instead of profiling")
    ap.add_argument("--floor", metavar="OLD_LPSCHED",
                    help="the reduced runs beside this old lpsched command, with the part "
                         "of each that no exact change can remove")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-figures", action="store_true",
                    help="with --side-by-side: hide matplotlib from this checkout's command")
    ap.add_argument("--profile", default="simgrid", choices=["simgrid", "mpi"])
    ap.add_argument("--sample", type=int, default=20, help="instances run (default 20)")
    ap.add_argument("--instances", type=int, default=1000,
                    help="the run extrapolated to (default 1000, the seed's)")
    ap.add_argument("--first-seed", type=int, default=0)
    args = ap.parse_args()
    if args.side_by_side:
        print(f"- load {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
        side_by_side(args.side_by_side, args.repeats, args.no_figures)
        return 0
    if args.floor:
        print(f"- load {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
        floor(args.floor, args.repeats)
        return 0
    from lpsched.core.versions import versions_report

    step = max(1, args.instances // args.sample)
    seeds = [args.first_seed + i * step for i in range(args.sample)]
    spent, rows, total = run_sample(args.profile, seeds)
    scale = args.instances / len(seeds)
    fixed = {"process start-up and imports (once)": startup_cpu(),
             "tables, CSV files, figures (once, from the sample's rows)":
                 tables_cpu(rows, args.profile)}
    print("Measured with:\n" + versions_report("- "))
    print(f"- load {' '.join(f'{x:.2f}' for x in os.getloadavg())}; lpsched from "
          f"{Path(importlib.import_module('lpsched').__file__).parent}; "
          f"LPSCHED_PURE_PYTHON={os.environ.get('LPSCHED_PURE_PYTHON', '')!r}\n")
    print(f"`reproduce cbs3m --profile {args.profile}`: {len(seeds)} instances sampled "
          f"(seeds {seeds[0]}, {seeds[0] + step}, ..., {seeds[-1]}; "
          f"{len(rows)} cells), {total:.2f} s CPU in the cells' loop, "
          f"{total / len(seeds):.3f} s per instance; extrapolated x{scale:g} to "
          f"{args.instances} instances.\n")
    grand = total * scale + sum(fixed.values())
    print("| phase | CPU s | share |")
    print("|---|---:|---:|")
    order = sorted(spent, key=lambda k: -spent[k])
    for phase in order:
        if phase == "end":
            continue
        value = spent[phase] * scale
        print(f"| {phase} | {value:.1f} | {100 * value / grand:.1f} % |")
    for phase, value in fixed.items():
        print(f"| {phase} | {value:.1f} | {100 * value / grand:.1f} % |")
    print(f"| **total** | **{grand:.1f}** | 100 % |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
