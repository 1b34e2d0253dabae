"""Every reproduction's whole seed-vs-ours table under the previous verdict rule and under
the one rule of ``lpsched.core.fidelity``, from the SAME stores.

    python benchmarks/vs_seed_before_after.py RUN_DIR --old OLD_LPSCHED [--data DIR] \
        [--only LABEL ...] [--out benchmarks/vs_seed]

RUN_DIR is the folder of a ``lpsched reproduce all --out RUN_DIR`` run (its stores).
OLD_LPSCHED is the ``lpsched`` of a version with the previous rule (commit 1a74575). Each
store is copied into two scratch folders and the old command and this checkout's are run
on them with the run's arguments: a complete store makes both compute no cell (the stored
rows are the same, byte for byte: ``benchmarks/pin_outputs.py`` checks it), so each only
prints and writes its table. Give ``--only`` the labels of the complete runs (an
incomplete store would be completed by both). Writes one Markdown file per experiment
(both tables, whole) and ``summary.md`` (the tallies side by side).
"""

from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from lpsched.cli.reproduce_all import RUNS

#: the previous rule's verdicts, in its own words, mapped to the tally's columns
OLD_KINDS = ("match", "close", "differs: explained", "differs", "not measured")
NEW_KINDS = ("match", "close", "holds by construction", "undetermined",
             "differs: cause measured", "differs: not reproduced", "not measured")


def kind(verdict: str, kinds: tuple[str, ...]) -> str:
    """The longest kind ``verdict`` starts with."""
    found = [k for k in kinds if verdict.startswith(k)]
    return max(found, key=len) if found else verdict


def read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def tally(rows: list[dict[str, str]], kinds: tuple[str, ...]) -> dict[str, int]:
    """Validation rows per kind, calibration apart."""
    counts = Counter(kind(r["verdict"], kinds) for r in rows if r.get("role") != "calibration")
    out = {"rows": sum(counts.values()), **{k: counts.get(k, 0) for k in kinds}}
    out["calibration"] = sum(r.get("role") == "calibration" for r in rows)
    return out


def markdown(rows: list[dict[str, str]]) -> list[str]:
    if not rows:
        return ["(no table)", ""]
    cols = list(rows[0])
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        out.append("| " + " | ".join((r[c] or "").replace("|", "\\|").replace("\n", " ")
                                     for c in cols) + " |")
    return [*out, ""]


def table_of(lpsched: str, label: str, argv: tuple[str, ...], traces: bool, run_dir: Path,
             data: str | None, scratch: Path) -> list[dict[str, str]]:
    """The table one ``lpsched`` writes for one run, from a copy of its stores."""
    folder = scratch / label
    folder.mkdir(parents=True, exist_ok=True)
    for store in run_dir.glob("*.sqlite"):
        shutil.copy2(store, folder / store.name)
    cmd = [lpsched, "reproduce", *argv, "--out", str(folder), "--quiet"]
    if traces and data:
        cmd += ["--data", data]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"{label}: {lpsched} failed: {proc.stderr.strip()[-300:]}", file=sys.stderr)
        return []
    name = argv[0]
    found = sorted(folder.glob(f"{name}*_vs_seed.csv"))
    return read(found[0]) if found else []


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", default=str(Path(sys.executable).with_name("lpsched")))
    ap.add_argument("--only", nargs="+")
    ap.add_argument("--data")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/vs_seed"))
    ns = ap.parse_args()
    ns.out.mkdir(parents=True, exist_ok=True)
    summary = ["| experiment | rule | " + " | ".join(("rows", *NEW_KINDS, "calibration"))
               + " |", "|---|---|" + "---|" * (len(NEW_KINDS) + 2)]
    earlier: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for run in RUNS:
            name = run.argv[0]
            if (not (ns.run_dir / f"{name}.sqlite").is_file()
                    or (ns.only and run.label not in ns.only)):
                continue
            if run.label == "cbs3m-mpi":  # the previous rule's second cbs3m table; the
                # one rule judges both profiles of the store in the cbs3m table
                earlier = table_of(ns.old, run.label, run.argv, run.traces, ns.run_dir,
                                   ns.data, Path(tmp) / "old")
                continue
            old = table_of(ns.old, run.label, run.argv, run.traces, ns.run_dir, ns.data,
                           Path(tmp) / "old")
            old = (earlier if run.label == "cbs3m" else []) + old
            new = table_of(ns.new, run.label, run.argv, run.traces, ns.run_dir, ns.data,
                           Path(tmp) / "new")
            t_old, t_new = tally(old, OLD_KINDS), tally(new, NEW_KINDS)
            page = [f"# `reproduce {' '.join(run.argv)}`: the seed-vs-ours table before and "
                    f"after the one verdict rule", "",
                    "From the stores of one `lpsched reproduce all` run at the seeds' sizes.",
                    "",
                    "## Under the previous rule", "", *markdown(old),
                    "## Under the one rule (`lpsched.core.fidelity`)", "", *markdown(new)]
            (ns.out / f"{run.label}.md").write_text("\n".join(page), encoding="utf-8")
            summary.append(f"| {run.label} | previous | {t_old['rows']} | {t_old['match']} | "
                           f"{t_old['close']} | | | {t_old['differs: explained']} (explained)"
                           f" | {t_old['differs']} | {t_old['not measured']} | "
                           f"{t_old['calibration']} |")
            summary.append(f"| {run.label} | one rule | "
                           + " | ".join(str(t_new[k]) for k in ("rows", *NEW_KINDS,
                                                                 "calibration")) + " |")
    (ns.out / "summary.md").write_text("\n".join(summary) + "\n", encoding="utf-8")
    print("\n".join(summary))


if __name__ == "__main__":
    main()
