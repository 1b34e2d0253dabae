"""Master-worker simulator with atomic computation (seed 003 §2.1, §4): one-port (OP-AC)
or bounded multiport (BMP-AC).

One-port: the master sends one task at a time (a task of ``A_k`` to ``P_u`` occupies the port
for ``δ_k/b_u``). Bounded multiport: each link carries one message at a time, at ``b_u``
while the active links fit the master's ``BW``, all scaled by ``BW/Σ_active b_u`` otherwise
(rates change whenever a transfer starts or ends). Each worker keeps the tasks it received
in a queue and computes them one at a time without preemption (``w_k/s_u`` each), never
idling while a task waits; computation overlaps communication. A :class:`StarPolicy` makes
every decision: which task to send to which worker whenever a send can start (the port is
free; in multiport, some link is free: see :meth:`StarSimulator.free_links`), and in which
order a worker computes (FIFO: reception order; EDF: the policy's deadline, ties by
reception order).

Event order at one instant (fixed, documented in docs/decisions.md): computations ending,
then sends ending, then releases, then policy wake-ups, and only then one dispatch decision,
so a policy always sees everything that happened at ``now``.

**Link latencies** (``platform.latencies``, e.g. read from a SimGrid platform file; not in
seed 003's model). A send to ``P_u`` decided at ``t`` first pays the latency ``λ_u`` of its
link, then carries its ``δ_k`` bytes, as a message does in SimGrid's flow models (no
bandwidth is used during the latency). One-port: the master's port stays busy for
``λ_u + δ_k/b_u`` (a blocking send); bounded multiport: the link is taken at ``t`` and its
bytes flow (and share ``BW``) from ``t + λ_u``. The schedule records the transfer of the
bytes, ``send_start = t + λ_u``, so :func:`~lpsched.bags.schedule.validate` checks the same
rules as without latency; policies see ``comm[k, u] = λ_u + δ_k/b_u``. With every latency
zero nothing changes (no extra event, the same floating-point times).
"""

from __future__ import annotations

import functools
import heapq
import math
import time as _time
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.schedule import Schedule, metrics
from lpsched.bags.steady_state import dedicated_throughputs
from lpsched.core.engine import Engine, Event
from lpsched.errors import LpschedError, SolverError

COMPUTE_DONE, SEND_DONE, RELEASE, WAKE, DISPATCH = range(5)
#: The simulator records every task (six numbers each, about 48 bytes): above this many
#: tasks in all it refuses to start rather than exhaust the memory or run for hours.
MAX_TASKS = 10**7
#: Iteration cap of the event loop: events per task (a send, its end, a computation, its
#: end, a few wake-ups and dispatches) plus a fixed allowance for releases and re-solves.
EVENTS_PER_TASK = 64
#: The wall-clock budget is checked every this many events.
CLOCK_EVERY = 1024


def check_size(inst: Instance, what: str = "the simulator") -> int:
    """The total number of tasks of ``inst``, if ``what`` (which keeps one record per task:
    the simulator, a schedule) can hold them.

    Raises :class:`LpschedError` (bad input for that command, exit 2) above
    :data:`MAX_TASKS` tasks in all.

    Parameters
    ----------
    inst : Instance
        The instance.
    what : str
        The tool named in the error message (default ``"the simulator"``).

    Returns
    -------
    int
        Σ_k Π_k.

    Raises
    ------
    LpschedError
        More than :data:`MAX_TASKS` tasks.
    """
    total = float(np.sum(inst.tasks))
    if total > MAX_TASKS:
        k = int(np.argmax(inst.tasks))
        raise LpschedError(
            f"the instance has {total:.4g} tasks in all (application {k}: "
            f"{int(inst.tasks[k])}); {what} records every task and stops at "
            f"{MAX_TASKS:.0e}: use a smaller instance ('lpsched solve' keeps no per-task "
            "record and may still bound it)")
    return int(total)


class StarPolicy(Protocol):
    """What a master-worker policy implements (all hooks may be no-ops)."""

    name: str
    worker_order: str  # "fifo" or "edf"

    def start(self, sim: StarSimulator) -> None:
        """Called once at time 0, before any release: set up the policy's state for ``sim``.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        """

    def on_release(self, sim: StarSimulator, k: int) -> None:
        """Application ``k`` has just been released (``sim.released[k]`` is set); a dispatch
        follows.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        k : int
            The application just released.
        """

    def on_send_done(self, sim: StarSimulator, k: int, u: int) -> None:
        """A task of application ``k`` has just arrived on worker ``u`` (its send ended).

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        k : int
            The application of the task received.
        u : int
            The worker.
        """

    def on_compute_done(self, sim: StarSimulator, k: int, u: int) -> None:
        """Worker ``u`` has just finished computing a task of application ``k``.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        k : int
            The application of the task computed.
        u : int
            The worker.
        """

    def on_wake(self, sim: StarSimulator) -> None:
        """A wake-up the policy asked for with :meth:`StarSimulator.wake_at` is due; a dispatch
        follows.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        """

    def next_send(self, sim: StarSimulator) -> tuple[int, int] | None:
        """The next send, ``(application, worker)``, to start now, or ``None``.

        ``None`` sends nothing until the next event. Called repeatedly while a send can start
        (one-port: the port is free; multiport: some link is free,
        :meth:`StarSimulator.free_links`); the application must be released with tasks left
        at the master and the worker's link free.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).

        Returns
        -------
        tuple of int or None
            ``(k, u)``: send a task of application k to worker u now; ``None``: no send until
            the next event.
        """

    def deadline(self, sim: StarSimulator, k: int) -> float:
        """The deadline of application ``k`` (s): the key of ``edf`` worker queues (ties by
        reception order); unused with ``worker_order = "fifo"``.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        k : int
            The application.

        Returns
        -------
        float
            d_k, in seconds.
        """


class BasePolicy:
    """No-op hooks and FIFO workers; subclasses override what they need."""

    name = "base"
    worker_order = "fifo"

    def start(self, sim: StarSimulator) -> None:
        """No-op: :meth:`StarPolicy.start`.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        """
        pass

    def on_release(self, sim: StarSimulator, k: int) -> None:
        """No-op: :meth:`StarPolicy.on_release`.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        k : int
            The application just released.
        """
        pass

    def on_send_done(self, sim: StarSimulator, k: int, u: int) -> None:
        """No-op: :meth:`StarPolicy.on_send_done`.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        k : int
            The application of the task received.
        u : int
            The worker.
        """
        pass

    def on_compute_done(self, sim: StarSimulator, k: int, u: int) -> None:
        """No-op: :meth:`StarPolicy.on_compute_done`.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        k : int
            The application of the task computed.
        u : int
            The worker.
        """
        pass

    def on_wake(self, sim: StarSimulator) -> None:
        """No-op: :meth:`StarPolicy.on_wake`.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        """
        pass

    def next_send(self, sim: StarSimulator) -> tuple[int, int] | None:
        """Subclasses must decide (:meth:`StarPolicy.next_send`); raises ``NotImplementedError``.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).

        Returns
        -------
        tuple of int or None
            ``(k, u)``: send a task of application k to worker u now; ``None``: no send until
            the next event.

        Raises
        ------
        NotImplementedError
            Always: a subclass decides.
        """
        raise NotImplementedError

    def deadline(self, sim: StarSimulator, k: int) -> float:
        """0.0 for every application (:meth:`StarPolicy.deadline`): an ``edf`` policy overrides
        it.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        k : int
            The application.

        Returns
        -------
        float
            d_k, in seconds.
        """
        return 0.0

    def stats(self) -> dict[str, Any]:
        """The policy's own counters (solves, their times, ...), copied to
        :attr:`SimResult.stats`; empty here.

        Returns
        -------
        dict
            Empty.
        """
        return {}


@dataclass
class SimResult:
    """A finished run: the schedule, the policy, events processed and wall time, and the
    instance simulated (:func:`simulate` sets it; not printed or compared), which
    :meth:`to_frame` reads for the run's metrics."""

    policy: str
    schedule: Schedule
    events: int
    seconds: float
    stats: dict[str, Any] = field(default_factory=dict)
    instance: Instance | None = field(default=None, repr=False, compare=False)

    def to_frame(self, per: str = "task", inst: Instance | None = None) -> Any:
        """The run as a pandas DataFrame (``pip install 'lpsched[pandas]'`` when pandas is
        missing).

        Parameters
        ----------
        per : {"task", "run"}
            ``"task"`` (default): one row per task, the columns of
            :meth:`Schedule.to_frame <lpsched.bags.schedule.Schedule.to_frame>` after a
            ``policy`` column; ``"run"``: one row for the run.
        inst : Instance, optional
            The instance simulated, for ``per="run"``'s metrics; default :attr:`instance`
            (set by :func:`simulate`), needed only for a result built by hand.

        Returns
        -------
        pandas.DataFrame
            Per run, columns ``policy`` (str); the five objectives of seed 003 Tables 4-8
            as ``lpsched simulate`` reports them for the policy: ``max_stretch``,
            ``sum_stretch`` (1), ``makespan``, ``max_flow``, ``sum_flow`` (s;
            :func:`lpsched.bags.schedule.metrics`); ``tasks`` (int, tasks scheduled),
            ``events`` (int, engine events processed), ``seconds`` (s, wall time of the
            run), then the policy's :attr:`stats`: a number as its own column, a list of
            numbers (CBS3M's ``solve_seconds``, s, and ``stretches``, 1) as
            ``<name>_count`` (int), ``<name>_sum`` and ``<name>_max`` (in the list's unit;
            see :func:`lpsched.core.frames.number_lists`); other values as they are. The
            max-stretch relative to the LP bound needs the LP optimum: it is in
            :func:`lpsched.bags.comparison.compare_policies`' frame.

        Raises
        ------
        ValueError
            ``per`` is neither ``"task"`` nor ``"run"``; ``per="run"`` without an instance
            (neither :attr:`instance` nor ``inst``), or with one of another number of
            applications than the schedule's.

        Examples
        --------
        >>> from lpsched.bags import random_bags
        >>> from lpsched.bags.policies import get_policy
        >>> inst = random_bags(3, 2, seed=0)
        >>> res = simulate(inst, get_policy("cbs3m-fifo-online"))
        >>> len(res.to_frame()) == res.schedule.size
        True
        >>> run = res.to_frame(per="run")
        >>> list(run.columns)[:9]  # doctest: +NORMALIZE_WHITESPACE
        ['policy', 'max_stretch', 'sum_stretch', 'makespan', 'max_flow', 'sum_flow',
         'tasks', 'events', 'seconds']
        >>> int(run["solve_seconds_count"].iloc[0]) == res.stats["solves"]
        True
        """
        from lpsched.core.frames import frame, number_lists

        if per == "task":
            tasks = self.schedule.to_frame()
            tasks.insert(0, "policy", self.policy)
            return tasks
        if per != "run":
            raise ValueError(f"per={per!r}: SimResult.to_frame() gives one row per 'task' "
                             "or per 'run'")
        inst = self.instance if inst is None else inst
        if inst is None:
            raise ValueError("SimResult.to_frame(per='run') needs the instance simulated "
                             "for the metrics: pass inst=")
        if self.schedule.size and int(self.schedule.app.max()) >= inst.n:
            raise ValueError(f"the instance has {inst.n} applications, the schedule has "
                             f"tasks of application {int(self.schedule.app.max())}")
        objectives = metrics(inst, self.schedule).to_dict()
        objectives.pop("stretch")
        row: dict[str, Any] = {"policy": self.policy, **objectives,
                               "tasks": self.schedule.size, "events": self.events,
                               "seconds": self.seconds}
        for name, value in self.stats.items():
            summary = number_lists(name, value)
            row.update(summary if summary is not None else {name: value})
        return frame({k: [v] for k, v in row.items()}, "SimResult.to_frame(per='run')")


class StarSimulator:
    """Simulate ``policy`` on ``inst``, one-port or bounded multiport.

    Read-only state for policies: ``now``, ``released``, ``unsent[k]``, ``sent[k, u]``
    (dispatched), ``in_flight[u]``, ``queued[u]``, ``busy[u]``, ``ready[u]`` (when ``u``
    would finish everything assigned to it if it computed in FIFO order), ``done[k]``,
    ``comm``/``comp`` times, ``ms``/``rho`` (``MS*``, ``ρ*`` of the platform's port model),
    :meth:`free_links`.

    Parameters
    ----------
    inst : Instance
        The star platform and its applications.
    policy : StarPolicy
        The master's policy (a fresh object: policies keep state).
    time_limit : float or None
        Wall-clock budget of the simulation in seconds (``None``: none).
    """

    def __init__(self, inst: Instance, policy: StarPolicy,
                 time_limit: float | None = None) -> None:
        total = check_size(inst)
        if time_limit is not None and not (time_limit > 0 and math.isfinite(time_limit)):
            raise LpschedError(f"time_limit must be a finite number of seconds > 0 (or None), "
                               f"got {time_limit!r}")
        self.time_limit = time_limit
        self.deadline = None if time_limit is None else _time.monotonic() + time_limit
        self.max_events = EVENTS_PER_TASK * total + 1000 * (inst.n + 100)
        self.inst = inst
        self.one_port = inst.platform.port == "one-port"
        self.policy = policy
        self.engine = Engine()
        n, p = inst.n, inst.p
        self.n, self.p = n, p
        self.payload = np.asarray(inst.comm_time, float)  # δ/b: the bytes alone
        self.latency = np.asarray(inst.platform.latencies, float)
        self.has_latency = bool((self.latency > 0).any())
        # a send's duration alone on its link, latency included (what policies estimate with)
        self.comm = self.payload + self.latency[None, :] if self.has_latency else self.payload
        self.comp = np.asarray(inst.comp_time, float)
        self.tasks = inst.tasks.astype(int)
        self.rho = dedicated_throughputs(inst)
        self.ms = self.tasks / self.rho
        self.released = np.zeros(n, bool)
        self.unsent = self.tasks.copy()
        self.sent = np.zeros((n, p), int)
        self.in_flight = np.zeros(p, int)
        self.in_flight_app = np.zeros((n, p), int)
        self.queued_app = np.zeros((n, p), int)
        self.busy = np.zeros(p, bool)
        self.computing: list[int] = [-1] * p  # task id on each worker, -1 if idle
        self.ready = np.zeros(p)
        self.done = np.zeros(n, int)
        self.port_busy = False  # one-port: a send is in progress
        # multiport: per link, the task in transit, bytes left, time of the last rate change
        self._transit: dict[int, list[Any]] = {}
        self._latent: dict[int, int] = {}  # multiport: link -> task paying its latency
        self._all_free = np.ones(self.p, bool)
        self._none_free = np.zeros(self.p, bool)
        self._all_free.setflags(write=False)
        self._none_free.setflags(write=False)
        self._queues: list[list[tuple[float, int, int]]] = [[] for _ in range(p)]
        self.rec_app = np.full(total, -1)
        self.rec_worker = np.full(total, -1)
        self.rec = np.full((4, total), np.nan)  # send_start, send_end, start, end
        self._next_task = 0
        self._dispatch_event: Event | None = None

    # -- public helpers for policies ------------------------------------------------------
    @property
    def now(self) -> float:
        """The simulated time (s), the engine's clock."""
        return self.engine.now

    def time_left(self) -> float | None:
        """Seconds left of the run's wall-clock budget (``None``: unlimited); policies give
        it to their solvers. Raises :class:`SolverError` when it has run out.

        Returns
        -------
        float or None
            Seconds left, > 0.

        Raises
        ------
        SolverError
            The budget has run out.
        """
        if self.deadline is None:
            return None
        left = self.deadline - _time.monotonic()
        if left <= 0:
            raise SolverError(f"policy {self.policy.name}: the time limit of "
                              f"{self.time_limit:g} s ran out at t={self.now:.6g} "
                              "(status time_limit); allow more time with --time-limit")
        return left

    def free_links(self) -> np.ndarray:
        """Workers a send could start to now (one-port: all or none). Read-only.

        Returns
        -------
        numpy.ndarray
            bool, shape ``(p,)``.
        """
        if self.one_port:
            return self._none_free if self.port_busy else self._all_free
        free = np.ones(self.p, bool)
        free[list(self._transit)] = False
        if self._latent:
            free[list(self._latent)] = False
        return free

    def queued(self, u: int) -> int:
        """Tasks received by worker ``u`` and waiting to be computed (not the one computing).

        Parameters
        ----------
        u : int
            The worker.

        Returns
        -------
        int
            The number of tasks in its queue.
        """
        return len(self._queues[u])

    def idle_worker(self, u: int) -> bool:
        """Nothing computing, queued or on its way to ``u``.

        Parameters
        ----------
        u : int
            The worker.

        Returns
        -------
        bool
            ``True`` when it has no task at all.
        """
        return not self.busy[u] and not self._queues[u] and self.in_flight[u] == 0

    def wake_at(self, when: float) -> Event:
        """Call ``policy.on_wake`` (then a dispatch) at ``when``.

        Parameters
        ----------
        when : float
            The simulated time (s); a time in the past means now.

        Returns
        -------
        Event
            The engine's event (cancel it with :meth:`Engine.cancel`).
        """
        return self.engine.at(max(when, self.now), self._on_wake, WAKE)

    def request_dispatch(self) -> None:
        """Ask for a dispatch decision (calls of :meth:`StarPolicy.next_send`) at ``now``, after
        the other events of this instant; at most one is pending at a time."""
        if self._dispatch_event is None or self._dispatch_event.cancelled:
            self._dispatch_event = self.engine.at(self.now, self._dispatch, DISPATCH)

    # -- events ---------------------------------------------------------------------------
    def _release(self, k: int) -> None:
        self.released[k] = True
        self.policy.on_release(self, k)
        self.request_dispatch()

    def _on_wake(self) -> None:
        self.policy.on_wake(self)
        self.request_dispatch()

    def _dispatch(self) -> None:
        self._dispatch_event = None
        while ((not self.port_busy) if self.one_port
               else len(self._transit) + len(self._latent) < self.p):
            choice = self.policy.next_send(self)
            if choice is None:
                return
            self._start_send(int(choice[0]), int(choice[1]))

    def _start_send(self, k: int, u: int) -> None:
        if not (0 <= u < self.p and self.released[k] and self.unsent[k] > 0
                and self.free_links()[u]):
            raise LpschedError(f"policy {self.policy.name} chose an impossible send "
                               f"(application {k}, worker {u}) at t={self.now}")
        i = self._next_task
        self._next_task += 1
        lat = float(self.latency[u])
        start = self.now + lat if lat > 0 else self.now  # the bytes start after the latency
        end = start + self.payload[k, u]
        self.rec_app[i], self.rec_worker[i] = k, u
        self.rec[0, i], self.rec[1, i] = start, end
        self.unsent[k] -= 1
        self.sent[k, u] += 1
        self.in_flight[u] += 1
        self.in_flight_app[k, u] += 1
        self.ready[u] = max(end, self.ready[u]) + self.comp[k, u]
        if self.one_port:
            self.port_busy = True
            self.engine.at(end, lambda: self._send_done(i), SEND_DONE)
            return
        if lat > 0:  # the link is taken; the bytes flow (and share BW) from `start`
            self._latent[u] = i
            self.engine.at(start, lambda: self._payload_start(u), SEND_DONE)
            return
        self._progress()
        self._transit[u] = [i, float(self.inst.size[k]), None]
        self._reschedule()

    def _payload_start(self, u: int) -> None:
        """Multiport: the latency of the send on link ``u`` is paid, its bytes start."""
        i = self._latent.pop(u)
        self._progress()
        self.rec[0, i] = self.now
        self._transit[u] = [i, float(self.inst.size[int(self.rec_app[i])]), None]
        self._reschedule()

    def _rates(self) -> dict[int, float]:
        bw = self.inst.platform.bandwidths
        total = sum(float(bw[u]) for u in self._transit)
        scale = min(1.0, self.inst.platform.master_bandwidth / total) if total > 0 else 1.0
        return {u: float(bw[u]) * scale for u in self._transit}

    def _progress(self) -> None:
        """Account the bytes sent since the last rate change (multiport)."""
        for u, rate in self._rates().items():
            entry = self._transit[u]
            if entry[2] is not None:
                entry[1] = max(entry[1] - rate * (self.now - entry[2][1]), 0.0)

    def _reschedule(self) -> None:
        """New rates for every transfer in transit, and their completion events."""
        for u, rate in self._rates().items():
            entry = self._transit[u]
            if entry[2] is not None:
                self.engine.cancel(entry[2][0])
            event = self.engine.at(self.now + entry[1] / rate,
                                   functools.partial(self._send_done, entry[0]), SEND_DONE)
            entry[2] = (event, self.now)

    def _send_done(self, i: int) -> None:
        k, u = int(self.rec_app[i]), int(self.rec_worker[i])
        self.rec[1, i] = self.now
        if self.one_port:
            self.port_busy = False
        else:
            self._progress()
            del self._transit[u]
            self._reschedule()
        self.in_flight[u] -= 1
        self.in_flight_app[k, u] -= 1
        self.queued_app[k, u] += 1
        key = self.policy.deadline(self, k) if self.policy.worker_order == "edf" else 0.0
        heapq.heappush(self._queues[u], (key, i, k))
        self.policy.on_send_done(self, k, u)
        if not self.busy[u]:
            self._compute_next(u)
        self.request_dispatch()

    def _compute_next(self, u: int) -> None:
        _, i, k = heapq.heappop(self._queues[u])
        self.queued_app[k, u] -= 1
        self.busy[u] = True
        self.computing[u] = i
        now = self.now
        self.rec[2, i] = now
        self.rec[3, i] = now + self.comp[k, u]
        self.engine.at(now + self.comp[k, u], lambda: self._compute_done(u), COMPUTE_DONE)

    def _compute_done(self, u: int) -> None:
        i = self.computing[u]
        k = int(self.rec_app[i])
        self.busy[u] = False
        self.computing[u] = -1
        self.done[k] += 1
        if self._queues[u]:
            self._compute_next(u)
        self.policy.on_compute_done(self, k, u)
        self.request_dispatch()

    # -- running --------------------------------------------------------------------------
    def _loop(self) -> None:
        """The event loop, with an iteration cap and the wall-clock budget."""
        step, events = self.engine.step, 0
        while step():
            events += 1
            if events % CLOCK_EVERY == 0:
                self.time_left()
                if events > self.max_events:
                    raise SolverError(
                        f"policy {self.policy.name} made no progress: more than "
                        f"{self.max_events} events at t={self.now:.6g} "
                        f"({int(self.done.sum())}/{int(self.tasks.sum())} tasks computed)")

    def run(self) -> SimResult:
        """Run to the end. Raises :class:`LpschedError` when the policy stops with work
        left, :class:`SolverError` when the time budget or the event cap runs out.

        Returns
        -------
        SimResult
            The policy's name, the schedule, the events processed, the wall time and the
            policy's :meth:`~BasePolicy.stats`.

        Raises
        ------
        LpschedError
            The policy stopped with tasks left.
        SolverError
            The time budget or the event cap ran out.
        """
        t0 = _time.perf_counter()
        order = np.lexsort((np.arange(self.n), self.inst.release))
        for k in order:
            self.engine.at(float(self.inst.release[k]),
                           functools.partial(self._release, int(k)), RELEASE)
        self.policy.start(self)
        self._loop()
        if (self.done != self.tasks).any():
            k = int(np.argmax(self.done != self.tasks))
            raise LpschedError(f"policy {self.policy.name} stopped with application {k} "
                               f"unfinished ({self.done[k]}/{self.tasks[k]} tasks computed)")
        sched = Schedule(self.rec_app, self.rec_worker, self.rec[0], self.rec[1], self.rec[2],
                         self.rec[3], meta={"policy": self.policy.name})
        stats = self.policy.stats() if hasattr(self.policy, "stats") else {}
        return SimResult(self.policy.name, sched, self.engine.processed,
                         _time.perf_counter() - t0, stats, instance=self.inst)


def simulate(inst: Instance, policy: StarPolicy, time_limit: float | None = None) -> SimResult:
    """Run ``policy`` on ``inst`` to completion (deterministic).

    ``time_limit`` (seconds) bounds the run's wall-clock time, the policy's own solves
    included; at most :data:`MAX_TASKS` tasks (:func:`check_size`).

    Parameters
    ----------
    inst : Instance
        The instance (at most :data:`MAX_TASKS` tasks in all).
    policy : StarPolicy
        A fresh policy object (e.g. ``get_policy("fifo-rr")``).
    time_limit : float or None
        The wall-clock budget (s, finite, > 0); ``None`` (default): unlimited.

    Returns
    -------
    SimResult
        The schedule and the run's figures.

    Raises
    ------
    LpschedError
        Too many tasks, a bad ``time_limit``, or the policy stopped with tasks left.
    SolverError
        The time budget or the event cap ran out, or a policy's solve failed.
    """
    return StarSimulator(inst, policy, time_limit).run()




def rekey_queues(sim: StarSimulator) -> None:
    """Recompute every queued task's key with the policy's current deadlines (EDF policies
    call this when their deadlines move, e.g. after a re-solve).

    Parameters
    ----------
    sim : StarSimulator
        The simulator running the policy (its clock, released and unsent tasks, links).
    """
    if sim.policy.worker_order != "edf":
        return
    for u, queue in enumerate(sim._queues):
        sim._queues[u] = [(sim.policy.deadline(sim, k), i, k) for _, i, k in queue]
        heapq.heapify(sim._queues[u])


def buffered_state(sim: StarSimulator) -> np.ndarray:
    """``B̂[k, u]``: tasks of ``k`` on ``u`` not yet computed — queued, on their way (an
    in-flight send counts as received) and the unfinished fraction of the one computing
    (spec §4.1, decision A11).

    Parameters
    ----------
    sim : StarSimulator
        The simulator running the policy (its clock, released and unsent tasks, links).

    Returns
    -------
    numpy.ndarray
        Shape ``(n, p)``, in tasks (fractional for the task computing).
    """
    out = (sim.queued_app + sim.in_flight_app).astype(float)
    for u, i in enumerate(sim.computing):
        if i >= 0:
            k = int(sim.rec_app[i])
            left = (sim.rec[3, i] - sim.now) / sim.comp[k, u]
            out[k, u] += min(max(left, 0.0), 1.0)
    return out
