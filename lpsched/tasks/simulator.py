"""Event-driven simulation of the online policies of seed 000 ch. 3.

Events fire in the order of :class:`lpsched.core.engine.Engine`
(``(time, priority, sequence)``), whose heap the simulator keeps itself: plain tuples, a
cancelled completion recognised by its sequence number (event objects and callbacks took a
third of a run: decision 401). Within one instant, completions (priority 0) run before
arrivals (priority 1, in release then index order), and idle processors take work last
(priority 2, "settle"): a processor that frees up at ``t`` chooses among every task known at
``t``. Common-queue policies keep one heap per pool; immediate-dispatch policies keep one
heap per processor and, for the ΔF rule, per-processor sums and counts of the queued
processing times in a Fenwick tree over the ranks of ``p`` (one row gather per arrival:
``O(m log n)`` vectorised; an update walks the ``log n`` rows of one processor's column;
never a Python loop over a queue). Preempted SRPT tasks (remaining times are not among the
ranks) and tasks queued on an idle processor with an empty queue (they start at the
instant's settle, so the tree is not touched for them) wait in a small side array that the
ΔF rule also reads with one ``bincount``.

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
from typing import Any, cast

import numpy as np

from lpsched.core.kernels import PURE_PYTHON, kernel_state  # noqa: F401
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

try:  # the compiled event loop (optional: without a C compiler the Python one runs)
    from lpsched.tasks import _online_c
except ImportError:  # pragma: no cover - depends on the build
    _online_c = None  # type: ignore[assignment]

__all__ = ["OnlineResult", "evaluate", "get_policy", "kernel_in_use", "simulate"]

#: the environment variable that forces the Python event loop (any value but "" and "0")

_COMPLETE, _ARRIVALS, _SETTLE = 0, 1, 2
_add_reduce = np.add.reduce


class _Fenwick:
    """Sums and counts of queued processing times per processor (column pairs), indexed by
    the rank of ``p`` among the instance's distinct values (rows). The query paths of
    every rank are precomputed, so a query is one numpy gather and sum over its rows; an
    update walks its ~log2(ranks) rows in Python."""

    def __init__(self, ranks: int, width: int, down: np.ndarray) -> None:
        self.width = width
        # row 0 stays zero: the padding of the query paths
        self.tree = np.zeros((ranks + 1, 2 * width))
        self.down = down
        # a flat view of the tree's buffer (writes reach the tree), floats per item
        self.flat = cast("memoryview[float]", self.tree.reshape(-1).data)
        self.stride, self.ranks = 2 * width, ranks

    @staticmethod
    def paths(ranks: int) -> np.ndarray:
        """The query path of every rank ``0..ranks``: ``rank``, ``rank`` less its lowest
        bit, ... down to 0, padded with 0 (shape ``(ranks + 1, bit_length + 1)``)."""
        steps = max(1, int(ranks).bit_length() + 1)
        down = np.empty((ranks + 1, steps), np.int64)
        cur = np.arange(ranks + 1)
        for s in range(steps):
            down[:, s] = cur
            cur = cur - (cur & -cur)
        return down

    def update(self, rank: int, col: int, value: float, sign: int) -> None:
        """Add ``sign * value`` and ``sign`` to column pair ``col`` along the update path
        of ``rank``."""
        # a Python walk over a memoryview of the tree: a numpy gather/scatter costs more on
        # these ~10-row paths, for the same float additions (decision 401)
        flat, stride, top = self.flat, self.stride, self.ranks
        add = sign * value
        base = 2 * col
        i = rank
        while i <= top:
            k = i * stride + base
            flat[k] += add
            flat[k + 1] += sign
            i += i & -i


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
        self.end_of = [self.end[lo:hi] for lo, hi in self.pools]  # views per pool
        self.count = [0] * m
        # processors whose counter is one below the threshold (the only ones the SPT-RD
        # exception of the ΔF rule can redirect): none, and the exception is skipped
        self.at_limit = m if pol.tau - 1 == 0 else 0
        self.live = [-1] * m  # sequence number of each processor's completion event
        self.pieces: list[tuple[int, int, float, float, int]] = []
        self.completion = [math.nan] * n
        # the event heap of :class:`~lpsched.core.engine.Engine`, inlined: entries
        # (time, priority, sequence, action, argument) fire in that order; a completion
        # whose sequence is no longer its processor's ``live`` one was cancelled
        self.heap: list[tuple[float, int, int, int, int]] = []
        self.seq = 0
        self.now = 0.0
        self.processed = 0
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
    def _at(self, time: float, priority: int, action: int, arg: int = 0) -> int:
        """Schedule ``action`` (0 complete, 1 arrivals, 2 settle) at ``time``; its
        sequence number."""
        seq = self.seq
        self.seq = seq + 1
        heapq.heappush(self.heap, (time, priority, seq, action, arg))
        return seq

    def run(self) -> None:
        self._at(self.r[0], 1, _ARRIVALS)
        heap, live = self.heap, self.live
        pop = heapq.heappop
        complete, arrivals, settle = self._complete, self._arrivals, self._settle
        processed = 0
        while heap:
            time, _, seq, action, arg = pop(heap)
            if action == _COMPLETE:
                if live[arg] != seq:
                    continue  # cancelled
                self.now = time
                complete(arg)
            elif action == _ARRIVALS:
                self.now = time
                arrivals()
            else:
                self.now = time
                settle()
            processed += 1
        self.processed = processed

    def _arrivals(self) -> None:
        now = self.now
        j = self.next_arrival
        while j < self.n and self.r[j] == now:
            self._arrive(j)
            j += 1
        self.next_arrival = j
        if j < self.n:
            self._at(self.r[j], 1, _ARRIVALS)

    def _ensure_settle(self) -> None:
        if not self.settle_pending:
            self.settle_pending = True
            self._at(self.now, 2, _SETTLE)

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
        now = self.now
        self.running[i] = j
        self.start_at[i] = now
        self._set_count(i, 0)
        end = now + self.rem[j]
        self.end[i] = end
        self.live[i] = self._at(end, 0, _COMPLETE, i)

    def _stop(self, i: int, kind: int) -> int:
        j = self.running[i]
        self.pieces.append((j, i, self.start_at[i], self.now, kind))
        self.running[i] = -1
        self.end[i] = -math.inf
        self.live[i] = -1  # its completion event, if still queued, is cancelled
        return j

    def _complete(self, i: int) -> None:
        j = self._stop(i, COMPLETE)
        self.completion[j] = self.now
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
        rem = float(self.end[i]) - self.now
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
        if pj < float(self.end[i]) - self.now:
            if pol.preemptive:
                self._preempt(i)
            else:
                self._set_count(i, self.count[i] + 1)
                if self.count[i] >= self.tau:
                    self._interrupt(i)

    def _set_count(self, i: int, value: int) -> None:
        """Set processor ``i``'s redirection counter, keeping ``at_limit``."""
        limit = self.tau - 1
        self.at_limit += (value == limit) - (self.count[i] == limit)
        self.count[i] = value

    def _arrive_dispatch(self, j: int, pj: float) -> None:
        i = self._dispatch_to(0, j, exceptions=True)
        if self.running[i] >= 0 and pj < float(self.end[i]) - self.now:
            if self.pol.preemptive:
                self._preempt(i)
            elif self.pol.redirect == "threshold":
                self._set_count(i, self.count[i] + 1)
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
        fen = self.fen[pool]  # per column: sum and count of the queued p of rank <= p_j
        total = _add_reduce(fen.tree[fen.down[self.rank[j]]], 0)
        s_le = total[0::2]
        qc = self.qcount[pool]
        c_gt = qc - total[1::2]
        if self.partials.size:
            ps, pc_le, pc_gt = self.partials.sums(pj, lo, hi - lo)
            s_le = s_le + ps
            c_gt = c_gt + pc_gt
            qc = qc + pc_le + pc_gt
        rem = np.maximum(self.end_of[pool] - self.now, 0.0)
        delta = rem + s_le + pj + pj * c_gt
        if exceptions and self.pol.preemptive:
            delta = np.where(pj < rem, pj + pj * (c_gt + 1), delta)
        elif exceptions and self.pol.redirect == "threshold" and self.at_limit:
            redirect = (pj < rem) & (np.array(self.count[lo:hi]) == self.tau - 1)
            if redirect.any():
                delta = np.where(redirect, s_le + pj + pj * c_gt - qc * rem, delta)
        return lo + int(delta.argmin())

    # -- the result ------------------------------------------------------------------------
    def schedule(self, seconds: float) -> TaskSchedule:
        return _schedule(self.order, np.array(self.pieces, dtype=float).reshape(-1, 5),
                         np.asarray(self.completion), self.m, self.main, self.pol,
                         self.processed, seconds)


def _schedule(order: np.ndarray, pieces: np.ndarray, completion_in_order: np.ndarray, m: int,
              main: int, pol: OnlinePolicy, events: int, seconds: float) -> TaskSchedule:
    """The schedule of a run: pieces ``(task, proc, start, end, kind)`` and completion
    times in arrival order (``order`` maps them back to the instance's tasks)."""
    task = order[pieces[:, 0].astype(np.int64)]
    completion = np.empty(order.size)
    completion[order] = completion_in_order
    return TaskSchedule(
        task=task, proc=pieces[:, 1].astype(np.int64), start=pieces[:, 2],
        end=pieces[:, 3], kind=pieces[:, 4].astype(np.int64), completion=completion,
        processors=m, main=main, policy=pol.name, preemptive=pol.preemptive,
        migratory=pol.preemptive and pol.paradigm == "common",
        restarts=pol.redirect == "threshold",
        stats={"events": events, "seconds": seconds})


def kernel_in_use() -> str:
    """Say which event loop :func:`simulate` runs.

    Returns
    -------
    str
        ``"compiled"`` (the extension ``lpsched.tasks._online_c``),
        ``"python (LPSCHED_PURE_PYTHON is set)"`` or ``"python (the extension
        lpsched.tasks._online_c is not built)"``.
    """
    return kernel_state(_online_c, "lpsched.tasks._online_c")


_REDIRECT = {None: 0, "threshold": 1, "random": 2}


def _simulate_compiled(inst: TaskInstance, pol: OnlinePolicy, t0: float) -> TaskSchedule:
    """:class:`_Sim`'s run by the compiled loop (the same inputs, the same answers)."""
    n, m = inst.n, inst.processors
    order = np.lexsort((np.arange(n), inst.release))
    r = np.ascontiguousarray(inst.release[order], dtype=np.float64)
    pa = np.ascontiguousarray(inst.p[order], dtype=np.float64)
    md = pol.md if pol.redirect else 0
    if pol.paradigm == "common":
        rank, ranks = np.zeros(n, np.int64), 0
    else:
        values = np.unique(pa)
        rank, ranks = (np.searchsorted(values, pa) + 1).astype(np.int64), int(values.size)
    rng = np.random.default_rng(pol.seed) if pol.redirect == "random" else None
    sim = _online_c.Sim(r, pa, rank, ranks, m, md, pol.paradigm != "common",
                        pol.order == "release", pol.preemptive, _REDIRECT[pol.redirect],
                        float(pol.tau), float(pol.b), float(pol.c), rng)
    sim.run()
    pieces, completion = sim.result()
    return _schedule(order, pieces, completion, m, m - md, pol, int(sim.processed),
                     time.perf_counter() - t0)


def simulate(inst: TaskInstance, policy: OnlinePolicy) -> TaskSchedule:
    """Simulate an online policy on a task instance and return its schedule (seed 000 §3.4).

    The policy's parameters are checked against ``inst.processors``; the schedule is not
    validated here (:func:`evaluate` does).

    Parameters
    ----------
    inst : TaskInstance
        The instance.
    policy : OnlinePolicy
        The policy with its parameters (:func:`get_policy`).

    Returns
    -------
    TaskSchedule
        The pieces and completion times; ``stats`` holds ``events`` (events processed) and
        ``seconds`` (wall time of the simulation).

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
    if inst.n and kernel_in_use() == "compiled":
        return _simulate_compiled(inst, policy, t0)
    sim = _Sim(inst, policy)
    sim.run()
    return sim.schedule(time.perf_counter() - t0)


@dataclass(frozen=True)
class OnlineResult:
    """A validated run of one policy: the six metrics, the counts and the schedule.

    ``instance`` is the instance simulated and ``bound`` the stretch's constant ``B`` the
    metrics used (:func:`evaluate` sets both; neither is printed or compared), which
    :meth:`to_frame` reads for each task's flow and stretch.
    """

    policy: str
    params: dict[str, Any]
    metrics: dict[str, float]
    counts: dict[str, Any]
    seconds: float
    schedule: TaskSchedule = field(repr=False)
    instance: TaskInstance | None = field(default=None, repr=False, compare=False)
    bound: float = field(default=BOUND_B, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The JSON row of ``lpsched online --json`` and of the reproduction.

        Returns
        -------
        dict
            ``policy``, its parameters, ``valid`` (always ``True``: the schedule passed
            :func:`~lpsched.tasks.schedule.validate_schedule`), the six metrics, the counts and
            ``seconds`` (simulation wall time).
        """
        return {"policy": self.policy, **self.params, "valid": True, **self.metrics,
                **self.counts, "seconds": self.seconds}

    def to_frame(self, per: str = "task") -> Any:
        """The run as a pandas DataFrame (``pip install 'lpsched[pandas]'`` when pandas is
        missing).

        Parameters
        ----------
        per : {"task", "piece", "run"}
            ``"task"`` (default): one row per task; ``"piece"``: one row per execution
            piece, in the schedule's order; ``"run"``: one row for the run.

        Returns
        -------
        pandas.DataFrame
            Per task and per piece: a ``policy`` column (str), then the columns of
            :meth:`TaskSchedule.to_frame <lpsched.tasks.schedule.TaskSchedule.to_frame>`
            for the same ``per``; per task, with the instance :func:`evaluate` kept, also
            ``release``, ``p``, ``flow`` (s) and ``stretch`` (1, ``F_j / max(p_j, B)``),
            whose max, sum and L2 norm are :attr:`metrics`. Per run: the columns of
            :meth:`to_dict` (the row ``lpsched online --json`` prints): ``policy``, the
            policy's parameters, ``valid``, the six metrics (stretches 1, flows s), the
            counts of :func:`~lpsched.tasks.schedule.schedule_counts` and ``seconds`` (s,
            simulation wall time).

        Raises
        ------
        ValueError
            ``per`` is not ``"task"``, ``"piece"`` or ``"run"``.

        Examples
        --------
        >>> from lpsched.tasks.instance import TaskInstance
        >>> res = evaluate(TaskInstance(1, [0.0, 1.0], [4.0, 1.0]), "srpt")
        >>> res.to_frame()[["policy", "task", "completion", "flow", "stretch"]]
          policy  task  completion  flow  stretch
        0   srpt     0         5.0   5.0      0.5
        1   srpt     1         2.0   1.0      0.1
        >>> res.to_frame(per="run")[["policy", "max_flow", "preemptions"]]
          policy  max_flow  preemptions
        0   srpt       5.0            1
        """
        from lpsched.core.frames import frame

        if per in ("task", "piece"):
            if per == "task":
                rows = self.schedule.to_frame("task", self.instance, self.bound)
            else:
                rows = self.schedule.to_frame("piece")
            rows.insert(0, "policy", self.policy)
            return rows
        if per != "run":
            raise ValueError(f"per={per!r}: OnlineResult.to_frame() gives one row per 'task', "
                             "per 'piece' or per 'run'")
        return frame({k: [v] for k, v in self.to_dict().items()},
                     "OnlineResult.to_frame(per='run')")


def evaluate(inst: TaskInstance, policy: OnlinePolicy | str, bound: float = BOUND_B,
             **params: Any) -> OnlineResult:
    """Simulate a policy, validate its schedule independently and measure it (seed 000 §3.4-3.5).

    :func:`~lpsched.tasks.schedule.validate_schedule` raises on any violation.

    Parameters
    ----------
    inst : TaskInstance
        The instance.
    policy : OnlinePolicy or str
        The policy, or its name (then ``params`` set its parameters).
    bound : float
        The stretch's constant ``B`` (s; default :data:`~lpsched.tasks.instance.BOUND_B`).
    **params
        ``md``, ``tau``, ``b``, ``c``, ``seed`` for :func:`get_policy` with a name.

    Returns
    -------
    OnlineResult
        The metrics, counts, simulation time and the schedule.

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
                        schedule_counts(sched), float(sched.stats["seconds"]), sched,
                        instance=inst, bound=bound)
