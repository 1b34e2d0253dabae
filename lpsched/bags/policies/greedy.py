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
* DD: a worker asks for a task when it is idle (at time 0 and after finishing its last task
  with nothing queued or on its way); requests are served oldest first (ties: lower ``u``),
  one task each. Workers compute in FIFO order.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from lpsched.bags.simulator import BasePolicy, StarSimulator
from lpsched.errors import LpschedError

APP_RULES = ("fifo", "spt", "srpt", "swrpt")
RESOURCE_RULES = ("rr", "mct", "dd")


class GreedyPolicy(BasePolicy):
    """``<app_rule>-<resource_rule>``, e.g. ``GreedyPolicy("swrpt", "mct")``."""

    def __init__(self, app_rule: str, resource_rule: str) -> None:
        if app_rule not in APP_RULES or resource_rule not in RESOURCE_RULES:
            raise LpschedError(f"unknown greedy policy {app_rule}-{resource_rule}")
        self.app_rule = app_rule
        self.resource_rule = resource_rule
        self.name = f"{app_rule}-{resource_rule}"
        self.current: int | None = None
        self.pointer = 0
        self.requests: deque[int] = deque()

    def start(self, sim: StarSimulator) -> None:
        """Reset the state: no current application, the RR pointer on worker 0 and, for DD, every
        worker asking for a task (all are idle at time 0)."""
        self.current = None
        self.pointer = 0
        self.requests = deque(range(sim.p))  # DD: every worker is idle at time 0

    def on_release(self, sim: StarSimulator, k: int) -> None:
        """SRPT and SWRPT: drop the current application so that the next dispatch re-chooses it
        with the new arrival among the candidates (dispatch-level preemption)."""
        if self.app_rule in ("srpt", "swrpt"):
            self.current = None  # re-evaluate at the next dispatch

    def on_compute_done(self, sim: StarSimulator, k: int, u: int) -> None:
        """DD: worker ``u`` asks for a task when it has become idle (nothing computing, queued or
        on its way)."""
        if self.resource_rule == "dd" and sim.idle_worker(u):
            self.requests.append(u)

    def _key(self, sim: StarSimulator, candidates: np.ndarray) -> int:
        r = sim.inst.release[candidates]
        ms = sim.ms[candidates]
        rpt = ms * sim.unsent[candidates] / sim.tasks[candidates]
        primary = {"fifo": r, "spt": ms, "srpt": rpt, "swrpt": rpt * ms}[self.app_rule]
        return int(candidates[np.lexsort((candidates, r, primary))[0]])

    def next_send(self, sim: StarSimulator) -> tuple[int, int] | None:
        """A task of the current application (re-chosen by the application rule, ascending key,
        ties by release date then index, when it has none left at the master) to the worker the
        resource rule picks among the free links: RR the next in the cycle, MCT the earliest
        completion ``max(now + δ/b_u, ready_u) + w/s_u``, DD the oldest request (``None`` when no
        worker asks)."""
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
