"""Reduced reproductions side by side with another version of lpsched: CPU of one process
each, and whether the rows are the same.

    python benchmarks/bench_reduced_vs_old.py --old OTHER/.venv/bin/lpsched [--repeats 3]
                                              [--cases cbs3m platform-kth ...] [--out DIR]

Each case is one reduced ``lpsched reproduce`` command (``--jobs 1``: one process), run by
this checkout's installed ``lpsched`` and by ``--old``, alternated run by run so that both
see the same load; CPU (user + system), wall and peak memory from ``wait4``
(:mod:`_measure`), medians of ``--repeats``. The answers are compared as
``pin_outputs.py`` keeps them: every store row and every CSV file the command writes,
without the columns that measure time, except the seed-vs-ours table (``*_vs_seed.csv``),
which is the table builder's, not the experiment's answer. A case whose trace is missing
from ``$LPSCHED_DATA`` (or ``../shared/data``) is skipped and said. The table printed is
the one RESULTS.md quotes; the exit status is 1 when any case's answers differ.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from _measure import Run, compile_package, load, measure, median_run
from pin_outputs import DATA, clean_csv, store_rows

#: name -> (arguments after ``lpsched``, traces it needs); ``{out}`` is the run's folder
CASES: dict[str, tuple[list[str], list[str]]] = {
    "cbs3m-1": (["reproduce", "cbs3m", "--instances", "1"], []),
    "cbs3m-6": (["reproduce", "cbs3m", "--instances", "6"], []),
    "cbs3m-20": (["reproduce", "cbs3m", "--instances", "20", "--first-seed", "500"], []),
    "cbs3m-mpi": (["reproduce", "cbs3m", "--profile", "mpi", "--instances", "2"], []),
    "platform-kth": (["reproduce", "platform-level", "--trace", "KTH-SP2-1996-2.1-cln.swf.gz",
                      "--instances", "3"], ["KTH-SP2-1996-2.1-cln.swf.gz"]),
    "platform-kth-1": (["reproduce", "platform-level", "--trace", "KTH-SP2-1996-2.1-cln.swf.gz",
                        "--instances", "1"], ["KTH-SP2-1996-2.1-cln.swf.gz"]),
    "platform-ricc": (["reproduce", "platform-level", "--trace", "RICC-2010-2.swf.gz",
                       "--instances", "1"], ["RICC-2010-2.swf.gz"]),
    "topology-llnl": (["reproduce", "topology-aware", "--trace",
                       "LLNL-Thunder-2007-1.1-cln.swf.gz", "--limit", "3000"],
                      ["LLNL-Thunder-2007-1.1-cln.swf.gz"]),
    "topology-llnl-300": (["reproduce", "topology-aware", "--trace",
                           "LLNL-Thunder-2007-1.1-cln.swf.gz", "--limit", "300"],
                          ["LLNL-Thunder-2007-1.1-cln.swf.gz"]),
    "topology-llnl-50": (["reproduce", "topology-aware", "--trace",
                          "LLNL-Thunder-2007-1.1-cln.swf.gz", "--limit", "50"],
                         ["LLNL-Thunder-2007-1.1-cln.swf.gz"]),
    "topology-sdsc": (["reproduce", "topology-aware", "--trace", "SDSC-BLUE-2000-4.1-cln.swf.gz",
                       "--limit", "2000"], ["SDSC-BLUE-2000-4.1-cln.swf.gz"]),
    "contiguity": (["reproduce", "contiguity", "--instances", "16"],
                   ["CEA-Curie-2011-2.1-cln.swf.gz"]),
    "redirection": (["reproduce", "redirection", "--traces", "KTH-SP2-1996-2.1-cln",
                     "--instances", "2", "--no-plots"], ["KTH-SP2-1996-2.1-cln.swf.gz"]),
    "redirection-7": (["reproduce", "redirection", "--instances", "2", "--no-plots"],
                      ["KTH-SP2-1996-2.1-cln.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz"]),
    "ostrich": (["reproduce", "ostrich", "--instances", "2", "--limit", "5000"],
                ["LPC-EGEE-2004-1.2-cln.swf.gz"]),
    "ptg-1": (["reproduce", "ptg", "--scenarios", "1", "--no-figures"], []),
    "ptg-4": (["reproduce", "ptg", "--scenarios", "4", "--no-figures"], []),
    "ptg-4-figures": (["reproduce", "ptg", "--scenarios", "4"], []),
    "ptg-12-figures": (["reproduce", "ptg", "--scenarios", "12"], []),
    "ptg-12": (["reproduce", "ptg", "--scenarios", "12", "--no-figures"], []),
    "ptg-60": (["reproduce", "ptg", "--scenarios", "60", "--no-figures"], []),
    "faircamp-1": (["reproduce", "faircamp", "--instances", "1"], []),
    "faircamp-4": (["reproduce", "faircamp", "--instances", "4"], []),
    "faircamp-30": (["reproduce", "faircamp", "--instances", "30"], []),
}


def answers(folder: Path) -> dict[str, str]:
    """The answers a run wrote into ``folder``: store rows and CSV files, timings removed
    (the seed-vs-ours table left out)."""
    kept = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.suffix == ".sqlite":
            kept[rel] = store_rows(path)
        elif path.suffix == ".csv" and not path.name.endswith("_vs_seed.csv"):
            kept[rel] = clean_csv(path.read_text())
    return kept


def run_case(name: str, new: str, old: str, repeats: int, tmp: Path) -> str:
    """Both versions ``repeats`` times, alternated; one Markdown row."""
    args, traces = CASES[name]
    missing = [t for t in traces if not (DATA / t).exists()]
    if missing:
        return f"| {name} | skipped: {', '.join(missing)} not in {DATA} | | | | | |"
    runs: dict[str, list[Run]] = {"old": [], "new": []}
    found: dict[str, dict[str, str]] = {}
    for k in range(repeats):
        for who, command in (("old", old), ("new", new)):
            out = tmp / f"{name}-{who}-{k}"
            argv = [command, *args, "--data", str(DATA)] if traces else [command, *args]
            runs[who].append(measure([*argv, "--jobs", "1", "--quiet", "--out", str(out)]))
            found.setdefault(who, answers(out))
    o, n = median_run(runs["old"]), median_run(runs["new"])
    ratios = [b.cpu / a.cpu for a, b in zip(runs["old"], runs["new"], strict=True)]
    same = "yes" if found["old"] == found["new"] and found["new"] else "**no**"
    shown = " ".join(args[1:])
    return (f"| {name} | `{shown}` | {o.cpu:.2f} | {n.cpu:.2f} | "
            f"{statistics.median(ratios):.2f} | {o.peak_mb:.0f} / {n.peak_mb:.0f} | {same} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="the other version's lpsched command")
    ap.add_argument("--new", default=str(Path(sys.executable).with_name("lpsched")),
                    help="this version's lpsched (default: beside this interpreter)")
    ap.add_argument("--repeats", type=int, default=3, help="runs of each version (median)")
    ap.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    ap.add_argument("--out", type=Path, help="keep the runs' folders here (default: removed)")
    args = ap.parse_args(argv)
    print(f"{compile_package()}; before: {load()}.")
    print()
    print("| case | command (`--jobs 1`) | old CPU (s) | new CPU (s) | new / old "
          "(median of the run-by-run ratios) | peak MB old / new | same answers |")
    print("|---|---|---:|---:|---:|---:|:---:|")
    differ = False
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.out or Path(scratch)
        tmp.mkdir(parents=True, exist_ok=True)
        for name in args.cases:
            row = run_case(name, args.new, args.old, args.repeats, tmp)
            differ |= "**no**" in row
            print(row, flush=True)
    print()
    print(f"After: {load()}.")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
