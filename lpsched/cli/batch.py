"""Subcommands of the batch-cluster family (seeds 000 ch. 4-5, 001): ``swf-info``, ``batch``
and ``reproduce contiguity | platform-level | topology-aware``."""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.batch.allocation import ALLOCATORS
from lpsched.cli.common import add_runner_options, dump_json, run_experiment
from lpsched.cli.outputs import atomic_output, check_output, check_output_folder, write_rows_csv
from lpsched.errors import InvalidInstanceError, LpschedError, ParseError


def _default_trace(name: str) -> str:
    """``name`` in ``$LPSCHED_DATA`` or ``../shared/data`` (relative to the working
    directory); a clear error otherwise."""
    import os

    for folder in (os.environ.get("LPSCHED_DATA"), "../shared/data", "shared/data"):
        if folder and (Path(folder) / name).exists():
            return str(Path(folder) / name)
    raise ParseError(name, "trace not found in $LPSCHED_DATA or ../shared/data: give --trace")


def _cmd_reproduce_batch(args: argparse.Namespace) -> int:
    """Checks the options, the output folder and the trace before any cell runs; the CSV is
    written atomically (an existing one is replaced)."""

    from lpsched.batch import reproduce as exp

    name = args.experiment
    _check_reproduce_options(args)
    out = check_output_folder(args.out, "--out")
    csv_path = check_output(str(out / f"{name}.csv"), "--out")
    if name == "contiguity":
        trace = args.trace or _default_trace("CEA-Curie-2011-2.1-cln.swf.gz")
        cells = exp.contiguity_cells(trace, args.instances, args.jobs_per_instance,
                                     args.processors, args.cluster_size, args.first_seed)
        fn, summarise = exp.contiguity_cell, exp.contiguity_summary
    elif name == "platform-level":
        trace = args.trace or _default_trace("hpc2n-excerpt.swf")
        cells = exp.platform_cells(trace, args.instances, args.periods, args.topology,
                                   first_seed=args.first_seed)
        fn, summarise = exp.platform_cell, exp.platform_summary
    else:
        trace = args.trace or _default_trace("LLNL-Atlas-2006-2.1-cln.swf")
        cells = exp.topology_cells(trace, _speedups(args.speedups), args.limit)
        fn, summarise = exp.topology_cell, exp.topology_summary
    rows, ran, wall = run_experiment(name, cells, fn, out, args, exp.ROW_SCHEMAS[name])
    write_rows_csv(csv_path, rows)
    summary = summarise(rows)
    print(dump_json({"experiment": name, "trace": trace, "summary": summary}))
    print(f"{ran} cells computed now, {len(cells) - ran} found in {out / (name + '.sqlite')};"
          f" {wall:.1f} s; rows in {csv_path}", file=sys.stderr)
    return 0


def _at_least(args: argparse.Namespace, option: str, least: int) -> None:
    value = getattr(args, option.lstrip("-").replace("-", "_"), None)
    if value is not None and value < least:
        raise LpschedError(f"{option} {value}: must be a whole number >= {least}")


def _check_reproduce_options(args: argparse.Namespace) -> None:
    """The numeric options of ``reproduce contiguity | platform-level | topology-aware``."""
    for option, least in (("--instances", 1), ("--jobs", 1), ("--first-seed", 0),
                          ("--jobs-per-instance", 1), ("--cluster-size", 1),
                          ("--periods", 1), ("--limit", 0)):
        _at_least(args, option, least)
    if getattr(args, "speedups", None) is not None:
        _speedups(args.speedups)
    if getattr(args, "processors", None) is not None:
        _machine_option(args.processors, "--processors")
        if args.cluster_size > args.processors:
            raise LpschedError(f"--cluster-size {args.cluster_size}: larger than the machine "
                               f"(--processors {args.processors})")


def _speedups(text: str) -> list[float]:
    """``--speedups 0,5,10``: percentages in ``[0, 100)``."""
    values = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            raise LpschedError(f"--speedups {text}: {part.strip()!r} is not a number") \
                from None
        if not 0 <= value < 100:
            raise LpschedError(f"--speedups {text}: {part.strip()} is not a percentage in "
                               "[0, 100)")
        values.append(value)
    return values


def _machine_option(value: int, option: str) -> int:
    from lpsched.core.swf import MAX_PROCESSORS

    if not 1 <= value <= MAX_PROCESSORS:
        raise LpschedError(f"{option} {value}: must be a whole number from 1 to "
                           f"{MAX_PROCESSORS:,} (the largest machine lpsched simulates)")
    return value


def _cmd_swf_info(args: argparse.Namespace) -> int:
    from lpsched.core.swf import read_swf, to_workload

    if args.processors is not None:
        _machine_option(args.processors, "--processors")
    trace = read_swf(args.trace, lenient=args.lenient)
    work = to_workload(trace, size=args.size, estimate=args.estimate,
                       processors=args.processors)
    out = {"trace": args.trace, "max_procs": trace.max_procs, **work.report()}
    if args.json:
        print(dump_json(out))
    else:
        print(f"{args.trace}: {trace.records} job lines read, machine {work.processors} "
              "processors")
        print(f"kept {work.jobs} jobs; {_dropped_text(work)}; rounded: "
              f"{work.rounded or 'none'}; fallbacks: {work.fallbacks}")
    return 0


def _dropped_text(work: Any) -> str:
    """``dropped 2: 1 malformed line skipped (--lenient), 1 no run time (...); skipped
    lines 3`` (the first ten skipped lines)."""
    if not work.dropped:
        return "dropped: none"
    text = f"dropped {sum(work.dropped.values())}: " + ", ".join(
        f"{count} {why}" for why, count in work.dropped.items())
    if work.skipped_lines:
        shown = ", ".join(str(line) for line in work.skipped_lines[:10])
        more = ", ..." if len(work.skipped_lines) > 10 else ""
        why = ", ".join(f"{count} {reason}" for reason, count in work.skip_reasons.items())
        text += f"; skipped lines {shown}{more} ({why})"
    return text


def _ranges(runs: Any, first: int, stop: int) -> list[str]:
    """The processors of jobs ``first`` to ``stop - 1``, from their runs (a
    :class:`~lpsched.batch.procsets.ProcSets`: ``[lo, hi)`` of consecutive ids, increasing,
    none adjacent), each as a compact range list, e.g. ``0-3,8``: one string per run, then
    one join per job, O(runs)."""
    from itertools import pairwise

    offsets = runs.offsets[first:stop + 1].tolist()
    lo, hi = runs.lo[offsets[0]:offsets[-1]].tolist(), runs.hi[offsets[0]:offsets[-1]].tolist()
    parts = [str(a) if b - a == 1 else f"{a}-{b - 1}" for a, b in zip(lo, hi, strict=True)]
    return [",".join(parts[a - offsets[0]:b - offsets[0]]) for a, b in pairwise(offsets)]


def _cmd_batch(args: argparse.Namespace) -> int:
    """Options and ``--out`` are checked before the trace is read; the schedule CSV is
    written atomically (an existing file is replaced) once the simulation is validated."""
    from lpsched.batch.simulator import batch_metrics, simulate_batch, validate_batch

    if args.out == "-" and args.json:
        raise LpschedError("--out - and --json both write to stdout: give --out a file name")
    if args.out and args.out != "-":
        check_output(args.out, "--out")
    _at_least(args, "--limit", 0)
    _at_least(args, "--cluster-size", 1)
    if args.processors is not None:
        _machine_option(args.processors, "--processors")
    penalty = _penalty(args.penalty)
    work = _batch_workload(args)
    topo = _batch_topology(args, work)
    sched, stats = simulate_batch(work, args.policy, kill=args.kill_at_estimate,
                                  alloc=args.alloc, cluster_size=args.cluster_size,
                                  topology=topo, qct=args.qct, penalty=penalty,
                                  speedup=args.speedup,
                                  compression=args.compression)
    m = int(topo.installed if topo else work.processors or 0)
    cluster = topo.cluster_size if topo else args.cluster_size
    validate_batch(work, sched, m, cluster_size=cluster, topology=topo, forced=args.alloc,
                   qct=args.qct)
    report = work.report()
    out = {"trace": args.trace, "policy": args.policy, "alloc": args.alloc,
           "compression": (args.compression or "textbook") if args.policy == "conservative"
           else None,
           "topology": topo.describe() if topo else None,
           **{k: report[k] for k in ("records", "jobs", "dropped", "skipped_lines",
                                     "rounded")},
           "processors": m,
           **batch_metrics(work, sched, m, cluster_size=cluster, topology=topo),
           "seconds": stats["seconds"],
           "jobs_per_second": work.jobs / stats["seconds"] if stats["seconds"] > 0 else None,
           "valid": True}
    if args.out:
        _write_schedule(args.out, work, sched)
    if args.json:
        print(dump_json(out))
    else:  # with the CSV on stdout, the summary goes to stderr
        stream = sys.stderr if args.out == "-" else sys.stdout
        print(f"{args.policy} on {args.trace}: {work.jobs} jobs on {m} processors, "
              f"makespan {out['makespan']:.0f} s, mean wait {out['mean_wait']:.0f} s, "
              f"mean bounded slowdown {out['mean_bounded_slowdown']:.2f}, utilisation "
              f"{out['utilisation']:.3f} ({out['jobs_per_second'] or 0:.0f} jobs/s)",
              file=stream)
        print(f"{out['records']} job lines read; {_dropped_text(work)}"
              + (f"; rounded up: {work.rounded}" if work.rounded else ""), file=stream)
    return 0


def _penalty(spec: str | None) -> tuple[str, float] | None:
    """``--penalty linear:F | quadratic:F`` with a finite ``F >= 0`` (default 2)."""
    if not spec:
        return None
    kind, _, factor = spec.partition(":")
    try:
        value = float(factor or 2)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise InvalidInstanceError("penalty", spec, "expected linear:F or quadratic:F with "
                                   "a finite F >= 0")
    return kind, value


def _batch_workload(args: argparse.Namespace) -> Any:
    """The trace's jobs under the options, every record accounted for (``--limit`` cuts
    count as dropped); an error when none is left."""
    from dataclasses import replace

    from lpsched.core.swf import read_swf, to_workload

    work = to_workload(read_swf(args.trace, lenient=args.lenient), size=args.size,
                       estimate=args.estimate, processors=args.processors).require_jobs()
    if args.limit and args.limit < work.jobs:
        keep = slice(0, args.limit)
        work = replace(work, job=work.job[keep], submit=work.submit[keep],
                       run=work.run[keep], size=work.size[keep],
                       estimate=work.estimate[keep],
                       dropped={**work.dropped, f"after the first {args.limit} (--limit)":
                                work.jobs - args.limit})
    if args.offline:  # seed 000 ch. 4: every job known at time 0, in trace order
        work = replace(work, submit=np.zeros_like(work.submit))
    return work


def _batch_topology(args: argparse.Namespace, work: Any) -> Any:
    """The ``--topology`` tree over the machine, or ``None``; checks that the machine
    size is known and that ``--cluster-size`` fits in it."""
    if args.topology:
        from lpsched.batch.topology import parse_topology
        from lpsched.core.swf import MAX_PROCESSORS

        topo = parse_topology(args.topology, int(work.processors or 0) or None)
        if topo.installed > MAX_PROCESSORS:  # no machine size: every leaf is installed
            raise LpschedError(f"--topology {args.topology}: {topo.installed:,} leaves, more "
                               f"than the largest machine ({MAX_PROCESSORS:,}): give the "
                               "machine size with --processors")
        return topo
    if work.processors is None:
        raise ParseError(args.trace, "the header gives no MaxProcs or MaxNodes: give the "
                         "machine size with --processors")
    if args.cluster_size is not None and args.cluster_size > work.processors:
        raise LpschedError(f"--cluster-size {args.cluster_size}: larger than the machine "
                           f"({work.processors} processors)")
    return None


def _write_schedule(path: str, work: Any, sched: Any) -> None:
    """The schedule as CSV on stdout (``-``) or atomically into ``path``: one row per job,
    its processors as ranges read from the runs of its set (no array of ids is built)."""
    import csv

    from lpsched.batch.procsets import proc_runs

    runs = proc_runs(sched.procs)[0]
    columns = (work.job, work.submit, sched.start, sched.end, work.size)
    with contextlib.ExitStack() as stack:
        fh = sys.stdout if path == "-" else stack.enter_context(
            atomic_output(path, "w", newline=""))
        w = csv.writer(fh)
        w.writerow(["job_id", "submit", "start", "end", "procs", "processors"])
        for first in range(0, work.jobs, 1 << 15):  # in chunks: bounded memory
            stop = min(first + (1 << 15), work.jobs)
            w.writerows(zip(*(c[first:stop].tolist() for c in columns),
                            _ranges(runs, first, stop), strict=True))


def add_reproduce(rep_sub: Any) -> None:
    """``reproduce contiguity | platform-level | topology-aware``."""
    for name, help_ in (("contiguity", "seed 000 ch. 4: contiguity and locality, offline"),
                        ("platform-level", "seed 000 ch. 5: platform level on fat trees"),
                        ("topology-aware", "seed 001: (quasi-)contiguous on k-ary n-trees")):
        rb = rep_sub.add_parser(name, help=help_)
        rb.add_argument("--trace", help="SWF trace (default: the seed's, from "
                        "$LPSCHED_DATA or ../shared/data)")
        rb.add_argument("--instances", type=int, default=512 if name == "contiguity" else 30)
        add_runner_options(rb, "folder of the store and the CSV (created if missing; the CSV "
                                "is replaced atomically)")
        rb.add_argument("--first-seed", type=int, default=0)  # checked with the others
        if name == "contiguity":
            rb.add_argument("--jobs-per-instance", type=int, default=300)
            rb.add_argument("--processors", type=int, default=512)
            rb.add_argument("--cluster-size", type=int, default=16)
        if name == "platform-level":
            rb.add_argument("--periods", type=int, default=1, help="7-day periods each")
            rb.add_argument("--topology", help="default: clusters of 16, arity 4")
        if name == "topology-aware":
            rb.add_argument("--speedups", default="0,5,10,15,20,25,30,35,40,45,50")
            rb.add_argument("--limit", type=int, default=0,
                            help="only the first N jobs (0, the default: every job)")
        rb.set_defaults(func=_cmd_reproduce_batch)



def add_commands(sub: Any) -> None:
    """swf-info, batch."""
    swf = sub.add_parser("swf-info", help="read an SWF trace and report the jobs kept and "
                         "dropped under the chosen conventions")
    swf.add_argument("trace", help=".swf or .swf.gz")
    swf.add_argument("--size", choices=("requested", "allocated"), default="requested")
    swf.add_argument("--estimate", choices=("requested", "runtime"), default="requested")
    swf.add_argument("--lenient", action="store_true", help="skip malformed job lines and "
                     "round fractional processor counts up, both counted in the report")
    swf.add_argument("--processors", type=int, help="machine size (default: the header's "
                     "MaxProcs or MaxNodes)")
    swf.add_argument("--json", action="store_true")
    swf.set_defaults(func=_cmd_swf_info)

    bat = sub.add_parser("batch", help="simulate a batch cluster on an SWF trace "
                         "(FCFS, EASY or conservative backfilling)")
    bat.add_argument("trace", help=".swf or .swf.gz")
    bat.add_argument("--policy", choices=("fcfs", "easy", "conservative"), default="easy")
    bat.add_argument("--alloc", choices=ALLOCATORS, default="basic",
                     help="processor allocation (seed 000 ch. 5 and seed 001 names)")
    bat.add_argument("--cluster-size", type=int, default=None,
                     help="processors per cluster (for beloc/loc and the locality metric)")
    bat.add_argument("--topology", help="fat-tree:CLUSTER,ARITY,... or kary-ntree:K,N "
                     "(needed by beplat, plat, contiguous, quasi-contiguous, --penalty)")
    bat.add_argument("--qct", type=int, default=20,
                     help="quasi-contiguity threshold, percent of the job size (seed 001)")
    bat.add_argument("--penalty", help="placement penalty linear:F or quadratic:F "
                     "(seed 000 Eq. 5.1/5.2; jobs past their estimate fail)")
    bat.add_argument("--compression", choices=("textbook", "reassign", "none", "rebuild"),
                     default=None, help="conservative only, when jobs end before their "
                     "estimate: textbook (default; Mu'alem & Feitelson 2001) re-inserts every "
                     "queued job, in queue order, at the earliest time it fits, the others "
                     "staying in place (no reservation ever moves later); reassign (seed 000 "
                     "§5.5) only starts queued jobs now when they fit now without moving any "
                     "other reservation; none keeps every reservation; rebuild re-plans all "
                     "reservations from the running jobs at every event")
    bat.add_argument("--reassign", dest="compression", action="store_const",
                     const="reassign", help="the same as --compression reassign")
    bat.add_argument("--speedup", type=float, default=0.0, help="percent run-time gain of "
                     "parallel jobs under contiguous/quasi-contiguous (seed 001)")
    bat.add_argument("--size", choices=("requested", "allocated"), default="requested")
    bat.add_argument("--estimate", choices=("requested", "runtime"), default="requested")
    bat.add_argument("--kill-at-estimate", action="store_true")
    bat.add_argument("--lenient", action="store_true", help="skip malformed job lines and "
                     "round fractional processor counts up, both counted in the report")
    bat.add_argument("--processors", type=int, help="machine size (default: the header's "
                     "MaxProcs or MaxNodes)")
    bat.add_argument("--limit", type=int, default=0,
                     help="only the first N jobs (0, the default: every job)")
    bat.add_argument("--offline", action="store_true",
                     help="submit every job at time 0 (seed 000 ch. 4 experiments)")
    bat.add_argument("--out", help="CSV of the schedule ('-': stdout); checked before the "
                     "simulation, replaced atomically if it exists")
    bat.add_argument("--json", action="store_true")
    bat.set_defaults(func=_cmd_batch)
