"""The ``lpsched`` command.

User mistakes (bad files, bad instances, bad options) print one line and exit with status 2;
a solver that cannot answer exits with status 1. No tracebacks for either.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lpsched import __version__
from lpsched.batch.allocation import ALLOCATORS
from lpsched.errors import InvalidInstanceError, LpschedError, ParseError


def _dump(obj: Any) -> str:
    def default(o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return o.tolist()
        if isinstance(o, (np.floating, np.integer)):
            return o.item()
        raise TypeError(f"not JSON serialisable: {type(o).__name__}")

    def clean(o: Any) -> Any:  # JSON has no inf/nan: write null
        if isinstance(o, float) and not math.isfinite(o):
            return None
        if isinstance(o, dict):
            return {k: clean(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [clean(v) for v in o]
        return o

    return json.dumps(clean(obj), default=default)


def _cmd_generate(args: argparse.Namespace) -> int:
    from lpsched.bags import random_bags, save_instance

    inst = random_bags(args.apps, args.workers, profile=args.profile, seed=args.seed,
                       arrivals=args.arrivals, port=args.port,
                       base_bandwidth=args.base_bandwidth)
    if args.output == "-":
        from lpsched.bags import instance_to_dict

        print(_dump(instance_to_dict(inst)))
    else:
        save_instance(inst, args.output)
        print(f"wrote {args.output}: {inst.n} applications, {inst.p} workers, "
              f"{inst.platform.port}, seed {args.seed}", file=sys.stderr)
    return 0


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
    return "\n".join(lines)


def _load(path: str, port: str | None) -> Any:
    from lpsched.bags import load_instance

    inst = load_instance(path)
    return inst.with_port(port) if port else inst


def _memory(arg: str | None, p: int) -> np.ndarray | None:
    if arg is None:
        return None
    try:
        values = [float(v) for v in arg.split(",")]
    except ValueError:
        raise InvalidInstanceError("--memory", arg, "comma-separated numbers (bytes)") from None
    return np.full(p, values[0]) if len(values) == 1 else np.asarray(values)


def _cmd_solve(args: argparse.Namespace) -> int:
    from lpsched.bags.maxstretch import max_stretch

    inst = _load(args.instance, args.port)
    res = max_stretch(inst, method=args.method, tol=args.tol,
                      memory=_memory(args.memory, inst.p), time_limit=args.time_limit)
    if args.export_lp:
        res.export_lp(args.export_lp)
    if args.json:
        print(_dump(res.to_dict(plan=args.plan)))
    else:
        print(_summary(inst, res))
        if args.export_lp:
            print(f"\nwrote the stretch-interval LP to {args.export_lp}")
    return 0


def _cmd_throughput(args: argparse.Namespace) -> int:
    from lpsched.bags.steady_state import dedicated_throughputs

    inst = _load(args.instance, args.port)
    rho = dedicated_throughputs(inst)
    ms = inst.tasks / rho
    if args.json:
        print(_dump({"port": inst.platform.port, "throughputs": rho,
                     "dedicated_makespans": ms}))
    else:
        print(f"{'app':>4} {'rho* (tasks/s)':>15} {'MS* (s)':>12}   [{inst.platform.port}]")
        for k in range(inst.n):
            print(f"{k:>4} {rho[k]:>15.6g} {ms[k]:>12.6g}")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from lpsched.bags.check import check_plan
    from lpsched.bags.maxstretch import StretchPlan

    inst = _load(args.instance, None)
    try:
        data = json.loads(Path(args.result).read_text(encoding="utf-8"))
        raw = data.get("plan", data)
        plan = StretchPlan(
            stretch=float(raw["stretch"]), epochs=np.asarray(raw["epochs"], float),
            deadlines=np.asarray(raw["deadlines"], float), start=np.asarray(raw["start"], float),
            remaining=np.asarray(raw["remaining"], float),
            buffered=np.asarray(raw["buffered"], float), comm=np.asarray(raw["comm"], float),
            comp=np.asarray(raw["comp"], float), buffers=np.asarray(raw["buffers"], float),
            apps=np.asarray(raw["apps"], int), port=str(raw["port"]), t_new=raw.get("t_new"))
    except OSError as exc:
        raise ParseError(args.result, f"cannot read file: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise ParseError(args.result, f"invalid JSON: {exc.msg}", exc.lineno) from None
    except (KeyError, TypeError, ValueError) as exc:
        raise ParseError(args.result,
                         f"not a plan (run 'lpsched solve --json --plan'): {exc}") from None
    report = check_plan(inst, plan, memory=_memory(args.memory, inst.p))
    if args.json:
        print(_dump({"ok": report.ok, "violations": report.violations, "worst": report.worst}))
    else:
        print("plan OK" if report.ok else "\n".join(report.violations))
    return 0 if report.ok else 1


def _run_policy(inst: Any, name: str, lp_bound: float) -> dict[str, Any]:
    from lpsched.bags.policies import get_policy
    from lpsched.bags.schedule import metrics, validate
    from lpsched.bags.simulator import simulate
    from lpsched.errors import InvalidScheduleError

    res = simulate(inst, get_policy(name))
    try:
        validate(inst, res.schedule)
        valid, why = True, None
    except InvalidScheduleError as exc:
        valid, why = False, str(exc)
    m = metrics(inst, res.schedule)
    row: dict[str, Any] = {"policy": name, "valid": valid, **m.to_dict(),
                           "lp_bound": lp_bound, "relative_max_stretch": m.max_stretch / lp_bound,
                           "seconds": res.seconds, "events": res.events}
    row.pop("stretch")
    if why:
        row["invalid_because"] = why
    if res.stats:
        row["solves"] = res.stats.get("solves")
    return row


def _cmd_simulate(args: argparse.Namespace) -> int:
    from lpsched.bags.maxstretch import max_stretch
    from lpsched.bags.policies import policy_names

    inst = _load(args.instance, None)
    names = policy_names() if args.policy == "all" else args.policy.split(",")
    lp_bound = max_stretch(inst).stretch
    rows = [_run_policy(inst, name, lp_bound) for name in names]
    if args.json:
        print(_dump(rows[0] if len(rows) == 1 else rows))
    else:
        print(f"{'policy':<20} {'valid':>5} {'max-str/LP':>10} {'max-stretch':>11} "
              f"{'sum-stretch':>11} {'makespan':>10} {'max-flow':>10} {'sum-flow':>11} "
              f"{'s':>6}")
        for r in rows:
            print(f"{r['policy']:<20} {'yes' if r['valid'] else 'NO':>5} "
                  f"{r['relative_max_stretch']:>10.4f} {r['max_stretch']:>11.4f} "
                  f"{r['sum_stretch']:>11.3f} {r['makespan']:>10.1f} {r['max_flow']:>10.1f} "
                  f"{r['sum_flow']:>11.1f} {r['seconds']:>6.2f}")
        print(f"\nLP lower bound on the max-stretch (K1): {lp_bound:.6f}")
    return 0 if all(r["valid"] for r in rows) else 1


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from lpsched.bags import reproduce as exp
    from lpsched.core import ResultStore, run_cells

    out = Path(args.out)
    store = ResultStore(out / "cbs3m.sqlite")
    base = None if args.base_bandwidth is None else args.base_bandwidth
    todo = exp.cells(args.instances, args.profile, args.first_seed, base_bandwidth=base)
    t0 = time.perf_counter()
    ran = run_cells(exp.EXPERIMENT, todo, exp.cell, store, executor=args.executor,
                    group=exp.by_instance,
                    jobs=args.jobs, progress=not args.quiet)
    wall = time.perf_counter() - t0
    keys = {ResultStore.key(list(c)) for c in todo}
    tail = [] if base is None else [float(base)]
    rows = [r for r in store.rows(exp.EXPERIMENT)
            if ResultStore.key([r["seed"], r["policy"], args.profile, *tail]) in keys]
    tab = exp.tables(rows)
    exp.write_csv(tab, rows, out)
    print(exp.format_tables(tab))
    print(f"{ran} cells computed now, {len(todo) - ran} found in {out / 'cbs3m.sqlite'}; "
          f"{wall:.1f} s; CSV files in {out}")
    return 0


def _default_trace(name: str) -> str:
    """``name`` in ``$LPSCHED_DATA`` or ``../shared/data`` (relative to the working
    directory); a clear error otherwise."""
    import os

    for folder in (os.environ.get("LPSCHED_DATA"), "../shared/data", "shared/data"):
        if folder and (Path(folder) / name).exists():
            return str(Path(folder) / name)
    raise ParseError(name, "trace not found in $LPSCHED_DATA or ../shared/data: give --trace")


def _cmd_reproduce_batch(args: argparse.Namespace) -> int:
    import csv

    from lpsched.batch import reproduce as exp
    from lpsched.core import ResultStore, run_cells

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = args.experiment
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
        speedups = [float(v) for v in args.speedups.split(",")]
        cells = exp.topology_cells(trace, speedups, args.limit)
        fn, summarise = exp.topology_cell, exp.topology_summary
    store = ResultStore(out / f"{name}.sqlite")
    t0 = time.perf_counter()
    ran = run_cells(name, cells, fn, store, executor=args.executor, jobs=args.jobs,
                    progress=not args.quiet)
    wall = time.perf_counter() - t0
    rows = store.rows_of(name, cells)
    if rows:
        with open(out / f"{name}.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=sorted({k for r in rows for k in r}))
            w.writeheader()
            w.writerows(rows)
    summary = summarise(rows)
    print(_dump({"experiment": name, "trace": trace, "summary": summary}))
    print(f"{ran} cells computed now, {len(cells) - ran} found in {out / (name + '.sqlite')};"
          f" {wall:.1f} s; rows in {out / (name + '.csv')}", file=sys.stderr)
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lpsched.bags import plotting

    if args.kind == "gantt":
        from lpsched.bags.policies import get_policy
        from lpsched.bags.simulator import simulate

        inst = _load(args.instance, None)
        res = simulate(inst, get_policy(args.policy))
        ax = plotting.gantt(inst, res.schedule, title=f"{args.policy} on {args.instance}")
    else:
        from lpsched.bags import reproduce as exp
        from lpsched.bags.policies import policy_names
        from lpsched.core import ResultStore

        path = Path(args.results) / "cbs3m.sqlite"
        if not path.exists():
            raise ParseError(str(path), "no result store here (run 'lpsched reproduce cbs3m')")
        rows = ResultStore(path).rows(exp.EXPERIMENT)
        ax = plotting.stretch_boxplot(rows, order=[p for p in policy_names()
                                                   if any(r["policy"] == p for r in rows)])
    ax.figure.tight_layout()
    ax.figure.savefig(args.output, dpi=120)
    plt.close(ax.figure)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def _cmd_schedule(args: argparse.Namespace) -> int:
    from lpsched.bags.maxstretch import max_stretch
    from lpsched.bags.reconstruct import reconstruct_bmp, reconstruct_op_ac
    from lpsched.bags.schedule import metrics, validate
    from lpsched.errors import InvalidScheduleError

    port = "one-port" if args.model == "op-ac" else "multiport"
    inst = _load(args.instance, port)
    res = max_stretch(inst)
    computation = "fluid" if args.model == "bmp-fc" else "atomic"
    if args.model == "op-ac":
        rec = reconstruct_op_ac(inst, res.plan)
    else:
        rec = reconstruct_bmp(inst, res.plan, computation)
    try:
        validate(inst, rec.schedule, computation=computation)
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
        print(_dump(out))
    else:
        theorem = {"op-ac": "(K1) optimum, Theorem 6", "bmp-ac": "(K) optimum, Theorem 4",
                   "bmp-fc": "(K) optimum, Theorem 3"}[args.model]
        print(f"{args.model.upper()} schedule from the {theorem}: {rec.schedule.size} tasks, "
              f"{'valid' if valid else 'INVALID: ' + str(why)}")
        print(f"max-stretch {m.max_stretch:.6f} (LP optimum {res.stretch:.6f}, ratio "
              f"{m.max_stretch / res.stretch:.4f}); worst lateness "
              f"{float(rec.lateness.max()):.1f} s, the theorem's bound "
              f"{float(rec.bound.max()):.1f} s")
    return 0 if valid and out["within_bound"] else 1


def _read_json(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ParseError(path, f"cannot read file: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise ParseError(path, f"invalid JSON: {exc.msg}", exc.lineno) from None


def _read_hybrid_tasks(path: str) -> tuple[list[float], list[float]]:
    """``{"cpu_times": [...], "gpu_times": [...]}`` or ``{"tasks": [{"cpu": .., "gpu": ..}]}``."""
    data = _read_json(path)
    if isinstance(data, dict) and "tasks" in data and isinstance(data["tasks"], list):
        try:
            return [t["cpu"] for t in data["tasks"]], [t["gpu"] for t in data["tasks"]]
        except (KeyError, TypeError):
            raise InvalidInstanceError("tasks", "...", "each task needs 'cpu' and 'gpu'") \
                from None
    if isinstance(data, dict) and "cpu_times" in data and "gpu_times" in data:
        return data["cpu_times"], data["gpu_times"]
    raise InvalidInstanceError("tasks", "...", "expected 'cpu_times' and 'gpu_times' lists or "
                               "a 'tasks' list of {'cpu', 'gpu'}")


def _cmd_approx(args: argparse.Namespace) -> int:
    from lpsched.approx.dual import hybrid_schedule

    cpu, gpu = _read_hybrid_tasks(args.tasks)
    res = hybrid_schedule(cpu, gpu, args.cpus, args.gpus, variant=args.variant)
    if args.json:
        print(_dump(res.to_dict(schedule=args.schedule)))
    else:
        print(f"{res.algorithm}: makespan {res.makespan:.6g}, lower bound {res.lower_bound:.6g}"
              f" (ratio {res.ratio:.4f} <= {res.guarantee}), {res.extra['cpu_tasks']} tasks "
              f"on CPUs, {len(cpu) - res.extra['cpu_tasks']} on GPUs")
    return 0 if res.holds() else 1


def _cmd_approx_moldable(args: argparse.Namespace) -> int:
    from lpsched.approx.moldable import kshelf, mrt

    data = _read_json(args.jobs)
    if not isinstance(data, dict) or not isinstance(data.get("times"), list):
        raise InvalidInstanceError("times", "...", "expected {'times': [[T(1), ..., T(m)], "
                                   "...]} with one row per job")
    procs = args.processors or data.get("processors") or (
        len(data["times"][0]) if data["times"] and isinstance(data["times"][0], list) else 0)
    if args.algorithm == "mrt":
        res = mrt(data["times"], procs, eps=args.eps, repair=args.repair)
    else:
        res = kshelf(data["times"], procs, eps=args.eps, repair=args.repair,
                     compact=not args.nominal)
    if args.json:
        print(_dump(res.to_dict(schedule=args.schedule)))
    else:
        shown = "none proven" if res.guarantee == float("inf") else f"<= {res.guarantee}"
        print(f"{res.algorithm}: makespan {res.makespan:.6g}, lower bound "
              f"{res.lower_bound:.6g} (ratio {res.ratio:.4f}, guarantee {shown}), "
              f"{len(data['times'])} jobs on {procs} processors")
    return 0 if res.holds() else 1


def _cmd_check_ratios(args: argparse.Namespace) -> int:
    from lpsched.approx.ratios import check_ratios

    rep = check_ratios(args.trials, args.seed)
    if args.json:
        print(_dump(rep.to_dict()))
    else:
        for name, info in rep.to_dict()["algorithms"].items():
            print(f"{name:<16} worst ratio {info['worst_ratio']:.4f} (its guarantee "
                  f"{info['its_guarantee']:.4f}), {info['trials']} trials")
        print("\n".join(rep.violations) if rep.violations else "every guarantee holds")
    return 1 if rep.violations else 0


def _cmd_swf_info(args: argparse.Namespace) -> int:
    from lpsched.batch.swf import read_swf, to_workload

    trace = read_swf(args.trace, lenient=args.lenient)
    work = to_workload(trace, size=args.size, estimate=args.estimate)
    out = {"trace": args.trace, "lines": trace.jobs, "skipped_lines": trace.skipped,
           "max_procs": trace.max_procs, **work.report()}
    if args.json:
        print(_dump(out))
    else:
        print(f"{args.trace}: {trace.jobs} jobs read ({trace.skipped} lines skipped), "
              f"machine {trace.max_procs} processors")
        print(f"kept {work.jobs} jobs; dropped: {work.dropped or 'none'}; "
              f"fallbacks: {work.fallbacks}")
    return 0


def _ranges(ids: Any) -> str:
    """Processor ids as a compact range list, e.g. ``0-3,8``."""
    ids = sorted(int(i) for i in ids)
    parts, i = [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return ",".join(parts)


def _cmd_batch(args: argparse.Namespace) -> int:
    import csv
    from dataclasses import replace

    from lpsched.batch.simulator import batch_metrics, simulate_batch, validate_batch
    from lpsched.batch.swf import read_swf, to_workload

    if args.out == "-" and args.json:
        raise LpschedError("--out - and --json both write to stdout: give --out a file name")
    work = to_workload(read_swf(args.trace, lenient=args.lenient), size=args.size,
                       estimate=args.estimate)
    if args.limit:
        keep = slice(0, args.limit)
        work = replace(work, job=work.job[keep], submit=work.submit[keep],
                       run=work.run[keep], size=work.size[keep],
                       estimate=work.estimate[keep])
    if args.offline:  # seed 000 ch. 4: every job known at time 0, in trace order
        work = replace(work, submit=np.zeros_like(work.submit))
    topo = None
    if args.topology:
        from lpsched.batch.topology import parse_topology

        topo = parse_topology(args.topology, int(work.processors or 0) or None)
    penalty = None
    if args.penalty:
        kind, _, factor = args.penalty.partition(":")
        try:
            penalty = (kind, float(factor or 2))
        except ValueError:
            raise InvalidInstanceError("penalty", args.penalty, "expected linear:F or "
                                       "quadratic:F") from None
    sched, stats = simulate_batch(work, args.policy, kill=args.kill_at_estimate,
                                  alloc=args.alloc, cluster_size=args.cluster_size,
                                  topology=topo, qct=args.qct, penalty=penalty,
                                  speedup=args.speedup,
                                  compression=args.compression)
    m = int(topo.installed if topo else work.processors or 0)
    cluster = topo.cluster_size if topo else args.cluster_size
    validate_batch(work, sched, m, cluster_size=cluster, topology=topo, forced=args.alloc,
                   qct=args.qct)
    out = {"trace": args.trace, "policy": args.policy, "alloc": args.alloc,
           "compression": args.compression if args.policy == "conservative" else None,
           "topology": topo.describe() if topo else None,
           "jobs": work.jobs, "dropped": work.dropped, "processors": m,
           **batch_metrics(work, sched, m, cluster_size=cluster, topology=topo),
           "seconds": stats["seconds"],
           "jobs_per_second": work.jobs / stats["seconds"] if stats["seconds"] > 0 else None,
           "valid": True}
    if args.out:
        with contextlib.ExitStack() as stack:
            fh = sys.stdout if args.out == "-" else stack.enter_context(
                open(args.out, "w", newline=""))
            w = csv.writer(fh)
            w.writerow(["job_id", "submit", "start", "end", "procs", "processors"])
            for j in range(work.jobs):
                w.writerow([int(work.job[j]), work.submit[j], sched.start[j], sched.end[j],
                            int(work.size[j]), _ranges(sched.procs[j])])
    if args.json:
        print(_dump(out))
    else:  # with the CSV on stdout, the summary goes to stderr
        print(f"{args.policy} on {args.trace}: {work.jobs} jobs on {m} processors, "
              f"makespan {out['makespan']:.0f} s, mean wait {out['mean_wait']:.0f} s, "
              f"mean bounded slowdown {out['mean_bounded_slowdown']:.2f}, utilisation "
              f"{out['utilisation']:.3f} ({out['jobs_per_second']:.0f} jobs/s)",
              file=sys.stderr if args.out == "-" else sys.stdout)
    return 0


def _cmd_policies(args: argparse.Namespace) -> int:
    from lpsched.bags.policies import REGISTRY

    if args.json:
        print(_dump(list(REGISTRY)))
    else:
        width = max(len(n) for n in REGISTRY)
        for entry in REGISTRY.values():
            print(f"{entry.name:<{width}}  {entry.description}")
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
    return 0 if report.ok else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lpsched", description="Scheduling on parallel and distributed platforms with "
        "linear programming and approximation algorithms.")
    parser.add_argument("--version", action="version", version=f"lpsched {__version__}",
                        help="print the version (with --verbose: Python and dependencies)")
    parser.add_argument("--solver-log", metavar="FILE", help="append the solver's log to "
                        "FILE ('-': stderr); by default solvers print nothing")
    parser.add_argument("--verbose", action="store_true",
                        help="the solver's log on stderr (the same as --solver-log -)")
    sub = parser.add_subparsers(dest="command", required=True)

    gen = sub.add_parser("generate", help="generate a random instance")
    gen_sub = gen.add_subparsers(dest="kind", required=True)
    bags = gen_sub.add_parser("bags", help="concurrent bags-of-tasks (seed 003 Tables 1-2)")
    bags.add_argument("--apps", type=int, default=None, help="applications (profile default)")
    bags.add_argument("--workers", type=int, default=None, help="workers (profile default)")
    bags.add_argument("--profile", choices=("mpi", "simgrid"), default="simgrid")
    bags.add_argument("--seed", type=int, default=0)
    bags.add_argument("--arrivals", choices=("absolute", "interarrival"), default="absolute")
    bags.add_argument("--port", choices=("one-port", "multiport"), default="one-port")
    bags.add_argument("--base-bandwidth", type=float, default=1.25e6,
                      help="link bandwidth before slowdowns, bytes/s (1.25e6 = 10 Mbit/s)")
    bags.add_argument("-o", "--output", default="-", help="JSON file ('-': stdout)")
    bags.set_defaults(func=_cmd_generate)

    solve = sub.add_parser("solve", help="optimal max-stretch of an instance (seed 003 §3)")
    solve.add_argument("instance")
    solve.add_argument("--method", choices=("intervals", "bisection"), default="intervals")
    solve.add_argument("--tol", type=float, default=1e-6, help="bisection tolerance on S")
    solve.add_argument("--port", choices=("one-port", "multiport"), default=None,
                       help="override the instance's communication model")
    solve.add_argument("--memory", default=None,
                       help="buffer memory per worker in bytes (one value or one per worker)")
    solve.add_argument("--time-limit", type=float, default=120.0, help="seconds per LP")
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    solve.add_argument("--plan", action="store_true", help="with --json: include the plan")
    solve.add_argument("--export-lp", metavar="FILE",
                       help="write the stretch-interval LP at the optimum (.lp or .mps)")
    solve.set_defaults(func=_cmd_solve)

    thr = sub.add_parser("throughput", help="steady-state rho* and MS* of each application")
    thr.add_argument("instance")
    thr.add_argument("--port", choices=("one-port", "multiport"), default=None)
    thr.add_argument("--json", action="store_true")
    thr.set_defaults(func=_cmd_throughput)

    chk = sub.add_parser("check", help="verify a plan from 'solve --json --plan' against (K)/(K1)")
    chk.add_argument("instance")
    chk.add_argument("result")
    chk.add_argument("--memory", default=None)
    chk.add_argument("--json", action="store_true")
    chk.set_defaults(func=_cmd_check)

    sim = sub.add_parser("simulate", help="run policies in the master-worker simulator "
                         "(one-port or bounded multiport) and validate their schedules")
    sim.add_argument("instance")
    sim.add_argument("--policy", default="cbs3m-edf-online",
                     help="a policy name, several separated by commas, or 'all'")
    sim.add_argument("--json", action="store_true")
    sim.add_argument("--table", action="store_true", help="a table (the default output)")
    sim.set_defaults(func=_cmd_simulate)

    rep = sub.add_parser("reproduce", help="reproduce a seed's experiment (resumable)")
    rep_sub = rep.add_subparsers(dest="experiment", required=True)
    cb = rep_sub.add_parser("cbs3m", help="seed 003 Tables 4-8 (SimGrid experiments)")
    cb.add_argument("--instances", type=int, default=1000)
    cb.add_argument("--jobs", type=int, default=1, help="local worker processes")
    cb.add_argument("--executor", default="local", help="'local' or 'dask://HOST:PORT'")
    cb.add_argument("--profile", choices=("simgrid", "mpi"), default="simgrid")
    cb.add_argument("--first-seed", type=int, default=0)
    cb.add_argument("--base-bandwidth", type=float, default=None,
                    help="generator's link bandwidth before slowdowns (default 1.25e6 B/s)")
    cb.add_argument("--out", default="results")
    cb.add_argument("--quiet", action="store_true", help="no progress bar")
    cb.set_defaults(func=_cmd_reproduce)
    for name, help_ in (("contiguity", "seed 000 ch. 4: contiguity and locality, offline"),
                        ("platform-level", "seed 000 ch. 5: platform level on fat trees"),
                        ("topology-aware", "seed 001: (quasi-)contiguous on k-ary n-trees")):
        rb = rep_sub.add_parser(name, help=help_)
        rb.add_argument("--trace", help="SWF trace (default: the seed's, from "
                        "$LPSCHED_DATA or ../shared/data)")
        rb.add_argument("--instances", type=int, default=512 if name == "contiguity" else 30)
        rb.add_argument("--jobs", type=int, default=1, help="local worker processes")
        rb.add_argument("--executor", default="local", help="'local' or 'dask://HOST:PORT'")
        rb.add_argument("--first-seed", type=int, default=0)
        rb.add_argument("--out", default="results")
        rb.add_argument("--quiet", action="store_true", help="no progress bar")
        if name == "contiguity":
            rb.add_argument("--jobs-per-instance", type=int, default=300)
            rb.add_argument("--processors", type=int, default=512)
            rb.add_argument("--cluster-size", type=int, default=16)
        if name == "platform-level":
            rb.add_argument("--periods", type=int, default=1, help="7-day periods each")
            rb.add_argument("--topology", help="default: clusters of 16, arity 4")
        if name == "topology-aware":
            rb.add_argument("--speedups", default="0,5,10,15,20,25,30,35,40,45,50")
            rb.add_argument("--limit", type=int, default=0, help="only the first N jobs")
        rb.set_defaults(func=_cmd_reproduce_batch)

    plot = sub.add_parser("plot", help="draw a Gantt chart or the stretch distribution")
    plot_sub = plot.add_subparsers(dest="kind", required=True)
    pg = plot_sub.add_parser("gantt", help="Gantt chart of one policy's schedule")
    pg.add_argument("instance")
    pg.add_argument("--policy", default="cbs3m-edf-online")
    pg.add_argument("-o", "--output", default="gantt.png")
    pg.set_defaults(func=_cmd_plot)
    pb = plot_sub.add_parser("box", help="max-stretch / LP per policy, from a reproduction")
    pb.add_argument("results", help="the --out folder of 'lpsched reproduce cbs3m'")
    pb.add_argument("-o", "--output", default="stretch_box.png")
    pb.set_defaults(func=_cmd_plot)

    sch = sub.add_parser("schedule", help="a concrete schedule from the LP optimum "
                         "(seed 003 Theorems 3, 4, 6)")
    sch.add_argument("instance")
    sch.add_argument("--model", choices=("op-ac", "bmp-ac", "bmp-fc"), default="op-ac",
                     help="op-ac: one-port atomic (Thm 6); bmp-ac / bmp-fc: bounded multiport, "
                          "atomic (Thm 4) or fluid (Thm 3) computation")
    sch.add_argument("--json", action="store_true")
    sch.add_argument("--schedule", action="store_true", help="with --json: every task")
    sch.set_defaults(func=_cmd_schedule)

    approx = sub.add_parser("approx", help="approximation algorithms with certified ratios")
    approx_sub = approx.add_subparsers(dest="problem", required=True)
    hyb = approx_sub.add_parser("hybrid", help="CPU+GPU dual approximation (seed 000 ch. 2)")
    hyb.add_argument("tasks", help="JSON: cpu_times and gpu_times lists")
    hyb.add_argument("--cpus", type=int, required=True)
    hyb.add_argument("--gpus", type=int, required=True)
    hyb.add_argument("--variant", choices=("2", "3/2"), default="2")
    hyb.add_argument("--json", action="store_true")
    hyb.add_argument("--schedule", action="store_true", help="with --json: every task")
    hyb.set_defaults(func=_cmd_approx)
    mol = approx_sub.add_parser("moldable", help="monotonic moldable jobs: MRT 3/2 dual "
                                "approximation or the K-shelf algorithm (seed 004)")
    mol.add_argument("jobs", help="JSON: {'times': [[T(1), ..., T(m)], ...]} (+ 'processors')")
    mol.add_argument("--processors", type=int, default=0,
                     help="default: the file's 'processors', else the table's width")
    mol.add_argument("--algorithm", choices=("mrt", "kshelf"), default="mrt")
    mol.add_argument("--eps", type=float, default=1e-3, help="relative bisection width")
    mol.add_argument("--repair", action="store_true", help="accept non-monotonic tables "
                     "(T := min over fewer processors; the guarantee is then lost)")
    mol.add_argument("--nominal", action="store_true",
                     help="kshelf: keep nominal shelf starts (no compaction)")
    mol.add_argument("--json", action="store_true")
    mol.add_argument("--schedule", action="store_true", help="with --json: every job")
    mol.set_defaults(func=_cmd_approx_moldable)

    cr = sub.add_parser("check-ratios", help="check every approximation guarantee on random "
                        "and tight instances (exit 1 on a violation)")
    cr.add_argument("--trials", type=int, default=200)
    cr.add_argument("--seed", type=int, default=0)
    cr.add_argument("--json", action="store_true")
    cr.set_defaults(func=_cmd_check_ratios)

    swf = sub.add_parser("swf-info", help="read an SWF trace and report the jobs kept and "
                         "dropped under the chosen conventions")
    swf.add_argument("trace", help=".swf or .swf.gz")
    swf.add_argument("--size", choices=("requested", "allocated"), default="requested")
    swf.add_argument("--estimate", choices=("requested", "runtime"), default="requested")
    swf.add_argument("--lenient", action="store_true", help="skip malformed lines (warn)")
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
    bat.add_argument("--compression", choices=("none", "reassign", "rebuild"),
                     default="reassign", help="conservative, when jobs end early: start "
                     "queued jobs now if they fit without moving any other reservation "
                     "(reassign, seed 000 §5.5), keep every reservation (none), or re-plan "
                     "all at every event (rebuild)")
    bat.add_argument("--reassign", dest="compression", action="store_const",
                     const="reassign", help="the same as --compression reassign (default)")
    bat.add_argument("--speedup", type=float, default=0.0, help="percent run-time gain of "
                     "parallel jobs under contiguous/quasi-contiguous (seed 001)")
    bat.add_argument("--size", choices=("requested", "allocated"), default="requested")
    bat.add_argument("--estimate", choices=("requested", "runtime"), default="requested")
    bat.add_argument("--kill-at-estimate", action="store_true")
    bat.add_argument("--lenient", action="store_true")
    bat.add_argument("--limit", type=int, default=0, help="only the first N jobs")
    bat.add_argument("--offline", action="store_true",
                     help="submit every job at time 0 (seed 000 ch. 4 experiments)")
    bat.add_argument("--out", help="CSV of the schedule")
    bat.add_argument("--json", action="store_true")
    bat.set_defaults(func=_cmd_batch)

    pol = sub.add_parser("policies", help="the registered policy names")
    pol.add_argument("--json", action="store_true")
    pol.set_defaults(func=_cmd_policies)

    demo = sub.add_parser("demo", help="generate a CBS3M-style instance and solve it")
    demo.add_argument("--seed", type=int, default=7)
    demo.set_defaults(func=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--version" in argv and set(argv) <= {"--version", "--verbose"}:
        from lpsched.core.versions import versions_report

        print(versions_report() if "--verbose" in argv else f"lpsched {__version__}")
        return 0
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.solver_log or args.verbose:
        from lpsched.solvers.console import STDERR, set_solver_log

        target = args.solver_log or STDERR
        if target != STDERR:
            try:
                with open(target, "a"):
                    pass
            except OSError as exc:
                print(f"lpsched: error: cannot write the solver log {target}: "
                      f"{exc.strerror}", file=sys.stderr)
                return 2
        set_solver_log(target)
    try:
        return int(args.func(args))
    except (InvalidInstanceError, ParseError) as exc:
        print(f"lpsched: error: {exc}", file=sys.stderr)
        return 2
    except LpschedError as exc:
        user = type(exc) is LpschedError
        print(f"lpsched: error: {exc}", file=sys.stderr)
        return 2 if user else 1
    except BrokenPipeError:  # e.g. `lpsched ... | head`: stop quietly
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
