"""A batch schedule (:class:`BatchSchedule`): per job its start, end and processors, as
:func:`lpsched.batch.simulator.simulate_batch` returns it and
:func:`lpsched.batch.validation.validate_batch` checks it."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lpsched.batch.procsets import ProcSets, proc_runs
from lpsched.core.swf import Workload


@dataclass(frozen=True)
class BatchSchedule:
    """Per job (workload order): start, end, and its processors (``procs[j]``, an array of
    ids; a :class:`~lpsched.batch.procsets.ProcSets` of runs under ``basic`` on a line, a
    list of arrays otherwise); ``failed``: the jobs a placement penalty pushed past their
    estimate; ``killed``: every job stopped at its estimate (``failed``, and under ``kill``
    the jobs whose run time exceeds it), Batsim's ``COMPLETED_WALLTIME_REACHED``.

    :meth:`runs` reads the processor sets as runs once and keeps them (a private cache,
    outside the fields: not compared, not printed, not pickled), for the validation and
    the metrics (issue 29, decision 481)."""

    start: np.ndarray
    end: np.ndarray
    procs: Sequence[np.ndarray]
    failed: np.ndarray | None = None  # killed by a placement penalty (seed 000 §4.4)
    #: stopped at their estimate: overran it under ``kill`` or failed by a penalty (what
    #: Batsim's ``jobs.csv`` calls ``COMPLETED_WALLTIME_REACHED``)
    killed: np.ndarray | None = None

    def runs(self) -> tuple[ProcSets, np.ndarray]:
        """Every job's processors as runs of consecutive ids, and per job whether an id
        repeats: :func:`~lpsched.batch.procsets.proc_runs` of :attr:`procs`, computed on
        the first call and kept while :attr:`procs` holds the same arrays (the same
        objects: a job whose array is replaced is read again; the arrays themselves are
        not to be written in place, the schedule being frozen).

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
        """The fields only (the cache of :meth:`runs` is rebuilt when asked for)."""
        return {k: v for k, v in self.__dict__.items() if k != "_runs"}

    @property
    def makespan(self) -> float:
        """End of the last job (s, the workload's time origin); 0 for an empty schedule.

        Returns
        -------
        float
            ``max(end)`` in seconds.
        """
        return float(self.end.max()) if self.end.size else 0.0

    def to_frame(self, work: Workload, bound: float = 10.0) -> Any:
        """One row per job, in workload order (issue 33 item 4).

        Parameters
        ----------
        work : Workload
            The workload simulated (its submit, run and estimate times, sizes, job numbers).
        bound : float
            The bounded slowdown's lower bound on the run time (s), as
            :func:`batch_metrics`.

        Returns
        -------
        pandas.DataFrame
            ``job`` (SWF job number), ``submit``, ``run``, ``estimate``, ``start``, ``end``,
            ``wait`` (start − submit), ``flow`` (end − submit) in seconds; ``size``
            (processors); ``bounded_slowdown`` (``max(1, flow / max(end − start,
            bound))``); ``stretch`` (flow over the run time floored at 1 s, decision 52);
            ``procs`` (the processor ids, a list); ``contiguous`` (one run of consecutive
            ids); ``failed``, ``killed``. Their means are :func:`batch_metrics`' means.

        Examples
        --------
        >>> import numpy as np
        >>> from lpsched.core.swf import Workload
        >>> w = Workload(job=np.array([1, 2]), submit=np.array([0.0, 0.0]),
        ...              run=np.array([10.0, 5.0]), size=np.array([2, 2]),
        ...              estimate=np.array([10.0, 5.0]), processors=2)
        >>> from lpsched.batch.simulator import simulate_batch
        >>> sched, _ = simulate_batch(w, "fcfs")
        >>> df = sched.to_frame(w)
        >>> df["start"].tolist(), df["wait"].tolist(), df["procs"].tolist()
        ([0.0, 10.0], [0.0, 10.0], [[0, 1], [0, 1]])
        """
        from lpsched.batch.allocation import is_contiguous
        from lpsched.core.frames import frame

        flow = self.end - work.submit
        runtime = self.end - self.start
        n = int(self.start.size)
        none = np.zeros(n, bool)
        procs = [np.asarray(p).tolist() for p in self.procs]
        return frame({
            "job": work.job, "submit": work.submit, "run": work.run,
            "estimate": work.estimate, "size": work.size, "start": self.start,
            "end": self.end, "wait": self.start - work.submit, "flow": flow,
            "bounded_slowdown": np.maximum(1.0, flow / np.maximum(runtime, bound)),
            "stretch": flow / np.maximum(runtime, 1.0), "procs": procs,
            "contiguous": np.array([is_contiguous(np.asarray(p)) for p in procs], bool),
            "failed": none if self.failed is None else np.asarray(self.failed, bool),
            "killed": none if self.killed is None else np.asarray(self.killed, bool)},
            "BatchSchedule.to_frame()")
