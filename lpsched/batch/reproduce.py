"""Reproduce the batch-cluster experiments of seeds 000 ch. 4-5 and 001.

Each experiment runs through the resumable runner (:func:`lpsched.core.runner.run_cells`):

* ``contiguity`` — seed 000 ch. 4 §3.6 [L2872–L2923]: offline instances of 300 jobs drawn
  at random from a trace (sizes ``<= m``), all submitted at 0, real run times as
  estimates, conservative backfilling on ``m`` processors in clusters of ``ℓ``, ch. 4's
  allocators basic / becont-ff / cont-ff (first fit, Alg. 3) / beloc / loc, and NFDH+LS
  when every job fits a cluster;
  compared by makespan deviation from basic and contiguous / local shares.
* ``platform-level`` — seed 000 ch. 5 §5.7 [L3660–L3750]: instances = a random run of
  7-day periods of the trace, conservative backfilling with wall times and the seed's
  reassignment (§5.5, ``compression="reassign"``, not the textbook default), the quadratic
  penalty ``F = 2`` on a fat tree, the seven variants; every metric divided by the mean of
  basic over the instances (A5.13).
* ``topology-aware`` — seed 001 §8: FCFS and EASY x non-contiguous / contiguous /
  quasi-contiguous(10–40) x speed-up grid on a 4-ary n-tree covering the machine; mean wait
  relative to non-contiguous and the break-even speed-up.

A cell is a JSON-able list; its result rows are committed to the store one by one.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace
from typing import Any

import numpy as np

from lpsched.batch.allocation import slice_plan
from lpsched.batch.placement import clusters_used
from lpsched.batch.procsets import proc_runs
from lpsched.batch.schedule import BatchSchedule, above_min_level, batch_metrics
from lpsched.batch.simulator import BLOCKED_HEAD, simulate_batch
from lpsched.batch.topology import Topology, kary_ntree, parse_topology
from lpsched.batch.validation import validate_batch
from lpsched.core import caches
from lpsched.core.swf import Workload, check_processors, read_swf, to_workload
from lpsched.errors import InvalidInstanceError

CONTIGUITY_ALLOCS = ("basic", "becont-ff", "cont-ff", "beloc", "loc")  # ch. 4's rules
PLATFORM_ALLOCS = ("basic", "becont", "beloc", "beplat", "cont", "loc", "plat")
WEEK = 7 * 24 * 3600.0


def load_trace(path: str, status: str | None = None, estimate: str = "requested",
               zero_run: str | None = None) -> Workload:
    """The whole trace (cached per worker process) under the default conventions.

    Parameters
    ----------
    path : str
        An SWF trace.
    status : str, optional
        A cell's job selection (:func:`selection`): the SWF statuses kept
        (:func:`~lpsched.core.swf.parse_status`; ``None`` or ``"all"``: every job),
        optionally followed by ``";zero-run=keep"`` or ``";zero-run=drop"``.
    estimate : {"requested", "runtime"}
        The user's wall times, or the real run times as estimates (ch. 4's reading).
    zero_run : {"keep", "drop"}, optional
        Keep or drop the jobs of run time 0 (``--zero-run``, as ``lpsched tasks``). By
        default the rule the status slot names, else the seed's selection: ``drop`` for
        ``"completed"`` (seed 000 Table 5.2's "Jobs" [L3698–L3704] are the completed jobs
        of positive run time, decision 268), ``keep`` otherwise.

    Returns
    -------
    Workload
        The jobs kept; a :class:`~lpsched.errors.ParseError` when the trace is malformed or
        keeps no job (the CLI calls this before any cell runs).

    Notes
    -----
    The cache is keyed on every argument, given or not, so that the cells (which name the
    estimate rule) and the progress line's work estimate (which does not) share one read
    of the trace (decision 705).
    """
    return _load_trace(path, status, estimate, zero_run)


@functools.lru_cache(maxsize=4)
def _load_trace(path: str, status: str | None, estimate: str,
                zero_run: str | None) -> Workload:
    """:func:`load_trace`, its arguments all given, cached."""
    if status is not None and ";zero-run=" in status:
        status, _, named = status.partition(";zero-run=")
        zero_run = zero_run or named
    if zero_run is None:
        completed = status is not None and status.strip().lower() == "completed"
        zero_run = "drop" if completed else "keep"
    if zero_run not in ZERO_RUN_CHOICES:
        raise InvalidInstanceError("zero_run", zero_run, f"must be one of {ZERO_RUN_CHOICES}")
    return to_workload(read_swf(path), status=status, estimate=estimate,
                       drop_zero_run=zero_run == "drop").require_jobs()


caches.register(_load_trace)


#: ``--zero-run``: keep or drop the jobs of run time 0 (the option of ``lpsched tasks``)
ZERO_RUN_CHOICES = ("keep", "drop")


def selection(status: str | None, zero_run: str = "keep") -> str | None:
    """Give the job selection a cell carries in its status slot.

    ``status`` alone when ``zero_run`` is the rule :func:`load_trace` reads from it by
    default (``drop`` exactly for ``completed``, the seed's selection), so the stored
    results of the default runs keep their keys; else ``"STATUS;zero-run=RULE"``. The
    options stay separate, as in ``lpsched tasks``: ``--status completed`` selects
    statuses, ``--zero-run`` run times.

    Parameters
    ----------
    status : str, optional
        The ``--status`` value (``None``: every job).
    zero_run : {"keep", "drop"}
        The ``--zero-run`` value.

    Returns
    -------
    str or None
        The slot's value (``None``: every job, run-0 jobs kept).
    """
    completed = status is not None and status.strip().lower() == "completed"
    if zero_run not in ZERO_RUN_CHOICES:
        raise InvalidInstanceError("zero_run", zero_run, f"must be one of {ZERO_RUN_CHOICES}")
    if (zero_run == "drop") == completed:
        return status
    return f"{status or 'all'};zero-run={zero_run}"


def subset(work: Workload, keep: np.ndarray, offline: bool = False) -> Workload:
    """The jobs ``keep`` of ``work``, submission times shifted so the first is 0 (all 0
    when ``offline``).

    Parameters
    ----------
    work : Workload
        The trace's jobs.
    keep : numpy.ndarray
        Indices (or a boolean mask) of the jobs kept.
    offline : bool
        Submit every kept job at 0 (seed 000 ch. 4's offline instances).

    Returns
    -------
    Workload
        The kept jobs, in order.
    """
    submit = work.submit[keep]
    submit = np.zeros_like(submit) if offline else submit - (submit.min() if submit.size
                                                              else 0.0)
    return replace(work, job=work.job[keep], submit=submit, run=work.run[keep],
                   size=work.size[keep], estimate=work.estimate[keep])


# -- seed 000 ch. 4: contiguity and locality, offline ---------------------------------------

#: seed 000 ch. 4 §4.6 [L2896–L2908]: 512 instances of 300 jobs drawn from CEA-Curie, 512
#: processors in clusters of 16 (the defaults of :func:`contiguity_cells` and of the CLI)
CH4_DEFAULTS = {"trace": "CEA-Curie-2011-2.1-cln.swf.gz", "instances": 512, "jobs": 300,
                "processors": 512, "cluster": 16, "status": "all"}


#: the cluster sizes ch. 4 tried [L2899–L2900]; NFDH+LS runs at the smallest of them, at
#: least the study's ``ℓ``, that holds every job of the instance (decision 277)
CH4_CLUSTER_SIZES = (16, 32, 64, 128)


#: how conservative backfilling plans (``--planner``): ``profile``, the simulator's count
#: profile (default); ``slices``, Algorithm 1's time slices of processor sets [L2759–L2786]
#: (reading (h) of decision 274, :func:`~lpsched.batch.allocation.slice_plan`)
CH4_PLANNERS = ("profile", "slices")


def contiguity_cells(trace: str, instances: int = 512, jobs: int = 300,
                     processors: int = 512, cluster: int = 16, first_seed: int = 0,
                     status: str | None = None, planner: str = "profile",
                     zero_run: str = "keep") -> list[list[Any]]:
    """Build the cells of seed 000 ch. 4 §4.6 (defaults: :data:`CH4_DEFAULTS`).

    Reads the trace once: it must have a job of at most ``processors``. ``status``: the
    SWF statuses kept (:func:`load_trace`; ch. 4 names none); ``planner``: one of
    :data:`CH4_PLANNERS`.

    Parameters
    ----------
    trace : str
        Path of the SWF trace.
    instances : int
        Instances (seed 000: 512 [L2908]).
    jobs : int
        Jobs per instance (300).
    processors : int
        The machine (512).
    cluster : int
        Processors per cluster ``ℓ`` (16).
    first_seed : int
        Seed of the first instance (instance ``i`` uses ``first_seed + i``).
    status : str, optional
        The SWF statuses kept (default every job).
    planner : str
        One of :data:`CH4_PLANNERS`.
    zero_run : {"keep", "drop"}
        Keep or drop the jobs of run time 0 (default keep).

    Returns
    -------
    list of list
        One cell per instance and allocator (``CONTIGUITY_ALLOCS`` and ``nfdh-ls``).

    Notes
    -----
    Decision 268: ch. 4 names no status selection, so every job is kept by default.
    """
    check_processors(processors)
    status = selection(status, zero_run)
    if planner not in CH4_PLANNERS:
        raise InvalidInstanceError("planner", planner, f"must be one of {CH4_PLANNERS}")
    if not (load_trace(trace, status).size <= processors).any():
        raise InvalidInstanceError("processors", processors, f"no job of {trace} fits on "
                                   "so few processors")
    tail = [status] if status not in (None, "all") else []
    if planner != "profile":
        tail = [status or "all", planner]
    return [[trace, seed, jobs, processors, cluster, alloc, *tail]
            for seed in range(first_seed, first_seed + instances)
            for alloc in (*CONTIGUITY_ALLOCS, "nfdh-ls")]


def contiguity_instance(trace: str, seed: int, jobs: int, processors: int,
                        status: str | None = None) -> Workload:
    """Draw one ch. 4 instance: ``jobs`` jobs of size ``<= processors``, all submitted at 0.

    Drawn without replacement (seeded); the estimates are the real run times (offline,
    seed 000 [L2881]).

    Parameters
    ----------
    trace : str
        Path of the SWF trace.
    seed : int
        The instance's seed.
    jobs : int
        Jobs drawn.
    processors : int
        The machine (only jobs of at most that many processors are drawn).
    status : str, optional
        The cell's job selection (:func:`selection`: the SWF statuses, optionally with the
        run-0 rule; ``None``: every job).

    Returns
    -------
    Workload
        The instance: offline, estimates = run times, ``processors`` as the machine.

    Notes
    -----
    Decision 55: ch. 4's instances are offline, with exact estimates.
    """
    work = load_trace(trace, status)
    fit = np.flatnonzero(work.size <= processors)
    rng = np.random.default_rng(seed)
    keep = np.sort(rng.choice(fit, size=min(jobs, fit.size), replace=False))
    sub = subset(work, keep, offline=True)
    return replace(sub, estimate=sub.run.copy(), processors=processors)


def contiguity_cell(cell: list[Any]) -> list[dict[str, Any]]:
    """Run one contiguity cell ``[trace, seed, jobs, m, ℓ, alloc]`` and give its row.

    Conservative backfilling with the seed's reassignment and allocator ``alloc``
    (validated; with planner ``slices``, cell[7], Algorithm 1's processor-set slices), or
    NFDH+LS at the smallest cluster size of :data:`CH4_CLUSTER_SIZES` (at least ``ℓ``,
    dividing ``m``) holding every job, named in ``cluster`` (``makespan`` None when there
    is none).

    Parameters
    ----------
    cell : list
        The cell as :func:`contiguity_cells` built it (its key in the result store).

    Returns
    -------
    list of dict
        One row: ``seed``, ``alloc``, ``jobs``, ``makespan`` (s; None for NFDH+LS without a
        fitting cluster size), ``contiguous_jobs``, ``local_jobs`` and the allocator's
        measures.

    Notes
    -----
    Decision 277: NFDH+LS runs at the smallest cluster size that holds every job.
    """
    trace, seed, jobs, m, ell, alloc = cell[:6]
    status = cell[6] if len(cell) > 6 and cell[6] != "all" else None
    planner = cell[7] if len(cell) > 7 else "profile"
    work = contiguity_instance(trace, seed, jobs, m, status)
    row: dict[str, Any] = {"seed": seed, "alloc": alloc, "jobs": work.jobs}
    if alloc == "nfdh-ls":
        from lpsched.approx.packing import nfdh_ls

        fits = [c for c in (ell, *CH4_CLUSTER_SIZES) if c >= ell and not m % c
                and (work.size <= c).all()]
        if not fits:
            return [{**row, "makespan": None, "wider_than_cluster": int((work.size > ell).sum()),
                     "wider_than_128": int((work.size > max(CH4_CLUSTER_SIZES)).sum())}]
        ell = row["cluster"] = fits[0]  # decision 277: ch. 4's other cluster sizes
        res = nfdh_ls(np.c_[work.run, work.size], m // ell, ell)
        row["makespan"] = res.makespan
        # seed 000 Theorem 4 [L2507–L2508]: C <= 3 max(W/m, p_max)
        row["lower_bound"] = float(max((work.run * work.size).sum() / m, work.run.max()))
        row["contiguous_jobs"] = row["local_jobs"] = 1.0
        return [row]
    if planner == "slices":  # decision 274 (h)
        start, procs = slice_plan(work.run, work.size, m, alloc, ell)
        sched = BatchSchedule(start=start, end=start + work.run, procs=procs)
    else:
        sched, _ = simulate_batch(work, "conservative", alloc=alloc, cluster_size=ell,
                                  compression="reassign")  # the seed's rule (§5.5)
    validate_batch(work, sched, m, cluster_size=ell, forced=alloc)
    met = batch_metrics(work, sched, m, cluster_size=ell)
    used = clusters_used(proc_runs(sched.procs)[0], ell)  # per job, from its runs
    least = np.ceil(work.size / ell)
    row.update(makespan=met["makespan"], contiguous_jobs=met["contiguous_jobs"],
               local_jobs=met["local_jobs"], locality_ratio=float(used.mean() / least.mean()))
    return [row]


def contiguity_summary(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per allocator: mean and share-within-2 % of the makespan deviation from basic, mean
    contiguous and local shares, mean locality ratio (seed 000 Figs. 4.7–4.12).

    Parameters
    ----------
    rows : list of dict
        The rows of :func:`contiguity_cell`.

    Returns
    -------
    dict
        Allocator -> ``instances``, ``mean_deviation`` (fraction of basic's makespan),
        ``within_2pct``, ``contiguous_jobs``, ``local_jobs`` (shares); ``nfdh-ls`` also
        ``max_ratio_to_bound``, ``skipped_instances``, ``skipped_seeds``, ``clusters``.
    """
    basic = {r["seed"]: r["makespan"] for r in rows if r["alloc"] == "basic"}
    out: dict[str, dict[str, float]] = {}
    for alloc in (*CONTIGUITY_ALLOCS, "nfdh-ls"):
        mine = [r for r in rows if r["alloc"] == alloc and r["makespan"] is not None
                and r["seed"] in basic]
        if not mine:
            continue
        dev = np.array([r["makespan"] / basic[r["seed"]] - 1 for r in mine])
        out[alloc] = {"instances": len(mine), "mean_deviation": float(dev.mean()),
                      "within_2pct": float((np.abs(dev) < 0.02).mean()),
                      "contiguous_jobs": float(np.mean([r["contiguous_jobs"] for r in mine])),
                      "local_jobs": float(np.mean([r["local_jobs"] for r in mine]))}
        if "locality_ratio" in mine[0]:
            out[alloc]["locality_ratio"] = float(np.mean([r["locality_ratio"] for r in mine]))
        if alloc == "nfdh-ls":
            ratio = [r["makespan"] / r["lower_bound"] for r in mine if r.get("lower_bound")]
            out[alloc]["max_ratio_to_bound"] = float(max(ratio)) if ratio else float("nan")
    skipped = sorted(r["seed"] for r in rows if r["alloc"] == "nfdh-ls"
                     and r["makespan"] is None)
    if skipped or "nfdh-ls" in out:  # seed 000 §4.4: NFDH+LS needs every job in a cluster
        out.setdefault("nfdh-ls", {"instances": 0})
        out["nfdh-ls"]["skipped_instances"] = len(skipped)
        out["nfdh-ls"]["skipped_seeds"] = skipped[:20]  # type: ignore[assignment]
        used = sorted({int(r["cluster"]) for r in rows if r["alloc"] == "nfdh-ls"
                       and r["makespan"] is not None and "cluster" in r})
        out["nfdh-ls"]["clusters"] = used  # type: ignore[assignment]
    return out


# -- seed 000 ch. 5: platform level on fat trees, online with penalties ---------------------

def default_fat_tree(processors: int, cluster: int = 16, arity: int = 4) -> str:
    """Give the smallest fat tree covering a machine: clusters, then switches of ``arity``.

    Clusters of ``cluster`` processors, switches of ``arity`` children, as many levels as
    needed to cover the machine (the seed gives no shapes).

    Parameters
    ----------
    processors : int
        The machine to cover.
    cluster : int
        Processors per cluster (default 16).
    arity : int
        Children per switch above the clusters (default 4).

    Returns
    -------
    str
        The ``--topology`` text, e.g. ``fat-tree:16,4,4``.

    Notes
    -----
    Decision 51: the tree shapes lpsched chooses where the seeds give none.
    """
    arities, leaves = [], cluster
    while leaves < processors:
        arities.append(arity)
        leaves *= arity
    return "fat-tree:" + ",".join(str(v) for v in (cluster, *arities))


#: seed 000 ch. 5 Table 5.2 [L3698–L3704]: platform -> (trace file in ../shared/data,
#: processors, jobs, 7-day periods per instance); 30 instances each [L3713]
CH5_PLATFORMS: dict[str, tuple[str, int, int, int]] = {
    "curie": ("CEA-Curie-2011-2.1-cln.swf.gz", 80640, 279991, 3),
    "hpc2n": ("HPC2N-2002-2.1-cln.swf.gz", 240, 201998, 1),
    "kth_sp2": ("KTH-SP2-1996-2.1-cln.swf.gz", 100, 20483, 1),
    "llnl_thunder": ("LLNL-Thunder-2007-1.1-cln.swf.gz", 1024, 97875, 1),
    "ricc": ("RICC-2010-2.swf.gz", 8192, 431547, 2),
    "sdsc_blue": ("SDSC-BLUE-2000-4.1-cln.swf.gz", 1152, 195587, 1),
}
#: ch. 5's defaults: 30 instances [L3713], jobs of Table 5.2's selection (decision 268),
#: the user's wall times as estimates and kill limits [L3295–L3296, L3323–L3332]
#: (decision 269)
CH5_DEFAULTS = {"instances": 30, "status": "completed", "zero_run": "drop",
                "estimate": "requested",
                "penalty": "quadratic", "factor": 2.0}


def platform_of(trace: str) -> str | None:
    """The Table 5.2 platform whose trace file is ``trace`` (by file name), if any.

    Parameters
    ----------
    trace : str
        A trace path or file name.

    Returns
    -------
    str or None
        The key of :data:`CH5_PLATFORMS` (``kth_sp2``), or ``None``.
    """
    name = trace.replace("\\", "/").rsplit("/", 1)[-1]
    return next((p for p, spec in CH5_PLATFORMS.items() if spec[0] == name), None)


def platform_cells(trace: str, instances: int = 30, periods: int | None = None,
                   topology: str | None = None, penalty: str = "quadratic",
                   factor: float = 2.0, first_seed: int = 0, status: str | None = "completed",
                   estimate: str = "requested", zero_run: str = "drop") -> list[list[Any]]:
    """Build the platform-level cells of one trace (seed 000 ch. 5).

    Every seed and allocator of :data:`PLATFORM_ALLOCS` on the fat tree ``topology``
    (default: the smallest covering the machine), checked before any cell runs.
    ``periods`` defaults to Table 5.2's for the trace's platform (1 for another trace);
    ``status`` and ``estimate`` select the jobs and the estimates (:func:`load_trace`;
    defaults :data:`CH5_DEFAULTS`).

    Parameters
    ----------
    trace : str
        Path of the SWF trace.
    instances : int
        Instances (seed 000: 30 per platform [L3713]).
    periods : int, optional
        7-day periods per instance (default Table 5.2's).
    topology : str, optional
        The ``--topology`` text (default :func:`default_fat_tree`).
    penalty : str
        ``linear`` or ``quadratic`` (seed 000 Eq. 5.1/5.2; default quadratic).
    factor : float
        The penalty factor (default 2, seed 000 Fig. 5.8).
    first_seed : int
        Seed of the first instance.
    status : str, optional
        The SWF statuses kept (default ``completed``, decision 268).
    estimate : {"requested", "runtime"}
        The estimates and kill limits (decision 269).
    zero_run : {"keep", "drop"}
        Keep or drop the jobs of run time 0 (default drop, decision 268).

    Returns
    -------
    list of list
        One cell per instance and allocator of :data:`PLATFORM_ALLOCS`.
    """
    status = selection(status, zero_run)
    work = load_trace(trace, status, estimate)
    if periods is None:
        plat = platform_of(trace)
        periods = CH5_PLATFORMS[plat][3] if plat else 1
    topo = topology or default_fat_tree(int(work.processors or work.size.max()))
    parse_topology(topo, int(work.processors or 0) or None)  # a bad tree fails before any cell
    return [[trace, seed, periods, topo, penalty, factor, alloc, status, estimate]
            for seed in range(first_seed, first_seed + instances) for alloc in PLATFORM_ALLOCS]


def period_instance(trace: str, seed: int, periods: int, status: str | None = None,
                    estimate: str = "requested") -> Workload:
    """``periods`` consecutive 7-day periods starting at a period drawn uniformly (A5.11),
    keeping the jobs submitted inside the window.

    Parameters
    ----------
    trace : str
        Path of the SWF trace.
    seed : int
        The instance's seed (the first period drawn).
    periods : int
        Consecutive 7-day periods.
    status : str, optional
        The cell's job selection (:func:`selection`: the SWF statuses, optionally with the
        run-0 rule; ``None``: every job).
    estimate : {"requested", "runtime"}
        The estimates (decision 269).

    Returns
    -------
    Workload
        The jobs submitted in the window, submissions shifted to 0.
    """
    work = load_trace(trace, status, estimate)
    total = max(1, math.ceil((float(work.submit.max()) + 1) / WEEK))
    first = int(np.random.default_rng(seed).integers(0, max(1, total - periods + 1)))
    lo, hi = first * WEEK, (first + periods) * WEEK
    return subset(work, np.flatnonzero((work.submit >= lo) & (work.submit < hi)))


def platform_cell(cell: list[Any]) -> list[dict[str, Any]]:
    """The row of one platform-level cell: conservative backfilling with reassignment and
    the placement penalty on the tree, validated; sums of flow and stretch and the platform
    factors.

    Parameters
    ----------
    cell : list
        The cell as :func:`platform_cells` built it (its key in the result store).

    Returns
    -------
    list of dict
        One row: ``seed``, ``alloc``, ``jobs``, ``platform``, ``sum_flow``, ``sum_stretch``
        (s), ``seconds`` and the placement factors.
    """
    trace, seed, periods, topo_spec, penalty, factor, alloc = cell[:7]
    status, estimate = (cell[7], cell[8]) if len(cell) > 8 else (None, "requested")
    work = period_instance(trace, seed, periods, status, estimate)
    topo: Topology = parse_topology(topo_spec, int(work.processors or 0) or None)
    sched, stats = simulate_batch(work, "conservative", alloc=alloc, topology=topo,
                                  penalty=(penalty, factor), compression="reassign")
    validate_batch(work, sched, topo.installed, topology=topo, forced=alloc)
    met = batch_metrics(work, sched, topo.installed, topology=topo)
    return [{"seed": seed, "alloc": alloc, "jobs": work.jobs,
             "platform": platform_of(trace) or trace.replace("\\", "/").rsplit("/", 1)[-1],
             "sum_flow": met["mean_flow"] * work.jobs,
             "sum_stretch": met["mean_stretch"] * work.jobs, "seconds": stats["seconds"],
             **{k: met[k] for k in ("contiguity_factor", "locality_factor",
                                    "platform_level_factor", "success_rate")}}]


PLATFORM_METRICS = ("sum_flow", "sum_stretch", "contiguity_factor", "locality_factor",
                    "platform_level_factor", "success_rate")

#: The fields each experiment's summary reads, checked when rows are read back from a store
#: (:func:`lpsched.core.store.check_row`): a damaged store is one line, never a wrong table.
ROW_SCHEMAS: dict[str, dict[str, str]] = {
    "contiguity": {"seed": "int>=0", "alloc": "text", "jobs": "int>=0",
                   "makespan": "number>=0?"},
    "platform-level": {"seed": "int>=0", "alloc": "text", "jobs": "int>=0",
                       **dict.fromkeys(PLATFORM_METRICS, "number>=0")},
    "topology-aware": {"policy": "text", "alloc": "text", "qct": "int>=0",
                       "speedup": "number>=0", "jobs": "int>=0", "mean_wait_min": "number>=0",
                       "mean_total_min": "number>=0", "frac_spread": "number>=0"},
}


def platform_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Seed 000 [L3753–L3764]: each value over basic's mean across instances, averaged; per
    platform (``{platform: {alloc: {metric: value}}}``) when the rows name several.

    Parameters
    ----------
    rows : list of dict
        The rows of :func:`platform_cell` (one platform or several).

    Returns
    -------
    dict
        Allocator -> metric -> its mean over basic's (one platform), or platform -> that.
    """
    names = sorted({r.get("platform", "") for r in rows})
    if len(names) > 1:
        return {p: _platform_summary([r for r in rows if r.get("platform", "") == p])
                for p in names}
    return _platform_summary(rows)


def _platform_summary(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    base = {m: np.mean([r[m] for r in rows if r["alloc"] == "basic"]) for m in PLATFORM_METRICS}
    for alloc in PLATFORM_ALLOCS:
        mine = [r for r in rows if r["alloc"] == alloc]
        if mine:
            out[alloc] = {m: float(np.mean([r[m] for r in mine]) / base[m]) if base[m] else
                          float("nan") for m in PLATFORM_METRICS}
            out[alloc]["instances"] = len(mine)
    return out


# -- seed 001: contiguous and quasi-contiguous on k-ary n-trees -------------------------------

TOPO_ALLOCS = (("basic", 0), ("contiguous", 0), ("quasi-contiguous", 10),
               ("quasi-contiguous", 20), ("quasi-contiguous", 30), ("quasi-contiguous", 40))


def kary_for(processors: int, k: int = 4) -> Topology:
    """The smallest k-ary n-tree with at least ``processors`` nodes (seed 001 §2.3).

    Parameters
    ----------
    processors : int
        The machine.
    k : int
        Arity (default 4).

    Returns
    -------
    Topology
        The k-ary n-tree with ``processors`` installed leaves.
    """
    n = 1
    while k**n < processors:
        n += 1
    return kary_ntree(k, n, processors)


#: seed 001 §6 [L103–L105]: the three workloads it names (LLNL is LLNL Thunder [L104]);
#: the whole logs (the record counts it quotes: SDSC's 243,314 is every record of the
#: trace, so no status selection, decision 268)
SEED001_TRACES = {"llnl_thunder": "LLNL-Thunder-2007-1.1-cln.swf.gz",
                  "sdsc_blue": "SDSC-BLUE-2000-4.1-cln.swf.gz",
                  "hpc2n": "HPC2N-2002-2.1-cln.swf.gz"}


def trace_label(trace: str) -> str:
    """The seed's name of a trace file (``sdsc_blue``), else the file name.

    Parameters
    ----------
    trace : str
        A trace path or file name.

    Returns
    -------
    str
        ``llnl_thunder``, ``sdsc_blue``, ``hpc2n``, a Table 5.2 platform, or the file name.
    """
    name = trace.replace("\\", "/").rsplit("/", 1)[-1]
    return next((k for k, v in SEED001_TRACES.items() if v == name), None) \
        or platform_of(trace) or name


def topology_cells(trace: str, speedups: list[float], limit: int = 0,
                   k: int = 4, status: str | None = None,
                   zero_run: str = "keep",
                   blocked_head: str = "kill-advanced") -> list[list[Any]]:
    """The cells (reads the trace once, so a bad trace or tree fails before any cell).

    Parameters
    ----------
    trace : str
        Path of the SWF trace.
    speedups : list of float
        The speed-up grid (percent, seed 001 §5.1).
    limit : int
        Only the first ``limit`` jobs (0: the whole trace, the seed's setting).
    k : int
        Arity of the k-ary n-tree (default 4).
    status : str, optional
        The SWF statuses kept (default every job, decision 268).
    zero_run : {"keep", "drop"}
        Keep or drop the jobs of run time 0 (default keep).
    blocked_head : {"kill-advanced", "wait"}
        EASY's rule when the head's reservation time comes and it cannot be placed: seed
        001 §3's kill of advanced jobs [001 L51–L53] (default, decision 387) or waiting for
        the next end (decision 265).

    Returns
    -------
    list of list
        One cell per scheduler, allocator and speed-up (basic at 0 only): ``[trace, limit,
        k, policy, alloc, qct, speedup]``, then the status when not every job's, and, for
        EASY under ``kill-advanced``, the status (or ``None``) and ``"kill-advanced"``
        (FCFS cells and ``wait`` cells keep the keys they have without the kill rule, so
        stored results stay reachable).
    """
    status = selection(status, zero_run)
    work = load_trace(trace, status)
    kary_for(int(work.processors or work.size.max()), k)
    if blocked_head not in BLOCKED_HEAD:
        raise InvalidInstanceError("blocked_head", blocked_head,
                                   f"must be one of {BLOCKED_HEAD}")
    kept = status if status not in (None, "all") else None
    tail = [kept] if kept is not None else []
    cells = []
    for policy in ("fcfs", "easy"):
        rule = [kept, blocked_head] if policy == "easy" and blocked_head != "wait" else tail
        for alloc, qct in TOPO_ALLOCS:
            for s in ([0.0] if alloc == "basic" else speedups):
                cells.append([trace, limit, k, policy, alloc, qct, float(s), *rule])
    return cells


def topology_cell(cell: list[Any]) -> list[dict[str, Any]]:
    """The row of one topology-aware cell ``[trace, limit, k, policy, alloc, qct, speedup]``
    on the smallest covering k-ary n-tree, validated: mean wait and total time (minutes) and
    the share of jobs spread above their minimal level.

    Parameters
    ----------
    cell : list
        The cell as :func:`topology_cells` built it (its key in the result store).

    Returns
    -------
    list of dict
        One row: ``trace``, ``policy``, ``alloc``, ``qct``, ``speedup``, ``jobs``,
        ``mean_wait_min``, ``mean_total_min``, ``frac_spread``, ``kills`` (advanced jobs
        killed for the head's reservation, decisions 387–388; 0 for FCFS and under
        ``wait``), ``blocked_head`` (EASY's rule; empty for FCFS),
        ``seconds``.
    """
    trace, limit, k, policy, alloc, qct, speedup = cell[:7]
    work = load_trace(trace, cell[7] if len(cell) > 7 else None)
    blocked_head = cell[8] if len(cell) > 8 else "wait"
    if limit:
        work = subset(work, np.arange(min(limit, work.jobs)))
    topo = kary_for(int(work.processors or work.size.max()), k)
    sched, stats = simulate_batch(work, policy, alloc=alloc, topology=topo, qct=qct,
                                  speedup=speedup, blocked_head=blocked_head)
    validate_batch(work, sched, topo.installed, topology=topo, forced=alloc, qct=qct)
    wait = sched.start - work.submit
    total = sched.end - work.submit
    quasi = above_min_level(sched, topo)
    return [{"trace": trace_label(trace), "policy": policy, "alloc": alloc, "qct": qct,
             "speedup": speedup,
             "jobs": work.jobs, "mean_wait_min": float(wait.mean() / 60),
             "mean_total_min": float(total.mean() / 60), "frac_spread": float(np.mean(quasi)),
             "kills": int(stats.get("reservation_kills", 0)),
             "blocked_head": blocked_head if policy == "easy" else "",
             "seconds": stats["seconds"]}]


def topology_summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per scheduler and allocator: wait relative to non-contiguous at ``s = 0`` (Fig. 3)
    and the break-even speed-up: the smallest grid ``s`` whose mean total time is at most
    non-contiguous's (seed 001 §7).

    Parameters
    ----------
    rows : list of dict
        The rows of :func:`topology_cell` for one trace.

    Returns
    -------
    list of dict
        Per scheduler and allocator: ``policy``, ``alloc``, ``rel_wait_at_0`` and
        ``break_even_speedup`` (percent; ``None`` beyond the grid).
    """
    out = []
    for policy in ("fcfs", "easy"):
        base = [r for r in rows if r["policy"] == policy and r["alloc"] == "basic"]
        if not base:
            continue
        b = base[0]
        for alloc, qct in TOPO_ALLOCS[1:]:
            mine = sorted((r for r in rows if r["policy"] == policy and r["alloc"] == alloc
                           and r["qct"] == qct), key=lambda r: r["speedup"])
            if not mine:
                continue
            zero = next((r for r in mine if r["speedup"] == 0), None)
            even = next((r["speedup"] for r in mine
                         if r["mean_total_min"] <= b["mean_total_min"]), None)
            out.append({"policy": policy, "alloc": alloc if alloc == "contiguous"
                        else f"quasi({qct})",
                        "rel_wait_at_0": (zero["mean_wait_min"] / b["mean_wait_min"]
                                          if zero and b["mean_wait_min"] else None),
                        "break_even_speedup": even})
    return out
