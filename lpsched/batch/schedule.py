"""A batch schedule and what is measured on it.

:class:`BatchSchedule` holds, per job, its start, end and processors, as
:func:`lpsched.batch.simulator.simulate_batch` returns it and
:func:`lpsched.batch.validation.validate_batch` checks it. :func:`batch_metrics` measures
it (wait, flow, stretch, bounded slowdown, utilisation, contiguous and local jobs),
:func:`placement_factors` gives seed 000 §4.10's placement factors on a tree and
:func:`above_min_level` the jobs spread above their minimal platform level; all read the
processor sets once, as runs (:meth:`BatchSchedule.runs`), and each job's placement from
them (:mod:`lpsched.batch.placement`). :mod:`lpsched.batch.validation` re-exports the three
measures.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lpsched.batch import placement
from lpsched.batch.allocation import is_contiguous, is_local
from lpsched.batch.procsets import ProcSets, proc_runs
from lpsched.batch.topology import Topology
from lpsched.core.swf import Workload


@dataclass(frozen=True)
class BatchSchedule:
    """A batch schedule: per job (workload order) its start, end and processors.

    ``procs[j]`` is an array of ids (a :class:`~lpsched.batch.procsets.ProcSets` of runs
    under ``basic`` on a line, a list of arrays otherwise); ``failed``: the jobs a
    placement penalty pushed past their estimate; ``killed``: every job stopped at its
    estimate (``failed``, and under ``kill`` the jobs whose run time exceeds it), Batsim's
    ``COMPLETED_WALLTIME_REACHED``.

    :meth:`runs` reads the processor sets as runs once and keeps them (a private cache,
    outside the fields: not compared, not printed, not pickled), for the validation and
    the metrics. The workload simulated and the machine's size are kept the same way
    (:meth:`remember`, which :func:`~lpsched.batch.simulator.simulate_batch` calls), for
    :meth:`to_frame`.

    Notes
    -----
    Decision 481: one reading of the processor sets per schedule.
    """

    start: np.ndarray
    end: np.ndarray
    procs: Sequence[np.ndarray]
    failed: np.ndarray | None = None  # killed by a placement penalty (seed 000 §4.4)
    #: stopped at their estimate: overran it under ``kill`` or failed by a penalty (what
    #: Batsim's ``jobs.csv`` calls ``COMPLETED_WALLTIME_REACHED``)
    killed: np.ndarray | None = None

    def runs(self) -> tuple[ProcSets, np.ndarray]:
        """Read every job's processors as runs of consecutive ids, once.

        :func:`~lpsched.batch.procsets.proc_runs` of :attr:`procs`, with per job whether
        an id repeats, computed on the first call and kept while :attr:`procs` holds the
        same arrays (the same objects: a job whose array is replaced is read again; the
        arrays themselves are not to be written in place, the schedule being frozen).

        Returns
        -------
        tuple of (ProcSets, numpy.ndarray)
            The runs and the per-job repeated-id flags (bool), as :func:`proc_runs`.
        """
        procs = self.procs
        if isinstance(procs, ProcSets):
            return proc_runs(procs)
        cached = self.__dict__.get("_runs")
        if cached is not None and cached[0] is procs and len(cached[1]) == len(procs) \
                and all(map(operator.is_, cached[1], procs)):
            return cached[2]
        value = proc_runs(procs)
        object.__setattr__(self, "_runs", (procs, list(procs), value))
        return value

    def __getstate__(self) -> dict[str, Any]:
        """The fields only (the cache of :meth:`runs` is rebuilt when asked for; the
        workload of :meth:`remember` is not carried: a copy's :meth:`to_frame` takes
        ``work=``)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_runs", "_simulated")}

    def remember(self, work: Workload, processors: int | None = None) -> BatchSchedule:
        """Keep a reference to the workload this schedule is for (and the machine's size),
        so that :meth:`to_frame` needs no argument: outside the fields, as :meth:`runs`'
        cache (not compared, not printed, not pickled or copied).

        Parameters
        ----------
        work : Workload
            The workload simulated, one job per entry of :attr:`start`.
        processors : int, optional
            The machine's size (default ``work.processors``), for the utilisation.

        Returns
        -------
        BatchSchedule
            This schedule.

        Raises
        ------
        ValueError
            ``work`` has another number of jobs than the schedule.
        """
        if work.jobs != self.start.size:
            raise ValueError(f"the workload has {work.jobs} jobs, the schedule "
                             f"{self.start.size}")
        m = work.processors if processors is None else processors
        object.__setattr__(self, "_simulated", (work, None if m is None else int(m)))
        return self

    @property
    def makespan(self) -> float:
        """End of the last job (s, the workload's time origin); 0 for an empty schedule.

        Returns
        -------
        float
            ``max(end)`` in seconds.
        """
        return float(self.end.max()) if self.end.size else 0.0

    def to_frame(self, work: Workload | None = None, bound: float = 10.0,
                 per: str = "job") -> Any:
        """One row per job, in workload order, or one row for the run.

        Parameters
        ----------
        work : Workload, optional
            The workload simulated (its submit, run and estimate times, sizes, job
            numbers); default the one :func:`~lpsched.batch.simulator.simulate_batch`
            kept (:meth:`remember`), needed for a schedule built by hand or unpickled.
        bound : float
            The bounded slowdown's lower bound on the run time (s), as
            :func:`batch_metrics`.
        per : {"job", "run"}
            ``"job"`` (default): one row per job; ``"run"``: one row, the run's metrics.

        Returns
        -------
        pandas.DataFrame
            Per job: ``job`` (SWF job number), ``submit``, ``run``, ``estimate``,
            ``start``, ``end``, ``wait`` (start − submit), ``flow`` (end − submit) in
            seconds; ``size`` (processors); ``bounded_slowdown`` (``max(1, flow /
            max(end − start, bound))``); ``stretch`` (flow over the run time floored at
            1 s, decision 52); ``procs`` (the processor ids, a list); ``contiguous`` (one
            run of consecutive ids); ``failed``, ``killed``. Their means are
            :func:`batch_metrics`' means.
            Per run: ``jobs`` (int), ``processors`` (int, the machine's size: the
            simulator's, else ``work.processors``), then the entries of
            :func:`batch_metrics` (``makespan``,
            ``mean_wait``, ``max_wait``, ``mean_flow`` in s, ``mean_bounded_slowdown``,
            ``utilisation``, ``contiguous_jobs``, ``mean_stretch``), ``failed`` and
            ``killed`` (int, counts).

        Raises
        ------
        ValueError
            No workload (neither ``work`` nor one kept by the simulator), a workload of
            another number of jobs, ``per`` neither ``"job"`` nor ``"run"``, or
            ``per="run"`` with no machine size (the simulator's, or ``work.processors``).

        Examples
        --------
        >>> import numpy as np
        >>> from lpsched.core.swf import Workload
        >>> w = Workload(job=np.array([1, 2]), submit=np.array([0.0, 0.0]),
        ...              run=np.array([10.0, 5.0]), size=np.array([2, 2]),
        ...              estimate=np.array([10.0, 5.0]), processors=2)
        >>> from lpsched.batch.simulator import simulate_batch
        >>> sched, _ = simulate_batch(w, "fcfs")
        >>> df = sched.to_frame()
        >>> df["start"].tolist(), df["wait"].tolist(), df["procs"].tolist()
        ([0.0, 10.0], [0.0, 10.0], [[0, 1], [0, 1]])
        >>> sched.to_frame(per="run")[["jobs", "makespan", "mean_wait", "utilisation"]]
           jobs  makespan  mean_wait  utilisation
        0     2      15.0        5.0          1.0
        """
        from lpsched.core.frames import frame

        if per not in ("job", "run"):
            raise ValueError(f"per={per!r}: BatchSchedule.to_frame() gives one row per "
                             "'job' or per 'run'")
        work, processors = self._workload(work)
        if per == "run":
            return self._run_frame(work, processors, bound)
        flow = self.end - work.submit
        runtime = self.end - self.start
        procs = [np.asarray(p).tolist() for p in self.procs]
        return frame({
            "job": work.job, "submit": work.submit, "run": work.run,
            "estimate": work.estimate, "size": work.size, "start": self.start,
            "end": self.end, "wait": self.start - work.submit, "flow": flow,
            "bounded_slowdown": np.maximum(1.0, flow / np.maximum(runtime, bound)),
            "stretch": flow / np.maximum(runtime, 1.0), "procs": procs,
            "contiguous": np.array([is_contiguous(np.asarray(p)) for p in procs], bool),
            "failed": self._flags(self.failed), "killed": self._flags(self.killed)},
            "BatchSchedule.to_frame()")

    def _flags(self, flags: np.ndarray | None) -> np.ndarray:
        """Per job, ``flags`` as booleans (all false when ``None``)."""
        n = int(self.start.size)
        return np.zeros(n, bool) if flags is None else np.asarray(flags, bool)

    def _workload(self, work: Workload | None) -> tuple[Workload, int | None]:
        """``work`` (with its own size), else the workload :meth:`remember` kept; a
        ``ValueError`` saying what to pass when there is none or it does not fit."""
        if work is None:
            kept = self.__dict__.get("_simulated")
            if kept is None:
                raise ValueError("BatchSchedule.to_frame() needs the workload: this schedule "
                                 "was not made by simulate_batch (or was copied): pass "
                                 "work=")
            return kept
        if work.jobs != self.start.size:
            raise ValueError(f"the workload has {work.jobs} jobs, the schedule "
                             f"{self.start.size}")
        kept = self.__dict__.get("_simulated")
        return work, kept[1] if kept is not None and kept[0] is work else work.processors

    def _run_frame(self, work: Workload, processors: int | None, bound: float) -> Any:
        """:meth:`to_frame`'s one row per run."""
        from lpsched.core.frames import frame

        if processors is None:
            raise ValueError("BatchSchedule.to_frame(per='run') needs the machine's size "
                             "for the utilisation: the workload has no processors (give "
                             "Workload(..., processors=m))")
        processors = int(processors)
        row: dict[str, Any] = {"jobs": int(self.start.size), "processors": processors,
                               **batch_metrics(work, self, processors, bound),
                               "failed": int(self._flags(self.failed).sum()),
                               "killed": int(self._flags(self.killed).sum())}
        return frame({k: [v] for k, v in row.items()}, "BatchSchedule.to_frame(per='run')")


def runs_of(sched: BatchSchedule) -> tuple[ProcSets, np.ndarray]:
    """Read a schedule's processor sets as runs of consecutive ids.

    Parameters
    ----------
    sched : BatchSchedule
        A schedule; any other object with ``procs`` (a sequence of id arrays) is read too.

    Returns
    -------
    tuple of (ProcSets, numpy.ndarray)
        The runs and the per-job repeated-id flags, as
        :func:`~lpsched.batch.procsets.proc_runs`: a :class:`BatchSchedule`'s are read
        once and kept (:meth:`BatchSchedule.runs`), another object's at each call.
    """
    return sched.runs() if isinstance(sched, BatchSchedule) else proc_runs(sched.procs)


def above_min_level(sched: BatchSchedule, topology: Topology) -> np.ndarray:
    """Say, per job, whether it is spread above its minimal platform level.

    ``L_cur > L_min``: seed 001's quasi-contiguous placements, seed 000 §5.3's ``R > 0``;
    a job of no processor never is. Vectorised over the schedule's runs.

    Parameters
    ----------
    sched : BatchSchedule
        A schedule (:func:`~lpsched.batch.simulator.simulate_batch`).
    topology : Topology
        The tree the jobs ran on.

    Returns
    -------
    numpy.ndarray
        Booleans, one per job.
    """
    runs = runs_of(sched)[0]
    sizes = runs.sizes()
    above = placement.levels(runs, topology) > placement.min_levels(sizes, topology)
    return (sizes > 0) & above


def placement_factors(work: Workload, sched: BatchSchedule, topology: Topology,
                      ) -> dict[str, float]:
    """Measure how the jobs were placed on a tree: seed 000 §4.10's placement factors.

    Means over all jobs: the contiguity factor (runs of consecutive ids per job), the
    locality factor (clusters used / ``⌈size/ℓ⌉``), the platform level factor (``L_cur /
    L_min``); and the success rate (share of jobs not killed by a penalty). A job of no
    processor counts as placed ideally.

    Parameters
    ----------
    work : Workload
        The jobs (seed 000 §4.5's rigid jobs: submit, run, size, estimate; SWF job numbers).
    sched : BatchSchedule
        Their schedule (:func:`~lpsched.batch.simulator.simulate_batch`).
    topology : Topology
        The tree the jobs ran on.

    Returns
    -------
    dict
        ``contiguity_factor``, ``locality_factor``, ``platform_level_factor``,
        ``success_rate`` (floats) and ``failed_jobs`` (int).

    Notes
    -----
    Decision 390: a job of no processor has no level and counts as ideally placed.
    """
    failed = sched.failed if sched.failed is not None else np.zeros(work.jobs, bool)
    procs, sizes = sched.procs, work.size
    if len(procs) == work.jobs > 0 and sizes.dtype.kind in "iu" and \
            placement.integral(procs) and not ((sizes <= 0) | (sizes > topology.leaves)).any():
        held, _ = runs_of(sched)
        count = np.diff(held.offsets)
        if (count > 0).all():  # every job holds a processor: the factors job by job,
            # as arrays in job order (the same values and the same np.mean as below)
            least = np.ceil(sizes / topology.cluster_size).astype(np.int64)
            loc_of = placement.clusters_used(held, topology.cluster_size) / least
            lvl_of = (placement.levels(held, topology)
                      / placement.min_levels(sizes, topology))
            return {"contiguity_factor": float(np.mean(count)),
                    "locality_factor": float(np.mean(loc_of)),
                    "platform_level_factor": float(np.mean(lvl_of)),
                    "success_rate": float(1 - failed.mean()),
                    "failed_jobs": int(failed.sum())}
    runs, loc, lvl = [], [], []  # the job-by-job reading (its errors on odd jobs)
    for j, ids in enumerate(procs):
        s = np.sort(ids)
        size = int(work.size[j])
        runs.append(1 + int((np.diff(s) != 1).sum()))
        if not size and not s.size:  # on no processor: placed ideally (decision 390)
            loc.append(1.0)
            lvl.append(1.0)
            continue
        loc.append(topology.clusters_used(s) / topology.min_clusters(size))
        lvl.append(topology.level_of(s) / topology.min_level(size))
    return {"contiguity_factor": float(np.mean(runs)), "locality_factor": float(np.mean(loc)),
            "platform_level_factor": float(np.mean(lvl)),
            "success_rate": float(1 - failed.mean()) if work.jobs else 1.0,
            "failed_jobs": int(failed.sum())}


def batch_metrics(work: Workload, sched: BatchSchedule, processors: int,
                  bound: float = 10.0, cluster_size: int | None = None,
                  topology: Topology | None = None) -> dict[str, float]:
    """Measure a schedule: wait, flow, stretch, bounded slowdown, makespan, utilisation.

    Also the share of contiguous (and, with clusters, local) jobs; with a topology, the
    placement factors of :func:`placement_factors`.

    Parameters
    ----------
    work : Workload
        The jobs (seed 000 §4.5's rigid jobs: submit, run, size, estimate; SWF job numbers).
    sched : BatchSchedule
        Their schedule (:func:`~lpsched.batch.simulator.simulate_batch`).
    processors : int
        The machine (for the utilisation).
    bound : float
        The bounded slowdown's floor on the run time (s; default 10).
    cluster_size : int, optional
        Processors per cluster: adds ``local_jobs``.
    topology : Topology, optional
        Adds :func:`placement_factors`.

    Returns
    -------
    dict
        ``makespan``, ``mean_wait``, ``max_wait``, ``mean_flow`` (s), ``mean_stretch``,
        ``mean_bounded_slowdown``, ``utilisation``, ``contiguous_jobs`` (share), and the
        optional entries above.

    Notes
    -----
    The stretch is the flow over the run time floored at 1 s (decision 52); the bounded
    slowdown ``max(1, flow / max(run time, bound))``.
    """
    if topology is not None:
        cluster_size = topology.cluster_size
    wait = sched.start - work.submit
    flow = sched.end - work.submit
    runtime = sched.end - sched.start
    bsld = np.maximum(1.0, flow / np.maximum(runtime, bound))
    span = sched.makespan - float(work.submit.min()) if work.jobs else 0.0
    util = float((runtime * work.size).sum() / (processors * span)) if span > 0 else 0.0
    out = {"makespan": sched.makespan, "mean_wait": float(wait.mean()),
           "max_wait": float(wait.max()), "mean_flow": float(flow.mean()),
           "mean_bounded_slowdown": float(bsld.mean()), "utilisation": util,
           "contiguous_jobs": placement.contiguous_share(runs_of(sched)[0])}
    # stretch = flow / run time, run times floored at 1 s (decision 52)
    out["mean_stretch"] = float((flow / np.maximum(runtime, 1.0)).mean()) if work.jobs \
        else 0.0
    if cluster_size:
        procs = sched.procs
        if int(cluster_size) > 0 and len(procs) and placement.integral(procs):
            local = placement.local(runs_of(sched)[0], int(cluster_size))
            out["local_jobs"] = float(np.mean(local))
        else:  # the job-by-job reading
            out["local_jobs"] = float(np.mean([is_local(p, cluster_size) for p in procs]))
    if topology is not None:
        out.update(placement_factors(work, sched, topology))
    return out
