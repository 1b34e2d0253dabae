"""`lpsched reproduce all` on a Dask cluster of 1, 2, 3, ... single-threaded worker
processes: cells per second against workers, and the same rows on every cluster.

    python benchmarks/bench_dask_scaling.py [--workers 1 2 3 4] [--repeats 1] [-- ARGS]

ARGS (default ``--reduced``) are passed to ``lpsched reproduce all`` after
``--executor``, ``--out``, ``--json`` and ``--no-report``, which this script adds. Each run
is the installed command as a subprocess with a fresh output folder, on a cluster started
before (its start is not timed); a run's wall time includes Python's start, planning every
experiment, shipping the cells to the workers and writing the stores. Cells per second =
the cells the run computed / its wall time. The stores' rows (timings left out) of every run
are compared with the first run's. On a machine of C cores the rate cannot grow past C
workers: the table says how many cores the machine has, so a reader sees where the curve
must flatten.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_executors import start_dask


def store_rows(folder: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every store's rows in ``folder``, sorted, timing columns (``*seconds*``) left out."""
    out = {}
    for path in sorted(folder.glob("*.sqlite")):
        con = sqlite3.connect(path)
        for (table,) in con.execute("select name from sqlite_master where type='table' "
                                    "and name not like 'sqlite_%' and name not like '\\_%' "
                                    "escape '\\'"):
            cols = [c[1] for c in con.execute(f'pragma table_info("{table}")')
                    if "seconds" not in c[1] and c[1] != "_extra"]
            quoted = ", ".join(f'"{c}"' for c in cols)
            out[f"{path.name}:{table}"] = sorted(
                tuple(r) for r in con.execute(f'select {quoted} from "{table}"'))
        con.close()
    return out


def one_run(address: str, args: list[str], out: Path) -> tuple[float, int]:
    """Wall seconds and cells computed of one ``reproduce all`` run into a fresh ``out``."""
    shutil.rmtree(out, ignore_errors=True)
    lpsched = str(Path(sys.executable).parent / "lpsched")
    t0 = time.perf_counter()
    proc = subprocess.run([lpsched, "reproduce", "all", *args, "--executor", address,
                           "--out", str(out), "--json", "--no-report", "--quiet"],
                          check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    summary = json.loads(proc.stdout)
    return wall, sum(e["computed_now"] for e in summary["experiments"].values())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("args", nargs=argparse.REMAINDER)
    ns = ap.parse_args()
    args = [a for a in ns.args if a != "--"] or ["--reduced"]
    print(f"`lpsched reproduce all {' '.join(args)}` on a Dask cluster, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}\n")
    print("| workers | cells | wall s (median) | cells/s | speed-up | same rows |")
    print("|---:|---:|---:|---:|---:|:---:|")
    first: dict[str, list[tuple[object, ...]]] | None = None
    base = None
    with tempfile.TemporaryDirectory() as tmp:
        for workers in ns.workers:
            procs, address = start_dask(workers)
            try:
                walls, cells = [], 0
                for k in range(ns.repeats):
                    wall, cells = one_run(address, args, Path(tmp) / f"w{workers}-{k}")
                    walls.append(wall)
                rows = store_rows(Path(tmp) / f"w{workers}-0")
            finally:
                for p in procs:
                    p.terminate()
                    p.wait()
            first = first if first is not None else rows
            wall = statistics.median(walls)
            base = base or cells / wall
            print(f"| {workers} | {cells} | {wall:.1f} | {cells / wall:.2f} | "
                  f"{cells / wall / base:.2f} | {'yes' if rows == first else 'NO'} |",
                  flush=True)


if __name__ == "__main__":
    main()
