"""Where the CPU of the batch reproductions goes: one Markdown table per experiment (phase,
CPU s, share), from a sample of cells at the seed's size.

    .venv/bin/python benchmarks/profile_batch.py                         # every experiment
    .venv/bin/python benchmarks/profile_batch.py --only platform-level --sample 1
    /work/old/.venv/bin/python benchmarks/profile_batch.py ...           # another checkout

**The seed's size**: ``platform-level`` (seed 000 ch. 5: six platforms x 30 instances x seven
allocators), ``topology-aware`` (seed 001: three whole traces x 112 cells) and ``contiguity``
(seed 000 ch. 4: 512 instances x six cells). ``--sample K`` cells of each (trace, allocator)
group run at full size, one after the other in this process (as ``--jobs 1`` runs them, so
the trace parsed by the first cell is reused by the next); each stands for its group's
cells, and the table's total is that extrapolation (said in its title), plus the building
of the cells (the traces parsed once), counted once as in one process. The cells are the
reproduction's own (:func:`lpsched.batch.reproduce.platform_cell` and the others), without
the store and the progress line.

The phases are charged by wrapping functions of the interpreter's ``lpsched`` (a name missing
from a checkout is left out): the CPU between entering and leaving a wrapped function goes to
the innermost one. The wrappers cost about a microsecond a call (the simulator's inner
functions run 10^5-10^6 times a cell: the table's total is a few percent above the cells'
own CPU).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: (module, attribute, phase); the innermost wrapped function running is charged
PHASES = (
    ("lpsched.core.swf", "read_swf", "trace parsing"),
    ("lpsched.core.swf", "to_workload", "trace parsing"),
    ("lpsched.batch.reproduce", "subset", "instance drawing"),
    ("lpsched.batch.simulator", "simulate_batch", "simulator: event loop and queue"),
    ("lpsched.batch.simulator", "_BatchSim.fixed_pass", "conservative: pass and turns"),
    ("lpsched.batch.simulator", "_BatchSim.movable", "conservative: movable test"),
    ("lpsched.batch.simulator", "Profile.add", "conservative: plan edits"),
    ("lpsched.batch.simulator", "Profile.trim", "conservative: plan edits"),
    ("lpsched.batch.simulator", "Profile.earliest", "conservative: plan searches"),
    ("lpsched.batch.simulator", "_earlier_fit", "conservative: plan searches"),
    ("lpsched.batch.simulator", "_BatchSim.easy_backfill", "EASY: backfilling scan"),
    ("lpsched.batch.simulator", "_BatchSim.kill_for_head", "EASY: kill of advanced jobs"),
    ("lpsched.batch.simulator", "_BatchSim.begin_mask", "start/end: mask and counts"),
    ("lpsched.batch.simulator", "_BatchSim.finish_mask", "start/end: mask and counts"),
    ("lpsched.batch.simulator", "_BatchSim.take_python", "start/end: mask and counts"),
    ("lpsched.batch.simulator", "_BatchSim.penalised", "start/end: placement penalty"),
    ("lpsched.batch.allocation", "allocate", "allocators"),
    ("lpsched.batch.allocation", "placeable", "allocators: placeable test"),
    ("lpsched.batch.validation", "validate_batch", "validation"),
    ("lpsched.batch.schedule", "batch_metrics", "metrics"),
    ("lpsched.batch.schedule", "above_min_level", "metrics"),
    ("lpsched.approx.packing", "nfdh_ls", "NFDH+LS"),
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SPEEDUPS = [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50]


class Charger:
    """Exclusive CPU per phase: a stack of the wrapped functions running."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.stack: list[str] = ["cell: the rest (rows, topology, setup)"]
        self.mark = time.process_time()

    def wrap(self, fn: Callable[..., Any], phase: str) -> Callable[..., Any]:
        """``fn`` charging its exclusive CPU to ``phase``."""

        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            now = time.process_time()
            self.cpu[self.stack[-1]] += now - self.mark
            self.mark = now
            self.stack.append(phase)
            try:
                return fn(*args, **kwargs)
            finally:
                now = time.process_time()
                self.cpu[self.stack.pop()] += now - self.mark
                self.mark = now

        return inner


def install(charger: Charger) -> None:
    """Wrap every function of :data:`PHASES` the checkout has (also where it is imported)."""
    for module, attr, phase in PHASES:
        try:
            mod = importlib.import_module(module)
        except ImportError:
            continue
        owner: Any = mod
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part, None)
        if owner is None or not hasattr(owner, name):
            continue
        original = getattr(owner, name)
        wrapped = charger.wrap(original, phase)
        setattr(owner, name, wrapped)
        if not path:  # the modules that imported it by name
            for other in list(sys.modules.values()):
                if getattr(other, "__name__", "").startswith("lpsched.") and \
                        getattr(other, name, None) is original:
                    setattr(other, name, wrapped)


def sample_cells(name: str, k: int) -> tuple[list[tuple[list[Any], float]], Any]:
    """``k`` cells of each (trace, allocator) group, each with the cells it stands for."""
    from lpsched.batch import reproduce as exp

    out: list[tuple[list[Any], float]] = []
    if name == "platform-level":
        for spec in exp.CH5_PLATFORMS.values():
            cells = exp.platform_cells(str(DATA / spec[0]), 30)
            for alloc in exp.PLATFORM_ALLOCS:
                mine = [c for c in cells if c[6] == alloc]
                out += [(c, len(mine) / k) for c in mine[:: max(1, len(mine) // k)][:k]]
        return out, exp.platform_cell
    if name == "topology-aware":
        for trace in exp.SEED001_TRACES.values():
            cells = exp.topology_cells(str(DATA / trace), SPEEDUPS)
            groups: dict[tuple[str, str], list[list[Any]]] = defaultdict(list)
            for c in cells:
                groups[(c[3], c[4])].append(c)
            for mine in groups.values():
                out += [(c, len(mine) / k) for c in mine[:: max(1, len(mine) // k)][:k]]
        return out, exp.topology_cell
    cells = exp.contiguity_cells(str(DATA / exp.CH4_DEFAULTS["trace"]))  # type: ignore
    for alloc in (*exp.CONTIGUITY_ALLOCS, "nfdh-ls"):
        mine = [c for c in cells if c[5] == alloc]
        out += [(c, len(mine) / k) for c in mine[:: max(1, len(mine) // k)][:k]]
    return out, exp.contiguity_cell


def profile(name: str, k: int) -> str:
    """The Markdown table of one experiment (its sample run now)."""
    charger = Charger()
    install(charger)
    t0 = time.process_time()
    cells, fn = sample_cells(name, k)
    total: dict[str, float] = defaultdict(float)
    # the traces parsed and the cells built, once per process (as the CLI does)
    total["building the cells (the traces parsed once)"] = time.process_time() - t0
    sampled = 0.0
    for cell, weight in cells:
        charger.cpu.clear()
        charger.mark = time.process_time()
        fn(cell)
        charger.cpu[charger.stack[-1]] += time.process_time() - charger.mark
        for phase, cpu in charger.cpu.items():
            total[phase] += cpu * weight
            sampled += cpu
    whole = sum(total.values())
    lines = [f"### {name}: {len(cells)} cells sampled ({sampled:.1f} CPU s), extrapolated "
             f"to the seed's size: {whole:.0f} CPU s", "", "| phase | CPU s | share |",
             "|---|---:|---:|"]
    for phase, cpu in sorted(total.items(), key=lambda kv: -kv[1]):
        lines.append(f"| {phase} | {cpu:.1f} | {cpu / whole:.1%} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", default=["platform-level", "topology-aware",
                                                      "contiguity"])
    parser.add_argument("--sample", type=int, default=1, help="cells per group (default 1)")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"the seeds' traces are not in {DATA}", file=sys.stderr)
        return 2
    for name in args.only:
        print(profile(name, args.sample), "\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
