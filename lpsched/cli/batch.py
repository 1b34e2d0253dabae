"""Subcommands of the batch-cluster family (seeds 000 ch. 4-5, 001): ``swf-info``, ``batch``,
``convert`` and ``reproduce contiguity | platform-level | topology-aware``.

``batch`` reads an SWF trace (the Parallel Workloads Archive's format,
:mod:`lpsched.core.swf`) or a Batsim JSON workload of delay jobs (``.json``), and writes the
schedule as Batsim's ``jobs.csv`` (the columns of Batsim's documentation, "Jobs" output, which
evalys's ``JobSet.from_csv`` reads); ``convert`` turns an SWF trace into a Batsim workload and
back (:mod:`lpsched.batch.batsim`, where the formats and their mapping are described).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.batch.allocation import ALLOCATORS
from lpsched.cli.common import (
    DATA_HELP,
    add_runner_options,
    data_file,
    dump_json,
    run_experiment,
)
from lpsched.cli.outputs import atomic_output, check_output, check_output_folder, write_rows_csv
from lpsched.errors import InvalidInstanceError, LpschedError, ParseError

#: :data:`lpsched.batch.simulator.BLOCKED_HEAD`, spelled here so that building the parser
#: does not load the simulator (tests/batch/test_blocked_head.py checks they agree)
BLOCKED_HEAD = ("wait", "kill-advanced")


def _seed_traces(names: dict[str, str], data: str | None = None,
                 ) -> tuple[dict[str, str], dict[str, str]]:
    """The traces a seed names that the data folder holds (label -> path), and the others
    with the reason (label -> "trace FILE not in FOLDER"): named, never replaced. The folder
    is :func:`lpsched.cli.common.data_folder`'s (``--data``, ``$LPSCHED_DATA``,
    ``../shared/data``)."""
    from lpsched.cli.common import data_folder

    folder = data_folder(data)
    found, missing = {}, {}
    for label, name in names.items():
        if folder is not None and (folder / name).exists():
            found[label] = str(folder / name)
        else:
            missing[label] = f"trace {name} not in {folder or '$LPSCHED_DATA or ../shared/data'}"
    if not found:
        raise ParseError(", ".join(names.values()), "none of the seed's traces is in "
                         f"{folder or '$LPSCHED_DATA or ../shared/data'}: give --trace or "
                         "--data")
    return found, missing


def _cmd_reproduce_batch(args: argparse.Namespace) -> int:
    """Checks the options, the output folder and the traces before any cell runs; the CSV
    is written atomically (an existing one is replaced); ends with the seed-vs-ours table
    (``<experiment>_vs_seed.csv``, printed on stderr: stdout is the JSON summary)."""

    from lpsched.batch import reproduce as exp
    from lpsched.batch.fidelity import vs_seed
    from lpsched.cli.common import report_fidelity

    name = args.experiment
    _check_reproduce_options(args)
    out = check_output_folder(args.out, "--out")
    csv_path = check_output(str(out / f"{name}.csv"), "--out")
    status = _status_option(args.status)
    if args.trace and not Path(args.trace).exists():  # a bare name: in the --data folder
        args.trace = data_file(args.data, args.trace)
    missing: dict[str, str] = {}
    if name == "contiguity":
        trace = args.trace or data_file(args.data, exp.CH4_DEFAULTS["trace"])  # type: ignore
        traces = {"curie": trace}
        cells = exp.contiguity_cells(trace, args.instances, args.jobs_per_instance,
                                     args.processors, args.cluster_size, args.first_seed,
                                     status, args.planner, args.zero_run)
        fn = exp.contiguity_cell
    elif name == "platform-level":
        if args.trace:
            traces = {exp.platform_of(args.trace) or Path(args.trace).name: args.trace}
        else:
            traces, missing = _seed_traces(data=args.data, names={p: spec[0] for p, spec in
                                            exp.CH5_PLATFORMS.items()})
        cells = [c for t in traces.values() for c in exp.platform_cells(
            t, args.instances, args.periods, args.topology, first_seed=args.first_seed,
            status=status, estimate=args.estimate, zero_run=args.zero_run)]
        fn = exp.platform_cell
    else:
        if args.trace:
            traces = {exp.trace_label(args.trace): args.trace}
        else:
            traces, missing = _seed_traces(exp.SEED001_TRACES, args.data)
        cells = [c for t in traces.values() for c in exp.topology_cells(
            t, _speedups(args.speedups), args.limit, status=status, zero_run=args.zero_run,
            blocked_head=args.blocked_head)]
        fn = exp.topology_cell
    for label, why in missing.items():
        print(f"{name}: {label} not run: {why}", file=sys.stderr)
    rows, ran, wall = run_experiment(name, cells, fn, out, args, exp.ROW_SCHEMAS[name],
                                     cost=_cell_jobs(name))
    write_rows_csv(csv_path, rows)
    summary: Any
    if name == "contiguity":
        summary = exp.contiguity_summary(rows)
    elif name == "platform-level":
        per = {p: exp.platform_summary([r for r in rows if r.get("platform") == p])
               for p in traces}
        summary = per if len(per) > 1 else next(iter(per.values()))
    else:
        per_t = {t: exp.topology_summary([r for r in rows if r.get("trace") == t])
                 for t in traces}
        summary = per_t if len(per_t) > 1 else next(iter(per_t.values()))
    table = vs_seed(name, rows, cells, missing)  # the report's table (lpsched.batch.report)
    print(dump_json({"experiment": name,
                     "trace": next(iter(traces.values())) if len(traces) == 1 else traces,
                     "not_run": missing, "summary": summary,
                     "vs_seed": table.to_dict()}))
    report_fidelity(table, out, json_mode=True)
    print(f"{ran} cells computed now, {len(cells) - ran} found in {out / (name + '.sqlite')};"
          f" {wall:.1f} s; rows in {csv_path}", file=sys.stderr)
    return 0


def _cell_jobs(name: str) -> Any:
    """A cell's estimated work for the progress line's time left (decision 431): the jobs
    it simulates. Contiguity: its instance's job count; platform level: the trace's jobs
    per 7-day period times its periods; topology-aware: the jobs of its ``--limit`` (0: the
    whole trace). The traces are read once (``load_trace`` is cached)."""
    from lpsched.batch import reproduce as exp

    def weekly(trace: str, status: str | None) -> float:
        work = exp.load_trace(trace, status)
        weeks = max(float(work.submit.max() - work.submit.min()) / (7 * 86400.0), 1.0)
        return work.size.size / weeks

    if name == "contiguity":
        return lambda c: float(c[2])
    if name == "platform-level":
        return lambda c: weekly(c[0], c[7]) * float(c[2])
    return lambda c: float(c[1] or exp.load_trace(c[0], c[7] if len(c) > 7 else None)
                           .size.size)


def _status_option(text: str | None) -> str | None:
    """``--status``: checked by :func:`lpsched.core.swf.parse_status` (``all``: ``None``)."""
    from lpsched.core.swf import parse_status

    if text is None:
        return None
    try:
        parse_status(text)
    except InvalidInstanceError as exc:
        raise LpschedError(f"--status {text}: must be 'all', or a comma list of status "
                           "names (completed, ...) and SWF status numbers (-1 to 9)") from exc
    return None if text.strip().lower() == "all" else text


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
    """An SWF trace, or a Batsim workload (``.json``): the jobs kept and dropped under the
    conventions of ``lpsched batch``; ``max_procs`` is the header's machine (``nb_res``)."""
    from lpsched.core.swf import to_workload

    if args.processors is not None:
        _machine_option(args.processors, "--processors")
    batsim = _is_batsim(args.trace)
    if batsim:
        from lpsched.batch.batsim import batsim_to_workload, read_batsim

        _batsim_size(args.size)
        bw = read_batsim(args.trace, lenient=args.lenient)
        work, _ = batsim_to_workload(bw, args.estimate, args.processors)
        machine, records = bw.nb_res, bw.records
    else:
        trace = _read_swf(args.trace, args.lenient)
        work = to_workload(trace, size=args.size, estimate=args.estimate,
                           processors=args.processors)
        machine, records = trace.max_procs, trace.records
    out = {"trace": args.trace, "format": "batsim" if batsim else "swf",
           "max_procs": machine, **work.report()}
    if args.json:
        print(dump_json(out))
    else:
        print(f"{args.trace}: {records} {'jobs' if batsim else 'job lines'} read, machine "
              f"{_machine_text(work.processors, batsim)}")
        print(f"kept {work.jobs} jobs; {_dropped_text(work)}; rounded: "
              f"{work.rounded or 'none'}; fallbacks: {work.fallbacks}")
    return 0


def _machine_text(processors: int | None, batsim: bool) -> str:
    """``240 processors``, or what is missing when the machine is unknown."""
    if processors is not None:
        return f"{processors} processors"
    return ("unknown (nb_res is missing: give --processors)" if batsim else
            "unknown (the header gives no MaxProcs or MaxNodes: give --processors)")


def _batsim_size(size: str | None) -> None:
    """``--size`` with a Batsim workload: only ``requested`` (a job has one size)."""
    if size not in (None, "requested"):
        raise LpschedError(f"--size {size}: applies to SWF traces only (a Batsim job has one "
                           "size, its res)")


def _dropped_text(work: Any) -> str:
    """``dropped 2: 1 malformed line skipped (--lenient), 1 no run time (...); skipped
    lines 3`` (the first ten skipped lines; for a Batsim workload the jobs skipped, as
    ``jobs[i]``)."""
    if not work.dropped:
        return "dropped: none"
    text = f"dropped {sum(work.dropped.values())}: " + ", ".join(
        f"{count} {why}" for why, count in work.dropped.items())
    if work.skipped_lines:
        batsim = _is_batsim(work.source)
        shown = ", ".join(f"jobs[{i}]" if batsim else str(i) for i in work.skipped_lines[:10])
        more = ", ..." if len(work.skipped_lines) > 10 else ""
        why = ", ".join(f"{count} {reason}" for reason, count in work.skip_reasons.items())
        text += f"; skipped {'jobs' if batsim else 'lines'} {shown}{more} ({why})"
    return text


def _is_batsim(path: str) -> bool:
    """A Batsim JSON workload (``.json``) rather than an SWF trace (the input format is
    read from the file name, or from a pipe's first byte, as in
    :func:`lpsched.batch.batsim.is_batsim`, spelt here so that parsing the command line
    does not load that module)."""
    from lpsched.core.inputs import is_stream, peek

    if str(path).lower().endswith(".json"):
        return True
    if not is_stream(path):
        return False
    with contextlib.suppress(ParseError):  # the reader reports it
        return peek(path).lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")
    return False


def _read_swf(path: str, lenient: bool) -> Any:
    """:func:`~lpsched.core.swf.read_swf`; a file that fails as SWF but holds a JSON object
    gets a hint: Batsim workloads are read when named ``.json``."""
    from lpsched.core.swf import read_swf

    try:
        return read_swf(path, lenient=lenient)
    except ParseError as exc:
        from lpsched.core.inputs import peek

        head = b""
        with contextlib.suppress(ParseError):  # a pipe: the first bytes it had
            head = peek(path)
        if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
            raise ParseError(path, "a JSON object, not an SWF trace: name a Batsim "
                             "workload .json to read it as one") from exc
        raise


def _cmd_batch(args: argparse.Namespace) -> int:
    """Options and ``--out`` are checked before the trace is read; the schedule CSV is
    written atomically (an existing file is replaced) once the simulation is validated."""
    from lpsched.batch.schedule import batch_metrics
    from lpsched.batch.simulator import simulate_batch
    from lpsched.batch.validation import validate_batch

    if args.out == "-" and args.json:
        raise LpschedError("--out - and --json both write to stdout: give --out a file name")
    if args.out and args.out != "-":
        check_output(args.out, "--out", inputs=[args.trace])
    _at_least(args, "--limit", 0)
    _at_least(args, "--cluster-size", 1)
    if args.processors is not None:
        _machine_option(args.processors, "--processors")
    if _is_batsim(args.trace):
        _batsim_size(args.size)
        if _status_option(args.status) is not None:
            raise LpschedError(f"--status {args.status}: a Batsim workload has no job "
                               "status (SWF field 11): leave --status at all")
        if getattr(args, "zero_run", "keep") != "keep":
            raise LpschedError(f"--zero-run {args.zero_run}: applies to SWF traces only "
                               "(a Batsim workload's jobs are all simulated)")
    _status_option(args.status)
    penalty = _penalty(args.penalty)
    if args.qct is not None and args.alloc != "quasi-contiguous":
        raise LpschedError(f"--qct {args.qct}: the quasi-contiguity threshold applies to "
                           f"--alloc quasi-contiguous only (not {args.alloc})")
    qct = 20 if args.qct is None else args.qct
    if args.blocked_head != "wait" and args.policy != "easy":
        raise LpschedError(f"--blocked-head {args.blocked_head}: killing advanced jobs is "
                           f"EASY backfilling's rule (seed 001 §3); --policy {args.policy} "
                           "advances no job")
    work, profiles = _batch_workload(args)
    topo = _batch_topology(args, work)
    sched, stats = simulate_batch(work, args.policy, kill=args.kill_at_estimate,
                                  alloc=args.alloc, cluster_size=args.cluster_size,
                                  topology=topo, qct=qct, penalty=penalty,
                                  speedup=args.speedup,
                                  compression=args.compression,
                                  progress=batch_progress(sys.stderr),
                                  blocked_head=args.blocked_head)
    m = int(topo.installed if topo else work.processors or 0)
    cluster = topo.cluster_size if topo else args.cluster_size
    validate_batch(work, sched, m, cluster_size=cluster, topology=topo, forced=args.alloc,
                   qct=qct)
    report = work.report()
    out = {"trace": args.trace, "format": "batsim" if _is_batsim(args.trace) else "swf",
           "policy": args.policy, "alloc": args.alloc,
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
    if "reservation_kills" in stats:  # decision 387
        out["reservation_kills"] = stats["reservation_kills"]
        out["reservation_killed_jobs"] = stats["reservation_killed_jobs"]
        out["killed_work"] = stats["killed_work"]
    if args.kill_at_estimate or penalty:  # the COMPLETED_WALLTIME_REACHED rows of --out
        killed = sched.killed if sched.killed is not None else sched.failed
        out["killed_jobs"] = int(np.count_nonzero(killed)) if killed is not None else 0
    if getattr(args, "approximated", None):
        out["approximated"] = args.approximated
    if getattr(args, "assumptions", None):
        out["assumptions"] = args.assumptions
    if args.out:
        _write_schedule(args.out, work, sched, profiles, getattr(args, "batsim_ids", None))
    if args.json:
        print(dump_json(out))
    else:  # with the CSV on stdout, the summary goes to stderr
        _print_batch(out, args, work, m)
    return 0


def _print_batch(out: dict[str, Any], args: argparse.Namespace, work: Any, m: int) -> None:
    """The text summary of ``lpsched batch`` (on stderr when the CSV goes to stdout)."""
    stream = sys.stderr if args.out == "-" else sys.stdout
    print(f"{args.policy} on {args.trace}: {work.jobs} jobs on {m} processors, "
          f"makespan {out['makespan']:.0f} s, mean wait {out['mean_wait']:.0f} s, "
          f"mean bounded slowdown {out['mean_bounded_slowdown']:.2f}, utilisation "
          f"{out['utilisation']:.3f} ({out['jobs_per_second'] or 0:.0f} jobs/s)",
          file=stream)
    read = "jobs" if _is_batsim(args.trace) else "job lines"
    print(f"{out['records']} {read} read; {_dropped_text(work)}"
          + (f"; rounded up: {work.rounded}" if work.rounded else ""), file=stream)
    if out.get("approximated"):
        print(f"durations approximated: {out['approximated']} (decision 367)",
              file=stream)
    if "killed_jobs" in out:
        print(f"{out['killed_jobs']} jobs killed at their estimate "
              "(COMPLETED_WALLTIME_REACHED)", file=stream)
    if "reservation_kills" in out:
        print(f"{out['reservation_kills']} kills of advanced jobs "
              f"({out['reservation_killed_jobs']} jobs) for the head's reservation "
              f"({out['killed_work']:.0f} processor-seconds lost; each reran from the "
              "start, its last run in the schedule; decisions 387-388)", file=stream)


def batch_progress(stream: Any, after: float = 2.0, every: float = 1.0,
                   ) -> Callable[[int, int, float], None] | None:
    """Make a progress line for :func:`~lpsched.batch.simulator.simulate_batch` on a terminal.

    ``None`` when ``stream`` is not a terminal (pipes and files get no control
    characters). The line shows the jobs started, the simulated time and the wall time;
    it is drawn once the run has lasted ``after`` seconds, then at most every ``every``
    seconds, and ended with a newline.

    Parameters
    ----------
    stream : text stream
        Where the line goes (the command's stderr).
    after : float
        Seconds of run before the first line (default 2).
    every : float
        Least seconds between two lines (default 1).

    Returns
    -------
    callable or None
        ``draw(started, jobs, now)`` for ``simulate_batch``'s ``progress``; ``None`` when
        ``stream`` is not a terminal.
    """
    import time

    if not (hasattr(stream, "isatty") and stream.isatty()):
        return None
    t0 = time.perf_counter()
    state = {"drawn": 0.0}

    def draw(started: int, jobs: int, now: float) -> None:
        wall = time.perf_counter() - t0
        last = started == jobs
        if wall < after or (wall - state["drawn"] < every and not last):
            return
        if last and not state["drawn"]:
            return  # the run ended before any line was drawn
        state["drawn"] = wall
        stream.write(f"\rbatch: {started:,}/{jobs:,} jobs started, simulated time "
                     f"{now:,.0f} s, {wall:,.0f} s elapsed" + ("\n" if last else ""))
        stream.flush()

    return draw


def _penalty(spec: str | None) -> tuple[str, float] | None:
    """``--penalty linear:F | quadratic:F`` with a finite ``F >= 0`` (default 2; the
    simulator asks ``F >= 1`` of quadratic)."""
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


def _load_jobs(args: argparse.Namespace) -> tuple[Any, list[str] | None]:
    """The jobs of ``args.trace`` (SWF, or a Batsim workload when named ``.json``) under
    ``--size``, ``--estimate``, ``--processors`` and ``--lenient``, with the profile name of
    each (``None`` for SWF)."""
    platform = getattr(args, "platform", None)
    if _is_batsim(args.trace):
        from lpsched.batch.batsim import batsim_to_workload, read_batsim, read_platform

        _batsim_size(args.size)
        plat = read_platform(platform) if platform is not None else None
        bw = read_batsim(args.trace, lenient=args.lenient, platform=plat)
        machine = args.processors if args.processors is not None else \
            plat.processors if plat is not None else None
        work, names = batsim_to_workload(bw, args.estimate, machine)
        args.batsim_ids, args.approximated = bw.id_map(), dict(bw.approximated)
        args.assumptions = _speed_assumption(bw.speed, platform, args.json)
        return work, names
    from lpsched.core.swf import to_workload

    processors = args.processors
    if platform is not None and processors is None:
        from lpsched.batch.batsim import read_platform

        processors = read_platform(platform).processors
    work = to_workload(_read_swf(args.trace, args.lenient), size=args.size,
                       estimate=args.estimate, processors=processors,
                       status=_status_option(getattr(args, "status", None)),
                       drop_zero_run=getattr(args, "zero_run", "keep") == "drop")
    return work, None


def _speed_assumption(speed: float | None, platform: str | None, json_mode: bool,
                      ) -> dict[str, Any]:
    """What ``batch`` and ``convert`` assumed of a Batsim workload: when some profile is in
    flops and no ``--platform`` gives the hosts' speed, ``{"host_speed": 1e9,
    "host_speed_source": ...}`` (their ``--json``'s ``assumptions``; without ``--json``
    one ``lpsched: note:`` line on stderr says it); ``{}`` otherwise."""
    if speed is None or platform:
        return {}
    if not json_mode:  # under --json stderr stays empty: the JSON says it
        print(f"lpsched: note: the workload's parallel tasks are in flops and no --platform "
              f"gives the hosts' speed: they run at {speed / 1e9:g} Gflop/s per host "
              "(decision 366)", file=sys.stderr)
    return {"host_speed": speed, "host_speed_source": "default: no --platform (decision 366)"}


def _batch_workload(args: argparse.Namespace) -> tuple[Any, list[str] | None]:
    """The jobs under the options, every record accounted for (``--limit`` cuts count as
    dropped), and their profile names (``None``: named by their delays); an error when none
    is left."""
    from dataclasses import replace

    work, profiles = _load_jobs(args)
    work = work.require_jobs()
    if args.limit and args.limit < work.jobs:
        keep = slice(0, args.limit)
        work = replace(work, job=work.job[keep], submit=work.submit[keep],
                       run=work.run[keep], size=work.size[keep],
                       estimate=work.estimate[keep],
                       dropped={**work.dropped, f"after the first {args.limit} (--limit)":
                                work.jobs - args.limit})
        profiles = profiles[:args.limit] if profiles is not None else None
    if args.offline:  # seed 000 ch. 4: every job known at time 0, in trace order
        work = replace(work, submit=np.zeros_like(work.submit))
    return work, profiles


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
        raise ParseError(args.trace, ("nb_res is missing" if _is_batsim(args.trace)
                                      else "the header gives no MaxProcs or MaxNodes")
                         + ": give the machine size with --processors")
    if args.cluster_size is not None and args.cluster_size > work.processors:
        raise LpschedError(f"--cluster-size {args.cluster_size}: larger than the machine "
                           f"({work.processors} processors)")
    return None


def _write_schedule(path: str, work: Any, sched: Any, profiles: list[str] | None,
                    ids: dict[int, str] | None = None) -> None:
    """The schedule as Batsim's ``jobs.csv`` (:func:`lpsched.batch.batsim.write_jobs_csv`)
    on stdout (``-``) or atomically into ``path``."""
    from lpsched.batch.batsim import write_jobs_csv

    with contextlib.ExitStack() as stack:
        fh = sys.stdout if path == "-" else stack.enter_context(
            atomic_output(path, "w", newline=""))
        write_jobs_csv(fh, work, sched, profiles, ids=ids)


def _cmd_convert(args: argparse.Namespace) -> int:
    """SWF -> Batsim workload or Batsim workload -> SWF (:mod:`lpsched.batch.batsim`); the
    output is checked before the input is read and written atomically."""
    import gzip

    from lpsched.batch import batsim

    source = "batsim" if _is_batsim(args.input) else "swf"
    target = args.to or _format_of(args.output)
    if target == source:
        raise LpschedError(f"{args.input} is already {_NAMES[source]}: convert turns SWF "
                           "into a Batsim workload (.json) and back")
    if args.output == "-" and args.json:
        raise LpschedError("-o - and --json both write to stdout: give -o a file name")
    if args.output != "-":
        check_output(args.output, "-o", inputs=[args.input])
    if args.processors is not None:
        _machine_option(args.processors, "--processors")
    if source == "swf" and args.platform:
        raise LpschedError(f"--platform {args.platform}: applies to Batsim input only (the "
                           "speeds turn its parallel tasks' flops into run times)")
    if source == "swf":
        bw, work = batsim.swf_to_batsim(_read_swf(args.input, args.lenient),
                                        args.size or "requested",
                                        args.estimate or "requested", args.processors)
        jobs, report = bw.jobs, work.report()
        machine = bw.nb_res
    else:
        _batsim_size(args.size)
        if args.estimate not in (None, "requested"):
            raise LpschedError(f"--estimate {args.estimate}: applies to SWF input only (a "
                               "Batsim job has one walltime)")
        plat = batsim.read_platform(args.platform) if args.platform else None
        bw = batsim.read_batsim(args.input, lenient=args.lenient, platform=plat)
        trace = batsim.batsim_to_swf(bw, args.processors if args.processors is not None
                                     else plat.processors if plat is not None else None)
        jobs, machine = bw.jobs, trace.max_procs
        rounded_submits = batsim.fractional_submits(bw)
        assumptions = _speed_assumption(bw.speed, args.platform, args.json)
        report = {"records": bw.records, "jobs": bw.jobs,
                  "dropped": {batsim.SKIPPED: len(bw.skipped)} if bw.skipped else {},
                  "skipped_lines": {"count": len(bw.skipped), "first": list(bw.skipped[:10]),
                                    "reasons": dict(bw.skip_reasons)},
                  "rounded": dict(bw.rounded)}
    with contextlib.ExitStack() as stack:
        if args.output == "-":
            fh: Any = sys.stdout
        else:
            zipped = target == "swf" and args.output.lower().endswith(".gz")
            fh = stack.enter_context(atomic_output(args.output, "wb" if zipped else "w"))
            if zipped:
                fh = stack.enter_context(gzip.open(fh, "wt", encoding="utf-8"))
        if target == "batsim":
            batsim.write_batsim(bw, fh, description=_description(args))
        else:
            from lpsched.core.swf import write_swf

            write_swf(trace, fh)
    if source == "swf":
        rounded_submits, assumptions = 0, {}
    out = {"input": args.input, "output": args.output, "from": source, "to": target,
           "records": report["records"], "jobs": jobs, "processors": machine,
           "dropped": report["dropped"], "skipped_lines": report["skipped_lines"],
           "rounded": report["rounded"]}
    if rounded_submits:
        out["submits_rounded"] = rounded_submits
    if assumptions:
        out["assumptions"] = assumptions
    if args.json:
        print(dump_json(out))
    else:  # a note on stderr, as every command that writes a file
        dropped = sum(out["dropped"].values())
        print(f"wrote {'stdout' if args.output == '-' else args.output} "
              f"({_NAMES[target]}): {jobs} jobs of the {out['records']} read from "
              f"{args.input}, {dropped} dropped; machine "
              + (_machine_text(machine, True) if machine is not None else
                 "unknown: nb_res is missing, no MaxProcs written (give --processors)")
              + (f"; {rounded_submits} fractional submit times rounded to the nearest "
                 "second (halves up)" if rounded_submits else ""),
              file=sys.stderr)
    return 0


_NAMES = {"swf": "an SWF trace", "batsim": "a Batsim workload"}


def _format_of(path: str) -> str:
    """The output format from ``-o``'s name: ``.json`` Batsim, ``.swf``/``.swf.gz`` SWF."""
    name = path.lower()
    if name.endswith(".json"):
        return "batsim"
    if name.endswith((".swf", ".swf.gz")):
        return "swf"
    raise LpschedError(f"-o {path}: cannot tell the output format from the name (.json: "
                       "Batsim workload, .swf or .swf.gz: SWF): give --to batsim or --to swf")


def _description(args: argparse.Namespace) -> str:
    """The ``description`` of a Batsim workload made from an SWF trace: its source and the
    conventions used (deterministic: no date, no path but the file name; a name that is
    not UTF-8 escaped as ``--json`` escapes it: strict JSON)."""
    from lpsched.cli.common import utf8_text

    return (f"converted by lpsched from the SWF trace {utf8_text(Path(args.input).name)} (--size "
            f"{args.size or 'requested'}, --estimate {args.estimate or 'requested'}"
            + (f", --processors {args.processors}" if args.processors else "")
            + (", --lenient" if args.lenient else "") + "); delay profiles named by their "
            "delay (s), walltime = the requested time (-1: unknown)")


def add_reproduce(rep_sub: Any) -> None:
    """``reproduce contiguity | platform-level | topology-aware``.

    Parameters
    ----------
    rep_sub : argparse subparsers
        The ``reproduce`` command's subparsers.
    """
    for name, help_ in (("contiguity", "seed 000 ch. 4: contiguity and locality, offline"),
                        ("platform-level", "seed 000 ch. 5: platform level on fat trees"),
                        ("topology-aware", "seed 001: (quasi-)contiguous on k-ary n-trees")):
        rb = rep_sub.add_parser(name, help=help_)
        rb.add_argument("--trace", help="SWF trace (default: the seed's, in the --data "
                        "folder)")
        rb.add_argument("--data", help=DATA_HELP)
        if name != "topology-aware":  # seed 001 replays whole traces: no instances
            rb.add_argument("--instances", type=int,
                            default=512 if name == "contiguity" else 30,
                            help="instances (default: the seed's, 512 for ch. 4 [L2908], "
                            "30 per platform for ch. 5 [L3719])")
            rb.add_argument("--first-seed", type=int, default=0,
                            help="seed of the first instance (instance i uses first seed + "
                            "i)")
        rb.add_argument("--status", default="completed" if name == "platform-level"
                        else "all", help="SWF statuses kept (field 11): all, completed "
                        "(status 1), or a comma list of names and numbers (default: the "
                        "seed's selection, decision 268)")
        zero = "drop" if name == "platform-level" else "keep"
        rb.add_argument("--zero-run", choices=("keep", "drop"), default=zero,
                        help=f"keep or drop the jobs of run time 0 (default {zero}: the "
                        "seed's selection, decision 268" + (": Table 5.2 counts the "
                        "completed jobs of positive run time)" if zero == "drop" else ")"))
        add_runner_options(rb, "folder of the store and the CSV (created if missing; the CSV "
                                "is replaced atomically)")
        if name == "contiguity":
            rb.add_argument("--jobs-per-instance", type=int, default=300,
                            help="jobs of each instance (ch. 4: 300)")
            rb.add_argument("--processors", type=int, default=512,
                            help="machine size (ch. 4: 512)")
            rb.add_argument("--cluster-size", type=int, default=16,
                            help="processors per cluster for locality (ch. 4: 16)")
            rb.add_argument("--planner", choices=("profile", "slices"), default="profile",
                            help="how backfilling plans: profile (processor counts, "
                            "default) or slices (Algorithm 1's time slices of processor "
                            "sets [L2759-L2786], decision 274's reading (h))")
        if name == "platform-level":
            rb.add_argument("--periods", type=int, default=None, help="7-day periods each "
                            "(default: Table 5.2's for the platform, 1 for another trace)")
            rb.add_argument("--estimate", choices=("requested", "runtime"),
                            default="requested", help="estimates and kill limits: the "
                            "user's wall times (the seed's [L3323-L3332], default) or the "
                            "real run times (then every penalised job is killed at its "
                            "run time: decision 269)")
            rb.add_argument("--topology", help="default: clusters of 16, arity 4")
        if name == "topology-aware":
            rb.add_argument("--speedups", default="0,5,10,15,20,25,30,35,40,45,50",
                            help="run-time speed-ups (%%) of the jobs the topology-aware "
                            "allocators place, swept for the break-even point")
            rb.add_argument("--limit", type=int, default=0,
                            help="only the first N jobs (0, the default: every job)")
            rb.add_argument("--blocked-head", choices=BLOCKED_HEAD,
                            default="kill-advanced", help="EASY when the head's reservation "
                            "time comes and it cannot be placed: kill-advanced (the seed's "
                            "rule [001 L51-L53], default, decision 387) or wait (decision "
                            "265)")
        rb.set_defaults(func=_cmd_reproduce_batch)



def add_commands(sub: Any) -> None:
    """swf-info, batch, convert.

    Parameters
    ----------
    sub : argparse subparsers
        The top-level subparsers of ``lpsched``.
    """
    swf = sub.add_parser("swf-info", help="read an SWF trace or a Batsim workload and report "
                         "the jobs kept and dropped under the chosen conventions")
    swf.add_argument("trace", help="SWF trace (.swf, .swf.gz) or Batsim workload (.json)")
    swf.add_argument("--size", choices=("requested", "allocated"), default="requested",
                     help="requested (field 8, else 5) or allocated processors (5, else 8)")
    swf.add_argument("--estimate", choices=("requested", "runtime"), default="requested",
                     help="requested: the requested time (field 9), else the run time; "
                     "runtime: the run time")
    swf.add_argument("--lenient", action="store_true", help="skip malformed job lines "
                     "(Batsim: malformed jobs, and jobs whose profile type is not simulated: "
                     "trace replay, SMPI, storage) and round fractional processor counts (SWF "
                     "fields 5 and 8, Batsim res) up, both counted in the report")
    swf.add_argument("--processors", type=int, help="machine size (default: the header's "
                     "MaxProcs or MaxNodes; a Batsim workload's nb_res)")
    swf.add_argument("--json", action="store_true", help="the report as one JSON object")
    swf.set_defaults(func=_cmd_swf_info)
    _add_batch(sub)
    _add_convert(sub)


def _add_batch(sub: Any) -> None:
    """``batch TRACE``: the simulator and its options."""
    bat = sub.add_parser("batch", help="simulate a batch cluster on an SWF trace or a "
                         "Batsim workload (FCFS, EASY or conservative backfilling)",
                         description="Simulate FCFS, EASY or conservative backfilling on an "
                         "SWF trace or a Batsim JSON workload (delay, parallel_homogeneous, "
                         "ptask and sequence profiles as rigid jobs; --platform for the "
                         "hosts' speeds). --out writes the schedule as Batsim's jobs.csv "
                         "(evalys: JobSet.from_csv).")
    bat.add_argument("trace", help="SWF trace (.swf, .swf.gz) or Batsim workload (.json: "
                     "nb_res is the machine, walltime the estimate)")
    bat.add_argument("--policy", choices=("fcfs", "easy", "conservative"), default="easy",
                     help="the batch scheduler: FCFS, EASY or conservative backfilling")
    bat.add_argument("--alloc", choices=ALLOCATORS, default="basic",
                     help="processor allocation (seed 000 ch. 5 and seed 001 names)")
    bat.add_argument("--cluster-size", type=int, default=None,
                     help="processors per cluster (for beloc/loc and the locality metric)")
    bat.add_argument("--topology", help="fat-tree:CLUSTER,ARITY,... or kary-ntree:K,N "
                     "(needed by beplat, plat, contiguous, quasi-contiguous, --penalty)")
    bat.add_argument("--qct", type=int, default=None,
                     help="quasi-contiguity threshold, percent of the job size (seed 001; "
                     "--alloc quasi-contiguous only; default 20)")
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
                     "parallel jobs (seed 001; --alloc contiguous or quasi-contiguous only)")
    _add_batch_selection(bat)
    bat.add_argument("--blocked-head", choices=BLOCKED_HEAD, default="wait",
                     help="EASY, when the head's reservation time comes and it cannot be "
                     "placed (a forced shape, or a job past its estimate): wait for the "
                     "next end (default, decision 265) or kill-advanced: kill jobs "
                     "backfilling advanced past it, the latest started first, as the "
                     "placement needs; they rerun from the start, and the schedule, --out "
                     "and the utilisation keep each job's last run only (seed 001 §3, "
                     "decisions 387-388; reproduce topology-aware's default)")
    bat.add_argument("--kill-at-estimate", action="store_true", help="stop a job at its "
                     "estimate (Batsim's walltime rule; final_state "
                     "COMPLETED_WALLTIME_REACHED in the CSV)")
    bat.add_argument("--lenient", action="store_true", help="skip malformed job lines "
                     "(Batsim: malformed jobs, and jobs whose profile type is not simulated: "
                     "trace replay, SMPI, storage) and round fractional processor counts (SWF "
                     "fields 5 and 8, Batsim res) up, both counted in the report")
    bat.add_argument("--processors", type=int, help="machine size (default: the header's "
                     "MaxProcs or MaxNodes; a Batsim workload's nb_res)")
    bat.add_argument("--platform", help="a Batsim platform (SimGrid XML): its compute hosts "
                     "are the machine (unless --processors) and their speed turns parallel "
                     "tasks' flops into seconds (default: no file, 1 Gflop/s hosts, decision "
                     "366: said in a note on stderr, or under --json in 'assumptions', when "
                     "a profile is in flops)")
    bat.add_argument("--limit", type=int, default=0,
                     help="only the first N jobs (0, the default: every job)")
    bat.add_argument("--offline", action="store_true",
                     help="submit every job at time 0 (seed 000 ch. 4 experiments)")
    bat.add_argument("--out", help="the schedule as Batsim's jobs.csv ('-': stdout): "
                     "job_id, workload_name, profile, submission_time, "
                     "requested_number_of_resources, requested_time, success, final_state, "
                     "starting_time, execution_time, finish_time, waiting_time, "
                     "turnaround_time, stretch, allocated_resources ('0-3 7'), "
                     "consumed_energy, metadata; checked before the simulation, replaced "
                     "atomically if it exists")
    bat.add_argument("--json", action="store_true")
    bat.set_defaults(func=_cmd_batch)


def _add_batch_selection(bat: Any) -> None:
    """``batch``'s options that select and read the jobs: sizes, estimates, statuses and
    run-0 jobs."""
    bat.add_argument("--size", choices=("requested", "allocated"), default="requested",
                     help="SWF: requested (field 8, else 5) or allocated processors (5, "
                     "else 8); a Batsim job's size is its res")
    bat.add_argument("--estimate", choices=("requested", "runtime"), default="requested",
                     help="requested: the requested time (SWF field 9) or walltime "
                     "(Batsim), else the run time; runtime: the run time (exact estimates)")
    bat.add_argument("--status", default="all",
                     help="SWF statuses kept (field 11): all (the default: the trace as "
                     "it is, decision 268), completed, or a comma list of names and "
                     "numbers; the others are dropped and counted")
    bat.add_argument("--zero-run", choices=("keep", "drop"), default="keep",
                     help="SWF: keep (default) or drop the jobs of run time 0 (field 4 = 0), "
                     "counted as dropped; as lpsched tasks --zero-run (seed 000's tables "
                     "count the completed jobs of positive run time: --status completed "
                     "--zero-run drop)")


def _add_convert(sub: Any) -> None:
    """``convert IN -o OUT``: SWF <-> Batsim workload."""
    conv = sub.add_parser("convert", help="turn an SWF trace into a Batsim workload (.json) "
                          "and back", description="Convert an SWF trace into a Batsim JSON "
                          "workload of delay jobs (the jobs lpsched simulates under --size, "
                          "--estimate, --processors, --lenient; nb_res = the machine) or a "
                          "Batsim workload into an SWF trace. Simulated start times are the "
                          "same either way.")
    conv.add_argument("input", help="SWF trace (.swf, .swf.gz) or Batsim workload (.json)")
    conv.add_argument("-o", "--output", required=True, help=".json (Batsim), .swf or "
                      ".swf.gz (SWF), or '-' (stdout, with --to); replaced atomically")
    conv.add_argument("--to", choices=("batsim", "swf"), help="output format (default: "
                      "from the -o name)")
    conv.add_argument("--size", choices=("requested", "allocated"), default=None,
                      help="SWF input: the processors field used as res (default requested)")
    conv.add_argument("--estimate", choices=("requested", "runtime"), default=None,
                      help="SWF input: walltime = the requested time (default) or the "
                      "run time; -1 (none) when unknown or 0")
    conv.add_argument("--processors", type=int, help="the machine (default: MaxProcs or "
                      "MaxNodes of the SWF header, nb_res of the Batsim workload)")
    conv.add_argument("--platform", help="Batsim input: a Batsim platform (SimGrid XML) "
                      "whose compute hosts are the machine (unless --processors) and whose "
                      "speed gives parallel tasks' run times (default: no file, 1 Gflop/s "
                      "hosts, decision 366: said in a note on stderr, or under --json in "
                      "'assumptions', when a profile is in flops)")
    conv.add_argument("--lenient", action="store_true", help="skip malformed job lines "
                      "(Batsim: malformed jobs, and jobs whose profile type is not "
                      "simulated) and round fractional processor counts (SWF "
                      "fields 5 and 8, Batsim res) up, both counted in the report")
    conv.add_argument("--json", action="store_true")
    conv.set_defaults(func=_cmd_convert)
