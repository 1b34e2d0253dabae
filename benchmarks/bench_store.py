"""The result store's cost per cell: write, read and ``done()`` on cbs3m-like rows.

    .venv/bin/python benchmarks/bench_store.py [--cells 10000] [--repeats 3]
        [--old OLD_STORE_PY]

Writes ``--cells`` cells of 5 rows (13 fields: seed, policy, status, reason=None, lp_bound,
five metrics, seconds, events, solves), one :meth:`~lpsched.core.store.ResultStore.add`
(one committed transaction) per cell, to a file in a fresh temporary folder; then reads
them back on a fresh store with ``rows("cbs3m", ROW_SCHEMA)`` (the schema check of every
row included) and ``done()``. Prints the median over ``--repeats`` runs and the file size.
``--old`` names another ``store.py`` to time beside this one in the same loop (e.g. the
JSON-row store of an earlier version: ``git show adce4fc:lpsched/core/store.py >
/tmp/store_old.py``); its stores are then converted by :meth:`ResultStore.migrate` and
the conversion is timed too. This is the script behind RESULTS.md's "Typed result store
(part 3)" table.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from lpsched.bags.reproduce import ROW_SCHEMA
from lpsched.core.store import ResultStore

POLICIES = ["fifo-mct", "spt-mct", "srpt-mct", "cbs3m-edf-online", "mwma-nbt"]


def cells(count: int) -> list[tuple[int, list[dict[str, Any]]]]:
    rng = random.Random(1)
    return [(seed, [{"seed": seed, "policy": p, "status": "ok", "reason": None,
                     "lp_bound": rng.uniform(1, 3), "max_stretch": rng.uniform(1, 9),
                     "sum_stretch": rng.uniform(10, 90), "makespan": rng.uniform(1e3, 1e4),
                     "max_flow": rng.uniform(1e2, 1e3), "sum_flow": rng.uniform(1e4, 1e5),
                     "seconds": rng.uniform(0, 1), "events": rng.randrange(1000),
                     "solves": 3} for p in POLICIES]) for seed in range(count)]


def one_run(cls: Any, data: list[tuple[int, list[dict[str, Any]]]], folder: str,
            schema: bool) -> dict[str, float]:
    path = os.path.join(folder, "s.sqlite")
    store = cls(path)
    t0 = time.perf_counter()
    for seed, rows in data:
        if schema:
            store.add("cbs3m", [seed], rows, schema=ROW_SCHEMA)
        else:
            store.add("cbs3m", [seed], rows)
    write = time.perf_counter() - t0
    store.close()
    store = cls(path)
    t0 = time.perf_counter()
    rows = store.rows("cbs3m", ROW_SCHEMA)
    read = time.perf_counter() - t0
    t0 = time.perf_counter()
    done = store.done("cbs3m")
    tdone = time.perf_counter() - t0
    store.close()
    assert len(rows) == 5 * len(data) and len(done) == len(data)
    size = sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))
    out = {"write": write, "read": read, "done": tdone, "MB": size / 1e6}
    if cls is not ResultStore:  # an old store: time its conversion by this version
        t0 = time.perf_counter()
        converted = ResultStore(path)
        converted.migrate()
        out["migrate"] = time.perf_counter() - t0
        converted.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", type=int, default=10000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--old", type=Path, help="another store.py to time beside this one")
    args = ap.parse_args()
    variants: list[tuple[str, Any, bool]] = [("new (typed, no schema)", ResultStore, False),
                                             ("new (typed, ROW_SCHEMA)", ResultStore, True)]
    if args.old:
        spec = importlib.util.spec_from_file_location("store_old", args.old)
        assert spec is not None and spec.loader is not None
        old = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(old)
        variants.insert(0, ("old (" + args.old.name + ")", old.ResultStore, False))
    data = cells(args.cells)
    runs: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in variants}
    for _ in range(args.repeats):
        for name, cls, schema in variants:
            with tempfile.TemporaryDirectory() as folder:
                runs[name].append(one_run(cls, data, folder, schema))
    print(f"{args.cells} cells x 5 rows, median of {args.repeats}")
    for name, results in runs.items():
        med = {k: statistics.median(r[k] for r in results) for k in results[0]}
        extra = f", migrate {med['migrate']:.2f} s" if "migrate" in med else ""
        print(f"{name:<28} write {med['write']:.2f} s ({med['write'] / args.cells * 1e6:.0f} "
              f"us/cell), rows() {med['read']:.2f} s, done() {med['done']:.3f} s, "
              f"{med['MB']:.1f} MB{extra}")


if __name__ == "__main__":
    main()
