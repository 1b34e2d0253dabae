"""How close a seed 003 reproduction is to the seed's Tables 4-8, and two runs side by side.

    .venv/bin/python benchmarks/seed003_fidelity.py OLD_DIR [NEW_DIR] [--dispatcher eager]

Each ``DIR`` is the ``--out`` folder of ``lpsched reproduce cbs3m`` (its ``cbs3m.sqlite``
store is read through :class:`lpsched.core.ResultStore`, partial stores allowed: the tables
use the instances that have every policy's row). With one folder it prints that run's
score; with two, Tables 4-8 side by side (seed average, old, new; Table 4's "best %" too)
and both scores. This is the script behind RESULTS.md's section "Issue 13 (item 5)":

    lpsched reproduce cbs3m --instances 1000 --jobs 2 --base-bandwidth 1.25e6 --out old
    lpsched reproduce cbs3m --instances 1000 --jobs 2 --out new      # 100 Mbit/s default
    .venv/bin/python benchmarks/seed003_fidelity.py old new

**Score** (lower is closer to the seed; decision 36): over the 12 rows {FIFO, SPT, SRPT,
SWRPT} x {MCT, RR} + the four CBS3M rows, ``t4`` = mean |avg / seed avg - 1| of Table 4 in
percent, ``best`` = mean |best % - seed best %| of Table 4 in percentage points, ``t58`` =
the ``t4`` of Tables 5-8 together; total = ``t4 + best + t58 / 2``. DD rows are left out
(the seed prints them equal to RR), MWMA too (its reading is decision A22's open question).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.bags import reproduce as rep
from lpsched.core import ResultStore

MCT = ["fifo-mct", "spt-mct", "srpt-mct", "swrpt-mct"]
RR = ["fifo-rr", "spt-rr", "srpt-rr", "swrpt-rr"]
CBS = ["cbs3m-fifo-online", "cbs3m-edf-online", "cbs3m-fifo-offline", "cbs3m-edf-offline"]
ROWS = MCT + RR + CBS
#: seed 003 Table 4, "the best in x %" column of the scored rows
SEED_BEST4 = {"fifo-rr": 0.0, "fifo-mct": 0.0, "spt-rr": 0.0, "spt-mct": 1.3, "srpt-rr": 0.0,
              "srpt-mct": 2.2, "swrpt-rr": 0.0, "swrpt-mct": 1.9, "cbs3m-fifo-online": 6.9,
              "cbs3m-edf-online": 64.0, "cbs3m-fifo-offline": 3.8, "cbs3m-edf-offline": 26.2}
LATER = ("sum_stretch", "makespan", "max_flow", "sum_flow")


def load(folder: Path, dispatcher: str = "lazy") -> dict[str, dict[str, dict[str, Any]]]:
    """Tables 4-8 (``reproduce.tables``) of the store in ``folder``, over the seed's 18
    policies with the CBS3M ``dispatcher`` (``reproduce.select``, issue 31)."""
    store = ResultStore(folder / f"{rep.EXPERIMENT}.sqlite")
    try:
        return rep.tables(rep.select(store.rows(rep.EXPERIMENT, rep.ROW_SCHEMA), dispatcher))
    finally:
        store.close()


def score(tab: dict[str, dict[str, dict[str, Any]]]) -> dict[str, float]:
    """The distances of the module docstring, and the family averages behind them."""
    def err(metric: str, p: str) -> float:
        return abs(tab[metric][p]["avg"] / rep.SEED_AVERAGES[metric][p] - 1)

    t4 = float(np.mean([err("max_stretch", p) for p in ROWS])) * 100
    best = float(np.mean([abs(tab["max_stretch"][p]["best"] - SEED_BEST4[p]) for p in ROWS]))
    t58 = float(np.mean([err(m, p) for m in LATER for p in ROWS])) * 100
    mean4 = {p: tab["max_stretch"][p]["avg"] for p in ROWS}
    return {"total": t4 + best + t58 / 2, "t4": t4, "best": best, "t58": t58,
            "mct": float(np.mean([mean4[p] for p in MCT[1:]])),
            "rr": float(np.mean([mean4[p] for p in RR[1:]])),
            "cbs3m_edf_online": mean4["cbs3m-edf-online"],
            "cbs3m_edf_online_best": tab["max_stretch"]["cbs3m-edf-online"]["best"]}


def instances(tab: dict[str, dict[str, dict[str, Any]]], metric: str) -> int:
    return max(s["n"] + s["failed"] for s in tab[metric].values())


def side_by_side(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    lines = []
    for metric in rep.METRICS:
        lines.append(f"\nTable {rep.TABLE_OF[metric]} - {metric} (old: "
                     f"{instances(old, metric)} instances, new: {instances(new, metric)})")
        lines.append(f"{'Algorithm':<20} {'seed avg':>8} {'old avg':>8} {'new avg':>8} | "
                     f"{'seed best':>9} {'old best':>8} {'new best':>8} | {'old max':>8} "
                     f"{'new max':>8}")
        for p in old[metric]:
            sb = SEED_BEST4.get(p, math.nan) if metric == "max_stretch" else math.nan
            o, n = old[metric][p], new[metric][p]
            shown = f"{sb:9.1f}" if not math.isnan(sb) else " " * 9
            lines.append(f"{p:<20} {rep.SEED_AVERAGES[metric][p]:8.3f} {o['avg']:8.3f} "
                         f"{n['avg']:8.3f} | {shown} {o['best']:8.1f} {n['best']:8.1f} | "
                         f"{o['max']:8.3f} {n['max']:8.3f}")
    return lines


def describe(label: str, s: dict[str, float]) -> str:
    return (f"  {label}: total {s['total']:.1f} = T4 avg err {s['t4']:.1f}% + best-% err "
            f"{s['best']:.1f} pp + T5-8 avg err {s['t58']:.1f}%/2; MCT {s['mct']:.3f}, RR "
            f"{s['rr']:.3f}, CBS3M EDF online {s['cbs3m_edf_online']:.3f} (best "
            f"{s['cbs3m_edf_online_best']:.1f}%)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old", type=Path, help="an --out folder of lpsched reproduce cbs3m")
    ap.add_argument("new", type=Path, nargs="?", help="a second one, shown beside it")
    ap.add_argument("--dispatcher", choices=("lazy", "eager"), default="lazy",
                    help="CBS3M rows: the registered dispatcher or the eager variant "
                    "(issue 31; both folders)")
    args = ap.parse_args()
    old = load(args.old, args.dispatcher)
    if args.new is None:
        print("score (lower is closer to the seed):")
        print(describe(str(args.old), score(old)))
        return
    new = load(args.new, args.dispatcher)
    print("\n".join(side_by_side(old, new)))
    print("\nscore (lower is closer to the seed):")
    print(describe("old", score(old)))
    print(describe("new", score(new)))


if __name__ == "__main__":
    main()
