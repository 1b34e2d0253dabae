"""Event-driven simulation of the online policies of seed 000 ch. 3 on
:class:`lpsched.core.engine.Engine`.

Within one instant, completions (priority 0) run before arrivals (priority 1, in release
then index order), and idle processors take work last (priority 2, "settle"): a processor
that frees up at ``t`` chooses among every task known at ``t``. Common-queue policies keep
one heap per pool; immediate-dispatch policies keep one heap per processor and, for the ΔF
rule, per-processor sums and counts of the queued processing times in a Fenwick tree over
the ranks of ``p`` (one row gather per arrival: ``O(m log n)`` vectorised, never a Python
loop over a queue). Preempted SRPT tasks (remaining times are not among the ranks) and
tasks queued on an idle processor with an empty queue (they start at the instant's settle,
so the tree is not touched for them) wait in a small side array that the ΔF rule also
reads with one ``bincount``.

>>> from lpsched.tasks.instance import TaskInstance
>>> inst = TaskInstance(1, [0.0, 1.0], [4.0, 1.0])
>>> simulate(inst, get_policy("srpt")).completion.tolist()
[5.0, 2.0]
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from lpsched.core.engine import Engine
from lpsched.tasks.instance import BOUND_B, TaskInstance
from lpsched.tasks.policies import OnlinePolicy, get_policy
from lpsched.tasks.schedule import (
    COMPLETE,
    INTERRUPTED,
    PREEMPTED,
    TaskSchedule,
    metrics,
    schedule_counts,
    validate_schedule,
)

__all__ = ["OnlineResult", "evaluate", "get_policy", "simulate"]


class _Fenwick:
    """Sums and counts of queued processing times per processor (column pairs), indexed by
    the rank of ``p`` among the instance's distinct values (rows). The row paths of every
    rank are precomputed, so an update or a query is one numpy gather/scatter."""

    def __init__(self, ranks: int, width: int, paths: tuple[np.ndarray, np.ndarray]) -> None:
        self.width = width
        # row 0 stays zero (padding of the query paths); row ranks + 1 is the update
        # paths' padding, never read
        self.tree = np.zeros((ranks + 2, 2 * width))
        self.up, self.down = paths

    @staticmethod
    def paths(ranks: int) -> tuple[np.ndarray, np.ndarray]:
        steps = max(1, int(ranks).bit_length() + 1)
        up = np.empty((ranks + 1, steps), np.int64)
        down = np.empty((ranks + 1, steps), np.int64)
        cur = np.arange(ranks + 1)
        cur_up = cur.copy()
        for s in range(steps):
            up[:, s] = np.where(cur_up <= ranks, cur_up, ranks + 1)
            cur_up = np.where(cur_up <= ranks, cur_up + (cur_up & -cur_up), cur_up)
            down[:, s] = cur
            cur = cur - (cur & -cur)
        up[0] = ranks + 1
        return up, down

    def update(self, rank: int, col: int, value: float, sign: int) -> None:
        self.tree[self.up[rank], 2 * col: 2 * col + 2] += (sign * value, sign)

    def query(self, rank: int) -> tuple[np.ndarray, np.ndarray]:
        """Per column: sum and count of the queued values of rank <= ``rank``."""
        total = self.tree[self.down[rank]].sum(axis=0)
        return total[0::2], total[1::2]


class _Partials:
    """Preempted tasks waiting in a processor queue with their remaining time (SRPT)."""

    def __init__(self) -> None:
        self.proc = np.zeros(16, np.int64)
        self.rem = np.zeros(16)
        self.task = np.zeros(16, np.int64)
        self.size = 0
        self.slot: dict[int, int] = {}

    def add(self, j: int, proc: int, rem: float) -> None:
        if self.size == self.proc.size:
            for name in ("proc", "rem", "task"):
                arr = getattr(self, name)
                setattr(self, name, np.concatenate([arr, np.zeros_like(arr)]))
        s = self.size
        self.proc[s], self.rem[s], self.task[s] = proc, rem, j
        self.slot[j] = s
        self.size += 1

    def remove(self, j: int) -> None:
        s = self.slot.pop(j)
        last = self.size - 1
        if s != last:
            moved = int(self.task[last])
            self.proc[s], self.rem[s], self.task[s] = (self.proc[last], self.rem[last],
                                                      moved)
            self.slot[moved] = s
        self.size = last

    def sums(self, p: float, lo: int, width: int,
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per processor of ``[lo, lo + width)``: sum and count of the values <= ``p``,
        count of those > ``p``."""
        proc = self.proc[: self.size] - lo
        rem = self.rem[: self.size]
        inside = (proc >= 0) & (proc < width)
        le = inside & (rem <= p)
        gt = inside & ~le
        return (np.bincount(proc[le], weights=rem[le], minlength=width),
                np.bincount(proc[le], minlength=width), np.bincount(proc[gt], minlength=width))


class _Sim:
    """One run of one policy on one instance (tasks renumbered in arrival order)."""

    def __init__(self, inst: TaskInstance, pol: OnlinePolicy) -> None:
        self.pol = pol
        n, m = inst.n, inst.processors
        self.order = np.lexsort((np.arange(n), inst.release))
        self.r = inst.release[self.order].tolist()
        pa = inst.p[self.order]
        self.p = pa.tolist()
        self.rem = list(self.p)
        self.n, self.m = n, m
        md = pol.md if pol.redirect else 0
        self.main = m - md
        self.pools = [(0, self.main)] + ([(self.main, m)] if md else [])
        self.running = [-1] * m
        self.start_at = [0.0] * m
        self.end = np.full(m, -math.inf)
        self.count = np.zeros(m, np.int64)
        self.event: list[Any] = [None] * m
        self.pieces: list[tuple[int, int, float, float, int]] = []
        self.completion = [math.nan] * n
        self.engine = Engine()
        self.settle_pending = False
        self.next_arrival = 0
        self.tau = pol.tau
        self.rng = np.random.default_rng(pol.seed) if pol.redirect == "random" else None
        self.pmax = -math.inf
        if pol.paradigm == "common":
            self.cq: list[list[tuple[float, int]]] = [[] for _ in self.pools]
            self.idle = [list(range(lo, hi)) for lo, hi in self.pools]
            self.dirty_pools: set[int] = set()
        else:
            values = np.unique(pa)
            self.rank = (np.searchsorted(values, pa) + 1).tolist()
            paths = _Fenwick.paths(values.size)
            self.fen = [_Fenwick(values.size, hi - lo, paths) for lo, hi in self.pools]
            self.qcount = [np.zeros(hi - lo) for lo, hi in self.pools]
            self.dq: list[list[tuple[float, int]]] = [[] for _ in range(m)]
            self.partials = _Partials()
            self.dirty: set[int] = set()

    # -- the run ---------------------------------------------------------------------------
    def run(self) -> None:
        self.engine.at(self.r[0], self._arrivals, 1)
        self.engine.run()

    def _arrivals(self) -> None:
        now = self.engine.now
        j = self.next_arrival
        while j < self.n and self.r[j] == now:
            self._arrive(j)
            j += 1
        self.next_arrival = j
        if j < self.n:
            self.engine.at(self.r[j], self._arrivals, 1)

    def _ensure_settle(self) -> None:
        if not self.settle_pending:
            self.settle_pending = True
            self.engine.at(self.engine.now, self._settle, 2)

    def _settle(self) -> None:
        self.settle_pending = False
        if self.pol.paradigm == "common":
            for pool in sorted(self.dirty_pools):
                idle, queue = self.idle[pool], self.cq[pool]
                while idle and queue:
                    i = heapq.heappop(idle)
                    _, j = heapq.heappop(queue)
                    self._start(j, i)
            self.dirty_pools.clear()
            return
        for i in sorted(self.dirty):
            if self.running[i] < 0 and self.dq[i]:
                _, j = heapq.heappop(self.dq[i])
                self._dequeue(j, i)
                self._start(j, i)
        self.dirty.clear()

    def _start(self, j: int, i: int) -> None:
        now = self.engine.now
        self.running[i] = j
        self.start_at[i] = now
        self.count[i] = 0
        end = now + self.rem[j]
        self.end[i] = end
        self.event[i] = self.engine.at(end, partial(self._complete, i), 0)

    def _stop(self, i: int, kind: int) -> int:
        j = self.running[i]
        self.pieces.append((j, i, self.start_at[i], self.engine.now, kind))
        self.running[i] = -1
        self.end[i] = -math.inf
        Engine.cancel(self.event[i])
        self.event[i] = None
        return j

    def _complete(self, i: int) -> None:
        j = self._stop(i, COMPLETE)
        self.completion[j] = self.engine.now
        self._free(i)

    def _free(self, i: int) -> None:
        if self.pol.paradigm == "common":
            pool = 0 if i < self.main else 1
            heapq.heappush(self.idle[pool], i)
            self.dirty_pools.add(pool)
        else:
            self.dirty.add(i)
        self._ensure_settle()

    def _preempt(self, i: int) -> None:
        rem = float(self.end[i]) - self.engine.now
        j = self._stop(i, PREEMPTED)
        self.rem[j] = rem
        if self.pol.paradigm == "common":
            heapq.heappush(self.cq[0], (rem, j))
        else:
            heapq.heappush(self.dq[i], (rem, j))
            self.partials.add(j, i, rem)
        self._free(i)

    def _interrupt(self, i: int) -> None:
        j = self._stop(i, INTERRUPTED)
        self.rem[j] = self.p[j]
        self._free(i)
        self._to_dedicated(j)

    def _to_dedicated(self, j: int) -> None:
        if self.pol.paradigm == "common":
            heapq.heappush(self.cq[1], (self.p[j], j))
            self.dirty_pools.add(1)
        else:
            i = self._dispatch_to(1, j, exceptions=False)
            self._enqueue(j, i)
        self._ensure_settle()

    # -- arrivals --------------------------------------------------------------------------
    def _arrive(self, j: int) -> None:
        pol, pj = self.pol, self.p[j]
        if pol.redirect == "random":
            self.pmax = max(self.pmax, pj)
            assert self.rng is not None  # made in __init__ for redirect == "random"
            if pj >= pol.b * self.pmax and self.rng.random() <= pol.c:
                self._to_dedicated(j)
                return
        if pol.paradigm == "common":
            self._arrive_common(j, pj)
        else:
            self._arrive_dispatch(j, pj)

    def _key(self, j: int) -> float:
        order = self.pol.order
        return self.r[j] if order == "release" else self.p[j]

    def _arrive_common(self, j: int, pj: float) -> None:
        waiting = len(self.cq[0])
        heapq.heappush(self.cq[0], (self._key(j), j))
        self.dirty_pools.add(0)
        self._ensure_settle()
        if len(self.idle[0]) > waiting:
            return  # a main-pool processor is free for it at this instant
        pol = self.pol
        if not (pol.preemptive or pol.redirect == "threshold"):
            return
        i = int(np.argmax(self.end[: self.main]))
        if pj < float(self.end[i]) - self.engine.now:
            if pol.preemptive:
                self._preempt(i)
            else:
                self.count[i] += 1
                if self.count[i] >= self.tau:
                    self._interrupt(i)

    def _arrive_dispatch(self, j: int, pj: float) -> None:
        i = self._dispatch_to(0, j, exceptions=True)
        if self.running[i] >= 0 and pj < float(self.end[i]) - self.engine.now:
            if self.pol.preemptive:
                self._preempt(i)
            elif self.pol.redirect == "threshold":
                self.count[i] += 1
                if self.count[i] >= self.tau:
                    self._interrupt(i)
        self._enqueue(j, i)
        self._ensure_settle()

    def _enqueue(self, j: int, i: int) -> None:
        """Queue ``j`` on processor ``i``. A task queued on an idle processor with an empty
        queue starts at this instant's settle: it waits in the side array (no Fenwick
        update and removal) unless it is still queued when the instant ends."""
        heapq.heappush(self.dq[i], (self.p[j], j))
        self.dirty.add(i)
        if self.running[i] < 0 and len(self.dq[i]) == 1:
            self.partials.add(j, i, self.p[j])
            return
        pool = 0 if i < self.main else 1
        lo = self.pools[pool][0]
        self.fen[pool].update(self.rank[j], i - lo, self.p[j], 1)
        self.qcount[pool][i - lo] += 1

    def _dequeue(self, j: int, i: int) -> None:
        if j in self.partials.slot:
            self.partials.remove(j)
            return
        pool = 0 if i < self.main else 1
        lo = self.pools[pool][0]
        self.qcount[pool][i - lo] -= 1
        self.fen[pool].update(self.rank[j], i - lo, self.p[j], -1)

    def _dispatch_to(self, pool: int, j: int, exceptions: bool) -> int:
        """§3.4.4: the processor of ``pool`` whose marginal increase of total flow ΔF is
        least (lowest index on ties), with the SRPT and SPT-RD exceptions when
        ``exceptions``."""
        lo, hi = self.pools[pool]
        pj = self.p[j]
        s_le, c_le = self.fen[pool].query(self.rank[j])
        qc = self.qcount[pool]
        c_gt = qc - c_le
        if self.partials.size:
            ps, pc_le, pc_gt = self.partials.sums(pj, lo, hi - lo)
            s_le = s_le + ps
            c_gt = c_gt + pc_gt
            qc = qc + pc_le + pc_gt
        rem = np.maximum(self.end[lo:hi] - self.engine.now, 0.0)
        delta = rem + s_le + pj + pj * c_gt
        if exceptions and self.pol.preemptive:
            delta = np.where(pj < rem, pj + pj * (c_gt + 1), delta)
        elif exceptions and self.pol.redirect == "threshold":
            redirect = (pj < rem) & (self.count[lo:hi] == self.tau - 1)
            if redirect.any():
                delta = np.where(redirect, s_le + pj + pj * c_gt - qc * rem, delta)
        return lo + int(np.argmin(delta))

    # -- the result ------------------------------------------------------------------------
    def schedule(self, seconds: float) -> TaskSchedule:
        pieces = np.array(self.pieces, dtype=float).reshape(-1, 5)
        task = self.order[pieces[:, 0].astype(np.int64)]
        completion = np.empty(self.n)
        completion[self.order] = self.completion
        pol = self.pol
        return TaskSchedule(
            task=task, proc=pieces[:, 1].astype(np.int64), start=pieces[:, 2],
            end=pieces[:, 3], kind=pieces[:, 4].astype(np.int64), completion=completion,
            processors=self.m, main=self.main, policy=pol.name, preemptive=pol.preemptive,
            migratory=pol.preemptive and pol.paradigm == "common",
            restarts=pol.redirect == "threshold",
            stats={"events": self.engine.processed, "seconds": seconds})


def simulate(inst: TaskInstance, policy: OnlinePolicy) -> TaskSchedule:
    """Run ``policy`` on ``inst``; the schedule is not validated here (see
    :func:`evaluate`). Checks the policy's parameters against ``inst.processors``.

    Examples
    --------
    One processor, a 4-second task at 0 and a 1-second task at 1: SRPT preempts the long
    task, FCFS does not.

    >>> from lpsched.tasks.instance import TaskInstance
    >>> inst = TaskInstance(1, [0.0, 1.0], [4.0, 1.0])
    >>> simulate(inst, get_policy("srpt")).completion.tolist()
    [5.0, 2.0]
    >>> simulate(inst, get_policy("fcfs")).completion.tolist()
    [4.0, 5.0]
    """
    policy.check(inst.processors)
    t0 = time.perf_counter()
    sim = _Sim(inst, policy)
    sim.run()
    return sim.schedule(time.perf_counter() - t0)


@dataclass(frozen=True)
class OnlineResult:
    """A validated run: the six metrics, the counts and the schedule."""

    policy: str
    params: dict[str, Any]
    metrics: dict[str, float]
    counts: dict[str, Any]
    seconds: float
    schedule: TaskSchedule = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The JSON row: ``policy``, its parameters, ``valid``, the metrics, the counts and
        ``seconds`` (a row of ``lpsched online --json`` and of the reproduction)."""
        return {"policy": self.policy, **self.params, "valid": True, **self.metrics,
                **self.counts, "seconds": self.seconds}


def evaluate(inst: TaskInstance, policy: OnlinePolicy | str, bound: float = BOUND_B,
             **params: Any) -> OnlineResult:
    """Simulate, validate independently (:func:`~lpsched.tasks.schedule.validate_schedule`
    raises on any violation) and measure.

    Examples
    --------
    >>> from lpsched.tasks.instance import TaskInstance
    >>> res = evaluate(TaskInstance(1, [0.0, 1.0], [4.0, 1.0]), "spt")
    >>> res.metrics["sum_flow"], res.metrics["max_stretch"]
    (8.0, 0.4)
    """
    pol = get_policy(policy, **params) if isinstance(policy, str) else policy
    sched = simulate(inst, pol)
    validate_schedule(inst, sched)
    return OnlineResult(pol.name, pol.params(), metrics(inst, sched.completion, bound),
                        schedule_counts(sched), float(sched.stats["seconds"]), sched)
