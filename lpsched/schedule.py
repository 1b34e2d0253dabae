"""Concrete schedules on a star platform, their independent validation and their metrics.

One representation for every producer (LP reconstruction, simulator, heuristics): task ``i``
of application ``app[i]`` is sent by the master to worker ``worker[i]`` during
``[send_start[i], send_end[i]]`` and computed there during ``[start[i], end[i]]``.

:func:`validate` knows nothing of who produced a schedule; it checks the rules of seed 003
§2.1 under the one-port or bounded-multiport model with atomic computation and raises
:class:`~lpsched.errors.InvalidScheduleError` with the first violation:

``counts``     every task of every application executed exactly once;
``release``    no send starts before its application's release date;
``transfer``   a send lasts at least ``δ/b_u`` (exactly that under one-port);
``duration``   a computation lasts exactly ``w/s_u`` (atomic, no preemption);
``data``       a computation starts only once its data has arrived;
``worker``     a worker computes one task at a time;
``one-port``   the master sends one message at a time;
``link`` / ``master``  bounded multiport: at every instant the rates ``δ/duration`` of the
               active sends fit ``b_u`` on each link and ``BW`` at the master.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpsched.algorithms.steady_state import dedicated_makespans
from lpsched.errors import InvalidScheduleError
from lpsched.instances.bags import Instance

#: Relative tolerance of the time comparisons in :func:`validate`.
TIME_TOL = 1e-9


@dataclass(frozen=True)
class Schedule:
    """Arrays of equal length, one entry per task (see module doc); ``meta`` is free-form."""

    app: np.ndarray
    worker: np.ndarray
    send_start: np.ndarray
    send_end: np.ndarray
    start: np.ndarray
    end: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        arrays = {name: np.asarray(getattr(self, name)) for name in
                  ("app", "worker", "send_start", "send_end", "start", "end")}
        sizes = {a.shape for a in arrays.values()}
        if len(sizes) != 1 or next(iter(sizes)).__len__() != 1:
            raise InvalidScheduleError("shape", f"arrays must be 1-D of one length, got {sizes}")
        for name, arr in arrays.items():
            kind = int if name in ("app", "worker") else float
            object.__setattr__(self, name, arr.astype(kind, copy=False))

    @property
    def size(self) -> int:
        return int(self.app.size)

    def completion(self, n: int) -> np.ndarray:
        """``C_k``: end of the last computation of each application (``nan`` if none)."""
        out = np.full(n, np.nan)
        if self.size:
            np.fmax.at(out, self.app, self.end)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name).tolist() for name in
                ("app", "worker", "send_start", "send_end", "start", "end")}


def _scale(inst: Instance) -> float:
    return TIME_TOL * max(1.0, float(np.abs(inst.release).max()),
                          float((inst.tasks[:, None] * (inst.comp_time + inst.comm_time)).sum()))


def _first(mask: np.ndarray) -> int | None:
    hit = np.flatnonzero(mask)
    return int(hit[0]) if hit.size else None


def _fail(rule: str, mask: np.ndarray, message: str, order: np.ndarray | None = None) -> None:
    i = _first(mask)
    if i is not None:
        task = int(order[i]) if order is not None else i
        raise InvalidScheduleError(rule, f"task {task}: {message}", task)


def validate(inst: Instance, sched: Schedule, port: str | None = None) -> None:
    """Raise :class:`InvalidScheduleError` at the first broken rule (module doc), else return.

    ``port`` overrides the instance's communication model. O(N log N) for N tasks.
    """
    port = port or inst.platform.port
    tol = _scale(inst)
    n, p = inst.n, inst.p
    app, w = sched.app, sched.worker
    if sched.size and ((app < 0).any() or (app >= n).any() or (w < 0).any() or (w >= p).any()):
        raise InvalidScheduleError("shape", "application or worker index out of range")
    times = np.stack([sched.send_start, sched.send_end, sched.start, sched.end])
    if not np.isfinite(times).all():
        raise InvalidScheduleError("shape", "times must be finite")
    counts = np.bincount(app, minlength=n)
    bad = counts != inst.tasks.astype(int)
    if bad.any():
        k = int(np.argmax(bad))
        raise InvalidScheduleError("counts", f"application {k} has {counts[k]} tasks executed, "
                                   f"expected {int(inst.tasks[k])}")
    _fail("release", sched.send_start < inst.release[app] - tol, "sent before its release")
    comm = np.asarray(inst.comm_time)[app, w]
    comp = np.asarray(inst.comp_time)[app, w]
    length = sched.send_end - sched.send_start
    if port == "one-port":
        _fail("transfer", np.abs(length - comm) > tol + TIME_TOL * comm,
              "a one-port send lasts exactly δ/b_u")
    else:
        _fail("transfer", length < comm - tol - TIME_TOL * comm, "sent faster than its link")
    _fail("duration", np.abs(sched.end - sched.start - comp) > tol + TIME_TOL * comp,
          "an atomic computation lasts exactly w/s_u")
    _fail("data", sched.start < sched.send_end - tol, "computed before its data arrived")
    order = np.lexsort((sched.start, w))
    same = w[order][1:] == w[order][:-1]
    overlap = sched.start[order][1:] < sched.end[order][:-1] - tol
    _fail("worker", same & overlap, "its worker is still computing another task",
          order[1:])
    if port == "one-port":
        order = np.argsort(sched.send_start, kind="stable")
        _fail("one-port", sched.send_start[order][1:] < sched.send_end[order][:-1] - tol,
              "the master is still sending another message", order[1:])
        return
    _multiport(inst, sched, tol)


def _multiport(inst: Instance, sched: Schedule, tol: float) -> None:
    """Sweep over send boundaries: per-link and master rates of the active sends."""
    if not sched.size:
        return
    rate = inst.size[sched.app] / np.maximum(sched.send_end - sched.send_start, tol)
    time = np.concatenate([sched.send_start, sched.send_end - tol])
    delta = np.concatenate([rate, -rate])
    task = np.concatenate([np.arange(sched.size)] * 2)
    link = sched.worker[task]
    slack = 1 + 1e-9
    # per link: events by (link, time), ends before starts at one instant; running sums
    order = np.lexsort((delta, time, link))
    run = np.cumsum(delta[order])
    first = np.r_[True, link[order][1:] != link[order][:-1]]
    group_start = np.maximum.accumulate(np.where(first, np.arange(order.size), 0))
    load = run - np.where(group_start > 0, run[group_start - 1], 0.0)
    over = load > inst.platform.bandwidths[link[order]] * slack
    _fail("link", over & (delta[order] > 0), "its link carries more than b_u",
          task[order])
    order = np.lexsort((delta, time))
    total = np.cumsum(delta[order])
    _fail("master", (total > inst.platform.master_bandwidth * slack) & (delta[order] > 0),
          "the master sends more than BW", task[order])


@dataclass(frozen=True)
class Metrics:
    """Per-application completion, flow and stretch, and the five objectives of seed 003
    Tables 4–8 (stretch relative to ``MS*`` of the port model)."""

    completion: np.ndarray
    flow: np.ndarray
    stretch: np.ndarray
    max_stretch: float
    sum_stretch: float
    makespan: float
    max_flow: float
    sum_flow: float

    def to_dict(self) -> dict[str, Any]:
        return {"max_stretch": self.max_stretch, "sum_stretch": self.sum_stretch,
                "makespan": self.makespan, "max_flow": self.max_flow,
                "sum_flow": self.sum_flow, "stretch": self.stretch.tolist()}


def metrics(inst: Instance, sched: Schedule, port: str | None = None) -> Metrics:
    """Stretch ``(C_k − r_k)/MS*_k`` with ``MS*`` of ``port`` (default: the platform's),
    flow ``C_k − r_k``, makespan ``max C_k`` (absolute time, decision A30)."""
    completion = sched.completion(inst.n)
    flow = completion - inst.release
    stretch = flow / dedicated_makespans(inst, port)
    return Metrics(completion, flow, stretch, float(stretch.max()), float(stretch.sum()),
                   float(completion.max()), float(flow.max()), float(flow.sum()))
