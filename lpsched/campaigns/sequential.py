"""Exact shortcuts of the campaign simulator for the ch. 4 setting (seed 002 §4.6): sequential
independent jobs, one trace piece, closed loop with think time 0 (every user's first
campaign at time 0, each next one at the completion of the previous).

In that setting the event order of :class:`lpsched.campaigns.simulator.Simulator` (spec
§9.2: finishes, then submissions, then one scheduling pass per time) reduces to one loop
over the distinct finish times, and a policy that orders the released jobs by a campaign
key first and the intra-campaign order second (FCFS by release or by index, FairCamp
packed by its Eq. 4.1 deadline) to a heap of campaigns, each with its jobs in the
intra-campaign order (LPT: longest first, then index; no successors, ``q = 1``). FairCamp
in blocks reduces to one loop over the blocks. The starts, releases, completions, ``info``
and event counts are those of the engine-driven runs (tests/campaigns/test_sequential.py
compares both on random workloads); the reproduction runs these shortcuts because the
engine's per-event objects and callbacks were 80% of its CPU.

Every function here takes a workload for which :func:`applies` holds; the callers fall
back to the engine otherwise.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from lpsched.campaigns.instance import Workload
from lpsched.campaigns.schedule import CampaignRun, check_invariants, previous_campaign

#: the campaign orders of :func:`list_schedule`
ORDERS = ("submission", "generation", "deadline")


def applies(w: Workload) -> bool:
    """Whether the shortcuts of this module reproduce the simulator on ``w`` (module doc).

    Parameters
    ----------
    w : Workload
        The workload.

    Returns
    -------
    bool
        Sequential jobs (``q = 1``) of positive finite length, no empty campaign, no
        dependency, one trace piece, no submission time and think times 0.
    """
    return bool(not w.parallel and not w.has_deps and w.jobs > 0
                and np.all(np.diff(w.offsets) > 0)
                and np.all(w.piece == w.piece[0]) and np.all(np.isnan(w.submit))
                and np.all(w.think == 0) and np.all(np.isfinite(w.p)) and np.all(w.p > 0))


def lpt_schedules(w: Workload) -> tuple[np.ndarray, np.ndarray]:
    """Every campaign's LPT ρ-schedule alone on all ``m`` processors (spec A3), at once.

    The schedules of :func:`lpsched.campaigns.offline.lpt`, computed for all campaigns
    together: round ``r`` places the ``r``-th longest job (ties: lower index) of every
    campaign with more than ``r`` jobs on its machine free earliest (lowest index on ties),
    one array operation per round. O(n log n + m · c · (largest campaign)).

    Parameters
    ----------
    w : Workload
        Sequential jobs, no empty campaign.

    Returns
    -------
    zeta : numpy.ndarray
        Each job's start in its campaign's ρ-schedule (s), shape ``(jobs,)``.
    lengths : numpy.ndarray
        Each campaign's ρ-schedule length ``Δ(ζ)`` (s), shape ``(campaigns,)``.
    """
    m = w.processors
    zeta = np.zeros(w.jobs)
    # a campaign of at most m jobs starts them all at 0, one machine each
    lengths = np.maximum.reduceat(w.p, w.offsets[:-1]).astype(float)
    sizes = np.diff(w.offsets)
    big = np.flatnonzero(sizes > m)
    if big.size == 0:
        return zeta, lengths
    big = big[np.argsort(-sizes[big], kind="stable")]  # the active ones first, every round
    lpt_order = np.lexsort((np.arange(w.jobs), -w.p, w.camp))
    first, size = w.offsets[big], sizes[big]
    loads = np.zeros((big.size, m))
    for r in range(int(size[0])):
        active = int(np.searchsorted(-size, -r, side="left"))  # campaigns with > r jobs
        jobs = lpt_order[first[:active] + r]
        rows = np.arange(active)
        machine = np.argmin(loads[:active], axis=1)
        t = loads[rows, machine]
        zeta[jobs] = t
        loads[rows, machine] = t + w.p[jobs]
    lengths[big] = loads.max(axis=1)
    return zeta, lengths


def _successors(w: Workload) -> tuple[list[int], list[int]]:
    """Each campaign's next campaign of the same user (-1 for the last), and the firsts."""
    prev = previous_campaign(w)
    nxt = np.full(w.campaigns, -1, dtype=np.int64)
    nxt[prev[prev >= 0]] = np.flatnonzero(prev >= 0)
    return nxt.tolist(), np.flatnonzero(prev < 0).tolist()


def list_schedule(w: Workload, order: str, lengths: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    """The simulator's run of FCFS (``order`` ``"submission"`` or ``"generation"``) or of
    FairCamp packed (``"deadline"``: EDF on the Eq. 4.1 deadlines, ties by user) on ``w``.

    O(n log n): one heap of running jobs, one of campaigns with released jobs.

    Parameters
    ----------
    w : Workload
        A workload for which :func:`applies` holds.
    order : {"submission", "generation", "deadline"}
        The campaign key: release time, campaign index, or (deadline, user); campaign
        index last in every case.
    lengths : numpy.ndarray, optional
        Each campaign's ρ-schedule length (:func:`lpt_schedules`); needed by
        ``"deadline"`` only, computed when not given.

    Returns
    -------
    start : numpy.ndarray
        Each job's start (s).
    release : numpy.ndarray
        Each campaign's release ``t_i`` (s).
    deadlines : numpy.ndarray or None
        With ``"deadline"``: each campaign's Eq. 4.1 deadline; ``None`` otherwise.
    events : int
        The events the engine-driven simulator processes for the same run.

    Raises
    ------
    ValueError
        An unknown ``order``.
    """
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, not {order!r}")
    n, ncamp = w.jobs, w.campaigns
    p = w.p.tolist()
    # jobs grouped by campaign, each group in the intra-campaign order (-p, index)
    intra = np.lexsort((np.arange(n), -w.p, w.camp)).tolist()
    offsets = w.offsets.tolist()
    nxt, firsts = _successors(w)
    users = w.user.tolist()
    length = None
    if order == "deadline":
        length = (lpt_schedules(w)[1] if lengths is None else lengths).tolist()
    k = w.users
    d_user: dict[int, float] = {}
    deadline = [math.nan] * ncamp
    start = [math.nan] * n
    release = [math.nan] * ncamp
    left = np.diff(w.offsets).tolist()
    ptr = offsets[:-1]
    free = w.processors
    running: list[tuple[float, int]] = []
    queue: list[tuple[float, int, int]] = []
    push, pop = heapq.heappush, heapq.heappop
    t = 0.0
    submitted = firsts
    passes = 0
    while True:
        for c in submitted:
            release[c] = t
            if order == "deadline":
                u = users[c]
                d = d_user.get(u, 0.0) + k * length[c]  # type: ignore[index]
                d_user[u] = deadline[c] = d
                push(queue, (d, u, c))
            else:
                push(queue, (t if order == "submission" else 0.0, c, c))
        passes += 1
        while free and queue:  # the head campaign's next jobs, as many as fit
            c = queue[0][2]
            i = ptr[c]
            take = offsets[c + 1] - i
            if take <= free:
                pop(queue)  # its last jobs start (it is queued once: all jobs at once)
            else:
                take = free
                ptr[c] = i + take
            free -= take
            for j in intra[i:i + take]:
                start[j] = t
                push(running, (t + p[j], c))
        if not running:
            break
        t = running[0][0]
        submitted = []
        while running and running[0][0] == t:
            c = pop(running)[1]
            free += 1
            left[c] -= 1
            if left[c] == 0 and nxt[c] >= 0:
                submitted.append(nxt[c])
    dl = np.array(deadline) if order == "deadline" else None
    return np.array(start), np.array(release), dl, n + ncamp + passes


def fcfs(w: Workload, order: str = "submission") -> CampaignRun:
    """FCFS (:class:`lpsched.campaigns.policies.Fcfs`) on ``w`` by :func:`list_schedule`:
    the run ``simulate(w, policy_factory("fcfs", False, fcfs_order=order))`` returns.

    Parameters
    ----------
    w : Workload
        A workload for which :func:`applies` holds.
    order : {"submission", "generation"}
        Jobs by campaign release time, or by campaign index (default ``"submission"``).

    Returns
    -------
    CampaignRun
        Policy ``"fcfs"``, its starts, releases and events; its invariants checked.

    Raises
    ------
    ValueError
        An unknown ``order``.
    """
    if order not in ORDERS[:2]:
        raise ValueError(f"order must be one of {ORDERS[:2]}, not {order!r}")
    start, release, _, events = list_schedule(w, order)
    run = CampaignRun("fcfs", w, start, release, {}, events)
    check_invariants(run)
    return run


def block_schedule(w: Workload, zeta: np.ndarray, lengths: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """FairCamp in blocks (:func:`lpsched.campaigns.faircamp.faircamp`) on ``w``: whenever
    the machine is free, the ready campaign of smallest Eq. 4.1 deadline (ties: user, then
    submission) runs its ρ-schedule.

    O(c log c + n).

    Parameters
    ----------
    w : Workload
        A workload for which :func:`applies` holds.
    zeta : numpy.ndarray
        Each job's start in its campaign's ρ-schedule (:func:`lpt_schedules`).
    lengths : numpy.ndarray
        Each campaign's ρ-schedule length.

    Returns
    -------
    start : numpy.ndarray
        Each job's start (s).
    release : numpy.ndarray
        Each campaign's release (s).
    deadline : numpy.ndarray
        Each campaign's Eq. 4.1 deadline (s).
    completion : numpy.ndarray
        Each campaign's completion, the end of its block (s).
    events : int
        The events the engine-driven run processes (a submission, a block end and two
        scheduling passes per campaign).
    """
    ncamp = w.campaigns
    nxt, firsts = _successors(w)
    users = w.user.tolist()
    length = lengths.tolist()
    k = w.users
    d_user: dict[int, float] = {}
    deadline = [math.nan] * ncamp
    release = [math.nan] * ncamp
    begin = [math.nan] * ncamp
    completion = [math.nan] * ncamp
    ready: list[tuple[float, int, int, int]] = []
    seq = 0
    t = 0.0

    def submit(c: int) -> None:
        nonlocal seq
        release[c] = t
        u = users[c]
        d = k * length[c] + d_user.get(u, 0.0)
        d_user[u] = deadline[c] = d
        heapq.heappush(ready, (d, u, seq, c))
        seq += 1

    for c in firsts:
        submit(c)
    while ready:
        c = heapq.heappop(ready)[3]
        begin[c] = t
        t = t + length[c]
        completion[c] = t
        if nxt[c] >= 0:
            submit(nxt[c])
    start = np.array(begin)[w.camp] + zeta
    return (start, np.array(release), np.array(deadline), np.array(completion), 4 * ncamp)
