"""OStrich (seed 002 ch. 5, §5.2-5.4) and parallel OStrich with event-based resizing
(ch. 6, §6.2-6.3, Algorithm 3).

The virtual fair-sharing schedule V is kept by the virtual-clock formulation of spec §5.3
(:class:`VirtualClock`): ``dV/dt = m_eff / k̃`` while ``k̃ >= 1`` active users; a campaign
submitted at ``t`` gets the start tag ``S = max(V(t), F_prev)`` and the finish tag
``F = S + W`` (``W`` the area). A user is active while ``F_last > V``. Priority is ``F``
(smaller first), which orders campaigns as the virtual completions ``C̃`` do and is never
rewritten; only the next tag crossing is predicted, cancelled and re-predicted at every
event (§9.2).

Sequential OStrich (defaults of spec A7): the start gate is on (a campaign is eligible once
``V >= S``, i.e. ``t >= s̃``), ``m_eff = m``; the pass gives free processors to the eligible
campaign of smallest ``F`` with a released job, jobs in the intra-campaign order.
Parallel OStrich: no gate, ``m_eff`` = busy processors of R after the previous pass
(resizing, Lemma 6.2), greedy first fit over the queue by priority, LJF inside a campaign.

``resize_mode`` (spec A7-A8) sets V's capacity ``m_eff`` on each inter-event interval from
R's state after the scheduling pass that opens it:

* ``"none"``: ``m_eff = m`` (ch. 5; the sequential default);
* ``"literal"``: ``m_eff`` = R's busy processors (ch. 6, [L1455]; the parallel default):
  V's idle area equals R's (Lemma 6.2);
* ``"fragmentation_only"``: R's busy processors while at least one released job of an
  eligible campaign waits (idle processors are fragmentation), else ``m``: idle processors
  with nothing eligible to run do not slow V down, so a gated campaign is not held back by
  R's lack of work (spec A7's remedy for the gate with resizing).
"""

from __future__ import annotations

import heapq
import math
from typing import Any

import numpy as np

from lpsched.campaigns.simulator import VIRTUAL, Policy, Simulator
from lpsched.errors import InvalidInstanceError, InvalidScheduleError

#: relative tolerance on virtual-time tags (a tag within it of V is crossed)
TAG_TOL = 1e-9
#: V's capacity rules (module doc, spec A7)
RESIZE_MODES = ("literal", "fragmentation_only", "none")


class VirtualClock:
    """The virtual schedule V (spec §5.3): tags, active users, eligibility.

    ``submit`` and ``advance`` cost O(log n); ``projected`` gives ``C̃`` "projected at
    time t" (Eq. 5.1 under the current k̃, spec A6).
    """

    def __init__(self, m: int) -> None:
        self.m_eff = float(m)
        self.V = 0.0
        self.last = 0.0
        self.k = 0
        self.S: dict[int, float] = {}
        self.F: dict[int, float] = {}
        self.f_last: dict[int, float] = {}
        self._active: list[tuple[float, int]] = []
        self._pending: list[tuple[float, int]] = []
        self.area = 0.0
        self.busy_since = math.nan
        self.intervals: list[tuple[float, float]] = []

    def _crossed(self, tag: float) -> bool:
        return tag <= self.V + TAG_TOL * max(1.0, abs(self.V))

    def advance(self, now: float, snap: float = -math.inf) -> list[int]:
        """Bring V to ``now`` (rate of the closing interval), at least to ``snap``; return the
        campaigns that became eligible.

        Users whose last tag is crossed leave.

        Parameters
        ----------
        now : float
            The current simulated time (s), not before the last call.
        snap : float
            A virtual time V must reach at least (default ``-inf``: none).

        Returns
        -------
        list of int
            The gated campaigns whose start tag V crossed, by start tag.

        Raises
        ------
        InvalidScheduleError
            ``now`` before the last time.
        """
        dt = now - self.last
        if dt < 0:
            raise InvalidScheduleError("virtual-clock", f"time went back from {self.last} "
                                       f"to {now}")
        if dt > 0 and self.k > 0 and self.m_eff > 0:
            self.V += dt * self.m_eff / self.k
            self.area += dt * self.m_eff
        self.last = now
        self.V = max(self.V, snap)
        while self._active and self._crossed(self._active[0][0]):
            f, u = heapq.heappop(self._active)
            if self.f_last.get(u) == f:
                self.k -= 1
                if self.k == 0:
                    self.intervals.append((self.busy_since, now))
        out = []
        while self._pending and self._crossed(self._pending[0][0]):
            out.append(heapq.heappop(self._pending)[1])
        return out

    def submit(self, c: int, user: int, work: float, gate: bool = True) -> bool:
        """Tag campaign ``c`` (after :meth:`advance` to now); True when it is eligible.

        Parameters
        ----------
        c : int
            The campaign.
        user : int
            Its owner.
        work : float
            Its work W (processor-seconds): ``F = S + W``.
        gate : bool
            Hold the campaign until V reaches its start tag (default ``True``).

        Returns
        -------
        bool
            ``True`` when eligible now; ``False``: gated (returned later by :meth:`advance`).
        """
        prev = self.f_last.get(user, -math.inf)
        if not prev > self.V or self._crossed(prev):
            prev = -math.inf
            if self.k == 0:
                self.busy_since = self.last
            self.k += 1
        s = max(self.V, prev)
        f = s + work
        self.S[c], self.F[c] = s, f
        self.f_last[user] = f
        heapq.heappush(self._active, (f, user))
        if gate and not self._crossed(s):
            heapq.heappush(self._pending, (s, c))
            return False
        return True

    def first_gated(self) -> tuple[float, int] | None:
        """``(S, campaign)`` of the gated campaign with the smallest start tag, if any.

        Returns
        -------
        tuple of (float, int) or None
            ``(start tag, campaign)``, or ``None`` when none is gated.
        """
        return self._pending[0] if self._pending else None

    def next_tag(self) -> float:
        """The smallest tag (a last finish tag or a pending start tag) above V.

        Returns
        -------
        float
            The tag (virtual time); ``inf`` when none is left.
        """
        while self._active and self.f_last.get(self._active[0][1]) != self._active[0][0]:
            heapq.heappop(self._active)
        tags = [x[0][0] for x in (self._active, self._pending) if x]
        return min(tags) if tags else math.inf

    def time_of(self, tag: float, now: float) -> float:
        """When V reaches ``tag`` if k̃ and ``m_eff`` stay as they are (``inf`` if never).

        Parameters
        ----------
        tag : float
            A virtual time.
        now : float
            The current simulated time (s).

        Returns
        -------
        float
            The real time (s).
        """
        if self.k == 0 or self.m_eff <= 0 or math.isinf(tag):
            return math.inf
        return now + max(tag - self.V, 0.0) * self.k / self.m_eff

    def projected(self, c: int, now: float) -> float:
        """``C̃_c`` projected at ``now`` (Eq. 5.1 with the current k̃).

        Parameters
        ----------
        c : int
            A submitted campaign.
        now : float
            The current simulated time (s).

        Returns
        -------
        float
            The projected virtual completion, in real time (s); ``inf`` if never.
        """
        return self.time_of(self.F[c], now)

    def close(self, now: float) -> None:
        """End of the run at ``now``: record the activity interval still open (some user active)
        in ``intervals``.

        Parameters
        ----------
        now : float
            The current simulated time (s).
        """
        if self.k > 0:
            self.intervals.append((self.busy_since, now))


class OStrich(Policy):
    """OStrich on the simulator (module doc): campaigns by virtual finish tag, optionally behind
    the start gate, on V's capacity of ``resize_mode``.

    ``gate``: the start gate ``s >= s̃``; ``resize_mode``: V's capacity (module doc:
    ``"none"``, ``"literal"``, ``"fragmentation_only"``; ``resize=True`` is another spelling
    of ``"literal"``); ``first_fit``: greedy first fit over the whole queue (Algorithm 3's
    ``execute``) instead of strict priority; ``lifo_ties``: equal tags go to the latest
    submission first (the adversarial order of Prop 5.2, B22) instead of the earliest (spec
    A5).

    Raises
    ------
    InvalidInstanceError
        For an unknown ``resize_mode``.
    InvalidScheduleError
        During the run, if V froze (``m_eff = 0`` with active users) while R is idle and a
        campaign waits at the gate (spec A7's deadlock; never observed with exact area
        accounting, see :meth:`after_pass`).
    """

    def __init__(self, gate: bool = True, resize: bool = False, first_fit: bool = False,
                 name: str = "ostrich", lifo_ties: bool = False,
                 resize_mode: str | None = None) -> None:
        mode = resize_mode if resize_mode is not None else ("literal" if resize else "none")
        if mode not in RESIZE_MODES:
            raise InvalidInstanceError("resize_mode", mode, f"one of {', '.join(RESIZE_MODES)}")
        self.gate, self.resize_mode, self.first_fit, self.name = gate, mode, first_fit, name
        self.resize = mode != "none"
        self.tie_sign = -1.0 if lifo_ties else 1.0

    def attach(self, sim: Simulator) -> None:
        """Bind to ``sim`` and start a fresh virtual schedule V (:class:`VirtualClock` on the
        workload's ``m`` processors) and empty queues.

        Parameters
        ----------
        sim : Simulator
            The campaign simulator that will call this policy.
        """
        super().attach(sim)
        w = sim.w
        self.vc = VirtualClock(w.processors)
        self.work = w.work.tolist()
        self.users = w.user.tolist()
        self.ready: dict[int, list[tuple[Any, ...]]] = {}
        self.queue: list[tuple[float, float, float, int, int]] = []
        self.in_queue: set[int] = set()
        self.eligible: set[int] = set()
        self.eligible_at = np.full(w.campaigns, np.nan)
        self.vevent: Any = None
        self.virtual_finish = np.full(w.campaigns, np.nan)

    def _make_eligible(self, cs: list[int]) -> None:
        now = self.sim.eng.now
        for c in cs:
            self.eligible.add(c)
            self.eligible_at[c] = now
            if self.ready.get(c):
                self._enqueue(c)

    def _enqueue(self, c: int) -> None:
        if c not in self.in_queue:
            self.in_queue.add(c)
            # spec A5: (F, S, t, user, campaign) ascending (t descending with lifo_ties)
            heapq.heappush(self.queue, (self.vc.F[c], self.vc.S[c],
                                        self.tie_sign * float(self.sim.release[c]),
                                        self.users[c], c))

    def advance(self, now: float) -> None:
        """Bring V to ``now`` and make the campaigns whose start tag it crossed eligible.

        Parameters
        ----------
        now : float
            The current simulated time (s).
        """
        self._make_eligible(self.vc.advance(now))

    def on_submit(self, c: int) -> None:
        """Tag campaign ``c`` in V (``S = max(V, F_prev)``, ``F = S + W``); eligible at once
        unless the start gate holds it until ``V >= S``.

        Parameters
        ----------
        c : int
            The campaign submitted.
        """
        if self.vc.submit(c, self.users[c], self.work[c], self.gate):
            self._make_eligible([c])

    def on_ready(self, c: int, jobs: list[int]) -> None:
        """Queue the released ``jobs`` of ``c`` in the intra-campaign order, and ``c`` by
        priority ``(F, S, release, user)`` if it is eligible.

        Parameters
        ----------
        c : int
            The campaign whose jobs became ready.
        jobs : list of int
            The jobs released (indices into the workload).
        """
        r = self.ready.setdefault(c, [])
        key = self.sim.intra_key
        for j in jobs:
            heapq.heappush(r, key(j))
        if c in self.eligible:
            self._enqueue(c)

    def on_campaign_done(self, c: int) -> None:
        """Forget campaign ``c``: it has completed in R.

        Parameters
        ----------
        c : int
            The campaign completed.
        """
        self.ready.pop(c, None)
        self.eligible.discard(c)

    def schedule(self) -> None:
        """One pass: strict priority (the eligible campaign of smallest ``F`` starts its next job
        while it fits; a head job that does not fit waits), or with ``first_fit`` Algorithm 3's
        greedy first fit over the whole queue."""
        if self.first_fit:
            self._first_fit()
            return
        sim, queue = self.sim, self.queue
        while sim.free > 0 and queue:
            c = queue[0][-1]
            r = self.ready.get(c)
            if not r:
                heapq.heappop(queue)
                self.in_queue.discard(c)
                continue
            j = r[0][-1]
            if sim.q[j] > sim.free:  # strict priority: the head waits
                break
            heapq.heappop(r)
            sim.start(j)

    def _first_fit(self) -> None:
        """Algorithm 3's ``execute``: scan campaigns by priority, inside each the jobs in
        LJF order, start every job that fits. O(queued jobs) per pass."""
        sim = self.sim
        for item in sorted(self.queue):
            if sim.free == 0:
                break
            c = item[-1]
            r = self.ready.get(c)
            if not r:
                continue
            keep = []
            for key in sorted(r):
                j = key[-1]
                if sim.q[j] <= sim.free:
                    sim.start(j)
                else:
                    keep.append(key)
            heapq.heapify(keep)
            self.ready[c] = keep
        self.queue = [x for x in self.queue if self.ready.get(x[-1])]
        heapq.heapify(self.queue)
        self.in_queue = {x[-1] for x in self.queue}

    def after_pass(self) -> None:
        """Set V's capacity ``m_eff`` for the interval opening now (by ``resize_mode``) and
        re-predict the next tag crossing (a ``VIRTUAL_FINISH`` event); raises
        :class:`~lpsched.errors.InvalidScheduleError` on the gate deadlock of spec A7."""
        sim = self.sim
        if self.resize_mode == "literal":
            self.vc.m_eff = float(sim.m - sim.free)
        elif self.resize_mode == "fragmentation_only":
            # after a pass the queue holds only eligible campaigns whose head job waits
            # (strict priority pops empty heads while processors are free; first fit keeps
            # the campaigns with ready jobs), so it is non-empty iff an eligible job waits
            waiting = sim.free > 0 and bool(self.queue)
            self.vc.m_eff = float(sim.m - sim.free) if waiting else float(sim.m)
        sim.eng.cancel(self.vevent)
        tag = self.vc.next_tag()
        t = self.vc.time_of(tag, sim.eng.now)
        gated = self.vc.first_gated()
        if math.isinf(t) and gated is not None and sim.running == 0 and \
                math.isinf(sim.eng.peek()):
            self._stalled(gated)
        self.vevent = None if math.isinf(t) else sim.eng.at(max(t, sim.eng.now),
                                                            lambda: self._virtual(tag),
                                                            VIRTUAL)

    def _stalled(self, gated: tuple[float, int]) -> None:
        """R is idle, V cannot advance and a campaign waits at the gate: nothing can ever
        happen again (spec A7). Under ``"literal"`` with exact area accounting this cannot
        arise (V's served area equals R's busy area, so a user ahead of V in R implies
        another behind, whose unfinished work would run on the idle machine); under
        ``"fragmentation_only"`` and ``"none"`` V never freezes with an active user. So
        reaching it is a finding; it is reported, never a hang."""
        tag, c = gated
        raise InvalidScheduleError(
            "gate-deadlock", f"at t = {self.sim.eng.now:g} R is idle and V is frozen at "
            f"{self.vc.V:g} (m_eff = {self.vc.m_eff:g}, {self.vc.k} active users) while "
            f"campaign {c} waits at the start gate for V = {tag:g} "
            f"(resize_mode {self.resize_mode!r}): use resize_mode 'fragmentation_only' or "
            "'none', or turn the gate off")

    def _virtual(self, tag: float) -> None:
        """VIRTUAL_FINISH: V reaches ``tag`` (snapped: the prediction was exact)."""
        self.vevent = None
        self.sim.request_pass()
        self._make_eligible(self.vc.advance(self.sim.eng.now, snap=tag))

    def info(self) -> dict[str, Any]:
        """V at the end: ``virtual_time``, ``virtual_area``, the settings (``gate``, ``resize``,
        ``resize_mode``) and per campaign ``eligible_at``, ``start_tag``, ``finish_tag`` (NaN if
        never submitted); ``active_intervals``, the ``(start, end)`` rows when some user was
        active.

        Returns
        -------
        dict
            The fields above; the per-campaign ones as numpy arrays of shape ``(campaigns,)``.
        """
        self.vc.close(self.sim.eng.now)
        c = self.sim.w.campaigns
        return {"virtual_time": self.vc.V, "virtual_area": self.vc.area,
                "gate": self.gate, "resize": self.resize, "resize_mode": self.resize_mode,
                "eligible_at": self.eligible_at,
                "start_tag": np.array([self.vc.S.get(i, np.nan) for i in range(c)]),
                "finish_tag": np.array([self.vc.F.get(i, np.nan) for i in range(c)]),
                "active_intervals": np.array(self.vc.intervals, dtype=float).reshape(-1, 2)}


def sequential_ostrich(resize_mode: str = "none", gate: bool = True) -> OStrich:
    """Sequential OStrich (ch. 5): gate on, V with all m processors (``resize_mode``
    ``"none"``; the others: module doc), strict priority.

    Parameters
    ----------
    resize_mode : str
        V's capacity rule, one of :data:`RESIZE_MODES`: ``"literal"``,
        ``"fragmentation_only"`` or ``"none"`` (default ``"none"``).
    gate : bool
        Hold a campaign until V reaches its start tag (default ``True``).

    Returns
    -------
    OStrich
        A new policy named ``"ostrich"``.

    Raises
    ------
    InvalidInstanceError
        An unknown ``resize_mode``.
    """
    return OStrich(gate=gate, first_fit=False, name="ostrich", resize_mode=resize_mode)


def parallel_ostrich(resize_mode: str = "literal", gate: bool = False) -> OStrich:
    """Parallel OStrich (ch. 6, Algorithm 3): gate off (spec A7), event-based resizing
    (``resize_mode``, module doc; ``"literal"`` is Algorithm 3's), greedy first fit (spec
    A9).

    Parameters
    ----------
    resize_mode : str
        V's capacity rule, one of :data:`RESIZE_MODES`: ``"literal"``,
        ``"fragmentation_only"`` or ``"none"`` (default ``"literal"``).
    gate : bool
        Hold a campaign until V reaches its start tag (default ``False``).

    Returns
    -------
    OStrich
        A new policy named ``"ostrich"``.

    Raises
    ------
    InvalidInstanceError
        An unknown ``resize_mode``.
    """
    return OStrich(gate=gate, first_fit=True, name="ostrich", resize_mode=resize_mode)
