"""Subcommands of the approximation algorithms (seeds 000 ch. 2/4, 004 §5): ``approx hybrid``,
``approx moldable`` and ``check-ratios``."""

from __future__ import annotations

import argparse
from typing import Any

from lpsched.cli.common import dump_json, read_json
from lpsched.errors import InvalidInstanceError


def _read_hybrid_tasks(path: str) -> tuple[list[float], list[float]]:
    """``{"cpu_times": [...], "gpu_times": [...]}`` or ``{"tasks": [{"cpu": .., "gpu": ..}]}``."""
    data = read_json(path)
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
        print(dump_json(res.to_dict(schedule=args.schedule)))
    else:
        print(f"{res.algorithm}: makespan {res.makespan:.6g}, lower bound {res.lower_bound:.6g}"
              f" (ratio {res.ratio:.4f} <= {res.guarantee}), {res.extra['cpu_tasks']} tasks "
              f"on CPUs, {len(cpu) - res.extra['cpu_tasks']} on GPUs")
    return 0 if res.holds() else 1


def _cmd_approx_moldable(args: argparse.Namespace) -> int:
    from lpsched.approx.moldable import kshelf, mrt

    data = read_json(args.jobs)
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
        print(dump_json(res.to_dict(schedule=args.schedule)))
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
        print(dump_json(rep.to_dict()))
    else:
        for name, info in rep.to_dict()["algorithms"].items():
            print(f"{name:<16} worst ratio {info['worst_ratio']:.4f} (its guarantee "
                  f"{info['its_guarantee']:.4f}), {info['trials']} trials")
        print("\n".join(rep.violations) if rep.violations else "every guarantee holds")
    return 1 if rep.violations else 0


def add_commands(sub: Any) -> None:
    """approx hybrid / moldable, check-ratios."""
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
