"""Side-by-side measurements of max-stretch levers on the balanced family.

    python benchmarks/bench_balanced_levers.py ab '{"relaxation_basis": false}' '{}'
    python benchmarks/bench_balanced_levers.py cbs3m --profile simgrid --instances 20
    python benchmarks/bench_balanced_levers.py large-lp sizes
    python benchmarks/bench_balanced_levers.py large-lp ipm-nocross --stretch 40.34

``ab``: two sets of ``max_stretch`` keyword arguments (JSON) on the same balanced 20x10
instances, interleaved in one process (A then B, B then A on the next repeat), median over
the instances of the median CPU (``time.process_time``) and wall time of the repeats.
``cbs3m``: a CBS3M online policy simulated with ``online_max_stretch``'s window bound on
and off, interleaved, simulation CPU per instance. ``large-lp``: one feasibility LP of the
balanced 100x20 instance (seed 0) at a fixed stretch, its size per block, or one solve with
a named HiGHS configuration (``primal``, ``dual-devex``, ``ipm``, ``ipm-nocross``, ``pdlp``,
``presolve``; prefix ``relaxed-`` for the window relaxation's LP). Every figure printed is
measured in this run; ``uptime``-style load averages are printed at start and end.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from lpsched import max_stretch, random_bags
from lpsched.bags import maxstretch
from lpsched.bags.instance import Instance
from lpsched.bags.maxstretch import DUAL, PRIMAL, SEARCH_OPTIONS
from lpsched.bags.maxstretch.buffer_model import StretchModel
from lpsched.bags.maxstretch.conditioning import condition
from lpsched.bags.maxstretch.problem import StretchProblem
from lpsched.bags.policies import cbs3m, get_policy
from lpsched.bags.simulator import simulate
from lpsched.solvers.highs import HighsModel


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def ab(a: dict[str, Any], b: dict[str, Any], repeats: int, count: int) -> None:
    insts = [random_bags(profile="balanced", seed=s) for s in range(count)]
    max_stretch(insts[0])  # warm-up: imports, first HiGHS construction
    print(load())
    cpu: dict[str, list[float]] = {"A": [], "B": []}
    wall: dict[str, list[float]] = {"A": [], "B": []}
    first: dict[str, list[Any]] = {"A": [], "B": []}
    for inst in insts:
        per: dict[str, list[tuple[float, float]]] = {"A": [], "B": []}
        for r in range(repeats):
            pairs = (("A", a), ("B", b)) if r % 2 == 0 else (("B", b), ("A", a))
            for tag, kw in pairs:
                c0, w0 = time.process_time(), time.perf_counter()
                out = max_stretch(inst, **kw)
                per[tag].append((time.process_time() - c0, time.perf_counter() - w0))
                if r == 0:
                    first[tag].append(out)
        for tag in per:
            cpu[tag].append(statistics.median(c for c, _ in per[tag]))
            wall[tag].append(statistics.median(w for _, w in per[tag]))
    for tag, kw in (("A", a), ("B", b)):
        res = first[tag]
        print(f"{tag} {json.dumps(kw)}: median CPU {statistics.median(cpu[tag]):.4f} s, "
              f"sum CPU {sum(cpu[tag]):.3f} s, median wall {statistics.median(wall[tag]):.4f} "
              f"s, exact LPs median {statistics.median(r.lp_solves for r in res):g}, "
              f"relaxation LPs median {statistics.median(r.relaxation_solves for r in res):g}"
              f", simplex iterations {sum(r.iterations for r in res)}")
    diff = max(abs(x.stretch - y.stretch) / y.stretch
               for x, y in zip(first["A"], first["B"], strict=True))
    print(f"max relative difference of S between A and B: {diff:.1e}")
    print("CPU per instance A/B: " + " ".join(
        f"{x:.3f}/{y:.3f}" for x, y in zip(cpu["A"], cpu["B"], strict=True)))
    print(load())


def cbs3m_window(profile: str, count: int, policy: str) -> None:
    real = maxstretch.online_max_stretch
    calls: dict[bool, list[tuple[int, int]]] = {True: [], False: []}

    def patched(flag: bool) -> Callable[..., Any]:
        def solve(*args: Any, **kw: Any) -> Any:
            res = real(*args, window_bound=flag, **kw)
            calls[flag].append((res.lp_solves, res.relaxation_solves))
            return res
        return solve

    insts: list[Instance] = [random_bags(profile=profile, seed=s) for s in range(count)]
    simulate(insts[0], get_policy(policy))  # warm-up
    print(load())
    cpu: dict[bool, list[float]] = {True: [], False: []}
    stretches: dict[bool, list[np.ndarray]] = {True: [], False: []}
    try:
        for s, inst in enumerate(insts):
            for flag in ((True, False) if s % 2 == 0 else (False, True)):
                vars(cbs3m)["online_max_stretch"] = patched(flag)
                c0 = time.process_time()
                out = simulate(inst, get_policy(policy))
                cpu[flag].append(time.process_time() - c0)
                stretches[flag].append(np.asarray(out.stats["stretches"]))
    finally:
        vars(cbs3m)["online_max_stretch"] = real
    for flag in (False, True):
        lps = calls[flag]
        print(f"window_bound={flag}: simulation CPU median {statistics.median(cpu[flag]):.4f}"
              f" s, sum {sum(cpu[flag]):.3f} s; re-solves {len(lps)}, exact LPs "
              f"{sum(x for x, _ in lps)}, relaxation LPs {sum(y for _, y in lps)}")
    agree = []
    for on, off in zip(stretches[True], stretches[False], strict=True):
        m = min(on.size, off.size)
        d = np.abs(on[:m] - off[:m]) > 1e-7 * off[:m]
        agree.append(int(np.argmax(d)) if d.any() else m)
    print(f"re-solves equal (1e-7) before the runs diverge: median {statistics.median(agree)}"
          f", min {min(agree)} (plans are not unique: once one differs, the states differ)")
    print(load())


def large_lp(config: str, stretch: float, limit: float) -> None:
    inst = random_bags(100, 20, profile="balanced", seed=0)
    pr = condition(StretchProblem.offline(inst)).problem
    relaxed = config.startswith("relaxed")
    c0 = time.process_time()
    model = StretchModel(pr, pr.order_at(stretch), relaxed=relaxed)
    build = time.process_time() - c0
    lp = model.lp
    if config.endswith("sizes"):
        workers = np.round(np.vstack([pr.comp, pr.comm]).T, 12)
        print(f"cells {model.n_cells} of {pr.n * model.n_intervals} (application, interval) "
              f"pairs; window lengths (intervals) min/median/max "
              f"{np.diff(model.app_offset).min()}/{np.median(np.diff(model.app_offset)):g}/"
              f"{np.diff(model.app_offset).max()}; workers {pr.p}, distinct "
              f"(comp, comm) columns {len({tuple(c) for c in workers})}")
        print("columns", {k: b.size for k, b in lp.variables.items()}, lp.num_cols)
        print("rows", {k: b.size for k, b in lp.constraints.items()}, lp.num_rows,
              "nonzeros", lp.num_nonzeros, f"build CPU {build:.3f} s")
        return
    opts: dict[str, Any] = dict(SEARCH_OPTIONS)
    strategy = DUAL if "dual" in config else PRIMAL
    if "ipm" in config:
        opts["solver"] = "ipm"
    if "pdlp" in config:
        opts["solver"] = "pdlp"
    if "nocross" in config:
        opts["run_crossover"] = "off"
    if "presolve" in config:
        opts["presolve"] = "on"
    if "devex" in config:
        opts["simplex_dual_edge_weight_strategy"] = 1
    highs = HighsModel(lp, **opts)
    bounds = model.deliver_bounds(stretch)
    highs.set_col_bounds(*bounds["cols"])
    highs.set_row_bounds(*bounds["rows"])
    highs.set_costs(model.deliver_cost, "max")
    highs.set_option("simplex_strategy", strategy)
    print(load())
    c0, w0 = time.process_time(), time.perf_counter()
    sol = highs.solve(limit)
    print(json.dumps({
        "config": config, "stretch": stretch, "status": sol.status.value,
        "deficit": None if sol.objective is None else float(pr.remaining.sum() - sol.objective),
        "iterations": sol.iterations, "cpu": time.process_time() - c0,
        "wall": time.perf_counter() - w0, "rows": lp.num_rows, "columns": lp.num_cols}))
    print(load())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("ab")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--instances", type=int, default=20)
    p = sub.add_parser("cbs3m")
    p.add_argument("--profile", default="simgrid")
    p.add_argument("--instances", type=int, default=20)
    p.add_argument("--policy", default="cbs3m-fifo-online")
    p = sub.add_parser("large-lp")
    p.add_argument("config")
    p.add_argument("--stretch", type=float, default=40.34)
    p.add_argument("--time-limit", type=float, default=600.0)
    args = ap.parse_args()
    if args.what == "ab":
        ab(json.loads(args.a), json.loads(args.b), args.repeats, args.instances)
    elif args.what == "cbs3m":
        cbs3m_window(args.profile, args.instances, args.policy)
    else:
        large_lp(args.config, args.stretch, args.time_limit)


if __name__ == "__main__":
    main()
