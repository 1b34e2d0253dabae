"""Subcommands of seed 003 (bags of tasks on a star platform): generate, solve, throughput,
check, simulate, schedule, plot, export, policies, demo and ``reproduce cbs3m``.

**SimGrid platforms** (:mod:`lpsched.bags.simgrid`). ``generate bags --platform
P.xml`` draws the applications on the star platform of a SimGrid platform file; ``solve``,
``throughput``, ``check``, ``simulate``, ``schedule`` and ``plot gantt`` take ``--platform
P.xml`` to replace the instance's platform by the file's (same applications); ``--master
HOST`` names the master when several hosts could be it. The port model read is
``--port`` (``schedule``: the ``--model``'s), else the file's ``lpsched.port`` property, else
the instance's (``generate``: one-port). ``export simgrid INSTANCE -o
P.xml`` writes the instance's platform as a SimGrid file (``--deployment D.xml``: the
applications as a deployment file). What the reader notices (values without unit, ignored
profiles) is one ``lpsched: note: ...`` line each on stderr; so is a platform with link
latencies given to a command whose model has none (the LP models (K)/(K1), the steady
state, the reconstructions: seed 003's models have no latency; the simulator honours it).
stdout keeps the report (``--json``: one JSON value).

Every option is validated before any work starts and every output path is checked first
(:mod:`lpsched.cli.outputs`: not a folder, its folder exists, the right suffix) and written
atomically; a bad one is one line and exit 2, with nothing computed. ``--time-limit``
(solve, simulate, schedule) is a finite number of seconds > 0: the wall-clock budget of
each max-stretch search (and, for simulate, of each policy's run).

``simulate`` reports one row per policy with its ``status``: ``ok``; ``failed`` (the
policy stopped with work left, or its solver gave up) or ``time_limit``, with the
``reason``, and no metrics; ``invalid`` (the schedule breaks a rule of the platform). A
policy that cannot finish is a result: the exit status is 0 unless a schedule is invalid
(1), whatever the other policies did. The rows are those of
:func:`lpsched.bags.comparison.compare_policies` (its ``to_frame()`` gives them as a
DataFrame); when ``*-rr`` and ``*-dd`` rows are equal by construction (one-port, decision
316), a footnote under the table names them and says why, and their JSON rows carry
``same_as`` and ``same_as_why``. Every exit status 1 (an invalid schedule, a plan
that fails its check, a lateness above a theorem's bound) prints the report on stdout as
usual and one ``lpsched: error: ...`` line on stderr.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.cli.common import (
    add_runner_options,
    dump_json,
    read_json,
    report_fidelity,
    run_experiment,
    seed,
)
from lpsched.cli.outputs import atomic_output, atomic_path, check_output, check_output_folder
from lpsched.core.figures import tight_layout
from lpsched.errors import InvalidInstanceError, LpschedError, ParseError

#: File types ``plot -o`` can write (matplotlib picks the format from the suffix).
PLOT_SUFFIXES = (".png", ".pdf", ".svg")
#: File types ``solve --export-lp`` can write (HiGHS picks the format from the suffix).
MODEL_SUFFIXES = (".lp", ".mps")
#: Largest ``--apps`` / ``--workers`` of ``generate`` (the instance is built in memory).
MAX_GENERATED = 100_000


def _positive(value: float | None, option: str, what: str = "a finite number > 0") -> None:
    """``value`` (an option's) is finite and > 0; one error line naming ``option``."""
    if value is not None and not (value > 0 and math.isfinite(value)):
        raise LpschedError(f"{option} {value:g}: must be {what}")


def _failed(message: str) -> int:
    """Exit status 1 (a violated guarantee or a failed check) with its one stderr line; the
    command's report stays on stdout."""
    print(f"lpsched: error: {message}", file=sys.stderr)
    return 1


def _time_limit(args: argparse.Namespace) -> float:
    _positive(args.time_limit, "--time-limit", "a finite number of seconds > 0")
    return float(args.time_limit)


def _note(message: str) -> None:
    """One ``lpsched: note: ...`` line on stderr (stdout keeps the report)."""
    print(f"lpsched: note: {message}", file=sys.stderr)


def _read_platform(args: argparse.Namespace, port: str | None,
                   default_port: str = "one-port") -> Any:
    """The SimGrid platform file of ``--platform`` (with ``--master``), its notes printed."""
    from lpsched.bags.simgrid import read_simgrid_platform

    sg = read_simgrid_platform(args.platform, master=args.master, port=port,
                               default_port=default_port,
                               deployment=getattr(args, "platform_deployment", None))
    for note in sg.notes:
        _note(f"{args.platform}: {note}")
    return sg


def _check_master(args: argparse.Namespace) -> None:
    if getattr(args, "master", None) is not None and not getattr(args, "platform", None):
        raise LpschedError(f"--master {args.master}: names the master host of a SimGrid "
                           "platform file, give the file with --platform")
    deployment = getattr(args, "platform_deployment", None)
    if deployment is not None and not getattr(args, "platform", None):
        raise LpschedError(f"--deployment {deployment}: names the master and the workers "
                           "of a SimGrid platform file, give the file with --platform")


def _latency_note(inst: Any, ignored_by: str,
                  honoured: str = "'lpsched simulate' honours them") -> None:
    """The note of a command whose model has no latency, when the platform has some."""
    if inst.platform.has_latency:
        lat = np.asarray(inst.platform.latencies)
        _note(f"{ignored_by} ignores the link latencies (up to {float(lat.max()):.3g} s on "
              f"{int((lat > 0).sum())} of {inst.p} workers): seed 003's models have none; "
              f"{honoured}")


def _cmd_generate(args: argparse.Namespace) -> int:
    from lpsched.bags import Instance, instance_to_dict, random_bags
    from lpsched.bags.io import instance_to_json

    _check_master(args)
    _positive(args.base_bandwidth, "--base-bandwidth", "a finite number of bytes/s > 0")
    for option, value in (("--apps", args.apps), ("--workers", args.workers)):
        if value is not None and not 1 <= value <= MAX_GENERATED:
            raise LpschedError(f"{option} {value}: must be between 1 and {MAX_GENERATED}")
    if args.platform:
        for option, value in (("--workers", args.workers),
                              ("--base-bandwidth", args.base_bandwidth)):
            if value is not None:
                raise LpschedError(f"{option} {value:g}: the platform file {args.platform} "
                                   "sets the workers and their links; leave it out")
    target = None if args.output == "-" else check_output(
        args.output, "-o", inputs=[args.platform, getattr(args, "platform_deployment", None)])
    sg = _read_platform(args, args.port) if args.platform else None
    workers = sg.platform.workers if sg is not None else args.workers
    if sg is not None and workers > MAX_GENERATED:
        raise LpschedError(f"--platform {args.platform}: {workers} workers, more than "
                           f"{MAX_GENERATED}")
    port = sg.platform.port if sg is not None else (args.port or "one-port")
    try:
        inst = random_bags(args.apps, workers, profile=args.profile, seed=args.seed,
                           arrivals=args.arrivals, port=port,
                           base_bandwidth=args.base_bandwidth)
    except InvalidInstanceError as exc:
        if args.base_bandwidth is None or not exc.field.startswith("platform.bandwidths"):
            raise
        raise _option_error("--base-bandwidth", args.base_bandwidth, exc,
                            f"the profile's default is {_profile_bandwidth(args.profile):g} "
                            "bytes/s") from None
    if sg is not None:  # the same applications as without --platform, on the file's star
        meta = dict(inst.extra)
        meta["generator"] = {**meta["generator"], "platform": Path(args.platform).name,
                             "master": sg.master}
        inst = Instance(sg.platform, inst.applications, meta, inst.origin)
    if target is None:
        print(dump_json(instance_to_dict(inst)))
    else:
        with atomic_output(target) as fh:
            fh.write(instance_to_json(inst))
        print(f"wrote {args.output}: {inst.n} applications, {inst.p} workers, "
              f"{inst.platform.port}, seed {args.seed}", file=sys.stderr)
    return 0


def _profile_bandwidth(profile: str) -> float:
    from lpsched.bags.generators import PROFILES

    return float(PROFILES[profile].base_bandwidth)


def _option_error(option: str, value: float, exc: InvalidInstanceError,
                  advice: str) -> LpschedError:
    """The error of an option whose value makes the generated instance invalid, naming the
    option the user typed (not only the instance field it led to)."""
    why = exc.reason.split(";")[0]
    return LpschedError(f"{option} {value:g}: the generated {exc.field} = {exc.value:.3g} "
                        f"(after the profile's slowdowns) is invalid: {why}; choose another "
                        f"value ({advice})")


def _summary(inst: Any, res: Any) -> str:
    from lpsched.bags.instance import Instance

    assert isinstance(inst, Instance)
    lines = [
        f"optimal max-stretch: {res.stretch:.9g}   ({res.status}, method {res.method}, "
        f"{inst.platform.port})",
        f"LP solves: {res.lp_solves} (+{res.pricing_solves} pricing)   critical values in "
        f"range: {res.critical_values}   workers in the LPs: {res.workers_used}/{inst.p}",
        f"final LP: {res.lp_size['columns']} columns, {res.lp_size['rows']} rows, "
        f"{res.lp_size['nonzeros']} nonzeros",
        f"time: {res.seconds:.3f} s total, {res.highs_seconds:.3f} s in HiGHS, "
        f"{res.build_seconds:.3f} s building models, {res.iterations} simplex iterations",
        "",
        f"{'app':>4} {'release':>10} {'tasks':>6} {'rho*':>10} {'MS*':>10} {'deadline':>11}",
    ]
    for row, k in enumerate(res.plan.apps):
        lines.append(f"{k:>4} {inst.release[k]:>10.2f} {int(inst.tasks[k]):>6} "
                     f"{res.throughputs[row]:>10.4g} {res.dedicated_makespans[row]:>10.2f} "
                     f"{res.deadlines[row]:>11.2f}")
    if inst.origin:
        lines.append(f"(release and deadline counted from t = {inst.origin:.17g} s, the first "
                     "release: absolute dates would lose precision, decision 251)")
    return "\n".join(lines)


def _load(path: str, port: str | None, args: argparse.Namespace | None = None,
          ignored_by: str | None = None) -> Any:
    """The instance ``path`` under ``port`` (``None``: its own), on the platform of
    ``--platform`` when ``args`` has one; ``ignored_by`` names the model of a command
    without latency, for the note (module doc)."""
    from lpsched.bags import load_instance
    from lpsched.bags.simgrid import with_platform

    if args is not None:
        _check_master(args)
    inst = load_instance(path)
    if args is not None and getattr(args, "platform", None):
        inst = with_platform(inst, _read_platform(args, port, inst.platform.port).platform)
    inst = inst.with_port(port) if port else inst
    if ignored_by:
        _latency_note(inst, ignored_by)
    return inst


def _memory(arg: str | None, p: int) -> np.ndarray | None:
    """``--memory``: one value for every worker or one per worker (bytes, finite, > 0)."""
    if arg is None:
        return None
    try:
        values = [float(v) for v in arg.split(",")]
    except ValueError:
        raise LpschedError(f"--memory {arg}: must be numbers separated by commas (bytes): "
                           "one for every worker, or one per worker") from None
    if not all(v > 0 and math.isfinite(v) for v in values):
        raise LpschedError(f"--memory {arg}: every value must be a finite number of "
                           "bytes > 0")
    if len(values) not in (1, p):
        raise LpschedError(f"--memory {arg}: {len(values)} values for {p} workers; give one "
                           f"value (every worker) or {p}")
    return np.full(p, values[0]) if len(values) == 1 else np.asarray(values)


def _needs_json(args: argparse.Namespace, option: str, what: str) -> None:
    """``option`` only changes the ``--json`` output: without ``--json`` it is an error
    (one line, exit 2), not an option silently ignored."""
    if not args.json:
        raise LpschedError(f"{option}: {what} is part of the --json output; add --json, or "
                           f"leave {option} out")


def _cmd_solve(args: argparse.Namespace) -> int:
    from lpsched.bags.maxstretch import max_stretch
    from lpsched.core import tolerances

    limit = _time_limit(args)
    if args.plan:
        _needs_json(args, "--plan", "the plan")
    _positive(args.tol, "--tol")
    if args.tol is not None and args.method != "bisection":
        raise LpschedError(f"--tol {args.tol:g}: the tolerance of --method bisection; "
                           f"--method {args.method} is exact (up to the LP tolerances), "
                           "leave --tol out or add --method bisection")
    tol = tolerances.BISECTION if args.tol is None else args.tol
    if args.formulation == "paths" and args.memory is not None:
        raise LpschedError("--formulation paths has no memory rows (they couple the "
                           "applications' buffers): use --formulation buffers or auto")
    export = args.export_lp and check_output(args.export_lp, "--export-lp", MODEL_SUFFIXES,
                                            inputs=[args.instance, args.platform,
                                                    getattr(args, "platform_deployment", None)])
    inst = _load(args.instance, args.port, args, "the max-stretch LP ((K)/(K1))")
    res = max_stretch(inst, method=args.method, tol=tol,
                      memory=_memory(args.memory, inst.p), time_limit=limit,
                      formulation=args.formulation, first_solve=args.first_solve)
    if args.json:
        out = res.to_dict(plan=args.plan)
        if inst.origin:  # dates of a rebased instance count from here (decision 251)
            out["time_origin"] = inst.origin
        print(dump_json(out), flush=True)
    else:
        print(_summary(inst, res), flush=True)
    if export:  # after the answer: a result solved by time scales has no single LP
        with atomic_path(export) as tmp:
            res.export_lp(tmp)
        if not args.json:
            print(f"\nwrote the stretch-interval LP to {args.export_lp}")
    return 0


def _cmd_throughput(args: argparse.Namespace) -> int:
    from lpsched.bags.steady_state import dedicated_throughputs

    inst = _load(args.instance, args.port, args, "the steady state")
    rho = dedicated_throughputs(inst)
    ms = inst.tasks / rho
    if args.json:
        print(dump_json({"port": inst.platform.port, "throughputs": rho,
                     "dedicated_makespans": ms}))
    else:
        print(f"{'app':>4} {'rho* (tasks/s)':>15} {'MS* (s)':>12}   [{inst.platform.port}]")
        for k in range(inst.n):
            print(f"{k:>4} {rho[k]:>15.6g} {ms[k]:>12.6g}")
    return 0


#: The polyhedron of each port model (seed 003 §3.3-§3.4).
_POLYHEDRON = {"one-port": "(K1)", "multiport": "(K)"}


def _cmd_check(args: argparse.Namespace) -> int:
    """The plan of a ``solve --json --plan`` file against the instance's model, or
    ``--port``'s (both ``MS*`` and the capacities; a plan computed under another model is
    a violation), and the file's summary (``stretch``...) against the plan."""
    from lpsched.bags.check import check_plan, check_summary, plan_from_dict

    inst = _load(args.instance, args.port, args, "the plan check ((K)/(K1))")
    memory = _memory(args.memory, inst.p)
    data = read_json(args.result)
    plan = plan_from_dict(data, inst, args.result)
    report = check_plan(inst, plan, memory=memory)
    report.extend(check_summary(data, inst, plan, args.result))
    model = inst.platform.port
    if args.json:
        print(dump_json({"ok": report.ok, "violations": report.violations,
                         "worst": report.worst, "notes": report.notes, "port": model,
                         "stretch": plan.stretch}))
    else:
        print(f"plan OK: max-stretch {plan.stretch:.9g} under {model} "
              f"{_POLYHEDRON[model]}" if report.ok else "\n".join(report.violations))
        for note in report.notes:
            _note(note)
    if report.ok:
        return 0
    return _failed(f"the plan violates {len(report.violations)} constraint(s); first: "
                   f"{report.violations[0]}")


def _policy_names(arg: str) -> list[str]:
    """The names ``--policy`` asks for, all checked against the registry before any run."""
    from lpsched.bags.policies import REGISTRY, policy_names

    names = policy_names() if arg == "all" else [n.strip() for n in arg.split(",")]
    unknown = [n for n in names if n not in REGISTRY]
    if unknown or not names:
        raise LpschedError(f"--policy {arg}: unknown policy {unknown[0] if unknown else ''!r}"
                           f"; `lpsched policies` lists {len(REGISTRY)} names, or use 'all'")
    return names


def _policy_table(res: Any) -> str:
    """``simulate``'s table: the rows of :func:`lpsched.bags.comparison.compare_policies`
    (the fields of its ``TABLE_COLUMNS``), the LP bound, the reason of each policy that is
    not ok, and a footnote on the RR and DD rows equal by construction."""
    from lpsched.bags.comparison import RR_DD_NOTE

    lines = [f"{'policy':<20} {'status':>10} {'max-str/LP':>10} {'max-stretch':>11} "
             f"{'sum-stretch':>11} {'makespan':>10} {'max-flow':>10} {'sum-flow':>11} "
             f"{'s':>6}"]
    for r in res.rows:
        if r["max_stretch"] is None:
            lines.append(f"{r['policy']:<20} {r['status'].upper():>10} {'-':>10} {'-':>11} "
                         f"{'-':>11} {'-':>10} {'-':>10} {'-':>11} {r['seconds']:>6.2f}")
            continue
        status = "ok" if r["status"] == "ok" else r["status"].upper()
        lines.append(f"{r['policy']:<20} {status:>10} "
                     f"{r['relative_max_stretch']:>10.4f} {r['max_stretch']:>11.4f} "
                     f"{r['sum_stretch']:>11.3f} {r['makespan']:>10.1f} {r['max_flow']:>10.1f} "
                     f"{r['sum_flow']:>11.1f} {r['seconds']:>6.2f}")
    lines.append(f"\nLP lower bound on the max-stretch {_POLYHEDRON[res.port]}, {res.port}: "
                 f"{res.lp_bound:.6f}")
    lines += [f"{r['policy']} {r['status']}: {r['reason']}" for r in res.rows
              if r["status"] != "ok"]
    if res.same:
        pairs = ", ".join(f"{rr} = {dd}" for rr, dd in res.same)
        lines.append(f"* {pairs} by construction: {RR_DD_NOTE}.")
    return "\n".join(lines)


def _cmd_simulate(args: argparse.Namespace) -> int:
    from lpsched.bags.comparison import compare_policies

    limit = _time_limit(args)
    if args.json and args.table:
        raise LpschedError("--json and --table: choose one output (the table is the "
                           "default)")
    names = _policy_names(args.policy)
    inst = _load(args.instance, None, args)
    bound = f"the LP lower bound {_POLYHEDRON[inst.platform.port]}"
    _latency_note(inst, f"{bound} ('lp_bound')" if args.json else f"{bound} of the table",
                  "the simulated schedules include them")
    res = compare_policies(inst, names, time_limit=limit)
    rows = res.rows
    if args.json:
        print(dump_json(rows[0] if len(rows) == 1 else rows))
    else:
        print(_policy_table(res))
    invalid = [r for r in rows if r["status"] == "invalid"]
    if invalid:
        return _failed(f"{len(invalid)} invalid schedule(s); {invalid[0]['policy']}: "
                       f"{invalid[0]['reason']}")
    return 0


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from lpsched.bags import reproduce as exp
    if args.instances < 1:
        raise LpschedError(f"--instances {args.instances}: must be at least 1")
    _positive(args.base_bandwidth, "--base-bandwidth", "a finite number of bytes/s > 0")
    out = check_output_folder(args.out, "--out")
    base = None if args.base_bandwidth is None else args.base_bandwidth
    read = None
    if args.dd_request is not None or args.greedy_switch is not None:
        parts = exp.parse_reading(exp.reading())
        parts.update({k: v for k, v in (("dd_request", args.dd_request),
                                        ("switch", args.greedy_switch)) if v is not None})
        read = ";".join(f"{k}={v}" for k, v in parts.items())
    todo = exp.cells(args.instances, args.profile, args.first_seed, base_bandwidth=base,
                     greedy_reading=read, eager=args.eager, arrivals=args.arrivals)
    rows, ran, wall = run_experiment(exp.EXPERIMENT, todo, exp.cell, out, args,
                                     exp.ROW_SCHEMA, group=exp.by_instance)
    tab = exp.tables(exp.select(rows, "lazy"))
    exp.write_csv(tab, rows, out, opener=lambda path: atomic_output(path, newline=""))
    figures = _write_figures(rows, out, figure5=args.profile == "mpi")
    fidelity = _vs_seed(todo, rows, out)
    if args.json:  # one JSON value on stdout; the seed-vs-ours table also on stderr
        print(dump_json({"experiment": exp.EXPERIMENT, "profile": args.profile,
                         "tables": tab, "cells": len(todo), "computed_now": ran,
                         "seconds": wall, "out": str(out),
                         "figures": [str(f) for f in figures],
                         "vs_seed": fidelity.to_dict()}))
        report_fidelity(fidelity, out, json_mode=True)
        return 0
    print(exp.format_tables(tab, args.profile))
    dispatchers = exp.format_dispatchers(rows)
    if dispatchers:
        print(dispatchers)
    print(f"{ran} cells computed now, {len(todo) - ran} found in {out / 'cbs3m.sqlite'}; "
          f"{wall:.1f} s; CSV files and figures in {out}")
    report_fidelity(fidelity, out)
    return 0


def _vs_seed(todo: list[tuple[Any, ...]], rows: list[dict[str, Any]], out: Path) -> Any:
    """The seed-vs-ours table of this run (:func:`lpsched.bags.fidelity.cbs3m_table`, the
    table the report prints), with the other profile's run when ``out``'s store holds one
    (``reproduce all`` runs ``mpi`` and ``simgrid`` into one store: Table 3 and Tables 4-8
    then judged side by side)."""
    from lpsched.bags import fidelity, report
    from lpsched.bags import reproduce as exp
    from lpsched.core import ResultStore

    setting = fidelity.Setting.of_key(list(todo[0]))
    others = [p for p in ("mpi", "simgrid") if p != setting.profile]
    store = ResultStore(out / f"{exp.EXPERIMENT}.sqlite")
    try:
        runs = [fidelity.Run(setting, tuple(rows)), *report.runs_in(store, exp.EXPERIMENT,
                                                                    others)]
    finally:
        store.close()
    return fidelity.cbs3m_table(runs)


def _write_figures(rows: list[dict[str, Any]], out: Path, figure5: bool) -> list[Path]:
    """Seed 003 Figures 6–10 (5 too for the MPI set-up) into ``out``, each a PNG and the CSV
    behind it (:func:`lpsched.bags.reproduce.write_figures`), written atomically; without
    matplotlib, the CSVs and a note naming the extra."""
    from lpsched.bags import reproduce as exp

    def saver(fig: Any, path: Path) -> None:
        import matplotlib.pyplot as plt


        tight_layout(fig)
        with atomic_path(path) as tmp:
            fig.savefig(tmp, dpi=120)
        plt.close(fig)

    opener = lambda path: atomic_output(path, newline="")  # noqa: E731
    try:
        import matplotlib
    except ImportError:
        _note("figures 5-10: matplotlib is missing (pip install 'lpsched[plot]'); only "
              "their CSV files are written")
        return exp.write_figures(exp.select(rows, "lazy"), out, figure5, opener=opener,
                                 draw=False)
    matplotlib.use("Agg")
    return exp.write_figures(exp.select(rows, "lazy"), out, figure5, opener=opener,
                             saver=saver)


def _cmd_plot(args: argparse.Namespace) -> int:
    if args.kind == "load":
        return _cmd_plot_load(args)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lpsched.bags import plotting

    target = check_output(args.output, "-o", PLOT_SUFFIXES,
                          inputs=[getattr(args, "instance", None),
                                  getattr(args, "platform", None)])
    if args.kind == "gantt":
        from lpsched.bags.policies import get_policy
        from lpsched.bags.simulator import simulate

        inst = _load(args.instance, None, args)
        res = simulate(inst, get_policy(args.policy))
        ax = plotting.gantt(inst, res.schedule, title=f"{args.policy} on {args.instance}")
    else:
        from lpsched.bags import reproduce as exp
        from lpsched.bags.policies import policy_names
        from lpsched.core import ResultStore

        path = Path(args.results) / "cbs3m.sqlite"
        if not path.exists():
            raise ParseError(str(path), "no result store here (run 'lpsched reproduce cbs3m')")
        rows = ResultStore(path).rows(exp.EXPERIMENT, exp.ROW_SCHEMA)
        if not rows:
            raise ParseError(str(path), "the store holds no cbs3m rows")
        skipped = plotting.unfinished_counts(rows)
        if skipped:
            _note(f"{sum(skipped.values())} run(s) that did not finish are not plotted ("
                  + ", ".join(f"{p}: {n}" for p, n in skipped.items())
                  + "; their status and reason are in cbs3m_rows.csv)")
        ax = plotting.stretch_boxplot(rows, order=[p for p in policy_names(variants=True)
                                                   if any(r["policy"] == p for r in rows)])
    tight_layout(ax.figure)
    with atomic_path(target) as tmp:
        ax.figure.savefig(tmp, dpi=120)
    plt.close(ax.figure)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def _cmd_plot_load(args: argparse.Namespace) -> int:
    """``plot load``: Figures 6–10 (and 5 with ``--figure5``) redrawn from a store."""
    from lpsched.bags import reproduce as exp
    from lpsched.core import ResultStore

    path = Path(args.results) / "cbs3m.sqlite"
    if not path.exists():
        raise ParseError(str(path), "no result store here (run 'lpsched reproduce cbs3m')")
    rows = ResultStore(path).rows(exp.EXPERIMENT, exp.ROW_SCHEMA)
    if not rows:
        raise ParseError(str(path), "the store holds no cbs3m rows")
    out = check_output_folder(args.output or args.results, "-o")
    skipped = sum(1 for r in exp.select(rows, "lazy") if r.get("status", "ok") != "ok")
    if skipped:
        _note(f"{skipped} run(s) that did not finish are left out of the figures (their "
              "status and reason are in cbs3m_rows.csv)")
    written = _write_figures(rows, out, figure5=args.figure5)
    for p in written:
        print(p)
    return 0


def _cmd_schedule(args: argparse.Namespace) -> int:
    from lpsched.bags.maxstretch import max_stretch
    from lpsched.bags.reconstruct import reconstruct_bmp, reconstruct_op_ac
    from lpsched.bags.schedule import metrics, validate
    from lpsched.bags.simulator import check_size
    from lpsched.errors import InvalidScheduleError

    limit = _time_limit(args)
    if args.schedule:
        _needs_json(args, "--schedule", "the list of tasks")
    port = "one-port" if args.model == "op-ac" else "multiport"
    inst = _load(args.instance, port, args, "the schedule from the LP (Theorems 3, 4, 6)")
    check_size(inst, "a schedule")
    res = max_stretch(inst, time_limit=limit)
    computation = "fluid" if args.model == "bmp-fc" else "atomic"
    if args.model == "op-ac":
        rec = reconstruct_op_ac(inst, res.plan)
    else:
        rec = reconstruct_bmp(inst, res.plan, computation)
    try:
        validate(inst, rec.schedule, computation=computation, stretch_bound=res.stretch)
        valid, why = True, None
    except InvalidScheduleError as exc:
        valid, why = False, str(exc)
    m = metrics(inst, rec.schedule)
    out: dict[str, Any] = {
        "model": args.model, "valid": valid, "lp_stretch": res.stretch, **m.to_dict(),
        "deadlines": rec.deadlines, "lateness": rec.lateness, "lateness_bound": rec.bound,
        "within_bound": bool((rec.lateness <= rec.bound * (1 + 1e-9) + 1e-9).all()),
        "tasks": rec.schedule.size}
    if why:
        out["invalid_because"] = why
    if args.schedule:
        out["schedule"] = rec.schedule.to_dict()
    if args.json:
        print(dump_json(out))
    else:
        theorem = {"op-ac": "(K1) optimum, Theorem 6", "bmp-ac": "(K) optimum, Theorem 4",
                   "bmp-fc": "(K) optimum, Theorem 3"}[args.model]
        print(f"{args.model.upper()} schedule from the {theorem}: {rec.schedule.size} tasks, "
              f"{'valid' if valid else 'INVALID: ' + str(why)}")
        print(f"max-stretch {m.max_stretch:.6f} (LP optimum {res.stretch:.6f}, ratio "
              f"{m.max_stretch / res.stretch:.4f}); worst lateness "
              f"{float(rec.lateness.max()):.6g} s, the theorem's bound "
              f"{float(rec.bound.max()):.6g} s")
    if not valid:
        return _failed(f"the {args.model.upper()} schedule is invalid: {why}")
    if not out["within_bound"]:
        return _failed(f"the {args.model.upper()} schedule's lateness exceeds the theorem's "
                       "bound")
    return 0


def _cmd_policies(args: argparse.Namespace) -> int:
    """Every family's policies in text; ``--json`` the names of ``--family`` (default the
    master-worker simulator's, as before the tasks family)."""
    from lpsched.bags.policies import REGISTRY
    from lpsched.cli.tasks import policy_lines

    sections = {"bags": [(e.name, ("(variant) " if e.variant else "") + e.description)
                         for e in REGISTRY.values()],
                "tasks": policy_lines()}
    if args.json:
        names = [name for name, _ in sections[args.family or "bags"]]
        if (args.family or "bags") == "bags" and not args.variants:
            names = [n for n in names if not REGISTRY[n].variant]
        print(dump_json(names))
        return 0
    titles = {"bags": "master-worker simulator (lpsched simulate --policy NAME):",
              "tasks": "online sequential tasks (lpsched online --policy NAME):"}
    chosen = [args.family] if args.family else list(sections)
    width = max(len(n) for f in chosen for n, _ in sections[f])
    for i, family in enumerate(chosen):
        if len(chosen) > 1:
            print(("\n" if i else "") + titles[family])
        for name, text in sections[family]:
            print(f"{name:<{width}}  {text}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from lpsched.bags import random_bags
    from lpsched.bags.check import check_plan
    from lpsched.bags.maxstretch import max_stretch

    inst = random_bags(profile="simgrid", seed=args.seed)
    print(f"CBS3M-style instance (seed 003 Table 2): {inst.n} applications, {inst.p} workers, "
          f"one-port, seed {args.seed}\n")
    res = max_stretch(inst, method="intervals")
    print(_summary(inst, res))
    report = check_plan(inst, res.plan)
    print(f"\nindependent check of the plan against (K1): {'OK' if report.ok else 'FAILED'}")
    return 0 if report.ok else _failed("the plan failed its independent check")


def _cmd_export(args: argparse.Namespace) -> int:
    from lpsched.bags import load_instance
    from lpsched.bags.simgrid import simgrid_deployment_xml, simgrid_platform_xml

    target = None if args.output == "-" else check_output(args.output, "-o", (".xml",),
                                                          inputs=[args.instance])
    deployment = args.deployment and check_output(args.deployment, "--deployment", (".xml",),
                                                  inputs=[args.instance])
    if deployment and target is not None and deployment.resolve() == target.resolve():
        raise LpschedError(f"--deployment {args.deployment}: the same file as -o")
    inst = load_instance(args.instance)
    text = simgrid_platform_xml(inst.platform, exact_network=args.exact_network,
                                comment=f"from {Path(args.instance).name}")
    deploy = simgrid_deployment_xml(inst) if deployment else None
    if target is None:
        sys.stdout.write(text)
    else:
        with atomic_output(target) as fh:
            fh.write(text)
        print(f"wrote {args.output}: SimGrid platform (version 4.1), master + {inst.p} "
              f"workers, {inst.platform.port}", file=sys.stderr)
    if deployment and deploy is not None:
        with atomic_output(deployment) as fh:
            fh.write(deploy)
        print(f"wrote {args.deployment}: SimGrid deployment, {inst.n} applications",
              file=sys.stderr)
    return 0


def _platform_args(parser: Any, what: str = "the instance's platform") -> None:
    """``--platform`` and ``--master`` (module doc)."""
    parser.add_argument("--platform", metavar="FILE",
                        help=f"a SimGrid platform file (XML 4.1) whose star replaces {what} "
                        "(workers: the hosts other than the master, in file order; units as "
                        "SimGrid's: 1Gf, 100Mbps, 50us)")
    parser.add_argument("--master", metavar="HOST",
                        help="with --platform: the master host (default: the host of the "
                        "deployment's 'master' actor, else the only host with a route to "
                        "every other host)")
    parser.add_argument("--deployment", dest="platform_deployment", metavar="FILE",
                        help="with --platform: a SimGrid deployment file; the master is the "
                        "host of its 'master' actor, the workers the hosts of its 'worker' "
                        "actors in their order (a master that also runs a 'worker' actor "
                        "computes too: a worker with an unbounded link, decision 358)")


def _add_generate(sub: Any) -> None:
    """``generate bags``."""
    gen = sub.add_parser("generate", help="generate a random instance")
    gen_sub = gen.add_subparsers(dest="kind", required=True)
    bags = gen_sub.add_parser("bags", help="concurrent bags-of-tasks (seed 003 Tables 1-2)")
    bags.add_argument("--apps", type=int, default=None, help="applications (profile default)")
    bags.add_argument("--workers", type=int, default=None, help="workers (profile default)")
    bags.add_argument("--profile", choices=("mpi", "simgrid", "balanced"), default="simgrid",
                      help="the generator's parameters: seed 003 Table 1 (mpi), Table 2 "
                      "(simgrid), or computation and communication of one order (balanced)")
    bags.add_argument("--seed", type=seed, default=0)
    bags.add_argument("--arrivals", choices=("absolute", "interarrival"), default="absolute",
                      help="release dates: log-normal dates, or log-normal gaps accumulated")
    bags.add_argument("--port", choices=("one-port", "multiport"), default=None,
                      help="communication model (default one-port; with --platform: the "
                      "file's lpsched.port property, else one-port)")
    bags.add_argument("--base-bandwidth", type=float, default=None,
                      help="link bandwidth before slowdowns, bytes/s (default: the "
                      "profile's: 1.25e6 = 10 Mbit/s for mpi, 12.5e6 = 100 Mbit/s for "
                      "simgrid, 1e7 for balanced)")
    _platform_args(bags, "the generated platform (the applications are those the same "
                   "--seed draws for that many workers)")
    bags.add_argument("-o", "--output", default="-", help="JSON file ('-': stdout)")
    bags.set_defaults(func=_cmd_generate)


def _add_check(sub: Any) -> None:
    """``check INSTANCE RESULT``."""
    chk = sub.add_parser("check", help="verify a plan from 'solve --json --plan' against "
                         "(K1) (one-port) or (K) (multiport)",
                         description="Verify a plan from 'solve --json --plan' against the "
                         "constraints of the instance's port model: (K1) one-port or (K) "
                         "bounded multiport, MS* (hence the deadlines) and the capacities "
                         "both under that model. A plan computed under another model "
                         "(solve --port) is a violation unless --port names that model. "
                         "The file's summary (stretch, deadlines, MS*) must agree with the "
                         "plan. Each violation is measured against its own scale (the "
                         "application's tasks or MS*, the interval).")
    chk.add_argument("instance", help="an instance JSON file (lpsched generate bags)")
    chk.add_argument("result", help="the JSON of `lpsched solve --json --plan`")
    chk.add_argument("--port", choices=("one-port", "multiport"), default=None,
                     help="check under this model instead of the instance's (as 'solve "
                     "--port'): for a plan of 'solve --port'")
    chk.add_argument("--memory", default=None,
                     help="buffer memory per worker in bytes (one value or one per worker)")
    _platform_args(chk)
    chk.add_argument("--json", action="store_true")
    chk.set_defaults(func=_cmd_check)


def add_model_commands(sub: Any) -> None:
    """generate, solve, throughput, check, simulate.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``lpsched`` parser (``add_subparsers`` of
        :func:`lpsched.cli.build_parser`); the commands are added to it, each with its
        ``func`` default set to the function that runs it.
    """
    _add_generate(sub)

    solve = sub.add_parser("solve", help="optimal max-stretch of an instance (seed 003 §3)")
    solve.add_argument("instance", help="an instance JSON file (lpsched generate bags)")
    solve.add_argument("--method", choices=("intervals", "bisection"), default="intervals",
                       help="Algorithm 2 (stretch intervals, exact) or Algorithm 1 (bisection "
                       "to --tol)")
    solve.add_argument("--tol", type=float, default=None,
                       help="with --method bisection: the tolerance on S (default 1e-6); "
                            "an error with the exact --method intervals")
    solve.add_argument("--formulation", choices=("auto", "paths", "buffers"), default="auto",
                       help="the LP behind each check: 'paths' (column generation over "
                            "send/compute paths, no buffer rows), 'buffers' (the full "
                            "(K1) model); 'auto' takes paths offline without --memory "
                            "(docs/decisions.md)")
    solve.add_argument("--first-solve", choices=("simplex", "ipm"), default="simplex",
                       help="the path LP's first solve: 'simplex' (default: the same plan "
                            "as before) or 'ipm' (interior point, faster on large "
                            "instances: the same optimum, possibly another optimal plan; "
                            "decision 452)")
    solve.add_argument("--port", choices=("one-port", "multiport"), default=None,
                       help="override the instance's communication model")
    solve.add_argument("--memory", default=None,
                       help="buffer memory per worker in bytes (one value or one per worker)")
    solve.add_argument("--time-limit", type=float, default=120.0,
                       help="wall-clock budget of the search, seconds (> 0; default 120)")
    _platform_args(solve)
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    solve.add_argument("--plan", action="store_true",
                       help="with --json (required): include the plan, for 'lpsched check'")
    solve.add_argument("--export-lp", metavar="FILE",
                       help="write the stretch-interval LP at the optimum (.lp or .mps); "
                            "checked before solving, written atomically")
    solve.set_defaults(func=_cmd_solve)

    thr = sub.add_parser("throughput", help="steady-state rho* and MS* of each application")
    thr.add_argument("instance", help="an instance JSON file (lpsched generate bags)")
    thr.add_argument("--port", choices=("one-port", "multiport"), default=None,
                     help="communication model (default: the instance's)")
    _platform_args(thr)
    thr.add_argument("--json", action="store_true")
    thr.set_defaults(func=_cmd_throughput)

    _add_check(sub)

    sim = sub.add_parser("simulate", help="run policies in the master-worker simulator "
                         "(one-port or bounded multiport) and validate their schedules")
    sim.add_argument("instance", help="an instance JSON file (lpsched generate bags)")
    sim.add_argument("--policy", default="cbs3m-edf-online",
                     help="a policy name, several separated by commas, or 'all'")
    _platform_args(sim)
    sim.add_argument("--json", action="store_true",
                     help="one JSON value (a row, or a list of rows); not with --table")
    sim.add_argument("--table", action="store_true",
                     help="a table (the default output); not with --json")
    sim.add_argument("--time-limit", type=float, default=120.0,
                     help="wall-clock budget, seconds (> 0): of the LP bound, and of each "
                          "policy's run (a policy out of time gets status time_limit)")
    sim.set_defaults(func=_cmd_simulate)



def add_reproduce(rep_sub: Any) -> None:
    """``reproduce cbs3m`` (seed 003 Tables 4-8).

    Parameters
    ----------
    rep_sub : argparse._SubParsersAction
        The experiments of ``lpsched reproduce`` (its ``add_subparsers``); ``cbs3m`` is
        added with the runner options of :func:`lpsched.cli.common.add_runner_options`.
    """
    cb = rep_sub.add_parser("cbs3m", help="seed 003 Tables 4-8 (SimGrid experiments)")
    cb.add_argument("--instances", type=int, default=1000,
                    help="instances drawn (the seed's 1,000: about 90 minutes on 2 cores; "
                    "50 for a quick look)")
    add_runner_options(cb, "folder of the result store and the CSV files (created if missing)")
    cb.add_argument("--profile", choices=("simgrid", "mpi"), default="simgrid",
                    help="the generator: seed 003 Table 2 (simgrid, Tables 4-8) or Table 1 "
                    "(mpi, Table 3)")
    cb.add_argument("--first-seed", type=seed, default=0)
    cb.add_argument("--base-bandwidth", type=float, default=None,
                    help="generator's link bandwidth before slowdowns, bytes/s (default: "
                    "the profile's: 12.5e6 = 100 Mbit/s for simgrid, 1.25e6 = 10 Mbit/s "
                    "for mpi)")
    # the defaults are written out, not read from bags.policies.greedy: importing it here
    # would load scipy for every command (tests/cli/test_bags.py keeps them equal)
    cb.add_argument("--dd-request", choices=("idle", "received"), default=None,
                    help="when a DD worker asks for a task: once idle, or once its last "
                    "task has arrived (default: received, the registered policies' "
                    "reading, decision 316)")
    cb.add_argument("--greedy-switch", choices=("dispatch", "complete"), default=None,
                    help="when a greedy heuristic moves to the next application: once the "
                    "current one is all sent, or all computed (default: complete, the "
                    "registered policies' reading, decision 317)")
    cb.add_argument("--arrivals", choices=("absolute", "interarrival"), default="absolute",
                    help="the generator's release dates: log-normal dates, or log-normal "
                    "gaps accumulated (decision 321's open reading)")
    cb.add_argument("--eager", action="store_true",
                    help="also run the eager CBS3M dispatcher (cbs3m-*-eager) and "
                    "print Tables 4, 6 and 7's CBS3M rows under both dispatchers")
    cb.set_defaults(func=_cmd_reproduce)


def add_output_commands(sub: Any) -> None:
    """plot, schedule.

    ``plot gantt | box | load``, ``schedule`` and ``export simgrid``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``lpsched`` parser (``add_subparsers`` of
        :func:`lpsched.cli.build_parser`); the commands are added to it, each with its
        ``func`` default set to the function that runs it.
    """
    plot = sub.add_parser("plot", help="draw a Gantt chart or the stretch distribution")
    plot_sub = plot.add_subparsers(dest="kind", required=True)
    pg = plot_sub.add_parser("gantt", help="Gantt chart of one policy's schedule")
    pg.add_argument("instance", help="an instance JSON file (lpsched generate bags)")
    pg.add_argument("--policy", default="cbs3m-edf-online",
                    help="the policy to draw (lpsched policies)")
    pg.add_argument("-o", "--output", default="gantt.png",
                    help="a .png, .pdf or .svg file (default: gantt.png in the current "
                    "folder; an existing file is replaced)")
    _platform_args(pg)
    pg.set_defaults(func=_cmd_plot)
    pb = plot_sub.add_parser("box", help="max-stretch / LP per policy, from a reproduction")
    pb.add_argument("results", help="the --out folder of 'lpsched reproduce cbs3m'")
    pb.add_argument("-o", "--output", default="stretch_box.png",
                    help="a .png, .pdf or .svg file (default: stretch_box.png in the "
                    "current folder; an existing file is replaced)")
    pb.set_defaults(func=_cmd_plot)
    pl = plot_sub.add_parser("load", help="seed 003 Figures 6-10 (each metric against the "
                             "load) from a reproduction's store, PNG and CSV")
    pl.add_argument("results", help="the --out folder of 'lpsched reproduce cbs3m'")
    pl.add_argument("-o", "--output", default=None, metavar="FOLDER",
                    help="folder of the figures (default: the results folder)")
    pl.add_argument("--figure5", action="store_true",
                    help="also Figure 5, the best four per experiment (the MPI set-up)")
    pl.set_defaults(func=_cmd_plot)

    sch = sub.add_parser("schedule", help="a concrete schedule from the LP optimum "
                         "(seed 003 Theorems 3, 4, 6)")
    sch.add_argument("instance", help="an instance JSON file (lpsched generate bags)")
    sch.add_argument("--model", choices=("op-ac", "bmp-ac", "bmp-fc"), default="op-ac",
                     help="op-ac: one-port atomic (Thm 6); bmp-ac / bmp-fc: bounded multiport, "
                          "atomic (Thm 4) or fluid (Thm 3) computation")
    _platform_args(sch)
    sch.add_argument("--json", action="store_true")
    sch.add_argument("--schedule", action="store_true",
                     help="with --json (required): every task")
    sch.add_argument("--time-limit", type=float, default=120.0,
                     help="wall-clock budget of the max-stretch search, seconds (> 0)")
    sch.set_defaults(func=_cmd_schedule)

    exp = sub.add_parser("export", help="write an instance's platform in another tool's "
                         "format (SimGrid)")
    exp_sub = exp.add_subparsers(dest="format", required=True)
    sgx = exp_sub.add_parser(
        "simgrid", help="a SimGrid platform file (XML 4.1) of an instance's star platform",
        description="Write the star platform of an instance as a SimGrid platform file "
        "(version 4.1): a host 'master' and one host per worker (the host names of a "
        "platform read from a SimGrid file are kept) with their speeds, one SPLITDUPLEX "
        "link per worker with its bandwidth and latency, routes master -> worker in a Full "
        "zone; a bounded multiport master gets a shared link 'master_port' of bandwidth BW "
        "on every route. Reading the file back (--platform) gives the same platform. "
        "SimGrid's default network model (LV08) scales bandwidths by 0.97 and latencies by "
        "13.01, and its TCP window (network/TCP-gamma) bounds every flow, under CM02 too. "
        "To get lpsched's transfer times (latency + size/bandwidth) use --exact-network, "
        "or run SimGrid with all of --cfg=network/model:CM02 --cfg=network/TCP-gamma:0 "
        "(or 1e100) and --cfg=network/crosstraffic:0 unless every link is SPLITDUPLEX (as "
        "written here); one-port also needs a master program that sends one message at "
        "a time.")
    sgx.add_argument("instance", help="an instance JSON file (one speed per worker)")
    sgx.add_argument("-o", "--output", default="-",
                     help="the platform file, .xml ('-': stdout, the default)")
    sgx.add_argument("--deployment", metavar="FILE",
                     help="also write a SimGrid deployment file (.xml): an actor 'master' on "
                     "the master whose arguments are the port model, n, then release tasks "
                     "work size of each application, then the worker hosts; an actor "
                     "'worker' on each worker")
    sgx.add_argument("--exact-network", action="store_true",
                     help="add a <config> block (network/model CM02, network/TCP-gamma 1e100, "
                     "network/crosstraffic 0) so SimGrid's transfer times are lpsched's: "
                     "latency + size/bandwidth (one-port: the master program must still "
                     "send one message at a time)")
    sgx.set_defaults(func=_cmd_export)



def add_info_commands(sub: Any) -> None:
    """policies, demo.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``lpsched`` parser (``add_subparsers`` of
        :func:`lpsched.cli.build_parser`); the commands are added to it, each with its
        ``func`` default set to the function that runs it.
    """
    pol = sub.add_parser("policies", help="the registered policy names")
    pol.add_argument("--family", choices=("bags", "tasks"), help="only this family's "
                     "policies (--json: default bags)")
    pol.add_argument("--json", action="store_true")
    pol.add_argument("--variants", action="store_true",
                     help="--json: also the master-worker variants that are not among the "
                     "seed's 18 policies (the eager CBS3M dispatchers)")
    pol.set_defaults(func=_cmd_policies)

    demo = sub.add_parser("demo", help="generate a CBS3M-style instance and solve it")
    demo.add_argument("--seed", type=seed, default=7)
    demo.set_defaults(func=_cmd_demo)
