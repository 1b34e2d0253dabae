"""Baseline policies on the campaign simulator (seed 002 ch. 2-3, 6): FCFS, space sharing
and a Slurm-like fair-share factor; plus the registry of every policy by name.

* ``fcfs`` (§3, spec A4): job-level list scheduling in submission order (campaign release
  time, then campaign index, then the intra-campaign order); strict: the head job waits
  for enough processors (no backfilling).
* ``space-share`` (Hadoop-like pools, [L535-L561], §6.5): the m processors are split among
  the users with a submitted, unfinished campaign in R, ``m // k`` each and one more for the
  first ``m % k`` by user id; re-split when a user joins or leaves; a user starts its jobs in
  FIFO order while they fit in its share. A job wider than its owner's share never runs
  [L1549-L1555] unless the machine is entirely idle (decision 105: no deadlock).
* ``fair-share`` (Slurm factor ``F = 2^(-U/S)`` [L645-L667], B8): every ``tick`` the usage
  ``U`` of each user over the last tick (area, normalised by the total; no decay) and
  ``S = 1/k̃`` give the factor; users are served by decreasing factor (ties at random, by a
  seeded generator), work-conserving.

The per-user policies keep their state for the users present in the simulated workload (or
trace piece) only, indexed ``0 .. U-1`` in increasing user id: a pass or a tick costs
O(U), whatever the ids and the configured ``users`` (decision 247).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from lpsched.campaigns.instance import Workload
from lpsched.campaigns.offline import fair_share_factor
from lpsched.campaigns.simulator import TICK, Policy, Simulator
from lpsched.errors import InvalidInstanceError

#: most fair-share recomputations a run may need (one engine event each, ~10 µs)
MAX_TICKS = 10**7
#: smallest tick relative to the largest time of the run (the tick must advance time)
TICK_REL = 1e-12


def tick_horizon(w: Workload) -> tuple[float, float]:
    """Estimated length of the time span with jobs waiting or running, and the largest
    absolute time reached, of ``w`` (for :func:`check_tick`).

    Parameters
    ----------
    w : Workload
        The workload (or trace piece) to simulate.

    Returns
    -------
    span : float
        The spread of the open-loop submissions + the total think time + ``W/m`` +
        ``p_max`` (the list-scheduling bound for sequential jobs), in seconds.
    end : float
        The latest submission (0 if none) + ``span``, in seconds.
    """
    sub = w.submit[np.isfinite(w.submit)]
    lo, hi = (float(sub.min()), float(sub.max())) if sub.size else (0.0, 0.0)
    span = ((hi - lo) + float(np.sum(w.think)) + float(np.sum(w.p * w.q)) / w.processors
            + float(w.p.max(initial=0.0)))
    return span, max(abs(lo), abs(hi)) + span


def min_tick(w: Workload) -> float:
    """Smallest fair-share tick accepted for ``w`` (see :func:`check_tick`).

    Parameters
    ----------
    w : Workload
        The workload (or trace piece) to simulate.

    Returns
    -------
    float
        ``max(span / MAX_TICKS, end · TICK_REL)`` in seconds (:func:`tick_horizon`): at most
        ``MAX_TICKS`` recomputations, and a tick the clock can still add at the latest time.
    """
    span, end = tick_horizon(w)
    return max(span / MAX_TICKS, end * TICK_REL)


def check_tick(w: Workload, tick: float) -> None:
    """Refuse a fair-share ``tick`` that would (nearly) never let the simulation end.

    Parameters
    ----------
    w : Workload
        The workload (or trace piece) to simulate.
    tick : float
        Recomputation period.

    Raises
    ------
    InvalidInstanceError
        If ``tick`` is not finite and > 0, would need more than :data:`MAX_TICKS`
        recomputations over the workload's horizon, or is below ``TICK_REL`` times its
        largest time (``now + tick == now`` would stop time).
    """
    if not (math.isfinite(tick) and tick > 0):
        raise InvalidInstanceError("tick", tick, "must be a finite number > 0")
    least = min_tick(w)
    if tick < least:
        span, _ = tick_horizon(w)
        raise InvalidInstanceError("tick", tick, f"too small for the workload's time horizon "
                                   f"(about {span:.6g}): give a tick >= {least:.3g} (at "
                                   f"most {MAX_TICKS:,} fair-share recomputations)")


class Fcfs(Policy):
    """FCFS over jobs (module doc).

    One pass is O(started · log n).

    ``order="submission"``: jobs by campaign release time (an online FCFS queue);
    ``order="generation"``: by the campaign's index in the workload, the order the ch. 4
    generator emits the job stream (the non-reactive FCFS of [L918-L926] that the
    FairCamp simulation compares with).

    Notes
    -----
    The two orders and the default are decision 93.
    """

    name = "fcfs"

    def __init__(self, order: str = "submission") -> None:
        self.by_release = order == "submission"

    def attach(self, sim: Simulator) -> None:
        """Bind to ``sim`` with an empty job queue.

        Parameters
        ----------
        sim : Simulator
            The campaign simulator that will call this policy.
        """
        super().attach(sim)
        self.queue: list[tuple[Any, ...]] = []

    def on_ready(self, c: int, jobs: list[int]) -> None:
        """Queue the released ``jobs`` of ``c`` by (campaign release time, or 0 with
        ``order="generation"``; campaign index; intra-campaign order).

        Parameters
        ----------
        c : int
            The campaign whose jobs became ready.
        jobs : list of int
            The jobs released (indices into the workload).
        """
        t = float(self.sim.release[c]) if self.by_release else 0.0
        key = self.sim.intra_key
        for j in jobs:
            heapq.heappush(self.queue, (t, c, key(j)))

    def schedule(self) -> None:
        """Start queued jobs in order while the head job fits; it waits otherwise (no
        backfilling)."""
        sim, queue = self.sim, self.queue
        while queue and sim.free > 0:
            j = queue[0][2][-1]
            if sim.q[j] > sim.free:
                break
            heapq.heappop(queue)
            sim.start(j)


class _PerUser(Policy):
    """Per-user FIFO queues of released jobs (campaign order, then intra order).

    Users are the dense indices ``0 .. U-1`` of the ids present in the workload, in
    increasing id order (``ids[i]`` is the id of index ``i``), so the state is O(U) and
    every order by index is the order by id."""

    def attach(self, sim: Simulator) -> None:
        super().attach(sim)
        self.queues: dict[int, list[tuple[Any, ...]]] = {}
        ids, dense = np.unique(sim.w.user, return_inverse=True)
        self.ids: np.ndarray = ids
        self.users = dense.reshape(-1).tolist()  # the dense index of each campaign's owner
        self.used = np.zeros(ids.size, dtype=np.int64)
        self.open_campaigns = np.zeros(ids.size, dtype=np.int64)

    def on_submit(self, c: int) -> None:
        self.open_campaigns[self.users[c]] += 1

    def on_campaign_done(self, c: int) -> None:
        self.open_campaigns[self.users[c]] -= 1

    def on_ready(self, c: int, jobs: list[int]) -> None:
        q = self.queues.setdefault(self.users[c], [])
        t = float(self.sim.release[c])
        key = self.sim.intra_key
        for j in jobs:
            heapq.heappush(q, (t, c, key(j)))

    def _start(self, u: int) -> None:
        j = heapq.heappop(self.queues[u])[2][-1]
        self.used[u] += self.sim.q[j]
        self.sim.start(j)

    def on_finish(self, j: int) -> None:
        self.used[self.users[self.sim.camp[j]]] -= self.sim.q[j]


class SpaceShare(_PerUser):
    """Static pools re-split when users join or leave (module doc)."""

    name = "space-share"

    def schedule(self) -> None:
        """Split the ``m`` processors among the users with an open campaign and start each user's
        jobs in FIFO order while they fit its share.

        Each user gets ``m // k`` processors, one more for the first ``m % k`` by user id; if
        nothing runs, the first waiting head job starts anyway. O(U) plus the jobs started.

        Notes
        -----
        Starting a job wider than its share on an idle machine keeps the policy from deadlocking
        (decision 105).
        """
        sim = self.sim
        active = np.flatnonzero(self.open_campaigns > 0)
        k = active.size
        if k == 0:
            return
        base, extra = divmod(sim.m, k)
        for rank, u in enumerate(active.tolist()):
            share = base + (1 if rank < extra else 0)
            q = self.queues.get(u)
            while q and sim.free > 0:
                j = q[0][2][-1]
                if self.used[u] + sim.q[j] > share or sim.q[j] > sim.free:
                    break
                self._start(u)
        if sim.running == 0:  # every head job is wider than its share: no deadlock
            for u in active.tolist():
                if self.queues.get(u):
                    self._start(u)
                    break


class FairShare(_PerUser):
    """Slurm-like fair-share factor (module doc); ``tick`` is the recomputation period.

    The state covers the ``U`` users present (:class:`_PerUser`): a tick costs O(U). The
    random tie-breaking is the one of a state over all ``k`` configured users (kept so that
    a seed gives the same schedule as before): the initial order is the relative order of
    the present users in ``rng.permutation(k)`` (O(k), once per run), and each tick draws the
    noise of the present users only, skipping the others' draws (``PCG64.advance``) when the
    ids are sparse (``k > 64 U + 4096``).
    """

    name = "fair-share"

    def __init__(self, tick: float, seed: int = 0) -> None:
        self.tick = float(tick)
        self.rng = np.random.default_rng(seed)

    def attach(self, sim: Simulator) -> None:
        """Check ``tick`` against the workload, bind to ``sim`` and reset the usage, the factors
        (all 1) and the user order (a seeded permutation).

        Parameters
        ----------
        sim : Simulator
            The campaign simulator that will call this policy.

        Raises
        ------
        InvalidInstanceError
            A tick below :func:`min_tick` of the workload (:func:`check_tick`).
        """
        check_tick(sim.w, self.tick)
        super().attach(sim)
        k, ids = sim.w.users, self.ids
        n = ids.size
        self.area = np.zeros(n)
        self.window = np.zeros(n)
        self.last = 0.0
        self.factor = np.ones(n)
        perm = self.rng.permutation(k)
        if n == k:  # every configured user is present: the dense index is the id
            self.order = perm
        else:
            present = np.zeros(k, dtype=bool)
            present[ids] = True
            self.order = np.searchsorted(ids, perm[present[perm]])
        self.ticking = False
        self.ticks = 0
        self._k = k
        dense = k <= _DENSE_RATIO * n + _DENSE_USERS or not isinstance(
            self.rng.bit_generator, np.random.PCG64)
        # dense ids: draw k numbers and sum over k entries as a state over all k would
        self._full = np.zeros(k) if dense and n < k else None
        self._runs = None if dense else _runs(ids)

    def advance(self, now: float) -> None:
        """Add each user's processor usage since the last event (processors × seconds) to the
        current tick's window.

        Parameters
        ----------
        now : float
            The current simulated time (s); nothing is added when it is not after the last
            call.
        """
        dt = now - self.last
        if dt > 0:
            self.window += self.used * dt
            self.last = now

    def _total(self) -> float:
        """The area used by all users in the last tick (summed over the ``k`` configured
        users when the ids are dense, as before: the same rounding)."""
        if self._full is None:
            return float(self.window.sum())
        self._full[self.ids] = self.window
        return float(self._full.sum())

    def _noise(self) -> np.ndarray:
        """The tie-breaking draws of the present users: the ones ``rng.random(k)`` gives them.
        Dense ids: all ``k`` drawn. Sparse ids: the absent users' draws are skipped with
        ``PCG64.advance`` (one 64-bit draw per double), the 32-bit buffer kept."""
        if self._runs is None:
            noise = self.rng.random(self._k)
            return noise if noise.size == self.ids.size else noise[self.ids]
        bits = self.rng.bit_generator
        assert isinstance(bits, np.random.PCG64)
        buffered = bits.state
        out = np.empty(self.ids.size)
        pos = 0
        for first_id, first, count in self._runs:
            if first_id > pos:
                bits.advance(first_id - pos)
            out[first:first + count] = self.rng.random(count)
            pos = first_id + count
        if self._k > pos:
            bits.advance(self._k - pos)
        state = bits.state  # advance() drops the buffered half of a 64-bit draw: keep it
        state["has_uint32"], state["uinteger"] = buffered["has_uint32"], buffered["uinteger"]
        bits.state = state
        return out

    def _tick(self) -> None:
        self.sim.request_pass()
        self.ticks += 1
        active = int(np.count_nonzero(self.open_campaigns > 0))
        total = self._total()
        usage = self.window / total if total > 0 else np.zeros_like(self.window)
        self.factor = fair_share_factor(usage, 1.0 / max(active, 1))
        noise = self._noise()
        self.order = np.lexsort((noise, -self.factor))
        self.area += self.window
        self.window[:] = 0.0
        self.ticking = False

    def schedule(self) -> None:
        """Serve users by decreasing fair-share factor ``F = 2^(-U/S)`` (ties in the seeded
        random order), each starting its FIFO jobs while they fit (work-conserving); then
        schedule the next tick while jobs wait or run."""
        sim = self.sim
        for u in self.order.tolist():
            q = self.queues.get(u)
            while q and sim.free > 0:
                if sim.q[q[0][2][-1]] > sim.free:
                    break
                self._start(u)
            if sim.free == 0:
                break
        waiting = any(self.queues.values()) or sim.running > 0
        if waiting and not self.ticking:
            nxt = sim.eng.now + self.tick
            if not nxt > sim.eng.now:  # the tick would not advance time: never loop on it
                raise InvalidInstanceError("tick", self.tick, f"does not advance time "
                                           f"{sim.eng.now} (too small for the horizon)")
            self.ticking = True
            sim.eng.at(nxt, self._tick, TICK)

    def info(self) -> dict[str, Any]:
        """``ticks``, the number of factor recomputations, and ``tick``, their period (s).

        Returns
        -------
        dict
            ``{"ticks": int, "tick": float}``.
        """
        return {"ticks": self.ticks, "tick": self.tick}


#: ids are "dense" (all k draws made, as before) when k <= _DENSE_RATIO * U + _DENSE_USERS
_DENSE_RATIO, _DENSE_USERS = 64, 4096


def _runs(ids: np.ndarray) -> list[tuple[int, int, int]]:
    """Runs of consecutive ids in sorted ``ids``: (first id, first index, length)."""
    breaks = np.flatnonzero(np.diff(ids) != 1) + 1
    firsts = np.concatenate(([0], breaks))
    counts = np.diff(np.append(firsts, ids.size))
    return [(int(ids[f]), int(f), int(c))
            for f, c in zip(firsts.tolist(), counts.tolist(), strict=True)]


POLICIES = ("fcfs", "faircamp", "ostrich", "space-share", "fair-share")


def policy_factory(name: str, parallel: bool, tick: float = 1.0, seed: int = 0,
                   fcfs_order: str = "submission", resize_mode: str | None = None,
                   gate: bool | None = None) -> Callable[[], Policy]:
    """A fresh policy per simulated piece, found by name (``faircamp`` is not a simulator
    policy: see :func:`lpsched.campaigns.faircamp.faircamp`).

    ``resize_mode`` and ``gate`` apply to ``ostrich`` only (spec A7,
    :mod:`lpsched.campaigns.ostrich`); ``None`` keeps the variant's default: sequential
    (every ``q = 1``) gate on and ``"none"``, parallel gate off and ``"literal"``.

    Parameters
    ----------
    name : str
        ``"fcfs"``, ``"space-share"``, ``"fair-share"`` or ``"ostrich"``.
    parallel : bool
        The workload has parallel jobs: choose OStrich's parallel variant (else the
        sequential one).
    tick : float
        Fair-share's recomputation period (s; default 1).
    seed : int
        Fair-share's random seed for the user order (default 0).
    fcfs_order : str
        FCFS's queue order: ``"submission"`` (default, by campaign release) or
        ``"generation"`` (by campaign index).
    resize_mode : str or None
        OStrich's virtual schedule capacity rule (one of ``RESIZE_MODES``); ``None``: the
        variant's default.
    gate : bool or None
        OStrich's eligibility gate; ``None``: the variant's default.

    Returns
    -------
    callable
        Called with no argument, returns a new policy object.

    Raises
    ------
    InvalidInstanceError
        For an unknown ``resize_mode``, or ``resize_mode`` / ``gate`` given to another
        policy.
    """
    from lpsched.campaigns.ostrich import RESIZE_MODES, parallel_ostrich, sequential_ostrich

    if name != "ostrich" and (resize_mode is not None or gate is not None):
        raise InvalidInstanceError("resize_mode" if resize_mode is not None else "gate",
                                   resize_mode if resize_mode is not None else gate,
                                   f"only OStrich has a virtual schedule (policy {name!r})")
    if resize_mode is not None and resize_mode not in RESIZE_MODES:
        raise InvalidInstanceError("resize_mode", resize_mode,
                                   f"one of {', '.join(RESIZE_MODES)}")
    variant = parallel_ostrich if parallel else sequential_ostrich
    options: dict[str, Any] = {k: v for k, v in (("resize_mode", resize_mode), ("gate", gate))
                               if v is not None}
    makers: dict[str, Callable[[], Policy]] = {
        "fcfs": lambda: Fcfs(fcfs_order), "space-share": SpaceShare,
        "fair-share": lambda: FairShare(tick, seed),
        "ostrich": (lambda: variant(**options)) if options else variant}
    return makers[name]
