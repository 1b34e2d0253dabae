"""Subcommands of the online-tasks family (seed 000 ch. 3): ``tasks`` (an instance from an
SWF trace), ``online`` (policies against proven lower bounds) and ``reproduce
redirection``."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from lpsched.cli.common import (
    DATA_HELP,
    add_runner_options,
    dump_json,
    read_json,
    report_fidelity,
    run_experiment,
    seed,
    swf_input,
    utf8_strings,
)
from lpsched.cli.outputs import atomic_output, check_output, check_output_folder, write_rows_csv
from lpsched.errors import LpschedError, ParseError

STATUS_HELP = ("jobs kept by their SWF status (field 11): 'all', 'completed' (1), 'failed' "
               "(0), 'cancelled' (5), or a comma list of these and status numbers "
               "(default {default})")


def _status(text: str) -> str:
    """Check a ``--status`` value while the options are read (argparse's one error line,
    exit status 2)."""
    from lpsched.core.swf import parse_status
    from lpsched.errors import InvalidInstanceError

    try:
        parse_status(text)
    except InvalidInstanceError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc.reason}") from None
    return text


_COLUMNS = ("max_stretch", "sum_stretch", "l2_stretch", "max_flow", "sum_flow", "l2_flow")


def _cmd_tasks(args: argparse.Namespace) -> int:
    from lpsched.tasks.instance import TaskInstance, instance_from_trace, parse_window

    if args.output:
        check_output(args.output, "-o", inputs=[args.trace])
    parse_window(args.window)
    if args.processors is not None and args.processors < 1:
        raise LpschedError(f"--processors {args.processors}: must be a whole number >= 1")
    with swf_input(args.trace, "lpsched tasks"):
        inst: TaskInstance = instance_from_trace(args.trace, args.window, args.seed,
                                                 args.method, args.processors, args.lenient,
                                                 args.status, args.zero_run)
    import json

    # the instance names its trace: a file name that is not UTF-8 is escaped, never written
    # as a lone surrogate (strict JSON readers refuse those)
    text = json.dumps(utf8_strings(inst.to_dict()), allow_nan=False) + "\n"
    if args.output:
        with atomic_output(args.output, "w") as fh:
            fh.write(text)
    out = {"tasks": inst.n, "processors": inst.processors, "total_work": inst.total_work,
           "horizon": float(inst.release.max()), **inst.meta, "output": args.output}
    if args.json:
        print(dump_json(out))
    elif not args.output:
        sys.stdout.write(text)
    if args.output:
        q = f", Q = {inst.meta['Q']:.2f}" if "Q" in inst.meta else ""
        print(f"wrote {args.output}: {inst.n} tasks from {inst.meta.get('jobs')} jobs on "
              f"{inst.processors} processors (method {args.method}{q}, window {args.window}, "
              f"seed {args.seed})", file=sys.stderr)
    dropped = inst.meta.get("trace_dropped") or {}
    if dropped:
        reasons = "; ".join(f"{count} {why}" for why, count in dropped.items())
        print(f"lpsched: note: {sum(dropped.values())} of the trace's "
              f"{inst.meta['trace_records']} job lines dropped before the window was cut "
              f"({reasons})", file=sys.stderr)
    return 0


def _check_params(args: argparse.Namespace) -> None:
    if args.md is not None and args.md < 1:
        raise LpschedError(f"--md {args.md}: the dedicated pool needs m_d >= 1")
    if args.tau is not None and not args.tau >= 1:
        raise LpschedError(f"--tau {args.tau}: the threshold must be >= 1")
    for key in ("b", "c"):
        value = getattr(args, key)
        if value is not None and not 0 <= value <= 1:
            raise LpschedError(f"--{key} {value}: must be in [0, 1]")
    if args.exact_limit < 0:
        raise LpschedError(f"--exact-limit {args.exact_limit}: must be >= 0")


def _cmd_online(args: argparse.Namespace) -> int:
    """``online``: the rows of :func:`lpsched.tasks.comparison.compare_policies` (whose
    ``to_frame()`` gives them as a DataFrame) as a table, JSON or CSV."""
    from lpsched.tasks.comparison import compare_policies
    from lpsched.tasks.instance import TaskInstance

    if args.json and args.table:
        raise LpschedError("--json and --table: choose one output")
    _check_params(args)
    if args.csv == "-" and (args.json or args.table):
        raise LpschedError("--csv - and --json/--table both write to stdout: give --csv a "
                           "file")
    if args.csv and args.csv != "-":
        check_output(args.csv, "--csv", inputs=[args.instance])
    inst = TaskInstance.from_dict(read_json(args.instance))
    res = compare_policies(inst, args.policy, md=args.md, tau=args.tau, b=args.b, c=args.c,
                           seed=args.seed, bounds=args.bounds, exact_limit=args.exact_limit)
    rows, bounds, bound_seconds = res.rows, res.bounds, res.bound_seconds
    if args.csv:
        _write_csv(args.csv, rows)
        if args.csv == "-":
            return 0
    if args.json:
        print(dump_json(rows[0] if len(rows) == 1 and args.policy != "all" else rows))
    elif args.table or len(rows) > 1:
        _print_table(inst, rows, bounds, bound_seconds)
    else:
        _print_one(inst, rows[0])
    return 0


def _write_csv(path: str, rows: list[dict[str, Any]]) -> None:
    """The rows without their nested bounds, to ``path`` (``-``: stdout)."""
    write_rows_csv(path, [{k: v for k, v in r.items() if k != "lower_bounds"} for r in rows])


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return f"{value:.4g}"


def _print_table(inst: Any, rows: list[dict[str, Any]], bounds: dict[str, Any],
                 seconds: float) -> None:
    head = ["policy", *_COLUMNS, "maxS/LB", "maxF/LB", "sumF/LB", "redirect", "seconds"]
    lines = [head]
    for r in rows:
        if r["status"] != "ok":
            lines.append([r["policy"], f"{r['status']}:", *([""] * (len(head) - 2))])
            continue
        lines.append([r["policy"], *(_fmt(r[c]) for c in _COLUMNS),
                      _fmt(r.get("max_stretch_over_lb")), _fmt(r.get("max_flow_over_lb")),
                      _fmt(r.get("sum_flow_over_lb")), str(r["redirections"]),
                      f"{r['seconds']:.3f}"])
    if bounds:
        lines.append(["lower bound", _fmt(bounds["max_stretch"]["value"]), "-", "-",
                      _fmt(bounds["max_flow"]["value"]), _fmt(bounds["sum_flow"]["value"]),
                      "-", "", "", "", "", f"{seconds:.3f}"])
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    for line in lines:
        print("  ".join(cell.rjust(w) if i else cell.ljust(w)
                        for i, (cell, w) in enumerate(zip(line, widths, strict=True))))
    for r in rows:
        if r["status"] != "ok":
            print(f"{r['policy']} {r['status']}: {r['reason']}")
    if bounds:
        kinds = {k: b["bound"] + (f" ({b['test']} test)" if "test" in b else "")
                 for k, b in bounds.items()}
        print(f"{inst.n} tasks on {inst.processors} processors; lower bounds: "
              + ", ".join(f"{k} {v}" for k, v in kinds.items()))


def _print_one(inst: Any, r: dict[str, Any]) -> None:
    params = ", ".join(f"{k} {r[k]}" for k in ("md", "tau", "b", "c") if k in r)
    print(f"{r['policy']}{f' ({params})' if params else ''} on {inst.n} tasks, "
          f"{inst.processors} processors: valid schedule, {r['seconds']:.3f} s")
    for c in _COLUMNS:
        lb = r["lower_bounds"].get(c)
        extra = f"  (lower bound {_fmt(lb['value'])}, {lb['bound']})" if lb else ""
        print(f"  {c:12s} {_fmt(r[c])}{extra}")
    print(f"  redirections {r['redirections']}, interruptions {r['interruptions']}, "
          f"preemptions {r['preemptions']}")


# -- reproduce redirection ---------------------------------------------------------------------

def _data_folder(args: argparse.Namespace) -> str:
    """The trace folder, absolute (cells carry trace paths: a Dask worker started in
    another folder must read them, and the store's keys must not depend on the working
    folder): :func:`lpsched.cli.common.data_folder`."""
    from lpsched.cli.common import data_folder

    folder = data_folder(args.data)
    if folder is None:
        raise ParseError("../shared/data", "no trace folder: give --data DIR or set "
                         "LPSCHED_DATA")
    return str(folder)


def _trace_paths(args: argparse.Namespace, spec: str) -> list[str]:
    """The traces of ``--traces``/``--trace`` as absolute paths (see :func:`_data_folder`)."""
    from lpsched.tasks.instance import TRACES, trace_info
    from lpsched.tasks.reproduce import default_traces

    if spec == "all":
        paths = default_traces(_data_folder(args))
        if not paths:
            raise ParseError(_data_folder(args), "none of the traces of Table 3.1 is there")
        return paths
    paths = []
    for item in spec.split(","):
        if Path(item).exists():
            paths.append(str(Path(item).resolve()))
            continue
        info = trace_info(item)
        if info is None:
            raise LpschedError(f"--traces {item}: not a file nor a trace of Table 3.1 "
                               f"({', '.join(t.short for t in TRACES.values())})")
        path = Path(_data_folder(args)) / info.file
        if not path.exists():
            raise ParseError(str(path), "trace not found")
        paths.append(str(path))
    return paths


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from lpsched.tasks import reproduce as exp

    for option, least in (("instances", 1), ("jobs", 1), ("first_seed", 0)):
        if getattr(args, option) < least:
            raise LpschedError(f"--{option.replace('_', '-')} {getattr(args, option)}: must "
                               f"be a whole number >= {least}")
    if args.trace is not None and not args.tune:
        raise LpschedError(f"--trace {args.trace}: --trace names the trace of the tuning "
                           "grids (with --tune); the comparison run takes --traces "
                           f"(--traces {args.trace})")
    if args.traces is not None and args.tune:
        raise LpschedError(f"--traces {args.traces}: the tuning grids (--tune) run on one "
                           "trace, given by --trace (default LLNL-Thunder)")
    out = check_output_folder(args.out, "--out")
    jobs = exp.selection(args.status, args.zero_run)
    keys: tuple[str, ...]
    if args.tune:
        paths = _trace_paths(args, args.trace or "LLNL-Thunder")
        name, cells = "redirection-tuning", []
        for path in paths:
            cells += exp.tuning_cells(path, args.instances, args.first_seed, jobs=jobs)
        fn, keys = exp.tuning_cell, ("trace", "policy", "md", "tau", "c")
    else:
        paths = _trace_paths(args, args.traces or "all")
        name = "redirection"
        cells = exp.comparison_cells(paths, args.instances, args.first_seed, jobs=jobs)
        fn, keys = exp.run_cell, ("trace", "policy")
    for path in paths:  # a bad trace fails before any cell runs
        with swf_input(path, "lpsched reproduce redirection"):
            exp.instance(path, args.first_seed, jobs["status"], jobs["zero_run"])
    rows, ran, wall = run_experiment(name, cells, fn, out, args, exp.ROW_SCHEMA,
                                     group=exp.group, cost=_cell_tasks())
    summ = exp.summary(rows, keys)
    _write_rows(out / f"{name}.csv", rows)
    _write_rows(out / f"{name}-summary.csv", summ)
    skipped = exp.skipped_cells(rows)
    report: dict[str, Any] = {"experiment": name, "traces": [Path(p).name for p in paths],
                              "jobs": jobs, "cells": len(cells), "computed": ran,
                              "skipped": skipped, "seconds": wall}
    if not args.tune:
        report["findings"] = exp.findings(summ)
    if not args.no_plots:
        report["figures"] = _figures(out, name, summ, args.tune)
    table = _vs_seed(rows, paths, jobs, out, args.tune)
    report["vs_seed"] = table.to_dict()
    print(dump_json(report))
    report_fidelity(table, out, json_mode=True)
    print(f"{ran} cells computed now, {len(cells) - ran} found in {out / (name + '.sqlite')}; "
          f"{wall:.1f} s; rows in {out / (name + '.csv')}", file=sys.stderr)
    if skipped:
        print("skipped cells (Table 3.2's m_d >= m; the summary averages these policies "
              "over fewer instances): " + ", ".join(f"{k} {v}" for k, v in skipped.items()),
              file=sys.stderr)
    return 0


def _vs_seed(rows: list[dict[str, Any]], paths: list[str], jobs: dict[str, str], out: Path,
             tune: bool) -> Any:
    """The seed-vs-ours table of ch. 3 (:func:`lpsched.tasks.fidelity.build_table`, the one
    the report hook builds): this run's rows beside the other run's store in ``out`` (the
    comparison's ``redirection.sqlite`` or the tuning grids' ``redirection-tuning.sqlite``,
    decision 552), the trace columns from the workloads this run read. A tuning run writes
    its own ``redirection-tuning_vs_seed.csv``, never the comparison's."""
    from lpsched.tasks import reproduce as exp
    from lpsched.tasks.fidelity import build_table
    from lpsched.tasks.instance import trace_info
    from lpsched.tasks.report import TUNING, TUNING_STORE, of_selection, sibling_rows

    facts: dict[str, Any] = {}
    for path in paths:
        info = trace_info(path)
        if info is not None:
            facts[info.short] = exp.trace_figures(path, jobs["status"], jobs["zero_run"])
    if tune:
        other = of_selection(sibling_rows(out / "redirection.sqlite", "redirection"), jobs)
        return build_table(other, rows, facts, jobs, experiment=TUNING)
    other = of_selection(sibling_rows(out / TUNING_STORE, TUNING), jobs)
    return build_table(rows, other, facts, jobs)


def _cell_tasks() -> Any:
    """A cell's estimated work for the progress line's time left (decision 431): the tasks
    of its trace's instances by Table 3.1 [L1835-1841] (Curie's 70,215 against KTH-SP2's
    860), the table's median for a trace it does not list."""
    from lpsched.tasks import reproduce as exp
    from lpsched.tasks.instance import TRACES

    short = {t.file: t.short for t in TRACES.values()}
    tasks = {s: float(v[4]) for s, v in exp.TABLE_3_1.items()}
    # the median as statistics.median takes it (that module and its fractions and decimal
    # are 0.003 s of every start-up of this module, for seven numbers)
    ordered = sorted(tasks.values())
    half = len(ordered) // 2
    typical = ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2
    return lambda c: tasks.get(short.get(Path(c[0]).name, ""), typical)


def _write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    write_rows_csv(path, rows)


def _figures(out: Path, name: str, summ: list[dict[str, Any]], tune: bool) -> list[str]:
    try:
        from lpsched.tasks import plotting
    except ImportError:  # pragma: no cover - matplotlib is the plot extra
        return []
    files = []
    try:
        if tune:
            for trace in sorted({r["trace"] for r in summ}):
                rows = [r for r in summ if r["trace"] == trace]
                for policy in ("spt-rd", "gspt-rd", "spt-rr", "gspt-rr"):
                    path = out / f"tuning-{trace}-{policy}.png"
                    plotting.tuning_figure(rows, policy, path)
                    files.append(str(path))
        else:
            for trace in sorted({r["trace"] for r in summ}):
                path = out / f"{name}-{trace}.png"
                plotting.comparison_figure(summ, trace, path)
                files.append(str(path))
    except ImportError:  # pragma: no cover
        return files
    return files


def add_reproduce(rep_sub: Any) -> None:
    """Add ``reproduce redirection`` (seed 000 ch. 3, §3.5) to the ``reproduce`` parsers.

    Parameters
    ----------
    rep_sub : argparse._SubParsersAction
        The subparsers of ``lpsched reproduce``.
    """
    rr = rep_sub.add_parser("redirection", help="seed 000 ch. 3: online tasks with "
                            "redirection (Table 3.2 parameters, or --tune: the grids)")
    rr.add_argument("--traces", help="the comparison run's traces: 'all' (default: "
                    "Table 3.1's seven traces in --data), or comma-separated names (Curie, "
                    "KTH-SP2, ...) or files; refused with --tune")
    rr.add_argument("--trace", help="with --tune only: the grids' trace (default "
                    "LLNL-Thunder); refused without --tune")
    rr.add_argument("--tune", action="store_true", help="the m_d x tau and m_d x c grids")
    rr.add_argument("--data", help=DATA_HELP)
    rr.add_argument("--instances", type=int, default=20,
                    help="instances (random windows) per trace, the chapter's 20")
    rr.add_argument("--first-seed", type=seed, default=0)
    rr.add_argument("--status", type=_status, default="completed", help=STATUS_HELP.format(
        default="completed: Table 3.1's trace counts are the completed jobs of positive "
        "run time, decision 285"))
    rr.add_argument("--zero-run", choices=("keep", "drop"), default="drop",
                    help="drop (default, the chapter's: decision 285) or keep the jobs of "
                    "run time 0")
    add_runner_options(rr, "folder of the store, CSVs and figures")
    rr.add_argument("--no-plots", action="store_true", help="write no figures")
    rr.set_defaults(func=_cmd_reproduce)


def add_commands(sub: Any) -> None:
    """Add ``tasks`` (an instance from an SWF trace, seed 000 §3.5.1) and ``online``
    (policies against proven lower bounds, §3.4) to the top-level parsers.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of ``lpsched``.
    """
    t = sub.add_parser("tasks", help="seed 000 ch. 3: sequential tasks from an SWF trace "
                       "(method C: p = q·e/Q on m/Q processors)")
    t.add_argument("trace", help=".swf or .swf.gz")
    t.add_argument("--window", default="random:15d", help="random:LENGTH (15d, 36h, 3600), "
                   "first:LENGTH or all")
    t.add_argument("--seed", type=seed, default=0, help="seed of the random window")
    t.add_argument("--method", choices=("A", "B", "C"), default="C",
                   help="C (the chapter's): p = q·e/Q on m/Q processors; A: q tasks of "
                   "length e per job; B: one task of length q·e per job, on m processors")
    t.add_argument("--processors", type=int, help="the trace's machine size (default: "
                   "Table 3.1's figure for its traces, else the header's MaxProcs)")
    t.add_argument("--status", type=_status, default="all", help=STATUS_HELP.format(
        default="all; seed 000 Table 3.1 counts the completed jobs, decision 285"))
    t.add_argument("--zero-run", choices=("keep", "drop"), default="keep",
                   help="keep (default) or drop the jobs of run time 0 (field 4 = 0), "
                   "counted as dropped; --status selects statuses only, as in lpsched "
                   "batch (decision 380; the chapter's jobs: --status completed "
                   "--zero-run drop)")
    t.add_argument("--lenient", action="store_true", help="skip malformed job lines "
                   "(counted in the instance's trace_dropped) instead of stopping")
    t.add_argument("-o", "--output", help="instance JSON file (replaced atomically; "
                   "default: the instance on stdout, unless --json)")
    t.add_argument("--json", action="store_true", help="a JSON summary on stdout instead "
                   "of the instance; without -o the instance is not written (a dry run)")
    t.set_defaults(func=_cmd_tasks)

    o = sub.add_parser("online", help="seed 000 ch. 3: online policies on a task instance, "
                       "validated, against proven lower bounds")
    o.add_argument("instance", help='JSON {"processors": m, "tasks": [{"release", "p"}]}')
    o.add_argument("--policy", default="all", help="a name of `lpsched policies --family "
                   "tasks`, a comma-separated list, or 'all'")
    o.add_argument("--md", type=int, help="dedicated processors (RD, RR)")
    o.add_argument("--tau", type=float, help="redirection threshold (RD), >= 1")
    o.add_argument("--b", type=float, help="potentially heavy: p >= b·pmax (RR)")
    o.add_argument("--c", type=float, help="redirection probability (RR)")
    o.add_argument("--seed", type=seed, default=0, help="seed of the RR draws")
    o.add_argument("--bounds", choices=("exact", "lp", "speed-m", "none"), default="exact",
                   help="exact: bisection on the preemptive optimum with a max-flow "
                   "test up to --exact-limit tasks, speed-m above; lp: the same with the "
                   "LP test (HiGHS); speed-m: one machine of speed m (EDF), weaker and "
                   "fast; none")
    o.add_argument("--exact-limit", type=int, default=3000, help="most tasks for the "
                   "exact bounds (default 3000); above it the speed-m bound")
    o.add_argument("--csv", help="rows as CSV ('-': stdout, then nothing else is printed)")
    o.add_argument("--json", action="store_true")
    o.add_argument("--table", action="store_true")
    o.set_defaults(func=_cmd_online)


def policy_lines() -> list[tuple[str, str]]:
    """The online policies of seed 000 §3.4, for ``lpsched policies``.

    Returns
    -------
    list of tuple of (str, str)
        ``(name, description)`` of every registered policy.
    """
    from lpsched.tasks.policies import REGISTRY

    return [(e.name, e.description) for e in REGISTRY.values()]
