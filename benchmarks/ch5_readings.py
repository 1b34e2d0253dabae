"""Seed 000 ch. 5's platform-level rows under declared readings, and the decomposition of
each variant's sum flow against basic's (decisions 405-409 and 419-423 of
docs/decisions.md).

Each instance is the one ``lpsched reproduce platform-level`` runs (seed 000 §5.7
[L3660-L3719]: 7-day periods drawn by :func:`~lpsched.batch.reproduce.period_instance`,
conservative backfilling with the seed's reassignment, the quadratic penalty ``T' = T·F^R``
[L3291-L3292] with ``F = 2`` [L3715-L3717], the seven variants), except where a reading
changes one input:

* ``default``  — the package's defaults (decisions 51, 268, 269, A5.11);
* ``c8``, ``c32``, ``a2`` — the tree family of decision 406: clusters of 8 / 32 with
  arity 4, clusters of 16 with arity 2 (the default is clusters of 16, arity 4);
* ``headers``  — decision 407: the shapes the SWF headers give (nodes, IBM SP frames);
* ``table``    — decision 408: Table 5.2's processor counts [L3698-L3704] (Curie 80,640;
  LLNL Thunder 1,024 nodes, sizes / 4);
* ``table-procs`` — decision 408's second variant: LLNL on 1,024 processors, the wider
  jobs dropped;
* ``runtime``  — decision 409: real run times as estimates [L3662];
* ``distinct`` — decision 419: distinct 7-day periods (a seeded permutation);
* ``cont-ff`` — decision 423: forced contiguous takes the first block that fits (ch. 4's
  Alg. 3, ``cont-ff``) instead of the largest; the other variants as ``default``;
* ``curie-shallow`` — decision 421: Curie on Table 5.2's 80,640 processors in the tree
  ``fat-tree:16,18,280`` (nodes of 16 cores, chassis of 18 nodes); Curie only.

``--decompose`` also runs every cell with the penalty factor 1 (no penalty) and reports
decision 405's split ``S(v,2) − S(basic,2) = G(v) + P(v) − P(basic)``.

Rows go to a JSON-lines file (``--out``), one per (reading, platform, seed, variant,
factor); a row already there is not recomputed, so an interrupted run resumes. Run it
niced, one process::

    LPSCHED_DATA=../shared/data nice -n 10 .venv/bin/python benchmarks/ch5_readings.py \\
        --reading c8 --platform sdsc_blue --platform kth_sp2 --instances 30 \\
        --decompose --out /tmp/ch5.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.batch.reproduce import (
    CH5_PLATFORMS,
    PLATFORM_ALLOCS,
    WEEK,
    default_fat_tree,
    load_trace,
    period_instance,
    subset,
)
from lpsched.batch.simulator import simulate_batch
from lpsched.batch.topology import Topology, parse_topology
from lpsched.batch.validation import validate_batch
from lpsched.core.swf import Workload

#: the readings of decisions 406-409 and 419 (``default``: the package's)
READINGS = ("default", "c8", "c32", "a2", "headers", "table", "table-procs", "runtime",
            "distinct", "curie-shallow", "cont-ff")

#: decision 407: trees from the SWF headers (SDSC: 8-way nodes in IBM SP frames of 16
#: nodes; KTH: IBM SP2 frames of 16 one-processor nodes; LLNL: 4-processor nodes on a
#: quaternary fat tree); the platforms not named keep the default tree
HEADER_TREES = {"sdsc_blue": "fat-tree:8,16,9", "kth_sp2": "fat-tree:16,8",
                "llnl_thunder": "fat-tree:4,4,4,4,4,4"}

#: decision 408: seed 000 Table 5.2's processors [L3698-L3704] where they differ from the
#: trace header's (LLNL Thunder's 1,024 are its nodes of 4 processors)
TABLE_PROCESSORS = {"curie": 80640, "llnl_thunder": 1024}
LLNL_NODE = 4
#: decision 421: Curie's thin nodes (16 cores), 18 to a bullx chassis, 280 chassis
CURIE_SHALLOW = "fat-tree:16,18,280"


def unchanged(reading: str, platform: str) -> bool:
    """Whether ``reading`` leaves ``platform``'s instances and tree as the default's (its
    figures are then the default reading's, not re-run).

    Parameters
    ----------
    reading : str
        One of :data:`READINGS`.
    platform : str
        A key of :data:`~lpsched.batch.reproduce.CH5_PLATFORMS`.

    Returns
    -------
    bool
        ``True`` for ``headers`` on a platform without a header tree, ``table`` /
        ``table-procs`` where Table 5.2's count is the header's.
    """
    if reading == "headers":
        return platform not in HEADER_TREES
    if reading in ("table", "table-procs"):
        return platform not in TABLE_PROCESSORS
    return False


def data_dir() -> Path:
    """The folder of the SWF traces: ``$LPSCHED_DATA``, else ``../shared/data``.

    Returns
    -------
    pathlib.Path
        The folder (not checked).
    """
    return Path(os.environ.get("LPSCHED_DATA", "../shared/data"))


def distinct_first_period(total: int, periods: int, seed: int) -> int:
    """Decision 419 (276's reading (k)): instance ``seed`` starts at the ``seed``-th period
    of one seeded permutation of the ``total − periods + 1`` possible first periods, so
    instances 0 to ``total − periods`` never repeat a window (seed 000 [L3675-L3677]).

    Parameters
    ----------
    total : int
        7-day periods in the trace.
    periods : int
        Consecutive periods per instance (Table 5.2).
    seed : int
        The instance's number (its index in the permutation, modulo its length).

    Returns
    -------
    int
        The first period of the instance.
    """
    starts = max(1, total - periods + 1)
    order = np.random.default_rng(20261129).permutation(starts)
    return int(order[seed % starts])


def reading_instance(platform: str, seed: int, reading: str,
                     data: Path | None = None) -> tuple[Workload, Topology]:
    """The instance ``seed`` of ``platform`` and its tree under ``reading``.

    Parameters
    ----------
    platform : str
        A key of :data:`~lpsched.batch.reproduce.CH5_PLATFORMS`.
    seed : int
        The instance's seed (as ``lpsched reproduce platform-level``'s).
    reading : str
        One of :data:`READINGS`.
    data : pathlib.Path, optional
        The trace folder (default :func:`data_dir`).

    Returns
    -------
    tuple of (Workload, Topology)
        The jobs of the window (submissions from 0) and the tree (``installed`` = the
        machine); an error naming the reading when it is unknown.
    """
    if reading not in READINGS:
        raise ValueError(f"reading {reading!r}: expected one of {', '.join(READINGS)}")
    name, _, _, periods = CH5_PLATFORMS[platform]
    trace = str((data or data_dir()) / name)
    estimate = "runtime" if reading == "runtime" else "requested"
    if reading == "distinct":
        work = load_trace(trace, "completed", estimate)
        total = max(1, math.ceil((float(work.submit.max()) + 1) / WEEK))
        first = distinct_first_period(total, periods, seed)
        lo, hi = first * WEEK, (first + periods) * WEEK
        work = subset(work, np.flatnonzero((work.submit >= lo) & (work.submit < hi)))
    else:
        work = period_instance(trace, seed, periods, "completed", estimate)
    machine = int(work.processors or work.size.max())
    spec: str | None = None
    if reading == "curie-shallow":
        if platform != "curie":
            raise ValueError("reading curie-shallow: CEA-Curie only (decision 421)")
        machine, spec = TABLE_PROCESSORS["curie"], CURIE_SHALLOW
        work = replace(work, processors=machine)
    elif reading in ("table", "table-procs") and platform in TABLE_PROCESSORS:
        machine = TABLE_PROCESSORS[platform]
        if platform == "llnl_thunder" and reading == "table":
            if (work.size % LLNL_NODE).any():
                raise ValueError("LLNL Thunder: a job size is not a multiple of 4")
            work = replace(work, size=work.size // LLNL_NODE)
        keep = np.flatnonzero(work.size <= machine)
        if keep.size < work.jobs:
            work = subset(work, keep)
        work = replace(work, processors=machine)
    elif reading == "headers":
        spec = HEADER_TREES.get(platform)
    elif reading in ("c8", "c32", "a2"):
        cluster, arity = {"c8": (8, 4), "c32": (32, 4), "a2": (16, 2)}[reading]
        spec = default_fat_tree(machine, cluster, arity)
    topo = parse_topology(spec or default_fat_tree(machine), machine)
    return work, topo


def run_cell(work: Workload, topo: Topology, alloc: str, factor: float) -> dict[str, Any]:
    """One variant on one instance: seed 000 §5.5's conservative backfilling with
    reassignment, the quadratic penalty ``F`` (Eq. 5.2), validated; the sums of decision 405.

    Parameters
    ----------
    work : Workload
        The instance.
    topo : Topology
        The tree.
    alloc : str
        One of :data:`~lpsched.batch.reproduce.PLATFORM_ALLOCS`.
    factor : float
        The penalty factor (1: no penalty).

    Returns
    -------
    dict
        ``jobs``, ``sum_flow``, ``sum_flow_ok`` (successful jobs only), ``sum_wait``,
        ``sum_run`` (the trace's run times), ``sum_exec`` (the run times executed),
        ``penalised`` (jobs placed above ``L_min``), ``failed`` (killed at their wall time),
        ``seconds``.
    """
    sched, stats = simulate_batch(work, "conservative", alloc=alloc, topology=topo,
                                  penalty=("quadratic", factor), compression="reassign")
    validate_batch(work, sched, topo.installed, topology=topo, forced=alloc)
    flow = sched.end - work.submit
    failed = (np.zeros(work.jobs, bool) if sched.failed is None
              else np.asarray(sched.failed, bool))
    above = sum(topo.level_of(np.asarray(p)) > topo.min_level(int(s))
                for p, s in zip(sched.procs, work.size, strict=True))
    return {"jobs": int(work.jobs), "sum_flow": float(flow.sum()),
            "sum_flow_ok": float(flow[~failed].sum()),
            "sum_wait": float((sched.start - work.submit).sum()),
            "sum_run": float(work.run.sum()),
            "sum_exec": float((sched.end - sched.start).sum()),
            "penalised": int(above), "failed": int(failed.sum()),
            "seconds": float(stats["seconds"])}


def key_of(row: Mapping[str, Any]) -> tuple[str, str, int, str, float]:
    """A row's identity in the JSON-lines file.

    Parameters
    ----------
    row : mapping
        A row (``reading``, ``platform``, ``seed``, ``alloc``, ``factor``).

    Returns
    -------
    tuple
        ``(reading, platform, seed, alloc, factor)``.
    """
    return (str(row["reading"]), str(row["platform"]), int(row["seed"]), str(row["alloc"]),
            float(row["factor"]))


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows already in ``path`` (none when it is absent).

    Parameters
    ----------
    path : pathlib.Path
        The JSON-lines file.

    Returns
    -------
    list of dict
        Its rows, in order.
    """
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run(readings: Iterable[str], platforms: Iterable[str], seeds: Iterable[int],
        factors: Iterable[float], out: Path, data: Path | None = None,
        log: bool = True) -> list[dict[str, Any]]:
    """Every (reading, platform, seed, variant, factor) not yet in ``out``, appended to it.

    Parameters
    ----------
    readings, platforms : iterable of str
        Of :data:`READINGS` and :data:`~lpsched.batch.reproduce.CH5_PLATFORMS`.
    seeds : iterable of int
        The instances.
    factors : iterable of float
        Penalty factors (2: the seed's; 1: decision 405's no-penalty runs).
    out : pathlib.Path
        The JSON-lines file (appended to).
    data : pathlib.Path, optional
        The trace folder.
    log : bool
        One line per instance on stderr.

    Returns
    -------
    list of dict
        Every row of ``out`` after the run.
    """
    done = {key_of(r) for r in read_rows(out)}
    seeds, factors = list(seeds), list(factors)
    with out.open("a") as fh:
        for reading in readings:
            for plat in platforms:
                if unchanged(reading, plat) or (reading == "curie-shallow"
                                                 and plat != "curie"):
                    continue  # the default's instances (reported from its rows)
                for seed in seeds:
                    todo = [(a, f) for a in PLATFORM_ALLOCS for f in factors
                            if (reading, plat, seed, a, float(f)) not in done]
                    if not todo:
                        continue
                    t0 = time.process_time()
                    work, topo = reading_instance(plat, seed, reading, data)
                    for alloc, f in todo:
                        row = {"reading": reading, "platform": plat, "seed": seed,
                               "alloc": alloc, "factor": float(f),
                               "tree": ",".join(str(v) for v in topo.arity),
                               "machine": int(topo.installed),
                               **run_cell(work, topo, "cont-ff" if reading == "cont-ff"
                                          and alloc == "cont" else alloc, f)}
                        fh.write(json.dumps(row) + "\n")
                        fh.flush()
                    if log:
                        print(f"{reading} {plat} seed {seed}: {work.jobs} jobs, "
                              f"{time.process_time() - t0:.1f} s CPU", file=sys.stderr)
    return read_rows(out)


def summarise(rows: list[dict[str, Any]], reading: str, platform: str,
              seeds: Iterable[int] | None = None) -> dict[str, Any]:
    """Seed 000 [L3753-L3764]'s normalisation (each variant's mean over basic's mean at
    factor 2) and decision 405's decomposition, for one reading and platform.

    Parameters
    ----------
    rows : list of dict
        Rows of :func:`run`.
    reading, platform : str
        Which rows.
    seeds : iterable of int, optional
        Only these instances (default every instance with a basic row at factor 2).

    Returns
    -------
    dict
        ``instances``; ``ratio`` (variant -> mean sum flow / basic's), ``ratio_ok`` (the
        same over successful jobs, reading (p)), ``best``; per variant ``penalised``,
        ``failed`` (shares of jobs) and ``inflation`` (executed minus trace run time, over
        basic's sum flow); with factor-1 rows, ``G`` and ``P`` (over basic's sum flow) and
        ``identity`` (the largest ``|S(v,2) − S(basic,2) − G − P + P_basic|``); ``se``
        (variant -> the paired standard error of ``ratio − 1`` over the instances) and
        ``plat_minus_beplat`` (mean and standard error of the paired difference).
    """
    mine = [r for r in rows if r["reading"] == reading and r["platform"] == platform]
    want = set(seeds) if seeds is not None else None
    base2 = {r["seed"] for r in mine if r["alloc"] == "basic" and r["factor"] == 2.0}
    keep = base2 if want is None else base2 & want

    def mean(alloc: str, factor: float, field: str) -> float | None:
        vals = [r[field] for r in mine if r["alloc"] == alloc and r["factor"] == factor
                and r["seed"] in keep]
        return float(np.mean(vals)) if len(vals) == len(keep) and vals else None

    out: dict[str, Any] = {"instances": len(keep), "ratio": {}, "ratio_ok": {},
                           "penalised": {}, "failed": {}, "inflation": {}}
    b2 = mean("basic", 2.0, "sum_flow")
    b2ok = mean("basic", 2.0, "sum_flow_ok")
    if not b2:
        return out
    for alloc in PLATFORM_ALLOCS:
        s2 = mean(alloc, 2.0, "sum_flow")
        if s2 is None:
            continue
        out["ratio"][alloc] = s2 / b2
        ok = mean(alloc, 2.0, "sum_flow_ok")
        out["ratio_ok"][alloc] = ok / b2ok if ok is not None and b2ok else float("nan")
        jobs = mean(alloc, 2.0, "jobs") or 1.0
        out["penalised"][alloc] = (mean(alloc, 2.0, "penalised") or 0.0) / jobs
        out["failed"][alloc] = (mean(alloc, 2.0, "failed") or 0.0) / jobs
        out["inflation"][alloc] = ((mean(alloc, 2.0, "sum_exec") or 0.0)
                                   - (mean(alloc, 2.0, "sum_run") or 0.0)) / b2
    out["se"] = {}  # paired standard error of ratio - 1 over the instances
    per_seed = {(r["alloc"], r["seed"]): r["sum_flow"] for r in mine
                if r["factor"] == 2.0 and r["seed"] in keep}
    for alloc in out["ratio"]:
        diff = [(per_seed[(alloc, k)] - per_seed[("basic", k)]) / b2 for k in sorted(keep)
                if (alloc, k) in per_seed and ("basic", k) in per_seed]
        out["se"][alloc] = float(np.std(diff, ddof=1) / np.sqrt(len(diff))) \
            if len(diff) > 1 else float("nan")
    if "plat" in out["ratio"] and "beplat" in out["ratio"]:
        diff = [(per_seed[("plat", k)] - per_seed[("beplat", k)]) / b2 for k in sorted(keep)
                if ("plat", k) in per_seed and ("beplat", k) in per_seed]
        out["plat_minus_beplat"] = (float(np.mean(diff)), float(
            np.std(diff, ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else float("nan"))
    variants = [a for a in PLATFORM_ALLOCS[1:] if a in out["ratio"]]
    out["best"] = min(variants, key=lambda a: out["ratio"][a]) if variants else None
    b1 = mean("basic", 1.0, "sum_flow")
    if b1 is not None:
        out["G"], out["P"] = {}, {}
        for alloc in PLATFORM_ALLOCS:
            s1, s2 = mean(alloc, 1.0, "sum_flow"), mean(alloc, 2.0, "sum_flow")
            if s1 is None or s2 is None:
                continue
            out["G"][alloc] = (s1 - b1) / b2
            out["P"][alloc] = (s2 - s1) / b2
        out["identity"] = max(abs(out["ratio"][a] - 1 - out["G"][a] - out["P"][a]
                                  + out["P"]["basic"]) for a in out["G"])
    return out


def table_text(summary: Mapping[str, Mapping[str, Any]], title: str) -> str:
    """A platform x variant table of the sum-flow ratios and best variant (Markdown).

    Parameters
    ----------
    summary : mapping
        Platform -> :func:`summarise`'s result.
    title : str
        The first line.

    Returns
    -------
    str
        The table (``—`` where a figure is absent).
    """
    lines = [title, "", "| platform | n | " + " | ".join(PLATFORM_ALLOCS[1:]) + " | best |",
             "|---|---|" + "---|" * (len(PLATFORM_ALLOCS) - 1) + "---|"]
    for plat, s in summary.items():
        cells = [f"{s['ratio'][a]:.3f}" if a in s.get("ratio", {}) else "—"
                 for a in PLATFORM_ALLOCS[1:]]
        lines.append(f"| {plat} | {s.get('instances', 0)} | " + " | ".join(cells)
                     + f" | {s.get('best') or '—'} |")
    return "\n".join(lines)


def verdicts(rows: list[dict[str, Any]], reading: str, platforms: Iterable[str],
             seeds: Iterable[int] | None = None) -> dict[str, str]:
    """The verdict of each sum-flow row of seed 000 ch. 5's table under one reading: each
    variant's direction against basic's 1 [L3779-L3788] and best-effort platform below
    every other variant [L3781-L3782], by :func:`lpsched.batch.fidelity.vs_seed` (the
    package's one rule, paired noise over the instances) on the reading's factor-2 rows.

    Parameters
    ----------
    rows : list of dict
        Rows of :func:`run`.
    reading : str
        Which rows (a platform it leaves unchanged, :func:`unchanged`, reads the default's).
    platforms : iterable of str
        Keys of :data:`~lpsched.batch.reproduce.CH5_PLATFORMS`.
    seeds : iterable of int, optional
        Only these instances (default every instance in ``rows``).

    Returns
    -------
    dict
        ``"platform alloc"`` (``alloc`` ``best`` for best-effort platform's row) -> the
        row's kind without its cause: ``match``, ``close``, ``undetermined``, ``differs``
        or ``not measured``.
    """
    from lpsched.batch.fidelity import vs_seed

    plats = set(platforms)
    want = set(seeds) if seeds is not None else None
    mine = [r for r in rows if r["factor"] == 2.0 and r["platform"] in plats
            and r["reading"] == ("default" if unchanged(reading, r["platform"]) else reading)
            and (want is None or r["seed"] in want)]
    out = {}
    for row in vs_seed("platform-level", mine, []).rows:
        plat, _, rest = row.figure.partition(": ")
        if plat not in plats:
            continue
        if rest.endswith("sum flow / basic's"):
            out[f"{plat} {rest.split(' ')[0]}"] = row.kind.split(":")[0]
        elif rest.startswith("beplat's sum flow below"):
            out[f"{plat} best"] = row.kind.split(":")[0]
    return out


def decomposition_text(summary: Mapping[str, Mapping[str, Any]]) -> str:
    """Decision 405's split per platform (Markdown): for each variant ``G``, ``P``, the
    direct inflation, and the shares of jobs placed above ``L_min`` and killed.

    Parameters
    ----------
    summary : mapping
        Platform -> :func:`summarise`'s result (with factor-1 rows).

    Returns
    -------
    str
        One table per platform.
    """
    out = []
    for plat, s in summary.items():
        if "G" not in s:
            continue
        out += [f"{plat} ({s['instances']} instances; over basic's sum flow at F = 2; "
                f"identity error {s['identity']:.1e})", "",
                "| variant | ratio | G (constraint, no penalty) | P (penalty) "
                "| direct inflation | R > 0 | killed |", "|---|---|---|---|---|---|---|"]
        for a in PLATFORM_ALLOCS:
            if a in s["G"]:
                out.append(f"| {a} | {s['ratio'][a]:.3f} | {s['G'][a]:+.3f} | "
                           f"{s['P'][a]:+.3f} | {s['inflation'][a]:+.3f} | "
                           f"{100 * s['penalised'][a]:.1f} % | {100 * s['failed'][a]:.2f} % |")
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """The command line (``--help``).

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0, or 2 on a bad option.
    """
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Readings: " + ", ".join(READINGS))
    ap.add_argument("--reading", action="append", choices=READINGS,
                    help="a reading (repeatable; default: default)")
    ap.add_argument("--platform", action="append", choices=sorted(CH5_PLATFORMS),
                    help="a Table 5.2 platform (repeatable; default: every one but ricc)")
    ap.add_argument("--instances", type=int, default=30, help="instances (default 30)")
    ap.add_argument("--first-seed", type=int, default=0, help="first instance (default 0)")
    ap.add_argument("--decompose", action="store_true",
                    help="also run factor 1 (no penalty): decision 405's split")
    ap.add_argument("--summary-only", action="store_true",
                    help="only summarise the rows already in --out")
    ap.add_argument("--out", type=Path, required=True, help="the JSON-lines file of rows")
    ap.add_argument("--json", type=Path, help="also write the summaries there")
    args = ap.parse_args(argv)
    if args.instances < 1:
        ap.error("--instances must be at least 1")
    readings = args.reading or ["default"]
    platforms = args.platform or [p for p in CH5_PLATFORMS if p != "ricc"]
    seeds = range(args.first_seed, args.first_seed + args.instances)
    if not args.summary_only:
        missing = [CH5_PLATFORMS[p][0] for p in platforms
                   if not (data_dir() / CH5_PLATFORMS[p][0]).exists()]
        if missing:
            print(f"ch5_readings: traces not in {data_dir()} (set LPSCHED_DATA): "
                  + ", ".join(missing), file=sys.stderr)
            return 2
        run(readings, platforms, seeds, (2.0, 1.0) if args.decompose else (2.0,), args.out)
    rows = read_rows(args.out)
    every: dict[str, Any] = {}
    for reading in readings:
        summ = {p: summarise(rows, "default" if unchanged(reading, p) else reading, p, seeds)
                for p in platforms if reading != "curie-shallow" or p == "curie"}
        every[reading] = summ
        print(table_text(summ, f"reading {reading}: mean sum flow / basic's"))
        print()
        v = verdicts(rows, reading, summ, seeds)
        bad = [k for k, x in v.items() if x == "differs"]
        print(f"verdicts (platforms run): {sum(x in ('match', 'close') for x in v.values())}"
              f" match or close, {len(bad)} differ: {', '.join(bad) or 'none'}")
        print()
        dec = decomposition_text({p: s for p, s in summ.items() if not unchanged(reading, p)})
        if dec:
            print(dec)
    if args.json:
        args.json.write_text(json.dumps(every, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
