"""FairCamp (seed 002 ch. 4, spec §4): EDF over ρ-schedules run as blocks.

On the submission of campaign ``i`` of user ``u`` (Algorithm 1), its ρ-schedule ``ζ`` on all
``m`` processors is computed (LPT, spec A3) and its deadline set by Eq. 4.1,
``d_i^u = k Δ(ζ_i^u) + d_{i-1}^u`` with ``k`` the configured number of users (spec A4).
Whenever the machine is entirely free (the previous block ended: block semantics (i),
spec A3) the ready block of smallest deadline starts (Algorithm 2; ties: smaller user
index, then earlier submission); its jobs start at ``now + ζ``. Prop 4.1: every campaign
completes by its deadline (``C <= d``), checked on every run.
"""

from __future__ import annotations

import heapq
import math
from functools import partial
from typing import Any

import numpy as np

from lpsched.campaigns.instance import Workload
from lpsched.campaigns.offline import lpt
from lpsched.campaigns.schedule import CampaignRun, check_invariants, previous_campaign
from lpsched.campaigns.sequential import applies, block_schedule, list_schedule, lpt_schedules
from lpsched.campaigns.simulator import Policy, Simulator, simulate
from lpsched.core.engine import Engine
from lpsched.errors import InvalidInstanceError, InvalidScheduleError

BLOCK_END, SUBMIT, PASS = 0, 2, 4


def check_sequential(w: Workload) -> None:
    """Refuse rigid parallel jobs for FairCamp, in both readings (block and packed).

    FairCamp (seed 002 ch. 4) is defined for sequential jobs: "when size is not mentioned,
    jobs should be considered sequential [...] This is assumed in most of this thesis, with
    the exception of Chapter 6" ([L755]), and the ρ-schedule behind the Eq. 4.1 deadlines
    is "calculated by a ρ-approximation algorithm using all the processors" ([L1059]; LPT
    here, spec A3), which ignores ``q``.

    Parameters
    ----------
    w : Workload
        The workload to schedule.

    Raises
    ------
    InvalidInstanceError
        If a job needs more than one processor (``q > 1``), naming the largest ``q``.

    Notes
    -----
    A packed mode that took ``q > 1`` would start a job on fewer free processors than it
    needs (decision 245).

    Examples
    --------
    >>> from lpsched.campaigns.instance import make_workload
    >>> check_sequential(make_workload(2, [{"user": 0, "jobs": [{"p": 1.0}]}]))
    >>> try:
    ...     check_sequential(make_workload(2, [{"user": 0, "jobs": [{"p": 1.0, "q": 2}]}]))
    ... except InvalidInstanceError as exc:
    ...     print(exc.field, exc.value)
    q 2
    """
    if w.parallel:
        raise InvalidInstanceError("q", int(w.q.max()), "faircamp schedules sequential jobs "
                                   "(q = 1): use ostrich for rigid parallel jobs")


class _FairCamp:
    """State of one FairCamp run (spec §4.3, consolidated event-driven version)."""

    def __init__(self, w: Workload) -> None:
        self.w = w
        self.eng = Engine()
        self.k = w.users
        self.deadline_of_user: dict[int, float] = {}  # d_{i-1}^u of the users seen so far
        self.ready: list[tuple[float, int, int, int]] = []
        self.busy = False
        self.start = np.full(w.jobs, np.nan)
        self.release = np.full(w.campaigns, np.nan)
        self.deadline = np.full(w.campaigns, np.nan)
        self.length = np.full(w.campaigns, np.nan)
        self.completion = np.full(w.campaigns, np.nan)
        self.zeta: dict[int, np.ndarray] = {}
        self.seq = 0
        prev = previous_campaign(w)
        self.next_of = np.full(w.campaigns, -1, dtype=np.int64)
        self.next_of[prev[prev >= 0]] = np.flatnonzero(prev >= 0)
        self.firsts = np.flatnonzero(prev < 0).tolist()

    def submit(self, c: int) -> None:
        """HANDLESUBMISSIONS (Algorithm 1)."""
        w = self.w
        self.release[c] = self.eng.now
        lo, hi = int(w.offsets[c]), int(w.offsets[c + 1])
        zeta, length = lpt(w.p[lo:hi], w.processors)
        u = int(w.user[c])
        d = self.k * length + self.deadline_of_user.get(u, 0.0)
        self.deadline_of_user[u] = d
        self.zeta[c], self.length[c], self.deadline[c] = zeta, length, d
        heapq.heappush(self.ready, (d, u, self.seq, c))
        self.seq += 1
        self.eng.at(self.eng.now, self.schedule, PASS)

    def schedule(self) -> None:
        """SCHEDULEEDF (Algorithm 2), block semantics."""
        if self.busy or not self.ready:
            return
        c = heapq.heappop(self.ready)[3]
        w = self.w
        now = self.eng.now
        self.start[w.offsets[c]:w.offsets[c + 1]] = now + self.zeta.pop(c)
        self.busy = True
        self.eng.at(now + self.length[c], partial(self.block_end, c), BLOCK_END)

    def block_end(self, c: int) -> None:
        now = self.eng.now
        self.completion[c] = now
        self.busy = False
        nxt = int(self.next_of[c])
        if nxt >= 0:
            sub = self.w.submit[nxt]
            t = now + float(self.w.think[nxt]) if math.isnan(sub) else max(float(sub), now)
            self.eng.at(t, partial(self.submit, nxt), SUBMIT)
        self.eng.at(now, self.schedule, PASS)


def faircamp(w: Workload, rho: tuple[np.ndarray, np.ndarray] | None = None) -> CampaignRun:
    """Run FairCamp on ``w`` (module doc).

    Sequential jobs without dependencies (the ρ-schedule is LPT). Raises
    :class:`InvalidScheduleError` if a campaign misses its deadline (Prop 4.1, B13: a finding, never
    silenced).

    Guarantees: ``C_i^u <= d_i^u`` (Prop 4.1); ``C_last^u <= k Σ Δ(ζ) <= kρ ΣΔ*`` (Cor 4.1).
    Complexity: O(n log n).

    Raises :class:`InvalidInstanceError` for parallel jobs (:func:`check_sequential`),
    dependencies or several trace pieces.

    Parameters
    ----------
    w : Workload
        Sequential jobs (one processor each), no dependencies, a single trace piece.
    rho : tuple of numpy.ndarray, optional
        Every campaign's ρ-schedule, ``(zeta, lengths)`` of
        :func:`lpsched.campaigns.sequential.lpt_schedules`, when already computed.

    Returns
    -------
    CampaignRun
        Policy ``"faircamp-block"``: start times, campaign releases and ``info`` with
        ``deadlines`` (Eq. 4.1), ``rho_lengths`` (each campaign's ρ-schedule length),
        ``deadlines_met`` and ``k``.

    Raises
    ------
    InvalidInstanceError
        Parallel jobs, dependencies or several trace pieces.
    InvalidScheduleError
        A campaign completes after its deadline in the setting of §4.1 (all campaigns
        submitted at time 0, think time 0): Prop 4.1 violated.
    """
    check_sequential(w)
    if w.has_deps:
        raise InvalidInstanceError("deps", int(w.dep_src.size), "faircamp takes independent "
                                   "jobs: drop the dependencies (extract without --deps)")
    if np.unique(w.piece).size > 1:
        raise InvalidInstanceError("piece", int(w.piece.max()), "faircamp replays a single "
                                   "piece: use ostrich or fcfs for a split trace")
    if applies(w):  # the ch. 4 setting: one loop over the blocks (module sequential)
        zeta, lengths = lpt_schedules(w) if rho is None else rho
        start, release, deadline, completion, events = block_schedule(w, zeta, lengths)
    else:
        st = _FairCamp(w)
        for c in st.firsts:
            t = 0.0 if math.isnan(w.submit[c]) else float(w.submit[c])
            st.eng.at(t, partial(st.submit, c), SUBMIT)
        st.eng.run()
        start, release, deadline, completion = st.start, st.release, st.deadline, st.completion
        lengths, events = st.length, st.eng.processed
    late = completion > deadline * (1 + 1e-12) + 1e-9
    ch4 = bool(np.all(np.isnan(w.submit)) and np.all(w.think == 0))  # the setting of §4.1
    if late.any() and ch4:
        c = int(np.flatnonzero(late)[0])
        raise InvalidScheduleError("deadline", f"FairCamp campaign {c} completes at "
                                   f"{completion[c]} after its deadline {deadline[c]} "
                                   "(Prop 4.1 violated: a finding)")
    info = {"deadlines": deadline, "rho_lengths": lengths,
            "deadlines_met": not bool(late.any()), "k": w.users}
    return CampaignRun("faircamp-block", w, start, release, info, events)


class FairCampPacked(Policy):
    """FairCamp under reading (ii) of "available(resources)" (spec A3): EDF on the Eq. 4.1
    deadlines, jobs dispatched as processors free up.

    The deadlines are campaign priorities, LPT orders the jobs inside a campaign, and no
    campaign waits for the whole machine. Prop 4.1's proof does not cover it: ``C <= d`` is
    reported (``deadlines_met``), not enforced. Sequential jobs only (:func:`check_sequential`,
    checked at :meth:`attach`).
    """

    name = "faircamp"

    def attach(self, sim: Simulator) -> None:
        """Refuse parallel jobs (:func:`check_sequential`), bind to ``sim`` and reset the
        per-user deadlines (``k`` = the workload's users), the campaign deadlines and the
        queues.

        Parameters
        ----------
        sim : Simulator
            The campaign simulator that will call this policy.

        Raises
        ------
        InvalidInstanceError
            A job that is not sequential.
        """
        check_sequential(sim.w)
        super().attach(sim)
        w = sim.w
        self.k = w.users
        self.d_user: dict[int, float] = {}  # d_{i-1}^u of the users seen so far
        self.deadline = np.full(w.campaigns, np.nan)
        self.ready: dict[int, list[tuple[Any, ...]]] = {}
        self.queue: list[tuple[float, int, int]] = []

    def on_submit(self, c: int) -> None:
        """Set campaign ``c``'s deadline by Eq. 4.1: ``d_i^u = k·Δ(ζ_i^u) + d_{i-1}^u``, ``Δ(ζ)``
        the length of its LPT ρ-schedule on all ``m`` processors.

        Parameters
        ----------
        c : int
            The campaign just submitted.
        """
        w = self.sim.w
        u = int(w.user[c])
        length = lpt(w.p[w.offsets[c]:w.offsets[c + 1]], w.processors)[1]
        self.d_user[u] = self.d_user.get(u, 0.0) + self.k * length
        self.deadline[c] = self.d_user[u]

    def on_ready(self, c: int, jobs: list[int]) -> None:
        """Queue the released ``jobs`` of ``c`` in the intra-campaign (LPT) order, and ``c`` by
        its deadline (ties: user index) if it had none waiting.

        Parameters
        ----------
        c : int
            The campaign whose jobs became ready.
        jobs : list of int
            The jobs released (indices into the workload).
        """
        r = self.ready.setdefault(c, [])
        if not r:
            heapq.heappush(self.queue, (float(self.deadline[c]), int(self.sim.w.user[c]), c))
        for j in jobs:
            heapq.heappush(r, self.sim.intra_key(j))

    def schedule(self) -> None:
        """While processors are free: start the next job of the ready campaign with the smallest
        deadline (EDF), without waiting for the whole machine."""
        sim = self.sim
        while sim.free > 0 and self.queue:
            c = self.queue[0][2]
            r = self.ready.get(c)
            if not r:
                heapq.heappop(self.queue)
                continue
            sim.start(heapq.heappop(r)[-1])

    def info(self) -> dict[str, Any]:
        """``deadlines`` (the Eq. 4.1 deadline of each campaign, NaN if never submitted) and
        ``k``.

        Returns
        -------
        dict
            ``{"deadlines": numpy.ndarray of shape (campaigns,), "k": int}``.
        """
        return {"deadlines": self.deadline, "k": self.k}


def faircamp_packed(w: Workload, lengths: np.ndarray | None = None) -> CampaignRun:
    """FairCamp, reading (ii) (:class:`FairCampPacked`); ``deadlines_met`` in the info.

    O(n log n). Raises :class:`InvalidInstanceError` for parallel jobs (:func:`check_sequential`),
    before simulating anything.

    Parameters
    ----------
    w : Workload
        Sequential jobs (one processor each).
    lengths : numpy.ndarray, optional
        Every campaign's ρ-schedule length (the second item of
        :func:`lpsched.campaigns.sequential.lpt_schedules`), when already computed.

    Returns
    -------
    CampaignRun
        Policy ``"faircamp-packed"``: start times, releases and ``info`` with ``deadlines``,
        ``k`` and ``deadlines_met``.

    Raises
    ------
    InvalidInstanceError
        A job that is not sequential.
    """
    check_sequential(w)
    if applies(w):  # the ch. 4 setting: the same run without the engine
        start, release, deadlines, events = list_schedule(w, "deadline", lengths)
        run = CampaignRun(FairCampPacked.name, w, start, release,
                          {"deadlines": deadlines, "k": w.users}, events)
        check_invariants(run)
    else:
        run = simulate(w, FairCampPacked)
    met = bool(np.all(run.completion <= run.info["deadlines"] * (1 + 1e-12) + 1e-9))
    return CampaignRun("faircamp-packed", w, run.start, run.release,
                       {**run.info, "deadlines_met": met}, run.events)
