"""Subcommands of the approximation algorithms (seeds 000 ch. 2/4, 004 §5): ``approx hybrid``,
``approx identical``, ``approx moldable`` and ``check-ratios``.

Input files are checked before any algorithm runs: every time must be a JSON number (a
boolean or a string is refused even where Python would convert it), finite, within
``[TIME_MIN, TIME_MAX]`` of :mod:`lpsched.approx.certified` (``> 0`` for moldable tables,
``>= 0`` for hybrid tasks), tables not ragged, lists not empty; the first bad entry is
named (``cpu_times[3]``, ``tasks[2].gpu``, ``times[2][1]``). Options are checked the same
way (``--cpus``, ``--gpus``, ``--processors`` in 1..1,000,000; ``--eps`` in (0, 1);
``--time-limit`` a finite number of seconds > 0; ``--trials`` in 1..100,000; ``--seed``
>= 0; ``--schedule`` only with ``--json``, the only output that holds the schedule). Each
failure is one line and exit 2. ``--json`` output never holds NaN or Infinity: an unbounded
value (e.g. the guarantee of K-shelf, none proven) is ``null``.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from lpsched.cli.common import dump_json, read_json, seed
from lpsched.errors import InvalidInstanceError, LpschedError

#: --trials of check-ratios: each trial runs every generator (and small exact MIPs)
MAX_TRIALS = 100_000


def _count_option(name: str, value: int, minimum: int, maximum: int) -> int:
    """A whole-number option in ``[minimum, maximum]`` (one line and exit 2 otherwise)."""
    if not minimum <= value <= maximum:
        raise LpschedError(f"{name} {value}: must be a whole number between {minimum} and "
                           f"{maximum}")
    return value


def _time_limit(value: float) -> float:
    """``--time-limit``: a finite number of seconds > 0 (0, a negative number, NaN or
    infinity would leave the MIP without a limit); one line and exit 2 otherwise."""
    if not (value > 0 and math.isfinite(value)):
        raise LpschedError(f"--time-limit {value:g}: must be a finite number of seconds > 0")
    return float(value)


def _schedule_needs_json(args: argparse.Namespace) -> None:
    """``--schedule`` adds the schedule to the ``--json`` output; the text summary has no
    room for it, so ``--schedule`` alone is refused instead of being ignored."""
    if args.schedule and not args.json:
        raise LpschedError("--schedule: the schedule is printed in the JSON output only; "
                           "add --json")


def _read_hybrid_tasks(path: str) -> tuple[Any, Any]:
    """``{"cpu_times": [...], "gpu_times": [...]}`` or ``{"tasks": [{"cpu": .., "gpu": ..}]}``;
    every time checked (a number, not a boolean or string, finite, within range), the
    first bad one named with its index; at least one task."""
    from lpsched.approx.certified import check_time, check_times

    data = read_json(path)
    if isinstance(data, dict) and "tasks" in data:
        tasks = data["tasks"]
        if not isinstance(tasks, list) or not tasks:
            raise InvalidInstanceError("tasks", tasks, "must be a non-empty list of "
                                       "{'cpu': time, 'gpu': time}")
        for i, t in enumerate(tasks):
            if not isinstance(t, dict) or "cpu" not in t or "gpu" not in t:
                raise InvalidInstanceError(f"tasks[{i}]", t, "each task needs 'cpu' and 'gpu'")
        return ([check_time(f"tasks[{i}].cpu", t["cpu"]) for i, t in enumerate(tasks)],
                [check_time(f"tasks[{i}].gpu", t["gpu"]) for i, t in enumerate(tasks)])
    if isinstance(data, dict) and "cpu_times" in data and "gpu_times" in data:
        cpu = check_times("cpu_times", data["cpu_times"])
        gpu = check_times("gpu_times", data["gpu_times"])
        if cpu.size == 0:
            raise InvalidInstanceError("cpu_times", data["cpu_times"], "must list at least "
                                       "one task")
        if gpu.size != cpu.size:
            raise InvalidInstanceError("gpu_times", data["gpu_times"], f"needs one time per "
                                       f"task ({cpu.size}), got {gpu.size}")
        return cpu, gpu
    raise InvalidInstanceError("tasks", "...", "expected 'cpu_times' and 'gpu_times' lists or "
                               "a 'tasks' list of {'cpu', 'gpu'}")


def _cmd_approx(args: argparse.Namespace) -> int:
    from lpsched.approx.certified import MAX_MACHINES
    from lpsched.approx.dual import hybrid_schedule

    cpus = _count_option("--cpus", args.cpus, 1, MAX_MACHINES)
    gpus = _count_option("--gpus", args.gpus, 1, MAX_MACHINES)
    _schedule_needs_json(args)
    cpu, gpu = _read_hybrid_tasks(args.tasks)
    res = hybrid_schedule(cpu, gpu, cpus, gpus, variant=args.variant)
    if args.json:
        print(dump_json(res.to_dict(schedule=args.schedule)))
    else:
        print(f"{res.algorithm}: makespan {res.makespan:.6g}, lower bound {res.lower_bound:.6g}"
              f" (ratio {res.ratio:.4f} <= {res.guarantee}), {res.extra['cpu_tasks']} tasks "
              f"on CPUs, {len(cpu) - res.extra['cpu_tasks']} on GPUs")
    return 0 if res.holds() else 1


def _read_moldable(path: str, processors: int | None) -> tuple[list[Any], int]:
    """The ``times`` table (at least one job) and the processor count: ``--processors``,
    else the file's ``processors``, else the width of the first row. ``--processors P``
    narrower than the table keeps its first ``P`` columns (the jobs run on at most ``P``
    processors); wider is refused, the table giving no time for it. The table itself is
    checked by :func:`lpsched.approx.moldable.check_table` (ragged rows, booleans, strings,
    non-finite or out-of-range times, each named ``times[j]`` / ``times[j][p]``)."""
    from lpsched.approx.certified import check_count

    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("times"), list):
        raise InvalidInstanceError("times", "...", "expected {'times': [[T(1), ..., T(m)], "
                                   "...]} with one row per job")
    times = data["times"]
    if not times:
        raise InvalidInstanceError("times", times, "must list at least one job")
    if processors is not None:
        return _first_columns(times, processors), processors
    if "processors" in data:
        return times, check_count("processors", data["processors"])
    if not isinstance(times[0], list) or not times[0]:
        raise InvalidInstanceError("times[0]", times[0], "must be a non-empty list of times "
                                   "T(1), ..., T(m), one per processor count")
    return times, len(times[0])


def _first_columns(times: list[Any], processors: int) -> list[Any]:
    """The table cut to its first ``processors`` columns when every row is a list of the
    first row's width and that width is larger (``--processors``); otherwise the table as
    it is, for :func:`~lpsched.approx.moldable.check_table` to name what is wrong."""
    width = len(times[0]) if isinstance(times[0], list) else None
    if width is None or width <= processors:
        if width is not None and width < processors:
            raise LpschedError(f"--processors {processors}: the table gives times for 1 to "
                               f"{width} processors only (times[0] has {width} columns)")
        return times
    for j, row in enumerate(times):
        if not isinstance(row, list) or len(row) != width:
            raise InvalidInstanceError(f"times[{j}]", row, f"needs {width} columns, as "
                                       "times[0] has (one time per processor count)")
    return [row[:processors] for row in times]


def _cmd_approx_moldable(args: argparse.Namespace) -> int:
    from lpsched.approx.certified import MAX_MACHINES
    from lpsched.approx.moldable import kshelf, mrt

    if args.processors is not None:
        _count_option("--processors", args.processors, 1, MAX_MACHINES)
    if not (math.isfinite(args.eps) and 0 < args.eps < 1):
        raise LpschedError(f"--eps {args.eps}: must be a number between 0 and 1 (exclusive)")
    _schedule_needs_json(args)
    times, procs = _read_moldable(args.jobs, args.processors)
    try:
        if args.algorithm == "mrt":
            res = mrt(times, procs, eps=args.eps, repair=args.repair)
        else:
            res = kshelf(times, procs, eps=args.eps, repair=args.repair,
                         compact=not args.nominal)
    except InvalidInstanceError as e:  # the API's "repair=True" is the option --repair here
        if "repair=True" not in e.reason:
            raise
        raise InvalidInstanceError(e.field, e.value,
                                   e.reason.replace("repair=True", "--repair")) from None
    if args.json:
        print(dump_json(res.to_dict(schedule=args.schedule)))
    else:
        shown = "none proven" if res.guarantee == float("inf") else f"<= {res.guarantee}"
        print(f"{res.algorithm}: makespan {res.makespan:.6g}, lower bound "
              f"{res.lower_bound:.6g} (ratio {res.ratio:.4f}, guarantee {shown}), "
              f"{len(times)} jobs on {procs} processors")
    return 0 if res.holds() else 1


def _known_optimum(res: Any, e: Any) -> dict[str, Any]:
    """The ``exact`` object of ``approx identical --exact``: the MIP's own ``makespan``
    (its best schedule), ``bound``, ``optimal`` and ``status``, and what is known of the
    optimum from both runs: ``upper_bound``, the shorter of the MIP's schedule and the
    heuristic's (a MIP stopped by its time limit may hold a worse one than LPT's), and
    ``lower_bound``, the larger of the MIP's bound and the heuristic's certified one."""
    return {"makespan": e.makespan, "bound": e.bound, "optimal": e.optimal,
            "status": e.status, "lower_bound": max(e.bound, res.lower_bound),
            "upper_bound": min(e.makespan, res.makespan)}


def _cmd_approx_identical(args: argparse.Namespace) -> int:
    """``approx identical``: P||Cmax by LPT or list scheduling, certified (seed 000 ch. 2
    background: Graham's 2 − 1/m, LPT's 4/3 − 1/(3m)); ``--exact`` adds the MIP optimum."""
    from lpsched.approx.certified import MAX_MACHINES, check_count, check_times
    from lpsched.approx.listsched import list_scheduling, lpt

    limit = _time_limit(args.time_limit)
    _schedule_needs_json(args)
    data = read_json(args.jobs)
    if not isinstance(data, dict) or "times" not in data:
        raise InvalidInstanceError("instance", type(data).__name__,
                                   "expected {'times': [...], 'machines': m}")
    times = check_times("times", data["times"])
    if times.size == 0:
        raise InvalidInstanceError("times", [], "must list at least one job")
    if args.machines is not None:
        machines = _count_option("--machines", args.machines, 1, MAX_MACHINES)
    elif "machines" in data:
        machines = check_count("machines", data["machines"])
    else:
        raise InvalidInstanceError("machines", None, "give 'machines' in the file or "
                                   "--machines")
    res = (lpt if args.algorithm == "lpt" else list_scheduling)(times, machines)
    out = res.to_dict(schedule=args.schedule)
    if args.exact:
        from lpsched.approx.exact import makespan_identical

        out["exact"] = _known_optimum(res, makespan_identical(times, machines,
                                                              time_limit=limit))
    if args.json:
        print(dump_json(out))
    else:
        exact = (f"; optimum {out['exact']['makespan']:.6g}" if out["exact"]["optimal"]
                 else f"; optimum in [{out['exact']['lower_bound']:.6g}, "
                 f"{out['exact']['upper_bound']:.6g}]") if args.exact else ""
        print(f"{res.algorithm}: makespan {res.makespan:.6g}, lower bound "
              f"{res.lower_bound:.6g} (ratio {res.ratio:.4f}, guarantee <= "
              f"{res.guarantee:.6g}), {times.size} jobs on {machines} machines{exact}")
    return 0 if res.holds() else 1


def _cmd_check_ratios(args: argparse.Namespace) -> int:
    from lpsched.approx.ratios import check_ratios

    _count_option("--trials", args.trials, 1, MAX_TRIALS)
    rep = check_ratios(args.trials, args.seed)
    if args.json:
        print(dump_json(rep.to_dict()))
    else:
        for name, info in rep.to_dict()["algorithms"].items():
            print(f"{name:<16} worst ratio {info['worst_ratio']:.4f} (its guarantee "
                  f"{info['its_guarantee']:.4f}), {info['trials']} trials")
        print("\n".join(rep.violations) if rep.violations else "every guarantee holds")
    return 1 if rep.violations else 0


def add_commands(sub: Any) -> None:
    """Add ``approx hybrid``, ``approx identical``, ``approx moldable`` and ``check-ratios``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the top-level ``lpsched`` parser (``add_subparsers()``'s result);
        the ``approx`` and ``check-ratios`` commands are added to it.
    """
    approx = sub.add_parser("approx", help="approximation algorithms with certified ratios")
    approx_sub = approx.add_subparsers(dest="problem", required=True)
    hyb = approx_sub.add_parser("hybrid", help="CPU+GPU dual approximation (seed 000 ch. 2)")
    hyb.add_argument("tasks", help="JSON: cpu_times and gpu_times lists")
    hyb.add_argument("--cpus", type=int, required=True, help="CPUs (1 to 1,000,000)")
    hyb.add_argument("--gpus", type=int, required=True, help="GPUs (1 to 1,000,000)")
    hyb.add_argument("--variant", choices=("2", "3/2"), default="2",
                     help="the dual approximation: ratio 2 (knapsack) or 3/2 + eps")
    hyb.add_argument("--json", action="store_true")
    hyb.add_argument("--schedule", action="store_true",
                     help="with --json (required): every task")
    hyb.set_defaults(func=_cmd_approx)
    ide = approx_sub.add_parser("identical", help="independent jobs on identical machines "
                                "(P||Cmax): LPT or list scheduling, certified")
    ide.add_argument("jobs", help="JSON: {'times': [p1, ...], 'machines': m}")
    ide.add_argument("--machines", type=int, default=None, help="default: the file's")
    ide.add_argument("--algorithm", choices=("lpt", "list"), default="lpt",
                     help="LPT (4/3 - 1/(3m)) or list scheduling in input order (2 - 1/m)")
    ide.add_argument("--exact", action="store_true", help="also the MIP optimum (HiGHS)")
    ide.add_argument("--time-limit", type=float, default=10.0,
                     help="seconds for --exact (a finite number > 0; default 10); when it "
                     "stops the MIP, the optimum is reported as an interval")
    ide.add_argument("--json", action="store_true")
    ide.add_argument("--schedule", action="store_true",
                     help="with --json (required): every job")
    ide.set_defaults(func=_cmd_approx_identical)
    mol = approx_sub.add_parser("moldable", help="monotonic moldable jobs: MRT 3/2 dual "
                                "approximation or the K-shelf algorithm (seed 004)")
    mol.add_argument("jobs", help="JSON: {'times': [[T(1), ..., T(m)], ...]} (+ 'processors')")
    mol.add_argument("--processors", type=int, default=None, metavar="P",
                     help="run on P processors, using the first P columns of the table "
                     "(P at most its width); default: the file's 'processors' (which must "
                     "equal the width), else the table's width")
    mol.add_argument("--algorithm", choices=("mrt", "kshelf"), default="mrt",
                     help="the MRT 3/2 + eps dual approximation or the K-shelf algorithm")
    mol.add_argument("--eps", type=float, default=1e-3, help="relative bisection width, in (0, 1)")
    mol.add_argument("--repair", action="store_true", help="accept non-monotonic tables "
                     "(T := min over fewer processors; the guarantee is then lost)")
    mol.add_argument("--nominal", action="store_true",
                     help="kshelf: keep nominal shelf starts (no compaction)")
    mol.add_argument("--json", action="store_true")
    mol.add_argument("--schedule", action="store_true",
                     help="with --json (required): every job")
    mol.set_defaults(func=_cmd_approx_moldable)

    cr = sub.add_parser("check-ratios", help="check every approximation guarantee on random "
                        "and tight instances (exit 1 on a violation)")
    cr.add_argument("--trials", type=int, default=200, help="random instances per "
                    f"generator (1 to {MAX_TRIALS:,})")
    cr.add_argument("--seed", type=seed, default=0, help="random seed (>= 0)")
    cr.add_argument("--json", action="store_true")
    cr.set_defaults(func=_cmd_check_ratios)
