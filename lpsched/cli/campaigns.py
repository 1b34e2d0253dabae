"""Subcommands of the campaign family (seed 002): ``campaigns generate | run | extract`` and
``reproduce faircamp | ostrich``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.cli.common import (
    DATA_HELP,
    add_runner_options,
    data_file,
    dump_json,
    read_json,
    report_fidelity,
    run_experiment,
    seed,
    swf_input,
    utf8_strings,
)
from lpsched.cli.outputs import atomic_output, check_output, check_output_folder, write_rows_csv
from lpsched.errors import InvalidInstanceError, LpschedError, ParseError

RUN_POLICIES = ("fcfs", "faircamp", "ostrich", "space-share", "fair-share", "multicamp",
                "multicmax")
TABLE_KEYS = ("policy", "variant", "valid", "campaigns", "users", "jobs", "max_campaign_stretch",
              "mean_campaign_stretch", "share_stretch_1", "share_stretch_below_1_5",
              "max_user_stretch", "utilisation", "seconds")


#: the two-profile user counts swept by ``reproduce ostrich`` and the one reported
#: (decision 302); equal to ``campaigns.reproduce.PROFILE_USERS`` /
#: ``PROFILE_DEFAULT_USERS`` (tested; kept here so that building the parser stays light)
PROFILE_USERS = (5, 10, 20, 40)
PROFILE_DEFAULT_USERS = 10
STATUS_HELP = ("jobs kept by their SWF status (field 11): 'all' (default: the seed replays "
               "every job, [L1354], decision 300), 'completed' (1), 'failed' (0), "
               "'cancelled' (5), or a comma list of these and status numbers")


def _status(text: str) -> str:
    """Check a ``--status`` value before any work (one error line naming it)."""
    from lpsched.core.swf import parse_status

    try:
        parse_status(text)
    except InvalidInstanceError as exc:
        raise LpschedError(f"--status {text}: {exc.reason}") from None
    return text


def _positive(option: str, value: float | None, whole: bool = True) -> None:
    if value is None:
        return
    if not value >= (1 if whole else 0) or (not whole and not np.isfinite(value)):
        need = "a whole number >= 1" if whole else "a finite number >= 0"
        raise LpschedError(f"{option} {value}: must be {need}")


def _at_most(option: str, value: int | None, hi: int) -> None:
    """Refuse a whole-number option above ``hi`` (the limits of the generators)."""
    if value is not None and value > hi:
        raise LpschedError(f"{option} {value}: must be a whole number from 1 to {hi:,}")


def _generator_limits() -> dict[str, int]:
    from lpsched.campaigns.generators import MAX_JOBS
    from lpsched.campaigns.instance import MAX_USERS
    from lpsched.core.swf import MAX_PROCESSORS

    return {"--users": MAX_USERS, "--jobs": MAX_JOBS, "--processors": MAX_PROCESSORS}


def _cmd_generate(args: argparse.Namespace) -> int:
    from lpsched.campaigns.generators import generate
    from lpsched.campaigns.instance import to_dict

    out = check_output(args.output, "-o", (".json",))
    for option, hi in _generator_limits().items():  # before any work
        _positive(option, getattr(args, option.lstrip("-")))
        _at_most(option, getattr(args, option.lstrip("-")), hi)
    w = generate(args.profile, args.users, args.jobs, args.seed, args.processors)
    with atomic_output(out) as fh:
        fh.write(json.dumps(utf8_strings(to_dict(w)), allow_nan=False))
    report = {"output": str(out), "profile": args.profile, "processors": w.processors,
              "users": w.users, "campaigns": w.campaigns, "jobs": w.jobs, "seed": args.seed}
    if args.json:
        print(dump_json(report))
    return 0


def _offline(w: Any, policy: str) -> Any:
    from lpsched.campaigns.instance import Workload
    from lpsched.campaigns.offline import multicamp, multicmax
    from lpsched.campaigns.schedule import CampaignRun, previous_campaign

    assert isinstance(w, Workload)
    if not (np.all(np.isnan(w.submit)) and np.all(w.think == 0)):
        raise LpschedError(f"--policy {policy}: offline algorithms take closed-loop campaigns "
                           "with think time 0 (submit null, think 0)")
    if policy == "multicmax" and np.unique(w.user).size != w.campaigns:
        raise LpschedError("--policy multicmax: one campaign per user (MULTICMAX schedules "
                           "each user's jobs as one set); use multicamp")
    sched = multicamp(w) if policy == "multicamp" else multicmax(w)
    end = sched.start + w.p
    comp = np.maximum.reduceat(end, w.offsets[:-1])
    prev = previous_campaign(w)
    release = np.where(prev >= 0, comp[np.maximum(prev, 0)], 0.0)
    return CampaignRun(policy, w, sched.start, release, {"block_order": sched.order})


def _simulate(w: Any, args: argparse.Namespace) -> Any:
    from lpsched.campaigns.faircamp import faircamp, faircamp_packed
    from lpsched.campaigns.policies import check_tick, min_tick, policy_factory
    from lpsched.campaigns.simulator import simulate

    if args.policy == "faircamp":
        return faircamp(w) if args.faircamp_mode == "block" else faircamp_packed(w)
    if args.policy in ("multicamp", "multicmax"):
        return _offline(w, args.policy)
    if args.policy == "fair-share":
        if args.tick is None:  # the mean job length, raised if the horizon needs it
            tick = max(float(np.mean(w.p)), 2 * min_tick(w))
        else:
            tick = args.tick
            try:
                check_tick(w, tick)
            except InvalidInstanceError as exc:
                raise LpschedError(f"--tick {tick:g}: {exc.reason}") from None
    else:
        tick = 1.0
    if args.policy != "ostrich":
        for option, value in (("--resize-mode", args.resize_mode), ("--gate", args.gate)):
            if value is not None:
                raise LpschedError(f"{option} {value}: only with --policy ostrich (the "
                                   "other policies have no virtual schedule)")
    gate = None if args.gate is None else args.gate == "on"
    return simulate(w, policy_factory(args.policy, w.parallel, tick, args.seed,
                                      args.fcfs_order, args.resize_mode, gate))


def _cmd_run(args: argparse.Namespace) -> int:
    from lpsched.campaigns.instance import from_dict, replace_processors
    from lpsched.campaigns.metrics import summary
    from lpsched.campaigns.schedule import validate

    _positive("--machines", args.machines)
    _positive("--tick", args.tick, whole=False)
    if args.tick is not None and args.tick <= 0:
        raise LpschedError(f"--tick {args.tick}: must be > 0")
    w = from_dict(read_json(args.workload))
    if args.machines is not None:
        w = replace_processors(w, args.machines)
    t0 = time.perf_counter()
    run = _simulate(w, args)
    seconds = time.perf_counter() - t0
    validate(run)
    result = summary(run, seconds, True)
    result["policy"] = args.policy
    result["variant"] = _variant(args)
    result["workload"] = args.workload
    if args.json:
        print(dump_json(result))
    else:
        width = max(len(k) for k in TABLE_KEYS)
        for k in TABLE_KEYS:
            v = result[k]
            shown = f"{v:.6g}" if isinstance(v, float) else str(v)
            print(f"{k:<{width}}  {shown}")
    return 0


def _variant(args: argparse.Namespace) -> str:
    """The reading of ``--policy`` run, named as ``reproduce faircamp`` names it
    (``faircamp-packed``, ``faircamp-block``, ``fcfs-submission``, ``fcfs-generation``)."""
    if args.policy == "faircamp":
        return f"faircamp-{args.faircamp_mode}"
    if args.policy == "fcfs":
        return f"fcfs-{args.fcfs_order}"
    return str(args.policy)


def _cmd_extract(args: argparse.Namespace) -> int:
    from lpsched.campaigns.extract import extract
    from lpsched.campaigns.instance import to_dict
    from lpsched.core.swf import read_swf

    _status(args.status)
    out = check_output(args.output, "-o", (".json",), inputs=[args.trace])
    _positive("--machines", args.machines)
    for option in ("--downtime", "--threshold", "--session-gap"):
        _positive(option, getattr(args, option.lstrip("-").replace("-", "_")), whole=False)
    if not Path(args.trace).exists():
        raise ParseError(args.trace, "no such file")
    with swf_input(args.trace, "lpsched campaigns extract"):
        trace = read_swf(args.trace, lenient=args.lenient)
    t0 = time.perf_counter()
    ex = extract(trace, args.machines, args.method, args.deps, args.downtime, args.threshold,
                 args.replay, args.session_gap, args.status)
    seconds = time.perf_counter() - t0
    with atomic_output(out) as fh:
        fh.write(json.dumps(utf8_strings(to_dict(ex.workload)), allow_nan=False))
    report = ex.report()
    report.update(output=str(out), trace=args.trace, processors=ex.workload.processors,
                  status=ex.workload.extra["status"],
                  records=trace.records, skipped_lines=trace.skipped, seconds=seconds)
    if args.json:
        print(dump_json(report))
    else:
        unplaced = sum(v["count"] for v in report["unplaced"].values())
        print(f"{report['campaigns']} campaigns of {report['users']} users "
              f"({report['jobs']} jobs, {report['pieces']} pieces, {report['edges']} "
              f"dependency edges) -> {out}; {unplaced} jobs not placed")
        for reason, v in report["unplaced"].items():
            print(f"  {v['count']} {reason}: jobs {v['jobs']}")
    return 0


def add_commands(sub: Any) -> None:
    """``campaigns generate | run | extract``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``lpsched`` parser (``add_subparsers`` of
        :func:`lpsched.cli.build_parser`); ``campaigns`` is added to it with its three
        subcommands, each with its ``func`` default set to the function that runs it.
    """
    camp = sub.add_parser("campaigns", help="seed 002: fair scheduling of user campaigns")
    csub = camp.add_subparsers(dest="campaigns_command", required=True)
    g = csub.add_parser("generate", help="a synthetic campaign workload (ch. 4 or ch. 5)")
    g.add_argument("--profile", choices=("faircamp", "profiles"), default="faircamp",
                   help="seed 002 ch. 4's FairCamp workload (Zipf users) or ch. 5's two "
                   "profiles of users (short and long jobs)")
    g.add_argument("--users", type=int, default=10,
                   help="k, from 1 to 10,000,000 (the most a workload file holds)")
    g.add_argument("--jobs", type=int, default=10_000, help="from 1 to 1,000,000")
    g.add_argument("--seed", type=seed, default=0)
    g.add_argument("--processors", type=int, help="from 1 to 10,000,000; default: 10 "
                   "(faircamp), 64 (profiles)")
    g.add_argument("-o", "--output", required=True, help="workload JSON to write")
    g.add_argument("--json", action="store_true", help="print a JSON report")
    g.set_defaults(func=_cmd_generate)
    r = csub.add_parser("run", help="simulate a policy on a workload JSON, validated")
    r.add_argument("workload", help="workload JSON")
    r.add_argument("--policy", choices=RUN_POLICIES, default="ostrich",
                   help="the campaign scheduler (lpsched policies --family campaigns)")
    r.add_argument("--machines", type=int, help="override the workload's processors")
    r.add_argument("--tick", type=float, help="fair-share recomputation period "
                   "(default: the mean job length; a tick needing more than 10^7 "
                   "recomputations over the workload's horizon is refused, decision 106)")
    r.add_argument("--seed", type=seed, default=0, help="fair-share tie-breaking")
    r.add_argument("--faircamp-mode", choices=("packed", "block"), default="packed",
                   help="FairCamp: packed as processors free up (A3 ii, default) or blocks "
                   "on the whole machine (A3 i); docs/decisions.md, decision 91")
    r.add_argument("--fcfs-order", choices=("submission", "generation"),
                   default="submission", help="FCFS queue order (docs/decisions.md, "
                   "decision 93)")
    r.add_argument("--resize-mode", choices=("literal", "fragmentation_only", "none"),
                   help="OStrich: V's capacity (default: none for sequential workloads, "
                   "literal for parallel ones; decision 140)")
    r.add_argument("--gate", choices=("on", "off"), help="OStrich: the start gate "
                   "(default: on for sequential workloads, off for parallel ones)")
    fmt = r.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--table", action="store_true")
    r.set_defaults(func=_cmd_run)
    e = csub.add_parser("extract", help="campaigns (and dependency DAGs) from an SWF log")
    e.add_argument("trace", help=".swf or .swf.gz")
    e.add_argument("--method", choices=("max", "last", "arrival", "session"), default="max",
                   help="how a user's jobs are cut into campaigns: seed 002's MAX rule, the "
                   "last end, the arrival gap, or sessions (--session-gap)")
    e.add_argument("--deps", action="store_true", help="dependency DAG of each campaign")
    e.add_argument("--machines", type=int, help="default: the header's MaxProcs")
    e.add_argument("--downtime", type=float, default=3600.0,
                   help="minimum downtime splitting the log into pieces (seconds)")
    e.add_argument("--threshold", type=float, default=600.0,
                   help="ARRIVAL: largest gap inside a campaign (seconds)")
    e.add_argument("--session-gap", type=float, default=1200.0,
                   help="SESSION: largest think time inside a session, from the end of the "
                   "user's previous job (seconds; decision 139)")
    e.add_argument("--replay", choices=("open", "closed"), default="open",
                   help="open: campaigns submitted at their log times (after the previous "
                   "one completes); closed: the log's think times after completion")
    e.add_argument("--status", default="all", help=STATUS_HELP)
    e.add_argument("--lenient", action="store_true", help="skip malformed lines")
    e.add_argument("-o", "--output", required=True, help="workload JSON to write")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=_cmd_extract)


def _cmd_reproduce(args: argparse.Namespace) -> int:

    from lpsched.campaigns import reproduce as exp

    name = args.experiment
    for option in ("--instances", "--jobs", "--jobs-per-instance", "--users-per-instance"):
        _positive(option, getattr(args, option.lstrip("-").replace("-", "_"), None))
    limits = _generator_limits()
    _at_most("--jobs-per-instance", args.jobs_per_instance, limits["--jobs"])
    _at_most("--users-per-instance", getattr(args, "users_per_instance", None),
             limits["--users"])
    if name == "faircamp":
        users = _users(args.users)
        if not (np.isfinite(args.zipf_exponent) and args.zipf_exponent > 0):
            raise LpschedError(f"--zipf-exponent {args.zipf_exponent}: must be a finite "
                               "number > 0")
    elif args.users_per_instance is not None:  # the single-value form of before
        users = (args.users_per_instance,)
    else:
        users = _users(args.users, "--users")
    if name == "ostrich":
        _status(args.status)
    out = check_output_folder(args.out, "--out")  # after every option is checked
    csv_path = check_output(str(out / f"{name}.csv"), "--out")
    egee_jobs = 0
    if name == "faircamp":
        cells = exp.faircamp_cells(users, args.instances, args.jobs_per_instance,
                                   args.first_seed, args.zipf_exponent)
        fn, trace = exp.faircamp_cell, None
    else:
        if args.limit < 0:
            raise LpschedError(f"--limit {args.limit}: must be a whole number >= 0 (0: all)")
        trace = args.trace or data_file(args.data, "LPC-EGEE-2004-1.2-cln.swf.gz")
        if not Path(trace).exists():
            raise ParseError(trace, "no such file")
        with swf_input(trace, "lpsched reproduce ostrich"):
            egee_jobs = exp.check_trace(trace, args.status, limit=args.limit)  # dec. 301
        cells = exp.ostrich_cells(trace, args.instances, args.jobs_per_instance, users,
                                  args.limit, args.first_seed, args.status)
        fn = exp.ostrich_cell
    # the time left is estimated by jobs simulated (faircamp cells all carry "jobs")
    rows, ran, wall = run_experiment(
        name, cells, fn, out, args, exp.ROW_SCHEMAS[name],
        cost=lambda c: float(c["jobs"] if "jobs" in c else egee_jobs))
    # the Dec-Jan series (1,488 values per LPC-EGEE row) goes to its own CSV below
    write_rows_csv(csv_path, [{k: v for k, v in r.items() if k != "utilisation_dec_jan"}
                              for r in rows])
    outputs = {}
    series = exp.ostrich_series_rows(rows) if name == "ostrich" else []
    if series:  # B26: the Dec-Jan hourly utilisation of every LPC-EGEE replay
        outputs["b26_series"] = str(out / "ostrich_b26_utilisation.csv")
        write_rows_csv(Path(outputs["b26_series"]), series)
    summary = exp.faircamp_summary(rows) if name == "faircamp" else exp.ostrich_summary(rows)
    if name == "ostrich" and summary["profiles_sweep"]:  # B27-B28 for every user count
        outputs["profiles_sweep"] = str(out / "ostrich_profiles_sweep.csv")
        write_rows_csv(Path(outputs["profiles_sweep"]), exp.profiles_sweep_rows(summary))
    # the one table builder, shared with the report hook (lpsched.campaigns.report)
    from lpsched.campaigns.fidelity import build_table

    table = build_table(name, rows, cells)
    figures = _plots(name, rows, out) if args.plots and rows else []
    print(dump_json({"experiment": name, "trace": trace, "summary": summary,
                     "figures": figures, **outputs, "vs_seed": table.to_dict()}))
    report_fidelity(table, out, json_mode=True)
    if not args.quiet:
        print(f"{ran} cells computed now, {len(cells) - ran} found in "
              f"{out / (name + '.sqlite')}; {wall:.1f} s; rows in {csv_path}",
              file=sys.stderr)
    return 0


def _plots(name: str, rows: list[dict[str, Any]], out: Path) -> list[str]:
    """Draw the seed's figures the rows allow beside the CSV, ``<entry>.png`` (the report
    hook's figures: :func:`lpsched.campaigns.report.draw_figures`)."""
    from lpsched.campaigns.report import draw_figures

    return [str(f.path) for f in draw_figures(name, rows, out)]


def _users(text: str, option: str = "--users") -> tuple[int, ...]:
    try:
        users = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise LpschedError(f"{option} {text}: a comma-separated list of whole numbers") \
            from None
    hi = _generator_limits()["--users"]
    if not users or min(users) < 1 or max(users) > hi:
        raise LpschedError(f"{option} {text}: every k must be from 1 to {hi:,}")
    return tuple(dict.fromkeys(users))


def add_reproduce(rep_sub: Any) -> None:
    """``reproduce faircamp | ostrich``.

    Parameters
    ----------
    rep_sub : argparse._SubParsersAction
        The experiments of ``lpsched reproduce`` (its ``add_subparsers``); ``faircamp``
        and ``ostrich`` are added with the runner options of
        :func:`lpsched.cli.common.add_runner_options`.
    """
    for name, help_ in (("faircamp", "seed 002 ch. 4: FairCamp vs FCFS (Figs. 4.3-4.4)"),
                        ("ostrich", "seed 002 ch. 5: LPC-EGEE replay and two profiles "
                         "(Figs. 5.6-5.13)")):
        rb = rep_sub.add_parser(name, help=help_)
        rb.add_argument("--instances", type=int, default=1000 if name == "faircamp" else 40,
                        help="instances (the thesis's: 1,000 per k for faircamp, 40 for "
                        "the two-profile simulation)")
        add_runner_options(rb, "folder of the store and the CSV")
        rb.add_argument("--jobs-per-instance", type=int, default=10_000,
                        help="from 1 to 1,000,000")
        rb.add_argument("--first-seed", type=seed, default=0)
        rb.add_argument("--plots", action="store_true", help="also draw the seed's figures "
                        "the rows allow, <entry>.png with the seed's values beside ours "
                        "(needs matplotlib)")
        if name == "faircamp":
            rb.add_argument("--users", default="2,3,5,10,20", help="the values of k (each "
                            "from 1 to 10,000,000)")
            rb.add_argument("--zipf-exponent", type=float, default=1.4267,
                            help="Zipf law of the campaign owners: 1.4267 ([L1124], "
                            "default) or the prose's 1 ([L1136]); decision 303")
        else:
            rb.add_argument("--trace", help="SWF trace (default: LPC-EGEE in the --data "
                            "folder)")
            rb.add_argument("--data", help=DATA_HELP)
            rb.add_argument("--limit", type=int, default=0,
                            help="replay only the first N jobs of the trace (0: all)")
            rb.add_argument("--users", default=",".join(map(str, PROFILE_USERS)),
                            help="user counts of the two-profile workload, swept (B27, "
                            "B28; the seed gives none: decision 302; each from 1 to "
                            "10,000,000); the tables report "
                            f"{PROFILE_DEFAULT_USERS} when it is run")
            rb.add_argument("--users-per-instance", type=int, help="one user count "
                            "instead of the sweep (replaces --users; default: none, the "
                            "sweep of --users is run)")
            rb.add_argument("--status", default="all", help=STATUS_HELP)
        rb.set_defaults(func=_cmd_reproduce)
