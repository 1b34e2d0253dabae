"""Where the CPU of ``lpsched reproduce ptg`` goes: one Markdown table per size (phase, CPU s,
share).

    .venv/bin/python benchmarks/profile_ptg.py                    # the whole study, sampled
    .venv/bin/python benchmarks/profile_ptg.py --sample 2 --reduced 60 12
    /work/old/.venv/bin/python benchmarks/profile_ptg.py ...      # another checkout's code

**The seed's size** (1,500 scenarios x 19 algorithms): a stratified sample of cells at full
size, ``--sample K`` cells of each of the 60 (class, ``N``, cluster) combinations (sets
``(7j + r) mod 25``), each standing for ``25 / K`` cells of its combination; the sum is the
extrapolation to the 1,500 cells (said in the table's title). Each cell runs in one process
after the others, as ``--jobs 1`` runs it, so what one cell leaves in a cache for the next
counts as it does in a real run (the sample's cells are far apart, so it shares less than a
whole run does: the extrapolation is an upper bound of the cells' CPU).

**Reduced runs** (``--reduced S ...``): the whole command ``lpsched reproduce ptg
--scenarios S --jobs 1 --no-figures --quiet`` in this process (the store, the summary, the
seed-vs-ours table included), then the interpreter's start and the imports measured apart in
a child process.

The phases are charged by wrapping functions of the interpreter's ``lpsched`` (any checkout:
a name that is not there is left out): the CPU between entering and leaving a wrapped
function goes to the innermost one (``phase / kernel``: the kernel is the innermost
allocation or mapping loop inside the phase). The wrappers cost about a microsecond a call.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

#: (module, attribute, phase): the outer phases, exclusive of each other
PHASES = (
    ("lpsched.ptg.reproduce", "problem_of", "graphs and problem"),
    ("lpsched.ptg.bounds", "lower_bounds", "lower bounds (two LPs)"),
    ("lpsched.ptg.cafm", "moldable_spec", "moldable specification"),
    ("lpsched.ptg.mapping", "backfill", "BACKFILL"),
    ("lpsched.ptg.schedule", "validate", "validation"),
    ("lpsched.ptg.schedule", "metrics", "metrics and utilisation"),
    ("lpsched.ptg.schedule", "utilisation_readings", "metrics and utilisation"),
    ("lpsched.ptg.reproduce", "summary", "summary (Figs, Table 2, noise)"),
    ("lpsched.ptg.fidelity", "ptg_table", "seed-vs-ours table"),
    ("lpsched.core.store", "ResultStore.add", "store"),
    ("lpsched.core.store", "ResultStore.rows_of", "store"),
    ("lpsched.cli.common", "write_rows_csv", "store"),
)
#: the standalone HCPA runs of a problem (cached properties of ``Problem``)
STANDALONE = ("trajectories", "selfish_alloc", "alone")
#: (module, attribute, kernel): the inner loops, charged inside their phase
KERNELS = (
    ("lpsched.ptg.hcpa_literal", "literal_alloc", "HCPA literal loop"),
    ("lpsched.ptg.hcpa_loop", "run_hcpa", "HCPA gain loop"),
    ("lpsched.ptg.mstatic", "m_static", "M-STATIC"),
    ("lpsched.ptg.mstatic", "hcpa_makespans", "M-STATIC makespans"),
    ("lpsched.ptg.mapping", "m_ready", "M-READY"),
    ("lpsched.ptg.mapping", "m_rigid", "M_RIGID"),
    ("lpsched.approx.moldable", "mrt", "MRT"),
    ("lpsched.approx.moldable", "kshelf", "K-shelf"),
    ("lpsched.solvers.highs", "solve_highs", "HiGHS"),
)


class Ledger:
    """CPU seconds per (phase, kernel), charged to the innermost wrapped call."""

    def __init__(self) -> None:
        self.cpu: dict[tuple[str, str], float] = defaultdict(float)
        self.stack: list[tuple[str, str]] = [("cell rest (rows, run())", "-")]
        self.mark = time.process_time()
        self.weight = 1.0

    def _flush(self) -> None:
        now = time.process_time()
        self.cpu[self.stack[-1]] += (now - self.mark) * self.weight
        self.mark = now

    @contextlib.contextmanager
    def enter(self, phase: str | None, kernel: str | None) -> Iterator[None]:
        """Charge what runs inside to ``phase`` (or the current one) and ``kernel``."""
        self._flush()
        top = self.stack[-1]
        self.stack.append((phase or top[0], kernel or (top[1] if phase is None else "-")))
        try:
            yield
        finally:
            self._flush()
            self.stack.pop()

    def close(self) -> None:
        """Charge the time since the last call to the bottom of the stack."""
        self._flush()


def _wrap(fn: Callable[..., Any], ledger: Ledger, phase: str | None,
          kernel: str | None) -> Callable[..., Any]:
    @functools.wraps(fn)
    def inner(*args: Any, **kwargs: Any) -> Any:
        with ledger.enter(phase, kernel):
            return fn(*args, **kwargs)
    inner.__wrapped_for_profile__ = True  # type: ignore[attr-defined]
    return inner


def _replace_everywhere(old: Any, new: Any) -> None:
    """Put ``new`` wherever a loaded lpsched module (or the algorithm registry) holds
    ``old``."""
    for name, mod in list(sys.modules.items()):
        if not name.startswith("lpsched") or mod is None:
            continue
        for attr, value in list(vars(mod).items()):
            if value is old:
                setattr(mod, attr, new)
    try:
        from lpsched.ptg.registry import ALGORITHMS
    except ImportError:
        return
    for key, value in ALGORITHMS.items():
        if value is old:
            ALGORITHMS[key] = new


#: the one ledger every wrapper charges (:func:`instrument` runs once)
LEDGER = Ledger()
_MISSING: list[str] = []


def instrument() -> list[str]:
    """Wrap every phase and kernel found in the loaded ``lpsched`` (once); the names not
    found."""
    if _MISSING[:1] == ["done"]:
        return _MISSING[1:]
    import importlib

    import lpsched.cli.common  # every module the run uses, loaded first
    import lpsched.cli.ptg
    import lpsched.ptg.reproduce  # noqa: F401
    from lpsched.ptg import registry

    ledger = LEDGER

    missing = []
    for table, is_phase in ((PHASES, True), (KERNELS, False)):
        for modname, attr, label in table:
            try:
                mod = importlib.import_module(modname)
            except ImportError:
                missing.append(f"{modname}.{attr}")
                continue
            owner: Any = mod
            *path, last = attr.split(".")
            for part in path:
                owner = getattr(owner, part)
            fn = getattr(owner, last, None)
            if fn is None or getattr(fn, "__wrapped_for_profile__", False):
                if fn is None:
                    missing.append(f"{modname}.{attr}")
                continue
            new = _wrap(fn, ledger, label if is_phase else None,
                        None if is_phase else label)
            setattr(owner, last, new)
            if owner is mod:
                _replace_everywhere(fn, new)
    from lpsched.ptg.problem import Problem

    for prop in STANDALONE:
        cp = Problem.__dict__.get(prop)
        if cp is not None:
            cp.func = _wrap(cp.func, ledger, "standalone HCPA (C*_i)", None)
    for name, fn in list(registry.ALGORITHMS.items()):
        registry.ALGORITHMS[name] = _wrap(fn, ledger, "algorithms (allocation, mapping)",
                                          None)
    _MISSING[:] = ["done", *missing]
    return missing


def stratified(sample: int) -> list[tuple[Any, float]]:
    """``sample`` cells of each (class, ``N``, cluster) combination of the study, each with
    the number of the study's cells it stands for."""
    from lpsched.ptg import reproduce as exp

    by_combo: dict[tuple[Any, ...], dict[int, Any]] = defaultdict(dict)
    for c in exp.cells(1500):
        by_combo[(c[0], c[1], c[3])][c[2]] = c
    out = []
    for j, combo in enumerate(sorted(by_combo)):
        sets = by_combo[combo]
        picks = sorted({(7 * j + r) % len(sets) for r in range(sample)})
        out += [(sets[k], len(sets) / len(picks)) for k in picks]
    return out


def table(title: str, cpu: dict[tuple[str, str], float], extra: dict[str, float]) -> str:
    """The Markdown table of one experiment."""
    rows = {(p if k == "-" else f"{p} / {k}"): v for (p, k), v in cpu.items()}
    rows.update(extra)
    total = sum(rows.values())
    lines = [f"### {title}", "", "| phase | CPU s | share |", "|---|---:|---:|"]
    for name, v in sorted(rows.items(), key=lambda kv: -kv[1]):
        if v >= 0.0005 * total:
            lines.append(f"| {name} | {v:.1f} | {100 * v / total:.1f} % |")
    lines.append(f"| **total** | **{total:.1f}** | 100 % |")
    return "\n".join(lines)


def profile_full(sample: int) -> str:
    """The seed's size, extrapolated from the stratified sample."""
    from lpsched.ptg import reproduce as exp

    picks = stratified(sample)
    missing = instrument()
    ledger = LEDGER
    ledger.stack[0] = ("cell rest (rows, run())", "-")
    ledger.close()
    ledger.cpu.clear()
    t0 = time.process_time()
    for cell, weight in picks:
        ledger.close()
        ledger.weight = weight
        exp.cell_rows(cell)
        ledger.close()
    ledger.weight = 1.0
    own = time.process_time() - t0
    title = (f"reproduce ptg, 1,500 scenarios x 19 algorithms: {len(picks)} cells measured "
             f"({own:.1f} s CPU), extrapolated to the 1,500 by their combination's count")
    note = f"\n\n(not in this checkout: {', '.join(missing)})" if missing else ""
    return table(title, ledger.cpu, {}) + note


def startup_cpu() -> float:
    """CPU of a child interpreter that only imports what the command imports."""
    code = ("import lpsched.cli, lpsched.cli.common, lpsched.ptg.reproduce, "
            "lpsched.ptg.fidelity")
    best = []
    for _ in range(3):
        import resource

        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", code], check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return sorted(best)[1]


def profile_reduced(scenarios: int) -> str:
    """One whole reduced run in this process (phases), plus the start-up measured apart."""
    from lpsched.cli import main

    missing = instrument()
    ledger = LEDGER
    ledger.stack[0] = ("command rest (CLI, runner)", "-")
    with tempfile.TemporaryDirectory() as out:
        ledger.close()
        ledger.cpu.clear()
        t0 = time.process_time()
        with contextlib.redirect_stdout(sys.stderr):
            main(["reproduce", "ptg", "--scenarios", str(scenarios), "--out", out, "--jobs",
                  "1", "--no-figures", "--quiet"])
        ledger.close()
        own = time.process_time() - t0
    start = startup_cpu()
    title = (f"reproduce ptg --scenarios {scenarios} --jobs 1 --no-figures: {own:.1f} s CPU "
             f"in the command, {start:.2f} s start-up and imports")
    note = f"\n\n(not in this checkout: {', '.join(missing)})" if missing else ""
    return table(title, ledger.cpu, {"start-up and imports (child interpreter)": start}) \
        + note


def kernels() -> str:
    """Which literal-HCPA loop and which BACKFILL this checkout runs."""
    from lpsched.ptg import hcpa_literal, mapping

    which = getattr(hcpa_literal, "kernel_in_use", None)
    literal = which() if which else "python (no compiled loop in this checkout)"
    if getattr(mapping, "_backfill_c", None) is None:
        bf = "python (no compiled BACKFILL)"
    else:
        bf = "python (LPSCHED_PURE_PYTHON is set)" if literal.startswith("python (LPSCHED") \
            else "compiled"
    return f"literal HCPA loop {literal}; BACKFILL {bf}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=1,
                        help="cells per (class, N, cluster) combination (default 1: 60 cells)")
    parser.add_argument("--reduced", type=int, nargs="*", default=[],
                        help="also profile whole reduced runs of these sizes")
    parser.add_argument("--no-full", action="store_true", help="skip the sampled full size")
    args = parser.parse_args()
    from lpsched.core.versions import versions_report

    print(versions_report())
    import os

    print(f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    print(f"kernels: {kernels()}\n")
    for s in args.reduced:  # first: the sampled run's caches would serve it
        print(profile_reduced(s), "\n", flush=True)
    if not args.no_full:
        print(profile_full(args.sample), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
