"""The reproduction of seed 000 ch. 3 §3.5 (``lpsched reproduce redirection``), cell by cell.

The cells run through the resumable runner (:func:`lpsched.core.run_cells`):

* ``comparison``: for each trace of Table 3.1, ``instances`` random windows (method C,
  seeds ``first_seed...``), the eight methods of the chapter (Table 3.2's parameters) and
  FCFS; every row holds the six metrics, the counts and the proven lower bounds of its
  instance (exact up to :data:`~lpsched.tasks.bounds.EXACT_LIMIT` tasks, else speed-m).
* ``tuning``: the grids of §3.5.2 on one trace: SPT-RD and GSPT-RD over ``m_d in 1..10``
  × ``τ in 1..5`` (``1..10`` for Curie and RICC); SPT-RR and GSPT-RR over ``m_d`` × ``c in
  {0.2, 0.4, 0.6, 0.8, 1}`` with ``b = 0.02``.

A cell is a JSON-able list ``[trace path, seed, policy, params, selection]``, the last the
job selection ``{"status": ..., "zero_run": ...}`` the trace is read with (default the
chapter's, completed jobs of positive run time: decision 285; a stored cell of four items
was computed on every job line); cells of one instance go to one worker (``group``), which
builds the instance and its bounds once (cached). The seed-vs-ours table is
:func:`lpsched.tasks.fidelity.build_table`'s, which reads Table 3.1 (:data:`TABLE_3_1`),
the b-ratio (:data:`B_RATIO`) and the traces' figures (:func:`trace_figures`) from here
(decision 288).
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from lpsched.core import caches
from lpsched.core.swf import Workload, read_swf, to_workload
from lpsched.tasks.bounds import EXACT_LIMIT, lower_bounds
from lpsched.tasks.instance import (
    CHAPTER_STATUS,
    CHAPTER_ZERO_RUN,
    TRACES,
    ZERO_RUN_CHOICES,
    TaskInstance,
    machine_size,
    trace_info,
    window_instance,
)
from lpsched.tasks.policies import ALL_POLICIES, get_policy, table_params
from lpsched.tasks.schedule import check_bounds
from lpsched.tasks.simulator import evaluate

METRICS = ("max_stretch", "sum_stretch", "l2_stretch", "max_flow", "sum_flow", "l2_flow")
STRETCH = METRICS[:3]
C_GRID = (0.2, 0.4, 0.6, 0.8, 1.0)


#: the chapter's job selection (decision 285), the reproduction's default
CHAPTER_SELECTION: dict[str, str] = {"status": CHAPTER_STATUS, "zero_run": CHAPTER_ZERO_RUN}
#: the selection of a stored cell of four items (no selection item): every job line
LEGACY_SELECTION: dict[str, str] = {"status": "all", "zero_run": "keep"}


def selection(status: str = CHAPTER_STATUS, zero_run: str = CHAPTER_ZERO_RUN,
              ) -> dict[str, str]:
    """Check and return the job selection of a cell (seed 000 §3.5.1, Table 3.1 [L1835-1841]).

    Parameters
    ----------
    status : str
        The SWF statuses kept (``"completed"``, ``"all"``, a comma list:
        :func:`lpsched.core.swf.parse_status`); default the chapter's.
    zero_run : {"keep", "drop"}
        Whether the jobs of run time 0 are dropped; default the chapter's (``"drop"``).

    Returns
    -------
    dict
        ``{"status": status, "zero_run": zero_run}``, checked (a bad value raises).

    Notes
    -----
    The chapter's selection is decision 285's.

    Examples
    --------
    >>> selection()
    {'status': 'completed', 'zero_run': 'drop'}
    """
    from lpsched.core.swf import parse_status

    parse_status(status)
    if zero_run not in ZERO_RUN_CHOICES:
        raise ValueError(f"zero_run {zero_run!r}: must be 'keep' or 'drop'")
    return {"status": status, "zero_run": zero_run}


@functools.lru_cache(maxsize=8)
def _trace(path: str, status: str = CHAPTER_STATUS, zero_run: str = CHAPTER_ZERO_RUN,
           ) -> tuple[Workload, int, int | None]:
    """The trace's jobs under the selection, ``m`` (Table 3.1's) and the header's
    ``MaxProcs``."""
    trace = read_swf(path)
    machine = machine_size(trace, path, None)
    work = to_workload(trace, size="requested", estimate="runtime", processors=machine,
                       status=status, drop_zero_run=zero_run == "drop").require_jobs()
    return work, machine, trace.max_procs


def trace_figures(path: str, status: str = CHAPTER_STATUS,
                  zero_run: str = CHAPTER_ZERO_RUN) -> dict[str, Any]:
    """Table 3.1's trace columns [L1835-1841] measured on ``path`` under a job selection.

    Parameters
    ----------
    path : str
        The SWF trace.
    status, zero_run : str
        The job selection (:func:`selection`).

    Returns
    -------
    dict
        ``jobs`` kept, ``span_days`` (first to last submission), ``max_procs`` (header,
        ``None`` if absent), ``dropped`` (per reason), ``run_ratio`` (:func:`ratio_08` of
        the run times: the b-ratio of §3.5.2 [L1935-1937] read on the trace's jobs).
    """
    work, _, max_procs = _trace(path, status, zero_run)
    span = float(work.submit.max() - work.submit.min()) / 86400.0 if work.jobs else 0.0
    return {"jobs": work.jobs, "span_days": span, "max_procs": max_procs,
            "dropped": dict(work.dropped), "run_ratio": ratio_08(work.run)}


def window_of(path: str) -> str:
    """The method-C window of Table 3.1 for a trace (seed 000 [L1835-1841], the
    instance size column).

    Parameters
    ----------
    path : str
        The trace file (or name).

    Returns
    -------
    str
        ``random:<days>d`` (``random:7d`` for a trace the table does not list).
    """
    info = trace_info(path)
    return f"random:{info.days:g}d" if info else "random:7d"


@functools.lru_cache(maxsize=2)
def instance(path: str, seed: int, status: str = CHAPTER_STATUS,
             zero_run: str = CHAPTER_ZERO_RUN) -> TaskInstance:
    """The method-C instance of ``path`` for ``seed`` (window of Table 3.1), from the
    jobs the selection keeps (seed 000 §3.5.1; cached for the cells of one instance).

    Parameters
    ----------
    path : str
        The SWF trace.
    seed : int
        Seed of the window.
    status, zero_run : str
        The job selection (default the chapter's: completed jobs of positive run time,
        decision 285).

    Returns
    -------
    TaskInstance
        The instance.
    """
    work, machine, _ = _trace(path, status, zero_run)
    return window_instance(work, machine, window_of(path), seed, "C", Path(path).name,
                           {"status": status, "zero_run": zero_run})


@functools.lru_cache(maxsize=2)
def _bounds(path: str, seed: int, exact_limit: int, status: str = CHAPTER_STATUS,
            zero_run: str = CHAPTER_ZERO_RUN) -> dict[str, dict[str, Any]]:
    return {k: v.to_dict() for k, v in lower_bounds(instance(path, seed, status, zero_run),
                                                    exact_limit).items()}


caches.register(_trace, instance, _bounds)


def _cell_selection(cell: list[Any]) -> tuple[str, str]:
    sel = cell[4] if len(cell) > 4 else LEGACY_SELECTION
    return str(sel["status"]), str(sel["zero_run"])


def ratio_08(lengths: np.ndarray) -> float | None:
    """The ``ceil(0.8 n)``-th smallest of ``lengths`` over the largest (seed 000 §3.5.2
    [L1935-1937]: "the ratio of the 0.8n longest task ... over the longest task", 0.02 on
    average, which fixes ``b``).

    Parameters
    ----------
    lengths : numpy.ndarray
        Processing or run times (s).

    Returns
    -------
    float or None
        The ratio, ``None`` when there is no length or the largest is 0.
    """
    p = np.sort(np.asarray(lengths, float))
    if not p.size or p[-1] <= 0:
        return None
    return float(p[max(0, math.ceil(0.8 * p.size) - 1)] / p[-1])


def long_task_ratio(inst: TaskInstance) -> float | None:
    """:func:`ratio_08` of the instance's processing times, the per-instance b-ratio.

    Parameters
    ----------
    inst : TaskInstance
        The instance.

    Returns
    -------
    float or None
        The ratio (``None`` when every ``p`` is 0).

    Notes
    -----
    The reading decision 288 declared; decision 293 says what it measures.
    """
    return ratio_08(inst.p)


def trace_name(path: str) -> str:
    """The trace's name in Table 3.1 (the rows' ``trace`` field).

    Parameters
    ----------
    path : str
        The trace file.

    Returns
    -------
    str
        Table 3.1's name, or the file name without ``.swf...``.
    """
    info = trace_info(path)
    return info.name if info else Path(path).name.split(".swf")[0]


def comparison_cells(paths: list[str], instances: int, first_seed: int = 0,
                     policies: tuple[str, ...] = ALL_POLICIES,
                     jobs: dict[str, str] | None = None) -> list[list[Any]]:
    """The cells of the Table 3.2 comparison (seed 000 §3.5.2): every trace, instance
    seed and policy, with the table's parameters for the trace.

    Parameters
    ----------
    paths : list of str
        The traces.
    instances : int
        Instances (windows) per trace (the chapter's 20).
    first_seed : int
        Seed of the first window.
    policies : tuple of str
        The policies (default every one, :data:`~lpsched.tasks.policies.ALL_POLICIES`).
    jobs : dict, optional
        The job selection (:func:`selection`; default the chapter's).

    Returns
    -------
    list of list
        ``[path, seed, policy, parameters, selection]`` per cell.
    """
    sel = dict(jobs or CHAPTER_SELECTION)
    cells = []
    for path in paths:
        info = trace_info(path)
        for seed in range(first_seed, first_seed + instances):
            for name in policies:
                cells.append([path, seed, name, table_params(name, info), sel])
    return cells


def tuning_cells(path: str, instances: int, first_seed: int = 0,
                 md_values: tuple[int, ...] = tuple(range(1, 11)),
                 taus: tuple[float, ...] | None = None,
                 cs: tuple[float, ...] = C_GRID,
                 jobs: dict[str, str] | None = None) -> list[list[Any]]:
    """The cells of the ``m_d`` x ``τ`` (RD policies) and ``m_d`` x ``c`` (RR policies)
    tuning grids on one trace (seed 000 §3.5.2, Figures 3.3-3.6).

    Parameters
    ----------
    path : str
        The trace.
    instances : int
        Instances (windows).
    first_seed : int
        Seed of the first window.
    md_values : tuple of int
        The ``m_d`` values (default 1..10).
    taus : tuple of float, optional
        The ``τ`` values (default 1..10 for Curie and RICC, 1..5 otherwise).
    cs : tuple of float
        The ``c`` values (default :data:`C_GRID`).
    jobs : dict, optional
        The job selection (:func:`selection`; default the chapter's).

    Returns
    -------
    list of list
        ``[path, seed, policy, {"md", "tau"} or {"md", "c"}, selection]`` per cell.
    """
    sel = dict(jobs or CHAPTER_SELECTION)
    info = trace_info(path)
    if taus is None:
        wide = info is not None and info.short in ("Curie", "RICC")
        taus = tuple(range(1, 11 if wide else 6))
    cells = []
    for seed in range(first_seed, first_seed + instances):
        for md in md_values:
            for name in ("spt-rd", "gspt-rd"):
                cells += [[path, seed, name, {"md": md, "tau": tau}, sel] for tau in taus]
            for name in ("spt-rr", "gspt-rr"):
                cells += [[path, seed, name, {"md": md, "c": c}, sel] for c in cs]
    return cells


def group(cell: list[Any]) -> tuple[str, int, str, str]:
    """The runner's group of a cell: cells of one instance go to one worker, which builds
    the instance and its bounds once.

    Parameters
    ----------
    cell : list
        A cell of :func:`comparison_cells` or :func:`tuning_cells`.

    Returns
    -------
    tuple
        ``(trace, seed, status, zero_run)``.
    """
    return (cell[0], cell[1], *_cell_selection(cell))


#: The fields every stored row has (skipped cells included), checked when rows are read
#: back (:func:`lpsched.core.store.check_row`): a damaged store is one line.
ROW_SCHEMA: dict[str, str] = {"trace": "text", "seed": "int>=0", "policy": "text"}


def _instance_fields(inst: TaskInstance, status: str, zero_run: str) -> dict[str, Any]:
    return {"n": inst.n, "processors": inst.processors, "job_status": status,
            "zero_run": zero_run, "Q": inst.meta.get("Q"),
            "long_task_ratio": long_task_ratio(inst)}


def run_cell(cell: list[Any], exact_limit: int = EXACT_LIMIT) -> list[dict[str, Any]]:
    """Run one cell of the comparison: one policy on one instance (seed 000 §3.5.2).

    The row holds the metrics, counts, bounds and metric / bound; the schedule is validated
    and checked against the proven bounds.

    Parameters
    ----------
    cell : list
        ``[path, seed, policy, parameters(, selection)]`` (:func:`comparison_cells`).
    exact_limit : int
        Most tasks for the exact bounds (default
        :data:`~lpsched.tasks.bounds.EXACT_LIMIT`).

    Returns
    -------
    list of dict
        One row: trace, seed, instance fields (``n``, ``processors``, ``Q``, ...), the
        policy's metrics and counts, ``lb_*`` and ``*_over_lb``; or a row with ``skipped``
        when Table 3.2's ``m_d >= m``.

    Notes
    -----
    A schedule below a proven bound stops the run (decision 286).
    """
    path, seed, name, params = cell[:4]
    status, zero_run = _cell_selection(cell)
    inst = instance(path, seed, status, zero_run)
    pol = get_policy(name, seed=seed, **params)
    if pol.redirect and pol.md >= inst.processors:
        return [{"trace": trace_name(path), "seed": seed, "policy": name, **params,
                 **_instance_fields(inst, status, zero_run), "valid": False,
                 "skipped": f"m_d >= m = {inst.processors}"}]
    res = evaluate(inst, pol)
    row = {"trace": trace_name(path), "seed": seed,
           **_instance_fields(inst, status, zero_run), **res.to_dict()}
    bounds = _bounds(path, seed, exact_limit, status, zero_run)
    check_bounds(res.metrics, bounds)
    for key, b in bounds.items():
        row[f"lb_{key}"] = b["value"]
        row[f"lb_{key}_kind"] = b["bound"]
        row[f"{key}_over_lb"] = row[key] / b["value"] if b["value"] > 0 else None
    return [row]


def tuning_cell(cell: list[Any]) -> list[dict[str, Any]]:
    """Run one cell of the tuning grids: like :func:`run_cell` without bounds.

    Parameters
    ----------
    cell : list
        ``[path, seed, policy, parameters(, selection)]`` (:func:`tuning_cells`).

    Returns
    -------
    list of dict
        One row (metrics and counts), or one ``skipped`` row when ``m_d >= m``.
    """
    path, seed, name, params = cell[:4]
    status, zero_run = _cell_selection(cell)
    inst = instance(path, seed, status, zero_run)
    pol = get_policy(name, seed=seed, **params)
    if pol.md >= inst.processors:
        return [{"trace": trace_name(path), "seed": seed, "policy": name, **params,
                 "job_status": status, "zero_run": zero_run, "valid": False,
                 "skipped": f"m_d >= m = {inst.processors}"}]
    res = evaluate(inst, pol)
    return [{"trace": trace_name(path), "seed": seed, "n": inst.n,
             "processors": inst.processors, "job_status": status, "zero_run": zero_run,
             **res.to_dict()}]


def _mean(values: list[Any]) -> float | None:
    vals = [v for v in values if v is not None and math.isfinite(v)]
    return float(np.mean(vals)) if vals else None


def summary(rows: list[dict[str, Any]], keys: tuple[str, ...] = ("trace", "policy"),
            ) -> list[dict[str, Any]]:
    """Means over the instances per ``keys`` of every metric and metric / bound (the
    chapter reports averages over the 20 instances [L1897-1898]).

    Parameters
    ----------
    rows : list of dict
        Rows of :func:`run_cell` or :func:`tuning_cell`.
    keys : tuple of str
        The grouping fields (default ``("trace", "policy")``; the grids add ``md``, ``tau``,
        ``c``).

    Returns
    -------
    list of dict
        One entry per group: the keys, ``instances`` (rows averaged), ``skipped`` (cells that
        could not run: a group with skipped cells averages over fewer instances than its
        baseline), the metric means and the ``*_over_lb`` means.
    """
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
    """Cells that could not run (Table 3.2's ``m_d >= m``), per policy.

    Parameters
    ----------
    rows : list of dict
        The run's rows.

    Returns
    -------
    dict of str to int
        Per policy, its skipped cells (``{}`` when none).
    """
    out: dict[str, int] = defaultdict(int)
    for row in rows:
        if row.get("skipped"):
            out[row["policy"]] += 1
    return dict(sorted(out.items()))


def findings(summ: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Check the chapter's qualitative claims (§3.5.2, §3.6) per trace.

    Each redirection method against its baseline (``*-rd``/``*-rr`` against SPT or GSPT) on
    every stretch metric (lower expected, except SPT-RD on Curie [L1962-1967]) and on the
    total flow (higher: they trade flow for stretch).

    Parameters
    ----------
    summ : list of dict
        :func:`summary` rows keyed by trace and policy.

    Returns
    -------
    list of dict
        Per (trace, method): ``stretch_metrics_lower`` (the metrics whose mean is lower),
        ``expected_lower``, ``agrees``, the instance counts and ``sum_flow_ratio``.
    """
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
    """The seven traces of Table 3.1 found in ``folder`` (seed 000 [L1835-1841]).

    Parameters
    ----------
    folder : str
        The traces' folder (``--data``).

    Returns
    -------
    list of str
        Their paths, in Table 3.1's order; missing ones left out.
    """
    return [str(Path(folder) / t.file) for t in TRACES.values()
            if (Path(folder) / t.file).exists()]


#: Table 3.1 [L1835-1841]: trace CPUs, trace "# tasks", trace size, instance CPUs (m/Q),
#: tasks per instance, instance size (days); the seed line of each row
TABLE_3_1: dict[str, tuple[int, int, int, int, int, int, int]] = {
    "Curie": (80640, 279991, 6089, 160, 70215, 60, 1835),
    "HPC2N": (240, 201998, 1268, 17, 4516, 30, 1836),
    "KTH-SP2": (100, 20483, 333, 12, 860, 15, 1837),
    "LLNL-Thunder": (4096, 97875, 148, 48, 4601, 7, 1838),
    "Metacentrum": (806, 86586, 157, 18, 4155, 7, 1839),
    "RICC": (8192, 431547, 153, 200, 19401, 7, 1840),
    "SDSC-Blue-4.1": (1152, 195587, 979, 27, 6263, 30, 1841),
}
#: the b-ratio of §3.5.2 [L1935-1937]: 0.02 on average over the traces
B_RATIO = 0.02
