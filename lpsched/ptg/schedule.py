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
        """``C_i = max_{v ∈ V_i} finish(v)``, measured from 0 (spec §2.1, DECIDE-4)."""
        out = np.zeros(n_ptgs)
        np.maximum.at(out, self.owner, self.end)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The schedule as a dict: ``start``, ``end``, ``alloc`` and ``owner`` (numpy arrays,
        which ``dump_json`` writes as lists) and ``procs``, the processor ids of each task;
        ``order`` and ``info`` are left out."""
        return {"start": self.start, "end": self.end, "alloc": self.alloc,
                "owner": self.owner, "procs": [p.tolist() for p in self.procs]}


def validate(sched: PtgSchedule, ptgs: list[PTG], cluster: Cluster) -> None:
    """Raise :class:`InvalidScheduleError` at the first violation (spec §(b).6).

    Checks the task count, ``start >= 0``, allocation sizes (real tasks ``1..P``, dummies
    0), distinct processor ids in ``0..P−1``, durations ``T(v, p_v)`` from the Amdahl model,
    precedence, per-processor disjointness, and the processor count at every start instant.
    O(n log n + n·P)."""
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
    for i, g in enumerate(ptgs):
        _check_ptg(sched, g, offsets[i], cluster, tol)
    _check_processors(sched, P, tol)


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
        (:meth:`~lpsched.ptg.registry.RunResult.to_dict`)."""
        return {"makespan": self.makespan, "scaled_sum_completion": self.scaled_sum_completion,
                "max_stretch": self.max_stretch, "unfairness": self.unfairness,
                "utilisation": self.utilisation, "completion": self.completion,
                "alone": self.alone, "stretch": self.stretch}


def metrics(sched: PtgSchedule, alone: np.ndarray, processors: int) -> Metrics:
    """SSCT ``Σ C_i / Σ C*_i`` (§2.2), ``Cmax = max C_i`` (§2.3), stretch ``C_i/C*_i`` and
    ``MaxS`` (§2.4, DECIDE-29: not inverted), utilisation ``Σ p_v T(v, p_v) / (P·Cmax)``
    (§2.5, DECIDE-5: busy fraction). ``alone[i]`` is ``C*_i``. O(n)."""
    c = sched.completion(len(alone))
    cmax = float(c.max())
    stretch = c / alone
    area = float((sched.alloc * (sched.end - sched.start)).sum())
    return Metrics(c, np.asarray(alone, float), cmax, float(c.sum() / alone.sum()), stretch,
                   float(stretch.max()), area / (processors * cmax) if cmax > 0 else 1.0)
