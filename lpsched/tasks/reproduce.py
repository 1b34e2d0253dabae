"""Reproduction of seed 000 ch. 3 §3.5 (issue 14) through the resumable runner.

* ``comparison``: for each trace of Table 3.1, ``instances`` random windows (method C,
  seeds ``first_seed...``), the eight methods of the chapter (Table 3.2's parameters) and
  FCFS; every row holds the six metrics, the counts and the proven lower bounds of its
  instance (exact up to :data:`~lpsched.tasks.bounds.EXACT_LIMIT` tasks, else speed-m).
* ``tuning``: the grids of §3.5.2 on one trace: SPT-RD and GSPT-RD over ``m_d in 1..10``
  × ``τ in 1..5`` (``1..10`` for Curie and RICC); SPT-RR and GSPT-RR over ``m_d`` × ``c in
  {0.2, 0.4, 0.6, 0.8, 1}`` with ``b = 0.02``.

A cell is a JSON-able list ``[trace path, seed, policy, params]``; cells of one instance go
to one worker (``group``), which builds the instance and its bounds once (cached).
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.core.swf import Workload
from lpsched.tasks.bounds import EXACT_LIMIT, lower_bounds
from lpsched.tasks.instance import (
    TRACES,
    TaskInstance,
    trace_info,
    trace_workload,
    window_instance,
)
from lpsched.tasks.policies import ALL_POLICIES, get_policy, table_params
from lpsched.tasks.simulator import evaluate

METRICS = ("max_stretch", "sum_stretch", "l2_stretch", "max_flow", "sum_flow", "l2_flow")
STRETCH = METRICS[:3]
C_GRID = (0.2, 0.4, 0.6, 0.8, 1.0)


@functools.lru_cache(maxsize=2)
def _trace(path: str) -> tuple[Workload, int]:
    return trace_workload(path)


def window_of(path: str) -> str:
    """The method-C window of Table 3.1 for the trace ``path`` (``random:7d`` for a trace
    the table does not list)."""
    info = trace_info(path)
    return f"random:{info.days:g}d" if info else "random:7d"


@functools.lru_cache(maxsize=2)
def instance(path: str, seed: int) -> TaskInstance:
    """The method-C instance of ``path`` for ``seed`` (window of Table 3.1)."""
    work, machine = _trace(path)
    return window_instance(work, machine, window_of(path), seed, "C", Path(path).name)


@functools.lru_cache(maxsize=2)
def _bounds(path: str, seed: int, exact_limit: int) -> dict[str, dict[str, Any]]:
    return {k: v.to_dict() for k, v in lower_bounds(instance(path, seed),
                                                    exact_limit).items()}


def trace_name(path: str) -> str:
    """The trace's name in Table 3.1, or its file name without ``.swf...``."""
    info = trace_info(path)
    return info.name if info else Path(path).name.split(".swf")[0]


def comparison_cells(paths: list[str], instances: int, first_seed: int = 0,
                     policies: tuple[str, ...] = ALL_POLICIES) -> list[list[Any]]:
    """The cells of the Table 3.2 comparison: ``[path, seed, policy, parameters]`` for every
    trace, instance seed and policy, with the table's parameters for the trace."""
    cells = []
    for path in paths:
        info = trace_info(path)
        for seed in range(first_seed, first_seed + instances):
            for name in policies:
                cells.append([path, seed, name, table_params(name, info)])
    return cells


def tuning_cells(path: str, instances: int, first_seed: int = 0,
                 md_values: tuple[int, ...] = tuple(range(1, 11)),
                 taus: tuple[float, ...] | None = None,
                 cs: tuple[float, ...] = C_GRID) -> list[list[Any]]:
    """The cells of the ``m_d`` x ``τ`` (RD policies) and ``m_d`` x ``c`` (RR policies)
    tuning grid on one trace; ``taus`` defaults to 1..10 for Curie and RICC, 1..5
    otherwise."""
    info = trace_info(path)
    if taus is None:
        wide = info is not None and info.short in ("Curie", "RICC")
        taus = tuple(range(1, 11 if wide else 6))
    cells = []
    for seed in range(first_seed, first_seed + instances):
        for md in md_values:
            for name in ("spt-rd", "gspt-rd"):
                cells += [[path, seed, name, {"md": md, "tau": tau}] for tau in taus]
            for name in ("spt-rr", "gspt-rr"):
                cells += [[path, seed, name, {"md": md, "c": c}] for c in cs]
    return cells


def group(cell: list[Any]) -> tuple[str, int]:
    """``(trace, seed)``: cells of one instance go to one worker, which builds the instance
    and its bounds once."""
    return cell[0], cell[1]


#: The fields every stored row has (skipped cells included), checked when rows are read
#: back (:func:`lpsched.core.store.check_row`; issue 10): a damaged store is one line.
ROW_SCHEMA: dict[str, str] = {"trace": "text", "seed": "int>=0", "policy": "text"}


def run_cell(cell: list[Any], exact_limit: int = EXACT_LIMIT) -> list[dict[str, Any]]:
    """One policy on one instance: metrics, counts, bounds, metric / bound."""
    path, seed, name, params = cell
    inst = instance(path, seed)
    pol = get_policy(name, seed=seed, **params)
    if pol.redirect and pol.md >= inst.processors:
        return [{"trace": trace_name(path), "seed": seed, "policy": name, **params,
                 "n": inst.n, "processors": inst.processors, "valid": False,
                 "skipped": f"m_d >= m = {inst.processors}"}]
    res = evaluate(inst, pol)
    row = {"trace": trace_name(path), "seed": seed, "n": inst.n,
           "processors": inst.processors, **res.to_dict()}
    bounds = _bounds(path, seed, exact_limit)
    for key, b in bounds.items():
        row[f"lb_{key}"] = b["value"]
        row[f"lb_{key}_kind"] = b["bound"]
        row[f"{key}_over_lb"] = row[key] / b["value"] if b["value"] > 0 else None
    return [row]


def tuning_cell(cell: list[Any]) -> list[dict[str, Any]]:
    """A tuning cell: like :func:`run_cell` without bounds."""
    path, seed, name, params = cell
    inst = instance(path, seed)
    pol = get_policy(name, seed=seed, **params)
    if pol.md >= inst.processors:
        return [{"trace": trace_name(path), "seed": seed, "policy": name, **params,
                 "valid": False, "skipped": f"m_d >= m = {inst.processors}"}]
    res = evaluate(inst, pol)
    return [{"trace": trace_name(path), "seed": seed, "n": inst.n,
             "processors": inst.processors, **res.to_dict()}]


def _mean(values: list[Any]) -> float | None:
    vals = [v for v in values if v is not None and math.isfinite(v)]
    return float(np.mean(vals)) if vals else None


def summary(rows: list[dict[str, Any]], keys: tuple[str, ...] = ("trace", "policy"),
            ) -> list[dict[str, Any]]:
    """Means over the instances per ``keys`` of every metric and metric / bound (the
    chapter reports averages over the 20 instances). ``instances`` counts the rows
    averaged, ``skipped`` the cells that could not run (Table 3.2's ``m_d >= m``): a
    group with skipped cells averages over fewer instances than its baseline."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    skipped: dict[tuple[Any, ...], int] = defaultdict(int)
    for row in rows:
        key = tuple(row.get(k) for k in keys)
        if row.get("valid"):
            groups[key].append(row)
        elif row.get("skipped"):
            skipped[key] += 1
    out = []
    for key in sorted(set(groups) | set(skipped), key=str):
        members = groups.get(key, [])
        entry = dict(zip(keys, key, strict=True))
        entry["instances"] = len(members)
        entry["skipped"] = skipped.get(key, 0)
        for metric in (*METRICS, "redirections", "interruptions", "preemptions"):
            entry[metric] = _mean([m.get(metric) for m in members])
        for metric in ("max_stretch", "max_flow", "sum_flow"):
            entry[f"{metric}_over_lb"] = _mean([m.get(f"{metric}_over_lb") for m in members])
        out.append(entry)
    return out


def skipped_cells(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Cells that could not run, per policy (``{}`` when none)."""
    out: dict[str, int] = defaultdict(int)
    for row in rows:
        if row.get("skipped"):
            out[row["policy"]] += 1
    return dict(sorted(out.items()))


def findings(summ: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chapter's qualitative claims (§3.5.2, §3.6) checked per trace: each redirection
    method against its baseline (``*-rd``/``*-rr`` against SPT or GSPT) on every stretch
    metric (lower expected, except SPT-RD on Curie) and on the total flow (higher: they
    trade flow for stretch)."""
    by = {(r["trace"], r["policy"]): r for r in summ}
    out = []
    for trace in sorted({r["trace"] for r in summ}):
        curie = trace.startswith("CEA-Curie")
        for name in ("spt-rd", "gspt-rd", "spt-rr", "gspt-rr"):
            base = name.split("-")[0]
            if (trace, name) not in by or (trace, base) not in by:
                continue
            a, b = by[(trace, name)], by[(trace, base)]
            if not a["instances"] or not b["instances"]:
                continue
            lower = [m for m in STRETCH if a[m] is not None and b[m] is not None
                     and a[m] < b[m]]
            expect_lower = not (curie and name == "spt-rd")
            agrees = (len(lower) == 3) == expect_lower
            out.append({"trace": trace, "policy": name, "baseline": base,
                        "stretch_metrics_lower": lower, "expected_lower": expect_lower,
                        "agrees": agrees, "instances": a["instances"],
                        "baseline_instances": b["instances"],
                        "sum_flow_ratio": (a["sum_flow"] / b["sum_flow"]
                                           if b["sum_flow"] else None)})
    return out


def default_traces(folder: str) -> list[str]:
    """The seven traces of Table 3.1 found in ``folder``."""
    return [str(Path(folder) / t.file) for t in TRACES.values()
            if (Path(folder) / t.file).exists()]
