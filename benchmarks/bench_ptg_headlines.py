"""Seed 004's headlines that do not come back (A10, A16, A19), against the one unstated
parameter that moves them: the processor bound of improved HCPA [004 L595-L597].

    .venv/bin/python benchmarks/bench_ptg_headlines.py [--scenarios 60] [--store FILE]
        [--bounds literal,none,fraction:0.5,...] [--json OUT]

A calibration finding, not a fit: nothing here becomes a default. The seed says that HCPA
"bounds the number of processors that can be used in a schedule as a way to increase
parallel efficiency" [004 L595-L596] and leaves the bound to its reference [22]; the
default reads the allocation step as written, with no bound (decision 336). This script
runs the first ``--scenarios`` scenarios of the study (a balanced prefix, reduced: the seed
has 1,500) under a family of bounds, the ``fraction:f`` caps (every task on at most
``ceil(f P)`` processors, CPA's gain rule) from wide to narrow, with the algorithms each
headline needs, and reports for each bound:

* A10 CAFM CRA's median makespan (seed 249.35 s [004 L619-L620]);
* A16 SELFISH's median maximum stretch (seed 17.49 [004 L642]);
* A19 CAFM K SHELVES' median maximum stretch (seed 2.43 [004 L660]);
* what the text says of the bound, to judge whether the value is plausible: A9, the share
  of scenarios in which some CRA algorithm gives a PTG a stretch below 1 (seed 6 %, "in
  cases with few concurrent PTGs" [004 L592-L597]), overall and for N <= 4 and N >= 6.

Then, for each headline, the cap ``f`` at which it equals the seed's value (linear
interpolation between the two bracketing caps, in log f) and A9 there. The rows are kept
in ``--store`` (a result store: a rerun resumes).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
from typing import Any

import numpy as np

from lpsched.core import ResultStore, run_cells
from lpsched.ptg import reproduce as exp
from lpsched.ptg.hcpa import HcpaBound
from lpsched.ptg.registry import run

#: the algorithms the headlines and A9 need
ALGORITHMS = ("selfish", "cafm-cra", "cafm-k-shelves", "cra-ndags", "cra-ndags-weight",
              "cra-work", "cra-work-weight", "cra-width", "cra-width-weight")
#: the bounds tried, from wide to narrow allocations (``none``: CPA without a cap)
BOUNDS = ("literal", "none", "fraction:0.5", "fraction:0.3", "fraction:0.2",
          "fraction:0.15", "fraction:0.125", "fraction:0.1")
#: the seed's values: (label, algorithm, metric, seed value, seed lines)
HEADLINES = (("A10", "cafm-cra", "makespan", 249.35, "004 L619-L620"),
             ("A16", "selfish", "max_stretch", 17.49, "004 L642"),
             ("A19", "cafm-k-shelves", "max_stretch", 2.43, "004 L660"))


def headline_rows(cell: Any) -> list[dict[str, Any]]:
    """One scenario under its bound: the makespan, maximum and minimum stretch of each
    algorithm of the cell (no lower bounds: the headlines do not need them).

    Parameters
    ----------
    cell : tuple
        A cell of :func:`lpsched.ptg.reproduce.cells` (its bound and algorithms).

    Returns
    -------
    list of dict
        One row per algorithm.
    """
    cls, n, k, cluster, *_ = cell
    pb = exp.problem_of(cell)
    out = []
    for name in cell[6]:
        m = run(pb, name, check=False).metrics
        out.append({"class": cls, "N": n, "set": k, "cluster": cluster, "algorithm": name,
                    "makespan": m.makespan, "max_stretch": m.max_stretch,
                    "min_stretch": float(m.stretch.min())})
    return out


def figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The three headlines and A9 of one bound's rows.

    Parameters
    ----------
    rows : list of dict
        :func:`headline_rows` of every scenario.

    Returns
    -------
    dict
        ``A10``, ``A16``, ``A19`` (medians), ``A9`` (%), ``A9 N<=4``, ``A9 N>=6`` (%),
        ``scenarios``.
    """
    out: dict[str, Any] = {}
    for label, alg, metric, _seed, _lines in HEADLINES:
        vals = [r[metric] for r in rows if r["algorithm"] == alg]
        out[label] = float(np.median(vals)) if vals else None
    scen: dict[tuple[Any, ...], list[bool]] = {}
    for r in rows:
        if r["algorithm"].startswith("cra"):
            key = (r["class"], r["N"], r["set"], r["cluster"])
            scen.setdefault(key, []).append(r["min_stretch"] < 1 - 1e-9)
    for label, keep in (("A9", lambda n: True), ("A9 N<=4", lambda n: n <= 4),
                        ("A9 N>=6", lambda n: n >= 6)):
        hits = [any(v) for key, v in scen.items() if keep(key[1])]
        out[label] = 100 * float(np.mean(hits)) if hits else None
    out["scenarios"] = len(scen)
    return out


def crossing(table: dict[str, dict[str, Any]], label: str, target: float
             ) -> dict[str, Any] | None:
    """The cap ``f`` at which a headline equals the seed's value: the two neighbouring
    ``fraction`` caps whose values bracket ``target``, interpolated linearly in ``log f``,
    with A9 interpolated the same way; None when no pair brackets it.

    Parameters
    ----------
    table : dict
        Bound name -> :func:`figures`.
    label : str
        ``A10``, ``A16`` or ``A19``.
    target : float
        The seed's value.

    Returns
    -------
    dict or None
        ``f``, ``between`` (the two caps), ``A9`` (%).
    """
    caps = sorted((HcpaBound.parse(b).value, f) for b, f in table.items()
                  if b.startswith("fraction:") and f.get(label) is not None)
    for (f0, a), (f1, b) in itertools.pairwise(caps):
        y0, y1 = a[label], b[label]
        if (y0 - target) * (y1 - target) <= 0 and y0 != y1:
            w = (target - y0) / (y1 - y0)
            f = math.exp(math.log(f0) + w * (math.log(f1) - math.log(f0)))
            a9 = None if a["A9"] is None or b["A9"] is None else a["A9"] + w * (
                b["A9"] - a["A9"])
            return {"f": f, "between": [f0, f1], "A9": a9}
    return None


def main() -> None:
    """Run the bounds on the reduced study and print each headline's crossing."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenarios", type=int, default=60)
    ap.add_argument("--store", default="/tmp/ptg_headlines.sqlite")
    ap.add_argument("--bounds", default=",".join(BOUNDS))
    ap.add_argument("--json", help="write every figure to this file")
    args = ap.parse_args()
    store = ResultStore(args.store)
    table: dict[str, dict[str, Any]] = {}
    for name in args.bounds.split(","):
        cells = exp.cells(args.scenarios, 0, algorithms=ALGORITHMS,
                          hcpa_bound=HcpaBound.parse(name))
        t0 = time.process_time()
        run_cells("ptg-headlines", cells, headline_rows, store, progress=False)
        table[name] = figures(store.rows_of("ptg-headlines", cells))
        table[name]["cpu_s"] = round(time.process_time() - t0, 1)
        print(name, json.dumps({k: (round(v, 3) if isinstance(v, float) else v)
                                for k, v in table[name].items()}), flush=True)
    found = {label: {"seed": seed, "lines": lines, **(crossing(table, label, seed) or {})}
             for label, _alg, _m, seed, lines in HEADLINES}
    for label, f in found.items():
        print(label, json.dumps(f))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"scenarios": args.scenarios, "bounds": table, "crossings": found},
                      fh, indent=1)


if __name__ == "__main__":
    main()
