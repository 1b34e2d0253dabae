"""``lpsched reproduce all --out DIR``: every reproduction of the five seeds at the seeds'
sizes, resumable, then the reports.

The experiments of :data:`RUNS` are read with their defaults (the seeds' own settings), each
into ``DIR/<experiment>.sqlite`` exactly as ``lpsched reproduce <experiment> --out DIR``
would write it; their cells run together on one executor (``--jobs N`` local processes or
``--executor dask://HOST:PORT``) under one progress line, whose time left is estimated by
work (each experiment's expected CPU time at the seed's size, :data:`RUNS`, shared among
its cells by the experiment's own cost of a cell). Killing the run loses at most the cells
in flight: running the command again computes only what is missing. Then each
experiment's tables, CSV files and figures are written from its store (what it prints goes
to ``DIR/<run>.txt``), and ``lpsched report`` writes one page per seed into
``DIR/report``. An experiment whose traces are missing is skipped with the reason (its rows
read not measured in the report).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lpsched.cli import common
from lpsched.cli.common import DATA_HELP, add_runner_options, dump_json
from lpsched.errors import LpschedError

__all__ = ["RUNS", "Run", "add_reproduce"]


@dataclass(frozen=True)
class Run:
    """One ``lpsched reproduce`` command of the whole set: its label, its arguments after
    ``reproduce``, whether it reads traces (``--data``), and its expected CPU seconds at the
    seed's size on this machine (a weight for the time left, not a promise)."""

    label: str
    argv: tuple[str, ...]
    traces: bool
    cpu: float
    reduced: tuple[str, ...] = ()


#: the five seeds' reproductions at their own sizes (each command's defaults), in order;
#: ``reduced``: the options ``--reduced`` adds (a run of a few minutes in all, every row of
#: the reports then not measured or judged as a reduced run)
RUNS: tuple[Run, ...] = (
    # the MPI profile before the SimGrid one: both profiles share cbs3m.sqlite and its
    # output files, and the files the last run writes (Tables 4-8) are the ones kept. The
    # cheap experiments first, so that an interrupted run has finished the most of them
    Run("cbs3m-mpi", ("cbs3m", "--profile", "mpi", "--instances", "10"), False, 15.0,
        ("--instances", "2")),
    Run("contiguity", ("contiguity",), True, 30.0, ("--instances", "2")),
    Run("ostrich", ("ostrich",), True, 25.0, ("--instances", "2", "--limit", "3000")),
    Run("redirection", ("redirection", "--no-plots"), True, 60.0,
        ("--traces", "KTH-SP2-1996-2.1-cln", "--instances", "1")),
    Run("redirection-tuning", ("redirection", "--tune", "--no-plots"), True, 30.0,
        ("--trace", "KTH-SP2-1996-2.1-cln", "--instances", "1")),
    Run("faircamp", ("faircamp",), False, 225.0, ("--instances", "3")),
    Run("ptg", ("ptg", "--no-figures"), False, 390.0, ("--scenarios", "4")),
    Run("cbs3m", ("cbs3m",), False, 1150.0, ("--instances", "3")),
    Run("platform-level", ("platform-level",), True, 650.0,
        ("--trace", "KTH-SP2-1996-2.1-cln.swf.gz", "--instances", "1")),
    Run("topology-aware", ("topology-aware",), True, 700.0,
        ("--trace", "HPC2N-2002-2.1-cln.swf.gz", "--limit", "2000")),
)


def _run_args(run: Run, args: argparse.Namespace) -> argparse.Namespace:
    """The parsed command line of one run, with the shared options of ``reproduce all``."""
    from lpsched.cli import build_parser

    argv = ["reproduce", *run.argv, *(run.reduced if args.reduced else ()), "--out",
            args.out, "--jobs", str(args.jobs), "--executor", args.executor, "--quiet"]
    if run.traces and args.data:
        argv += ["--data", args.data]
    return build_parser(argv).parse_args(argv)


def _collect(runs: tuple[Run, ...], args: argparse.Namespace,
             ) -> tuple[list[Any], dict[str, str], dict[str, argparse.Namespace]]:
    """Each run's plan (its command stopped where it would run its cells), the runs
    skipped with their reason, and each run's parsed arguments."""
    from lpsched.core.runner import Plan

    plans: list[Plan] = []
    skipped: dict[str, str] = {}
    parsed: dict[str, argparse.Namespace] = {}
    for run in runs:
        common.PLANS = []
        try:
            parsed[run.label] = ns = _run_args(run, args)
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                ns.func(ns)
            skipped[run.label] = "the command ran no cells"
        except common.PlanCollected:
            plans += [Plan(p.experiment, p.cells, p.fn, p.store, p.group, p.schema, p.cost,
                           run.cpu) for p in common.PLANS]
        except LpschedError as exc:
            skipped[run.label] = str(exc)
        finally:
            common.PLANS = None
    return _merge(plans), skipped, parsed


def _merge(plans: list[Any]) -> list[Any]:
    """One plan per store and experiment: the runs that share one (cbs3m's two profiles)
    are run as one, their cells and weights added."""
    from lpsched.core.runner import Plan

    merged: dict[tuple[str, str], Plan] = {}
    for plan in plans:
        key = (str(plan.store.path), plan.experiment)
        if key in merged:
            first = merged[key]
            plan.store.close()
            merged[key] = Plan(first.experiment, [*first.cells, *plan.cells], first.fn,
                               first.store, first.group, first.schema, first.cost,
                               first.weight + plan.weight)
        else:
            merged[key] = plan
    return list(merged.values())


def _finish(runs: tuple[Run, ...], parsed: dict[str, argparse.Namespace],
            skipped: dict[str, str], out: Path) -> None:
    """Write each run's tables, CSV files and figures from its store (what it prints, on
    stdout and stderr, into ``out/<label>.txt``)."""
    from lpsched.cli.outputs import atomic_output

    for run in runs:
        if run.label in skipped:
            continue
        buffer = io.StringIO()
        ns = parsed[run.label]
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
            ns.func(ns)
        with atomic_output(out / f"{run.label}.txt", "w") as fh:
            fh.write(buffer.getvalue())


def _cmd_all(args: argparse.Namespace) -> int:
    from lpsched.cli.outputs import check_output_folder
    from lpsched.core.runner import run_plans
    from lpsched.report import build_report
    from lpsched.report.manifest import EXPERIMENTS

    out = check_output_folder(args.out, "--out")
    t0 = time.perf_counter()
    plans, skipped, parsed = _collect(RUNS, args)
    try:
        # the traces parsed to plan the cells would be mapped by every forked worker: the
        # runner lets them go before it starts its pool (decision 700)
        computed = run_plans(plans, args.executor, args.jobs, not args.quiet, label="all",
                             release_caches=True)
    finally:
        for plan in plans:
            plan.store.close()
    _finish(RUNS, parsed, skipped, out)
    stores = [out / f"{name}.sqlite" for name in EXPERIMENTS
              if (out / f"{name}.sqlite").is_file()]
    report = build_report(stores, out / "report") if not args.no_report else None
    summary = {"out": str(out), "seconds": time.perf_counter() - t0,
               "experiments": {p.experiment: {"cells": len(p.cells), "computed_now": n}
                               for p, n in zip(plans, computed, strict=True)},
               "skipped": skipped,
               "report": None if report is None else {
                   "pages": [str(p) for p in report.pages], "tallies": report.tallies}}
    if args.json:
        print(dump_json(summary))
        return 0
    for plan, n in zip(plans, computed, strict=True):
        print(f"{plan.experiment}: {len(plan.cells):,} cells, {n:,} computed now")
    for label, why in skipped.items():
        print(f"{label}: skipped: {why}")
    if report is not None:
        print(f"reports in {out / 'report'} (index.html); validation rows per seed:")
        for seed, counts in report.tallies.items():
            print(f"  seed {seed}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print(f"{summary['seconds']:.0f} s")
    return 0


def add_reproduce(rep_sub: Any) -> None:
    """Add ``reproduce all`` to the experiments of ``lpsched reproduce``.

    Parameters
    ----------
    rep_sub : argparse subparsers action
        The experiments of ``lpsched reproduce``.
    """
    al = rep_sub.add_parser("all", help="every reproduction of the five seeds at the seeds' "
                            "sizes (resumable), then one report per seed")
    al.add_argument("--json", action="store_true", help="one JSON value on stdout: each "
                    "experiment's cells, the runs skipped and why, the report's pages and "
                    "each seed's tally")
    add_runner_options(al, "folder of every experiment's store, tables and figures, and of "
                       "the reports (DIR/report)")
    al.add_argument("--data", default=None, help=DATA_HELP)
    al.add_argument("--no-report", action="store_true", help="write no report pages")
    al.add_argument("--reduced", action="store_true", help="every experiment at a reduced "
                    "size (a few minutes in all): to try the pipeline, not to judge the "
                    "seeds (the reports say the rows come from reduced runs)")
    al.set_defaults(func=_cmd_all)
