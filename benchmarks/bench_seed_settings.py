"""The batch reproductions in the seeds' own settings, measured as a user runs them
(decisions 460-462): whole ``reproduce`` commands as child processes, CPU (user + system)
and peak memory, for one or more versions of the package (``PYTHONPATH`` folders), run
alternately so the versions share the same minutes of the machine's load.

    python benchmarks/bench_seed_settings.py --version before=/tmp/before \\
        --version after=. --repeat 3 curie llnl

Cases: ``curie`` is ``reproduce platform-level`` on CEA-Curie with one instance (Table
5.2's 3 weeks, 80,640 processors on the fat tree 16,4,...: seven cells), ``llnl`` is
``reproduce topology-aware`` on LLNL Thunder's first 30,000 jobs at speed-ups 0 and 15
(22 cells), ``sdsc`` the same on SDSC Blue. Each line: version, case, wall and CPU seconds
(medians over ``--repeat``), peak RSS (MB), the md5 of the ``*_vs_seed.csv`` written (equal
digests: the same table) and the load average. Needs ../shared/data."""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

from _measure import load, measure, median_run

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CASES = {
    "curie": ["reproduce", "platform-level", "--trace", "CEA-Curie-2011-2.1-cln.swf.gz",
              "--instances", "1"],
    "llnl": ["reproduce", "topology-aware", "--trace", "LLNL-Thunder-2007-1.1-cln.swf.gz",
             "--limit", "30000", "--speedups", "0,15"],
    "sdsc": ["reproduce", "topology-aware", "--trace", "SDSC-BLUE-2000-4.1-cln.swf.gz",
             "--limit", "30000", "--speedups", "0,15"],
}


def main() -> None:
    """Parse the command line and print one line per version and case."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="+", choices=sorted(CASES))
    ap.add_argument("--version", action="append", required=True,
                    help="NAME=FOLDER: a PYTHONPATH holding the lpsched package")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    versions = [v.split("=", 1) for v in args.version]
    for case in args.cases:
        argv = list(CASES[case])
        argv[3] = str(DATA / argv[3])
        runs: dict[str, list] = {name: [] for name, _ in versions}
        digests: dict[str, str] = {}
        for _ in range(args.repeat):
            for name, folder in versions:  # alternately: the same minutes for each version
                out = tempfile.mkdtemp(prefix="bench29-")
                env_path = str(Path(folder).resolve())
                cmd = ["env", f"PYTHONPATH={env_path}", f"LPSCHED_DATA={DATA}", sys.executable,
                       "-m", "lpsched.cli", *argv, "--jobs", "1", "--quiet", "--out", out]
                runs[name].append(measure(cmd, cwd=out))
                table = next(Path(out).glob("*_vs_seed.csv"))
                digests[name] = hashlib.md5(table.read_bytes()).hexdigest()[:12]
                shutil.rmtree(out, ignore_errors=True)
        for name, _ in versions:
            r = median_run(runs[name])
            print(f"{name:8s} {case:6s} wall {r.wall:8.1f} s  CPU {r.cpu:8.1f} s  "
                  f"peak {r.peak_mb:7.0f} MB  table {digests[name]}  ({load()})", flush=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
