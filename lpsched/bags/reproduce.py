"""Reproduction of seed 003 Tables 4–8 (SimGrid experiments, [L891–L1012]).

One cell = (instance seed, policy): a fresh Table-2 instance (20 applications, 10 workers,
one-port; decision A27) simulated under one policy, with the (K1) optimum as the lower bound.
Normalisation (decision A29): max-stretch by the LP optimum; sum-stretch, makespan, max-flow
and sum-flow by the best of the policies run on the same instance. Statistics per policy:
min, mean, sample standard deviation, max and the percentage of instances where it is the
best (ties credited to every tied policy, relative tolerance 1e-9; decision A31).
"""

from __future__ import annotations

import csv
import functools
import time
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.bags.generators import BASE_BANDWIDTH, random_bags
from lpsched.bags.instance import Instance
from lpsched.bags.maxstretch import max_stretch
from lpsched.bags.policies import get_policy, policy_names
from lpsched.bags.schedule import metrics, validate
from lpsched.bags.simulator import simulate

EXPERIMENT = "cbs3m"
METRICS = ("max_stretch", "sum_stretch", "makespan", "max_flow", "sum_flow")
TABLE_OF = {"max_stretch": 4, "sum_stretch": 5, "makespan": 6, "max_flow": 7, "sum_flow": 8}

#: Averages printed in seed 003 Tables 4–8, by policy (for the side-by-side comparison).
SEED_AVERAGES: dict[str, dict[str, float]] = {
    "max_stretch": {"fifo-rr": 16.689, "fifo-mct": 6.912, "fifo-dd": 16.689, "spt-rr": 4.274,
                    "spt-mct": 1.928, "spt-dd": 4.274, "srpt-rr": 4.121, "srpt-mct": 1.861,
                    "srpt-dd": 4.121, "swrpt-rr": 4.119, "swrpt-mct": 1.857, "swrpt-dd": 4.119,
                    "mwma-nbt": 3.433, "mwma-ms": 8.619, "cbs3m-fifo-online": 1.322,
                    "cbs3m-edf-online": 1.163, "cbs3m-fifo-offline": 1.379,
                    "cbs3m-edf-offline": 1.213},
    "sum_stretch": {"fifo-rr": 6.783, "fifo-mct": 2.754, "fifo-dd": 6.783, "spt-rr": 2.942,
                    "spt-mct": 1.182, "spt-dd": 2.942, "srpt-rr": 2.607, "srpt-mct": 1.045,
                    "srpt-dd": 2.607, "swrpt-rr": 2.596, "swrpt-mct": 1.038, "swrpt-dd": 2.596,
                    "mwma-nbt": 2.013, "mwma-ms": 4.183, "cbs3m-fifo-online": 1.294,
                    "cbs3m-edf-online": 1.201, "cbs3m-fifo-offline": 1.332,
                    "cbs3m-edf-offline": 1.272},
    "makespan": {"fifo-rr": 2.716, "fifo-mct": 1.329, "fifo-dd": 2.716, "spt-rr": 2.714,
                 "spt-mct": 1.329, "spt-dd": 2.714, "srpt-rr": 2.714, "srpt-mct": 1.328,
                 "srpt-dd": 2.714, "swrpt-rr": 2.715, "swrpt-mct": 1.328, "swrpt-dd": 2.715,
                 "mwma-nbt": 1.079, "mwma-ms": 1.078, "cbs3m-fifo-online": 1.029,
                 "cbs3m-edf-online": 1.004, "cbs3m-fifo-offline": 1.018,
                 "cbs3m-edf-offline": 1.003},
    "max_flow": {"fifo-rr": 3.097, "fifo-mct": 1.281, "fifo-dd": 3.097, "spt-rr": 3.282,
                 "spt-mct": 1.460, "spt-dd": 3.282, "srpt-rr": 3.289, "srpt-mct": 1.473,
                 "srpt-dd": 3.289, "swrpt-rr": 3.291, "swrpt-mct": 1.477, "swrpt-dd": 3.291,
                 "mwma-nbt": 1.181, "mwma-ms": 1.261, "cbs3m-fifo-online": 1.054,
                 "cbs3m-edf-online": 1.031, "cbs3m-fifo-offline": 1.037,
                 "cbs3m-edf-offline": 1.023},
    "sum_flow": {"fifo-rr": 4.020, "fifo-mct": 1.652, "fifo-dd": 4.020, "spt-rr": 2.811,
                 "spt-mct": 1.149, "spt-dd": 2.811, "srpt-rr": 2.704, "srpt-mct": 1.105,
                 "srpt-dd": 2.704, "swrpt-rr": 2.706, "swrpt-mct": 1.108, "swrpt-dd": 2.706,
                 "mwma-nbt": 1.404, "mwma-ms": 2.333, "cbs3m-fifo-online": 1.122,
                 "cbs3m-edf-online": 1.065, "cbs3m-fifo-offline": 1.120,
                 "cbs3m-edf-offline": 1.087},
}


@functools.lru_cache(maxsize=64)
def _instance_and_bound(seed: int, profile: str,
                        base_bandwidth: float = BASE_BANDWIDTH) -> tuple[Instance, float]:
    inst = random_bags(profile=profile, seed=seed, base_bandwidth=base_bandwidth)
    return inst, max_stretch(inst).stretch


def cell(key: tuple) -> list[dict[str, Any]]:
    """Simulate policy ``key[1]`` on the instance of seed ``key[0]`` (profile ``key[2]``;
    an optional ``key[3]`` overrides the generator's base bandwidth, bytes/s)."""
    seed, policy, profile = key[:3]
    base = float(key[3]) if len(key) > 3 else BASE_BANDWIDTH
    inst, bound = _instance_and_bound(int(seed), profile, base)
    t0 = time.perf_counter()
    res = simulate(inst, get_policy(policy))
    seconds = time.perf_counter() - t0
    validate(inst, res.schedule)
    m = metrics(inst, res.schedule)
    row: dict[str, Any] = {"seed": int(seed), "policy": policy, "lp_bound": bound,
                           "seconds": seconds, "events": res.events, **m.to_dict()}
    row.pop("stretch")
    if "solve_seconds" in res.stats:
        row["solves"] = res.stats["solves"]
        row["solve_seconds"] = res.stats["solve_seconds"]
    return [row]


def cells(instances: int, profile: str = "simgrid", first_seed: int = 0,
          policies: list[str] | None = None,
          base_bandwidth: float | None = None) -> list[tuple]:
    names = policies or policy_names()
    extra = () if base_bandwidth is None else (float(base_bandwidth),)
    return [(seed, name, profile, *extra) for seed in range(first_seed, first_seed + instances)
            for name in names]


def tables(rows: list[dict[str, Any]], tol: float = 1e-9) -> dict[str, dict[str, dict]]:
    """``{metric: {policy: {"min", "avg", "sd", "max", "best", "n"}}}`` (module doc)."""
    policies = sorted({r["policy"] for r in rows}, key=policy_names().index)
    seeds = sorted({r["seed"] for r in rows})
    index = {(r["seed"], r["policy"]): r for r in rows}
    complete = [s for s in seeds if all((s, p) in index for p in policies)]
    out: dict[str, dict[str, dict]] = {}
    for metric in METRICS:
        values = np.array([[index[(s, p)][metric] for p in policies] for s in complete])
        if metric == "max_stretch":
            ref = np.array([index[(s, policies[0])]["lp_bound"] for s in complete])
        else:
            ref = values.min(axis=1)
        rel = values / ref[:, None]
        best = values <= values.min(axis=1, keepdims=True) * (1 + tol)
        out[metric] = {
            p: {"min": float(rel[:, j].min()), "avg": float(rel[:, j].mean()),
                "sd": float(rel[:, j].std(ddof=1)) if len(complete) > 1 else 0.0,
                "max": float(rel[:, j].max()), "best": float(100 * best[:, j].mean()),
                "n": len(complete)}
            for j, p in enumerate(policies)}
    return out


def format_tables(tab: dict[str, dict[str, dict]]) -> str:
    """Tables 4–8 in the seed's layout, with the seed's average beside ours."""
    lines = []
    titles = {"max_stretch": "max-stretch / LP optimum", "sum_stretch": "sum-stretch / best",
              "makespan": "makespan / best", "max_flow": "max-flow / best",
              "sum_flow": "sum-flow / best"}
    for metric, per in tab.items():
        n = next(iter(per.values()))["n"]
        lines.append(f"Table {TABLE_OF[metric]} — {titles[metric]} ({n} instances)")
        lines.append(f"{'Algorithm':<20} {'min':>7} {'avg':>7} {'(± sd)':>8} {'max':>7} "
                     f"{'best %':>7}   {'seed avg':>8} {'diff':>7}")
        for p, s in per.items():
            seed = SEED_AVERAGES[metric].get(p, float("nan"))
            lines.append(f"{p:<20} {s['min']:>7.3f} {s['avg']:>7.3f} {s['sd']:>8.3f} "
                         f"{s['max']:>7.3f} {s['best']:>7.1f}   {seed:>8.3f} "
                         f"{s['avg'] - seed:>+7.3f}")
        lines.append("")
    return "\n".join(lines)


def write_csv(tab: dict[str, dict[str, dict]], rows: list[dict[str, Any]], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for metric, per in tab.items():
        with open(out / f"table{TABLE_OF[metric]}_{metric}.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["policy", "min", "avg", "sd", "max", "best_percent", "instances",
                        "seed_avg"])
            for p, s in per.items():
                w.writerow([p, s["min"], s["avg"], s["sd"], s["max"], s["best"], s["n"],
                            SEED_AVERAGES[metric].get(p, "")])
    keys = ["seed", "policy", "lp_bound", *METRICS, "seconds", "events", "solves"]
    with open(out / "cbs3m_rows.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(keys)
        for r in rows:
            w.writerow([r.get(k, "") for k in keys])


def by_instance(key: tuple) -> tuple:
    """Group key of a cell: its instance (every policy of one instance runs together)."""
    return (key[0], *key[2:])
