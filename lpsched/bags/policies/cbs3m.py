"""CBS3M — Clever Burst Steady-State Stretch Minimization (seed 003 §3.5, §4.1 [L786]).

The master follows the per-interval send amounts of an optimal max-stretch plan of (K1):

* **offline** (clairvoyant): one plan for the whole instance, solved at time 0; never
  re-solved (§4.3). Tasks left after the plan's last epoch go by MCT.
* **online**: at every arrival, the optimum on ``[now, ∞)`` from the simulated state —
  tasks at the master, tasks buffered on each worker (in-flight sends count as received,
  a task being computed by its unfinished fraction) — and the plan is replaced (§3.5,
  decisions A11–A13). Also re-solved when the plan is used up while tasks remain.

Workers compute greedily, FIFO or EDF with the application deadline
``d_k = r_k + S_cur·MS*_k`` of the latest solve (decisions A15, A16).

The plan dispatcher (spec §4.4, modelled on Theorem 6's construction): at the start of each
plan interval the amounts of the interval are added to a credit per (application, worker);
the whole part of the credit is the interval's quota (lowered if it exceeds the tasks left,
topped up in the application's last interval so that nothing is left behind); whenever the
port is free the next send is the candidate with the smallest ``(sent + 1)/rate`` — the
1-D load-balancing order of Lemma 1 — and the port idles until the next interval when no
quota is left. Sends that overrun an interval simply finish.

**Eager variant** (``cbs3m-<order>-<online|offline>-eager``, decision 318): the same plan and
the same order, but the port never idles while the plan still has a task to send: when
the quotas of the current interval are used up (or sit on applications not yet released),
the next interval is opened at once instead of at its start date, its amounts added to the
credits as above. Every send is still one the plan makes, in the plan's order, only
earlier; the stretch guarantee of the lazy dispatcher (sends never ahead of the fluid
plan) is traded for a busier port ("they make very good use of the platform, by
scheduling simultaneously several applications when it is possible, for example when the
communication medium has still some free bandwidth" [L886]).
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import numpy as np

from lpsched.bags.instance import Instance
from lpsched.bags.maxstretch import MaxStretchResult, max_stretch, online_max_stretch
from lpsched.bags.simulator import BasePolicy, StarSimulator, buffered_state, rekey_queues
from lpsched.core.engine import Event

#: What :meth:`PlanDispatcher.next_send` answers when the only quotas left are on links
#: that are busy (bounded multiport): wait for the next transfer to end.
LINKS_BUSY = float("-inf")
#: Wall-clock budget of one max-stretch solve (seconds), lowered to what is left of the
#: simulation's own budget when it has one.
SOLVE_TIME_LIMIT = 120.0


class SolveMemo:
    """The max-stretch solves of the latest instance, kept for the other policies run on it.

    The offline optimum and each online re-solve are functions of the instance and of the
    state they start from (the date, the tasks at the master and in the buffers, which
    applications are known), computed deterministically (HiGHS on one thread, seed 0). The
    reproduction runs the policies of one instance one after the other in one process, and
    its four CBS3M policies ask many of the same questions: the offline plan is the lower
    bound the tables normalise by, and the FIFO and EDF workers reach the same state at an
    arrival whenever their different computation orders have not yet changed what is left
    (about a third of the online re-solves on ``simgrid`` instances). Those are solved once.

    Only the latest instance's solves are kept (by identity: instances are immutable; each
    answer is stored with its instance and given back for that instance only, even if
    threads interleave); a solve that raised is not kept. The stored results drop their
    live search (the HiGHS models), which the policies never read.
    """

    def __init__(self) -> None:
        self._inst: Instance | None = None
        self._solves: dict[tuple[Any, ...], tuple[Instance, MaxStretchResult]] = {}
        #: Solves answered from the memo, and solves computed (for tests and benchmarks).
        self.hits = 0
        self.misses = 0

    def _lookup(self, inst: Instance, key: tuple[Any, ...]) -> MaxStretchResult | None:
        if inst is not self._inst:
            self._inst, self._solves = inst, {}
        found = self._solves.get(key)
        if found is None or found[0] is not inst:
            return None
        self.hits += 1
        return found[1]

    def _keep(self, inst: Instance, key: tuple[Any, ...],
              res: MaxStretchResult) -> MaxStretchResult:
        self.misses += 1
        if inst is self._inst:
            self._solves[key] = (inst, dataclasses.replace(res, search=None))
        return res

    def offline(self, inst: Instance, time_limit: float | None = SOLVE_TIME_LIMIT,
                ) -> MaxStretchResult:
        """:func:`~lpsched.bags.maxstretch.max_stretch` of ``inst``, solved once.

        Parameters
        ----------
        inst : Instance
            The instance.
        time_limit : float or None
            Seconds the solve may take when it is computed (a stored answer is the same
            whatever the limit: a solve out of time raises and is not stored).

        Returns
        -------
        MaxStretchResult
            The offline optimum and its plan.
        """
        key = ("offline",)
        found = self._lookup(inst, key)
        if found is not None:
            return found
        return self._keep(inst, key, max_stretch(inst, time_limit=time_limit))

    def online(self, inst: Instance, t_new: float, remaining: np.ndarray,
               buffered: np.ndarray, released: np.ndarray,
               time_limit: float | None = SOLVE_TIME_LIMIT) -> MaxStretchResult:
        """:func:`~lpsched.bags.maxstretch.online_max_stretch` from a state, solved once.

        Parameters
        ----------
        inst : Instance
            The instance.
        t_new : float
            The re-solve date (s).
        remaining : numpy.ndarray
            Tasks of each application at the master, shape ``(n,)``.
        buffered : numpy.ndarray
            Tasks held by each worker, shape ``(n, p)``.
        released : numpy.ndarray
            Which applications have arrived, shape ``(n,)``.
        time_limit : float or None
            As for :meth:`offline`.

        Returns
        -------
        MaxStretchResult
            The optimum on ``[t_new, inf)`` and its plan.
        """
        rem = np.ascontiguousarray(remaining, float)
        buf = np.ascontiguousarray(buffered, float)
        rel = np.ascontiguousarray(released, bool)
        key = ("online", float(t_new), rem.tobytes(), buf.shape, buf.tobytes(), rel.tobytes())
        found = self._lookup(inst, key)
        if found is not None:
            return found
        return self._keep(inst, key, online_max_stretch(inst, t_new, rem, buf, released=rel,
                                                        time_limit=time_limit))


#: The memo of every CBS3M policy of this process (:class:`SolveMemo`).
SOLVES = SolveMemo()


class PlanDispatcher:
    """Turns a plan's amounts ``comm[k, u, j]`` over ``epochs`` into single sends."""

    def __init__(self, sim: StarSimulator, res: MaxStretchResult, eager: bool = False) -> None:
        plan = res.plan
        self.eager = eager
        self.apps = np.asarray(plan.apps, int)  # plan row -> instance application
        self.epochs = np.asarray(plan.epochs, float)
        self.comm = np.asarray(plan.comm, float)
        m, p = self.apps.size, sim.p
        self.credit = np.zeros((m, p))
        self.quota = np.zeros((m, p), int)
        self.sent = np.zeros((m, p), int)
        self.rate = np.zeros((m, p))
        # index of the interval that ends at each application's deadline
        self.last = np.clip(np.searchsorted(self.epochs, plan.deadlines * (1 - 1e-12)) - 1,
                            0, max(self.epochs.size - 2, 0))
        self.deadlines = np.asarray(plan.deadlines, float)
        self.j = -1
        self.n_intervals = self.epochs.size - 1

    def _open(self, sim: StarSimulator, j: int) -> None:
        self.j = j
        amount = self.comm[:, :, j]
        self.credit += amount
        quota = np.floor(self.credit + 1e-9).astype(int)
        unsent = sim.unsent[self.apps]
        for row in range(self.apps.size):
            q = quota[row]
            excess = int(q.sum() - unsent[row])
            if excess > 0:  # lower the quotas of the smallest credits first
                for u in np.lexsort((np.arange(q.size), self.credit[row])):
                    take = min(excess, q[u])
                    q[u] -= take
                    excess -= take
                    if excess == 0:
                        break
            if j >= self.last[row] and q.sum() < unsent[row]:
                # the application's last interval: leave nothing behind
                missing = int(unsent[row] - q.sum())
                residual = self.credit[row] - q
                order = np.lexsort((np.arange(q.size), -residual))
                for step in range(missing):
                    q[order[step % q.size]] += 1
        self.quota = quota
        self.sent[:] = 0
        length = self.epochs[j + 1] - self.epochs[j]
        self.rate = np.maximum(amount, quota) / length if length > 0 else quota.astype(float)

    def next_send(self, sim: StarSimulator) -> tuple[int, int] | float | None:
        """A send ``(k, u)``, or the time to wake up at, or ``None`` when the plan is over.
        Eager: rather than waiting for the next interval, open it now (repeatedly, up to the
        plan's last) until a send is found.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).

        Returns
        -------
        tuple of int, float or None
            ``(k, u)``: send a task of application k to worker u now; a float: no send before
            that time (the next interval's start, or ``LINKS_BUSY``: wait for a link); ``None``:
            the plan is over.
        """
        now = sim.now
        while self.j < self.n_intervals - 1 and (self.j < 0 or now >= self.epochs[self.j + 1]):
            self._open(sim, self.j + 1)
        if self.j < 0:
            return None
        while True:
            decision = self._next_in_interval(sim)
            if not (self.eager and isinstance(decision, float) and decision != LINKS_BUSY):
                return decision
            self._open(sim, self.j + 1)  # eager: the next interval's sends, now

    def _next_in_interval(self, sim: StarSimulator) -> tuple[int, int] | float | None:
        # epochs are recomputed from the stretch, so a window may open an ulp before the
        # release event fires: only released applications are candidates
        ready = (sim.unsent[self.apps] > 0) & sim.released[self.apps]
        free = sim.free_links()
        owed = (self.quota - self.sent) * ready[:, None]
        rows, us = np.nonzero(owed * free[None, :] > 0)  # C order, as np.argwhere
        if rows.size:
            rate = self.rate[rows, us]
            due = np.where(rate > 0, (self.sent[rows, us] + 1) / np.where(rate > 0, rate, 1.0),
                           math.inf)
            # applications in (or past) their last interval go first, earliest deadline
            # first: the tail of Theorem 6, sent serially at d_k
            tail = self.j >= self.last[rows]
            due = np.where(tail, self.deadlines[rows], due)
            first = np.lexsort((us, self.apps[rows], due, ~tail))[0]
            row, u = rows[first], us[first]
            self.sent[row, u] += 1
            self.credit[row, u] -= 1
            return int(self.apps[row]), int(u)
        if not free.all() and (owed > 0).any():
            return LINKS_BUSY  # quota left on busy links (multiport): wait for a transfer
        if self.j < self.n_intervals - 1:
            return float(self.epochs[self.j + 1])
        return None


class CBS3M(BasePolicy):
    """``cbs3m-<fifo|edf>-<online|offline>[-eager]`` (the eager dispatcher of the module
    doc when ``eager``)."""

    def __init__(self, worker_order: str, online: bool, eager: bool = False) -> None:
        self.worker_order = worker_order
        self.online = online
        self.eager = eager
        self.name = (f"cbs3m-{worker_order}-{'online' if online else 'offline'}"
                     + ("-eager" if eager else ""))
        self.stretch = 1.0
        self.dispatcher: PlanDispatcher | None = None
        self.solve_seconds: list[float] = []
        self.stretches: list[float] = []
        self._wake: Event | None = None

    def deadline(self, sim: StarSimulator, k: int) -> float:
        """``d_k = r_k + S·MS*_k`` with ``S`` the stretch of the latest solve (s): the EDF key of
        the workers.

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
        return float(sim.inst.release[k] + self.stretch * sim.ms[k])

    def _adopt(self, sim: StarSimulator, res: MaxStretchResult, seconds: float) -> None:
        self.stretch = res.stretch
        self.stretches.append(res.stretch)
        self.solve_seconds.append(seconds)
        self.dispatcher = PlanDispatcher(sim, res, self.eager)
        rekey_queues(sim)

    def _solve(self, sim: StarSimulator) -> None:
        t0 = time.perf_counter()
        left = sim.time_left()  # the run's budget bounds every solve
        limit = SOLVE_TIME_LIMIT if left is None else min(SOLVE_TIME_LIMIT, left)
        if not self.online:
            res = SOLVES.offline(sim.inst, time_limit=limit)
        else:
            rem = np.where(sim.released, sim.unsent, 0).astype(float)
            res = SOLVES.online(sim.inst, sim.now, rem, buffered_state(sim), sim.released,
                                time_limit=limit)
        self._adopt(sim, res, time.perf_counter() - t0)

    def start(self, sim: StarSimulator) -> None:
        """Offline: solve the max-stretch plan of the whole instance at time 0 (never re-solved).

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        """
        if not self.online:
            self._solve(sim)

    def on_release(self, sim: StarSimulator, k: int) -> None:
        """Online: solve the max-stretch problem on ``[now, ∞)`` from the simulated state and
        replace the plan.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        k : int
            The application just released.
        """
        if self.online:
            self._solve(sim)

    def _has_work(self, sim: StarSimulator) -> bool:
        return bool((sim.released & (sim.unsent > 0)).any())

    def next_send(self, sim: StarSimulator) -> tuple[int, int] | None:
        """The plan's next send, or ``None`` with a wake-up when the quotas are used up.

        As :meth:`PlanDispatcher.next_send`; when the quotas are used up until the next plan
        interval, a wake-up then and ``None``. When the plan is over while tasks remain:
        online, solve again; offline (or if that still gives nothing), the released
        application with the earliest deadline to its MCT worker among the free links.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).

        Returns
        -------
        tuple of int or None
            ``(k, u)``: send a task of application k to worker u now; ``None``: no send now.

        Raises
        ------
        SolverError
            An online re-solve of the max-stretch problem failed (from the solver).
        """
        if not self._has_work(sim):
            return None
        decision = self.dispatcher.next_send(sim) if self.dispatcher else None
        if isinstance(decision, tuple):
            return decision
        if decision is LINKS_BUSY:
            return None
        if isinstance(decision, float):  # the next plan interval
            sim.engine.cancel(self._wake)
            self._wake = sim.wake_at(decision)
            return None
        # the plan is used up while tasks remain (rounding): re-solve online, MCT offline
        if self.online:
            self._solve(sim)
            decision = self.dispatcher.next_send(sim) if self.dispatcher else None
            if isinstance(decision, tuple):
                return decision
        ks = np.flatnonzero(sim.released & (sim.unsent > 0))
        k = int(ks[np.lexsort((ks, sim.inst.release[ks] + self.stretch * sim.ms[ks]))[0]])
        est = np.maximum(sim.now + sim.comm[k], sim.ready) + sim.comp[k]
        return k, int(np.argmin(np.where(sim.free_links(), est, np.inf)))

    def stats(self) -> dict[str, Any]:
        """``solves``, ``solve_seconds`` (wall time of each max-stretch solve) and ``stretches``
        (the optimal stretch of each).

        Returns
        -------
        dict
            ``{"solves": int, "solve_seconds": list of float, "stretches": list of float}``.
        """
        return {"solves": len(self.solve_seconds), "solve_seconds": self.solve_seconds,
                "stretches": self.stretches}
