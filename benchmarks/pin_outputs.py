"""Pin what the reproductions and the main commands print and store, to compare two versions.

    python benchmarks/pin_outputs.py OUT            # run every case, write OUT/<case>/...
    python benchmarks/pin_outputs.py --compare A B  # the cases whose outputs differ

Each case is one ``lpsched`` command run as a child process of the installed command
(``LPSCHED`` beside this interpreter, or ``--lpsched PATH`` for another checkout's). What
is kept: every CSV file the command writes (its rows, its seed-vs-ours table), the store's
rows as canonical JSON (``lpsched.experiments`` is not used: it may differ between the two
versions; the SQLite tables are read directly) and stdout, with the columns and fields
that measure time removed (their names hold ``seconds``, ``per_second``, ``wall``,
``elapsed``, ``cpu`` or are ``time``). Two versions answer the same when every kept file
is equal byte for byte.

The cases are reduced runs (a few minutes in all on 2 cores), the seeds' traces read from
``$LPSCHED_DATA`` or ``../shared/data``; a case whose trace is missing is skipped and said.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

TIMING = re.compile(r"seconds|per_second|wall|elapsed|cpu|^time$|_time$|^t_", re.IGNORECASE)
DATA = Path(os.environ.get("LPSCHED_DATA", Path(__file__).resolve().parents[2] / "shared"
                           / "data"))

#: name -> (arguments after ``lpsched``, traces it needs); ``{out}`` is the case's folder
CASES: dict[str, tuple[list[str], list[str]]] = {
    "cbs3m": (["reproduce", "cbs3m", "--instances", "6", "--out", "{out}", "--quiet"], []),
    "cbs3m-mpi": (["reproduce", "cbs3m", "--profile", "mpi", "--instances", "2", "--out",
                   "{out}", "--quiet"], []),
    "contiguity": (["reproduce", "contiguity", "--instances", "4", "--out", "{out}",
                    "--quiet"], ["CEA-Curie-2011-2.1-cln.swf.gz"]),
    "platform-level": (["reproduce", "platform-level", "--trace",
                        "KTH-SP2-1996-2.1-cln.swf.gz", "--instances", "2", "--out", "{out}",
                        "--quiet"], ["KTH-SP2-1996-2.1-cln.swf.gz"]),
    "topology-aware": (["reproduce", "topology-aware", "--limit", "2000", "--out", "{out}",
                        "--quiet"], ["HPC2N-2002-2.1-cln.swf.gz",
                                     "LLNL-Thunder-2007-1.1-cln.swf.gz",
                                     "SDSC-BLUE-2000-4.1-cln.swf.gz"]),
    "redirection": (["reproduce", "redirection", "--traces", "KTH-SP2-1996-2.1-cln",
                     "--instances", "2", "--out", "{out}", "--quiet", "--no-plots"],
                    ["KTH-SP2-1996-2.1-cln.swf.gz"]),
    "faircamp": (["reproduce", "faircamp", "--instances", "4", "--out", "{out}", "--quiet"],
                 []),
    "ostrich": (["reproduce", "ostrich", "--instances", "2", "--limit", "5000", "--out",
                 "{out}", "--quiet"], ["LPC-EGEE-2004-1.2-cln.swf.gz"]),
    "ptg": (["reproduce", "ptg", "--scenarios", "12", "--out", "{out}", "--quiet",
             "--no-figures"], []),
    "batch-easy": (["batch", "{data}/hpc2n-excerpt.swf", "--policy", "easy", "--json",
                    "--out", "{out}/jobs.csv"], ["hpc2n-excerpt.swf"]),
    "batch-conservative": (["batch", "{data}/hpc2n-excerpt.swf", "--policy", "conservative",
                            "--alloc", "beplat", "--topology", "fat-tree:16,4,4",
                            "--json", "--out", "{out}/jobs.csv"], ["hpc2n-excerpt.swf"]),
}


def strip_timing(value: object) -> object:
    """``value`` without the fields whose names measure time (recursively)."""
    if isinstance(value, dict):
        return {k: strip_timing(v) for k, v in value.items() if not TIMING.search(str(k))}
    if isinstance(value, list):
        return [strip_timing(v) for v in value]
    return value


def clean_csv(text: str) -> str:
    """A CSV file's text without its timing columns."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return text
    keep = [i for i, name in enumerate(rows[0]) if not TIMING.search(name)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([row[i] for i in keep if i < len(row)])
    return out.getvalue()


def store_rows(path: Path) -> str:
    """Every table of a SQLite store as canonical JSON lines (timing columns removed)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    lines = []
    tables = [r[0] for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
    for table in tables:
        cur = con.execute(f'SELECT * FROM "{table}"')
        names = [d[0] for d in cur.description]
        rows = [strip_timing(dict(zip(names, row, strict=True))) for row in cur]
        for row in sorted(rows, key=lambda r: json.dumps(r, sort_keys=True, default=str)):
            lines.append(json.dumps({"table": table, **row}, sort_keys=True, default=str))
    con.close()
    return "\n".join(lines) + "\n"


def run_case(name: str, lpsched: str, folder: Path) -> str:
    """Run one case into ``folder``; a line saying how it went."""
    args, traces = CASES[name]
    missing = [t for t in traces if not (DATA / t).exists()]
    if missing:
        return f"{name}: skipped, {', '.join(missing)} not in {DATA}"
    work = folder / "work"
    work.mkdir(parents=True, exist_ok=True)
    argv = [lpsched] + [a.format(out=work, data=DATA) for a in args]
    env = {**os.environ, "LPSCHED_DATA": str(DATA)}
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    (folder / "exit").write_text(f"{proc.returncode}\n")
    # the run's own folder and its timings are not answers
    stdout = proc.stdout.replace(str(work), "{out}")
    stdout = re.sub(r"\b\d+(\.\d+)? s\b", "<time> s", stdout)
    try:  # a JSON answer is kept without its timings
        stdout = json.dumps(strip_timing(json.loads(stdout)), sort_keys=True, indent=1)
    except json.JSONDecodeError:
        pass
    (folder / "stdout").write_text(stdout)
    for path in sorted(work.rglob("*")):
        rel = path.relative_to(work).as_posix().replace("/", "__")
        if path.suffix == ".csv":
            (folder / rel).write_text(clean_csv(path.read_text()))
        elif path.suffix == ".sqlite":
            (folder / (rel + ".rows")).write_text(store_rows(path))
    return f"{name}: exit {proc.returncode}, {wall:.1f} s"


def kept(folder: Path) -> set[Path]:
    """The kept files of one case's folder, relative to it (the command's own ``work``
    folder left out)."""
    if not folder.exists():
        return set()
    return {p.relative_to(folder) for p in folder.rglob("*")
            if p.is_file() and p.relative_to(folder).parts[0] != "work"}


def compare(a: Path, b: Path) -> list[str]:
    """The kept files that differ between two pinned folders (or exist in one only)."""
    diffs = []
    for case in sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()}):
        for rel in sorted(kept(a / case) | kept(b / case)):
            pa, pb = a / case / rel, b / case / rel
            if not pa.exists() or not pb.exists():
                diffs.append(f"{case}/{rel}: only in {'B' if not pa.exists() else 'A'}")
            elif pa.read_bytes() != pb.read_bytes():
                diffs.append(f"{case}/{rel}: differs")
    return diffs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    parser.add_argument("--lpsched", default=str(Path(sys.executable).with_name("lpsched")))
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    args = parser.parse_args()
    if args.compare:
        diffs = compare(*args.compare)
        print("\n".join(diffs) if diffs else "identical")
        return 1 if diffs else 0
    if args.out is None:
        parser.error("give OUT or --compare A B")
    for name in args.cases:
        print(run_case(name, args.lpsched, args.out / name), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
