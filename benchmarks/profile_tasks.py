"""Where the CPU of ``lpsched reproduce redirection`` goes: one Markdown table (phase, CPU s,
share) per trace and for the whole comparison, extrapolated to the seed's size.

    .venv/bin/python benchmarks/profile_tasks.py                   # this checkout
    .venv/bin/python benchmarks/profile_tasks.py --sample 1 --traces KTH-SP2,Curie
    /work/old/.venv/bin/python benchmarks/profile_tasks.py ...     # another checkout

**The seed's size** (seed 000 ch. 3: 7 traces x 20 instances x 9 policies, the traces read
from ``$LPSCHED_DATA`` or ../shared/data): each trace parsed once (as one ``--jobs 1``
worker does), then ``--sample K`` instances (windows) per trace, each standing for ``20 /
K`` instances: its window built, its lower bounds computed and its nine policies run, as
the cells of one instance run in one worker (the runner's group). The phases come from
:mod:`cProfile` on the process's CPU clock (each function's own time charged to the phase
of its module or name, :data:`PHASES`), scaled to the CPU the same work takes without the
profiler. The process's start, the store and the seed-vs-ours table are left out.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

DATA = Path(os.environ.get("LPSCHED_DATA", Path(__file__).resolve().parents[2] / "shared"
                           / "data"))
INSTANCES = 20
#: (substring of "file:function", phase), the first that matches wins
PHASES = (
    ("swf.py", "trace parsing"),
    ("npyio", "trace parsing"),
    ("_load_from_filelike", "trace parsing"),
    ("zlib", "trace parsing"),
    ("gzip", "trace parsing"),
    ("instance.py", "window (instance)"),
    ("bounds.py", "lower bounds"),
    ("deadline_model.py", "lower bounds"),
    ("scipy", "lower bounds"),
    ("maximum_flow", "lower bounds"),
    ("simulator.py", "simulation"),
    ("_online_c", "simulation"),
    ("_flow_c", "lower bounds"),
    ("heapq", "simulation"),
    ("schedule.py", "validation and metrics"),
    ("policies.py", "policies"),
    ("numpy", "numpy calls"),
)


def phase_of(key: tuple[str, int, str]) -> str:
    """The phase of one profiled function ``(file, line, name)``."""
    name = f"{key[0]}:{key[2]}"
    for pattern, phase in PHASES:
        if pattern in name:
            return phase
    return "other"


def profiled(work: list[tuple[Callable[[], object], float]]) -> tuple[dict[str, float], float]:
    """Run each ``(unit, weight)`` once without the profiler and once under it; the weighted
    phase seconds (scaled to the unprofiled CPU) and the weighted CPU."""
    cpu = 0.0
    for unit, weight in work:
        t0 = time.process_time()
        unit()
        cpu += weight * (time.process_time() - t0)
    share: dict[str, float] = defaultdict(float)
    for unit, weight in work:
        prof = cProfile.Profile(time.process_time)  # CPU, not wall: the machine is shared
        prof.enable()
        unit()
        prof.disable()
        for key, stat in pstats.Stats(prof).stats.items():  # type: ignore[attr-defined]
            share[phase_of(key)] += weight * stat[2]
    total = sum(share.values()) or 1.0
    return {k: cpu * v / total for k, v in share.items()}, cpu


def table(title: str, phases: dict[str, float], cpu: float) -> str:
    """One Markdown table, largest phase first."""
    lines = [f"### {title}", "", "| phase | CPU s | share |", "|---|---:|---:|"]
    for name, sec in sorted(phases.items(), key=lambda kv: -kv[1]):
        lines.append(f"| {name} | {sec:,.1f} | {sec / cpu:.1%} |")
    lines.append(f"| **total** | **{cpu:,.1f}** | 100% |")
    return "\n".join(lines) + "\n"


def trace_work(path: str, sample: int) -> list[tuple[Callable[[], object], float]]:
    """The units of one trace: its parsing (weight 1), then ``sample`` instances (each
    ``20 / sample``), every cache emptied first so that each unit does its own work."""
    from lpsched.tasks import reproduce as rep

    def parse() -> None:
        rep._trace.cache_clear()
        # the key the cells' instance() uses (another key would parse it again in a cell)
        rep._trace(path, rep.CHAPTER_STATUS, rep.CHAPTER_ZERO_RUN)

    def one_instance(seed: int) -> Callable[[], None]:
        def run() -> None:
            rep.instance.cache_clear()
            rep._bounds.cache_clear()
            for cell in rep.comparison_cells([path], 1, first_seed=seed):
                rep.run_cell(cell)
        return run

    return [(parse, 1.0)] + [(one_instance(500 + i), INSTANCES / sample)
                             for i in range(sample)]


def main() -> int:
    """Print one table per trace and the whole comparison's."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=2, help="instances per trace")
    parser.add_argument("--traces", default="all", help="'all' or names (KTH-SP2,Curie...)")
    args = parser.parse_args()
    import lpsched
    from lpsched.tasks.reproduce import default_traces

    print(f"code: {Path(lpsched.__file__).parent}; load {os.getloadavg()[0]:.1f}\n")
    paths = default_traces(str(DATA))
    if args.traces != "all":
        paths = [p for p in paths if any(t in Path(p).name for t in args.traces.split(","))]
    whole: dict[str, float] = defaultdict(float)
    whole_cpu = 0.0
    for path in paths:
        phases, cpu = profiled(trace_work(path, args.sample))
        print(table(f"{Path(path).name}: parse + {INSTANCES} instances x 9 policies, "
                    f"extrapolated from {args.sample}", phases, cpu), flush=True)
        for k, v in phases.items():
            whole[k] += v
        whole_cpu += cpu
    print(table(f"redirection, {len(paths)} traces (the seed's size when all seven)",
                whole, whole_cpu))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
