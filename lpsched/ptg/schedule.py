"""One schedule type for every algorithm of seed 004, its independent validator and the
metrics of §2 (spec §2.1–§2.5).

A :class:`PtgSchedule` holds, for every task of every PTG (the flat numbering of
:func:`lpsched.ptg.model.flatten`), its start, end, allocation and processor set.
:func:`validate` re-derives everything it checks from the :class:`~lpsched.ptg.model.PTG`
objects and the cluster (never from the producer's arrays of times): Amdahl durations,
precedence, allocation sizes in ``1..P`` (0 for dummy tasks), distinct processor ids, no
processor running two tasks at once, and at most ``P`` processors busy at any instant.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpsched.errors import InvalidScheduleError
from lpsched.ptg.model import PTG, Cluster

_REL = 1e-9
TIME_ATOL = 1e-9  # seconds: times here are O(1..1e4) s


@dataclass
class PtgSchedule:
    """Tasks of all PTGs: ``start``, ``end``, ``alloc`` (processors) and ``procs`` (ids)
    per flat task; ``owner`` is the PTG index; ``order`` the mapping order (for BACKFILL)."""

    start: np.ndarray
    end: np.ndarray
    alloc: np.ndarray
    procs: list[np.ndarray]
    owner: np.ndarray
    order: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def makespan(self) -> float:
        """``Cmax``: end of the last task (s); 0 for an empty schedule."""
        return float(self.end.max()) if self.end.size else 0.0

    def completion(self, n_ptgs: int) -> np.ndarray:
        """``C_i = max_{v ∈ V_i} finish(v)``, measured from 0 (spec §2.1, DECIDE-4).

        Parameters
        ----------
        n_ptgs : int
            ``N``, the number of PTGs (``owner`` takes values ``0..N−1``).

        Returns
        -------
        numpy.ndarray
            Each PTG's completion time (s), shape ``(N,)``.
        """
        out = np.zeros(n_ptgs)
        np.maximum.at(out, self.owner, self.end)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The schedule as a dict: ``start``, ``end``, ``alloc`` and ``owner`` (numpy arrays,
        which ``dump_json`` writes as lists) and ``procs``, the processor ids of each task;
        ``order`` and ``info`` are left out.

        Returns
        -------
        dict
            The JSON-ready form (times in s).
        """
        return {"start": self.start, "end": self.end, "alloc": self.alloc,
                "owner": self.owner, "procs": [p.tolist() for p in self.procs]}

    def to_frame(self) -> Any:
        """The schedule as a pandas DataFrame, one row per task (``pip install
        'lpsched[pandas]'`` when pandas is missing).

        Returns
        -------
        pandas.DataFrame
            Rows in the flat task order (PTG after PTG); columns ``task`` (int, flat
            index), ``ptg`` (int, ``owner``), ``vertex`` (int, index of the task inside its
            PTG), ``start``, ``end`` (s), ``alloc`` (int, processors), ``procs`` (list of
            int, the processor ids) and ``rank`` (int, position in the mapping order
            ``order`` that BACKFILL follows; -1 for a task not in it).

        Examples
        --------
        >>> from lpsched.ptg.generators import fft_ptg
        >>> from lpsched.ptg.model import get_cluster
        >>> from lpsched.ptg.problem import Problem
        >>> from lpsched.ptg.registry import run
        >>> pb = Problem([fft_ptg(4, seed=1), fft_ptg(4, seed=2)], get_cluster("chti"))
        >>> sched = run(pb, "selfish").schedule
        >>> tasks = sched.to_frame()
        >>> list(tasks.columns)
        ['task', 'ptg', 'vertex', 'start', 'end', 'alloc', 'procs', 'rank']
        >>> float(tasks["end"].max()) == sched.makespan
        True
        >>> bool((tasks["procs"].map(len) == tasks["alloc"]).all())
        True
        """
        from lpsched.core.frames import frame

        n = int(self.start.size)
        owner = np.asarray(self.owner, int)
        first = np.full(int(owner.max()) + 1 if n else 0, n)
        np.minimum.at(first, owner, np.arange(n))
        rank = np.full(n, -1)
        order = np.asarray(self.order, int)
        rank[order] = np.arange(order.size)
        return frame({"task": np.arange(n), "ptg": owner, "vertex": np.arange(n) - first[owner],
                      "start": self.start, "end": self.end, "alloc": self.alloc,
                      "procs": [np.asarray(p).tolist() for p in self.procs], "rank": rank},
                     "PtgSchedule.to_frame()")


def validate(sched: PtgSchedule, ptgs: list[PTG], cluster: Cluster) -> None:
    """Raise :class:`InvalidScheduleError` at the first violation (spec §(b).6).

    Checks the task count, ``start >= 0``, allocation sizes (real tasks ``1..P``, dummies
    0), distinct processor ids in ``0..P−1``, durations ``T(v, p_v)`` from the Amdahl model,
    precedence, per-processor disjointness, and the processor count at every start instant.
    O(n log n + n·P).

    Parameters
    ----------
    sched : PtgSchedule
        The schedule of every task of ``ptgs`` (flat order).
    ptgs : list of PTG
        The PTGs it schedules (the durations are recomputed from them, independently).
    cluster : Cluster
        The cluster (``P`` and the speed).
    """
    sizes = [g.n for g in ptgs]
    n, P = int(sum(sizes)), cluster.processors
    if sched.start.size != n or sched.end.size != n or len(sched.procs) != n:
        raise InvalidScheduleError("tasks", f"{sched.start.size} tasks scheduled, {n} expected")
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    scale = max(1.0, float(np.abs(sched.end).max()) if n else 1.0)
    tol = TIME_ATOL + _REL * scale
    if (sched.start < -tol).any():
        raise InvalidScheduleError("start", "a task starts before time 0",
                                   int(np.argmax(sched.start < -tol)))
    if _all_hold(sched, ptgs, offsets, cluster, tol):
        return  # every check below holds: the loops would find nothing (decision 642)
    for i, g in enumerate(ptgs):
        _check_ptg(sched, g, offsets[i], cluster, tol)
    _check_processors(sched, P, tol)


def _all_hold(sched: PtgSchedule, ptgs: list[PTG], offsets: np.ndarray, cluster: Cluster,
              tol: float) -> bool:
    """Whether every check of :func:`_check_ptg` and :func:`_check_processors` holds, the
    same comparisons on the same values, on whole arrays: True means the loops would raise
    nothing; False sends :func:`validate` to the loops, which name the first violation.
    O(n log n + n·P + m·n) for ``m`` start instants."""
    P = cluster.processors
    if not ptgs:
        return False
    ids = [np.asarray(x) for x in sched.procs]
    if any(x.ndim != 1 or (x.size and x.dtype.kind not in "iu") for x in ids):
        return False
    a = np.asarray(sched.alloc)
    if a.dtype.kind not in "iu" or not (np.isfinite(sched.start).all()
                                        and np.isfinite(sched.end).all()):
        return False
    size = np.array([x.size for x in ids])
    dummy = np.concatenate([g.dummy for g in ptgs])
    if (dummy & ((a != 0) | (size != 0))).any() or (~dummy & ((a < 1) | (a > P))).any() \
            or (size != a).any():
        return False
    flat = np.concatenate([x.astype(np.int64) for x in ids]) if ids else np.zeros(0, np.int64)
    if flat.size and ((flat < 0).any() or (flat >= P).any()):
        return False
    task = np.repeat(np.arange(size.size), size)
    key = np.sort(task * P + flat)
    if (key[1:] == key[:-1]).any():  # a processor twice in one task
        return False
    want = np.concatenate([g.work / cluster.speed for g in ptgs]) * (
        np.concatenate([g.alpha for g in ptgs])
        + (1.0 - np.concatenate([g.alpha for g in ptgs])) / np.maximum(a, 1).astype(float))
    if (np.abs((sched.end - sched.start) - want) > tol + _REL * want).any():
        return False
    edges = np.concatenate([g.edges.reshape(-1, 2) + off for g, off in zip(ptgs, offsets[:-1],
                                                                           strict=True)])
    if (sched.start[edges[:, 1]] < sched.end[edges[:, 0]] - tol).any():
        return False
    real = sched.end - sched.start > tol
    q, k = flat[real[task]], task[real[task]]
    s, e = sched.start[k], sched.end[k]
    o = np.lexsort((k, e, s, q))  # each processor's spans in the loop's sort order
    q, s, e = q[o], s[o], e[o]
    if ((q[1:] == q[:-1]) & (s[1:] < e[:-1] - tol)).any():
        return False
    t = np.unique(sched.start[real])[:, None] + tol
    busy = real & (sched.start <= t) & (sched.end > t)
    return bool(((busy * a).sum(axis=1) <= P).all())


def _check_ptg(sched: PtgSchedule, g: PTG, off: int, cluster: Cluster, tol: float) -> None:
    P = cluster.processors
    for v in range(g.n):
        k = off + v
        ids = np.asarray(sched.procs[k])
        a = int(sched.alloc[k])
        if g.dummy[v]:
            if a != 0 or ids.size:
                raise InvalidScheduleError("allocation", f"dummy task {g.ids[v]} holds "
                                           "processors", k)
        elif not 1 <= a <= P or ids.size != a or np.unique(ids).size != a \
                or (ids < 0).any() or (ids >= P).any():
            raise InvalidScheduleError("allocation", f"task {g.ids[v]} of PTG {g.name!r} "
                                       f"has allocation {a} on processors {ids.tolist()[:8]}", k)
        want = float(g.times(cluster.speed, max(a, 1))[v])
        dur = float(sched.end[k] - sched.start[k])
        if abs(dur - want) > tol + _REL * want:
            raise InvalidScheduleError("duration", f"task {g.ids[v]} runs {dur:.9g} s, the "
                                       f"Amdahl time on {a} processors is {want:.9g} s", k)
        for u in g.preds[v]:
            if sched.start[k] < sched.end[off + u] - tol:
                raise InvalidScheduleError("precedence", f"task {g.ids[v]} starts at "
                                           f"{sched.start[k]:.9g} before its predecessor "
                                           f"{g.ids[u]} ends ({sched.end[off + u]:.9g})", k)


def _check_processors(sched: PtgSchedule, P: int, tol: float) -> None:
    spans: list[list[tuple[float, float, int]]] = [[] for _ in range(P)]
    for k, ids in enumerate(sched.procs):
        if sched.end[k] - sched.start[k] <= tol:
            continue
        for q in np.asarray(ids).tolist():
            spans[q].append((float(sched.start[k]), float(sched.end[k]), k))
    for q, lst in enumerate(spans):
        lst.sort()
        for (_s, e, a), (s2, _e, b) in itertools.pairwise(lst):
            if s2 < e - tol:
                raise InvalidScheduleError("capacity", f"processor {q} runs tasks {a} and "
                                           f"{b} at once", b)
    real = sched.end - sched.start > tol
    for t in np.unique(sched.start[real]):
        busy = real & (sched.start <= t + tol) & (sched.end > t + tol)
        if int(sched.alloc[busy].sum()) > P:
            raise InvalidScheduleError("capacity", f"{int(sched.alloc[busy].sum())} "
                                       f"processors busy at {t:.9g} > P = {P}")


@dataclass(frozen=True)
class Metrics:
    """The metrics of seed 004 §2 for one schedule."""

    completion: np.ndarray
    alone: np.ndarray
    makespan: float
    scaled_sum_completion: float
    stretch: np.ndarray
    max_stretch: float
    utilisation: float

    @property
    def unfairness(self) -> float:
        """The unfairness metric adopted by the paper is the maximum stretch (§2.4)."""
        return self.max_stretch

    def to_dict(self) -> dict[str, Any]:
        """The metrics by name (per-PTG ``completion``, ``alone`` and ``stretch`` as numpy
        arrays): merged into each algorithm's row of ``lpsched ptg schedule --json``
        (:meth:`~lpsched.ptg.registry.RunResult.to_dict`).

        Returns
        -------
        dict
            ``makespan`` (s), ``scaled_sum_completion``, ``max_stretch``, ``unfairness``
            (the same value, §2.4), ``utilisation``, and per PTG ``completion``,
            ``alone`` (s) and ``stretch``.
        """
        return {"makespan": self.makespan, "scaled_sum_completion": self.scaled_sum_completion,
                "max_stretch": self.max_stretch, "unfairness": self.unfairness,
                "utilisation": self.utilisation, "completion": self.completion,
                "alone": self.alone, "stretch": self.stretch}

    def to_frame(self) -> Any:
        """The per-PTG metrics as a pandas DataFrame, one row per PTG (``pip install
        'lpsched[pandas]'`` when pandas is missing); the schedule-wide ones (makespan,
        SSCT, utilisation) are :meth:`to_dict`'s.

        Returns
        -------
        pandas.DataFrame
            Columns ``ptg`` (int), ``completion`` (s, ``C_i``), ``alone`` (s, ``C*_i``,
            the PTG alone on the cluster) and ``stretch`` (1, ``C_i / C*_i``, seed 004
            §2.4).

        Examples
        --------
        >>> import numpy as np
        >>> m = Metrics(np.array([4.0, 6.0]), np.array([2.0, 6.0]), 6.0, 10 / 8,
        ...             np.array([2.0, 1.0]), 2.0, 0.5)
        >>> m.to_frame()
           ptg  completion  alone  stretch
        0    0         4.0    2.0      2.0
        1    1         6.0    6.0      1.0
        """
        from lpsched.core.frames import frame

        return frame({"ptg": np.arange(len(self.completion)), "completion": self.completion,
                      "alone": self.alone, "stretch": self.stretch}, "Metrics.to_frame()")


def metrics(sched: PtgSchedule, alone: np.ndarray, processors: int) -> Metrics:
    """SSCT ``Σ C_i / Σ C*_i`` (§2.2), ``Cmax = max C_i`` (§2.3), stretch ``C_i/C*_i`` and ``MaxS``
    (§2.4, DECIDE-29: not inverted), utilisation ``Σ p_v T(v, p_v) / (P·Cmax)`` (§2.5, DECIDE-5:
    busy fraction). ``alone[i]`` is ``C*_i``.

    O(n).

    Parameters
    ----------
    sched : PtgSchedule
        The schedule.
    alone : numpy.ndarray
        ``C*_i``, each PTG's makespan alone on the cluster (s).
    processors : int
        ``P``.

    Returns
    -------
    Metrics
        The schedule's metrics of seed 004 §2.
    """
    c = sched.completion(len(alone))
    cmax = float(c.max())
    stretch = c / alone
    area = float((sched.alloc * (sched.end - sched.start)).sum())
    return Metrics(c, np.asarray(alone, float), cmax, float(c.sum() / alone.sum()), stretch,
                   float(stretch.max()), area / (processors * cmax) if cmax > 0 else 1.0)


#: the readings of Table 2's utilisation that :func:`utilisation_readings` computes
UTILISATION_READINGS = ("makespan", "processor_span", "used_processors", "start_instants")


def utilisation_readings(sched: PtgSchedule, processors: int) -> dict[str, float]:
    """Cluster utilisation of one schedule under each reading of seed 004 §5.2.6
    [L729-731] ("the number of idle processors at a given instant, averaged over the
    overall makespan"; the values of Table 2 are busy fractions, spec DECIDE-5).

    * ``makespan`` — busy area over ``P·Cmax``: the time average over ``[0, Cmax]`` of the
      busy fraction (DECIDE-5, :func:`metrics`);
    * ``processor_span`` — busy area over the sum, over the processors that run some task,
      of the span from their first start to their last end: the idle periods of each
      processor before its first task and after its last one are left out;
    * ``used_processors`` — the share of the ``P`` processors that run at least one task
      (a processor idle over the whole makespan counts as idle);
    * ``start_instants`` — the busy fraction sampled at every distinct task start and
      averaged over those instants, not over time.

    Parameters
    ----------
    sched : PtgSchedule
        A schedule (processor ids in ``sched.procs``).
    processors : int
        ``P``, the processors of the cluster.

    Returns
    -------
    dict of str to float
        One value in ``[0, 1]`` per name of :data:`UTILISATION_READINGS` (1 for an
        empty schedule). O(n·P + n²).

    Examples
    --------
    Two tasks on a 2-processor cluster: one on both processors over [0, 1], one on
    processor 0 over [1, 3]. Area 4; ``P·Cmax`` 6; processor 0 spans [0, 3] and processor
    1 spans [0, 1]; both processors are used; at the two starts 2 then 1 processors are
    busy:

    >>> import numpy as np
    >>> s = PtgSchedule(np.array([0.0, 1.0]), np.array([1.0, 3.0]), np.array([2, 1]),
    ...                 [np.array([0, 1]), np.array([0])], np.zeros(2, int), np.arange(2))
    >>> {k: round(v, 4) for k, v in utilisation_readings(s, 2).items()}
    {'makespan': 0.6667, 'processor_span': 1.0, 'used_processors': 1.0, 'start_instants': 0.75}
    """
    dur = sched.end - sched.start
    real = (dur > 0) & (sched.alloc > 0)
    if not real.any():
        return dict.fromkeys(UTILISATION_READINGS, 1.0)
    area = float((sched.alloc[real] * dur[real]).sum())
    cmax = float(sched.end[real].max())
    first = np.full(processors, np.inf)
    last = np.full(processors, -np.inf)
    for k in np.flatnonzero(real):
        ids = np.asarray(sched.procs[k], dtype=int)
        first[ids] = np.minimum(first[ids], sched.start[k])
        last[ids] = np.maximum(last[ids], sched.end[k])
    used = np.isfinite(first)
    starts = np.unique(sched.start[real])
    busy = [(sched.alloc[real & (sched.start <= t) & (sched.end > t)]).sum() for t in starts]
    return {"makespan": area / (processors * cmax),
            "processor_span": area / float((last[used] - first[used]).sum()),
            "used_processors": float(used.sum()) / processors,
            "start_instants": float(np.mean(busy)) / processors}
