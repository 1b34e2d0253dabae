"""One reproduction, end to end, on each executor of the runner: 1 and 2 local processes and
a Dask cluster of 2 single-threaded workers: the speed-up measured on Dask.

    python benchmarks/bench_executors.py [--repeats 3] -- reproduce redirection \
        --traces KTH-SP2,SDSC-Blue-4.1,HPC2N --instances 4

Everything after ``--`` is an ``lpsched`` command line without ``--jobs``, ``--executor``
and ``--out``, which this script adds. Each run is the installed ``lpsched`` as a
subprocess with a fresh output folder, so a time includes Python's start, reading the
traces, every cell and the CSV/plots, as a user sees it; the Dask runs also include
shipping the cells to the workers but not starting the cluster (started once, before).
Runs are interleaved (1, 2, Dask, 1, 2, Dask, ...) so that a change of the machine's load
hits every executor alike; medians are reported with the load average, and the CSV files
of every run are compared with the first one's (same rows, whatever the executor).
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_dask(workers: int) -> tuple[list[subprocess.Popen[bytes]], str]:
    """A ``dask scheduler`` and ``workers`` single-threaded worker processes."""
    port = free_port()
    bindir = Path(sys.executable).parent
    log = subprocess.DEVNULL
    sched = subprocess.Popen([str(bindir / "dask"), "scheduler", "--host", "127.0.0.1",
                              "--port", str(port), "--no-dashboard"], stdout=log, stderr=log)
    work = subprocess.Popen([str(bindir / "dask"), "worker", f"tcp://127.0.0.1:{port}",
                             "--nworkers", str(workers), "--nthreads", "1",
                             "--no-dashboard", "--memory-limit", "0"], stdout=log, stderr=log)
    from dask.distributed import Client

    deadline = time.time() + 60
    with Client(f"tcp://127.0.0.1:{port}", timeout=60) as client:
        while len(client.scheduler_info()["workers"]) < workers:
            if time.time() > deadline:
                raise RuntimeError("the Dask workers did not start within 60 s")
            time.sleep(0.2)
    return [work, sched], f"dask://127.0.0.1:{port}"


def run(command: list[str], extra: list[str], out: Path) -> float:
    shutil.rmtree(out, ignore_errors=True)
    lpsched = str(Path(sys.executable).parent / "lpsched")
    t0 = time.perf_counter()
    subprocess.run([lpsched, *command, *extra, "--out", str(out), "--quiet"], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def csv_rows(out: Path) -> dict[str, list[tuple[tuple[str, str], ...]]]:
    """Every CSV of ``out``, rows sorted, timing columns (``*seconds*``) left out."""
    tables = {}
    for path in sorted(out.glob("*.csv")):
        with path.open(newline="") as f:
            rows = [tuple(sorted((k, v) for k, v in row.items() if "seconds" not in k))
                    for row in csv.DictReader(f)]
        tables[path.name] = sorted(rows)
    return tables


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = [c for c in args.command if c != "--"]
    if not command:
        ap.error("give the lpsched command after --")
    procs, address = start_dask(2)
    executors = {"local, 1 process": ["--jobs", "1"], "local, 2 processes": ["--jobs", "2"],
                 "Dask, 2 workers": ["--executor", address]}
    times: dict[str, list[float]] = {k: [] for k in executors}
    loads = []
    same = True
    reference = None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for r in range(args.repeats):
                for i, (name, extra) in enumerate(executors.items()):
                    out = Path(tmp) / f"{r}-{i}"
                    loads.append(os.getloadavg()[0])
                    times[name].append(run(command, extra, out))
                    rows = csv_rows(out)
                    reference = rows if reference is None else reference
                    same = same and rows == reference
    finally:
        for p in procs:
            p.terminate()
            p.wait(timeout=30)
    print(f"`lpsched {' '.join(command)}`, {args.repeats} interleaved runs per executor; "
          f"load average (1 min) at the starts: {min(loads):.1f}–{max(loads):.1f}.\n")
    print("| executor | wall s (median) | runs | speed-up vs 1 process |")
    print("|---|---:|---|---:|")
    base = statistics.median(times["local, 1 process"])
    for name, ts in times.items():
        med = statistics.median(ts)
        runs = ", ".join(f"{t:.1f}" for t in ts)
        print(f"| {name} | {med:.1f} | {runs} | {base / med:.2f} |")
    print(f"\nSame CSV rows from every run: {same}.")


if __name__ == "__main__":
    main()
