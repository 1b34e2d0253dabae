"""Reproduction of seed 003 Tables 4–8 (SimGrid experiments, [L891–L1012]).

One cell = (instance seed, policy): a fresh Table-2 instance (20 applications, 10 workers,
one-port; decision A27) simulated under one policy, with the (K1) optimum as the lower bound.
Normalisation (decision A29): max-stretch by the LP optimum; sum-stretch, makespan, max-flow
and sum-flow by the best of the policies run on the same instance. Statistics per policy:
min, mean, sample standard deviation, max and the percentage of instances where it is the
best (ties credited to every tied policy, relative tolerance 1e-9; decision A31).

Per-policy outcomes: a policy that cannot finish an instance (it stops with an application
unfinished, a solver gives up, its schedule is invalid) is a result, not a crash. Its row
carries ``status`` (``"ok"``, ``"failed"``, ``"time_limit"`` or ``"invalid"``) and
``reason`` (the error's one line), its metrics are ``None``, and the other policies' rows
of the same instance still count. The tables use the finished runs only: normalisation by
the best of the policies that finished, statistics per policy over the instances it
finished (``n``), and ``failed`` counts the others (never credited as best).
"""

from __future__ import annotations

import contextlib
import csv
import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np

from lpsched.bags.generators import PROFILES, random_bags
from lpsched.bags.instance import Instance
from lpsched.bags.maxstretch import max_stretch
from lpsched.bags.policies import get_policy, policy_names
from lpsched.bags.schedule import metrics, validate
from lpsched.bags.simulator import simulate
from lpsched.errors import InvalidScheduleError, LpschedError, SolverError
from lpsched.solvers.solution import Status

EXPERIMENT = "cbs3m"
METRICS = ("max_stretch", "sum_stretch", "makespan", "max_flow", "sum_flow")
#: The fields the tables, CSV files and plots read, checked when rows are read back from
#: a store (:func:`lpsched.core.store.check_row`): a damaged store is one line, never a
#: wrong table.
ROW_SCHEMA: dict[str, str] = {"seed": "int>=0", "policy": "text", "status": "text",
                              "reason": "text?", "lp_bound": "number>=0?",
                              **dict.fromkeys(METRICS, "number>=0?")}
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
                        base_bandwidth: float | None = None) -> tuple[Instance, float]:
    inst = random_bags(profile=profile, seed=seed, base_bandwidth=base_bandwidth)
    return inst, max_stretch(inst).stretch


def outcome(exc: LpschedError) -> str:
    """The ``status`` of a policy run that raised ``exc`` (see the module doc)."""
    if isinstance(exc, InvalidScheduleError):
        return "invalid"
    if isinstance(exc, SolverError) and exc.status in (Status.TIME_LIMIT, "time_limit"):
        return "time_limit"
    return "failed"


def cell(key: tuple[Any, ...]) -> list[dict[str, Any]]:
    """Simulate policy ``key[1]`` on the instance of seed ``key[0]`` (profile ``key[2]``;
    ``key[3]`` is the generator's base bandwidth, bytes/s; without it, the profile's).

    One row, with ``status`` and ``reason``: a policy that cannot finish, or whose schedule
    is invalid, is reported in its row (metrics ``None``) instead of failing the cell.
    """
    seed, policy, profile = key[:3]
    base = float(key[3]) if len(key) > 3 else None
    row: dict[str, Any] = {"seed": int(seed), "policy": policy, "status": "ok",
                           "reason": None, "lp_bound": None}
    t0 = time.perf_counter()
    try:
        inst, bound = _instance_and_bound(int(seed), profile, base)
        row["lp_bound"] = bound
        t0 = time.perf_counter()
        res = simulate(inst, get_policy(policy))
        seconds = time.perf_counter() - t0
        validate(inst, res.schedule)
    except LpschedError as exc:
        row.update(status=outcome(exc), reason=str(exc), seconds=time.perf_counter() - t0,
                   events=None, **dict.fromkeys(METRICS))
        return [row]
    m = metrics(inst, res.schedule)
    row.update(seconds=seconds, events=res.events, **m.to_dict())
    row.pop("stretch")
    if "solve_seconds" in res.stats:
        row["solves"] = res.stats["solves"]
        row["solve_seconds"] = res.stats["solve_seconds"]
    return [row]


def cells(instances: int, profile: str = "simgrid", first_seed: int = 0,
          policies: list[str] | None = None,
          base_bandwidth: float | None = None) -> list[tuple[Any, ...]]:
    """The cells ``(seed, policy, profile, base bandwidth)``: the bandwidth (``None``: the
    profile's) is always in the key, so a store filled under another default (10 Mbit/s
    for ``simgrid`` before issue 13, decision 36) is never read back as today's."""
    if profile not in PROFILES:
        raise LpschedError(f"unknown profile {profile!r}: must be one of {sorted(PROFILES)}")
    names = policies or policy_names()
    base = float(PROFILES[profile].base_bandwidth if base_bandwidth is None
                 else base_bandwidth)
    return [(seed, name, profile, base) for seed in range(first_seed, first_seed + instances)
            for name in names]


def _finished(row: dict[str, Any], metric: str) -> float:
    """The row's value of ``metric``, NaN when the run did not finish (or older rows that
    have no ``status`` key: finished)."""
    value = row.get(metric)
    if row.get("status", "ok") != "ok" or value is None:
        return float("nan")
    return float(value)


def tables(rows: list[dict[str, Any]], tol: float = 1e-9) -> dict[str, dict[str, dict[str, Any]]]:
    """``{metric: {policy: {"min", "avg", "sd", "max", "best", "n", "failed"}}}`` (module
    doc). Instances count when every policy has a row; ``n`` is the number of them the
    policy finished, ``failed`` the others; statistics over finished runs only (NaN when
    none), ``best`` in percent of all counted instances."""
    policies = sorted({r["policy"] for r in rows}, key=policy_names().index)
    seeds = sorted({r["seed"] for r in rows})
    index = {(r["seed"], r["policy"]): r for r in rows}
    complete = [s for s in seeds if all((s, p) in index for p in policies)]
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for metric in METRICS:
        values = np.array([[_finished(index[(s, p)], metric) for p in policies]
                           for s in complete], float).reshape(len(complete), len(policies))
        done = np.isfinite(values)
        least = np.where(done, values, np.inf).min(axis=1)
        if metric == "max_stretch":
            ref = np.array([next((float(index[(s, p)]["lp_bound"]) for p in policies
                                  if index[(s, p)].get("lp_bound") is not None), np.nan)
                            for s in complete])
        else:
            ref = np.where(np.isfinite(least), least, np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            rel = values / ref[:, None]
            best = done & (values <= least[:, None] * (1 + tol))
        out[metric] = {p: _stats(rel[:, j], best[:, j], len(complete))
                       for j, p in enumerate(policies)}
    return out


def _stats(rel: np.ndarray, best: np.ndarray, count: int) -> dict[str, float | int]:
    ok = rel[np.isfinite(rel)]
    nan = float("nan")
    return {"min": float(ok.min()) if ok.size else nan,
            "avg": float(ok.mean()) if ok.size else nan,
            "sd": float(ok.std(ddof=1)) if ok.size > 1 else (0.0 if ok.size else nan),
            "max": float(ok.max()) if ok.size else nan,
            "best": float(100 * best.mean()) if count else nan,
            "n": int(ok.size), "failed": int(count - ok.size)}


def _num(value: float, spec: str) -> str:
    """``value`` formatted with ``spec``, or a dash of the same width when it is NaN (a
    policy that finished no instance, or no seed average)."""
    if value != value:
        width = int("".join(ch for ch in spec.split(".")[0] if ch.isdigit()) or 0)
        return f"{'-':>{width}}"
    return format(value, spec)


def format_tables(tab: dict[str, dict[str, dict[str, Any]]]) -> str:
    """Tables 4–8 in the seed's layout, with the seed's average beside ours."""
    lines = []
    titles = {"max_stretch": "max-stretch / LP optimum", "sum_stretch": "sum-stretch / best",
              "makespan": "makespan / best", "max_flow": "max-flow / best",
              "sum_flow": "sum-flow / best"}
    for metric, per in tab.items():
        n = max(s["n"] + s.get("failed", 0) for s in per.values())
        failures = any(s.get("failed", 0) for s in per.values())
        lines.append(f"Table {TABLE_OF[metric]} — {titles[metric]} ({n} instances)")
        lines.append(f"{'Algorithm':<20} {'min':>7} {'avg':>7} {'(± sd)':>8} {'max':>7} "
                     f"{'best %':>7}   {'seed avg':>8} {'diff':>7}"
                     + (f" {'failed':>6}" if failures else ""))
        for p, s in per.items():
            seed = SEED_AVERAGES[metric].get(p, float("nan"))
            lines.append(f"{p:<20} {_num(s['min'], '>7.3f')} {_num(s['avg'], '>7.3f')} "
                         f"{_num(s['sd'], '>8.3f')} {_num(s['max'], '>7.3f')} "
                         f"{_num(s['best'], '>7.1f')}   {_num(seed, '>8.3f')} "
                         f"{_num(s['avg'] - seed, '>+7.3f')}"
                         + (f" {s.get('failed', 0):>6}" if failures else ""))
        lines.append("")
    return "\n".join(lines)


def _open_csv(path: Path) -> contextlib.AbstractContextManager[IO[str]]:
    return open(path, "w", newline="")


def write_csv(tab: dict[str, dict[str, dict[str, Any]]], rows: list[dict[str, Any]], out: Path,
              opener: Callable[[Path], contextlib.AbstractContextManager[IO[str]]] = _open_csv,
              ) -> None:
    """Tables 4-8 (``table<N>_<metric>.csv``) and every row (``cbs3m_rows.csv``, with each
    run's ``status`` and ``reason``) into the folder ``out``. ``opener(path)`` opens a file
    for writing (text, ``newline=""``); the CLI passes an atomic writer."""
    out.mkdir(parents=True, exist_ok=True)
    for metric, per in tab.items():
        with opener(out / f"table{TABLE_OF[metric]}_{metric}.csv") as fh:
            w = csv.writer(fh)
            w.writerow(["policy", "min", "avg", "sd", "max", "best_percent", "instances",
                        "seed_avg", "failed"])
            for p, s in per.items():
                w.writerow([p, s["min"], s["avg"], s["sd"], s["max"], s["best"], s["n"],
                            SEED_AVERAGES[metric].get(p, ""), s.get("failed", 0)])
    keys = ["seed", "policy", "status", "lp_bound", *METRICS, "seconds", "events", "solves",
            "reason"]
    with opener(out / "cbs3m_rows.csv") as fh:
        w = csv.writer(fh)
        w.writerow(keys)
        for r in rows:
            w.writerow([r.get(k, "ok" if k == "status" else "") for k in keys])


def by_instance(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """Group key of a cell: its instance (every policy of one instance runs together)."""
    return (key[0], *key[2:])
