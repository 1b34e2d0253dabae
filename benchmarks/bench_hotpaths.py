"""Every family's hot path as a user runs it, beside the plain way, against the speed goal
(what `make bench` runs; under 5 minutes on the 2-core machine).

    python benchmarks/bench_hotpaths.py [--data ../shared/data] [--repeats 3]
                                        [--rows batch-gaia,batch-curie,online,maxstretch]

Each figure is a whole command in a child process (Python start, imports, reading, work,
validation and output included): wall and CPU time (user + system) and peak resident memory
from ``wait4``, medians of ``--repeats`` runs, lpsched and the plain way alternated run by
run so that both see the same load; the load average is printed before and after. The
installed package's bytecode is written first, as ``pip install`` writes it (decision 437:
a user's commands read compiled modules; a shell with ``PYTHONDONTWRITEBYTECODE`` set
would otherwise compile every lpsched module in every measured run). Rows:

* ``batch-gaia``, ``batch-curie``: ``lpsched batch TRACE --policy easy --alloc basic --out
  jobs.csv --json`` beside ``benchmarks/plain_easy.py TRACE --out plain.csv --json`` (the
  afternoon simulator: a heap of ends, a free counter, the shadow sweep, ``csv``); the two
  CSV files must be equal byte for byte (same start times, same processors), else the row
  says so and the script exits 1. Goals: CPU ratio <= 0.5 (Gaia), <= 0.25 and peak <= 200 MB
  (Curie).
* ``online``: ``lpsched online INSTANCE --policy spt-rd --json`` (bounds included) on a
  60-day window of CEA-Curie made once by ``lpsched tasks`` outside the timing. Goal: <= 3 s
  CPU.
* ``maxstretch``: ``lpsched solve`` on ``lpsched generate bags --profile balanced --apps 100
  --workers 20 --seed S`` (one-port) for seeds 0-4: the whole command, and beside it the
  named inner loop, the CPU time of ``max_stretch(inst)`` alone in a child (median over
  runs, then over seeds). Goal: median search <= 1.5 s CPU.

A trace missing from the data folder skips its rows and says so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _measure import Run, compile_package, load, lpsched_command, measure, median_run

HERE = Path(__file__).resolve().parent
GAIA, CURIE = "UniLu-Gaia-2014-1.swf", "CEA-Curie-2011-2.1-cln.swf.gz"
#: the online row's instance: a 60-day window of Curie (seed 000 ch. 3, method C)
ONLINE_TASKS = ["--window", "random:60d", "--seed", "1"]  # 71,756 tasks, 96 CPUs
ROWS = ("batch-gaia", "batch-curie", "online", "maxstretch")


def _versions() -> str:
    run = measure([*lpsched_command(), "--version", "--verbose"])
    return run.stdout.decode().strip()


def _blas() -> str:
    """The BLAS threads setting the children inherit (decision 436)."""
    value = os.environ.get("OPENBLAS_NUM_THREADS")
    return ("OPENBLAS_NUM_THREADS not set (lpsched sets 1 for its own process; "
            "plain_easy.py keeps OpenBLAS's default)" if value is None
            else f"OPENBLAS_NUM_THREADS={value} for every command")


def batch_row(trace: Path, repeats: int, tmp: str, goal_ratio: float,
              goal_mb: float | None) -> tuple[list[str], bool]:
    """The table lines of one batch trace and whether the two schedules are identical."""
    ours_cmd = [*lpsched_command(), "batch", str(trace), "--policy", "easy", "--alloc", "basic",
                "--out", f"{tmp}/jobs.csv", "--json"]
    plain_cmd = [sys.executable, str(HERE / "plain_easy.py"), str(trace),
                 "--out", f"{tmp}/plain.csv", "--json"]
    ours: list[Run] = []
    plain: list[Run] = []
    for _ in range(repeats):
        ours.append(measure(ours_cmd))
        plain.append(measure(plain_cmd))
    same = Path(f"{tmp}/jobs.csv").read_bytes() == Path(f"{tmp}/plain.csv").read_bytes()
    o, p = median_run(ours), median_run(plain)
    ratio = statistics.median(a.cpu / b.cpu for a, b in zip(ours, plain, strict=True))
    verdict = f"CPU ratio <= {goal_ratio}: {'met' if ratio <= goal_ratio else 'not met'}"
    if goal_mb is not None:
        verdict += f"; <= {goal_mb:.0f} MB: {'met' if o.peak_mb <= goal_mb else 'not met'}"
    name = trace.name
    return ([f"| batch EASY, {name} | lpsched batch | {o.wall:.2f} | {o.cpu:.2f} | "
             f"{o.peak_mb:.0f} | |",
             f"| batch EASY, {name} | plain_easy.py | {p.wall:.2f} | {p.cpu:.2f} | "
             f"{p.peak_mb:.0f} | |",
             f"| batch EASY, {name} | lpsched / plain, CPU, run by run | | {ratio:.2f}x | | "
             f"{verdict}; schedules "
             f"{'identical' if same else 'DIFFER'} |"], same)


def online_row(data: Path, repeats: int, tmp: str) -> list[str]:
    """The table lines of the online row."""
    inst = f"{tmp}/curie60.json"
    made = measure([*lpsched_command(), "tasks", str(data / CURIE), *ONLINE_TASKS,
                    "-o", inst, "--json"])
    info = json.loads(made.stdout)
    cmd = [*lpsched_command(), "online", inst, "--policy", "spt-rd", "--json"]
    run = median_run([measure(cmd) for _ in range(repeats)])
    ok = run.cpu <= 3.0
    return [f"| online spt-rd, Curie 60 days ({info['tasks']:,} tasks, "
            f"{info['processors']} processors), bounds | lpsched online | {run.wall:.2f} | "
            f"{run.cpu:.2f} | {run.peak_mb:.0f} | <= 3 s CPU: {'met' if ok else 'not met'} |"]


#: the named inner loop of the max-stretch row: CPU seconds of ``max_stretch(inst)`` alone
_SEARCH_CPU = ("import sys, time; from lpsched import load_instance, max_stretch; "
               "inst = load_instance(sys.argv[1]); t = time.process_time(); "
               "max_stretch(inst); print(time.process_time() - t)")


def maxstretch_row(repeats: int, tmp: str, seeds: range = range(5)) -> list[str]:
    """The table lines of the max-stretch row (median over seeds of the median run)."""
    search, whole = [], []
    for s in seeds:
        inst = f"{tmp}/b{s}.json"
        measure([*lpsched_command(), "generate", "bags", "--profile", "balanced", "--apps",
                 "100", "--workers", "20", "--seed", str(s), "-o", inst])
        runs = [measure([*lpsched_command(), "solve", inst, "--json"]) for _ in range(repeats)]
        inner = [measure([sys.executable, "-c", _SEARCH_CPU, inst]) for _ in range(repeats)]
        search.append(statistics.median(float(r.stdout) for r in inner))
        whole.append(median_run(runs))
    w = median_run(whole)
    med = statistics.median(search)
    return [f"| max-stretch, balanced 100x20 one-port, seeds 0-{seeds[-1]} | lpsched solve | "
            f"{w.wall:.2f} | {w.cpu:.2f} | {w.peak_mb:.0f} | search (`max_stretch(inst)`) "
            f"median {med:.2f} s CPU (<= 1.5 s: {'met' if med <= 1.5 else 'not met'}) |"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(HERE.parent.parent / "shared" / "data"),
                    help="the SWF traces folder (default: ../shared/data)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per figure (median)")
    ap.add_argument("--rows", default=",".join(ROWS), help="which rows, comma-separated")
    args = ap.parse_args(argv)
    rows = args.rows.split(",")
    unknown = set(rows) - set(ROWS)
    if unknown:
        ap.error(f"unknown rows {sorted(unknown)}; choose from {', '.join(ROWS)}")
    data = Path(args.data)
    compiled = compile_package()
    print(_versions())
    print()
    print(f"Python start: {compiled}; {_blas()}.")
    print()
    print(f"Before: {load()}.")
    print()
    print("| work | command | wall (s) | CPU (s) | peak (MB) | goal |")
    print("|---|---|---|---|---|---|")
    identical = True
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            if row.startswith("batch"):
                name, ratio, mb = ((GAIA, 0.5, None) if row == "batch-gaia"
                                   else (CURIE, 0.25, 200.0))
                if not (data / name).exists():
                    print(f"| batch EASY, {name} | skipped: not in {data} | | | | |")
                    continue
                lines, same = batch_row(data / name, args.repeats, tmp, ratio, mb)
                identical &= same
            elif row == "online":
                if not (data / CURIE).exists():
                    print(f"| online spt-rd | skipped: {CURIE} not in {data} | | | | |")
                    continue
                lines = online_row(data, args.repeats, tmp)
            else:
                lines = maxstretch_row(args.repeats, tmp)
            print("\n".join(lines), flush=True)
    print()
    print(f"After: {load()}.")
    return 0 if identical else 1


if __name__ == "__main__":
    raise SystemExit(main())
