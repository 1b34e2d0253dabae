"""Where the CPU of ``lpsched reproduce faircamp`` and ``reproduce ostrich`` goes: one
Markdown table per experiment (phase, CPU s, share), extrapolated to the seed's size.

    .venv/bin/python benchmarks/profile_campaigns.py                   # this checkout
    .venv/bin/python benchmarks/profile_campaigns.py --sample 3 --experiments faircamp
    /work/old/.venv/bin/python benchmarks/profile_campaigns.py ...     # another checkout

**faircamp** (seed 002 ch. 4: 1,000 instances x k in 2, 3, 5, 10, 20, four policies per
cell): ``--sample K`` instances of each k at full size (10,000 jobs), each standing for
``1000 / K`` instances of its k. **ostrich** (ch. 5): the five LPC-EGEE replays of the whole
trace (``$LPSCHED_DATA`` or ../shared/data; left out when missing) once each, and ``--sample
K`` two-profile workloads of each user count, each standing for ``40 / K``.

The cells run one after the other in this process, as ``--jobs 1`` runs them. The phases
come from :mod:`cProfile` on the process's CPU clock (each function's own time charged to
the phase of its module or name, :data:`PHASES`), scaled to the CPU the same cells take
without the profiler. The process's start, the store and the seed-vs-ours table are left
out (a few seconds at any size: the side-by-side runs of whole commands measure them).
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
from typing import Any

DATA = Path(os.environ.get("LPSCHED_DATA", Path(__file__).resolve().parents[2] / "shared"
                           / "data"))
EGEE = "LPC-EGEE-2004-1.2-cln.swf.gz"
#: (substring of "file:function", phase), the first that matches wins
PHASES = (
    ("generators.py", "workload generation"),
    ("sequential.py:lpt_schedules", "LPT ρ-schedules"),
    ("offline.py:lpt", "LPT ρ-schedules"),
    ("metrics.py:rho_lengths", "LPT ρ-schedules"),
    ("sequential.py", "simulation (ch. 4 shortcuts)"),
    ("engine.py", "simulation (engine events)"),
    ("simulator.py", "simulation (engine events)"),
    ("faircamp.py", "simulation (engine events)"),
    ("policies.py", "simulation (engine events)"),
    ("ostrich.py", "simulation (OStrich virtual clock)"),
    ("schedule.py:validate", "validation"),
    ("schedule.py:_check", "validation"),
    ("schedule.py:check_invariants", "validation"),
    ("schedule.py:virtual_capacity_area", "validation"),
    ("schedule.py:busy_area_inside", "validation"),
    ("metrics.py", "metrics"),
    ("swf.py", "trace parsing"),
    ("extract.py", "campaign extraction"),
    ("heapq", "simulation heaps"),
    ("numpy", "numpy calls"),
)


def phase_of(key: tuple[str, int, str]) -> str:
    """The phase of one profiled function ``(file, line, name)``."""
    name = f"{Path(key[0]).name}:{key[2]}" if key[0] != "~" else key[2]
    for pattern, phase in PHASES:
        if pattern in name:
            return phase
    return "other"


def profiled(cells: list[tuple[Callable[[dict[str, Any]], Any], dict[str, Any], float]]
             ) -> tuple[dict[str, float], float]:
    """Run ``(function, cell, weight)`` once under the profiler and once without; the
    weighted phase seconds (scaled to the unprofiled CPU) and the weighted CPU."""
    cpu = 0.0
    for fn, cell, weight in cells:
        t0 = time.process_time()
        fn(cell)
        cpu += weight * (time.process_time() - t0)
    share: dict[str, float] = defaultdict(float)
    for fn, cell, weight in cells:
        prof = cProfile.Profile(time.process_time)  # CPU, not wall: the machine is shared
        prof.enable()
        fn(cell)
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
    lines.append(f"| **total (cells)** | **{cpu:,.1f}** | 100% |")
    return "\n".join(lines) + "\n"


def faircamp_profile(sample: int) -> str:
    """The faircamp table: ``sample`` instances per k, extrapolated to 1,000."""
    from lpsched.campaigns.reproduce import faircamp_cell, faircamp_cells

    cells = faircamp_cells(instances=sample, first_seed=500)
    phases, cpu = profiled([(faircamp_cell, c, 1000 / sample) for c in cells])
    return table(f"faircamp, seed's size (5 k x 1,000 instances x 10,000 jobs), "
                 f"extrapolated from {sample} instances per k", phases, cpu)


def ostrich_profile(sample: int) -> str:
    """The ostrich table: the five EGEE replays, ``sample`` workloads per user count."""
    from lpsched.campaigns.reproduce import ostrich_cell, ostrich_cells

    trace = DATA / EGEE
    if not trace.exists():
        return f"### ostrich: skipped, {EGEE} not in {DATA}\n"
    cells = ostrich_cells(str(trace), instances=sample, first_seed=500)
    work = [(ostrich_cell, c, 1.0 if c["part"] == "egee" else 40 / sample) for c in cells]
    phases, cpu = profiled(work)
    return table(f"ostrich, seed's size (5 EGEE replays + 4 user counts x 40 workloads), "
                 f"extrapolated from {sample} workloads per user count", phases, cpu)


def main() -> int:
    """Print the tables of the experiments asked for."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=4, help="instances per k / user count")
    parser.add_argument("--experiments", default="faircamp,ostrich")
    args = parser.parse_args()
    import lpsched

    print(f"code: {Path(lpsched.__file__).parent}; load {os.getloadavg()[0]:.1f}\n")
    for name in args.experiments.split(","):
        fn = {"faircamp": faircamp_profile, "ostrich": ostrich_profile}[name]
        print(fn(args.sample), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
