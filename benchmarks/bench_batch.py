"""Batch simulator on the real SWF traces of shared/data: prints Markdown.

    python benchmarks/bench_batch.py [path/to/shared/data] [--repeats 3] [--quick]
                                     [--end-to-end-only] [--cli-repeats 5]

Two kinds of figures, always named as such:

* **end to end**: the installed ``lpsched batch TRACE --policy easy --alloc basic
  --out s.csv --json`` as a user runs it (Python start, imports, parsing, simulation,
  validation, metrics, CSV), in a subprocess, beside the plain simulator
  ``benchmarks/plain_easy.py`` (the EASY simulator a user writes in an afternoon, the
  same CSV byte for byte) on every trace and the textbook simulator
  ``benchmarks/textbook_easy.py`` on the small ones, alternated run by run so that all see
  the same load; wall and CPU (user + system) time and peak memory of each child, medians of
  ``--cli-repeats`` runs, with the load average before and after;
* **inner loop**: the simulation alone (``stats["seconds"]``), medians of ``--repeats`` runs;
  reading and validating are reported apart.

``--quick`` skips CEA-Curie; ``--end-to-end-only`` prints only the first table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from lpsched.batch.simulator import batch_metrics, simulate_batch, validate_batch
from lpsched.batch.topology import parse_topology
from lpsched.core.swf import Workload, read_swf, to_workload
from lpsched.core.versions import versions_report


def first(work: Workload, n: int) -> Workload:
    """The first ``n`` jobs of ``work``.

    Parameters
    ----------
    work : Workload
        A whole trace's jobs.
    n : int
        How many to keep.

    Returns
    -------
    Workload
        The prefix (its accounting unchanged).
    """
    k = slice(0, n)
    return replace(work, job=work.job[k], submit=work.submit[k], run=work.run[k],
                   size=work.size[k], estimate=work.estimate[k])


def timed(work: Workload, repeats: int, **kw: object) -> tuple[float, object, dict]:
    """Median seconds of the simulation alone over ``repeats`` runs.

    Parameters
    ----------
    work : Workload
        The jobs.
    repeats : int
        Runs.
    **kw
        :func:`simulate_batch`'s options.

    Returns
    -------
    tuple
        The median of ``stats["seconds"]``, the last schedule and its statistics.
    """
    times, out = [], None
    for _ in range(repeats):
        out = simulate_batch(work, **kw)  # type: ignore[arg-type]
        times.append(out[1]["seconds"])
    assert out is not None
    return statistics.median(times), out[0], out[1]


def child(argv: list[str]) -> tuple[float, float, float]:
    """Run ``argv`` (output discarded); its wall time, CPU time (user + system) and peak
    resident memory (MB), from ``wait4``.

    Parameters
    ----------
    argv : list of str
        The command.

    Returns
    -------
    tuple of float
        Wall seconds, CPU seconds (user + system), peak RSS (MB).
    """
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status:
        raise SystemExit(f"{argv} failed: {proc.stderr.read().decode()[-500:]}")  # type: ignore[union-attr]
    proc.stderr.close()  # type: ignore[union-attr]
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def end_to_end(data: Path, names: list[str], repeats: int, textbook_on: set[str]) -> None:
    """The end-to-end table (module doc).

    Parameters
    ----------
    data : Path
        The folder of the SWF traces.
    names : list of str
        Trace files to measure.
    repeats : int
        Runs of each command (the medians are printed).
    textbook_on : set of str
        The traces the textbook simulator also runs on (the small ones).
    """
    beside = Path(sys.executable).parent / "lpsched"  # this interpreter's venv first
    lpsched = (str(beside) if beside.exists() else shutil.which("lpsched")) or sys.exit(
        "the lpsched command is not installed (make demo, or pip install -e .)")
    textbook = str(Path(__file__).resolve().parent / "textbook_easy.py")
    plain = str(Path(__file__).resolve().parent / "plain_easy.py")
    print(f"## End to end: EASY, basic allocation, CSV and JSON written (median of {repeats}"
          " runs, alternated)")
    print()
    print(f"Load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{os.cpu_count()} CPUs.")
    print()
    print("| trace | command | wall (s) | CPU (s) | peak memory (MB) |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            path = data / name
            if not path.exists():
                continue
            runs: dict[str, list[tuple[float, float, float]]] = {"lpsched": [], "plain": [],
                                                                 "textbook": []}
            for _ in range(repeats):
                runs["lpsched"].append(child([sys.executable, lpsched, "batch", str(path),
                                              "--policy", "easy", "--alloc", "basic",
                                              "--out", f"{tmp}/s.csv", "--json"]))
                runs["plain"].append(child([sys.executable, plain, str(path), "--out",
                                            f"{tmp}/p.csv", "--json"]))
                if name in textbook_on:
                    runs["textbook"].append(child([sys.executable, textbook, str(path),
                                                   "--out", f"{tmp}/t.csv", "--json"]))
            for who, got in runs.items():
                if not got:
                    continue
                wall, cpu, mem = (statistics.median(x[i] for x in got) for i in range(3))
                command = {"lpsched": "lpsched batch --policy easy --alloc basic --out --json",
                           "plain": "benchmarks/plain_easy.py --out --json",
                           "textbook": "benchmarks/textbook_easy.py --out --json"}[who]
                print(f"| {name} | {command} | {wall:.2f} | {cpu:.2f} | {mem:.0f} |")
            for who in ("plain", "textbook"):
                if not runs[who]:
                    continue
                ratio_wall = statistics.median(s[0] / t[0] for s, t in zip(
                    runs["lpsched"], runs[who], strict=True))
                ratio_cpu = statistics.median(s[1] / t[1] for s, t in zip(
                    runs["lpsched"], runs[who], strict=True))
                print(f"| {name} | lpsched / {who}, run by run | {ratio_wall:.2f}x | "
                      f"{ratio_cpu:.2f}x | |")
    print()
    print(f"Load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}.")
    print()


def inner_loop(data: Path, names: list[str], repeats: int) -> dict[str, Workload]:
    """The inner-loop table of whole traces under the three policies (module doc).

    Parameters
    ----------
    data : Path
        The folder of the SWF traces.
    names : list of str
        Trace files to measure (absent ones are skipped).
    repeats : int
        Runs of each simulation (the median is printed).

    Returns
    -------
    dict
        Trace file -> its workload, for the tables that follow.
    """
    traces = {}
    print("## Inner loop: whole traces, basic allocation (the simulation alone, median of",
          repeats, "runs; reading and validation timed apart)")
    print()
    print(f"Load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}.")
    print()
    print("| trace | jobs | processors | policy | mean wait (s) | mean bounded slowdown | "
          "utilisation | seconds | jobs/s | validate (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        path = data / name
        if not path.exists():
            continue
        t0 = time.perf_counter()
        work = traces[name] = to_workload(read_swf(path))
        load = time.perf_counter() - t0
        m = int(work.processors)
        for policy in ("fcfs", "easy", "conservative"):
            if policy == "conservative" and name.startswith("CEA-Curie"):
                continue  # not a target; see RESULTS.md
            sec, sched, _ = timed(work, repeats, policy=policy)
            t1 = time.perf_counter()
            validate_batch(work, sched, m)
            check = time.perf_counter() - t1
            met = batch_metrics(work, sched, m)
            print(f"| {name} | {work.jobs} | {m} | {policy} | {met['mean_wait']:.0f} | "
                  f"{met['mean_bounded_slowdown']:.2f} | {met['utilisation']:.3f} | "
                  f"{sec:.2f} | {work.jobs / sec:.0f} | {check:.1f} |")
        print(f"| {name} | (reading and converting the trace: {load:.2f} s) "
              "| | | | | | | | |")
    return traces


def gaia_tables(gaia: Workload, repeats: int) -> None:
    """The two UniLu-Gaia tables: conservative's compression rules, EASY's allocators.

    Parameters
    ----------
    gaia : Workload
        The UniLu-Gaia trace's jobs.
    repeats : int
        Runs of each allocator's simulation (the median is printed).
    """
    print()
    print("## Inner loop: conservative on UniLu-Gaia, what happens when jobs end early "
          "(the simulation alone, one run each)")
    print()
    print("| compression | mean wait (s) | utilisation | jobs after their first "
          "reservation | seconds |")
    print("|---|---|---|---|---|")
    for comp in ("textbook", "reassign", "rebuild", "none"):
        sec, sched, stats = timed(gaia, 1, policy="conservative", compression=comp)
        met = batch_metrics(gaia, sched, int(gaia.processors))
        late = int((sched.start > stats["first_reservation"] + 1e-6).sum())
        print(f"| {comp} | {met['mean_wait']:.0f} | {met['utilisation']:.3f} | {late} | "
              f"{sec:.2f} |")
    print()
    print("## Inner loop: EASY on UniLu-Gaia with each allocator (fat-tree:16,4,4,8; the "
          "simulation alone, median of",
          repeats, "runs)")
    print()
    print("| alloc | seconds | jobs/s | mean wait (s) | locality factor | "
          "platform level factor |")
    print("|---|---|---|---|---|---|")
    topo = parse_topology("fat-tree:16,4,4,8", int(gaia.processors))
    for alloc in ("basic", "becont", "cont", "beloc", "loc", "beplat", "plat",
                  "contiguous", "quasi-contiguous"):
        sec, sched, _ = timed(gaia, repeats, policy="easy", alloc=alloc, topology=topo)
        validate_batch(gaia, sched, topo.installed, topology=topo, forced=alloc)
        met = batch_metrics(gaia, sched, topo.installed, topology=topo)
        print(f"| {alloc} | {sec:.2f} | {gaia.jobs / sec:.0f} | {met['mean_wait']:.0f} | "
              f"{met['locality_factor']:.3f} | {met['platform_level_factor']:.3f} |")


def curie_growth(curie: Workload, repeats: int) -> None:
    """The growth table: EASY on the first N jobs of CEA-Curie, and the fitted exponent.

    Parameters
    ----------
    curie : Workload
        The CEA-Curie trace's jobs.
    repeats : int
        Runs of each prefix's simulation (the median is printed).
    """
    print()
    print("## Inner loop: growth with the number of jobs, EASY on the first N jobs of "
          "CEA-Curie "
          f"(median of {repeats})")
    print()
    print("| jobs | seconds | jobs/s | microseconds per job |")
    print("|---|---|---|---|")
    sizes, secs = (10_000, 50_000, 100_000, 300_000), []
    for n in sizes:
        sec, _, _ = timed(first(curie, n), repeats, policy="easy")
        secs.append(sec)
        print(f"| {n} | {sec:.2f} | {n / sec:.0f} | {1e6 * sec / n:.1f} |")
    slope = np.polyfit(np.log(sizes), np.log(secs), 1)[0]
    print()
    print(f"Time grows as jobs^{slope:.2f} (least-squares slope of log time on log jobs).")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", nargs="?",
                    default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cli-repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--end-to-end-only", action="store_true")
    args = ap.parse_args()
    print("Measured with:\n" + versions_report("- ") + "\n")
    data = Path(args.data)
    names = ["hpc2n-excerpt.swf", "lublin_256.swf", "UniLu-Gaia-2014-1.swf"]
    if not args.quick:
        names.append("CEA-Curie-2011-2.1-cln.swf.gz")
    end_to_end(data, names, args.cli_repeats, set(names[:3]))
    if args.end_to_end_only:
        return
    traces = inner_loop(data, names, args.repeats)
    gaia = traces.get("UniLu-Gaia-2014-1.swf")
    if gaia is not None:
        gaia_tables(gaia, args.repeats)
    curie = traces.get("CEA-Curie-2011-2.1-cln.swf.gz")
    if curie is not None:
        curie_growth(curie, args.repeats)

if __name__ == "__main__":
    main()
