"""The twelve greedy heuristics of seed 003 §4.1: an application-selection rule
(FIFO, SPT, SRPT, SWRPT) times a resource-selection rule (RR, MCT, DD).

Only one application is dispatched at a time [L755, L886]; it is "done" when none of its
tasks is left at the master (dispatch-level switching, decision A17). Keys, ascending, ties
by release date then index (decision A18):

* FIFO: release date;
* SPT: ``MS*_k`` (the whole application alone) — re-chosen only when the current one is done;
* SRPT: ``RPT_k = Π_unsent/ρ*`` — re-evaluated at every release (dispatch-level preemption);
* SWRPT: ``RPT_k·MS*_k`` — as SRPT.

Resources, whenever a send can start (decisions A19–A21; under bounded multiport only the
workers whose link is idle are candidates):

* RR: a global cyclic pointer over the workers, kept across applications;
* MCT: ``argmin_u max(now + δ/b_u, ready_u) + w/s_u`` (ties: lower ``u``), ``ready_u`` the
  time ``u`` finishes all work already assigned to it;
* DD: a worker asks for a task when it "becomes idle" [L775]; requests are served oldest
  first (ties: lower ``u``), one task each. *When* it asks is the reading ``dd_request``
  (decision 316): ``"idle"`` — at time 0 and after finishing its last task with nothing queued
  or on its way (decision A20); ``"received"`` — at time 0 and as soon as the task it asked
  for has arrived (its receiving side is idle again, one request outstanding per worker).
  Under one-port, ``"received"`` serves the workers in the cyclic order 0, 1, …, p−1, 0, …
  whatever the speeds, so DD makes exactly RR's choices: the identity of every RR and DD
  row of the seed's Tables 4–8 [L893–L1012] (tested).

When the master moves to the next application is the reading ``switch`` (decision 317):
``"dispatch"`` — once none of the current application's tasks is left at the master
(decision A17); ``"complete"`` — once all of them are computed, the master's port idling
meanwhile ("wait for an application to terminate before scheduling another application"
[L755]; SPT "the first application must be completed before we determine the next one"
[L763]; SRPT "fully executed one after the other … until a new release date occurs"
[L765]). SRPT and SWRPT still re-choose at every release under both. Workers compute
FIFO. :data:`DD_REQUEST` and :data:`SWITCH` are the registered policies' readings.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from lpsched.bags.simulator import BasePolicy, StarSimulator
from lpsched.errors import LpschedError

APP_RULES = ("fifo", "spt", "srpt", "swrpt")
RESOURCE_RULES = ("rr", "mct", "dd")
DD_REQUESTS = ("idle", "received")
SWITCHES = ("dispatch", "complete")
#: The readings of the registered policies: DD asks on reception (decision 316, the
#: identity of RR and DD [L893–L1012]) and the master moves on once the current application
#: is computed (decision 317, [L755, L763, L765]).
DD_REQUEST = "received"
SWITCH = "complete"


class GreedyPolicy(BasePolicy):
    """``<app_rule>-<resource_rule>``, e.g. ``GreedyPolicy("swrpt", "mct")``."""

    def __init__(self, app_rule: str, resource_rule: str, *, dd_request: str | None = None,
                 switch: str | None = None) -> None:
        if app_rule not in APP_RULES or resource_rule not in RESOURCE_RULES:
            raise LpschedError(f"unknown greedy policy {app_rule}-{resource_rule}")
        self.dd_request = DD_REQUEST if dd_request is None else dd_request
        self.switch = SWITCH if switch is None else switch
        if self.dd_request not in DD_REQUESTS:
            raise LpschedError(f"dd_request {self.dd_request!r}: must be one of {DD_REQUESTS}")
        if self.switch not in SWITCHES:
            raise LpschedError(f"switch {self.switch!r}: must be one of {SWITCHES}")
        self.app_rule = app_rule
        self.resource_rule = resource_rule
        self.name = f"{app_rule}-{resource_rule}"
        self.current: int | None = None
        self.pointer = 0
        self.requests: deque[int] = deque()

    def start(self, sim: StarSimulator) -> None:
        """Reset the state: no current application, the RR pointer on worker 0 and, for DD, every
        worker asking for a task (all are idle at time 0).

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        """
        self.current = None
        self.pointer = 0
        self.requests = deque(range(sim.p))  # DD: every worker is idle at time 0

    def on_release(self, sim: StarSimulator, k: int) -> None:
        """SRPT and SWRPT: drop the current application so that the next dispatch re-chooses it
        with the new arrival among the candidates (dispatch-level preemption).

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        k : int
            The application just released.
        """
        if self.app_rule in ("srpt", "swrpt"):
            self.current = None  # re-evaluate at the next dispatch

    def on_compute_done(self, sim: StarSimulator, k: int, u: int) -> None:
        """DD, ``dd_request="idle"``: worker ``u`` asks for a task when it has become idle
        (nothing computing, queued or on its way).

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        k : int
            The application of the task computed.
        u : int
            The worker.
        """
        if self.resource_rule == "dd" and self.dd_request == "idle" and sim.idle_worker(u):
            self.requests.append(u)

    def on_send_done(self, sim: StarSimulator, k: int, u: int) -> None:
        """DD, ``dd_request="received"``: worker ``u`` asks for its next task as soon as the
        one it asked for has arrived.

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).
        k : int
            The application of the task received.
        u : int
            The worker.
        """
        if self.resource_rule == "dd" and self.dd_request == "received":
            self.requests.append(u)

    def _key(self, sim: StarSimulator, candidates: np.ndarray) -> int:
        r = sim.inst.release[candidates]
        ms = sim.ms[candidates]
        rpt = ms * sim.unsent[candidates] / sim.tasks[candidates]
        primary = {"fifo": r, "spt": ms, "srpt": rpt, "swrpt": rpt * ms}[self.app_rule]
        return int(candidates[np.lexsort((candidates, r, primary))[0]])

    def next_send(self, sim: StarSimulator) -> tuple[int, int] | None:
        """The next send: a task of the current application to the worker the resource rule picks.

        The application is re-chosen by the application rule (ascending key, ties by release
        date then index) when it has none left at the master; the worker is picked among the
        free links: RR the next in the cycle, MCT the earliest completion
        ``max(now + δ/b_u, ready_u) + w/s_u``, DD the oldest request (``None`` when no worker
        asks).

        Parameters
        ----------
        sim : StarSimulator
            The simulator running the policy (its clock, released and unsent tasks, links).

        Returns
        -------
        tuple of int or None
            ``(k, u)``: send a task of application k to worker u now; ``None``: no send now.
        """
        cur = self.current
        if (cur is not None and self.switch == "complete" and sim.unsent[cur] == 0
                and sim.done[cur] < sim.tasks[cur]):
            return None  # wait until the current application is computed [L755, L763]
        if self.current is None or sim.unsent[self.current] == 0:
            candidates = np.flatnonzero(sim.released & (sim.unsent > 0))
            if candidates.size == 0:
                self.current = None
                return None
            self.current = self._key(sim, candidates)
        k = self.current
        free = sim.free_links()  # one-port: every worker; multiport: the idle links
        if self.resource_rule == "rr":
            u = self.pointer
            if not free[u]:  # multiport: the next idle link in the cycle
                turn = (self.pointer + np.arange(sim.p)) % sim.p
                u = int(turn[np.argmax(free[turn])])
            self.pointer = (u + 1) % sim.p
        elif self.resource_rule == "mct":
            est = np.maximum(sim.now + sim.comm[k], sim.ready) + sim.comp[k]
            u = int(np.argmin(est if sim.one_port else np.where(free, est, np.inf)))
        else:
            asking = [v for v in self.requests if free[v]]
            if not asking:
                return None
            u = asking[0]
            self.requests.remove(u)
        return k, u
