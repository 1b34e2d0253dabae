"""The event-driven campaign simulator (seed 002 §9; spec §9.2-9.3) on
:class:`lpsched.core.engine.Engine`.

Events and their order at equal timestamps (spec §9.2, engine priorities):
``JOB_FINISH`` (0) < ``VIRTUAL_FINISH`` (1) < ``CAMPAIGN_SUBMIT`` (2) < ``TICK`` (3) <
one scheduling pass (4). Before any event the policy advances its clocks to ``now``
(:meth:`Policy.advance`), using the capacity of the closing interval.

The simulator owns the real schedule R: free processors (counts: rigid jobs on identical
machines), the release of campaigns (closed loop ``C_{i-1} + think``, open loop
``max(submit, C_{i-1})``: a user's campaigns are sequential, spec A13), the release of jobs
whose predecessors have all finished, completions. A :class:`Policy` only decides which
released job starts next (:meth:`Policy.schedule`, calling :meth:`Simulator.start`).
Trace pieces (downtime splitting, §5.7) are simulated one after the other, each on its
own machine.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np

from lpsched.campaigns.instance import Workload, select_campaigns
from lpsched.campaigns.schedule import CampaignRun, check_invariants, previous_campaign
from lpsched.core.engine import Engine
from lpsched.errors import InvalidScheduleError

FINISH, VIRTUAL, SUBMIT, TICK, PASS = 0, 1, 2, 3, 4


class Policy:
    """The decision side of the simulator: one instance per run (per trace piece)."""

    name = "policy"

    def attach(self, sim: Simulator) -> None:
        """Bind the policy to ``sim`` (``self.sim``) before the run; subclasses reset their state
        here (one policy instance per run).

        Parameters
        ----------
        sim : Simulator
            The simulator that will call this policy.
        """
        self.sim = sim

    def advance(self, now: float) -> None:
        """Bring the policy's clocks to ``now`` (before any event at ``now``).

        Parameters
        ----------
        now : float
            The simulated time of the next event (s).
        """

    def on_submit(self, c: int) -> None:
        """Campaign ``c`` is submitted (``sim.release[c]`` is set).

        Parameters
        ----------
        c : int
            The campaign submitted.
        """

    def on_ready(self, c: int, jobs: list[int]) -> None:
        """Jobs of ``c`` are released (their predecessors done).

        Parameters
        ----------
        c : int
            The campaign whose jobs became ready.
        jobs : list of int
            The jobs released (indices into the workload).
        """

    def on_finish(self, j: int) -> None:
        """Job ``j`` completed (its processors are free again).

        Parameters
        ----------
        j : int
            The job completed (index into the workload).
        """

    def on_campaign_done(self, c: int) -> None:
        """Every job of ``c`` completed in R.

        Parameters
        ----------
        c : int
            The campaign completed.
        """

    def schedule(self) -> None:
        """Start released jobs with :meth:`Simulator.start` (one pass)."""
        raise NotImplementedError

    def after_pass(self) -> None:
        """After the pass at ``now``: reschedule the policy's own predicted events."""

    def info(self) -> dict[str, Any]:
        """What the policy reports at the end of a run (JSON-ready), stored as the ``info`` of
        the :class:`~lpsched.campaigns.schedule.CampaignRun`; empty here.

        Returns
        -------
        dict
            The policy's report (subclasses add their fields).
        """
        return {}


class Simulator:
    """Real schedule R of one workload (one trace piece) under one policy (module doc).

    Complexity: O((n + e) log n) engine work plus the policy's passes.
    """

    def __init__(self, w: Workload, policy: Policy) -> None:
        self.w = w
        self.m = w.processors
        self.free = w.processors
        self.eng = Engine()
        self.p = w.p.tolist()
        self.q = w.q.tolist()
        self.camp = w.camp.tolist()
        self.start_t = np.full(w.jobs, np.nan)
        self.release = np.full(w.campaigns, np.nan)
        self.left = np.diff(w.offsets).tolist()
        self.completion = [math.nan] * w.campaigns
        prev = previous_campaign(w)
        self.next_of = [-1] * w.campaigns
        for c, pc in enumerate(prev.tolist()):
            if pc >= 0:
                self.next_of[pc] = c
        self.firsts = np.flatnonzero(prev < 0).tolist()
        self._deps(w)
        self._pass_at = -math.inf
        self.running = 0
        self.policy = policy
        policy.attach(self)

    def _deps(self, w: Workload) -> None:
        n = w.jobs
        self.need = np.bincount(w.dep_dst, minlength=n).tolist()
        order = np.argsort(w.dep_src, kind="stable")
        self.succ_start = np.searchsorted(w.dep_src[order], np.arange(n + 1)).tolist()
        self.succ = w.dep_dst[order].tolist()
        self.nsucc = np.diff(np.asarray(self.succ_start)).tolist() if n else []

    # -- events ------------------------------------------------------------------------
    def run(self) -> CampaignRun:
        """Submit the first campaign of every user, run the events to the end and return the real
        schedule R; raises :class:`~lpsched.errors.InvalidScheduleError` if a job never started
        (the policy stalled).

        Returns
        -------
        CampaignRun
            The policy's name, the workload, each job's start, each campaign's release, the
            policy's :meth:`Policy.info` and the number of events processed.

        Raises
        ------
        InvalidScheduleError
            A job never started (the policy stalled), or one started without room.
        """
        w = self.w
        for c in self.firsts:
            t = 0.0 if math.isnan(w.submit[c]) else float(w.submit[c])
            self.eng.at(t, partial(self._submit, c), SUBMIT)
        self.eng.run()
        if np.isnan(self.start_t).any():
            j = int(np.flatnonzero(np.isnan(self.start_t))[0])
            raise InvalidScheduleError("started", f"job {j} never started under "
                                       f"{self.policy.name} (the policy stalled)", j)
        return CampaignRun(self.policy.name, w, self.start_t, self.release,
                           self.policy.info(), self.eng.processed)

    def _event(self) -> None:
        self.policy.advance(self.eng.now)
        if self._pass_at != self.eng.now:
            self._pass_at = self.eng.now
            self.eng.at(self.eng.now, self._pass, PASS)

    def request_pass(self) -> None:
        """Ask for one scheduling pass at ``now`` (policy events use it)."""
        self._event()

    def _submit(self, c: int) -> None:
        self._event()
        self.release[c] = self.eng.now
        self.policy.on_submit(c)
        lo, hi = int(self.w.offsets[c]), int(self.w.offsets[c + 1])
        ready = [j for j in range(lo, hi) if self.need[j] == 0]
        if ready:
            self.policy.on_ready(c, ready)

    def _finish(self, j: int) -> None:
        self._event()
        self.free += self.q[j]
        self.running -= 1
        self.policy.on_finish(j)
        c = self.camp[j]
        released = []
        for s in self.succ[self.succ_start[j]:self.succ_start[j + 1]]:
            self.need[s] -= 1
            if self.need[s] == 0:
                released.append(s)
        if released:
            self.policy.on_ready(c, released)
        self.left[c] -= 1
        if self.left[c] == 0:
            self._campaign_done(c)

    def _campaign_done(self, c: int) -> None:
        now = self.eng.now
        self.completion[c] = now
        self.policy.on_campaign_done(c)
        nxt = self.next_of[c]
        if nxt >= 0:
            sub = self.w.submit[nxt]
            t = now + float(self.w.think[nxt]) if math.isnan(sub) else max(float(sub), now)
            self.eng.at(t, partial(self._submit, nxt), SUBMIT)

    def _pass(self) -> None:
        self._pass_at = -math.inf  # a later event at this same time asks for another pass
        self.policy.schedule()
        self.policy.after_pass()

    def start(self, j: int) -> None:
        """Start job ``j`` now (the policy checked that it fits).

        Parameters
        ----------
        j : int
            The job to start (index into the workload).

        Raises
        ------
        InvalidScheduleError
            The job needs more processors than are free.
        """
        q = self.q[j]
        if q > self.free:
            raise InvalidScheduleError("capacity", f"job {j} needs {q} processors, "
                                       f"{self.free} free", j)
        self.free -= q
        self.running += 1
        now = self.eng.now
        self.start_t[j] = now
        self.eng.at(now + self.p[j], partial(self._finish, j), FINISH)

    def intra_key(self, j: int) -> tuple[int, int, float, int]:
        """Intra-campaign order (§5.4, §5.6, spec A9): most immediate successors, then
        largest size (LJF), then longest (LPT), then index.

        Parameters
        ----------
        j : int
            The job (index into the workload).

        Returns
        -------
        tuple
            ``(-successors, -q, -p, j)``: smaller keys run first.
        """
        return (-self.nsucc[j], -self.q[j], -self.p[j], j)


def simulate(w: Workload, make_policy: Any) -> CampaignRun:
    """Run ``make_policy()`` on ``w``, each trace piece on its own (spec §5.7, A14); the pieces'
    results are merged in the workload's order.

    See the module doc.

    Parameters
    ----------
    w : Workload
        The users' campaigns (:func:`lpsched.campaigns.instance.make_workload`,
        :func:`~lpsched.campaigns.instance.load_workload`, the generators).
    make_policy : callable
        Returns a fresh :class:`Policy` for each piece, e.g.
        :func:`lpsched.campaigns.policies.policy_factory`.

    Returns
    -------
    CampaignRun
        Job start times and campaign releases; the simulator's invariants are checked,
        :func:`lpsched.campaigns.schedule.validate` checks the schedule independently.

    Examples
    --------
    One processor; user 0 submits four 2-second jobs at 0, user 1 one 1-second job at 1.
    FCFS makes user 1 wait for all of user 0's campaign, OStrich (seed 002 ch. 5) runs it
    next:

    >>> from lpsched.campaigns.instance import make_workload
    >>> from lpsched.campaigns.metrics import campaign_stretch
    >>> from lpsched.campaigns.policies import policy_factory
    >>> w = make_workload(1, [{"user": 0, "submit": 0.0, "jobs": [{"p": 2.0, "q": 1}] * 4},
    ...                       {"user": 1, "submit": 1.0, "jobs": [{"p": 1.0, "q": 1}]}])
    >>> fcfs = simulate(w, policy_factory("fcfs", parallel=False))
    >>> fcfs.start.tolist(), campaign_stretch(fcfs).tolist()
    ([0.0, 2.0, 4.0, 6.0, 8.0], [1.0, 8.0])
    >>> ostrich = simulate(w, policy_factory("ostrich", parallel=False))
    >>> ostrich.start.tolist(), campaign_stretch(ostrich).round(3).tolist()
    ([0.0, 3.0, 5.0, 7.0, 2.0], [1.125, 2.0])
    """
    pieces = np.unique(w.piece)
    if pieces.size == 1:
        run = Simulator(w, make_policy()).run()
        check_invariants(run)
        return run
    start = np.empty(w.jobs)
    release = np.empty(w.campaigns)
    events = 0
    info: dict[str, Any] = {}
    job_piece = w.piece[w.camp]
    name = ""
    for k in pieces.tolist():
        idx = np.flatnonzero(w.piece == k)
        run = Simulator(select_campaigns(w, idx), make_policy()).run()
        check_invariants(run)  # the piece's own V and tags (merging keeps scalars only)
        start[job_piece == k] = run.start
        release[idx] = run.release
        events += run.events
        name = run.policy
        for key, v in run.info.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                info[key] = info.get(key, 0) + v
            elif isinstance(v, bool):
                info[key] = info.get(key, True) and v
            elif isinstance(v, str):  # e.g. OStrich's resize_mode: the same in every piece
                info[key] = v if info.get(key, v) == v else "mixed"
    return CampaignRun(name, w, start, release, info, events)

